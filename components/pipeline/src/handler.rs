//! A route's handler and what it says about the request around it.

use super::{Context, Sessions, NoSessions};
use platform::auth::Tenant;
use platform::error::ApiResult;
use platform::http::{ApiRequest, ApiResponse, PathParams, Reply};
use spin_sdk::http::IncomingRequest;
use std::future::Future;
use std::pin::Pin;

pub type PublicHandler = fn(&Context, &ApiRequest, &PathParams) -> ApiResult<ApiResponse>;
pub type TenantHandler = fn(&Context, &Tenant, &ApiRequest, &PathParams) -> ApiResult<ApiResponse>;
/// A tenant route that reads the request body itself, as a stream (`request.body`
/// stays empty), and may answer with a streamed body ([`Reply::Streamed`]).
pub type TenantStreamHandler =
    fn(Context, Tenant, ApiRequest, PathParams, IncomingRequest) -> Pin<Box<dyn Future<Output = ApiResult<Reply>>>>;

/// A public route that may answer with a streamed body (large files).
pub type PublicStreamHandler = fn(Context, ApiRequest, PathParams) -> Pin<Box<dyn Future<Output = ApiResult<Reply>>>>;

/// A static asset: the same bytes for everyone, from memory (see [`Handler::Static`]).
pub type StaticHandler = fn(&ApiRequest, &PathParams) -> ApiResult<ApiResponse>;

/// A route of an interviewee's session: the interview whose session token came
/// with the request (`Authorization: Bearer`), for the path's `:interview_id`.
pub type SessionHandler<S> = fn(&Context, &S, &ApiRequest, &PathParams) -> ApiResult<ApiResponse>;

/// A route's handler. Its variant is the handler's signature, and with it
/// what the pipeline does around it: who may call ([`Handler::caller`]), how
/// the body reaches it ([`Handler::body`]) and the shape its errors answer in
/// ([`Handler::error_shape`]), read off the variant so that they cannot
/// disagree with the function it holds.
pub enum Handler<S: Sessions = NoSessions> {
    /// No tenant credentials (tenant creation checks its partnership key itself).
    Public(PublicHandler),
    /// No credentials, and an HTML answer: every error becomes an error page.
    Page(PublicHandler),
    /// No credentials, no request body, and a body that may be streamed.
    PublicStream(PublicStreamHandler),
    /// An interviewee's session token, checked before the handler runs.
    Session(SessionHandler<S::Interviewee>),
    /// No credentials, no storage, no rate-limit count: an immutable static
    /// asset (the interview page's script and styles, `sessions::assets`),
    /// cheaper to send than to count.
    Static(StaticHandler),
    /// A partnership key (`X-Api-Key` + `X-Tenant-Id` of the partner, with its
    /// scope), checked before the handler runs; every error answers in the flat
    /// `{error, message}` shape of tenant creation.
    Partner(PublicHandler),
    /// The operator's `maintenance_token` as a bearer credential; the route does not
    /// exist while the variable is unset, and it has a rate budget of its own.
    Operator(PublicHandler),
    /// No credentials, for a scheduler that can send none (`spin aka cron`: a
    /// `GET` of a fixed path, no header): it can only start what is due anyway,
    /// at most once per `maintenance_tick_seconds` (`maintenance::run_if_due`).
    /// The route does not exist while that variable is unset; it has the
    /// operator routes' budget.
    Tick(PublicHandler),
    /// `X-Api-Key` + `X-Tenant-Id` of a tenant, checked before the handler runs.
    Tenant(TenantHandler),
    /// Like `Tenant`, but the body is not read for the handler (uploads, downloads).
    TenantStream(TenantStreamHandler),
}

// Every variant is a function pointer: copied whatever the interviewee is.
impl<S: Sessions> Clone for Handler<S> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<S: Sessions> Copy for Handler<S> {}

/// Who may call a route, and with what.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Caller {
    /// Anyone, with no credentials.
    Anyone,
    /// An interviewee, with the session token of the path's interview.
    Interviewee,
    /// A partner, with its partnership key.
    Partner,
    /// The operator, with the `maintenance_token`.
    Operator,
    /// A scheduler, which sends no credentials.
    Scheduler,
    /// A tenant, with its API key.
    Tenant,
}

/// How a route's request body reaches its handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Body {
    /// Read whole first, at most 1 MiB.
    Read,
    /// The handler reads it, as a stream, and owns the connection to its end.
    Streamed,
    /// Not at all: a static asset, which no storage is opened for and no rate limit counts.
    Unread,
}

/// The shape a route's errors answer in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorShape {
    /// The API's documented error body.
    Documented,
    /// The flat `{error, message}` of tenant creation.
    Flat,
    /// An HTML error page.
    Page,
}

impl<S: Sessions> Handler<S> {
    pub fn caller(self) -> Caller {
        match self {
            Handler::Public(_) | Handler::Page(_) | Handler::PublicStream(_) | Handler::Static(_) => Caller::Anyone,
            Handler::Session(_) => Caller::Interviewee,
            Handler::Partner(_) => Caller::Partner,
            Handler::Operator(_) => Caller::Operator,
            Handler::Tick(_) => Caller::Scheduler,
            Handler::Tenant(_) | Handler::TenantStream(_) => Caller::Tenant,
        }
    }

    pub fn body(self) -> Body {
        match self {
            Handler::PublicStream(_) | Handler::TenantStream(_) => Body::Streamed,
            Handler::Static(_) => Body::Unread,
            _ => Body::Read,
        }
    }

    pub fn error_shape(self) -> ErrorShape {
        match self {
            Handler::Page(_) => ErrorShape::Page,
            Handler::Partner(_) => ErrorShape::Flat,
            _ => ErrorShape::Documented,
        }
    }
}
