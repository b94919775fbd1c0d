//! The areas of the Interview Research Service that still share one crate:
//! interviews, sessions and the interviewer, and the maintenance run. Below
//! them, crates of their own: `platform` (errors, requests, authentication,
//! configuration, time, outbound HTTP), `storage` (the records' seam),
//! `pipeline` (the request pipeline and route list), the `tenants-core`,
//! `webhooks-core`, `files-core` and `projects-core` areas, the interview
//! `records`, the `synthesis` and the `text` toolkit. Components are thin: a
//! route table and handlers calling in here.

pub mod interviews;
pub mod maintenance;

// The crates below, at the paths the code has always named them.
pub use files_core as files;
pub use pipeline::{self as service, routes, serve, Context, Handler, OPENAPI_JSON};
pub use sessions_core::serve_sessions;
pub use platform::{auth, config, error, http, keys, llm, metadata, outbound, paging, rate_limit, time, validation};
pub use projects_core as projects;
pub use records::{self as record, sealed};
pub use sessions_core as sessions;
pub use storage as db;
pub use synthesis;
pub use tenants_core as tenants;
pub use text;
pub use webhooks_core::{self as webhooks, EVENT_TYPES};

pub use ::text_enum::text_enum;
/// The closed sets' trait, where the code has always named it.
pub mod text_enum {
    pub use ::text_enum::TextEnum;
}

pub use error::{ApiError, ApiResult, FieldError, LocPart};
pub use http::{ApiRequest, ApiResponse, BodySource, Budget, Method, PathParams, Per, Reply, Router};
