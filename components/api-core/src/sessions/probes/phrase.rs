//! The most telling phrase of an answer: the run of content words (stop words
//! and fillers break a run, punctuation ends it) that says the most the
//! interviewer has not asked or probed already.
//!
//! Each content word weighs by its length (a long word is usually a specific
//! one: "commute" over "good"), more when the answer repeats it, much less when
//! the research question already names it (the interviewee echoing the
//! question) and least when an earlier probe did. A phrase is at most four
//! content words and 60 characters; one of two or more adjacent content words
//! ("hidden shipping costs"; in Japanese also two linked by の) is preferred to
//! one that is not, then the heavier one, then the earlier one. Phrases whose every word an earlier probe named
//! are left out: the interviewer never asks about the same thing twice.

use super::lexicon::Lexicon;
use super::words::{words, Script, Word};
use std::collections::{HashMap, HashSet};

const MAX_CONTENT_WORDS: usize = 4;
const MAX_PHRASE_CHARS: usize = 60;
const MAX_JOINERS: usize = 2;
/// A phrase of more content words weighs more, but less than their sum: a
/// quote is to be short.
const LENGTH_FACTORS: [f64; MAX_CONTENT_WORDS] = [1.0, 1.0, 0.9, 0.8];
const ECHO_WEIGHT: f64 = 0.35;
const PROBED_WEIGHT: f64 = 0.15;
const REPEATED_WEIGHT: f64 = 1.3;

/// What the interviewer has already named, as stems.
#[derive(Debug, Default)]
pub struct Named {
    /// The research question the answer is to.
    pub by_question: HashSet<String>,
    /// Earlier probes of this interview.
    pub by_probes: HashSet<String>,
}

impl Named {
    /// The stems of the content words of `texts`.
    pub fn stems_of<'t>(lexicon: &Lexicon, texts: impl IntoIterator<Item = &'t str>) -> HashSet<String> {
        texts.into_iter().flat_map(words).filter(|w| lexicon.is_content(w)).map(|w| lexicon.stem(&w)).collect()
    }
}

#[derive(Debug)]
struct Candidate<'a> {
    text: &'a str,
    adjacent: bool,
    weight: f64,
    start: usize,
}

/// The answer's phrases worth quoting, the most telling first (none when it has
/// no content word the interviewer has not probed already).
pub fn telling_phrases<'a>(answer: &'a str, lexicon: &Lexicon, named: &Named) -> Vec<&'a str> {
    let words = words(answer);
    let content: Vec<bool> = words.iter().map(|w| lexicon.is_content(w)).collect();
    let stems: Vec<String> = words.iter().map(|w| lexicon.stem(w)).collect();
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (stem, _) in stems.iter().zip(&content).filter(|(_, content)| **content) {
        *counts.entry(stem).or_default() += 1;
    }
    let weight = |i: usize| {
        let stem = stems[i].as_str();
        let mut weight = word_weight(&words[i]);
        if named.by_question.contains(stem) {
            weight *= ECHO_WEIGHT;
        }
        if named.by_probes.contains(stem) {
            weight *= PROBED_WEIGHT;
        }
        if counts.get(stem).copied().unwrap_or(0) > 1 {
            weight *= REPEATED_WEIGHT;
        }
        weight
    };

    let mut candidates = Vec::new();
    for run in runs(&words, &content, lexicon) {
        let content_words: Vec<usize> = run.into_iter().filter(|&i| content[i]).collect();
        for first in 0..content_words.len() {
            for last in first..content_words.len().min(first + MAX_CONTENT_WORDS) {
                let chosen = &content_words[first..=last];
                let (start, end) = (words[chosen[0]].start, words[chosen[chosen.len() - 1]].end);
                let text = &answer[start..end];
                if text.chars().count() > MAX_PHRASE_CHARS {
                    break;
                }
                if chosen.iter().all(|&i| named.by_probes.contains(&stems[i])) || !lexicon.may_end_phrase(&words, chosen[chosen.len() - 1]) {
                    continue;
                }
                candidates.push(Candidate {
                    text,
                    adjacent: chosen.windows(2).any(|pair| lexicon.adjacent(&words, pair[0], pair[1])),
                    weight: chosen.iter().map(|&i| weight(i)).sum::<f64>() * LENGTH_FACTORS[chosen.len() - 1],
                    start,
                });
            }
        }
    }
    candidates.sort_by(|a, b| {
        b.adjacent.cmp(&a.adjacent).then(b.weight.total_cmp(&a.weight)).then(a.start.cmp(&b.start))
    });
    let mut phrases: Vec<&str> = Vec::new();
    for candidate in candidates {
        if !phrases.contains(&candidate.text) {
            phrases.push(candidate.text);
        }
    }
    phrases
}

