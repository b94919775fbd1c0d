//! The interview record in SQLite (`migrations/0005_sessions.sql` and later):
//! interviews, their turns, their metadata rows and the erased interviews'
//! tombstones. Writes of several rows take the caller's transaction (`&Tx`);
//! the areas' use cases decide what they write. Queries for the tenant's API
//! are scoped by `tenant_id`. The interview list's statement is in [`list`].

pub mod list;

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::ids::TenantId;
use super::quality::Quality;
use projects_core::ProjectType;
use super::{DeviceType, Interview, InterviewStatus, SessionState, Speaker, Turn, TurnKind, TurnSource};
use storage::{self as db, Db, QueryResult, Row, SqlValue, Tx};
use platform::error::ApiResult;
use platform::metadata::ExternalMetadata;
use projects_core::{Environment, InterviewMode, Language};
use sealing::{DataKey, Sealing};

/// Every column [`interview_from_row`] reads, in one list.
const INTERVIEW_COLUMNS: &str = "interview_id, tenant_id, project_id, project_type, environment, session_token_hash,
    identifier, country_code, device_type, language, mode, external_metadata, state, interviewer_closed,
    response_count, turn_count, answerable_blocks, answered_blocks, opt_in_for_followup, summary, created_at,
    created_ms, last_activity_ms, ended_at, closed_at, flagged_at, data_key, quality_score, quality_flags";

fn interview_from_row(row: &Row) -> ApiResult<Interview> {
    let state = row.named::<SessionState>("state")?;
    let project_type = row.named::<ProjectType>("project_type")?;
    let response_count = row.int("response_count")?;
    let answerable_blocks = row.int("answerable_blocks")?;
    let answered_blocks = row.int("answered_blocks")?;
    Ok(Interview {
        interview_id: row.id("interview_id")?,
        tenant_id: row.id("tenant_id")?,
        project_id: row.id("project_id")?,
        interview_status: InterviewStatus::of(state, project_type, response_count, answerable_blocks, answered_blocks),
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
        quality: quality_from_row(row)?,
    })
}

/// The stored quality (`quality_score`, `quality_flags`): none until the interview ends.
pub(crate) fn quality_from_row(row: &Row) -> ApiResult<Option<Quality>> {
    Ok(match (row.opt_int("quality_score")?, row.opt_str("quality_flags")?) {
        (Some(score), Some(flags)) => Some(Quality::from_stored(score, flags)),
        _ => None,
    })
}

/// A turn whose texts borrow from the statement's result.
fn turn_from_row<'r>(row: &Row<'r>) -> ApiResult<Turn<&'r str>> {
    Ok(Turn {
        seq: row.int("seq")?,
        speaker: row.named::<Speaker>("speaker")?,
        kind: row.named::<TurnKind>("kind")?,
        question_index: row.opt_int("question_index")?.map(|i| i as usize),
        source: row.named::<TurnSource>("source")?,
        text: row.str("text")?,
        created_at: row.str("created_at")?,
    })
}

/// Every column [`turn_from_row`] reads.
const TURN_COLUMNS: &str = "seq, speaker, kind, question_index, source, text, created_at";

fn placeholders(n: usize) -> String {
    vec!["?"; n].join(", ")
}

fn texts<T: ToString>(values: &[T]) -> Vec<SqlValue> {
    values.iter().map(|value| db::text(value.to_string())).collect()
}

fn count_of(value: Option<SqlValue>) -> i64 {
    match value {
        Some(SqlValue::Integer(n)) => n,
        _ => 0,
    }
}

/// An interview by id (the caller checks the session token or the tenant).
pub fn find(db: &Db, interview_id: InterviewId) -> ApiResult<Option<Interview>> {
    let result = db.query(
        &format!("SELECT {INTERVIEW_COLUMNS} FROM interviews WHERE interview_id = ?"),
        &[db::text(interview_id)],
    )?;
    db::read_first(&result, interview_from_row)
}

