//! Projects: create (explicit and generated), reads, merge patch, the state
//! machine and its outbox events, the shareable URL, validate-context, the
//! language model (against a fake OpenAI-compatible server), the create rate
//! limit, and tenant isolation.

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

// ---------------------------------------------------------------------------
// Create and read.

#[test]
fn create_returns_201_and_applies_every_default() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let project = detail(app, &tenant, &id);
    assert_eq!(project["project_id"], id.as_str());
    assert_eq!(project["project_type"], "contextual_interview");
    assert_eq!(project["interview_modes"], json!(["talking"]));
    assert_eq!(project["camera_access"], "not_allowed");
    assert!(project["logo_url"].as_str().is_some_and(|u| u.starts_with("https://")), "{project}");
    assert_eq!(project["primary_color"], "#6759DF");
    assert_eq!(project["interview_languages"], json!(["en"]));
    assert_eq!(project["interview_length"], 10);
    assert_eq!(project["screeners"], Value::Null);
    assert_eq!(project["specific_guidelines"], Value::Null);
    assert_eq!(project["project_description"], Value::Null);
    assert_eq!(project["redirect_url"], Value::Null);
    assert_eq!(project["max_interviews"], Value::Null);
    assert_eq!(project["data_retention_days"], Value::Null, "kept until erased");
    assert_eq!(project["status"], "draft");
    assert_eq!(project["project_objective"], valid_project()["project_objective"]);
    assert_eq!(project["recruiting_criteria"], valid_project()["recruiting_criteria"]);
}

#[test]
fn create_keeps_every_given_field() {
    let (app, tenant) = setup();
    let body = with(json!({
        "project_type": "contextual_interview",
        "creation_mode": "explicit",
        "project_description": "Q3 checkout research",
        "specific_guidelines": "Be brief and friendly",
        "redirect_url": "https://shop.example.com/thanks",
        "interview_modes": ["typing", "talking"],
        "camera_access": "optional",
        "logo_url": "https://cdn.example.com/logo.png",
        "primary_color": "#112233AA",
        "interview_languages": ["de", "fr"],
        "interview_length": 20,
        "screeners": {"screener_blocks": [{"question": "Do you shop online?"}], "screen_out_url": "https://shop.example.com/sorry"},
        "max_interviews": 25,
        "data_retention_days": 180,
        "unknown_field": "ignored",
    }));
    let id = create_ok(app, &tenant, &body);
    let project = detail(app, &tenant, &id);
    for field in [
        "project_description", "specific_guidelines", "redirect_url", "interview_modes", "camera_access", "logo_url",
        "primary_color", "interview_languages", "interview_length", "screeners", "max_interviews", "data_retention_days",
    ] {
        assert_eq!(project[field], body[field], "{field}");
    }
    assert!(project.get("unknown_field").is_none());
}

#[test]
fn explicit_nulls_keep_nullable_fields_empty() {
    let (app, tenant) = setup();
    let body = with(json!({"logo_url": null, "primary_color": null, "interview_modes": null, "interview_languages": null, "interview_length": null, "creation_mode": null}));
    let project = detail(app, &tenant, &create_ok(app, &tenant, &body));
    assert_eq!(project["logo_url"], Value::Null);
    assert_eq!(project["primary_color"], Value::Null);
    assert_eq!(project["interview_modes"], json!(["talking"]), "a list that reads never show as null gets its default");
    assert_eq!(project["interview_languages"], json!(["en"]));
    assert_eq!(project["interview_length"], 10);
}

#[test]
fn list_and_single_reads_have_their_own_fields() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &with(json!({"project_description": "Internal note"})));
    let project = detail(app, &tenant, &id);
    assert_eq!(
        keys(&project),
        sorted(&[
            "project_id", "project_type", "project_objective", "research_questions", "success_criteria",
            "recruiting_criteria", "specific_guidelines", "project_description", "redirect_url", "interview_modes",
            "camera_access", "logo_url", "primary_color", "screeners", "interview_languages", "interview_length",
            "status", "max_interviews",
            // additive: what can be written can be read back (not created_at: the contract
            // has it "in the project list only")
            "data_retention_days", "project_name", "secondary_color", "text_color",
            // additive, read-only: the day's language-model calls and their budget
            "model_calls",
        ])
    );
    assert_eq!(project["project_name"], "Checkout study");
    assert_eq!(project["secondary_color"], Value::Null);
    let item = list_item(app, &tenant, &id);
    assert_eq!(
        keys(&item),
        sorted(&[
            "project_id", "project_type", "project_name", "project_description", "created_at", "redirect_url",
            "interview_modes", "camera_access", "logo_url", "primary_color",
        ])
    );
    assert_eq!(item["project_name"], "Checkout study");
    assert_eq!(item["project_description"], "Internal note");
    assert!(is_rfc3339_millis_z(item["created_at"].as_str().unwrap()), "{item}");
}

