//! The records over HTTP (the edge manifest, `deploy/akamai/spin.toml`, with
//! `database_url`): what a remote database's failures look like to a client,
//! each made real here with a real sqld and the network between them (a relay
//! that loses or holds a request, as networks do): a server that went away,
//! one that refuses the credentials, one that stops answering, an answer lost
//! after the server committed, and a runtime killed inside a transaction.
//! Every app runs as a process of the selected runtime (`spin up` with `SPIN`
//! set), so that its output can be read and the process killed.
//!
//! Skipped, saying so, when no sqld is at hand (see `e2e::services::Sqld`).

use e2e::services::{Relay, Sqld};
use e2e::sessions::{create_project, project_body};
use e2e::*;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn app_on(database_url: &str, extra: &[(&str, &str)]) -> (TestApp, tempfile::TempDir) {
    let state = tempfile::tempdir().unwrap();
    let mut overrides = vec![("database_url", database_url)];
    overrides.extend_from_slice(extra);
    let app = TestApp::start_process(state.path(), &overrides, |_| {});
    (app, state)
}

/// A 503 in the documented shape, with `Retry-After`: storage unavailable.
fn assert_storage_unavailable(response: reqwest::blocking::Response, what: &str) {
    assert_eq!(response.status(), 503, "{what}");
    let retry_after: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!(retry_after >= 1, "{what}: Retry-After {retry_after}");
    let body: Value = response.json().unwrap();
    assert_detail_error(&body, "storage_unavailable");
}

