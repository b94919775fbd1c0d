//! Projects: CRUD with RFC 7386 merge patch, the draft/active/paused/completed
//! state machine (its events go to the outbox), the shareable URL, generated
//! mode and context validation. The domain code lives in the crate `projects-core`.

use pipeline::{routes, Context, Handler};
use platform::auth::Tenant;
use platform::http::{ApiRequest, ApiResponse, PathParams, Router};
use platform::llm::LlmConfig;
use platform::validation::{self, project_id_param};
use platform::{config, ApiError, ApiResult};
use projects_core::{self as projects, context, store, Action, CreateDefaults, NewProject, ProjectPatch};
use serde_json::{json, Value};
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new()
        .route(routes::LIST_PROJECTS, Handler::Tenant(list_projects))
        .route(routes::CREATE_PROJECT, Handler::Tenant(create_project))
        .limited_by("project_create_rate_limit_per_minute")
        .route(routes::GET_PROJECT, Handler::Tenant(get_project))
        .route(routes::PATCH_PROJECT, Handler::Tenant(patch_project))
        .route(routes::ACTIVATE_PROJECT, Handler::Tenant(activate))
        .route(routes::DEACTIVATE_PROJECT, Handler::Tenant(deactivate))
        .route(routes::COMPLETE_PROJECT, Handler::Tenant(complete))
        .route(routes::PROJECT_URL, Handler::Tenant(project_url))
        .route(routes::VALIDATE_CONTEXT, Handler::Tenant(validate_context))
        .route(routes::ROTATE_SANDBOX_LINKS, Handler::Tenant(rotate_sandbox_links));
    pipeline::serve(request, response_out, &router).await
}


fn list_projects(context: &Context, tenant: &Tenant, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let query = store::ListQuery::parse(&request.query_pairs())?;
    let (projects, next) = store::list(&context.db, tenant.id(), &query)?;
    let data: Vec<Value> = projects.iter().map(projects::Project::list_item).collect();
    let body = query.page.body(data, next);
    Ok(ApiResponse::json(200, &body))
}

fn create_project(context: &Context, tenant: &Tenant, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let body = validation::json_body(request)?;
    let defaults = CreateDefaults {
        logo_url: Some(config::var_or("default_logo_url", projects::DEFAULT_LOGO_URL)),
    };
    let new = NewProject::parse(&body, &defaults)?;
    let project_id = projects::create(&context.db, tenant.id(), new, &LlmConfig::from_variables())?;
    Ok(ApiResponse::json(201, &json!({ "project_id": project_id })))
}

fn get_project(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let project_id = project_id_param(params).map_err(|e| ApiError::Validation(vec![e]))?;
    let (project, model_calls) =
        store::get_with_model_calls(&context.db, tenant.id(), project_id)?.ok_or_else(store::not_found)?;
    let mut detail = project.detail();
    detail["model_calls"] = serde_json::to_value(model_calls).map_err(ApiError::internal)?;
    Ok(ApiResponse::json(200, &detail))
}

/// RFC 7386 merge patch; a non-UUID id is simply not found (its path is "string or uuid").
fn patch_project(context: &Context, tenant: &Tenant, request: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let patch = ProjectPatch::parse(&validation::json_body(request)?)?;
    let project_id = project_id_param(params).map_err(|_| store::not_found())?;
    projects::apply_patch(&context.db, tenant.id(), project_id, &patch)?;
    Ok(ApiResponse::json(200, &json!({ "project_id": project_id })))
}

fn change_state(context: &Context, tenant: &Tenant, params: &PathParams, action: Action) -> ApiResult<ApiResponse> {
    let project_id = project_id_param(params).map_err(|e| ApiError::Validation(vec![e]))?;
    let status = projects::change_state(&context.db, tenant.id(), project_id, action)?;
    Ok(ApiResponse::json(200, &json!({ "project_id": project_id, "status": status.as_str() })))
}

fn activate(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    change_state(context, tenant, params, Action::Activate)
}

fn deactivate(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    change_state(context, tenant, params, Action::Deactivate)
}

fn complete(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    change_state(context, tenant, params, Action::Complete)
}

fn project_url(context: &Context, tenant: &Tenant, request: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let project_id = project_id_param(params);
    let environment = projects::parse_environment(&request.query_pairs());
    let (project_id, environment) = match (project_id, environment) {
        (Ok(id), Ok(environment)) => (id, environment),
        (id, environment) => {
            return Err(ApiError::Validation(id.err().into_iter().chain(environment.err()).collect()));
        }
    };
    let project = store::get(&context.db, tenant.id(), project_id)?.ok_or_else(store::not_found)?;
    let base = config::var("public_base_url")
        .or_else(|| request.origin())
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("no public_base_url and no request origin")))?;
    Ok(ApiResponse::json(200, &projects::project_url(&context.db, &project, &base, environment)?))
}

/// A new sandbox secret for the tenant: every sandbox link given out before stops opening.
fn rotate_sandbox_links(context: &Context, tenant: &Tenant, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let rotated_at = projects::rotate_sandbox_secret(&context.db, tenant.id())?;
    Ok(ApiResponse::json(200, &json!({ "rotated_at": rotated_at })))
}

fn validate_context(_: &Context, _: &Tenant, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let fields = context::parse_request(&validation::json_body(request)?)?;
    let verdicts = context::validate(&fields, &LlmConfig::from_variables());
    Ok(ApiResponse::json(200, &context::result_body(&verdicts)))
}
