//! The `transcription` cell of the interviews export: the turns in order, one
//! per line, `Interviewer: <text>` / `Interviewee: <text>` (the contract's
//! form), each interviewer line telling what the turn is and who wrote it,
//! `Interviewer: [probe, model] <text>`, as the session read does in `kind`
//! and `written_by`.

use records::{Speaker, Turn};

/// The cell: one turn per line; a line break inside a turn becomes a space, so
/// each turn stays one line. Written into one string.
pub fn transcription<'a, T: AsRef<str> + 'a>(turns: impl IntoIterator<Item = &'a Turn<T>>) -> String {
    let mut cell = String::new();
    for (index, turn) in turns.into_iter().enumerate() {
        if index > 0 {
            cell.push('\n');
        }
        match turn.speaker {
            Speaker::Interviewer => {
                for part in ["Interviewer: [", turn.kind.as_str(), ", ", turn.source.as_str(), "] "] {
                    cell.push_str(part);
                }
            }
            Speaker::Interviewee => cell.push_str("Interviewee: "),
        }
        for (index, part) in turn.text.as_ref().split(['\r', '\n']).filter(|part| !part.is_empty()).enumerate() {
            if index > 0 {
                cell.push(' ');
            }
            cell.push_str(part);
        }
    }
    cell
}

#[cfg(test)]
mod tests {
    use super::*;
    use records::{TurnKind, TurnSource};

    fn turn(speaker: Speaker, kind: TurnKind, source: TurnSource, text: &str) -> Turn<&str> {
        Turn { seq: 0, speaker, kind, question_index: None, source, text, created_at: "" }
    }

    #[test]
    fn transcripts_are_one_turn_per_line_with_what_each_interviewer_turn_is() {
        let turns = [
            turn(Speaker::Interviewer, TurnKind::Question, TurnSource::BuiltIn, "Why?"),
            turn(Speaker::Interviewee, TurnKind::Answer, TurnSource::Interviewee, "Because,\r\nwell, \"reasons\"."),
            turn(Speaker::Interviewer, TurnKind::Probe, TurnSource::Model, "Which reasons?"),
        ];
        assert_eq!(
            transcription(&turns),
            "Interviewer: [question, builtin] Why?\nInterviewee: Because, well, \"reasons\".\nInterviewer: [probe, model] Which reasons?"
        );
    }
}
