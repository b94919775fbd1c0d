//! Storage as Spin 4 serves it (a new SQLite connection for every open, see
//! tests/spin-host/src/sqlite.rs): what a client was told is stored survives a
//! `kill -9` of the host, many writers at once all succeed, and work that does
//! not start with a request (the cron dispatcher) brings the schema up too.

use e2e::*;
use serde_json::{json, Value};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn project() -> Value {
    json!({
        "project_name": "Durable study",
        "project_objective": "Understand why shoppers abandon the checkout on mobile devices",
        "research_questions": "Why do shoppers leave the checkout? What would make them finish?",
        "success_criteria": "Three validated reasons for abandonment with supporting quotes",
        "recruiting_criteria": "Online shoppers aged 25-45 who bought on mobile in the last month",
    })
}

#[test]
fn an_acknowledged_project_survives_kill_9_of_the_host() {
    let state = tempfile::tempdir().unwrap();
    let partner_key = format!("sk-partner-test-{}", uuid::Uuid::new_v4().simple());
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let base = format!("http://127.0.0.1:{port}");
    // The host as its own process, so that it can be killed without warning.
    let mut host = Command::new(workspace_root().join("target/debug/spin-host"))
        .args(["up", "--no-cron", "--listen", &format!("127.0.0.1:{port}"), "--from"])
        .arg(workspace_root().join("spin.toml"))
        .arg("--state-dir")
        .arg(state.path())
        .envs(default_variables(&partner_key).into_iter().map(|(k, v)| (format!("SPIN_VARIABLE_{}", k.to_uppercase()), v)))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("target/debug/spin-host is built (make build)");
    let client = reqwest::blocking::Client::new();
    let deadline = Instant::now() + Duration::from_secs(120);
    while client.get(format!("{base}/.well-known/spin/health")).send().is_err() {
        assert!(Instant::now() < deadline, "the host did not come up");
        std::thread::sleep(Duration::from_millis(50));
    }
    let (status, tenant) = json_of(
        client
            .post(format!("{base}/v1/tenants"))
            .header("X-Api-Key", &partner_key)
            .header("X-Tenant-Id", PARTNER_TENANT_ID)
            .json(&json!({"organization_name": "Durable Org", "contact_email": "ops@durable.example"}))
            .send()
            .unwrap(),
    );
    assert_eq!(status, 201, "{tenant}");
    let tenant = TenantCredentials {
        tenant_id: tenant["tenant_id"].as_str().unwrap().into(),
        api_key: tenant["api_key"].as_str().unwrap().into(),
    };
    let (status, created) = json_of(client.post(format!("{base}/v1/projects")).auth(&tenant).json(&project()).send().unwrap());
    assert_eq!(status, 201, "{created}");

    host.kill().unwrap(); // SIGKILL: no shutdown, no checkpoint
    host.wait().unwrap();

    let app = TestApp::start_in(state.path(), &[("partner_api_key", partner_key.as_str())]);
    let (status, read) =
        json_of(app.get(&format!("/v1/projects/{}", created["project_id"].as_str().unwrap())).auth(&tenant).send().unwrap());
    assert_eq!(status, 200, "the tenant's key and the project are both still there: {read}");
    assert_eq!(read["project_name"], "Durable study");
}

#[test]
fn sixty_four_concurrent_writers_all_succeed() {
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..64)
            .map(|_| {
                scope.spawn(|| {
                    let client = reqwest::blocking::Client::new();
                    (0..3)
                        .map(|_| client.post(app.url("/v1/projects")).auth(&tenant).json(&project()).send().unwrap().status().as_u16())
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        writers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    });
    assert!(statuses.iter().all(|&s| s == 201), "no database-locked 5xx: {statuses:?}");
    let (status, list) = json_of(app.get("/v1/projects").auth(&tenant).send().unwrap());
    assert_eq!(status, 200);
    assert_eq!(list["data"].as_array().unwrap().len(), 64 * 3);
}

#[test]
fn a_burst_of_first_requests_on_a_fresh_database_all_succeed() {
    use std::sync::atomic::{AtomicBool, Ordering};
    // Every request of the burst finds no schema and migrates; none may answer
    // 500, even with a reader of the file (an operator's `sqlite3`) at work.
    for round in 0..6 {
        let app = TestApp::start(&[]);
        let reading = AtomicBool::new(true);
        let statuses: Vec<u16> = std::thread::scope(|scope| {
            scope.spawn(|| {
                while reading.load(Ordering::Relaxed) {
                    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
                    if let Ok(conn) = rusqlite::Connection::open_with_flags(app.sqlite_path(), flags) {
                        let _ = conn.query_row("SELECT count(*) FROM sqlite_master", [], |row| row.get::<_, i64>(0));
                    }
                }
            });
            let creators: Vec<_> = (0..32)
                .map(|n| {
                    let app = &app;
                    scope.spawn(move || {
                        let body = json!({"organization_name": format!("Burst {round} {n}"), "contact_email": "ops@burst.example"});
                        app.create_tenant_raw(&body).status().as_u16()
                    })
                })
                .collect();
            let statuses = creators.into_iter().map(|c| c.join().unwrap()).collect();
            reading.store(false, Ordering::Relaxed);
            statuses
        });
        assert!(statuses.iter().all(|&s| s == 201), "round {round}: {statuses:?}");
    }
}

#[test]
fn the_dispatcher_brings_a_fresh_database_up_to_date() {
    let state = tempfile::tempdir().unwrap();
    let app = TestApp::start_in(state.path(), &[]);
    // No request has run the rate-limit statement (which migrates on the way).
    app.host.run_cron("maintenance").expect("the dispatcher runs on a fresh database");
    let conn = rusqlite::Connection::open_with_flags(app.sqlite_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |row| row.get(0)).unwrap();
    assert!(version > 0, "migrated");
    assert_eq!(mode, "wal");
}
