//! Erasure (docs/interviews.md, "Erasure"): an interview's personal data gone
//! from every route, export and list, and from every file the service keeps.
//!
//! One interview is erased in one transaction: a running one is ended first
//! (its `interview.finished` is raised and counted as any end is); its rows
//! are deleted (turns, metadata rows, recording rows, the synthesis' digests
//! of its answers and the model's synthesis of its project, and the interview row
//! with its data key, so its sealed recording chunks are unreadable from the
//! commit on: crypto-shredding); the identifier is taken out of its
//! `interview.finished` event, which every delivery of the event sends; a
//! tombstone of ids keeps its session answering 404; `interview.erased` is
//! raised. Every connection deletes with `secure_delete` (db.rs), so the
//! database file keeps no old copy. After the commit the chunks are deleted
//! from the key-value store; what fails there stays listed and the
//! maintenance run deletes it, then truncates the WAL, which still holds the
//! pages as they were before the erasure.
//!
//! An erased interview that was completed still counts toward its project's
//! `max_interviews`: the count is of interviews held, not of data kept.

use platform::ids::InterviewId;
use platform::ids::TenantId;
use storage::{Db, WalCheckpoint};
use platform::error::{ApiError, ApiResult};
use files_core::BlobStore;
use records::store;
use records::{Interview, SessionState};
use sessions_core::{self as sessions, How, MAX_IDENTIFIER_CHARS};
use platform::time;
use platform::validation::{self, Fields};
use webhooks_core::{self as webhooks, Event};
use serde_json::Value;
use std::time::SystemTime;

/// Interviews the maintenance run erases for retention per run, at most.
pub const RETENTION_BATCH: i64 = 200;
/// Key-value entries the maintenance run deletes per run, at most.
pub const BLOB_BATCH: i64 = 500;
/// Erasures one WAL checkpoint is noted for, at most.
const CHECKPOINT_BATCH: i64 = 1000;

/// `DELETE /v1/interviews/{id}`: 404 when the tenant has no such interview
/// (never had, another tenant's, or erased already).
pub fn erase_interview(db: &Db, blobs: &impl BlobStore, tenant_id: TenantId, interview_id: InterviewId) -> ApiResult<()> {
    if !erase_one(db, blobs, tenant_id, interview_id, time::now())? {
        return Err(ApiError::not_found("Interview"));
    }
    Ok(())
}

/// `{"identifier": "..."}` of `POST /v1/interviewees/erase`: 1..320
/// characters. An empty identifier is refused: it is what every interview
/// without one has.
pub fn parse_erase_request(body: &Value) -> ApiResult<String> {
    let mut f = Fields::body(body)?;
    let identifier = f.require("identifier", |v, l| validation::text(v, l, 1, MAX_IDENTIFIER_CHARS));
    f.finish()?;
    Ok(identifier.unwrap_or_default())
}

/// `POST /v1/interviewees/erase`: every interview of the tenant whose
/// identifier this is (an e-mail address whatever its case), in every project
/// and environment; how many were erased (0 is no error).
pub fn erase_interviewee(db: &Db, blobs: &impl BlobStore, tenant_id: TenantId, identifier: &str) -> ApiResult<usize> {
    let now = time::now();
    let mut erased = 0;
    for interview_id in store::interviews_of_identifier(db, tenant_id, identifier)? {
        erased += usize::from(erase_one(db, blobs, tenant_id, interview_id, now)?);
    }
    Ok(erased)
}

/// Retention, in the maintenance run: erases up to [`RETENTION_BATCH`]
/// interviews that stopped more than their project's `data_retention_days`
/// ago. Their chunks are left to [`complete_erasures`]. How many it erased.
pub fn erase_expired(db: &Db, now: SystemTime) -> ApiResult<usize> {
    let mut erased = 0;
    for (interview_id, tenant_id) in store::expired(db, time::unix_millis(now), RETENTION_BATCH)? {
        if let Some(interview) = store::find_for_tenant(db, tenant_id, interview_id)? {
            erased += usize::from(erase_in_transaction(db, &interview, now)?.is_some());
        }
    }
    Ok(erased)
}