#[test]
fn the_list_is_newest_first_and_holds_only_the_tenants_projects() {
    let (app, tenant) = setup();
    let other = app.create_tenant();
    assert_eq!(list(app, &tenant), Vec::<Value>::new());
    let first = create_ok(app, &tenant, &valid_project());
    std::thread::sleep(Duration::from_millis(5));
    let second = create_ok(app, &tenant, &valid_project());
    let foreign = create_ok(app, &other, &valid_project());
    let ids: Vec<String> = list(app, &tenant).iter().map(|p| p["project_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(ids, vec![second, first]);
    let other_ids: Vec<Value> = list(app, &other).iter().map(|p| p["project_id"].clone()).collect();
    assert_eq!(other_ids, vec![json!(foreign)]);
}

/// One page of the list: its project ids and `next_cursor` (which must be present).
fn page(app: &TestApp, tenant: &TenantCredentials, query: &str) -> (Vec<String>, Option<String>) {
    let (status, body) = json_of(app.get(&format!("/v1/projects?{query}")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    assert_eq!(keys(&body), sorted(&["data", "next_cursor"]), "{body}");
    let ids = body["data"].as_array().unwrap().iter().map(|p| p["project_id"].as_str().unwrap().to_string()).collect();
    (ids, body["next_cursor"].as_str().map(String::from))
}

#[test]
fn pages_neither_skip_nor_repeat_while_projects_arrive() {
    let (app, tenant) = setup();
    for _ in 0..7 {
        create_ok(app, &tenant, &valid_project());
    }
    let everything: Vec<String> = list(app, &tenant).iter().map(|p| p["project_id"].as_str().unwrap().to_string()).collect();
    assert_eq!(everything.len(), 7);

    let mut walked = Vec::new();
    let mut arrived = Vec::new();
    let (mut ids, mut cursor) = page(app, &tenant, "limit=3");
    loop {
        assert!(ids.len() <= 3, "{ids:?}");
        walked.extend(ids);
        let Some(next) = cursor else { break };
        // A project created between two pages is newer than every cursor.
        arrived.push(create_ok(app, &tenant, &valid_project()));
        (ids, cursor) = page(app, &tenant, &format!("limit=3&cursor={next}"));
    }
    assert_eq!(walked, everything, "the list as it was, in order, once each");
    assert_eq!(arrived.len(), 2, "three pages: 3 + 3 + 1");

    // The new projects lead the next walk; a cursor alone gives the rest of the list.
    let (first, cursor) = page(app, &tenant, "limit=2");
    arrived.reverse();
    assert_eq!(first, arrived);
    let (rest, last) = page(app, &tenant, &format!("cursor={}", cursor.unwrap()));
    assert_eq!(rest, everything);
    assert_eq!(last, None);
    // A page that ends exactly at the end says so.
    let (all, none) = page(app, &tenant, "limit=9");
    assert_eq!(all.len(), 9);
    assert_eq!(none, None);
}

#[test]
fn bad_paging_parameters_are_422_at_their_query_location() {
    let (app, tenant) = setup();
    let get = |query: &str| json_of(app.get(&format!("/v1/projects?{query}")).auth(&tenant).send().unwrap());
    let limit = json!(["query", "limit"]);
    let cursor = json!(["query", "cursor"]);
    let (status, body) = get("limit=0");
    assert_422(status, &body, &[(limit.clone(), "greater_than_equal")]);
    let (status, body) = get("limit=1001");
    assert_422(status, &body, &[(limit.clone(), "less_than_equal")]);
    let (status, body) = get("limit=ten");
    assert_422(status, &body, &[(limit.clone(), "int_parsing")]);
    // Both at once; a cursor must be one the list made, not any text.
    let (status, body) = get("limit=-1&cursor=not-a-cursor");
    assert_422(status, &body, &[(limit.clone(), "greater_than_equal"), (cursor.clone(), "value_error")]);
    let forged = "MjAyNi0xMS0yMSAxMzo0NToxMloge30"; // base64url of text that is no cursor
    let (status, body) = get(&format!("cursor={forged}"));
    assert_422(status, &body, &[(cursor, "value_error")]);
    let (status, _) = get("limit=1000");
    assert_eq!(status, 200);
}

#[test]
fn reads_need_credentials() {
    let app = shared_app();
    let (status, body) = json_of(app.get("/v1/projects").send().unwrap());
    assert_eq!(status, 401);
    assert_detail_error(&body, "unauthorized");
}

#[test]
fn get_with_a_non_uuid_id_is_uuid_parsing_and_an_unknown_one_404() {
    let (app, tenant) = setup();
    let (status, body) = get(app, &tenant, "not-a-uuid");
    assert_422(status, &body, &[(json!(["path", "project_id"]), "uuid_parsing")]);
    let (status, body) = get(app, &tenant, &uuid::Uuid::new_v4().to_string());
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
}

#[test]
fn unknown_methods_are_405() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let response = app.request("DELETE", &format!("/v1/projects/{id}")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 405);
    assert_eq!(response.headers()["allow"], "GET, PATCH");
}

// ---------------------------------------------------------------------------
// Create validation: one test per rule.

#[test]
fn missing_required_fields_are_reported_together() {
    let (app, tenant) = setup();
    let (status, body) = create(app, &tenant, &json!({"interview_length": 10}));
    assert_422(
        status,
        &body,
        &[
            (json!(["body", "project_name"]), "missing"),
            (json!(["body", "project_objective"]), "missing"),
            (json!(["body", "research_questions"]), "missing"),
            (json!(["body", "success_criteria"]), "missing"),
            (json!(["body", "recruiting_criteria"]), "missing"),
        ],
    );
    assert_eq!(body["detail"][0]["msg"], "Field required");
}

#[test]
fn all_problems_of_one_request_come_at_once() {
    let (app, tenant) = setup();
    let (status, body) = create(
        app,
        &tenant,
        &with(json!({"project_name": "", "camera_access": "always", "interview_modes": ["talking", "singing"], "primary_color": "blue"})),
    );
    assert_422(
        status,
        &body,
        &[
            (json!(["body", "project_name"]), "string_too_short"),
            (json!(["body", "interview_modes", 1]), "enum"),
            (json!(["body", "camera_access"]), "enum"),
            (json!(["body", "primary_color"]), "string_pattern_mismatch"),
        ],
    );
}

#[test]
fn text_fields_must_not_be_empty() {
    let (app, tenant) = setup();
    for field in [
        "project_name", "project_objective", "research_questions", "success_criteria", "recruiting_criteria",
        "specific_guidelines", "project_description",
    ] {
        assert_create_error(app, &tenant, json!({ field: "" }), json!(["body", field]), "string_too_short");
    }
}

#[test]
fn text_fields_have_length_limits() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"project_name": "n".repeat(201)}), json!(["body", "project_name"]), "string_too_long");
    assert_eq!(create(app, &tenant, &with(json!({"project_name": "n".repeat(200)}))).0, 201);
    for field in ["project_objective", "research_questions", "success_criteria", "recruiting_criteria", "specific_guidelines", "project_description"] {
        assert_create_error(app, &tenant, json!({ field: "t".repeat(10_001) }), json!(["body", field]), "string_too_long");
    }
    assert_eq!(create(app, &tenant, &with(json!({"project_objective": "t".repeat(10_000)}))).0, 201);
}

