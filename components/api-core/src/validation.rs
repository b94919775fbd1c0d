//! Building blocks for pydantic-v2-style 422 bodies: read a JSON body, then pull
//! typed fields out of it, collecting every problem before failing once.

use crate::error::{ApiError, FieldError, LocPart};
use serde_json::{Map, Value};

/// Parses a JSON body; invalid JSON is 422 `json_invalid` at `["body", <offset>]`.
pub fn parse_json_body(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|error| {
        let offset = byte_offset(body, error.line(), error.column());
        ApiError::Validation(vec![FieldError::new(
            vec!["body".into(), offset.into()],
            "json_invalid",
            "JSON decode error",
        )])
    })
}

/// serde_json reports 1-based line and column; FastAPI reports a byte offset.
fn byte_offset(body: &[u8], line: usize, column: usize) -> usize {
    let line_start: usize = body
        .split(|b| *b == b'\n')
        .take(line.saturating_sub(1))
        .map(|l| l.len() + 1)
        .sum();
    (line_start + column.saturating_sub(1)).min(body.len())
}

/// Length of a string as pydantic counts it (characters, not bytes).
pub fn char_len(text: &str) -> usize {
    text.chars().count()
}

/// Field-by-field reader over one JSON object, under a location prefix (`body`).
pub struct Fields<'a> {
    object: &'a Map<String, Value>,
    prefix: Vec<LocPart>,
    errors: Vec<FieldError>,
}

impl<'a> Fields<'a> {
    /// A non-object body is one 422 `dict_type` entry at the prefix.
    pub fn of(value: &'a Value, prefix: Vec<LocPart>) -> Result<Fields<'a>, ApiError> {
        match value {
            Value::Object(object) => Ok(Fields { object, prefix, errors: Vec::new() }),
            _ => Err(ApiError::Validation(vec![FieldError::new(
                prefix,
                "dict_type",
                "Input should be a valid dictionary or object to extract fields from",
            )])),
        }
    }

    pub fn body(value: &'a Value) -> Result<Fields<'a>, ApiError> {
        Fields::of(value, vec!["body".into()])
    }

    pub fn loc(&self, name: &str) -> Vec<LocPart> {
        let mut loc = self.prefix.clone();
        loc.push(name.into());
        loc
    }

    pub fn error(&mut self, loc: Vec<LocPart>, kind: &'static str, msg: impl Into<String>) {
        self.errors.push(FieldError::new(loc, kind, msg));
    }

    /// The raw value; `None` when absent. (`Some(Value::Null)` when explicitly null.)
    pub fn raw(&self, name: &str) -> Option<&'a Value> {
        self.object.get(name)
    }

    pub fn has(&self, name: &str) -> bool {
        self.object.contains_key(name)
    }

    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// A required, non-null string of `min..=max` characters.
    pub fn required_string(&mut self, name: &str, min: usize, max: usize) -> Option<String> {
        match self.raw(name) {
            None => {
                self.error(self.loc(name), "missing", "Field required");
                None
            }
            Some(value) => self.string_value(name, value, min, max),
        }
    }

    /// An optional string: absent or null is `None`; otherwise checked like a required one.
    pub fn optional_string(&mut self, name: &str, min: usize, max: usize) -> Option<String> {
        match self.raw(name) {
            None | Some(Value::Null) => None,
            Some(value) => self.string_value(name, value, min, max),
        }
    }

    fn string_value(&mut self, name: &str, value: &Value, min: usize, max: usize) -> Option<String> {
        let loc = self.loc(name);
        string_in(value, loc, min, max).map_err(|e| self.errors.push(e)).ok()
    }

    /// Fails with every collected problem, or hands back nothing (all fields read were fine).
    pub fn finish(self) -> Result<(), ApiError> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::Validation(self.errors))
        }
    }

    pub fn into_errors(self) -> Vec<FieldError> {
        self.errors
    }
}

/// Checks that `value` is a string of `min..=max` characters, with pydantic's messages.
pub fn string_in(value: &Value, loc: Vec<LocPart>, min: usize, max: usize) -> Result<String, FieldError> {
    let Value::String(text) = value else {
        return Err(FieldError::new(loc, "string_type", "Input should be a valid string"));
    };
    let length = char_len(text);
    if length < min {
        let unit = if min == 1 { "character" } else { "characters" };
        return Err(FieldError::new(loc, "string_too_short", format!("String should have at least {min} {unit}")));
    }
    if length > max {
        let unit = if max == 1 { "character" } else { "characters" };
        return Err(FieldError::new(loc, "string_too_long", format!("String should have at most {max} {unit}")));
    }
    Ok(text.clone())
}

/// pydantic's enum message: `Input should be 'a', 'b' or 'c'`.
pub fn enum_message(allowed: &[&str]) -> String {
    let quoted: Vec<String> = allowed.iter().map(|a| format!("'{a}'")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("Input should be {} or {last}", rest.join(", ")),
        Some((only, _)) => format!("Input should be {only}"),
        None => "Input should be a valid value".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn single(error: ApiError) -> FieldError {
        match error {
            ApiError::Validation(mut errors) if errors.len() == 1 => errors.remove(0),
            other => panic!("expected one validation error, got {other:?}"),
        }
    }

    #[test]
    fn invalid_json_points_at_the_byte() {
        let error = single(parse_json_body(b"{\"a\": 1,\n \"b\": }").unwrap_err());
        assert_eq!(error.kind, "json_invalid");
        assert_eq!(error.loc, vec![LocPart::from("body"), LocPart::from(15usize)]);
        assert!(parse_json_body(b"{\"a\": 1}").is_ok());
    }

    #[test]
    fn non_objects_are_dict_type() {
        let value = json!([1, 2]);
        let error = single(Fields::body(&value).err().unwrap());
        assert_eq!(error.kind, "dict_type");
        assert_eq!(error.loc, vec![LocPart::from("body")]);
    }

    #[test]
    fn collects_every_problem() {
        let value = json!({"b": 5, "c": "", "d": "x".repeat(11), "e": null});
        let mut fields = Fields::body(&value).unwrap();
        assert_eq!(fields.required_string("a", 1, 10), None);
        assert_eq!(fields.required_string("b", 1, 10), None);
        assert_eq!(fields.required_string("c", 1, 10), None);
        assert_eq!(fields.optional_string("d", 1, 10), None);
        assert_eq!(fields.optional_string("e", 1, 10), None);
        let kinds: Vec<_> = fields.into_errors().into_iter().map(|e| (e.loc[1].clone(), e.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                ("a".into(), "missing"),
                ("b".into(), "string_type"),
                ("c".into(), "string_too_short"),
                ("d".into(), "string_too_long"),
            ]
        );
    }

    #[test]
    fn lengths_count_characters() {
        let value = json!("ééé");
        assert!(string_in(&value, vec![], 1, 3).is_ok());
        let error = string_in(&value, vec![], 1, 2).unwrap_err();
        assert_eq!(error.msg, "String should have at most 2 characters");
        let error = string_in(&json!(""), vec![], 1, 2).unwrap_err();
        assert_eq!(error.msg, "String should have at least 1 character");
    }

    #[test]
    fn enum_messages_read_like_pydantic() {
        assert_eq!(enum_message(&["typing", "talking"]), "Input should be 'typing' or 'talking'");
        assert_eq!(enum_message(&["a", "b", "c"]), "Input should be 'a', 'b' or 'c'");
        assert_eq!(enum_message(&["survey"]), "Input should be 'survey'");
    }
}
