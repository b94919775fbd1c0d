//! A theme's label and quotes, from the answers that hold its term.
//!
//! The label is the participants' own words: the phrase around the theme's
//! word that most of its interviews use ("shipping costs" where the term is
//! `ship`), written as they wrote it most often. A phrase is a run of content
//! words that follow each other with nothing but white space (and up to two
//! short linking words, "cost *of* shipping") between them; the label is the
//! most common run of two or three of its words that holds the theme's word,
//! when at least half of the theme's sampled interviews use it, else the word
//! alone. Each quote is the sentence of an answer where the label's phrase
//! (else the theme's word) stands ([`super::quotes`]), one per interview.

use super::quotes::quote_span;
use super::terms;
use crate::projects::Language;
use crate::sessions::probes::lexicon::Lexicon;
use crate::sessions::probes::words::{self, Word};
use std::collections::HashMap;

/// Content words per label phrase, at most.
const MAX_LABEL_WORDS: usize = 3;
/// Short linking words between two content words of a phrase, at most.
const MAX_JOINERS: usize = 2;

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

/// A phrase of an answer: where it stands and the terms of its content words
/// (a content word that is no term, a light verb, keeps its place as `None`).
struct Phrase<'t> {
    start: usize,
    end: usize,
    text: &'t str,
    key: Vec<Option<String>>,
}

/// Runs of content words of `words`: indices, each content word following
/// the one before closely, up to [`MAX_JOINERS`] joiners between two of them.
fn runs(words: &[Word], lexicon: &Lexicon) -> Vec<Vec<usize>> {
    let content: Vec<bool> = words.iter().map(|w| lexicon.is_content(w)).collect();
    let mut runs: Vec<Vec<usize>> = Vec::new();
    let mut current: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if !content[i] {
            i += 1;
            continue;
        }
        let continues = current.last().is_some_and(|&last| {
            (last + 1..=i).all(|k| words[k].follows_closely)
                && (last + 1..i).all(|k| lexicon.is_joiner(&words[k]))
                && i - last - 1 <= MAX_JOINERS
        });
        if !continues && !current.is_empty() {
            runs.push(std::mem::take(&mut current));
        }
        current.push(i);
        i += 1;
    }
    if !current.is_empty() {
        runs.push(current);
    }
    runs
}

/// The phrases of up to [`MAX_LABEL_WORDS`] content words of `text` that hold `term`.
fn phrases_with<'t>(text: &'t str, term: &str, lexicon: &Lexicon) -> Vec<Phrase<'t>> {
    let words = words::words(text);
    let mut found = Vec::new();
    for run in runs(&words, lexicon) {
        let keys: Vec<Option<String>> = run.iter().map(|&i| terms::term(&words[i], lexicon)).collect();
        for first in 0..run.len() {
            for last in first..run.len().min(first + MAX_LABEL_WORDS) {
                let key = &keys[first..=last];
                if !key.iter().any(|k| k.as_deref() == Some(term)) || !lexicon.may_end_phrase(&words, run[last]) {
                    continue;
                }
                let (start, end) = (words[run[first]].start, words[run[last]].end);
                found.push(Phrase { start, end, text: &text[start..end], key: key.to_vec() });
            }
        }
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