#[test]
fn text_fields_must_be_strings() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"project_name": 42}), json!(["body", "project_name"]), "string_type");
    assert_create_error(app, &tenant, json!({"research_questions": ["a?"]}), json!(["body", "research_questions"]), "string_type");
    assert_create_error(app, &tenant, json!({"success_criteria": null}), json!(["body", "success_criteria"]), "string_type");
}

#[test]
fn project_types_are_contextual_interview_or_survey() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"project_type": "usability_testing"}), json!(["body", "project_type"]), "literal_error");
    let (_, body) = create(app, &tenant, &with(json!({"project_type": "prototype_test"})));
    assert_eq!(body["detail"][0]["msg"], "Input should be 'contextual_interview' or 'survey'");
    // A survey needs its blocks (docs/surveys.md; tests/surveys.rs has the rest).
    assert_create_error(app, &tenant, json!({"project_type": "survey"}), json!(["body", "survey_blocks"]), "missing");
}

#[test]
fn creation_mode_is_explicit_or_generated() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"creation_mode": "automatic"}), json!(["body", "creation_mode"]), "literal_error");
}

#[test]
fn interview_modes_items_are_checked_with_their_index() {
    let (app, tenant) = setup();
    let (status, body) = create(app, &tenant, &with(json!({"interview_modes": ["typing", "video", 7]})));
    assert_422(
        status,
        &body,
        &[(json!(["body", "interview_modes", 1]), "enum"), (json!(["body", "interview_modes", 2]), "enum")],
    );
    assert_eq!(body["detail"][0]["msg"], "Input should be 'typing' or 'talking'");
    assert_create_error(app, &tenant, json!({"interview_modes": "typing"}), json!(["body", "interview_modes"]), "list_type");
    assert_create_error(app, &tenant, json!({"interview_modes": []}), json!(["body", "interview_modes"]), "too_short");
}

#[test]
fn camera_access_is_an_enum() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"camera_access": "sometimes"}), json!(["body", "camera_access"]), "enum");
    let (_, body) = create(app, &tenant, &with(json!({"camera_access": "sometimes"})));
    assert_eq!(body["detail"][0]["msg"], "Input should be 'not_allowed', 'optional' or 'required'");
}

#[test]
fn colours_must_be_hex() {
    let (app, tenant) = setup();
    for bad in ["red", "#12345", "#1234567", "123456", "#GGGGGG"] {
        assert_create_error(app, &tenant, json!({"primary_color": bad}), json!(["body", "primary_color"]), "string_pattern_mismatch");
    }
    let (_, body) = create(app, &tenant, &with(json!({"primary_color": "red"})));
    assert_eq!(body["detail"][0]["msg"], "String should match pattern '^#(?:[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$'");
    assert_create_error(app, &tenant, json!({"primary_color": 123456}), json!(["body", "primary_color"]), "string_type");
    for good in ["#abcdef", "#ABCDEF12"] {
        assert_eq!(create(app, &tenant, &with(json!({"primary_color": good}))).0, 201);
    }
}

#[test]
fn redirect_url_must_be_an_https_url() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"redirect_url": "http://shop.example.com"}), json!(["body", "redirect_url"]), "string_pattern_mismatch");
    assert_create_error(app, &tenant, json!({"redirect_url": "https://"}), json!(["body", "redirect_url"]), "url_parsing");
    assert_create_error(app, &tenant, json!({"redirect_url": "https://exa mple.com"}), json!(["body", "redirect_url"]), "url_parsing");
    assert_create_error(app, &tenant, json!({"redirect_url": ""}), json!(["body", "redirect_url"]), "string_too_short");
    assert_create_error(app, &tenant, json!({"redirect_url": 5}), json!(["body", "redirect_url"]), "string_type");
}

#[test]
fn logo_url_is_an_http_url_of_at_most_2083_characters() {
    let (app, tenant) = setup();
    let longest = format!("https://cdn.example.com/{}", "a".repeat(2083 - 24));
    assert_eq!(longest.len(), 2083);
    assert_eq!(create(app, &tenant, &with(json!({"logo_url": longest}))).0, 201);
    assert_create_error(app, &tenant, json!({"logo_url": format!("{longest}b")}), json!(["body", "logo_url"]), "string_too_long");
    assert_create_error(app, &tenant, json!({"logo_url": ""}), json!(["body", "logo_url"]), "string_too_short");
    assert_create_error(app, &tenant, json!({"logo_url": "ftp://cdn.example.com/logo.png"}), json!(["body", "logo_url"]), "url_scheme");
    assert_create_error(app, &tenant, json!({"logo_url": "logo.png"}), json!(["body", "logo_url"]), "url_parsing");
}

#[test]
fn interview_length_is_10_15_or_20() {
    let (app, tenant) = setup();
    for bad in [json!(12), json!("10"), json!(10.5), json!(true)] {
        assert_create_error(app, &tenant, json!({"interview_length": bad}), json!(["body", "interview_length"]), "enum");
    }
    let (_, body) = create(app, &tenant, &with(json!({"interview_length": 30})));
    assert_eq!(body["detail"][0]["msg"], "Input should be 10, 15 or 20");
    for good in [10, 15, 20] {
        let id = create_ok(app, &tenant, &with(json!({"interview_length": good})));
        assert_eq!(detail(app, &tenant, &id)["interview_length"], good);
    }
}

