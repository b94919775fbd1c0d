//! The merge patch.

use super::*;

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
