//! The built-in grouping of one question's sentences into ideas, by meaning:
//! sentences whose meanings (`text::vectors`) are alike are one idea, whatever
//! words they use ("it saves me hours" and "I get through my admin much
//! faster"); an idea that two interviews or more hold is a theme.
//!
//! What every sentence of the question shares (the mean of their meanings:
//! the question's subject, "AI in my work") is taken out of each first, so
//! that sentences are grouped by what they say about it, not by the subject
//! they all name: the more of it the more interviews answered (`(n - k) /
//! (n + k)`, k = [`SHARED_PRIOR`]: none up to 3 interviews, half at 9,
//! 0.9 at 60), since with a few interviews what they share may well be the
//! one idea they hold. Sentences are then grouped by average linkage: the two groups whose sentences
//! are most alike on average are joined, again and again, while that average
//! is at least [`SAME_IDEA`] (computed by the nearest-neighbour chain, in time
//! and memory quadratic in the sentences). A question with more sentences
//! than [`MAX_GROUPED`] groups an even sample of them, then gives every other
//! sentence to the idea whose centre it is closest to, when close enough
//! ([`JOINS_IDEA`]). Ideas whose centres are nearly the same ([`ONE_IDEA`]) are
//! one. Everything is ordered by the interviews' order and the sentences'
//! place in them, never by chance: the same interviews give the same ideas.

use super::units::Unit;
use crate::text::vectors::{Common, Meaning};

/// Two groups whose sentences are this alike on average (cosine) are one idea.
pub const SAME_IDEA: f32 = 0.45;
/// A sentence left out of the sample joins an idea whose centre is this close.
pub const JOINS_IDEA: f32 = 0.62;
/// Two ideas whose centres are this close say the same thing.
pub const ONE_IDEA: f32 = 0.60;
/// Two ideas that every one of their interviews names with the same word
/// are one when their centres are at least this alike (`builtin`).
pub const SAME_WORD_IDEA: f32 = 0.25;
/// Sentences grouped directly, at most (about 6 MB of similarities).
pub const MAX_GROUPED: usize = 1_200;
/// Up to this many interviews, nothing of what a question's sentences share
/// is taken out before grouping them; more of it the more interviews.
pub const SHARED_PRIOR: f32 = 3.0;
/// An idea is a theme when this many interviews hold it.
pub const MIN_INTERVIEWS: usize = 2;

/// One sentence of the question, from the interview at `interview` (its place in the synthesis).
pub struct Sentence<'u> {
    pub interview: usize,
    pub unit: &'u Unit,
}

/// The question's sentences as they are grouped: each one's meaning beyond
/// what they all share.
pub struct Question {
    /// What the sentences share, as much of it as is taken out: part of the mean of their meanings.
    pub common: Common,
    /// Per sentence, its meaning beyond `common`.
    pub meanings: Vec<Meaning>,
}

impl Question {
    pub fn of(sentences: &[Sentence]) -> Question {
        let mut interviews: Vec<usize> = sentences.iter().map(|s| s.interview).collect();
        interviews.sort_unstable();
        interviews.dedup();
        let n = interviews.len() as f32;
        let share = ((n - SHARED_PRIOR) / (n + SHARED_PRIOR)).max(0.0);
        let common = Common::of(sentences.iter().map(|s| &s.unit.meaning)).part(share);
        let meanings = sentences.iter().map(|s| s.unit.meaning.beyond(&common)).collect();
        Question { common, meanings }
    }
}

/// An idea: its sentences (indices into the question's sentences, the most
/// representative first), the interviews that hold it (in order) and its
/// centre (beyond what the question's sentences share).
#[derive(Debug, Clone, PartialEq)]
pub struct Idea {
    pub sentences: Vec<usize>,
    pub interviews: Vec<usize>,
    pub centre: Meaning,
}

