//! Sessions in SQLite. Every write is ONE statement; the triggers of
//! `migrations/0005_sessions.sql` do its effects on other tables (metadata rows,
//! counters, the `interview.finished` outbox row, project completion) inside
//! that statement's transaction, and refuse what the state does not allow.

use super::interviewer::Message;
use super::recordings::{Recording, RecordingKind};
use super::{DeviceType, Interview, InterviewStatus, SessionState, Speaker, Turn, TurnKind, TurnSource};
use crate::db::{self, Db, Row, SqlValue};
use crate::error::{ApiError, ApiResult};
use crate::metadata::ExternalMetadata;
use crate::projects::{Environment, InterviewMode, Language};

const INTERVIEW_COLUMNS: &str = "interview_id, tenant_id, project_id, project_type, environment, session_token_hash,
    identifier, country_code, device_type, language, mode, external_metadata, state, interviewer_closed,
    response_count, turn_count, answerable_blocks, answered_blocks, opt_in_for_followup, summary, created_at, created_ms, last_activity_ms, ended_at,
    closed_at, interview_status";

fn interview_from_row(row: &Row) -> ApiResult<Interview> {
    Ok(Interview {
        interview_id: row.text("interview_id")?,
        tenant_id: row.text("tenant_id")?,
        project_id: row.text("project_id")?,
        project_type: row.text("project_type")?,
        environment: row.named::<Environment>("environment")?,
        session_token_hash: row.text("session_token_hash")?,
        identifier: row.text("identifier")?,
        country_code: row.text("country_code")?,
        device_type: row.named::<DeviceType>("device_type")?,
        language: row.named("language")?,
        mode: row.named::<InterviewMode>("mode")?,
        external_metadata: ExternalMetadata::from_stored(&row.text("external_metadata")?),
        state: row.named::<SessionState>("state")?,
        interviewer_closed: row.int("interviewer_closed")? != 0,
        response_count: row.int("response_count")?,
        turn_count: row.int("turn_count")?,
        answerable_blocks: row.int("answerable_blocks")?,
        answered_blocks: row.int("answered_blocks")?,
        opt_in_for_followup: row.int("opt_in_for_followup")? != 0,
        summary: row.opt_text("summary")?,
        created_at: row.text("created_at")?,
        created_ms: row.int("created_ms")?,
        last_activity_ms: row.int("last_activity_ms")?,
        ended_at: row.opt_text("ended_at")?,
        closed_at: row.opt_text("closed_at")?,
        interview_status: row.named::<InterviewStatus>("interview_status")?,
    })
}

/// An interview by id (the caller checks the session token or the tenant).
pub fn find(db: &Db, interview_id: &str) -> ApiResult<Option<Interview>> {
    let result = db.query(
        &format!("SELECT {INTERVIEW_COLUMNS} FROM interviews WHERE interview_id = ?"),
        &[db::text(interview_id)],
    )?;
    db::read_first(&result, interview_from_row)
}

/// The conversation so far, in order.
pub fn turns(db: &Db, interview_id: &str) -> ApiResult<Vec<Turn>> {
    let result = db.query(
        "SELECT seq, speaker, kind, question_index, source, text, created_at
         FROM interview_turns WHERE interview_id = ? ORDER BY seq",
        &[db::text(interview_id)],
    )?;
    db::read_all(&result, |row| {
            Ok(Turn {
                seq: row.int("seq")?,
                speaker: row.named::<Speaker>("speaker")?,
                kind: row.named::<TurnKind>("kind")?,
                question_index: row.opt_int("question_index")?.map(|i| i as usize),
                source: row.named::<TurnSource>("source")?,
                text: row.text("text")?,
                created_at: row.text("created_at")?,
            })
    })
}

/// Everything a new interview starts with.
pub struct NewInterview<'a> {
    pub interview_id: &'a str,
    pub tenant_id: &'a str,
    pub project_id: &'a str,
    pub project_type: &'a str,
    pub environment: Environment,
    pub session_token_hash: &'a str,
    pub identifier: &'a str,
    pub country_code: &'a str,
    pub device_type: DeviceType,
    pub language: Language,
    pub mode: InterviewMode,
    pub external_metadata: &'a ExternalMetadata,
    pub answerable_blocks: i64,
    pub created_at: &'a str,
    pub created_ms: i64,
    /// The interviewer's first turns, in order.
    pub opening: &'a [Message],
}

/// Why a start was refused by the database's own check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StartRefusal {
    ProjectNotFound,
    ProjectNotActive,
    ProjectCompleted,
}

fn opt_index(index: Option<usize>) -> SqlValue {
    index.map_or(SqlValue::Null, |i| SqlValue::Integer(i as i64))
}

/// Interviewer messages as the JSON array the statements expand with `json_each`.
fn messages_json(messages: &[Message]) -> SqlValue {
    db::text(serde_json::to_string(messages).expect("messages serialize"))
}

