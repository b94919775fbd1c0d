//! A database written by an earlier release reads the same through every route
//! after today's components migrate it.
//!
//! `tests/fixtures/landed-v6/` holds the state directory of release 6 of the
//! schema (the last one with SQLite triggers and the `interview_starts` view),
//! written through the API by `record_landed_fixture` below when that release
//! was the landed main, and the answer of every read route as that release gave
//! it (`requests.json`). The test copies the files into a fresh state
//! directory, starts today's components on them and asks the same requests:
//! every status and body must be what the old release answered.
//!
//! To record again (only ever against the release whose schema the fixture is
//! named for): `cargo test -p e2e --test migration -- --ignored record_landed_fixture`.

use e2e::sessions::{act, create_project, project_body, start_body, Session};
use e2e::*;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};

/// The placeholder for the host's base URL in recorded bodies (it differs per run).
const BASE: &str = "http://{base}";
const STATE_FILES: [&str; 2] = ["sqlite_db.db", "sqlite_key_value.db"];

fn fixture_dir() -> PathBuf {
    workspace_root().join("tests/fixtures/landed-v6")
}

/// One recorded request: who asks (`tenant`, a session token or nobody), and
/// what the old release answered.
#[derive(serde::Serialize, serde::Deserialize, Debug, Clone)]
struct Recorded {
    method: String,
    path: String,
    /// `tenant`, `session:<token>` or `none`.
    credential: String,
    status: u16,
    content_type: String,
    /// JSON as JSON, text as a string, anything else as `{"sha256", "length"}`.
    body: Value,
}

#[derive(serde::Serialize, serde::Deserialize)]
struct Fixture {
    partner_key: String,
    tenant: (String, String),
    requests: Vec<Recorded>,
}

