//! Interviewee sessions end to end (docs/sessions.md): the link's page, the
//! session API driven as the page drives it, the built-in and the model
//! interviewer, recordings, the idle timeout, and what ends up in the outbox.

use e2e::fake_model::{FakeModel, ModelReply};
use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};
use std::time::Duration;

const LONG_ANSWER: &str = "We visited three daycares and picked the one closest to work, mostly because of the commute.";
const OPENING: &str = "Hello, and thank you for taking the time to talk with me. I would like to learn about how \
    parents of toddlers choose a daycare. There are no right or wrong answers: I am interested in your own \
    experience and opinions. Let's begin. How did you choose your current daycare?";

fn status_of(session: &Session) -> (&str, i64) {
    (session.body["interview_status"].as_str().unwrap(), session.body["responses"].as_i64().unwrap())
}

fn page(app: &TestApp, path: &str) -> (StatusCode, reqwest::header::HeaderMap, String) {
    let response = app.get(path).send().unwrap();
    let (status, headers) = (response.status(), response.headers().clone());
    (status, headers, response.text().unwrap())
}

#[test]
fn a_typed_interview_goes_from_initiated_to_partial_to_completed() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({}));

    // The link: its page carries what the session starts with.
    let (status, headers, html) = page(
        app,
        &format!("/i/{project_id}?email=ada%40example.com&external_metadata%5Bplan%5D=pro&country=de&lang=en"),
    );
    assert_eq!(status, 200);
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    let csp = headers["content-security-policy"].to_str().unwrap();
    assert!(csp.starts_with("default-src 'none'; script-src 'nonce-"), "{csp}");
    let boot = boot_data(&html);
    assert_eq!(
        boot["start"],
        json!({"project_id": project_id, "environment": "production", "language": "en", "identifier": "ada@example.com",
               "country_code": "DE", "external_metadata": {"plan": "pro"}})
    );
    assert_eq!(boot["modes"], json!(["typing"]));

    let mut start = boot["start"].clone();
    start["mode"] = json!("typing");
    let mut session = Session::start(app, &start);
    assert_eq!(session.body["turns"].as_array().unwrap().len(), 1);
    assert_eq!(session.last_message(), OPENING);
    assert_eq!(status_of(&session), ("INITIATED", 0));
    assert_eq!(session.body["state"], "in_progress");

    // Every answer is probed while its question's budget lasts (10 minutes, 3
    // questions: 2 probes each), quoting a whole noun phrase the interviewee
    // said and asking what fits it: it narrates ("we visited"), but no way of
    // asking what came of it fits a thing, so more about it.
    assert_eq!(session.answer(app, LONG_ANSWER), "You brought up “commute”. Could you say more about that?");
    assert_eq!(status_of(&session), ("INITIATED", 1));
    // A short answer a quote would repeat whole: asked about in the interviewer's own words.
    assert_eq!(session.answer(app, "The price."), "Could you say a little more about what that looks like for you?");
    assert_eq!(session.answer(app, LONG_ANSWER), "Thank you. What mattered most to you in that decision?");
    assert_eq!(status_of(&session), ("INITIATED", 3));
    // An answer that declines is never probed: the interviewer moves on politely.
    assert_eq!(session.answer(app, "I don't know."), "That's all right. What would you change about how you searched?");
    assert_eq!(status_of(&session), ("PARTIAL", 4), "4 responses make an interview PARTIAL");
    assert_eq!(
        session.answer(app, "Nothing, really."),
        "That's all right. Before we finish: is there anything else you would like to add?"
    );
    let closing = session.answer(app, "No, that is all, thanks.");
    assert!(closing.starts_with("That is everything I wanted to ask."), "{closing}");
    assert_eq!(session.body["interviewer_closed"], true);
    assert_eq!(status_of(&session), ("PARTIAL", 6));
    let steps: Vec<(&str, &str)> = session.body["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["speaker"] == "interviewer")
        .map(|t| (t["kind"].as_str().unwrap(), t["written_by"].as_str().unwrap()))
        .collect();
    let builtin = |kind| (kind, "builtin");
    assert_eq!(steps, ["opening", "probe", "probe", "question", "question", "wrap_up", "closing"].map(builtin));

    let (status, body) = session.answer_raw(app, "One more thing!");
    assert_eq!(status, 409);
    assert_detail_error(&body, "session_closed");

    let (status, finished) = session.finish(app, true);
    assert_eq!(status, 200);
    assert_eq!(
        finished,
        json!({"state": "completed", "interview_status": "COMPLETED", "redirect_url": "https://panel.example.com/done"})
    );
    let (status, body) = session.finish(app, false);
    assert_eq!(status, 409);
    assert_detail_error(&body, "session_closed");
    let (_, stored) = session.get(app);
    assert_eq!((stored["state"].as_str(), stored["interview_status"].as_str()), (Some("completed"), Some("COMPLETED")));
    assert_eq!(stored["turns"].as_array().unwrap().len(), 13);

    // What was recorded.
    let conn = database(app);
    let row: (String, String, String, String, i64, String, Option<String>, Option<String>) = conn
        .query_row(
            "SELECT identifier, country_code, device_type, external_metadata, opt_in_for_followup, summary, ended_at, closed_at
             FROM interviews WHERE interview_id = ?",
            [&session.interview_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?)),
        )
        .unwrap();
    assert_eq!((row.0.as_str(), row.1.as_str(), row.2.as_str(), row.3.as_str(), row.4), ("ada@example.com", "DE", "DESKTOP", r#"{"plan":"pro"}"#, 1));
    // The built-in summary quotes at most 0.3 of the interviewee's words, headings
    // included (docs/interviews.md): of these 45 words, no sentence fits.
    assert_eq!(row.5, "", "too short to summarise");
    assert!(row.6.is_some() && row.6 == row.7, "a completed interview's ended_at is its closing time");
    let metadata: Vec<(String, String)> = conn
        .prepare("SELECT key, value FROM interview_metadata WHERE interview_id = ?")
        .unwrap()
        .query_map([&session.interview_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(metadata, vec![("plan".to_string(), "pro".to_string())]);

    // interview.finished, exactly once, with the additive fields.
    let finished_events = events(app, "interview.finished", "interview_id", &session.interview_id);
    assert_eq!(finished_events.len(), 1);
    let payload = &finished_events[0].1;
    assert_eq!(payload["project_id"], project_id);
    assert_eq!(payload["interviewee_id"], "ada@example.com");
    assert_eq!(payload["interview_status"], "COMPLETED");
    assert_eq!(payload["environment"], "production");
    assert_eq!(payload["finished_at"].as_str(), row.7.as_deref());
    assert!(uuid::Uuid::parse_str(&finished_events[0].0).is_ok());
}

#[test]
fn a_session_left_early_keeps_its_status_and_no_ended_at() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({"redirect_url": null}));
    let mut session = Session::start(app, &start_body(&project_id, "production"));
    session.answer(app, LONG_ANSWER);
    let (status, finished) = session.finish(app, false);
    assert_eq!(status, 200);
    assert_eq!(finished, json!({"state": "left", "interview_status": "INITIATED", "redirect_url": null}));
    let ended_at: Option<String> = database(app)
        .query_row("SELECT ended_at FROM interviews WHERE interview_id = ?", [&session.interview_id], |r| r.get(0))
        .unwrap();
    assert_eq!(ended_at, None, "only a completed interview has an ended_at");
    let finished_events = events(app, "interview.finished", "interview_id", &session.interview_id);
    assert_eq!(finished_events.len(), 1);
    assert_eq!(finished_events[0].1["interview_status"], "INITIATED");
}

#[test]
fn production_needs_an_active_project_and_sandbox_anything_but_completed() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let draft = create_project(app, &tenant, &project_body(json!({})));

    let (status, body) = start_raw(app, &start_body(&draft, "production"));
    assert_eq!(status, 409);
    assert_detail_error(&body, "project_not_active");
    let (status, headers, html) = page(app, &format!("/i/{draft}"));
    assert_eq!(status, 409);
    assert_eq!(headers["content-type"], "text/html; charset=utf-8");
    assert!(html.contains("data-status=\"409\""), "{html}");

    // The sandbox link works for a draft, and its interview says so; the page
    // sends the link's token back when it starts.
    let (link, token) = sandbox_link(app, &tenant, &draft);
    let sandbox_path = link.strip_prefix(&app.url("")).unwrap().to_string();
    let (status, _, html) = page(app, &sandbox_path);
    assert_eq!(status, 200);
    assert_eq!(boot_data(&html)["start"]["environment"], "sandbox");
    assert_eq!(boot_data(&html)["start"]["sandbox_token"], token.as_str());
    let sandbox_start = sandbox_start_body(app, &tenant, &draft);
    let mut sandbox = Session::start(app, &sandbox_start);
    assert_eq!(sandbox.body["environment"], "sandbox");
    sandbox.complete(app);
    let sandbox_events = events(app, "interview.finished", "interview_id", &sandbox.interview_id);
    assert_eq!(sandbox_events[0].1["environment"], "sandbox");

    act(app, &tenant, &draft, "activate");
    act(app, &tenant, &draft, "deactivate");
    let (status, body) = start_raw(app, &start_body(&draft, "production"));
    assert_eq!((status, body["detail"]["error"].as_str()), (StatusCode::CONFLICT, Some("project_not_active")));
    assert_eq!(start_raw(app, &sandbox_start).0, 201, "a paused project keeps its sandbox");

    act(app, &tenant, &draft, "complete");
    for start in [start_body(&draft, "production"), sandbox_start.clone()] {
        let (status, body) = start_raw(app, &start);
        assert_eq!(status, 410, "{start}");
        assert_detail_error(&body, "project_completed");
    }
    assert_eq!(page(app, &format!("/i/{draft}")).0, 410);
    assert_eq!(page(app, &sandbox_path).0, 410);

    // Unknown projects, or no project id at all: a 404 page, never a blank one.
    for path in [format!("/i/{}", uuid::Uuid::new_v4()), "/i/not-a-project".to_string()] {
        let (status, headers, html) = page(app, &path);
        assert_eq!(status, 404, "{path}");
        assert_eq!(headers["content-type"], "text/html; charset=utf-8");
        assert!(html.contains("data-status=\"404\""), "{html}");
    }
    let (status, body) = start_raw(app, &start_body(&uuid::Uuid::new_v4().to_string(), "production"));
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
}

