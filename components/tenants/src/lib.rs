//! `POST /v1/tenants`: partner-only tenant creation.

use api_core::auth::{self, Credentials, PartnerConfig};
use api_core::tenants::{self, NewTenant};
use api_core::{config, ApiRequest, ApiResponse, ApiResult, Context, Handler, Method, PathParams, Router};
use spin_sdk::http::{IncomingRequest, Response};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest) -> Response {
    let router = Router::new().route(Method::Post, "/v1/tenants", Handler::Public(create_tenant));
    api_core::serve(request, &router).await
}

fn create_tenant(context: &Context, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let partner = PartnerConfig {
        api_key: config::var_or("partner_api_key", ""),
        tenant_id: config::var_or("partner_tenant_id", ""),
        scopes: auth::parse_scopes(&config::var_or("partner_scopes", auth::TENANT_CREATE_SCOPE)),
    };
    let credentials = Credentials::from_headers(|name| request.header(name)).ok();
    auth::authorize_partner(credentials.as_ref(), &partner)?;
    let new_tenant = NewTenant::parse(&request.body)?;
    let created = tenants::create(&context.db, new_tenant)?;
    Ok(ApiResponse::json(201, &created))
}
