//! Projects: the stored project, its types and its two read shapes. By use
//! case: [`create`] and [`update`] (the request schemas, pydantic-v2-style,
//! over the field rules and table of [`fields`]), [`states`] (the state
//! machine and its outbox events), [`share`] (the shareable URL).
//!
//! Also: [`store`] (SQLite), [`context`] (validate-context rules),
//! [`survey`] (survey blocks) and [`writer`] (generated mode: the built-in
//! writer and the language-model one).

pub mod plan;
pub mod context;
mod create;
mod fields;
pub mod model_calls;
mod share;
mod states;
pub mod store;
pub mod survey;
mod update;
pub mod writer;

pub use create::{create, CreateDefaults, CreationMode, NewProject};
pub use fields::{screeners_rule, Column, FieldRule, FieldSpec, Presence, FIELDS};
pub use share::{
    parse_environment, project_url, rotate_sandbox_secret, sandbox_secret, share_url, SandboxToken, SANDBOX_TOKEN_PARAM,
};
pub use states::{
    change_state, count_completed_interview, invalid_state, uncount_completed_interview, Action, Decision, Openness,
};
pub use update::{apply_patch, ProjectPatch};

use platform::ids::ProjectId;
use platform::ids::TenantId;
use platform::validation::HexColor;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

text_enum::text_enum! {
    /// The contract's project types (docs/api-contract.md; creating usability or
    /// prototype tests is not supported).
    pub enum ProjectType { ContextualInterview = "contextual_interview", Survey = "survey" }
}

pub const PROJECT_TYPES: &[&str] = <ProjectType as text_enum::TextEnum>::NAMES;
pub const CREATION_MODES: &[&str] = &["explicit", "generated"];

text_enum::text_enum! {
    /// How an interviewee answers.
    pub enum InterviewMode { Typing = "typing", Talking = "talking" }
}

text_enum::text_enum! {
    /// Whether the page may, or must, record video in talking mode.
    pub enum CameraAccess { NotAllowed = "not_allowed", Optional = "optional", Required = "required" }
}

/// An interview language, declared with the text toolkit that reads it.
pub use text::Language;

pub const INTERVIEW_MODES: &[&str] = <InterviewMode as text_enum::TextEnum>::NAMES;
pub const CAMERA_ACCESS: &[&str] = <CameraAccess as text_enum::TextEnum>::NAMES;
/// The names of the create schema's languages: every [`Language`] but the last.
pub const CREATE_LANGUAGES: &[&str] = match <Language as text_enum::TextEnum>::NAMES.split_last() {
    Some((_uk, rest)) => rest,
    None => &[],
};
pub const INTERVIEW_LENGTHS: &[i64] = &[10, 15, 20];

pub const DEFAULT_PROJECT_TYPE: ProjectType = ProjectType::ContextualInterview;
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
/// The longest retention a project may set: ten years.
pub const MAX_RETENTION_DAYS: i64 = 3_650;

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
    /// Days an interview is kept after it stops, then erased; `None` keeps it.
    #[serde(default)]
    pub data_retention_days: Option<i64>,
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

text_enum::text_enum! {
    /// Where an interview happens: production interviews are exported and counted.
    pub enum Environment { Sandbox = "sandbox", Production = "production" }
}

// ---------------------------------------------------------------------------
// Reads.

text_enum::text_enum! {
    /// A project's state (docs/api-contract.md: draft -> active <-> paused -> completed).
    pub enum Status { Draft = "draft", Active = "active", Paused = "paused", Completed = "completed" }
}

/// A stored project.
#[derive(Debug, Clone)]
pub struct Project {
    pub project_id: ProjectId,
    pub project_type: ProjectType,
    pub fields: ProjectFields,
    pub status: Status,
    pub created_at: String,
    /// When it first became active; `None` while never published.
    pub published_at: Option<String>,
    /// Optimistic-concurrency counter of PATCH.
    pub revision: i64,
    /// Completed, unflagged production interviews (what `max_interviews` limits).
    pub completed_interviews: i64,
    pub tenant_id: TenantId,
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
        self.project_type == ProjectType::Survey
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

#[cfg(test)]
mod tests;

/// Stored projects for the unit tests of the areas built on projects.
#[cfg(any(test, feature = "testing"))]
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
            project_id: platform::ids::ProjectId::parse("6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10").unwrap(),
            project_type: DEFAULT_PROJECT_TYPE,
            fields,
            status: Status::Active,
            created_at: "2026-11-21T13:45:12.345Z".into(),
            published_at: Some("2026-11-21T13:46:00.000Z".into()),
            revision: 0,
            completed_interviews: 0,
            tenant_id: TenantId::parse("0b7e5d8c-6a4f-4c1e-9d2b-3f8a7c6e5d4b").unwrap(),
        }
    }
}
