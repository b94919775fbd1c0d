//! Interviewee sessions (docs/sessions.md): the shareable link's page and the
//! public session API the page talks to.
//!
//! Submodules: [`link`] (the link's query parameters), [`screeners`] (the
//! screener step), [`interviewer`] (the conversation plan, the built-in and the
//! model interviewer, summaries), [`strings`] (localized texts), [`page`] (the
//! HTML), [`recordings`] (recording chunks), [`transcription`], [`store`] (SQLite).

pub mod interviewer;
pub mod link;
pub mod page;
pub mod probes;
pub mod recordings;
pub mod screeners;
pub mod store;
pub mod strings;
pub mod survey;
pub mod transcription;

use crate::config;
use crate::db::Db;
use crate::error::{ApiError, ApiResult, Credential, LocPart};
use crate::http::{ApiRequest, ApiResponse};
use crate::keys;
use crate::llm::LlmConfig;
use crate::metadata::ExternalMetadata;
use crate::projects::{self, Environment, InterviewMode, Language, Openness, Project, Status};
use crate::text_enum;
use crate::time;
use crate::validation::{self, nullable, one_of, Fields};
use crate::webhooks;
use interviewer::Plan;
use link::Link;
use page::{LinkError, PageData};
use projects::survey::SurveyBlock;
use survey::SurveyAnswer;
use screeners::{ScreenerStep, Verdict};
use serde::Serialize;
use serde_json::{json, Value};

text_enum! {
    /// Where a session stands. Every state but `in_progress` is final.
    pub enum SessionState {
        InProgress = "in_progress",
        /// Finished after the interviewer closed the conversation.
        Completed = "completed",
        /// Finished by the interviewee before the interviewer closed it.
        Left = "left",
        /// No activity for the idle timeout.
        TimedOut = "timed_out",
    }
}

text_enum! {
    pub enum Speaker { Interviewer = "interviewer", Interviewee = "interviewee" }
}

text_enum! {
    /// What a turn is: the interviewer's opening (with the first question), a
    /// research question, a follow-up probe on an answer, the wrap-up, a survey block,
    /// a follow-up on a survey answer, the closing; or the interviewee's answer
    /// (or skip of an optional survey block).
    pub enum TurnKind {
        Opening = "opening",
        Question = "question",
        Probe = "probe",
        WrapUp = "wrap_up",
        Block = "block",
        FollowUp = "follow_up",
        Closing = "closing",
        Answer = "answer",
        Skip = "skip",
    }
}

text_enum! {
    /// Who wrote a turn's text.
    pub enum TurnSource { BuiltIn = "builtin", Model = "model", Interviewee = "interviewee" }
}

text_enum! {
    pub enum DeviceType { Mobile = "MOBILE", Desktop = "DESKTOP" }
}

text_enum! {
    /// The contract's derived `interview_status` ([`InterviewStatus::of`]).
    pub enum InterviewStatus { Initiated = "INITIATED", Partial = "PARTIAL", Completed = "COMPLETED" }
}

impl InterviewStatus {
    /// COMPLETED once the interview is completed; before, PARTIAL when the
    /// interviewee gave four answers (an interview) or answered a third of the
    /// blocks that take an answer (a survey), INITIATED otherwise. An interview
    /// that ended early keeps the status it had.
    pub fn of(state: SessionState, project_type: &str, responses: i64, answerable_blocks: i64, answered_blocks: i64) -> InterviewStatus {
        let partial = if project_type == projects::ProjectType::Survey.as_str() {
            answerable_blocks > 0 && answered_blocks * 3 >= answerable_blocks
        } else {
            responses >= 4
        };
        match (state, partial) {
            (SessionState::Completed, _) => InterviewStatus::Completed,
            (_, true) => InterviewStatus::Partial,
            (_, false) => InterviewStatus::Initiated,
        }
    }
}

/// Longest answer an interviewee can send in one message.
pub const MAX_ANSWER_CHARS: usize = 5_000;
/// Longest identifier (an e-mail address, a user id).
pub const MAX_IDENTIFIER_CHARS: usize = 320;

/// One message of the conversation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub seq: i64,
    pub speaker: Speaker,
    pub kind: TurnKind,
    /// The research question (or survey block) the turn belongs to.
    pub question_index: Option<usize>,
    pub source: TurnSource,
    pub text: String,
    pub created_at: String,
}

