//! `POST /v1/projects`: the create schema (explicit or generated mode) and
//! the use case that writes a draft.

use super::fields::{OnCreate, FIELDS};
use super::{store, writer, ContextFields, ProjectFields, ProjectType, CREATION_MODES, DEFAULT_LOGO_URL, DEFAULT_PROJECT_TYPE, MAX_PROMPT, MIN_PROMPT, PROJECT_TYPES};

use platform::error::{ApiError, ApiResult, LocPart};
use platform::validation::{
    literal_text, nullable, text,
    Fields,
};

use serde_json::{Map, Value};

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

/// `POST /v1/projects`: writes the context in generated mode (model or built-in
/// writer), checks survey media against the tenant's files, stores a draft.
pub fn create(db: &storage::Db, tenant_id: &str, new: NewProject, llm: &platform::llm::LlmConfig) -> ApiResult<String> {
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
