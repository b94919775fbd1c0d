//! The request pipeline every HTTP component runs: request id, per-IP limits,
//! routing (404/405), authentication, bounded body, handler, error mapping.
//! It stands on the platform and the records' seam only: what a session route
//! serves is the sessions area's ([`Sessions`]), so a component that serves
//! no interviewee links nothing of it.

pub mod routes;
mod handler;

pub use handler::{
    Body, Caller, ErrorShape, Handler, PublicHandler, PublicStreamHandler, SessionHandler, StaticHandler, TenantHandler, TenantStreamHandler,
};

/// The OpenAPI 3.1 description of every route (served at GET /v1/openapi.json;
/// [`routes`]' unit test and `tests/e2e/tests/openapi.rs` keep it in step with
/// the route tables).
pub const OPENAPI_JSON: &str = include_str!("../openapi.json");

use platform::auth::{self, Credentials, Tenant};
use platform::config;
use platform::error::{ApiError, ApiResult};
use platform::keys;
use platform::http::{ApiRequest, ApiResponse, Budget, Method, PathParams, Per, Reply, RouteMatch, Router, MAX_JSON_BODY};
use platform::rate_limit::{self, Limit, Quota, Window};
use platform::time;
use storage::{Admission, Backend, Db};
use futures::{SinkExt, StreamExt};
use spin_sdk::http::{Fields, IncomingRequest, OutgoingBody, OutgoingResponse, ResponseOutparam};
use wasi::io::streams::{OutputStream, StreamError};
use std::net::{IpAddr, SocketAddr};

/// What a handler gets besides the request: storage, opened and migrated.
pub struct Context {
    pub db: Db,
}

/// What session and page routes serve. The area that runs interviews says how
/// a request's bearer token opens one (its [`Sessions::Interviewee`]) and how
/// a page shows an error; the pipeline knows neither, so a component without
/// such routes ([`NoSessions`]) links none of it.
pub trait Sessions {
    /// What a session route's handler gets: the interview its token opened.
    type Interviewee;
    /// The session the request's bearer token opens for the path's
    /// `:interview_id`, read with the request's admission.
    fn authenticate(db: &Db, request: &ApiRequest, params: &PathParams) -> ApiResult<Self::Interviewee>;
    /// A page route's answer to a failed request.
    fn error_page(error: ApiError) -> ApiResponse;
}

/// The sessions of a component that has no session or page routes.
pub enum NoSessions {}

impl Sessions for NoSessions {
    type Interviewee = std::convert::Infallible;

    fn authenticate(_: &Db, _: &ApiRequest, _: &PathParams) -> ApiResult<Self::Interviewee> {
        Err(ApiError::internal(anyhow::anyhow!("a session route in a component that serves no sessions")))
    }

    fn error_page(error: ApiError) -> ApiResponse {
        error.into_response()
    }
}


pub const GLOBAL_LIMIT_VARIABLE: &str = "rate_limit_per_minute";
/// Seconds between two maintenance runs the tick route may start; while it is
/// unset the route does not exist.
pub const TICK_VARIABLE: &str = "maintenance_tick_seconds";
const GLOBAL_LIMIT_DEFAULT: u64 = 50;
pub const OPERATOR_LIMIT_VARIABLE: &str = "operator_rate_limit_per_minute";
const OPERATOR_LIMIT_DEFAULT: u64 = 120;

/// Entry point of each HTTP component
/// (`#[http_component] async fn handle(request: IncomingRequest, out: ResponseOutparam)`):
/// a whole body is sent with its head (see [`send_whole`]), a
/// [`Reply::Streamed`] body piece by piece (whole when it is one piece).
pub async fn serve(incoming: IncomingRequest, out: ResponseOutparam, router: &Router<Handler>) {
    serve_sessions(incoming, out, router).await
}