/// A stored interview (one interviewee session).
#[derive(Debug, Clone)]
pub struct Interview {
    pub interview_id: String,
    pub tenant_id: String,
    pub project_id: String,
    pub project_type: String,
    pub environment: Environment,
    pub session_token_hash: String,
    pub identifier: String,
    pub country_code: String,
    pub device_type: DeviceType,
    pub language: Language,
    pub mode: InterviewMode,
    pub external_metadata: ExternalMetadata,
    pub state: SessionState,
    pub interviewer_closed: bool,
    pub response_count: i64,
    pub turn_count: i64,
    /// Surveys: blocks that take an answer, and how many are answered.
    pub answerable_blocks: i64,
    pub answered_blocks: i64,
    pub opt_in_for_followup: bool,
    pub summary: Option<String>,
    pub created_at: String,
    pub created_ms: i64,
    pub last_activity_ms: i64,
    pub ended_at: Option<String>,
    pub closed_at: Option<String>,
    /// Flagged as fraud by the tenant (it then does not count toward `max_interviews`).
    pub flagged: bool,
    pub interview_status: InterviewStatus,
}

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
    pub project_id: String,
    pub blocks: Vec<SurveyBlock>,
    pub media_types: Vec<(String, String)>,
}

impl SurveyView {
    /// `None` for a project that is not a survey.
    pub fn load(db: &Db, project: &Project) -> ApiResult<Option<SurveyView>> {
        let Some(blocks) = project.fields.survey_blocks.clone() else { return Ok(None) };
        let ids: Vec<&str> = projects::survey::media_files(&blocks).into_iter().map(|(_, id)| id).collect();
        let media_types = store::file_types(db, &project.tenant_id, &ids)?;
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

impl Interview {
    /// The session as its interviewee sees it (GET /v1/sessions/{id}); a survey's
    /// turns say how to show their block, and its progress is added.
    pub fn session_body(&self, turns: &[Turn], survey: Option<&SurveyView>) -> Value {
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
            "interview_id": self.interview_id,
            "project_id": self.project_id,
            "environment": self.environment,
            "language": self.language,
            "mode": self.mode,
            "state": self.state,
            "interviewer_closed": self.interviewer_closed,
            "responses": self.response_count,
            "interview_status": self.interview_status,
            "turns": turns,
        });
        if survey.is_some() {
            body["survey"] = json!({"answered": self.answered_blocks, "answerable": self.answerable_blocks});
        }
        body
    }

    /// Refuses any change to a session that has ended.
    pub fn ensure_running(&self) -> ApiResult<()> {
        if self.state == SessionState::InProgress {
            Ok(())
        } else {
            Err(session_closed())
        }
    }
}

pub fn session_closed() -> ApiError {
    ApiError::conflict("session_closed", "This interview has ended; it takes no more answers or recordings")
}

/// MOBILE for phones and tablets (by the user agent), DESKTOP otherwise. iPads
/// that present themselves as a Mac cannot be told apart, and count as DESKTOP.
pub fn device_type(user_agent: Option<&str>) -> DeviceType {
    const MOBILE_MARKERS: [&str; 10] =
        ["mobi", "android", "iphone", "ipad", "ipod", "tablet", "silk/", "kindle", "windows phone", "opera mini"];
    let agent = user_agent.unwrap_or_default().to_ascii_lowercase();
    if MOBILE_MARKERS.iter().any(|marker| agent.contains(marker)) {
        DeviceType::Mobile
    } else {
        DeviceType::Desktop
    }
}

/// `DE` from `de`: two ASCII letters, upper-cased; anything else is not a country code.
pub fn country_code(text: &str) -> Option<String> {
    let text = text.trim();
    (text.len() == 2 && text.bytes().all(|b| b.is_ascii_alphabetic())).then(|| text.to_ascii_uppercase())
}

/// A valid `POST /v1/sessions` body (checked against the project later).
#[derive(Debug, Clone, PartialEq)]
pub struct StartRequest {
    pub project_id: String,
    pub environment: Environment,
    pub language: Option<String>,
    pub mode: Option<InterviewMode>,
    pub identifier: String,
    pub country_code: String,
    pub external_metadata: ExternalMetadata,
    /// One list of chosen options per screener block, when given.
    pub screener_answers: Option<Vec<Vec<String>>>,
}

