//! The writable fields: one rule each, shared by the create and the update
//! schema, and [`FIELDS`], the table that describes each field once.

use super::{survey, CameraAccess, InterviewMode, Language};
use super::{
    CREATE_LANGUAGES, INTERVIEW_LENGTHS, MAX_INTERVIEWS, MAX_NAME, MAX_RETENTION_DAYS, MAX_TEXT,
};

use platform::error::{FieldError, LocPart};
use platform::validation::{
    enum_int, enum_message, hex_color, http_url, int_in, list_of, nullable, object, one_of, text, Checked, UrlRule, MAX_URL_LEN,
};
use serde::Serialize;
use serde_json::{Map, Value};

pub(super) fn name_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    text(value, loc, 1, MAX_NAME)
}

pub(super) fn text_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    text(value, loc, 1, MAX_TEXT)
}

pub(super) fn redirect_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    http_url(value, loc, UrlRule { max_len: MAX_URL_LEN, https_only: true })
}

pub(super) fn logo_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    http_url(value, loc, UrlRule { max_len: MAX_URL_LEN, https_only: false })
}

pub(super) fn modes_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<InterviewMode>> {
    list_of(value, loc, 1, one_of::<InterviewMode>)
}

pub(super) fn camera_rule(value: &Value, loc: Vec<LocPart>) -> Checked<CameraAccess> {
    one_of::<CameraAccess>(value, loc)
}

fn update_languages_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<Language>> {
    list_of(value, loc, 1, one_of::<Language>)
}

pub(super) fn create_languages_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<Language>> {
    let creatable = |item: &Value| item.as_str().filter(|name| CREATE_LANGUAGES.contains(name)).and_then(Language::parse);
    list_of(value, loc, 1, |item, loc| {
        creatable(item).ok_or_else(|| vec![FieldError::new(loc, "enum", enum_message(CREATE_LANGUAGES))])
    })
}

pub(super) fn length_rule(value: &Value, loc: Vec<LocPart>) -> Checked<i64> {
    enum_int(value, loc, INTERVIEW_LENGTHS)
}

pub(super) fn max_interviews_rule(value: &Value, loc: Vec<LocPart>) -> Checked<i64> {
    int_in(value, loc, 1, MAX_INTERVIEWS)
}

pub(super) fn retention_rule(value: &Value, loc: Vec<LocPart>) -> Checked<i64> {
    int_in(value, loc, 1, MAX_RETENTION_DAYS)
}

/// Screeners: an object; its known keys are checked (`screener_blocks` a list of
/// objects, `screen_out_url` an http(s) URL or null); other keys are kept as given.
pub fn screeners_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Map<String, Value>> {
    let map = object(value, loc.clone())?;
    let mut errors = Vec::new();
    let at = |key: &str| {
        let mut loc = loc.clone();
        loc.push(key.into());
        loc
    };
    if let Some(blocks) = map.get("screener_blocks") {
        if let Err(problems) = list_of(blocks, at("screener_blocks"), 0, object) {
            errors.extend(problems);
        }
    }
    if let Some(url) = map.get("screen_out_url") {
        if let Err(problems) = nullable(url, at("screen_out_url"), logo_rule) {
            errors.extend(problems);
        }
    }
    if errors.is_empty() {
        Ok(map)
    } else {
        Err(errors)
    }
}

/// Whether a field may be null, and what a merge patch's `null` does to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Always has a value; `null` in a patch is the 422 its type gives.
    Required,
    /// May be null; `null` in a patch clears it.
    Clearable,
    /// May be absent (survey projects only); `null` in a patch is a 422.
    Optional,
}

/// How a field is kept in its column of `projects`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Column {
    Text,
    Integer,
    /// JSON text (lists, objects).
    Json,
}

/// Checks a field's non-null value and gives it as stored: the rule's typed
/// result written back as JSON, so defaults a rule fills in (a survey block's
/// `required`, its rating scale) and whole numbers written as floats are kept
/// the way they were read.
pub type FieldRule = fn(&Value, Vec<LocPart>) -> Checked<Value>;

