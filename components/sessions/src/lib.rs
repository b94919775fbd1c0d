//! The interviewee side (docs/sessions.md): the project link's page
//! (`GET /i/{project_id}`) and the public session API the page talks to. The
//! domain code lives in the crate `sessions-core`; this crate maps routes to it.

use files_core as files;
use pipeline::{routes, Context, Handler};
use platform::http::{ApiRequest, ApiResponse, PathParams, Per, Reply, Router};
use platform::llm::LlmConfig;
use platform::{validation, ApiError, ApiResult, FieldError, LocPart};
use sessions_core::recordings::{self, Limits, RecordingKind};
use sessions_core::{self as sessions, Interview, StartOutcome, StartRequest};
use serde_json::{json, Value};
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;
use std::future::Future;
use std::pin::Pin;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new()
        .route(routes::INTERVIEW_PAGE, Handler::Page(link_page))
        .route(routes::SURVEY_MEDIA, Handler::PublicStream(survey_media))
        .route(routes::PAGE_ASSET, Handler::Static(page_asset))
        .route(routes::START_SESSION, Handler::Public(start))
        .limited(sessions::START_BUDGET_VARIABLE, Per::AddressAndProject)
        .route(routes::GET_SESSION, Handler::Session(get_session))
        .route(routes::ANSWER, Handler::Session(answer))
        .limited(sessions::ANSWER_BUDGET_VARIABLE, Per::Session)
        .route(routes::FINISH_SESSION, Handler::Session(finish))
        .route(routes::AUDIO_CHUNK, Handler::Session(audio_chunk))
        .route(routes::VIDEO_CHUNK, Handler::Session(video_chunk))
        .route(routes::TRANSCRIBE, Handler::Session(transcribe))
        .limited(sessions::TRANSCRIPTION_BUDGET_VARIABLE, Per::Session);
    sessions::serve_sessions(request, response_out, &router).await
}

fn link_page(context: &Context, request: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    sessions::link_page(&context.db, request, params.get("project_id"), &LlmConfig::from_variables())
}

fn page_asset(_: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    sessions::assets::serve(params.get("file"))
}

fn survey_media(context: Context, request: ApiRequest, params: PathParams) -> Pin<Box<dyn Future<Output = ApiResult<Reply>>>> {
    Box::pin(async move {
        let blobs = files::open_store()?;
        sessions::survey_media(&context.db, blobs, &request, params.get("project_id"), params.get("file_id"))
    })
}

fn start(context: &Context, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let start = StartRequest::parse(&validation::json_body(request)?)?;
    let outcome = sessions::start(&context.db, start, request.header("user-agent"), &LlmConfig::from_variables())?;
    Ok(match outcome {
        StartOutcome::Started(started) => {
            let mut body = sessions::session_json(&context.db, &started.session)?;
            body["session_token"] = Value::from(started.session_token);
            ApiResponse::json(201, &body)
        }
        StartOutcome::ScreenedOut { screen_out_url } => {
            ApiResponse::json(200, &json!({ "screened_out": true, "screen_out_url": screen_out_url }))
        }
    })
}

fn get_session(context: &Context, interview: &Interview, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let session = sessions::session_of(&context.db, interview.clone())?;
    Ok(ApiResponse::json(200, &sessions::session_json(&context.db, &session)?))
}

fn answer(context: &Context, interview: &Interview, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let body = validation::json_body(request)?;
    let session = sessions::answer(&context.db, interview, &body, &LlmConfig::from_variables())?;
    Ok(ApiResponse::json(200, &sessions::session_json(&context.db, &session)?))
}

fn finish(context: &Context, interview: &Interview, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    // No body is a finish without opt-in; a body that is only whitespace is
    // not JSON, and is refused like on every other route (422 at ["body"]).
    let body = if request.body.is_empty() { json!({}) } else { validation::json_body(request)? };
    let opt_in = sessions::parse_finish(&body)?;
    let finished = sessions::finish(&context.db, interview, opt_in, &LlmConfig::from_variables())?;
    Ok(ApiResponse::json(200, &finished))
}

fn audio_chunk(context: &Context, interview: &Interview, request: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    recording_chunk(context, interview, request, params, RecordingKind::Audio)
}

fn video_chunk(context: &Context, interview: &Interview, request: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    recording_chunk(context, interview, request, params, RecordingKind::Video)
}

fn recording_chunk(
    context: &Context,
    interview: &Interview,
    request: &ApiRequest,
    params: &PathParams,
    kind: RecordingKind,
) -> ApiResult<ApiResponse> {
    let index = params.get("index").parse::<u64>().map_err(|_| {
        ApiError::Validation(vec![FieldError::new(
            vec![LocPart::from("path"), LocPart::from("index")],
            "int_parsing",
            "Input should be a valid integer, unable to parse string as an integer",
        )])
    })?;
    let content_type = recordings::content_type(kind, request.header("content-type"))?;
    let store = files::open_store()?;
    let recording = recordings::add_chunk(
        &context.db,
        &store,
        interview,
        kind,
        index,
        &content_type,
        &request.body,
        Limits::from_variables(),
    )?;
    Ok(ApiResponse::json(200, &recording))
}

fn transcribe(context: &Context, interview: &Interview, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let text =
        sessions::transcribe(&context.db, interview, request.header("content-type"), &request.body, &LlmConfig::from_variables())?;
    Ok(ApiResponse::json(200, &json!({ "text": text })))
}
