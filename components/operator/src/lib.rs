//! Operator routes (docs/deploy.md): `POST /v1/maintenance/run` runs the
//! maintenance run for schedulers that call URLs (Akamai/Fermyon Wasm Functions'
//! cron, a Kubernetes CronJob, any external cron). Off unless the operator sets
//! the `maintenance_token` variable; the token comes as a bearer credential.

use api_core::{maintenance, time, ApiError, ApiRequest, ApiResponse, ApiResult, Context, Handler, Method, PathParams, Router};
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new().route(Method::Post, "/v1/maintenance/run", Handler::Operator(run));
    api_core::serve(request, response_out, &router).await
}

/// 200 with what the run did: `{ended_interviews, erased_interviews, deliveries:{attempted,delivered,retrying,failed}}`.
fn run(context: &Context, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let report = maintenance::run(&context.db, time::now()).map_err(|problem| ApiError::internal(std::io::Error::other(problem)))?;
    Ok(ApiResponse::json(200, &report))
}
