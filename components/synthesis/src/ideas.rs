//! The built-in grouping of one question's sentences into ideas, by what
//! they mean and the words they share: sentences that say one thing in other
//! words ("I get back two hours I lost on the train", "not sitting in traffic
//! every morning") are one idea, and so are sentences that name the same
//! thing ("shipping"); an idea that two interviews or more hold is a theme,
//! and its count is every interview with a sentence in it.
//!
//! 1. **Links.** Each sentence is linked to the [`NEIGHBOURS`] sentences most
//!    like it: the cosine of their meanings, plus [`WORD_WEIGHT`] times the
//!    cosine of the terms they use (each term weighed by how rare it is among
//!    the question's sentences: sharing "shipping" says more than sharing
//!    "price" when everyone talks prices). Two sentences of opposite polarity
//!    ("I don't have concerns", "I have a lot of concerns": one negates a term
//!    the other affirms) are never linked.
//! 2. **Communities.** The linked sentences are cut into communities by
//!    modularity (`communities`): a group is an idea when its sentences are
//!    linked more among themselves than the question's sentences are on
//!    average. Nothing of what the sentences share is taken out first, so the
//!    majority's idea stays whole.
//! 3. **Ideas.** Communities whose centres say the same ([`Scale::one_idea`])
//!    are one. Then every sentence belongs to the idea whose centre it is
//!    closest to, when it is close enough ([`Scale::joins`]) and of the same
//!    polarity, twice over (the centres are those of the members of the pass
//!    before): a sentence that says an idea in its own words counts for it,
//!    one that fits no idea well counts for none.
//!
//! A question with more sentences than [`MAX_GROUPED`] finds its communities
//! in an even sample of them; step 3 then places every sentence. Everything
//! is ordered by the interviews' order and the sentences' place in them,
//! never by chance: the same interviews give the same ideas.

use super::communities::{self, Graph};
use super::polarity::Polarity;
use super::units::{Scale, Unit};
use super::MAX_QUOTES;
use text::vectors::Meaning;
use std::collections::HashMap;

/// Links per sentence to the sentences most like it.
pub const NEIGHBOURS: usize = 6;
/// How much the terms two sentences share weigh beside their meanings.
pub const WORD_WEIGHT: f32 = 0.3;
/// Modularity's resolution: 1, its own.
pub const RESOLUTION: f32 = 1.0;
/// Sentences whose communities are found directly, at most (about 6 MB of similarities).
pub const MAX_GROUPED: usize = 1_200;
/// An idea is a theme when this many interviews hold it.
pub const MIN_INTERVIEWS: usize = 2;
/// An idea of more than this share of the question's interviews is held to
/// its close sentences ([`HELD_TOGETHER`]).
pub const CATCH_ALL: f32 = 0.5;
/// How much closer than joining a catch-all's sentences must be to its centre.
pub const HELD_TOGETHER: f32 = 0.1;
/// The share of an idea's sentences that say what the self-descriptions say,
/// at which the idea is about who the participants are: a third ("That depends
/// on the project", "I don't have very typical projects" beside "I have two
/// types of creative work"); what they think of their work, read beside it,
/// stays under a fifth ("I am driving the creative decisions": 0.17).
pub const ABOUT_THEM: f32 = 1.0 / 3.0;
/// Passes that give every sentence to its closest idea.
const PLACING_PASSES: usize = 2;

/// One sentence of the question, from the interview at `interview` (its place in the synthesis).
pub struct Sentence<'u> {
    pub interview: usize,
    pub unit: &'u Unit,
}

/// An idea: its sentences (indices into the question's sentences, the most
/// representative first) and the interviews that hold it (in order).
#[derive(Debug, Clone, PartialEq)]
pub struct Idea {
    pub sentences: Vec<usize>,
    pub interviews: Vec<usize>,
    /// The centre of the meanings of the sentences it is quoted by (the
    /// first of each of its first [`MAX_QUOTES`] interviews): what its label
    /// is read beside, and so weighed against.
    pub quoted: Meaning,
}

