//! Building blocks for pydantic-v2-style 422 bodies: read a JSON body, then pull
//! typed fields out of it, collecting every problem before failing once.

use crate::error::{ApiError, FieldError, LocPart};
use crate::http::{ApiRequest, PathParams};
use crate::ids::ProjectId;
use text_enum::TextEnum;
use serde_json::{Map, Value};

/// Parses a JSON body; invalid JSON is 422 `json_invalid` at `["body", <offset>]`,
/// whose message says what is wrong and where (`JSON decode error: expected `,`
/// or `}` at line 3 column 5`).
pub fn parse_json_body(body: &[u8]) -> Result<Value, ApiError> {
    serde_json::from_slice(body).map_err(|error| {
        let offset = byte_offset(body, error.line(), error.column());
        ApiError::Validation(vec![FieldError::new(
            vec!["body".into(), offset.into()],
            "json_invalid",
            format!("JSON decode error: {error}"),
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
    if text.chars().any(is_forbidden_control) {
        return Err(FieldError::new(
            loc,
            "string_pattern_mismatch",
            format!("String should match pattern '{NO_CONTROL_CHARACTERS_PATTERN}'"),
        ));
    }
    Ok(text.clone())
}

/// Text may hold tab, newline and carriage return, but no other control character
/// (a NUL or an escape sequence in a stored text breaks exports and terminals).
pub const NO_CONTROL_CHARACTERS_PATTERN: &str = r"^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]*$";

pub fn is_forbidden_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\r')
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

/// The JSON body of a request, read the same way on every route.
pub fn json_body(request: &ApiRequest) -> Result<Value, ApiError> {
    parse_json_request(request.header("content-type"), &request.body)
}

/// A JSON request body as FastAPI reads one: an empty body is 422 `missing` at
/// `["body"]`; without a `Content-Type` the body is parsed as JSON; with a
/// non-JSON one (anything but `application/json` or `application/*+json`) it is
/// not parsed and is 422 `dict_type`, whose message names the type expected;
/// otherwise [`parse_json_body`].
pub fn parse_json_request(content_type: Option<&str>, body: &[u8]) -> Result<Value, ApiError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::Validation(vec![FieldError::new(vec!["body".into()], "missing", "Field required")]));
    }
    if let Some(content_type) = content_type.filter(|given| !is_json_content_type(given)) {
        return Err(ApiError::Validation(vec![FieldError::new(
            vec!["body".into()],
            "dict_type",
            format!(
                "Input should be a JSON object sent with Content-Type: application/json \
                 (got Content-Type: {})",
                content_type.trim()
            ),
        )]));
    }
    parse_json_body(body)
}

/// `application/json`, `application/merge-patch+json`, any `application/*+json`
/// (parameters such as `charset` aside).
pub fn is_json_content_type(content_type: &str) -> bool {
    crate::http::media_type(content_type).is_some_and(|media| {
        media.type_() == mime::APPLICATION && (media.subtype() == mime::JSON || media.suffix() == Some(mime::JSON))
    })
}

/// A rule checks one JSON value found at `loc`; it may report several problems
/// (the items of a list).
pub type Checked<T> = Result<T, Vec<FieldError>>;

impl<'a> Fields<'a> {
    /// Runs `rule` on the field when it is present (null included); problems are collected.
    pub fn check<T>(&mut self, name: &str, rule: impl FnOnce(&Value, Vec<LocPart>) -> Checked<T>) -> Option<T> {
        let value = self.raw(name)?;
        let loc = self.loc(name);
        match rule(value, loc) {
            Ok(value) => Some(value),
            Err(errors) => {
                self.errors.extend(errors);
                None
            }
        }
    }

    /// A field that may be absent or null (`None` then): `rule` checks any other value.
    pub fn check_nullable<T>(&mut self, name: &str, rule: impl FnOnce(&Value, Vec<LocPart>) -> Checked<T>) -> Option<T> {
        self.check(name, |v, l| nullable(v, l, rule)).flatten()
    }

    /// Like [`Fields::check`], but a missing field is 422 `missing`.
    pub fn require<T>(&mut self, name: &str, rule: impl FnOnce(&Value, Vec<LocPart>) -> Checked<T>) -> Option<T> {
        if !self.has(name) {
            self.error(self.loc(name), "missing", "Field required");
            return None;
        }
        self.check(name, rule)
    }

    /// Adds problems found elsewhere (by a rule run on a derived value).
    pub fn extend(&mut self, errors: impl IntoIterator<Item = FieldError>) {
        self.errors.extend(errors);
    }
}

fn one<T>(error: FieldError) -> Checked<T> {
    Err(vec![error])
}

/// Accepts null as `None`; anything else goes through `rule`.
pub fn nullable<T>(value: &Value, loc: Vec<LocPart>, rule: impl FnOnce(&Value, Vec<LocPart>) -> Checked<T>) -> Checked<Option<T>> {
    match value {
        Value::Null => Ok(None),
        other => rule(other, loc).map(Some),
    }
}

/// A string of `min..=max` characters.
pub fn text(value: &Value, loc: Vec<LocPart>, min: usize, max: usize) -> Checked<String> {
    string_in(value, loc, min, max).map_err(|e| vec![e])
}

/// A string of `min..=max` characters that also satisfies `matches` (pydantic's
/// `pattern`, reported as `string_pattern_mismatch` with the pattern's text).
pub fn patterned(
    value: &Value,
    loc: Vec<LocPart>,
    min: usize,
    max: usize,
    pattern: &str,
    matches: impl FnOnce(&str) -> bool,
) -> Checked<String> {
    let text = string_in(value, loc.clone(), min, max).map_err(|e| vec![e])?;
    if !matches(&text) {
        return one(FieldError::new(loc, "string_pattern_mismatch", format!("String should match pattern '{pattern}'")));
    }
    Ok(text)
}

/// The hex colour pattern of the contract (docs/api-contract.md).
pub const HEX_COLOR_PATTERN: &str = "^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$";

/// A colour written `#RRGGBB` or `#RRGGBBAA`; only [`HexColor::parse`] makes one,
/// so a stored project that somehow holds another text fails to read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct HexColor(String);

/// `#RRGGBB` or `#RRGGBBAA` ([`HEX_COLOR_PATTERN`]).
fn is_hex_color(text: &str) -> bool {
    text.strip_prefix('#')
        .is_some_and(|hex| matches!(hex.len(), 6 | 8) && hex.bytes().all(|b| b.is_ascii_hexdigit()))
}

impl HexColor {
    pub fn parse(text: &str) -> Option<HexColor> {
        is_hex_color(text).then(|| HexColor(text.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The red, green and blue channels (alpha ignored).
    pub fn rgb(&self) -> [u8; 3] {
        let channel = |at: usize| u8::from_str_radix(&self.0[at..at + 2], 16).unwrap_or(0);
        [channel(1), channel(3), channel(5)]
    }
}

impl TryFrom<String> for HexColor {
    type Error = String;
    fn try_from(text: String) -> Result<HexColor, String> {
        HexColor::parse(&text).ok_or_else(|| format!("{text:?} is not a #RRGGBB[AA] colour"))
    }
}

impl From<HexColor> for String {
    fn from(color: HexColor) -> String {
        color.0
    }
}

impl std::fmt::Display for HexColor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub fn hex_color(value: &Value, loc: Vec<LocPart>) -> Checked<HexColor> {
    patterned(value, loc, 0, usize::MAX, HEX_COLOR_PATTERN, is_hex_color).map(HexColor)
}

/// One of `allowed` (a str-valued Enum): pydantic's `enum` error otherwise, whatever the input type.
pub fn enum_text(value: &Value, loc: Vec<LocPart>, allowed: &[&str]) -> Checked<String> {
    match value {
        Value::String(text) if allowed.contains(&text.as_str()) => Ok(text.clone()),
        _ => one(FieldError::new(loc, "enum", enum_message(allowed))),
    }
}

/// One of a [`TextEnum`]'s names: pydantic's `enum` error otherwise.
pub fn one_of<T: TextEnum>(value: &Value, loc: Vec<LocPart>) -> Checked<T> {
    match value.as_str().and_then(T::parse) {
        Some(parsed) => Ok(parsed),
        None => one(FieldError::new(loc, "enum", enum_message(T::NAMES))),
    }
}

/// One of `allowed` (a `Literal[...]`): `literal_error` otherwise.
pub fn literal_text(value: &Value, loc: Vec<LocPart>, allowed: &[&str]) -> Checked<String> {
    match value {
        Value::String(text) if allowed.contains(&text.as_str()) => Ok(text.clone()),
        _ => one(FieldError::new(loc, "literal_error", enum_message(allowed))),
    }
}

/// One of `allowed` (an int-valued Enum, e.g. 10, 15, 20): `enum` otherwise, with
/// pydantic's unquoted message `Input should be 10, 15 or 20`.
pub fn enum_int(value: &Value, loc: Vec<LocPart>, allowed: &[i64]) -> Checked<i64> {
    if let Some(number) = as_exact_int(value) {
        if allowed.contains(&number) {
            return Ok(number);
        }
    }
    let listed: Vec<String> = allowed.iter().map(i64::to_string).collect();
    let message = match listed.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("Input should be {} or {last}", rest.join(", ")),
        Some((only, _)) => format!("Input should be {only}"),
        None => "Input should be a valid value".into(),
    };
    one(FieldError::new(loc, "enum", message))
}

/// An integer, or a float with no fractional part (as pydantic's lax mode takes it).
fn as_exact_int(value: &Value) -> Option<i64> {
    match value {
        Value::Number(number) => number
            .as_i64()
            .or_else(|| number.as_f64().filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15).map(|f| f as i64)),
        _ => None,
    }
}

/// An integer in `min..=max`: `int_type`, `int_from_float`, `greater_than_equal`,
/// `less_than_equal` as pydantic reports them.
pub fn int_in(value: &Value, loc: Vec<LocPart>, min: i64, max: i64) -> Checked<i64> {
    let number = match value {
        Value::Number(number) => match as_exact_int(value) {
            Some(n) => n,
            None if number.is_f64() => {
                return one(FieldError::new(
                    loc,
                    "int_from_float",
                    "Input should be a valid integer, got a number with a fractional part",
                ))
            }
            None => return one(FieldError::new(loc, "int_type", "Input should be a valid integer")),
        },
        _ => return one(FieldError::new(loc, "int_type", "Input should be a valid integer")),
    };
    if number < min {
        return one(FieldError::new(loc, "greater_than_equal", format!("Input should be greater than or equal to {min}")));
    }
    if number > max {
        return one(FieldError::new(loc, "less_than_equal", format!("Input should be less than or equal to {max}")));
    }
    Ok(number)
}

/// A list whose items each pass `item` (errors carry the item's index in `loc`);
/// fewer than `min_items` items is pydantic's `too_short`.
pub fn list_of<T>(
    value: &Value,
    loc: Vec<LocPart>,
    min_items: usize,
    item: impl Fn(&Value, Vec<LocPart>) -> Checked<T>,
) -> Checked<Vec<T>> {
    let Value::Array(items) = value else {
        return one(FieldError::new(loc, "list_type", "Input should be a valid list"));
    };
    let mut out = Vec::with_capacity(items.len());
    let mut errors = Vec::new();
    for (index, value) in items.iter().enumerate() {
        let mut item_loc = loc.clone();
        item_loc.push(index.into());
        match item(value, item_loc) {
            Ok(value) => out.push(value),
            Err(problems) => errors.extend(problems),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if out.len() < min_items {
        let unit = if min_items == 1 { "item" } else { "items" };
        return one(FieldError::new(
            loc,
            "too_short",
            format!("List should have at least {min_items} {unit} after validation, not {}", out.len()),
        ));
    }
    Ok(out)
}

/// A JSON boolean (pydantic's `bool_type` otherwise).
pub fn boolean(value: &Value, loc: Vec<LocPart>) -> Checked<bool> {
    match value {
        Value::Bool(flag) => Ok(*flag),
        _ => one(FieldError::new(loc, "bool_type", "Input should be a valid boolean")),
    }
}

/// A JSON object (pydantic's `dict_type` otherwise).
pub fn object(value: &Value, loc: Vec<LocPart>) -> Checked<Map<String, Value>> {
    match value {
        Value::Object(map) => Ok(map.clone()),
        _ => one(FieldError::new(loc, "dict_type", "Input should be a valid dictionary")),
    }
}

/// Which URLs a field takes.
#[derive(Debug, Clone, Copy)]
pub struct UrlRule {
    pub max_len: usize,
    /// pydantic `pattern` `^https://.*` on top of the URL type.
    pub https_only: bool,
}

/// The most characters pydantic's `HttpUrl` takes.
pub const MAX_URL_LEN: usize = 2083;

/// An absolute `http(s)` URL with a host: `string_type`, `string_too_short`,
/// `string_too_long`, `string_pattern_mismatch` (`^https://.*` when `https_only`),
/// `url_parsing` ("Input should be a valid URL, <reason>") and `url_scheme`.
pub fn http_url(value: &Value, loc: Vec<LocPart>, rule: UrlRule) -> Checked<String> {
    let text = if rule.https_only {
        patterned(value, loc.clone(), 1, rule.max_len, "^https://.*", |t| t.starts_with("https://"))?
    } else {
        text(value, loc.clone(), 1, rule.max_len)?
    };
    match url::Url::parse(&text) {
        Err(error) => one(FieldError::new(loc, "url_parsing", format!("Input should be a valid URL, {error}"))),
        Ok(parsed) if !matches!(parsed.scheme(), "http" | "https") => {
            one(FieldError::new(loc, "url_scheme", "URL scheme should be 'http' or 'https'"))
        }
        Ok(parsed) if parsed.host_str().is_none_or(str::is_empty) => {
            one(FieldError::new(loc, "url_parsing", "Input should be a valid URL, empty host"))
        }
        Ok(_) => Ok(text),
    }
}

/// A UUID path or query parameter: `uuid_parsing` with the parser's reason.
pub fn uuid_param(text: &str, loc: Vec<LocPart>) -> Result<uuid::Uuid, FieldError> {
    uuid::Uuid::parse_str(text)
        .map_err(|error| FieldError::new(loc, "uuid_parsing", format!("Input should be a valid UUID, {error}")))
}

/// The `project_id` path parameter (`uuid_parsing` at `["path","project_id"]` otherwise).
pub fn project_id_param(params: &PathParams) -> Result<ProjectId, FieldError> {
    uuid_param(params.get("project_id"), vec!["path".into(), "project_id".into()]).map(ProjectId::from)
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
    fn control_characters_other_than_whitespace_are_refused() {
        for bad in ["a\u{0}b", "\u{1b}[31m", "x\u{7f}", "\u{85}"] {
            let error = string_in(&json!(bad), vec![], 0, 100).unwrap_err();
            assert_eq!(error.kind, "string_pattern_mismatch", "{bad:?}");
        }
        assert!(string_in(&json!("tab\tnew\nline\r\n"), vec![], 0, 100).is_ok());
    }

    #[test]
    fn enum_messages_read_like_pydantic() {
        assert_eq!(enum_message(&["typing", "talking"]), "Input should be 'typing' or 'talking'");
        assert_eq!(enum_message(&["a", "b", "c"]), "Input should be 'a', 'b' or 'c'");
        assert_eq!(enum_message(&["survey"]), "Input should be 'survey'");
    }

    #[test]
    fn json_requests_follow_fastapi() {
        assert!(is_json_content_type("application/json"));
        assert!(is_json_content_type("Application/JSON; charset=utf-8"));
        assert!(is_json_content_type("application/merge-patch+json"));
        assert!(!is_json_content_type("text/plain"));
        assert!(!is_json_content_type("application/x-www-form-urlencoded"));
        assert_eq!(single(parse_json_request(None, b"  ").unwrap_err()).kind, "missing");
        assert_eq!(single(parse_json_request(Some("text/plain"), b"{}").unwrap_err()).kind, "dict_type");
        assert_eq!(single(parse_json_request(Some("application/json"), b"{").unwrap_err()).kind, "json_invalid");
        assert_eq!(parse_json_request(None, b"{\"a\":1}").unwrap(), json!({"a": 1}));
    }

    #[test]
    fn colours_are_six_or_eight_hex_digits() {
        for good in ["#6759DF", "#6759df80", "#000000"] {
            assert_eq!(HexColor::parse(good).unwrap().as_str(), good);
        }
        for bad in ["red", "6759DF", "#6759D", "#6759DF8", "#6759DG", "#6759DF800"] {
            assert!(HexColor::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(HexColor::parse("#FF8000").unwrap().rgb(), [255, 128, 0]);
        // A stored text that is not a colour does not read as one.
        assert!(serde_json::from_value::<HexColor>(json!("red")).is_err());
        assert_eq!(serde_json::to_value(HexColor::parse("#FF8000").unwrap()).unwrap(), json!("#FF8000"));
    }

    #[test]
    fn typed_rules_report_pydantic_types() {
        let loc = || vec![LocPart::from("body"), LocPart::from("x")];
        let kind = |r: Checked<String>| r.unwrap_err()[0].kind;
        assert_eq!(kind(enum_text(&json!("c"), loc(), &["a", "b"])), "enum");
        assert_eq!(kind(enum_text(&json!(1), loc(), &["a", "b"])), "enum");
        assert_eq!(kind(literal_text(&json!("c"), loc(), &["a"])), "literal_error");
        assert_eq!(kind(hex_color(&json!("#12345g"), loc()).map(String::from)), "string_pattern_mismatch");
        assert_eq!(hex_color(&json!("#12345F"), loc()).unwrap().as_str(), "#12345F");
        let rule = UrlRule { max_len: MAX_URL_LEN, https_only: false };
        assert_eq!(kind(http_url(&json!("mailto:a@b.c"), loc(), rule)), "url_scheme");
        assert_eq!(kind(http_url(&json!("//x"), loc(), rule)), "url_parsing");
        let error = http_url(&json!("nope"), loc(), rule).unwrap_err().remove(0);
        assert_eq!(error.msg, "Input should be a valid URL, relative URL without a base");
        let https = UrlRule { max_len: MAX_URL_LEN, https_only: true };
        assert_eq!(kind(http_url(&json!("http://x.example"), loc(), https)), "string_pattern_mismatch");
        assert_eq!(enum_int(&json!(15), loc(), &[10, 15, 20]).unwrap(), 15);
        let error = enum_int(&json!(16), loc(), &[10, 15, 20]).unwrap_err().remove(0);
        assert_eq!((error.kind, error.msg.as_str()), ("enum", "Input should be 10, 15 or 20"));
        assert_eq!(int_in(&json!(true), loc(), 1, 5).unwrap_err()[0].kind, "int_type");
        assert_eq!(int_in(&json!(2.0), loc(), 1, 5).unwrap(), 2);
        let errors = list_of(&json!(["a", "z", "y"]), loc(), 1, |v, l| enum_text(v, l, &["a"])).unwrap_err();
        assert_eq!(errors.iter().map(|e| e.loc[2].clone()).collect::<Vec<_>>(), vec![LocPart::Index(1), LocPart::Index(2)]);
        assert_eq!(uuid_param("x", loc()).unwrap_err().kind, "uuid_parsing");
        assert!(uuid_param("0b7e5d8c-6a4f-4c1e-9d2b-3f8a7c6e5d4b", loc()).is_ok());
    }
}
