//! Catch-all for paths no other component claims: the contract's 404 body (Spin's
//! own 404 would be empty), still rate limited and with `X-Request-Id`. It also
//! serves the OpenAPI document, which needs no credentials.

use pipeline::{routes, Context, Handler};
use platform::http::{ApiRequest, ApiResponse, PathParams, Router};
use platform::ApiResult;
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router: Router<Handler> = Router::new().route(routes::OPENAPI_DOCUMENT, Handler::Public(openapi));
    pipeline::serve(request, response_out, &router).await
}

fn openapi(_: &Context, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    Ok(ApiResponse {
        status: 200,
        headers: vec![("content-type".into(), "application/json".into())],
        body: pipeline::OPENAPI_JSON.as_bytes().to_vec(),
    })
}
