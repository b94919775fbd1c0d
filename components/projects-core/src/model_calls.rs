//! A project's daily budget of language-model calls (variable
//! `llm_daily_calls_per_project`): its production link is public, so anyone
//! can start interviews on it, and each interviewer turn, summary and
//! transcription with a model configured is a call the tenant pays for. Each
//! call is counted before it is made, in one upsert per call; once the UTC
//! day's budget is spent the call is not made and the built-in interviewer
//! writes the turn (`written_by: builtin`). The project read shows the day's
//! count and how many calls the budget refused ([`ModelCalls`]).

use platform::ids::ProjectId;
use platform::config;
use storage::{self as db, Db, Row, SqlValue};
use platform::error::ApiResult;
use platform::llm::LlmConfig;
use platform::time;
use serde::Serialize;

pub const DAILY_LIMIT_VARIABLE: &str = "llm_daily_calls_per_project";
pub const DEFAULT_DAILY_LIMIT: u64 = 5000;

/// The day's budget (the variable, or its default).
pub fn daily_limit() -> u64 {
    config::var_u64(DAILY_LIMIT_VARIABLE, DEFAULT_DAILY_LIMIT)
}

/// The UTC day of `at`, `2026-11-21`: the budget's period.
pub fn day_of(at: std::time::SystemTime) -> String {
    time::rfc3339(at)[..10].to_string()
}

/// The model `llm` for one call on behalf of `project_id`, counted against the
/// project's budget for today; a disabled model once the budget is spent (the
/// caller then writes the built-in way, as when a model fails). No model
/// configured: no statement, nothing counted.
pub fn admit(db: &Db, project_id: ProjectId, llm: &LlmConfig) -> ApiResult<LlmConfig> {
    if !llm.enabled() {
        return Ok(llm.clone());
    }
    let limit = daily_limit();
    // One upsert: a new day starts the count again; within the day a call is
    // counted when the budget has room, refused (and counted as refused) otherwise.
    let result = db.query(
        "INSERT INTO project_model_calls (project_id, day, calls, refused, admitted)
         VALUES (?1, ?2, MIN(1, ?3), 1 - MIN(1, ?3), MIN(1, ?3))
         ON CONFLICT (project_id) DO UPDATE SET
             calls = CASE WHEN day = excluded.day THEN calls + (calls < ?3) ELSE excluded.calls END,
             refused = CASE WHEN day = excluded.day THEN refused + (calls >= ?3) ELSE excluded.refused END,
             admitted = CASE WHEN day = excluded.day THEN calls < ?3 ELSE excluded.admitted END,
             day = excluded.day
         RETURNING admitted",
        &[db::text(project_id), db::text(day_of(time::now())), SqlValue::Integer(limit.min(i64::MAX as u64) as i64)],
    )?;
    let admitted = db::read_first(&result, |row| row.flag("admitted"))?.unwrap_or(false);
    if admitted {
        Ok(llm.clone())
    } else {
        eprintln!("project {project_id}: today's {limit} model calls are spent; the built-in interviewer writes");
        Ok(LlmConfig::disabled())
    }
}

/// A project's model calls today, as its read shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ModelCalls {
    /// The UTC day counted.
    pub day: String,
    /// Calls made for the project's interviews that day.
    pub calls: i64,
    /// The budget per day (`llm_daily_calls_per_project`).
    pub daily_limit: u64,
    /// Calls the budget refused that day: the built-in interviewer wrote
    /// those turns (and summaries; a transcription was refused instead).
    pub builtin_instead: i64,
}

/// The SQL expressions [`ModelCalls::from_row`] reads, as columns of a query
/// on `projects` (a lookup by primary key in the same statement).
pub const COLUMNS: &str = "(SELECT day FROM project_model_calls m WHERE m.project_id = projects.project_id) AS model_calls_day,
     (SELECT calls FROM project_model_calls m WHERE m.project_id = projects.project_id) AS model_calls,
     (SELECT refused FROM project_model_calls m WHERE m.project_id = projects.project_id) AS model_calls_refused";

impl ModelCalls {
    /// Today's counts from a row with [`COLUMNS`] (an earlier day counts nothing today).
    pub fn from_row(row: &Row, now: std::time::SystemTime) -> ApiResult<ModelCalls> {
        let today = day_of(now);
        let counted_today = row.opt_text("model_calls_day")?.is_some_and(|day| day == today);
        let (calls, refused) = match counted_today {
            true => (row.int("model_calls")?, row.int("model_calls_refused")?),
            false => (0, 0),
        };
        Ok(ModelCalls { day: today, calls, daily_limit: daily_limit(), builtin_instead: refused })
    }
}
