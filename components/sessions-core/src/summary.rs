//! The built-in summary of an interview (the export's `interview_summary`,
//! docs/interviews.md): per research question answered, the interviewee's own
//! sentences that carry most of what they said, quoted verbatim in the order
//! they said them.
//!
//! Every quotable sentence of the answers (`text::sentences::quotable_spans`:
//! whole sentences, or for a very long one its clauses with their negations;
//! never keyboard mash or a refusal) is weighed by how much of the rest of
//! what they said to that question it shares: the sum of its terms' weights,
//! a term weighing the number of the question's sentences that hold it, over
//! the square root of its length (a long sentence is not better for being
//! long). Each question's best sentence is taken in turn, round after round,
//! each taken sentence's terms then weighing half (so the next says something
//! else), while the summary stays within [`WORD_SHARE`] of the interviewee's
//! words (its headings included) and [`MAX_SUMMARY_CHARS`] characters; a
//! sentence that does not fit is passed over for a shorter one.

use projects_core::Language;
use text::lexicon::Lexicon;
use text::sentences::quotable_spans;
use text::{terms, words};
use std::collections::HashMap;

/// The whole summary, at most (characters).
pub const MAX_SUMMARY_CHARS: usize = 1_500;
/// The summary's words, at most this share of the interviewee's words
/// (numerator, denominator): a summary is not the transcript again.
pub const WORD_SHARE: (usize, usize) = (3, 10);

/// One part of the summary: its heading (a research question) and the
/// interviewee's answers to it, in order.
pub struct Section<'a> {
    pub heading: &'a str,
    pub answers: Vec<&'a str>,
}

/// A sentence that may stand in the summary.
struct Candidate<'a> {
    section: usize,
    /// Its place in its section, for the order it was said in.
    order: usize,
    text: &'a str,
    terms: Vec<String>,
    words: usize,
}

/// The summary of `sections`, read in `language`: the headings of the
/// sections it quotes, each followed by its quoted sentences; empty when the
/// interviewee said nothing that can be quoted.
pub fn extractive(sections: &[Section], language: Language) -> String {
    let said_words: usize = sections.iter().flat_map(|s| &s.answers).map(|a| words::words(a).len()).sum();
    let budget = said_words * WORD_SHARE.0 / WORD_SHARE.1;
    let (candidates, mut weights) = candidates(sections, language);
    let mut chosen: Vec<&Candidate> = Vec::new();
    let (mut used_words, mut used_chars) = (0, 0);
    // In rounds: each section's best sentence that still fits, the sections in
    // order of those sentences' weight, so that every question answered is
    // heard before any is heard twice.
    loop {
        let mut took = false;
        let mut sections_left: Vec<usize> = (0..sections.len()).collect();
        while !sections_left.is_empty() {
            // Per section, its best sentence that fits what is left; the best of those first.
            let cost = |c: &Candidate| {
                let opens = !chosen.iter().any(|k| k.section == c.section);
                let heading = if opens { sections[c.section].heading } else { "" };
                // The sentence between quotation marks and a space; a new section's heading on a line of its own.
                let chars = c.text.chars().count() + 3 + if opens { heading.chars().count() + 2 } else { 0 };
                (c.words + words::words(heading).len(), chars)
            };
            let best = candidates
                .iter()
                .filter(|c| sections_left.contains(&c.section) && !chosen.iter().any(|k| std::ptr::eq(*k, *c)))
                .filter(|c| {
                    let (words, chars) = cost(c);
                    used_words + words <= budget && used_chars + chars <= MAX_SUMMARY_CHARS
                })
                .map(|c| {
                    let weight: f64 = c.terms.iter().map(|t| weights[c.section].get(t).copied().unwrap_or(0.0)).sum();
                    (weight / (c.words.max(1) as f64).sqrt(), c)
                })
                .filter(|(score, _)| *score > 0.0)
                .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.section.cmp(&a.1.section)).then(b.1.order.cmp(&a.1.order)));
            let Some((_, candidate)) = best else { break };
            let (words, chars) = cost(candidate);
            used_words += words;
            used_chars += chars;
            for term in &candidate.terms {
                if let Some(weight) = weights[candidate.section].get_mut(term) {
                    *weight /= 2.0;
                }
            }
            sections_left.retain(|&s| s != candidate.section);
            chosen.push(candidate);
            took = true;
        }
        if !took {
            break;
        }
    }
    written(sections, chosen)
}

