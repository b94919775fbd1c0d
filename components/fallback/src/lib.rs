//! Catch-all for paths no other component claims: the spec's 404 body (Spin's
//! own 404 would be empty), still rate limited and with `X-Request-Id`.

use api_core::{Handler, Router};
use spin_sdk::http::{IncomingRequest, Response};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest) -> Response {
    let router: Router<Handler> = Router::new();
    api_core::serve(request, &router).await
}