/// [`serve`] for a component with session or page routes, whose sessions `S` are.
pub async fn serve_sessions<S: Sessions>(incoming: IncomingRequest, out: ResponseOutparam, router: &Router<Handler<S>>) {
    let mut request = request_head(&incoming);
    let reply = route(incoming, &mut request, router)
        .await
        .unwrap_or_else(|error| error_response(error, router, &request).into());
    let (head, source) = match reply {
        Reply::Streamed(head, source) if request.method != Method::Head => (head, Some(source)),
        Reply::Streamed(head, _) | Reply::Full(head) => (head, None),
    };
    let mut head = finish_response(head, &request);
    let body = std::mem::take(&mut head.body);
    let outgoing = outgoing_response(&head);
    let Some(mut source) = source else {
        return send_whole(out, outgoing, &body);
    };
    // Two pieces are read before the head goes: a body that ends within its
    // first (a small download) leaves whole, in one write, and a body that
    // fails that early still gets its error response.
    let mut pieces = Vec::new();
    while pieces.len() < 2 {
        match source.next_chunk() {
            Ok(Some(piece)) => pieces.push(piece),
            Ok(None) => return send_whole(out, outgoing, &pieces.concat()),
            Err(error) => {
                let failed = finish_response(error_response(error, router, &request), &request);
                return send_whole(out, outgoing_response(&failed), &failed.body);
            }
        }
    }
    let mut sink = outgoing.take_body();
    out.set(outgoing);
    let read_ahead = pieces.into_iter().map(|piece| Ok(Some(piece)));
    for next in read_ahead.chain(std::iter::from_fn(|| Some(source.next_chunk()))) {
        match next {
            Ok(Some(chunk)) => {
                if let Err(error) = sink.send(chunk).await {
                    eprintln!("writing the response body failed: {error:?}");
                    return;
                }
            }
            Ok(None) => return,
            // The head is gone already: the body ends short of its
            // content-length, which the host reports as a failed response.
            Err(error) => {
                eprintln!("response body aborted: {:?}", error);
                return;
            }
        }
    }
}

/// Hands a response with its whole body to the runtime. Spin 4.0.2 sends a
/// response's head as soon as it has it, and leaves Nagle's algorithm on, so
/// a body written after the head can wait for the client's delayed ACK (40 ms
/// on Linux: one client at a time saw a p99 of 48 ms on a 5 ms route). So
/// when the host's buffer takes the whole body in one write (wasi:http's
/// `check-write` says how much it takes now), the body is written and
/// finished first and the runtime gets head and body together; a larger body
/// follows the head, as it must (the buffer drains only once the head is out).
fn send_whole(out: ResponseOutparam, outgoing: OutgoingResponse, body: &[u8]) {
    let Ok(outgoing_body) = outgoing.body() else {
        eprintln!("the response body was taken already");
        return out.set(outgoing);
    };
    let Ok(stream) = outgoing_body.write() else {
        eprintln!("the response body cannot be written");
        return out.set(outgoing);
    };
    let mut hand_over = Some(move || out.set(outgoing));
    let fits = stream.check_write().is_ok_and(|permit| permit >= body.len() as u64);
    if !fits {
        if let Some(head) = hand_over.take() {
            head();
        }
    }
    if let Err(error) = write_all(&stream, body) {
        eprintln!("writing the response body failed: {error:?}");
    }
    drop(stream);
    if let Err(error) = OutgoingBody::finish(outgoing_body, None) {
        eprintln!("finishing the response body failed: {error:?}");
    }
    if let Some(head) = hand_over {
        head();
    }
}

/// Writes `bytes` to a body stream as fast as the host takes them.
fn write_all(stream: &OutputStream, mut bytes: &[u8]) -> Result<(), StreamError> {
    while !bytes.is_empty() {
        let permit = usize::try_from(stream.check_write()?).unwrap_or(usize::MAX);
        if permit == 0 {
            stream.subscribe().block();
            continue;
        }
        let (now, rest) = bytes.split_at(permit.min(bytes.len()));
        stream.write(now)?;
        bytes = rest;
    }
    stream.flush()
}

/// Adds `x-request-id`; a HEAD answer keeps its headers but no body (and no
/// `content-length`, which the host would check against the empty body).
fn finish_response(mut response: ApiResponse, request: &ApiRequest) -> ApiResponse {
    if request.method == Method::Head {
        response.body.clear();
        response.headers.retain(|(name, _)| !name.eq_ignore_ascii_case("content-length"));
    }
    response.with_header("x-request-id", request.request_id.clone())
}

fn outgoing_response(response: &ApiResponse) -> OutgoingResponse {
    let headers: Vec<(String, Vec<u8>)> =
        response.headers.iter().map(|(name, value)| (name.clone(), value.clone().into_bytes())).collect();
    let fields = Fields::from_list(&headers).unwrap_or_else(|error| {
        eprintln!("invalid response header: {error:?}");
        Fields::new()
    });
    let outgoing = OutgoingResponse::new(fields);
    let _ = outgoing.set_status_code(response.status);
    outgoing
}

