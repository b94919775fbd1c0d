//! Interviews in SQLite, read for the tenant's API. Every query is scoped by
//! `tenant_id`; another tenant's interview or project is as absent as a missing one.
//!
//! The list runs on an index whichever filters it has: it walks the most
//! selective one. Each candidate (each metadata key's `(tenant, key, value)`
//! range, then the project's or tenant's newest-first index) is counted, up to
//! [`SELECTIVE_CAP`] rows and no further than the smallest count so far; the
//! smallest drives. When a key drives, the other keys are checked on its rows
//! by index lookups before the interview row is read; when none is selective,
//! the newest-first index drives and the page ends as soon as it is full.

use super::transcript::TranscriptTurn;
use super::{ListItem, ListQuery, Position};
use crate::db::{self, Db, QueryResult, SqlValue, Tx};
use crate::projects::Environment;
use crate::error::ApiResult;
use crate::sealed::Sealing;
use crate::sessions::{InterviewStatus, SessionState};

/// Counting a candidate stops here: beyond it, walking it costs the same as
/// walking the newest-first index.
pub const SELECTIVE_CAP: i64 = 5_000;

/// Which rows the list walks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// The interviews of the tenant (and project), newest first.
    Interviews,
    /// The rows of `query.metadata[i]`'s key and values.
    Metadata(usize),
}

fn placeholders(n: usize) -> String {
    vec!["?"; n].join(", ")
}

fn texts<'a>(values: impl IntoIterator<Item = &'a String>) -> Vec<SqlValue> {
    values.into_iter().map(db::text).collect()
}

/// The rows of `inner`, counted up to `cap`.
fn capped_count(db: &Db, inner: &str, mut values: Vec<SqlValue>, cap: i64) -> ApiResult<i64> {
    if cap <= 0 {
        return Ok(0);
    }
    values.push(SqlValue::Integer(cap));
    let count = db.query_scalar(&format!("SELECT COUNT(*) FROM ({inner} LIMIT ?)"), &values)?;
    Ok(match count {
        Some(SqlValue::Integer(n)) => n,
        _ => 0,
    })
}

/// The rows of the tenant (and project) in the environment: `(condition, values)` on `i`.
fn scope(tenant_id: &str, query: &ListQuery) -> (String, Vec<SqlValue>) {
    let mut condition = "i.tenant_id = ? AND i.environment = ?".to_string();
    let mut values = vec![db::text(tenant_id), db::text(query.environment.as_str())];
    if let Some(project_id) = &query.project_id {
        condition.push_str(" AND i.project_id = ?");
        values.push(db::text(project_id));
    }
    (condition, values)
}

/// Picks the driver by counting each candidate (see [`pick_driver`]).
pub fn choose_driver(db: &Db, tenant_id: &str, query: &ListQuery) -> ApiResult<Driver> {
    pick_driver(query.metadata.len(), |candidate, cap| match candidate {
        Driver::Interviews => {
            let (condition, values) = scope(tenant_id, query);
            capped_count(db, &format!("SELECT 1 FROM interviews i WHERE {condition}"), values, cap)
        }
        Driver::Metadata(index) => {
            let filter = &query.metadata[index];
            let mut values = vec![db::text(tenant_id), db::text(&filter.key)];
            values.extend(texts(&filter.values));
            let inner = format!(
                "SELECT 1 FROM interview_metadata WHERE tenant_id = ? AND key = ? AND value IN ({})",
                placeholders(filter.values.len())
            );
            capped_count(db, &inner, values, cap)
        }
    })
}

