//! Interviews for the tenant's API (docs/interviews.md): the filtered list,
//! flagging, erasure, the recordings (`/v1/interviews/...`), erasing an
//! interviewee (`/v1/interviewees/erase`), the two CSV exports, the survey
//! results and the synthesis of a project (`/v1/projects/{id}/...`, routed here by spin.toml's
//! parameter routes, which win over the projects component's wildcard). The
//! domain code lives in the crate `interviews-core`.

use files_core as files;
use interviews_core::erasure;
use interviews_core::export::{self, ExportKind};
use interviews_core::{self as interviews, media, ListQuery};
use pipeline::{routes, Context, Handler};
use platform::auth::Tenant;
use platform::http::{ApiRequest, ApiResponse, PathParams, Reply, Router};
use platform::ids::{InterviewId, ProjectId};
use platform::validation::{self, project_id_param};
use platform::{ApiError, ApiResult};
use sessions_core::recordings::RecordingKind;
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;
use std::future::Future;
use std::pin::Pin;

type Answer = Pin<Box<dyn Future<Output = ApiResult<Reply>>>>;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new()
        .route(routes::LIST_INTERVIEWS, Handler::Tenant(list))
        .route(routes::ERASE_INTERVIEW, Handler::Tenant(erase))
        .route(routes::ERASE_INTERVIEWEE, Handler::Tenant(erase_interviewee))
        .route(routes::FLAG_INTERVIEW, Handler::Tenant(flag))
        .route(routes::AUDIO_EXPORT, Handler::TenantStream(audio_export))
        .route(routes::VIDEO_EXPORT, Handler::TenantStream(video_export))
        .route(routes::INTERVIEWS_EXPORT, Handler::TenantStream(interviews_export))
        .route(routes::INTERVIEWEES_EXPORT, Handler::TenantStream(interviewees_export))
        .route(routes::SURVEY_RESULTS, Handler::Tenant(survey_results))
        .route(routes::SYNTHESIS, Handler::Tenant(get_synthesis))
        .route(routes::SYNTHESIS_REPORT, Handler::Tenant(get_synthesis_report));
    pipeline::serve(request, response_out, &router).await
}

fn list(context: &Context, tenant: &Tenant, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let query = ListQuery::parse(&request.query_pairs())?;
    Ok(ApiResponse::json(200, &interviews::list(&context.db, tenant.id(), &query)?))
}

fn flag(context: &Context, tenant: &Tenant, request: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let body = validation::json_body(request)?;
    let reason = interviews::parse_flag(&body)?;
    let answer = interviews::flag(&context.db, tenant.id(), interview_id(params)?, &reason)?;
    Ok(ApiResponse::json(200, &answer))
}

/// 204; 404 for an interview the tenant does not have (or no longer has).
fn erase(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let blobs = files::open_store()?;
    erasure::erase_interview(&context.db, &blobs, tenant.id(), interview_id(params)?)?;
    Ok(ApiResponse::empty(204))
}

/// 200 `{"erased": N}`: every interview of the tenant with that identifier.
fn erase_interviewee(context: &Context, tenant: &Tenant, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let identifier = erasure::parse_erase_request(&validation::json_body(request)?)?;
    let blobs = files::open_store()?;
    let erased = erasure::erase_interviewee(&context.db, &blobs, tenant.id(), &identifier)?;
    Ok(ApiResponse::json(200, &serde_json::json!({ "erased": erased })))
}

fn interview_id(params: &PathParams) -> ApiResult<InterviewId> {
    interviews::interview_id(params.get("interview_id"))
}

fn project_id(params: &PathParams) -> ApiResult<ProjectId> {
    project_id_param(params).map_err(|error| ApiError::Validation(vec![error]))
}

fn survey_results(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let results = interviews::survey_results(&context.db, tenant.id(), project_id(params)?)?;
    Ok(ApiResponse::json(200, &results))
}

fn get_synthesis(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let synthesis = synthesis::synthesis(&context.db, tenant.id(), project_id(params)?)?;
    Ok(ApiResponse::json(200, &synthesis))
}

fn get_synthesis_report(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    synthesis::report(&context.db, tenant.id(), project_id(params)?)
}

fn recording(context: Context, tenant: Tenant, request: ApiRequest, params: PathParams, kind: RecordingKind) -> Answer {
    Box::pin(async move {
        let blobs = files::open_store()?;
        let interview_id = interview_id(&params)?;
        media::download(&context.db, blobs, tenant.id(), interview_id, kind, request.header("range"))
    })
}

fn audio_export(context: Context, tenant: Tenant, request: ApiRequest, params: PathParams, _: IncomingRequest) -> Answer {
    recording(context, tenant, request, params, RecordingKind::Audio)
}

fn video_export(context: Context, tenant: Tenant, request: ApiRequest, params: PathParams, _: IncomingRequest) -> Answer {
    recording(context, tenant, request, params, RecordingKind::Video)
}

fn project_export(context: Context, tenant: Tenant, params: PathParams, kind: ExportKind) -> Answer {
    Box::pin(async move {
        export::export(context.db, tenant.id(), project_id(&params)?, kind)
    })
}

fn interviews_export(context: Context, tenant: Tenant, _: ApiRequest, params: PathParams, _: IncomingRequest) -> Answer {
    project_export(context, tenant, params, ExportKind::Interviews)
}

fn interviewees_export(context: Context, tenant: Tenant, _: ApiRequest, params: PathParams, _: IncomingRequest) -> Answer {
    project_export(context, tenant, params, ExportKind::Interviewees)
}
