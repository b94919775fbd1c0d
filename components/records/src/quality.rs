//! An interview's quality signals, as stored with it (docs/synthesis.md, "Who
//! counts"): a score of 5 lowered by each flag, decided once when the
//! interview ends (`synthesis::quality` holds the rules). The tenant's
//! interview list shows them; the synthesis leaves out the interviews they call
//! low-effort.

use text_enum::text_enum;
use serde::Serialize;

text_enum! {
    /// A quality signal of an interview's answers.
    pub enum QualityFlag {
        /// Not one free-text answer.
        NoAnswers = "no_answers",
        /// Most answers are keyboard mash or letters no language writes.
        Gibberish = "gibberish",
        /// Two thirds or more of the answers are one and the same text.
        RepeatedAnswers = "repeated_answers",
        /// Three or more answers, none of more than one word.
        OneWordAnswers = "one_word_answers",
        /// Three or more answers, each declining ("I don't know", "no").
        DeclinedAnswers = "declined_answers",
        /// Three or more answers, half of them of three words or fewer.
        ShortAnswers = "short_answers",
        /// Half of the long typed answers arrived faster than anyone types.
        TooFast = "too_fast",
    }
}

/// An interview's quality: a score from 1 (low effort) to 5, and the flags
/// that lowered it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quality {
    pub score: u8,
    pub flags: Vec<QualityFlag>,
}

/// At or below this score an interview is low-effort: the synthesis leaves it out.
const LOW_EFFORT_SCORE: u8 = 2;

impl QualityFlag {
    fn penalty(self) -> u8 {
        match self {
            QualityFlag::ShortAnswers | QualityFlag::TooFast => 1,
            _ => 3,
        }
    }
}

impl Quality {
    /// The score its flags leave: 5 less their penalties, 1 at the least.
    pub fn of_flags(flags: Vec<QualityFlag>) -> Quality {
        let penalty: u8 = flags.iter().map(|f| f.penalty()).sum();
        Quality { score: 5u8.saturating_sub(penalty).max(1), flags }
    }

    /// Whether the synthesis leaves the interview out.
    pub fn is_low_effort(&self) -> bool {
        self.score <= LOW_EFFORT_SCORE
    }

    /// The flags as stored: a JSON array of their names.
    pub fn flags_json(&self) -> String {
        serde_json::to_string(&self.flags).unwrap_or_else(|_| "[]".into())
    }

    /// As stored: the score and the JSON array of flag names (unknown names,
    /// from a later release, are skipped).
    pub fn from_stored(score: i64, flags: &str) -> Quality {
        let names: Vec<String> = serde_json::from_str(flags).unwrap_or_default();
        Quality { score: score.clamp(1, 5) as u8, flags: names.iter().filter_map(|n| QualityFlag::parse(n)).collect() }
    }
}
