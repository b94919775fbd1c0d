//! Webhooks end to end: secrets, double opt-in, the target policy, and real
//! deliveries by the cron-triggered dispatcher to a local receiver.
//!
//! The receiver is a small HTTP server on 127.0.0.1 that records every request
//! and answers by a script (status codes, redirects, or hanging past the
//! timeout). Hosts that deliver to it run with `webhook_allow_insecure_targets=true`.

use base64::Engine as _;
use e2e::*;
use hmac::{Hmac, Mac};
use serde_json::{json, Value};
use sha2::Sha256;
use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

const DISPATCHER: &str = "maintenance";

// ---------------------------------------------------------------------------
// A scripted receiver

#[derive(Debug, Clone)]
enum Answer {
    Status(u16),
    Redirect(String),
    /// Keeps the connection open without answering, then closes it.
    Hang(Duration),
}

#[derive(Debug, Clone)]
struct Received {
    method: String,
    path: String,
    headers: HashMap<String, String>,
    body: String,
}

impl Received {
    fn header(&self, name: &str) -> &str {
        self.headers.get(name).map(String::as_str).unwrap_or_else(|| panic!("no {name} header in {:?}", self.headers))
    }
}

#[derive(Default)]
struct ReceiverState {
    requests: Vec<Received>,
    script: VecDeque<Answer>,
}

struct Receiver {
    addr: SocketAddr,
    state: Arc<(Mutex<ReceiverState>, Condvar)>,
}

impl Receiver {
    /// Answers per `script`, then 200 for everything else.
    fn start(script: Vec<Answer>) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new((
            Mutex::new(ReceiverState { requests: Vec::new(), script: script.into() }),
            Condvar::new(),
        ));
        let accept_state = state.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = accept_state.clone();
                thread::spawn(move || serve_one(stream, state));
            }
        });
        Receiver { addr, state }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn requests(&self) -> Vec<Received> {
        self.state.0.lock().unwrap().requests.clone()
    }

    /// Waits until at least `count` requests arrived.
    fn wait_for(&self, count: usize, timeout: Duration) -> Vec<Received> {
        let (lock, arrived) = &*self.state;
        let deadline = Instant::now() + timeout;
        let mut state = lock.lock().unwrap();
        while state.requests.len() < count {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "expected {count} requests, got {}", state.requests.len());
            state = arrived.wait_timeout(state, left).unwrap().0;
        }
        state.requests.clone()
    }
}

fn serve_one(stream: TcpStream, state: Arc<(Mutex<ReceiverState>, Condvar)>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = request_line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = HashMap::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = line.split_once(':') {
            headers.insert(name.trim().to_ascii_lowercase(), value.trim().to_string());
        }
    }
    let mut body = Vec::new();
    if let Some(length) = headers.get("content-length").and_then(|l| l.parse::<usize>().ok()) {
        body.resize(length, 0);
        reader.read_exact(&mut body).unwrap();
    } else if headers.get("transfer-encoding").is_some_and(|t| t.contains("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).unwrap();
            let size = usize::from_str_radix(size.trim(), 16).unwrap();
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).unwrap();
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    }
    let received = Received { method, path, headers, body: String::from_utf8(body).unwrap() };
    let answer = {
        let (lock, arrived) = &*state;
        let mut state = lock.lock().unwrap();
        state.requests.push(received);
        arrived.notify_all();
        state.script.pop_front().unwrap_or(Answer::Status(200))
    };
    let mut stream = stream;
    let head = match answer {
        Answer::Hang(duration) => {
            thread::sleep(duration);
            return;
        }
        Answer::Status(status) => format!("HTTP/1.1 {status} Scripted\r\n"),
        Answer::Redirect(location) => format!("HTTP/1.1 302 Found\r\nLocation: {location}\r\n"),
    };
    let _ = stream.write_all(format!("{head}Content-Length: 2\r\nConnection: close\r\n\r\nok").as_bytes());
}

// ---------------------------------------------------------------------------
// API helpers

fn insecure_app(extra: &[(&str, &str)]) -> TestApp {
    let mut variables = vec![("webhook_allow_insecure_targets", "true")];
    variables.extend_from_slice(extra);
    TestApp::start(&variables)
}

