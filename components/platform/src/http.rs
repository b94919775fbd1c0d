//! Plain request/response values and the route table each component declares.
//! Nothing here touches the host, so all of it is unit-tested natively.

use crate::error::{ApiError, ApiResult};
use serde::Serialize;
use serde_json::{json, Value};
use std::net::IpAddr;

/// JSON bodies larger than this are refused with 413 without being read further
/// (and the largest recording chunk the page sends).
pub const MAX_JSON_BODY: usize = 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
    Put,
    Patch,
    Delete,
    Head,
    Options,
    Other,
}

impl Method {
    pub fn parse(method: &str) -> Method {
        match method.to_ascii_uppercase().as_str() {
            "GET" => Method::Get,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "PATCH" => Method::Patch,
            "DELETE" => Method::Delete,
            "HEAD" => Method::Head,
            "OPTIONS" => Method::Options,
            _ => Method::Other,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Method::Get => "GET",
            Method::Post => "POST",
            Method::Put => "PUT",
            Method::Patch => "PATCH",
            Method::Delete => "DELETE",
            Method::Head => "HEAD",
            Method::Options => "OPTIONS",
            Method::Other => "OTHER",
        }
    }
}

/// A request as handlers see it: head parsed, body read (within its limit).
#[derive(Debug, Clone)]
pub struct ApiRequest {
    pub method: Method,
    pub path: String,
    pub query: String,
    /// Lower-case names, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub client_ip: Option<IpAddr>,
    pub request_id: String,
}

impl ApiRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        header_in(&self.headers, name)
    }

    /// Decoded `name=value` pairs of the query string, in order.
    pub fn query_pairs(&self) -> Vec<(String, String)> {
        parse_query(&self.query)
    }

    /// The `scheme://host[:port]` the request came in on, from Spin's `spin-full-url`.
    pub fn origin(&self) -> Option<String> {
        let full = self.header("spin-full-url")?;
        let (scheme, rest) = full.split_once("://")?;
        let host = rest.split(['/', '?', '#']).next()?;
        (!host.is_empty()).then(|| format!("{scheme}://{host}"))
    }
}

/// Splits and percent-decodes a query string (`+` is a space, as in forms;
/// a malformed escape stays as it is; bytes that are not UTF-8 become U+FFFD).
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    url::form_urlencoded::parse(query.as_bytes()).into_owned().collect()
}

/// The media type of a `Content-Type` value (`type/subtype[+suffix]`, lower-cased),
/// its parameters aside: a value whose parameters are malformed still has its type.
pub fn media_type(content_type: &str) -> Option<mime::Mime> {
    content_type.split(';').next()?.trim().parse().ok()
}

/// A response before it is handed to the host.
#[derive(Debug, Clone)]
pub struct ApiResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl ApiResponse {
    pub fn json(status: u16, body: &impl Serialize) -> Self {
        let body = serde_json::to_vec(body).expect("JSON values always serialize");
        ApiResponse {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body,
        }
    }

    pub fn empty(status: u16) -> Self {
        ApiResponse { status, headers: Vec::new(), body: Vec::new() }
    }

    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_ascii_lowercase(), value.into()));
        self
    }
}

/// Unit tests read the headers a response was given; the service itself only writes them.
#[cfg(any(test, feature = "testing"))]
impl ApiResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        header_in(&self.headers, name)
    }
}

/// The first value of the header `name` (any case) in a request's or response's list.
fn header_in<'h>(headers: &'h [(String, String)], name: &str) -> Option<&'h str> {
    headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

/// An error as the response its variant stands for: status, body shape, and the
/// headers some variants carry (`Allow`, `Retry-After`, `Content-Range`).
impl ApiError {
    pub fn into_response(self) -> ApiResponse {
        match &self {
            ApiError::Internal(error) => eprintln!("internal error: {error:#}"),
            ApiError::UnreadableBody(reason) => eprintln!("request refused: the client's body could not be read: {reason}"),
            _ => {}
        }
        let mut response = ApiResponse::json(self.status(), &self.body());
        match &self {
            ApiError::MethodNotAllowed { allow } => {
                response = response.with_header("allow", allow.join(", "));
            }
            ApiError::RateLimited { retry_after } | ApiError::StorageUnavailable { retry_after } => {
                response = response.with_header("retry-after", retry_after.to_string());
            }
            ApiError::RangeNotSatisfiable { size } => {
                response = response.with_header("content-range", format!("bytes */{size}"));
            }
            _ => {}
        }
        response
    }
}

