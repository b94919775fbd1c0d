//! The built-in synthesis by meaning on real answers (`tests/fixtures/real-answers`,
//! attributed there), each interview replayed through the built-in
//! interviewer as `sessions::probes::replay` replays it: the themes a
//! researcher gets, held to what docs/synthesis.md promises. With
//! `SYNTHESIS_DUMP=<folder>` set, each fixture's themes and every sentence with
//! its idea are written there as JSON, for judging them with the full model
//! (scripts/vectors/judge.py).

use super::*;
use crate::sessions::probes::replay::replayed;
use crate::synthesis::answers::free_text_answers;
use serde_json::json;

/// One fixture's questions, each with its ideas named and quoted.
struct Replayed {
    interview_ids: Vec<String>,
    /// `(interview, seq)` → the answer's text.
    texts: HashMap<(usize, i64), String>,
    questions: Vec<(String, Grouped<'static>)>,
}

fn replay(file: &str) -> Replayed {
    let interviews = replayed(file);
    let questions: Vec<String> = interviews[0].1.clone();
    let mut texts = HashMap::new();
    let mut per_question: Vec<Vec<(usize, Unit)>> = vec![Vec::new(); questions.len()];
    let mut answered: Vec<HashSet<usize>> = vec![HashSet::new(); questions.len()];
    for (at, (_, _, turns)) in interviews.iter().enumerate() {
        for answer in free_text_answers(turns, None) {
            texts.insert((at, answer.seq), answer.text.to_string());
            let Some(question) = answer.question_index else { continue };
            answered[question].insert(at);
            for unit in units::of_answers(&[(answer.seq, answer.text)], Language::En) {
                per_question[question].push((at, unit));
            }
        }
    }
    let questions = questions
        .into_iter()
        .zip(per_question)
        .zip(answered)
        .map(|((question, sentences), answered)| {
            let (ideas, common) = group_ideas(&sentences);
            let question_text: &'static str = Box::leak(question.clone().into_boxed_str());
            (question, Grouped { question: question_text, answered: answered.len(), ideas, sentences, common, themes: Vec::new() })
        })
        .collect();
    Replayed { interview_ids: interviews.iter().map(|(id, _, _)| id.clone()).collect(), texts, questions }
}

fn named(replayed: &Replayed, grouped: &Grouped) -> Vec<Named> {
    let ids: Vec<&str> = replayed.interview_ids.iter().map(String::as_str).collect();
    let text_of: HashMap<(&str, i64), &str> =
        replayed.texts.iter().map(|((at, seq), text)| ((ids[*at], *seq), text.as_str())).collect();
    let mut named = named_ideas(grouped, &text_of, &ids);
    named.truncate(themes::MAX_THEMES);
    named
}

#[test]
fn real_interviews_give_themes_that_are_ideas_in_the_participants_words() {
    for file in ["anthropic-interviewer-creatives.json", "anthropic-interviewer-scientists.json", "polis-bowling-green-en.json"] {
        let replayed = replay(file);
        let mut dump = Vec::new();
        for (question, grouped) in &replayed.questions {
            let themes = named(&replayed, grouped);
            println!("{file} | {question} | {} answered", grouped.answered);
            for theme in &themes {
                println!("    {:>3}  {}", theme.interviews.len(), theme.label);
                for quote in &theme.quotes {
                    println!("           {}", quote.text);
                }
            }
            for theme in &themes {
                let words = theme.label.split_whitespace().count();
                assert!((naming::MIN_LABEL_WORDS..=naming::MAX_LABEL_WORDS).contains(&words), "{file}: {:?}", theme.label);
                assert!(theme.interviews.len() >= ideas::MIN_INTERVIEWS, "{file}: {:?}", theme.label);
                for quote in &theme.quotes {
                    let at = replayed.interview_ids.iter().position(|id| *id == quote.interview_id).unwrap();
                    assert!(replayed.texts[&(at, quote.seq)].contains(&quote.text), "{file}: not verbatim: {:?}", quote.text);
                    assert!(crate::text::audit::dropped_qualifier(&replayed.texts[&(at, quote.seq)], &quote.text, Language::En).is_none());
                }
            }
            let keys: Vec<Vec<String>> = themes.iter().map(|t| naming::label_stems(&t.label)).collect();
            let distinct: HashSet<&Vec<String>> = keys.iter().collect();
            assert_eq!(distinct.len(), keys.len(), "{file}: two themes say the same: {keys:?}");
            if std::env::var("SYNTHESIS_DUMP").is_ok() {
                let sentences: Vec<serde_json::Value> = grouped
                    .sentences
                    .iter()
                    .enumerate()
                    .map(|(k, (at, unit))| {
                        let idea = grouped.ideas.iter().position(|idea| idea.sentences.contains(&k));
                        json!({"interview": at, "text": &replayed.texts[&(*at, unit.seq)][unit.start..unit.end], "idea": idea})
                    })
                    .collect();
                let themes: Vec<serde_json::Value> = themes
                    .iter()
                    .map(|t| json!({"label": t.label, "interviews": t.interviews.len(), "quotes": t.quotes.iter().map(|q| &q.text).collect::<Vec<_>>()}))
                    .collect();
                dump.push(json!({"question": question, "answered": grouped.answered, "themes": themes, "sentences": sentences}));
            }
        }
        if let Ok(folder) = std::env::var("SYNTHESIS_DUMP") {
            std::fs::write(format!("{folder}/{file}"), serde_json::to_string_pretty(&dump).unwrap()).unwrap();
        }
    }
}