impl StartRequest {
    /// Checks the body; every problem is reported at once (422).
    pub fn parse(body: &Value) -> ApiResult<StartRequest> {
        let mut f = Fields::body(body)?;
        let project_id = f.require("project_id", |v, l| {
            let text = validation::text(v, l.clone(), 1, 64)?;
            validation::uuid_param(&text, l).map(|id| id.to_string()).map_err(|e| vec![e])
        });
        let environment = f.check("environment", |v, l| nullable(v, l, one_of::<Environment>)).flatten();
        let language = f.check("language", |v, l| nullable(v, l, |v, l| validation::text(v, l, 2, 8))).flatten();
        let mode = f.check("mode", |v, l| nullable(v, l, one_of::<InterviewMode>)).flatten();
        let identifier = f
            .check("identifier", |v, l| nullable(v, l, |v, l| validation::text(v, l, 0, MAX_IDENTIFIER_CHARS)))
            .flatten();
        let country = f
            .check("country_code", |v, l| {
                nullable(v, l, |v, l| {
                    let text = validation::text(v, l.clone(), 0, 2)?;
                    if text.is_empty() {
                        return Ok(text);
                    }
                    country_code(&text).ok_or_else(|| {
                        vec![crate::FieldError::new(
                            l,
                            "string_pattern_mismatch",
                            "String should match pattern '^[A-Za-z]{2}$'",
                        )]
                    })
                })
            })
            .flatten();
        let external_metadata =
            f.check("external_metadata", |v, l| nullable(v, l, ExternalMetadata::parse)).flatten();
        let screener_answers = f
            .check("screener_answers", |v, l| {
                nullable(v, l, |v, l| {
                    validation::list_of(v, l, 0, |v, l| {
                        validation::list_of(v, l, 0, |v, l| validation::text(v, l, 1, screeners::MAX_OPTION_CHARS))
                    })
                })
            })
            .flatten();
        f.finish()?;
        Ok(StartRequest {
            project_id: project_id.unwrap_or_default(),
            environment: environment.unwrap_or(Environment::Production),
            language,
            mode,
            identifier: identifier.unwrap_or_default(),
            country_code: country.unwrap_or_default(),
            external_metadata: external_metadata.unwrap_or_default(),
            screener_answers,
        })
    }
}

/// The text of an answer: 1..5,000 characters, not only whitespace; trimmed.
pub fn answer_text(value: &Value, loc: Vec<LocPart>) -> validation::Checked<String> {
    let text = validation::text(value, loc.clone(), 1, MAX_ANSWER_CHARS)?;
    if text.trim().is_empty() {
        return Err(vec![crate::FieldError::new(loc, "string_too_short", "String should have at least 1 character")]);
    }
    Ok(text.trim().to_string())
}

/// The fields an answer may carry, each checked whenever it is present, whatever
/// the current message takes (which one that is decides later): `text` (see
/// [`answer_text`]), `choices` 1..20 options of 1..200 characters, `rating` an
/// integer 0..10 (the widest scale), `skip` a boolean, `block_id` 1..64
/// characters. Like a pydantic model whose fields are all optional: a field the
/// current message does not use is still typed, so `{"text": "…", "skip": {}}`
/// is a 422 `bool_type`, not an answer with a stray member.
pub fn check_answer_fields(body: &Value) -> ApiResult<()> {
    use projects::survey::{MAX_BLOCK_ID_CHARS, MAX_OPTIONS, MAX_OPTION_CHARS};
    let mut f = Fields::body(body)?;
    f.check("text", answer_text);
    f.check("choices", |v, l| {
        let choices = validation::list_of(v, l.clone(), 1, |v, l| validation::text(v, l, 1, MAX_OPTION_CHARS))?;
        if choices.len() > MAX_OPTIONS {
            return Err(vec![crate::FieldError::new(
                l,
                "too_long",
                format!("List should have at most {MAX_OPTIONS} items after validation, not {}", choices.len()),
            )]);
        }
        Ok(())
    });
    f.check("rating", |v, l| validation::int_in(v, l, 0, MAX_RATING));
    f.check("skip", validation::boolean);
    f.check("block_id", |v, l| validation::text(v, l, 1, MAX_BLOCK_ID_CHARS));
    f.finish()
}

/// The top of the widest rating scale (`0-10`).
pub const MAX_RATING: i64 = 10;

