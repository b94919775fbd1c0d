//! The interviewer (docs/sessions.md, "The interviewer").
//!
//! A conversation follows a [`Plan`] made from the project: the research
//! questions (split from `research_questions`), as many as the interview length
//! allows. The built-in interviewer is a pure function of the plan, the last
//! interviewer turn and the answer to it, so the same inputs always give the
//! same conversation:
//!
//! opening (greeting, what the conversation is about, the first question) ->
//! for each question: a probe once when the answer is thin, then the next
//! question -> wrap-up ("anything else?") -> closing. When the interview's
//! length has passed, the next message is the closing.
//!
//! With a language model, the model words each message for the step the plan
//! chose; a failed, empty, malformed or slow answer keeps the built-in wording
//! for that turn. Summaries work the same way.

use super::strings::{fill, InterviewerStrings};
use super::{Speaker, Turn, TurnKind, TurnSource};
use crate::llm::{self, LlmConfig};
use crate::projects::{Language, ProjectFields};

/// Minutes of interview per research question (10 minutes: 4 questions).
const MINUTES_PER_QUESTION: f64 = 2.5;
/// An answer with fewer words and characters than these gets one probe.
const THIN_WORDS: usize = 6;
const THIN_CHARS: usize = 40;
/// How much of the objective the opening quotes.
const OBJECTIVE_CHARS: usize = 200;
const MAX_MODEL_MESSAGE_CHARS: usize = 1_500;
const MAX_SUMMARY_CHARS: usize = 4_000;
const EXCERPT_CHARS: usize = 400;

/// What the interviewer works from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub objective: String,
    /// The research questions to ask, in order, at most the length allows.
    pub questions: Vec<String>,
    /// Whether thin answers get a probe (guidelines may forbid it).
    pub probing: bool,
    pub length_minutes: i64,
    pub guidelines: Option<String>,
    pub language: Language,
}

impl Plan {
    pub fn for_project(fields: &ProjectFields, language: Language) -> Plan {
        let mut questions = match &fields.survey_blocks {
            // A survey asks its blocks, whatever the length (question_index is the block's).
            Some(blocks) => blocks.iter().map(|b| b.prompt.clone()).collect(),
            None => split_questions(&fields.research_questions),
        };
        if fields.survey_blocks.is_none() {
            questions.truncate(max_questions(fields.interview_length));
        }
        Plan {
            objective: fields.project_objective.clone(),
            questions,
            probing: probing_allowed(fields.specific_guidelines.as_deref()),
            length_minutes: fields.interview_length,
            guidelines: fields.specific_guidelines.clone(),
            language,
        }
    }
}

/// The interviewer's next message, before it is stored.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Message {
    pub kind: TurnKind,
    pub question_index: Option<usize>,
    pub text: String,
    pub source: TurnSource,
}

/// How many research questions fit the interview length.
pub fn max_questions(length_minutes: i64) -> usize {
    ((length_minutes.max(0) as f64 / MINUTES_PER_QUESTION).floor() as usize).max(1)
}

/// Splits the research questions: one per line or list item (`1.`, `2)`, `-`,
/// `*`, `•`), and a line with several questions at each `?`. Never empty.
pub fn split_questions(text: &str) -> Vec<String> {
    let mut questions = Vec::new();
    for line in text.lines() {
        let item = strip_list_marker(line.trim());
        let mut rest = item;
        while let Some(end) = rest.find('?') {
            let (question, after) = rest.split_at(end + 1);
            push_question(&mut questions, question);
            rest = after;
        }
        push_question(&mut questions, rest);
    }
    if questions.is_empty() {
        questions.push(collapse(text));
    }
    questions
}

fn push_question(questions: &mut Vec<String>, text: &str) {
    let text = collapse(strip_list_marker(text.trim()));
    if text.chars().filter(|c| c.is_alphanumeric()).count() >= 3 {
        questions.push(text);
    }
}

fn strip_list_marker(line: &str) -> &str {
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    let after_digits = &line[digits..];
    let stripped = if digits > 0 {
        after_digits.strip_prefix(['.', ')', ':'])
    } else {
        line.strip_prefix(['-', '*', '•', '–'])
    };
    match stripped {
        Some(rest) if rest.starts_with(char::is_whitespace) || rest.is_empty() => rest.trim_start(),
        _ => line,
    }
}

fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Guidelines that say not to probe or follow up switch probing off.
pub fn probing_allowed(guidelines: Option<&str>) -> bool {
    let Some(guidelines) = guidelines else { return true };
    let lower = guidelines.to_lowercase();
    let forbidding = ["do not probe", "don't probe", "no probing", "never probe", "no follow-up", "no follow up",
        "do not follow up", "don't follow up", "no follow-up questions", "without follow-up"];
    !forbidding.iter().any(|phrase| lower.contains(phrase))
}