/// The same answer in tenant creation's flat shape `{error, message}` (status and
/// headers kept): every error of a partner route looks like the contract's table says.
pub fn flat(response: ApiResponse) -> ApiResponse {
    let Ok(body) = serde_json::from_slice::<Value>(&response.body) else { return response };
    let text = |v: &Value| v.as_str().map(str::to_string);
    let (code, message) = if let Some(detail) = body.get("detail") {
        match detail {
            Value::Array(items) => (
                "invalid_request".to_string(),
                items.iter().filter_map(|i| text(&i["msg"])).collect::<Vec<_>>().join("; "),
            ),
            other => (text(&other["error"]).unwrap_or_default(), text(&other["message"]).unwrap_or_default()),
        }
    } else if body.get("error").is_some() {
        return response;
    } else {
        let code = match response.status {
            413 => "payload_too_large",
            _ => "invalid_request",
        };
        (code.to_string(), text(&body["message"]).unwrap_or_default())
    };
    ApiResponse { body: serde_json::to_vec(&json!({ "error": code, "message": message })).expect("JSON"), ..response }
}

/// Produces a response body piece by piece, so that a large body (a file
/// download) is never held in memory whole.
pub trait BodySource {
    /// The next piece of the body; `None` at its end.
    fn next_chunk(&mut self) -> ApiResult<Option<Vec<u8>>>;
}

/// What a streaming handler answers: a whole response, or a head (status and
/// headers, including `content-length`; its `body` is ignored) and a body source.
pub enum Reply {
    Full(ApiResponse),
    Streamed(ApiResponse, Box<dyn BodySource>),
}

impl From<ApiResponse> for Reply {
    fn from(response: ApiResponse) -> Self {
        Reply::Full(response)
    }
}

impl Reply {
    /// The whole response in memory (for hosts or paths that cannot stream).
    pub fn into_full(self) -> ApiResult<ApiResponse> {
        match self {
            Reply::Full(response) => Ok(response),
            Reply::Streamed(mut head, mut source) => {
                let mut body = Vec::new();
                while let Some(chunk) = source.next_chunk()? {
                    body.extend_from_slice(&chunk);
                }
                head.body = body;
                Ok(head)
            }
        }
    }
}

/// Values captured by `:name` segments of a route pattern.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct PathParams(Vec<(&'static str, String)>);

impl PathParams {
    pub fn get(&self, name: &str) -> &str {
        self.0
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
            .unwrap_or_default()
    }
}

pub struct Route<H> {
    pub method: Method,
    pub pattern: &'static str,
    /// A budget of its own, counted on top of the per-address limit.
    pub budget: Option<Budget>,
    pub handler: H,
}

/// A route's own budget: requests per fixed one-minute window, the Spin
/// variable `variable` says how many (unset: no budget), counted per `per`.
/// Counted in the request's one admission statement, like the per-address
/// limit (`Gatekeeper::admit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub variable: &'static str,
    pub per: Per,
}

/// What a route's budget is counted per.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Per {
    /// The client's address (`POST /v1/projects`).
    Address,
    /// The client's address and the `project_id` of the JSON body (session
    /// starts): the body is read before the request is counted.
    AddressAndProject,
    /// The session whose bearer token the request carries, whatever its
    /// address (a mobile interviewee changes address): keyed by the token's
    /// digest, so that only the token's holder spends the session's budget.
    /// A request without a token has no such budget (it is a 401 anyway).
    Session,
}

/// A component's routes. `H` is the handler type the component uses.
pub struct Router<H> {
    routes: Vec<Route<H>>,
}

impl<H> Default for Router<H> {
    fn default() -> Self {
        Router { routes: Vec::new() }
    }
}

/// One route of the API: a method and a path template in the OpenAPI
/// document's form (`/v1/projects/{project_id}`). Every route is declared once,
/// as an `Endpoint` of `pipeline::routes`, which the components' tables name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Endpoint {
    pub method: Method,
    pub path: &'static str,
}

impl Endpoint {
    pub const fn new(method: Method, path: &'static str) -> Endpoint {
        Endpoint { method, path }
    }
}

