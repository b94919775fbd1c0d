//! Projects: the request schemas (create, merge patch) with pydantic-v2-style
//! validation, the stored project and its two read shapes, the state machine and
//! its outbox events, and the shareable URL.
//!
//! Submodules: [`store`] (SQLite), [`context`] (validate-context rules), and
//! [`writer`] (generated mode: the built-in writer and the language-model one).

pub mod context;
mod states;
pub mod store;
pub mod survey;
pub mod writer;

pub use states::{
    change_state, count_completed_interview, invalid_state, uncount_completed_interview, Action, Decision, Openness,
};

use crate::error::{ApiError, ApiResult, FieldError, LocPart};
use crate::validation::{
    self, enum_int, enum_message, hex_color, HexColor, http_url, int_in, list_of, literal_text, nullable, object, one_of, text, Checked,
    Fields, UrlRule, MAX_URL_LEN,
};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

crate::text_enum! {
    /// The contract's project types (docs/api-contract.md; creating usability or
    /// prototype tests is not supported).
    pub enum ProjectType { ContextualInterview = "contextual_interview", Survey = "survey" }
}

pub const PROJECT_TYPES: &[&str] = <ProjectType as crate::text_enum::TextEnum>::NAMES;
pub const CREATION_MODES: &[&str] = &["explicit", "generated"];

crate::text_enum! {
    /// How an interviewee answers.
    pub enum InterviewMode { Typing = "typing", Talking = "talking" }
}

crate::text_enum! {
    /// Whether the page may, or must, record video in talking mode.
    pub enum CameraAccess { NotAllowed = "not_allowed", Optional = "optional", Required = "required" }
}

crate::text_enum! {
    /// An interview language (ISO 639-1). The update schema lists them all; the
    /// create schema all but the last, `uk` ([`CREATE_LANGUAGES`]).
    pub enum Language {
        En = "en", Fr = "fr", De = "de", Es = "es", It = "it", Ar = "ar", Ru = "ru", Ja = "ja", He = "he", El = "el",
        Uk = "uk",
    }
}

pub const INTERVIEW_MODES: &[&str] = <InterviewMode as crate::text_enum::TextEnum>::NAMES;
pub const CAMERA_ACCESS: &[&str] = <CameraAccess as crate::text_enum::TextEnum>::NAMES;
/// The names of the create schema's languages: every [`Language`] but the last.
pub const CREATE_LANGUAGES: &[&str] = match <Language as crate::text_enum::TextEnum>::NAMES.split_last() {
    Some((_uk, rest)) => rest,
    None => &[],
};
pub const INTERVIEW_LENGTHS: &[i64] = &[10, 15, 20];

pub const DEFAULT_PROJECT_TYPE: &str = "contextual_interview";
pub const DEFAULT_INTERVIEW_MODE: InterviewMode = InterviewMode::Talking;
pub const DEFAULT_CAMERA_ACCESS: CameraAccess = CameraAccess::NotAllowed;
pub const DEFAULT_PRIMARY_COLOR: &str = "#6759DF";

pub fn default_primary_color() -> HexColor {
    HexColor::parse(DEFAULT_PRIMARY_COLOR).expect("the default colour is #RRGGBB")
}
pub const DEFAULT_LANGUAGE: Language = Language::En;
pub const DEFAULT_INTERVIEW_LENGTH: i64 = 10;
/// The service-supplied logo when the operator sets no `default_logo_url`.
pub const DEFAULT_LOGO_URL: &str = "https://static.interview-research.example/logo-160.png";

pub const MAX_NAME: usize = 200;
pub const MAX_TEXT: usize = 10_000;
pub const MIN_PROMPT: usize = 20;
pub const MAX_PROMPT: usize = 4_000;
pub const MAX_INTERVIEWS: i64 = 100_000;

/// The four research-context fields, in the contract's order (docs/api-contract.md).
pub const CONTEXT_FIELDS: [&str; 4] = ["project_objective", "research_questions", "success_criteria", "recruiting_criteria"];

/// Everything about a project a client can write, as stored; [`FIELDS`] describes
/// each member, in this order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProjectFields {
    pub project_name: String,
    #[serde(default)]
    pub project_description: Option<String>,
    pub project_objective: String,
    pub research_questions: String,
    pub success_criteria: String,
    pub recruiting_criteria: String,
    #[serde(default)]
    pub specific_guidelines: Option<String>,
    #[serde(default)]
    pub redirect_url: Option<String>,
    pub interview_modes: Vec<InterviewMode>,
    pub camera_access: CameraAccess,
    #[serde(default)]
    pub logo_url: Option<String>,
    #[serde(default)]
    pub primary_color: Option<HexColor>,
    #[serde(default)]
    pub secondary_color: Option<HexColor>,
    #[serde(default)]
    pub text_color: Option<HexColor>,
    pub interview_languages: Vec<Language>,
    pub interview_length: i64,
    #[serde(default)]
    pub screeners: Option<Map<String, Value>>,
    #[serde(default)]
    pub max_interviews: Option<i64>,
    /// Survey projects only (docs/surveys.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub survey_blocks: Option<Vec<survey::SurveyBlock>>,
}

