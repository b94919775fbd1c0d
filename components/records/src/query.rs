//! The list's query and items (`GET /v1/interviews`, docs/interviews.md):
//! parsed from the query string, and read by the record's store
//! (`record::store::list`).

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::error::{ApiError, ApiResult, FieldError, LocPart};
use platform::metadata;
use platform::paging::{Cursor, PageRequest};
use projects_core::Environment;
use crate::quality::Quality;
use text_enum::TextEnum;
use platform::time;
use platform::validation;

/// Bounds that keep one filter's SQL small.
pub const MAX_FILTER_KEYS: usize = metadata::MAX_KEYS;
pub const MAX_FILTER_VALUES: usize = 500;

/// `external_metadata[<key>]` given once or more: any of the values matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataFilter {
    pub key: String,
    pub values: Vec<String>,
}

/// Where an interview stands in the list order: created time, then id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub created_ms: i64,
    pub interview_id: InterviewId,
}

impl Position {
    fn of_cursor(cursor: &Cursor) -> Option<Position> {
        Some(Position { created_ms: cursor.key.parse().ok()?, interview_id: InterviewId::parse(&cursor.id)? })
    }
}

/// A valid `GET /v1/interviews` query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListQuery {
    pub project_id: Option<ProjectId>,
    /// Different keys combine with AND, in the order first given.
    pub metadata: Vec<MetadataFilter>,
    pub environment: Environment,
    /// Exclusive bounds, UNIX milliseconds.
    pub created_after: Option<i64>,
    pub created_before: Option<i64>,
    pub page: PageRequest,
}

fn invalid_parameter(message: impl Into<String>) -> ApiError {
    ApiError::BadRequestDetail { code: "invalid_parameter", message: message.into() }
}

fn query_loc(name: &str) -> Vec<LocPart> {
    vec!["query".into(), name.into()]
}

impl ListQuery {
    /// The contract's parameters (`project_id`, `external_metadata[...]`) are a 400
    /// `invalid_parameter` when malformed; the additive ones a 422. The last of
    /// a repeated single-valued parameter wins; unknown parameters are ignored.
    pub fn parse(pairs: &[(String, String)]) -> ApiResult<ListQuery> {
        let mut metadata: Vec<MetadataFilter> = Vec::new();
        let mut values = 0;
        for (name, value) in pairs {
            let key = match metadata::param_key(name) {
                None => continue,
                Some(Err(reason)) => return Err(invalid_parameter(format!("Invalid parameter {name:?}: {reason}"))),
                Some(Ok(key)) => key,
            };
            values += 1;
            match metadata.iter_mut().find(|f| f.key == key) {
                Some(filter) if !filter.values.contains(value) => filter.values.push(value.clone()),
                Some(_) => {}
                None => metadata.push(MetadataFilter { key: key.to_string(), values: vec![value.clone()] }),
            }
        }
        if metadata.len() > MAX_FILTER_KEYS || values > MAX_FILTER_VALUES {
            return Err(invalid_parameter(format!(
                "At most {MAX_FILTER_KEYS} external_metadata keys and {MAX_FILTER_VALUES} values per request"
            )));
        }
        let last = |name: &str| pairs.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        let project_id = match last("project_id") {
            None => None,
            Some(text) => Some(
                ProjectId::parse(text.trim())
                    .ok_or_else(|| invalid_parameter(format!("project_id must be a UUID, got {text:?}")))?,
            ),
        };

        let mut errors = Vec::new();
        let environment = match last("environment") {
            None => Environment::Production,
            Some(text) => Environment::parse(text).unwrap_or_else(|| {
                errors.push(FieldError::new(query_loc("environment"), "enum", validation::enum_message(Environment::NAMES)));
                Environment::Production
            }),
        };
        let mut instant = |name: &str| {
            let text = last(name)?;
            match time::parse_rfc3339(text.trim()) {
                Some(at) => Some(time::unix_millis(at)),
                None => {
                    errors.push(FieldError::new(
                        query_loc(name),
                        "datetime_parsing",
                        "Input should be a valid datetime: RFC 3339 in UTC, e.g. 2026-11-23T10:00:00Z",
                    ));
                    None
                }
            }
        };
        let created_after = instant("created_after");
        let created_before = instant("created_before");
        let page = PageRequest::parse(pairs, |key| key.parse::<i64>().is_ok(), &mut errors);
        if !errors.is_empty() {
            return Err(ApiError::Validation(errors));
        }
        Ok(ListQuery { project_id, metadata, environment, created_after, created_before, page })
    }
}

/// One list item: the contract's three fields, and (additive) the quality
/// signals of an interview that has ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListItem {
    pub interview_id: InterviewId,
    pub project_id: ProjectId,
    pub created_at: String,
    pub created_ms: i64,
    pub quality: Option<Quality>,
}

impl ListItem {
    pub fn cursor(&self) -> Cursor {
        Cursor { key: self.created_ms.to_string(), id: self.interview_id.to_string() }
    }
}

impl ListQuery {
    /// Where the page starts after, if a cursor was given.
    pub fn after(&self) -> Option<Position> {
        self.page.after.as_ref().and_then(Position::of_cursor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(query: &str) -> Vec<(String, String)> {
        platform::http::parse_query(query)
    }

    fn status(result: ApiResult<ListQuery>) -> (u16, String) {
        let error = result.unwrap_err();
        let body = error.body();
        (error.status(), body.to_string())
    }

    #[test]
    fn metadata_filters_group_values_by_key() {
        let query = ListQuery::parse(&pairs(
            "external_metadata%5Bplan%5D=pro&external_metadata[plan]=team&external_metadata[city]=S%C3%A3o+Paulo&external_metadata[plan]=pro&project_id=6F1C0F0E-4D0A-4B8E-9A53-2D7C1F9C2B10",
        ))
        .unwrap();
        assert_eq!(
            query.metadata,
            vec![
                MetadataFilter { key: "plan".into(), values: vec!["pro".into(), "team".into()] },
                MetadataFilter { key: "city".into(), values: vec!["São Paulo".into()] },
            ]
        );
        assert_eq!(query.project_id.map(|id| id.to_string()).as_deref(), Some("6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10"));
        assert_eq!((query.environment, query.page.limit), (Environment::Production, None));
    }

    #[test]
    fn malformed_spec_parameters_are_400_and_additive_ones_422() {
        for bad in ["project_id=42", "external_metadata=x", "external_metadata[]=x", "external_metadata[a][b]=x"] {
            let (code, body) = status(ListQuery::parse(&pairs(bad)));
            assert_eq!(code, 400, "{bad}");
            assert!(body.contains("invalid_parameter"), "{body}");
        }
        let (code, body) = status(ListQuery::parse(&pairs("limit=0&cursor=zzz&created_after=yesterday&environment=dev")));
        assert_eq!(code, 422);
        for kind in ["greater_than_equal", "value_error", "datetime_parsing", "enum"] {
            assert!(body.contains(kind), "{kind}: {body}");
        }
        assert_eq!(status(ListQuery::parse(&pairs("limit=abc"))).0, 422);
        assert_eq!(status(ListQuery::parse(&pairs("limit=1001"))).0, 422);
    }

    #[test]
    fn cursors_are_list_positions() {
        let item = ListItem { interview_id: InterviewId::new_random(), project_id: ProjectId::new_random(), created_at: "t".into(), created_ms: 7, quality: None };
        let query = ListQuery::parse(&pairs(&format!("cursor={}", item.cursor().encode()))).unwrap();
        assert_eq!(query.after(), Some(Position { created_ms: 7, interview_id: item.interview_id }));
        assert!(query.page.is_paged());
    }
}
