//! The interviewer (docs/sessions.md, "The interviewer").
//!
//! A conversation follows a [`Plan`] made from the project: the research
//! questions (split from `research_questions`), as many as the interview length
//! allows, and a budget of follow-up probes per question. The built-in
//! interviewer is a pure function of the plan, the conversation so far and the
//! answer, so the same inputs always give the same conversation:
//!
//! opening (greeting, what the conversation is about, the first question) ->
//! for each question: probes on what the interviewee said while the question's
//! budget and the time last ([`super::probes`]), or until an answer is rich
//! (long, with a concrete example, after a first probe), then the next question ->
//! wrap-up ("anything else?") -> closing. An answer that declines ("I don't
//! know") is never probed: the interviewer moves on politely. Nor is one that
//! only thanks, says goodbye or says it is done ("That's all, thanks!",
//! `text::courtesy`): the interviewer moves on, or closes after the last
//! question; a greeting alone to the opening gets the first question again.
//! When the interview's length has passed, the next message is the closing.
//!
//! With a language model, the model chooses between a probe and the next
//! question whenever the plan allows a probe, and words each message; a
//! failed, empty, malformed or slow answer keeps the built-in step and wording
//! for that turn. Summaries work the same way.

use super::probes::{self, ProbeContext};
use super::strings::{fill, InterviewerStrings};
use super::summary;
use super::{Speaker, Turn, TurnKind, TurnSource};
use platform::llm::{self, LlmConfig, Question};
use projects_core::Language;
pub use projects_core::plan::{max_questions, probe_budget, probing_allowed, split_questions, Plan};
use projects_core::plan::{collapse, MINUTES_PER_EXCHANGE};
use text::cut::cut_with_ellipsis;
use text::sentences;
use text::reading::reading_language;
use text_enum::text_enum;

/// How much of the objective the opening quotes.
const OBJECTIVE_CHARS: usize = 200;
const MAX_MODEL_MESSAGE_CHARS: usize = 1_500;
const MAX_SUMMARY_CHARS: usize = 4_000;

/// The interviewer's next message, before it is stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Message {
    pub kind: TurnKind,
    pub question_index: Option<usize>,
    pub text: String,
    pub source: TurnSource,
}

/// The subject of an English objective written as "Understand how ...": the
/// words after the leading verb, for "I would like to learn about <topic>".
pub fn topic(objective: &str) -> Option<String> {
    const LEADS: [&str; 24] = [
        "we want to understand ", "we want to learn about ", "we want to learn ", "we want to find out ",
        "we want to explore ", "to understand ", "understand ", "to learn about ", "learn about ", "learn ",
        "to explore ", "explore ", "find out ", "discover ", "investigate ", "identify ", "assess ", "evaluate ",
        "gain insights into ", "gain insight into ", "get insights into ", "uncover ", "understanding ", "exploring ",
    ];
    let sentence = first_sentence(objective);
    let lower = sentence.to_lowercase();
    let lead = LEADS.iter().find(|lead| lower.starts_with(*lead))?;
    let rest = sentence[lead.len()..].trim().trim_end_matches(|c: char| c.is_ascii_punctuation()).trim();
    (rest.chars().count() >= 3).then(|| cut_with_ellipsis(rest, OBJECTIVE_CHARS))
}

/// The first sentence of `text`, white space collapsed, as the product reads
/// sentences everywhere (`text::sentences`: "e.g. this" goes on; it cut there before).
fn first_sentence(text: &str) -> String {
    let text = collapse(text);
    match sentences::sentences(&text).first() {
        Some(&(start, end)) => text[start..end].to_string(),
        None => text,
    }
}

fn builtin(kind: TurnKind, question_index: Option<usize>, text: String) -> Message {
    Message { kind, question_index, text, source: TurnSource::BuiltIn }
}