fn send(app: &TestApp, tenant: &TenantCredentials, method: &str, path: &str, credential: &str) -> Recorded {
    let mut request = app.request(method, path);
    if credential == "tenant" {
        request = request.auth(tenant);
    } else if let Some(token) = credential.strip_prefix("session:") {
        request = request.bearer_auth(token);
    }
    let response = request.send().unwrap();
    let status = response.status().as_u16();
    let content_type = response.headers().get("content-type").map_or("", |v| v.to_str().unwrap()).to_string();
    let bytes = response.bytes().unwrap().to_vec();
    let base = app.host.base_url().to_string();
    let body = if content_type.starts_with("application/json") {
        let text = String::from_utf8(bytes).unwrap().replace(&base, BASE);
        serde_json::from_str(&text).unwrap()
    } else if content_type.starts_with("text/") {
        Value::String(String::from_utf8(bytes).unwrap().replace(&base, BASE))
    } else {
        json!({"sha256": hex(&Sha256::digest(&bytes)), "length": bytes.len()})
    };
    Recorded { method: method.into(), path: path.into(), credential: credential.into(), status, content_type, body }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[test]
fn a_database_of_the_trigger_release_reads_the_same_after_migration() {
    e2e::on_spin_sqlite("they upgrade database files of earlier releases in place");
    let fixture: Fixture =
        serde_json::from_str(&std::fs::read_to_string(fixture_dir().join("requests.json")).unwrap()).unwrap();
    let state = tempfile::tempdir().unwrap();
    for file in STATE_FILES {
        std::fs::copy(fixture_dir().join(file), state.path().join(file)).unwrap();
    }
    let app = TestApp::start_in(state.path(), &[("partner_api_key", fixture.partner_key.as_str())]);
    let tenant = TenantCredentials { tenant_id: fixture.tenant.0.clone(), api_key: fixture.tenant.1.clone() };
    let mut differences = Vec::new();
    for recorded in &fixture.requests {
        let recorded = &with_later_additions(recorded);
        let mut now = send(&app, &tenant, &recorded.method, &recorded.path, &recorded.credential);
        if recorded.path.ends_with("/url?environment=sandbox") && now.status == 200 {
            sandbox_link_as_it_was(&mut now.body);
        }
        let single_read = recorded.path.starts_with("/v1/projects/") && recorded.path.matches('/').count() == 3;
        if single_read && now.status == 200 {
            project_read_as_it_was(&mut now.body);
        }
        if (now.status, &now.content_type, &now.body) != (recorded.status, &recorded.content_type, &recorded.body) {
            differences.push(format!(
                "{} {}: was {} {} {}\n  now {} {} {}",
                recorded.method,
                recorded.path,
                recorded.status,
                recorded.content_type,
                recorded.body,
                now.status,
                now.content_type,
                now.body
            ));
        }
    }
    assert!(differences.is_empty(), "{} of {} routes answer differently:\n{}", differences.len(), fixture.requests.len(), differences.join("\n"));
    assert!(fixture.requests.len() > 40, "the fixture covers every read route");
    assert_eq!(schema_rules(&app), Vec::<String>::new(), "the migrated schema is plain tables and indexes");
}

/// What the old release answered, with what later releases add to it and
/// nothing else: every other byte must match.
/// - Release 8 (erasure): a project has `data_retention_days` (null for every
///   project that existed before: it keeps its interviews); `interview.erased`
///   is an event type.
fn with_later_additions(recorded: &Recorded) -> Recorded {
    let mut recorded = recorded.clone();
    match &mut recorded.body {
        Value::Array(types) if recorded.path == "/v1/webhooks/event-types" => types.push(json!("interview.erased")),
        Value::Object(project) if project.contains_key("project_type") && project.contains_key("max_interviews") => {
            project.entry("data_retention_days").or_insert(Value::Null);
        }
        _ => {}
    }
    recorded
}

/// Changed on purpose since release 6 (issue 26): a sandbox link is a
/// capability, the old URL plus `&sandbox_token=<22 characters of base64url>`.
/// Checks that shape, and gives the body back as release 6 wrote it.
fn sandbox_link_as_it_was(body: &mut Value) {
    let url = body["url"].as_str().unwrap_or_default().to_string();
    let (old, token) = url.split_once("&sandbox_token=").unwrap_or_else(|| panic!("no sandbox_token in {url}"));
    assert!(token.len() == 22 && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{url}");
    body["url"] = Value::from(old);
}

/// Added since release 6 (issue 26): a project's read shows its model calls
/// today (none for these projects: no model was ever configured). Checks
/// that, and gives the body back as release 6 wrote it.
fn project_read_as_it_was(body: &mut Value) {
    let calls = body.as_object_mut().unwrap().remove("model_calls").unwrap_or_else(|| panic!("no model_calls in {body}"));
    assert_eq!((calls["calls"].clone(), calls["builtin_instead"].clone(), calls["daily_limit"].clone()), (json!(0), json!(0), json!(5000)), "{calls}");
}

/// The triggers and views of the app's database (none: every rule is Rust).
pub fn schema_rules(app: &TestApp) -> Vec<String> {
    let conn = rusqlite::Connection::open_with_flags(app.sqlite_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut statement = conn.prepare("SELECT type || ' ' || name FROM sqlite_master WHERE type IN ('trigger', 'view')").unwrap();
    let rules = statement.query_map([], |row| row.get(0)).unwrap().map(Result::unwrap).collect();
    rules
}

#[test]
fn a_fresh_database_is_plain_tables_and_indexes() {
    e2e::on_spin_sqlite("they upgrade database files of earlier releases in place");
    let app = TestApp::start(&[]);
    app.create_tenant();
    assert_eq!(schema_rules(&app), Vec::<String>::new());
    let conn = rusqlite::Connection::open_with_flags(app.sqlite_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let columns: Vec<String> = conn
        .prepare("SELECT name FROM pragma_table_xinfo('interviews') UNION ALL SELECT name FROM pragma_table_xinfo('projects')")
        .unwrap()
        .query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for gone in ["interview_status", "pending_event_id", "status_changed_at"] {
        assert!(!columns.iter().any(|c| c == gone), "{gone} is computed in Rust now: {columns:?}");
    }
}

/// A receiver that answers 200 to everything (webhook deliveries).
fn receiver() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut length = 0;
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 || line.trim().is_empty() {
                    break;
                }
                if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let _ = (&stream).write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok");
        }
    });
    format!("http://{addr}/hooks")
}

fn post(app: &TestApp, tenant: &TenantCredentials, path: &str, body: Value) -> Value {
    let (status, answer) = json_of(app.post(path).auth(tenant).json(&body).send().unwrap());
    assert!(status.is_success(), "{path}: {status} {answer}");
    answer
}

fn subscribe(app: &TestApp, tenant: &TenantCredentials, event_type: &str, target: &str, confirm: bool) -> String {
    let created = post(
        app,
        tenant,
        "/v1/webhooks/subscriptions",
        json!({"workspace_id": tenant.tenant_id, "event_type": event_type, "target_url": target}),
    );
    let id = created["id"].as_str().unwrap().to_string();
    if confirm {
        post(app, tenant, &format!("/v1/webhooks/subscriptions/{id}"), json!({"secret": created["x_hook_secret"]}));
    }
    id
}

fn put_chunk(app: &TestApp, session: &Session, kind: &str, index: u32, content_type: &str, bytes: &[u8]) {
    let response = app
        .request("PUT", &session.path(&format!("/recordings/{kind}/{index}")))
        .bearer_auth(&session.token)
        .header("content-type", content_type)
        .body(bytes.to_vec())
        .send()
        .unwrap();
    assert!(response.status().is_success(), "{kind} chunk {index}: {}", response.text().unwrap());
}