/// The driver for a query with `keys` metadata keys, given `count(candidate, cap)`:
/// the candidate's rows counted up to `cap`. The keys are counted first, each
/// only up to the smallest count so far (starting at [`SELECTIVE_CAP`]); a key
/// wins only with fewer rows than every key before it. Then the scope (project
/// or tenant) is counted up to that count plus one, and it drives when it has
/// no more rows than the best key. The result is that of counting everything up
/// to the cap, ties going to the scope and then to the earlier key; counting
/// stops early instead of walking a large scope or key to the cap.
fn pick_driver(keys: usize, mut count: impl FnMut(Driver, i64) -> ApiResult<i64>) -> ApiResult<Driver> {
    let mut best: Option<(i64, usize)> = None;
    for index in 0..keys {
        let cap = best.map_or(SELECTIVE_CAP, |(smallest, _)| smallest);
        let rows = count(Driver::Metadata(index), cap)?;
        if rows < cap {
            best = Some((rows, index));
        }
    }
    // No key under the cap: the scope, which counts at most the cap, wins the tie.
    let Some((smallest, index)) = best else {
        return Ok(Driver::Interviews);
    };
    let scope = count(Driver::Interviews, smallest + 1)?;
    Ok(if scope <= smallest { Driver::Interviews } else { Driver::Metadata(index) })
}

/// Whether the interview of `row` (an alias with `tenant_id`, `created_ms` and
/// `interview_id`) has one of `values` values for a key (the key and the
/// values are the parameters, in that order).
///
/// The check seeks the key's rows by `(tenant, key, value, created_ms)` (a
/// metadata row carries its interview's `created_ms`), not the interview's
/// rows by id: the driving rows come newest first, so successive seeks land
/// on the same few pages of the key's range, where seeks by id land on a
/// page of their own each, and a request's connection starts with an empty
/// page cache (at 100,000 interviews, half the page reads of a two-key
/// filter). The `+` keeps SQLite off the by-interview index. Correlated on
/// `row`, the check runs in its loop; LIMIT 1 keeps it a subquery there
/// (SQLite turns a plain EXISTS into a join that it schedules after the
/// interview lookup). A semi-join, not a join: an interview with two
/// matching values of a key is found once.
fn key_check(row: &str, value_count: usize) -> String {
    format!(
        "EXISTS (SELECT 1 FROM interview_metadata m WHERE m.tenant_id = {row}.tenant_id AND m.key = ? \
         AND m.value IN ({}) AND m.created_ms = {row}.created_ms AND +m.interview_id = {row}.interview_id LIMIT 1)",
        placeholders(value_count)
    )
}

/// The list's statement for a driver: `(sql, values)`.
pub fn list_statement(tenant_id: &str, query: &ListQuery, driver: Driver) -> (String, Vec<SqlValue>) {
    let (scope_condition, scope_values) = scope(tenant_id, query);
    let mut sql = String::from("SELECT i.interview_id, i.project_id, i.created_at, i.created_ms FROM ");
    let mut conditions = Vec::new();
    let mut values = Vec::new();
    // The columns the order (and the cursor) use: the driver's own, so its index gives the order.
    let order = match driver {
        Driver::Interviews => {
            sql.push_str("interviews i");
            conditions.push(scope_condition);
            values.extend(scope_values);
            // The other keys: looked up for each interview of the scope.
            for filter in &query.metadata {
                conditions.push(key_check("i", filter.values.len()));
                values.push(db::text(&filter.key));
                values.extend(texts(&filter.values));
            }
            "i.created_ms, i.interview_id"
        }
        Driver::Metadata(index) => {
            let filter = &query.metadata[index];
            // CROSS JOIN keeps this order: the selective metadata rows first.
            sql.push_str("interview_metadata d CROSS JOIN interviews i");
            conditions.push(format!(
                "d.tenant_id = ? AND d.key = ? AND d.value IN ({})",
                placeholders(filter.values.len())
            ));
            values.extend([db::text(tenant_id), db::text(&filter.key)]);
            values.extend(texts(&filter.values));
            // The other keys: looked up for the driving row's interview, so
            // that most rows are thrown out before their interview row is read.
            for (other, filter) in query.metadata.iter().enumerate() {
                if other == index {
                    continue;
                }
                conditions.push(key_check("d", filter.values.len()));
                values.push(db::text(&filter.key));
                values.extend(texts(&filter.values));
            }
            conditions.push(format!("i.interview_id = d.interview_id AND {scope_condition}"));
            values.extend(scope_values);
            "d.created_ms, d.interview_id"
        }
    };
    if let Some(after) = query.created_after {
        conditions.push("i.created_ms > ?".into());
        values.push(SqlValue::Integer(after));
    }
    if let Some(before) = query.created_before {
        conditions.push("i.created_ms < ?".into());
        values.push(SqlValue::Integer(before));
    }
    if let Some(Position { created_ms, interview_id }) = query.after() {
        conditions.push(format!("({order}) < (?, ?)"));
        values.push(SqlValue::Integer(created_ms));
        values.push(db::text(interview_id));
    }
    let (first, second) = order.split_once(", ").expect("two order columns");
    sql.push_str(&format!(" WHERE {} ORDER BY {first} DESC, {second} DESC", conditions.join(" AND ")));
    if let Some(rows) = query.page.rows_to_read() {
        sql.push_str(" LIMIT ?");
        values.push(SqlValue::Integer(rows));
    }
    (sql, values)
}

