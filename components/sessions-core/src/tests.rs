use super::*;
use projects_core::tests_support::project;
use platform::metadata::ExternalMetadata;
use projects_core::{InterviewMode, Language, ProjectType, Status};
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
    assert_eq!(start.project_id.to_string(), "6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10");
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
fn a_finish_takes_a_boolean_or_nothing_but_not_null() {
    assert!(!parse_finish(&json!({"opt_in_for_followup": false})).unwrap());
    assert_eq!(
        kinds(parse_finish(&json!({"opt_in_for_followup": null}))),
        vec![(body_loc("opt_in_for_followup"), "bool_type")]
    );
}

#[test]
fn every_answer_field_is_typed_whatever_the_message_takes() {
    // An interview's message takes text; the survey fields are still checked.
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "skip": {}}))), vec![(body_loc("skip"), "bool_type")]);
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "skip": null}))), vec![(body_loc("skip"), "bool_type")]);
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "rating": "5"}))), vec![(body_loc("rating"), "int_type")]);
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "rating": 11}))), vec![(body_loc("rating"), "less_than_equal")]);
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "choices": []}))), vec![(body_loc("choices"), "too_short")]);
    let choice = vec![LocPart::from("body"), "choices".into(), 0.into()];
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "choices": [""]}))), vec![(choice, "string_too_short")]);
    let many: Vec<String> = (0..21).map(|i| i.to_string()).collect();
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "choices": many}))), vec![(body_loc("choices"), "too_long")]);
    assert_eq!(kinds(parse_answer(&json!({"text": "0", "block_id": ""}))), vec![(body_loc("block_id"), "string_too_short")]);
    assert_eq!(kinds(parse_answer(&json!({"skip": true, "text": 5}))), vec![(body_loc("text"), "string_type")]);
    // Fields of the right type that the message does not use are ignored.
    let all = json!({"text": "0", "choices": ["a"], "rating": 0, "skip": false, "block_id": "b"});
    assert_eq!(parse_answer(&all).unwrap(), "0");
}

#[test]
fn a_well_formed_answer_of_another_kind_is_a_conflict_with_the_interview() {
    // Survey answers are well-formed bodies: an interview question takes text,
    // which depends on the session, so they are a 409, not a 422.
    for body in [json!({"choices": ["a"]}), json!({"rating": 3}), json!({"skip": true}), json!({"rating": 3, "skip": false})] {
        let error = parse_answer(&body).unwrap_err();
        assert_eq!((error.status(), error.body()["detail"]["error"].clone()), (409, json!("answer_mismatch")), "{body}");
    }
    // No answer at all is still a missing text.
    assert_eq!(kinds(parse_answer(&json!({"skip": false}))), vec![(body_loc("text"), "missing")]);
    assert_eq!(kinds(parse_answer(&json!({"block_id": "b"}))), vec![(body_loc("text"), "missing")]);
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
    assert_eq!(check_open(p.openness(), Environment::Production), Ok(()));
    p.status = Status::Paused;
    assert_eq!(check_open(p.openness(), Environment::Production), Err(Closed::NotActive));
    assert_eq!(check_open(p.openness(), Environment::Sandbox), Ok(()));
    p.status = Status::Draft;
    assert_eq!(check_open(p.openness(), Environment::Sandbox), Ok(()));
    p.status = Status::Active;
    p.fields.max_interviews = Some(2);
    p.completed_interviews = 2;
    assert_eq!(check_open(p.openness(), Environment::Production), Err(Closed::Completed));
    assert_eq!(check_open(p.openness(), Environment::Sandbox), Ok(()), "sandbox interviews never count");
    p.status = Status::Completed;
    assert_eq!(check_open(p.openness(), Environment::Sandbox), Err(Closed::Completed));
    assert_eq!(Closed::NotActive.into_error().status(), 409);
    assert_eq!(Closed::Completed.into_error().status(), 410);
}

#[test]
fn the_interview_status_follows_the_contract() {
    use InterviewStatus::{Initiated, Partial};
    use SessionState::{InProgress, Left, TimedOut};
    const COMPLETED: SessionState = SessionState::Completed;
    const DONE: InterviewStatus = InterviewStatus::Completed;
    let interview = |state, responses| InterviewStatus::of(state, ProjectType::ContextualInterview, responses, 0, 0);
    assert_eq!([interview(InProgress, 0), interview(InProgress, 3), interview(InProgress, 4)], [Initiated, Initiated, Partial]);
    assert_eq!([interview(Left, 5), interview(TimedOut, 1), interview(COMPLETED, 0)], [Partial, Initiated, DONE]);
    // A survey: a third of the blocks that take an answer makes it partial.
    let survey = |state, answered| InterviewStatus::of(state, ProjectType::Survey, 9, 6, answered);
    assert_eq!([survey(InProgress, 1), survey(InProgress, 2), survey(COMPLETED, 0)], [Initiated, Partial, DONE]);
    assert_eq!(InterviewStatus::of(InProgress, ProjectType::Survey, 0, 0, 0), Initiated, "a survey of statements only");
}

#[test]
fn the_session_body_shows_turns_without_internals() {
    let interview = Interview {
        interview_id: platform::ids::InterviewId::new_random(),
        tenant_id: platform::ids::TenantId::new_random(),
        project_id: platform::ids::ProjectId::new_random(),
        project_type: ProjectType::ContextualInterview,
        environment: Environment::Sandbox,
        session_token_hash: "secret-hash".into(),
        identifier: "ada@example.com".into(),
        country_code: "DE".into(),
        device_type: DeviceType::Desktop,
        language: Language::En,
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
        flagged: false,
        interview_status: InterviewStatus::Initiated,
        quality: None,
        sealing: sealing::Sealing::Key(sealing::DataKey::generate()),
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
    let body = super::session_body(&interview, &[turn], None);
    assert_eq!(body["environment"], "sandbox");
    assert_eq!(body["interview_status"], "INITIATED");
    assert_eq!(body["turns"], json!([{"seq": 0, "speaker": "interviewer", "kind": "opening", "written_by": "builtin", "text": "Hello", "created_at": "2026-11-23T10:00:00.000Z"}]));
    assert!(!body.to_string().contains("secret-hash"));
    assert!(body.get("survey").is_none(), "interviews have no survey progress");
}