/// The tenant's interview by id; `None` when the tenant has none by that id.
pub fn find_for_tenant(db: &Db, tenant_id: TenantId, interview_id: InterviewId) -> ApiResult<Option<Interview>> {
    let result = db.query(
        &format!("SELECT {INTERVIEW_COLUMNS} FROM interviews WHERE interview_id = ? AND tenant_id = ?"),
        &[db::text(interview_id), db::text(tenant_id)],
    )?;
    db::read_first(&result, interview_from_row)
}

/// The session token hash an erased interview kept (its tombstone), if it was erased.
pub fn erased_session_token_hash(db: &Db, interview_id: InterviewId) -> ApiResult<Option<String>> {
    let result = db.query(
        "SELECT session_token_hash FROM erased_interviews WHERE interview_id = ?",
        &[db::text(interview_id)],
    )?;
    db::read_first(&result, |row| row.text("session_token_hash"))
}

/// The conversation so far, in order.
pub fn turns(db: &Db, interview_id: InterviewId) -> ApiResult<Vec<Turn>> {
    let (sql, params) = turns_statement(interview_id);
    turns_from(&db.query(&sql, &params)?)
}

/// The statement of [`turns`], to read it together with others
/// (`Db::query_together`); its result reads with [`turns_from`].
pub fn turns_statement(interview_id: InterviewId) -> (String, Vec<SqlValue>) {
    (format!("SELECT {TURN_COLUMNS} FROM interview_turns WHERE interview_id = ? ORDER BY seq"), vec![db::text(interview_id)])
}

/// The turns a statement of [`turns_statement`] found, in order.
pub fn turns_from(result: &QueryResult) -> ApiResult<Vec<Turn>> {
    db::read_all(result, |row| Ok(turn_from_row(row)?.to_owned()))
}

/// Everything a new interview starts with.
pub struct NewInterview<'a> {
    pub interview_id: InterviewId,
    pub tenant_id: TenantId,
    pub project_id: ProjectId,
    pub project_type: ProjectType,
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
    pub opening: &'a [NewTurn<'a>],
    /// The key its recording chunks are sealed with.
    pub data_key: &'a DataKey,
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
            db::text(new.project_type.as_str()),
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
    insert_turns(tx, new.interview_id, 0, new.opening, new.created_at, new.created_ms)
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

