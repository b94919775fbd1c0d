//! Interviews for the tenant's API (docs/interviews.md): the filtered, paged
//! list; the two CSV exports of a project, streamed page by page; the
//! recordings, with `Range`; flagging; erasure.
//!
//! Submodules: [`query`] (the list's query and items), [`export`] (the CSV
//! exports), [`transcript`] (their transcription cell), [`media`] (recording
//! downloads), [`erasure`] (erasing interviews, by request and for retention). The interviews and their turns are the
//! record's (`records`), whose store holds their SQL, the list's included.

pub mod erasure;
pub mod export;
pub mod media;
/// The interview list's query (parsed with the records, whose statement reads it).
pub use records::query;
pub mod transcript;

pub use query::{ListItem, ListQuery};

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::ids::TenantId;
use platform::error::{ApiError, ApiResult};
use projects_core::survey::{BlockType, RatingScale};
use records::store;
use platform::time;
use platform::validation::{self, Fields};
use serde_json::{json, Value};

/// `{"reason": "..."}` of a flag: 1..1,000 characters.
pub fn parse_flag(body: &Value) -> ApiResult<String> {
    let mut f = Fields::body(body)?;
    let reason = f.require("reason", |v, l| validation::text(v, l, 1, 1000));
    f.finish()?;
    Ok(reason.unwrap_or_default())
}

/// `GET /v1/projects/{id}/survey-results` (additive): per answerable block, how
/// many answered and skipped; per option of a choice block, how many chose it;
/// per rating, how many gave it, and the average. Production interviews that
/// are not flagged, whatever their status.
pub fn survey_results(db: &storage::Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<Value> {
    let project = projects_core::store::get(db, tenant_id, project_id)?.ok_or_else(projects_core::store::not_found)?;
    let Some(blocks) = &project.fields.survey_blocks else {
        return Err(ApiError::conflict("not_a_survey", "This project is not a survey; its interviews are in the exports"));
    };
    let tallies = store::survey_tallies(db, tenant_id, project_id)?;
    let per_block = |list: &[(i64, i64)], index: i64| list.iter().find(|(b, _)| *b == index).map_or(0, |(_, n)| *n);
    let results: Vec<Value> = blocks
        .iter()
        .enumerate()
        .filter(|(_, block)| block.is_answerable())
        .map(|(index, block)| {
            let index = index as i64;
            let count_of = |value: &str| {
                tallies.values.iter().find(|(b, v, _)| *b == index && v == value).map_or(0, |(_, _, n)| *n)
            };
            let mut result = json!({
                "block_id": block.block_id, "type": block.kind, "prompt": block.prompt,
                "answers": per_block(&tallies.answered, index), "skipped": per_block(&tallies.skipped, index),
            });
            match block.kind {
                BlockType::SingleChoice | BlockType::MultipleChoice => {
                    let options: Vec<Value> =
                        block.options().iter().map(|o| json!({"option": o, "count": count_of(o)})).collect();
                    result["options"] = Value::from(options);
                }
                BlockType::Rating => {
                    let (min, max) = block.scale.unwrap_or(RatingScale::OneToFive).bounds();
                    let counts: Vec<(i64, i64)> = (min..=max).map(|r| (r, count_of(&r.to_string()))).collect();
                    let total: i64 = counts.iter().map(|(_, n)| n).sum();
                    let sum: i64 = counts.iter().map(|(r, n)| r * n).sum();
                    result["ratings"] = counts.iter().map(|(r, n)| json!({"rating": r, "count": n})).collect();
                    // Two decimals; null while nobody rated.
                    result["average"] =
                        if total > 0 { json!((sum as f64 / total as f64 * 100.0).round() / 100.0) } else { Value::Null };
                }
                _ => {}
            }
            result
        })
        .collect();
    Ok(json!({
        "project_id": project_id,
        "interviews": store::counted_interviews(db, tenant_id, project_id)?,
        "blocks": results,
    }))
}

/// The interview a path names: an id that is no UUID is a 404, as one the
/// tenant does not have is.
pub fn interview_id(text: &str) -> ApiResult<InterviewId> {
    InterviewId::parse(text).ok_or_else(|| ApiError::not_found("Interview"))
}

/// `GET /v1/interviews`: `{data}` (the contract's three fields per item), plus
/// `next_cursor` when paged.
pub fn list(db: &storage::Db, tenant_id: TenantId, query: &ListQuery) -> ApiResult<Value> {
    let items = store::list::list(db, tenant_id, query)?;
    let (items, next) = query.page.finish(items, ListItem::cursor);
    let data = items
        .iter()
        .map(|i| {
            let mut item = json!({"interview_id": i.interview_id, "project_id": i.project_id, "created_at": i.created_at});
            if let Some(quality) = &i.quality {
                item["quality"] = json!(quality);
            }
            item
        })
        .collect();
    Ok(query.page.body(data, next))
}

/// `POST /v1/interviews/{id}/flag`: 404 for an unknown (or another tenant's)
/// interview. A flagged interview no longer counts toward `max_interviews`.
pub fn flag(db: &storage::Db, tenant_id: TenantId, interview_id: InterviewId, reason: &str) -> ApiResult<Value> {
    db.transaction(|tx| {
        let interview = store::find_for_tenant(tx, tenant_id, interview_id)?.ok_or_else(|| ApiError::not_found("Interview"))?;
        store::flag(tx, interview_id, reason, &time::rfc3339_now())?;
        if interview.counts_toward_max() {
            projects_core::uncount_completed_interview(tx, interview.project_id)?;
        }
        Ok(json!({ "status": "flagged" }))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_need_a_reason() {
        assert_eq!(parse_flag(&json!({"reason": "bot answers"})).unwrap(), "bot answers");
        assert_eq!(parse_flag(&json!({})).unwrap_err().status(), 422);
        assert_eq!(parse_flag(&json!({"reason": ""})).unwrap_err().status(), 422);
    }
}
