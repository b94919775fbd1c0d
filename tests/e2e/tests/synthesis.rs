//! The synthesis end to end (docs/synthesis.md), with the meanings the
//! maintenance run gives (all-MiniLM-L6-v2 where its files are mounted, as in
//! `spin.toml`; the static table on the edge manifest): two planted corpora of
//! 30 interviews (`tests/fixtures/synthesis-corpora`), every answer a sentence
//! of its own, three planted ideas per question at 12, 8 and 6 interviews and
//! four answers of their own, replayed through the session API with four
//! low-effort interviews. In the checkout study the ideas often share a word;
//! in the remote-work study each idea's answers share none. The synthesis
//! counts the interviews that say each idea, labels and quotes them
//! verbatim, leaves the low-effort interviews out, says how many interviews
//! wait for their meanings, and drops an erased interview at once.

use e2e::corpus::{self, Corpus, CorpusQuestion, Replayed, MOVE_ON};
use e2e::runtime;
use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};
use std::collections::HashMap;

fn synthesis(app: &TestApp, tenant: &TenantCredentials, project_id: &str) -> Value {
    let (status, body) = json_of(app.get(&format!("/v1/projects/{project_id}/synthesis")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    body
}

/// A project asking a corpus's questions, 10 minutes (three probes each).
fn corpus_project(app: &TestApp, tenant: &TenantCredentials, corpus: &Corpus) -> String {
    active_project(app, tenant, json!({"research_questions": corpus.research_questions(), "interview_length": 10}))
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

/// The fewest interviews a planted idea held by `held` may be counted at:
/// two fewer with the model's meanings, half with the static table's.
fn planted_least() -> fn(usize) -> usize {
    if runtime::edge_selected() {
        |held| held.div_ceil(2)
    } else {
        |held| held - 2
    }
}

/// The corpus replayed: the interview ids in corpus order, and what each sent.
fn replay_corpus(app: &TestApp, project: &str, corpus: &Corpus) -> (Vec<String>, HashMap<String, Vec<(i64, String)>>) {
    let mut ids = Vec::new();
    let mut sent = HashMap::new();
    for i in 0..corpus.interviews() {
        let Replayed { session, sent: answers } = corpus::replay(app, project, "en", &corpus.answers(i), MOVE_ON);
        ids.push(session.interview_id.clone());
        sent.insert(session.interview_id, answers);
    }
    (ids, sent)
}

/// Each planted idea is among the question's top four themes, most of that
/// theme's quotes are from interviews that say it, and it counts between
/// `least(held)` and `held + 2` interviews. The theme of each idea, in order.
fn check_planted<'b>(entry: &'b Value, question: &CorpusQuestion, ids: &[String], least: fn(usize) -> usize) -> Vec<&'b Value> {
    assert_eq!(entry["question"], question.question.as_str());
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
    let idea_of = |id: &str| question.answers[ids.iter().position(|i| i == id).unwrap()].0;
    let listed: Vec<String> = themes.iter().map(|t| format!("{} {}", t["interviews"], t["label"])).collect();
    question
        .ideas
        .iter()
        .enumerate()
        .map(|(k, idea)| {
            let own = |theme: &&Value| {
                let quotes = theme["quotes"].as_array().unwrap();
                quotes.iter().filter(|q| idea_of(q["interview_id"].as_str().unwrap()) == Some(k)).count() * 2 > quotes.len()
            };
            let found = themes.iter().take(4).find(own).unwrap_or_else(|| panic!("idea {k} of {:?} is not among the top 4: {listed:?}", question.question));
            let count = found["interviews"].as_u64().unwrap() as usize;
            assert!((least(idea.held_by)..=idea.held_by + 2).contains(&count), "idea {k} ({} interviews): {count}; themes {listed:?}", idea.held_by);
            if !idea.label_words.is_empty() {
                let label = found["label"].as_str().unwrap().to_lowercase();
                assert!(idea.label_words.iter().any(|w| label.contains(w.as_str())), "{label:?} names none of {:?}", idea.label_words);
            }
            found
        })
        .collect()
}

#[test]
fn planted_ideas_are_counted_labelled_and_quoted_verbatim() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let corpus = Corpus::read("checkout");
    let project = corpus_project(app, &tenant, &corpus);
    let empty = synthesis(app, &tenant, &project);
    assert_eq!((empty["interviews_analyzed"].clone(), empty["interviews_waiting"].clone(), empty["written_by"].clone()), (json!(0), json!(0), json!("builtin")));
    assert_eq!(empty["questions"].as_array().unwrap().len(), 2);
    assert!(empty["questions"].as_array().unwrap().iter().all(|q| q["themes"] == json!([]) && q["answered"] == 0));

    let (ids, sent) = replay_corpus(app, &project, &corpus);
    let (mut low_effort, mut tokens) = (Vec::new(), Vec::new());
    for (answers, move_on) in corpus::low_effort_answers(2) {
        let Replayed { session, .. } = corpus::replay(app, &project, "en", &answers, move_on);
        low_effort.push(session.interview_id);
        tokens.push(session.token);
    }

    let body = app.settled_synthesis(&tenant, &project);
    assert_eq!(body["interviews_analyzed"], 30, "{body}");
    assert_eq!(body["interviews_excluded"], 4, "{body}");
    assert_eq!(body["written_by"], "builtin");
    let entries = body["questions"].as_array().unwrap();
    assert_eq!(entries.len(), 2);
    // Counted within two of the interviews that say each idea (a fifth of twelve), each labelled with its word;
    // with the static table's coarser meanings (the edge manifest: no model) at least half of them.
    let least = planted_least();
    let found = check_planted(&entries[0], &corpus.questions[0], &ids, least);
    check_planted(&entries[1], &corpus.questions[1], &ids, least);
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

    // Erasing a quoted interview takes it out of every count and quote at once: one interview fewer.
    let first = found[0];
    let erased = first["quotes"][0]["interview_id"].as_str().unwrap().to_string();
    let status = app.request("DELETE", &format!("/v1/interviews/{erased}")).auth(&tenant).send().unwrap().status();
    assert_eq!(status, 204);
    let after = synthesis(app, &tenant, &project);
    assert!(!after.to_string().contains(&erased), "the erased interview is still there");
    assert_eq!(after["interviews_analyzed"], 29);
    assert_eq!(after["questions"][0]["answered"], 29);
    // Found again by its interviews: its label (and so its id) may have been the erased interviewee's words.
    // With the table's coarser meanings a borderline interview may leave with it.
    let same = check_planted(&after["questions"][0], &corpus.questions[0], &ids, least)[0];
    let fewer = first["interviews"].as_i64().unwrap() - same["interviews"].as_i64().unwrap();
    let expected = if runtime::edge_selected() { 1..=2 } else { 1..=1 };
    assert!(expected.contains(&fewer), "{fewer} fewer: {same}");
}

