//! The built-in grouping of one question's answers into themes: an idea that
//! recurs across interviews is a term (a content word's stem) that the answers
//! of several interviews hold.
//!
//! Every term of two or more interviews is a candidate, but for the words of
//! the question itself (an answer that echoes the question says nothing new).
//! Candidates are taken by how many interviews hold them, most first; one
//! whose interviews are mostly a theme's already (Jaccard index of the two
//! sets at least [`SAME_IDEA`]: "shipping" and "costs" in the answers that say
//! "shipping costs") is the same idea and is left out; the others become
//! themes, up to [`MAX_THEMES`]. A theme's interviews are those that hold its
//! term: counts come from that assignment. Terms are compared within one
//! language (each interview's): the same idea in two languages is two themes,
//! each labelled in its own words.

use super::digest::AnswerTerms;
use projects_core::Language;
use std::collections::{HashMap, HashSet};

/// At most this many themes per question.
pub const MAX_THEMES: usize = 12;
/// A theme holds at least this many interviews.
pub const MIN_INTERVIEWS: usize = 2;
/// Two terms whose interview sets overlap this much (Jaccard index) are one idea.
const SAME_IDEA: f64 = 0.5;

/// One interview's answers to the question.
pub struct InterviewAnswers<'d> {
    /// The interview's place in the synthesis (oldest first).
    pub interview: usize,
    pub language: Language,
    pub answers: Vec<AnswerTerms<'d>>,
    /// Its sentences and their meanings as stored (`units::encode`), if written yet.
    pub units: Option<&'d str>,
}

/// A theme as the grouping finds it: its term, and where the answers hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Theme {
    pub language: Language,
    pub term: String,
    /// The interviews that hold the term, in order.
    pub interviews: Vec<usize>,
    /// Per interview, the seq of its first answer that holds the term.
    pub answers: Vec<(usize, i64)>,
}

fn overlap(a: &[usize], b: &[usize]) -> usize {
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                common += 1;
                i += 1;
                j += 1;
            }
        }
    }
    common
}

fn jaccard(a: &[usize], b: &[usize]) -> f64 {
    let common = overlap(a, b);
    common as f64 / (a.len() + b.len() - common) as f64
}

/// The themes of one question's answers, most interviews first. `echoed`: the
/// terms of the question itself, per language.
pub fn group(interviews: &[InterviewAnswers], echoed: &HashMap<Language, HashSet<String>>) -> Vec<Theme> {
    let mut by_term: HashMap<(Language, &str), Theme> = HashMap::new();
    for interview in interviews {
        for answer in &interview.answers {
            for term in &answer.terms {
                let theme = by_term.entry((interview.language, term)).or_insert_with(|| Theme {
                    language: interview.language,
                    term: term.to_string(),
                    interviews: Vec::new(),
                    answers: Vec::new(),
                });
                if theme.interviews.last() != Some(&interview.interview) {
                    theme.interviews.push(interview.interview);
                    theme.answers.push((interview.interview, answer.seq));
                }
            }
        }
    }
    let mut candidates: Vec<Theme> = by_term
        .into_values()
        .filter(|t| t.interviews.len() >= MIN_INTERVIEWS)
        .filter(|t| !echoed.get(&t.language).is_some_and(|terms| terms.contains(&t.term)))
        .collect();
    // Most interviews first; then the longer (more specific) term; then by name, for the same order every time.
    candidates.sort_by(|a, b| {
        b.interviews
            .len()
            .cmp(&a.interviews.len())
            .then(b.term.chars().count().cmp(&a.term.chars().count()))
            .then(a.term.cmp(&b.term))
            .then(a.language.as_str().cmp(b.language.as_str()))
    });
    let mut themes: Vec<Theme> = Vec::new();
    for candidate in candidates {
        if themes.len() == MAX_THEMES {
            break;
        }
        let same_idea = themes
            .iter()
            .any(|t| t.language == candidate.language && jaccard(&t.interviews, &candidate.interviews) >= SAME_IDEA);
        if !same_idea {
            themes.push(candidate);
        }
    }
    themes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interview(index: usize, terms: &[&'static str]) -> InterviewAnswers<'static> {
        InterviewAnswers { interview: index, language: Language::En, answers: vec![AnswerTerms { seq: 1, terms: terms.to_vec() }], units: None }
    }

    #[test]
    fn recurring_terms_become_themes_and_one_idea_is_one_theme() {
        let mut interviews = Vec::new();
        for i in 0..30 {
            let mut terms = vec![["unique", "noise", "words"][i % 3]];
            if i < 12 {
                terms.extend(["ship", "cost"]);
            }
            if (10..18).contains(&i) {
                terms.extend(["account", "creat"]);
            }
            if i % 5 == 0 {
                terms.push("checkout");
            }
            interviews.push(interview(i, &terms));
        }
        let echoed = HashMap::from([(Language::En, HashSet::from(["checkout".to_string()]))]);
        let themes = group(&interviews, &echoed);
        let summary: Vec<(&str, usize)> = themes.iter().map(|t| (t.term.as_str(), t.interviews.len())).collect();
        assert_eq!(summary, [("cost", 12), ("unique", 10), ("noise", 10), ("words", 10), ("account", 8)]);
        assert_eq!(themes[0].answers[0], (0, 1));
    }

    #[test]
    fn languages_are_grouped_apart_and_single_interviews_are_no_theme() {
        let mut german = interview(1, &["preis"]);
        german.language = Language::De;
        let interviews = [interview(0, &["preis"]), german, interview(2, &["alone"])];
        assert!(group(&interviews, &HashMap::new()).is_empty());
    }
}