/// Longer words weigh more, up to a point; a Japanese character counts twice
/// (one kanji says about as much as two letters); numbers weigh little.
fn word_weight(word: &Word) -> f64 {
    if word.text.chars().all(|c| c.is_ascii_digit()) {
        return 0.5;
    }
    let letters = word.text.chars().filter(|c| c.is_alphanumeric()).count();
    let length = if matches!(word.script, Script::Han | Script::Katakana) { letters * 2 } else { letters };
    1.0 + length.min(12) as f64 / 4.0
}

/// Runs of content words, each word following the one before closely, with up
/// to two joiners allowed between two content words ("answered *every*
/// question", "coût *de la* livraison"). Word indices, in order.
fn runs(words: &[Word], content: &[bool], lexicon: &Lexicon) -> Vec<Vec<usize>> {
    let closely = |i: usize| i < words.len() && words[i].follows_closely;
    let joiner = |i: usize| closely(i) && !content[i] && lexicon.is_joiner(&words[i]);
    let mut runs = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if !content[i] {
            i += 1;
            continue;
        }
        let mut run = vec![i];
        let mut next = i + 1;
        loop {
            let mut after_joiners = next;
            while after_joiners < next + MAX_JOINERS && joiner(after_joiners) {
                after_joiners += 1;
            }
            if !(closely(after_joiners) && content[after_joiners]) {
                break;
            }
            run.extend(next..=after_joiners);
            next = after_joiners + 1;
        }
        runs.push(run);
        i = next;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::projects::Language;

    fn best(language: Language, answer: &str, question: &str, probed: &[&str]) -> Option<String> {
        let lexicon = Lexicon::of(language);
        let named = Named {
            by_question: Named::stems_of(&lexicon, [question]),
            by_probes: Named::stems_of(&lexicon, probed.iter().copied()),
        };
        telling_phrases(answer, &lexicon, &named).first().map(|p| p.to_string())
    }

    #[test]
    fn the_phrase_is_adjacent_content_words_in_the_interviewees_own_words() {
        let question = "What makes you abandon a checkout?";
        assert_eq!(best(Language::En, "Hidden shipping costs at the last step make me leave.", question, &[]).as_deref(), Some("Hidden shipping costs"));
        assert_eq!(
            best(Language::En, "Honestly, I really just think the staff answered every question patiently.", "Why?", &[]).as_deref(),
            Some("staff answered every question patiently")
        );
        assert_eq!(best(Language::En, "Price.", question, &[]).as_deref(), Some("Price"));
        assert_eq!(best(Language::En, "Yes, I think so.", question, &[]), None);
    }

    #[test]
    fn echoes_of_the_question_and_earlier_probes_weigh_less() {
        let answer = "Choosing a daycare nearby, and the waiting list.";
        assert_eq!(best(Language::En, answer, "Why?", &[]).as_deref(), Some("Choosing a daycare nearby"));
        let question = "How did you choose your daycare?";
        assert_eq!(best(Language::En, answer, question, &[]).as_deref(), Some("waiting list"));
        let probed = ["You mentioned “waiting list”. Can you tell me about a specific time?"];
        assert_eq!(best(Language::En, answer, question, &probed).as_deref(), Some("Choosing a daycare nearby"));
        assert_eq!(best(Language::En, "The waiting list.", question, &probed), None, "nothing new to ask about");
    }

    #[test]
    fn joiners_link_content_words_in_each_language() {
        assert_eq!(best(Language::Fr, "Les frais de livraison cachés, à la fin.", "Pourquoi ?", &[]).as_deref(), Some("frais de livraison cachés"));
        assert_eq!(best(Language::Ja, "最後のステップで送料が表示されると、買うのをやめます。", "なぜですか？", &[]).as_deref(), Some("最後のステップ"));
        assert_eq!(best(Language::De, "Versteckte Versandkosten im letzten Schritt.", "Warum?", &[]).as_deref(), Some("Versteckte Versandkosten"));
        assert_eq!(best(Language::Ru, "Скрытые расходы на доставку в самом конце.", "Почему?", &[]).as_deref(), Some("Скрытые расходы"));
        // Never half a Japanese word: 近 goes on in kana (近い), 選 too (選びました).
        assert_eq!(best(Language::Ja, "職場に一番近いところを選びました。", "なぜですか？", &[]).as_deref(), Some("職場"));
        // Two Japanese words linked by の stand together, as two adjacent words do elsewhere.
        assert_eq!(best(Language::Ja, "見学の時に園長先生が答えてくれました。", "なぜですか？", &[]).as_deref(), Some("見学の時"));
    }
}