pub enum RouteMatch<'r, H> {
    Found(&'r Route<H>, PathParams),
    MethodNotAllowed(Vec<&'static str>),
    NotFound,
}

impl<H> Router<H> {
    pub fn new() -> Self {
        Router::default()
    }

    pub fn route(mut self, endpoint: Endpoint, handler: H) -> Self {
        self.routes.push(Route { method: endpoint.method, pattern: endpoint.path, budget: None, handler });
        self
    }

    /// Gives the route declared last a budget of its own, per client address.
    pub fn limited_by(self, variable: &'static str) -> Self {
        self.limited(variable, Per::Address)
    }

    /// Gives the route declared last a budget of its own, counted per `per`.
    pub fn limited(mut self, variable: &'static str, per: Per) -> Self {
        if let Some(route) = self.routes.last_mut() {
            route.budget = Some(Budget { variable, per });
        }
        self
    }

    pub fn routes(&self) -> impl Iterator<Item = &Route<H>> {
        self.routes.iter()
    }

    pub fn find(&self, method: Method, path: &str) -> RouteMatch<'_, H> {
        let mut allow = Vec::new();
        for route in &self.routes {
            if let Some(params) = match_pattern(route.pattern, path) {
                if route.method == method || (method == Method::Head && route.method == Method::Get) {
                    return RouteMatch::Found(route, params);
                }
                if !allow.contains(&route.method.as_str()) {
                    allow.push(route.method.as_str());
                }
            }
        }
        if allow.is_empty() {
            RouteMatch::NotFound
        } else {
            RouteMatch::MethodNotAllowed(allow)
        }
    }
}

