//! The shareable link of a project: its environment and its URL.

use super::{Environment, Project};

use crate::error::{ApiError, ApiResult, FieldError, LocPart};
use crate::validation::{
    self,
};
use serde_json::{json, Value};

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