fn post_json(app: &TestApp, tenant: &TenantCredentials, path: &str, body: &Value) -> reqwest::blocking::Response {
    app.post(path).auth(tenant).json(body).send().unwrap()
}

fn get_json(app: &TestApp, tenant: &TenantCredentials, path: &str) -> (StatusCode, Value) {
    json_of(app.get(path).auth(tenant).send().unwrap())
}

fn create_secret(app: &TestApp, tenant: &TenantCredentials) -> String {
    let (status, body) = json_of(post_json(app, tenant, "/v1/webhooks/secrets", &json!({"workspace_id": tenant.tenant_id})));
    assert_eq!(status, 201, "{body}");
    body["secret"].as_str().unwrap().to_string()
}

/// Subscribes; returns (subscription id, hook secret).
fn subscribe(app: &TestApp, tenant: &TenantCredentials, event_type: &str, target_url: &str) -> (String, String) {
    let response = post_json(
        app,
        tenant,
        "/v1/webhooks/subscriptions",
        &json!({"workspace_id": tenant.tenant_id, "event_type": event_type, "target_url": target_url}),
    );
    let header = response.headers().get("x-hook-secret").map(|v| v.to_str().unwrap().to_string());
    let (status, body) = json_of(response);
    assert_eq!(status, 201, "{body}");
    assert_eq!(header.as_deref(), body["x_hook_secret"].as_str(), "header and body carry the same secret");
    (body["id"].as_str().unwrap().to_string(), header.unwrap())
}

fn confirm(app: &TestApp, tenant: &TenantCredentials, id: &str, secret: &str) -> (StatusCode, Value) {
    json_of(post_json(app, tenant, &format!("/v1/webhooks/subscriptions/{id}"), &json!({"secret": secret})))
}

/// A tenant with a secret and a confirmed subscription to `project.published` at `target_url`.
fn subscribed_tenant(app: &TestApp, target_url: &str) -> (TenantCredentials, String, String) {
    let tenant = app.create_tenant();
    let secret = create_secret(app, &tenant);
    let (id, hook_secret) = subscribe(app, &tenant, "project.published", target_url);
    let (status, body) = confirm(app, &tenant, &id, &hook_secret);
    assert_eq!(status, 200, "{body}");
    (tenant, secret, id)
}