/// Ideas said in other words by every interview: each among the top four,
/// counted at least half of its interviews and at most two more.
#[test]
fn paraphrased_ideas_are_counted() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let corpus = Corpus::read("remote-work");
    let project = corpus_project(app, &tenant, &corpus);
    let (ids, sent) = replay_corpus(app, &project, &corpus);
    let body = app.settled_synthesis(&tenant, &project);
    assert_eq!(body["interviews_analyzed"], 30, "{body}");
    let entries = body["questions"].as_array().unwrap();
    // The static table cannot tell these paraphrases apart (the edge manifest has no model): it is held to the checkout study.
    if !runtime::edge_selected() {
        for (entry, question) in entries.iter().zip(&corpus.questions) {
            check_planted(entry, question, &ids, |held| held.div_ceil(2));
        }
    }
    assert_quotes_verbatim(&body, &sent);
}

#[test]
fn a_synthesis_is_the_tenants_own() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let other = app.create_tenant();
    let project = corpus_project(app, &tenant, &Corpus::read("checkout"));
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
/// answers join the synthesis once they have their meanings.
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
    let corpus = Corpus::read("checkout");
    let project = corpus_project(&app, &tenant, &corpus);
    for i in 0..12 {
        corpus::replay(&app, &project, "en", &corpus.answers(i), MOVE_ON);
    }
    let assessed = app.settled_synthesis(&tenant, &project);
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
    let mut again = app.settled_synthesis(&tenant, &project);
    again["generated_at"] = assessed["generated_at"].clone();
    assert_eq!(again, assessed, "the same synthesis as before the digests were lost");
}

