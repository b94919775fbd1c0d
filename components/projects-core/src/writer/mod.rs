//! Generated mode: the project name and the four context fields written from a
//! prompt, by the configured language model or, without one (or when it fails,
//! answers badly or too slowly), by a deterministic built-in writer.
//!
//! The built-in writer first turns the prompt into a topic:
//! - it picks the prompt's first sentence, or a later one that says what to learn
//!   when the first only sets the scene ("We are a neobank. We want to learn ...");
//! - it drops lead-ins ("we want to learn", "I'd like to understand", "our goal is
//!   to", "help me find out", "the research is about", "Topics:", ...);
//! - it writes what is left as one of: a noun clause ("How do people pick a bank?"
//!   becomes "how people pick a bank"; "Find out why users churn" becomes "why users
//!   churn"; "Improve onboarding" becomes "how to improve onboarding"), a noun phrase
//!   ("the onboarding experience of new nurses"; a list becomes "pricing, delivery and
//!   support"), a statement to explain ("Nurses are quitting" becomes "why nurses are
//!   quitting", as does "We've noticed that ..."), the writer's own situation ("We are
//!   launching X" becomes "the context in which we are launching X"), a quoted topic (a
//!   phrase with no English in it) or, when a question cannot be rewritten, the
//!   question itself.
//!
//! Then, from templates that fit the topic's form:
//! - project_name: the topic with a capital letter, at most 80 characters;
//! - project_objective: "Understand <topic>." (the first sentence, which the built-in
//!   interviewer introduces the conversation with), what the interviews should reveal,
//!   and the prompt's other sentences as context;
//! - research_questions: the researcher's own question(s) when the prompt asks some, or
//!   one about the topic, then two about problems and improvements;
//! - success_criteria: a fixed, measurable statement about themes and recommendations;
//! - recruiting_criteria: the audience the prompt names ("Interview parents in big
//!   cities", or the people of the topic: "parents of toddlers"), else "Adults (18+)",
//!   "who can speak from recent, first-hand experience about <topic>".
//!
//! Its output always passes the validate-context rules.

mod audiences;
mod clauses;
mod lead_ins;
mod text;
mod topics;
mod words;

use super::context;
use super::{ContextFields, MAX_NAME, MAX_TEXT};
use platform::llm::{self, LlmConfig};
use audiences::find_audience;
use lead_ins::recruiting_audience;
use text::{capitalize, cut, end_sentence, lower_first, normalise, sentences};
use topics::{Kind, Topic, analyse};
use words::{ADVERBS, HOW_MODS, WH, is_aux, is_function_word, is_in, keys, tokens};

const TOPIC_CHARS: usize = 160;
const NAME_CHARS: usize = 80;
const AUDIENCE_CHARS: usize = 200;
const CONTEXT_CHARS: usize = 4_000;
const EXTRA_QUESTIONS: usize = 3;

const PROBLEMS_QUESTION: &str = "What problems, frustrations or workarounds do participants encounter, and why?";
const IMPROVEMENT_QUESTION: &str = "What would make the experience more valuable to them?";
const REVEAL: &str = "The interviews should reveal, from first-hand experience, what the people concerned need, \
    what gets in their way and where there are opportunities for improvement.";
const SUCCESS_CRITERIA: &str = "The interviews surface at least three recurring themes, each supported by concrete \
    examples from several participants, and lead to prioritised, actionable recommendations.";
const ANYONE: &str = "Adults (18+)";

/// A research question about a topic.
fn question_about(topic: &Topic) -> String {
    if let Some(question) = &topic.question {
        return question.clone();
    }
    match topic.kind {
        Kind::Clause => format!("What do participants' own experiences reveal about {}?", topic.text),
        Kind::Noun | Kind::Quoted => {
            format!("What do participants currently do, think and feel when it comes to {}?", topic.subject())
        }
        Kind::Statement => format!("How do participants experience {}?", topic.subject()),
        Kind::Question => topic.text.clone(),
    }
}

/// "Understand <topic>." (or the question to answer): the objective's first sentence.
fn objective_opening(topic: &Topic) -> String {
    match topic.kind {
        Kind::Question => {
            format!("Answer this question from the point of view of the people concerned: {}", topic.text)
        }
        Kind::Noun if (topic.list || topic.text.split(' ').count() <= 3) && !topic.text.to_lowercase().contains("experience") => {
            format!("Understand people's needs and experiences around {}.", topic.subject())
        }
        _ => format!("Understand {}.", topic.subject()),
    }
}

