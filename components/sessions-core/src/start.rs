//! Starting a session (`POST /v1/sessions`) and the link's page that starts
//! it (`GET /i/{project_id}`): whether the project takes an interview, the
//! screener step, and the interview written with its opening turns.

use platform::ids::{InterviewId, ProjectId};
use super::{body_loc, find_project_for, interviewer, link, page, screeners, strings, survey};
use super::{transcription, DeviceType, Session, MAX_IDENTIFIER_CHARS};

use platform::config;
use storage::Db;
use platform::error::{ApiError, ApiResult};
use platform::http::{ApiRequest, ApiResponse};
use platform::keys;
use platform::llm::LlmConfig;
use platform::metadata::ExternalMetadata;
use projects_core::{self as projects, Environment, InterviewMode, Language, Openness, Project, Status};
use records::store;
use sealing::DataKey;
use platform::time;
use platform::validation::{self, one_of, Fields};
use interviewer::Plan;
use link::Link;
use page::{LinkError, PageData};
use screeners::{ScreenerStep, Verdict};
use serde_json::{json, Value};

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
    pub project_id: ProjectId,
    pub environment: Environment,
    /// A sandbox start's capability: the `sandbox_token` of the sandbox link.
    pub sandbox_token: Option<String>,
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
            validation::uuid_param(&text, l).map(ProjectId::from).map_err(|e| vec![e])
        });
        let environment = f.check_nullable("environment", one_of::<Environment>);
        let sandbox_token = f.check_nullable(projects::SANDBOX_TOKEN_PARAM, |v, l| validation::text(v, l, 0, MAX_SANDBOX_TOKEN_CHARS));
        let language = f.check_nullable("language", |v, l| validation::text(v, l, 2, 8));
        let mode = f.check_nullable("mode", one_of::<InterviewMode>);
        let identifier = f.check_nullable("identifier", |v, l| validation::text(v, l, 0, MAX_IDENTIFIER_CHARS));
        let country = f.check_nullable("country_code", |v, l| {
            let text = validation::text(v, l.clone(), 0, 2)?;
            if text.is_empty() {
                return Ok(text);
            }
            country_code(&text).ok_or_else(|| {
                vec![platform::FieldError::new(l, "string_pattern_mismatch", "String should match pattern '^[A-Za-z]{2}$'")]
            })
        });
        let external_metadata = f.check_nullable("external_metadata", ExternalMetadata::parse);
        let screener_answers = f.check_nullable("screener_answers", |v, l| {
            validation::list_of(v, l, 0, |v, l| validation::list_of(v, l, 0, |v, l| validation::text(v, l, 1, screeners::MAX_OPTION_CHARS)))
        });
        f.finish()?;
        // `finish` refused a body without a well-formed `project_id`.
        let project_id = project_id.ok_or_else(|| ApiError::internal(anyhow::anyhow!("a start without its checked project_id")))?;
        Ok(StartRequest {
            project_id,
            environment: environment.unwrap_or(Environment::Production),
            sandbox_token,
            language,
            mode,
            identifier: identifier.unwrap_or_default(),
            country_code: country.unwrap_or_default(),
            external_metadata: external_metadata.unwrap_or_default(),
            screener_answers,
        })
    }
}

/// Longest `sandbox_token` taken (a real one has 22 characters; any other
/// string of at most this many is simply not the project's: a 404).
pub const MAX_SANDBOX_TOKEN_CHARS: usize = 128;

/// Session tokens start with this, so a leaked one is easy to recognise.
pub const SESSION_TOKEN_PREFIX: &str = "ses_";

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