/// The sentences' meanings are written by the maintenance run after the
/// interviews end (its report counts them, once), by the model where its
/// files are mounted; until then a synthesis says how many interviews wait
/// and shows none of their answers. Meanings a lesser model made (the static
/// table, where the model could not run) are made again by the model.
#[test]
fn sentences_get_their_meanings_from_the_maintenance_run() {
    const TOKEN: &str = "mt-meanings-0123456789";
    let app = TestApp::start(&[("maintenance_token", TOKEN)]);
    let tenant = app.create_tenant();
    let corpus = Corpus::read("checkout");
    let project = corpus_project(&app, &tenant, &corpus);
    for i in 0..6 {
        corpus::replay(&app, &project, "en", &corpus.answers(i), MOVE_ON);
    }
    let stored = |app: &TestApp| -> (i64, i64, Option<String>) {
        let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
        db.query_row(
            "SELECT COUNT(*), COUNT(units), MAX(units_by) FROM answer_terms WHERE project_id = ?1",
            [&project],
            |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
        )
        .unwrap()
    };
    assert_eq!(stored(&app), (12, 0, None), "no meanings in the transaction that ends an interview");
    let before = synthesis(&app, &tenant, &project);
    assert_eq!((before["interviews_analyzed"].clone(), before["interviews_waiting"].clone()), (json!(6), json!(6)), "{before}");
    assert!(before["questions"].as_array().unwrap().iter().all(|q| q["answered"] == 6 && q["themes"] == json!([])), "{before}");

    let give_meanings = || {
        let mut embedded = 0;
        loop {
            let (status, report) = app.run_maintenance(Some(TOKEN));
            assert_eq!(status, 200, "{report}");
            match report["embedded_answers"].as_u64().unwrap() {
                0 => return embedded,
                n => embedded += n,
            }
        }
    };
    assert_eq!(give_meanings(), 12);
    let model = if runtime::edge_selected() { "table" } else { "all-MiniLM-L6-v2" };
    assert_eq!(stored(&app), (12, 12, Some(model.to_string())));
    let after = synthesis(&app, &tenant, &project);
    assert_eq!(after["interviews_waiting"], 0, "{after}");
    assert!(!after["questions"][0]["themes"].as_array().unwrap().is_empty(), "{after}");

    // Meanings of the table (written where the model's files were not mounted) are made again by the model.
    if !runtime::edge_selected() {
        let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
        assert_eq!(db.execute("UPDATE answer_terms SET units_by = 'table' WHERE project_id = ?1", [&project]).unwrap(), 12);
        drop(db);
        assert_eq!(give_meanings(), 12);
        assert_eq!(stored(&app), (12, 12, Some(model.to_string())));
        let mut again = synthesis(&app, &tenant, &project);
        again["generated_at"] = after["generated_at"].clone();
        assert_eq!(again, after, "the same synthesis with the model's meanings made again");

        // Digests whose label phrases were kept with their meanings in context (before
        // schema 17) wait for the maintenance run to make them again, read alone.
        let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
        let with_phrases: i64 =
            db.query_row("SELECT COUNT(*) FROM answer_terms WHERE project_id = ?1 AND phrases IS NOT NULL", [&project], |row| row.get(0)).unwrap();
        assert!(with_phrases > 0, "the model keeps label phrases");
        db.execute_batch("PRAGMA user_version = 16; DELETE FROM schema_migrations WHERE version = 17;").unwrap();
        drop(db);
        let waiting = synthesis(&app, &tenant, &project);
        assert_eq!(stored(&app), (12, 12 - with_phrases, Some(model.to_string()).filter(|_| with_phrases < 12)));
        assert!(waiting["interviews_waiting"].as_i64().unwrap() > 0, "{waiting}");
        assert_eq!(give_meanings(), with_phrases as u64);
        let mut remade = synthesis(&app, &tenant, &project);
        remade["generated_at"] = after["generated_at"].clone();
        assert_eq!(remade, after, "the same synthesis with the phrases made again");
    }
}
