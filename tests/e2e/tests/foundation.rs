//! Foundation: tenants, authentication, cross-cutting behaviour, the host itself.

use e2e::*;
use serde_json::{json, Value};
use std::thread;

fn event_types(app: &TestApp, tenant: &TenantCredentials) -> (StatusCode, Value) {
    json_of(app.get("/v1/webhooks/event-types").auth(tenant).send().unwrap())
}

#[test]
fn tenant_creation_returns_the_tenant_and_a_working_key_once() {
    let app = shared_app();
    let name = format!("Acme Research {}", uuid::Uuid::new_v4());
    let response = app.create_tenant_raw(&json!({
        "organization_name": name,
        "contact_email": "ops@acme.example",
        "description": "Consumer research",
    }));
    assert_eq!(response.status(), 201);
    assert_eq!(response.headers()["content-type"], "application/json");
    let body: Value = response.json().unwrap();
    let keys: Vec<&str> = body.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys.len(),
        6,
        "exactly tenant_id, api_key, organization_name, contact_email, description, created_at: {body}"
    );
    assert!(uuid::Uuid::parse_str(body["tenant_id"].as_str().unwrap()).is_ok());
    assert_eq!(body["organization_name"], name.as_str());
    assert_eq!(body["contact_email"], "ops@acme.example");
    assert_eq!(body["description"], "Consumer research");
    let api_key = body["api_key"].as_str().unwrap();
    assert!(api_key.starts_with("irs_") && api_key.len() >= 40, "{api_key}");
    let created_at = body["created_at"].as_str().unwrap();
    assert!(created_at.ends_with('Z') && created_at.len() == 24, "RFC 3339 with millis: {created_at}");

    let tenant = TenantCredentials {
        tenant_id: body["tenant_id"].as_str().unwrap().into(),
        api_key: api_key.into(),
    };
    let (status, types) = event_types(app, &tenant);
    assert_eq!(status, 200);
    assert_eq!(types, json!(["project.published", "project.completed", "interview.finished", "interview.erased"]));
}

#[test]
fn tenant_description_is_optional_and_null() {
    let app = shared_app();
    let response = app.create_tenant_raw(&json!({
        "organization_name": format!("No Description {}", uuid::Uuid::new_v4()),
        "contact_email": "a@b.example",
    }));
    let (status, body) = json_of(response);
    assert_eq!(status, 201);
    assert_eq!(body["description"], Value::Null);
}

fn assert_flat_error(response: reqwest::blocking::Response, status: u16, code: &str) {
    let (actual, body) = json_of(response);
    assert_eq!(actual.as_u16(), status, "body: {body}");
    assert_eq!(body["error"], code, "body: {body}");
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(body.as_object().unwrap().len(), 2, "only error and message: {body}");
}

fn valid_tenant_body() -> Value {
    json!({"organization_name": format!("Org {}", uuid::Uuid::new_v4()), "contact_email": "x@y.example"})
}

#[test]
fn tenant_creation_refuses_missing_or_invalid_partnership_keys() {
    let app = shared_app();
    let no_key = app.post("/v1/tenants").json(&valid_tenant_body()).send().unwrap();
    assert_flat_error(no_key, 401, "unauthorized");

    let no_tenant = app.post("/v1/tenants").header("X-Api-Key", &app.partner_key).json(&valid_tenant_body()).send().unwrap();
    assert_flat_error(no_tenant, 401, "unauthorized");

    let wrong_key = app
        .post("/v1/tenants")
        .header("X-Api-Key", "sk-partner-not-the-key")
        .header("X-Tenant-Id", PARTNER_TENANT_ID)
        .json(&valid_tenant_body())
        .send()
        .unwrap();
    assert_flat_error(wrong_key, 401, "unauthorized");

    let wrong_tenant = app
        .post("/v1/tenants")
        .header("X-Api-Key", &app.partner_key)
        .header("X-Tenant-Id", uuid::Uuid::new_v4().to_string())
        .json(&valid_tenant_body())
        .send()
        .unwrap();
    assert_flat_error(wrong_tenant, 401, "unauthorized");

    // A tenant's own key is no partnership key.
    let tenant = app.create_tenant();
    let tenant_key = app.post("/v1/tenants").auth(&tenant).json(&valid_tenant_body()).send().unwrap();
    assert_flat_error(tenant_key, 401, "unauthorized");
}

#[test]
fn tenant_creation_needs_the_tenants_create_scope() {
    let app = TestApp::start(&[("partner_scopes", "projects:read")]);
    assert_flat_error(app.create_tenant_raw(&valid_tenant_body()), 401, "insufficient_scope");
}

