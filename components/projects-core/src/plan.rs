//! What an interview of a project asks (docs/sessions.md, "The interviewer"): its
//! research questions (split from `research_questions`, or a survey's blocks), as
//! many as the interview length allows, and a budget of follow-up probes per
//! question. The interviewer follows it; the synthesis groups answers by it.

use crate::{Language, ProjectFields};

/// Minutes of interview per research question (10 minutes: 4 questions).
const MINUTES_PER_QUESTION: f64 = 2.5;
/// Minutes one exchange (a message and its answer) is planned to take.
pub const MINUTES_PER_EXCHANGE: f64 = 1.0;
/// The most probes one research question gets, however long the interview.
const MAX_PROBES_PER_QUESTION: usize = 3;

/// What the interviewer works from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub objective: String,
    /// The research questions to ask, in order, at most the length allows.
    pub questions: Vec<String>,
    /// Follow-up probes each question may get: [`probe_budget`] (0 when the
    /// guidelines forbid probing).
    pub probes_per_question: usize,
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
        let probes_per_question = if probing_allowed(fields.specific_guidelines.as_deref()) {
            probe_budget(fields.interview_length, questions.len())
        } else {
            0
        };
        Plan {
            objective: fields.project_objective.clone(),
            questions,
            probes_per_question,
            length_minutes: fields.interview_length,
            guidelines: fields.specific_guidelines.clone(),
            language,
        }
    }
}

/// How many research questions fit the interview length.
pub fn max_questions(length_minutes: i64) -> usize {
    ((length_minutes.max(0) as f64 / MINUTES_PER_QUESTION).floor() as usize).max(1)
}

/// Probes per research question: the minutes each question has (the length
/// over the question count), less one for the question itself, at a minute per
/// probe; at least 1, at most 3. 10 minutes: 3 probes for 1 or 2 questions, 2
/// for 3, 1 for 4; 20 minutes: 3 for up to 5 questions, 1 for 8.
pub fn probe_budget(length_minutes: i64, question_count: usize) -> usize {
    let minutes_per_question = length_minutes.max(0) as f64 / question_count.max(1) as f64;
    let probes = (minutes_per_question / MINUTES_PER_EXCHANGE).floor() as usize;
    probes.saturating_sub(1).clamp(1, MAX_PROBES_PER_QUESTION)
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

/// The text with each run of whitespace one space.
pub fn collapse(text: &str) -> String {
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
