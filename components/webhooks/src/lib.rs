//! Webhooks: event types, secrets, double opt-in subscriptions, delivery log.
//! Deliveries themselves are sent by the maintenance run (`maintenance_core`, which the operator and maintenance components run).

use pipeline::{routes, Context, Handler};
use platform::auth::Tenant;
use platform::http::{ApiRequest, ApiResponse, PathParams, Router};
use platform::{validation, ApiResult};
use webhooks_core::{self as webhooks, DeliveryFilter, NewSubscription, EVENT_TYPES};
use spin_sdk::http::{IncomingRequest, ResponseOutparam};
use spin_sdk::http_component;

#[http_component]
async fn handle(request: IncomingRequest, response_out: ResponseOutparam) {
    let router = Router::new()
        .route(routes::EVENT_TYPES, Handler::Tenant(event_types))
        .route(routes::CREATE_WEBHOOK_SECRET, Handler::Tenant(create_secret))
        .route(routes::CREATE_SUBSCRIPTION, Handler::Tenant(create_subscription))
        .route(routes::LIST_SUBSCRIPTIONS, Handler::Tenant(list_subscriptions))
        .route(routes::GET_SUBSCRIPTION, Handler::Tenant(get_subscription))
        .route(routes::CONFIRM_SUBSCRIPTION, Handler::Tenant(confirm_subscription))
        .route(routes::DELETE_SUBSCRIPTION, Handler::Tenant(delete_subscription))
        .route(routes::LIST_DELIVERIES, Handler::Tenant(list_deliveries))
        .route(routes::GET_DELIVERY, Handler::Tenant(get_delivery))
        .route(routes::REDELIVER, Handler::Tenant(redeliver));
    pipeline::serve(request, response_out, &router).await
}

fn event_types(_: &Context, _: &Tenant, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    Ok(ApiResponse::json(200, &EVENT_TYPES))
}

fn create_secret(context: &Context, tenant: &Tenant, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let created = webhooks::create_secret(&context.db, tenant, &validation::json_body(request)?)?;
    Ok(ApiResponse::json(201, &created))
}

fn create_subscription(
    context: &Context,
    tenant: &Tenant,
    request: &ApiRequest,
    _: &PathParams,
) -> ApiResult<ApiResponse> {
    let new = NewSubscription::parse(&validation::json_body(request)?, webhooks::configured_policy())?;
    let created = webhooks::create_subscription(&context.db, tenant, new)?;
    let hook_secret = created.x_hook_secret.clone();
    Ok(ApiResponse::json(201, &created).with_header("x-hook-secret", hook_secret))
}

fn list_subscriptions(context: &Context, tenant: &Tenant, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    Ok(ApiResponse::json(200, &webhooks::list_subscriptions(&context.db, tenant)?))
}

fn get_subscription(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let subscription = webhooks::get_subscription(&context.db, tenant, params.get("subscription_id"))?;
    Ok(ApiResponse::json(200, &subscription))
}

fn confirm_subscription(
    context: &Context,
    tenant: &Tenant,
    request: &ApiRequest,
    params: &PathParams,
) -> ApiResult<ApiResponse> {
    let confirmed =
        webhooks::confirm_subscription(&context.db, tenant, params.get("subscription_id"), &validation::json_body(request)?)?;
    Ok(ApiResponse::json(200, &confirmed))
}

fn delete_subscription(
    context: &Context,
    tenant: &Tenant,
    _: &ApiRequest,
    params: &PathParams,
) -> ApiResult<ApiResponse> {
    webhooks::delete_subscription(&context.db, tenant, params.get("subscription_id"))?;
    Ok(ApiResponse::empty(204))
}

fn list_deliveries(context: &Context, tenant: &Tenant, request: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
    let filter = DeliveryFilter::parse(&request.query_pairs())?;
    Ok(ApiResponse::json(200, &webhooks::list_deliveries(&context.db, tenant, &filter)?))
}

fn get_delivery(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let delivery = webhooks::get_delivery(&context.db, tenant, params.get("delivery_id"))?;
    Ok(ApiResponse::json(200, &delivery))
}

fn redeliver(context: &Context, tenant: &Tenant, _: &ApiRequest, params: &PathParams) -> ApiResult<ApiResponse> {
    let delivery = webhooks::redeliver(&context.db, tenant, params.get("delivery_id"))?;
    Ok(ApiResponse::json(202, &delivery))
}
