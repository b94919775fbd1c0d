//! How an interview ends (`POST /v1/sessions/{id}/finish`, or idle for too
//! long): in one transaction, with its summary, its event and its count.

use platform::ids::InterviewId;
use super::{interviewer, project_and_turns, session_closed, survey};
use super::{Interview, InterviewStatus, SessionState, Turn};

use platform::config;
use storage::{Db, Tx};
use platform::error::ApiResult;
use platform::llm::LlmConfig;
use projects_core::{self as projects, Project};
use records::store;
use platform::time;
use platform::validation::{self, Fields};
use webhooks_core as webhooks;
use interviewer::Plan;
use serde::Serialize;
use serde_json::Value;

/// `{"opt_in_for_followup": bool}` of finish: absent is false; any other value
/// but a boolean, null included, is a 422 `bool_type` (pydantic's `bool = False`).
pub fn parse_finish(body: &Value) -> ApiResult<bool> {
    let mut f = Fields::body(body)?;
    let opt_in = f.check("opt_in_for_followup", validation::boolean);
    f.finish()?;
    Ok(opt_in.unwrap_or(false))
}
/// Variable: seconds without activity after which an interview ends.
pub const IDLE_TIMEOUT_VARIABLE: &str = "interview_idle_timeout_seconds";
pub const DEFAULT_IDLE_TIMEOUT_SECONDS: u64 = 30 * 60;
/// Interviews the idle sweep ends per run, at most.
pub const IDLE_SWEEP_BATCH: i64 = 200;

/// The built-in summary of an interview: per research question, or per survey block.
fn builtin_summary(project: &Project, plan: &Plan, turns: &[Turn]) -> String {
    match &project.fields.survey_blocks {
        Some(blocks) => survey::builtin_summary(blocks, turns),
        None => interviewer::builtin_summary(plan, turns),
    }
}

/// What the page needs after finishing.
#[derive(Debug, Clone, Serialize)]
pub struct Finished {
    pub state: SessionState,
    pub interview_status: InterviewStatus,
    pub redirect_url: Option<String>,
}

/// `POST /v1/sessions/{id}/finish`: completed when the interviewer had closed the
/// conversation, `left` otherwise (decided where the interview ends, from what
/// is stored then); the summary is written now.
pub fn finish(db: &Db, interview: &Interview, opt_in_for_followup: bool, llm: &LlmConfig) -> ApiResult<Finished> {
    interview.ensure_running()?;
    let (project, turns) = project_and_turns(db, interview)?;
    let plan = Plan::for_project(&project.fields, interview.language);
    // The model writes a summary only of something the interviewee said: only then is it a call.
    let llm = match turns.iter().any(|turn| turn.speaker == super::Speaker::Interviewee) {
        true => projects::model_calls::admit(db, project.project_id, llm)?,
        false => llm.clone(),
    };
    let summary = interviewer::summary(&plan, &turns, &llm, || builtin_summary(&project, &plan, &turns));
    let ended = end_interview(db, interview.interview_id, How::Finished { opt_in_for_followup }, &summary, time::now())?
        .ok_or_else(session_closed)?;
    Ok(Finished { state: ended.state, interview_status: ended.interview_status, redirect_url: project.fields.redirect_url })
}

/// How an interview ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum How {
    /// The interviewee finished: completed when the interviewer had closed
    /// the conversation, `left` otherwise.
    Finished { opt_in_for_followup: bool },
    /// No activity since `idle_since_ms` for the idle timeout (nothing if
    /// there was activity since).
    TimedOut { idle_since_ms: i64 },
}

/// Ends a running interview, in one transaction: decides its end state from
/// the interview as stored now, stores it with the summary, raises
/// `interview.finished`, and counts a completed production interview toward
/// `max_interviews` (which may complete the project). The interview as ended;
/// `None` when it was no longer running (or, timing out, had activity since).
pub fn end_interview(db: &Db, interview_id: InterviewId, how: How, summary: &str, now: std::time::SystemTime) -> ApiResult<Option<Interview>> {
    db.transaction(|tx| end_in(tx, interview_id, how, summary, now))
}

/// [`end_interview`] inside the caller's transaction (erasing a running
/// interview ends it first, in the transaction that erases it).
pub fn end_in(tx: &Tx, interview_id: InterviewId, how: How, summary: &str, now: std::time::SystemTime) -> ApiResult<Option<Interview>> {
    let at = time::rfc3339(now);
    let Some(mut interview) = store::find(tx, interview_id)?.filter(|i| i.state == SessionState::InProgress) else {
        return Ok(None);
    };
    let (state, opt_in_for_followup) = match how {
        How::Finished { opt_in_for_followup } if interview.interviewer_closed => (SessionState::Completed, opt_in_for_followup),
        How::Finished { opt_in_for_followup } => (SessionState::Left, opt_in_for_followup),
        How::TimedOut { idle_since_ms } if interview.last_activity_ms == idle_since_ms => (SessionState::TimedOut, false),
        How::TimedOut { .. } => return Ok(None),
    };
    interview.state = state;
    interview.opt_in_for_followup = opt_in_for_followup;
    interview.summary = Some(summary.to_string());
    interview.ended_at = (state == SessionState::Completed).then(|| at.clone());
    interview.closed_at = Some(at.clone());
    interview.interview_status = InterviewStatus::of(
        state,
        interview.project_type,
        interview.response_count,
        interview.answerable_blocks,
        interview.answered_blocks,
    );
    let event = webhooks::Event::interview_finished(
        &webhooks::FinishedInterview {
            tenant_id: interview.tenant_id,
            project_id: interview.project_id,
            interview_id,
            identifier: &interview.identifier,
            interview_status: interview.interview_status.as_str(),
            environment: interview.environment.as_str(),
        },
        &at,
    );
    // Its quality and its answers' digests for the synthesis, from the turns as stored now.
    let assessment = synthesis::assess(tx, &interview)?;
    let ending = store::Ending {
        state,
        opt_in_for_followup,
        summary,
        closed_at: &at,
        event_id: &event.event_id,
        quality: &assessment.quality,
    };
    if !store::end(tx, interview_id, &ending)? {
        return Ok(None);
    }
    synthesis::store_assessment(tx, &interview, &assessment)?;
    webhooks::emit(tx, &event)?;
    if interview.counts_toward_max() {
        projects::count_completed_interview(tx, interview.project_id, &at)?;
    }
    interview.quality = Some(assessment.quality);
    Ok(Some(interview))
}

/// Ends the interviews idle for longer than the timeout (variable
/// `interview_idle_timeout_seconds`, 30 minutes by default) with the built-in
/// summary (no model call in maintenance). Returns how many it ended.
pub fn end_idle(db: &Db, now: std::time::SystemTime) -> ApiResult<usize> {
    let timeout_ms = config::var_u64(IDLE_TIMEOUT_VARIABLE, DEFAULT_IDLE_TIMEOUT_SECONDS).saturating_mul(1000);
    let cutoff = time::unix_millis(now).saturating_sub(timeout_ms as i64);
    let mut ended = 0;
    for interview in store::idle(db, cutoff, IDLE_SWEEP_BATCH)? {
        let (project, turns) = project_and_turns(db, &interview)?;
        let plan = Plan::for_project(&project.fields, interview.language);
        let summary = builtin_summary(&project, &plan, &turns);
        let how = How::TimedOut { idle_since_ms: interview.last_activity_ms };
        ended += usize::from(end_interview(db, interview.interview_id, how, &summary, now)?.is_some());
    }
    Ok(ended)
}
