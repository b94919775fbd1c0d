use super::*;
use platform::ids::ProjectId;
use platform::error::{ApiError, ApiResult, LocPart};
use platform::llm::LlmConfig;
use serde_json::json;

fn valid_body() -> Value {
    json!({
        "project_name": "Checkout study",
        "project_objective": "Understand why shoppers abandon the checkout on mobile devices",
        "research_questions": "Why do shoppers leave the checkout? What would make them finish?",
        "success_criteria": "Three validated reasons for abandonment with supporting quotes",
        "recruiting_criteria": "Online shoppers aged 25-45 who bought on mobile in the last month",
    })
}

fn errors_of(result: ApiResult<impl std::fmt::Debug>) -> Vec<(Vec<LocPart>, &'static str)> {
    match result {
        Err(ApiError::Validation(errors)) => errors.into_iter().map(|e| (e.loc, e.kind)).collect(),
        other => panic!("expected a 422, got {other:?}"),
    }
}

fn loc(parts: &[&str]) -> Vec<LocPart> {
    parts.iter().map(|p| LocPart::from(*p)).collect()
}

fn create_errors(changes: Value) -> Vec<(Vec<LocPart>, &'static str)> {
    let mut body = valid_body();
    for (key, value) in changes.as_object().unwrap() {
        body[key] = value.clone();
    }
    errors_of(NewProject::parse(&body, &CreateDefaults::default()))
}

fn single(changes: Value) -> (Vec<LocPart>, &'static str) {
    let mut errors = create_errors(changes.clone());
    assert_eq!(errors.len(), 1, "{changes}: {errors:?}");
    errors.remove(0)
}

#[test]
fn create_applies_every_default() {
    let new = NewProject::parse(&valid_body(), &CreateDefaults::default()).unwrap();
    assert_eq!(new.creation_mode, CreationMode::Explicit);
    let fields = new.into_fields(None);
    assert_eq!(fields.interview_modes, vec!["talking"]);
    assert_eq!(fields.camera_access, "not_allowed");
    assert_eq!(fields.logo_url.as_deref(), Some(DEFAULT_LOGO_URL));
    assert_eq!(fields.primary_color.as_ref().map(HexColor::as_str), Some("#6759DF"));
    assert_eq!(fields.interview_languages, vec!["en"]);
    assert_eq!(fields.interview_length, 10);
    assert_eq!(fields.screeners, None);
    assert_eq!(fields.max_interviews, None);
    assert_eq!(fields.project_name, "Checkout study");
    assert!(fields.research_questions.starts_with("Why"));
}

#[test]
fn explicit_nulls_keep_nullable_fields_empty_and_default_the_others() {
    let mut body = valid_body();
    for key in ["logo_url", "primary_color", "interview_modes", "interview_languages", "interview_length", "creation_mode"] {
        body[key] = Value::Null;
    }
    let fields = NewProject::parse(&body, &CreateDefaults::default()).unwrap().into_fields(None);
    assert_eq!((fields.logo_url, fields.primary_color), (None, None));
    assert_eq!(fields.interview_modes, vec!["talking"]);
    assert_eq!(fields.interview_languages, vec!["en"]);
    assert_eq!(fields.interview_length, 10);
}

#[test]
fn required_fields_are_reported_together() {
    let errors = errors_of(NewProject::parse(&json!({}), &CreateDefaults::default()));
    let names: Vec<_> = errors.iter().map(|(l, k)| (l[1].clone(), *k)).collect();
    assert_eq!(
        names,
        ["project_name", "project_objective", "research_questions", "success_criteria", "recruiting_criteria"]
            .iter()
            .map(|n| (LocPart::from(*n), "missing"))
            .collect::<Vec<_>>()
    );
}

