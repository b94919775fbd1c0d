//! The interviewee side tried as an attacker with nothing but a link
//! (issue 26): a project's id opens no sandbox, bursts from one address or
//! on one session meet their budgets without touching anyone else, and a
//! project's model budget per day holds, the built-in interviewer taking over.

use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

fn page_status(app: &TestApp, path: &str) -> StatusCode {
    app.get(path).send().unwrap().status()
}

fn path_of(app: &TestApp, url: &str) -> String {
    url.strip_prefix(&app.url("")).unwrap_or_else(|| panic!("{url} is not on this app")).to_string()
}

fn interview_count(app: &TestApp, project_id: &str) -> i64 {
    database(app).query_row("SELECT COUNT(*) FROM interviews WHERE project_id = ?", [project_id], |r| r.get(0)).unwrap()
}

#[test]
fn a_project_id_alone_opens_no_sandbox() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let draft = create_project(app, &tenant, &project_body(json!({})));
    let other = create_project(app, &tenant, &project_body(json!({})));
    let (_, unknown) = start_raw(app, &start_body(&uuid::Uuid::new_v4().to_string(), "sandbox"));
    assert_detail_error(&unknown, "not_found");

    // What the issue replayed: anonymous sandbox starts of a draft, many times
    // over, with no token, a made-up one, another project's or a near miss.
    let (_, other_token) = sandbox_link(app, &tenant, &other);
    let (link, token) = sandbox_link(app, &tenant, &draft);
    let near_miss = format!("{}{}", &token[..21], if token.ends_with('A') { "B" } else { "A" });
    for sandbox_token in [Value::Null, json!("x".repeat(22)), json!(other_token), json!(near_miss), json!("")] {
        for _ in 0..3 {
            let (status, body) = start_raw(
                app,
                &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": sandbox_token, "mode": "typing"}),
            );
            assert_eq!(status, 404, "{sandbox_token}: {body}");
            assert_eq!(body, unknown, "refused exactly like an unknown project");
        }
    }
    for path in [format!("/i/{draft}?env=sandbox"), format!("/i/{draft}?env=sandbox&sandbox_token={other_token}")] {
        assert_eq!(page_status(app, &path), 404, "{path}");
    }
    assert_eq!(interview_count(app, &draft), 0, "no interview was written");
    let (_, listed) = json_of(app.get(&format!("/v1/interviews?project_id={draft}&environment=sandbox")).auth(&tenant).send().unwrap());
    assert_eq!(listed["data"], json!([]));

    // The tenant's own link opens it, page and start.
    assert_eq!(page_status(app, &path_of(app, &link)), 200);
    let mut running = Session::start(app, &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": token}));
    assert_eq!(running.body["environment"], "sandbox");
    // A production start needs no token, and the draft is closed to it.
    assert_eq!(start_raw(app, &start_body(&draft, "production")).0, 409);

    // Rotation revokes every sandbox link of the tenant; running interviews go on.
    let (status, rotated) = json_of(app.post("/v1/sandbox-links/rotate").auth(&tenant).send().unwrap());
    assert_eq!(status, 200, "{rotated}");
    assert!(rotated["rotated_at"].as_str().is_some_and(|at| at.ends_with('Z')), "{rotated}");
    assert_eq!(page_status(app, &path_of(app, &link)), 404);
    let (status, body) = start_raw(app, &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": token}));
    assert_eq!((status, body), (StatusCode::NOT_FOUND, unknown.clone()));
    let (status, body) = start_raw(app, &json!({"project_id": other, "environment": "sandbox", "sandbox_token": other_token}));
    assert_eq!((status, body), (StatusCode::NOT_FOUND, unknown.clone()), "every project's link");
    running.answer(app, "We chose the daycare closest to my office, mostly because of the commute.");
    let (new_link, new_token) = sandbox_link(app, &tenant, &draft);
    assert_ne!(new_token, token);
    assert_eq!(page_status(app, &path_of(app, &new_link)), 200);
    Session::start(app, &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": new_token}));

    // Another tenant: its own secret (its rotation is no business of this one's), and no way in.
    let stranger = app.create_tenant();
    assert_eq!(json_of(app.post("/v1/sandbox-links/rotate").auth(&stranger).send().unwrap()).0, 200);
    assert_eq!(page_status(app, &path_of(app, &new_link)), 200);
    assert_eq!(json_of(app.get(&format!("/v1/projects/{draft}/url?environment=sandbox")).auth(&stranger).send().unwrap()).0, 404);
    assert_eq!(json_of(app.post("/v1/sandbox-links/rotate").send().unwrap()).0, 401);
    assert_eq!(interview_count(app, &draft), 2);
}
