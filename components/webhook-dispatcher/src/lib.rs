//! Webhook dispatcher: a cron-triggered component (`[[trigger.cron]]`, world
//! `fermyon:spin-cron/spin-cron@2.0.0`). Each run leases the due deliveries,
//! sends them all at once (each signed, with the configured timeout, redirects
//! never followed), and records every attempt. The rules (lease, signature,
//! retry schedule, target policy) live in `api_core::webhooks::dispatch`; this
//! crate is the transport.

use api_core::db::Db;
use api_core::time;
use api_core::webhooks::dispatch::{self, DispatchConfig, Job, Outcome, SignedRequest};
use std::time::Instant;
use wasi::http::outgoing_handler;
use wasi::http::types::{
    ErrorCode, Fields, FutureIncomingResponse, Method, OutgoingBody, OutgoingRequest, RequestOptions, Scheme,
};

wit_bindgen::generate!({
    world: "spin-cron",
    path: "../../wit/spin-cron.wit",
});

struct Dispatcher;

impl Guest for Dispatcher {
    fn handle_cron_event(_metadata: Metadata) -> Result<(), Error> {
        run().map_err(Error::Other)
    }
}

export!(Dispatcher);

/// One dispatcher run: claim, send concurrently, record.
fn run() -> Result<(), String> {
    let config = DispatchConfig::from_variables();
    if config.lease_ms <= config.timeout_ms {
        eprintln!(
            "webhook-dispatcher: webhook_lease_seconds should exceed webhook_timeout_seconds, \
             or a slow attempt can be sent twice by overlapping runs"
        );
    }
    let db = Db::open().map_err(|e| format!("opening the database: {e:?}"))?;
    // Idle interviews end first: their interview.finished events go out in this run.
    match api_core::sessions::end_idle(&db, time::now()) {
        Ok(0) => {}
        Ok(ended) => eprintln!("maintenance: ended {ended} idle interview(s)"),
        Err(error) => eprintln!("maintenance: ending idle interviews failed: {error:?}"),
    }
    let owner = uuid::Uuid::new_v4().to_string();
    let jobs = dispatch::claim(&db, &config, &owner, time::now()).map_err(|e| format!("claiming: {e:?}"))?;
    if jobs.is_empty() {
        return Ok(());
    }
    let outcomes = send_all(&jobs, &config);
    let mut problems = Vec::new();
    for (job, outcome) in jobs.iter().zip(outcomes) {
        if let Err(error) = dispatch::record(&db, &config, job, &owner, &outcome) {
            // Left leased: it is sent again once the lease expires.
            problems.push(format!("recording delivery {}: {error:?}", job.delivery_id));
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems.join("; "))
    }
}

/// A request in flight.
struct InFlight {
    index: usize,
    response: FutureIncomingResponse,
}

/// Sends every job's request at once and waits for all answers, each bounded
/// by the timeout; returns one outcome per job, in order.
fn send_all(jobs: &[Job], config: &DispatchConfig) -> Vec<Outcome> {
    let started_at = time::now();
    let started = Instant::now();
    let mut outcomes: Vec<Option<Outcome>> = vec![None; jobs.len()];
    let mut in_flight = Vec::new();
    let outcome = |status: Option<u16>, error: Option<String>, timestamp: Option<u64>| Outcome {
        status,
        error,
        started_at,
        duration_ms: started.elapsed().as_millis() as u64,
        timestamp,
    };

    for (index, job) in jobs.iter().enumerate() {
        match dispatch::prepare(job, config.policy, started_at) {
            Err(reason) => outcomes[index] = Some(outcome(None, Some(reason), None)),
            Ok(request) => match start(&request, config.timeout_ms) {
                Ok(response) => in_flight.push((InFlight { index, response }, request.timestamp)),
                Err(error) => outcomes[index] = Some(outcome(None, Some(error), Some(request.timestamp))),
            },
        }
    }

    // One deadline for the whole batch: every request started just now.
    let deadline = wasi::clocks::monotonic_clock::subscribe_duration(config.timeout_ms * 1_000_000);
    while !in_flight.is_empty() {
        let pollables: Vec<_> = in_flight.iter().map(|(f, _)| f.response.subscribe()).collect();
        let mut refs: Vec<&wasi::io::poll::Pollable> = pollables.iter().collect();
        refs.push(&deadline);
        let ready = wasi::io::poll::poll(&refs);
        if ready.contains(&(in_flight.len() as u32)) {
            break;
        }
        drop(refs);
        drop(pollables);
        let mut still = Vec::new();
        for (position, (flight, timestamp)) in in_flight.into_iter().enumerate() {
            if !ready.contains(&(position as u32)) {
                still.push((flight, timestamp));
                continue;
            }
            match flight.response.get() {
                None => still.push((flight, timestamp)),
                Some(Ok(Ok(response))) => {
                    let status = response.status();
                    outcomes[flight.index] = Some(outcome(Some(status), None, Some(timestamp)));
                    // The body is not read; dropping the response closes it.
                }
                Some(Ok(Err(code))) => {
                    outcomes[flight.index] = Some(outcome(None, Some(describe(&code)), Some(timestamp)))
                }
                Some(Err(())) => {
                    outcomes[flight.index] =
                        Some(outcome(None, Some("response already taken".into()), Some(timestamp)))
                }
            }
        }
        in_flight = still;
    }
    for (flight, timestamp) in in_flight {
        let seconds = config.timeout_ms as f64 / 1000.0;
        outcomes[flight.index] =
            Some(outcome(None, Some(format!("timeout: no answer within {seconds} s")), Some(timestamp)));
        // Dropping the future response cancels the request.
    }
    outcomes.into_iter().map(|o| o.expect("every job has an outcome")).collect()
}