/// The ideas of one question's sentences that two interviews or more hold,
/// most interviews first.
pub fn group(sentences: &[Sentence], scale: Scale) -> Vec<Idea> {
    if sentences.is_empty() {
        return Vec::new();
    }
    let sample: Vec<usize> = match sentences.len() <= MAX_GROUPED {
        true => (0..sentences.len()).collect(),
        false => (0..MAX_GROUPED).map(|k| k * sentences.len() / MAX_GROUPED).collect(),
    };
    let words = Words::of(sentences);
    let graph = links(sentences, &sample, &words);
    let found: Vec<Vec<usize>> = communities::communities(&graph, RESOLUTION)
        .into_iter()
        .map(|community| community.into_iter().map(|k| sample[k]).collect())
        .collect();
    let mut members = merged(sentences, found, scale);
    for _ in 0..PLACING_PASSES {
        members = place(sentences, &members, scale);
        members.retain(|group| interviews_of(sentences, group).len() >= MIN_INTERVIEWS);
    }
    let speaking = interviews_of(sentences, &(0..sentences.len()).collect::<Vec<_>>()).len();
    for group in &mut members {
        held_together(sentences, group, speaking, scale);
    }
    members.retain(|group| interviews_of(sentences, group).len() >= MIN_INTERVIEWS);
    let mut ideas: Vec<Idea> = members.into_iter().map(|group| idea(sentences, group)).collect();
    ideas.sort_by(|a, b| b.interviews.len().cmp(&a.interviews.len()).then(b.sentences.len().cmp(&a.sentences.len())).then(first(a).cmp(&first(b))));
    ideas
}

/// The terms of the question's sentences, each weighed by how rare it is
/// among them (inverse document frequency), per sentence as a unit vector.
struct Words {
    /// Per sentence: `(term index, weight)`, sorted by term, unit length.
    weighted: Vec<Vec<(usize, f32)>>,
}

impl Words {
    fn of(sentences: &[Sentence]) -> Words {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut frequency: Vec<usize> = Vec::new();
        let ids: Vec<Vec<usize>> = sentences
            .iter()
            .map(|s| {
                let mut ids: Vec<usize> = s
                    .unit
                    .terms
                    .iter()
                    .map(|t| {
                        let next = index.len();
                        *index.entry(t.as_str()).or_insert(next)
                    })
                    .collect();
                ids.sort_unstable();
                ids.dedup();
                for &id in &ids {
                    if id == frequency.len() {
                        frequency.push(0);
                    }
                    frequency[id] += 1;
                }
                ids
            })
            .collect();
        let n = sentences.len() as f32;
        let weighted = ids
            .into_iter()
            .map(|ids| {
                let mut weights: Vec<(usize, f32)> = ids.into_iter().map(|id| (id, ((n + 1.0) / frequency[id] as f32).ln())).collect();
                let norm = weights.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
                if norm > 0.0 {
                    weights.iter_mut().for_each(|(_, w)| *w /= norm);
                }
                weights
            })
            .collect();
        Words { weighted }
    }

    /// How alike the terms of sentences `a` and `b` are: the cosine of their weights.
    fn cosine(&self, a: usize, b: usize) -> f32 {
        let (x, y) = (&self.weighted[a], &self.weighted[b]);
        let (mut i, mut j, mut sum) = (0, 0, 0.0);
        while i < x.len() && j < y.len() {
            match x[i].0.cmp(&y[j].0) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    sum += x[i].1 * y[j].1;
                    i += 1;
                    j += 1;
                }
            }
        }
        sum
    }
}

/// Whether two sentences say opposite things of one term: one negates what
/// the other affirms ("I don't have concerns", "a lot of concerns").
pub fn opposed(a: &Unit, b: &Unit) -> bool {
    let affirms = |unit: &Unit, term: &String| unit.terms.contains(term) && !unit.negated.contains(term);
    a.negated.iter().any(|t| affirms(b, t)) || b.negated.iter().any(|t| affirms(a, t))
}