#[test]
fn text_rules() {
    assert_eq!(single(json!({"project_name": ""})), (loc(&["body", "project_name"]), "string_too_short"));
    assert_eq!(single(json!({"project_name": "x".repeat(201)})), (loc(&["body", "project_name"]), "string_too_long"));
    assert_eq!(single(json!({"project_name": 5})), (loc(&["body", "project_name"]), "string_type"));
    assert_eq!(single(json!({"project_name": null})), (loc(&["body", "project_name"]), "string_type"));
    assert_eq!(single(json!({"success_criteria": "x".repeat(10_001)})), (loc(&["body", "success_criteria"]), "string_too_long"));
    assert_eq!(single(json!({"specific_guidelines": ""})), (loc(&["body", "specific_guidelines"]), "string_too_short"));
    assert_eq!(single(json!({"project_description": []})), (loc(&["body", "project_description"]), "string_type"));
    assert!(NewProject::parse(&{
        let mut b = valid_body();
        b["project_description"] = Value::Null;
        b["project_name"] = Value::from("x".repeat(200));
        b
    }, &CreateDefaults::default())
    .is_ok());
}

#[test]
fn enum_and_literal_rules() {
    assert_eq!(single(json!({"project_type": "usability_test"})), (loc(&["body", "project_type"]), "literal_error"));
    assert_eq!(single(json!({"project_type": "survey"})), (loc(&["body", "survey_blocks"]), "missing"));
    assert_eq!(single(json!({"survey_blocks": []})), (loc(&["body", "survey_blocks"]), "value_error"));
    assert_eq!(single(json!({"creation_mode": "magic"})), (loc(&["body", "creation_mode"]), "literal_error"));
    assert_eq!(single(json!({"camera_access": "always"})), (loc(&["body", "camera_access"]), "enum"));
    assert_eq!(single(json!({"camera_access": null})), (loc(&["body", "camera_access"]), "enum"));
    assert_eq!(single(json!({"interview_length": 12})), (loc(&["body", "interview_length"]), "enum"));
    assert_eq!(single(json!({"interview_length": "10"})), (loc(&["body", "interview_length"]), "enum"));
    let errors = create_errors(json!({"interview_modes": ["typing", "singing", 3]}));
    assert_eq!(
        errors,
        vec![(vec!["body".into(), "interview_modes".into(), 1.into()], "enum"), (vec!["body".into(), "interview_modes".into(), 2.into()], "enum")]
    );
    assert_eq!(single(json!({"interview_modes": "typing"})), (loc(&["body", "interview_modes"]), "list_type"));
    assert_eq!(single(json!({"interview_modes": []})), (loc(&["body", "interview_modes"]), "too_short"));
    assert_eq!(
        single(json!({"interview_languages": ["en", "uk"]})),
        (vec!["body".into(), "interview_languages".into(), 1.into()], "enum")
    );
}

#[test]
fn the_create_schema_offers_every_language_but_uk() {
    let names = <Language as text_enum::TextEnum>::NAMES;
    assert_eq!(CREATE_LANGUAGES, &names[..names.len() - 1]);
    assert!(!CREATE_LANGUAGES.contains(&"uk") && names.contains(&"uk"));
    assert_eq!(CREATE_LANGUAGES.len(), 10);
}

#[test]
fn url_and_colour_rules() {
    assert_eq!(single(json!({"redirect_url": "http://example.com"})), (loc(&["body", "redirect_url"]), "string_pattern_mismatch"));
    assert_eq!(single(json!({"redirect_url": "https://"})), (loc(&["body", "redirect_url"]), "url_parsing"));
    assert_eq!(single(json!({"redirect_url": ""})), (loc(&["body", "redirect_url"]), "string_too_short"));
    assert_eq!(single(json!({"logo_url": "ftp://example.com/logo.png"})), (loc(&["body", "logo_url"]), "url_scheme"));
    assert_eq!(single(json!({"logo_url": "not a url"})), (loc(&["body", "logo_url"]), "url_parsing"));
    let long = format!("https://example.com/{}", "a".repeat(2064));
    assert_eq!(single(json!({"logo_url": long})), (loc(&["body", "logo_url"]), "string_too_long"));
    let longest = format!("https://example.com/{}", "a".repeat(2063));
    assert!(create_errors_ok(json!({"logo_url": longest})));
    assert_eq!(single(json!({"primary_color": "red"})), (loc(&["body", "primary_color"]), "string_pattern_mismatch"));
    assert_eq!(single(json!({"primary_color": "#12345"})), (loc(&["body", "primary_color"]), "string_pattern_mismatch"));
    assert!(create_errors_ok(json!({"primary_color": "#a1B2c3D4"})));
    assert!(create_errors_ok(json!({"redirect_url": "https://example.com/done?x=1"})));
}