/// Creates the interview, its metadata rows and its first turn in one statement,
/// re-checking the project in the same transaction.
pub fn insert(db: &Db, new: &NewInterview) -> ApiResult<Result<(), StartRefusal>> {
    let outcome = db.query_refusable(
        "INSERT INTO interview_starts (interview_id, tenant_id, project_id, project_type, environment,
             session_token_hash, identifier, country_code, device_type, language, mode, external_metadata,
             answerable_blocks, created_at, created_ms, opening)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            db::text(new.interview_id),
            db::text(new.tenant_id),
            db::text(new.project_id),
            db::text(new.project_type),
            db::text(new.environment.as_str()),
            db::text(new.session_token_hash),
            db::text(new.identifier),
            db::text(new.country_code),
            db::text(new.device_type.as_str()),
            db::text(new.language.as_str()),
            db::text(new.mode.as_str()),
            db::text(new.external_metadata.to_json()),
            SqlValue::Integer(new.answerable_blocks),
            db::text(new.created_at),
            SqlValue::Integer(new.created_ms),
            messages_json(new.opening),
        ],
    )?;
    match outcome {
        Ok(_) => Ok(Ok(())),
        Err(message) if message.contains("project_not_found") => Ok(Err(StartRefusal::ProjectNotFound)),
        Err(message) if message.contains("project_not_active") => Ok(Err(StartRefusal::ProjectNotActive)),
        Err(message) if message.contains("project_completed") => Ok(Err(StartRefusal::ProjectCompleted)),
        Err(message) => Err(ApiError::internal(anyhow::anyhow!("starting an interview: {message}"))),
    }
}

/// The interviewee's turn of an exchange.
pub struct AnswerTurn<'a> {
    /// `answer`, or `skip` for a skipped survey block.
    pub kind: TurnKind,
    pub question_index: Option<usize>,
    pub text: &'a str,
    /// A survey block's structured answer (JSON), when this turn answers one.
    pub answer: Option<&'a serde_json::Value>,
}

/// The interviewee's turn and the interviewer's replies, as turns `seq`,
/// `seq + 1`, ... in one statement. A second answer to the same message loses on
/// the primary key (409 `answer_conflict`); an ended or closed conversation takes none.
pub fn append_exchange(
    db: &Db,
    interview_id: &str,
    seq: i64,
    answer: &AnswerTurn,
    replies: &[Message],
    now: &str,
    now_ms: i64,
) -> ApiResult<()> {
    let outcome = db.query_refusable(
        "INSERT INTO interview_turns
             (interview_id, seq, speaker, kind, question_index, source, text, answer, created_at, created_ms)
         SELECT ?1, ?2, 'interviewee', ?3, ?4, 'interviewee', ?5, ?6, ?7, ?8
         UNION ALL
         SELECT ?1, ?2 + 1 + r.key, 'interviewer', json_extract(r.value, '$.kind'),
                json_extract(r.value, '$.question_index'), json_extract(r.value, '$.source'),
                json_extract(r.value, '$.text'), NULL, ?7, ?8
         FROM json_each(?9) AS r",
        &[
            db::text(interview_id),
            SqlValue::Integer(seq),
            db::text(answer.kind.as_str()),
            opt_index(answer.question_index),
            db::text(answer.text),
            answer.answer.map_or(SqlValue::Null, |a| db::text(a.to_string())),
            db::text(now),
            SqlValue::Integer(now_ms),
            messages_json(replies),
        ],
    )?;
    match outcome {
        Ok(_) => Ok(()),
        Err(message) if message.contains("session_closed") => Err(super::session_closed()),
        Err(message) if message.contains("UNIQUE constraint failed") => Err(ApiError::conflict(
            "answer_conflict",
            "Another answer to this message was stored first; reload the session to see it",
        )),
        Err(message) => Err(ApiError::internal(anyhow::anyhow!("storing an answer: {message}"))),
    }
}

/// How an interview ends.
pub struct Ending<'a> {
    pub state: SessionState,
    pub opt_in_for_followup: bool,
    pub summary: &'a str,
    pub closed_at: &'a str,
    /// The `interview.finished` event's id (its trigger writes the outbox row).
    pub event_id: &'a str,
    /// Only end it if nothing happened since this activity time (the idle sweep).
    pub if_idle_since_ms: Option<i64>,
}

/// Ends a running interview; `false` when it was no longer running (or, for the
/// idle sweep, had new activity). `ended_at` is set only for a completion.
pub fn end(db: &Db, interview_id: &str, ending: &Ending) -> ApiResult<bool> {
    let ended_at = if ending.state == SessionState::Completed { db::text(ending.closed_at) } else { SqlValue::Null };
    let mut values = vec![
        db::text(ending.state.as_str()),
        SqlValue::Integer(ending.opt_in_for_followup as i64),
        db::text(ending.summary),
        ended_at,
        db::text(ending.closed_at),
        db::text(ending.event_id),
        db::text(interview_id),
    ];
    let idle_guard = match ending.if_idle_since_ms {
        Some(ms) => {
            values.push(SqlValue::Integer(ms));
            " AND last_activity_ms = ?"
        }
        None => "",
    };
    let result = db.query(
        &format!(
            "UPDATE interviews SET state = ?, opt_in_for_followup = ?, summary = ?, ended_at = ?, closed_at = ?,
                 finished_event_id = ?
             WHERE interview_id = ? AND state = 'in_progress'{idle_guard}
             RETURNING interview_id"
        ),
        &values,
    )?;
    Ok(!result.rows.is_empty())
}

