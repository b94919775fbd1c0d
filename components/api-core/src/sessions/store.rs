//! Sessions in SQLite (`migrations/0005_sessions.sql`): interviews, their
//! turns and their metadata rows. Writes of several rows take the caller's
//! transaction (`&Tx`); the use cases in `mod.rs` decide what they write.

use super::interviewer::Message;
use super::{DeviceType, Interview, InterviewStatus, SessionState, Speaker, Turn, TurnKind, TurnSource};
use crate::db::{self, Db, Row, SqlValue, Tx};
use crate::error::ApiResult;
use crate::metadata::ExternalMetadata;
use crate::projects::{Environment, InterviewMode, Language};
use crate::sealed::{DataKey, Sealing};

const INTERVIEW_COLUMNS: &str = "interview_id, tenant_id, project_id, project_type, environment, session_token_hash,
    identifier, country_code, device_type, language, mode, external_metadata, state, interviewer_closed,
    response_count, turn_count, answerable_blocks, answered_blocks, opt_in_for_followup, summary, created_at,
    created_ms, last_activity_ms, ended_at, closed_at, flagged_at, data_key";

fn interview_from_row(row: &Row) -> ApiResult<Interview> {
    let state = row.named::<SessionState>("state")?;
    let project_type = row.text("project_type")?;
    let response_count = row.int("response_count")?;
    let answerable_blocks = row.int("answerable_blocks")?;
    let answered_blocks = row.int("answered_blocks")?;
    Ok(Interview {
        interview_id: row.text("interview_id")?,
        tenant_id: row.text("tenant_id")?,
        project_id: row.text("project_id")?,
        interview_status: InterviewStatus::of(state, &project_type, response_count, answerable_blocks, answered_blocks),
        project_type,
        environment: row.named::<Environment>("environment")?,
        session_token_hash: row.text("session_token_hash")?,
        identifier: row.text("identifier")?,
        country_code: row.text("country_code")?,
        device_type: row.named::<DeviceType>("device_type")?,
        language: row.named("language")?,
        mode: row.named::<InterviewMode>("mode")?,
        external_metadata: ExternalMetadata::from_stored(&row.text("external_metadata")?),
        state,
        interviewer_closed: row.flag("interviewer_closed")?,
        response_count,
        turn_count: row.int("turn_count")?,
        answerable_blocks,
        answered_blocks,
        opt_in_for_followup: row.flag("opt_in_for_followup")?,
        summary: row.opt_text("summary")?,
        created_at: row.text("created_at")?,
        created_ms: row.int("created_ms")?,
        last_activity_ms: row.int("last_activity_ms")?,
        ended_at: row.opt_text("ended_at")?,
        closed_at: row.opt_text("closed_at")?,
        flagged: row.opt_text("flagged_at")?.is_some(),
        sealing: Sealing::of_stored(row.opt_blob("data_key")?.as_deref()),
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

/// The session token hash an erased interview kept (its tombstone), if it was erased.
pub fn erased_session_token_hash(db: &Db, interview_id: &str) -> ApiResult<Option<String>> {
    let result = db.query(
        "SELECT session_token_hash FROM erased_interviews WHERE interview_id = ?",
        &[db::text(interview_id)],
    )?;
    db::read_first(&result, |row| row.text("session_token_hash"))
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
    /// The key its recording chunks are sealed with.
    pub data_key: &'a DataKey,
}

fn opt_index(index: Option<usize>) -> SqlValue {
    index.map_or(SqlValue::Null, |i| SqlValue::Integer(i as i64))
}

/// The interview row, its metadata rows (one per key, for the list's indexed
/// filters) and its opening turns.
pub fn insert(tx: &Tx, new: &NewInterview) -> ApiResult<()> {
    tx.execute(
        "INSERT INTO interviews (interview_id, tenant_id, project_id, project_type, environment, session_token_hash,
             identifier, country_code, device_type, language, mode, external_metadata, answerable_blocks,
             turn_count, created_at, created_ms, last_activity_ms, data_key)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
            SqlValue::Integer(new.opening.len() as i64),
            db::text(new.created_at),
            SqlValue::Integer(new.created_ms),
            SqlValue::Integer(new.created_ms),
            SqlValue::Blob(new.data_key.as_bytes().to_vec()),
        ],
    )?;
    let pairs = new.external_metadata.pairs();
    if !pairs.is_empty() {
        let mut params = Vec::with_capacity(pairs.len() * 5);
        for (key, value) in &pairs {
            params.extend([
                db::text(new.tenant_id),
                db::text(*key),
                db::text(*value),
                SqlValue::Integer(new.created_ms),
                db::text(new.interview_id),
            ]);
        }
        tx.execute(
            &format!(
                "INSERT INTO interview_metadata (tenant_id, key, value, created_ms, interview_id) VALUES {}",
                vec!["(?, ?, ?, ?, ?)"; pairs.len()].join(", ")
            ),
            &params,
        )?;
    }
    let turns: Vec<NewTurn> = new.opening.iter().map(NewTurn::interviewer).collect();
    insert_turns(tx, new.interview_id, 0, &turns, new.created_at, new.created_ms)
}

/// One turn to store: who says it, what kind of turn it is and its text.
pub struct NewTurn<'a> {
    pub speaker: Speaker,
    pub kind: TurnKind,
    pub question_index: Option<usize>,
    pub source: TurnSource,
    pub text: &'a str,
    /// A survey block's structured answer (JSON), on the turn that answers one.
    pub answer: Option<&'a serde_json::Value>,
}

