//! Errors that say how to fix them (issue 15): what a client that got something
//! wrong reads in the answer, over real HTTP.

use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

fn message(body: &Value) -> String {
    body["detail"]["message"].as_str().unwrap_or_else(|| panic!("no detail.message: {body}")).to_string()
}

#[test]
fn a_401_names_the_credential_the_route_takes() {
    let app = shared_app();
    let tenant = app.create_tenant();

    // No headers, a wrong key, a malformed tenant id: the same answer naming both headers.
    for request in [
        app.get("/v1/projects"),
        app.get("/v1/projects").header("X-Api-Key", "irs_wrong").header("X-Tenant-Id", &tenant.tenant_id),
        app.get("/v1/projects").header("X-Api-Key", &tenant.api_key).header("X-Tenant-Id", "tenant-1"),
    ] {
        let (status, body) = json_of(request.send().unwrap());
        assert_eq!(status, 401);
        assert_eq!(body["detail"]["error"], "unauthorized");
        let text = message(&body);
        assert!(text.contains("X-Api-Key") && text.contains("X-Tenant-Id"), "{text}");
        assert!(!text.contains("partnership"), "{text}");
    }

    // The partnership key on a tenant route: it only works on POST /v1/tenants.
    let (status, body) = json_of(
        app.get("/v1/projects").header("X-Api-Key", &app.partner_key).header("X-Tenant-Id", PARTNER_TENANT_ID).send().unwrap(),
    );
    assert_eq!(status, 401);
    assert!(message(&body).contains("only works on POST /v1/tenants"), "{body}");
    // Any key with the prefix reads the same, valid or not: nothing is revealed.
    let (_, forged) = json_of(
        app.get("/v1/projects").header("X-Api-Key", "sk-partner-guess").header("X-Tenant-Id", PARTNER_TENANT_ID).send().unwrap(),
    );
    assert_eq!(forged, body);

    // A session route asks for the session's bearer token.
    let (status, body) = json_of(app.get(&format!("/v1/sessions/{}", uuid::Uuid::new_v4())).send().unwrap());
    assert_eq!(status, 401);
    assert!(message(&body).contains("Authorization: Bearer"), "{body}");
}

#[test]
fn bodies_without_a_content_type_are_json_and_other_types_are_named() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let body = project_body(json!({}));

    // No Content-Type: read as JSON, on every route.
    let created = app.post("/v1/projects").auth(&tenant).body(body.to_string()).send().unwrap();
    assert_eq!(created.status(), 201);
    let secret = app
        .post("/v1/webhooks/secrets")
        .auth(&tenant)
        .body(json!({"workspace_id": tenant.tenant_id}).to_string())
        .send()
        .unwrap();
    assert_eq!(secret.status(), 201);

    // Another type: 422 naming the type expected, on every route.
    for path in ["/v1/projects", "/v1/webhooks/subscriptions", "/v1/project/validate-context"] {
        let (status, answer) = json_of(
            app.post(path).auth(&tenant).header("Content-Type", "text/plain").body(body.to_string()).send().unwrap(),
        );
        assert_eq!(status, 422, "{path}: {answer}");
        let problem = &answer["detail"][0];
        assert_eq!(problem["loc"], json!(["body"]));
        let text = problem["msg"].as_str().unwrap();
        assert!(text.contains("application/json") && text.contains("text/plain"), "{path}: {text}");
    }
    // Tenant creation says the same in its own shape.
    let (status, answer) = json_of(
        app.post("/v1/tenants")
            .header("X-Api-Key", &app.partner_key)
            .header("X-Tenant-Id", PARTNER_TENANT_ID)
            .header("Content-Type", "application/x-www-form-urlencoded")
            .body("organization_name=Acme")
            .send()
            .unwrap(),
    );
    assert_eq!(status, 400);
    assert!(answer["message"].as_str().unwrap().contains("application/json"), "{answer}");
}

#[test]
fn a_json_syntax_error_says_what_and_where() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let broken = "{\n  \"project_name\": \"Checkout\",\n  \"project_objective\": \"x\"\n  \"research_questions\": \"y\"\n}";
    let (status, body) = json_of(
        app.post("/v1/projects").auth(&tenant).header("Content-Type", "application/json").body(broken).send().unwrap(),
    );
    assert_eq!(status, 422);
    let problem = &body["detail"][0];
    assert_eq!(problem["type"], "json_invalid");
    assert_eq!(problem["msg"], "JSON decode error: expected `,` or `}` at line 4 column 3");
    assert_eq!(problem["loc"], json!(["body", 61]), "FastAPI's 0-based byte offset of the error");
}

#[test]
fn an_unknown_route_suggests_the_one_meant() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let (status, body) = json_of(app.get("/v1/projetcs").auth(&tenant).send().unwrap());
    assert_eq!(status, 404);
    assert_eq!(message(&body), "No route for GET /v1/projetcs; did you mean GET /v1/projects?");

    // Under a component's own prefix too, with the path's own values.
    let (status, body) = json_of(app.get("/v1/projects/42/urls").auth(&tenant).send().unwrap());
    assert_eq!(status, 404);
    assert_eq!(message(&body), "No route for GET /v1/projects/42/urls; did you mean GET /v1/projects/42/url?");

    // The plural of validate-context is not a project id answering 405: it points
    // to the singular route.
    let (status, body) = json_of(
        app.post("/v1/projects/validate-context").auth(&tenant).json(&json!({})).send().unwrap(),
    );
    assert_eq!(status, 404, "{body}");
    assert!(message(&body).ends_with("did you mean POST /v1/project/validate-context?"), "{body}");

    // A real wrong method is still a 405, and a path far from every route gets no guess.
    let (status, _) = json_of(app.request("DELETE", "/v1/projects").auth(&tenant).send().unwrap());
    assert_eq!(status, 405);
    // A path that names a route exactly is a wrong method, not a typo of a
    // route of this method (`PATCH /v1/projects/{project_id}`).
    let response = app.request("PATCH", "/v1/project/validate-context").auth(&tenant).json(&json!({})).send().unwrap();
    assert_eq!(response.headers()["allow"], "POST");
    let (status, body) = json_of(response);
    assert_eq!((status.as_u16(), body["detail"]["error"].as_str()), (405, Some("method_not_allowed")), "{body}");
    let (status, body) = json_of(app.get("/v1/everything-else").auth(&tenant).send().unwrap());
    assert_eq!(status, 404);
    assert_eq!(message(&body), "No route for /v1/everything-else");
}