/// Writes the fixture with the release that is built: run it only against the
/// release the fixture is named for (see the module docs).
#[test]
#[ignore]
fn record_landed_fixture() {
    e2e::on_spin_sqlite("they upgrade database files of earlier releases in place");
    let state = tempfile::tempdir().unwrap();
    let app = TestApp::start_in(
        state.path(),
        &[("webhook_allow_insecure_targets", "true"), ("webhook_retry_base_seconds", "0.001,0.001")],
    );
    let tenant = app.create_tenant();
    let target = receiver();
    post(&app, &tenant, "/v1/webhooks/secrets", json!({"workspace_id": tenant.tenant_id}));
    let mut subscriptions = vec![
        subscribe(&app, &tenant, "project.published", &target, true),
        subscribe(&app, &tenant, "interview.finished", &target, true),
        // Nothing listens there: its deliveries fail after their retries.
        subscribe(&app, &tenant, "project.completed", "http://127.0.0.1:9/closed", true),
    ];
    subscriptions.push(subscribe(&app, &tenant, "project.completed", &target, false));

    // A file a survey block shows.
    let png = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD
            .decode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")
            .unwrap()
    };
    let (content_type, body) =
        Multipart::new().file("file", "pixel.png", "image/png", &png).text("mime_type", "image/png").text("purpose", "survey").finish();
    let (status, file) =
        json_of(app.post("/v1/files").auth(&tenant).header("content-type", content_type).body(body).send().unwrap());
    assert_eq!(status, 200, "{file}");
    let file_id = file["file_id"].as_str().unwrap().to_string();

    // A project that one completed interview fills (max_interviews 1).
    let full = create_project(&app, &tenant, &project_body(json!({"project_name": "Filled study", "max_interviews": 1})));
    act(&app, &tenant, &full, "activate");
    let mut filled = Session::start(&app, &json!({"project_id": full, "environment": "production", "mode": "typing",
        "identifier": "filled@example.com", "external_metadata": {"plan": "pro", "cohort": "a"}}));
    filled.complete(&app);

    // A running project with interviews in every state.
    let running = create_project(&app, &tenant, &project_body(json!({"project_name": "Running study",
        "interview_modes": ["typing", "talking"], "interview_languages": ["en", "de"], "camera_access": "optional"})));
    act(&app, &tenant, &running, "activate");
    let mut left = Session::start(&app, &json!({"project_id": running, "environment": "production", "mode": "typing",
        "identifier": "left@example.com", "country_code": "de", "external_metadata": {"plan": "free"}}));
    left.answer(&app, "We looked at two places and picked the cheaper one.");
    let (status, _) = left.finish(&app, false);
    assert_eq!(status, 200);
    let mut recorded = Session::start(&app, &json!({"project_id": running, "environment": "production", "mode": "talking",
        "language": "de", "identifier": "recorded@example.com", "external_metadata": {"plan": "pro"}}));
    recorded.answer(&app, "Wir haben drei Kitas besucht und die naechste genommen.");
    put_chunk(&app, &recorded, "audio", 0, "audio/webm", b"\x1aE\xdf\xa3first audio chunk");
    put_chunk(&app, &recorded, "audio", 1, "audio/webm", b"second audio chunk");
    put_chunk(&app, &recorded, "video", 0, "video/webm", b"\x1aE\xdf\xa3a video chunk");
    let mut flagged = Session::start(&app, &json!({"project_id": running, "environment": "production", "mode": "typing",
        "identifier": "flagged@example.com"}));
    flagged.complete(&app);
    post(&app, &tenant, &format!("/v1/interviews/{}/flag", flagged.interview_id), json!({"reason": "Copied answers"}));
    let mut sandbox = Session::start(&app, &start_body(&running, "sandbox"));
    sandbox.complete(&app);

    // A survey with a media block.
    let survey = create_project(&app, &tenant, &project_body(json!({"project_name": "Survey study", "project_type": "survey",
        "survey_blocks": [
            {"block_id": "intro", "type": "statement", "prompt": "Thank you for joining.", "media": {"file_id": file_id}},
            {"block_id": "pick", "type": "multiple_choice", "prompt": "Which did you visit?", "options": ["A", "B", "C"]},
            {"block_id": "rate", "type": "rating", "prompt": "How happy are you?", "scale": "1-5"},
            {"block_id": "why", "type": "open_question", "prompt": "Why?", "required": false}
        ]})));
    act(&app, &tenant, &survey, "activate");
    let mut surveyed = Session::start(&app, &json!({"project_id": survey, "environment": "production", "mode": "typing",
        "identifier": "survey@example.com"}));
    for answer in [json!({"choices": ["A", "C"]}), json!({"rating": 4}), json!({"skip": true})] {
        let (status, body) = json_of(
            app.post(&surveyed.path("/answers")).bearer_auth(&surveyed.token).json(&answer).send().unwrap(),
        );
        assert_eq!(status, 200, "{answer}: {body}");
        surveyed.body = body;
    }
    let (status, _) = surveyed.finish(&app, true);
    assert_eq!(status, 200);

    let draft = create_project(&app, &tenant, &project_body(json!({"project_name": "Draft study"})));
    let paused = create_project(&app, &tenant, &project_body(json!({"project_name": "Paused study"})));
    act(&app, &tenant, &paused, "activate");
    act(&app, &tenant, &paused, "deactivate");

    // Deliveries: sent, retried and failed.
    for _ in 0..10 {
        app.host.run_cron("maintenance").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(50));
    }

    let mut reads: Vec<(&str, String, String)> = vec![
        ("GET", "/v1/projects".into(), "tenant".into()),
        ("GET", "/v1/projects?limit=2".into(), "tenant".into()),
        ("GET", "/v1/projects?status=active".into(), "tenant".into()),
        ("GET", "/v1/interviews".into(), "tenant".into()),
        ("GET", format!("/v1/interviews?project_id={running}"), "tenant".into()),
        ("GET", "/v1/interviews?external_metadata%5Bplan%5D=pro".into(), "tenant".into()),
        ("GET", format!("/v1/interviews?project_id={full}&external_metadata%5Bplan%5D=pro&external_metadata%5Bcohort%5D=a"), "tenant".into()),
        ("GET", "/v1/interviews?limit=2".into(), "tenant".into()),
        ("GET", "/v1/webhooks/event-types".into(), "tenant".into()),
        ("GET", "/v1/webhooks/subscriptions".into(), "tenant".into()),
        ("GET", "/v1/webhooks/deliveries".into(), "tenant".into()),
        ("GET", "/v1/webhooks/deliveries?status=failed".into(), "tenant".into()),
        ("GET", format!("/v1/files/{file_id}"), "tenant".into()),
        ("GET", format!("/i/{survey}/media/{file_id}"), "none".into()),
    ];
    for project in [&full, &running, &survey, &draft, &paused] {
        reads.push(("GET", format!("/v1/projects/{project}"), "tenant".into()));
        reads.push(("GET", format!("/v1/projects/{project}/url?environment=production"), "tenant".into()));
        reads.push(("GET", format!("/v1/projects/{project}/url?environment=sandbox"), "tenant".into()));
        reads.push(("GET", format!("/v1/projects/{project}/interviews-export"), "tenant".into()));
        reads.push(("GET", format!("/v1/projects/{project}/interviewees-export"), "tenant".into()));
    }
    reads.push(("GET", format!("/v1/projects/{survey}/survey-results"), "tenant".into()));
    for session in [&filled, &left, &recorded, &flagged, &sandbox, &surveyed] {
        reads.push(("GET", format!("/v1/sessions/{}", session.interview_id), format!("session:{}", session.token)));
        reads.push(("GET", format!("/v1/interviews/{}/audio-export", session.interview_id), "tenant".into()));
        reads.push(("GET", format!("/v1/interviews/{}/video-export", session.interview_id), "tenant".into()));
    }
    for id in &subscriptions {
        reads.push(("GET", format!("/v1/webhooks/subscriptions/{id}"), "tenant".into()));
    }
    let (_, deliveries) = json_of(app.get("/v1/webhooks/deliveries").auth(&tenant).send().unwrap());
    for delivery in deliveries.as_array().unwrap() {
        reads.push(("GET", format!("/v1/webhooks/deliveries/{}", delivery["id"].as_str().unwrap()), "tenant".into()));
    }
    let (_, page) = json_of(app.get("/v1/projects?limit=2").auth(&tenant).send().unwrap());
    if let Some(cursor) = page["next_cursor"].as_str() {
        reads.push(("GET", format!("/v1/projects?limit=2&cursor={cursor}"), "tenant".into()));
    }
    let requests: Vec<Recorded> =
        reads.iter().map(|(method, path, credential)| send(&app, &tenant, method, path, credential)).collect();
    for request in &requests {
        assert!(request.status < 500, "{request:?}");
    }
    let partner_key = app.partner_key.clone();
    drop(app); // closes every connection, so the WAL is checkpointed into the file
    let out = fixture_dir();
    std::fs::create_dir_all(&out).unwrap();
    for file in STATE_FILES {
        let source: &Path = &state.path().join(file);
        assert!(!state.path().join(format!("{file}-wal")).exists(), "{file} was checkpointed");
        std::fs::copy(source, out.join(file)).unwrap();
    }
    let fixture = Fixture { partner_key, tenant: (tenant.tenant_id, tenant.api_key), requests };
    std::fs::write(out.join("requests.json"), serde_json::to_string_pretty(&fixture).unwrap() + "\n").unwrap();
}