/// The four context fields.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContextFields {
    pub project_objective: String,
    pub research_questions: String,
    pub success_criteria: String,
    pub recruiting_criteria: String,
}

impl ContextFields {
    pub fn get(&self, name: &str) -> &str {
        match name {
            "project_objective" => &self.project_objective,
            "research_questions" => &self.research_questions,
            "success_criteria" => &self.success_criteria,
            _ => &self.recruiting_criteria,
        }
    }
}

// ---------------------------------------------------------------------------
// Field rules, shared by the create and the update schema.

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
        // Arrays replace: the new blocks are checked whole.
        field("survey_blocks", Optional, Json, DETAIL, SurveyOnly, |v, l| stored_as(survey::blocks_rule(v, l))),
    ]
};

/// Checks one update-schema field's patch value (null included).
fn check_update_field(spec: &FieldSpec, value: &Value, loc: Vec<LocPart>) -> Checked<Value> {
    if value.is_null() && spec.presence == Presence::Clearable {
        return Ok(Value::Null);
    }
    // `null` on any other field: the error its type gives for None.
    (spec.rule)(value, loc)
}

// ---------------------------------------------------------------------------
// Create.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CreationMode {
    Explicit,
    Generated,
}

impl CreationMode {
    pub fn as_str(self) -> &'static str {
        match self {
            CreationMode::Explicit => "explicit",
            CreationMode::Generated => "generated",
        }
    }
}

/// A valid POST /projects body.
#[derive(Debug, Clone, PartialEq)]
pub struct NewProject {
    pub project_type: ProjectType,
    pub creation_mode: CreationMode,
    /// Generated mode only.
    pub prompt: Option<String>,
    /// Always set in explicit mode; optional in generated mode.
    pub project_name: Option<String>,
    /// Explicit mode only (generated mode writes them).
    pub context: Option<ContextFields>,
    /// Every other field, defaults applied; its name and context are placeholders
    /// until [`NewProject::into_fields`].
    pub settings: ProjectFields,
}

/// Values the operator configures for defaults.
#[derive(Debug, Clone)]
pub struct CreateDefaults {
    pub logo_url: Option<String>,
}

impl Default for CreateDefaults {
    fn default() -> Self {
        CreateDefaults { logo_url: Some(DEFAULT_LOGO_URL.to_string()) }
    }
}

