//! What a synthesis reads of an interview: the interviewee's own free-text
//! answers, each with the research question (or open survey block) its turn
//! recorded and how long the interviewee took to send it.

use projects_core::survey::{BlockType, SurveyBlock};
use records::{Speaker, Turn, TurnKind};
use platform::time;

/// One free-text answer of an interview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer<'t> {
    pub seq: i64,
    /// The research question (or survey block) it answers; none for the
    /// wrap-up's "anything else?".
    pub question_index: Option<usize>,
    pub text: &'t str,
    /// Milliseconds from the message it answers to its arrival.
    pub took_ms: Option<i64>,
}

fn millis(text: &str) -> Option<i64> {
    time::parse_rfc3339(text).map(time::unix_millis)
}

/// The free-text answers among an interview's turns, in order: every answer of
/// an interview; in a survey (`blocks`), the answers to open questions and to
/// follow-ups (a choice or a rating is no text of the interviewee's).
pub fn free_text_answers<'t, T: AsRef<str>>(turns: &'t [Turn<T>], blocks: Option<&[SurveyBlock]>) -> Vec<Answer<'t>> {
    let mut answers = Vec::new();
    for (index, turn) in turns.iter().enumerate() {
        if turn.speaker != Speaker::Interviewee || turn.kind != TurnKind::Answer {
            continue;
        }
        let before = index.checked_sub(1).map(|i| &turns[i]);
        if let Some(blocks) = blocks {
            let follows_up = before.is_some_and(|b| b.kind == TurnKind::FollowUp);
            let open = turn.question_index.and_then(|i| blocks.get(i)).is_some_and(|b| b.kind == BlockType::OpenQuestion);
            if !(follows_up || open) {
                continue;
            }
        }
        let took_ms = match (before.and_then(|b| millis(b.created_at.as_ref())), millis(turn.created_at.as_ref())) {
            (Some(asked), Some(answered)) => Some((answered - asked).max(0)),
            _ => None,
        };
        answers.push(Answer { seq: turn.seq, question_index: turn.question_index, text: turn.text.as_ref(), took_ms });
    }
    answers
}