#[test]
fn tenant_creation_is_disabled_without_a_configured_key() {
    let app = TestApp::start(&[("partner_api_key", "")]);
    let response = app
        .post("/v1/tenants")
        .header("X-Api-Key", "sk-partner-")
        .header("X-Tenant-Id", PARTNER_TENANT_ID)
        .json(&valid_tenant_body())
        .send()
        .unwrap();
    assert_flat_error(response, 401, "unauthorized");
}

#[test]
fn tenant_creation_validates_its_input_with_400() {
    let app = shared_app();
    let cases = [
        json!({"organization_name": "Bad Mail Inc", "contact_email": "not-an-email"}),
        json!({"organization_name": "Bad Mail Inc", "contact_email": "a@localhost"}),
        json!({"contact_email": "a@b.example"}),
        json!({"organization_name": "Missing Mail"}),
        json!({"organization_name": "   ", "contact_email": "a@b.example"}),
        json!({"organization_name": 42, "contact_email": "a@b.example"}),
        json!({"organization_name": "x".repeat(201), "contact_email": "a@b.example"}),
        json!({"organization_name": "Long", "contact_email": "a@b.example", "description": "d".repeat(2001)}),
        json!(["not", "an", "object"]),
    ];
    for body in cases {
        assert_flat_error(app.create_tenant_raw(&body), 400, "invalid_request");
    }
    let malformed = app
        .post("/v1/tenants")
        .header("X-Api-Key", &app.partner_key)
        .header("X-Tenant-Id", PARTNER_TENANT_ID)
        .header("Content-Type", "application/json")
        .body("{\"organization_name\": ")
        .send()
        .unwrap();
    assert_flat_error(malformed, 400, "invalid_request");
}

#[test]
fn organization_names_are_unique_ignoring_case_and_spaces() {
    let app = shared_app();
    let name = format!("Unique Org {}", uuid::Uuid::new_v4().simple());
    let first = app.create_tenant_raw(&json!({"organization_name": name, "contact_email": "a@b.example"}));
    assert_eq!(first.status(), 201);
    let shouted = format!("  {}  ", name.to_uppercase());
    let second = app.create_tenant_raw(&json!({"organization_name": shouted, "contact_email": "c@d.example"}));
    assert_flat_error(second, 409, "conflict");
}

#[test]
fn authentication_failures_are_all_the_same_401() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let other = app.create_tenant();
    let attempts: Vec<Vec<(&str, String)>> = vec![
        vec![],
        vec![("X-Api-Key", tenant.api_key.clone())],
        vec![("X-Tenant-Id", tenant.tenant_id.clone())],
        vec![("X-Api-Key", tenant.api_key.clone()), ("X-Tenant-Id", "not-a-uuid".into())],
        vec![("X-Api-Key", "irs_wrong".into()), ("X-Tenant-Id", tenant.tenant_id.clone())],
        vec![("X-Api-Key", tenant.api_key.clone()), ("X-Tenant-Id", uuid::Uuid::new_v4().to_string())],
        // Tenant A's key with tenant B's id.
        vec![("X-Api-Key", tenant.api_key.clone()), ("X-Tenant-Id", other.tenant_id.clone())],
    ];
    let mut bodies = Vec::new();
    for headers in attempts {
        let mut request = app.get("/v1/webhooks/event-types");
        for (name, value) in &headers {
            request = request.header(*name, value);
        }
        let (status, body) = json_of(request.send().unwrap());
        assert_eq!(status, 401, "headers {headers:?}: {body}");
        assert_detail_error(&body, "unauthorized");
        bodies.push(body);
    }
    assert!(bodies.windows(2).all(|pair| pair[0] == pair[1]), "no hint which part was wrong");
    let message = bodies[0]["detail"]["message"].as_str().unwrap();
    assert!(message.contains("X-Api-Key") && message.contains("X-Tenant-Id"), "{message}");
    // A partnership key is told where it works, whatever tenant id came with it.
    for tenant_id in [PARTNER_TENANT_ID.to_string(), tenant.tenant_id.clone()] {
        let response = app
            .get("/v1/webhooks/event-types")
            .header("X-Api-Key", &app.partner_key)
            .header("X-Tenant-Id", &tenant_id)
            .send()
            .unwrap();
        let (status, body) = json_of(response);
        assert_eq!(status, 401);
        assert_detail_error(&body, "unauthorized");
        let message = body["detail"]["message"].as_str().unwrap();
        assert!(message.contains("POST /v1/tenants"), "{message}");
    }
    assert_eq!(event_types(app, &tenant).0, 200);
    assert_eq!(event_types(app, &other).0, 200);
}

#[test]
fn unknown_routes_and_methods_have_json_bodies() {
    let app = shared_app();
    for path in ["/v1/nothing-here", "/", "/v1/webhooks/nope", "/v1/tenants/extra"] {
        let (status, body) = json_of(app.get(path).send().unwrap());
        assert_eq!(status, 404, "{path}: {body}");
        assert_detail_error(&body, "not_found");
    }
    let response = app.get("/v1/tenants").send().unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "POST");
    let (_, body) = json_of(response);
    assert_detail_error(&body, "method_not_allowed");
    let response = app.request("DELETE", "/v1/webhooks/event-types").send().unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "GET");
}