impl NewProject {
    /// Validates a create body; every problem is reported at once.
    ///
    /// Defaults (docs/api-contract.md, Projects): `project_type` contextual_interview, `creation_mode`
    /// explicit, `interview_modes` [talking], `camera_access` not_allowed, `logo_url`
    /// the service's logo, `primary_color` #6759DF, `interview_languages` [en],
    /// `interview_length` 10, `screeners` null. A field that is absent gets its
    /// default; an explicit `null` on a nullable field (logo, colour, texts,
    /// screeners) stays null, and on a field reads never show as null (the arrays,
    /// the length) means the default.
    pub fn parse(body: &Value, defaults: &CreateDefaults) -> ApiResult<NewProject> {
        let mut f = Fields::body(body)?;
        let project_type = f
            .check("project_type", |v, l| literal_text(v, l, PROJECT_TYPES))
            .and_then(|t| ProjectType::parse(&t))
            .unwrap_or(ProjectType::ContextualInterview);
        let creation_mode = match f.check("creation_mode", |v, l| nullable(v, l, |v, l| literal_text(v, l, CREATION_MODES))) {
            Some(Some(mode)) if mode == "generated" => CreationMode::Generated,
            _ => CreationMode::Explicit,
        };
        let generated = creation_mode == CreationMode::Generated;

        let mut settings = Map::new();
        let mut given = |name: &str, value: Option<Value>| {
            settings.insert(name.to_string(), value.unwrap_or(Value::Null));
        };
        for spec in FIELDS {
            let rule = spec.create_rule;
            let nullable_rule = |v: &Value, l: Vec<LocPart>| nullable(v, l, rule);
            match spec.on_create {
                OnCreate::Name | OnCreate::Context if !generated => given(spec.name, f.require(spec.name, rule)),
                // Generated mode's name may be given or null, like any nullable field.
                OnCreate::Name | OnCreate::Nullable => given(spec.name, f.check(spec.name, nullable_rule).flatten()),
                // Placeholders until the writer's context (`into_fields`).
                OnCreate::Context => given(spec.name, Some(Value::from(""))),
                OnCreate::DefaultOnNull(default) => {
                    given(spec.name, Some(f.check(spec.name, nullable_rule).flatten().unwrap_or_else(|| default(defaults))))
                }
                OnCreate::DefaultWhenAbsent(default) => match f.check(spec.name, nullable_rule) {
                    Some(value) => given(spec.name, value),
                    None if f.has(spec.name) => given(spec.name, None),
                    None => given(spec.name, Some(default(defaults))),
                },
                OnCreate::DefaultNotNull(default) => {
                    given(spec.name, Some(f.check(spec.name, rule).unwrap_or_else(|| default(defaults))))
                }
                OnCreate::SurveyOnly if project_type == ProjectType::Survey => given(spec.name, f.require(spec.name, rule)),
                OnCreate::SurveyOnly => {
                    if f.raw(spec.name).is_some_and(|value| !value.is_null()) {
                        let message = format!("Value error, {} apply to survey projects only", spec.name);
                        f.error(f.loc(spec.name), "value_error", message);
                    }
                }
                OnCreate::UpdateOnly => {}
            }
        }
        let prompt = if generated {
            f.require("prompt", |v, l| text(v, l, MIN_PROMPT, MAX_PROMPT))
        } else {
            None
        };
        f.finish()?;

        let project_name = settings.get("project_name").and_then(Value::as_str).map(str::to_string);
        // Generated mode without a name: the writer names it (see `into_fields`).
        settings.insert("project_name".into(), Value::from(project_name.clone().unwrap_or_default()));
        let settings: ProjectFields = serde_json::from_value(Value::Object(settings)).map_err(ApiError::internal)?;
        let context = (!generated).then(|| ContextFields {
            project_objective: settings.project_objective.clone(),
            research_questions: settings.research_questions.clone(),
            success_criteria: settings.success_criteria.clone(),
            recruiting_criteria: settings.recruiting_criteria.clone(),
        });
        Ok(NewProject { project_type, creation_mode, prompt, project_name, context, settings })
    }

    /// The stored fields, with the context (and name) the writer produced in generated mode.
    pub fn into_fields(self, written: Option<(String, ContextFields)>) -> ProjectFields {
        let mut fields = self.settings;
        let (name, context) = match (self.context, written) {
            (Some(context), _) => (self.project_name.unwrap_or_default(), context),
            (None, Some((name, context))) => (self.project_name.unwrap_or(name), context),
            (None, None) => (self.project_name.unwrap_or_default(), ContextFields::empty()),
        };
        fields.project_name = name;
        fields.project_objective = context.project_objective;
        fields.research_questions = context.research_questions;
        fields.success_criteria = context.success_criteria;
        fields.recruiting_criteria = context.recruiting_criteria;
        fields
    }
}

impl ContextFields {
    pub fn empty() -> ContextFields {
        ContextFields {
            project_objective: String::new(),
            research_questions: String::new(),
            success_criteria: String::new(),
            recruiting_criteria: String::new(),
        }
    }
}

// ---------------------------------------------------------------------------
// Update: RFC 7386 JSON Merge Patch.

/// A checked merge patch: only the update schema's fields, each value valid for it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectPatch {
    members: Map<String, Value>,
}

impl ProjectPatch {
    /// Checks a PATCH body: an object; known fields valid (null only on nullable
    /// ones); unknown fields dropped. `{}` is an empty patch.
    pub fn parse(body: &Value) -> ApiResult<ProjectPatch> {
        let mut f = Fields::body(body)?;
        let mut members = Map::new();
        for spec in FIELDS {
            if let Some(value) = f.check(spec.name, |v, l| check_update_field(spec, v, l)) {
                members.insert(spec.name.to_string(), value);
            }
        }
        f.finish()?;
        Ok(ProjectPatch { members })
    }

    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Whether the patch fits the stored project's type: `survey_blocks` on a
    /// project that is not a survey is a 409 `not_a_survey` (a well-formed patch
    /// that conflicts with what is stored, as survey-results answers for it).
    pub fn fits(&self, project: &Project) -> ApiResult<()> {
        if self.sets("survey_blocks") && !project.is_survey() {
            return Err(ApiError::conflict(
                "not_a_survey",
                "This project is not a survey; survey_blocks apply to survey projects only",
            ));
        }
        Ok(())
    }