/// Creates a project and publishes it (raising `project.published`); returns its id.
fn publish_project(app: &TestApp, tenant: &TenantCredentials) -> String {
    let (status, body) = json_of(post_json(
        app,
        tenant,
        "/v1/projects",
        &json!({
            "project_name": "Checkout study",
            "project_objective": "Understand why shoppers abandon the checkout on mobile devices",
            "research_questions": "What makes shoppers hesitate at the payment step? Which fees surprise them?",
            "success_criteria": "Identify the three most frequent reasons for abandoning the checkout",
            "recruiting_criteria": "Adults in Germany who bought something online in the last month",
        }),
    ));
    assert_eq!(status, 201, "{body}");
    let project_id = body["project_id"].as_str().unwrap().to_string();
    let (status, body) = json_of(app.post(&format!("/v1/projects/{project_id}/activate")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    project_id
}

fn dispatch(app: &TestApp) {
    app.host.run_cron(DISPATCHER).expect("the dispatcher runs");
}

fn deliveries(app: &TestApp, tenant: &TenantCredentials, query: &str) -> Vec<Value> {
    let (status, body) = get_json(app, tenant, &format!("/v1/webhooks/deliveries{query}"));
    assert_eq!(status, 200, "{body}");
    body.as_array().unwrap().clone()
}

fn subscription_status(app: &TestApp, tenant: &TenantCredentials, id: &str) -> String {
    let (status, list) = get_json(app, tenant, "/v1/webhooks/subscriptions");
    assert_eq!(status, 200);
    let found = list.as_array().unwrap().iter().find(|s| s["id"] == id).unwrap_or_else(|| panic!("{id} not in {list}"));
    found["status"].as_str().unwrap().to_string()
}

fn signature(secret: &str, timestamp: &str, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(timestamp.as_bytes());
    mac.update(body.as_bytes());
    base64::engine::general_purpose::STANDARD.encode(mac.finalize().into_bytes())
}

fn unix_now() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs()
}

// ---------------------------------------------------------------------------
// Tests

#[test]
fn opt_in_then_signed_delivery_of_project_published() {
    let app = insecure_app(&[]);
    let receiver = Receiver::start(vec![]);
    let tenant = app.create_tenant();

    // Subscribing needs a secret first.
    let early = post_json(
        &app,
        &tenant,
        "/v1/webhooks/subscriptions",
        &json!({"workspace_id": tenant.tenant_id, "event_type": "project.published", "target_url": receiver.url("/hook")}),
    );
    let (status, body) = json_of(early);
    assert_eq!(status, 409, "{body}");
    assert_detail_error(&body, "no_active_secret");

    let secret = create_secret(&app, &tenant);
    assert!(secret.starts_with("whsec_") && secret.len() > 40, "{secret}");
    let (status, body) = json_of(post_json(&app, &tenant, "/v1/webhooks/secrets", &json!({"workspace_id": tenant.tenant_id})));
    assert_eq!(status, 409, "one active secret per workspace: {body}");
    assert_detail_error(&body, "secret_exists");

    let response = post_json(
        &app,
        &tenant,
        "/v1/webhooks/subscriptions",
        &json!({"workspace_id": tenant.tenant_id, "event_type": "project.published", "target_url": receiver.url("/hook")}),
    );
    let hook_secret = response.headers()["x-hook-secret"].to_str().unwrap().to_string();
    let (status, created) = json_of(response);
    assert_eq!(status, 201, "{created}");
    let keys: Vec<&str> = created.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys.len(), 5, "id, workspace_id, event_type, target_url, x_hook_secret: {created}");
    assert_eq!(created["workspace_id"], tenant.tenant_id.as_str());
    assert_eq!(created["event_type"], "project.published");
    assert_eq!(created["target_url"], receiver.url("/hook"));
    assert_eq!(created["x_hook_secret"], hook_secret.as_str());
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(subscription_status(&app, &tenant, &id), "pending");

    // Nothing is sent while the subscription is pending, not even later.
    let before_confirmation = publish_project(&app, &tenant);
    dispatch(&app);
    assert!(receiver.requests().is_empty());
    assert!(deliveries(&app, &tenant, "").is_empty());

    let (status, body) = confirm(&app, &tenant, &id, "hook_not-the-secret");
    assert_eq!(status, 400, "{body}");
    assert_detail_error(&body, "invalid_secret");
    let (status, body) = confirm(&app, &tenant, &id, &hook_secret);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({"id": id, "status": "confirmed"}));
    let (status, body) = confirm(&app, &tenant, &id, &hook_secret);
    assert_eq!(status, 409, "the hook secret works once: {body}");
    assert_detail_error(&body, "secret_used");
    let (status, list) = get_json(&app, &tenant, "/v1/webhooks/subscriptions");
    assert_eq!(status, 200);
    assert_eq!(
        list,
        json!([{"id": id, "workspace_id": tenant.tenant_id, "event_type": "project.published",
                "target_url": receiver.url("/hook"), "status": "confirmed"}])
    );

    let project_id = publish_project(&app, &tenant);
    dispatch(&app);
    let requests = receiver.wait_for(1, Duration::from_secs(5));
    let request = &requests[0];
    assert_eq!(request.method, "POST");
    assert_eq!(request.path, "/hook");
    assert_eq!(request.header("content-type"), "application/json");
    let event_id = request.header("x-event-id");
    assert_eq!(uuid::Uuid::parse_str(event_id).unwrap().get_version_num(), 4, "{event_id}");
    let timestamp = request.header("x-service-request-timestamp");
    assert_eq!(request.header("x-timestamp"), timestamp);
    let sent_at: u64 = timestamp.parse().unwrap();
    assert!(unix_now().abs_diff(sent_at) <= 60, "UNIX seconds of sending: {sent_at}");
    assert_eq!(request.header("x-service-request-signature"), signature(&secret, timestamp, &request.body));
    let payload: Value = serde_json::from_str(&request.body).unwrap();
    assert_eq!(payload["project_id"], project_id.as_str(), "{payload}");
    assert_ne!(payload["project_id"], before_confirmation.as_str());
    assert_eq!(payload["event_type"], "project.published");
    assert!(payload["published_at"].as_str().is_some_and(|t| t.ends_with('Z')), "{payload}");

    // Delivered once: later runs send nothing more (and never the pre-confirmation event).
    dispatch(&app);
    thread::sleep(Duration::from_millis(300));
    assert_eq!(receiver.requests().len(), 1);

    let log = deliveries(&app, &tenant, "");
    assert_eq!(log.len(), 1, "{log:?}");
    let delivery = &log[0];
    assert_eq!(delivery["status"], "delivered");
    assert_eq!(delivery["event_id"], event_id);
    assert_eq!(delivery["subscription_id"], id.as_str());
    assert_eq!(delivery["event_type"], "project.published");
    assert_eq!(delivery["attempt_count"], 1);
    let attempts = delivery["attempts"].as_array().unwrap();
    assert_eq!(attempts.len(), 1);
    assert_eq!(attempts[0]["status_code"], 200);
    assert_eq!(attempts[0]["success"], true);
    assert_eq!(attempts[0]["error"], Value::Null);
}

