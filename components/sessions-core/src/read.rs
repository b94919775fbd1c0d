//! Reading a session: its bearer token, its body as the interviewee sees it,
//! and a survey block's media.

use platform::ids::InterviewId;
use super::{find_project, project_and_turns, Interview, Session, SurveyView};

use storage::Db;
use platform::error::{ApiError, ApiResult, Credential};
use platform::http::{ApiRequest, ApiResponse, PathParams};
use platform::keys;
use records::store;
use serde_json::Value;

/// The session of an interview just read (by [`authenticate`]): its turns and
/// its project, without reading the interview again.
pub fn session_of(db: &Db, interview: Interview) -> ApiResult<Session> {
    let (project, turns) = project_and_turns(db, &interview)?;
    Ok(Session { project, interview, turns })
}

/// The interviewees' sessions, for the pipeline's session and page routes.
pub enum InterviewSessions {}

/// A session route's interviewee is the interview its bearer token opens
/// ([`authenticate`]); a page's error is an error page.
impl pipeline::Sessions for InterviewSessions {
    type Interviewee = Interview;

    fn authenticate(db: &Db, request: &ApiRequest, params: &PathParams) -> ApiResult<Interview> {
        authenticate(db, request, params.get("interview_id"))
    }

    fn error_page(error: ApiError) -> ApiResponse {
        super::page::error_response(error)
    }
}

/// The interview whose session token the request carries. Any failure is the
/// same 401, and an unknown interview costs the same hash and comparison as a
/// wrong token. The one exception: the token of an erased interview learns
/// that it is gone (404), which tells its holder nothing they did not know.
pub fn authenticate(db: &Db, request: &ApiRequest, interview_id: &str) -> ApiResult<Interview> {
    const NO_SESSION: &str = "0000000000000000000000000000000000000000000000000000000000000000";
    let token = platform::auth::bearer_token(request.header("authorization"));
    let id = InterviewId::parse(interview_id);
    let interview = match (token, id) {
        (Some(_), Some(id)) => store::find(db, id)?,
        _ => None,
    };
    let erased = match (token, id, &interview) {
        (Some(_), Some(id), None) => store::erased_session_token_hash(db, id)?,
        _ => None,
    };
    let stored = interview.as_ref().map(|i| i.session_token_hash.as_str()).or(erased.as_deref()).unwrap_or(NO_SESSION);
    let matches = keys::secret_matches(token.unwrap_or_default(), stored);
    match interview {
        Some(interview) if matches => Ok(interview),
        None if matches && erased.is_some() => Err(ApiError::not_found("Interview")),
        _ => Err(ApiError::Unauthorized(Credential::SessionToken)),
    }
}

/// The session body of an interview (with its survey's blocks, for a survey).
pub fn session_json(db: &Db, session: &Session) -> ApiResult<Value> {
    let view = SurveyView::load(db, &session.project)?;
    Ok(super::session_body(&session.interview, &session.turns, view.as_ref()))
}

/// `GET /i/{project_id}/media/{file_id}`: a file that one of the survey's blocks
/// shows, and nothing else (any other file, even the tenant's, is a 404). Public
/// like the page, cacheable, with `Range` for videos.
pub fn survey_media(
    db: &Db,
    blobs: impl files_core::BlobStore + 'static,
    request: &ApiRequest,
    project_id: &str,
    file_id: &str,
) -> ApiResult<platform::http::Reply> {
    let not_found = || ApiError::not_found("Media");
    let project = find_project(db, project_id)?.ok_or_else(not_found)?;
    let blocks = project.fields.survey_blocks.as_deref().unwrap_or_default();
    if !blocks.iter().any(|b| b.media.as_ref().is_some_and(|m| m.file_id == file_id)) {
        return Err(not_found());
    }
    let record = files_core::find(db, project.tenant_id, file_id)?;
    let mut head = files_core::download_head(&record, request.header("if-none-match"));
    head.headers.retain(|(name, _)| name != "content-length" && name != "cache-control");
    let head = head.with_header("cache-control", "public, max-age=86400");
    if head.status == 304 {
        return Ok(platform::http::Reply::Full(head));
    }
    // Each file's own chunk size: files written with another stay readable.
    let chunk = record.chunk_bytes;
    let chunks = (0..record.chunk_count)
        .map(|n| (files_core::chunk_key(&record.file_id, n), chunk.min(record.size - n * chunk), n * chunk))
        .collect();
    files_core::ranges::ranged(head, record.size, request.header("range"), chunks, blobs)
}
