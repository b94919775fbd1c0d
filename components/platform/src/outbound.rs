//! Outbound HTTP with a hard deadline, synchronously, on raw `wasi:http`.
//!
//! spin-sdk's `send` has no timeout. Here a request carries wasi:http
//! `request-options` (connect, first-byte and between-bytes timeouts, which both
//! Spin and wasmtime's default sender honour), and on top of that every wait -
//! writing the body, the response head, each body chunk - polls the I/O together
//! with a `wasi:clocks` monotonic-clock timer for the overall deadline. When the
//! deadline passes, the request's resources are dropped, which cancels it.
//!
//! Being synchronous, it can be called from the (synchronous) route handlers.

use std::time::Duration;
use wasi::clocks::monotonic_clock;
use wasi::http::outgoing_handler;
use wasi::http::types::{
    ErrorCode, Fields, FutureIncomingResponse, IncomingResponse, Method, OutgoingBody, OutgoingRequest, RequestOptions,
    Scheme,
};
use wasi::io::poll::{poll, Pollable};
use wasi::io::streams::{OutputStream, StreamError};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OutboundError {
    /// The URL cannot be requested (not absolute http(s), no host).
    InvalidUrl(String),
    /// The deadline passed.
    Timeout,
    /// No connection could be made (refused, no route, DNS, connect timeout):
    /// nothing of the request reached the server.
    Unreachable(String),
    /// The host refused or failed the request (denied destination, DNS, TLS, ...).
    Http(String),
    /// The response body is larger than allowed.
    TooLarge,
}

impl std::fmt::Display for OutboundError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OutboundError::InvalidUrl(reason) => write!(f, "invalid URL: {reason}"),
            OutboundError::Timeout => f.write_str("timeout: no answer in time"),
            OutboundError::Unreachable(reason) => write!(f, "unreachable: {reason}"),
            OutboundError::Http(reason) => write!(f, "HTTP error: {reason}"),
            OutboundError::TooLarge => f.write_str("response body too large"),
        }
    }
}

#[derive(Debug, Clone)]
pub struct HttpResponse {
    pub status: u16,
    pub body: Vec<u8>,
}

/// Where a URL goes: scheme, `host[:port]`, path with query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub https: bool,
    pub authority: String,
    pub path_with_query: String,
}

/// Splits an absolute http(s) URL into what wasi:http wants.
pub fn target(url: &str) -> Result<Target, OutboundError> {
    let parsed = url::Url::parse(url).map_err(|e| OutboundError::InvalidUrl(e.to_string()))?;
    let https = match parsed.scheme() {
        "https" => true,
        "http" => false,
        other => return Err(OutboundError::InvalidUrl(format!("scheme {other} is not http(s)"))),
    };
    let host = parsed.host_str().filter(|h| !h.is_empty()).ok_or_else(|| OutboundError::InvalidUrl("no host".into()))?;
    let authority = match parsed.port() {
        Some(port) => format!("{host}:{port}"),
        None => host.to_string(),
    };
    let mut path_with_query = parsed.path().to_string();
    if let Some(query) = parsed.query() {
        path_with_query.push('?');
        path_with_query.push_str(query);
    }
    Ok(Target { https, authority, path_with_query })
}

fn http_error(code: ErrorCode) -> OutboundError {
    match code {
        ErrorCode::ConnectionReadTimeout | ErrorCode::ConnectionWriteTimeout | ErrorCode::HttpResponseTimeout => {
            OutboundError::Timeout
        }
        ErrorCode::DnsTimeout
        | ErrorCode::DnsError(_)
        | ErrorCode::ConnectionTimeout
        | ErrorCode::ConnectionRefused
        | ErrorCode::DestinationNotFound
        | ErrorCode::DestinationUnavailable
        | ErrorCode::DestinationIpUnroutable => OutboundError::Unreachable(format!("{code:?}")),
        ErrorCode::HttpRequestDenied => OutboundError::Http("request denied by the host's outbound policy".into()),
        other => OutboundError::Http(format!("network error: {other:?}")),
    }
}

