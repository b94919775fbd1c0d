//! Survey projects end to end (docs/surveys.md): blocks on create, read and
//! patch with their 422s, a survey taken through the session API with its
//! status thresholds, its export row, the media route and the results.

use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0\x1f\x15\xc4\x89";

fn upload_png(app: &TestApp, tenant: &TenantCredentials) -> String {
    let (content_type, body) = Multipart::new()
        .text("mime_type", "image/png")
        .text("purpose", "survey")
        .file("file", "logo.png", "image/png", PNG)
        .finish();
    let (status, uploaded) =
        json_of(app.post("/v1/files").auth(tenant).header("content-type", content_type).body(body).send().unwrap());
    assert_eq!(status, 200, "{uploaded}");
    uploaded["file_id"].as_str().unwrap().to_string()
}

/// Two statements and six answerable blocks (one third: 2 answers).
fn blocks(file_id: &str) -> Value {
    json!([
        {"block_id": "welcome", "type": "statement", "prompt": "Welcome! This takes two minutes."},
        {"block_id": "why", "type": "open_question", "prompt": "Why did you choose us?", "ai_follow_up": true},
        {"block_id": "plan", "type": "single_choice", "prompt": "Which plan, \"exactly\"?", "options": ["Free", "Pro", "Team"]},
        {"block_id": "tools", "type": "multiple_choice", "prompt": "Which tools, if any?", "options": ["Email", "Chat", "Phone"], "required": false},
        {"block_id": "look", "type": "statement", "prompt": "Have a look at our new logo.", "media": {"file_id": file_id}},
        {"block_id": "logo", "type": "rating", "prompt": "How much do you like it?", "media": {"file_id": file_id}},
        {"block_id": "nps", "type": "rating", "prompt": "How likely are you to recommend us?", "scale": "0-10"},
        {"block_id": "else", "type": "open_question", "prompt": "Anything else?", "required": false}
    ])
}

fn survey_body(file_id: &str) -> Value {
    project_body(json!({"project_type": "survey", "survey_blocks": blocks(file_id)}))
}

fn answer(app: &TestApp, session: &mut Session, body: Value) -> Value {
    let (status, reply) = json_of(app.post(&session.path("/answers")).bearer_auth(&session.token).json(&body).send().unwrap());
    assert_eq!(status, 200, "{body}: {reply}");
    session.body = reply.clone();
    reply
}

fn last_turn(session: &Session) -> Value {
    session.body["turns"].as_array().unwrap().last().unwrap().clone()
}