/// `{"text": "..."}` of an interview answer (the other answer fields typed too:
/// [`check_answer_fields`]). A well-formed answer of another kind (choices, a
/// rating, a skip) is a 409 [`answer_mismatch`]: an interview question takes text.
pub fn parse_answer(body: &Value) -> ApiResult<String> {
    check_answer_fields(body)?;
    let mut f = Fields::body(body)?;
    if !f.has("text") {
        if let Some(given) = answer_kind(body) {
            return Err(answer_mismatch(given, "a text answer: {\"text\": \"...\"}"));
        }
    }
    let text = f.require("text", answer_text);
    f.finish()?;
    Ok(text.unwrap_or_default())
}

/// The kind of answer a body carries besides text, if any: `choices`, `rating`
/// or `skip` (only `"skip": true` skips).
pub fn answer_kind(body: &Value) -> Option<&'static str> {
    ["choices", "rating"]
        .into_iter()
        .find(|name| body.get(name).is_some())
        .or_else(|| (body.get("skip") == Some(&Value::Bool(true))).then_some("skip"))
}

/// 409 `answer_mismatch`: a well-formed answer of a kind the current message
/// does not take (its fields were checked first), which depends on the
/// session's state, not on the request: choices for an interview question,
/// text for a rating block, a skip of a block that must be answered.
pub fn answer_mismatch(given: &str, expected: &str) -> ApiError {
    ApiError::conflict(
        "answer_mismatch",
        format!("This answer gives {given}, but the current message takes {expected}; see the session's last turn"),
    )
}

/// `{"opt_in_for_followup": bool}` of finish: absent is false; any other value
/// but a boolean, null included, is a 422 `bool_type` (pydantic's `bool = False`).
pub fn parse_finish(body: &Value) -> ApiResult<bool> {
    let mut f = Fields::body(body)?;
    let opt_in = f.check("opt_in_for_followup", validation::boolean);
    f.finish()?;
    Ok(opt_in.unwrap_or(false))
}

/// The location of a field of the request body.
pub fn body_loc(name: &str) -> Vec<LocPart> {
    vec!["body".into(), name.into()]
}

// ---------------------------------------------------------------------------
// Use cases

/// Session tokens start with this, so a leaked one is easy to recognise.
pub const SESSION_TOKEN_PREFIX: &str = "ses_";
/// Variable: seconds without activity after which an interview ends.
pub const IDLE_TIMEOUT_VARIABLE: &str = "interview_idle_timeout_seconds";
pub const DEFAULT_IDLE_TIMEOUT_SECONDS: u64 = 30 * 60;
/// Interviews the idle sweep ends per run, at most.
pub const IDLE_SWEEP_BATCH: i64 = 200;

/// Why a project takes no new session in an environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Closed {
    /// Draft or paused (production only).
    NotActive,
    /// Completed, or its production interviews reached `max_interviews`.
    Completed,
}

impl Closed {
    pub fn into_error(self) -> ApiError {
        match self {
            Closed::NotActive => ApiError::conflict(
                "project_not_active",
                "This project is not open for interviews (it is a draft or paused); activate it, or use the sandbox link",
            ),
            Closed::Completed => ApiError::Gone {
                code: "project_completed",
                message: "This project is completed and takes no new interviews".into(),
            },
        }
    }
}

/// Production sessions need an active project under `max_interviews`; sandbox
/// sessions work in every state but completed.
pub fn check_open(project: Openness, environment: Environment) -> Result<(), Closed> {
    if project.status == Status::Completed {
        return Err(Closed::Completed);
    }
    if environment == Environment::Production {
        if project.full() {
            return Err(Closed::Completed);
        }
        if project.status != Status::Active {
            return Err(Closed::NotActive);
        }
    }
    Ok(())
}

fn find_project(db: &Db, project_id: &str) -> ApiResult<Option<Project>> {
    match uuid::Uuid::parse_str(project_id) {
        Ok(id) => projects::store::find_for_link(db, &id.to_string()),
        Err(_) => Ok(None),
    }
}

/// The project an interview belongs to (it cannot vanish: projects are never deleted).
fn project_of(db: &Db, interview: &Interview) -> ApiResult<Project> {
    projects::store::find_for_link(db, &interview.project_id)?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("interview {} has no project", interview.interview_id)))
}

