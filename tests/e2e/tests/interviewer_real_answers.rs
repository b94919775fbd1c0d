//! The built-in interviewer on real people's answers, through the session API
//! (docs/sessions.md, "Quotes"): a few interviews of `tests/fixtures/real-answers`
//! (Anthropic Interviewer transcripts in English, Polis statements in English,
//! German, French and Spanish; attributed in that folder's README) are answered
//! as the interview page does, and every message the interviewer sends back is
//! held to the rules: a quote is the interviewee's own words, leaves out no
//! negation or modal of its phrase, and neither begins nor ends on a stop word,
//! an adverb of degree or a connective; no message repeats. The share of
//! follow-ups that take up a substantive answer, and of probes that quote, are
//! printed (the unit replay in `sessions/probes/replay.rs` holds every answer
//! of the folder to the figures).

use projects_core::Language;
use sessions_core::probes::audit::{dropped_negation, dropped_qualifier, edge_fault, quoted_phrases, takes_up};
use sessions_core::strings;
use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

/// Words an answer needs to be substantive.
const SUBSTANTIVE_WORDS: usize = 12;

/// One real interview: the project it is answered in and the answers, in order.
struct Replayed {
    id: String,
    language: &'static str,
    length_minutes: i64,
    questions: Vec<String>,
    answers: Vec<String>,
}

fn fixture(file: &str) -> Value {
    let path = format!("{}/../fixtures/real-answers/{file}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Transcripts: the participant's replies after the one to the greeting, in
/// a 15-minute project of three questions.
fn transcripts(file: &str, ids: &[&str]) -> Vec<Replayed> {
    let questions = [
        "Could you tell me about your work, and where AI fits into it?",
        "What has using AI changed in how you work?",
        "How do you see the role of AI in your field in the coming years?",
    ];
    let data = fixture(file);
    let interviews = data["interviews"].as_array().unwrap();
    ids.iter()
        .map(|id| {
            let interview = interviews.iter().find(|i| i["id"] == *id).unwrap();
            Replayed {
                id: id.to_string(),
                language: "en",
                length_minutes: 15,
                questions: questions.map(String::from).to_vec(),
                answers: interview["turns"].as_array().unwrap().iter().skip(1).map(|t| t["participant"].as_str().unwrap().to_string()).collect(),
            }
        })
        .collect()
}

/// Polis respondents: their statements to the conversation's question, in a
/// 10-minute project of that one question.
fn respondents(file: &str, language: &'static str, count: usize) -> Vec<Replayed> {
    let data = fixture(file);
    let questions: Vec<&str> = data["questions"].as_array().unwrap().iter().map(|q| q.as_str().unwrap()).collect();
    data["interviews"]
        .as_array()
        .unwrap()
        .iter()
        .take(count)
        .map(|interview| {
            let answers = interview["answers"].as_array().unwrap();
            let question = questions[answers[0]["question"].as_u64().unwrap() as usize];
            Replayed {
                id: interview["id"].as_str().unwrap().to_string(),
                language,
                length_minutes: 10,
                questions: vec![question.split("\n\n").next().unwrap().to_string()],
                answers: answers.iter().map(|a| a["text"].as_str().unwrap().to_string()).collect(),
            }
        })
        .collect()
}

/// Answers until the answers run out or the interviewer closes; the session as read back.
fn replay(app: &TestApp, tenant: &TenantCredentials, interview: &Replayed) -> Value {
    let project_id = active_project(
        app,
        tenant,
        json!({
            "project_name": interview.id,
            "project_objective": "Understand how people experience the subject of this study.",
            "research_questions": interview.questions.join("\n"),
            "interview_languages": [interview.language],
            "interview_length": interview.length_minutes,
        }),
    );
    let mut session = Session::start(app, &json!({"project_id": project_id, "language": interview.language, "mode": "typing"}));
    for answer in &interview.answers {
        if session.body["interviewer_closed"] == true {
            break;
        }
        session.answer(app, answer);
    }
    let (status, read) = session.get(app);
    assert_eq!(status, 200, "{read}");
    read
}

#[derive(Default)]
struct Figures {
    probes: usize,
    quoting: usize,
    substantive: usize,
    taken_up: usize,
}

/// Every interviewer message after an answer, held to the rules.
fn check(interview: &Replayed, session: &Value, figures: &mut Figures) {
    let language = Language::parse(interview.language).unwrap();
    let turns = session["turns"].as_array().unwrap();
    let said: Vec<&str> = turns.iter().filter(|t| t["speaker"] == "interviewer").map(|t| t["text"].as_str().unwrap()).collect();
    let mut unique = said.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), said.len(), "{}: a message repeats: {said:#?}", interview.id);
    for pair in turns.windows(2) {
        let (answer, reply) = (&pair[0], &pair[1]);
        if answer["speaker"] != "interviewee" {
            continue;
        }
        let (answer, text) = (answer["text"].as_str().unwrap(), reply["text"].as_str().unwrap());
        assert_eq!(reply["written_by"], "builtin", "{}: {reply}", interview.id);
        let is_probe = reply["kind"] == "probe";
        let quotes = quoted_phrases(text, language);
        if is_probe {
            figures.probes += 1;
            figures.quoting += !quotes.is_empty() as usize;
            if answer.split_whitespace().count() >= SUBSTANTIVE_WORDS {
                figures.substantive += 1;
                figures.taken_up += takes_up(answer, text, language) as usize;
            }
        }
        for quote in quotes {
            let shown = format!("{}: {text:?} after {answer:?}", interview.id);
            assert!(answer.contains(&quote), "the quote is the interviewee's own words: {shown}");
            // English quotes are noun phrases: a modal of their clause qualifies its verb, not what they name.
            let dropped = match language {
                Language::En => dropped_negation(answer, &quote, language),
                _ => dropped_qualifier(answer, &quote, language),
            };
            assert_eq!(dropped, None, "a negation or modal left out: {shown}");
            assert_eq!(edge_fault(&quote, language), None, "an edge word: {shown}");
        }
    }
    // No wording serves twice in one interview.
    let asking = strings::for_language(interview.language).interviewer.asking;
    let wordings: Vec<&str> = said
        .iter()
        .filter_map(|message| asking.read(message).map(|(wording, _)| wording.text.as_str()))
        .collect();
    let mut distinct = wordings.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), wordings.len(), "{}: a wording serves twice: {said:#?}", interview.id);
}