    /// Whether the patch sets this field.
    pub fn sets(&self, name: &str) -> bool {
        self.members.contains_key(name)
    }

    /// Applies the patch to the stored fields (RFC 7386: null removes, objects
    /// merge member by member, everything else replaces) and checks the merged
    /// screeners.
    pub fn apply(&self, current: &ProjectFields) -> ApiResult<ProjectFields> {
        let mut document = serde_json::to_value(current).map_err(ApiError::internal)?;
        json_patch::merge(&mut document, &Value::Object(self.members.clone()));
        if let Some(screeners) = document.get("screeners").filter(|s| !s.is_null()) {
            screeners_rule(screeners, vec!["body".into(), "screeners".into()]).map_err(ApiError::Validation)?;
        }
        serde_json::from_value(document).map_err(ApiError::internal)
    }
}

// ---------------------------------------------------------------------------
// Use cases.

/// `POST /v1/projects`: writes the context in generated mode (model or built-in
/// writer), checks survey media against the tenant's files, stores a draft.
pub fn create(db: &crate::db::Db, tenant_id: &str, new: NewProject, llm: &crate::llm::LlmConfig) -> ApiResult<String> {
    if let Some(blocks) = &new.settings.survey_blocks {
        let unknown = store::unknown_survey_files(db, tenant_id, blocks)?;
        if !unknown.is_empty() {
            return Err(ApiError::Validation(unknown));
        }
    }
    let written = match (&new.prompt, new.creation_mode) {
        (Some(prompt), CreationMode::Generated) => {
            let (name, fields, _) = writer::write(prompt, llm);
            Some((name, fields))
        }
        _ => None,
    };
    let (project_type, creation_mode) = (new.project_type, new.creation_mode);
    let fields = new.into_fields(written);
    store::insert(db, tenant_id, project_type.as_str(), creation_mode.as_str(), &fields)
}

/// `PATCH /v1/projects/{id}`: read, merge, write if unchanged since the read;
/// when another write won, again (each round has a winner, so this bounds the
/// concurrent writers it outlasts). A survey's blocks change only while it has no
/// production interview (409 `survey_locked`), checked in the write itself.
pub fn apply_patch(db: &crate::db::Db, tenant_id: &str, project_id: &str, patch: &ProjectPatch) -> ApiResult<()> {
    for _ in 0..32 {
        let current = store::get(db, tenant_id, project_id)?.ok_or_else(store::not_found)?;
        if patch.is_empty() {
            return Ok(());
        }
        patch.fits(&current)?;
        let merged = patch.apply(&current.fields)?;
        let blocks_changed = merged.survey_blocks != current.fields.survey_blocks;
        if blocks_changed {
            let unknown = store::unknown_survey_files(db, tenant_id, merged.survey_blocks.as_deref().unwrap_or_default())?;
            if !unknown.is_empty() {
                return Err(ApiError::Validation(unknown));
            }
            if store::has_production_interviews(db, project_id)? {
                return Err(ApiError::conflict(
                    "survey_locked",
                    "This survey already has production interviews; its blocks can no longer change (create a new project)",
                ));
            }
        }
        if merged == current.fields
            || store::update(db, tenant_id, project_id, current.revision, &merged, blocks_changed)?
        {
            return Ok(());
        }
    }
    Err(ApiError::internal(anyhow::anyhow!("project {project_id} kept changing during PATCH")))
}

// ---------------------------------------------------------------------------
// Reads.

crate::text_enum! {
    /// A project's state (docs/api-contract.md: draft -> active <-> paused -> completed).
    pub enum Status { Draft = "draft", Active = "active", Paused = "paused", Completed = "completed" }
}

/// A stored project.
#[derive(Debug, Clone)]
pub struct Project {
    pub project_id: String,
    pub project_type: String,
    pub fields: ProjectFields,
    pub status: Status,
    pub created_at: String,
    /// When it first became active; `None` while never published.
    pub published_at: Option<String>,
    /// Optimistic-concurrency counter of PATCH.
    pub revision: i64,
    /// Completed, unflagged production interviews (what `max_interviews` limits).
    pub completed_interviews: i64,
    pub tenant_id: String,
}

impl Project {
    /// The fields' values by name, as the read shapes show them (`survey_blocks`
    /// only on a survey).
    fn field_values(&self) -> Map<String, Value> {
        match serde_json::to_value(&self.fields) {
            Ok(Value::Object(values)) => values,
            _ => unreachable!("ProjectFields serializes to an object"),
        }
    }