#[test]
fn surveys_are_created_read_and_patched_with_their_blocks() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let file_id = upload_png(app, &tenant);
    let project_id = create_project(app, &tenant, &survey_body(&file_id));
    let (_, project) = json_of(app.get(&format!("/v1/projects/{project_id}")).auth(&tenant).send().unwrap());
    assert_eq!(project["project_type"], "survey");
    let stored = project["survey_blocks"].as_array().unwrap();
    assert_eq!(stored.len(), 8);
    assert_eq!(
        stored[6],
        json!({"block_id": "nps", "type": "rating", "prompt": "How likely are you to recommend us?", "options": null,
               "required": true, "media": null, "ai_follow_up": false, "scale": "0-10"})
    );
    assert_eq!(stored[5]["scale"], "1-5", "ratings default to 1-5");
    assert_eq!(stored[0]["required"], false, "statements are never answered");
    let (_, list) = json_of(app.get("/v1/projects").auth(&tenant).send().unwrap());
    assert!(list["data"][0].get("survey_blocks").is_none(), "the list keeps the contract's fields");

    // PATCH replaces the blocks whole.
    let patch = |body: Value| json_of(app.request("PATCH", &format!("/v1/projects/{project_id}")).auth(&tenant).json(&body).send().unwrap());
    let (status, _) = patch(json!({"survey_blocks": [{"block_id": "only", "type": "open_question", "prompt": "One question?"}]}));
    assert_eq!(status, 200);
    let (_, project) = json_of(app.get(&format!("/v1/projects/{project_id}")).auth(&tenant).send().unwrap());
    assert_eq!(project["survey_blocks"].as_array().unwrap().len(), 1);
    // A patch's blocks are stored as a create reads them: null means the default.
    let (status, _) = patch(json!({"survey_blocks": [
        {"block_id": "hello", "type": "statement", "prompt": "Hello", "required": true},
        {"block_id": "only", "type": "open_question", "prompt": "One question?", "required": null, "ai_follow_up": null},
        {"block_id": "score", "type": "rating", "prompt": "Score?"},
    ]}));
    assert_eq!(status, 200);
    let (_, project) = json_of(app.get(&format!("/v1/projects/{project_id}")).auth(&tenant).send().unwrap());
    let patched = project["survey_blocks"].as_array().unwrap();
    assert_eq!(patched[0]["required"], false, "statements are never answered");
    assert_eq!((&patched[1]["required"], &patched[1]["ai_follow_up"]), (&json!(true), &json!(false)));
    assert_eq!(patched[2]["scale"], "1-5", "ratings default to 1-5");
    let (status, refused) = patch(json!({"survey_blocks": null}));
    assert_eq!((status.as_u16(), &refused["detail"][0]["type"]), (422, &json!("list_type")), "{refused}");
    assert_eq!(patch(json!({"survey_blocks": blocks(&file_id)})).0, 200);

    // Sandbox interviews leave the blocks editable; the first production one fixes them.
    Session::start(app, &sandbox_start_body(app, &tenant, &project_id));
    assert_eq!(patch(json!({"survey_blocks": blocks(&file_id)})).0, 200);
    act(app, &tenant, &project_id, "activate");
    Session::start(app, &start_body(&project_id, "production"));
    let (status, body) = patch(json!({"survey_blocks": [{"block_id": "x", "type": "statement", "prompt": "Changed"}]}));
    assert_eq!(status, 409);
    assert_detail_error(&body, "survey_locked");
    assert_eq!(patch(json!({"survey_blocks": blocks(&file_id)})).0, 200, "the same blocks are no change");
    assert_eq!(patch(json!({"project_name": "Renamed survey"})).0, 200, "other fields stay editable");

    // Blocks belong to surveys only: well-formed blocks for a stored project of
    // another type conflict with it.
    let interview_project = create_project(app, &tenant, &project_body(json!({})));
    let (status, body) = json_of(
        app.request("PATCH", &format!("/v1/projects/{interview_project}")).auth(&tenant).json(&json!({"survey_blocks": blocks(&file_id)})).send().unwrap(),
    );
    assert_eq!(status, 409);
    assert_detail_error(&body, "not_a_survey");
}

#[test]
fn every_block_rule_is_a_422_down_to_the_field() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let other = app.create_tenant();
    let theirs = upload_png(app, &other);
    let create = |blocks: Value| {
        json_of(app.post("/v1/projects").auth(&tenant).json(&project_body(json!({"project_type": "survey", "survey_blocks": blocks}))).send().unwrap())
    };
    let mut with_foreign = blocks(&upload_png(app, &tenant));
    with_foreign[3]["media"] = json!({"file_id": theirs});
    let (status, body) = create(with_foreign);
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "survey_blocks", 3, "media", "file_id"]));
    assert_eq!(body["detail"][0]["type"], "value_error");

    for (blocks, loc, kind) in [
        (json!([{"block_id": "a", "type": "slider", "prompt": "p"}]), json!(["body", "survey_blocks", 0, "type"]), "enum"),
        (json!([{"block_id": "a", "type": "single_choice", "prompt": "p"}]), json!(["body", "survey_blocks", 0, "options"]), "missing"),
        (json!([{"block_id": "a", "type": "statement", "prompt": "p"}, {"block_id": "a", "type": "statement", "prompt": "q"}]), json!(["body", "survey_blocks", 1, "block_id"]), "value_error"),
        (json!([{"block_id": "a", "type": "rating", "prompt": "p", "scale": "1-7"}]), json!(["body", "survey_blocks", 0, "scale"]), "enum"),
        (json!([{"block_id": "a", "type": "rating", "prompt": "p", "ai_follow_up": true}]), json!(["body", "survey_blocks", 0, "ai_follow_up"]), "value_error"),
        (json!([{"block_id": "a", "type": "open_question", "prompt": ""}]), json!(["body", "survey_blocks", 0, "prompt"]), "string_too_short"),
        (json!([{"block_id": "a", "type": "statement", "prompt": "p", "media": {"file_id": uuid::Uuid::new_v4().to_string()}}]), json!(["body", "survey_blocks", 0, "media", "file_id"]), "value_error"),
        (json!([]), json!(["body", "survey_blocks"]), "too_short"),
    ] {
        let (status, body) = create(blocks.clone());
        assert_eq!(status, 422, "{blocks}");
        assert_eq!((body["detail"][0]["loc"].clone(), body["detail"][0]["type"].as_str()), (loc, Some(kind)), "{blocks}");
    }
}

