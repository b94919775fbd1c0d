//! The HTTP trigger: a hyper 1 server that routes each request to a fresh
//! instance of a component, the way Spin's `trigger-http` does (same
//! `spin-*` headers, 404 with an empty body when no route matches, 500 with an
//! empty body when the component fails, `/.well-known/spin/health`).
//! Bodies stream in both directions; nothing is buffered whole.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context as _, Result};
use bytes::Bytes;
use http::{HeaderName, HeaderValue, Request, Response, StatusCode, Uri};
use http_body_util::{BodyExt, Empty, Full};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio::sync::{oneshot, watch};
use wasmtime_wasi_http::p2::bindings::http::types::Scheme;
use wasmtime_wasi_http::p2::body::HyperOutgoingBody;
use wasmtime_wasi_http::WasiHttpView;

use crate::routes::{RouteMatch, Router};
use crate::state::{new_store, AppState, LoadedComponent};

/// How long shutdown waits for in-flight requests.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// Everything a request needs; shared by all connections.
pub struct App {
    pub router: Router,
    pub components: HashMap<String, LoadedComponent>,
    pub state: Arc<AppState>,
    pub app_name: String,
    pub app_version: String,
}

fn empty_body() -> HyperOutgoingBody {
    Empty::<Bytes>::new()
        .map_err(|e: Infallible| match e {})
        .boxed_unsync()
}

fn full_body(b: impl Into<Bytes>) -> HyperOutgoingBody {
    Full::new(b.into())
        .map_err(|e: Infallible| match e {})
        .boxed_unsync()
}

fn status_response(status: StatusCode, body: HyperOutgoingBody) -> Response<HyperOutgoingBody> {
    let mut resp = Response::new(body);
    *resp.status_mut() = status;
    resp
}

