//! `PATCH /v1/projects/{id}`: an RFC 7386 JSON Merge Patch, checked field by
//! field, and the read-merge-write that applies it.

use platform::ids::ProjectId;
use platform::ids::TenantId;
use super::fields::{check_update_field, screeners_rule, FIELDS};
use super::{store, Project, ProjectFields};

use platform::error::{ApiError, ApiResult};
use platform::validation::Fields;
use serde_json::{Map, Value};

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

/// `PATCH /v1/projects/{id}`: read, merge, write if unchanged since the read;
/// when another write won, again (each round has a winner, so this bounds the
/// concurrent writers it outlasts). A survey's blocks change only while it has no
/// production interview (409 `survey_locked`), checked in the write itself.
pub fn apply_patch(db: &storage::Db, tenant_id: TenantId, project_id: ProjectId, patch: &ProjectPatch) -> ApiResult<()> {
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
