//! External metadata: the interviewee's key/value pairs. A link sets them as
//! `external_metadata[<key>]=<value>` query parameters, and `GET /v1/interviews`
//! filters on them with the same syntax, so a value set in a link can be
//! filtered on as is. Stored as a JSON object of strings.

use crate::error::{FieldError, LocPart};
use crate::validation::{self, Checked};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

pub const PARAM_PREFIX: &str = "external_metadata";
pub const MAX_KEYS: usize = 50;
pub const MAX_KEY_CHARS: usize = 128;
pub const MAX_VALUE_CHARS: usize = 1000;

/// Why an `external_metadata...` query parameter is malformed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamError {
    NoKey,
    EmptyKey,
    NestedBrackets,
    Unclosed,
    KeyTooLong,
    ControlCharacter,
}

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ParamError::NoKey => "external_metadata needs a key: external_metadata[<key>]=<value>",
            ParamError::EmptyKey => "the key in external_metadata[<key>] must not be empty",
            ParamError::NestedBrackets => "the key in external_metadata[<key>] must not contain brackets",
            ParamError::Unclosed => "write the parameter as external_metadata[<key>]=<value>",
            ParamError::KeyTooLong => "the key in external_metadata[<key>] is longer than 128 characters",
            ParamError::ControlCharacter => "the key in external_metadata[<key>] contains a control character",
        })
    }
}

/// The key of an `external_metadata[<key>]` parameter name: `None` when the
/// name is another parameter, `Some(Err(..))` when it is a malformed one.
pub fn param_key(name: &str) -> Option<Result<&str, ParamError>> {
    let rest = name.strip_prefix(PARAM_PREFIX)?;
    if rest.is_empty() {
        return Some(Err(ParamError::NoKey));
    }
    let Some(inner) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) else {
        return Some(Err(if rest.starts_with('[') { ParamError::Unclosed } else { ParamError::NoKey }));
    };
    Some(if inner.contains(['[', ']']) {
        Err(ParamError::NestedBrackets)
    } else if inner.is_empty() {
        Err(ParamError::EmptyKey)
    } else if inner.chars().count() > MAX_KEY_CHARS {
        Err(ParamError::KeyTooLong)
    } else if inner.chars().any(validation::is_forbidden_control) {
        Err(ParamError::ControlCharacter)
    } else {
        Ok(inner)
    })
}

/// An interviewee's metadata: at most 50 keys of 1..128 characters, string values
/// of at most 1,000 characters, no control characters. Keys are kept sorted, so
/// its JSON form is the same however it was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExternalMetadata(BTreeMap<String, String>);

impl ExternalMetadata {
    /// From a link's query parameters. A malformed parameter, a value that is too
    /// long, or a key beyond the 50th is skipped; the reasons come back for the log.
    /// The same key twice keeps the last value.
    pub fn from_link(pairs: &[(String, String)]) -> (ExternalMetadata, Vec<String>) {
        let mut map = BTreeMap::new();
        let mut skipped = Vec::new();
        for (name, value) in pairs {
            match param_key(name) {
                None => {}
                Some(Err(reason)) => skipped.push(format!("{name}: {reason}")),
                Some(Ok(key)) => {
                    if value.chars().count() > MAX_VALUE_CHARS || value.chars().any(validation::is_forbidden_control) {
                        skipped.push(format!("{name}: the value is longer than {MAX_VALUE_CHARS} characters or has control characters"));
                    } else if map.len() >= MAX_KEYS && !map.contains_key(key) {
                        skipped.push(format!("{name}: more than {MAX_KEYS} keys"));
                    } else {
                        map.insert(key.to_string(), value.clone());
                    }
                }
            }
        }
        (ExternalMetadata(map), skipped)
    }

    /// From a JSON body: an object of strings within the limits above (422s at `loc`).
    pub fn parse(value: &Value, loc: Vec<LocPart>) -> Checked<ExternalMetadata> {
        let object = validation::object(value, loc.clone())?;
        let mut errors = Vec::new();
        if object.len() > MAX_KEYS {
            errors.push(FieldError::new(
                loc.clone(),
                "too_long",
                format!("Dictionary should have at most {MAX_KEYS} items after validation, not {}", object.len()),
            ));
        }
        let mut map = BTreeMap::new();
        for (key, value) in &object {
            let mut at = loc.clone();
            at.push(key.as_str().into());
            if let Err(reason) = param_key(&format!("{PARAM_PREFIX}[{key}]")).unwrap_or(Err(ParamError::NoKey)) {
                errors.push(FieldError::new(at.clone(), "value_error", format!("Value error, {reason}")));
                continue;
            }
            match validation::string_in(value, at, 0, MAX_VALUE_CHARS) {
                Ok(text) => {
                    map.insert(key.clone(), text);
                }
                Err(error) => errors.push(error),
            }
        }
        if errors.is_empty() {
            Ok(ExternalMetadata(map))
        } else {
            Err(errors)
        }
    }