/// Who to interview: the audience the prompt names (a sentence saying whom to
/// interview, else the people of the topic), else adults.
fn recruiting(topic: &Topic, named: Option<String>) -> String {
    let about = match topic.kind {
        Kind::Question => format!("this question: {}", topic.text),
        _ => topic.subject(),
    };
    let mut candidates = Vec::new();
    if topic.kind != Kind::Question {
        let words = tokens(&topic.text);
        if let Some((start, end)) = find_audience(&words) {
            let mut audience = words[start..end].to_vec();
            if let Some(last) = audience.last_mut() {
                // "customers' experience": the customers.
                let bare = last.trim_end_matches([',', ';', ':', '.']);
                *last = bare.strip_suffix("'s").or_else(|| bare.strip_suffix('\'')).unwrap_or(bare).to_string();
            }
            let audience = audience.join(" ");
            let lower = keys(&words);
            // "how parents of toddlers choose a daycare": parents of toddlers who can speak about how they choose one.
            let opens_clause = (is_in(WH, &lower[0]) || lower[0] == "whether")
                && start >= 1
                && (start == 1 || (lower[0] == "how" && lower[1..start].iter().all(|w| is_in(HOW_MODS, w))));
            let predicate_follows = end < words.len()
                && !words[end - 1].ends_with([',', ';', ':', '\''])
                && !words[end - 1].ends_with("'s")
                && (is_aux(&lower[end]) || is_in(ADVERBS, &lower[end]) || !is_function_word(&lower[end]));
            let about = if topic.kind == Kind::Clause && start > 0 && opens_clause && predicate_follows {
                format!("{} they {}", words[..start].join(" "), words[end..].join(" "))
            } else {
                about.clone()
            };
            candidates.push((audience, about));
        }
    }
    if let Some(audience) = named {
        let same = candidates.first().is_some_and(|(topic_audience, _)| topic_audience.eq_ignore_ascii_case(&audience));
        if !same {
            candidates.insert(0, (audience, about.clone()));
        }
    }
    candidates.push((ANYONE.to_string(), about));
    candidates
        .into_iter()
        .map(|(audience, about)| {
            let audience = capitalize(&cut(&audience, AUDIENCE_CHARS));
            let lower = keys(&tokens(&audience));
            if lower.iter().any(|w| matches!(w.as_str(), "who" | "that" | "which" | "whose")) {
                let speak = format!("They should be able to speak from recent, first-hand experience about {about}");
                end_sentence(&format!("{} {speak}", end_sentence(&audience)))
            } else {
                end_sentence(&format!("{audience} who can speak from recent, first-hand experience about {about}"))
            }
        })
        .find(|text| context::check_field("recruiting_criteria", text).is_valid)
        .unwrap_or_else(|| format!("{ANYONE} with recent, first-hand experience of the topic of this study."))
}

/// "Our customers are busy parents. We want to find out why they abandon the
/// checkout.": why our customers abandon it. The first "they", "them" or "their"
/// of the topic stands for the people an earlier sentence names.
fn resolve_they(topic: &mut Topic, before: &[String]) {
    let mut words = tokens(&topic.text);
    let lower = keys(&words);
    let Some(at) = lower.iter().position(|w| matches!(w.as_str(), "they" | "them" | "their")) else {
        return;
    };
    // "how nurses choose shifts and what they value": the nurses.
    if !matches!(topic.kind, Kind::Clause | Kind::Noun) || find_audience(&words[..at]).is_some() {
        return;
    }
    let people = before.iter().rev().find_map(|sentence| {
        if let Some(audience) = recruiting_audience(sentence) {
            let audience_words = tokens(&audience);
            let audience_lower = keys(&audience_words);
            let end = audience_lower
                .iter()
                .position(|w| matches!(w.as_str(), "who" | "that" | "which" | "whose" | "with"))
                .unwrap_or(audience_words.len());
            let start = audience_lower[..end].iter().take_while(|w| w.chars().all(|c| c.is_ascii_digit())).count();
            return (start < end).then(|| audience_words[start..end].join(" "));
        }
        let sentence_words = tokens(sentence);
        let (start, end) = find_audience(&sentence_words)?;
        let audience = sentence_words[start..end].join(" ");
        let audience = audience.trim_end_matches([',', ';', ':', '.', '!', '?']);
        Some(if start == 0 { lower_first(audience) } else { audience.to_string() })
    });
    let Some(people) = people else {
        return;
    };
    let word = &words[at];
    let tail = &word[word.trim_end_matches(|c: char| !c.is_alphanumeric()).len()..];
    let head = &word[..word.len() - word.trim_start_matches(|c: char| !c.is_alphanumeric()).len()];
    words[at] = match lower[at].as_str() {
        "their" if people.ends_with('s') => format!("{head}{people}'{tail}"),
        "their" => format!("{head}{people}'s{tail}"),
        _ => format!("{head}{people}{tail}"),
    };
    topic.text = words.join(" ");
}

