//! What the hot routes cost in statements, counted by libSQL's server: on
//! Spin's libSQL backend each statement is a round trip, and under Spin 4 on a
//! local file each is a hop to a blocking thread and back
//! (docs/design-decisions.md, "What a request costs"). A route that starts
//! reading something twice shows here first. And what they cost in round
//! trips on the records over HTTP (the edge manifest, `database_url`), counted
//! by a relay in front of sqld: statements travel together there.
//!
//! Skipped, saying so, when no sqld is at hand (see `e2e::services::Sqld`).

use e2e::services::{Relay, Sqld};
use e2e::sessions::{active_project, Session};
use e2e::{Authenticated, TestApp};
use serde_json::json;
use std::time::Duration;

/// What `count` (sqld's statements, a relay's requests) grew by over
/// `request`: the fewest of three tries, as the first request of a client in
/// a minute also clears old rate-limit windows.
fn fewest_of(count: impl Fn() -> u64, mut request: impl FnMut()) -> u64 {
    (0..3)
        .map(|_| {
            let before = count();
            request();
            count() - before
        })
        .min()
        .unwrap()
}

/// sqld's count once it stops moving (it counts a statement as it finishes).
fn settled_count(sqld: &Sqld) -> u64 {
    let mut last = sqld.query_count();
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let now = sqld.query_count();
        if now == last {
            return now;
        }
        last = now;
    }
}

#[test]
fn each_hot_route_makes_only_the_statements_it_needs() {
    e2e::on_spin_sqlite("it counts the statements of Spin's own libSQL backend");
    let Some(sqld) = Sqld::start_or_skip("each_hot_route_makes_only_the_statements_it_needs") else { return };
    let config = sqld.runtime_config("");
    let state = tempfile::tempdir().unwrap();
    let file = config.path().join("runtime-config.toml");
    let app = TestApp::start_configured(state.path(), &[("database_backend", "libsql")], |host| {
        host.runtime_config_file = Some(file.clone())
    });
    let tenant = app.create_tenant();
    let project = active_project(&app, &tenant, json!({}));
    let mut session = Session::start(&app, &json!({ "project_id": project }));

    // The admission (counting, the schema version and the tenant's key hash in
    // one statement), then the project.
    let get_project = fewest_of(|| settled_count(&sqld), || {
        let response = app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap();
        assert_eq!(response.status(), 200);
    });
    assert_eq!(get_project, 2, "GET /v1/projects/{{id}}");

    // The admission (the route's own budget in the same upsert), the insert.
    let create = fewest_of(|| settled_count(&sqld), || {
        let response = app.post("/v1/projects").auth(&tenant).json(&e2e::sessions::project_body(json!({}))).send().unwrap();
        assert_eq!(response.status(), 201);
    });
    assert_eq!(create, 2, "POST /v1/projects");

    // The admission, the interview (its token), its turns, its project.
    let get_session = fewest_of(|| settled_count(&sqld), || assert_eq!(session.get(&app).0, 200));
    assert_eq!(get_session, 4, "GET /v1/sessions/{{id}}");

    // The admission, the interview, its project and its turns; then one
    // transaction: BEGIN, the interview's counters, the new turns, COMMIT.
    // The body is built from what was read and written.
    let answer = fewest_of(|| settled_count(&sqld), || {
        session.answer(&app, "Hidden shipping costs at the last step make me leave.");
    });
    assert_eq!(answer, 8, "POST /v1/sessions/{{id}}/answers");
}

#[test]
fn each_hot_route_takes_few_round_trips_over_http() {
    let Some(sqld) = Sqld::start_or_skip("each_hot_route_takes_few_round_trips_over_http") else { return };
    let counter = Relay::start(sqld.port);
    let url = counter.url();
    let state = tempfile::tempdir().unwrap();
    let app = TestApp::start_configured(state.path(), &[("database_url", url.as_str())], |_| {});
    let tenant = app.create_tenant();
    let project = active_project(&app, &tenant, json!({}));
    let mut session = Session::start(&app, &json!({ "project_id": project }));

    // The admission travels with the project's read: one exchange.
    let get_project = fewest_of(|| counter.requests(), || {
        let response = app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap();
        assert_eq!(response.status(), 200);
    });
    assert_eq!(get_project, 1, "GET /v1/projects/{{id}}");

    // A 401 is decided on the same exchange, and the read's rows go nowhere.
    let refused = fewest_of(|| counter.requests(), || {
        let response = app.get(&format!("/v1/projects/{project}")).header("X-Api-Key", "irs_wrong").header("X-Tenant-Id", &tenant.tenant_id).send().unwrap();
        assert_eq!(response.status(), 401);
    });
    assert_eq!(refused, 1, "GET /v1/projects/{{id}} with a wrong key");

    // The admission (decided before the body is read), then the insert.
    let create = fewest_of(|| counter.requests(), || {
        let response = app.post("/v1/projects").auth(&tenant).json(&e2e::sessions::project_body(json!({}))).send().unwrap();
        assert_eq!(response.status(), 201);
    });
    assert!(create <= 2, "POST /v1/projects: {create}");

    // The admission with the interview (its token), then its turns and project together.
    let get_session = fewest_of(|| counter.requests(), || assert_eq!(session.get(&app).0, 200));
    assert!(get_session <= 2, "GET /v1/sessions/{{id}}: {get_session}");

    // The admission with the interview, the project with the turns, then the
    // transaction as one batch.
    let answer = fewest_of(|| counter.requests(), || {
        session.answer(&app, "Hidden shipping costs at the last step make me leave.");
    });
    assert!(answer <= 3, "POST /v1/sessions/{{id}}/answers: {answer}");
    eprintln!("round trips over HTTP: GET project {get_project}, POST project {create}, GET session {get_session}, answer {answer}");
}