#[test]
fn retries_keep_the_event_id_then_fail_and_redeliver_from_the_log() {
    // Retries due within a second; a 2 s answer deadline.
    let app = insecure_app(&[("webhook_retry_base_seconds", "1,1"), ("webhook_timeout_seconds", "2")]);
    let receiver = Receiver::start(vec![
        Answer::Status(500),
        Answer::Hang(Duration::from_secs(10)),
        Answer::Redirect("/redirected".into()),
    ]);
    let (tenant, secret, subscription_id) = subscribed_tenant(&app, &receiver.url("/hook"));
    publish_project(&app, &tenant);

    dispatch(&app);
    receiver.wait_for(1, Duration::from_secs(5));
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log[0]["status"], "pending", "{log:?}");
    assert_eq!(log[0]["attempt_count"], 1);
    assert_eq!(log[0]["last_status_code"], 500);
    assert!(log[0]["next_attempt_at"].as_str().is_some());

    // The retry waits at most the first base (1 s here); then the receiver hangs.
    thread::sleep(Duration::from_millis(1100));
    let started = Instant::now();
    dispatch(&app);
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(1900) && waited < Duration::from_secs(8), "timed out after {waited:?}");
    receiver.wait_for(2, Duration::from_secs(1));
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log[0]["status"], "pending");
    assert_eq!(log[0]["attempt_count"], 2);
    let timeout_attempt = &log[0]["attempts"][1];
    assert_eq!(timeout_attempt["status_code"], Value::Null, "{timeout_attempt}");
    assert!(timeout_attempt["error"].as_str().unwrap().contains("timeout"), "{timeout_attempt}");

    // Second retry: a redirect, which is a failed attempt and is not followed.
    thread::sleep(Duration::from_millis(1100));
    dispatch(&app);
    let requests = receiver.wait_for(3, Duration::from_secs(5));
    thread::sleep(Duration::from_millis(300));
    assert_eq!(receiver.requests().len(), 3, "the redirect is not followed");
    let event_ids: Vec<&str> = requests.iter().map(|r| r.header("x-event-id")).collect();
    assert!(event_ids.iter().all(|id| *id == event_ids[0]), "same X-Event-ID on every retry: {event_ids:?}");
    for request in &requests {
        let timestamp = request.header("x-service-request-timestamp");
        assert_eq!(request.header("x-service-request-signature"), signature(&secret, timestamp, &request.body));
    }

    let log = deliveries(&app, &tenant, "?status=failed");
    assert_eq!(log.len(), 1, "two retries, then failed: {log:?}");
    let delivery = &log[0];
    assert_eq!(delivery["attempt_count"], 3);
    assert_eq!(delivery["next_attempt_at"], Value::Null);
    let codes: Vec<&Value> = delivery["attempts"].as_array().unwrap().iter().map(|a| &a["status_code"]).collect();
    assert_eq!(codes, [&json!(500), &Value::Null, &json!(302)]);
    assert!(delivery["attempts"].as_array().unwrap().iter().all(|a| a["success"] == false && a["error"].is_string()));
    assert_eq!(subscription_status(&app, &tenant, &subscription_id), "failing");
    assert!(deliveries(&app, &tenant, "?status=delivered").is_empty());
    assert_eq!(deliveries(&app, &tenant, &format!("?subscription_id={subscription_id}")).len(), 1);
    assert!(deliveries(&app, &tenant, &format!("?subscription_id={}", uuid::Uuid::new_v4())).is_empty());
    let (status, body) = get_json(&app, &tenant, "/v1/webhooks/deliveries?status=lost&subscription_id=nope");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"].as_array().unwrap().len(), 2, "{body}");

    // No retry is left: further runs send nothing.
    thread::sleep(Duration::from_millis(1100));
    dispatch(&app);
    assert_eq!(receiver.requests().len(), 3);

    // Redelivery from the log: queued now, same event id, and the receiver is fine again.
    let delivery_id = delivery["id"].as_str().unwrap();
    let (status, body) = json_of(app.post(&format!("/v1/webhooks/deliveries/{delivery_id}/redeliver")).auth(&tenant).send().unwrap());
    assert_eq!(status, 202, "{body}");
    assert_eq!(body["status"], "pending");
    assert_eq!(body["id"], delivery_id);
    dispatch(&app);
    let requests = receiver.wait_for(4, Duration::from_secs(5));
    assert_eq!(requests[3].header("x-event-id"), event_ids[0]);
    let (status, delivery) = get_json(&app, &tenant, &format!("/v1/webhooks/deliveries/{delivery_id}"));
    assert_eq!(status, 200);
    assert_eq!(delivery["status"], "delivered", "{delivery}");
    assert_eq!(delivery["attempt_count"], 4);
    assert_eq!(delivery["attempts"][3]["status_code"], 200);
    assert_eq!(subscription_status(&app, &tenant, &subscription_id), "confirmed");

    // Only failed deliveries can be redelivered; others' deliveries are not found.
    let (status, body) = json_of(app.post(&format!("/v1/webhooks/deliveries/{delivery_id}/redeliver")).auth(&tenant).send().unwrap());
    assert_eq!(status, 409, "{body}");
    assert_detail_error(&body, "invalid_state");
    let stranger = app.create_tenant();
    let (status, _) = json_of(app.post(&format!("/v1/webhooks/deliveries/{delivery_id}/redeliver")).auth(&stranger).send().unwrap());
    assert_eq!(status, 404);
    assert!(deliveries(&app, &stranger, "").is_empty());
}