/// Matches `/v1/projects/{project_id}/url` against a path (a trailing slash is ignored).
fn match_pattern(pattern: &'static str, path: &str) -> Option<PathParams> {
    let path = if path.len() > 1 { path.trim_end_matches('/') } else { path };
    let mut pattern_parts = pattern.split('/');
    let mut path_parts = path.split('/');
    let mut params = Vec::new();
    loop {
        match (pattern_parts.next(), path_parts.next()) {
            (None, None) => return Some(PathParams(params)),
            (Some(expected), Some(actual)) => {
                if let Some(name) = expected.strip_prefix('{').and_then(|name| name.strip_suffix('}')) {
                    if actual.is_empty() {
                        return None;
                    }
                    params.push((name, percent_decode_path(actual)));
                } else if expected != actual {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

/// Percent-decodes a path segment; unlike in a query, `+` is literal.
fn percent_decode_path(segment: &str) -> String {
    percent_encoding::percent_decode_str(segment).decode_utf8_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn router() -> Router<u8> {
        Router::new()
            .route(Endpoint::new(Method::Get, "/v1/projects"), 1)
            .route(Endpoint::new(Method::Post, "/v1/projects"), 2)
            .limited_by("project_create_rate_limit_per_minute")
            .route(Endpoint::new(Method::Get, "/v1/projects/{project_id}"), 3)
            .route(Endpoint::new(Method::Patch, "/v1/projects/{project_id}"), 4)
            .route(Endpoint::new(Method::Post, "/v1/projects/{project_id}/activate"), 5)
    }

    fn found(router: &Router<u8>, method: Method, path: &str) -> Option<(u8, PathParams)> {
        match router.find(method, path) {
            RouteMatch::Found(route, params) => Some((route.handler, params)),
            _ => None,
        }
    }

    #[test]
    fn matches_exact_and_parameterised_routes() {
        let router = router();
        assert_eq!(found(&router, Method::Get, "/v1/projects").unwrap().0, 1);
        assert_eq!(found(&router, Method::Post, "/v1/projects/").unwrap().0, 2);
        let (handler, params) = found(&router, Method::Post, "/v1/projects/abc/activate").unwrap();
        assert_eq!(handler, 5);
        assert_eq!(params.get("project_id"), "abc");
        assert!(found(&router, Method::Get, "/v1/projects//activate").is_none());
    }

    #[test]
    fn head_is_served_by_get() {
        assert_eq!(found(&router(), Method::Head, "/v1/projects").unwrap().0, 1);
    }

    #[test]
    fn wrong_method_lists_allowed_ones() {
        match router().find(Method::Delete, "/v1/projects/x") {
            RouteMatch::MethodNotAllowed(allow) => assert_eq!(allow, vec!["GET", "PATCH"]),
            _ => panic!("expected 405"),
        }
        assert!(matches!(router().find(Method::Get, "/v1/nothing"), RouteMatch::NotFound));
    }

    #[test]
    fn budgets_are_attached_to_the_last_route() {
        let router = router().limited("per_session_variable", Per::Session);
        let limits: Vec<_> = router.routes().map(|r| r.budget).collect();
        assert_eq!(limits[1], Some(Budget { variable: "project_create_rate_limit_per_minute", per: Per::Address }));
        assert_eq!(limits[4], Some(Budget { variable: "per_session_variable", per: Per::Session }));
        assert_eq!(limits.iter().filter(|l| l.is_some()).count(), 2);
    }

    #[test]
    fn path_params_are_percent_decoded() {
        let (_, params) = found(&router(), Method::Get, "/v1/projects/a%20b+c").unwrap();
        assert_eq!(params.get("project_id"), "a b+c");
    }

    #[test]
    fn query_strings_are_decoded() {
        assert_eq!(
            parse_query("environment=sandbox&external_metadata%5Bplan%5D=a+b&x"),
            vec![
                ("environment".into(), "sandbox".into()),
                ("external_metadata[plan]".into(), "a b".into()),
                ("x".into(), "".into()),
            ]
        );
        assert_eq!(parse_query("bad=%zz%4"), vec![("bad".into(), "%zz%4".into())]);
    }

    #[test]
    fn media_types_ignore_parameters_even_malformed_ones() {
        let essence = |value: &str| media_type(value).map(|media| media.essence_str().to_string());
        assert_eq!(essence("Multipart/Form-Data; boundary=x").as_deref(), Some("multipart/form-data"));
        assert_eq!(essence(" application/json ; charset").as_deref(), Some("application/json"));
        assert_eq!(essence("audio/webm; codecs=<script>").as_deref(), Some("audio/webm"));
        assert_eq!(essence("application"), None);
        assert_eq!(essence(""), None);
    }

    #[test]
    fn rate_limit_and_method_errors_carry_headers() {
        let response = ApiError::RateLimited { retry_after: 17 }.into_response();
        assert_eq!(response.status, 429);
        assert_eq!(response.header("retry-after"), Some("17"));
        let response = ApiError::StorageUnavailable { retry_after: 1 }.into_response();
        assert_eq!(response.status, 503);
        assert_eq!(response.header("retry-after"), Some("1"));
        let body: Value = serde_json::from_slice(&response.body).unwrap();
        assert_eq!(body["detail"]["error"], "storage_unavailable");
        let response = ApiError::MethodNotAllowed { allow: vec!["GET", "POST"] }.into_response();
        assert_eq!(response.status, 405);
        assert_eq!(response.header("allow"), Some("GET, POST"));
    }

    #[test]
    fn partner_routes_get_every_error_flat() {
        let flattened = |error: ApiError| {
            let response = flat(error.into_response());
            (response.status, serde_json::from_slice::<Value>(&response.body).unwrap())
        };
        assert_eq!(flattened(ApiError::RateLimited { retry_after: 3 }).1["error"], "rate_limited");
        let (status, body) = flattened(ApiError::UnreadableBody("bad chunk".into()));
        assert_eq!((status, body["error"].as_str()), (400, Some("unreadable_body")));
        let (status, body) = flattened(ApiError::PayloadTooLarge("big".into()));
        assert_eq!((status, body), (413, json!({"error": "payload_too_large", "message": "big"})));
        let flat_already = ApiError::TenantCreation { status: 409, code: "conflict", message: "taken".into() };
        assert_eq!(flattened(flat_already).1, json!({"error": "conflict", "message": "taken"}));
        let response = flat(ApiError::MethodNotAllowed { allow: vec!["POST"] }.into_response());
        assert_eq!(response.header("allow"), Some("POST"));
    }

    #[test]
    fn origin_comes_from_spin_full_url() {
        let request = ApiRequest {
            method: Method::Get,
            path: "/v1/x".into(),
            query: String::new(),
            headers: vec![("spin-full-url".into(), "http://127.0.0.1:3000/v1/x?y=1".into())],
            body: Vec::new(),
            client_ip: None,
            request_id: "r".into(),
        };
        assert_eq!(request.origin().as_deref(), Some("http://127.0.0.1:3000"));
    }
}