/// The answer to a failed request, in its route's shape: an error page for a page
/// route, the flat shape for a partner route, the error's own body otherwise.
fn error_response<S: Sessions>(error: ApiError, router: &Router<Handler<S>>, request: &ApiRequest) -> ApiResponse {
    match router.find(request.method, &request.path) {
        RouteMatch::Found(route, _) => match route.handler.error_shape() {
            ErrorShape::Page => S::error_page(error),
            ErrorShape::Flat => platform::http::flat(error.into_response()),
            ErrorShape::Documented => error.into_response(),
        },
        _ => error.into_response(),
    }
}

async fn route<S: Sessions>(incoming: IncomingRequest, request: &mut ApiRequest, router: &Router<Handler<S>>) -> ApiResult<Reply> {
    // Routing needs no storage: it goes first, so that the request's one
    // rate-limit statement can count the route's own budget too.
    let found = router.find(request.method, &request.path);
    if let RouteMatch::Found(route, params) = &found {
        if let Handler::Static(handler) = route.handler {
            return handler(request, params).map(Reply::Full);
        }
    }
    let context = Context { db: Db::connect()? };
    let budget = match &found {
        RouteMatch::Found(route, _) => route.budget,
        _ => None,
    };
    // A budget per project is counted by the body's `project_id`: the body
    // (at most 1 MiB) is read before the request is counted.
    let mut incoming = Some(incoming);
    if budget.is_some_and(|budget| budget.per == Per::AddressAndProject) {
        if let Some(unread) = incoming.take() {
            request.body = read_body(unread, request, MAX_JSON_BODY).await?;
        }
    }
    let caller = match &found {
        RouteMatch::Found(route, _) => Some(route.handler.caller()),
        _ => None,
    };
    let operator = matches!(caller, Some(Caller::Operator | Caller::Scheduler));
    let operator_token = operator_token(&found, request)?;
    let credentials = Credentials::from_headers(|name| request.header(name)).ok();
    let checked = credentials.clone().filter(|_| caller == Some(Caller::Tenant));
    let counting = Counting::of(request.method, &found, context.db.backend());
    enforce_limit(&context.db, request, budget, checked, operator, counting)?;
    let (route, params) = found_route(found, request).map_err(|refusal| settled(&context.db, refusal))?;
    let tenant = claimed_tenant(route.handler, credentials.as_ref(), request).map_err(|refusal| settled(&context.db, refusal))?;
    if settles_before_handler(route.handler, request.method) {
        context.db.gatekeeper().settle_admission()?;
    }
    match (route.handler, tenant) {
        // A streaming handler owns the connection to its end: such a request
        // was counted first (see `Counting`).
        (Handler::TenantStream(handler), Some(tenant)) => {
            let incoming = incoming.ok_or_else(|| ApiError::internal(anyhow::anyhow!("a streaming route's body was read")))?;
            handler(context, tenant, request.clone(), params, incoming).await
        }
        (Handler::PublicStream(handler), _) => handler(context, request.clone(), params).await,
        (handler, tenant) => {
            let outcome = run(&context, request, handler, tenant, &params, incoming, credentials.as_ref(), operator_token).await;
            // The admission's refusal is the answer, whatever the handler did;
            // then the count, when the handler wrote nothing that took it along.
            match (outcome, context.db.gatekeeper().settle()) {
                (_, Err(refusal)) => Err(refusal),
                (outcome, Ok(())) => outcome,
            }
        }
    }
}

/// The operator's token an operator or tick route is on with: such a route is
/// off (404) until its variable is set.
fn operator_token<S: Sessions>(found: &RouteMatch<'_, Handler<S>>, request: &ApiRequest) -> ApiResult<Option<String>> {
    let variable = match found {
        RouteMatch::Found(route, _) => match route.handler.caller() {
            Caller::Operator => auth::OPERATOR_TOKEN_VARIABLE,
            Caller::Scheduler => TICK_VARIABLE,
            _ => return Ok(None),
        },
        _ => return Ok(None),
    };
    config::var(variable).map(Some).ok_or_else(|| routes::not_found(request.method, &request.path))
}

