//! What a careful reader checks in a quote of an answer, written apart from
//! how `phrase` builds quotes, so that anything that quotes answers (the
//! interviewer's probes, the synthesis' labels, tests) can hold a quote to the
//! rules of docs/sessions.md, "Quotes":
//!
//! - it leaves out no negation or modal that reaches it: in its clause before
//!   it, or among the three words right before it (the same stretch between
//!   punctuation, whatever the connectives say); in German and French a
//!   negation after it in its clause or a modal right after it, in Japanese a
//!   negative ending (ない);
//! - it neither begins nor ends on a stop word, filler, adverb of degree or
//!   connective (an elided French or Italian article counts: "l'école" begins
//!   on "l'"); a leading negation or modal is its own, a trailing one
//!   ("funktioniert nicht") [`edge_fault`] tells apart.

use super::function_words::{reach, Reach};
pub use super::function_words::NEAR_WORDS;
use super::lexicon::{Lexicon, Qualifier};
use super::words::{words, Word};
use crate::Language;

/// The negation or modal of `answer` that reaches `quote` (its first
/// occurrence in the answer) and that the quote leaves out; `None` when it
/// leaves out none, or when the quote is not in the answer.
pub fn dropped_qualifier<'a>(answer: &'a str, quote: &str, language: Language) -> Option<&'a str> {
    dropped(answer, quote, language, |_| true)
}

/// The negation of `answer` that reaches `quote` and that the quote leaves
/// out, as [`dropped_qualifier`] but for negations alone: a noun phrase a
/// modal's clause holds ("I *would* love an accurate repository") names
/// what was said, where a verb phrase ("find a good reference image" of "I
/// can't find …") would not.
pub fn dropped_negation<'a>(answer: &'a str, quote: &str, language: Language) -> Option<&'a str> {
    dropped(answer, quote, language, |qualifier| qualifier == Qualifier::Negation)
}

fn dropped<'a>(answer: &'a str, quote: &str, language: Language, counts: impl Fn(Qualifier) -> bool) -> Option<&'a str> {
    dropped_in(answer, &words(answer), &Lexicon::of(language), quote, counts)
}

/// Whether a negation of `answer` (its `words`, read by `lexicon`) reaches
/// `quote` and the quote leaves it out, as [`dropped_negation`]: for a caller
/// that checks many quotes of one answer and has its words at hand.
pub fn negation_dropped_in(answer: &str, words: &[Word], lexicon: &Lexicon, quote: &str) -> bool {
    dropped_in(answer, words, lexicon, quote, |qualifier| qualifier == Qualifier::Negation).is_some()
}

fn dropped_in<'a>(answer: &'a str, words: &[Word<'a>], lexicon: &Lexicon, quote: &str, counts: impl Fn(Qualifier) -> bool) -> Option<&'a str> {
    let language = lexicon.language();
    let start = answer.find(quote)?;
    let end = start + quote.len();
    let inside: Vec<usize> = (0..words.len()).filter(|&i| words[i].end > start && words[i].start < end).collect();
    let (&first, &last) = (inside.first()?, inside.last()?);
    // Before: back to the clause's start, or at least the nearest words of the same stretch.
    let clause_start = (0..=first).rev().find(|&k| lexicon.begins_clause(words, k)).unwrap_or(0);
    let stretch_start = (0..=first).rev().find(|&k| !words[k].follows_closely).unwrap_or(0);
    let from = clause_start.min(first.saturating_sub(NEAR_WORDS).max(stretch_start));
    if let Some(i) = (from..first).find(|&i| lexicon.qualifier(words, i).is_some_and(&counts)) {
        return Some(words[i].text);
    }
    if counts(Qualifier::Negation) && lexicon.negated_after(words, last) {
        return Some(words[last + 1].text);
    }
    if reach(language) == Reach::Clause {
        let clause_end = (last + 1..words.len()).find(|&k| lexicon.begins_clause(words, k)).unwrap_or(words.len());
        let negation = (last + 1..clause_end).find(|&j| lexicon.negates_back(words, j)).filter(|_| counts(Qualifier::Negation));
        let modal = Some(last + 1).filter(|&j| j < clause_end && lexicon.qualifier(words, j) == Some(Qualifier::Modal) && counts(Qualifier::Modal));
        if let Some(j) = negation.or(modal) {
            return Some(words[j].text);
        }
    }
    None
}

/// What is wrong at a quote's edges.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EdgeFault {
    /// It begins or ends on a word that cannot stand there.
    Fragment(String),
    /// It ends on its own negation or modal, which German and French put after
    /// the verb: not wrong, but no clean edge either.
    TrailingQualifier(String),
}

