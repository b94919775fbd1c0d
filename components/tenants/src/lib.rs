//! `POST /v1/tenants`: partner-only tenant creation (the partnership key is
//! checked by the pipeline: `Handler::Partner`).

use pipeline::{routes, Context, Handler};
use platform::http::{ApiRequest, ApiResponse, PathParams, Router};
use platform::ApiResult;
use tenants_core::{self as tenants, NewTenant};
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new().route(routes::CREATE_TENANT, Handler::Partner(create_tenant));
    pipeline::serve(request, response_out, &router).await
}

/// The partnership key was checked by the route table (`Handler::Partner`).
fn create_tenant(context: &Context, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let new_tenant = NewTenant::parse(request.header("content-type"), &request.body)?;
    let created = tenants::create(&context.db, new_tenant)?;
    Ok(ApiResponse::json(201, &created))
}