/// Every quotable sentence of every section, with its terms, and per section
/// how many of its sentences use each term (a term said often weighs more).
fn candidates<'a>(sections: &'a [Section], language: Language) -> (Vec<Candidate<'a>>, Vec<HashMap<String, f64>>) {
    let lexicon = Lexicon::of(language);
    let mut candidates: Vec<Candidate> = Vec::new();
    let mut weights: Vec<HashMap<String, f64>> = Vec::new();
    for (index, section) in sections.iter().enumerate() {
        let mut weight: HashMap<String, f64> = HashMap::new();
        for answer in &section.answers {
            for (start, end) in quotable_spans(answer, language) {
                let text = &answer[start..end];
                let found = words::words(text);
                let mut stems: Vec<String> = (0..found.len()).filter_map(|i| terms::term(&found, i, &lexicon)).collect();
                stems.sort_unstable();
                stems.dedup();
                for stem in &stems {
                    *weight.entry(stem.clone()).or_default() += 1.0;
                }
                let order = candidates.iter().filter(|c| c.section == index).count();
                candidates.push(Candidate { section: index, order, text, terms: stems, words: found.len() });
            }
        }
        weights.push(weight);
    }
    (candidates, weights)
}

/// The chosen sentences in the order they were said, each section's under its heading.
fn written(sections: &[Section], mut chosen: Vec<&Candidate>) -> String {
    chosen.sort_by_key(|c| (c.section, c.order));
    let mut lines: Vec<String> = Vec::new();
    for (index, section) in sections.iter().enumerate() {
        let quoted: Vec<String> = chosen.iter().filter(|c| c.section == index).map(|c| format!("“{}”", c.text)).collect();
        if !quoted.is_empty() {
            lines.push(section.heading.to_string());
            lines.push(quoted.join(" "));
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_summary_quotes_the_sentences_that_carry_what_was_said() {
        let answers = [
            "Honestly the waiting list was the hardest part. We signed up before our son was born. \
             The waiting list at the second daycare was over a year, and the waiting list at the third was closed. \
             My mother-in-law helped in the meantime, which was lovely of her but hard on her back. \
             The weather was nice that spring. We walked a lot with the pram and met other parents.",
            "Opening hours did not fit our shifts. Both of us work shifts at the hospital, so the opening hours mattered \
             more than anything else. We also looked at prices, which were fine, and at the food they cook.",
        ];
        let sections = [
            Section { heading: "What made choosing a daycare hard?", answers: vec![answers[0]] },
            Section { heading: "What did you do about it?", answers: vec![answers[1]] },
        ];
        let summary = extractive(&sections, Language::En);
        assert!(summary.contains("waiting list"), "{summary}");
        assert!(!summary.contains("weather"), "{summary}");
        let said: usize = answers.iter().map(|a| words::words(a).len()).sum();
        assert!(words::words(&summary).len() * 10 <= said * 3, "{summary}");
        for line in summary.lines().filter(|l| l.starts_with('“')) {
            for quote in line.split('”').map(|q| q.trim().trim_start_matches('“')).filter(|q| !q.is_empty()) {
                assert!(answers.iter().any(|a| a.contains(quote)), "not verbatim: {quote}");
            }
        }
    }

    #[test]
    fn nothing_quotable_gives_an_empty_summary_and_the_cap_holds() {
        assert_eq!(extractive(&[Section { heading: "Why?", answers: vec!["asdf qwer", "No."] }], Language::En), "");
        let long = "The delivery was late again and the driver never called ahead of time. ".repeat(80);
        let summary = extractive(&[Section { heading: "What happened?", answers: vec![&long] }], Language::En);
        assert!(!summary.is_empty() && summary.chars().count() <= MAX_SUMMARY_CHARS, "{}", summary.chars().count());
    }
}
