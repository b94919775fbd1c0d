//! The participants' profile: who the interviews say they are. The sentences
//! in which a participant says their role or their own work
//! (`text::self_description`, marked on their units when the maintenance run
//! makes them) are kept out of every question's themes and counted here
//! instead: how many interviews say who they are, and how many name each
//! kind of role, with their own words.

use super::units::Unit;
use super::Quote;
use text::self_description::{role_kind, SelfDescription};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};

/// Quotes per role, at most.
pub const ROLE_QUOTES: usize = 3;
/// A role's head this long or longer is the kind of role of the heads that
/// end with it ("writer" of "copywriter", "screenwriter").
const KIND_AT_LEAST: usize = 4;

/// `participants` in the synthesis.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Participants {
    /// Analysed interviews with a sentence that says who they are.
    pub described: usize,
    /// Kinds of role, the most interviews first.
    pub roles: Vec<Role>,
    /// What they say of their work, field or project, role or not.
    pub work: Work,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Work {
    /// Interviews that say what their work is.
    pub interviews: usize,
    pub quotes: Vec<Quote>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Role {
    /// The role's head word, lower case, as the participants wrote it ("writer").
    pub role: String,
    /// Interviews that name it (or a kind of it: "copywriter" counts for "writer").
    pub interviews: usize,
    pub quotes: Vec<Quote>,
}

/// Whether a question's sentence (`(interview, unit)`) says who its participant is.
pub fn describes_participant(sentence: &(usize, Unit)) -> bool {
    sentence.1.describes.is_some()
}

/// The roles before their quotes are read: per kind, the `(interview, unit)`
/// of each interview's first sentence that names it, in the interviews' order.
pub struct Counted<'u> {
    pub described: usize,
    pub roles: Vec<(String, Vec<(usize, &'u Unit)>)>,
    /// Each interview's first sentence of its work.
    pub work: Vec<(usize, &'u Unit)>,
}

/// Counts the sentences that say who the participants are, of every question.
pub fn count<'u>(sentences: impl IntoIterator<Item = &'u (usize, Unit)>) -> Counted<'u> {
    let mut described: Vec<usize> = Vec::new();
    let mut by_head: BTreeMap<&'u str, Vec<(usize, &'u Unit)>> = BTreeMap::new();
    let mut work: Vec<(usize, &'u Unit)> = Vec::new();
    for (interview, unit) in sentences {
        match &unit.describes {
            Some(SelfDescription::Role(head)) => by_head.entry(role_kind(head)).or_default().push((*interview, unit)),
            Some(SelfDescription::Work) => work.push((*interview, unit)),
            None => continue,
        }
        described.push(*interview);
    }
    described.sort_unstable();
    described.dedup();
    // "copywriter" and "screenwriter" are kinds of "writer" where someone says "writer".
    let heads: Vec<&str> = by_head.keys().copied().collect();
    let kind_of = |head: &str| -> String {
        let kind = heads.iter().filter(|kind| kind.len() >= KIND_AT_LEAST && kind.len() < head.len() && head.ends_with(**kind)).min_by_key(|kind| kind.len());
        kind.copied().unwrap_or(head).to_string()
    };
    let mut kinds: HashMap<String, Vec<(usize, &'u Unit)>> = HashMap::new();
    for (head, said) in by_head {
        kinds.entry(kind_of(head)).or_default().extend(said);
    }
    let mut roles: Vec<(String, Vec<(usize, &'u Unit)>)> = kinds
        .into_iter()
        .map(|(kind, said)| (kind, firsts(said)))
        .collect();
    roles.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
    Counted { described: described.len(), roles, work: firsts(work) }
}

/// Each interview's first sentence of `said`, in the interviews' order.
fn firsts(mut said: Vec<(usize, &Unit)>) -> Vec<(usize, &Unit)> {
    said.sort_by_key(|(interview, unit)| (*interview, unit.seq, unit.start));
    said.dedup_by_key(|(interview, _)| *interview);
    said
}

impl Counted<'_> {
    /// The `(interview, seq)` of the answers its quotes come from.
    pub fn quoted(&self) -> impl Iterator<Item = (usize, i64)> + '_ {
        let quoted = self.roles.iter().map(|(_, said)| said).chain([&self.work]);
        quoted.flat_map(|said| said.iter().take(ROLE_QUOTES).map(|(interview, unit)| (*interview, unit.seq)))
    }

    /// The profile, quoting each role's first sentences by `text_of(interview, unit)`.
    pub fn written(&self, text_of: impl Fn(usize, &Unit) -> Option<Quote>) -> Participants {
        let quotes = |said: &[(usize, &Unit)]| said.iter().take(ROLE_QUOTES).filter_map(|(interview, unit)| text_of(*interview, unit)).collect();
        let roles = self
            .roles
            .iter()
            .map(|(role, said)| Role {
                role: role.clone(),
                interviews: said.len(),
                quotes: quotes(said),
            })
            .collect();
        let work = Work { interviews: self.work.len(), quotes: quotes(&self.work) };
        Participants { described: self.described, roles, work }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use text::vectors::Meaning;

    fn unit(seq: i64, describes: Option<SelfDescription>) -> Unit {
        Unit { seq, start: 0, end: 1, meaning: Meaning::default(), terms: vec!["x".into()], negated: Vec::new(), describes }
    }

    #[test]
    fn roles_are_counted_once_an_interview_by_their_kind() {
        let role = |head: &str| Some(SelfDescription::Role(head.into()));
        let sentences = vec![
            (0, unit(1, role("writer"))),
            (0, unit(3, role("novelist"))),
            (1, unit(1, role("copywriter"))),
            (2, unit(1, role("writer"))),
            (2, unit(5, role("writer"))),
            (3, unit(1, Some(SelfDescription::Work))),
            (4, unit(1, None)),
            (5, unit(1, role("illustrator"))),
        ];
        let counted = count(&sentences);
        assert_eq!(counted.described, 5, "interviews 0, 1, 2, 3 and 5 say who they are");
        let roles: Vec<(&str, Vec<usize>)> = counted.roles.iter().map(|(role, said)| (role.as_str(), said.iter().map(|(at, _)| *at).collect())).collect();
        assert_eq!(roles, [("writer", vec![0, 1, 2]), ("illustrator", vec![5])], "a novelist is a kind of writer");
        assert_eq!(counted.work.iter().map(|(at, _)| *at).collect::<Vec<_>>(), [3]);
        assert_eq!(counted.quoted().collect::<Vec<_>>(), [(0, 1), (1, 1), (2, 1), (5, 1), (3, 1)]);
    }
}
