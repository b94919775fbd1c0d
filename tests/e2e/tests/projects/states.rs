//! The state machine and its outbox events, and the shareable URL.

use super::*;

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