#[test]
fn interview_languages_are_iso_codes_of_the_create_enum() {
    let (app, tenant) = setup();
    let (status, body) = create(app, &tenant, &with(json!({"interview_languages": ["en", "uk", "xx"]})));
    assert_422(
        status,
        &body,
        &[(json!(["body", "interview_languages", 1]), "enum"), (json!(["body", "interview_languages", 2]), "enum")],
    );
    assert_create_error(app, &tenant, json!({"interview_languages": "en"}), json!(["body", "interview_languages"]), "list_type");
    let all = json!(["en", "fr", "de", "es", "it", "ar", "ru", "ja", "he", "el"]);
    let id = create_ok(app, &tenant, &with(json!({"interview_languages": all})));
    assert_eq!(detail(app, &tenant, &id)["interview_languages"], all);
}

#[test]
fn max_interviews_is_1_to_100000_or_null() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"max_interviews": 0}), json!(["body", "max_interviews"]), "greater_than_equal");
    assert_create_error(app, &tenant, json!({"max_interviews": 100_001}), json!(["body", "max_interviews"]), "less_than_equal");
    assert_create_error(app, &tenant, json!({"max_interviews": "ten"}), json!(["body", "max_interviews"]), "int_type");
    let id = create_ok(app, &tenant, &with(json!({"max_interviews": 100_000})));
    assert_eq!(detail(app, &tenant, &id)["max_interviews"], 100_000);
}

#[test]
fn data_retention_days_is_1_to_3650_or_null() {
    let (app, tenant) = setup();
    let at = json!(["body", "data_retention_days"]);
    assert_create_error(app, &tenant, json!({"data_retention_days": 0}), at.clone(), "greater_than_equal");
    assert_create_error(app, &tenant, json!({"data_retention_days": 3651}), at.clone(), "less_than_equal");
    assert_create_error(app, &tenant, json!({"data_retention_days": "30 days"}), at.clone(), "int_type");
    let id = create_ok(app, &tenant, &with(json!({"data_retention_days": 3650})));
    assert_eq!(detail(app, &tenant, &id)["data_retention_days"], 3650);
    let (status, body) = patch(app, &tenant, &id, &json!({"data_retention_days": -1}));
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["loc"], at);
    assert_eq!(detail(app, &tenant, &id)["data_retention_days"], 3650, "a refused patch changes nothing");
    assert_eq!(patch(app, &tenant, &id, &json!({"data_retention_days": 1})).0, 200);
    assert_eq!(detail(app, &tenant, &id)["data_retention_days"], 1);
}

#[test]
fn screeners_must_be_an_object() {
    let (app, tenant) = setup();
    assert_create_error(app, &tenant, json!({"screeners": ["q"]}), json!(["body", "screeners"]), "dict_type");
    assert_create_error(app, &tenant, json!({"screeners": {"screener_blocks": "q"}}), json!(["body", "screeners", "screener_blocks"]), "list_type");
    assert_create_error(app, &tenant, json!({"screeners": {"screen_out_url": "nowhere"}}), json!(["body", "screeners", "screen_out_url"]), "url_parsing");
}

#[test]
fn bodies_that_are_not_json_objects_are_422() {
    let (app, tenant) = setup();
    let send = |content_type: &str, body: &str| {
        json_of(app.post("/v1/projects").auth(&tenant).header("content-type", content_type).body(body.to_string()).send().unwrap())
    };
    let (status, body) = send("application/json", "{\"project_name\": ");
    assert_eq!(status, 422, "{body}");
    assert_eq!(body["detail"][0]["type"], "json_invalid");
    assert_eq!(body["detail"][0]["loc"][0], "body");
    let (status, body) = send("application/json", "[1, 2]");
    assert_422(status, &body, &[(json!(["body"]), "dict_type")]);
    let (status, body) = send("application/json", "");
    assert_422(status, &body, &[(json!(["body"]), "missing")]);
    let (status, body) = send("text/plain", &valid_project().to_string());
    assert_422(status, &body, &[(json!(["body"]), "dict_type")]);
}

// ---------------------------------------------------------------------------
// Merge patch.

#[test]
fn patch_changes_only_the_given_fields() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &with(json!({"project_description": "Before"})));
    let before = detail(app, &tenant, &id);
    let (status, body) = patch(app, &tenant, &id, &json!({"project_objective": "A new and much clearer research objective", "camera_access": "required", "interview_length": 15}));
    assert_eq!((status.as_u16(), body), (200, json!({"project_id": id})));
    let after = detail(app, &tenant, &id);
    assert_eq!(after["project_objective"], "A new and much clearer research objective");
    assert_eq!(after["camera_access"], "required");
    assert_eq!(after["interview_length"], 15);
    for field in ["project_description", "research_questions", "interview_modes", "logo_url", "primary_color"] {
        assert_eq!(after[field], before[field], "{field}");
    }
    assert_eq!(patch(app, &tenant, &id, &json!({"project_name": "Renamed"})).0, 200);
    assert_eq!(list_item(app, &tenant, &id)["project_name"], "Renamed");
}

#[test]
fn patch_null_clears_nullable_fields() {
    let (app, tenant) = setup();
    let body = with(json!({
        "project_description": "d", "specific_guidelines": "g", "redirect_url": "https://x.example.com/done",
        "screeners": {"screener_blocks": []}, "max_interviews": 5, "data_retention_days": 30,
    }));
    let id = create_ok(app, &tenant, &body);
    let cleared = json!({
        "project_description": null, "specific_guidelines": null, "redirect_url": null, "logo_url": null,
        "primary_color": null, "secondary_color": null, "text_color": null, "screeners": null, "max_interviews": null,
        "data_retention_days": null,
    });
    assert_eq!(patch(app, &tenant, &id, &cleared).0, 200);
    let project = detail(app, &tenant, &id);
    for field in [
        "project_description", "specific_guidelines", "redirect_url", "logo_url", "primary_color", "screeners", "max_interviews",
        "data_retention_days",
    ] {
        assert_eq!(project[field], Value::Null, "{field}");
    }
}

