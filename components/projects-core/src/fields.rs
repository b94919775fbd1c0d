//! The writable fields: one rule each, shared by the create and the update
//! schema, and [`FIELDS`], the table that describes each field once.

use super::{survey, CameraAccess, CreateDefaults, InterviewMode, Language};
use super::{
    CREATE_LANGUAGES, DEFAULT_CAMERA_ACCESS, DEFAULT_INTERVIEW_LENGTH, DEFAULT_INTERVIEW_MODE, DEFAULT_LANGUAGE,
    DEFAULT_PRIMARY_COLOR, INTERVIEW_LENGTHS, MAX_INTERVIEWS, MAX_NAME, MAX_RETENTION_DAYS, MAX_TEXT,
};

use platform::error::{FieldError, LocPart};
use platform::validation::{
    enum_int, enum_message, hex_color, http_url, int_in, list_of, nullable, object, one_of, text, Checked, UrlRule, MAX_URL_LEN,
};
use serde::Serialize;
use serde_json::{json, Map, Value};

fn name_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    text(value, loc, 1, MAX_NAME)
}

fn text_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    text(value, loc, 1, MAX_TEXT)
}

fn redirect_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    http_url(value, loc, UrlRule { max_len: MAX_URL_LEN, https_only: true })
}

fn logo_rule(value: &Value, loc: Vec<LocPart>) -> Checked<String> {
    http_url(value, loc, UrlRule { max_len: MAX_URL_LEN, https_only: false })
}

fn modes_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<InterviewMode>> {
    list_of(value, loc, 1, one_of::<InterviewMode>)
}

fn camera_rule(value: &Value, loc: Vec<LocPart>) -> Checked<CameraAccess> {
    one_of::<CameraAccess>(value, loc)
}

fn update_languages_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<Language>> {
    list_of(value, loc, 1, one_of::<Language>)
}

fn create_languages_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<Language>> {
    let creatable = |item: &Value| item.as_str().filter(|name| CREATE_LANGUAGES.contains(name)).and_then(Language::parse);
    list_of(value, loc, 1, |item, loc| {
        creatable(item).ok_or_else(|| vec![FieldError::new(loc, "enum", enum_message(CREATE_LANGUAGES))])
    })
}

fn length_rule(value: &Value, loc: Vec<LocPart>) -> Checked<i64> {
    enum_int(value, loc, INTERVIEW_LENGTHS)
}

fn max_interviews_rule(value: &Value, loc: Vec<LocPart>) -> Checked<i64> {
    int_in(value, loc, 1, MAX_INTERVIEWS)
}