/// The tenant's interviews matching the query, newest first (one more than the
/// page, when paged: see `paging`).
pub fn list(db: &Db, tenant_id: &str, query: &ListQuery) -> ApiResult<Vec<ListItem>> {
    let driver = choose_driver(db, tenant_id, query)?;
    let (sql, values) = list_statement(tenant_id, query, driver);
    let result = db.query(&sql, &values)?;
    db::read_all(&result, |row| {
        Ok(ListItem {
            interview_id: row.text("interview_id")?,
            project_id: row.text("project_id")?,
            created_at: row.text("created_at")?,
            created_ms: row.int("created_ms")?,
        })
    })
}

/// Whether the tenant has this project.
pub fn project_exists(db: &Db, tenant_id: &str, project_id: &str) -> ApiResult<bool> {
    let found = db.query_scalar(
        "SELECT 1 FROM projects WHERE project_id = ? AND tenant_id = ?",
        &[db::text(project_id), db::text(tenant_id)],
    )?;
    Ok(found.is_some())
}

/// How the tenant's interview's blobs are kept (its key); `None` when the
/// tenant has no such interview.
pub fn interview_sealing(db: &Db, tenant_id: &str, interview_id: &str) -> ApiResult<Option<Sealing>> {
    let result = db.query(
        "SELECT data_key FROM interviews WHERE interview_id = ? AND tenant_id = ?",
        &[db::text(interview_id), db::text(tenant_id)],
    )?;
    db::read_first(&result, |row| Ok(Sealing::of_stored(row.opt_blob("data_key")?.as_deref())))
}

/// An interview as erasure needs it.
#[derive(Debug, Clone)]
pub struct Erasable {
    pub interview_id: String,
    pub tenant_id: String,
    pub project_id: String,
    pub state: SessionState,
    pub session_token_hash: String,
}