#[test]
fn reaching_max_interviews_completes_the_project_once() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({"max_interviews": 1}));
    // Sandbox interviews never count.
    Session::start(app, &sandbox_start_body(app, &tenant, &project_id)).complete(app);
    let running = Session::start(app, &start_body(&project_id, "production"));
    let mut first = Session::start(app, &start_body(&project_id, "production"));
    first.complete(app);

    let (_, project) = json_of(app.get(&format!("/v1/projects/{project_id}")).auth(&tenant).send().unwrap());
    assert_eq!(project["status"], "completed");
    let completed = events(app, "project.completed", "project_id", &project_id);
    assert_eq!(completed.len(), 1);
    assert_eq!(completed[0].1["event_type"], "project.completed");
    // Raised in the transaction that ended the interview: its own id, the same moment.
    let finished = events(app, "interview.finished", "interview_id", &first.interview_id);
    assert_eq!(completed[0].1["completed_at"], finished[0].1["finished_at"]);
    assert_ne!(completed[0].0, finished[0].0);
    assert!(uuid::Uuid::parse_str(&completed[0].0).is_ok_and(|u| u.get_version_num() == 4), "{completed:?}");

    let (status, _) = start_raw(app, &start_body(&project_id, "production"));
    assert_eq!(status, 410);
    assert_eq!(page(app, &format!("/i/{project_id}")).0, 410);
    // An interview already running may still finish; the project stays completed, with one event.
    let (status, _) = running.finish(app, false);
    assert_eq!(status, 200);
    assert_eq!(events(app, "project.completed", "project_id", &project_id).len(), 1);
}