#[test]
fn a_database_that_goes_away_is_a_503_and_comes_back_with_everything() {
    let Some(mut sqld) = Sqld::start_or_skip("a_database_that_goes_away_is_a_503_and_comes_back_with_everything") else { return };
    let (app, _state) = app_on(&sqld.url(), &[]);
    let tenant = app.create_tenant();
    let project = create_project(&app, &tenant, &project_body(json!({})));

    sqld.stop();
    let started = Instant::now();
    assert_storage_unavailable(app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap(), "a read");
    assert_storage_unavailable(app.post("/v1/projects").auth(&tenant).json(&project_body(json!({}))).send().unwrap(), "a write");
    assert!(started.elapsed() < Duration::from_secs(10), "a refused connection is given up on soon: {:?}", started.elapsed());

    sqld.restart();
    let (status, body) = json_of(app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    let projects: i64 = serde_json::from_value(sqld.scalar("SELECT COUNT(*) FROM projects")).unwrap();
    assert_eq!(projects, 1, "the refused write wrote nothing");
}

#[test]
fn a_server_that_refuses_the_token_is_a_503_that_names_no_token() {
    let Some(binary) = Sqld::binary() else {
        eprintln!("skipped a_server_that_refuses_the_token_is_a_503_that_names_no_token: no sqld");
        return;
    };
    let sqld = Sqld::start_with_basic_auth(&binary, "service:right-password");
    let token = format!("db-token-{}", uuid::Uuid::new_v4().simple());
    let (mut app, _state) = app_on(&sqld.url(), &[("database_token", token.as_str())]);
    let response = app.get("/v1/nothing").send().unwrap();
    assert_eq!(response.status(), 503);
    let text = response.text().unwrap();
    assert!(text.contains("storage_unavailable") && !text.contains(&token), "{text}");
    let logged = app.process().output();
    assert!(logged.contains("refused the credentials"), "the log says why: {logged}");
    assert!(!logged.contains(&token), "the token is in no log line");
}

#[test]
fn a_server_that_stops_answering_is_a_503_within_the_deadline() {
    let Some(sqld) = Sqld::start_or_skip("a_server_that_stops_answering_is_a_503_within_the_deadline") else { return };
    let (app, _state) = app_on(&sqld.url(), &[]);
    let tenant = app.create_tenant();
    sqld.pause(true);
    let started = Instant::now();
    let response = app.get("/v1/webhooks/event-types").auth(&tenant).timeout(Duration::from_secs(60)).send().unwrap();
    let waited = started.elapsed();
    sqld.pause(false);
    assert_storage_unavailable(response, "a read of a server that stopped");
    // One exchange deadline (6 s), tried once more: a read changes nothing.
    assert!(waited >= Duration::from_secs(6) && waited < Duration::from_secs(20), "{waited:?}");
    assert_eq!(app.get("/v1/webhooks/event-types").auth(&tenant).send().unwrap().status(), 200, "back once it answers");
}

/// The commit of a transaction reaches the server, which commits; its answer
/// is lost on the way back. The transaction is tried again: its receipt is
/// there already, so it is not applied a second time, and the client gets the
/// answer of the one that committed.
#[test]
fn a_transaction_whose_answer_was_lost_is_applied_once() {
    let Some(sqld) = Sqld::start_or_skip("a_transaction_whose_answer_was_lost_is_applied_once") else { return };
    let relay = Relay::start(sqld.port);
    let (app, _state) = app_on(&relay.url(), &[]);
    let tenant = app.create_tenant();
    let project = create_project(&app, &tenant, &project_body(json!({})));

    relay.lose_answer_to(b"\"COMMIT\"");
    let (status, body) = json_of(app.post(&format!("/v1/projects/{project}/activate")).auth(&tenant).send().unwrap());
    assert_eq!((status, &body["status"]), (StatusCode::OK, &json!("active")), "{body}");
    let published: i64 = serde_json::from_value(sqld.scalar(&format!(
        "SELECT COUNT(*) FROM events WHERE event_type = 'project.published' AND json_extract(payload, '$.project_id') = '{project}'"
    )))
    .unwrap();
    assert_eq!(published, 1, "one publication, one event");
}

/// A runtime killed in the middle of a transaction that holds sqld's writer
/// (here: its `COMMIT` held back by the network, then the process killed)
/// sends nothing more. sqld keeps the lock until its transaction timeout (5 s)
/// with a writer waiting, then rolls the dead transaction back: a writer
/// through another runtime waits that long once, and is not refused.
#[test]
fn a_runtime_killed_inside_a_transaction_holds_writers_up_for_at_most_sqlds_timeout() {
    let Some(sqld) = Sqld::start_or_skip("a_runtime_killed_inside_a_transaction_holds_writers_up_for_at_most_sqlds_timeout") else {
        return;
    };
    let relay = Relay::start(sqld.port);
    let (mut dying, _dying_state) = app_on(&relay.url(), &[]);
    let (other, _other_state) = app_on(&sqld.url(), &[("partner_api_key", dying.partner_key.as_str())]);
    let tenant = dying.create_tenant();
    let project = create_project(&dying, &tenant, &project_body(json!({})));

    relay.hold_requests_with(b"\"COMMIT\"");
    let activation = {
        let url = dying.url(&format!("/v1/projects/{project}/activate"));
        let tenant = tenant.clone();
        std::thread::spawn(move || {
            reqwest::blocking::Client::new().post(url).auth(&tenant).timeout(Duration::from_secs(30)).send().map(|r| r.status())
        })
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while relay.held() == 0 {
        assert!(Instant::now() < deadline, "the activation's COMMIT never came");
        std::thread::sleep(Duration::from_millis(10));
    }
    dying.process().kill();
    assert!(activation.join().unwrap().is_err(), "the killed runtime answered nothing");

    let started = Instant::now();
    let (status, body) = json_of(other.post("/v1/projects").auth(&tenant).json(&project_body(json!({}))).send().unwrap());
    let waited = started.elapsed();
    eprintln!("a write behind a dead runtime's transaction waited {waited:?}");
    assert_eq!(status, 201, "{body}");
    assert!(waited < Duration::from_secs(8), "held up for at most sqld's transaction timeout: {waited:?}");
    let (_, read) = json_of(other.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap());
    assert_eq!(read["status"], "draft", "the dead transaction was rolled back: {read}");
}

/// The edge manifest grants no SQLite: nothing reaches the records but HTTP,
/// and the runtime creates no database file of its own.
#[test]
fn the_edge_manifest_keeps_no_local_database() {
    let Some(sqld) = Sqld::start_or_skip("the_edge_manifest_keeps_no_local_database") else { return };
    let (app, state) = app_on(&sqld.url(), &[]);
    let tenant = app.create_tenant();
    create_project(&app, &tenant, &project_body(json!({})));
    app.host.run_cron("maintenance").unwrap();
    let tick = app.get("/v1/maintenance/tick").send().unwrap();
    assert_eq!(tick.status(), 200);
    let files: Vec<String> = std::fs::read_dir(state.path())
        .unwrap()
        .flatten()
        .map(|entry| entry.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(files.iter().all(|name| !name.starts_with("sqlite_db")), "no local database: {files:?}");
    let tenants: i64 = serde_json::from_value(sqld.scalar("SELECT COUNT(*) FROM tenants")).unwrap();
    assert_eq!(tenants, 1, "the tenant is on the server");
}

/// `GET /v1/maintenance/tick` takes no credentials and can only start what
/// is due: one run per `maintenance_tick_seconds`, whoever calls.
#[test]
fn the_tick_runs_the_maintenance_at_most_once_per_interval() {
    let Some(sqld) = Sqld::start_or_skip("the_tick_runs_the_maintenance_at_most_once_per_interval") else { return };
    let (app, _state) = app_on(&sqld.url(), &[("maintenance_tick_seconds", "3")]);
    let ran = |app: &TestApp| {
        let (status, body) = json_of(app.get("/v1/maintenance/tick").send().unwrap());
        assert_eq!(status, 200, "{body}");
        body["ran"].as_bool().unwrap()
    };
    let first = ran(&app);
    let second = ran(&app);
    assert!(!second, "a second call within the interval runs nothing (first: {first})");
    std::thread::sleep(Duration::from_millis(3100));
    assert!(ran(&app), "due again after the interval");
    // Off without the variable: the route does not exist.
    let (off, _off_state) = app_on(&sqld.url(), &[("maintenance_tick_seconds", "")]);
    assert_eq!(off.get("/v1/maintenance/tick").send().unwrap().status(), 404);
}
