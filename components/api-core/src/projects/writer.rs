//! Generated mode: the project name and the four context fields written from a
//! prompt, by the configured language model or, without one (or when it fails,
//! answers badly or too slowly), by a deterministic built-in writer.
//!
//! The built-in writer:
//! - topic: the prompt's first sentence (whitespace collapsed, trailing
//!   punctuation dropped, at most 160 characters cut at a word boundary);
//! - project_name: the topic with a capital letter, at most 80 characters;
//! - project_objective: "Understand <topic>, ..." plus the full prompt as background;
//! - research_questions: three numbered questions about the topic;
//! - success_criteria: a fixed, measurable statement about themes and recommendations;
//! - recruiting_criteria: the prompt's first sentence that names an audience
//!   (see [`super::context`]), else "Adults (18+) who have first-hand experience with <topic>."
//!
//! Its output always passes the validate-context rules.

use super::context;
use super::{ContextFields, MAX_NAME, MAX_TEXT};
use crate::llm::{self, LlmConfig};

const TOPIC_CHARS: usize = 160;
const NAME_CHARS: usize = 80;

/// Cuts `text` to at most `max` characters at a word boundary.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let prefix: String = text.chars().take(max).collect();
    match prefix.rfind(' ') {
        Some(space) if space > max / 2 => prefix[..space].trim_end().to_string(),
        _ => prefix,
    }
}

fn sentences(prompt: &str) -> Vec<String> {
    let collapsed = prompt.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    let mut current = String::new();
    for c in collapsed.chars() {
        current.push(c);
        if matches!(c, '.' | '!' | '?' | ';') {
            let sentence = current.trim().to_string();
            if !sentence.is_empty() {
                out.push(sentence);
            }
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

fn topic(prompt: &str) -> String {
    let first = sentences(prompt).into_iter().next().unwrap_or_default();
    let trimmed = first.trim_end_matches(|c: char| c.is_ascii_punctuation() || c.is_whitespace());
    let topic = cut(trimmed, TOPIC_CHARS);
    if topic.is_empty() {
        "the subject of the study".to_string()
    } else {
        topic
    }
}

fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

fn lower_first(text: &str) -> String {
    let mut chars = text.chars();
    match (chars.next(), text.chars().nth(1)) {
        // Keep acronyms ("B2B", "SaaS") as they are.
        (Some(first), Some(second)) if first.is_uppercase() && !second.is_uppercase() => {
            first.to_lowercase().collect::<String>() + chars.as_str()
        }
        _ => text.to_string(),
    }
}

/// The deterministic writer: `(project_name, context)` from a prompt.
pub fn builtin(prompt: &str) -> (String, ContextFields) {
    let topic = topic(prompt);
    let subject = lower_first(&topic);
    let name = cut(&capitalize(&topic), NAME_CHARS.min(MAX_NAME));
    let background = cut(&prompt.split_whitespace().collect::<Vec<_>>().join(" "), MAX_TEXT - 200);
    let project_objective = format!(
        "Understand {subject}, as experienced by the people concerned, in order to identify their needs, \
         pain points and opportunities for improvement. Background: {background}"
    );
    let research_questions = format!(
        "1. How do participants currently experience {subject}?\n\
         2. What problems, frustrations or workarounds do they encounter, and why?\n\
         3. What would make the experience more valuable to them?"
    );
    let success_criteria = "The interviews surface at least three recurring themes, each supported by concrete \
        examples from several participants, and lead to prioritised, actionable recommendations."
        .to_string();
    let recruiting_criteria = sentences(prompt)
        .into_iter()
        .find(|sentence| {
            context::check_field("recruiting_criteria", sentence).is_valid
                && !sentence.to_lowercase().starts_with("who ")
        })
        .map(|sentence| format!("Participants matching this description: {}", cut(&sentence, 1000)))
        .unwrap_or_else(|| format!("Adults (18+) who have first-hand experience with {subject}."));
    (
        name,
        ContextFields { project_objective, research_questions, success_criteria, recruiting_criteria },
    )
}

const SYSTEM_PROMPT: &str = "You set up AI-moderated user research interviews. From the researcher's description, \
write the study's context. Answer with one JSON object with exactly these string keys: project_name (at most 80 \
characters), project_objective, research_questions (numbered, real questions), success_criteria, recruiting_criteria \
(a recruitable audience). No other keys, no Markdown.";

const FIELDS: [&str; 5] = ["project_name", "project_objective", "research_questions", "success_criteria", "recruiting_criteria"];

/// Strict parsing of the model's answer: exactly the five string fields within limits.
pub fn parse_model_answer(answer: &str) -> Result<(String, ContextFields), llm::LlmError> {
    let map = llm::parse_json_answer(answer)?;
    let values = llm::exact_string_fields(&map, &FIELDS, |key| if key == "project_name" { MAX_NAME } else { MAX_TEXT })?;
    let mut values = values.into_iter();
    let mut next = || values.next().unwrap_or_default();
    Ok((
        next(),
        ContextFields {
            project_objective: next(),
            research_questions: next(),
            success_criteria: next(),
            recruiting_criteria: next(),
        },
    ))
}

/// Which writer produced the fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    Model,
    BuiltIn,
}

/// The model's fields when it is configured and answers usably in time; the
/// built-in writer's otherwise.
pub fn write(prompt: &str, llm_config: &LlmConfig) -> (String, ContextFields, Writer) {
    if llm_config.enabled() {
        match llm::complete(llm_config, SYSTEM_PROMPT, prompt).and_then(|answer| parse_model_answer(&answer)) {
            Ok((name, context)) => return (name, context, Writer::Model),
            Err(error) => eprintln!("generated project: {error}; using the built-in writer"),
        }
    }
    let (name, context) = builtin(prompt);
    (name, context, Writer::BuiltIn)
}