#[test]
fn screeners_decide_before_any_interview_exists() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let screeners = json!({
        "screener_blocks": [
            {"question": "How many children under 5 live with you?", "options": ["None", "One", "Two or more"], "qualifying_options": ["One", "Two or more"]},
            {"question": "Which care do you use?", "type": "multiple_choice", "options": ["Daycare", "Nanny", "Family"], "qualifying_options": ["Daycare"]}
        ],
        "screen_out_url": "https://panel.example.com/screened-out"
    });
    let project_id = active_project(app, &tenant, json!({ "screeners": screeners }));
    let (_, _, html) = page(app, &format!("/i/{project_id}"));
    let boot = boot_data(&html);
    assert_eq!(boot["screeners"][1], json!({"question": "Which care do you use?", "type": "multiple_choice", "options": ["Daycare", "Nanny", "Family"]}));
    assert!(!html.contains("qualifying_options"), "the page never learns which options qualify");

    let with_answers = |answers: Value| {
        let mut body = start_body(&project_id, "production");
        body["screener_answers"] = answers;
        body
    };
    let (status, body) = start_raw(app, &with_answers(json!([["None"], ["Daycare"]])));
    assert_eq!(status, 200);
    assert_eq!(body, json!({"screened_out": true, "screen_out_url": "https://panel.example.com/screened-out"}));
    let (status, body) = start_raw(app, &with_answers(json!([["One"], ["Nanny", "Family"]])));
    assert_eq!((status.as_u16(), body["screened_out"].as_bool()), (200, Some(true)));
    let count: i64 = database(app)
        .query_row("SELECT COUNT(*) FROM interviews WHERE project_id = ?", [&project_id], |r| r.get(0))
        .unwrap();
    assert_eq!(count, 0, "screened-out interviewees leave no interview");

    for (answers, loc) in [
        (Value::Null, json!(["body", "screener_answers"])),
        (json!([["One"]]), json!(["body", "screener_answers"])),
        (json!([["One", "None"], ["Daycare"]]), json!(["body", "screener_answers", 0])),
        (json!([["One"], ["Pony"]]), json!(["body", "screener_answers", 1, 0])),
    ] {
        let (status, body) = start_raw(app, &with_answers(answers.clone()));
        assert_eq!(status, 422, "{answers}: {body}");
        assert_eq!(body["detail"][0]["loc"], loc, "{answers}");
    }
    let session = Session::start(app, &with_answers(json!([["Two or more"], ["Daycare", "Family"]])));
    assert_eq!(session.body["responses"], 0, "screener answers are not responses");

    // Blocks the page cannot show: the step is skipped, the project still works.
    let free_form = active_project(app, &tenant, json!({"screeners": {"screener_blocks": [{"text": "Are you a parent?"}]}}));
    let (_, _, html) = page(app, &format!("/i/{free_form}"));
    assert_eq!(boot_data(&html)["screeners"], json!([]));
    Session::start(app, &start_body(&free_form, "production"));
}

