//! Create validation: one test per rule.

use super::*;

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
