//! Recordings in SQLite: a row of totals per interview and kind, and a row per
//! chunk saying where its bytes are and at which byte offset it starts (Range
//! requests). Writes take the caller's transaction.

use platform::ids::InterviewId;
use platform::ids::TenantId;
use super::webm::Splicer;
use super::{Recording, RecordingKind};
use storage::{self as db, Db, SqlValue, Tx};
use platform::error::ApiResult;

/// The interview's recordings (one of each kind at most, once a chunk arrived).
pub fn recordings(db: &Db, interview_id: InterviewId) -> ApiResult<Vec<Recording>> {
    let result = db.query(
        "SELECT kind, content_type, size, chunk_count, window_start, window_bytes, splicer FROM recordings WHERE interview_id = ?",
        &[db::text(interview_id)],
    )?;
    db::read_all(&result, |row| {
        Ok(Recording {
            kind: row.named("kind")?,
            content_type: row.text("content_type")?,
            size: row.int("size")? as u64,
            chunk_count: row.int("chunk_count")? as u64,
            window_start: row.int("window_start")? as u64,
            window_bytes: row.int("window_bytes")? as u64,
            splicer: row.opt_json("splicer")?,
        })
    })
}

/// A recording chunk whose bytes are stored under `blob_key`.
pub struct NewChunk<'a> {
    pub interview_id: InterviewId,
    pub tenant_id: TenantId,
    pub kind: RecordingKind,
    pub index: u64,
    pub content_type: &'a str,
    pub blob_key: &'a str,
    pub size: u64,
    /// Where it starts: the recording's size before it.
    pub byte_offset: u64,
    /// The one-minute window it arrived in (Unix seconds of its start).
    pub window_start: u64,
    /// The recording's splicer after this chunk (`None`: not spliced).
    pub splicer: Option<&'a Splicer>,
    pub created_at: &'a str,
    pub created_ms: i64,
}

/// The chunk's row, and the recording's totals with it.
pub fn add_chunk(tx: &Tx, chunk: &NewChunk) -> ApiResult<()> {
    tx.execute(
        "INSERT INTO recording_chunks
             (interview_id, kind, idx, tenant_id, content_type, blob_key, size, byte_offset, created_at, created_ms)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            db::text(chunk.interview_id),
            db::text(chunk.kind.as_str()),
            SqlValue::Integer(chunk.index as i64),
            db::text(chunk.tenant_id),
            db::text(chunk.content_type),
            db::text(chunk.blob_key),
            SqlValue::Integer(chunk.size as i64),
            SqlValue::Integer(chunk.byte_offset as i64),
            db::text(chunk.created_at),
            SqlValue::Integer(chunk.created_ms),
        ],
    )?;
    tx.execute(
        "INSERT INTO recordings
             (interview_id, kind, tenant_id, content_type, size, chunk_count, created_at, updated_at, window_start, window_bytes,
              splicer)
         VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6, ?6, ?7, ?5, ?8)
         ON CONFLICT (interview_id, kind) DO UPDATE
         SET size = size + excluded.size, chunk_count = chunk_count + 1, updated_at = excluded.updated_at,
             splicer = excluded.splicer,
             window_bytes = CASE WHEN window_start = excluded.window_start THEN window_bytes + excluded.size
                                 ELSE excluded.size END,
             window_start = excluded.window_start",
        &[
            db::text(chunk.interview_id),
            db::text(chunk.kind.as_str()),
            db::text(chunk.tenant_id),
            db::text(chunk.content_type),
            SqlValue::Integer(chunk.size as i64),
            db::text(chunk.created_at),
            SqlValue::Integer(chunk.window_start as i64),
            match chunk.splicer {
                Some(splicer) => db::text(serde_json::to_string(splicer).map_err(platform::error::ApiError::internal)?),
                None => SqlValue::Null,
            },
        ],
    )
}

/// Where each chunk of a recording is, in order: (blob key, size, byte offset).
pub fn chunks(db: &Db, interview_id: InterviewId, kind: RecordingKind) -> ApiResult<Vec<(String, u64, u64)>> {
    let result = db.query(
        "SELECT blob_key, size, byte_offset FROM recording_chunks WHERE interview_id = ? AND kind = ? ORDER BY idx",
        &[db::text(interview_id), db::text(kind.as_str())],
    )?;
    db::read_all(&result, |row| Ok((row.text("blob_key")?, row.int("size")? as u64, row.int("byte_offset")? as u64)))
}
