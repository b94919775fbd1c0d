//! A theme's label and quotes, from the answers that hold its term.
//!
//! The label is the participants' own words: the phrase around the theme's
//! word that most of its interviews use ("shipping costs" where the term is
//! `ship`), written as they wrote it most often. Phrases are the interviewer's
//! whole phrases (`sessions::probes::phrase`: runs of content words that never
//! stop inside a compound, "cost *of* shipping" included); the label is the most
//! common one of two or three content words that holds the theme's word and no
//! negation or modal, when at least half of the theme's sampled interviews use
//! it, else the word alone. Each quote is the sentence of an answer where the
//! label's phrase (else the theme's word) stands ([`super::quotes`]), one per interview.

use text::sentences::quote_span;
use projects_core::Language;
use text::lexicon::Lexicon;
use text::phrase::whole_phrases;
use text::words;
use std::collections::HashMap;

/// Content words per label phrase, at most.
const MAX_LABEL_WORDS: usize = 3;

/// One sampled answer of a theme.
pub struct Sample<'a> {
    pub interview: usize,
    pub seq: i64,
    pub text: &'a str,
}

/// A quote of a theme: the interview (its place in the synthesis), the
/// answer's seq and the span of its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quoted {
    pub interview: usize,
    pub seq: i64,
    pub start: usize,
    pub end: usize,
}

/// A labelled theme's words: its label and its quotes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Labelled {
    pub label: String,
    pub quotes: Vec<Quoted>,
}

/// Where an answer holds the theme's term: a whole phrase around it, or the
/// word alone, with the terms of its content words (a content word that is no
/// term, a generic word, keeps its place as `None`).
struct Phrase<'t> {
    start: usize,
    end: usize,
    text: &'t str,
    key: Vec<Option<String>>,
}

/// The places of `text` that hold `term`: its whole phrases of up to
/// [`MAX_LABEL_WORDS`] content words that do (the interviewer's, which never
/// stop inside a compound; none that a negation or modal qualifies), and each
/// word with the term on its own.
fn phrases_with<'t>(text: &'t str, term: &str, lexicon: &Lexicon) -> Vec<Phrase<'t>> {
    let words = words::words(text);
    let terms: Vec<Option<String>> = (0..words.len()).map(|i| text::terms::term(&words, i, lexicon)).collect();
    let mut found = Vec::new();
    for phrase in whole_phrases(text, lexicon.language()) {
        if phrase.qualified || phrase.content_words() > MAX_LABEL_WORDS {
            continue;
        }
        let key: Vec<Option<String>> = (0..words.len())
            .filter(|&i| phrase.range.start <= words[i].start && words[i].end <= phrase.range.end && lexicon.is_content(&words[i]))
            .map(|i| terms[i].clone())
            .collect();
        if key.iter().any(|k| k.as_deref() == Some(term)) {
            found.push(Phrase { start: phrase.range.start, end: phrase.range.end, text: phrase.text, key });
        }
    }
    for (word, _) in words.iter().zip(&terms).filter(|(_, t)| t.as_deref() == Some(term)) {
        found.push(Phrase { start: word.start, end: word.end, text: word.text, key: vec![Some(term.to_string())] });
    }
    found
}