#[test]
fn deleting_a_subscription_stops_its_deliveries() {
    let app = insecure_app(&[]);
    let receiver = Receiver::start(vec![]);
    let (tenant, _, id) = subscribed_tenant(&app, &receiver.url("/hook"));
    publish_project(&app, &tenant);
    assert_eq!(deliveries(&app, &tenant, "?status=pending").len(), 1);

    let stranger = app.create_tenant();
    let response = app.request("DELETE", &format!("/v1/webhooks/subscriptions/{id}")).auth(&stranger).send().unwrap();
    assert_eq!(response.status(), 404, "another tenant's subscription is not found");

    let response = app.request("DELETE", &format!("/v1/webhooks/subscriptions/{id}")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 204);
    assert!(response.text().unwrap().is_empty());
    let response = app.request("DELETE", &format!("/v1/webhooks/subscriptions/{id}")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 404);
    let (_, list) = get_json(&app, &tenant, "/v1/webhooks/subscriptions");
    assert_eq!(list, json!([]));

    publish_project(&app, &tenant);
    dispatch(&app);
    thread::sleep(Duration::from_millis(300));
    assert!(receiver.requests().is_empty(), "nothing is sent after the delete");
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log.len(), 1, "{log:?}");
    assert_eq!(log[0]["status"], "cancelled");
}