/// `GET /i/{project_id}`: the interview page, or an error page; always HTML.
pub fn link_page(db: &Db, request: &ApiRequest, project_id: &str, llm: &LlmConfig) -> ApiResult<ApiResponse> {
    let header_country = config::var("country_header").and_then(|name| request.header(&name).map(str::to_string));
    let link = Link::parse(&request.query_pairs(), header_country.as_deref());
    for why in &link.ignored {
        eprintln!("link of project {project_id}: ignored {why}");
    }
    let Some(project) = find_project(db, project_id)? else {
        let known = link.requested_language.as_deref().filter(|l| strings::languages().iter().any(|k| k == l));
        return Ok(page::error_page(LinkError::NotFound, &strings::for_language(known.unwrap_or("en")), None));
    };
    let language = link::language(link.requested_language.as_deref(), &project.fields.interview_languages);
    let strings = strings::for_language(language.as_str());
    if let Err(closed) = check_open(project.openness(), link.environment) {
        let error = LinkError::from_status(closed.into_error().status());
        return Ok(page::error_page(error, &strings, Some(&project)));
    }
    let blocks = match screeners::step(project.fields.screeners.as_ref()) {
        ScreenerStep::Blocks(blocks) => blocks,
        ScreenerStep::Unrenderable(why) => {
            eprintln!("project {}: screener step skipped: {why}", project.project_id);
            Vec::new()
        }
        ScreenerStep::None => Vec::new(),
    };
    let start = json!({
        "project_id": project.project_id,
        "environment": link.environment,
        "language": language,
        "identifier": link.identifier,
        "country_code": link.country_code,
        "external_metadata": link.external_metadata.to_value(),
    });
    Ok(page::interview_page(&PageData {
        project: &project,
        strings: &strings,
        start,
        screeners: &blocks,
        transcription: transcription::available(llm),
        max_chunk_bytes: crate::service::MAX_JSON_BODY,
    }))
}

/// A new session, with the token only its interviewee ever sees.
pub struct Started {
    pub interview: Interview,
    pub turns: Vec<Turn>,
    pub session_token: String,
}

pub enum StartOutcome {
    Started(Started),
    /// The screener answers do not qualify: no interview exists.
    ScreenedOut { screen_out_url: Option<String> },
}

fn not_offered<'a>(name: &str, offered: impl IntoIterator<Item = &'a str>) -> crate::FieldError {
    let offered: Vec<&str> = offered.into_iter().collect();
    crate::FieldError::new(body_loc(name), "enum", validation::enum_message(&offered))
}

/// `POST /v1/sessions`.
pub fn start(db: &Db, request: StartRequest, user_agent: Option<&str>, llm: &LlmConfig) -> ApiResult<StartOutcome> {
    let project = find_project(db, &request.project_id)?.ok_or_else(|| ApiError::not_found("Project"))?;
    check_open(project.openness(), request.environment).map_err(Closed::into_error)?;
    let fields = &project.fields;
    let mut errors = Vec::new();
    let language = match request.language {
        Some(requested) if !fields.interview_languages.iter().any(|l| *l == requested.as_str()) => {
            errors.push(not_offered("language", fields.interview_languages.iter().map(|l| l.as_str())));
            link::language(None, &fields.interview_languages)
        }
        requested => link::language(requested.as_deref(), &fields.interview_languages),
    };
    let offered_modes = &fields.interview_modes;
    let mode = match request.mode {
        Some(mode) if !offered_modes.contains(&mode) => {
            errors.push(not_offered("mode", offered_modes.iter().map(|m| m.as_str())));
            mode
        }
        Some(mode) => mode,
        None => offered_modes.first().copied().unwrap_or(InterviewMode::Typing),
    };
    let mut screened_out = false;
    match screeners::step(fields.screeners.as_ref()) {
        ScreenerStep::Blocks(blocks) => match screeners::evaluate(&blocks, request.screener_answers.as_deref()) {
            Ok(verdict) => screened_out = verdict == Verdict::ScreenedOut,
            Err(problems) => errors.extend(problems),
        },
        ScreenerStep::Unrenderable(why) => eprintln!("project {}: screener step skipped: {why}", project.project_id),
        ScreenerStep::None => {}
    }
    if !errors.is_empty() {
        return Err(ApiError::Validation(errors));
    }
    if screened_out {
        let screen_out_url = fields
            .screeners
            .as_ref()
            .and_then(|s| s.get("screen_out_url"))
            .and_then(Value::as_str)
            .map(str::to_string);
        return Ok(StartOutcome::ScreenedOut { screen_out_url });
    }

    let plan = Plan::for_project(fields, language);
    let strings = strings::for_language(language.as_str());
    let (opening, answerable_blocks) = match &fields.survey_blocks {
        Some(blocks) => (survey::opening(&plan, blocks, &strings.interviewer), projects::survey::answerable(blocks)),
        None => (vec![interviewer::word_with_model(&plan, &[], interviewer::opening(&plan, &strings.interviewer), llm)], 0),
    };
    let session_token = keys::generate_secret(SESSION_TOKEN_PREFIX);
    let interview_id = uuid::Uuid::new_v4().to_string();
    let now = time::now();
    let new = store::NewInterview {
        interview_id: &interview_id,
        tenant_id: &project.tenant_id,
        project_id: &project.project_id,
        project_type: &project.project_type,
        environment: request.environment,
        session_token_hash: &keys::hash_secret(&session_token),
        identifier: &request.identifier,
        country_code: &request.country_code,
        device_type: device_type(user_agent),
        language,
        mode,
        external_metadata: &request.external_metadata,
        answerable_blocks,
        created_at: &time::rfc3339(now),
        created_ms: time::unix_millis(now),
        opening: &opening,
    };
    // The project is checked again where the interview is written: it may have
    // been paused, completed or filled since it was read.
    db.transaction(|tx| {
        let now_open = projects::store::openness(tx, &project.tenant_id, &project.project_id)?
            .ok_or_else(|| ApiError::not_found("Project"))?;
        check_open(now_open, request.environment).map_err(Closed::into_error)?;
        store::insert(tx, &new)
    })?;
    let (interview, turns) = load(db, &interview_id)?;
    Ok(StartOutcome::Started(Started { interview, turns, session_token }))
}