/// Accepts connections until `shutdown` flips to true, then lets in-flight
/// requests finish (up to `SHUTDOWN_GRACE`).
pub async fn serve(app: Arc<App>, listener: TcpListener, mut shutdown: watch::Receiver<bool>) {
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    loop {
        let (stream, client_addr) = tokio::select! {
            r = listener.accept() => match r {
                Ok(c) => c,
                Err(e) => {
                    // E.g. too many open files: keep serving the others.
                    eprintln!("spin-host: accept failed: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            _ = shutdown.wait_for(|stop| *stop) => break,
        };
        // No TCP_NODELAY: Spin 4.0.2 leaves Nagle's algorithm on (its trace
        // has no setsockopt), so a response written in two pieces can wait
        // for the client's delayed ACK, as it does under Spin.
        let app = app.clone();
        let service = hyper::service::service_fn(move |req| {
            let app = app.clone();
            async move { Ok::<_, Infallible>(handle(app, req, client_addr).await) }
        });
        // No timer, so no client timeouts: Spin 4.0.2 waits as long as a client
        // takes to send its headers or its body (bound slow clients in front of
        // it, see docs/deploy.md).
        let conn = hyper::server::conn::http1::Builder::new()
            .keep_alive(true)
            .serve_connection(TokioIo::new(stream), service);
        let conn = graceful.watch(conn);
        tokio::spawn(async move {
            if let Err(e) = conn.await {
                if !e.is_incomplete_message() {
                    eprintln!("spin-host: error serving connection from {client_addr}: {e}");
                }
            }
        });
    }
    drop(listener);
    if tokio::time::timeout(SHUTDOWN_GRACE, graceful.shutdown())
        .await
        .is_err()
    {
        eprintln!("spin-host: gave up waiting for in-flight requests");
    }
}

/// Handles one request and logs `METHOD /path STATUS Nms` to stderr.
async fn handle(
    app: Arc<App>,
    req: Request<Incoming>,
    client_addr: SocketAddr,
) -> Response<HyperOutgoingBody> {
    let start = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    let resp = match route(&app, req, client_addr).await {
        Ok(resp) => resp,
        Err(e) => {
            eprintln!("Error processing request {method} {path}: {e:#}");
            status_response(StatusCode::INTERNAL_SERVER_ERROR, empty_body())
        }
    };
    eprintln!(
        "{method} {path} {} {}ms",
        resp.status().as_u16(),
        start.elapsed().as_millis()
    );
    resp
}

async fn route(
    app: &Arc<App>,
    req: Request<Incoming>,
    client_addr: SocketAddr,
) -> Result<Response<HyperOutgoingBody>> {
    let path = req.uri().path().to_string();
    if let Some(well_known) = path.strip_prefix("/.well-known/spin/") {
        return Ok(match well_known {
            "health" => Response::new(full_body("OK")),
            "info" => {
                let info = format!(
                    "{{\n  \"app\": {{\n    \"name\": {:?},\n    \"version\": {:?}\n  }}\n}}",
                    app.app_name, app.app_version
                );
                let mut resp = Response::new(full_body(info));
                resp.headers_mut().insert(
                    http::header::CONTENT_TYPE,
                    HeaderValue::from_static("application/json"),
                );
                resp
            }
            _ => status_response(StatusCode::NOT_FOUND, empty_body()),
        });
    }
    let Some(m) = app.router.route(&path) else {
        return Ok(status_response(StatusCode::NOT_FOUND, empty_body()));
    };
    let component = app
        .components
        .get(&m.component)
        .with_context(|| format!("unknown component {:?}", m.component))?;
    let req = prepare_request(req, &m, client_addr)?;
    execute(app, component, req).await
}

/// Gives the request an absolute URI (`http://<Host>/path?query`) and Spin's
/// headers; every original header is kept.
fn prepare_request(
    req: Request<Incoming>,
    m: &RouteMatch,
    client_addr: SocketAddr,
) -> Result<Request<Incoming>> {
    let (mut parts, body) = req.into_parts();
    let host_header = parts
        .headers
        .get(http::header::HOST)
        .map(|h| -> Result<http::uri::Authority> {
            h.to_str()
                .context("'Host' header is not valid UTF-8")?
                .parse()
                .context("'Host' header contains an invalid authority")
        })
        .transpose()?;
    let authority = match (host_header, parts.uri.authority().cloned()) {
        (None, None) => bail!("no 'Host' header present in request"),
        (Some(a), None) | (None, Some(a)) => a,
        (Some(a1), Some(a2)) => {
            if a1 != a2 {
                bail!("authority in 'Host' header does not match authority in URI");
            }
            a1
        }
    };
    let mut uri_parts = parts.uri.clone().into_parts();
    uri_parts.scheme = Some(http::uri::Scheme::HTTP);
    uri_parts.authority = Some(authority.clone());
    if uri_parts.path_and_query.is_none() {
        uri_parts.path_and_query = Some(http::uri::PathAndQuery::from_static("/"));
    }
    parts.uri = Uri::from_parts(uri_parts)?;

    let path_and_query = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/");
    let host = parts
        .headers
        .get(http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost")
        .to_string();
    let mut spin_headers = vec![
        ("spin-path-info".to_string(), m.path_info.clone()),
        (
            "spin-full-url".to_string(),
            format!("http://{host}{path_and_query}"),
        ),
        ("spin-matched-route".to_string(), m.matched_route.clone()),
        ("spin-base-path".to_string(), "/".to_string()),
        (
            "spin-raw-component-route".to_string(),
            m.raw_component_route.clone(),
        ),
        (
            "spin-component-route".to_string(),
            m.component_route.clone(),
        ),
        ("spin-client-addr".to_string(), client_addr.to_string()),
    ];
    for (name, value) in &m.params {
        spin_headers.push((
            format!("spin-path-match-{}", name.to_ascii_lowercase()),
            value.clone(),
        ));
    }
    for (name, value) in spin_headers {
        // Like Spin, a value that is not a valid header is skipped.
        if let (Ok(n), Ok(v)) = (name.parse::<HeaderName>(), HeaderValue::from_str(&value)) {
            parts.headers.insert(n, v);
        }
    }
    Ok(Request::from_parts(parts, body))
}

/// Runs the component's `wasi:http/incoming-handler` in a fresh instance.
async fn execute(
    app: &Arc<App>,
    component: &LoadedComponent,
    req: Request<Incoming>,
) -> Result<Response<HyperOutgoingBody>> {
    let pre = component
        .http
        .clone()
        .ok_or_else(|| anyhow!("component {:?} is not an HTTP component", component.info.id))?;
    let mut store = new_store(&component.info, &app.state)?;
    let req = store
        .data_mut()
        .http()
        .new_incoming_request(Scheme::Http, req)?;
    let (tx, rx) = oneshot::channel();
    let out = store.data_mut().http().new_response_outparam(tx)?;
    let id = component.info.id.clone();

    let task = tokio::spawn(async move {
        let proxy = pre.instantiate_async(&mut store).await?;
        proxy
            .wasi_http_incoming_handler()
            .call_handle(&mut store, req, out)
            .await
    });

    match rx.await {
        Ok(result) => {
            // As Spin 4 (trigger-http's `wasi.rs`): the guest runs to its end
            // whatever becomes of the response (sent, or its client gone);
            // a late failure is reported (the response may then be cut short).
            tokio::spawn(async move {
                match task.await {
                    Err(e) => eprintln!("Component {id} panicked after response started: {e}"),
                    Ok(Err(e)) => eprintln!("Component {id} failed after response started: {e:?}"),
                    Ok(Ok(())) => {}
                }
            });
            result.map_err(|code| anyhow!("guest failed to produce a response: {code:?}"))
        }
        Err(_) => {
            task.await
                .context("guest invocation panicked")?
                .map_err(anyhow::Error::from)
                .context("guest invocation failed")?;
            bail!("guest failed to produce a response prior to returning")
        }
    }
}
