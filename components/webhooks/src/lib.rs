//! Webhooks: event types, secrets, double opt-in subscriptions, delivery log.

use api_core::auth::Tenant;
use api_core::{ApiRequest, ApiResponse, ApiResult, Context, Handler, Method, PathParams, Router, EVENT_TYPES};
use spin_sdk::http::{IncomingRequest, Response};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest) -> Response {
    let router = Router::new().route(Method::Get, "/v1/webhooks/event-types", Handler::Tenant(event_types));
    api_core::serve(request, &router).await
}

fn event_types(_: &Context, _: &Tenant, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    Ok(ApiResponse::json(200, &EVENT_TYPES))
}