/// The theme's label and up to `max_quotes` quotes from different interviews,
/// from its sampled answers (in the synthesis' order of interviews).
pub fn label_and_quote(term: &str, samples: &[Sample], language: Language, max_quotes: usize) -> Labelled {
    let lexicon = Lexicon::of(language);
    let per_sample: Vec<Vec<Phrase>> = samples.iter().map(|s| phrases_with(s.text, term, &lexicon)).collect();
    // Per phrase key: the interviews that use it, and how often each spelling occurs.
    let mut usage: HashMap<&[Option<String>], (Vec<usize>, Vec<(&str, usize)>, usize)> = HashMap::new();
    let mut order = 0;
    for (sample, phrases) in samples.iter().zip(&per_sample) {
        for phrase in phrases {
            let entry = usage.entry(&phrase.key).or_insert_with(|| {
                order += 1;
                (Vec::new(), Vec::new(), order)
            });
            if entry.0.last() != Some(&sample.interview) {
                entry.0.push(sample.interview);
            }
            match entry.1.iter_mut().find(|(text, _)| *text == phrase.text) {
                Some((_, count)) => *count += 1,
                None => entry.1.push((phrase.text, 1)),
            }
        }
    }
    let with_word = samples.iter().zip(&per_sample).filter(|(_, p)| !p.is_empty()).map(|(s, _)| s.interview);
    let mut interviews_with_word: Vec<usize> = with_word.collect();
    interviews_with_word.dedup();
    let enough = (interviews_with_word.len() + 1) / 2;
    let best = usage
        .iter()
        .filter(|(key, (interviews, _, _))| key.len() == 1 || (interviews.len() >= enough.max(2)))
        .max_by(|(a_key, a), (b_key, b)| {
            let multi = |key: &&[Option<String>]| key.len() > 1;
            multi(a_key)
                .cmp(&multi(b_key))
                .then(a.0.len().cmp(&b.0.len()))
                .then(a_key.len().cmp(&b_key.len()))
                .then(b.2.cmp(&a.2))
        });
    let (key, label) = match best {
        Some((key, (_, spellings, _))) => {
            // The spelling used most often; the first one seen on a tie.
            let mut spelling = spellings[0];
            for candidate in spellings {
                if candidate.1 > spelling.1 {
                    spelling = *candidate;
                }
            }
            (key.to_vec(), spelling.0.to_string())
        }
        None => (Vec::new(), term.to_string()),
    };
    Labelled { label, quotes: quotes(samples, &per_sample, &key, language, max_quotes) }
}

/// Up to `max_quotes` quotes, one per interview: answers that use the label's
/// phrase first, then those with the theme's word elsewhere, each in the
/// synthesis' order.
fn quotes(samples: &[Sample], per_sample: &[Vec<Phrase>], key: &[Option<String>], language: Language, max_quotes: usize) -> Vec<Quoted> {
    let mut candidates: Vec<(bool, usize)> = Vec::new();
    for (index, phrases) in per_sample.iter().enumerate() {
        if let Some(phrase) = phrases.iter().find(|p| p.key == key).or_else(|| phrases.first()) {
            candidates.push((phrase.key != key, index));
        }
    }
    candidates.sort();
    let mut quoted: Vec<Quoted> = Vec::new();
    for (_, index) in candidates {
        let sample = &samples[index];
        if quoted.len() == max_quotes || quoted.iter().any(|q| q.interview == sample.interview) {
            continue;
        }
        let phrases = &per_sample[index];
        let phrase = phrases.iter().find(|p| p.key == key).unwrap_or(&phrases[0]);
        if let Some((start, end)) = quote_span(sample.text, phrase.start, phrase.end, language) {
            quoted.push(Quoted { interview: sample.interview, seq: sample.seq, start, end });
        }
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_label_is_the_phrase_most_interviews_use() {
        let texts = [
            "The shipping costs only appear on the last page.",
            "I hate hidden shipping costs!",
            "Shipping costs were too high. Also the cost of shipping to Norway.",
            "Free shipping matters to me.",
        ];
        let samples: Vec<Sample> = texts.iter().enumerate().map(|(i, text)| Sample { interview: i, seq: 3, text }).collect();
        let labelled = label_and_quote("ship", &samples, Language::En, 5);
        assert_eq!(labelled.label, "shipping costs");
        let quoted: Vec<&str> = labelled.quotes.iter().map(|q| &texts[q.interview][q.start..q.end]).collect();
        assert_eq!(
            quoted,
            [
                "The shipping costs only appear on the last page.",
                "I hate hidden shipping costs!",
                "Shipping costs were too high.",
                "Free shipping matters to me.",
            ]
        );
        assert_eq!(label_and_quote("ship", &samples, Language::En, 2).quotes.len(), 2);
    }

    #[test]
    fn a_word_without_a_common_phrase_is_its_own_label() {
        let texts = ["Delivery took ages.", "Late delivery, again.", "The delivery driver was rude."];
        let samples: Vec<Sample> = texts.iter().enumerate().map(|(i, text)| Sample { interview: i, seq: 1, text }).collect();
        assert_eq!(label_and_quote("deliveri", &samples, Language::En, 5).label, "delivery");
    }
}