fn create_errors_ok(changes: Value) -> bool {
    let mut body = valid_body();
    for (key, value) in changes.as_object().unwrap() {
        body[key] = value.clone();
    }
    NewProject::parse(&body, &CreateDefaults::default()).is_ok()
}

#[test]
fn screeners_and_max_interviews_rules() {
    assert_eq!(single(json!({"screeners": []})), (loc(&["body", "screeners"]), "dict_type"));
    assert_eq!(
        single(json!({"screeners": {"screener_blocks": {}}})),
        (loc(&["body", "screeners", "screener_blocks"]), "list_type")
    );
    assert_eq!(
        single(json!({"screeners": {"screen_out_url": "nope"}})),
        (loc(&["body", "screeners", "screen_out_url"]), "url_parsing")
    );
    assert!(create_errors_ok(json!({"screeners": {"screener_blocks": [{"q": 1}], "screen_out_url": "https://x.example/out"}})));
    assert_eq!(single(json!({"max_interviews": 0})), (loc(&["body", "max_interviews"]), "greater_than_equal"));
    assert_eq!(single(json!({"max_interviews": 100_001})), (loc(&["body", "max_interviews"]), "less_than_equal"));
    assert_eq!(single(json!({"max_interviews": "5"})), (loc(&["body", "max_interviews"]), "int_type"));
    assert_eq!(single(json!({"max_interviews": 1.5})), (loc(&["body", "max_interviews"]), "int_from_float"));
    assert!(create_errors_ok(json!({"max_interviews": 100_000})));
    assert!(create_errors_ok(json!({"max_interviews": null})));
}

#[test]
fn retention_is_one_day_to_ten_years_or_null() {
    let at = loc(&["body", "data_retention_days"]);
    assert_eq!(single(json!({"data_retention_days": 0})), (at.clone(), "greater_than_equal"));
    assert_eq!(single(json!({"data_retention_days": 3651})), (at.clone(), "less_than_equal"));
    assert_eq!(single(json!({"data_retention_days": "30"})), (at.clone(), "int_type"));
    assert_eq!(single(json!({"data_retention_days": 30.5})), (at, "int_from_float"));
    for days in [json!(1), json!(3650), json!(null)] {
        assert!(create_errors_ok(json!({"data_retention_days": days})), "{days}");
    }
    let fields = patched(json!({"data_retention_days": 30})).unwrap();
    assert_eq!(fields.data_retention_days, Some(30));
    let mut kept = stored();
    kept.data_retention_days = Some(30);
    let cleared = ProjectPatch::parse(&json!({"data_retention_days": null})).unwrap().apply(&kept).unwrap();
    assert_eq!(cleared.data_retention_days, None, "null keeps interviews again");
}

#[test]
fn generated_mode_needs_a_prompt_only() {
    let body = json!({"creation_mode": "generated", "prompt": "We want to learn how parents choose a daycare."});
    let new = NewProject::parse(&body, &CreateDefaults::default()).unwrap();
    assert_eq!(new.creation_mode, CreationMode::Generated);
    assert!(new.context.is_none() && new.project_name.is_none());
    let errors = errors_of(NewProject::parse(&json!({"creation_mode": "generated"}), &CreateDefaults::default()));
    assert_eq!(errors, vec![(loc(&["body", "prompt"]), "missing")]);
    let errors = errors_of(NewProject::parse(&json!({"creation_mode": "generated", "prompt": "too short"}), &CreateDefaults::default()));
    assert_eq!(errors, vec![(loc(&["body", "prompt"]), "string_too_short")]);
    let long = json!({"creation_mode": "generated", "prompt": "x".repeat(4001)});
    assert_eq!(errors_of(NewProject::parse(&long, &CreateDefaults::default())), vec![(loc(&["body", "prompt"]), "string_too_long")]);
}

