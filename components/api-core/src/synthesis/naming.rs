//! An idea's label: a short phrase of its participants' own words that names
//! it ("saves me time", "fear of losing clients").
//!
//! The candidates are the phrases of two to six words of the idea's most
//! representative sentences that a quote could be: inside one clause, never
//! leaving out a negation or modal that reaches them (`text::audit`),
//! beginning on a word that names something (not a generic word like "use"
//! or "new") or on a negation, ending on a word that names something, and not
//! only the question's own words. The label is the candidate whose meaning
//! is closest to the idea's centre, helped by how many of its interviews use
//! its words and held back when it is as close to another idea of the question
//! (two themes never read alike); spelled as the answers write it most often.

use super::ideas::Idea;
use crate::projects::Language;
use crate::text::audit::{dropped_qualifier, edge_fault};
use crate::text::lexicon::{Lexicon, Qualifier};
use crate::text::vectors::{self, Common, Meaning};
use crate::text::{terms, words};
use std::collections::{BTreeMap, HashSet};

/// Words a label holds, at least and at most.
pub const MIN_LABEL_WORDS: usize = 2;
pub const MAX_LABEL_WORDS: usize = 6;
/// Two labels whose meanings (beyond what the question's sentences share) are
/// this alike say the same thing: their ideas are one theme.
pub const ONE_LABEL: f32 = 0.80;
/// The idea's sentences its label is looked for in, at most.
pub const LABEL_SOURCES: usize = 12;
/// How much a label gains when all of the idea's interviews use its words.
const SUPPORT_WEIGHT: f32 = 0.25;
/// How much a label loses per unit it is closer to another idea than to its own (less this margin).
const AMBIGUITY_WEIGHT: f32 = 0.5;
const AMBIGUITY_MARGIN: f32 = 0.05;
/// A label of more words than this loses a little per word: a label is to be short.
const SHORT_LABEL_WORDS: usize = 3;
const LONG_LABEL_COST: f32 = 0.02;

/// One sentence of the idea, as its label is looked for in it.
pub struct Source<'t> {
    pub interview: usize,
    pub text: &'t str,
}

/// A candidate label, keyed by its lower-case text.
struct Candidate {
    /// Each spelling, how often.
    spellings: Vec<(String, usize)>,
    stems: Vec<String>,
    words: usize,
    /// The order it was first found in (the most representative sentence first).
    order: usize,
}

/// The label of `idea` from its sources (its most representative sentences,
/// in order), or `None` when no phrase of them can be one. `question`: the
/// question's stems; `common`: what the question's sentences share (a
/// phrase's meaning is weighed beyond it, as the ideas are); `others`: the
/// centres of the question's other ideas.
pub fn label(idea: &Idea, sources: &[Source], question: &HashSet<String>, common: &Common, others: &[&Meaning]) -> Option<String> {
    let lexicon = Lexicon::of(Language::En);
    let sources = &sources[..sources.len().min(LABEL_SOURCES)];
    let used_by = terms_by_interview(sources, &lexicon);
    let mut candidates: BTreeMap<String, Candidate> = BTreeMap::new();
    for source in sources {
        let words = words::words(source.text);
        for first in 0..words.len() {
            for last in first + MIN_LABEL_WORDS - 1..words.len().min(first + MAX_LABEL_WORDS) {
                if lexicon.begins_clause(&words, last) {
                    break;
                }
                // It begins on a word that names something or on a negation ("not reliable"),
                // never on a modal ("would be a book"); it ends on a word that names something.
                let leads = terms::term(&words, first, &lexicon).is_some()
                    || lexicon.qualifier(&words, first) == Some(Qualifier::Negation);
                if !leads || terms::term(&words, last, &lexicon).is_none() {
                    continue;
                }
                let text = &source.text[words[first].start..words[last].end];
                let stems: Vec<String> = (first..=last).filter_map(|i| terms::term(&words, i, &lexicon)).collect();
                if stems.iter().all(|s| question.contains(s)) {
                    continue;
                }
                if edge_fault(text, Language::En).is_some() || dropped_qualifier(source.text, text, Language::En).is_some() {
                    continue;
                }
                let order = candidates.len();
                let candidate = candidates.entry(text.to_lowercase()).or_insert_with(|| Candidate {
                    spellings: Vec::new(),
                    stems,
                    words: last - first + 1,
                    order,
                });
                match candidate.spellings.iter_mut().find(|(s, _)| s == text) {
                    Some((_, count)) => *count += 1,
                    None => candidate.spellings.push((text.to_string(), 1)),
                }
            }
        }
    }
    let table = vectors::table();
    let interviews = used_by.len().max(1) as f32;
    let score = |candidate: &Candidate, text: &str| {
        let meaning = table.meaning(text).beyond(common);
        let fit = meaning.cosine(&idea.centre);
        let support = used_by.iter().filter(|(_, stems)| candidate.stems.iter().all(|s| stems.contains(s))).count() as f32 / interviews;
        let closest_other = others.iter().map(|o| meaning.cosine(o)).fold(f32::NEG_INFINITY, f32::max);
        let ambiguity = (closest_other - fit + AMBIGUITY_MARGIN).max(0.0);
        let length = candidate.words.saturating_sub(SHORT_LABEL_WORDS) as f32 * LONG_LABEL_COST;
        fit + SUPPORT_WEIGHT * support - AMBIGUITY_WEIGHT * ambiguity - length
    };
    let best = candidates
        .iter()
        .map(|(key, candidate)| (score(candidate, key), candidate))
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.order.cmp(&a.1.order)))?;
    let spelling = best.1.spellings.iter().fold(&best.1.spellings[0], |best, s| if s.1 > best.1 { s } else { best });
    Some(spelling.0.clone())
}