/// An interview and its turns, as just written.
pub fn load(db: &Db, interview_id: &str) -> ApiResult<(Interview, Vec<Turn>)> {
    let interview = store::find(db, interview_id)?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("interview {interview_id} vanished")))?;
    let turns = store::turns(db, interview_id)?;
    Ok((interview, turns))
}

/// The bearer token of `Authorization: Bearer <token>`.
fn bearer(request: &ApiRequest) -> Option<&str> {
    let value = request.header("authorization")?.trim();
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty()).then(|| token.trim())
}

/// The interview whose session token the request carries. Any failure is the
/// same 401, and an unknown interview costs the same hash and comparison as a
/// wrong token.
pub fn authenticate(db: &Db, request: &ApiRequest, interview_id: &str) -> ApiResult<Interview> {
    const NO_SESSION: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    let token = bearer(request);
    let interview = match (token, uuid::Uuid::parse_str(interview_id)) {
        (Some(_), Ok(id)) => store::find(db, &id.to_string())?,
        _ => None,
    };
    let stored = interview.as_ref().map_or(NO_SESSION, |i| i.session_token_hash.as_str());
    let matches = keys::secret_matches(token.unwrap_or_default(), stored);
    match interview {
        Some(interview) if matches => Ok(interview),
        _ => Err(ApiError::Unauthorized(Credential::SessionToken)),
    }
}