fn stored() -> ProjectFields {
    let mut fields = NewProject::parse(&valid_body(), &CreateDefaults::default()).unwrap().into_fields(None);
    fields.screeners = Some(json!({"screener_blocks": [{"q": "Age?"}], "screen_out_url": "https://x.example/out"}).as_object().unwrap().clone());
    fields.project_description = Some("Internal".into());
    fields
}

fn patched(patch: Value) -> ApiResult<ProjectFields> {
    ProjectPatch::parse(&patch)?.apply(&stored())
}

#[test]
fn merge_patch_nulls_clear_nullable_fields() {
    let fields = patched(json!({"project_description": null, "logo_url": null, "screeners": null})).unwrap();
    assert_eq!((fields.project_description, fields.logo_url, fields.screeners), (None, None, None));
    assert_eq!(fields.project_name, "Checkout study", "untouched fields stay");
}

#[test]
fn merge_patch_takes_whole_numbers_written_as_floats() {
    let fields = patched(json!({"max_interviews": 5.0, "interview_length": 15.0})).unwrap();
    assert_eq!((fields.max_interviews, fields.interview_length), (Some(5), 15));
    assert_eq!(patched(json!({"max_interviews": 1e2})).unwrap().max_interviews, Some(100));
    assert_eq!(errors_of(patched(json!({"max_interviews": 5.5}))), vec![(loc(&["body", "max_interviews"]), "int_from_float")]);
}

#[test]
fn merge_patch_null_on_a_field_that_cannot_be_null_is_its_types_422() {
    for (field, kind) in [
        ("survey_blocks", "list_type"),
        ("project_name", "string_type"),
        ("project_objective", "string_type"),
        ("interview_modes", "list_type"),
        ("interview_languages", "list_type"),
        ("camera_access", "enum"),
        ("interview_length", "enum"),
    ] {
        let errors = errors_of(patched(json!({ field: null })));
        assert_eq!(errors, vec![(loc(&["body", field]), kind)], "{field}");
    }
}

#[test]
fn merge_patch_arrays_replace_and_objects_merge() {
    let fields = patched(json!({"interview_languages": ["uk", "de"], "interview_modes": ["typing"]})).unwrap();
    assert_eq!(fields.interview_languages, vec!["uk", "de"]);
    assert_eq!(fields.interview_modes, vec!["typing"]);

    let fields = patched(json!({"screeners": {"screen_out_url": null, "title": "Quick check"}})).unwrap();
    let screeners = Value::Object(fields.screeners.unwrap());
    assert_eq!(screeners, json!({"screener_blocks": [{"q": "Age?"}], "title": "Quick check"}));

    let fields = patched(json!({"screeners": {"screener_blocks": []}})).unwrap();
    assert_eq!(fields.screeners.unwrap()["screener_blocks"], json!([]));

    let errors = errors_of(patched(json!({"screeners": {"screen_out_url": "bad"}})));
    assert_eq!(errors, vec![(loc(&["body", "screeners", "screen_out_url"]), "url_parsing")]);
}

