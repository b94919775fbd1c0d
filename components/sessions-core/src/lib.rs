//! Interviewee sessions (docs/sessions.md): the shareable link's page and the
//! public session API the page talks to.
//!
//! Submodules: [`link`] (the link's query parameters), [`screeners`] (the
//! screener step), [`interviewer`] (the conversation plan, the built-in and the
//! model interviewer, summaries), [`strings`] (localized texts), [`page`] (the
//! HTML), [`recordings`] (recording chunks), [`transcription`]. The interview
//! and its turns are the record's (`records`): its store is their SQL.

mod answer;
pub mod assets;
mod finish;
pub mod interviewer;
pub mod link;
pub mod page;
pub mod probes;
mod read;
pub mod recordings;
pub mod screeners;
mod start;
pub mod strings;
pub mod summary;
pub mod survey;
pub mod transcription;

pub use answer::{
    answer, answer_kind, answer_mismatch, answer_text, check_answer_fields, parse_answer, transcribe, MAX_RATING,
};
pub use finish::{
    end_idle, end_in, end_interview, finish, parse_finish, Finished, How, DEFAULT_IDLE_TIMEOUT_SECONDS, IDLE_SWEEP_BATCH,
    IDLE_TIMEOUT_VARIABLE,
};
pub use read::{authenticate, session_json, session_of, survey_media, InterviewSessions};

/// The entry point of the sessions component: the pipeline, whose session
/// routes' handlers get the interview their token opened.
pub async fn serve_sessions(
    incoming: spin_sdk::http::IncomingRequest,
    out: spin_sdk::http::ResponseOutparam,
    router: &platform::http::Router<pipeline::Handler<InterviewSessions>>,
) {
    pipeline::serve_sessions(incoming, out, router).await
}
pub use start::{
    check_open, country_code, device_type, link_page, start, Closed, StartOutcome, StartRequest, Started,
    SESSION_TOKEN_PREFIX,
};

// The interview record's types, which the session's modules name as their own.
pub use records::{session_closed, DeviceType, Interview, InterviewStatus, SessionState, Speaker, Turn, TurnKind, TurnSource};

use platform::ids::ProjectId;
use storage::Db;
use platform::error::{ApiError, ApiResult, LocPart};
use projects_core::{self as projects, Environment, Project};
use records::store::NewTurn;
use projects::survey::SurveyBlock;
use serde::Serialize;
use serde_json::{json, Value};

/// Variables of the session routes' own budgets, per minute (docs/sessions.md,
/// "Limits"): starts per client address and project; answers and
/// transcriptions per session, at the pace of a person.
pub const START_BUDGET_VARIABLE: &str = "session_start_rate_limit_per_minute";
pub const ANSWER_BUDGET_VARIABLE: &str = "session_answer_rate_limit_per_minute";
pub const TRANSCRIPTION_BUDGET_VARIABLE: &str = "session_transcription_rate_limit_per_minute";

/// Longest answer an interviewee can send in one message.
pub const MAX_ANSWER_CHARS: usize = 5_000;
/// Longest identifier (an e-mail address, a user id).
pub const MAX_IDENTIFIER_CHARS: usize = 320;

#[derive(Serialize)]
struct TurnBody<'a> {
    seq: i64,
    speaker: Speaker,
    /// What the turn is: opening, question, probe, wrap-up, closing, answer, ...
    kind: TurnKind,
    /// Who wrote its text: the built-in interviewer, the model or the interviewee.
    written_by: TurnSource,
    text: &'a str,
    created_at: &'a str,
    /// An optional survey block the interviewee skipped.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    skipped: bool,
    /// Survey turns presenting a block (or a follow-up on it): how to show it.
    #[serde(skip_serializing_if = "Option::is_none")]
    block: Option<Value>,
}

/// What the page needs to show a survey's blocks: the blocks, and the content
/// type of each block's media file.
pub struct SurveyView {
    pub project_id: ProjectId,
    pub blocks: Vec<SurveyBlock>,
    pub media_types: Vec<(String, String)>,
}

impl SurveyView {
    /// `None` for a project that is not a survey.
    pub fn load(db: &Db, project: &Project) -> ApiResult<Option<SurveyView>> {
        let Some(blocks) = project.fields.survey_blocks.clone() else { return Ok(None) };
        let ids: Vec<&str> = projects::survey::media_files(&blocks).into_iter().map(|(_, id)| id).collect();
        let media_types = files_core::store::types_of(db, project.tenant_id, &ids)?;
        Ok(Some(SurveyView { project_id: project.project_id.clone(), blocks, media_types }))
    }

