//! The synthesis on real participants' answers (tests/fixtures/real-answers:
//! Anthropic Interviewer transcripts and Polis statements in English, German,
//! French and Spanish, CC BY), each interview replayed through the session
//! API as its participant wrote it: no genuine interview is left out, every
//! quote is a verbatim span of the answer it names, and each question shows
//! themes: at least three of three or more interviews where the data has them
//! (the Polis sets), at least two for six transcripts of a study.

use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};
use std::collections::HashMap;

fn fixture(name: &str) -> Value {
    let path = workspace_root().join("tests/fixtures/real-answers").join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// A participant's messages, in order.
fn messages(interview: &Value) -> Vec<String> {
    match interview.get("turns") {
        Some(turns) => turns.as_array().unwrap().iter().map(|t| t["participant"].as_str().unwrap().to_string()).collect(),
        None => interview["answers"].as_array().unwrap().iter().map(|a| a["text"].as_str().unwrap().to_string()).collect(),
    }
}

/// Sends the messages in order until the interviewer closes the conversation
/// (or they run out), then finishes: what was sent, by seq.
fn replay(app: &TestApp, project_id: &str, language: &str, texts: &[String]) -> (String, Vec<(i64, String)>) {
    let mut body = start_body(project_id, "production");
    body["language"] = Value::from(language);
    let mut session = Session::start(app, &body);
    let mut sent = Vec::new();
    for text in texts {
        if session.body["interviewer_closed"] == true {
            break;
        }
        let seq = session.body["turns"].as_array().unwrap().len() as i64;
        let (status, answered) = session.answer_raw(app, text);
        assert_eq!(status, 200, "{answered}");
        sent.push((seq, text.clone()));
    }
    let (status, finished) = session.finish(app, false);
    assert_eq!(status, 200, "{finished}");
    (session.interview_id, sent)
}

/// Replays every interview of a fixture into a new project asking `questions`
/// and checks its synthesis; returns it.
fn replayed(app: &TestApp, tenant: &TenantCredentials, fixture: &Value, questions: &str, language: &str, interviews: &[Value]) -> Value {
    let project = active_project(
        app,
        tenant,
        json!({"research_questions": questions, "interview_length": 10, "interview_languages": [language]}),
    );
    let mut sent: HashMap<String, Vec<(i64, String)>> = HashMap::new();
    for interview in interviews {
        let (id, answers) = replay(app, &project, language, &messages(interview));
        sent.insert(id, answers);
    }
    let body = app.settled_synthesis(tenant, &project);
    let title = fixture["source"]["title"].as_str().unwrap_or_default();
    assert_eq!(body["interviews_excluded"], 0, "{title}: a genuine interview was left out: {body}");
    assert_eq!(body["interviews_analyzed"], interviews.len(), "{title}");
    for question in body["questions"].as_array().unwrap() {
        let themes = question["themes"].as_array().unwrap();
        eprintln!("{title} | {} | answered {}", question["question"], question["answered"]);
        for theme in themes {
            eprintln!("    {:>3}  {}", theme["interviews"], theme["label"]);
            for quote in theme["quotes"].as_array().unwrap() {
                let (_, answer) = sent[quote["interview_id"].as_str().unwrap()]
                    .iter()
                    .find(|(seq, _)| *seq == quote["seq"].as_i64().unwrap())
                    .unwrap_or_else(|| panic!("{title}: no answer at {quote}"));
                let text = quote["text"].as_str().unwrap();
                assert!(answer.contains(text) && text.chars().count() <= 400, "{title}: not verbatim: {text:?} of {answer:?}");
            }
        }
    }
    body
}

/// Themes of three or more interviews.
/// The transcripts of each Anthropic Interviewer study replayed end to end.
const TRANSCRIPTS_PER_STUDY: usize = 6;

fn strong_themes(question: &Value) -> usize {
    question["themes"].as_array().unwrap().iter().filter(|t| t["interviews"].as_i64().unwrap() >= 3).count()
}

#[test]
fn real_interview_transcripts_give_themes_traced_to_their_words() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let questions = [
        (
            "anthropic-interviewer-creatives.json",
            "Could you tell me about your creative work and what a typical project looks like?\nHow does AI fit into your creative process?",
        ),
        (
            "anthropic-interviewer-scientists.json",
            "Could you tell me about your research and what a typical day looks like?\nHow does AI fit into your scientific work?",
        ),
    ];
    for (name, research_questions) in questions {
        let data = fixture(name);
        // A quarter of each study: every sentence gets the model's meaning in the maintenance run
        // (about 70 ms of CPU each, 1,500 sentences in the 48), paid once per runtime in `make test`.
        // The unit tests group all 24 of each (`synthesis::builtin::real_answers`).
        let interviews = &data["interviews"].as_array().unwrap()[..TRANSCRIPTS_PER_STUDY];
        let body = replayed(app, &tenant, &data, research_questions, "en", interviews);
        // Six interviews a question: at least two themes (each of two interviews or more).
        for question in body["questions"].as_array().unwrap() {
            assert!(question["themes"].as_array().unwrap().len() >= 2, "{name}: {question}");
        }
        // Who the participants are is in the profile, quoted in their words, and in no theme.
        let participants = &body["participants"];
        eprintln!("{name} | participants {participants}");
        let themed: Vec<&Value> = body["questions"].as_array().unwrap().iter().flat_map(|q| q["themes"].as_array().unwrap()).flat_map(|t| t["quotes"].as_array().unwrap()).collect();
        let work = &participants["work"];
        assert!(work["interviews"].as_u64().unwrap() <= participants["described"].as_u64().unwrap(), "{name}: {participants}");
        for said in participants["roles"].as_array().unwrap().iter().chain([work]) {
            for quote in said["quotes"].as_array().unwrap() {
                assert!(!themed.iter().any(|t| t["text"] == quote["text"]), "{name}: a theme quotes who its participant is: {quote}");
            }
        }
        if name == "anthropic-interviewer-creatives.json" {
            // A media composer, a music producer (a producer of what: two words), a dance instructor, one who works in production management, ...
            assert!(participants["described"].as_u64().unwrap() >= 4, "{name}: {participants}");
            let roles: Vec<&str> = participants["roles"].as_array().unwrap().iter().map(|r| r["role"].as_str().unwrap()).collect();
            for role in ["composer", "music producer", "instructor"] {
                assert!(roles.contains(&role), "{name}: {role} in {roles:?}");
            }
            let composer = participants["roles"].as_array().unwrap().iter().find(|r| r["role"] == "composer").unwrap();
            assert_eq!(composer["interviews"], 1);
            assert_eq!(composer["quotes"][0]["text"], "Hmmm— I'm a media composer.", "{composer}");
            // Who works in production management, records clients' music or writes web content says
            // what their work is, and names no role: their work, in no theme.
            assert!(participants["work"]["interviews"].as_u64().unwrap() >= 2, "{participants}");
            assert!(!themed.iter().any(|t| t["text"] == "I work in production management for high end TV and film."), "{participants}");
        }
    }
}