#[test]
fn merge_patch_ignores_unknown_fields_and_accepts_update_only_ones() {
    let patch = ProjectPatch::parse(&json!({"status": "active", "project_id": "x", "color": 1})).unwrap();
    assert!(patch.is_empty());
    assert!(ProjectPatch::parse(&json!({})).unwrap().is_empty());
    let fields = patched(json!({"secondary_color": "#000000", "text_color": "#FFFFFFFF", "max_interviews": 50})).unwrap();
    assert_eq!(fields.secondary_color.as_ref().map(HexColor::as_str), Some("#000000"));
    assert_eq!(fields.text_color.as_ref().map(HexColor::as_str), Some("#FFFFFFFF"));
    assert_eq!(fields.max_interviews, Some(50));
    let errors = errors_of(patched(json!({"text_color": "white", "redirect_url": "http://x.example", "interview_length": 30})));
    assert_eq!(
        errors,
        vec![
            (loc(&["body", "redirect_url"]), "string_pattern_mismatch"),
            (loc(&["body", "text_color"]), "string_pattern_mismatch"),
            (loc(&["body", "interview_length"]), "enum"),
        ]
    );
    assert_eq!(errors_of(ProjectPatch::parse(&json!([1]))), vec![(loc(&["body"]), "dict_type")]);
}

#[test]
fn state_machine() {
    use Decision::*;
    assert_eq!(Action::Activate.decide(Status::Draft), Move);
    assert_eq!(Action::Activate.decide(Status::Paused), Move);
    assert_eq!(Action::Activate.decide(Status::Active), Stay);
    assert!(matches!(Action::Activate.decide(Status::Completed), Refuse(_)));
    assert_eq!(Action::Deactivate.decide(Status::Active), Move);
    for state in [Status::Draft, Status::Paused, Status::Completed] {
        assert!(matches!(Action::Deactivate.decide(state), Refuse(_)), "{state:?}");
    }
    for state in [Status::Draft, Status::Active, Status::Paused] {
        assert_eq!(Action::Complete.decide(state), Move);
    }
    assert!(matches!(Action::Complete.decide(Status::Completed), Refuse(_)));
}

#[test]
fn environments_and_urls() {
    let pairs = |q: &str| platform::http::parse_query(q);
    assert_eq!(parse_environment(&pairs("environment=sandbox")), Ok(Environment::Sandbox));
    assert_eq!(parse_environment(&pairs("environment=production")), Ok(Environment::Production));
    assert_eq!(parse_environment(&pairs("")).unwrap_err().kind, "missing");
    assert_eq!(parse_environment(&pairs("environment=live")).unwrap_err().kind, "enum");
    let p = ProjectId::parse("6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10").unwrap();
    assert_eq!(share_url("http://h:3000/", p, None), "http://h:3000/i/6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10");
    let token = SandboxToken::for_project("secret", p);
    assert_eq!(
        share_url("https://x.example", p, Some(&token)),
        format!("https://x.example/i/6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10?env=sandbox&sandbox_token={}", token.as_str())
    );
}

#[test]
fn sandbox_tokens_are_hmacs_of_the_project_under_the_tenants_secret() {
    let project = ProjectId::parse("6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10").unwrap();
    // python3 -c "import hmac,hashlib,base64;print(base64.urlsafe_b64encode(hmac.new(b'tenant-secret',b'sandbox:6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10',hashlib.sha256).digest()[:16]).decode().rstrip('='))"
    let token = SandboxToken::for_project("tenant-secret", project);
    assert_eq!(token.as_str(), "fXCpmBxCqh7eUPbvs6bOlA");
    assert_eq!(token.as_str().len(), 22, "128 bits, base64url");
    assert!(SandboxToken::opens(Some(token.as_str()), Some("tenant-secret"), project));
    // Another project, another (or a rotated) secret, no secret yet, no token, a near miss: nothing opens.
    assert!(!SandboxToken::opens(Some(token.as_str()), Some("tenant-secret"), ProjectId::parse("7f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10").unwrap()));
    assert!(!SandboxToken::opens(Some(token.as_str()), Some("rotated-secret"), project));
    assert!(!SandboxToken::opens(Some(token.as_str()), None, project));
    assert!(!SandboxToken::opens(None, Some("tenant-secret"), project));
    assert!(!SandboxToken::opens(Some(&token.as_str()[..21]), Some("tenant-secret"), project));
    assert!(!SandboxToken::opens(Some(""), Some("tenant-secret"), project));
}