#[test]
fn expired_hook_secrets_cannot_confirm() {
    let app = insecure_app(&[]);
    let tenant = app.create_tenant();
    create_secret(&app, &tenant);
    let (id, hook_secret) = subscribe(&app, &tenant, "project.completed", "https://hooks.example.com/in");
    // 24 hours later (moved in the database rather than waiting).
    let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
    let a_day_ago = (SystemTime::now() - Duration::from_secs(24 * 3600)).duration_since(UNIX_EPOCH).unwrap();
    let changed = db
        .execute(
            "UPDATE webhook_subscriptions SET hook_secret_expires_at = ?1 WHERE id = ?2",
            rusqlite::params![a_day_ago.as_millis() as i64, id],
        )
        .unwrap();
    assert_eq!(changed, 1);
    drop(db);
    let (status, body) = confirm(&app, &tenant, &id, &hook_secret);
    assert_eq!(status, 409, "{body}");
    assert_detail_error(&body, "secret_expired");
    assert_eq!(subscription_status(&app, &tenant, &id), "pending");
}

#[test]
fn workspaces_of_other_tenants_are_forbidden() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let other = app.create_tenant();
    for workspace_id in [other.tenant_id.clone(), uuid::Uuid::new_v4().to_string(), "workspace".to_string()] {
        let (status, body) = json_of(post_json(app, &tenant, "/v1/webhooks/secrets", &json!({"workspace_id": workspace_id})));
        assert_eq!(status, 403, "{body}");
        assert_detail_error(&body, "forbidden");
    }
    create_secret(app, &tenant);
    let (status, body) = json_of(post_json(
        app,
        &tenant,
        "/v1/webhooks/subscriptions",
        &json!({"workspace_id": other.tenant_id, "event_type": "project.published", "target_url": "https://hooks.example.com/in"}),
    ));
    assert_eq!(status, 403, "{body}");
    assert_detail_error(&body, "forbidden");

    // Subscriptions are the tenant's own: others see and reach none of them.
    let (id, hook_secret) = subscribe(app, &tenant, "interview.finished", "https://hooks.example.com/in");
    let (_, list) = get_json(app, &other, "/v1/webhooks/subscriptions");
    assert_eq!(list, json!([]));
    let (status, body) = confirm(app, &other, &id, &hook_secret);
    assert_eq!(status, 404, "{body}");
    let (status, _) = get_json(app, &other, &format!("/v1/webhooks/subscriptions/{id}"));
    assert_eq!(status, 404);
    let (status, body) = get_json(app, &tenant, &format!("/v1/webhooks/subscriptions/{id}"));
    assert_eq!(status, 200);
    assert_eq!(body["status"], "pending");
    let (status, _) = confirm(app, &tenant, &uuid::Uuid::new_v4().to_string(), &hook_secret);
    assert_eq!(status, 404);
}

#[test]
fn subscription_requests_are_validated_all_at_once() {
    let app = shared_app();
    let tenant = app.create_tenant();
    create_secret(app, &tenant);
    let (status, body) = json_of(post_json(app, &tenant, "/v1/webhooks/subscriptions", &json!({})));
    assert_eq!(status, 422, "{body}");
    let problems: Vec<(Value, Value)> =
        body["detail"].as_array().unwrap().iter().map(|d| (d["loc"].clone(), d["type"].clone())).collect();
    assert_eq!(
        problems,
        vec![
            (json!(["body", "workspace_id"]), json!("missing")),
            (json!(["body", "event_type"]), json!("missing")),
            (json!(["body", "target_url"]), json!("missing")),
        ]
    );
    let (status, body) = json_of(post_json(
        app,
        &tenant,
        "/v1/webhooks/subscriptions",
        &json!({"workspace_id": tenant.tenant_id, "event_type": "project.deleted", "target_url": "hooks.example.com"}),
    ));
    assert_eq!(status, 422, "{body}");
    let types: Vec<&Value> = body["detail"].as_array().unwrap().iter().map(|d| &d["type"]).collect();
    assert_eq!(types, [&json!("enum"), &json!("url_parsing")]);
    let response = app
        .post("/v1/webhooks/subscriptions")
        .auth(&tenant)
        .header("Content-Type", "application/json")
        .body("{\"workspace_id\": ")
        .send()
        .unwrap();
    let (status, body) = json_of(response);
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["type"], "json_invalid");
    let (status, body) = confirm(app, &tenant, &uuid::Uuid::new_v4().to_string(), "");
    assert_eq!(status, 422, "{body}");
}