/// The ideas of one question's sentences that two interviews or more hold,
/// most interviews first.
pub fn group(sentences: &[Sentence], question: &Question) -> Vec<Idea> {
    let sample: Vec<usize> = match sentences.len() <= MAX_GROUPED {
        true => (0..sentences.len()).collect(),
        false => (0..MAX_GROUPED).map(|k| k * sentences.len() / MAX_GROUPED).collect(),
    };
    let meanings: Vec<&Meaning> = sample.iter().map(|&i| &question.meanings[i]).collect();
    let mut groups: Vec<Vec<usize>> =
        average_linkage(&meanings, SAME_IDEA).into_iter().map(|group| group.into_iter().map(|k| sample[k]).collect()).collect();
    groups.retain(|group| interviews_of(sentences, group).len() >= MIN_INTERVIEWS);
    join_the_rest(&question.meanings, &mut groups);
    let mut ideas: Vec<Idea> = groups.into_iter().map(|group| idea(sentences, question, group)).collect();
    ideas.sort_by(|a, b| b.interviews.len().cmp(&a.interviews.len()).then(b.sentences.len().cmp(&a.sentences.len())).then(first(a).cmp(&first(b))));
    let mut distinct: Vec<Idea> = Vec::new();
    for candidate in ideas {
        match distinct.iter_mut().find(|idea| idea.centre.cosine(&candidate.centre) >= ONE_IDEA) {
            Some(same) => {
                let mut joined = std::mem::take(&mut same.sentences);
                joined.extend(candidate.sentences);
                *same = idea(sentences, question, joined);
            }
            None => distinct.push(candidate),
        }
    }
    distinct.sort_by(|a, b| b.interviews.len().cmp(&a.interviews.len()).then(b.sentences.len().cmp(&a.sentences.len())).then(first(a).cmp(&first(b))));
    distinct
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

/// An idea of `group`: its centre, its sentences by closeness to it.
fn idea(sentences: &[Sentence], question: &Question, group: Vec<usize>) -> Idea {
    let centre = Meaning::mean(group.iter().map(|&i| &question.meanings[i]));
    let mut closeness: Vec<(usize, f32)> = group.iter().map(|&i| (i, question.meanings[i].cosine(&centre))).collect();
    closeness.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let group: Vec<usize> = closeness.into_iter().map(|(i, _)| i).collect();
    Idea { interviews: interviews_of(sentences, &group), sentences: group, centre }
}

/// Gives each sentence in no group (left out of the sample, or of no idea two
/// interviews hold) to the group whose centre it is closest to, when that is
/// at least [`JOINS_IDEA`]: a sentence that says an idea in other words than
/// its neighbours still counts for it.
fn join_the_rest(meanings: &[Meaning], groups: &mut [Vec<usize>]) {
    let centres: Vec<Meaning> = groups.iter().map(|g| Meaning::mean(g.iter().map(|&i| &meanings[i]))).collect();
    let mut grouped = vec![false; meanings.len()];
    groups.iter().flatten().for_each(|&i| grouped[i] = true);
    for (i, meaning) in meanings.iter().enumerate().filter(|(i, _)| !grouped[*i]) {
        let best = centres.iter().enumerate().map(|(g, c)| (g, meaning.cosine(c))).max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0)));
        if let Some((g, _)) = best.filter(|b| b.1 >= JOINS_IDEA) {
            groups[g].push(i);
        }
    }
}