#[test]
fn starts_are_validated_against_the_project() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({"interview_languages": ["de", "fr"]}));
    let mut body = start_body(&project_id, "production");
    body["language"] = json!("en");
    body["mode"] = json!("talking");
    let (status, errors) = start_raw(app, &body);
    assert_eq!(status, 422);
    assert_eq!(errors["detail"][0], json!({"loc": ["body", "language"], "msg": "Input should be 'de' or 'fr'", "type": "enum"}));
    assert_eq!(errors["detail"][1]["loc"], json!(["body", "mode"]));
    let (status, errors) = start_raw(app, &json!({"project_id": project_id, "external_metadata": {"k": "a\u{0}"}}));
    assert_eq!(status, 422);
    assert_eq!(errors["detail"][0]["type"], "string_pattern_mismatch");

    // The language falls back to the project's first, and the interviewer speaks it.
    let session = Session::start(app, &start_body(&project_id, "production"));
    assert_eq!(session.body["language"], "de");
    assert!(!session.last_message().starts_with("Hello"), "{}", session.last_message());
    let (_, _, html) = page(app, &format!("/i/{project_id}?lang=fr"));
    assert!(html.contains("lang=\"fr\""));
    let (_, _, html) = page(app, &format!("/i/{project_id}?lang=he"));
    assert!(html.contains("lang=\"de\""), "a language the project does not offer falls back to its first");
    let hebrew = active_project(app, &tenant, json!({"interview_languages": ["he"]}));
    let (_, _, html) = page(app, &format!("/i/{hebrew}"));
    assert!(html.contains("dir=\"rtl\""));
}

#[test]
fn sessions_only_open_with_their_own_token() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({}));
    let mine = Session::start(app, &start_body(&project_id, "production"));
    let other_tenant = app.create_tenant();
    let other_project = active_project(app, &other_tenant, json!({}));
    let theirs = Session::start(app, &start_body(&other_project, "production"));

    let as_token = |session: &Session, token: Option<&str>| {
        let mut request = app.get(&session.path(""));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        json_of(request.send().unwrap())
    };
    for (session, token) in [(&theirs, Some(mine.token.as_str())), (&mine, None), (&mine, Some("ses_wrong")), (&mine, Some(""))] {
        let (status, body) = as_token(session, token);
        assert_eq!(status, 401, "{token:?}");
        assert_detail_error(&body, "unauthorized");
    }
    let (status, _) = json_of(app.get("/v1/sessions/not-an-id").bearer_auth(&mine.token).send().unwrap());
    assert_eq!(status, 401);
    let (status, body) = mine.get(app);
    assert_eq!(status, 200);
    assert_eq!(body["interview_id"], mine.interview_id);
    assert!(!body.to_string().contains(&theirs.interview_id));
    // Tenants' API keys are no session credentials, and session tokens no API keys.
    let (status, _) = json_of(app.get(&mine.path("")).auth(&tenant).send().unwrap());
    assert_eq!(status, 401);
}