    fn block(&self, turn: &Turn) -> Option<Value> {
        let follow_up = match turn.kind {
            TurnKind::Block => false,
            TurnKind::FollowUp => true,
            _ => return None,
        };
        let block = self.blocks.get(turn.question_index?)?;
        if follow_up {
            return Some(json!({"block_id": block.block_id, "type": "open_question", "options": null, "scale": null,
                               "required": true, "media": null, "follow_up": true}));
        }
        let media = block.media.as_ref().map(|m| {
            let content_type = self.media_types.iter().find(|(id, _)| *id == m.file_id).map(|(_, t)| t.as_str());
            json!({"url": format!("/i/{}/media/{}", self.project_id, m.file_id), "content_type": content_type})
        });
        let scale = block.scale.map(|s| {
            let (min, max) = s.bounds();
            json!({"min": min, "max": max})
        });
        Some(json!({"block_id": block.block_id, "type": block.kind, "options": block.options, "scale": scale,
                    "required": block.required, "media": media, "follow_up": false}))
    }
}

/// The session as its interviewee sees it (GET /v1/sessions/{id}); a survey's
/// turns say how to show their block, and its progress is added.
pub fn session_body(interview: &Interview, turns: &[Turn], survey: Option<&SurveyView>) -> Value {
    let turns: Vec<TurnBody> = turns
        .iter()
        .map(|t| TurnBody {
            seq: t.seq,
            speaker: t.speaker,
            kind: t.kind,
            written_by: t.source,
            text: &t.text,
            created_at: &t.created_at,
            skipped: t.kind == TurnKind::Skip,
            block: survey.and_then(|view| view.block(t)),
        })
        .collect();
    let mut body = json!({
        "interview_id": interview.interview_id,
        "project_id": interview.project_id,
        "environment": interview.environment,
        "language": interview.language,
        "mode": interview.mode,
        "state": interview.state,
        "interviewer_closed": interview.interviewer_closed,
        "responses": interview.response_count,
        "interview_status": interview.interview_status,
        "turns": turns,
    });
    if survey.is_some() {
        body["survey"] = json!({"answered": interview.answered_blocks, "answerable": interview.answerable_blocks});
    }
    body
}

/// An interviewer's message, to store as a turn.
pub fn interviewer_turn(message: &interviewer::Message) -> NewTurn<'_> {
    NewTurn {
        speaker: Speaker::Interviewer,
        kind: message.kind,
        question_index: message.question_index,
        source: message.source,
        text: &message.text,
        answer: None,
    }
}

/// The location of a field of the request body.
pub fn body_loc(name: &str) -> Vec<LocPart> {
    vec!["body".into(), name.into()]
}

/// The project a path's `project_id` names (none when it is no UUID).
fn find_project(db: &Db, project_id: &str) -> ApiResult<Option<Project>> {
    match ProjectId::parse(project_id) {
        Some(id) => projects::store::find_for_link(db, id),
        None => Ok(None),
    }
}

/// The project a link (or a session start) opens in `environment`: any
/// project for production; for the sandbox only with the project's sandbox
/// token, so that a sandbox link without a valid one is refused exactly like
/// a project that does not exist (docs/sessions.md, "The link").
fn find_project_for(
    db: &Db,
    project_id: ProjectId,
    environment: Environment,
    sandbox_token: Option<&str>,
) -> ApiResult<Option<Project>> {
    match environment {
        Environment::Production => projects::store::find_for_link(db, project_id),
        Environment::Sandbox => Ok(projects::store::find_for_sandbox_link(db, project_id)?
            .filter(|(project, secret)| projects::SandboxToken::opens(sandbox_token, secret.as_deref(), project.project_id))
            .map(|(project, _)| project)),
    }
}

/// A session as its interviewee sees it: the interview, its turns so far and
/// the project it belongs to (each use case has read them already; the body
/// is built from them without reading them again).
pub struct Session {
    pub project: Project,
    pub interview: Interview,
    pub turns: Vec<Turn>,
}

/// The project an interview belongs to (it cannot vanish: projects are never deleted).
fn no_project(interview: &Interview) -> ApiError {
    ApiError::internal(anyhow::anyhow!("interview {} has no project", interview.interview_id))
}

/// The interview's project and its turns, read together: one round trip on a
/// remote database.
fn project_and_turns(db: &Db, interview: &Interview) -> ApiResult<(Project, Vec<Turn>)> {
    let (project_sql, project_params) = projects::store::for_link_statement(interview.project_id);
    let (turns_sql, turns_params) = records::store::turns_statement(interview.interview_id);
    let results = db.query_together(&[(&project_sql, &project_params), (&turns_sql, &turns_params)])?;
    let project = projects::store::project_from(&results[0])?.ok_or_else(|| no_project(interview))?;
    Ok((project, records::store::turns_from(&results[1])?))
}

#[cfg(test)]
mod tests;
