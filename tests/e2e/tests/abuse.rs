//! The interviewee side tried as an attacker with nothing but a link
//! (issue 26): a project's id opens no sandbox, bursts from one address or
//! on one session meet their budgets without touching anyone else, and a
//! project's model budget per day holds, the built-in interviewer taking over.

use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

fn page_status(app: &TestApp, path: &str) -> StatusCode {
    app.get(path).send().unwrap().status()
}

fn path_of(app: &TestApp, url: &str) -> String {
    url.strip_prefix(&app.url("")).unwrap_or_else(|| panic!("{url} is not on this app")).to_string()
}

fn interview_count(app: &TestApp, project_id: &str) -> i64 {
    database(app).query_row("SELECT COUNT(*) FROM interviews WHERE project_id = ?", [project_id], |r| r.get(0)).unwrap()
}

#[test]
fn a_project_id_alone_opens_no_sandbox() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let draft = create_project(app, &tenant, &project_body(json!({})));
    let other = create_project(app, &tenant, &project_body(json!({})));
    let (_, unknown) = start_raw(app, &start_body(&uuid::Uuid::new_v4().to_string(), "sandbox"));
    assert_detail_error(&unknown, "not_found");

    // What the issue replayed: anonymous sandbox starts of a draft, many times
    // over, with no token, a made-up one, another project's or a near miss.
    let (_, other_token) = sandbox_link(app, &tenant, &other);
    let (link, token) = sandbox_link(app, &tenant, &draft);
    let near_miss = format!("{}{}", &token[..21], if token.ends_with('A') { "B" } else { "A" });
    for sandbox_token in [Value::Null, json!("x".repeat(22)), json!(other_token), json!(near_miss), json!("")] {
        for _ in 0..3 {
            let (status, body) = start_raw(
                app,
                &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": sandbox_token, "mode": "typing"}),
            );
            assert_eq!(status, 404, "{sandbox_token}: {body}");
            assert_eq!(body, unknown, "refused exactly like an unknown project");
        }
    }
    for path in [format!("/i/{draft}?env=sandbox"), format!("/i/{draft}?env=sandbox&sandbox_token={other_token}")] {
        assert_eq!(page_status(app, &path), 404, "{path}");
    }
    assert_eq!(interview_count(app, &draft), 0, "no interview was written");
    let (_, listed) = json_of(app.get(&format!("/v1/interviews?project_id={draft}&environment=sandbox")).auth(&tenant).send().unwrap());
    assert_eq!(listed["data"], json!([]));

    // The tenant's own link opens it, page and start.
    assert_eq!(page_status(app, &path_of(app, &link)), 200);
    let mut running = Session::start(app, &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": token}));
    assert_eq!(running.body["environment"], "sandbox");
    // A production start needs no token, and the draft is closed to it.
    assert_eq!(start_raw(app, &start_body(&draft, "production")).0, 409);

    // Rotation revokes every sandbox link of the tenant; running interviews go on.
    let (status, rotated) = json_of(app.post("/v1/sandbox-links/rotate").auth(&tenant).send().unwrap());
    assert_eq!(status, 200, "{rotated}");
    assert!(rotated["rotated_at"].as_str().is_some_and(|at| at.ends_with('Z')), "{rotated}");
    assert_eq!(page_status(app, &path_of(app, &link)), 404);
    let (status, body) = start_raw(app, &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": token}));
    assert_eq!((status, body), (StatusCode::NOT_FOUND, unknown.clone()));
    let (status, body) = start_raw(app, &json!({"project_id": other, "environment": "sandbox", "sandbox_token": other_token}));
    assert_eq!((status, body), (StatusCode::NOT_FOUND, unknown.clone()), "every project's link");
    running.answer(app, "We chose the daycare closest to my office, mostly because of the commute.");
    let (new_link, new_token) = sandbox_link(app, &tenant, &draft);
    assert_ne!(new_token, token);
    assert_eq!(page_status(app, &path_of(app, &new_link)), 200);
    Session::start(app, &json!({"project_id": draft, "environment": "sandbox", "sandbox_token": new_token}));

    // Another tenant: its own secret (its rotation is no business of this one's), and no way in.
    let stranger = app.create_tenant();
    assert_eq!(json_of(app.post("/v1/sandbox-links/rotate").auth(&stranger).send().unwrap()).0, 200);
    assert_eq!(page_status(app, &path_of(app, &new_link)), 200);
    assert_eq!(json_of(app.get(&format!("/v1/projects/{draft}/url?environment=sandbox")).auth(&stranger).send().unwrap()).0, 404);
    assert_eq!(json_of(app.post("/v1/sandbox-links/rotate").send().unwrap()).0, 401);
    assert_eq!(interview_count(app, &draft), 2);
}

/// A request from `address` (the app trusts `X-Forwarded-For`, as behind a proxy).
fn from(request: reqwest::blocking::RequestBuilder, address: &str) -> reqwest::blocking::RequestBuilder {
    request.header("x-forwarded-for", address)
}

fn start_from(app: &TestApp, address: &str, body: &Value) -> (StatusCode, Value, Option<u64>) {
    let response = from(app.post("/v1/sessions"), address).json(body).send().unwrap();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().parse().unwrap());
    let (status, body) = json_of(response);
    (status, body, retry_after)
}