/// The terms of `sources`, per interview (in the order they first come).
fn terms_by_interview(sources: &[Source], lexicon: &Lexicon) -> Vec<(usize, HashSet<String>)> {
    let mut by_interview: Vec<(usize, HashSet<String>)> = Vec::new();
    for source in sources {
        let words = words::words(source.text);
        let found = (0..words.len()).filter_map(|i| terms::term(&words, i, lexicon));
        match by_interview.iter_mut().find(|(interview, _)| *interview == source.interview) {
            Some((_, all)) => all.extend(found),
            None => by_interview.push((source.interview, found.collect())),
        }
    }
    by_interview
}

/// The terms (the question's aside) that every interview among `sources` uses.
pub fn defining_terms(sources: &[Source], question: &HashSet<String>) -> Vec<String> {
    let by_interview = terms_by_interview(sources, &Lexicon::of(Language::En));
    let Some(((_, first), rest)) = by_interview.split_first() else { return Vec::new() };
    let mut defining: Vec<String> =
        first.iter().filter(|t| !question.contains(*t) && rest.iter().all(|(_, terms)| terms.contains(*t))).cloned().collect();
    defining.sort_unstable();
    defining
}

/// What a label says, for telling two apart: the stems of its terms, sorted.
pub fn label_stems(label: &str) -> Vec<String> {
    let lexicon = Lexicon::of(Language::En);
    let words = words::words(label);
    let mut stems: Vec<String> = (0..words.len()).filter_map(|i| terms::term(&words, i, &lexicon)).collect();
    stems.sort_unstable();
    stems.dedup();
    stems
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::synthesis::ideas::{group, Question, Sentence};
    use crate::synthesis::units::Unit;

    #[test]
    fn the_label_is_a_phrase_of_the_answers_that_names_the_idea() {
        let texts = [
            (0, "Honestly, it saves me so much time on emails."),
            (1, "It saves me time with the boring admin work."),
            (2, "The biggest thing is that it saves me time every day."),
        ];
        let table = vectors::table();
        let units: Vec<Unit> = texts.iter().map(|(_, t)| Unit { seq: 1, start: 0, end: t.len(), meaning: table.meaning(t) }).collect();
        let sentences: Vec<Sentence> = texts.iter().zip(&units).map(|((i, _), u)| Sentence { interview: *i, unit: u }).collect();
        let question = Question::of(&sentences);
        let ideas = group(&sentences, &question);
        assert_eq!(ideas.len(), 1);
        let sources: Vec<Source> = ideas[0].sentences.iter().map(|&i| Source { interview: texts[i].0, text: texts[i].1 }).collect();
        let label = label(&ideas[0], &sources, &HashSet::new(), &question.common, &[]).unwrap();
        assert!(label.contains("saves me") && label.contains("time"), "{label}");
        let words = label.split_whitespace().count();
        assert!((MIN_LABEL_WORDS..=MAX_LABEL_WORDS).contains(&words), "{label}");
    }

    #[test]
    fn a_label_never_drops_a_negation_nor_echoes_the_question() {
        let texts = [(0, "I don't trust the output at all."), (1, "I don't trust the output of these tools.")];
        let table = vectors::table();
        let units: Vec<Unit> = texts.iter().map(|(_, t)| Unit { seq: 1, start: 0, end: t.len(), meaning: table.meaning(t) }).collect();
        let sentences: Vec<Sentence> = texts.iter().zip(&units).map(|((i, _), u)| Sentence { interview: *i, unit: u }).collect();
        let question = Question::of(&sentences);
        let idea = &group(&sentences, &question)[0];
        let sources: Vec<Source> = idea.sentences.iter().map(|&i| Source { interview: texts[i].0, text: texts[i].1 }).collect();
        let label = label(idea, &sources, &HashSet::new(), &question.common, &[]).unwrap();
        assert!(!label.contains("trust") || label.starts_with("don't"), "{label}");
        let lexicon = Lexicon::of(Language::En);
        let question_stems: HashSet<String> = ["trust", "output"].iter().map(|w| lexicon.stem(&words::words(w)[0])).collect();
        let echo = super::label(idea, &sources, &question_stems, &question.common, &[]);
        assert!(echo.as_deref().is_none_or(|l| !l.ends_with("output")), "{echo:?}");
    }
}