#[test]
fn context_rules() {
    use context::check_field;
    assert!(check_field("project_objective", "Understand why shoppers abandon the mobile checkout").is_valid);
    assert!(!check_field("project_objective", "test test test").is_valid);
    assert!(!check_field("project_objective", "Improve checkout").is_valid);
    assert!(check_field("research_questions", "Why do shoppers leave the checkout page?").is_valid);
    assert!(check_field("research_questions", "1. How do people pay today\n2. Which options they miss").is_valid);
    let statement = check_field("research_questions", "We will look at the checkout flow generally");
    assert!(!statement.is_valid && statement.feedback.is_some());
    assert!(check_field("success_criteria", "Three validated reasons for abandonment").is_valid);
    assert!(!check_field("success_criteria", "lorem ipsum dolor").is_valid);
    assert!(check_field("recruiting_criteria", "Online shoppers who bought on mobile").is_valid);
    assert!(check_field("recruiting_criteria", "Aged 25-45, living in Germany").is_valid);
    assert!(!check_field("recruiting_criteria", "anything goes really").is_valid);
    assert!(check_field("recruiting_criteria", "Gamers 18+ living in Spain").is_valid);
    // Words as the toolkit reads them: Japanese has no spaces between its words.
    assert!(check_field("project_objective", "モバイルのチェックアウトで買い物客がなぜ購入をやめるのかを理解し、改善のための理由を三つ見つけたい").is_valid);
    // A sentence opening with an interrogative, after "e.g." (which does not end one).
    assert!(check_field("research_questions", "We look at payment, e.g. cards. how do people pay today").is_valid);
}

#[test]
fn the_builtin_writer_is_deterministic_and_passes_the_rules() {
    for prompt in [
        "We want to learn how parents of toddlers choose a daycare. Interview parents in big cities.",
        "Checkout abandonment on our mobile app is rising and we do not know why",
        "   SaaS onboarding!!! ",
    ] {
        let (name, written) = writer::builtin(prompt);
        assert_eq!((name.clone(), written.clone()), writer::builtin(prompt));
        assert!(!name.is_empty() && name.chars().count() <= 80, "{name}");
        for (field, verdict) in context::check_rules(&written) {
            assert!(verdict.is_valid, "{prompt}: {field}: {verdict:?} in {written:?}");
        }
    }
    let (_, written) = writer::builtin("We want to learn how parents of toddlers choose a daycare. Interview parents in big cities.");
    assert!(written.recruiting_criteria.contains("parents"), "{}", written.recruiting_criteria);
}

#[test]
fn the_writer_falls_back_without_a_model() {
    let (_, _, used) = writer::write("We want to learn how parents choose a daycare.", &LlmConfig::disabled());
    assert_eq!(used, writer::Writer::BuiltIn);
}