/// Starts one request: headers, body, transport timeouts.
fn start(request: &SignedRequest, timeout_ms: u64) -> Result<FutureIncomingResponse, String> {
    let entries: Vec<(String, Vec<u8>)> =
        request.headers.iter().map(|(name, value)| (name.clone(), value.clone().into_bytes())).collect();
    let headers = Fields::from_list(&entries).map_err(|e| format!("invalid header: {e:?}"))?;
    let outgoing = OutgoingRequest::new(headers);
    let url = &request.url;
    let scheme = if url.scheme() == "https" { Scheme::Https } else { Scheme::Http };
    let authority = match url.port() {
        Some(port) => format!("{}:{port}", url.host_str().unwrap_or_default()),
        None => url.host_str().unwrap_or_default().to_string(),
    };
    let path_with_query = match url.query() {
        Some(query) => format!("{}?{query}", url.path()),
        None => url.path().to_string(),
    };
    let invalid = |what: &str| format!("invalid request {what}");
    outgoing.set_method(&Method::Post).map_err(|_| invalid("method"))?;
    outgoing.set_scheme(Some(&scheme)).map_err(|_| invalid("scheme"))?;
    outgoing.set_authority(Some(&authority)).map_err(|_| invalid("authority"))?;
    outgoing.set_path_with_query(Some(&path_with_query)).map_err(|_| invalid("path"))?;
    let body = outgoing.body().map_err(|_| invalid("body"))?;

    let options = RequestOptions::new();
    let nanos = timeout_ms * 1_000_000;
    // A host may not support every option; the overall deadline still applies.
    let _ = options.set_connect_timeout(Some(nanos));
    let _ = options.set_first_byte_timeout(Some(nanos));
    let _ = options.set_between_bytes_timeout(Some(nanos));

    let response = outgoing_handler::handle(outgoing, Some(options)).map_err(|code| describe(&code))?;
    write_body(body, &request.body)?;
    Ok(response)
}

fn write_body(body: OutgoingBody, bytes: &[u8]) -> Result<(), String> {
    {
        let stream = body.write().map_err(|_| "request body unavailable".to_string())?;
        let budget = stream.check_write().map_err(|e| format!("writing the request body: {e:?}"))?;
        if budget as usize >= bytes.len() && !bytes.is_empty() {
            stream.write(bytes).map_err(|e| format!("writing the request body: {e:?}"))?;
        } else {
            for chunk in bytes.chunks(4096) {
                stream.blocking_write_and_flush(chunk).map_err(|e| format!("writing the request body: {e:?}"))?;
            }
        }
    }
    OutgoingBody::finish(body, None).map_err(|code| describe(&code))
}

/// A short text for the delivery log.
fn describe(code: &ErrorCode) -> String {
    match code {
        ErrorCode::DnsTimeout | ErrorCode::ConnectionTimeout | ErrorCode::ConnectionReadTimeout => {
            format!("timeout: {code:?}")
        }
        ErrorCode::HttpResponseTimeout => "timeout: no answer in time".to_string(),
        ErrorCode::HttpRequestDenied => "request denied by the host's outbound policy".to_string(),
        other => format!("network error: {other:?}"),
    }
}