#[test]
fn real_interviews_through_the_session_api_get_faithful_quotes_and_no_repeats() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let mut interviews = transcripts("anthropic-interviewer-creatives.json", &["creativity_0000", "creativity_0009"]);
    interviews.extend(transcripts("anthropic-interviewer-scientists.json", &["science_0011"]));
    interviews.extend(respondents("polis-bowling-green-en.json", "en", 3));
    interviews.extend(respondents("polis-austria-klimarat-de.json", "de", 4));
    interviews.extend(respondents("polis-ia-messages-propositions-fr.json", "fr", 4));
    interviews.extend(respondents("polis-cuba-15n-es.json", "es", 4));
    let mut figures = Figures::default();
    for interview in &interviews {
        let session = replay(app, &tenant, interview);
        check(interview, &session, &mut figures);
    }
    println!(
        "{} interviews, {} probes: {} quote ({:.3}); {} of {} follow-ups after a substantive answer take it up ({:.3})",
        interviews.len(),
        figures.probes,
        figures.quoting,
        figures.quoting as f64 / figures.probes.max(1) as f64,
        figures.taken_up,
        figures.substantive,
        figures.taken_up as f64 / figures.substantive.max(1) as f64
    );
    assert!(figures.probes >= 20, "the interviews are probed: {} probes", figures.probes);
    // Most probes quote; where no whole phrase qualifies or fits the way of asking, or a short answer a
    // quote would repeat whole, the probe asks in the interviewer's own words.
    assert!(figures.quoting * 100 >= figures.probes * 60, "{} of {} probes quote", figures.quoting, figures.probes);
}