/// Whether an answer is too short to stand alone.
pub fn is_thin(answer: &str) -> bool {
    answer.split_whitespace().count() < THIN_WORDS && answer.trim().chars().count() < THIN_CHARS
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
    (rest.chars().count() >= 3).then(|| cut(rest, OBJECTIVE_CHARS))
}

fn first_sentence(text: &str) -> String {
    let text = collapse(text);
    let end = text.char_indices().find(|(i, c)| {
        matches!(c, '.' | '!' | '?') && text[i + c.len_utf8()..].starts_with(' ')
    });
    match end {
        Some((i, c)) => text[..i + c.len_utf8()].to_string(),
        None => text,
    }
}

/// At most `max` characters, cut at a word boundary with an ellipsis.
fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let prefix: String = text.chars().take(max).collect();
    let cut_at = prefix.rfind(' ').filter(|space| *space > max / 2).unwrap_or(prefix.len());
    format!("{}…", prefix[..cut_at].trim_end_matches(|c: char| c.is_whitespace() || c == ','))
}

fn builtin(kind: TurnKind, question_index: Option<usize>, text: String) -> Message {
    Message { kind, question_index, text, source: TurnSource::BuiltIn }
}

/// Greeting, what the conversation is about in plain words, and "no right or wrong answers".
pub fn introduction(plan: &Plan, strings: &InterviewerStrings) -> String {
    let about = match (plan.language.as_str(), topic(&plan.objective)) {
        ("en", Some(topic)) => fill(&strings.topic_intro, "topic", &topic),
        _ => fill(&strings.objective_intro, "objective", &cut(&first_sentence(&plan.objective), OBJECTIVE_CHARS)),
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

/// The built-in interviewer's message after `answer` to `last`, the interviewer's
/// latest turn, `elapsed_minutes` into the interview.
pub fn next(plan: &Plan, strings: &InterviewerStrings, last: &Turn, answer: &str, elapsed_minutes: f64) -> Message {
    if elapsed_minutes >= plan.length_minutes as f64 && last.kind != TurnKind::WrapUp {
        return closing(strings, true);
    }
    match last.kind {
        TurnKind::Opening | TurnKind::Question | TurnKind::Probe => {
            let asked = last.question_index.unwrap_or(0);
            if last.kind != TurnKind::Probe && plan.probing && is_thin(answer) {
                let probe = &strings.probes[asked % strings.probes.len().max(1)];
                return builtin(TurnKind::Probe, Some(asked), probe.clone());
            }
            match plan.questions.get(asked + 1) {
                Some(question) => {
                    builtin(TurnKind::Question, Some(asked + 1), fill(&strings.next_question, "question", question))
                }
                None => builtin(TurnKind::WrapUp, None, strings.wrap_up.clone()),
            }
        }
        _ => closing(strings, false),
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
        TurnKind::Probe => "The last answer was short. Ask one open, non-leading follow-up question about it.".into(),
        TurnKind::FollowUp => "Ask one open, non-leading follow-up question about the participant's last answer.".into(),
        TurnKind::WrapUp => "Ask whether there is anything else the participant would like to add.".into(),
        _ => "Close the interview: thank the participant warmly. Do not ask any question.".into(),
    }
}

/// The message the model writes for `step`, the step the plan chose; the
/// built-in wording when no model is configured or its answer is unusable.
pub fn word_with_model(plan: &Plan, turns: &[Turn], step: Message, llm_config: &LlmConfig) -> Message {
    if !llm_config.enabled() {
        return step;
    }
    let system = format!(
        "You are a warm, neutral user-research interviewer. Write the interviewer's next message in {}: at most three \
         short sentences, one question at a time, never leading, never answering for the participant. Answer with one \
         JSON object with exactly one string key, \"message\".",
        language_name(plan.language)
    );
    let user = format!(
        "{}\n\nTranscript so far:\n{}\n\nYour next step: {}",
        context(plan),
        transcript(turns),
        instruction(plan, &step)
    );
    let answer = llm::complete(llm_config, &system, &user).and_then(|text| {
        let map = llm::parse_json_answer(&text)?;
        llm::exact_string_fields(&map, &["message"], |_| MAX_MODEL_MESSAGE_CHARS)
    });
    match answer {
        Ok(mut fields) => Message { text: fields.remove(0), source: TurnSource::Model, ..step },
        Err(error) => {
            eprintln!("interviewer: {error}; using the built-in wording for this turn");
            step
        }
    }
}

// ---------------------------------------------------------------------------
// Summaries

/// The built-in summary: per research question, what the interviewee said to it
/// (the first 400 characters), then their closing remarks. Extractive, in the
/// interviewee's own words.
pub fn builtin_summary(plan: &Plan, turns: &[Turn]) -> String {
    let mut answers: Vec<Vec<&str>> = vec![Vec::new(); plan.questions.len()];
    let mut asked = vec![false; plan.questions.len()];
    let mut remarks = Vec::new();
    for turn in turns {
        match (turn.speaker, turn.question_index) {
            (Speaker::Interviewer, Some(i)) if i < asked.len() => asked[i] = true,
            (Speaker::Interviewee, Some(i)) if i < answers.len() => answers[i].push(&turn.text),
            (Speaker::Interviewee, None) => remarks.push(turn.text.as_str()),
            _ => {}
        }
    }
    let mut lines = Vec::new();
    for (index, question) in plan.questions.iter().enumerate() {
        lines.push(format!("{}. {question}", index + 1));
        let said = collapse(&answers[index].join(" "));
        lines.push(match (asked[index], said.is_empty()) {
            (false, _) => "   (not asked)".to_string(),
            (true, true) => "   (no answer)".to_string(),
            (true, false) => format!("   {}", cut(&said, EXCERPT_CHARS)),
        });
    }
    let remarks = collapse(&remarks.join(" "));
    if !remarks.is_empty() {
        lines.push(format!("Additional remarks: {}", cut(&remarks, EXCERPT_CHARS)));
    }
    lines.join("\n")
}

/// The model's summary when it is configured and answers usably; `builtin` otherwise.
pub fn summary(plan: &Plan, turns: &[Turn], llm_config: &LlmConfig, builtin: impl FnOnce() -> String) -> String {
    if llm_config.enabled() && turns.iter().any(|t| t.speaker == Speaker::Interviewee) {
        let system = "You summarise user-research interviews for the researcher. Write a factual summary in English, \
                      one short paragraph per research question, using only what the interviewee said. Answer with one \
                      JSON object with exactly one string key, \"summary\".";
        let user = format!("{}\n\nTranscript:\n{}", context(plan), transcript(turns));
        let answer = llm::complete(llm_config, system, &user).and_then(|text| {
            let map = llm::parse_json_answer(&text)?;
            llm::exact_string_fields(&map, &["summary"], |_| MAX_SUMMARY_CHARS)
        });
        match answer {
            Ok(mut fields) => return fields.remove(0),
            Err(error) => eprintln!("summary: {error}; using the built-in summary"),
        }
    }
    builtin()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::strings;

    fn plan(questions: &str) -> Plan {
        Plan {
            objective: "Understand how parents of toddlers choose a daycare.".into(),
            questions: split_questions(questions),
            probing: true,
            length_minutes: 10,
            guidelines: None,
            language: Language::En,
        }
    }

    fn turn(seq: i64, kind: TurnKind, question_index: Option<usize>, text: &str) -> Turn {
        let speaker = if kind == TurnKind::Answer { Speaker::Interviewee } else { Speaker::Interviewer };
        Turn { seq, speaker, kind, question_index, source: TurnSource::BuiltIn, text: text.into(), created_at: String::new() }
    }

    const LONG: &str = "We visited three places and picked the one closest to work because of the commute.";

    #[test]
    fn questions_are_split_by_line_marker_and_question_mark() {
        assert_eq!(
            split_questions("1. How do you choose?\n2) What matters most?\n- Who decides?"),
            vec!["How do you choose?", "What matters most?", "Who decides?"]
        );
        assert_eq!(split_questions("How do you choose? What matters most?"), vec!["How do you choose?", "What matters most?"]);
        assert_eq!(split_questions("Describe your last search for a daycare"), vec!["Describe your last search for a daycare"]);
        assert_eq!(split_questions("  \n?? \n"), vec!["??"]);
        assert_eq!(split_questions("2024 budget: how was it spent?"), vec!["2024 budget: how was it spent?"]);
    }

    #[test]
    fn the_length_caps_the_questions() {
        assert_eq!((max_questions(10), max_questions(15), max_questions(20)), (4, 6, 8));
        let fields: ProjectFields = serde_json::from_value(serde_json::json!({
            "project_name": "n", "project_objective": "o", "research_questions": "One? Two? Three? Four? Five? Six?", "success_criteria": "s",
            "recruiting_criteria": "r", "interview_modes": ["typing"], "camera_access": "not_allowed",
            "interview_languages": ["en"], "interview_length": 10
        }))
        .unwrap();
        assert_eq!(Plan::for_project(&fields, Language::En).questions.len(), 4);
    }

    #[test]
    fn the_opening_says_what_it_is_about_in_plain_words() {
        let en = strings::for_language("en").interviewer;
        let opening = opening(&plan("How do you choose?"), &en);
        assert_eq!(opening.kind, TurnKind::Opening);
        assert_eq!(
            opening.text,
            "Hello, and thank you for taking the time to talk with me. I would like to learn about how parents of \
             toddlers choose a daycare. There are no right or wrong answers: I am interested in your own experience \
             and opinions. Let's begin. How do you choose?"
        );
        let mut french = plan("Comment choisissez-vous ?");
        french.language = Language::Fr;
        let text = super::opening(&french, &strings::for_language("fr").interviewer).text;
        assert!(text.contains("Understand how parents of toddlers choose a daycare."), "{text}");
        assert_eq!(topic("Our goal is retention."), None);
        assert_eq!(topic("Identify the main pain points in checkout!"), Some("the main pain points in checkout".into()));
    }

    #[test]
    fn the_conversation_probes_thin_answers_once_then_moves_on() {
        let en = strings::for_language("en").interviewer;
        let plan = plan("How do you choose?\nWhat matters most?");
        let open = turn(0, TurnKind::Opening, Some(0), "…");
        let probe = next(&plan, &en, &open, "Price.", 1.0);
        assert_eq!((probe.kind, probe.question_index, probe.text.as_str()), (TurnKind::Probe, Some(0), "Could you tell me a bit more about that?"));
        let probe_turn = turn(2, TurnKind::Probe, Some(0), &probe.text);
        let second = next(&plan, &en, &probe_turn, "Still price.", 2.0);
        assert_eq!((second.kind, second.question_index), (TurnKind::Question, Some(1)));
        assert_eq!(second.text, "Thank you. What matters most?");
        let second_turn = turn(4, TurnKind::Question, Some(1), &second.text);
        let wrap_up = next(&plan, &en, &second_turn, LONG, 3.0);
        assert_eq!(wrap_up.kind, TurnKind::WrapUp);
        let closing = next(&plan, &en, &turn(6, TurnKind::WrapUp, None, &wrap_up.text), "No.", 4.0);
        assert_eq!(closing.kind, TurnKind::Closing);
        assert_eq!(closing.text, en.closing);
    }

    #[test]
    fn time_up_closes_and_guidelines_can_forbid_probes() {
        let en = strings::for_language("en").interviewer;
        let mut plan = plan("First question?\nSecond question?");
        let open = turn(0, TurnKind::Opening, Some(0), "…");
        let late = next(&plan, &en, &open, LONG, 10.0);
        assert_eq!(late.kind, TurnKind::Closing);
        assert!(late.text.starts_with(&en.time_up));
        assert!(!probing_allowed(Some("Please do not probe on income.")));
        assert!(probing_allowed(Some("Be friendly.")));
        plan.probing = false;
        assert_eq!(next(&plan, &en, &open, "Yes.", 1.0).kind, TurnKind::Question);
    }

    #[test]
    fn thin_means_few_words_and_few_characters() {
        assert!(is_thin("Yes."));
        assert!(is_thin("I don't really know"));
        assert!(!is_thin("I usually ask friends for advice first"));
        assert!(!is_thin("私は毎朝近くの保育園まで子供を連れて行きますが、仕事の時間に間に合わせるのが大変です。"));
    }

    #[test]
    fn the_builtin_summary_quotes_answers_per_question() {
        let plan = plan("How do you choose?\nWhat matters most?\nWho decides?");
        let turns = vec![
            turn(0, TurnKind::Opening, Some(0), "…"),
            turn(1, TurnKind::Answer, Some(0), "Price."),
            turn(2, TurnKind::Probe, Some(0), "More?"),
            turn(3, TurnKind::Answer, Some(0), "Mostly the price and the distance."),
            turn(4, TurnKind::Question, Some(1), "What matters most?"),
            turn(5, TurnKind::Answer, Some(1), "Friendly staff."),
        ];
        assert_eq!(
            builtin_summary(&plan, &turns),
            "1. How do you choose?\n   Price. Mostly the price and the distance.\n2. What matters most?\n   Friendly staff.\n3. Who decides?\n   (not asked)"
        );
    }

    #[test]
    fn no_model_means_builtin_wording() {
        let en = strings::for_language("en").interviewer;
        let plan = plan("Why?");
        let step = opening(&plan, &en);
        assert_eq!(word_with_model(&plan, &[], step.clone(), &LlmConfig::disabled()), step);
    }
}