fn answer_from(app: &TestApp, address: &str, session: &Session, token: &str, text: &str) -> (StatusCode, Option<u64>) {
    let response = from(app.post(&session.path("/answers")), address).bearer_auth(token).json(&json!({ "text": text })).send().unwrap();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().parse().unwrap());
    (response.status(), retry_after)
}

fn assert_rate_limited(status: StatusCode, retry_after: Option<u64>, what: &str) {
    assert_eq!(status, 429, "{what}");
    assert!(retry_after.is_some_and(|seconds| (1..=60).contains(&seconds)), "{what}: Retry-After {retry_after:?}");
}

fn turn_count(app: &TestApp, session: &Session) -> i64 {
    database(app)
        .query_row("SELECT COUNT(*) FROM interview_turns WHERE interview_id = ?", [&session.interview_id], |r| r.get(0))
        .unwrap()
}

fn put_chunk(app: &TestApp, address: &str, session: &Session, index: u64, bytes: usize) -> (StatusCode, Option<u64>) {
    let response = from(app.request("PUT", &session.path(&format!("/recordings/audio/{index}"))), address)
        .bearer_auth(&session.token)
        .header("content-type", "audio/webm")
        .body(vec![7u8; bytes])
        .send()
        .unwrap();
    let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().parse().unwrap());
    (response.status(), retry_after)
}

