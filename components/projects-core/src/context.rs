//! POST /project/validate-context: deterministic rules per field, refined by the
//! language model when one is configured.
//!
//! Rules (a field is valid when all of its rules hold; the first failing rule
//! gives the `feedback` text):
//!
//! | field | rules |
//! |---|---|
//! | every field | at least 3 distinct words; not a placeholder (`test`, `tbd`, `n/a`, `lorem ipsum`, `asdf`, `xxx`, ...) |
//! | project_objective | at least 5 words and 25 characters |
//! | research_questions | at least 4 words, and a real question: a `?` (also `？`, `¿`) or a line/sentence opening with an interrogative (what, why, how, which, who, when, where, whether, do/does/did, is/are, can/could, would/should/will, to what extent) |
//! | success_criteria | at least 4 words and 20 characters |
//! | recruiting_criteria | at least 3 words, and a recruitable audience: a word for a group of people (users, customers, parents, nurses, ...), an age (`18+`, `25-40`, `aged`, `years old`) or a `who ...` clause |
//!
//! With a model, each field is valid when the rules AND the model say so; the
//! model's feedback explains a field it rejects. Any model failure leaves the
//! rules' answer.

use super::{ContextFields, CONTEXT_FIELDS, MAX_TEXT};
use platform::error::ApiResult;
use platform::llm::{self, LlmConfig};
use platform::validation::{text, Fields};
use serde_json::{json, Map, Value};
use text::sentences::{sentences_of, Prose};

/// The body of POST /project/validate-context: four required strings of 1..=10,000 chars.
pub fn parse_request(body: &Value) -> ApiResult<ContextFields> {
    let mut f = Fields::body(body)?;
    let values: Vec<String> = CONTEXT_FIELDS
        .iter()
        .map(|name| f.require(name, |v, l| text(v, l, 1, MAX_TEXT)).unwrap_or_default())
        .collect();
    f.finish()?;
    let mut values = values.into_iter();
    Ok(ContextFields {
        project_objective: values.next().unwrap_or_default(),
        research_questions: values.next().unwrap_or_default(),
        success_criteria: values.next().unwrap_or_default(),
        recruiting_criteria: values.next().unwrap_or_default(),
    })
}

/// One field's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub is_valid: bool,
    pub feedback: Option<String>,
}

impl Verdict {
    fn valid() -> Verdict {
        Verdict { is_valid: true, feedback: None }
    }

    fn invalid(feedback: impl Into<String>) -> Verdict {
        Verdict { is_valid: false, feedback: Some(feedback.into()) }
    }
}

// The context check's words, as data (`context_words.json`, compiled in by
// build.rs): `PLACEHOLDERS` (a field of only these is placeholder text),
// `INTERROGATIVES` (a sentence opening with one asks), `AUDIENCE_WORDS` (the
// recruiting criteria name whom to interview).
mod data {
    include!(concat!(env!("OUT_DIR"), "/context_words.rs"));
}
use data::{AUDIENCE_WORDS, INTERROGATIVES, PLACEHOLDERS};

/// The words of a field as the toolkit reads them (`text::words`: "don't"
/// and "25-45" are one word each, Japanese words end where the script
/// changes), lower-cased.
fn words(text: &str) -> Vec<String> {
    text::words::words(text).into_iter().map(|word| word.normalized).collect()
}

fn distinct_words(words: &[String]) -> usize {
    let mut seen: Vec<&str> = words.iter().map(String::as_str).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}

fn general_rules(field: &str, text: &str) -> Option<Verdict> {
    let words = words(text);
    if distinct_words(&words) < 3 {
        return Some(Verdict::invalid(format!("{} needs at least three different words.", label(field))));
    }
    if words.iter().all(|w| PLACEHOLDERS.contains(&w.as_str()) || w.chars().all(|c| !c.is_alphabetic())) {
        return Some(Verdict::invalid(format!("{} looks like placeholder text.", label(field))));
    }
    None
}

fn label(field: &str) -> &'static str {
    match field {
        "project_objective" => "The objective",
        "research_questions" => "The research questions",
        "success_criteria" => "The success criteria",
        _ => "The recruiting criteria",
    }
}

fn has_question(text: &str) -> bool {
    if text.contains(['?', '？', '¿']) {
        return true;
    }
    // A sentence or line (list markers aside) opening with an interrogative.
    sentences_of(text, Prose::Brief)
        .into_iter()
        .map(|(start, end)| text[start..end].trim_start_matches(|c: char| !c.is_alphabetic()).to_lowercase())
        .any(|sentence| {
            INTERROGATIVES.iter().any(|q| {
                sentence.strip_prefix(q).is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
            })
        })
}

fn has_audience(text: &str) -> bool {
    let lower = text.to_lowercase();
    let words = words(text);
    let singular = |w: &str| -> String {
        let w = w.trim_matches('\'');
        w.strip_suffix("'s").unwrap_or(w).strip_suffix('s').unwrap_or(w).to_string()
    };
    let audience_word = words.iter().any(|w| {
        AUDIENCE_WORDS.contains(&w.as_str()) || AUDIENCE_WORDS.contains(&singular(w).as_str())
    });
    let has_age = lower.contains("aged")
        || lower.contains("years old")
        || lower.contains("year-old")
        // "18+": a number, then a plus.
        || text.match_indices('+').any(|(at, _)| text[..at].ends_with(|c: char| c.is_ascii_digit()))
        // "25-45"
        || words.iter().any(|w| {
            w.split_once('-').is_some_and(|(a, b)| {
                !a.is_empty() && !b.is_empty() && a.chars().all(|c| c.is_ascii_digit()) && b.chars().all(|c| c.is_ascii_digit())
            })
        });
    audience_word || has_age || words.iter().any(|w| w == "who" || w == "whose")
}