fn stored_as<T: Serialize>(checked: Checked<T>) -> Checked<Value> {
    checked.map(|value| serde_json::to_value(value).expect("a field's value serializes"))
}

/// One writable project field: everything the create and update schemas, the
/// read shapes and the store need to know about it.
#[derive(Debug, Clone, Copy)]
pub struct FieldSpec {
    pub name: &'static str,
    pub presence: Presence,
    pub column: Column,
    /// Also in `GET /v1/projects` items (every field is in the single read).
    pub in_list: bool,
    /// The update schema's rule (the create schema reads each field as its
    /// type: `create::NewProject::parse`).
    pub rule: FieldRule,
}

const fn field(name: &'static str, presence: Presence, column: Column, in_list: bool, rule: FieldRule) -> FieldSpec {
    FieldSpec { name, presence, column, in_list, rule }
}

/// Every field of [`ProjectFields`], once, in the schemas' order (the order of
/// their 422s and of the read shapes). Anything else in a body is ignored.
pub const FIELDS: &[FieldSpec] = {
    use Column::{Integer, Json, Text};
    use Presence::{Clearable, Optional, Required};
    const LIST: bool = true;
    const DETAIL: bool = false;
    &[
        field("project_name", Required, Text, LIST, |v, l| stored_as(name_rule(v, l))),
        field("project_description", Clearable, Text, LIST, |v, l| stored_as(text_rule(v, l))),
        field("project_objective", Required, Text, DETAIL, |v, l| stored_as(text_rule(v, l))),
        field("research_questions", Required, Text, DETAIL, |v, l| stored_as(text_rule(v, l))),
        field("success_criteria", Required, Text, DETAIL, |v, l| stored_as(text_rule(v, l))),
        field("recruiting_criteria", Required, Text, DETAIL, |v, l| stored_as(text_rule(v, l))),
        field("specific_guidelines", Clearable, Text, DETAIL, |v, l| stored_as(text_rule(v, l))),
        field("redirect_url", Clearable, Text, LIST, |v, l| stored_as(redirect_rule(v, l))),
        field("interview_modes", Required, Json, LIST, |v, l| stored_as(modes_rule(v, l))),
        field("camera_access", Required, Text, LIST, |v, l| stored_as(camera_rule(v, l))),
        field("logo_url", Clearable, Text, LIST, |v, l| stored_as(logo_rule(v, l))),
        field("primary_color", Clearable, Text, LIST, |v, l| stored_as(hex_color(v, l))),
        field("secondary_color", Clearable, Text, DETAIL, |v, l| stored_as(hex_color(v, l))),
        field("text_color", Clearable, Text, DETAIL, |v, l| stored_as(hex_color(v, l))),
        field("interview_languages", Required, Json, DETAIL, |v, l| stored_as(update_languages_rule(v, l))),
        field("interview_length", Required, Integer, DETAIL, |v, l| stored_as(length_rule(v, l))),
        // In a patch, its members are checked after merging with the stored object.
        field("screeners", Clearable, Json, DETAIL, |v, l| stored_as(object(v, l))),
        field("max_interviews", Clearable, Integer, DETAIL, |v, l| stored_as(max_interviews_rule(v, l))),
        // Interviews are erased this many days after they stop (docs/interviews.md, "Erasure").
        field("data_retention_days", Clearable, Integer, DETAIL, |v, l| stored_as(retention_rule(v, l))),
        // Arrays replace: the new blocks are checked whole.
        field("survey_blocks", Optional, Json, DETAIL, |v, l| stored_as(survey::blocks_rule(v, l))),
    ]
};

/// Checks one update-schema field's patch value (null included).
pub(super) fn check_update_field(spec: &FieldSpec, value: &Value, loc: Vec<LocPart>) -> Checked<Value> {
    if value.is_null() && spec.presence == Presence::Clearable {
        return Ok(Value::Null);
    }
    // `null` on any other field: the error its type gives for None.
    (spec.rule)(value, loc)
}