/// Running interviews without activity since `cutoff_ms`, oldest first.
pub fn idle(db: &Db, cutoff_ms: i64, limit: i64) -> ApiResult<Vec<Interview>> {
    let result = db.query(
        &format!(
            "SELECT {INTERVIEW_COLUMNS} FROM interviews
             WHERE state = 'in_progress' AND last_activity_ms < ? ORDER BY last_activity_ms LIMIT ?"
        ),
        &[SqlValue::Integer(cutoff_ms), SqlValue::Integer(limit)],
    )?;
    db::read_all(&result, interview_from_row)
}

/// The content types of the tenant's files among `file_ids`: `(file_id, mime_type)`.
pub fn file_types(db: &Db, tenant_id: &str, file_ids: &[&str]) -> ApiResult<Vec<(String, String)>> {
    if file_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut values = vec![db::text(tenant_id)];
    values.extend(file_ids.iter().map(|id| db::text(*id)));
    let result = db.query(
        &format!(
            "SELECT file_id, mime_type FROM files WHERE tenant_id = ? AND file_id IN ({})",
            vec!["?"; file_ids.len()].join(", ")
        ),
        &values,
    )?;
    db::read_all(&result, |row| Ok((row.text("file_id")?, row.text("mime_type")?)))
}

// ---------------------------------------------------------------------------
// Recordings

/// The recording of one kind, if any chunk arrived.
pub fn recording(db: &Db, interview_id: &str, kind: RecordingKind) -> ApiResult<Option<Recording>> {
    let result = db.query(
        "SELECT content_type, size, chunk_count FROM recordings WHERE interview_id = ? AND kind = ?",
        &[db::text(interview_id), db::text(kind.as_str())],
    )?;
    db::read_first(&result, |row| {
        Ok(Recording {
            kind,
            content_type: row.text("content_type")?,
            size: row.int("size")? as u64,
            chunk_count: row.int("chunk_count")? as u64,
        })
    })
}

/// A recording chunk whose bytes are stored under `blob_key`.
pub struct NewChunk<'a> {
    pub interview_id: &'a str,
    pub tenant_id: &'a str,
    pub kind: RecordingKind,
    pub index: u64,
    pub content_type: &'a str,
    pub blob_key: &'a str,
    pub size: u64,
    pub created_at: &'a str,
    pub created_ms: i64,
}

/// Why a chunk row was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChunkRefusal {
    OutOfOrder,
    SessionClosed,
}

/// Records a stored chunk; its trigger keeps the recording's totals. The chunk's
/// byte offset is the recording's size at this moment.
pub fn add_chunk(db: &Db, chunk: &NewChunk) -> ApiResult<Result<(), ChunkRefusal>> {
    let outcome = db.query_refusable(
        "INSERT INTO recording_chunks
             (interview_id, kind, idx, tenant_id, content_type, blob_key, size, byte_offset, created_at, created_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7,
                 COALESCE((SELECT size FROM recordings WHERE interview_id = ?1 AND kind = ?2), 0), ?8, ?9)",
        &[
            db::text(chunk.interview_id),
            db::text(chunk.kind.as_str()),
            SqlValue::Integer(chunk.index as i64),
            db::text(chunk.tenant_id),
            db::text(chunk.content_type),
            db::text(chunk.blob_key),
            SqlValue::Integer(chunk.size as i64),
            db::text(chunk.created_at),
            SqlValue::Integer(chunk.created_ms),
        ],
    )?;
    match outcome {
        Ok(_) => Ok(Ok(())),
        Err(message) if message.contains("session_closed") => Ok(Err(ChunkRefusal::SessionClosed)),
        Err(message) if message.contains("chunk_out_of_order") || message.contains("UNIQUE constraint failed") => {
            Ok(Err(ChunkRefusal::OutOfOrder))
        }
        Err(message) => Err(ApiError::internal(anyhow::anyhow!("storing a recording chunk: {message}"))),
    }
}

/// Where each chunk of a recording is, in order: (blob key, size, byte offset).
pub fn chunks(db: &Db, interview_id: &str, kind: RecordingKind) -> ApiResult<Vec<(String, u64, u64)>> {
    let result = db.query(
        "SELECT blob_key, size, byte_offset FROM recording_chunks WHERE interview_id = ? AND kind = ? ORDER BY idx",
        &[db::text(interview_id), db::text(kind.as_str())],
    )?;
    db::read_all(&result, |row| Ok((row.text("blob_key")?, row.int("size")? as u64, row.int("byte_offset")? as u64)))
}
