//! The `transcription` cell of the interviews export: the turns in order, one
//! per line, `Interviewer: <text>` / `Interviewee: <text>` (the contract's
//! form), each interviewer line telling what the turn is and who wrote it,
//! `Interviewer: [probe, model] <text>`, as the session read does in `kind`
//! and `written_by`.

use crate::sessions::{Speaker, TurnKind, TurnSource};

/// One turn of an exported interview, borrowed from the page's result (an
/// export reads thousands of turns a page: they are not copied again).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptTurn<'a> {
    pub interview_id: &'a str,
    pub speaker: Speaker,
    pub kind: TurnKind,
    pub written_by: TurnSource,
    pub text: &'a str,
}

/// The cell: one turn per line; a line break inside a turn becomes a space, so
/// each turn stays one line. Written into one string.
pub fn transcription<'a>(turns: impl IntoIterator<Item = &'a TranscriptTurn<'a>>) -> String {
    let mut cell = String::new();
    for (index, turn) in turns.into_iter().enumerate() {
        if index > 0 {
            cell.push('\n');
        }
        match turn.speaker {
            Speaker::Interviewer => {
                for part in ["Interviewer: [", turn.kind.as_str(), ", ", turn.written_by.as_str(), "] "] {
                    cell.push_str(part);
                }
            }
            Speaker::Interviewee => cell.push_str("Interviewee: "),
        }
        for (index, part) in turn.text.split(['\r', '\n']).filter(|part| !part.is_empty()).enumerate() {
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

    fn turn(speaker: Speaker, kind: TurnKind, written_by: TurnSource, text: &str) -> TranscriptTurn<'_> {
        TranscriptTurn { interview_id: "i", speaker, kind, written_by, text }
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
