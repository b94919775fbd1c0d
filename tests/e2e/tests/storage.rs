//! Storage as Spin 4 serves it (a new SQLite connection for every open, see
//! tests/spin-host/src/sqlite.rs): what a client was told is stored survives a
//! `kill -9` of the host, many writers at once all succeed, and work that does
//! not start with a request (the cron dispatcher) brings the schema up too.

use e2e::*;
use serde_json::{json, Value};
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
    e2e::on_spin_sqlite("they check the local file's journal, pragmas and the cron component");
    let state = tempfile::tempdir().unwrap();
    // The runtime as its own process, so that it can be killed without warning.
    let mut host = TestApp::start_process(state.path(), &[], |_| {});
    let tenant = host.create_tenant();
    let (status, created) = json_of(host.post("/v1/projects").auth(&tenant).json(&project()).send().unwrap());
    assert_eq!(status, 201, "{created}");

    host.process().kill(); // SIGKILL: no shutdown, no checkpoint

    let app = TestApp::start_in(state.path(), &[("partner_api_key", host.partner_key.as_str())]);
    let (status, read) =
        json_of(app.get(&format!("/v1/projects/{}", created["project_id"].as_str().unwrap())).auth(&tenant).send().unwrap());
    assert_eq!(status, 200, "the tenant's key and the project are both still there: {read}");
    assert_eq!(read["project_name"], "Durable study");
}

#[test]
fn sixty_four_concurrent_writers_all_succeed() {
    e2e::on_spin_sqlite("they check the local file's journal, pragmas and the cron component");
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
    e2e::on_spin_sqlite("they check the local file's journal, pragmas and the cron component");
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

/// The first request on a fresh database migrates it; while another process
/// holds the write lock (an instance whose migration pass takes long on a
/// loaded machine) it waits past an ordinary statement's 2 s bound for it,
/// then answers as if nothing had happened.
#[test]
fn a_first_request_waits_for_a_migration_that_holds_the_lock_long() {
    e2e::on_spin_sqlite("they hold the local file's write lock from outside");
    let app = TestApp::start(&[]);
    let (locked, is_locked) = std::sync::mpsc::channel();
    let path = app.sqlite_path();
    let holder = std::thread::spawn(move || {
        let db = rusqlite::Connection::open(path).unwrap();
        db.execute_batch("BEGIN IMMEDIATE").unwrap();
        locked.send(Instant::now()).unwrap();
        std::thread::sleep(Duration::from_secs(4));
        db.execute_batch("ROLLBACK").unwrap();
    });
    let held_since = is_locked.recv().unwrap();
    let response = app.create_tenant_raw(&json!({"organization_name": "Patient", "contact_email": "ops@patient.example"}));
    let waited = held_since.elapsed();
    holder.join().unwrap();
    assert_eq!(response.status(), 201, "{}", response.text().unwrap());
    assert!(waited >= Duration::from_secs(4), "it answered once the lock was released, after {waited:?}");
}

#[test]
fn the_dispatcher_brings_a_fresh_database_up_to_date() {
    e2e::on_spin_sqlite("they check the local file's journal, pragmas and the cron component");
    let state = tempfile::tempdir().unwrap();
    // No request runs the rate-limit statement (which migrates on the way):
    // only the cron component, which the test host fires now and Spin's
    // cron plugin every 5 seconds.
    let app = TestApp::start_with(state.path(), &[], Runtime::selected().is_spin());
    if let Server::InProcess(host, _) = &app.host {
        host.run_cron("maintenance").expect("the dispatcher runs on a fresh database");
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    let migrated = || {
        let conn = rusqlite::Connection::open_with_flags(app.sqlite_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).ok()?;
        conn.query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0)).ok().filter(|version| *version > 0)
    };
    while migrated().is_none() {
        assert!(Instant::now() < deadline, "the cron component did not migrate the database within 30 s");
        std::thread::sleep(Duration::from_millis(100));
    }
    let conn = rusqlite::Connection::open_with_flags(app.sqlite_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let version: i64 = conn.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |row| row.get(0)).unwrap();
    assert!(version > 0, "migrated");
    assert_eq!(mode, "wal");
}
