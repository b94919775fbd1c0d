//! Shared core of the Interview Research Service components: the resource
//! areas, storage and the request pipeline, on the `platform` crate (errors,
//! requests, authentication, configuration, time) and the `text` toolkit. Components are thin: a route table and handlers calling in here.

pub mod files;
pub mod interviews;
pub mod maintenance;
pub mod projects;
pub mod record;
pub mod sealed;
pub mod sessions;
pub mod synthesis;
pub mod tenants;

pub mod webhooks;

/// What every component stands on, the text toolkit and the closed sets of
/// wire names, at the paths the code has always named.
/// The records' seam, where the code has always named it.
pub use storage as db;
pub use platform::{auth, config, error, http, keys, llm, metadata, outbound, paging, rate_limit, time, validation};
pub use text;
pub use ::text_enum::text_enum;
pub mod text_enum {
    pub use ::text_enum::TextEnum;
}

pub use error::{ApiError, ApiResult, FieldError, LocPart};
pub use http::{ApiRequest, ApiResponse, BodySource, Budget, Method, PathParams, Per, Reply, Router};
pub use pipeline::{self as service, routes, serve, serve_sessions, Context, Handler};

pub use pipeline::OPENAPI_JSON;

/// Event types the service emits, as `GET /v1/webhooks/event-types` lists them.
pub const EVENT_TYPES: &[&str] = <webhooks::EventType as ::text_enum::TextEnum>::NAMES;