/// The graph of the sampled sentences: each linked to its [`NEIGHBOURS`]
/// most alike (meanings and words), never to one of opposite polarity.
fn links(sentences: &[Sentence], sample: &[usize], words: &Words) -> Graph {
    let n = sample.len();
    let alike = Alike::of(sentences, sample, words);
    let mut graph = Graph::new(n);
    let mut row: Vec<(usize, f32)> = Vec::with_capacity(n);
    for a in 0..n {
        row.clear();
        row.extend((0..n).filter(|&b| b != a).filter_map(|b| alike.get(a, b).map(|similarity| (b, similarity))));
        let nearest = NEIGHBOURS.min(row.len());
        if nearest == 0 {
            continue;
        }
        row.select_nth_unstable_by(nearest - 1, |x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
        for &(b, similarity) in &row[..nearest] {
            graph.link(a, b, similarity);
        }
    }
    graph
}

/// How alike each pair of sampled sentences is, computed once per pair (the
/// measure is symmetric, and it is most of a synthesis' time): the upper
/// triangle of the matrix, row by row; `None` for a pair of opposite polarity.
struct Alike {
    n: usize,
    /// NaN where the pair is opposed.
    upper: Vec<f32>,
}

impl Alike {
    fn of(sentences: &[Sentence], sample: &[usize], words: &Words) -> Alike {
        let n = sample.len();
        let mut upper = Vec::with_capacity(n * n.saturating_sub(1) / 2);
        for a in 0..n {
            let (i, unit) = (sample[a], sentences[sample[a]].unit);
            for &j in &sample[a + 1..] {
                let other = sentences[j].unit;
                upper.push(match opposed(unit, other) {
                    true => f32::NAN,
                    false => unit.meaning.cosine(&other.meaning) + WORD_WEIGHT * words.cosine(i, j),
                });
            }
        }
        Alike { n, upper }
    }

    /// The likeness of sampled sentences `a` and `b` (`a != b`).
    fn get(&self, a: usize, b: usize) -> Option<f32> {
        let (low, high) = if a < b { (a, b) } else { (b, a) };
        let at = low * self.n - low * (low + 1) / 2 + (high - low - 1);
        Some(self.upper[at]).filter(|similarity| !similarity.is_nan())
    }
}

/// Communities whose centres say the same, joined (the closest pair first).
fn merged(sentences: &[Sentence], mut groups: Vec<Vec<usize>>, scale: Scale) -> Vec<Vec<usize>> {
    let mut centres: Vec<Meaning> = groups.iter().map(|g| centre(sentences, g)).collect();
    loop {
        let mut best: Option<(f32, usize, usize)> = None;
        for a in 0..groups.len() {
            for b in a + 1..groups.len() {
                let similarity = centres[a].cosine(&centres[b]);
                if similarity >= scale.one_idea && best.is_none_or(|(s, _, _)| similarity > s) {
                    best = Some((similarity, a, b));
                }
            }
        }
        let Some((_, a, b)) = best else { return groups };
        let joined = groups.remove(b);
        centres.remove(b);
        groups[a].extend(joined);
        groups[a].sort_unstable();
        centres[a] = centre(sentences, &groups[a]);
    }
}

/// Each sentence to the idea (of `groups`) whose centre it is closest to,
/// when it is close enough and not at odds with that idea's polarity.
fn place(sentences: &[Sentence], groups: &[Vec<usize>], scale: Scale) -> Vec<Vec<usize>> {
    let centres: Vec<Meaning> = groups.iter().map(|g| centre(sentences, g)).collect();
    let polarities: Vec<Polarity> = groups.iter().map(|g| polarity_of(sentences, g)).collect();
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); groups.len()];
    for (i, sentence) in sentences.iter().enumerate() {
        let mut order: Vec<(usize, f32)> = centres.iter().enumerate().map(|(g, c)| (g, sentence.unit.meaning.cosine(c))).collect();
        order.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let fits = order.iter().take_while(|(_, s)| *s >= scale.joins).find(|(g, _)| !polarities[*g].at_odds(&sentence.unit.terms, &sentence.unit.negated));
        if let Some(&(g, _)) = fits {
            members[g].push(i);
        }
    }
    members
}

/// No catch-all: an idea that more than [`CATCH_ALL`] of the question's
/// interviews hold keeps only the sentences that say it closely (a cosine to
/// its centre of [`Scale::joins`] and [`HELD_TOGETHER`] more): what most
/// interviews say in one breath ("I use AI for brainstorming", "AI helps me
/// plan") is several ideas, or one said alike. `speaking`: the interviews
/// with a sentence to the question.
fn held_together(sentences: &[Sentence], group: &mut Vec<usize>, speaking: usize, scale: Scale) {
    if (interviews_of(sentences, group).len() as f32) <= CATCH_ALL * speaking as f32 {
        return;
    }
    let middle = centre(sentences, group);
    group.retain(|&i| sentences[i].unit.meaning.cosine(&middle) >= scale.joins + HELD_TOGETHER);
}