#[test]
fn model_answers_are_parsed_strictly() {
    let good = r#"{"project_name":"Daycare","project_objective":"o","research_questions":"q?","success_criteria":"s","recruiting_criteria":"r"}"#;
    let (name, written) = writer::parse_model_answer(good).unwrap();
    assert_eq!((name.as_str(), written.research_questions.as_str()), ("Daycare", "q?"));
    for bad in [
        "I think the project is about daycare",
        r#"{"project_name":"Daycare"}"#,
        r#"{"project_name":"D","project_objective":"o","research_questions":"q","success_criteria":"s","recruiting_criteria":5}"#,
        r#"{"project_name":"D","project_objective":"o","research_questions":"q","success_criteria":"s","recruiting_criteria":"r","extra":"x"}"#,
    ] {
        assert!(writer::parse_model_answer(bad).is_err(), "{bad}");
    }
    let verdicts = r#"{"project_objective":{"is_valid":true},"research_questions":{"is_valid":false,"feedback":"vague"},"success_criteria":{"is_valid":true,"feedback":null},"recruiting_criteria":{"is_valid":true}}"#;
    let parsed = context::parse_model_verdicts(verdicts).unwrap();
    assert_eq!(parsed[1], context::Verdict { is_valid: false, feedback: Some("vague".into()) });
    assert!(context::parse_model_verdicts(r#"{"project_objective":{"is_valid":"yes"}}"#).is_err());
}

#[test]
fn read_shapes() {
    let project = Project {
        project_id: platform::ids::ProjectId::new_random(),
        project_type: ProjectType::ContextualInterview,
        fields: stored(),
        status: Status::Draft,
        created_at: "2026-11-21T13:45:12.345Z".into(),
        published_at: None,
        revision: 0,
        completed_interviews: 0,
        tenant_id: platform::ids::TenantId::new_random(),
    };
    let keys = |v: Value| {
        let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    let mut list = vec![
        "project_id", "project_type", "project_name", "project_description", "created_at", "redirect_url",
        "interview_modes", "camera_access", "logo_url", "primary_color",
    ];
    list.sort();
    assert_eq!(keys(project.list_item()), list);
    let mut detail = vec![
        "project_id", "project_type", "project_objective", "research_questions", "success_criteria",
        "recruiting_criteria", "specific_guidelines", "project_description", "redirect_url", "interview_modes",
        "camera_access", "logo_url", "primary_color", "screeners", "interview_languages", "interview_length", "status",
        "max_interviews", "data_retention_days", "project_name", "secondary_color", "text_color",
    ];
    detail.sort();
    assert_eq!(keys(project.detail()), detail);
}

#[test]
fn survey_blocks_conflict_with_a_project_that_is_not_a_survey() {
    let blocks = json!({"survey_blocks": [{"block_id": "why", "type": "open_question", "prompt": "Why?"}]});
    let patch = ProjectPatch::parse(&blocks).unwrap();
    let mut project = tests_support::project();
    match patch.fits(&project) {
        Err(error @ ApiError::Conflict { code: "not_a_survey", .. }) => assert_eq!(error.status(), 409),
        other => panic!("expected a 409 not_a_survey, got {other:?}"),
    }
    assert!(ProjectPatch::parse(&json!({"project_name": "Renamed"})).unwrap().fits(&project).is_ok());
    project.project_type = ProjectType::Survey;
    assert!(patch.fits(&project).is_ok());
}

#[test]
fn the_field_table_describes_every_project_field_in_order() {
    let mut fields = stored();
    fields.survey_blocks = Some(Vec::new());
    let Value::Object(members) = serde_json::to_value(&fields).unwrap() else { panic!("an object") };
    let members: Vec<&str> = members.keys().map(String::as_str).collect();
    let described: Vec<&str> = FIELDS.iter().map(|spec| spec.name).collect();
    assert_eq!(members, described);
    for spec in FIELDS {
        let is_option = serde_json::from_value::<ProjectFields>({
            let mut value = serde_json::to_value(&fields).unwrap();
            value[spec.name] = Value::Null;
            value
        })
        .is_ok();
        assert_eq!(is_option, spec.presence != Presence::Required, "{}", spec.name);
    }
}

#[test]
fn patched_survey_blocks_are_stored_as_their_rule_reads_them() {
    let mut survey = stored();
    survey.survey_blocks = Some(Vec::new());
    let patch = json!({"survey_blocks": [
        {"block_id": "intro", "type": "statement", "prompt": "Welcome", "required": true},
        {"block_id": "why", "type": "open_question", "prompt": "Why?", "required": null, "ai_follow_up": null},
        {"block_id": "score", "type": "rating", "prompt": "How likely?"},
    ]});
    let blocks = ProjectPatch::parse(&patch).unwrap().apply(&survey).unwrap().survey_blocks.unwrap();
    let created = survey::blocks_rule(&patch["survey_blocks"], loc(&["body", "survey_blocks"])).unwrap();
    assert_eq!(blocks, created);
    assert!(!blocks[0].required, "a statement is never answered");
    assert!(blocks[1].required && !blocks[1].ai_follow_up, "null means the default");
    assert_eq!(blocks[2].scale, Some(survey::RatingScale::OneToFive));
}