/// Greeting, what the conversation is about in plain words, and "no right or wrong answers".
pub fn introduction(plan: &Plan, strings: &InterviewerStrings) -> String {
    let about = match (plan.language.as_str(), topic(&plan.objective)) {
        ("en", Some(topic)) => fill(&strings.topic_intro, "topic", &topic),
        _ => fill(&strings.objective_intro, "objective", &cut_with_ellipsis(&first_sentence(&plan.objective), OBJECTIVE_CHARS)),
    };
    format!("{} {} {}", strings.greeting, about, strings.no_wrong_answers)
}

/// The built-in opening: the introduction, then the first question.
pub fn opening(plan: &Plan, strings: &InterviewerStrings) -> Message {
    let first = fill(&strings.first_question, "question", &plan.questions[0]);
    builtin(TurnKind::Opening, Some(0), format!("{} {first}", introduction(plan, strings)))
}

fn closing(strings: &InterviewerStrings, time_up: bool) -> Message {
    let text = if time_up { format!("{} {}", strings.time_up, strings.closing) } else { strings.closing.clone() };
    builtin(TurnKind::Closing, None, text)
}

/// What may follow an answer, as the plan allows.
#[derive(Debug, Clone, PartialEq)]
struct NextSteps {
    /// The question the answer is to, when a probe on it may follow: probing
    /// allowed, budget and time left, and an answer that does not decline.
    probe_offered: Option<Offer>,
    /// The built-in probe, when one is offered and there is something to ask.
    builtin_probe: Option<Message>,
    /// The step otherwise: the next question, the wrap-up or the closing.
    move_on: Message,
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Offer {
    question_index: usize,
    probes_left: usize,
}

/// The interviewer's latest message and the interviewee's answer to it: the
/// last two turns of `conversation`, which ends with the answer.
fn exchange(conversation: &[Turn]) -> Option<(&Turn, &str)> {
    let (answer, before) = conversation.split_last()?;
    let last = before.iter().rev().find(|t| t.speaker == Speaker::Interviewer)?;
    (answer.speaker == Speaker::Interviewee).then_some((last, answer.text.as_str()))
}

fn next_steps(plan: &Plan, strings: &InterviewerStrings, conversation: &[Turn], elapsed_minutes: f64) -> NextSteps {
    let only = |move_on| NextSteps { probe_offered: None, builtin_probe: None, move_on };
    let Some((last, answer)) = exchange(conversation) else { return only(closing(strings, false)) };
    if !matches!(last.kind, TurnKind::Opening | TurnKind::Question | TurnKind::Probe) {
        return only(closing(strings, false));
    }
    if elapsed_minutes >= plan.length_minutes as f64 {
        return only(closing(strings, true));
    }
    let asked = last.question_index.unwrap_or(0);
    // The answer is read in its own words' language where its alphabet is not the interview's
    // (an English answer in an Arabic interview); the interviewer still speaks the interview's.
    let read_in = reading_language(answer, plan.language);
    // A greeting or thanks alone to the opening has not answered the first question yet: it is asked again.
    if last.kind == TurnKind::Opening && sentences::only_courtesies(answer, read_in) {
        return only(builtin(TurnKind::Question, Some(asked), fill(&strings.next_question, "question", &plan.questions[asked])));
    }
    let declined = text::noise::declines(answer, read_in);
    // "Thanks!", "Bye!", "That's all", "Great questions!": nothing to follow up.
    let courteous = sentences::only_courtesies(answer, read_in);
    let closed = courteous && sentences::closes(answer, read_in);
    let acknowledged = |next: &str| {
        if declined {
            fill(&strings.after_refusal, "question", next)
        } else {
            fill(&strings.next_question, "question", next)
        }
    };
    let move_on = match plan.questions.get(asked + 1) {
        Some(question) => builtin(TurnKind::Question, Some(asked + 1), acknowledged(question)),
        // After the last question, "that's all, thanks" has answered the wrap-up already.
        None if closed => closing(strings, false),
        None if declined => builtin(TurnKind::WrapUp, None, acknowledged(&strings.wrap_up)),
        None => builtin(TurnKind::WrapUp, None, strings.wrap_up.clone()),
    };
    let interviewer_turns = || conversation.iter().filter(|t| t.speaker == Speaker::Interviewer);
    let is_probe = |t: &&Turn| t.kind == TurnKind::Probe;
    let probed = interviewer_turns().filter(is_probe).filter(|t| t.question_index == Some(asked)).count();
    let probes_left = plan.probes_per_question.saturating_sub(probed);
    // This probe, the questions after this one and the wrap-up must still fit.
    let exchanges_needed = 1 + plan.questions.len().saturating_sub(asked + 1) + 1;
    let probe_fits = plan.length_minutes as f64 - elapsed_minutes >= exchanges_needed as f64 * MINUTES_PER_EXCHANGE;
    if declined || courteous || probes_left == 0 || !probe_fits {
        return only(move_on);
    }
    let context = ProbeContext {
        language: read_in,
        strings,
        question: plan.questions.get(asked).map_or("", String::as_str),
        said: interviewer_turns().map(|t| t.text.as_str()).collect(),
        earlier_probes: interviewer_turns().filter(is_probe).map(|t| t.text.as_str()).collect(),
    };
    let probe_offered = Some(Offer { question_index: asked, probes_left });
    // A rich answer (long, with a concrete example) to a question probed already moves on, naming what it said.
    if probed > 0 && probes::cues::is_rich(answer, read_in) {
        let next = plan.questions.get(asked + 1).unwrap_or(&strings.wrap_up);
        let named = probes::after_example(answer, next, &context).map(|text| Message { text, ..move_on.clone() });
        return NextSteps { probe_offered, builtin_probe: None, move_on: named.unwrap_or(move_on) };
    }
    let builtin_probe = probes::builtin_probe(answer, &context).map(|text| builtin(TurnKind::Probe, Some(asked), text));
    NextSteps { probe_offered, builtin_probe, move_on }
}

/// The built-in interviewer's next message: `conversation` is every turn so
/// far, ending with the interviewee's answer, `elapsed_minutes` into the interview.
pub fn next(plan: &Plan, strings: &InterviewerStrings, conversation: &[Turn], elapsed_minutes: f64) -> Message {
    let steps = next_steps(plan, strings, conversation, elapsed_minutes);
    steps.builtin_probe.unwrap_or(steps.move_on)
}

/// The interviewer's next message, as [`next`], with the model when one is
/// configured: it chooses between a probe and moving on whenever the plan
/// offers a probe, and words the step otherwise. The built-in step and wording
/// stand in for any answer of the model that is unusable.
pub fn reply(
    plan: &Plan,
    strings: &InterviewerStrings,
    conversation: &[Turn],
    elapsed_minutes: f64,
    llm_config: &LlmConfig,
) -> Message {
    let steps = next_steps(plan, strings, conversation, elapsed_minutes);
    if !llm_config.enabled() {
        return steps.builtin_probe.unwrap_or(steps.move_on);
    }
    // Through Spin the model is whatever the operator runs, often a small one
    // that keeps "write the message" but not a choice and a message in one JSON
    // object: the plan decides between its probe and moving on, the model words it.
    if !llm_config.keeps_json() {
        return word_with_model(plan, conversation, steps.builtin_probe.unwrap_or(steps.move_on), llm_config);
    }
    match steps.probe_offered {
        Some(offer) => choose_with_model(plan, conversation, offer, &steps.move_on, llm_config)
            .unwrap_or_else(|| steps.builtin_probe.unwrap_or(steps.move_on)),
        None => word_with_model(plan, conversation, steps.move_on, llm_config),
    }
}

/// The research question an answer to `last` belongs to (none for the wrap-up).
pub fn answered_question(last: &Turn) -> Option<usize> {
    match last.kind {
        TurnKind::Opening | TurnKind::Question | TurnKind::Probe => last.question_index,
        _ => None,
    }
}

// ---------------------------------------------------------------------------
// The language model

/// The language's English name, as the model is told to speak it.
fn language_name(language: Language) -> &'static str {
    match language {
        Language::En => "English",
        Language::Fr => "French",
        Language::De => "German",
        Language::Es => "Spanish",
        Language::It => "Italian",
        Language::Ar => "Arabic",
        Language::Ru => "Russian",
        Language::Ja => "Japanese",
        Language::He => "Hebrew",
        Language::El => "Greek",
        Language::Uk => "Ukrainian",
    }
}