/// The route found, or the 404 or 405 that answers instead.
fn found_route<'r, S: Sessions>(
    found: RouteMatch<'r, Handler<S>>,
    request: &ApiRequest,
) -> ApiResult<(&'r platform::http::Route<Handler<S>>, PathParams)> {
    match found {
        RouteMatch::Found(route, params) => Ok((route, params)),
        // A more specific route of this method a typo away beats a 405
        // (`POST /v1/projects/validate-context`, whose `validate-context` only
        // reads as a project id); a path that names a route as it is does not.
        RouteMatch::MethodNotAllowed(_) if routes::closest_over_405(request.method, &request.path).is_some() => {
            Err(routes::not_found(request.method, &request.path))
        }
        RouteMatch::MethodNotAllowed(allow) => Err(ApiError::MethodNotAllowed { allow }),
        RouteMatch::NotFound => Err(routes::not_found(request.method, &request.path)),
    }
}

/// The tenant a tenant route's credentials name (401 without them). The key
/// is checked with the admission (its decision is the 401), which on a remote
/// database may travel with the handler's first read: a read-only handler
/// then runs before the check, and gets nothing the records hold until it
/// passed (see `storage::admission`); every other handler runs after it.
fn claimed_tenant<S: Sessions>(handler: Handler<S>, credentials: Option<&Credentials>, request: &ApiRequest) -> ApiResult<Option<Tenant>> {
    match (handler.caller(), credentials) {
        (Caller::Tenant, Some(credentials)) => Ok(Some(Tenant::claimed(credentials))),
        (Caller::Tenant, None) => Err(auth::tenant_refusal(request.header(auth::API_KEY_HEADER))),
        _ => Ok(None),
    }
}

/// Whether the admission is settled before the handler runs: not for a
/// session route (its token is read with the admission, and both are settled
/// before its body) nor for a read of a tenant, public or page route (which
/// may travel with the handler's first read).
fn settles_before_handler<S: Sessions>(handler: Handler<S>, method: Method) -> bool {
    let reads_only = matches!(method, Method::Get | Method::Head);
    let may_travel = handler.body() == Body::Read && matches!(handler.caller(), Caller::Tenant | Caller::Anyone);
    handler.caller() != Caller::Interviewee && !(reads_only && may_travel)
}

/// When a request is counted against its rate limits (see `storage::admission`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Counting {
    /// By its first statement, an upsert: a read (GET, HEAD); a route that
    /// streams (its handler owns the connection to the end); every request
    /// on a libSQL server, where a statement is a round trip and a statement
    /// more inside a transaction holds the server's writer for one more.
    First,
    /// With its first write, on a local file: one write lock for a request
    /// that writes; refused by a read when it is past its limit already.
    WithItsWrite,
}

impl Counting {
    fn of<S: Sessions>(method: Method, found: &RouteMatch<'_, Handler<S>>, backend: Backend) -> Counting {
        let streams = matches!(found, RouteMatch::Found(route, _) if route.handler.body() == Body::Streamed);
        match method {
            Method::Post | Method::Put | Method::Patch | Method::Delete if !streams && backend == Backend::Local => {
                Counting::WithItsWrite
            }
            _ => Counting::First,
        }
    }
}

/// A refusal before the handler: the admission waiting to go out and the
/// count still due are written first, and a refusal of theirs (429, past a
/// limit) is the answer instead (429 comes before every other refusal).
fn settled(db: &Db, refusal: ApiError) -> ApiError {
    match db.gatekeeper().settle() {
        Err(error) => error,
        Ok(()) => refusal,
    }
}

/// A handler that answers with a whole body, the body read first; the
/// connection stays the pipeline's.
#[allow(clippy::too_many_arguments)]
async fn run<S: Sessions>(
    context: &Context,
    request: &mut ApiRequest,
    handler: Handler<S>,
    tenant: Option<Tenant>,
    params: &PathParams,
    incoming: Option<IncomingRequest>,
    credentials: Option<&Credentials>,
    operator_token: Option<String>,
) -> ApiResult<Reply> {
    // Who may call is checked before the body is read; an interviewee's
    // session is read with the admission, and both settled before it.
    match handler.caller() {
        Caller::Partner => auth::authorize_partner(credentials, &auth::PartnerConfig::from_variables())?,
        Caller::Operator => auth::authorize_operator(request.header("authorization"), operator_token.as_deref().unwrap_or_default())?,
        _ => {}
    }
    let interview = match handler {
        Handler::Session(_) => {
            let interview = S::authenticate(&context.db, request, params);
            context.db.gatekeeper().settle_admission()?;
            Some(interview?)
        }
        _ => None,
    };
    if handler.body() == Body::Read {
        request.body = body(incoming, request).await?;
    }
    let response = match (handler, tenant, interview) {
        (Handler::Tenant(handler), Some(tenant), _) => handler(context, &tenant, request, params),
        (Handler::Public(handler) | Handler::Page(handler) | Handler::Partner(handler) | Handler::Operator(handler) | Handler::Tick(handler), ..) => {
            handler(context, request, params)
        }
        (Handler::Session(handler), _, Some(interview)) => handler(context, &interview, request, params),
        (Handler::Static(handler), ..) => handler(request, params),
        // A tenant route without its tenant, or a streaming route (served before `run`).
        _ => Err(auth::tenant_refusal(None)),
    };
    response.map(Reply::Full)
}