fn retention_rule(value: &Value, loc: Vec<LocPart>) -> Checked<i64> {
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

/// What the create schema does with a field (the update schema only needs
/// [`Presence`]).
#[derive(Debug, Clone, Copy)]
pub enum OnCreate {
    /// The name: required in explicit mode; in generated mode it may be given
    /// (or null), and the writer names the project when it is not.
    Name,
    /// A context field: required in explicit mode; generated mode writes it
    /// and does not look at what was sent.
    Context,
    /// Absent or null: null.
    Nullable,
    /// Absent or null: the default (reads never show it as null).
    DefaultOnNull(fn(&CreateDefaults) -> Value),
    /// Absent: the default; an explicit null stays null.
    DefaultWhenAbsent(fn(&CreateDefaults) -> Value),
    /// Absent: the default; null is the rule's 422.
    DefaultNotNull(fn(&CreateDefaults) -> Value),
    /// Required for survey projects; refused (unless null) on other types.
    SurveyOnly,
    /// Not in the create schema: ignored there, set by an update.
    UpdateOnly,
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
    pub rule: FieldRule,
    pub on_create: OnCreate,
    /// The create schema's rule where it differs from [`FieldSpec::rule`].
    pub create_rule: FieldRule,
}

const fn field(name: &'static str, presence: Presence, column: Column, in_list: bool, on_create: OnCreate, rule: FieldRule) -> FieldSpec {
    FieldSpec { name, presence, column, in_list, rule, on_create, create_rule: rule }
}

impl FieldSpec {
    const fn created_with(self, create_rule: FieldRule) -> FieldSpec {
        FieldSpec { create_rule, ..self }
    }
}

/// Every field of [`ProjectFields`], once, in the schemas' order (the order of
/// their 422s and of the read shapes). Anything else in a body is ignored.
pub const FIELDS: &[FieldSpec] = {
    use Column::{Integer, Json, Text};
    use OnCreate::{Context, DefaultNotNull, DefaultOnNull, DefaultWhenAbsent, Name, Nullable, SurveyOnly, UpdateOnly};
    use Presence::{Clearable, Optional, Required};
    const LIST: bool = true;
    const DETAIL: bool = false;
    &[
        field("project_name", Required, Text, LIST, Name, |v, l| stored_as(name_rule(v, l))),
        field("project_description", Clearable, Text, LIST, Nullable, |v, l| stored_as(text_rule(v, l))),
        field("project_objective", Required, Text, DETAIL, Context, |v, l| stored_as(text_rule(v, l))),
        field("research_questions", Required, Text, DETAIL, Context, |v, l| stored_as(text_rule(v, l))),
        field("success_criteria", Required, Text, DETAIL, Context, |v, l| stored_as(text_rule(v, l))),
        field("recruiting_criteria", Required, Text, DETAIL, Context, |v, l| stored_as(text_rule(v, l))),
        field("specific_guidelines", Clearable, Text, DETAIL, Nullable, |v, l| stored_as(text_rule(v, l))),
        field("redirect_url", Clearable, Text, LIST, Nullable, |v, l| stored_as(redirect_rule(v, l))),
        field("interview_modes", Required, Json, LIST, DefaultOnNull(|_| json!([DEFAULT_INTERVIEW_MODE])), |v, l| {
            stored_as(modes_rule(v, l))
        }),
        field("camera_access", Required, Text, LIST, DefaultNotNull(|_| json!(DEFAULT_CAMERA_ACCESS)), |v, l| {
            stored_as(camera_rule(v, l))
        }),
        field("logo_url", Clearable, Text, LIST, DefaultWhenAbsent(|defaults| json!(defaults.logo_url)), |v, l| {
            stored_as(logo_rule(v, l))
        }),
        field("primary_color", Clearable, Text, LIST, DefaultWhenAbsent(|_| json!(DEFAULT_PRIMARY_COLOR)), |v, l| {
            stored_as(hex_color(v, l))
        }),
        field("secondary_color", Clearable, Text, DETAIL, UpdateOnly, |v, l| stored_as(hex_color(v, l))),
        field("text_color", Clearable, Text, DETAIL, UpdateOnly, |v, l| stored_as(hex_color(v, l))),
        field("interview_languages", Required, Json, DETAIL, DefaultOnNull(|_| json!([DEFAULT_LANGUAGE])), |v, l| {
            stored_as(update_languages_rule(v, l))
        })
        .created_with(|v, l| stored_as(create_languages_rule(v, l))),
        field("interview_length", Required, Integer, DETAIL, DefaultOnNull(|_| json!(DEFAULT_INTERVIEW_LENGTH)), |v, l| {
            stored_as(length_rule(v, l))
        }),
        // In a patch, its members are checked after merging with the stored object.
        field("screeners", Clearable, Json, DETAIL, Nullable, |v, l| stored_as(object(v, l)))
            .created_with(|v, l| stored_as(screeners_rule(v, l))),
        field("max_interviews", Clearable, Integer, DETAIL, Nullable, |v, l| stored_as(max_interviews_rule(v, l))),
        // Interviews are erased this many days after they stop (docs/interviews.md, "Erasure").
        field("data_retention_days", Clearable, Integer, DETAIL, Nullable, |v, l| stored_as(retention_rule(v, l))),
        // Arrays replace: the new blocks are checked whole.
        field("survey_blocks", Optional, Json, DETAIL, SurveyOnly, |v, l| stored_as(survey::blocks_rule(v, l))),
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
