use super::*;
use crate::projects::tests_support::project;
use serde_json::json;

fn kinds(result: ApiResult<impl std::fmt::Debug>) -> Vec<(Vec<LocPart>, &'static str)> {
    match result {
        Err(ApiError::Validation(errors)) => errors.into_iter().map(|e| (e.loc, e.kind)).collect(),
        other => panic!("expected a 422, got {other:?}"),
    }
}

#[test]
fn a_start_needs_only_the_project() {
    let start = StartRequest::parse(&json!({"project_id": "6F1C0F0E-4D0A-4B8E-9A53-2D7C1F9C2B10"})).unwrap();
    assert_eq!(start.project_id, "6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10");
    assert_eq!(start.environment, Environment::Production);
    assert_eq!((start.language, start.mode, start.screener_answers), (None, None, None));
    assert!(start.external_metadata.is_empty());
}

#[test]
fn a_start_reports_every_problem() {
    let errors = kinds(StartRequest::parse(&json!({
        "environment": "staging",
        "mode": "video",
        "identifier": "a\u{0}b",
        "country_code": "DEU",
        "external_metadata": {"plan": 3},
        "screener_answers": [["ok"], "x"],
    })));
    let found: Vec<&str> = errors.iter().map(|(_, kind)| *kind).collect();
    assert_eq!(
        found,
        vec!["missing", "enum", "enum", "string_pattern_mismatch", "string_too_long", "string_type", "list_type"]
    );
    assert_eq!(errors[5].0, vec![LocPart::from("body"), "external_metadata".into(), "plan".into()]);
    assert_eq!(kinds(StartRequest::parse(&json!({"project_id": "nope"})))[0].1, "uuid_parsing");
}

#[test]
fn answers_and_finishes_are_checked() {
    assert_eq!(parse_answer(&json!({"text": "  Hello  "})).unwrap(), "Hello");
    assert_eq!(kinds(parse_answer(&json!({"text": "   "})))[0].1, "string_too_short");
    assert_eq!(kinds(parse_answer(&json!({"text": "x".repeat(5001)})))[0].1, "string_too_long");
    assert_eq!(kinds(parse_answer(&json!({})))[0].1, "missing");
    assert!(parse_finish(&json!({"opt_in_for_followup": true})).unwrap());
    assert!(!parse_finish(&json!({})).unwrap());
    assert_eq!(kinds(parse_finish(&json!({"opt_in_for_followup": "yes"})))[0].1, "bool_type");
}

#[test]
fn devices_are_told_apart_by_user_agent() {
    let iphone = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Mobile/15E148";
    let android_tablet = "Mozilla/5.0 (Linux; Android 13; SM-X700) AppleWebKit/537.36 Chrome/120.0 Safari/537.36";
    let desktop = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0 Safari/537.36";
    assert_eq!(device_type(Some(iphone)), DeviceType::Mobile);
    assert_eq!(device_type(Some(android_tablet)), DeviceType::Mobile);
    assert_eq!(device_type(Some(desktop)), DeviceType::Desktop);
    assert_eq!(device_type(None), DeviceType::Desktop);
}

#[test]
fn only_open_projects_take_sessions() {
    let mut p = project();
    assert_eq!(check_open(&p, Environment::Production), Ok(()));
    p.status = Status::Paused;
    assert_eq!(check_open(&p, Environment::Production), Err(Closed::NotActive));
    assert_eq!(check_open(&p, Environment::Sandbox), Ok(()));
    p.status = Status::Draft;
    assert_eq!(check_open(&p, Environment::Sandbox), Ok(()));
    p.status = Status::Active;
    p.fields.max_interviews = Some(2);
    p.completed_interviews = 2;
    assert_eq!(check_open(&p, Environment::Production), Err(Closed::Completed));
    assert_eq!(check_open(&p, Environment::Sandbox), Ok(()), "sandbox interviews never count");
    p.status = Status::Completed;
    assert_eq!(check_open(&p, Environment::Sandbox), Err(Closed::Completed));
    assert_eq!(Closed::NotActive.into_error().status(), 409);
    assert_eq!(Closed::Completed.into_error().status(), 410);
}

#[test]
fn the_session_body_shows_turns_without_internals() {
    let interview = Interview {
        interview_id: "i".into(),
        tenant_id: "t".into(),
        project_id: "p".into(),
        project_type: "contextual_interview".into(),
        environment: Environment::Sandbox,
        session_token_hash: "secret-hash".into(),
        identifier: "ada@example.com".into(),
        country_code: "DE".into(),
        device_type: DeviceType::Desktop,
        language: "en".into(),
        mode: InterviewMode::Typing,
        external_metadata: ExternalMetadata::default(),
        state: SessionState::InProgress,
        interviewer_closed: false,
        response_count: 0,
        turn_count: 1,
        answerable_blocks: 0,
        answered_blocks: 0,
        opt_in_for_followup: false,
        summary: None,
        created_at: "2026-11-23T10:00:00.000Z".into(),
        created_ms: 0,
        last_activity_ms: 0,
        ended_at: None,
        closed_at: None,
        interview_status: InterviewStatus::Initiated,
    };
    let turn = Turn {
        seq: 0,
        speaker: Speaker::Interviewer,
        kind: TurnKind::Opening,
        question_index: Some(0),
        source: TurnSource::BuiltIn,
        text: "Hello".into(),
        created_at: "2026-11-23T10:00:00.000Z".into(),
    };
    let body = interview.session_body(&[turn], None);
    assert_eq!(body["environment"], "sandbox");
    assert_eq!(body["interview_status"], "INITIATED");
    assert_eq!(body["turns"], json!([{"seq": 0, "speaker": "interviewer", "text": "Hello", "created_at": "2026-11-23T10:00:00.000Z"}]));
    assert!(!body.to_string().contains("secret-hash"));
    assert!(body.get("survey").is_none(), "interviews have no survey progress");
}
