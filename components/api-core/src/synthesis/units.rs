//! The sentences of an interview's answers to one question, each with its
//! meaning (`text::vectors`): what the built-in synthesis groups into ideas
//! and quotes from. They are made once per interview and question, after the
//! interview ends (the maintenance run, `embed_pending`), and stored beside
//! its terms (`answer_terms.units`), so that a synthesis reads them instead of
//! reading and embedding every answer again.
//!
//! A unit is a sentence that can be quoted as it stands and says something
//! (`text::sentences::quotable_spans`).

use crate::projects::Language;
use crate::text::sentences;
use crate::text::vectors::{self, Meaning};
use base64::engine::general_purpose::STANDARD_NO_PAD as BASE64;
use base64::Engine;

/// The languages whose answers get meanings: those of the table's model
/// (English). Answers read in another language are grouped by their terms.
pub fn has_meanings(language: Language) -> bool {
    language == Language::En
}

/// One quotable sentence of an answer and its meaning.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The answer's seq in the transcript.
    pub seq: i64,
    /// Its bytes in the answer's text.
    pub start: usize,
    pub end: usize,
    pub meaning: Meaning,
}

/// The units of one interview's answers to a question (`(seq, text)`), read in `language`.
pub fn of_answers(answers: &[(i64, &str)], language: Language) -> Vec<Unit> {
    if !has_meanings(language) {
        return Vec::new();
    }
    let table = vectors::table();
    answers
        .iter()
        .flat_map(|&(seq, text)| {
            // As stored (one byte a dimension): a synthesis gives the same answer before the meanings are stored and after.
            sentences::quotable_spans(text, language).into_iter().map(move |(start, end)| Unit {
                seq,
                start,
                end,
                meaning: Meaning::from_bytes(&table.meaning(&text[start..end]).to_bytes()),
            })
        })
        .filter(|unit| !unit.meaning.is_empty())
        .collect()
}

/// As stored: a line per unit, its seq, start, end and meaning (base64).
pub fn encode(units: &[Unit]) -> String {
    let lines: Vec<String> =
        units.iter().map(|u| format!("{} {} {} {}", u.seq, u.start, u.end, BASE64.encode(u.meaning.to_bytes()))).collect();
    lines.join("\n")
}

/// The units stored by [`encode`]; a line that does not parse is skipped.
pub fn decode(stored: &str) -> Vec<Unit> {
    stored
        .lines()
        .filter_map(|line| {
            let mut parts = line.split(' ');
            let seq = parts.next()?.parse().ok()?;
            let start = parts.next()?.parse().ok()?;
            let end = parts.next()?.parse().ok()?;
            let meaning = Meaning::from_bytes(&BASE64.decode(parts.next()?).ok()?);
            Some(Unit { seq, start, end, meaning })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_the_quotable_sentences_that_say_something() {
        let text = "Yes. It saves me hours every week on invoices!\nasdf qwer zxcv. I don't know.";
        let found: Vec<&str> = sentences::quotable_spans(text, Language::En).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(found, ["It saves me hours every week on invoices!"]);
        let filler = "and then there was a long story about the weekend, ".repeat(5);
        let long = format!("{filler}but I would not trust its citations, {filler}the end");
        let found: Vec<&str> = sentences::quotable_spans(&long, Language::En).into_iter().map(|(s, e)| &long[s..e]).collect();
        assert!(found.iter().all(|q| q.chars().count() <= sentences::MAX_QUOTE_CHARS), "{found:?}");
        assert!(found.iter().any(|q| q.contains("would not trust its citations")), "{found:?}");
    }

    #[test]
    fn units_round_trip_through_storage() {
        let units = of_answers(&[(3, "It saves me hours every week. The rest is noise, honestly.")], Language::En);
        assert_eq!(units.len(), 2);
        let stored = decode(&encode(&units));
        assert_eq!(stored.len(), 2);
        for (a, b) in units.iter().zip(&stored) {
            assert_eq!((a.seq, a.start, a.end), (b.seq, b.start, b.end));
            assert!(a.meaning.cosine(&b.meaning) > 0.999);
        }
        assert!(of_answers(&[(1, "Das spart mir viel Zeit.")], Language::De).is_empty(), "no German model");
    }
}