    /// An item of GET /projects: exactly the contract's list fields (it "returns only"
    /// them): the id, the type, the fields [`FIELDS`] marks for the list and `created_at`.
    pub fn list_item(&self) -> Value {
        let mut values = self.field_values();
        let mut item = Map::new();
        item.insert("project_id".into(), json!(self.project_id));
        item.insert("project_type".into(), json!(self.project_type));
        for spec in FIELDS.iter().filter(|spec| spec.in_list) {
            item.insert(spec.name.into(), values.remove(spec.name).unwrap_or(Value::Null));
        }
        item.insert("created_at".into(), json!(self.created_at));
        Value::Object(item)
    }

    /// GET /projects/{id}: the contract's single-read fields plus, additively, what a
    /// client can write and must be able to read back (`project_name`, the
    /// update-only colours, `max_interviews`, a survey's blocks) and `status`:
    /// every field of [`FIELDS`]. Not `created_at`: the contract has it "in the project
    /// list only".
    pub fn detail(&self) -> Value {
        let mut values = self.field_values();
        let mut detail = Map::new();
        detail.insert("project_id".into(), json!(self.project_id));
        detail.insert("project_type".into(), json!(self.project_type));
        for spec in FIELDS {
            if let Some(value) = values.remove(spec.name) {
                detail.insert(spec.name.into(), value);
            }
        }
        detail.insert("status".into(), json!(self.status.as_str()));
        Value::Object(detail)
    }

    pub fn is_survey(&self) -> bool {
        self.project_type == ProjectType::Survey.as_str()
    }

    /// What decides whether it takes an interview, as read.
    pub fn openness(&self) -> Openness {
        Openness {
            status: self.status,
            max_interviews: self.fields.max_interviews,
            completed_interviews: self.completed_interviews,
        }
    }
}

// ---------------------------------------------------------------------------
// Shareable URL.

crate::text_enum! {
    /// Where an interview happens: production interviews are exported and counted.
    pub enum Environment { Sandbox = "sandbox", Production = "production" }
}

/// The `environment` query parameter (the last one given): 422 `missing` or `enum`.
pub fn parse_environment(pairs: &[(String, String)]) -> Result<Environment, FieldError> {
    let loc = vec![LocPart::from("query"), LocPart::from("environment")];
    let Some((_, value)) = pairs.iter().rev().find(|(name, _)| name == "environment") else {
        return Err(FieldError::new(loc, "missing", "Field required"));
    };
    Environment::parse(value).ok_or_else(|| {
        FieldError::new(loc, "enum", validation::enum_message(<Environment as crate::text_enum::TextEnum>::NAMES))
    })
}

/// `{base}/i/{project_id}`, with `?env=sandbox` for the sandbox.
pub fn share_url(base: &str, project_id: &str, environment: Environment) -> String {
    let base = base.trim_end_matches('/');
    match environment {
        Environment::Production => format!("{base}/i/{project_id}"),
        Environment::Sandbox => format!("{base}/i/{project_id}?env=sandbox"),
    }
}

/// The production URL of a project that was never published is a 400.
pub fn project_url(project: &Project, base: &str, environment: Environment) -> ApiResult<Value> {
    if environment == Environment::Production && project.published_at.is_none() {
        return Err(ApiError::BadRequest(
            "The project has never been published; activate it before using its production URL".into(),
        ));
    }
    Ok(json!({ "project_id": project.project_id, "url": share_url(base, &project.project_id, environment) }))
}

#[cfg(test)]
mod tests;

/// Stored projects for the unit tests of the areas built on projects.
#[cfg(test)]
pub mod tests_support {
    use super::*;

    /// An active project with a logo, two research questions and every default.
    pub fn project() -> Project {
        let body = json!({
            "project_name": "Daycare study",
            "project_objective": "Understand how parents of toddlers choose a daycare.",
            "research_questions": "1. How did you choose your daycare?\n2. What mattered most?",
            "success_criteria": "Three recurring themes with examples.",
            "recruiting_criteria": "Parents of children aged 1 to 3.",
            "interview_modes": ["typing", "talking"],
        });
        let fields = NewProject::parse(&body, &CreateDefaults::default()).expect("a valid body").into_fields(None);
        Project {
            project_id: "6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10".into(),
            project_type: DEFAULT_PROJECT_TYPE.into(),
            fields,
            status: Status::Active,
            created_at: "2026-11-21T13:45:12.345Z".into(),
            published_at: Some("2026-11-21T13:46:00.000Z".into()),
            revision: 0,
            completed_interviews: 0,
            tenant_id: "0b7e5d8c-6a4f-4c1e-9d2b-3f8a7c6e5d4b".into(),
        }
    }
}