#[test]
fn patch_null_on_a_required_field_is_422() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let (status, body) = patch(
        app,
        &tenant,
        &id,
        &json!({"project_name": null, "research_questions": null, "interview_modes": null, "camera_access": null, "interview_languages": null, "interview_length": null}),
    );
    assert_422(
        status,
        &body,
        &[
            (json!(["body", "project_name"]), "string_type"),
            (json!(["body", "research_questions"]), "string_type"),
            (json!(["body", "interview_modes"]), "list_type"),
            (json!(["body", "camera_access"]), "enum"),
            (json!(["body", "interview_languages"]), "list_type"),
            (json!(["body", "interview_length"]), "enum"),
        ],
    );
    assert_eq!(detail(app, &tenant, &id)["research_questions"], valid_project()["research_questions"], "nothing changed");
}

#[test]
fn patch_replaces_arrays_whole() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &with(json!({"interview_modes": ["typing", "talking"], "interview_languages": ["en", "de", "fr"]})));
    assert_eq!(patch(app, &tenant, &id, &json!({"interview_modes": ["typing"], "interview_languages": ["es"]})).0, 200);
    let project = detail(app, &tenant, &id);
    assert_eq!(project["interview_modes"], json!(["typing"]));
    assert_eq!(project["interview_languages"], json!(["es"]));
}

#[test]
fn patch_merges_screeners_per_rfc_7386() {
    let (app, tenant) = setup();
    let screeners = json!({"screener_blocks": [{"question": "Age?"}], "screen_out_url": "https://x.example.com/out", "title": "Check"});
    let id = create_ok(app, &tenant, &with(json!({"screeners": screeners})));
    // Members merge: null removes one, a new one is added, the rest stay.
    assert_eq!(patch(app, &tenant, &id, &json!({"screeners": {"title": null, "intro": "Hello"}})).0, 200);
    assert_eq!(
        detail(app, &tenant, &id)["screeners"],
        json!({"screener_blocks": [{"question": "Age?"}], "screen_out_url": "https://x.example.com/out", "intro": "Hello"})
    );
    // An array member is replaced, not merged.
    assert_eq!(patch(app, &tenant, &id, &json!({"screeners": {"screener_blocks": [{"question": "Country?"}]}})).0, 200);
    assert_eq!(detail(app, &tenant, &id)["screeners"]["screener_blocks"], json!([{"question": "Country?"}]));
    // null replaces the whole object; a new object on null starts from scratch.
    assert_eq!(patch(app, &tenant, &id, &json!({"screeners": null})).0, 200);
    assert_eq!(detail(app, &tenant, &id)["screeners"], Value::Null);
    assert_eq!(patch(app, &tenant, &id, &json!({"screeners": {"screener_blocks": [], "gone": null}})).0, 200);
    assert_eq!(detail(app, &tenant, &id)["screeners"], json!({"screener_blocks": []}));
    // The merged object is checked.
    let (status, body) = patch(app, &tenant, &id, &json!({"screeners": {"screen_out_url": "not a url"}}));
    assert_422(status, &body, &[(json!(["body", "screeners", "screen_out_url"]), "url_parsing")]);
    let (status, body) = patch(app, &tenant, &id, &json!({"screeners": "none"}));
    assert_422(status, &body, &[(json!(["body", "screeners"]), "dict_type")]);
}

#[test]
fn patch_ignores_unknown_fields_and_an_empty_patch_is_a_no_op() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let before = detail(app, &tenant, &id);
    let (status, body) = patch(app, &tenant, &id, &json!({}));
    assert_eq!((status.as_u16(), body), (200, json!({"project_id": id})));
    let (status, _) = patch(app, &tenant, &id, &json!({"status": "active", "project_type": "survey", "created_at": "x", "whatever": 1}));
    assert_eq!(status, 200);
    assert_eq!(detail(app, &tenant, &id), before);
    assert!(events_for(app, &id).is_empty());
}

#[test]
fn patch_accepts_update_only_fields_and_uk() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let (status, body) = patch(app, &tenant, &id, &json!({"secondary_color": "#000000", "text_color": "#FFFFFF80", "interview_languages": ["uk", "en"]}));
    assert_eq!(status, 200, "{body}");
    let project = detail(app, &tenant, &id);
    assert_eq!(project["interview_languages"], json!(["uk", "en"]));
    assert_eq!((&project["secondary_color"], &project["text_color"]), (&json!("#000000"), &json!("#FFFFFF80")));
    let (status, body) = patch(app, &tenant, &id, &json!({"secondary_color": "black", "text_color": 1, "interview_languages": ["xx"]}));
    assert_422(
        status,
        &body,
        &[
            (json!(["body", "secondary_color"]), "string_pattern_mismatch"),
            (json!(["body", "text_color"]), "string_type"),
            (json!(["body", "interview_languages", 0]), "enum"),
        ],
    );
}

#[test]
fn patch_validates_like_create() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let (status, body) = patch(
        app,
        &tenant,
        &id,
        &json!({"project_name": "", "redirect_url": "http://x.example.com", "interview_modes": ["dancing"], "logo_url": "x".repeat(2084), "max_interviews": 0}),
    );
    assert_422(
        status,
        &body,
        &[
            (json!(["body", "project_name"]), "string_too_short"),
            (json!(["body", "redirect_url"]), "string_pattern_mismatch"),
            (json!(["body", "interview_modes", 0]), "enum"),
            (json!(["body", "logo_url"]), "string_too_long"),
            (json!(["body", "max_interviews"]), "greater_than_equal"),
        ],
    );
}