/// A response whose body is whole (every route but the streamed exports and
/// downloads) reaches the client in one piece, head and body together. Spin
/// 4.0.2 leaves Nagle's algorithm on, so a body sent after its head would wait
/// for the client's delayed ACK (40 ms on Linux): under Spin, before, one read
/// of a project in five came in two pieces.
#[test]
fn a_whole_response_reaches_the_client_in_one_piece() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = e2e::sessions::create_project(app, &tenant, &e2e::sessions::project_body(json!({})));
    if let Err(problem) = app.responses_arrive_whole(&format!("/v1/projects/{project}"), &tenant, 60) {
        panic!("{problem}");
    }
}

#[test]
fn every_response_carries_a_request_id() {
    let app = shared_app();
    let echoed = app.get("/v1/nothing").header("X-Request-Id", "trace-abc-123").send().unwrap();
    assert_eq!(echoed.headers()["x-request-id"], "trace-abc-123");
    let tenant = app.create_tenant();
    let made = app.get("/v1/webhooks/event-types").auth(&tenant).send().unwrap();
    let id = made.headers()["x-request-id"].to_str().unwrap().to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    let failed = app.post("/v1/tenants").send().unwrap();
    assert!(failed.headers().contains_key("x-request-id"));
}

#[test]
fn requests_over_the_per_ip_limit_get_429_with_retry_after() {
    let app = TestApp::start(&[("rate_limit_per_minute", "5")]);
    wait_for_fresh_window(15);
    let tenant_app_key = app.create_tenant(); // request 1
    let mut statuses = Vec::new();
    for _ in 0..5 {
        statuses.push(app.get("/v1/webhooks/event-types").auth(&tenant_app_key).send().unwrap());
    }
    let codes: Vec<u16> = statuses.iter().map(|r| r.status().as_u16()).collect();
    assert_eq!(codes, vec![200, 200, 200, 200, 429], "the 6th request in the window is refused");
    let limited = statuses.pop().unwrap();
    let retry_after: u64 = limited.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry_after), "{retry_after}");
    let (_, body) = json_of(limited);
    assert_detail_error(&body, "rate_limited");
    // Every route counts, unknown ones included.
    assert_eq!(app.get("/v1/unknown").send().unwrap().status(), 429);
}

#[test]
fn forwarded_addresses_get_their_own_budget_only_when_trusted() {
    let app = TestApp::start(&[("rate_limit_per_minute", "2"), ("trust_forwarded_for", "true")]);
    let untrusted = TestApp::start(&[("rate_limit_per_minute", "2")]);
    wait_for_fresh_window(15);
    let call = |ip: &str| app.get("/v1/nothing").header("X-Forwarded-For", ip).send().unwrap().status().as_u16();
    assert_eq!([call("203.0.113.1"), call("203.0.113.1"), call("203.0.113.1")], [404, 404, 429]);
    assert_eq!(call("203.0.113.2"), 404, "another client has its own window");

    let call = |ip: &str| untrusted.get("/v1/nothing").header("X-Forwarded-For", ip).send().unwrap().status().as_u16();
    assert_eq!([call("203.0.113.1"), call("203.0.113.2"), call("203.0.113.3")], [404, 404, 429]);
}

