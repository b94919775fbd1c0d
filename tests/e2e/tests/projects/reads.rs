//! Create and read: defaults, given fields, the list and its pages, methods.

use super::*;

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