#[test]
fn patch_accepts_merge_patch_json_and_refuses_other_media_types() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let send = |content_type: &str, body: &str| {
        app.request("PATCH", &format!("/v1/projects/{id}"))
            .auth(&tenant)
            .header("content-type", content_type)
            .body(body.to_string())
            .send()
            .unwrap()
    };
    assert_eq!(send("application/merge-patch+json", r#"{"camera_access":"optional"}"#).status(), 200);
    assert_eq!(detail(app, &tenant, &id)["camera_access"], "optional");
    assert_eq!(send("application/json; charset=utf-8", r#"{"camera_access":"required"}"#).status(), 200);
    let (status, body) = json_of(send("text/plain", r#"{"camera_access":"not_allowed"}"#));
    assert_422(status, &body, &[(json!(["body"]), "dict_type")]);
    let (status, body) = json_of(send("application/json", "{oops"));
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["type"], "json_invalid");
    assert_eq!(detail(app, &tenant, &id)["camera_access"], "required");
}

#[test]
fn patch_of_an_unknown_or_non_uuid_id_is_404() {
    let (app, tenant) = setup();
    for id in ["not-a-uuid".to_string(), uuid::Uuid::new_v4().to_string()] {
        let (status, body) = patch(app, &tenant, &id, &json!({"project_name": "x"}));
        assert_eq!(status, 404, "{id}: {body}");
        assert_detail_error(&body, "not_found");
    }
}

// ---------------------------------------------------------------------------
// State machine and outbox.

#[test]
fn activate_deactivate_complete_follow_the_state_machine_and_write_events() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    assert!(events_for(app, &id).is_empty(), "creating raises no event");

    let (status, body) = act(app, &tenant, &id, "activate");
    assert_eq!((status.as_u16(), body), (200, json!({"project_id": id, "status": "active"})));
    assert_eq!(detail(app, &tenant, &id)["status"], "active");
    assert_eq!(events_for(app, &id).len(), 1);

    // Activating an active project is a no-op without an event.
    let (status, body) = act(app, &tenant, &id, "activate");
    assert_eq!((status.as_u16(), body), (200, json!({"project_id": id, "status": "active"})));
    assert_eq!(events_for(app, &id).len(), 1);

    let (status, body) = act(app, &tenant, &id, "deactivate");
    assert_eq!((status.as_u16(), body), (200, json!({"project_id": id, "status": "paused"})));
    assert_eq!(detail(app, &tenant, &id)["status"], "paused");
    assert_eq!(events_for(app, &id).len(), 1, "pausing raises no event");

    let (status, body) = act(app, &tenant, &id, "deactivate");
    assert_eq!(status, 409);
    assert_detail_error(&body, "invalid_state");

    // Resuming publishes again.
    assert_eq!(act(app, &tenant, &id, "activate").1["status"], "active");
    assert_eq!(events_for(app, &id).len(), 2);

    let (status, body) = act(app, &tenant, &id, "complete");
    assert_eq!((status.as_u16(), body), (200, json!({"project_id": id, "status": "completed"})));
    assert_eq!(detail(app, &tenant, &id)["status"], "completed");

    for action in ["activate", "deactivate", "complete"] {
        let (status, body) = act(app, &tenant, &id, action);
        assert_eq!(status, 409, "{action} on completed: {body}");
        assert_detail_error(&body, "invalid_state");
    }

    let events = events_for(app, &id);
    let types: Vec<&str> = events.iter().map(|e| e.event_type.as_str()).collect();
    assert_eq!(types, vec!["project.published", "project.published", "project.completed"]);
    let mut ids: Vec<&str> = events.iter().map(|e| e.event_id.as_str()).collect();
    for event in &events {
        assert!(uuid::Uuid::parse_str(&event.event_id).is_ok_and(|u| u.get_version_num() == 4), "{event:?}");
        assert_eq!(event.tenant_id, tenant.tenant_id);
        assert!(is_rfc3339_millis_z(&event.created_at), "{event:?}");
    }
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 3, "one id per event");
    assert_eq!(
        events[0].payload,
        json!({"project_id": id, "event_type": "project.published", "published_at": events[0].created_at})
    );
    assert_eq!(
        events[2].payload,
        json!({"project_id": id, "event_type": "project.completed", "completed_at": events[2].created_at})
    );
}

#[test]
fn a_draft_cannot_be_deactivated_but_can_be_completed() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let (status, body) = act(app, &tenant, &id, "deactivate");
    assert_eq!(status, 409);
    assert_detail_error(&body, "invalid_state");
    assert_eq!(detail(app, &tenant, &id)["status"], "draft");
    assert_eq!(act(app, &tenant, &id, "complete").0, 200);
    let types: Vec<String> = events_for(app, &id).into_iter().map(|e| e.event_type).collect();
    assert_eq!(types, vec!["project.completed"]);
}

#[test]
fn state_routes_check_the_id() {
    let (app, tenant) = setup();
    for action in ["activate", "deactivate", "complete"] {
        let (status, body) = act(app, &tenant, "nope", action);
        assert_422(status, &body, &[(json!(["path", "project_id"]), "uuid_parsing")]);
        let (status, body) = act(app, &tenant, &uuid::Uuid::new_v4().to_string(), action);
        assert_eq!(status, 404, "{body}");
        assert_detail_error(&body, "not_found");
    }
}

#[test]
fn concurrent_activations_publish_once() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8).map(|_| scope.spawn(|| act(app, &tenant, &id, "activate").0.as_u16())).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    assert_eq!(events_for(app, &id).len(), 1);
}

#[test]
fn concurrent_patches_lose_no_update() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &with(json!({"screeners": {"screener_blocks": []}})));
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|i| {
                let (tenant, id) = (&tenant, &id);
                scope.spawn(move || patch(app, tenant, id, &json!({"screeners": { format!("k{i}"): i }})).0.as_u16())
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
    let screeners = detail(app, &tenant, &id)["screeners"].clone();
    for i in 0..8 {
        assert_eq!(screeners[format!("k{i}")], i, "{screeners}");
    }
}

// ---------------------------------------------------------------------------
// Shareable URL.