#[test]
fn recordings_arrive_in_order_within_their_limit() {
    let app = TestApp::start(&[("recording_audio_max_bytes", "2500")]);
    let tenant = app.create_tenant();
    let project_id = active_project(&app, &tenant, json!({"interview_modes": ["talking"]}));
    let session = Session::start(&app, &start_body(&project_id, "production").tap(|b| b["mode"] = json!("talking")));
    let put = |kind: &str, index: u64, content_type: &str, bytes: Vec<u8>| {
        json_of(
            app.request("PUT", &session.path(&format!("/recordings/{kind}/{index}")))
                .bearer_auth(&session.token)
                .header("content-type", content_type)
                .body(bytes)
                .send()
                .unwrap(),
        )
    };
    assert_eq!(put("audio", 0, "audio/webm;codecs=opus", vec![1; 1000]), (StatusCode::OK, json!({"kind": "audio", "chunks": 1, "size": 1000})));
    let (status, body) = put("audio", 2, "audio/webm", vec![2; 10]);
    assert_eq!(status, 409);
    assert_detail_error(&body, "chunk_out_of_order");
    assert!(body["detail"]["message"].as_str().unwrap().contains("the next one is 1"));
    let (status, body) = put("audio", 1, "audio/ogg", vec![2; 10]);
    assert_eq!(status, 409, "a recording keeps its first chunk's type");
    assert_detail_error(&body, "recording_type_mismatch");
    assert_eq!(put("audio", 1, "text/plain", vec![2; 10]).0, 415);
    assert_eq!(put("audio", 1, "audio/webm", vec![2; 1000]), (StatusCode::OK, json!({"kind": "audio", "chunks": 2, "size": 2000})));
    let (status, body) = put("audio", 2, "audio/webm", vec![3; 1000]);
    assert_eq!(status, 413);
    assert_eq!(body["code"], 413);
    assert_eq!(put("video", 0, "video/webm", vec![4; 100]).0, 200, "video is a recording of its own");
    assert_eq!(put("sound", 0, "audio/webm", vec![4; 10]).0, 404, "audio and video are the two recordings");
    assert_eq!(put("audio", 2, "audio/webm", Vec::new()).0, 422, "an empty chunk is refused");

    // The bytes are key-value chunks, listed by the metadata rows, each sealed
    // with the interview's key (a version byte, a nonce and a tag more).
    let keys: Vec<(String, i64)> = key_value(&app)
        .prepare("SELECT key, length(value) FROM spin_key_value WHERE key LIKE ? ORDER BY key")
        .unwrap()
        .query_map([format!("recording:{}:audio:%", session.interview_id)], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let sealed = 1000 + sealing::OVERHEAD as i64;
    assert_eq!(keys.iter().map(|(_, len)| *len).collect::<Vec<_>>(), vec![sealed, sealed], "{keys:?}");
    let listed: Vec<(String, i64)> = database(&app)
        .prepare("SELECT blob_key, byte_offset FROM recording_chunks WHERE interview_id = ? AND kind = 'audio' ORDER BY idx")
        .unwrap()
        .query_map([&session.interview_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(listed.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(), keys.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>());
    assert_eq!(listed.iter().map(|(_, offset)| *offset).collect::<Vec<_>>(), vec![0, 1000]);

    session.finish(&app, false);
    let (status, body) = put("audio", 2, "audio/webm", vec![5; 10]);
    assert_eq!(status, 409);
    assert_detail_error(&body, "session_closed");
}

/// A reload starts a new recorder: its chunks continue the index, start with
/// a header of their own, and the recording stays one file that plays end to
/// end (the recorders' files here are Chromium's, from its fake devices).
#[test]
fn a_recording_interrupted_by_a_reload_exports_as_one_file_that_plays_to_the_end() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({"interview_modes": ["talking"], "camera_access": "optional"}));
    let mut talking = start_body(&project_id, "production");
    talking["mode"] = json!("talking");
    let session = Session::start(app, &talking);
    let fixture = |name: &str| std::fs::read(workspace_root().join("tests/fixtures/recordings").join(name)).unwrap();
    for (kind, content_type, first, second) in [
        ("audio", "audio/webm;codecs=opus", "audio-1.webm", "audio-2.webm"),
        ("video", "video/webm;codecs=\"vp8,opus\"", "video-1.webm", "video-2.webm"),
    ] {
        let (first, second) = (fixture(first), fixture(second));
        let mut index = 0;
        let mut stored = 0;
        // Chunks of 8 KiB, the first recorder's, then (after the reload) the second's.
        for chunk in first.chunks(8192).chain(second.chunks(8192)) {
            let (status, body) = json_of(
                app.request("PUT", &session.path(&format!("/recordings/{kind}/{index}")))
                    .bearer_auth(&session.token)
                    .header("content-type", content_type)
                    .body(chunk.to_vec())
                    .send()
                    .unwrap(),
            );
            assert_eq!(status, 200, "{kind} chunk {index}: {body}");
            index += 1;
            stored = body["size"].as_u64().unwrap();
        }
        let response = app.get(&format!("/v1/interviews/{}/{kind}-export", session.interview_id)).auth(&tenant).send().unwrap();
        assert_eq!(response.status(), 200);
        let exported = response.bytes().unwrap().to_vec();
        assert_eq!(exported.len() as u64, stored);
        assert!(exported.starts_with(&first), "{kind}: the first recorder's file as it was uploaded");
        assert_eq!(exported.windows(4).filter(|w| *w == [0x1A, 0x45, 0xDF, 0xA3]).count(), 1, "{kind}: one header, not two");
        let segments: i64 = database(app)
            .query_row(
                "SELECT json_extract(splicer, '$.segment') FROM recordings WHERE interview_id = ? AND kind = ?",
                [&session.interview_id, &kind.to_string()],
                |r| r.get(0),
            )
            .unwrap();
        assert_eq!(segments, 1, "the second recorder is the recording's second segment");

        let (one, two) = (e2e::media::probe(&first, "webm"), e2e::media::probe(&second, "webm"));
        let played = e2e::media::probe(&exported, "webm");
        assert_eq!(played.format, "matroska,webm");
        assert_eq!(played.codecs, one.codecs, "{kind}");
        assert_eq!(played.decode_errors, "", "{kind}: it decodes to the end without an error");
        assert!(
            played.end_seconds >= one.end_seconds + two.end_seconds - 0.1,
            "{kind}: it plays both parts: {} s of {} + {} s",
            played.end_seconds,
            one.end_seconds,
            two.end_seconds
        );
    }

    // A container that cannot be continued ends the recording where it was: MP4's second file is refused.
    let safari = Session::start(app, &talking);
    let put_mp4 = |index: u64, bytes: &[u8]| {
        json_of(
            app.request("PUT", &safari.path(&format!("/recordings/audio/{index}")))
                .bearer_auth(&safari.token)
                .header("content-type", "audio/mp4")
                .body(bytes.to_vec())
                .send()
                .unwrap(),
        )
    };
    assert_eq!(put_mp4(0, b"\0\0\0\x18ftypmp42 first recorder").0, 200);
    assert_eq!(put_mp4(1, b"more of the first recorder's fragments").0, 200);
    let (status, body) = put_mp4(2, b"\0\0\0\x18ftypmp42 second recorder");
    assert_eq!(status, 409, "{body}");
    assert_detail_error(&body, "recording_not_continuable");
}

#[test]
fn idle_interviews_are_ended_by_the_cron_run() {
    // The fresh session must stay younger than the timeout until the run has
    // read the clock: on a loaded machine a start and a cron run take a second
    // or more each, so the timeout leaves it several seconds.
    let app = TestApp::start(&[("interview_idle_timeout_seconds", "5")]);
    let tenant = app.create_tenant();
    let project_id = active_project(&app, &tenant, json!({}));
    let mut idle = Session::start(&app, &start_body(&project_id, "production"));
    idle.answer(&app, LONG_ANSWER);
    std::thread::sleep(Duration::from_millis(5200));
    let fresh = Session::start(&app, &start_body(&project_id, "production"));
    app.host.run_cron("maintenance").unwrap();

    let (_, body) = idle.get(&app);
    assert_eq!((body["state"].as_str(), body["interview_status"].as_str()), (Some("timed_out"), Some("INITIATED")));
    assert_eq!(fresh.get(&app).1["state"], "in_progress", "recent sessions keep running");
    let (status, body) = idle.answer_raw(&app, "Sorry, I was away.");
    assert_eq!(status, 409);
    assert_detail_error(&body, "session_closed");
    let finished = events(&app, "interview.finished", "interview_id", &idle.interview_id);
    assert_eq!(finished.len(), 1);
    assert_eq!(finished[0].1["interview_status"], "INITIATED");
    let (summary, ended_at, closed_at): (String, Option<String>, Option<String>) = database(&app)
        .query_row("SELECT summary, ended_at, closed_at FROM interviews WHERE interview_id = ?", [&idle.interview_id], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!(summary, "", "one sentence of 16 words: too short to summarise");
    assert_eq!(ended_at, None, "a timed-out interview is not completed");
    assert!(closed_at.is_some());
    app.host.run_cron("maintenance").unwrap();
    assert_eq!(events(&app, "interview.finished", "interview_id", &idle.interview_id).len(), 1, "ended once");
}

/// The fake model: a chat request whose transcript holds GARBAGE gets prose,
/// SLOW gets no answer in time, a summary request gets a summary, anything else
/// a message that counts the answers so far (so no two are the same): moving
/// on when offered a probe; transcriptions answer with fixed text.
fn interviewer_model() -> FakeModel {
    FakeModel::start(|request| {
        if request.path.ends_with("/audio/transcriptions") {
            return ModelReply::Json(json!({"text": "  I mostly asked other parents.  "}));
        }
        let body = request.json();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default().to_string();
        let user = body["messages"][1]["content"].as_str().unwrap_or_default().to_string();
        let last_line = user.lines().rfind(|l| l.starts_with("Interviewee:")).unwrap_or_default().to_string();
        let answers = user.lines().filter(|l| l.starts_with("Interviewee:")).count();
        let message = format!("MODEL: {answers} answers so far. Tell me more about how you compared the options?");
        if last_line.contains("GARBAGE") {
            ModelReply::chat("Great answer! Let me think about what to ask next...")
        } else if last_line.contains("SLOW") {
            ModelReply::Hang
        } else if system.contains("summarise") {
            ModelReply::chat(r#"{"summary": "MODEL SUMMARY: proximity decides."}"#)
        } else if system.contains("\"move_on\"") {
            ModelReply::chat(&json!({"step": "move_on", "message": message}).to_string())
        } else {
            ModelReply::chat(&json!({ "message": message }).to_string())
        }
    })
}

#[test]
fn the_model_interviewer_writes_messages_and_bad_answers_fall_back() {
    let model = interviewer_model();
    let variables = model.variables();
    let pairs: Vec<(&str, &str)> = variables.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let app = TestApp::start(&pairs);
    let tenant = app.create_tenant();
    let project_id = active_project(&app, &tenant, json!({}));
    let mut session = Session::start(&app, &start_body(&project_id, "production"));
    assert_eq!(session.last_message(), "MODEL: 0 answers so far. Tell me more about how you compared the options?");
    let opening_request = &model.requests_to("/chat/completions")[0];
    assert_eq!(opening_request.authorization, "Bearer test-model-key");
    let prompt = opening_request.json()["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(prompt.contains("How did you choose your current daycare?"), "{prompt}");

    // Prose instead of JSON: the built-in step and wording for that turn, a probe on the answer.
    let reply = session.answer(&app, "GARBAGE but long enough to be a real answer here");
    assert!(reply.contains("“real answer”") || reply.contains("“GARBAGE”"), "{reply}");
    // No answer within the timeout: the built-in again.
    let reply = session.answer(&app, "SLOW and also long enough: the opening hours decided it");
    assert!(reply.contains("“"), "a built-in probe quoting the answer: {reply}");
    // The question's two probes are spent: the model words the next question.
    assert_eq!(session.answer(&app, LONG_ANSWER), "MODEL: 3 answers so far. Tell me more about how you compared the options?");
    let steps: Vec<(String, String)> = session.body["turns"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["speaker"] == "interviewer")
        .map(|t| (t["kind"].as_str().unwrap().to_string(), t["written_by"].as_str().unwrap().to_string()))
        .collect();
    let expected = [("opening", "model"), ("probe", "builtin"), ("probe", "builtin"), ("question", "model")];
    assert_eq!(steps, expected.map(|(kind, by)| (kind.to_string(), by.to_string())), "{:?}", session.body["turns"]);
    let sources: Vec<String> = database(&app)
        .prepare("SELECT source FROM interview_turns WHERE interview_id = ? AND speaker = 'interviewer' ORDER BY seq")
        .unwrap()
        .query_map([&session.interview_id], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(sources, vec!["model", "builtin", "builtin", "model"], "the session read shows what is stored");

    // Spoken answers are transcribed by the model's /audio/transcriptions.
    let (status, body) = json_of(
        app.post(&session.path("/transcriptions"))
            .bearer_auth(&session.token)
            .header("content-type", "audio/webm;codecs=opus")
            .body(vec![0x1a, 0x45, 0xdf, 0xa3, 1, 2, 3])
            .send()
            .unwrap(),
    );
    assert_eq!((status, body), (StatusCode::OK, json!({"text": "I mostly asked other parents."})));
    let upload = &model.requests_to("/audio/transcriptions")[0];
    assert!(upload.content_type.starts_with("multipart/form-data; boundary="));
    assert!(upload.text().contains("whisper-1"));

    session.complete(&app);
    let summary: String = database(&app)
        .query_row("SELECT summary FROM interviews WHERE interview_id = ?", [&session.interview_id], |r| r.get(0))
        .unwrap();
    assert_eq!(summary, "MODEL SUMMARY: proximity decides.");
}

#[test]
fn without_a_model_there_is_no_transcription() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({}));
    let session = Session::start(app, &start_body(&project_id, "production"));
    let (_, _, html) = page(app, &format!("/i/{project_id}"));
    assert_eq!(boot_data(&html)["transcription"], false);
    let (status, body) = json_of(
        app.post(&session.path("/transcriptions")).bearer_auth(&session.token).header("content-type", "audio/webm").body(vec![1, 2, 3]).send().unwrap(),
    );
    assert_eq!(status, 503);
    assert_detail_error(&body, "transcription_unavailable");
}

/// `value.tap(|v| ...)`: a changed copy, inline.
trait Tap: Sized {
    fn tap(self, change: impl FnOnce(&mut Self)) -> Self;
}

impl Tap for Value {
    fn tap(mut self, change: impl FnOnce(&mut Self)) -> Self {
        change(&mut self);
        self
    }
}

#[test]
fn the_maintenance_route_ends_idle_interviews_too() {
    let app = TestApp::start(&[("interview_idle_timeout_seconds", "1"), ("maintenance_token", "mt-sessions-token")]);
    let tenant = app.create_tenant();
    let project_id = active_project(&app, &tenant, json!({}));
    let idle = Session::start(&app, &start_body(&project_id, "production"));
    std::thread::sleep(Duration::from_millis(1500));
    let (status, report) = json_of(app.post("/v1/maintenance/run").bearer_auth("mt-sessions-token").send().unwrap());
    assert_eq!(status, 200);
    assert_eq!(report["ended_interviews"], 1);
    assert_eq!(idle.get(&app).1["state"], "timed_out");
    let (_, again) = json_of(app.post("/v1/maintenance/run").bearer_auth("mt-sessions-token").send().unwrap());
    assert_eq!(again["ended_interviews"], 0, "ended once");
}

/// The finish body is optional: none is a finish without opt-in, but a body
/// that is only whitespace is not JSON and is refused, ending nothing.
#[test]
fn finish_without_a_body_ends_the_interview_and_a_blank_body_is_refused() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project_id = active_project(app, &tenant, json!({}));
    let session = Session::start(app, &start_body(&project_id, "production"));
    let finish = |body: &'static str| {
        json_of(
            app.post(&session.path("/finish"))
                .bearer_auth(&session.token)
                .header("content-type", "application/json")
                .body(body)
                .send()
                .unwrap(),
        )
    };
    let state = || session.get(app).1["state"].clone();
    for blank in [" ", "\r\n\t"] {
        let (status, body) = finish(blank);
        assert_eq!(status, 422, "{blank:?}: {body}");
        assert_eq!(body["detail"][0]["loc"], json!(["body"]), "{body}");
        assert_eq!(state(), "in_progress", "a refused finish ends nothing");
    }
    let (status, body) = finish("");
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["state"], "left", "{body}");
    assert_eq!(state(), "left");
}