/// The request's body: read now (at most 1 MiB), or as read before it was counted.
async fn body(incoming: Option<IncomingRequest>, request: &ApiRequest) -> ApiResult<Vec<u8>> {
    match incoming {
        Some(incoming) => read_body(incoming, request, MAX_JSON_BODY).await,
        None => Ok(request.body.clone()),
    }
}

/// The counter of a route's budget for this request (see [`Per`]); `None`
/// when the request has nothing to count it by (a session route without a
/// bearer token).
fn budget_bucket(budget: Budget, client: &str, request: &ApiRequest) -> Option<String> {
    let key = match budget.per {
        Per::Address => client.to_string(),
        Per::AddressAndProject => {
            let project_id = serde_json::from_slice::<serde_json::Value>(&request.body)
                .ok()
                .and_then(|body| body.get("project_id").and_then(|id| id.as_str()).and_then(|id| uuid::Uuid::parse_str(id).ok()));
            // A body without a project id is refused later (422); it still counts, once per address.
            format!("{client}:{}", project_id.map_or_else(|| "-".to_string(), |id| id.to_string()))
        }
        // The token's digest, shortened: a session's bucket never names its secret.
        Per::Session => auth::bearer_token(request.header("authorization")).map(|token| keys::hash_secret(token)[..32].to_string())?,
    };
    Some(rate_limit::bucket(budget.variable, &key))
}

/// The request's limits in its window: the per-IP limit (the operator's own
/// on operator routes), and its route's own budget if it has one.
fn quota(request: &ApiRequest, budget: Option<Budget>, operator: bool) -> Quota {
    let now = time::unix_seconds(time::now());
    let client = request.client_ip.map_or_else(|| "unknown".to_string(), |ip| ip.to_string());
    // Operator routes never spend the tenants' per-IP budget (a scheduler shares
    // its address with nobody's interviews), and have one of their own.
    let mut limits = vec![if operator {
        Limit { bucket: rate_limit::bucket("operator", &client), per_window: config::var_u64(OPERATOR_LIMIT_VARIABLE, OPERATOR_LIMIT_DEFAULT) }
    } else {
        Limit { bucket: rate_limit::bucket("all", &client), per_window: config::var_u64(GLOBAL_LIMIT_VARIABLE, GLOBAL_LIMIT_DEFAULT) }
    }];
    if let Some(budget) = budget {
        // An unset budget (no variable) counts nothing.
        let per_window = config::var_u64(budget.variable, u64::MAX);
        if let Some(bucket) = budget_bucket(budget, &client, request).filter(|_| per_window != u64::MAX) {
            limits.push(Limit { bucket, per_window });
        }
    }
    Quota { limits, window: Window::containing(now), now }
}

/// Counts the request against its limits (see [`quota`]) as `counting` says,
/// in the request's first statement, which also fetches the key hash of the
/// tenant the credentials name; decides the 429 (the per-IP limit first, so
/// an over-limit client gets 429 on unknown routes too), then, for a tenant
/// route (`checked`), the 401.
fn enforce_limit(
    db: &Db,
    request: &ApiRequest,
    budget: Option<Budget>,
    checked: Option<Credentials>,
    operator: bool,
    counting: Counting,
) -> ApiResult<()> {
    let quota = quota(request, budget, operator);
    let tenant_id = checked.as_ref().map(|c| c.tenant_id);
    let gatekeeper = db.gatekeeper();
    match counting {
        Counting::First => {
            let decided = quota.clone();
            let decide = move |admission: &Admission| {
                decided.decide(&admission.counts)?;
                match &checked {
                    Some(credentials) => authenticate(credentials, admission).map(drop),
                    None => Ok(()),
                }
            };
            gatekeeper.admit(&quota, tenant_id, Box::new(decide))
        }
        Counting::WithItsWrite => {
            let admission = gatekeeper.peek(&quota, tenant_id)?;
            quota.decide_before_counting(&admission.counts)?;
            gatekeeper.count_with_next_write(quota);
            match &checked {
                Some(credentials) => authenticate(credentials, &admission).map(drop).map_err(|refusal| settled(db, refusal)),
                None => Ok(()),
            }
        }
    }
}