/// `POST /v1/sessions/{id}/answers`: checks the answer (against the current
/// block, for a survey), then stores it with the interviewer's next turns; the
/// model (when configured) is asked outside any write.
pub fn answer(db: &Db, interview: &Interview, body: &Value, llm: &LlmConfig) -> ApiResult<(Interview, Vec<Turn>)> {
    interview.ensure_running()?;
    if interview.interviewer_closed {
        return Err(session_closed());
    }
    let project = project_of(db, interview)?;
    let mut turns = store::turns(db, &interview.interview_id)?;
    let plan = Plan::for_project(&project.fields, interview.language);
    let strings = strings::for_language(interview.language.as_str());
    let now = time::now();
    let answered = |kind, question_index, text: String| Turn {
        seq: interview.turn_count,
        speaker: Speaker::Interviewee,
        kind,
        question_index,
        source: TurnSource::Interviewee,
        text,
        created_at: time::rfc3339(now),
    };
    let (answer_turn, structured, replies) = match &project.fields.survey_blocks {
        Some(blocks) => {
            let (index, follow_up) = survey::current(&turns).ok_or_else(session_closed)?;
            let block = blocks.get(index).ok_or_else(|| {
                ApiError::conflict("survey_changed", "The survey changed while it was being taken; please start again")
            })?;
            let answer = SurveyAnswer::parse(block, follow_up, body)?;
            let kind = if answer == SurveyAnswer::Skip { TurnKind::Skip } else { TurnKind::Answer };
            let turn = answered(kind, Some(index), answer.transcript_text(block));
            let mut replies = survey::next(blocks, index, follow_up, &answer, &strings.interviewer);
            if replies[0].kind == TurnKind::FollowUp {
                turns.push(turn.clone());
                let step = replies.remove(0);
                replies.insert(0, interviewer::word_with_model(&plan, &turns, step, llm));
            }
            (turn, if follow_up { None } else { answer.stored() }, replies)
        }
        None => {
            let text = parse_answer(body)?;
            let last = turns
                .iter()
                .rev()
                .find(|t| t.speaker == Speaker::Interviewer)
                .cloned()
                .ok_or_else(|| ApiError::internal(anyhow::anyhow!("interview {} has no opening", interview.interview_id)))?;
            let elapsed_minutes = (time::unix_millis(now) - interview.created_ms) as f64 / 60_000.0;
            let turn = answered(TurnKind::Answer, interviewer::answered_question(&last), text);
            turns.push(turn.clone());
            (turn, None, vec![interviewer::reply(&plan, &strings.interviewer, &turns, elapsed_minutes, llm)])
        }
    };
    let stored_at = time::now();
    let (now, now_ms) = (time::rfc3339(stored_at), time::unix_millis(stored_at));
    let mut exchange = vec![store::NewTurn {
        speaker: Speaker::Interviewee,
        kind: answer_turn.kind,
        question_index: answer_turn.question_index,
        source: TurnSource::Interviewee,
        text: &answer_turn.text,
        answer: structured.as_ref(),
    }];
    exchange.extend(replies.iter().map(store::NewTurn::interviewer));
    let counted = store::Counted {
        answered: answer_turn.kind == TurnKind::Answer,
        answered_block: structured.is_some(),
        closes: replies.iter().any(|reply| reply.kind == TurnKind::Closing),
    };
    let appended =
        db.transaction(|tx| store::append_exchange(tx, &interview.interview_id, interview.turn_count, &exchange, counted, &now, now_ms))?;
    if !appended {
        // Ended, or another answer to the same message came first.
        return Err(match store::find(db, &interview.interview_id)? {
            Some(current) if current.state == SessionState::InProgress && !current.interviewer_closed => ApiError::conflict(
                "answer_conflict",
                "Another answer to this message was stored first; reload the session to see it",
            ),
            _ => session_closed(),
        });
    }
    // The session as it is now, from what was read and written: no second read.
    turns.retain(|turn| turn.seq < interview.turn_count);
    turns.extend(exchange.iter().enumerate().map(|(offset, turn)| Turn {
        seq: interview.turn_count + offset as i64,
        speaker: turn.speaker,
        kind: turn.kind,
        question_index: turn.question_index,
        source: turn.source,
        text: turn.text.to_string(),
        created_at: now.clone(),
    }));
    let mut updated = interview.clone();
    updated.turn_count += exchange.len() as i64;
    updated.response_count += counted.answered as i64;
    updated.answered_blocks += counted.answered_block as i64;
    updated.interviewer_closed = counted.closes;
    updated.last_activity_ms = updated.last_activity_ms.max(now_ms);
    updated.interview_status = InterviewStatus::of(
        updated.state,
        &updated.project_type,
        updated.response_count,
        updated.answerable_blocks,
        updated.answered_blocks,
    );
    Ok((updated, turns))
}

/// The session body of an interview (with its survey's blocks, for a survey).
pub fn session_json(db: &Db, interview: &Interview, turns: &[Turn]) -> ApiResult<Value> {
    let project = project_of(db, interview)?;
    let view = SurveyView::load(db, &project)?;
    Ok(interview.session_body(turns, view.as_ref()))
}

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
    let project = project_of(db, interview)?;
    let turns = store::turns(db, &interview.interview_id)?;
    let plan = Plan::for_project(&project.fields, interview.language);
    let summary = interviewer::summary(&plan, &turns, llm, || builtin_summary(&project, &plan, &turns));
    let ended = end_interview(db, &interview.interview_id, How::Finished { opt_in_for_followup }, &summary, time::now())?
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
pub fn end_interview(db: &Db, interview_id: &str, how: How, summary: &str, now: std::time::SystemTime) -> ApiResult<Option<Interview>> {
    let at = time::rfc3339(now);
    db.transaction(|tx| {
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
            &interview.project_type,
            interview.response_count,
            interview.answerable_blocks,
            interview.answered_blocks,
        );
        let event = webhooks::Event::interview_finished(
            &webhooks::FinishedInterview {
                tenant_id: &interview.tenant_id,
                project_id: &interview.project_id,
                interview_id,
                identifier: &interview.identifier,
                interview_status: interview.interview_status.as_str(),
                environment: interview.environment.as_str(),
            },
            &at,
        );
        let ending = store::Ending { state, opt_in_for_followup, summary, closed_at: &at, event_id: &event.event_id };
        if !store::end(tx, interview_id, &ending)? {
            return Ok(None);
        }
        webhooks::emit(tx, &event)?;
        if state == SessionState::Completed && interview.environment == Environment::Production && !interview.flagged {
            projects::count_completed_interview(tx, &interview.project_id, &at)?;
        }
        Ok(Some(interview))
    })
}

