//! Shared core of the Interview Research Service components: domain types,
//! the error enum and its body shapes, storage, authentication and the request
//! pipeline. Components are thin: a route table and handlers calling in here.

pub mod auth;
pub mod config;
pub mod db;
pub mod error;
pub mod files;
pub mod http;
pub mod interviews;
pub mod keys;
pub mod llm;
pub mod maintenance;
pub mod metadata;
pub mod outbound;
pub mod paging;
pub mod projects;
pub mod rate_limit;
pub mod record;
pub mod routes;
pub mod sealed;
pub mod service;
pub mod sessions;
pub mod synthesis;
pub mod tenants;
pub mod time;
pub mod validation;

/// The text toolkit and the closed sets of wire names, where the code has always named them.
pub use text::{self, text_enum};
pub mod webhooks;

pub use error::{ApiError, ApiResult, FieldError, LocPart};
pub use http::{ApiRequest, ApiResponse, BodySource, Budget, Method, PathParams, Per, Reply, Router};
pub use service::{serve, Context, Handler};

/// The OpenAPI 3.1 description of every route (served at GET /v1/openapi.json;
/// `tests/e2e/tests/openapi.rs` keeps it in step with the route tables).
pub const OPENAPI_JSON: &str = include_str!("../openapi.json");

/// Event types the service emits, as `GET /v1/webhooks/event-types` lists them.
pub const EVENT_TYPES: &[&str] = <webhooks::EventType as text_enum::TextEnum>::NAMES;
