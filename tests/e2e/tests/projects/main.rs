//! Projects: create (explicit and generated), reads, merge patch, the state
//! machine and its outbox events, the shareable URL, validate-context, the
//! language model (against a fake OpenAI-compatible server), the create rate
//! limit, and tenant isolation. One file per area; the helpers and the
//! isolation tests are here.

use e2e::*;
use serde_json::{json, Value};
use e2e::fake_model::{FakeModel, ModelReply};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Helpers.

fn valid_project() -> Value {
    json!({
        "project_name": "Checkout study",
        "project_objective": "Understand why shoppers abandon the checkout on mobile devices",
        "research_questions": "Why do shoppers leave the checkout? What would make them finish?",
        "success_criteria": "Three validated reasons for abandonment with supporting quotes",
        "recruiting_criteria": "Online shoppers aged 25-45 who bought on mobile in the last month",
    })
}

fn with(changes: Value) -> Value {
    let mut body = valid_project();
    for (key, value) in changes.as_object().unwrap() {
        body[key] = value.clone();
    }
    body
}

fn create(app: &TestApp, tenant: &TenantCredentials, body: &Value) -> (StatusCode, Value) {
    json_of(app.post("/v1/projects").auth(tenant).json(body).send().unwrap())
}

fn create_ok(app: &TestApp, tenant: &TenantCredentials, body: &Value) -> String {
    let (status, created) = create(app, tenant, body);
    assert_eq!(status, 201, "{created}");
    assert_eq!(created.as_object().unwrap().len(), 1, "only project_id: {created}");
    let id = created["project_id"].as_str().unwrap().to_string();
    assert!(uuid::Uuid::parse_str(&id).is_ok(), "{id}");
    id
}

fn get(app: &TestApp, tenant: &TenantCredentials, id: &str) -> (StatusCode, Value) {
    json_of(app.get(&format!("/v1/projects/{id}")).auth(tenant).send().unwrap())
}

fn detail(app: &TestApp, tenant: &TenantCredentials, id: &str) -> Value {
    let (status, body) = get(app, tenant, id);
    assert_eq!(status, 200, "{body}");
    body
}