/// The built-in rules for one field.
pub fn check_field(field: &str, text: &str) -> Verdict {
    let text = text.trim();
    if let Some(verdict) = general_rules(field, text) {
        return verdict;
    }
    let word_count = words(text).len();
    let chars = text.chars().count();
    match field {
        "project_objective" if word_count < 5 || chars < 25 => Verdict::invalid(
            "Describe the objective in at least one full sentence (5 words or more): what do you want to learn, and why?",
        ),
        "research_questions" if word_count < 4 => {
            Verdict::invalid("Write out at least one complete research question.")
        }
        "research_questions" if !has_question(text) => Verdict::invalid(
            "Phrase at least one research question as a question (for example 'How do ...?' or 'Why ...?').",
        ),
        "success_criteria" if word_count < 4 || chars < 20 => Verdict::invalid(
            "Say what a successful study delivers, for example the insights or decisions it should enable.",
        ),
        "recruiting_criteria" if !has_audience(text) => Verdict::invalid(
            "Name who should be interviewed: a group of people (for example 'parents of toddlers', 'B2B buyers'), an age range, or 'people who ...'.",
        ),
        _ => Verdict::valid(),
    }
}

/// The rules for all four fields, in the contract's order.
pub fn check_rules(context: &ContextFields) -> Vec<(&'static str, Verdict)> {
    CONTEXT_FIELDS.iter().map(|field| (*field, check_field(field, context.get(field)))).collect()
}

const SYSTEM_PROMPT: &str = "You review the research context of an AI-moderated user interview study. \
For each of the four fields decide whether it is specific and usable: project_objective (what the study wants to learn), \
research_questions (real questions the interviews should answer), success_criteria (what a successful study delivers), \
recruiting_criteria (a recruitable audience). Answer with one JSON object with exactly the keys project_objective, \
research_questions, success_criteria, recruiting_criteria; each value an object {\"is_valid\": true|false, \"feedback\": \"one sentence\"}.";

/// Strict parsing of the model's verdicts: exactly the four keys, each an object
/// with a boolean `is_valid` and an optional string `feedback`, nothing else.
pub fn parse_model_verdicts(answer: &str) -> Result<Vec<Verdict>, llm::LlmError> {
    let map = llm::parse_json_answer(answer)?;
    if map.len() != CONTEXT_FIELDS.len() {
        return Err(llm::LlmError::BadAnswer("expected exactly the four context fields".into()));
    }
    CONTEXT_FIELDS
        .iter()
        .map(|field| {
            let Some(Value::Object(verdict)) = map.get(*field) else {
                return Err(llm::LlmError::BadAnswer(format!("{field} is not an object")));
            };
            let is_valid = match verdict.get("is_valid") {
                Some(Value::Bool(valid)) => *valid,
                _ => return Err(llm::LlmError::BadAnswer(format!("{field}.is_valid is not a boolean"))),
            };
            let feedback = match verdict.get("feedback") {
                None | Some(Value::Null) => None,
                Some(Value::String(text)) => Some(text.trim().chars().take(500).collect::<String>()).filter(|t| !t.is_empty()),
                Some(_) => return Err(llm::LlmError::BadAnswer(format!("{field}.feedback is not a string"))),
            };
            if verdict.keys().any(|k| k != "is_valid" && k != "feedback") {
                return Err(llm::LlmError::BadAnswer(format!("{field} has unexpected keys")));
            }
            Ok(Verdict { is_valid, feedback })
        })
        .collect()
}

/// Rules, refined by the model when configured (and answering usably).
pub fn validate(context: &ContextFields, llm_config: &LlmConfig) -> Vec<(&'static str, Verdict)> {
    let mut verdicts = check_rules(context);
    if !llm_config.enabled() {
        return verdicts;
    }
    let user = serde_json::to_string(context).expect("JSON serializes");
    let question = llm::Question::json(SYSTEM_PROMPT, &user);
    let parse = |answer: String| parse_model_verdicts(&answer);
    if let Some(model) = llm::ask_or_fall_back(llm_config, "validate-context", "using the built-in rules", question, parse) {
        for ((_, verdict), model) in verdicts.iter_mut().zip(model) {
            if verdict.is_valid && !model.is_valid {
                *verdict = Verdict {
                    is_valid: false,
                    feedback: model.feedback.or_else(|| Some("The reviewer found this field too vague.".into())),
                };
            }
        }
    }
    verdicts
}

/// The 200 body: `{field: {is_valid, feedback?}}` for the four fields.
pub fn result_body(verdicts: &[(&'static str, Verdict)]) -> Value {
    let mut body = Map::new();
    for (field, verdict) in verdicts {
        let mut entry = json!({ "is_valid": verdict.is_valid });
        if let Some(feedback) = &verdict.feedback {
            entry["feedback"] = Value::from(feedback.as_str());
        }
        body.insert(field.to_string(), entry);
    }
    Value::Object(body)
}
