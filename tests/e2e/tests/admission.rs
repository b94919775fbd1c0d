//! The request's count against its rate limits and its wait for the write
//! lock (docs/design-decisions.md, "Rate limits" and "Waiting for the write
//! lock"): exact when many requests race for a window's last room, whether
//! they are counted first (reads) or with their write (writes); a refused
//! write leaves nothing behind; a lock held past the wait's bound answers 503
//! with Retry-After and writes nothing; finished windows are forgotten by the
//! maintenance run, not by requests.

use e2e::{assert_detail_error, json_of, wait_for_fresh_window, Authenticated, TestApp};
use reqwest::StatusCode;
use serde_json::json;
use std::time::{Duration, Instant};

fn project_body(name: &str) -> serde_json::Value {
    e2e::sessions::project_body(json!({ "project_name": name }))
}

fn project_count(app: &TestApp, name: &str) -> i64 {
    let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
    db.query_row("SELECT COUNT(*) FROM projects WHERE project_name = ?", [name], |row| row.get(0)).unwrap()
}

#[test]
fn requests_racing_for_a_windows_last_room_are_counted_exactly() {
    const LIMIT: usize = 24;
    let app = TestApp::start(&[("trust_forwarded_for", "true"), ("rate_limit_per_minute", &LIMIT.to_string())]);
    let tenant = app.create_tenant();
    let project = json_of(app.post("/v1/projects").auth(&tenant).json(&project_body("Reference")).send().unwrap()).1;
    let project_id = project["project_id"].as_str().unwrap().to_string();
    wait_for_fresh_window(20);

    // Twice the limit at once from one address: reads (counted by their first
    // statement), creates (counted with their write) and failing creates
    // (counted on their own, after their 422).
    let address = "203.0.113.40";
    let statuses: Vec<(usize, StatusCode)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2 * LIMIT)
            .map(|n| {
                let (app, tenant, project_id) = (&app, &tenant, &project_id);
                scope.spawn(move || {
                    let request = match n % 3 {
                        0 => app.get(&format!("/v1/projects/{project_id}")).auth(tenant),
                        1 => app.post("/v1/projects").auth(tenant).json(&project_body("Raced")),
                        _ => app.post("/v1/projects").auth(tenant).json(&json!({ "project_name": "" })),
                    };
                    (n, request.header("x-forwarded-for", address).send().unwrap().status())
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    let refused = statuses.iter().filter(|(_, status)| *status == StatusCode::TOO_MANY_REQUESTS).count();
    assert_eq!(refused, LIMIT, "exactly the requests past the limit are refused: {statuses:?}");
    for (n, status) in &statuses {
        let expected = [StatusCode::OK, StatusCode::CREATED, StatusCode::UNPROCESSABLE_ENTITY][n % 3];
        assert!(*status == expected || *status == StatusCode::TOO_MANY_REQUESTS, "request {n}: {status}");
    }
    // A refused create wrote nothing: as many projects as creates answered 201.
    let created = statuses.iter().filter(|(_, status)| *status == StatusCode::CREATED).count();
    assert_eq!(project_count(&app, "Raced"), created as i64);
    // The window stays full for that address, and only for it.
    let response = app.get(&format!("/v1/projects/{project_id}")).auth(&tenant).header("x-forwarded-for", address).send().unwrap();
    assert_eq!(response.status(), 429);
    assert!(response.headers().contains_key("retry-after"));
    let response = app.get(&format!("/v1/projects/{project_id}")).auth(&tenant).header("x-forwarded-for", "203.0.113.41").send().unwrap();
    assert_eq!(response.status(), 200);
}

/// Holds the database's write lock from outside the runtime for `held`.
fn hold_write_lock(app: &TestApp, held: Duration) -> std::thread::JoinHandle<()> {
    let path = app.sqlite_path();
    let (locked, is_locked) = std::sync::mpsc::channel();
    let holder = std::thread::spawn(move || {
        let db = rusqlite::Connection::open(path).unwrap();
        db.execute_batch("BEGIN IMMEDIATE").unwrap();
        locked.send(()).unwrap();
        std::thread::sleep(held);
        db.execute_batch("ROLLBACK").unwrap();
    });
    is_locked.recv().unwrap();
    holder
}

#[test]
fn a_write_lock_held_past_the_bound_answers_503_and_writes_nothing() {
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let project = json_of(app.post("/v1/projects").auth(&tenant).json(&project_body("Reference")).send().unwrap()).1;
    let project_id = project["project_id"].as_str().unwrap().to_string();

    let holder = hold_write_lock(&app, Duration::from_secs(7));
    let started = Instant::now();
    let response = app.post("/v1/projects").auth(&tenant).json(&project_body("Blocked")).send().unwrap();
    let waited = started.elapsed();
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers().get("retry-after").and_then(|v| v.to_str().ok()), Some("1"));
    let (_, body) = json_of(response);
    assert_detail_error(&body, "storage_unavailable");
    // It waited for its bound (2 s), not for SQLite's 5 s busy timeout.
    assert!(waited >= Duration::from_millis(1900) && waited < Duration::from_millis(3900), "waited {waited:?}");
    // A read is counted first, which writes: it waits the same way.
    let response = app.get(&format!("/v1/projects/{project_id}")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 503);
    holder.join().unwrap();

    assert_eq!(project_count(&app, "Blocked"), 0, "the refused create wrote nothing");
    let response = app.post("/v1/projects").auth(&tenant).json(&project_body("After")).send().unwrap();
    assert_eq!(response.status(), 201, "the lock released, writes go through");
}

#[test]
fn a_lock_held_for_a_moment_is_waited_for() {
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let holder = hold_write_lock(&app, Duration::from_millis(300));
    let response = app.post("/v1/projects").auth(&tenant).json(&project_body("Waited")).send().unwrap();
    holder.join().unwrap();
    assert_eq!(response.status(), 201);
    assert_eq!(project_count(&app, "Waited"), 1);
}

#[test]
fn the_maintenance_run_forgets_finished_windows() {
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    assert_eq!(app.get("/v1/webhooks/event-types").auth(&tenant).send().unwrap().status(), 200);
    let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
    db.execute("INSERT INTO rate_limit_windows (bucket, window_start, count) VALUES ('all:192.0.2.1', 60, 3)", []).unwrap();
    let windows = |db: &rusqlite::Connection| -> (i64, i64) {
        db.query_row(
            "SELECT COUNT(*) FILTER (WHERE window_start = 60), COUNT(*) FILTER (WHERE window_start > 60) FROM rate_limit_windows",
            [],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap()
    };
    let (finished, current) = windows(&db);
    assert_eq!(finished, 1);
    assert!(current >= 1, "this minute's counts are stored");
    app.host.run_cron("maintenance").expect("the maintenance run succeeds");
    let (finished, current) = windows(&db);
    assert_eq!(finished, 0, "a finished window is forgotten");
    assert!(current >= 1, "this minute's counts stay");
}