/// Ends the interviews idle for longer than the timeout (variable
/// `interview_idle_timeout_seconds`, 30 minutes by default) with the built-in
/// summary (no model call in maintenance). Returns how many it ended.
pub fn end_idle(db: &Db, now: std::time::SystemTime) -> ApiResult<usize> {
    let timeout_ms = config::var_u64(IDLE_TIMEOUT_VARIABLE, DEFAULT_IDLE_TIMEOUT_SECONDS).saturating_mul(1000);
    let cutoff = time::unix_millis(now).saturating_sub(timeout_ms as i64);
    let mut ended = 0;
    for interview in store::idle(db, cutoff, IDLE_SWEEP_BATCH)? {
        let turns = store::turns(db, &interview.interview_id)?;
        let project = project_of(db, &interview)?;
        let plan = Plan::for_project(&project.fields, interview.language);
        let summary = builtin_summary(&project, &plan, &turns);
        let how = How::TimedOut { idle_since_ms: interview.last_activity_ms };
        ended += usize::from(end_interview(db, &interview.interview_id, how, &summary, now)?.is_some());
    }
    Ok(ended)
}

/// `GET /i/{project_id}/media/{file_id}`: a file that one of the survey's blocks
/// shows, and nothing else (any other file, even the tenant's, is a 404). Public
/// like the page, cacheable, with `Range` for videos.
pub fn survey_media(
    db: &Db,
    blobs: impl crate::files::BlobStore + 'static,
    request: &ApiRequest,
    project_id: &str,
    file_id: &str,
) -> ApiResult<crate::http::Reply> {
    let not_found = || ApiError::not_found("Media");
    let project = find_project(db, project_id)?.ok_or_else(not_found)?;
    let blocks = project.fields.survey_blocks.as_deref().unwrap_or_default();
    if !blocks.iter().any(|b| b.media.as_ref().is_some_and(|m| m.file_id == file_id)) {
        return Err(not_found());
    }
    let record = crate::files::find(db, &project.tenant_id, file_id)?;
    let mut head = crate::files::download_head(&record, request.header("if-none-match"));
    head.headers.retain(|(name, _)| name != "content-length" && name != "cache-control");
    let head = head.with_header("cache-control", "public, max-age=86400");
    if head.status == 304 {
        return Ok(crate::http::Reply::Full(head));
    }
    let chunk = crate::files::CHUNK_BYTES as u64;
    let chunks = (0..record.chunk_count)
        .map(|n| (crate::files::chunk_key(&record.file_id, n), chunk.min(record.size - n * chunk), n * chunk))
        .collect();
    crate::interviews::media::ranged(head, record.size, request.header("range"), chunks, blobs)
}

/// `POST /v1/sessions/{id}/transcriptions`.
pub fn transcribe(interview: &Interview, content_type: Option<&str>, audio: &[u8], llm: &LlmConfig) -> ApiResult<String> {
    interview.ensure_running()?;
    let content_type = recordings::content_type(recordings::RecordingKind::Audio, content_type)?;
    if audio.is_empty() {
        return Err(ApiError::Validation(vec![crate::FieldError::new(vec!["body".into()], "missing", "Field required")]));
    }
    transcription::transcribe(llm, &transcription::model(), &content_type, audio).map_err(|error| {
        eprintln!("transcription for interview {}: {error}", interview.interview_id);
        ApiError::Unavailable {
            code: "transcription_unavailable",
            message: "Speech could not be turned into text; please type your answer".into(),
        }
    })
}

#[cfg(test)]
mod tests;