/// Finish decides `completed` or `left` in the transaction that ends the
/// interview, from the row as stored then, not from the interview it read
/// before its (slow) summary call: an answer that closes the conversation
/// while the summary is being written makes the interview completed.
#[test]
fn finish_decides_the_end_state_when_it_ends_the_interview() {
    let summary_asked = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let asked = summary_asked.clone();
    let model = FakeModel::start(move |request| {
        let system = request.json()["messages"][0]["content"].as_str().unwrap_or_default().to_string();
        if system.contains("summarise") {
            asked.store(true, std::sync::atomic::Ordering::SeqCst);
            std::thread::sleep(Duration::from_secs(3));
            return ModelReply::chat(r#"{"summary": "MODEL SUMMARY"}"#);
        }
        ModelReply::chat(r#"{"message": "MODEL: and what else?"}"#)
    });
    let mut variables = model.variables();
    variables.retain(|(name, _)| *name != "llm_timeout_seconds");
    variables.push(("llm_timeout_seconds", "10".into()));
    let pairs: Vec<(&str, &str)> = variables.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let app = TestApp::start(&pairs);
    let tenant = app.create_tenant();
    // One question, no probes: opening, an answer, the wrap-up, an answer, the closing.
    let project_id = active_project(
        &app,
        &tenant,
        json!({"research_questions": "How did you choose your current daycare?", "specific_guidelines": "Do not probe."}),
    );
    let mut session = Session::start(&app, &start_body(&project_id, "production"));
    session.answer(&app, LONG_ANSWER);
    assert_eq!(session.body["turns"].as_array().unwrap().last().unwrap()["kind"], "wrap_up");

    // The interviewee ends the interview while the last answer is on its way.
    let finishing = {
        let (url, token) = (app.url(&session.path("/finish")), session.token.clone());
        std::thread::spawn(move || {
            json_of(reqwest::blocking::Client::new().post(url).bearer_auth(token).json(&json!({})).send().unwrap())
        })
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while !summary_asked.load(std::sync::atomic::Ordering::SeqCst) {
        assert!(std::time::Instant::now() < deadline, "finish never asked for its summary");
        std::thread::sleep(Duration::from_millis(20));
    }
    let (status, answered) = session.answer_raw(&app, "No, nothing else to add.");
    assert_eq!(status, 200, "{answered}");
    assert_eq!((answered["interviewer_closed"].clone(), answered["turns"].as_array().unwrap().last().unwrap()["kind"].clone()), (json!(true), json!("closing")));

    let (status, finished) = finishing.join().unwrap();
    assert_eq!(status, 200, "{finished}");
    assert_eq!(finished["state"], "completed", "the interviewer had closed when the interview ended: {finished}");
    let (state, ended_at): (String, Option<String>) = database(&app)
        .query_row("SELECT state, ended_at FROM interviews WHERE interview_id = ?", [&session.interview_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(state, "completed");
    assert!(ended_at.is_some());
    let finished_events = events(&app, "interview.finished", "interview_id", &session.interview_id);
    assert_eq!(finished_events.len(), 1);
    assert_eq!(finished_events[0].1["interview_status"], "COMPLETED");
}