    /// A stored JSON text (written by [`ExternalMetadata::to_json`]); anything else is empty.
    pub fn from_stored(text: &str) -> ExternalMetadata {
        match serde_json::from_str::<BTreeMap<String, String>>(text) {
            Ok(map) => ExternalMetadata(map),
            Err(_) => ExternalMetadata::default(),
        }
    }

    /// Compact JSON, keys sorted: `{"plan":"pro"}`.
    pub fn to_json(&self) -> String {
        serde_json::to_string(&self.0).expect("a map of strings serializes")
    }

    pub fn to_value(&self) -> Value {
        Value::Object(self.0.iter().map(|(k, v)| (k.clone(), Value::from(v.as_str()))).collect::<Map<_, _>>())
    }

    pub fn get(&self, key: &str) -> Option<&str> {
        self.0.get(key).map(String::as_str)
    }

    /// Every key with its value, keys in order.
    pub fn pairs(&self) -> Vec<(&str, &str)> {
        self.0.iter().map(|(key, value)| (key.as_str(), value.as_str())).collect()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
    }

    #[test]
    fn parameter_names_carry_one_bracketed_key() {
        assert_eq!(param_key("external_metadata[plan]"), Some(Ok("plan")));
        assert_eq!(param_key("external_metadata[a b=c&d]"), Some(Ok("a b=c&d")));
        assert_eq!(param_key("project_id"), None);
        assert_eq!(param_key("external_metadata"), Some(Err(ParamError::NoKey)));
        assert_eq!(param_key("external_metadata[]"), Some(Err(ParamError::EmptyKey)));
        assert_eq!(param_key("external_metadata[a][b]"), Some(Err(ParamError::NestedBrackets)));
        assert_eq!(param_key("external_metadata[a"), Some(Err(ParamError::Unclosed)));
        assert_eq!(param_key("external_metadataX"), Some(Err(ParamError::NoKey)));
        let long = format!("external_metadata[{}]", "k".repeat(129));
        assert_eq!(param_key(&long), Some(Err(ParamError::KeyTooLong)));
        let max = format!("external_metadata[{}]", "é".repeat(128));
        assert!(matches!(param_key(&max), Some(Ok(_))));
    }

    #[test]
    fn links_keep_good_pairs_and_report_the_rest() {
        let (metadata, skipped) = ExternalMetadata::from_link(&pairs(&[
            ("external_metadata[plan]", "free"),
            ("external_metadata[plan]", "pro"),
            ("external_metadata[]", "x"),
            ("external_metadata[long]", &"v".repeat(1001)),
            ("email", "a@b.c"),
        ]));
        assert_eq!(metadata.to_json(), r#"{"plan":"pro"}"#);
        assert_eq!(skipped.len(), 2);
    }

    #[test]
    fn links_stop_at_fifty_keys() {
        let list: Vec<(String, String)> =
            (0..60).map(|i| (format!("external_metadata[k{i:02}]"), i.to_string())).collect();
        let (metadata, skipped) = ExternalMetadata::from_link(&list);
        assert_eq!(metadata.len(), 50);
        assert_eq!(skipped.len(), 10);
    }

    #[test]
    fn bodies_are_objects_of_strings() {
        let loc = || vec![LocPart::from("body"), LocPart::from("external_metadata")];
        let parsed = ExternalMetadata::parse(&json!({"b": "2", "a": "1"}), loc()).unwrap();
        assert_eq!(parsed.to_json(), r#"{"a":"1","b":"2"}"#);
        let errors = ExternalMetadata::parse(&json!({"n": 42, "": "x", "k[1]": "y"}), loc()).unwrap_err();
        let kinds: Vec<_> = errors.iter().map(|e| e.kind).collect();
        assert_eq!(kinds, vec!["string_type", "value_error", "value_error"], "in the body's order");
        assert_eq!(ExternalMetadata::parse(&json!([]), loc()).unwrap_err()[0].kind, "dict_type");
        assert_eq!(ExternalMetadata::from_stored(&parsed.to_json()), parsed);
        assert!(ExternalMetadata::from_stored("garbage").is_empty());
    }
}