/// `GET /i/{project_id}`: the interview page, or an error page; always HTML.
pub fn link_page(db: &Db, request: &ApiRequest, project_id: &str, llm: &LlmConfig) -> ApiResult<ApiResponse> {
    let header_country = config::var("country_header").and_then(|name| request.header(&name).map(str::to_string));
    let link = Link::parse(&request.query_pairs(), header_country.as_deref());
    for why in &link.ignored {
        eprintln!("link of project {project_id}: ignored {why}");
    }
    let project = match ProjectId::parse(project_id) {
        Some(id) => find_project_for(db, id, link.environment, link.sandbox_token.as_deref())?,
        None => None,
    };
    let Some(project) = project else {
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
    let mut start = json!({
        "project_id": project.project_id,
        "environment": link.environment,
        "language": language,
        "identifier": link.identifier,
        "country_code": link.country_code,
        "external_metadata": link.external_metadata.to_value(),
    });
    if let Some(token) = &link.sandbox_token {
        start[projects::SANDBOX_TOKEN_PARAM] = Value::from(token.as_str());
    }
    Ok(page::interview_page(&PageData {
        project: &project,
        strings: &strings,
        start,
        screeners: &blocks,
        transcription: transcription::available(llm),
        max_chunk_bytes: super::recordings::max_chunk_bytes(),
    }))
}

/// A new session, with the token only its interviewee ever sees.
pub struct Started {
    pub session: Session,
    pub session_token: String,
}

pub enum StartOutcome {
    Started(Started),
    /// The screener answers do not qualify: no interview exists.
    ScreenedOut { screen_out_url: Option<String> },
}

fn not_offered<'a>(name: &str, offered: impl IntoIterator<Item = &'a str>) -> platform::FieldError {
    let offered: Vec<&str> = offered.into_iter().collect();
    platform::FieldError::new(body_loc(name), "enum", validation::enum_message(&offered))
}

/// What the interviewee chose, checked against what the project offers (every
/// problem at once, 422), and whether its screeners screen them out.
struct Chosen {
    language: Language,
    mode: InterviewMode,
    screened_out: bool,
}

fn chosen(project: &Project, request: &StartRequest) -> ApiResult<Chosen> {
    let fields = &project.fields;
    let mut errors = Vec::new();
    let language = match &request.language {
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
    Ok(Chosen { language, mode, screened_out })
}

/// `POST /v1/sessions`.
pub fn start(db: &Db, request: StartRequest, user_agent: Option<&str>, llm: &LlmConfig) -> ApiResult<StartOutcome> {
    let project = find_project_for(db, request.project_id, request.environment, request.sandbox_token.as_deref())?
        .ok_or_else(|| ApiError::not_found("Project"))?;
    check_open(project.openness(), request.environment).map_err(Closed::into_error)?;
    let Chosen { language, mode, screened_out } = chosen(&project, &request)?;
    let fields = &project.fields;
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
        None => {
            let llm = projects::model_calls::admit(db, project.project_id, llm)?;
            (vec![interviewer::word_with_model(&plan, &[], interviewer::opening(&plan, &strings.interviewer), &llm)], 0)
        }
    };
    let opening_turns: Vec<store::NewTurn> = opening.iter().map(super::interviewer_turn).collect();
    let session_token = keys::generate_secret(SESSION_TOKEN_PREFIX);
    let interview_id = InterviewId::new_random();
    let now = time::now();
    let new = store::NewInterview {
        interview_id,
        tenant_id: project.tenant_id,
        project_id: project.project_id,
        project_type: project.project_type,
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
        opening: &opening_turns,
        data_key: &DataKey::generate(),
    };
    // The project is checked again where the interview is written: it may have
    // been paused, completed or filled since it was read.
    db.transaction(|tx| {
        let now_open = projects::store::openness(tx, project.tenant_id, project.project_id)?
            .ok_or_else(|| ApiError::not_found("Project"))?;
        check_open(now_open, request.environment).map_err(Closed::into_error)?;
        store::insert(tx, &new)
    })?;
    // Read back as stored (its defaults and counters), with the project read above.
    let interview = store::find(db, interview_id)?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("interview {interview_id} vanished")))?;
    let turns = store::turns(db, interview_id)?;
    Ok(StartOutcome::Started(Started { session: Session { project, interview, turns }, session_token }))
}