/// The tenant's interview, to erase; `None` when the tenant has none by that id.
pub fn erasable(db: &Db, tenant_id: &str, interview_id: &str) -> ApiResult<Option<Erasable>> {
    let result = db.query(
        "SELECT interview_id, tenant_id, project_id, state, session_token_hash FROM interviews
         WHERE interview_id = ? AND tenant_id = ?",
        &[db::text(interview_id), db::text(tenant_id)],
    )?;
    db::read_first(&result, |row| {
        Ok(Erasable {
            interview_id: row.text("interview_id")?,
            tenant_id: row.text("tenant_id")?,
            project_id: row.text("project_id")?,
            state: row.named("state")?,
            session_token_hash: row.text("session_token_hash")?,
        })
    })
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
pub fn interviews_of_identifier(db: &Db, tenant_id: &str, identifier: &str) -> ApiResult<Vec<String>> {
    let result = db.query(
        OF_IDENTIFIER_SQL,
        &[db::text(tenant_id), db::text(identifier), SqlValue::Integer(identifier.contains('@') as i64)],
    )?;
    db::read_all(&result, |row| row.text("interview_id"))
}

/// Up to `limit` interviews past their project's retention at `now_ms`: those
/// that stopped (`closed_at`) more than `data_retention_days` days before.
pub fn expired(db: &Db, now_ms: i64, limit: i64) -> ApiResult<Vec<(String, String)>> {
    let result = db.query(EXPIRED_SQL, &[SqlValue::Integer(now_ms), SqlValue::Integer(limit)])?;
    db::read_all(&result, |row| Ok((row.text("interview_id")?, row.text("tenant_id")?)))
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
pub fn erase_rows(tx: &Tx, interview: &Erasable, erased_at: &str) -> ApiResult<ErasedRows> {
    let id = || db::text(&interview.interview_id);
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
            db::text(&interview.tenant_id),
            db::text(&interview.project_id),
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
pub fn awaiting_checkpoint(db: &Db, limit: i64) -> ApiResult<Vec<String>> {
    let result = db.query(
        "SELECT interview_id FROM erased_interviews WHERE awaiting_checkpoint = 1 LIMIT ?",
        &[SqlValue::Integer(limit)],
    )?;
    db::read_all(&result, |row| row.text("interview_id"))
}

/// Notes that the WAL was truncated after these erasures.
pub fn checkpointed(db: &Db, interview_ids: &[String]) -> ApiResult<()> {
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

/// What flagging changed.
pub struct Flagged {
    pub project_id: String,
    /// It was a completed production interview flagged for the first time:
    /// it counted toward `max_interviews` until now.
    pub uncounts: bool,
}

/// Flags the tenant's interview; `None` when there is none. The first flag
/// time stays, the reason is the latest one given.
pub fn flag(tx: &Tx, tenant_id: &str, interview_id: &str, reason: &str, now: &str) -> ApiResult<Option<Flagged>> {
    let result = tx.query(
        "SELECT project_id, state, environment, flagged_at FROM interviews WHERE interview_id = ? AND tenant_id = ?",
        &[db::text(interview_id), db::text(tenant_id)],
    )?;
    let Some(before) = db::read_first(&result, |row| {
        Ok(Flagged {
            project_id: row.text("project_id")?,
            uncounts: row.opt_text("flagged_at")?.is_none()
                && row.named::<SessionState>("state")? == SessionState::Completed
                && row.named::<Environment>("environment")? == Environment::Production,
        })
    })?
    else {
        return Ok(None);
    };
    tx.execute(
        "UPDATE interviews SET flag_reason = ?, flagged_at = COALESCE(flagged_at, ?) WHERE interview_id = ?",
        &[db::text(reason), db::text(now), db::text(interview_id)],
    )?;
    Ok(Some(before))
}

/// One interview's export row, before formatting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportRow {
    pub interview_id: String,
    pub identifier: String,
    pub country_code: String,
    pub interview_status: InterviewStatus,
    pub opt_in_for_followup: bool,
    pub created_at: String,
    pub ended_at: Option<String>,
    pub project_type: String,
    pub device_type: String,
    pub external_metadata: String,
    pub summary: Option<String>,
    pub created_ms: i64,
}

/// The next page of a project's production interviews, oldest first, after `after`.
pub fn export_page(
    db: &Db,
    tenant_id: &str,
    project_id: &str,
    after: Option<&Position>,
    limit: i64,
) -> ApiResult<Vec<ExportRow>> {
    let (after_ms, after_id) = after.map_or((i64::MIN, String::new()), |c| (c.created_ms, c.interview_id.clone()));
    let result = db.query(
        "SELECT interview_id, identifier, country_code, state, response_count, answerable_blocks, answered_blocks,
                opt_in_for_followup, created_at, ended_at, project_type, device_type, external_metadata, summary,
                created_ms
         FROM interviews
         WHERE tenant_id = ? AND project_id = ? AND environment = 'production' AND (created_ms, interview_id) > (?, ?)
         ORDER BY created_ms, interview_id LIMIT ?",
        &[db::text(tenant_id), db::text(project_id), SqlValue::Integer(after_ms), db::text(after_id), SqlValue::Integer(limit)],
    )?;
    db::read_all(&result, |row| {
        Ok(ExportRow {
            interview_id: row.text("interview_id")?,
            identifier: row.text("identifier")?,
            country_code: row.text("country_code")?,
            interview_status: InterviewStatus::of(
                row.named("state")?,
                &row.text("project_type")?,
                row.int("response_count")?,
                row.int("answerable_blocks")?,
                row.int("answered_blocks")?,
            ),
            opt_in_for_followup: row.int("opt_in_for_followup")? != 0,
            created_at: row.text("created_at")?,
            ended_at: row.opt_text("ended_at")?,
            project_type: row.text("project_type")?,
            device_type: row.text("device_type")?,
            external_metadata: row.text("external_metadata")?,
            summary: row.opt_text("summary")?,
            created_ms: row.int("created_ms")?,
        })
    })
}

/// The turns of a page of interviews, each interview's in order: one
/// statement, read with [`transcript_turns`].
pub fn turns_of(db: &Db, interview_ids: &[&str]) -> ApiResult<QueryResult> {
    if interview_ids.is_empty() {
        return Ok(QueryResult { columns: Vec::new(), rows: Vec::new() });
    }
    let values: Vec<SqlValue> = interview_ids.iter().map(|id| db::text(*id)).collect();
    db.query(
        &format!(
            "SELECT interview_id, speaker, kind, source, text FROM interview_turns WHERE interview_id IN ({})
             ORDER BY interview_id, seq",
            placeholders(values.len())
        ),
        &values,
    )
}

/// The turns [`turns_of`] read, borrowing their texts from its result.
pub fn transcript_turns(result: &QueryResult) -> ApiResult<Vec<TranscriptTurn<'_>>> {
    db::read_all(result, |row| {
        Ok(TranscriptTurn {
            interview_id: row.str("interview_id")?,
            speaker: row.named("speaker")?,
            kind: row.named("kind")?,
            written_by: row.named("source")?,
            text: row.str("text")?,
        })
    })
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

pub fn survey_tallies(db: &Db, tenant_id: &str, project_id: &str) -> ApiResult<SurveyTallies> {
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
pub fn counted_interviews(db: &Db, tenant_id: &str, project_id: &str) -> ApiResult<i64> {
    let count = db.query_scalar(
        "SELECT COUNT(*) FROM interviews
         WHERE tenant_id = ? AND project_id = ? AND environment = 'production' AND flagged_at IS NULL",
        &[db::text(tenant_id), db::text(project_id)],
    )?;
    Ok(match count {
        Some(SqlValue::Integer(n)) => n,
        _ => 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> ListQuery {
        ListQuery::parse(&crate::http::parse_query(text)).unwrap()
    }

    #[test]
    fn the_interviews_index_drives_without_metadata() {
        let (sql, values) = list_statement("t", &query("project_id=6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10&limit=5"), Driver::Interviews);
        assert_eq!(
            sql,
            "SELECT i.interview_id, i.project_id, i.created_at, i.created_ms FROM interviews i \
             WHERE i.tenant_id = ? AND i.environment = ? AND i.project_id = ? \
             ORDER BY i.created_ms DESC, i.interview_id DESC LIMIT ?"
        );
        assert_eq!(values.len(), 4);
    }

    #[test]
    fn a_metadata_key_can_drive_and_the_others_are_looked_up() {
        let cursor = crate::paging::Cursor { key: "12".into(), id: "6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10".into() }.encode();
        let q = query(&format!("external_metadata[a]=1&external_metadata[a]=2&external_metadata[b]=x&cursor={cursor}"));
        let (sql, values) = list_statement("t", &q, Driver::Metadata(1));
        assert!(
            sql.contains(
                "FROM interview_metadata d CROSS JOIN interviews i WHERE d.tenant_id = ? AND d.key = ? AND d.value IN (?) \
                 AND EXISTS (SELECT 1 FROM interview_metadata m WHERE m.tenant_id = d.tenant_id AND m.key = ? \
                 AND m.value IN (?, ?) AND m.created_ms = d.created_ms AND +m.interview_id = d.interview_id LIMIT 1) \
                 AND i.interview_id = d.interview_id AND i.tenant_id = ? AND i.environment = ?"
            ),
            "{sql}"
        );
        assert!(sql.contains("(d.created_ms, d.interview_id) < (?, ?)"), "{sql}");
        assert!(sql.ends_with("ORDER BY d.created_ms DESC, d.interview_id DESC"), "{sql}");
        // tenant, key b, x | key a, 1, 2 | tenant, environment | cursor
        assert_eq!(values.len(), 3 + 3 + 2 + 2);
        let text = |i: usize| match &values[i] {
            SqlValue::Text(text) => text.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!((1..6).map(text).collect::<Vec<_>>(), ["b", "x", "a", "1", "2"]);
        assert_eq!((text(6), text(7)), ("t".to_string(), "production".to_string()));
    }

    #[test]
    fn with_the_interviews_index_driving_every_key_is_looked_up() {
        let q = query("project_id=6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10&external_metadata[a]=1&external_metadata[b]=x&external_metadata[b]=y");
        let (sql, values) = list_statement("t", &q, Driver::Interviews);
        assert!(sql.contains("FROM interviews i WHERE i.tenant_id = ? AND i.environment = ? AND i.project_id = ? AND EXISTS"), "{sql}");
        assert_eq!(sql.matches("m.created_ms = i.created_ms AND +m.interview_id = i.interview_id LIMIT 1)").count(), 2, "{sql}");
        assert!(!sql.contains("LIMIT ?"), "no page, no page limit: {sql}");
        // tenant, environment, project | key a, 1 | key b, x, y
        assert_eq!(values.len(), 3 + 2 + 3);
    }

    /// Today's rule, counting everything up to the cap: the scope unless a key
    /// has fewer rows, then the first key with the fewest.
    fn rule(scope: i64, keys: &[i64]) -> Driver {
        let mut best = (scope.min(SELECTIVE_CAP), Driver::Interviews);
        for (index, &rows) in keys.iter().enumerate() {
            if rows.min(SELECTIVE_CAP) < best.0 {
                best = (rows.min(SELECTIVE_CAP), Driver::Metadata(index));
            }
        }
        best.1
    }

    #[test]
    fn the_driver_is_todays_and_no_count_goes_past_the_smallest() {
        let sizes = [0, 1, 2, 175, 1_050, 4_999, 5_000, 5_001, 21_926, 100_000];
        let mut cases = Vec::new();
        for &scope in &sizes {
            for &a in &sizes {
                cases.push((scope, vec![a]));
                for &b in &sizes {
                    cases.push((scope, vec![a, b]));
                    cases.push((scope, vec![a, b, a.min(b)]));
                }
            }
        }
        for (scope, keys) in cases {
            let mut asked = Vec::new();
            let driver = pick_driver(keys.len(), |candidate, cap| {
                asked.push((candidate, cap));
                let rows = match candidate {
                    Driver::Interviews => scope,
                    Driver::Metadata(index) => keys[index],
                };
                Ok(rows.min(cap))
            })
            .unwrap();
            assert_eq!(driver, rule(scope, &keys), "scope {scope}, keys {keys:?}");
            // Each key up to the smallest count before it; the scope up to the smallest plus one.
            let mut smallest = SELECTIVE_CAP;
            for (candidate, cap) in &asked {
                match candidate {
                    Driver::Metadata(index) => {
                        assert_eq!(*cap, smallest, "scope {scope}, keys {keys:?}: {asked:?}");
                        smallest = smallest.min(keys[*index]);
                    }
                    Driver::Interviews => assert_eq!(*cap, smallest + 1, "scope {scope}, keys {keys:?}: {asked:?}"),
                }
            }
            assert_eq!(asked.iter().filter(|(c, _)| *c == Driver::Interviews).count(), usize::from(smallest < SELECTIVE_CAP));
        }
        assert_eq!(pick_driver(0, |_, _| unreachable!()).unwrap(), Driver::Interviews);
    }
}
