//! How sentences hold their terms, affirmed or negated: what keeps "no
//! concerns" and "a lot of concerns" apart, for the ideas (`ideas`) and
//! their labels (`naming`) alike.

use std::collections::HashMap;

/// How sentences hold their terms: per term, how many affirm it and how many
/// negate it. An idea's sentences (`ideas`) and its label's sources (`naming`)
/// are weighed alike.
pub struct Polarity<'t> {
    held: HashMap<&'t str, (usize, usize)>,
}

impl<'t> Polarity<'t> {
    /// Of sentences given as `(terms, negated terms)`.
    pub fn of(sentences: impl IntoIterator<Item = (&'t [String], &'t [String])>) -> Polarity<'t> {
        let mut held: HashMap<&'t str, (usize, usize)> = HashMap::new();
        for (terms, negated) in sentences {
            for term in terms {
                let counts = held.entry(term.as_str()).or_default();
                match negated.contains(term) {
                    true => counts.1 += 1,
                    false => counts.0 += 1,
                }
            }
        }
        Polarity { held }
    }

    /// Whether a sentence of `terms` negates (`negated`) a term that most of
    /// these sentences with it affirm, or affirms one they mostly negate.
    pub fn at_odds(&self, terms: &[String], negated: &[String]) -> bool {
        terms.iter().any(|term| {
            let Some(&(affirmed, negations)) = self.held.get(term.as_str()) else { return false };
            match negated.contains(term) {
                true => affirmed > negations,
                false => negations > affirmed,
            }
        })
    }
}
