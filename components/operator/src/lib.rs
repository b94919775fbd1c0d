//! Operator routes (docs/deploy.md): `POST /v1/maintenance/run` runs the
//! maintenance run for schedulers that call URLs with a header (a Kubernetes
//! CronJob, any external cron), off unless the operator sets the
//! `maintenance_token` variable (the token comes as a bearer credential);
//! `GET /v1/maintenance/tick` for a scheduler that can send no header
//! (`spin aka cron`), off unless `maintenance_tick_seconds` is set: it runs the
//! maintenance only when none started within that many seconds.

use maintenance_core as maintenance;
use pipeline::{routes, Context, Handler};
use platform::http::{ApiRequest, ApiResponse, PathParams, Router};
use platform::{time, ApiError, ApiResult};
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new()
        .route(routes::RUN_MAINTENANCE, Handler::Operator(run))
        .route(routes::MAINTENANCE_TICK, Handler::Tick(tick));
    pipeline::serve(request, response_out, &router).await
}

/// 200 with what the run did: `{ended_interviews, erased_interviews, assessed_interviews, embedded_answers,
/// syntheses_written,
/// deliveries:{attempted,delivered,retrying,failed}}`.
fn run(context: &Context, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let report = maintenance::run(&context.db, time::now(), &mut *sentence_model::meanings::maker()).map_err(failed)?;
    Ok(ApiResponse::json(200, &report))
}

/// 200 `{"ran": true}` when a run was due and ran, `{"ran": false}` when one
/// started within `maintenance_tick_seconds`. Says nothing more: the caller
/// is anyone (what the run did goes to the log).
fn tick(context: &Context, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let seconds = platform::config::var_u64(maintenance::TICK_VARIABLE, 60).max(1);
    let now = time::now();
    let ran = maintenance::run_if_due(&context.db, now, std::time::Duration::from_secs(seconds), &mut *sentence_model::meanings::maker()).map_err(failed)?;
    if let Some(report) = &ran {
        eprintln!("maintenance tick: {}", serde_json::to_string(report).unwrap_or_default());
    }
    Ok(ApiResponse::json(200, &serde_json::json!({ "ran": ran.is_some() })))
}

fn failed(problem: String) -> ApiError {
    ApiError::internal(std::io::Error::other(problem))
}