/// `turns` as seq `first_seq`, `first_seq + 1`, ... of the interview.
fn insert_turns(tx: &Tx, interview_id: InterviewId, first_seq: i64, turns: &[NewTurn], now: &str, now_ms: i64) -> ApiResult<()> {
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
            turn.question_index.map_or(SqlValue::Null, |i| SqlValue::Integer(i as i64)),
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
/// in the caller's transaction, which `Db::guarded_transaction` runs: when the
/// conversation was no longer at `seq`, or no longer running, the guard lost
/// and nothing is written. (Nothing is read inside: on a remote database the
/// whole exchange is one batch.)
pub fn append_exchange(
    tx: &Tx,
    interview_id: InterviewId,
    seq: i64,
    turns: &[NewTurn],
    counted: Counted,
    now: &str,
    now_ms: i64,
) -> ApiResult<()> {
    tx.guard(
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
    insert_turns(tx, interview_id, seq, turns, now, now_ms)
}

/// How an interview ends (the use case decided every value).
pub struct Ending<'a> {
    pub state: SessionState,
    pub opt_in_for_followup: bool,
    pub summary: &'a str,
    pub closed_at: &'a str,
    /// The `interview.finished` event's id.
    pub event_id: &'a str,
    pub quality: &'a Quality,
}

/// Ends a running interview; `false` when it was no longer running.
/// `ended_at` is set only for a completion.
pub fn end(tx: &Tx, interview_id: InterviewId, ending: &Ending) -> ApiResult<bool> {
    let ended_at = match ending.state {
        SessionState::Completed => db::text(ending.closed_at),
        _ => SqlValue::Null,
    };
    let result = tx.query(
        "UPDATE interviews SET state = ?, opt_in_for_followup = ?, summary = ?, ended_at = ?, closed_at = ?,
             finished_event_id = ?, quality_score = ?, quality_flags = ?
         WHERE interview_id = ? AND state = 'in_progress'
         RETURNING interview_id",
        &[
            db::text(ending.state.as_str()),
            SqlValue::Integer(ending.opt_in_for_followup as i64),
            db::text(ending.summary),
            ended_at,
            db::text(ending.closed_at),
            db::text(ending.event_id),
            SqlValue::Integer(i64::from(ending.quality.score)),
            db::text(ending.quality.flags_json()),
            db::text(interview_id),
        ],
    )?;
    Ok(!result.rows.is_empty())
}

/// Marks activity on a running interview (a recording chunk): `false` when it
/// is no longer running.
pub fn touch_running(tx: &Tx, interview_id: InterviewId, now_ms: i64) -> ApiResult<bool> {
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

/// How the tenant's interview's blobs are kept (its key); `None` when the
/// tenant has no such interview.
pub fn interview_sealing(db: &Db, tenant_id: TenantId, interview_id: InterviewId) -> ApiResult<Option<Sealing>> {
    let result = db.query(
        "SELECT data_key FROM interviews WHERE interview_id = ? AND tenant_id = ?",
        &[db::text(interview_id), db::text(tenant_id)],
    )?;
    db::read_first(&result, |row| Ok(Sealing::of_stored(row.opt_blob("data_key")?.as_deref())))
}

/// [`interviews_of_identifier`]'s statement (tenant, identifier, whether it is
/// an e-mail address): on `interviews_by_identifier`, whose NOCASE order
/// serves both the exact and the case-blind match.
pub const OF_IDENTIFIER_SQL: &str = "SELECT interview_id FROM interviews
     WHERE tenant_id = ?1 AND identifier = ?2 COLLATE NOCASE AND (?3 OR identifier = ?2)";

/// [`expired`]'s statement (now in Unix milliseconds, limit): the projects
/// with a retention (`projects_with_retention`), then each one's interviews
/// stopped before its cutoff (`interviews_by_close`). `CROSS JOIN` keeps that
/// order: without statistics the planner may otherwise walk every stopped
/// interview of every project, every maintenance run. `closed_at` is RFC 3339
/// with milliseconds, so text order is time order.
pub const EXPIRED_SQL: &str = "SELECT i.interview_id, i.tenant_id
     FROM projects p CROSS JOIN interviews i ON i.project_id = p.project_id
     WHERE p.data_retention_days IS NOT NULL AND i.closed_at IS NOT NULL
       AND i.closed_at < strftime('%Y-%m-%dT%H:%M:%fZ', (?1 - p.data_retention_days * 86400000) / 1000.0, 'unixepoch')
     LIMIT ?2";

/// The tenant's interviews with this identifier, in any project and
/// environment: exactly, or, for an e-mail address (one with `@`), whatever
/// the case of its ASCII letters.
pub fn interviews_of_identifier(db: &Db, tenant_id: TenantId, identifier: &str) -> ApiResult<Vec<InterviewId>> {
    let result = db.query(
        OF_IDENTIFIER_SQL,
        &[db::text(tenant_id), db::text(identifier), SqlValue::Integer(identifier.contains('@') as i64)],
    )?;
    db::read_all(&result, |row| row.id("interview_id"))
}

/// Up to `limit` interviews past their project's retention at `now_ms`: those
/// that stopped (`closed_at`) more than `data_retention_days` days before.
pub fn expired(db: &Db, now_ms: i64, limit: i64) -> ApiResult<Vec<(InterviewId, TenantId)>> {
    let result = db.query(EXPIRED_SQL, &[SqlValue::Integer(now_ms), SqlValue::Integer(limit)])?;
    db::read_all(&result, |row| Ok((row.id("interview_id")?, row.id("tenant_id")?)))
}

/// What deleting an interview's rows left to do.
pub struct ErasedRows {
    /// Its `interview.finished` event, to redact.
    pub finished_event_id: Option<String>,
    /// Its recording chunks' key-value entries, to delete (listed in `erased_blobs` until they are).
    pub blob_keys: Vec<String>,
}

/// Deletes every row of the interview, in the caller's transaction: its turns,
/// metadata rows, recording rows and the interview row with its data key;
/// notes its key-value entries in `erased_blobs`, and leaves its tombstone.
pub fn erase_rows(tx: &Tx, interview: &Interview, erased_at: &str) -> ApiResult<ErasedRows> {
    let id = || db::text(interview.interview_id);
    let noted = tx.query(
        "INSERT OR IGNORE INTO erased_blobs (blob_key, erased_at)
         SELECT blob_key, ? FROM recording_chunks WHERE interview_id = ? RETURNING blob_key",
        &[db::text(erased_at), id()],
    )?;
    let blob_keys = db::read_all(&noted, |row| row.text("blob_key"))?;
    for table in ["interview_turns", "interview_metadata", "recording_chunks", "recordings"] {
        tx.execute(&format!("DELETE FROM {table} WHERE interview_id = ?"), &[id()])?;
    }
    let deleted = tx.query("DELETE FROM interviews WHERE interview_id = ? RETURNING finished_event_id", &[id()])?;
    let finished_event_id = db::read_first(&deleted, |row| row.opt_text("finished_event_id"))?.flatten();
    tx.execute(
        "INSERT OR IGNORE INTO erased_interviews (interview_id, tenant_id, project_id, session_token_hash, erased_at)
         VALUES (?, ?, ?, ?, ?)",
        &[
            id(),
            db::text(interview.tenant_id),
            db::text(interview.project_id),
            db::text(&interview.session_token_hash),
            db::text(erased_at),
        ],
    )?;
    Ok(ErasedRows { finished_event_id, blob_keys })
}

/// Key-value entries of erased interviews still to delete, up to `limit`.
pub fn erased_blobs(db: &Db, limit: i64) -> ApiResult<Vec<String>> {
    let result = db.query("SELECT blob_key FROM erased_blobs LIMIT ?", &[SqlValue::Integer(limit)])?;
    db::read_all(&result, |row| row.text("blob_key"))
}

/// Forgets key-value entries that are deleted now.
pub fn forget_erased_blobs(db: &Db, blob_keys: &[String]) -> ApiResult<()> {
    if blob_keys.is_empty() {
        return Ok(());
    }
    db.execute(
        &format!("DELETE FROM erased_blobs WHERE blob_key IN ({})", placeholders(blob_keys.len())),
        &texts(blob_keys),
    )
}

/// Erased interviews whose old pages the WAL may still hold, up to `limit`.
pub fn awaiting_checkpoint(db: &Db, limit: i64) -> ApiResult<Vec<InterviewId>> {
    let result = db.query(
        "SELECT interview_id FROM erased_interviews WHERE awaiting_checkpoint = 1 LIMIT ?",
        &[SqlValue::Integer(limit)],
    )?;
    db::read_all(&result, |row| row.id("interview_id"))
}

/// Notes that the WAL was truncated after these erasures.
pub fn checkpointed(db: &Db, interview_ids: &[InterviewId]) -> ApiResult<()> {
    if interview_ids.is_empty() {
        return Ok(());
    }
    db.execute(
        &format!(
            "UPDATE erased_interviews SET awaiting_checkpoint = 0 WHERE interview_id IN ({})",
            placeholders(interview_ids.len())
        ),
        &texts(interview_ids),
    )
}

/// Flags the interview: the first flag time stays, the reason is the latest one given.
pub fn flag(tx: &Tx, interview_id: InterviewId, reason: &str, now: &str) -> ApiResult<()> {
    tx.execute(
        "UPDATE interviews SET flag_reason = ?, flagged_at = COALESCE(flagged_at, ?) WHERE interview_id = ?",
        &[db::text(reason), db::text(now), db::text(interview_id)],
    )
}

/// The next page of a project's production interviews, oldest first, after
/// `after` (`(created_ms, interview_id)`).
pub fn export_page(
    db: &Db,
    tenant_id: TenantId,
    project_id: ProjectId,
    after: Option<(i64, InterviewId)>,
    limit: i64,
) -> ApiResult<Vec<Interview>> {
    let (after_ms, after_id) = after.map_or((i64::MIN, String::new()), |(ms, id)| (ms, id.to_string()));
    let result = db.query(
        &format!(
            "SELECT {INTERVIEW_COLUMNS} FROM interviews
             WHERE tenant_id = ? AND project_id = ? AND environment = 'production' AND (created_ms, interview_id) > (?, ?)
             ORDER BY created_ms, interview_id LIMIT ?"
        ),
        &[db::text(tenant_id), db::text(project_id), SqlValue::Integer(after_ms), db::text(after_id), SqlValue::Integer(limit)],
    )?;
    db::read_all(&result, interview_from_row)
}

/// The turns of several interviews, each interview's in order: one
/// statement, read with [`interview_turns`].
pub fn turns_of(db: &Db, interview_ids: &[InterviewId]) -> ApiResult<QueryResult> {
    if interview_ids.is_empty() {
        return Ok(QueryResult { columns: Vec::new(), rows: Vec::new() });
    }
    let values: Vec<SqlValue> = texts(interview_ids);
    db.query(
        &format!(
            "SELECT interview_id, {TURN_COLUMNS} FROM interview_turns WHERE interview_id IN ({})
             ORDER BY interview_id, seq",
            placeholders(values.len())
        ),
        &values,
    )
}

/// The turns [`turns_of`] read, with their interview's id, borrowing their
/// texts from its result (an export reads thousands a page: they are not
/// copied again).
pub fn interview_turns(result: &QueryResult) -> ApiResult<Vec<(InterviewId, Turn<&str>)>> {
    db::read_all(result, |row| Ok((row.id("interview_id")?, turn_from_row(row)?)))
}

/// How a survey's blocks were answered across the project's production,
/// unflagged interviews.
#[derive(Debug, Default)]
pub struct SurveyTallies {
    /// `(block index, chosen option or rating, count)`.
    pub values: Vec<(i64, String, i64)>,
    /// `(block index, answers)` and `(block index, skips)`.
    pub answered: Vec<(i64, i64)>,
    pub skipped: Vec<(i64, i64)>,
}

pub fn survey_tallies(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<SurveyTallies> {
    const TURNS: &str = "FROM interviews i JOIN interview_turns t ON t.interview_id = i.interview_id";
    const COUNTED: &str =
        "WHERE i.tenant_id = ? AND i.project_id = ? AND i.environment = 'production' AND i.flagged_at IS NULL";
    let scope = [db::text(tenant_id), db::text(project_id)];
    let values = db.query(
        &format!(
            "SELECT t.question_index AS block, CAST(COALESCE(c.value, json_extract(t.answer, '$.rating')) AS TEXT) AS chosen, COUNT(*) AS n
             {TURNS} LEFT JOIN json_each(t.answer, '$.choices') AS c
             {COUNTED} AND t.answer IS NOT NULL AND COALESCE(c.value, json_extract(t.answer, '$.rating')) IS NOT NULL
             GROUP BY block, chosen"
        ),
        &scope,
    )?;
    let per_block = |condition: &str| -> ApiResult<Vec<(i64, i64)>> {
        let result =
            db.query(&format!("SELECT t.question_index AS block, COUNT(*) AS n {TURNS} {COUNTED} AND {condition} GROUP BY block"), &scope)?;
        db::read_all(&result, |row| Ok((row.int("block")?, row.int("n")?)))
    };
    Ok(SurveyTallies {
        values: db::read_all(&values, |row| Ok((row.int("block")?, row.text("chosen")?, row.int("n")?)))?,
        answered: per_block("t.answer IS NOT NULL")?,
        skipped: per_block("t.kind = 'skip'")?,
    })
}

/// The project's production, unflagged interviews.
pub fn counted_interviews(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<i64> {
    let count = db.query_scalar(
        "SELECT COUNT(*) FROM interviews
         WHERE tenant_id = ? AND project_id = ? AND environment = 'production' AND flagged_at IS NULL",
        &[db::text(tenant_id), db::text(project_id)],
    )?;
    Ok(count_of(count))
}


/// A production interview that has ended and is not flagged: what a synthesis
/// may analyse (low-effort ones are then left out by their quality).
#[derive(Debug, Clone)]
pub struct Ended {
    pub interview_id: InterviewId,
    /// None for an interview that ended before quality signals existed, until
    /// the maintenance run assesses it.
    pub quality: Option<Quality>,
}

/// The project's ended, unflagged production interviews, oldest first (a synthesis' interviews).
pub fn ended_interviews(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<Vec<Ended>> {
    let result = db.query(
        "SELECT interview_id, quality_score, quality_flags FROM interviews
         WHERE tenant_id = ? AND project_id = ? AND environment = 'production'
           AND state <> 'in_progress' AND flagged_at IS NULL
         ORDER BY created_ms, interview_id",
        &[db::text(tenant_id), db::text(project_id)],
    )?;
    db::read_all(&result, |row| {
        Ok(Ended { interview_id: row.id("interview_id")?, quality: quality_from_row(row)? })
    })
}

/// Pairs of (interview, seq) per statement when quotes are read.
const ANSWERS_PER_STATEMENT: usize = 400;

/// The texts of the answers `(interview_id, seq)`: `(interview_id, seq, text)`.
pub fn answer_texts(db: &Db, answers: &[(InterviewId, i64)]) -> ApiResult<Vec<(InterviewId, i64, String)>> {
    let mut texts = Vec::with_capacity(answers.len());
    for batch in answers.chunks(ANSWERS_PER_STATEMENT) {
        let mut values = Vec::with_capacity(batch.len() * 2);
        for (interview_id, seq) in batch {
            values.extend([db::text(*interview_id), SqlValue::Integer(*seq)]);
        }
        let result = db.query(
            &format!(
                "SELECT interview_id, seq, text FROM interview_turns WHERE (interview_id, seq) IN (VALUES {})
                 AND speaker = 'interviewee'",
                vec!["(?, ?)"; batch.len()].join(", ")
            ),
            &values,
        )?;
        texts.extend(db::read_all(&result, |row| Ok((row.id("interview_id")?, row.int("seq")?, row.text("text")?)))?);
    }
    Ok(texts)
}

/// Interviews that ended without quality signals (before they existed), up to
/// `limit`, on the partial index `interviews_unassessed`.
pub fn unassessed(db: &Db, limit: i64) -> ApiResult<Vec<InterviewId>> {
    let result = db.query(
        "SELECT interview_id FROM interviews WHERE quality_score IS NULL AND state <> 'in_progress' LIMIT ?",
        &[SqlValue::Integer(limit)],
    )?;
    db::read_all(&result, |row| row.id("interview_id"))
}

/// Stores the quality of an interview assessed late.
pub fn set_quality(tx: &Tx, interview_id: InterviewId, quality: &Quality) -> ApiResult<()> {
    tx.execute(
        "UPDATE interviews SET quality_score = ?, quality_flags = ? WHERE interview_id = ?",
        &[SqlValue::Integer(i64::from(quality.score)), db::text(quality.flags_json()), db::text(interview_id)],
    )
}