#[test]
fn sandbox_urls_always_work_production_urls_after_publication() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let base = app.host.base_url();
    let (status, body) = url_of(app, &tenant, &id, "?environment=sandbox");
    assert_eq!((status.as_u16(), body["project_id"].as_str()), (200, Some(id.as_str())), "{body}");
    // The sandbox link carries its capability: 128 bits of base64url, the same on every read.
    let url = body["url"].as_str().unwrap();
    let token = url.strip_prefix(&format!("{base}/i/{id}?env=sandbox&sandbox_token=")).unwrap_or_else(|| panic!("{url}"));
    assert!(token.len() == 22 && token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'), "{url}");
    assert_eq!(url_of(app, &tenant, &id, "?environment=sandbox").1["url"], url);

    let (status, body) = url_of(app, &tenant, &id, "?environment=production");
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], 400);
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
    assert_eq!(body.as_object().unwrap().len(), 2, "{body}");

    act(app, &tenant, &id, "activate");
    act(app, &tenant, &id, "deactivate");
    let (status, body) = url_of(app, &tenant, &id, "?environment=production");
    assert_eq!((status.as_u16(), body), (200, json!({"project_id": id, "url": format!("{base}/i/{id}")})));
}

#[test]
fn url_parameters_are_validated() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &valid_project());
    let (status, body) = url_of(app, &tenant, &id, "");
    assert_422(status, &body, &[(json!(["query", "environment"]), "missing")]);
    let (status, body) = url_of(app, &tenant, &id, "?environment=staging");
    assert_422(status, &body, &[(json!(["query", "environment"]), "enum")]);
    assert_eq!(body["detail"][0]["msg"], "Input should be 'sandbox' or 'production'");
    let (status, body) = url_of(app, &tenant, "nope", "");
    assert_422(
        status,
        &body,
        &[(json!(["path", "project_id"]), "uuid_parsing"), (json!(["query", "environment"]), "missing")],
    );
    let (status, body) = url_of(app, &tenant, &uuid::Uuid::new_v4().to_string(), "?environment=sandbox");
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
}

// ---------------------------------------------------------------------------
// validate-context.

fn validate(app: &TestApp, tenant: &TenantCredentials, body: &Value) -> (StatusCode, Value) {
    json_of(app.post("/v1/project/validate-context").auth(tenant).json(body).send().unwrap())
}

fn context_of(body: &Value) -> Value {
    json!({
        "project_objective": body["project_objective"],
        "research_questions": body["research_questions"],
        "success_criteria": body["success_criteria"],
        "recruiting_criteria": body["recruiting_criteria"],
    })
}

#[test]
fn validate_context_accepts_a_good_context() {
    let (app, tenant) = setup();
    let (status, body) = validate(app, &tenant, &context_of(&valid_project()));
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body,
        json!({
            "project_objective": {"is_valid": true},
            "research_questions": {"is_valid": true},
            "success_criteria": {"is_valid": true},
            "recruiting_criteria": {"is_valid": true},
        })
    );
}