/// Erases the tenant's interview and then deletes its chunks: whether there was one.
fn erase_one(db: &Db, blobs: &impl BlobStore, tenant_id: TenantId, interview_id: InterviewId, now: SystemTime) -> ApiResult<bool> {
    let Some(interview) = store::find_for_tenant(db, tenant_id, interview_id)? else { return Ok(false) };
    let Some(blob_keys) = erase_in_transaction(db, &interview, now)? else { return Ok(false) };
    delete_blobs(db, blobs, &blob_keys);
    Ok(true)
}

/// The erasure itself, in one transaction (see the module docs): the chunks'
/// keys to delete once it is committed; `None` when the interview was erased
/// meanwhile.
fn erase_in_transaction(db: &Db, interview: &Interview, now: SystemTime) -> ApiResult<Option<Vec<String>>> {
    let at = time::rfc3339(now);
    db.transaction(|tx| {
        // Read again under the write lock: another erasure may have been first.
        let Some(current) = store::find_for_tenant(tx, interview.tenant_id, interview.interview_id)? else {
            return Ok(None);
        };
        if current.state == SessionState::InProgress {
            // Ended as if its interviewee had left (completed when the
            // interviewer had closed it); no summary: it is erased at once.
            sessions::end_in(tx, current.interview_id, How::Finished { opt_in_for_followup: false }, "", now)?;
        }
        let erased = store::erase_rows(tx, &current, &at)?;
        // Out of the synthesis: its digests, and the model's synthesis that may quote it.
        synthesis::store::forget(tx, current.project_id, current.interview_id, time::unix_millis(now))?;
        if let Some(event_id) = &erased.finished_event_id {
            webhooks::redact_interviewee(tx, event_id)?;
        }
        webhooks::emit(tx, &Event::interview_erased(current.tenant_id, current.project_id, current.interview_id, &at))?;
        Ok(Some(erased.blob_keys))
    })
}

/// Deletes key-value entries of erased interviews and forgets those deleted;
/// one that fails stays listed for the maintenance run. How many it deleted.
fn delete_blobs(db: &Db, blobs: &impl BlobStore, blob_keys: &[String]) -> usize {
    let mut deleted = Vec::new();
    for key in blob_keys {
        match blobs.delete(key) {
            Ok(()) => deleted.push(key.clone()),
            Err(error) => eprintln!("erasure: deleting {key} failed, the maintenance run tries again: {error:?}"),
        }
    }
    if let Err(error) = store::forget_erased_blobs(db, &deleted) {
        // Listed still: deleting them again is harmless.
        eprintln!("erasure: could not note {} deleted entries: {error:?}", deleted.len());
    }
    deleted.len()
}

/// What the maintenance run finishes after erasures: deletes the key-value
/// entries still listed (opening the store only when there are some), then,
/// when an erasure happened since the last one, truncates the WAL (retried by
/// the next run while another connection holds it up).
pub fn complete_erasures<S: BlobStore>(db: &Db, open_blobs: impl FnOnce() -> ApiResult<S>) -> ApiResult<()> {
    let pending = store::erased_blobs(db, BLOB_BATCH)?;
    if !pending.is_empty() {
        delete_blobs(db, &open_blobs()?, &pending);
    }
    let erased = store::awaiting_checkpoint(db, CHECKPOINT_BATCH)?;
    if erased.is_empty() {
        return Ok(());
    }
    match db.checkpoint_wal() {
        WalCheckpoint::Truncated | WalCheckpoint::NotApplicable => store::checkpointed(db, &erased),
        WalCheckpoint::Busy => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_erase_request_needs_a_real_identifier() {
        assert_eq!(parse_erase_request(&json!({"identifier": "ada@example.com", "x": 1})).unwrap(), "ada@example.com");
        for bad in [json!({}), json!({"identifier": ""}), json!({"identifier": 42}), json!({"identifier": "a".repeat(321)}), json!([])] {
            assert_eq!(parse_erase_request(&bad).unwrap_err().status(), 422, "{bad}");
        }
    }
}