#[test]
fn real_open_answers_in_four_languages_give_themes_traced_to_their_words() {
    let app = shared_app();
    let tenant = app.create_tenant();
    for (name, language) in
        [("polis-bowling-green-en.json", "en"), ("polis-ia-messages-propositions-fr.json", "fr"), ("polis-cuba-15n-es.json", "es")]
    {
        let data = fixture(name);
        // The prompt's question: up to its first question mark, on one line.
        let prompt = data["questions"][0].as_str().unwrap().replace('\n', " ");
        let question = match prompt.find('?') {
            Some(end) => prompt[..=end].to_string(),
            None => prompt,
        };
        let body = replayed(app, &tenant, &data, &question, language, data["interviews"].as_array().unwrap());
        assert!(strong_themes(&body["questions"][0]) >= 3, "{name}: {body}");
    }
    // German: five topics of twelve participants each, one project per topic.
    let data = fixture("polis-austria-klimarat-de.json");
    for (index, question) in data["questions"].as_array().unwrap().iter().enumerate() {
        let prefix = format!("q{index}-");
        let topic: Vec<Value> =
            data["interviews"].as_array().unwrap().iter().filter(|i| i["id"].as_str().unwrap().starts_with(&prefix)).cloned().collect();
        let body = replayed(app, &tenant, &data, question.as_str().unwrap(), "de", &topic);
        assert_eq!(body["questions"][0]["answered"], topic.len(), "{body}");
    }
}