#[test]
fn ssrf_targets_are_refused_without_insecure_mode() {
    let app = shared_app();
    let tenant = app.create_tenant();
    create_secret(app, &tenant);
    let refused = [
        ("http://hooks.example.com/in", "url_scheme"),
        ("http://127.0.0.1:8080/in", "url_scheme"),
        ("https://127.0.0.1/in", "value_error"),
        ("https://127.1/in", "value_error"),
        ("https://2130706433/in", "value_error"),
        ("https://0x7f.0.0.1/in", "value_error"),
        ("https://0177.0.0.1/in", "value_error"),
        ("https://0.0.0.0/in", "value_error"),
        ("https://10.0.0.8/in", "value_error"),
        ("https://172.20.1.1/in", "value_error"),
        ("https://192.168.0.10/in", "value_error"),
        ("https://169.254.169.254/latest/meta-data/", "value_error"),
        ("https://100.64.0.1/in", "value_error"),
        ("https://224.0.0.251/in", "value_error"),
        ("https://[::1]/in", "value_error"),
        ("https://[::]/in", "value_error"),
        ("https://[::ffff:127.0.0.1]/in", "value_error"),
        ("https://[::ffff:a9fe:a9fe]/in", "value_error"),
        ("https://[fe80::1]/in", "value_error"),
        ("https://[fd00::1]/in", "value_error"),
        ("https://[ff02::1]/in", "value_error"),
        ("https://localhost/in", "value_error"),
        ("https://LocalHost:8443/in", "value_error"),
        ("https://hooks.localhost/in", "value_error"),
        ("https://printer.local/in", "value_error"),
        ("https://metadata.google.internal/in", "value_error"),
        ("https://user:password@hooks.example.com/in", "value_error"),
        ("not a url", "url_parsing"),
    ];
    for (target_url, kind) in refused {
        let (status, body) = json_of(post_json(
            app,
            &tenant,
            "/v1/webhooks/subscriptions",
            &json!({"workspace_id": tenant.tenant_id, "event_type": "project.published", "target_url": target_url}),
        ));
        assert_eq!(status, 422, "{target_url}: {body}");
        let detail = &body["detail"][0];
        assert_eq!(detail["loc"], json!(["body", "target_url"]), "{target_url}: {body}");
        assert_eq!(detail["type"], kind, "{target_url}: {body}");
        assert!(detail["msg"].as_str().is_some_and(|m| !m.is_empty()));
    }
    for target_url in ["https://hooks.example.com/in", "https://8.8.8.8/in", "https://[2606:4700:4700::1111]/in"] {
        subscribe(app, &tenant, "project.published", target_url);
    }
}

#[test]
fn overlapping_dispatcher_runs_never_send_an_attempt_twice() {
    let app = insecure_app(&[("webhook_timeout_seconds", "2"), ("webhook_retry_base_seconds", "30,30")]);
    let receiver = Receiver::start(vec![Answer::Hang(Duration::from_secs(5))]);
    let (tenant, _, _) = subscribed_tenant(&app, &receiver.url("/hook"));
    publish_project(&app, &tenant);
    thread::scope(|scope| {
        let runs: Vec<_> = (0..3).map(|_| scope.spawn(|| dispatch(&app))).collect();
        for run in runs {
            run.join().unwrap();
        }
    });
    thread::sleep(Duration::from_millis(300));
    assert_eq!(receiver.requests().len(), 1, "one run leased the delivery, the others found nothing");
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log[0]["attempt_count"], 1, "{log:?}");
    assert_eq!(log[0]["status"], "pending", "a retry is scheduled: {log:?}");
}

