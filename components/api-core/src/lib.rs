//! Shared core of the Interview Research Service components: domain types,
//! the error enum and its body shapes, storage, authentication and the request
//! pipeline. Components are thin: a route table and handlers calling in here.

pub mod auth;
pub mod config;
pub mod db;
pub mod error;
pub mod http;
pub mod keys;
pub mod rate_limit;
pub mod service;
pub mod tenants;
pub mod time;
pub mod validation;

pub use error::{ApiError, ApiResult, FieldError, LocPart};
pub use http::{ApiRequest, ApiResponse, Method, PathParams, Router};
pub use service::{serve, Context, Handler};

/// Event types the service emits (SPEC.md, Events).
pub const EVENT_TYPES: &[&str] = &["project.published", "project.completed", "interview.finished"];