#[test]
fn a_burst_from_one_address_meets_its_budgets_and_nobody_else_does() {
    let app = TestApp::start(&[
        ("trust_forwarded_for", "true"),
        ("session_start_rate_limit_per_minute", "3"),
        ("session_answer_rate_limit_per_minute", "4"),
        ("session_transcription_rate_limit_per_minute", "2"),
        ("recording_bytes_per_minute", "3000"),
    ]);
    let tenant = app.create_tenant();
    let project = active_project(&app, &tenant, json!({}));
    let other_project = active_project(&app, &tenant, json!({}));
    let (attacker, neighbour) = ("203.0.113.7", "198.51.100.20");
    wait_for_fresh_window(30);

    // Starts: three per address and project in a minute, then 429 with Retry-After.
    let mut started = Vec::new();
    for _ in 0..3 {
        let (status, body, _) = start_from(&app, attacker, &start_body(&project, "production"));
        assert_eq!(status, 201, "{body}");
        started.push(Session {
            interview_id: body["interview_id"].as_str().unwrap().into(),
            token: body["session_token"].as_str().unwrap().into(),
            body,
        });
    }
    let (status, body, retry_after) = start_from(&app, attacker, &start_body(&project, "production"));
    assert_rate_limited(status, retry_after, "the fourth start");
    assert_detail_error(&body, "rate_limited");
    assert_eq!(interview_count(&app, &project), 3, "the refused start wrote nothing");
    // Nothing else is affected: another project from the same address, the same project from another.
    assert_eq!(start_from(&app, attacker, &start_body(&other_project, "production")).0, 201);
    assert_eq!(start_from(&app, neighbour, &start_body(&project, "production")).0, 201);

    // Answers: four per session in a minute, whatever the address.
    let (burst, calm, other) = (&started[0], &started[1], &started[2]);
    for n in 0..4 {
        let address = if n % 2 == 0 { attacker } else { neighbour };
        assert_eq!(answer_from(&app, address, burst, &burst.token, &format!("Answer {n}: we chose the closest daycare.")).0, 200);
    }
    let before = turn_count(&app, burst);
    let (status, retry_after) = answer_from(&app, attacker, burst, &burst.token, "Answer 4, too fast for a person.");
    assert_rate_limited(status, retry_after, "the fifth answer");
    assert_eq!(turn_count(&app, burst), before, "the refused answer was not stored");
    assert_eq!(answer_from(&app, attacker, calm, &calm.token, "A calm answer about the commute.").0, 200, "another session");
    // A forged token spends its own budget (401s, then 429s), nothing of the session's.
    let forged: Vec<u16> =
        (0..6).map(|_| answer_from(&app, attacker, other, "ses_not-the-token", "A forged answer.").0.as_u16()).collect();
    assert_eq!(forged, [401, 401, 401, 401, 429, 429]);
    for n in 0..4 {
        assert_eq!(answer_from(&app, neighbour, other, &other.token, &format!("Real answer {n} about the staff.")).0, 200);
    }

    // Transcriptions: two per session in a minute (503 here: no model), then 429.
    let transcribe = |session: &Session| {
        let response = from(app.post(&session.path("/transcriptions")), attacker)
            .bearer_auth(&session.token)
            .header("content-type", "audio/webm")
            .body(vec![1u8, 2, 3])
            .send()
            .unwrap();
        let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().parse().unwrap());
        (response.status(), retry_after)
    };
    assert_eq!(transcribe(calm).0, 503);
    assert_eq!(transcribe(calm).0, 503);
    let (status, retry_after) = transcribe(calm);
    assert_rate_limited(status, retry_after, "the third transcription");
    assert_eq!(transcribe(other).0, 503, "another session transcribes");

    // Recording bytes: 3000 a minute per session (a first chunk always fits an empty minute).
    assert_eq!(put_chunk(&app, attacker, calm, 0, 2000).0, 200);
    let (status, retry_after) = put_chunk(&app, attacker, calm, 1, 2000);
    assert_rate_limited(status, retry_after, "bytes beyond the minute's budget");
    assert_eq!(put_chunk(&app, attacker, calm, 1, 1000).0, 200, "what still fits the minute");
    let (size, chunks): (i64, i64) = database(&app)
        .query_row("SELECT size, chunk_count FROM recordings WHERE interview_id = ?", [&calm.interview_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!((size, chunks), (3000, 2), "the refused chunk was not stored");
    assert_eq!(put_chunk(&app, attacker, other, 0, 2500).0, 200, "another session records");
}

#[test]
fn the_daily_model_budget_hands_the_interview_to_the_builtin_interviewer() {
    let model = e2e::fake_model::FakeModel::start(|request| {
        let system = request.json()["messages"][0]["content"].as_str().unwrap_or_default().to_string();
        if system.contains("summarise") {
            return e2e::fake_model::ModelReply::chat(r#"{"summary": "MODEL SUMMARY"}"#);
        }
        let answers = request.text().matches("Interviewee:").count();
        let message = format!("MODEL {answers}: what happened next?");
        let content = if system.contains("\"move_on\"") {
            json!({"step": "probe", "message": message})
        } else {
            json!({ "message": message })
        };
        e2e::fake_model::ModelReply::chat(&content.to_string())
    });
    let variables = model.variables();
    let mut pairs: Vec<(&str, &str)> = variables.iter().map(|(n, v)| (*n, v.as_str())).collect();
    pairs.push(("llm_daily_calls_per_project", "3"));
    let app = TestApp::start(&pairs);
    let tenant = app.create_tenant();
    let project = active_project(&app, &tenant, json!({}));
    let calls = |project: &str| {
        let (status, body) = json_of(app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap());
        assert_eq!(status, 200, "{body}");
        body["model_calls"].clone()
    };
    let today = today(&app);
    assert_eq!(calls(&project), json!({"day": today, "calls": 0, "daily_limit": 3, "builtin_instead": 0}));

    // Three calls: the opening and two replies; then the built-in interviewer writes.
    let mut session = Session::start(&app, &start_body(&project, "production"));
    for n in 0..4 {
        session.answer(&app, &format!("Answer {n}: we compared three daycares and took the one nearest to work."));
    }
    let authors: Vec<(String, String)> = session.body["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|turn| turn["speaker"] == "interviewer")
        .map(|turn| (turn["written_by"].as_str().unwrap().to_string(), turn["text"].as_str().unwrap().to_string()))
        .collect();
    let by: Vec<&str> = authors.iter().map(|(by, _)| by.as_str()).collect();
    assert_eq!(by, ["model", "model", "model", "builtin", "builtin"], "{authors:?}");
    assert!(!authors[3].1.starts_with("MODEL"), "{authors:?}");
    let (status, _) = session.finish(&app, false);
    assert_eq!(status, 200);
    assert_eq!(model.requests_to("/chat/completions").len(), 3, "no call beyond the budget");
    let summary: String = database(&app)
        .query_row("SELECT summary FROM interviews WHERE interview_id = ?", [&session.interview_id], |r| r.get(0))
        .unwrap();
    assert_ne!(summary, "MODEL SUMMARY", "the built-in summary");

    // The tenant sees it on the project, and in the transcript's authors.
    assert_eq!(calls(&project), json!({"day": today, "calls": 3, "daily_limit": 3, "builtin_instead": 3}));
    let export = app.get(&format!("/v1/projects/{project}/interviews-export")).auth(&tenant).send().unwrap().text().unwrap();
    assert!(export.contains("Interviewer: [opening, model] MODEL 0") && export.contains(", builtin] "), "{export}");

    // Another project keeps its own budget.
    let other = active_project(&app, &tenant, json!({}));
    let fresh = Session::start(&app, &start_body(&other, "production"));
    assert_eq!(fresh.body["turns"][0]["written_by"], "model");
    assert_eq!(calls(&other)["calls"], 1);
}

/// Today's UTC date, `2026-11-21` (SQLite's `date('now')`).
fn today(app: &TestApp) -> String {
    database(app).query_row("SELECT date('now')", [], |r| r.get(0)).unwrap()
}
