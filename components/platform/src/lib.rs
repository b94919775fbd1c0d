//! What every component of the Interview Research Service stands on, and
//! nothing of any resource area: the error enum and its body shapes
//! ([`error`]), requests, responses and the route table ([`http`]), HTML
//! templates ([`html`]), Spin
//! variables ([`config`]), API keys ([`keys`]) and who a request comes from
//! ([`auth`]), rate-limit quotas ([`rate_limit`]), parsing of inputs
//! ([`validation`], [`paging`], [`metadata`]), time ([`time`]), outbound HTTP
//! with a deadline ([`outbound`]) and the optional language model ([`llm`]).
//! The crates of the areas build on it; it depends on none of them.

pub mod auth;
pub mod config;
pub mod error;
pub mod html;
pub mod http;
pub mod ids;
pub mod keys;
pub mod llm;
pub mod metadata;
pub mod outbound;
pub mod paging;
pub mod rate_limit;
pub mod time;
pub mod validation;

pub use error::{ApiError, ApiResult, FieldError, LocPart};
