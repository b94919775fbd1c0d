//! The synthesis with a language model (docs/synthesis.md, "With a model"),
//! against the fake model server (a real HTTP server standing in for the
//! third party): it runs in the maintenance run, never in a request; in
//! batches of `llm_context_chars`, whose themes it merges; each call counted
//! against the project's daily budget; every quote checked verbatim (an
//! invented one, or one of an unknown answer, dropped; one that cuts a
//! negation away widened to its sentence); counts from the assignment; a
//! malformed answer keeps the built-in synthesis; an erasure takes the
//! interview out at once.

use e2e::corpus::{self, Corpus, MOVE_ON};
use e2e::fake_model::{FakeModel, ModelReply, ModelRequest};
use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

/// The answers of a batch prompt: `(id, text)`.
fn batch_answers(prompt: &str) -> Vec<(String, String)> {
    prompt
        .lines()
        .filter_map(|line| {
            let rest = line.strip_prefix('[')?;
            let (id, text) = rest.split_once("] ")?;
            id.starts_with('A').then(|| (id.to_string(), text.to_string()))
        })
        .collect()
}

/// The fake model: interviewer calls fail (the built-in interviewer answers);
/// a synthesis batch gets one theme per planted word its answers hold, with a
/// verbatim quote, an invented one, one of an unknown answer and one that
/// cuts a negation; a merge unites themes of the same label. The question
/// "Why is the sky blue?" gets an answer that is no JSON.
fn script(request: &ModelRequest) -> ModelReply {
    let body = request.json();
    let system = body["messages"][0]["content"].as_str().unwrap_or_default();
    let user = body["messages"][1]["content"].as_str().unwrap_or_default();
    if user.contains("Why is the sky blue?") {
        return ModelReply::chat("Sure! Here are the themes: shipping.");
    }
    if system.contains("Group the answers below into themes") {
        let answers = batch_answers(user);
        let mut themes = Vec::new();
        for word in ["shipping", "account", "payment", "reviews", "return", "phone"] {
            let holding: Vec<&(String, String)> = answers.iter().filter(|(_, text)| text.to_lowercase().contains(word)).collect();
            let Some((first, text)) = holding.first() else { continue };
            let mut quotes = vec![json!({"answer": first, "text": text}), json!({"answer": first, "text": format!("I love {word}!")})];
            quotes.push(json!({"answer": "A9999", "text": text}));
            if let Some((id, text)) = holding.iter().find(|(_, t)| t.contains("did not accept")) {
                // "accept my debit card as payment": verbatim, but without its "did not".
                quotes.push(json!({"answer": id, "text": text.split("did not ").nth(1).unwrap()}));
            }
            let mut ids: Vec<String> = holding.iter().map(|(id, _)| id.clone()).collect();
            ids.push("A9999".into());
            themes.push(json!({"label": word, "description": format!("Participants mention {word}."), "answers": ids, "quotes": quotes}));
        }
        return ModelReply::chat(&json!({"themes": themes, "finding": "Participants name concrete obstacles."}).to_string());
    }
    if system.contains("Merge them") {
        let mut by_label: Vec<(String, Vec<String>)> = Vec::new();
        for line in user.lines().filter(|l| l.starts_with("[T")) {
            let (id, rest) = line[1..].split_once("] ").unwrap();
            let label = rest.split(':').next().unwrap().to_string();
            match by_label.iter_mut().find(|(l, _)| *l == label) {
                Some((_, ids)) => ids.push(id.to_string()),
                None => by_label.push((label, vec![id.to_string()])),
            }
        }
        let themes: Vec<Value> = by_label
            .iter()
            .map(|(label, ids)| json!({"label": label, "description": format!("Merged: {label}."), "merges": ids}))
            .collect();
        return ModelReply::chat(&json!({"themes": themes, "finding": "Merged finding."}).to_string());
    }
    ModelReply::Status(500)
}