#[test]
fn validate_context_flags_weak_fields_with_feedback() {
    let (app, tenant) = setup();
    let (status, body) = validate(
        app,
        &tenant,
        &json!({
            "project_objective": "test",
            "research_questions": "We will look at the checkout flow in general",
            "success_criteria": "Three validated reasons for abandonment with quotes",
            "recruiting_criteria": "anything goes here",
        }),
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(keys(&body), sorted(&["project_objective", "research_questions", "success_criteria", "recruiting_criteria"]));
    for field in ["project_objective", "research_questions", "recruiting_criteria"] {
        assert_eq!(body[field]["is_valid"], false, "{field}: {body}");
        assert!(body[field]["feedback"].as_str().is_some_and(|f| !f.is_empty()), "{field}: {body}");
    }
    assert_eq!(body["success_criteria"], json!({"is_valid": true}));
}

#[test]
fn validate_context_needs_four_non_empty_strings() {
    let (app, tenant) = setup();
    let (status, body) = validate(app, &tenant, &json!({"project_objective": "", "research_questions": 5, "success_criteria": "ok ok ok"}));
    assert_422(
        status,
        &body,
        &[
            (json!(["body", "project_objective"]), "string_too_short"),
            (json!(["body", "research_questions"]), "string_type"),
            (json!(["body", "recruiting_criteria"]), "missing"),
        ],
    );
    let (status, _) = json_of(app.post("/v1/project/validate-context").json(&context_of(&valid_project())).send().unwrap());
    assert_eq!(status, 401);
}

// ---------------------------------------------------------------------------
// Generated mode, offline.

const PROMPT: &str = "We want to learn how parents of toddlers choose a daycare. Interview parents in big cities.";

#[test]
fn generated_mode_writes_the_context_offline() {
    let (app, tenant) = setup();
    let id = create_ok(app, &tenant, &json!({"creation_mode": "generated", "prompt": PROMPT, "interview_length": 15}));
    let project = detail(app, &tenant, &id);
    for field in ["project_objective", "research_questions", "success_criteria", "recruiting_criteria"] {
        assert!(project[field].as_str().is_some_and(|t| t.len() > 20), "{field}: {project}");
    }
    assert!(project["project_objective"].as_str().unwrap().contains("daycare"), "{project}");
    assert_eq!(project["interview_length"], 15);
    assert_eq!(project["status"], "draft");
    let name = list_item(app, &tenant, &id)["project_name"].as_str().unwrap().to_string();
    assert!(name.contains("daycare") && name.chars().count() <= 80, "{name}");
    // What the writer produced passes the service's own context rules.
    let (_, verdicts) = validate(app, &tenant, &context_of(&project));
    for field in ["project_objective", "research_questions", "success_criteria", "recruiting_criteria"] {
        assert_eq!(verdicts[field]["is_valid"], true, "{field}: {verdicts}");
    }
    // Deterministic; a given name is kept.
    let again = create_ok(app, &tenant, &json!({"creation_mode": "generated", "prompt": PROMPT, "project_name": "Daycare"}));
    assert_eq!(context_of(&detail(app, &tenant, &again)), context_of(&project));
    assert_eq!(list_item(app, &tenant, &again)["project_name"], "Daycare");
}

#[test]
fn generated_mode_needs_a_prompt_of_20_to_4000_characters() {
    let (app, tenant) = setup();
    let (status, body) = create(app, &tenant, &json!({"creation_mode": "generated"}));
    assert_422(status, &body, &[(json!(["body", "prompt"]), "missing")]);
    let (status, body) = create(app, &tenant, &json!({"creation_mode": "generated", "prompt": "too short"}));
    assert_422(status, &body, &[(json!(["body", "prompt"]), "string_too_short")]);
    let (status, body) = create(app, &tenant, &json!({"creation_mode": "generated", "prompt": "p".repeat(4001)}));
    assert_422(status, &body, &[(json!(["body", "prompt"]), "string_too_long")]);
    let (status, body) = create(app, &tenant, &json!({"creation_mode": "generated", "prompt": PROMPT, "camera_access": "x"}));
    assert_422(status, &body, &[(json!(["body", "camera_access"]), "enum")]);
}

// ---------------------------------------------------------------------------
// The language model, against a fake OpenAI-compatible server.

/// The fake model (a real HTTP server) answering by what the prompt contains:
/// `GOOD` a valid answer, `GARBAGE` prose, `SLOW` never answers in time; a
/// context review gets verdicts rejecting the research questions.
fn fake_model() -> FakeModel {
    FakeModel::start(|request| {
        let text = request.json().to_string();
        if text.contains("SLOW") {
            ModelReply::Hang
        } else if text.contains("GARBAGE") {
            ModelReply::chat("Sure! Here is a great project about daycare for you.")
        } else if text.contains("You review the research context") {
            ModelReply::chat(
                &json!({
                    "project_objective": {"is_valid": true, "feedback": "Clear."},
                    "research_questions": {"is_valid": false, "feedback": "Ask about the decision itself."},
                    "success_criteria": {"is_valid": true},
                    "recruiting_criteria": {"is_valid": true},
                })
                .to_string(),
            )
        } else {
            ModelReply::chat(
                &json!({
                    "project_name": "Model daycare study",
                    "project_objective": "MODEL objective: learn how parents pick a daycare",
                    "research_questions": "MODEL 1. What matters most when choosing a daycare?",
                    "success_criteria": "MODEL clear ranking of decision factors",
                    "recruiting_criteria": "MODEL parents of children aged 1-3 in large cities",
                })
                .to_string(),
            )
        }
    })
}

fn app_with_model(model: &FakeModel) -> TestApp {
    let mut variables = model.variables();
    variables.push(("public_base_url", "https://research.example.com/".to_string()));
    let overrides: Vec<(&str, &str)> = variables.iter().map(|(name, value)| (*name, value.as_str())).collect();
    TestApp::start(&overrides)
}

#[test]
fn the_language_model_writes_generated_projects_and_bad_answers_fall_back() {
    let model = fake_model();
    let app = app_with_model(&model);
    let tenant = app.create_tenant();

    // A good answer is used as is.
    let good = create_ok(&app, &tenant, &json!({"creation_mode": "generated", "prompt": format!("GOOD {PROMPT}")}));
    let project = detail(&app, &tenant, &good);
    assert_eq!(project["project_objective"], "MODEL objective: learn how parents pick a daycare");
    assert_eq!(project["recruiting_criteria"], "MODEL parents of children aged 1-3 in large cities");
    assert_eq!(list_item(&app, &tenant, &good)["project_name"], "Model daycare study");
    {
        let requests = model.requests.lock().unwrap();
        let request = requests.last().unwrap();
        let body = request.json();
        assert_eq!(request.path, "/v1/chat/completions");
        assert_eq!(request.authorization, "Bearer test-model-key");
        assert_eq!(body["model"], "fake-model");
        assert!(body["messages"].to_string().contains("GOOD"), "{body}");
    }

    // A garbage answer falls back to the built-in writer: the same fields as offline.
    let offline = shared_app();
    let offline_tenant = offline.create_tenant();
    let prompt = format!("GARBAGE {PROMPT}");
    let expected = create_ok(offline, &offline_tenant, &json!({"creation_mode": "generated", "prompt": prompt}));
    let garbage = create_ok(&app, &tenant, &json!({"creation_mode": "generated", "prompt": prompt}));
    assert_eq!(context_of(&detail(&app, &tenant, &garbage)), context_of(&detail(offline, &offline_tenant, &expected)));

    // A model slower than llm_timeout_seconds (2 s) falls back too, in time.
    let started = Instant::now();
    let slow = create_ok(&app, &tenant, &json!({"creation_mode": "generated", "prompt": format!("SLOW {PROMPT}")}));
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_millis(1500) && elapsed < Duration::from_secs(10), "{elapsed:?}");
    assert!(detail(&app, &tenant, &slow)["project_objective"].as_str().unwrap().starts_with("Understand"));

    // Explicit mode never calls the model.
    let calls = model.requests.lock().unwrap().len();
    create_ok(&app, &tenant, &valid_project());
    assert_eq!(model.requests.lock().unwrap().len(), calls);
}

#[test]
fn the_language_model_refines_validate_context_and_public_base_url_is_used() {
    let model = fake_model();
    let app = app_with_model(&model);
    let tenant = app.create_tenant();
    let (status, body) = validate(&app, &tenant, &context_of(&valid_project()));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["project_objective"], json!({"is_valid": true}), "valid by rules and model: no feedback");
    assert_eq!(body["research_questions"], json!({"is_valid": false, "feedback": "Ask about the decision itself."}));
    assert_eq!(body["recruiting_criteria"]["is_valid"], true);

    // A model failure leaves the rules' verdicts.
    let mut slow = context_of(&valid_project());
    slow["project_objective"] = json!("SLOW: Understand why shoppers abandon the checkout on mobile devices");
    let (status, body) = validate(&app, &tenant, &slow);
    assert_eq!(status, 200);
    assert_eq!(body["research_questions"], json!({"is_valid": true}));

    let id = create_ok(&app, &tenant, &valid_project());
    let (_, body) = url_of(&app, &tenant, &id, "?environment=sandbox");
    assert!(body["url"].as_str().unwrap().starts_with(&format!("https://research.example.com/i/{id}?env=sandbox&sandbox_token=")), "{body}");
}

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