fn nanos_of(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

fn io_error(error: StreamError) -> OutboundError {
    match error {
        StreamError::LastOperationFailed(e) => OutboundError::Http(e.to_debug_string()),
        StreamError::Closed => OutboundError::Http("stream closed".into()),
    }
}

/// Blocks until `pollable` is ready or the deadline (monotonic nanoseconds) passes.
fn wait(pollable: &Pollable, deadline: u64) -> Result<(), OutboundError> {
    if pollable.ready() {
        return Ok(());
    }
    if monotonic_clock::now() >= deadline {
        return Err(OutboundError::Timeout);
    }
    let timer = monotonic_clock::subscribe_instant(deadline);
    let ready = poll(&[pollable, &timer]);
    if ready.contains(&0) {
        Ok(())
    } else {
        Err(OutboundError::Timeout)
    }
}

/// How far a request's body got.
#[derive(Debug, PartialEq, Eq)]
enum Written {
    Whole,
    /// The receiver closed the body's stream before every byte was handed
    /// over: it answered without reading the rest (a refusal such as 401 or
    /// 413 may come before the body is read). Its answer says how it went.
    CutShort,
}

fn write_all(stream: &OutputStream, mut bytes: &[u8], deadline: u64) -> Result<Written, OutboundError> {
    while !bytes.is_empty() {
        let permitted = match stream.check_write() {
            Ok(permitted) => permitted as usize,
            Err(StreamError::Closed) => return Ok(Written::CutShort),
            Err(error) => return Err(io_error(error)),
        };
        if permitted == 0 {
            wait(&stream.subscribe(), deadline)?;
            continue;
        }
        let n = permitted.min(bytes.len());
        match stream.write(&bytes[..n]) {
            Ok(()) => bytes = &bytes[n..],
            Err(StreamError::Closed) => return Ok(Written::CutShort),
            Err(error) => return Err(io_error(error)),
        }
    }
    // Every byte is handed over. A receiver that has read the whole body may
    // answer and close before this side finishes: the stream is then closed,
    // and the response (not this) says how the exchange went.
    let closed_is_done = |result: Result<(), StreamError>| match result {
        Ok(()) | Err(StreamError::Closed) => Ok(()),
        Err(error) => Err(io_error(error)),
    };
    closed_is_done(stream.flush())?;
    wait(&stream.subscribe(), deadline)?;
    closed_is_done(stream.check_write().map(drop))?;
    Ok(Written::Whole)
}

/// A request whose head and body are sent; its answer arrives later.
pub struct Started {
    response: FutureIncomingResponse,
    /// A body the receiver stopped reading, kept unfinished until its answer
    /// is in: finishing it would claim the whole body went out, and dropping
    /// it may cancel the exchange before the answer is read.
    _cut_short: Option<OutgoingBody>,
}

/// Sends `method url` with `headers` and `body`, within `timeout` for the whole
/// exchange; the answer is awaited by [`send`] or [`send_all`].
pub fn start(method: &str, url: &str, headers: &[(&str, &str)], body: &[u8], timeout: Duration) -> Result<Started, OutboundError> {
    start_within(method, url, headers, body, timeout, timeout)
}

/// [`start`] with a connection deadline of its own, shorter than the exchange's.
fn start_within(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    connect_timeout: Duration,
    timeout: Duration,
) -> Result<Started, OutboundError> {
    let target = target(url)?;
    let nanos = nanos_of(timeout);
    let deadline = monotonic_clock::now().saturating_add(nanos);

    // A known length rather than chunked transfer encoding: some model servers want it.
    let mut entries: Vec<(String, Vec<u8>)> =
        headers.iter().map(|(name, value)| (name.to_ascii_lowercase(), value.as_bytes().to_vec())).collect();
    let has_length = entries.iter().any(|(name, _)| name == "content-length");
    if !has_length && (!body.is_empty() || !method.eq_ignore_ascii_case("GET")) {
        entries.push(("content-length".into(), body.len().to_string().into_bytes()));
    }
    let fields = Fields::from_list(&entries).map_err(|e| OutboundError::Http(format!("header: {e:?}")))?;
    let request = OutgoingRequest::new(fields);
    let method = match method.to_ascii_uppercase().as_str() {
        "GET" => Method::Get,
        "POST" => Method::Post,
        "PUT" => Method::Put,
        "PATCH" => Method::Patch,
        "DELETE" => Method::Delete,
        other => Method::Other(other.to_string()),
    };
    let scheme = if target.https { Scheme::Https } else { Scheme::Http };
    let set = |ok: Result<(), ()>, what: &str| ok.map_err(|_| OutboundError::InvalidUrl(format!("cannot set {what}")));
    set(request.set_method(&method), "method")?;
    set(request.set_scheme(Some(&scheme)), "scheme")?;
    set(request.set_authority(Some(&target.authority)), "authority")?;
    set(request.set_path_with_query(Some(&target.path_with_query)), "path")?;
    let outgoing_body = request.body().map_err(|_| OutboundError::Http("request body taken".into()))?;

    // Per-phase timeouts for the host; a host that does not support one says so
    // with an error, and the deadline still holds.
    let options = RequestOptions::new();
    let _ = options.set_connect_timeout(Some(nanos_of(connect_timeout).min(nanos)));
    let _ = options.set_first_byte_timeout(Some(nanos));
    let _ = options.set_between_bytes_timeout(Some(nanos));

    let response = outgoing_handler::handle(request, Some(options)).map_err(http_error)?;
    let written = {
        let stream = outgoing_body.write().map_err(|_| OutboundError::Http("request body stream taken".into()))?;
        write_all(&stream, body, deadline)?
    };
    match written {
        Written::Whole => {
            OutgoingBody::finish(outgoing_body, None).map_err(http_error)?;
            Ok(Started { response, _cut_short: None })
        }
        Written::CutShort => Ok(Started { response, _cut_short: Some(outgoing_body) }),
    }
}

fn answer_of(started: &Started) -> Option<Result<IncomingResponse, OutboundError>> {
    match started.response.get()? {
        Ok(Ok(response)) => Some(Ok(response)),
        Ok(Err(code)) => Some(Err(http_error(code))),
        Err(()) => Some(Err(OutboundError::Http("response already taken".into()))),
    }
}

/// Sends `method url` with `headers` and `body`; the whole exchange, response body
/// included, must finish within `timeout`, and the body may not exceed `max_body` bytes.
pub fn send(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    timeout: Duration,
    max_body: usize,
) -> Result<HttpResponse, OutboundError> {
    send_within(method, url, headers, body, timeout, timeout, max_body)
}

/// [`send`] with a connection deadline of its own: a server that cannot be
/// reached is given up on sooner than one that is slow to answer.
pub fn send_within(
    method: &str,
    url: &str,
    headers: &[(&str, &str)],
    body: &[u8],
    connect_timeout: Duration,
    timeout: Duration,
    max_body: usize,
) -> Result<HttpResponse, OutboundError> {
    let deadline = monotonic_clock::now().saturating_add(nanos_of(timeout));
    let started = start_within(method, url, headers, body, connect_timeout, timeout)?;
    wait(&started.response.subscribe(), deadline)?;
    let response = answer_of(&started).unwrap_or_else(|| Err(OutboundError::Http("no response".into())))?;
    let status = response.status();
    let incoming_body = response.consume().map_err(|_| OutboundError::Http("response body taken".into()))?;
    let mut received = Vec::new();
    {
        let stream = incoming_body.stream().map_err(|_| OutboundError::Http("response stream taken".into()))?;
        loop {
            match stream.read(64 * 1024) {
                Ok(chunk) if chunk.is_empty() => wait(&stream.subscribe(), deadline)?,
                Ok(chunk) => {
                    if received.len() + chunk.len() > max_body {
                        return Err(OutboundError::TooLarge);
                    }
                    received.extend_from_slice(&chunk);
                }
                Err(StreamError::Closed) => break,
                Err(error) => return Err(io_error(error)),
            }
        }
    }
    drop(incoming_body);
    Ok(HttpResponse { status, body: received })
}

/// Waits for the answers of requests started together, all bounded by one
/// `timeout` from now: the status of each, in order (bodies are not read;
/// dropping an unanswered request cancels it).
pub fn statuses(started: Vec<Result<Started, OutboundError>>, timeout: Duration) -> Vec<Result<u16, OutboundError>> {
    let deadline = monotonic_clock::subscribe_duration(nanos_of(timeout));
    let mut outcomes: Vec<Option<Result<u16, OutboundError>>> = Vec::with_capacity(started.len());
    let mut in_flight = Vec::new();
    for (index, request) in started.into_iter().enumerate() {
        match request {
            Ok(request) => {
                outcomes.push(None);
                in_flight.push((index, request));
            }
            Err(error) => outcomes.push(Some(Err(error))),
        }
    }
    while !in_flight.is_empty() {
        let pollables: Vec<Pollable> = in_flight.iter().map(|(_, r)| r.response.subscribe()).collect();
        let mut waiting: Vec<&Pollable> = pollables.iter().collect();
        waiting.push(&deadline);
        let ready = poll(&waiting);
        let timed_out = ready.contains(&(in_flight.len() as u32));
        drop(waiting);
        drop(pollables);
        if timed_out {
            break;
        }
        let mut still = Vec::new();
        for (index, request) in in_flight {
            match answer_of(&request) {
                None => still.push((index, request)),
                Some(answer) => outcomes[index] = Some(answer.map(|response| response.status())),
            }
        }
        in_flight = still;
    }
    outcomes.into_iter().map(|o| o.unwrap_or(Err(OutboundError::Timeout))).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_wasi_http_parts() {
        assert_eq!(
            target("http://127.0.0.1:8080/v1/chat/completions?x=1").unwrap(),
            Target { https: false, authority: "127.0.0.1:8080".into(), path_with_query: "/v1/chat/completions?x=1".into() }
        );
        assert_eq!(
            target("https://api.example.com/v1").unwrap(),
            Target { https: true, authority: "api.example.com".into(), path_with_query: "/v1".into() }
        );
        assert_eq!(target("http://[::1]:9/").unwrap().authority, "[::1]:9");
        assert!(matches!(target("ftp://x/"), Err(OutboundError::InvalidUrl(_))));
        assert!(matches!(target("not a url"), Err(OutboundError::InvalidUrl(_))));
    }
}