#[test]
fn twenty_concurrent_requests_are_all_answered_correctly() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let contested = format!("Contested {}", uuid::Uuid::new_v4());
    let results: Vec<(String, u16, Value)> = thread::scope(|scope| {
        let handles: Vec<_> = (0..20)
            .map(|i| {
                let tenant = &tenant;
                let contested = &contested;
                scope.spawn(move || match i % 4 {
                    0 => {
                        let (s, b) = event_types(app, tenant);
                        ("types".to_string(), s.as_u16(), b)
                    }
                    1 => {
                        let (s, b) = json_of(app.create_tenant_raw(&valid_tenant_body()));
                        ("create".to_string(), s.as_u16(), b)
                    }
                    2 => {
                        let body = json!({"organization_name": contested, "contact_email": "a@b.example"});
                        let (s, b) = json_of(app.create_tenant_raw(&body));
                        ("contested".to_string(), s.as_u16(), b)
                    }
                    _ => {
                        let (s, b) = json_of(app.get("/v1/missing").send().unwrap());
                        ("missing".to_string(), s.as_u16(), b)
                    }
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut contested_created = 0;
    for (kind, status, body) in &results {
        match kind.as_str() {
            "types" => assert_eq!((*status, body[0].as_str()), (200, Some("project.published"))),
            "create" => assert_eq!(*status, 201, "{body}"),
            "contested" => match status {
                201 => contested_created += 1,
                409 => assert_eq!(body["error"], "conflict"),
                other => panic!("contested create answered {other}: {body}"),
            },
            _ => assert_eq!(*status, 404),
        }
    }
    assert_eq!(contested_created, 1, "exactly one of five same-name creations wins");
}

#[test]
fn data_survives_a_host_restart() {
    let state = tempfile::tempdir().unwrap();
    let partner_key = format!("sk-partner-restart-{}", uuid::Uuid::new_v4().simple());
    let overrides = [("partner_api_key", partner_key.as_str())];
    let first = TestApp::start_in(state.path(), &overrides);
    let tenant = first.create_tenant();
    assert_eq!(event_types(&first, &tenant).0, 200);
    first.host.stop();

    let second = TestApp::start_in(state.path(), &overrides);
    assert_eq!(event_types(&second, &tenant).0, 200, "the tenant and its key hash were kept");
    assert!(second.sqlite_path().exists(), "the records are where the runtime keeps them (Spin: sqlite_db.db in the state dir)");
}

/// Component output goes where `spin up` puts it, on both runtimes: each
/// instance appends its stderr to `<log dir>/<component>_stderr.txt` (and has
/// a `_stdout.txt` beside it), and the runtime follows it on its own output.
#[test]
fn component_output_is_logged_per_component_in_the_log_dir() {
    let (state, logs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut app = TestApp::start_process(state.path(), &[], |config| config.log_dir = Some(logs.path().to_path_buf()));
    let tenant = app.create_tenant();
    let project_id = e2e::sessions::active_project(&app, &tenant, json!({}));
    let session = e2e::sessions::Session::start(&app, &e2e::sessions::start_body(&project_id, "production"));
    // Without a model a transcription is refused, and the sessions component says why on stderr.
    for _ in 0..2 {
        let response = app
            .post(&session.path("/transcriptions"))
            .bearer_auth(&session.token)
            .header("content-type", "audio/webm")
            .body(vec![1, 2, 3])
            .send()
            .unwrap();
        assert_eq!(response.status(), 503);
    }
    let stderr = std::fs::read_to_string(logs.path().join("sessions_stderr.txt")).unwrap_or_default();
    let line = format!("transcription for interview {}: no language model configured", session.interview_id);
    assert_eq!(stderr.matches(&line).count(), 2, "two instances, one line each, appended:\n{stderr}");
    assert!(logs.path().join("sessions_stdout.txt").is_file());
    assert!(app.process().output().contains(&line), "followed on the runtime's own output");
}

/// A runtime a test binary never stops (its shared app lives in a `static`,
/// which is never dropped) goes when the binary exits: `spin up` does not end
/// with the process that started it, and left alone it and its trigger
/// processes would keep serving (and the cron firing) after the tests.
#[test]
fn a_runtime_left_running_ends_with_the_test_binary() {
    let probe = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "leave_a_runtime_running", "--ignored", "--nocapture"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&probe.stdout);
    assert!(probe.status.success(), "the probe ran: {stdout}{}", String::from_utf8_lossy(&probe.stderr));
    let pid: u32 = stdout
        .lines()
        .find_map(|line| line.strip_prefix("runtime process group "))
        .and_then(|pid| pid.trim().parse().ok())
        .unwrap_or_else(|| panic!("the probe printed its runtime's process group: {stdout}"));
    // Every process of the group, the runtime's children included, is gone
    // (a zombie, dead but not yet reaped by init, does not count).
    let members = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|entry| std::fs::read_to_string(entry.path().join("stat")).ok())
            .filter(|stat| {
                // The fields after the command's closing parenthesis: state, ppid, pgrp, ...
                let fields: Vec<&str> = stat.rsplit_once(')').map_or(vec![], |(_, rest)| rest.split_whitespace().collect());
                fields.len() > 2 && fields[0] != "Z" && fields[2] == pid.to_string()
            })
            .count()
    };
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while members() > 0 && std::time::Instant::now() < deadline {
        thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(members(), 0, "processes of the runtime's group {pid} outlived the test binary");
}

/// Run by `a_runtime_left_running_ends_with_the_test_binary` in a child test process.
#[test]
#[ignore = "a probe, run by a_runtime_left_running_ends_with_the_test_binary"]
fn leave_a_runtime_running() {
    static LEFT: std::sync::OnceLock<(tempfile::TempDir, TestApp)> = std::sync::OnceLock::new();
    let (_, app) = LEFT.get_or_init(|| {
        let state = tempfile::tempdir().unwrap();
        let app = TestApp::start_process(state.path(), &[], |_| {});
        (state, app)
    });
    let Server::Process(process) = &app.host else { panic!("started as a process") };
    println!("runtime process group {}", process.pid());
}
