//! The synthesis end to end (docs/synthesis.md): a scripted corpus of 30
//! interviews with three planted themes per question at 12, 8 and 6
//! interviews, unique noise and four low-effort interviews, replayed through
//! the session API; the synthesis finds the planted themes, labels them with
//! their words, quotes the interviewees verbatim, leaves the low-effort
//! interviews out, and drops an erased interview at once.

use e2e::corpus::{self, PlantedQuestion, Replayed, CHECKOUT, MOVE_ON, TRUST};
use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};
use std::collections::HashMap;

fn synthesis(app: &TestApp, tenant: &TenantCredentials, project_id: &str) -> Value {
    let (status, body) = json_of(app.get(&format!("/v1/projects/{project_id}/synthesis")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    body
}

/// A project asking the two planted questions, 10 minutes (three probes each).
fn planted_project(app: &TestApp, tenant: &TenantCredentials) -> String {
    active_project(
        app,
        tenant,
        json!({"research_questions": format!("{}\n{}", CHECKOUT.question, TRUST.question), "interview_length": 10}),
    )
}

/// Every quote is a span of the interviewee's answer with that seq, as sent.
fn assert_quotes_verbatim(body: &Value, sent: &HashMap<String, Vec<(i64, String)>>) {
    for question in body["questions"].as_array().unwrap() {
        for theme in question["themes"].as_array().unwrap() {
            let quotes = theme["quotes"].as_array().unwrap();
            assert!(quotes.len() <= 5, "{theme}");
            let mut interviews: Vec<&str> = quotes.iter().map(|q| q["interview_id"].as_str().unwrap()).collect();
            interviews.dedup();
            assert_eq!(interviews.len(), quotes.len(), "one quote per interview: {theme}");
            for quote in quotes {
                let text = quote["text"].as_str().unwrap();
                let answers = &sent[quote["interview_id"].as_str().unwrap()];
                let seq = quote["seq"].as_i64().unwrap();
                let (_, answer) = answers.iter().find(|(s, _)| *s == seq).unwrap_or_else(|| panic!("no answer at seq {seq}: {quote}"));
                assert!(answer.contains(text), "not verbatim: {text:?} in {answer:?}");
                assert!(!text.is_empty() && text.chars().count() <= 400, "{text:?}");
            }
        }
    }
}

fn check_planted(body: &Value, question: &PlantedQuestion, entry: &Value) {
    assert_eq!(entry["question"], question.question);
    let themes = entry["themes"].as_array().unwrap();
    assert!(themes.len() <= 12);
    let counts: Vec<i64> = themes.iter().map(|t| t["interviews"].as_i64().unwrap()).collect();
    assert!(counts.windows(2).all(|w| w[0] >= w[1]), "sorted: {counts:?}");
    for theme in themes {
        assert!(theme["interviews"].as_i64().unwrap() >= 2, "{theme}");
        let share = theme["share"].as_f64().unwrap();
        let expected = theme["interviews"].as_f64().unwrap() / entry["answered"].as_f64().unwrap();
        assert!((share - expected).abs() < 1e-9, "{theme}");
    }
    for planted in &question.themes {
        let found = themes.iter().take(4).find(|t| {
            let label = t["label"].as_str().unwrap().to_lowercase();
            planted.words.iter().all(|w| label.contains(w))
        });
        let Some(found) = found else { panic!("{:?} not among the top 4 of {}", planted.words, body) };
        let count = found["interviews"].as_i64().unwrap();
        let found_themes: Vec<String> = themes.iter().map(|t| format!("{} {}", t["interviews"], t["label"])).collect();
        assert!((count - planted.interviews as i64).abs() <= 2, "{:?}: {count} interviews; themes {found_themes:?}", planted.words);
    }
}

#[test]
fn planted_themes_are_found_counted_labelled_and_quoted_verbatim() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = planted_project(app, &tenant);
    let empty = synthesis(app, &tenant, &project);
    assert_eq!((empty["interviews_analyzed"].clone(), empty["written_by"].clone()), (json!(0), json!("builtin")));
    assert_eq!(empty["questions"].as_array().unwrap().len(), 2);
    assert!(empty["questions"].as_array().unwrap().iter().all(|q| q["themes"] == json!([]) && q["answered"] == 0));

    let questions = [&CHECKOUT, &TRUST];
    let mut sent: HashMap<String, Vec<(i64, String)>> = HashMap::new();
    let mut genuine = Vec::new();
    for i in 0..30 {
        let Replayed { session, sent: answers } = corpus::replay(app, &project, "en", &corpus::planted_answers(&questions, i), MOVE_ON);
        genuine.push(session.interview_id.clone());
        sent.insert(session.interview_id, answers);
    }
    let (mut low_effort, mut tokens) = (Vec::new(), Vec::new());
    for (answers, move_on) in corpus::low_effort_answers(2) {
        let Replayed { session, .. } = corpus::replay(app, &project, "en", &answers, move_on);
        low_effort.push(session.interview_id);
        tokens.push(session.token);
    }

    let body = synthesis(app, &tenant, &project);
    assert_eq!(body["interviews_analyzed"], 30, "{body}");
    assert_eq!(body["interviews_excluded"], 4, "{body}");
    assert_eq!(body["written_by"], "builtin");
    let entries = body["questions"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    check_planted(&body, &CHECKOUT, &entries[0]);
    check_planted(&body, &TRUST, &entries[1]);
    assert_eq!(entries[0]["answered"], 30);
    assert_quotes_verbatim(&body, &sent);
    for id in &low_effort {
        assert!(!body.to_string().contains(id.as_str()), "a low-effort interview is quoted: {id}");
    }
    // The same interviews, the same synthesis (but for its time).
    let mut again = synthesis(app, &tenant, &project);
    again["generated_at"] = body["generated_at"].clone();
    assert_eq!(again, body);

    // The list shows each interview's quality: the low-effort ones at 2 or less, the others above.
    let (status, list) = json_of(app.get("/v1/interviews").query(&[("project_id", project.as_str())]).auth(&tenant).send().unwrap());
    assert_eq!(status, 200);
    for item in list["data"].as_array().unwrap() {
        let id = item["interview_id"].as_str().unwrap();
        let score = item["quality"]["score"].as_i64().unwrap_or_else(|| panic!("{item}"));
        assert_eq!(score <= 2, low_effort.iter().any(|l| l == id), "{item}");
        assert!(item["quality"]["flags"].is_array(), "{item}");
    }

    // Only the tenant's list: not the interviewee's session, not the CSV.
    let (_, session) = json_of(
        app.get(&format!("/v1/sessions/{}", low_effort[0])).bearer_auth(&tokens[0]).send().unwrap(),
    );
    assert!(session.get("quality").is_none() && session["state"] == "completed", "{session}");
    let csv = app.get(&format!("/v1/projects/{project}/interviews-export")).auth(&tenant).send().unwrap().text().unwrap();
    assert!(!csv.contains("quality") && !csv.contains("gibberish"));

    // Erasing a quoted interview takes it out of every count and quote at once.
    let first = &entries[0]["themes"][0];
    let erased = first["quotes"][0]["interview_id"].as_str().unwrap().to_string();
    let status = app.request("DELETE", &format!("/v1/interviews/{erased}")).auth(&tenant).send().unwrap().status();
    assert_eq!(status, 204);
    let after = synthesis(app, &tenant, &project);
    assert!(!after.to_string().contains(&erased), "the erased interview is still there");
    assert_eq!(after["interviews_analyzed"], 29);
    assert_eq!(after["questions"][0]["answered"], 29);
    let same = after["questions"][0]["themes"].as_array().unwrap().iter().find(|t| t["theme_id"] == first["theme_id"]).unwrap();
    assert_eq!(same["interviews"].as_i64().unwrap(), first["interviews"].as_i64().unwrap() - 1);
}

#[test]
fn a_synthesis_is_the_tenants_own() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let other = app.create_tenant();
    let project = planted_project(app, &tenant);
    for path in ["synthesis", "synthesis-report"] {
        let (status, body) = json_of(app.get(&format!("/v1/projects/{project}/{path}")).auth(&other).send().unwrap());
        assert_eq!(status, 404, "{body}");
        assert_detail_error(&body, "not_found");
        let unknown = uuid::Uuid::new_v4();
        let (status, _) = json_of(app.get(&format!("/v1/projects/{unknown}/{path}")).auth(&tenant).send().unwrap());
        assert_eq!(status, 404);
        let (status, _) = json_of(app.get(&format!("/v1/projects/42/{path}")).auth(&tenant).send().unwrap());
        assert_eq!(status, 422);
        let status = app.get(&format!("/v1/projects/{project}/{path}")).send().unwrap().status();
        assert_eq!(status, 401);
    }
}

/// Interviews that ended before quality signals existed (no score, no digest
/// of their answers) count as they are until the maintenance run assesses them,
/// which says how many it did: then they carry their quality, and their
/// answers join the synthesis.
#[test]
fn interviews_ended_before_assessment_are_assessed_by_the_maintenance_run() {
    const TOKEN: &str = "mt-late-assessment-0123456789";
    let app = TestApp::start(&[("maintenance_token", TOKEN)]);
    let run = || {
        let (status, report) = app.run_maintenance(Some(TOKEN));
        assert_eq!(status, 200, "{report}");
        report
    };
    let tenant = app.create_tenant();
    let project = planted_project(&app, &tenant);
    for i in 0..12 {
        corpus::replay(&app, &project, "en", &corpus::planted_answers(&[&CHECKOUT, &TRUST], i), MOVE_ON);
    }
    let assessed = synthesis(&app, &tenant, &project);
    assert_eq!(assessed["questions"][0]["answered"], 12, "{assessed}");

    // As a release before the synthesis left them.
    let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
    let cleared = db.execute("UPDATE interviews SET quality_score = NULL, quality_flags = NULL WHERE project_id = ?1", [&project]).unwrap();
    assert_eq!(cleared, 12);
    db.execute("DELETE FROM answer_terms WHERE project_id = ?1", [&project]).unwrap();
    drop(db);
    let unassessed = synthesis(&app, &tenant, &project);
    assert_eq!(unassessed["questions"][0]["answered"], 0, "{unassessed}");
    let (_, list) = json_of(app.get("/v1/interviews").query(&[("project_id", project.as_str())]).auth(&tenant).send().unwrap());
    assert!(list["data"].as_array().unwrap().iter().all(|item| item.get("quality").is_none_or(Value::is_null)), "{list}");

    assert_eq!(run()["assessed_interviews"], 12);
    assert_eq!(run()["assessed_interviews"], 0, "assessed once");
    let (_, list) = json_of(app.get("/v1/interviews").query(&[("project_id", project.as_str())]).auth(&tenant).send().unwrap());
    for item in list["data"].as_array().unwrap() {
        assert!(item["quality"]["score"].as_i64().is_some_and(|score| score > 2), "{item}");
    }
    let mut again = synthesis(&app, &tenant, &project);
    again["generated_at"] = assessed["generated_at"].clone();
    assert_eq!(again, assessed, "the same synthesis as before the digests were lost");
}

/// The sentences' meanings are written by the maintenance run after the
/// interviews end (its report counts them, once); until then a synthesis
/// computes them for its request, and gives the same synthesis before and after.
#[test]
fn sentences_get_their_meanings_from_the_maintenance_run_and_the_synthesis_does_not_change() {
    const TOKEN: &str = "mt-meanings-0123456789";
    let app = TestApp::start(&[("maintenance_token", TOKEN)]);
    let tenant = app.create_tenant();
    let project = planted_project(&app, &tenant);
    for i in 0..6 {
        corpus::replay(&app, &project, "en", &corpus::planted_answers(&[&CHECKOUT, &TRUST], i), MOVE_ON);
    }
    let stored = |app: &TestApp| -> (i64, i64) {
        let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
        db.query_row(
            "SELECT COUNT(*), COUNT(units) FROM answer_terms WHERE project_id = ?1",
            [&project],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!(stored(&app), (12, 0), "no meanings in the transaction that ends an interview");
    let before = synthesis(&app, &tenant, &project);
    assert!(!before["questions"][0]["themes"].as_array().unwrap().is_empty(), "{before}");
    let (status, report) = app.run_maintenance(Some(TOKEN));
    assert_eq!(status, 200, "{report}");
    assert_eq!(report["embedded_answers"], 12, "{report}");
    assert_eq!(stored(&app), (12, 12));
    assert_eq!(app.run_maintenance(Some(TOKEN)).1["embedded_answers"], 0, "written once");
    let mut after = synthesis(&app, &tenant, &project);
    after["generated_at"] = before["generated_at"].clone();
    assert_eq!(after, before, "the same synthesis with the meanings stored");
}
