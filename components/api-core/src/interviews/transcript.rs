//! The `transcription` cell of the interviews export: the turns in order, one
//! per line, `Interviewer: <text>` / `Interviewee: <text>` (the contract's
//! form), each interviewer line telling what the turn is and who wrote it,
//! `Interviewer: [probe, model] <text>`, as the session read does in `kind`
//! and `written_by`.

use crate::sessions::{Speaker, TurnKind, TurnSource};

/// One turn of an exported interview.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TranscriptTurn {
    pub interview_id: String,
    pub speaker: Speaker,
    pub kind: TurnKind,
    pub written_by: TurnSource,
    pub text: String,
}

/// The cell: one turn per line; a line break inside a turn becomes a space, so
/// each turn stays one line.
pub fn transcription<'a>(turns: impl IntoIterator<Item = &'a TranscriptTurn>) -> String {
    turns
        .into_iter()
        .map(|turn| {
            let one_line = turn.text.split(['\r', '\n']).filter(|part| !part.is_empty()).collect::<Vec<_>>().join(" ");
            match turn.speaker {
                Speaker::Interviewer => format!("Interviewer: [{}, {}] {one_line}", turn.kind, turn.written_by),
                Speaker::Interviewee => format!("Interviewee: {one_line}"),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(speaker: Speaker, kind: TurnKind, written_by: TurnSource, text: &str) -> TranscriptTurn {
        TranscriptTurn { interview_id: "i".into(), speaker, kind, written_by, text: text.into() }
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
