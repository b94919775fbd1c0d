//! `POST /v1/projects`: the create schema (explicit or generated mode) and
//! the use case that writes a draft.

use platform::ids::{ProjectId, TenantId};
use super::fields::{
    camera_rule, create_languages_rule, length_rule, logo_rule, max_interviews_rule, modes_rule, name_rule, redirect_rule,
    retention_rule, screeners_rule, text_rule,
};
use super::survey::{self, SurveyBlock};
use super::{
    default_primary_color, store, writer, ContextFields, ProjectFields, ProjectType, CREATION_MODES, DEFAULT_CAMERA_ACCESS,
    DEFAULT_INTERVIEW_LENGTH, DEFAULT_INTERVIEW_MODE, DEFAULT_LANGUAGE, DEFAULT_LOGO_URL, DEFAULT_PROJECT_TYPE, MAX_PROMPT, MIN_PROMPT,
    PROJECT_TYPES,
};

use platform::error::{ApiError, ApiResult, LocPart};
use platform::validation::{hex_color, literal_text, nullable, text, Checked, Fields};

use serde_json::Value;

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
            .unwrap_or(DEFAULT_PROJECT_TYPE);
        let creation_mode = match f.check_nullable("creation_mode", |v, l| literal_text(v, l, CREATION_MODES)).as_deref() {
            Some("generated") => CreationMode::Generated,
            _ => CreationMode::Explicit,
        };
        let generated = creation_mode == CreationMode::Generated;

        let (project_name, settings) = settings(&mut f, project_type, generated, defaults);
        let prompt = if generated {
            f.require("prompt", |v, l| text(v, l, MIN_PROMPT, MAX_PROMPT))
        } else {
            None
        };
        f.finish()?;
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

/// The create schema's fields, read as their types in `FIELDS`' order (the
/// order of the 422s), with the defaults of [`NewProject::parse`]; the name as
/// given. A field whose problem `f` records reads as its placeholder.
fn settings(f: &mut Fields, project_type: ProjectType, generated: bool, defaults: &CreateDefaults) -> (Option<String>, ProjectFields) {
    // Generated mode's name may be given or null, like any nullable field; the writer names a project without one.
    let project_name = if generated { f.check_nullable("project_name", name_rule) } else { f.require("project_name", name_rule) };
    let project_description = f.check_nullable("project_description", text_rule);
    // Generated mode writes the context, and does not look at what was sent.
    let mut context = |name: &str| if generated { String::new() } else { f.require(name, text_rule).unwrap_or_default() };
    let (project_objective, research_questions) = (context("project_objective"), context("research_questions"));
    let (success_criteria, recruiting_criteria) = (context("success_criteria"), context("recruiting_criteria"));
    let settings = ProjectFields {
        project_name: project_name.clone().unwrap_or_default(),
        project_description,
        project_objective,
        research_questions,
        success_criteria,
        recruiting_criteria,
        specific_guidelines: f.check_nullable("specific_guidelines", text_rule),
        redirect_url: f.check_nullable("redirect_url", redirect_rule),
        interview_modes: f.check_nullable("interview_modes", modes_rule).unwrap_or_else(|| vec![DEFAULT_INTERVIEW_MODE]),
        // Null is the rule's 422: reads never show it as null.
        camera_access: f.check("camera_access", camera_rule).unwrap_or(DEFAULT_CAMERA_ACCESS),
        logo_url: default_when_absent(f, "logo_url", logo_rule, defaults.logo_url.clone()),
        primary_color: default_when_absent(f, "primary_color", hex_color, Some(default_primary_color())),
        // Update only.
        secondary_color: None,
        text_color: None,
        interview_languages: f.check_nullable("interview_languages", create_languages_rule).unwrap_or_else(|| vec![DEFAULT_LANGUAGE]),
        interview_length: f.check_nullable("interview_length", length_rule).unwrap_or(DEFAULT_INTERVIEW_LENGTH),
        screeners: f.check_nullable("screeners", screeners_rule),
        max_interviews: f.check_nullable("max_interviews", max_interviews_rule),
        data_retention_days: f.check_nullable("data_retention_days", retention_rule),
        survey_blocks: survey_blocks(f, project_type),
    };
    (project_name, settings)
}

/// Survey projects' blocks, required there; refused (unless null) on other types.
fn survey_blocks(f: &mut Fields, project_type: ProjectType) -> Option<Vec<SurveyBlock>> {
    if project_type == ProjectType::Survey {
        return f.require("survey_blocks", survey::blocks_rule);
    }
    if f.raw("survey_blocks").is_some_and(|value| !value.is_null()) {
        f.error(f.loc("survey_blocks"), "value_error", "Value error, survey_blocks apply to survey projects only".to_string());
    }
    None
}

/// A field whose absence means `default`, and whose explicit null stays null.
fn default_when_absent<T>(f: &mut Fields, name: &str, rule: fn(&Value, Vec<LocPart>) -> Checked<T>, default: Option<T>) -> Option<T> {
    match f.check(name, |v, l| nullable(v, l, rule)) {
        Some(value) => value,
        None if f.has(name) => None,
        None => default,
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

/// `POST /v1/projects`: writes the context in generated mode (model or built-in
/// writer), checks survey media against the tenant's files, stores a draft.
pub fn create(db: &storage::Db, tenant_id: TenantId, new: NewProject, llm: &platform::llm::LlmConfig) -> ApiResult<ProjectId> {
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
    store::insert(db, tenant_id, project_type, creation_mode.as_str(), &fields)
}