fn synthesis(app: &TestApp, tenant: &TenantCredentials, project_id: &str) -> Value {
    let (status, body) = json_of(app.get(&format!("/v1/projects/{project_id}/synthesis")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    body
}

fn synthesis_requests(model: &FakeModel) -> usize {
    model
        .requests_to("/chat/completions")
        .iter()
        .filter(|r| {
            let system = r.json()["messages"][0]["content"].as_str().unwrap_or_default().to_string();
            system.contains("Group the answers") || system.contains("Merge them")
        })
        .count()
}

fn model_calls(app: &TestApp, tenant: &TenantCredentials, project_id: &str) -> i64 {
    let (_, project) = json_of(app.get(&format!("/v1/projects/{project_id}")).auth(tenant).send().unwrap());
    project["model_calls"]["calls"].as_i64().unwrap()
}

const MAINTENANCE_TOKEN: &str = "mt-synthesis-model-0123456789";

/// What a maintenance run did.
fn maintenance_run(app: &TestApp) -> Value {
    let (status, report) = app.run_maintenance(Some(MAINTENANCE_TOKEN));
    assert_eq!(status, 200, "{report}");
    report
}

#[test]
fn the_model_groups_and_names_but_the_evidence_stays_exact() {
    let model = FakeModel::start(script);
    let mut variables = model.variables();
    variables.push(("llm_context_chars", "900".to_string()));
    variables.push(("maintenance_token", MAINTENANCE_TOKEN.to_string()));
    let overrides: Vec<(&str, &str)> = variables.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let app = TestApp::start(&overrides);
    let tenant = app.create_tenant();
    let corpus = Corpus::read("checkout");
    let questions = corpus.research_questions();
    let project = active_project(&app, &tenant, json!({"research_questions": questions, "interview_length": 10}));
    let mut sent = std::collections::HashMap::new();
    for i in 0..30 {
        let replayed = corpus::replay(&app, &project, "en", &corpus.answers(i), MOVE_ON);
        sent.insert(replayed.session.interview_id.clone(), replayed.sent);
    }

    // A request never waits for the model: until a maintenance run, the built-in synthesis.
    let before = synthesis(&app, &tenant, &project);
    assert_eq!(before["written_by"], "builtin");
    assert_eq!(synthesis_requests(&model), 0);
    let calls_before = model_calls(&app, &tenant, &project);

    let report = maintenance_run(&app);
    assert_eq!((&report["syntheses_written"], &report["assessed_interviews"]), (&json!(1), &json!(0)), "{report}");
    let body = synthesis(&app, &tenant, &project);
    assert_eq!(body["written_by"], "model", "{body}");
    assert_eq!(body["interviews_analyzed"], 30);
    let made = synthesis_requests(&model);
    assert!(made > 4, "900 characters a call: several batches per question, then merges ({made} calls)");
    assert_eq!(model_calls(&app, &tenant, &project) - calls_before, made as i64, "every call counted");

    let checkout = &body["questions"][0];
    assert_eq!(checkout["question"], corpus.questions[0].question.as_str());
    assert_eq!(checkout["finding"], "Merged finding.");
    for word in ["shipping", "account", "payment"] {
        let theme = checkout["themes"].as_array().unwrap().iter().find(|t| t["label"] == word).unwrap_or_else(|| panic!("{word}: {body}"));
        // The assignment counts: every interview whose answers hold the word, the unknown answer id aside.
        let holding = corpus.questions[0].answers.iter().filter(|(_, text)| text.to_lowercase().contains(word)).count();
        assert_eq!(theme["interviews"], holding, "{theme}");
        assert_eq!(theme["description"], format!("Merged: {word}."));
        for quote in theme["quotes"].as_array().unwrap() {
            let text = quote["text"].as_str().unwrap();
            let answers = &sent[quote["interview_id"].as_str().unwrap()];
            let (_, answer) = answers.iter().find(|(seq, _)| *seq == quote["seq"].as_i64().unwrap()).unwrap();
            assert!(answer.contains(text), "not verbatim: {text:?}");
            assert!(!text.starts_with("I love"), "an invented quote was kept: {text}");
            assert!(!text.starts_with("accept my debit card"), "a quote without its negation was kept: {text}");
        }
    }
    let payment = checkout["themes"].as_array().unwrap().iter().find(|t| t["label"] == "payment").unwrap();
    assert!(
        payment["quotes"].as_array().unwrap().iter().any(|q| q["text"] == "They did not accept my debit card as payment."),
        "the quote cut from its negation is widened to its sentence: {payment}"
    );

    // Erasure: out of the model's synthesis at once, whatever was stored.
    let erased = payment["quotes"][0]["interview_id"].as_str().unwrap().to_string();
    let status = app.request("DELETE", &format!("/v1/interviews/{erased}")).auth(&tenant).send().unwrap().status();
    assert_eq!(status, 204);
    let after = synthesis(&app, &tenant, &project);
    assert!(!after.to_string().contains(&erased), "{after}");
    assert_eq!(after["interviews_analyzed"], 29);
    app.host.run_cron("maintenance").unwrap();
    let rewritten = synthesis(&app, &tenant, &project);
    assert_eq!(rewritten["written_by"], "model");
    assert!(!rewritten.to_string().contains(&erased));
    assert_eq!(rewritten["interviews_analyzed"], 29);

    // A malformed answer keeps the built-in synthesis.
    let other = active_project(&app, &tenant, json!({"research_questions": "Why is the sky blue?", "interview_length": 10}));
    for i in 0..3 {
        corpus::replay(&app, &other, "en", &[vec![format!("Because of scattering, say {}.", corpus::noise(70 + i))]], MOVE_ON);
    }
    let report = maintenance_run(&app);
    assert_eq!(report["syntheses_written"], 0, "the model's answer was refused: {report}");
    let kept = synthesis(&app, &tenant, &other);
    assert_eq!(kept["written_by"], "builtin", "{kept}");
    assert!(kept["questions"][0].get("finding").is_none());
}
