//! The shareable link's query parameters (docs/sessions.md, "The link"): read
//! when the page is rendered; the page sends them back to start the session.

use super::{country_code, MAX_IDENTIFIER_CHARS};
use platform::metadata::ExternalMetadata;
use projects_core::{Environment, Language};
use platform::validation;

/// Names that carry the interviewee's identifier, the first present wins.
pub const IDENTIFIER_PARAMS: [&str; 3] = ["email", "user_id", "external_user_id"];

/// What a link says about its interviewee.
#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub environment: Environment,
    /// The `sandbox_token` of a sandbox link (checked against the project by
    /// whoever opens it: a link without a valid one opens nothing).
    pub sandbox_token: Option<String>,
    pub identifier: String,
    pub external_metadata: ExternalMetadata,
    pub country_code: String,
    /// The `lang` asked for (checked against the project's languages by [`language`]).
    pub requested_language: Option<String>,
    /// Why parameters were ignored, for the log: a link never fails over them.
    pub ignored: Vec<String>,
}

impl Link {
    /// `pairs` are the decoded query parameters; `header_country` the value of the
    /// request header named by the `country_header` variable, if any.
    pub fn parse(pairs: &[(String, String)], header_country: Option<&str>) -> Link {
        let last = |name: &str| pairs.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        let mut ignored = Vec::new();

        let environment = if last("env") == Some("sandbox") { Environment::Sandbox } else { Environment::Production };
        let sandbox_token = match environment {
            Environment::Sandbox => last(projects_core::SANDBOX_TOKEN_PARAM).map(str::to_string),
            Environment::Production => None,
        };

        let mut identifier = String::new();
        for name in IDENTIFIER_PARAMS {
            let Some(value) = last(name).map(str::trim).filter(|v| !v.is_empty()) else { continue };
            if value.chars().count() > MAX_IDENTIFIER_CHARS || value.chars().any(validation::is_forbidden_control) {
                ignored.push(format!("{name}: longer than {MAX_IDENTIFIER_CHARS} characters or has control characters"));
                continue;
            }
            identifier = value.to_string();
            break;
        }

        let (external_metadata, skipped) = ExternalMetadata::from_link(pairs);
        ignored.extend(skipped);

        let country = match last("country") {
            Some(given) => country_code(given).or_else(|| {
                ignored.push("country: not an ISO 3166-1 alpha-2 code".into());
                None
            }),
            None => None,
        };
        let country_code = country.or_else(|| header_country.and_then(country_code)).unwrap_or_default();

        Link {
            environment,
            sandbox_token,
            identifier,
            external_metadata,
            country_code,
            requested_language: last("lang").map(str::to_string),
            ignored,
        }
    }
}

/// The interview's language: the one asked for when the project offers it,
/// otherwise the project's first (English when a project somehow has none).
pub fn language(requested: Option<&str>, offered: &[Language]) -> Language {
    match requested.and_then(|wanted| offered.iter().find(|l| **l == wanted)) {
        Some(wanted) => *wanted,
        None => offered.first().copied().unwrap_or(Language::En),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn identifier_is_the_first_present_in_order() {
        let link = Link::parse(&pairs(&[("external_user_id", "x9"), ("user_id", "u1"), ("email", "")]), None);
        assert_eq!(link.identifier, "u1");
        let link = Link::parse(&pairs(&[("email", "ada@example.com"), ("user_id", "u1")]), None);
        assert_eq!(link.identifier, "ada@example.com");
        assert_eq!(Link::parse(&[], None).identifier, "");
    }

    #[test]
    fn environment_metadata_and_language() {
        let link = Link::parse(
            &pairs(&[("env", "sandbox"), ("external_metadata[plan]", "pro"), ("external_metadata[]", "x"), ("lang", "fr")]),
            None,
        );
        assert_eq!(link.environment, Environment::Sandbox);
        assert_eq!(link.external_metadata.to_json(), r#"{"plan":"pro"}"#);
        assert_eq!(link.requested_language.as_deref(), Some("fr"));
        assert_eq!(link.ignored.len(), 1);
        assert_eq!(Link::parse(&pairs(&[("env", "staging")]), None).environment, Environment::Production);
    }

    #[test]
    fn country_comes_from_the_link_then_the_header() {
        assert_eq!(Link::parse(&pairs(&[("country", "de")]), Some("FR")).country_code, "DE");
        assert_eq!(Link::parse(&[], Some("fr")).country_code, "FR");
        let link = Link::parse(&pairs(&[("country", "Germany")]), Some("T1"));
        assert_eq!(link.country_code, "");
        assert_eq!(link.ignored.len(), 1);
    }

    #[test]
    fn language_must_be_offered() {
        let offered = [Language::De, Language::Fr];
        assert_eq!(language(Some("fr"), &offered), Language::Fr);
        assert_eq!(language(Some("es"), &offered), Language::De);
        assert_eq!(language(Some("xx"), &offered), Language::De);
        assert_eq!(language(None, &offered), Language::De);
        assert_eq!(language(None, &[]), Language::En);
    }
}