fn list(app: &TestApp, tenant: &TenantCredentials) -> Vec<Value> {
    let (status, body) = json_of(app.get("/v1/projects").auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    assert_eq!(body.as_object().unwrap().len(), 1, "only data: {body}");
    body["data"].as_array().unwrap().clone()
}

fn list_item(app: &TestApp, tenant: &TenantCredentials, id: &str) -> Value {
    list(app, tenant).into_iter().find(|p| p["project_id"] == id).expect("the project is listed")
}

fn patch(app: &TestApp, tenant: &TenantCredentials, id: &str, body: &Value) -> (StatusCode, Value) {
    json_of(app.request("PATCH", &format!("/v1/projects/{id}")).auth(tenant).json(body).send().unwrap())
}

fn act(app: &TestApp, tenant: &TenantCredentials, id: &str, action: &str) -> (StatusCode, Value) {
    json_of(app.post(&format!("/v1/projects/{id}/{action}")).auth(tenant).send().unwrap())
}

fn url_of(app: &TestApp, tenant: &TenantCredentials, id: &str, query: &str) -> (StatusCode, Value) {
    json_of(app.get(&format!("/v1/projects/{id}/url{query}")).auth(tenant).send().unwrap())
}

fn keys(value: &Value) -> Vec<String> {
    let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    keys
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    names.sort();
    names
}

/// The 422 body has exactly these `(loc, type)` entries, in order, each with a message.
fn assert_422(status: StatusCode, body: &Value, expected: &[(Value, &str)]) {
    assert_eq!(status, 422, "{body}");
    let entries = body["detail"].as_array().unwrap_or_else(|| panic!("detail list: {body}"));
    let actual: Vec<(Value, String)> = entries
        .iter()
        .map(|e| {
            assert!(e["msg"].as_str().is_some_and(|m| !m.is_empty()), "msg in {e}");
            (e["loc"].clone(), e["type"].as_str().unwrap().to_string())
        })
        .collect();
    let expected: Vec<(Value, String)> = expected.iter().map(|(l, t)| (l.clone(), t.to_string())).collect();
    assert_eq!(actual, expected, "{body}");
}

/// One create request with `changes` gives exactly one 422 entry at `loc` of `kind`.
fn assert_create_error(app: &TestApp, tenant: &TenantCredentials, changes: Value, loc: Value, kind: &str) {
    let (status, body) = create(app, tenant, &with(changes));
    assert_422(status, &body, &[(loc, kind)]);
}

fn setup() -> (&'static TestApp, TenantCredentials) {
    let app = shared_app();
    let tenant = app.create_tenant();
    (app, tenant)
}

#[derive(Debug)]
struct Event {
    event_id: String,
    tenant_id: String,
    event_type: String,
    payload: Value,
    created_at: String,
}

/// The outbox rows about one project, oldest first (read-only on the app's SQLite file).
fn events_for(app: &TestApp, project_id: &str) -> Vec<Event> {
    let conn = rusqlite::Connection::open_with_flags(
        app.sqlite_path(),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    let mut statement = conn
        .prepare(
            "SELECT event_id, tenant_id, event_type, payload, created_at FROM events
             WHERE json_extract(payload, '$.project_id') = ? ORDER BY created_at, rowid",
        )
        .unwrap();
    statement
        .query_map([project_id], |row| {
            Ok(Event {
                event_id: row.get(0)?,
                tenant_id: row.get(1)?,
                event_type: row.get(2)?,
                payload: serde_json::from_str(&row.get::<_, String>(3)?).unwrap(),
                created_at: row.get(4)?,
            })
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

fn is_rfc3339_millis_z(text: &str) -> bool {
    text.len() == 24 && text.ends_with('Z') && text.as_bytes()[10] == b'T' && text.as_bytes()[19] == b'.'
}

mod reads;
mod validation;
mod patch;
mod states;
mod context;

// ---------------------------------------------------------------------------
// Rate limit and isolation.

#[test]
fn project_creation_has_its_own_per_ip_limit() {
    let app = TestApp::start(&[("project_create_rate_limit_per_minute", "2")]);
    let tenant = app.create_tenant();
    wait_for_fresh_window(15);
    let statuses: Vec<u16> = (0..3).map(|_| create(&app, &tenant, &valid_project()).0.as_u16()).collect();
    assert_eq!(statuses, vec![201, 201, 429]);
    let response = app.post("/v1/projects").auth(&tenant).json(&valid_project()).send().unwrap();
    assert_eq!(response.status(), 429);
    let retry_after: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
    assert!((1..=60).contains(&retry_after));
    let (_, body) = json_of(response);
    assert_detail_error(&body, "rate_limited");
    // Other routes keep working.
    assert_eq!(list(&app, &tenant).len(), 2);
}

#[test]
fn another_tenants_project_is_404_on_every_route() {
    let (app, owner) = setup();
    let intruder = app.create_tenant();
    let id = create_ok(app, &owner, &with(json!({"project_description": "Secret"})));
    act(app, &owner, &id, "activate");
    let before = detail(app, &owner, &id);

    let (status, body) = get(app, &intruder, &id);
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
    let (status, body) = patch(app, &intruder, &id, &json!({"project_name": "Hijacked"}));
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
    for action in ["activate", "deactivate", "complete"] {
        let (status, body) = act(app, &intruder, &id, action);
        assert_eq!(status, 404, "{action}");
        assert_detail_error(&body, "not_found");
    }
    for environment in ["sandbox", "production"] {
        let (status, body) = url_of(app, &intruder, &id, &format!("?environment={environment}"));
        assert_eq!(status, 404);
        assert_detail_error(&body, "not_found");
    }
    assert!(list(app, &intruder).is_empty());

    assert_eq!(detail(app, &owner, &id), before, "nothing changed");
    assert_eq!(list_item(app, &owner, &id)["project_name"], "Checkout study");
    assert_eq!(events_for(app, &id).len(), 1, "only the owner's publication");
}

#[test]
fn the_list_filters_by_status_instead_of_showing_it() {
    let (app, tenant) = setup();
    let draft = create_ok(app, &tenant, &with(json!({})));
    let active = create_ok(app, &tenant, &with(json!({})));
    act(app, &tenant, &active, "activate");
    let paused = create_ok(app, &tenant, &with(json!({})));
    act(app, &tenant, &paused, "activate");
    act(app, &tenant, &paused, "deactivate");
    let ids_for = |query: &str| -> Vec<String> {
        let (status, body) = json_of(app.get(&format!("/v1/projects{query}")).auth(&tenant).send().unwrap());
        assert_eq!(status, 200, "{body}");
        body["data"].as_array().unwrap().iter().map(|p| p["project_id"].as_str().unwrap().to_string()).collect()
    };
    assert_eq!(ids_for("?status=active"), vec![active.clone()]);
    assert_eq!(ids_for("?status=draft&status=paused"), vec![paused.clone(), draft.clone()]);
    assert_eq!(ids_for("?status=completed"), Vec::<String>::new());
    assert_eq!(ids_for("").len(), 3);
    let (status, body) = json_of(app.get("/v1/projects?status=archived").auth(&tenant).send().unwrap());
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["query", "status"]));
    assert_eq!(body["detail"][0]["msg"], "Input should be 'draft', 'active', 'paused' or 'completed'");
}
