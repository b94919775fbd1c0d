//! validate-context, generated mode offline, and the language model against a fake OpenAI-compatible server.

use super::*;

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