/// Who the participants are is no theme: an idea at least a third
/// ([`ABOUT_THEM`]) of whose sentences are as close to the centre of the question's self-descriptions
/// (`described`, `text::self_description`) as a sentence must be to join an
/// idea says what they do, not what they think ("I have two types of creative
/// work", "I generally write copy for websites"). Such ideas are taken out;
/// their sentences are returned (indices into `sentences`), for the profile.
/// Fewer than [`MIN_INTERVIEWS`] self-descriptions have no centre to go by.
pub fn about_the_participants(ideas: &mut Vec<Idea>, sentences: &[Sentence], described: &[&Meaning], scale: Scale) -> Vec<usize> {
    if described.len() < MIN_INTERVIEWS {
        return Vec::new();
    }
    let centre = Meaning::mean(described.iter().copied());
    let mut background = Vec::new();
    ideas.retain(|idea| {
        let near = idea.sentences.iter().filter(|&&k| sentences[k].unit.meaning.cosine(&centre) >= scale.joins).count();
        let about_them = near as f32 >= ABOUT_THEM * idea.sentences.len() as f32;
        if about_them {
            background.extend(&idea.sentences);
        }
        !about_them
    });
    background.sort_unstable();
    background
}

/// One idea, one place: where two questions' ideas say the same (their
/// quoted centres within [`Scale::one_idea`]), it is shown once, under the
/// question where more interviews hold it (the earlier on a tie), and not
/// counted again under the other. `questions`: each question's ideas.
pub fn one_place(questions: &mut [&mut Vec<Idea>], scale: Scale) {
    // The pairs that say the same, the most alike first: an idea given up to
    // one is compared no further, so that a chain of them keeps one.
    let mut alike: Vec<(f32, (usize, usize), (usize, usize))> = Vec::new();
    for a in 0..questions.len() {
        for b in a + 1..questions.len() {
            for (i, first) in questions[a].iter().enumerate() {
                for (j, second) in questions[b].iter().enumerate() {
                    let cosine = first.quoted.cosine(&second.quoted);
                    if cosine >= scale.one_idea {
                        alike.push((cosine, (a, i), (b, j)));
                    }
                }
            }
        }
    }
    alike.sort_by(|x, y| y.0.total_cmp(&x.0).then(x.1.cmp(&y.1)).then(x.2.cmp(&y.2)));
    let held = |(q, i): (usize, usize)| questions[q][i].interviews.len();
    let mut dropped: Vec<(usize, usize)> = Vec::new();
    for (_, first, second) in alike {
        if dropped.contains(&first) || dropped.contains(&second) {
            continue;
        }
        dropped.push(if held(second) > held(first) { first } else { second });
    }
    for (q, ideas) in questions.iter_mut().enumerate() {
        let mut index = 0;
        ideas.retain(|_| {
            index += 1;
            !dropped.contains(&(q, index - 1))
        });
    }
}

/// How the sentences `group` of `sentences` hold their terms.
fn polarity_of<'t>(sentences: &[Sentence<'t>], group: &[usize]) -> Polarity<'t> {
    Polarity::of(group.iter().map(|&m| (sentences[m].unit.terms.as_slice(), sentences[m].unit.negated.as_slice())))
}

fn centre(sentences: &[Sentence], group: &[usize]) -> Meaning {
    Meaning::mean(group.iter().map(|&i| &sentences[i].unit.meaning))
}

fn first(idea: &Idea) -> usize {
    idea.sentences.iter().copied().min().unwrap_or(usize::MAX)
}

fn interviews_of(sentences: &[Sentence], group: &[usize]) -> Vec<usize> {
    let mut interviews: Vec<usize> = group.iter().map(|&i| sentences[i].interview).collect();
    interviews.sort_unstable();
    interviews.dedup();
    interviews
}