/// The groups of `meanings` (indices) by average linkage, cut where the
/// average similarity of two groups falls below `threshold`; groups of one
/// included, in order of their first member.
///
/// The nearest-neighbour chain: follow each group to the one most like it
/// until two are each other's nearest, join them (Lance–Williams: the joined
/// group's similarity to any other is the size-weighted mean of its parts'),
/// and go on. Average linkage never joins two groups more alike than an
/// earlier join, so the joins at or above the threshold are exactly the
/// groups a greedy cut would make.
pub fn average_linkage(meanings: &[&Meaning], threshold: f32) -> Vec<Vec<usize>> {
    let n = meanings.len();
    let mut similarity = vec![0.0f32; n * n];
    for i in 0..n {
        for j in i + 1..n {
            let s = meanings[i].cosine(meanings[j]);
            similarity[i * n + j] = s;
            similarity[j * n + i] = s;
        }
    }
    let mut size = vec![1usize; n];
    let mut active = vec![true; n];
    // Each group's members while it is still open; a group joined below the threshold is closed.
    let mut members: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    let mut closed = vec![false; n];
    let mut done: Vec<Vec<usize>> = Vec::new();
    let mut chain: Vec<usize> = Vec::new();
    let mut remaining = n;
    while remaining > 1 {
        if chain.is_empty() {
            chain.push(active.iter().position(|&a| a).unwrap_or(0));
        }
        let a = chain[chain.len() - 1];
        let previous = chain.len().checked_sub(2).map(|k| chain[k]);
        let mut best = previous;
        let mut best_similarity = previous.map_or(f32::NEG_INFINITY, |p| similarity[a * n + p]);
        for x in 0..n {
            if x != a && active[x] && similarity[a * n + x] > best_similarity {
                best = Some(x);
                best_similarity = similarity[a * n + x];
            }
        }
        let Some(b) = best else { break };
        if Some(b) != previous {
            chain.push(b);
            continue;
        }
        chain.truncate(chain.len() - 2);
        let (keep, gone) = (a.min(b), a.max(b));
        if best_similarity >= threshold && !closed[keep] && !closed[gone] {
            let moved = std::mem::take(&mut members[gone]);
            members[keep].extend(moved);
        } else {
            for g in [keep, gone] {
                if !closed[g] {
                    done.push(std::mem::take(&mut members[g]));
                    closed[g] = true;
                }
            }
        }
        for x in 0..n {
            if active[x] && x != keep && x != gone {
                let joined = (size[keep] as f32 * similarity[keep * n + x] + size[gone] as f32 * similarity[gone * n + x])
                    / (size[keep] + size[gone]) as f32;
                similarity[keep * n + x] = joined;
                similarity[x * n + keep] = joined;
            }
        }
        size[keep] += size[gone];
        active[gone] = false;
        remaining -= 1;
    }
    for g in 0..n {
        if active[g] && !closed[g] {
            done.push(std::mem::take(&mut members[g]));
        }
    }
    for group in &mut done {
        group.sort_unstable();
    }
    done.retain(|g| !g.is_empty());
    done.sort_by_key(|g| g[0]);
    done
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::vectors::table;

    fn unit(seq: i64, text: &str) -> Unit {
        Unit { seq, start: 0, end: text.len(), meaning: table().meaning(text) }
    }

    #[test]
    fn average_linkage_cuts_at_the_threshold() {
        let m = |v: &[f32]| Meaning::from_bytes(&v.iter().map(|x| (x * 100.0) as i8 as u8).collect::<Vec<_>>());
        let points = [m(&[1.0, 0.0, 0.0]), m(&[0.9, 0.1, 0.0]), m(&[0.0, 1.0, 0.0]), m(&[0.1, 0.9, 0.0]), m(&[0.0, 0.0, 1.0])];
        let refs: Vec<&Meaning> = points.iter().collect();
        assert_eq!(average_linkage(&refs, 0.9), vec![vec![0, 1], vec![2, 3], vec![4]]);
        assert_eq!(average_linkage(&refs, -1.0), vec![vec![0, 1, 2, 3, 4]]);
        assert_eq!(average_linkage(&refs, 1.1), vec![vec![0], vec![1], vec![2], vec![3], vec![4]]);
    }

    #[test]
    fn sentences_that_mean_the_same_are_one_idea_across_interviews() {
        let said = [
            "The shipping costs only show up on the very last page.",
            "Honestly it is the surprise shipping costs at the end.",
            "I leave when the shipping costs are higher than the item itself.",
            "Hidden shipping costs, every single time.",
            "Being forced to create an account before I can pay.",
            "When the shop insists that I create an account first.",
            "I do not want yet another account with a password to remember.",
        ];
        let noise = [
            "My grandmother grew tomatoes in the garden.",
            "The saxophone lessons in Lisbon were fun.",
            "Our dolphin trip to Oslo was cold.",
            "A glacier hike near Reykjavik last winter.",
            "The violin concert in Vienna sold out.",
            "Kayaking around the fjords with my cousin.",
            "We baked rhubarb pie for the neighbours.",
            "The lighthouse museum was closed on Monday.",
        ];
        // Interview i said theme sentences i % 4 (shipping) and, for i < 3, an account sentence; and a noise sentence.
        let mut texts: Vec<(usize, &str)> = Vec::new();
        for i in 0..8 {
            texts.push((i, said[i % 4]));
            if i < 3 {
                texts.push((i, said[4 + i]));
            }
            texts.push((i, noise[i]));
        }
        let units: Vec<Unit> = texts.iter().map(|(_, t)| unit(1, t)).collect();
        let sentences: Vec<Sentence> = texts.iter().zip(&units).map(|((i, _), u)| Sentence { interview: *i, unit: u }).collect();
        let ideas = group(&sentences, &Question::of(&sentences));
        // Each idea says one thing: all its sentences are of one planted theme, none is noise.
        let theme_of = |k: usize| said.iter().position(|t| *t == texts[k].1).map(|p| if p < 4 { "shipping" } else { "account" });
        for idea in &ideas {
            let themes: Vec<Option<&str>> = idea.sentences.iter().map(|&k| theme_of(k)).collect();
            assert!(themes.iter().all(|t| t.is_some() && *t == themes[0]), "{themes:?}");
        }
        // Every interview that spoke of shipping costs is in an idea of them.
        let shipping: Vec<usize> = ideas.iter().filter(|i| theme_of(i.sentences[0]) == Some("shipping")).flat_map(|i| i.interviews.clone()).collect();
        assert!((0..8).all(|i| shipping.contains(&i)), "{ideas:?}");
        assert!(ideas.iter().any(|i| theme_of(i.sentences[0]) == Some("account")), "{ideas:?}");
    }
}