impl<'a> NewTurn<'a> {
    pub fn interviewer(message: &'a Message) -> NewTurn<'a> {
        NewTurn {
            speaker: Speaker::Interviewer,
            kind: message.kind,
            question_index: message.question_index,
            source: message.source,
            text: &message.text,
            answer: None,
        }
    }
}

/// `turns` as seq `first_seq`, `first_seq + 1`, ... of the interview.
fn insert_turns(tx: &Tx, interview_id: &str, first_seq: i64, turns: &[NewTurn], now: &str, now_ms: i64) -> ApiResult<()> {
    if turns.is_empty() {
        return Ok(());
    }
    let mut params = Vec::with_capacity(turns.len() * 10);
    for (offset, turn) in turns.iter().enumerate() {
        params.extend([
            db::text(interview_id),
            SqlValue::Integer(first_seq + offset as i64),
            db::text(turn.speaker.as_str()),
            db::text(turn.kind.as_str()),
            opt_index(turn.question_index),
            db::text(turn.source.as_str()),
            db::text(turn.text),
            turn.answer.map_or(SqlValue::Null, |answer| db::text(answer.to_string())),
            db::text(now),
            SqlValue::Integer(now_ms),
        ]);
    }
    tx.execute(
        &format!(
            "INSERT INTO interview_turns
                 (interview_id, seq, speaker, kind, question_index, source, text, answer, created_at, created_ms)
             VALUES {}",
            vec!["(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"; turns.len()].join(", ")
        ),
        &params,
    )
}

/// What an exchange adds to the interview's counters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counted {
    /// The interviewee answered (a skip is no answer).
    pub answered: bool,
    /// A survey block got its structured answer.
    pub answered_block: bool,
    /// The interviewer's replies close the conversation.
    pub closes: bool,
}

/// Appends an exchange (the interviewee's turn, then the interviewer's
/// replies) to a running conversation whose next seq is `seq`, and counts it,
/// in the caller's transaction. `false` when the conversation was no longer at
/// `seq`, or no longer running (nothing is written then).
pub fn append_exchange(
    tx: &Tx,
    interview_id: &str,
    seq: i64,
    turns: &[NewTurn],
    counted: Counted,
    now: &str,
    now_ms: i64,
) -> ApiResult<bool> {
    let moved = tx.query(
        "UPDATE interviews
         SET turn_count = ?, response_count = response_count + ?, answered_blocks = answered_blocks + ?,
             interviewer_closed = ?, last_activity_ms = MAX(last_activity_ms, ?)
         WHERE interview_id = ? AND turn_count = ? AND state = 'in_progress' AND interviewer_closed = 0
         RETURNING interview_id",
        &[
            SqlValue::Integer(seq + turns.len() as i64),
            SqlValue::Integer(counted.answered as i64),
            SqlValue::Integer(counted.answered_block as i64),
            SqlValue::Integer(counted.closes as i64),
            SqlValue::Integer(now_ms),
            db::text(interview_id),
            SqlValue::Integer(seq),
        ],
    )?;
    if moved.rows.is_empty() {
        return Ok(false);
    }
    insert_turns(tx, interview_id, seq, turns, now, now_ms)?;
    Ok(true)
}

/// How an interview ends (the use case decided every value).
pub struct Ending<'a> {
    pub state: SessionState,
    pub opt_in_for_followup: bool,
    pub summary: &'a str,
    pub closed_at: &'a str,
    /// The `interview.finished` event's id.
    pub event_id: &'a str,
}

/// Ends a running interview; `false` when it was no longer running.
/// `ended_at` is set only for a completion.
pub fn end(tx: &Tx, interview_id: &str, ending: &Ending) -> ApiResult<bool> {
    let ended_at = match ending.state {
        SessionState::Completed => db::text(ending.closed_at),
        _ => SqlValue::Null,
    };
    let result = tx.query(
        "UPDATE interviews SET state = ?, opt_in_for_followup = ?, summary = ?, ended_at = ?, closed_at = ?,
             finished_event_id = ?
         WHERE interview_id = ? AND state = 'in_progress'
         RETURNING interview_id",
        &[
            db::text(ending.state.as_str()),
            SqlValue::Integer(ending.opt_in_for_followup as i64),
            db::text(ending.summary),
            ended_at,
            db::text(ending.closed_at),
            db::text(ending.event_id),
            db::text(interview_id),
        ],
    )?;
    Ok(!result.rows.is_empty())
}

/// Marks activity on a running interview (a recording chunk): `false` when it
/// is no longer running.
pub fn touch_running(tx: &Tx, interview_id: &str, now_ms: i64) -> ApiResult<bool> {
    let touched = tx.query(
        "UPDATE interviews SET last_activity_ms = MAX(last_activity_ms, ?)
         WHERE interview_id = ? AND state = 'in_progress' RETURNING interview_id",
        &[SqlValue::Integer(now_ms), db::text(interview_id)],
    )?;
    Ok(!touched.rows.is_empty())
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