#[test]
fn a_typed_survey_reaches_partial_at_one_third_and_completes() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let file_id = upload_png(app, &tenant);
    let project_id = create_project(app, &tenant, &survey_body(&file_id));
    act(app, &tenant, &project_id, "activate");
    let mut session = Session::start(app, &start_body(&project_id, "production"));

    // The introduction, the first statement and the first question, at once.
    let turns = session.body["turns"].as_array().unwrap().clone();
    assert_eq!(turns.len(), 3);
    assert!(turns[0]["text"].as_str().unwrap().starts_with("Hello, and thank you"));
    assert!(turns[0].get("block").is_none());
    assert_eq!((turns[1]["text"].as_str(), turns[1]["block"]["type"].as_str()), (Some("Welcome! This takes two minutes."), Some("statement")));
    assert_eq!(turns[2]["block"]["block_id"], "why");
    assert_eq!(session.body["survey"], json!({"answered": 0, "answerable": 6}));
    assert_eq!(session.body["interview_status"], "INITIATED");

    // The answer must fit the block: a well-formed answer of another kind conflicts with it.
    let (status, body) = json_of(app.post(&session.path("/answers")).bearer_auth(&session.token).json(&json!({"choices": ["Pro"]})).send().unwrap());
    assert_eq!(status, 409, "{body}");
    assert_detail_error(&body, "answer_mismatch");

    answer(app, &mut session, json!({"text": "Price, and a friend's advice."}));
    assert_eq!(last_turn(&session)["block"]["follow_up"], true, "an AI follow-up on this open question");
    assert_eq!(last_turn(&session)["text"], "Can you give me a concrete example?");
    assert_eq!((session.body["survey"]["answered"].as_i64(), session.body["interview_status"].as_str()), (Some(1), Some("INITIATED")));
    answer(app, &mut session, json!({"text": "She showed me her dashboard, with the weekly reports."}));
    assert_eq!(session.body["survey"]["answered"], 1, "a follow-up answer is no new block");
    assert_eq!(last_turn(&session)["block"]["options"], json!(["Free", "Pro", "Team"]));

    answer(app, &mut session, json!({"choices": ["Pro"]}));
    assert_eq!((session.body["survey"]["answered"].as_i64(), session.body["interview_status"].as_str()), (Some(2), Some("PARTIAL")), "2 of 6 is one third");
    answer(app, &mut session, json!({"skip": true}));
    assert_eq!(session.body["survey"]["answered"], 2, "a skip answers nothing");
    // The statement with the logo, then the rating of the same logo.
    let turns = session.body["turns"].as_array().unwrap();
    let look = &turns[turns.len() - 2];
    assert_eq!(look["block"]["media"], json!({"url": format!("/i/{project_id}/media/{file_id}"), "content_type": "image/png"}));
    assert_eq!(last_turn(&session)["block"]["scale"], json!({"min": 1, "max": 5}));
    let (status, body) = json_of(app.post(&session.path("/answers")).bearer_auth(&session.token).json(&json!({"rating": 6})).send().unwrap());
    assert_eq!((status.as_u16(), body["detail"][0]["type"].as_str()), (422, Some("less_than_equal")));
    answer(app, &mut session, json!({"rating": 4}));
    answer(app, &mut session, json!({"rating": 9}));
    answer(app, &mut session, json!({"text": "Keep the=formula safe, please"}));
    assert_eq!(session.body["interviewer_closed"], true);
    assert_eq!(session.body["survey"]["answered"], 5);
    let (status, finished) = session.finish(app, true);
    assert_eq!(status, 200);
    assert_eq!(finished["interview_status"], "COMPLETED");

    // The export row, read back with the csv crate.
    let text = app.get(&format!("/v1/projects/{project_id}/interviews-export")).auth(&tenant).send().unwrap().text().unwrap();
    let rows: Vec<Vec<String>> = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(text.as_bytes())
        .records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect();
    let row = rows.iter().find(|r| r[0] == session.interview_id).unwrap();
    assert_eq!((row[3].as_str(), row[7].as_str()), ("COMPLETED", "SURVEY"));
    let transcript = &row[10];
    for line in [
        "Interviewer: [block, builtin] Why did you choose us?",
        "Interviewee: Price, and a friend's advice.",
        "Interviewer: [follow_up, builtin] Can you give me a concrete example?",
        "Interviewer: [block, builtin] Which plan, \"exactly\"?",
        "Interviewee: Pro",
        "Interviewee: (skipped)",
        "Interviewee: 4/5",
        "Interviewee: 9/10",
    ] {
        assert!(transcript.lines().any(|l| l == line), "{line:?} in {transcript}");
    }
    assert!(row[11].starts_with("1. Why did you choose us?\n   Price, and a friend's advice. (follow-up: She showed me"), "{}", row[11]);
    assert!(row[11].contains("3. Which tools, if any?\n   (skipped)"), "{}", row[11]);

    // Counts across the project.
    let mut second = Session::start(app, &start_body(&project_id, "production"));
    answer(app, &mut second, json!({"text": "Recommendation"}));
    answer(app, &mut second, json!({"text": "No example."}));
    answer(app, &mut second, json!({"choices": ["Team"]}));
    answer(app, &mut second, json!({"choices": ["Chat", "Email"]}));
    answer(app, &mut second, json!({"rating": 5}));
    let (status, results) = json_of(app.get(&format!("/v1/projects/{project_id}/survey-results")).auth(&tenant).send().unwrap());
    assert_eq!(status, 200, "{results}");
    assert_eq!(results["interviews"], 2);
    let block = |id: &str| results["blocks"].as_array().unwrap().iter().find(|b| b["block_id"] == id).unwrap().clone();
    assert_eq!(block("plan")["options"], json!([{"option": "Free", "count": 0}, {"option": "Pro", "count": 1}, {"option": "Team", "count": 1}]));
    assert_eq!((block("tools")["answers"].as_i64(), block("tools")["skipped"].as_i64()), (Some(1), Some(1)));
    assert_eq!(block("tools")["options"][0], json!({"option": "Email", "count": 1}));
    assert_eq!(block("logo")["average"], 4.5, "{results}");
    assert_eq!(block("nps")["ratings"][9], json!({"rating": 9, "count": 1}));
    assert_eq!(block("why")["answers"], 2);
    assert!(results["blocks"].as_array().unwrap().iter().all(|b| b["type"] != "statement"));
    let interview_project = active_project(app, &tenant, json!({}));
    let (status, body) = json_of(app.get(&format!("/v1/projects/{interview_project}/survey-results")).auth(&tenant).send().unwrap());
    assert_eq!(status, 409);
    assert_detail_error(&body, "not_a_survey");
}

#[test]
fn the_media_route_serves_only_files_the_survey_shows() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let shown = upload_png(app, &tenant);
    let hidden = upload_png(app, &tenant);
    let project_id = create_project(app, &tenant, &survey_body(&shown));

    let response = app.get(&format!("/i/{project_id}/media/{shown}")).send().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    assert_eq!(response.headers()["cache-control"], "public, max-age=86400");
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    assert_eq!(response.bytes().unwrap().as_ref(), PNG);
    let again = app.get(&format!("/i/{project_id}/media/{shown}")).header("if-none-match", &etag).send().unwrap();
    assert_eq!(again.status(), 304);
    let part = app.get(&format!("/i/{project_id}/media/{shown}")).header("range", "bytes=0-7").send().unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(part.bytes().unwrap().as_ref(), &PNG[..8]);

    for path in [
        format!("/i/{project_id}/media/{hidden}"),
        format!("/i/{}/media/{shown}", active_project(app, &tenant, json!({}))),
        format!("/i/{}/media/{shown}", uuid::Uuid::new_v4()),
    ] {
        let (status, body) = json_of(app.get(&path).send().unwrap());
        assert_eq!(status, 404, "{path}");
        assert_detail_error(&body, "not_found");
    }
}