/// Whether `quote` begins or ends on a word that cannot stand at an edge.
pub fn edge_fault(quote: &str, language: Language) -> Option<EdgeFault> {
    let lexicon = Lexicon::of(language);
    let words = words(quote);
    let (first, last) = (words.first()?, words.last()?);
    // An elided article or pronoun is a word of its own: "l'école" begins on "l'", "d'images" ends on "images".
    let head = |word: &Word| word.normalized.split_once('\'').map_or(String::new(), |(head, _)| head.to_string());
    let tail = |word: &Word| word.normalized.rsplit_once('\'').map_or(String::new(), |(_, tail)| tail.to_string());
    let cannot_stand = |part: &str| !part.is_empty() && lexicon.is_edge_word(part);
    if lexicon.qualifier(&words, 0).is_none() && (lexicon.is_edge_word(&first.normalized) || cannot_stand(&head(first))) {
        return Some(EdgeFault::Fragment(first.text.to_string()));
    }
    if words.len() == 1 {
        return None;
    }
    if lexicon.qualifier(&words, words.len() - 1).is_some() {
        return Some(EdgeFault::TrailingQualifier(last.text.to_string()));
    }
    (lexicon.is_edge_word(&last.normalized) || cannot_stand(&tail(last))).then(|| EdgeFault::Fragment(last.text.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quote_that_leaves_out_its_negation_or_modal_is_caught() {
        let en = Language::En;
        let answer = "I can't find a good reference image, but the tool is fast.";
        assert_eq!(dropped_qualifier(answer, "find a good reference image", en), Some("can't"));
        assert_eq!(dropped_qualifier(answer, "can't find a good reference image", en), None);
        assert_eq!(dropped_qualifier("Honestly, I don't use it, and the tool is fast.", "tool is fast", en), None);
        assert_eq!(dropped_qualifier("It no longer needs human oversight.", "longer needs human oversight", en), Some("no"));
        assert_eq!(dropped_qualifier("I don't know but tools are slow.", "tools are slow", en), Some("don't"), "near");
        assert_eq!(dropped_qualifier("Ich finde das Bild nicht.", "Bild", Language::De), Some("nicht"));
        assert_eq!(dropped_qualifier("Je ne trouve pas de bonne image.", "bonne image", Language::Fr), Some("ne"));
        assert_eq!(dropped_qualifier("J'ai pas le temps.", "temps", Language::Fr), Some("pas"), "spoken French, without ne");
        assert_eq!(dropped_qualifier("送料は問題ないです。", "問題", Language::Ja), Some("ないです"));
    }

    #[test]
    fn a_noun_phrase_may_leave_out_a_modal_but_never_a_negation() {
        let answer = "It would be very helpful to have an accurate repository, but I can't find reliable sources.";
        assert_eq!(dropped_qualifier(answer, "accurate repository", Language::En), Some("would"));
        assert_eq!(dropped_negation(answer, "accurate repository", Language::En), None);
        assert_eq!(dropped_negation(answer, "reliable sources", Language::En), Some("can't"));
    }

    #[test]
    fn edges_may_be_a_leading_negation_but_no_stop_word_degree_adverb_or_connective() {
        assert_eq!(edge_fault("perspective somewhat", Language::En), Some(EdgeFault::Fragment("somewhat".into())));
        assert_eq!(edge_fault("therefore a better output", Language::En), Some(EdgeFault::Fragment("therefore".into())));
        assert_eq!(edge_fault("can't find a good reference image", Language::En), None);
        assert_eq!(edge_fault("l'école", Language::Fr), Some(EdgeFault::Fragment("l'école".into())));
        assert_eq!(edge_fault("funktioniert nicht", Language::De), Some(EdgeFault::TrailingQualifier("nicht".into())));
    }
}