#[test]
fn a_dispatcher_killed_mid_batch_loses_nothing() {
    let state = tempfile::tempdir().unwrap();
    let receiver = Receiver::start(vec![Answer::Hang(Duration::from_secs(120))]);
    // First host: the cron schedule runs the dispatcher; the receiver never answers.
    let app = TestApp::start_with(
        state.path(),
        &[("webhook_allow_insecure_targets", "true"), ("webhook_timeout_seconds", "60")],
        true,
    );
    let (tenant, secret, _) = subscribed_tenant(&app, &receiver.url("/hook"));
    publish_project(&app, &tenant);
    let first = receiver.wait_for(1, Duration::from_secs(30)).remove(0);
    // Killed in the middle of the batch: the attempt was sent, its result never recorded.
    let TestApp { host, partner_key, .. } = app;
    host.stop();

    // A new host on the same state, with a short lease: the delivery is sent again.
    let app = TestApp::start_with(
        state.path(),
        &[
            ("partner_api_key", partner_key.as_str()),
            ("webhook_allow_insecure_targets", "true"),
            ("webhook_lease_seconds", "1"),
        ],
        false,
    );
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log.len(), 1);
    assert_eq!(log[0]["status"], "pending", "still leased by the dead run: {log:?}");
    thread::sleep(Duration::from_millis(1100));
    dispatch(&app);
    let requests = receiver.wait_for(2, Duration::from_secs(5));
    let again = &requests[1];
    assert_eq!(again.header("x-event-id"), first.header("x-event-id"));
    assert_eq!(again.body, first.body);
    let timestamp = again.header("x-service-request-timestamp");
    assert_eq!(again.header("x-service-request-signature"), signature(&secret, timestamp, &again.body));
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log[0]["status"], "delivered", "{log:?}");
}

/// The Python receiver of the README, run as written, against a real delivery.
#[test]
fn receiver_script_from_the_readme_verifies_real_deliveries() {
    let readme = std::fs::read_to_string(workspace_root().join("README.md")).unwrap();
    let script = e2e::markdown::blocks(&readme)
        .into_iter()
        .find(|block| block.file_name() == Some("receiver.py"))
        .expect("README.md has the receiver.py block")
        .text;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("receiver.py");
    std::fs::write(&path, script).unwrap();

    let app = insecure_app(&[]);
    let tenant = app.create_tenant();
    let secret = create_secret(&app, &tenant);
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut child = std::process::Command::new("python3")
        .arg(&path)
        .env("WEBHOOK_SECRET", &secret)
        .env("PORT", port.to_string())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let stdout = child.stdout.take().unwrap();
    let _child = Kill(child);
    let deadline = Instant::now() + Duration::from_secs(10);
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "the receiver did not start");
        thread::sleep(Duration::from_millis(50));
    }
    let url = format!("http://127.0.0.1:{port}/hook");

    // A forged request is refused.
    let forged = reqwest::blocking::Client::new()
        .post(&url)
        .header("X-Service-Request-Timestamp", unix_now().to_string())
        .header("X-Service-Request-Signature", signature("whsec_wrong", &unix_now().to_string(), "{}"))
        .header("X-Event-ID", uuid::Uuid::new_v4().to_string())
        .body("{}")
        .send()
        .unwrap();
    assert_eq!(forged.status(), 401);

    let (id, hook_secret) = subscribe(&app, &tenant, "project.published", &url);
    assert_eq!(confirm(&app, &tenant, &id, &hook_secret).0, 200);
    let project_id = publish_project(&app, &tenant);
    dispatch(&app);
    let (lines, printed) = std::sync::mpsc::channel();
    thread::spawn(move || {
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        let _ = lines.send(line);
    });
    let line = printed.recv_timeout(Duration::from_secs(10)).expect("the receiver printed the verified event");
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log[0]["status"], "delivered", "the receiver accepted the signature: {log:?}");
    let (event_id, rest) = line.trim().split_once(' ').unwrap();
    assert_eq!(event_id, log[0]["event_id"].as_str().unwrap());
    assert!(rest.starts_with("project.published "), "{line}");
    assert!(rest.contains(&project_id), "{line}");
}

mod maintenance_route;