fn context(plan: &Plan) -> String {
    let questions: Vec<String> = plan.questions.iter().enumerate().map(|(i, q)| format!("{}. {q}", i + 1)).collect();
    format!(
        "Research objective: {}\nResearch questions:\n{}\nGuidelines for the interviewer: {}\nInterview length: {} minutes.",
        plan.objective,
        questions.join("\n"),
        plan.guidelines.as_deref().unwrap_or("none"),
        plan.length_minutes
    )
}

fn transcript(turns: &[Turn]) -> String {
    turns
        .iter()
        .map(|t| match t.speaker {
            Speaker::Interviewer => format!("Interviewer: {}", t.text),
            Speaker::Interviewee => format!("Interviewee: {}", t.text),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn instruction(plan: &Plan, step: &Message) -> String {
    let question = |i: Option<usize>| i.and_then(|i| plan.questions.get(i)).cloned().unwrap_or_default();
    match step.kind {
        TurnKind::Opening => format!(
            "Greet the participant, say in one sentence what the conversation is about, and ask this first question in your own words: {}",
            question(step.question_index)
        ),
        TurnKind::Question => format!(
            "Acknowledge the last answer briefly and neutrally, then ask this research question in your own words: {}",
            question(step.question_index)
        ),
        TurnKind::Probe => PROBE_INSTRUCTION.into(),
        TurnKind::FollowUp => "Ask one open, non-leading follow-up question about the participant's last answer.".into(),
        TurnKind::WrapUp => "Ask whether there is anything else the participant would like to add.".into(),
        _ => "Close the interview: thank the participant warmly. Do not ask any question.".into(),
    }
}

/// What a probe is, for the model: the interviewer's craft the built-in probes follow too.
const PROBE_INSTRUCTION: &str = "Ask one open, non-leading follow-up question about what the participant actually \
    said: echo their own words and ask for a specific instance, a reason, a consequence or a contrast.";

fn persona(plan: &Plan) -> String {
    format!(
        "You are a warm, neutral user-research interviewer. Write the interviewer's next message in {}: at most three \
         short sentences, one question at a time, never leading, never answering for the participant.",
        language_name(plan.language)
    )
}

/// Whether the interviewer already sent `text` in this conversation (a message
/// is never sent twice: a model that repeats itself is an unusable answer).
fn said_before(conversation: &[Turn], text: &str) -> bool {
    conversation.iter().any(|t| t.speaker == Speaker::Interviewer && t.text == text)
}

/// The message the model writes for `step`, the step the plan chose; the
/// built-in wording when no model is configured or its answer is unusable.
/// Through Spin the model writes the message alone ([`message_answer`]);
/// through an OpenAI-compatible API, one JSON object with the message.
pub fn word_with_model(plan: &Plan, turns: &[Turn], step: Message, llm_config: &LlmConfig) -> Message {
    if !llm_config.enabled() {
        return step;
    }
    let plain = !llm_config.keeps_json();
    let system = if plain {
        format!("{} {MESSAGE_ONLY}", persona(plan))
    } else {
        format!("{} Answer with one JSON object with exactly one string key, \"message\".", persona(plan))
    };
    let last_answer = match (step.kind, exchange(turns)) {
        (TurnKind::Probe, Some((_, answer))) => format!("\n\nThe participant's last answer: {answer}"),
        _ => String::new(),
    };
    let user = format!(
        "{}\n\nTranscript so far:\n{}{last_answer}\n\nYour next step: {}",
        context(plan),
        transcript(turns),
        instruction(plan, &step)
    );
    let question = match plain {
        true => Question::text(&system, &user, MESSAGE_MAX_TOKENS),
        false => Question::json(&system, &user),
    };
    let message = |text: String| {
        let message = match plain {
            true => message_answer(&text)?,
            false => {
                let map = llm::parse_json_answer(&text)?;
                llm::exact_string_fields(&map, &["message"], |_| MAX_MODEL_MESSAGE_CHARS)?.remove(0)
            }
        };
        match said_before(turns, &message) {
            true => Err(llm::LlmError::BadAnswer("a message already sent".into())),
            false => Ok(message),
        }
    };
    match llm::ask_or_fall_back(llm_config, "interviewer", "using the built-in wording for this turn", question, message) {
        Some(text) => Message { text, source: TurnSource::Model, ..step },
        None => step,
    }
}

/// Tokens a message may take through Spin: three short sentences are about 60;
/// 1,500 characters, the most a message may be, about 375.
const MESSAGE_MAX_TOKENS: u32 = 400;
/// Tokens a summary may take through Spin (4,000 characters are about 1,000).
const SUMMARY_MAX_TOKENS: u32 = 1024;

/// What the model is told when it writes a message alone.
const MESSAGE_ONLY: &str = "Write only the message itself, as the interviewer sends it: no label, no quotation \
    marks, no JSON, no notes, nothing before or after it.";

/// The message in a model's plain-text answer: a label it put first
/// (`Interviewer:`) and quotation marks around it are left out, a turn it went
/// on to write for the participant (`Interviewee: ...`) is cut off, and an
/// answer in JSON after all gives its `message`. Empty, or longer than a
/// message may be: unusable.
pub fn message_answer(text: &str) -> Result<String, llm::LlmError> {
    let text = text.trim();
    if text.starts_with('{') {
        if let Ok(map) = llm::parse_json_answer(text) {
            if let Some(message) = map.get("message").and_then(serde_json::Value::as_str) {
                return message_answer(message);
            }
        }
    }
    let text = match text.find("\nInterviewee:") {
        Some(at) => &text[..at],
        None => text,
    };
    let mut text = text.trim();
    for label in ["Interviewer:", "Message:", "Assistant:"] {
        if text.len() >= label.len() && text[..label.len()].eq_ignore_ascii_case(label) {
            text = text[label.len()..].trim();
        }
    }
    for (open, close) in [('"', '"'), ('“', '”'), ('«', '»')] {
        if let Some(inner) = text.strip_prefix(open).and_then(|t| t.strip_suffix(close)) {
            if !inner.contains(open) && !inner.contains(close) {
                text = inner.trim();
            }
        }
    }
    if text.is_empty() || text.starts_with("Interviewee:") {
        return Err(llm::LlmError::BadAnswer("no message".into()));
    }
    if text.chars().count() > MAX_MODEL_MESSAGE_CHARS {
        return Err(llm::LlmError::BadAnswer(format!("a message over {MAX_MODEL_MESSAGE_CHARS} characters")));
    }
    Ok(text.to_string())
}

text_enum! {
    /// What the model chose when the plan offered it a probe.
    pub enum ModelStep { Probe = "probe", MoveOn = "move_on" }
}

/// The model's choice between a probe on the last answer and `move_on`, with
/// the message for it; `None` when its answer is unusable.
fn choose_with_model(plan: &Plan, conversation: &[Turn], offer: Offer, move_on: &Message, llm_config: &LlmConfig) -> Option<Message> {
    let system = format!(
        "{} Answer with one JSON object with exactly two string keys: \"step\", either \"probe\" or \"move_on\", and \
         \"message\".",
        persona(plan)
    );
    let last_answer = exchange(conversation).map_or("", |(_, answer)| answer);
    let user = format!(
        "{}\n\nTranscript so far:\n{}\n\nThe participant's last answer: {last_answer}\n\nYour next step: choose one.\n\
         - \"probe\", when the last answer opens something worth exploring: {PROBE_INSTRUCTION} You may ask {} more \
         follow-up question(s) on this research question.\n\
         - \"move_on\", when it does not: {}",
        context(plan),
        transcript(conversation),
        offer.probes_left,
        instruction(plan, move_on)
    );
    let choice = |text: String| {
        let map = llm::parse_json_answer(&text)?;
        let mut fields = llm::exact_string_fields(&map, &["step", "message"], |_| MAX_MODEL_MESSAGE_CHARS)?;
        let (step, message) = (fields.remove(0), fields.remove(0));
        let step = ModelStep::parse(&step)
            .ok_or_else(|| llm::LlmError::BadAnswer(format!("step {step:?} is neither \"probe\" nor \"move_on\"")))?;
        if said_before(conversation, &message) {
            return Err(llm::LlmError::BadAnswer("a message already sent".into()));
        }
        Ok((step, message))
    };
    let instead = "using the built-in step and wording for this turn";
    match llm::ask_or_fall_back(llm_config, "interviewer", instead, Question::json(&system, &user), choice)? {
        (ModelStep::Probe, text) => Some(Message {
            kind: TurnKind::Probe,
            question_index: Some(offer.question_index),
            text,
            source: TurnSource::Model,
        }),
        (ModelStep::MoveOn, text) => Some(Message { text, source: TurnSource::Model, ..move_on.clone() }),
    }
}

// ---------------------------------------------------------------------------
// Summaries

/// The built-in summary (`summary::extractive`): per research question, the
/// sentences of the interviewee's answers to it and to its follow-ups that
/// carry most of what they said, then of their closing remarks. Extractive,
/// in the interviewee's own words.
pub fn builtin_summary(plan: &Plan, turns: &[Turn]) -> String {
    let mut sections: Vec<summary::Section> =
        plan.questions.iter().map(|question| summary::Section { heading: question, answers: Vec::new() }).collect();
    let mut remarks = summary::Section { heading: "Additional remarks", answers: Vec::new() };
    for turn in turns.iter().filter(|t| t.speaker == Speaker::Interviewee) {
        match turn.question_index.and_then(|i| sections.get_mut(i)) {
            Some(section) => section.answers.push(&turn.text),
            None if turn.question_index.is_none() => remarks.answers.push(&turn.text),
            None => {}
        }
    }
    sections.push(remarks);
    summary::extractive(&sections, plan.language)
}

/// The model's summary when it is configured and answers usably; `builtin` otherwise.
/// Through Spin the model writes the summary alone; through an OpenAI-compatible
/// API, one JSON object with it.
pub fn summary(plan: &Plan, turns: &[Turn], llm_config: &LlmConfig, builtin: impl FnOnce() -> String) -> String {
    if !turns.iter().any(|t| t.speaker == Speaker::Interviewee) {
        return builtin();
    }
    const TASK: &str = "You summarise user-research interviews for the researcher. Write a factual summary in \
                        English, one short paragraph per research question, using only what the interviewee said.";
    let user = format!("{}\n\nTranscript:\n{}", context(plan), transcript(turns));
    let plain = !llm_config.keeps_json();
    let system = match plain {
        true => format!("{TASK} Write only the summary: no title, no notes before or after it."),
        false => format!("{TASK} Answer with one JSON object with exactly one string key, \"summary\"."),
    };
    let question = match plain {
        true => Question::text(&system, &user, SUMMARY_MAX_TOKENS),
        false => Question::json(&system, &user),
    };
    let summary = |text: String| match plain {
        true if text.chars().count() > MAX_SUMMARY_CHARS => {
            Err(llm::LlmError::BadAnswer(format!("a summary of {} characters", text.chars().count())))
        }
        true => Ok(text),
        false => {
            let map = llm::parse_json_answer(&text)?;
            llm::exact_string_fields(&map, &["summary"], |_| MAX_SUMMARY_CHARS).map(|mut fields| fields.remove(0))
        }
    };
    llm::ask_or_fall_back(llm_config, "summary", "using the built-in summary", question, summary).unwrap_or_else(builtin)
}

#[cfg(test)]
#[path = "interviewer_tests.rs"]
mod tests;
