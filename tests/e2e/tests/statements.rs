//! What the hot routes cost in statements, counted by libSQL's server: on
//! libSQL each statement is a round trip, and under Spin 4 on a local file
//! each is a hop to a blocking thread and back (docs/design-decisions.md,
//! "What a request costs"). A route that starts reading something twice shows
//! here first.
//!
//! Skipped, saying so, when no sqld is at hand (see `e2e::services::Sqld`).

use e2e::services::Sqld;
use e2e::sessions::{active_project, Session};
use e2e::{Authenticated, TestApp};
use serde_json::json;
use std::time::Duration;

/// The statements sqld counted for `request`: the fewest of three tries, as
/// the first request of a client in a minute also clears old rate-limit windows.
fn statements_of(sqld: &Sqld, mut request: impl FnMut()) -> u64 {
    (0..3)
        .map(|_| {
            let before = settled_count(sqld);
            request();
            settled_count(sqld) - before
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
    let get_project = statements_of(&sqld, || {
        let response = app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap();
        assert_eq!(response.status(), 200);
    });
    assert_eq!(get_project, 2, "GET /v1/projects/{{id}}");

    // The admission (the route's own budget in the same upsert), the insert.
    let create = statements_of(&sqld, || {
        let response = app.post("/v1/projects").auth(&tenant).json(&e2e::sessions::project_body(json!({}))).send().unwrap();
        assert_eq!(response.status(), 201);
    });
    assert_eq!(create, 2, "POST /v1/projects");

    // The admission, the interview (its token), its turns, its project.
    let get_session = statements_of(&sqld, || assert_eq!(session.get(&app).0, 200));
    assert_eq!(get_session, 4, "GET /v1/sessions/{{id}}");

    // The admission, the interview, its project and its turns; then one
    // transaction: BEGIN, the interview's counters, the new turns, COMMIT.
    // The body is built from what was read and written.
    let answer = statements_of(&sqld, || {
        session.answer(&app, "Hidden shipping costs at the last step make me leave.");
    });
    assert_eq!(answer, 8, "POST /v1/sessions/{{id}}/answers");
}