/// Checks the request's credentials against the key hash [`enforce_limit`]
/// fetched for their tenant id (none: an unknown tenant, refused the same way).
pub fn authenticate(credentials: &Credentials, admission: &Admission) -> ApiResult<Tenant> {
    auth::authenticate(credentials, admission.key_hash.as_deref())
}

/// Reads the whole body, refusing with 413 as soon as it exceeds `limit`.
pub async fn read_body(incoming: IncomingRequest, request: &ApiRequest, limit: usize) -> ApiResult<Vec<u8>> {
    let too_large = || ApiError::PayloadTooLarge(format!("Request body exceeds {limit} bytes"));
    if let Some(length) = request.header("content-length").and_then(|l| l.trim().parse::<u64>().ok()) {
        if length > limit as u64 {
            return Err(too_large());
        }
    }
    let mut body = Vec::new();
    let mut stream = incoming.into_body_stream();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|_| {
            ApiError::UnreadableBody("the connection ended early or its chunked encoding is malformed".into())
        })?;
        if body.len() + chunk.len() > limit {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// Method, path, query, headers, client address and request id; no body yet.
pub fn request_head(incoming: &IncomingRequest) -> ApiRequest {
    let headers: Vec<(String, String)> = incoming
        .headers()
        .entries()
        .into_iter()
        .map(|(name, value)| (name.to_ascii_lowercase(), String::from_utf8_lossy(&value).into_owned()))
        .collect();
    let path_and_query = incoming.path_with_query().unwrap_or_else(|| "/".into());
    let (path, query) = match path_and_query.split_once('?') {
        Some((path, query)) => (path.to_string(), query.to_string()),
        None => (path_and_query, String::new()),
    };
    let method = Method::parse(&incoming.method().to_string());
    let mut request = ApiRequest {
        method,
        path,
        query,
        headers,
        body: Vec::new(),
        client_ip: None,
        request_id: String::new(),
    };
    request.client_ip = client_ip(&request, config::var_bool("trust_forwarded_for"));
    request.request_id = request_id(request.header("x-request-id"));
    request
}

/// The caller's IP: Spin's `spin-client-addr`, or, behind a trusted proxy, the
/// last `X-Forwarded-For` entry (the one that proxy appended).
pub fn client_ip(request: &ApiRequest, trust_forwarded_for: bool) -> Option<IpAddr> {
    if trust_forwarded_for {
        let forwarded = request
            .header("x-forwarded-for")
            .and_then(|list| list.rsplit(',').next())
            .and_then(|last| last.trim().parse::<IpAddr>().ok());
        if forwarded.is_some() {
            return forwarded;
        }
    }
    let addr = request.header("spin-client-addr")?.trim();
    addr.parse::<SocketAddr>().map(|a| a.ip()).ok().or_else(|| addr.parse::<IpAddr>().ok())
}

/// Echoes a sane client-supplied id; otherwise makes one.
pub fn request_id(given: Option<&str>) -> String {
    match given.map(str::trim) {
        Some(id) if !id.is_empty() && id.len() <= 128 && id.bytes().all(|b| b.is_ascii_graphic()) => {
            id.to_string()
        }
        _ => uuid::Uuid::new_v4().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(headers: &[(&str, &str)]) -> ApiRequest {
        ApiRequest {
            method: Method::Get,
            path: "/".into(),
            query: String::new(),
            headers: headers.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect(),
            body: Vec::new(),
            client_ip: None,
            request_id: String::new(),
        }
    }

    #[test]
    fn client_ip_comes_from_spin_client_addr() {
        let r = request(&[("spin-client-addr", "127.0.0.1:51234"), ("x-forwarded-for", "9.9.9.9")]);
        assert_eq!(client_ip(&r, false), Some("127.0.0.1".parse().unwrap()));
        let r = request(&[("spin-client-addr", "[::1]:51234")]);
        assert_eq!(client_ip(&r, false), Some("::1".parse().unwrap()));
        assert_eq!(client_ip(&request(&[]), false), None);
    }

    #[test]
    fn forwarded_for_is_used_only_when_trusted() {
        let r = request(&[("spin-client-addr", "127.0.0.1:1"), ("x-forwarded-for", "1.2.3.4, 10.0.0.7")]);
        assert_eq!(client_ip(&r, true), Some("10.0.0.7".parse().unwrap()));
        let r = request(&[("spin-client-addr", "127.0.0.1:1"), ("x-forwarded-for", "garbage")]);
        assert_eq!(client_ip(&r, true), Some("127.0.0.1".parse().unwrap()));
    }

    #[test]
    fn budgets_count_per_address_project_or_session_token() {
        let budget = |per| Budget { variable: "b", per };
        let mut start = request(&[]);
        start.body = br#"{"project_id": "6F1C0F0E-4D0A-4B8E-9A53-2D7C1F9C2B10"}"#.to_vec();
        assert_eq!(budget_bucket(budget(Per::Address), "1.2.3.4", &start).as_deref(), Some("b:1.2.3.4"));
        assert_eq!(
            budget_bucket(budget(Per::AddressAndProject), "1.2.3.4", &start).as_deref(),
            Some("b:1.2.3.4:6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10"),
            "the project id as a canonical UUID, however it was written"
        );
        start.body = b"not json".to_vec();
        assert_eq!(budget_bucket(budget(Per::AddressAndProject), "1.2.3.4", &start).as_deref(), Some("b:1.2.3.4:-"));
        // Per session: the token's digest, never the token; none without a token.
        let session = request(&[("authorization", "Bearer ses_secret")]);
        let bucket = budget_bucket(budget(Per::Session), "1.2.3.4", &session).unwrap();
        assert_eq!(bucket, format!("b:{}", &keys::hash_secret("ses_secret")[..32]));
        assert!(!bucket.contains("secret"));
        assert_eq!(budget_bucket(budget(Per::Session), "1.2.3.4", &request(&[])), None);
    }

    #[test]
    fn a_write_on_a_local_file_is_counted_with_its_write_and_everything_else_first() {
        fn tenant(_: &Context, _: &Tenant, _: &ApiRequest, _: &PathParams) -> ApiResult<ApiResponse> {
            Ok(ApiResponse::empty(204))
        }
        use std::future::Future;
        use std::pin::Pin;

        fn upload(_: Context, _: Tenant, _: ApiRequest, _: PathParams, _: IncomingRequest) -> Pin<Box<dyn Future<Output = ApiResult<Reply>>>> {
            Box::pin(async { Ok(Reply::Full(ApiResponse::empty(204))) })
        }
        let router: Router<Handler> = Router::new()
            .route(platform::http::Endpoint::new(Method::Get, "/v1/things"), Handler::Tenant(tenant))
            .route(platform::http::Endpoint::new(Method::Post, "/v1/things"), Handler::Tenant(tenant))
            .route(platform::http::Endpoint::new(Method::Post, "/v1/files"), Handler::TenantStream(upload));
        let counting = |method, path, backend| Counting::of(method, &router.find(method, path), backend);
        assert_eq!(counting(Method::Get, "/v1/things", Backend::Local), Counting::First);
        assert_eq!(counting(Method::Head, "/v1/things", Backend::Local), Counting::First);
        assert_eq!(counting(Method::Post, "/v1/things", Backend::Local), Counting::WithItsWrite);
        assert_eq!(counting(Method::Post, "/v1/nowhere", Backend::Local), Counting::WithItsWrite, "a 404 still counts");
        assert_eq!(counting(Method::Post, "/v1/files", Backend::Local), Counting::First, "a stream keeps its connection");
        assert_eq!(counting(Method::Post, "/v1/things", Backend::Libsql), Counting::First, "a round trip less on libSQL");
    }

    #[test]
    fn request_ids_are_echoed_when_sane() {
        assert_eq!(request_id(Some("abc-123")), "abc-123");
        for bad in [None, Some(""), Some("has space"), Some(&"x".repeat(129)[..])] {
            let id = request_id(bad);
            assert!(uuid::Uuid::parse_str(&id).is_ok(), "{bad:?} -> {id}");
        }
    }
}