/// The sentence the study is about, of the `candidates` (their places in
/// `analysed`): the first, unless it only sets the scene ("We are a neobank.")
/// and a later one says what to learn.
fn topic_sentence(analysed: &[Topic], candidates: &[usize]) -> Option<usize> {
    match candidates.first() {
        Some(&first) if analysed[first].declarative => candidates
            .iter()
            .copied()
            .find(|&i| analysed[i].lead.stripped || analysed[i].question.is_some() || analysed[i].kind == Kind::Question)
            .or(Some(first)),
        Some(&first) => Some(first),
        None => None,
    }
}

/// The deterministic writer: `(project_name, context)` from a prompt.
pub fn builtin(prompt: &str) -> (String, ContextFields) {
    let text = normalise(prompt);
    let all = sentences(&text);
    let analysed: Vec<Topic> = all.iter().map(|sentence| analyse(sentence)).collect();
    let audiences: Vec<Option<String>> = all.iter().map(|sentence| recruiting_audience(sentence)).collect();
    // A sentence that only says whom to interview is no topic.
    let only_recruiting = |i: usize| audiences[i].is_some() && analysed[i].lead.audience.is_none();
    let candidates: Vec<usize> = (0..all.len()).filter(|&i| !only_recruiting(i) && !analysed[i].empty).collect();
    let chosen = topic_sentence(&analysed, &candidates);
    let named = chosen
        .and_then(|i| analysed[i].lead.audience.clone())
        .or_else(|| audiences.iter().flatten().next().cloned());
    let mut topic = match (chosen, &named) {
        (Some(i), _) => analysed[i].clone(),
        // Only whom to interview ("Interview nurses in rural hospitals."): their needs and experiences.
        (None, Some(audience)) => {
            let mut topic = analyse(&format!("Needs and experiences of {audience}"));
            topic.article = true;
            topic
        }
        (None, None) => analyse(""),
    };
    if let Some(i) = chosen {
        resolve_they(&mut topic, &all[..i]);
    }
    let topic = &topic;

    let mut questions = vec![question_about(topic)];
    let mut context_sentences = Vec::new();
    if let Some(i) = chosen.filter(|&i| analysed[i].lead.dropped_prefix >= 2) {
        context_sentences.push(all[i].clone());
    }
    for (i, sentence) in all.iter().enumerate() {
        if Some(i) == chosen || only_recruiting(i) || analysed[i].empty {
            continue;
        }
        let other = &analysed[i];
        let asks = other.question.is_some() || other.kind == Kind::Question;
        let useful = asks || (other.lead.stripped && other.kind != Kind::Statement);
        let question = question_about(other);
        if useful && questions.len() <= EXTRA_QUESTIONS && !questions.contains(&question) {
            questions.push(question);
        } else if !useful {
            context_sentences.push(sentence.clone());
        }
    }
    questions.push(PROBLEMS_QUESTION.to_string());
    questions.push(IMPROVEMENT_QUESTION.to_string());
    let research_questions =
        questions.iter().enumerate().map(|(n, q)| format!("{}. {q}", n + 1)).collect::<Vec<_>>().join("\n");

    let mut project_objective = format!("{} {REVEAL}", objective_opening(topic));
    if !context_sentences.is_empty() {
        let context = cut(&context_sentences.join(" "), CONTEXT_CHARS);
        project_objective.push_str(&format!(" Context from the brief: \"{}\"", end_sentence(&context)));
    }
    let project_objective = cut(&project_objective, MAX_TEXT);

    let recruiting_criteria = recruiting(topic, named);
    let name = cut(&capitalize(&topic.text), NAME_CHARS.min(MAX_NAME));
    // One space between words, whatever the prompt's punctuation left.
    let tidy = |text: &str| {
        text.lines().map(|line| line.split_whitespace().collect::<Vec<_>>().join(" ")).collect::<Vec<_>>().join("\n")
    };
    (
        tidy(&name),
        ContextFields {
            project_objective: tidy(&project_objective),
            research_questions: tidy(&research_questions),
            success_criteria: SUCCESS_CRITERIA.to_string(),
            recruiting_criteria: tidy(&recruiting_criteria),
        },
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
    let question = llm::Question::json(SYSTEM_PROMPT, prompt);
    let parse = |answer: String| parse_model_answer(&answer);
    if let Some((name, context)) = llm::ask_or_fall_back(llm_config, "generated project", "using the built-in writer", question, parse) {
        return (name, context, Writer::Model);
    }
    let (name, context) = builtin(prompt);
    (name, context, Writer::BuiltIn)
}

#[cfg(test)]
mod tests;