/// An idea of `group`: its sentences by closeness to its centre.
fn idea(sentences: &[Sentence], group: Vec<usize>) -> Idea {
    let middle = centre(sentences, &group);
    let mut closeness: Vec<(usize, f32)> = group.iter().map(|&i| (i, sentences[i].unit.meaning.cosine(&middle))).collect();
    closeness.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let group: Vec<usize> = closeness.into_iter().map(|(i, _)| i).collect();
    let quoted = centre(sentences, &quoted_by(group.iter().copied(), |&i| sentences[i].interview));
    Idea { interviews: interviews_of(sentences, &group), quoted, sentences: group }
}

/// What a theme is quoted by, of its sentences (`sentences`, the most
/// central first): the first of each interview, of its first [`MAX_QUOTES`]
/// interviews.
pub fn quoted_by<T>(sentences: impl IntoIterator<Item = T>, interview_of: impl Fn(&T) -> usize) -> Vec<T> {
    let mut quoted: Vec<T> = Vec::with_capacity(MAX_QUOTES);
    for sentence in sentences {
        if quoted.len() == MAX_QUOTES {
            break;
        }
        if !quoted.iter().any(|q| interview_of(q) == interview_of(&sentence)) {
            quoted.push(sentence);
        }
    }
    quoted
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCALE: Scale = Scale { joins: 0.53, one_idea: 0.70 };

    fn idea(interviews: &[usize], quoted: [f32; 3]) -> Idea {
        Idea { sentences: (0..interviews.len()).collect(), interviews: interviews.to_vec(), quoted: Meaning::from_vector(quoted.to_vec()) }
    }

    fn unit(meaning: [f32; 3]) -> Unit {
        Unit { seq: 1, start: 0, end: 1, meaning: Meaning::from_vector(meaning.to_vec()), terms: vec!["x".into()], negated: Vec::new(), describes: None }
    }

    #[test]
    fn an_idea_of_two_questions_is_a_theme_of_the_one_more_interviews_hold() {
        let (mut first, mut second, mut third) = (
            vec![idea(&[0, 1, 2], [1.0, 0.0, 0.0])],
            vec![idea(&[0, 1, 2, 3], [0.99, 0.1, 0.0]), idea(&[4, 5], [0.0, 1.0, 0.0])],
            vec![idea(&[0, 1], [0.98, 0.15, 0.0]), idea(&[6, 7], [0.0, 0.0, 1.0])],
        );
        one_place(&mut [&mut first, &mut second, &mut third], SCALE);
        assert!(first.is_empty(), "held by more interviews under the second question");
        assert_eq!(second.iter().map(|i| i.interviews.len()).collect::<Vec<_>>(), [4, 2], "the chain of three keeps one");
        assert_eq!(third.iter().map(|i| &i.interviews).collect::<Vec<_>>(), [&vec![6, 7]]);
    }

    #[test]
    fn an_idea_that_says_what_the_self_descriptions_say_is_about_the_participants() {
        let units = [unit([1.0, 0.1, 0.0]), unit([0.9, 0.0, 0.3]), unit([0.0, 1.0, 0.0]), unit([0.1, 1.0, 0.0]), unit([0.0, 0.9, 0.1])];
        let sentences: Vec<Sentence> = units.iter().enumerate().map(|(interview, unit)| Sentence { interview, unit }).collect();
        let of = |members: &[usize]| Idea { sentences: members.to_vec(), interviews: members.to_vec(), quoted: Meaning::default() };
        let described = [Meaning::from_vector(vec![1.0, 0.0, 0.0]), Meaning::from_vector(vec![0.95, 0.0, 0.2])];
        let described: Vec<&Meaning> = described.iter().collect();
        let mut ideas = vec![of(&[0, 1, 2]), of(&[3, 4])];
        assert_eq!(about_the_participants(&mut ideas, &sentences, &described, SCALE), [0, 1, 2], "two of its three sentences say what they do");
        assert_eq!(ideas.iter().map(|i| i.sentences.clone()).collect::<Vec<_>>(), [vec![3, 4]]);
        let mut ideas = vec![of(&[0, 1, 2])];
        assert!(about_the_participants(&mut ideas, &sentences, &described[..1], SCALE).is_empty(), "one self-description is no centre");
        assert_eq!(ideas.len(), 1);
    }
}
