//! English noun phrases and activities: the whole phrases a follow-up may
//! quote and ask about (docs/sessions.md, "Quotes").
//!
//! A blind reader marks a quote awkward when it is cut inside a clause ("could
//! skip weeks easily without hunting", "spend on groceries for the whole
//! family"). What reads as a thing the participant named is a noun phrase
//! ("the drudge work", "chord progressions", "the cost of delivery") or an
//! activity led by its gerund ("brainstorming topic ideas", "digging into
//! broad topics"). So a phrase here begins where such a phrase begins: after a
//! determiner (left out of the quote), a preposition, a verb whose object it
//! is, the start of a sentence (when a verb follows it: it is the subject),
//! or, for an activity, a list's comma or a progressive "been". It runs over
//! the words that can stand in one (no verb, adverb or pronoun; one "of" or
//! "and" may join two parts) and ends on a word that can end one (not an
//! adjective left hanging: "the same"). A phrase that a negation reaches ("no
//! good plugins", "without hunting through the settings") is none: quoted
//! without it, it would say the opposite.
//!
//! The word lists are data (`noun_phrases.json`), for a reader to edit.

use super::lexicon::Lexicon;
use super::words::{words, Word};
use serde::Deserialize;
use std::collections::HashSet;
use std::ops::Range;
use std::sync::OnceLock;

/// Pronouns and "to" that follow a verb, not a noun: "AI gives *me*", "it *to*".
const OBJECTS: [&str; 7] = ["me", "us", "them", "him", "her", "it", "to"];
/// Words that begin another clause or part: a gerund before one ends its compound ("receipt scanning *so* I").
const CONJUNCTIONS: [&str; 9] = ["so", "and", "or", "but", "because", "when", "which", "if", "while"];
/// Adverbs after which a phrase may stand as the answer's point.
const HEDGES: [&str; 8] = ["maybe", "perhaps", "probably", "mostly", "mainly", "especially", "usually", "definitely"];
/// Subjects: the word after one is its verb ("I *research* medieval manuscripts").
const SUBJECTS: [&str; 4] = ["i", "we", "they", "you"];

/// What a phrase names, as its form tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// A thing, a tool, an idea, a problem: "reference images".
    Noun,
    /// Something done, led by its gerund: "brainstorming topic ideas".
    Activity,
    /// What the participant says they are: "media composer" of "I'm a media composer".
    Role,
    /// What the participant says they do, a verb and its object right after "I":
    /// "compose music" of "I compose music", "manage a small team of writers".
    Doing,
}

/// A whole noun phrase or activity of an answer, exactly as written.
#[derive(Debug, Clone, PartialEq)]
pub struct NounPhrase<'a> {
    pub text: &'a str,
    /// Its bytes in the answer.
    pub range: Range<usize>,
    pub form: Form,
}

/// The most words a quoted phrase holds, and its longest: a quote is short.
const MAX_WORDS: usize = 5;
const MAX_CHARS: usize = 48;
/// How far before a phrase a negation reaches it ("*no* really good plugins").
const NEGATION_REACH: usize = 3;

#[derive(Deserialize)]
struct Lists {
    determiners: HashSet<String>,
    negating: HashSet<String>,
    prepositions: HashSet<String>,
    progressive: HashSet<String>,
    role_leads: Vec<Vec<String>>,
    verbs: HashSet<String>,
    /// Words that are nouns as often as verbs ("drudge *work*", "I *use* AI"): in a phrase, but a verb before one.
    noun_or_verb: HashSet<String>,
    adjectives: HashSet<String>,
    vague: HashSet<String>,
    /// Words in -ly that are no adverbs ("friendly staff", "family").
    not_adverbs: HashSet<String>,
    /// Adverbs without -ly ("twice", "also"): no word of a noun phrase.
    adverbs: HashSet<String>,
    /// Verbs after "I" that say what one thinks, feels or can, not what one does ("I *think* …").
    not_doings: HashSet<String>,
    /// Heads that judge rather than name ("massive *issue*", "ultimate *hope*", "main *use*"):
    /// with one word before them, the phrase says how much, not what.
    evaluative: HashSet<String>,
    /// Words vague only alone ("work", but "drudge work").
    vague_alone: HashSet<String>,
    not_gerunds: HashSet<String>,
    /// Gerunds that say little ("using", "trying", "depending"): an activity they lead is none.
    light_gerunds: HashSet<String>,
    /// Verbs after which an adjective follows, not an object ("feel *confident*").
    copulas: HashSet<String>,
    /// Words that count or part what follows their "of" ("a *couple* of", "a *matter* of time"): no head of a phrase.
    partitives: HashSet<String>,
    /// Endings that tell an adjective, which a lone word or a phrase's last cannot be ("accurate and *professional*").
    adjective_endings: Vec<String>,
    not_adjectives: HashSet<String>,
    /// A preposition and a word that say how, not what ("*in depth* knowledge", "*of course*").
    idioms: Vec<Vec<String>>,
}

fn lists() -> &'static Lists {
    static LISTS: OnceLock<Lists> = OnceLock::new();
    LISTS.get_or_init(|| serde_json::from_str(include_str!("noun_phrases.json")).expect("noun_phrases.json holds the English phrase lists"))
}

fn listed(list: &HashSet<String>, word: &Word) -> bool {
    list.contains(word.normalized.as_str())
}

/// How a word stands in a phrase.
struct Reader<'w, 'a> {
    answer: &'a str,
    words: &'w [Word<'a>],
    lexicon: &'w Lexicon,
    lists: &'static Lists,
}

impl Reader<'_, '_> {
    /// A word that can stand in a noun phrase: a content word that is no
    /// verb, adverb, pronoun or negation.
    fn nominal(&self, i: usize) -> bool {
        let word = &self.words[i];
        let normalized = word.normalized.as_str();
        self.lexicon.is_content(word)
            && self.lexicon.qualifier(self.words, i).is_none()
            && !listed(&self.lists.verbs, word)
            && !listed(&self.lists.negating, word)
            && !listed(&self.lists.determiners, word)
            && !listed(&self.lists.prepositions, word)
            && !listed(&self.lists.adverbs, word)
            && !(normalized.ends_with("ly") && normalized.len() > 4 && !listed(&self.lists.not_adverbs, word) && !self.name_inside(i))
            && !normalized.contains('\'')
            && word.text.chars().any(char::is_alphabetic)
    }

    /// A capital inside a sentence tells a name, whatever its ending ("Cy *Twombly*", "Hadley").
    fn name_inside(&self, i: usize) -> bool {
        self.words[i].text.starts_with(char::is_uppercase) && !self.sentence_start(i)
    }

    fn gerund(&self, i: usize) -> bool {
        let word = &self.words[i];
        word.normalized.len() >= 5 && word.normalized.ends_with("ing") && !listed(&self.lists.not_gerunds, word) && self.nominal(i)
    }

    fn closely(&self, i: usize) -> bool {
        self.words.get(i).is_some_and(|word| word.follows_closely)
    }

    /// Where a noun phrase's body that begins at `first` ends (exclusive),
    /// or `None` when no whole phrase begins there. Past its first word a
    /// word in -ed or -ing is a verb ("AI generated", "thinking flowing")
    /// unless a noun follows it ("machine learning plugins").
    fn body(&self, first: usize) -> Option<usize> {
        if first >= self.words.len() || !self.nominal(first) {
            return None;
        }
        let mut end = first + 1;
        let mut joined = false;
        while end < self.words.len() && self.closely(end) {
            let word = &self.words[end];
            let verbal = word.normalized.ends_with("ed") || word.normalized.ends_with("ing");
            // A gerund may end a compound ("business planning") where its stretch ends.
            // ...where its stretch ends, or a subject or a conjunction follows ("document parsing *I* ask it"); not before
            // what the gerund goes on to ("companies *trying* to", "time *looking* at").
            let compound_ends = end + 1 >= self.words.len()
                || !self.closely(end + 1)
                || SUBJECTS.contains(&self.words[end + 1].normalized.as_str())
                || CONJUNCTIONS.contains(&self.words[end + 1].normalized.as_str());
            // Not after a plural, where a gerund begins a clause of its own ("iterations *using* AI").
            let before = &self.words[end - 1].normalized;
            let after_plural = before.ends_with('s') && !before.ends_with("ss") && !before.ends_with("us") && !before.ends_with("is");
            // A word in -ed past the first is a past tense ("shop *added* twelve euros", "AI *generated* music").
            let noun_follows = !compound_ends && !after_plural && !word.normalized.ends_with("ed") && self.nominal(end + 1) && !self.verbal(end + 1);
            if self.verb_in_s(end) {
                break;
            }
            if self.nominal(end) && (!verbal || noun_follows || (compound_ends && !after_plural && word.normalized.ends_with("ing"))) {
                end += 1;
            } else if !joined && matches!(word.normalized.as_str(), "of" | "and" | "&") && !self.idiom(end) {
                // One "of" or "and" may join a second part: "the cost of delivery", "technique and theory".
                let mut next = end + 1;
                if self.closely(next) && next < self.words.len() && listed(&self.lists.determiners, &self.words[next]) {
                    next += 1;
                }
                // What "and" joins is a noun too, not a verb of a clause of its own ("writers *and need*").
                // ...nor one that takes an object ("compose music and *mix the* audio").
                let takes_an_object = |k: usize| {
                    self.closely(k + 1) && k + 1 < self.words.len() && (listed(&self.lists.determiners, &self.words[k + 1]) || OBJECTS.contains(&self.words[k + 1].normalized.as_str()))
                };
                let joins_a_noun = |k: usize| self.nominal(k) && !self.verbal(k) && !listed(&self.lists.noun_or_verb, &self.words[k]) && !takes_an_object(k);
                if !(self.closely(next) && next < self.words.len() && joins_a_noun(next)) {
                    break;
                }
                joined = true;
                end = next + 1;
            } else {
                break;
            }
            if end - first > MAX_WORDS {
                return None;
            }
        }
        // It ends on a word that can end a phrase: not a hanging adjective nor a possessive.
        while end > first && (listed(&self.lists.adjectives, &self.words[end - 1]) || self.words[end - 1].normalized.ends_with("'s")) {
            end -= 1;
        }
        if end == first || matches!(self.words[end - 1].normalized.as_str(), "of" | "and" | "&") {
            return None;
        }
        // A phrase stops where its compound does, never before a noun it runs into.
        (end >= self.words.len() || !self.closely(end) || !self.nominal(end) || self.verbal(end)).then_some(end)
    }

    fn verbal(&self, i: usize) -> bool {
        let normalized = &self.words[i].normalized;
        normalized.ends_with("ed") || (normalized.ends_with("ing") && !listed(&self.lists.not_gerunds, &self.words[i]))
    }

    /// An activity's extent from its gerund at `first`: the gerund, then
    /// what it takes: a noun phrase ("brainstorming topic ideas"), or a
    /// preposition and one ("digging into broad topics"), or nothing.
    fn activity(&self, first: usize) -> Option<usize> {
        if !self.gerund(first) {
            return None;
        }
        let mut next = first + 1;
        if self.closely(next) && next < self.words.len() && listed(&self.lists.prepositions, &self.words[next]) {
            next += 1;
        }
        if self.closely(next) && next < self.words.len() && listed(&self.lists.determiners, &self.words[next]) {
            next += 1;
        }
        // "using a number of assumptions": what a partitive counts is cut from it.
        if self.closely(next) && next + 1 < self.words.len() && listed(&self.lists.partitives, &self.words[next]) && self.words[next + 1].normalized == "of" {
            return None;
        }
        let end = if self.closely(next) { self.body(next).unwrap_or(first + 1) } else { first + 1 };
        (end - first <= MAX_WORDS + 1).then_some(end)
    }

    /// Whether a negation reaches `first` from the words before it, in its stretch.
    fn negated(&self, first: usize) -> bool {
        let mut i = first;
        for _ in 0..NEGATION_REACH {
            if i == 0 || !self.words[i].follows_closely {
                return false;
            }
            i -= 1;
            if listed(&self.lists.negating, &self.words[i]) || self.lexicon.qualifier(self.words, i) == Some(super::lexicon::Qualifier::Negation) {
                return true;
            }
        }
        false
    }

    /// Whether `words[at]` and the word after it are an idiom ("of course").
    fn idiom(&self, at: usize) -> bool {
        at + 1 < self.words.len()
            && self.words[at + 1].follows_closely
            && self.lists.idioms.iter().any(|pair| pair[0] == self.words[at].normalized && pair[1] == self.words[at + 1].normalized)
    }

    /// A word in -s that is the verb of a clause, not a plural: right after
    /// a singular noun, and before what a verb takes ("team *synthesises*
    /// the samples", "AI *gives* me", "bank *covers* fraud"; not "hidden
    /// fees annoyed").
    fn verb_in_s(&self, at: usize) -> bool {
        let word = &self.words[at].normalized;
        let plural_like = word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("us") && !word.ends_with("is");
        let after_singular = at > 0 && !self.words[at - 1].normalized.ends_with('s');
        let takes = self.closely(at + 1)
            && at + 1 < self.words.len()
            && (listed(&self.lists.determiners, &self.words[at + 1])
                || OBJECTS.contains(&self.words[at + 1].normalized.as_str())
                || (self.nominal(at + 1) && !self.verbal(at + 1)));
        plural_like && after_singular && takes
    }

    fn role_led(&self, first: usize) -> bool {
        self.lists.role_leads.iter().any(|lead| {
            first >= lead.len()
                && lead.iter().zip(&self.words[first - lead.len()..first]).all(|(part, word)| *part == word.normalized)
                && (first - lead.len() + 1..=first).all(|k| self.words[k].follows_closely)
        })
    }
}

/// Every whole noun phrase and activity of an English `answer`, in the order
/// they begin, left out: those a negation reaches, and those that name only
/// something vague ("a lot", "the way").
pub fn noun_phrases<'a>(answer: &'a str, lexicon: &Lexicon) -> Vec<NounPhrase<'a>> {
    read_phrases(answer, lexicon, false)
}

/// The same, with those a negation reaches: where the negation is kept with
/// the phrase ("don't trust *the output*"), as a label keeps it.
pub fn noun_phrases_negated_too<'a>(answer: &'a str, lexicon: &Lexicon) -> Vec<NounPhrase<'a>> {
    read_phrases(answer, lexicon, true)
}

fn read_phrases<'a>(answer: &'a str, lexicon: &Lexicon, negated_too: bool) -> Vec<NounPhrase<'a>> {
    let all = words(answer);
    let reader = Reader { answer, words: &all, lexicon, lists: lists() };
    let mut phrases: Vec<NounPhrase<'a>> = (1..all.len()).filter_map(|verb| reader.doing_at(verb)).collect();
    for first in 0..all.len() {
        let Some((end, form)) = reader.extent_at(first) else { continue };
        let range = all[first].start..all[end - 1].end;
        let left_out = !negated_too && reader.negated(first);
        if left_out || !reader.names_something(first, end, form) || phrases.iter().any(|p| p.range == range) {
            continue;
        }
        phrases.push(NounPhrase { text: &answer[range.clone()], range, form });
    }
    phrases.sort_by_key(|phrase| (phrase.range.start, phrase.range.end));
    phrases
}

impl<'a> Reader<'_, 'a> {
    fn sentence_start(&self, i: usize) -> bool {
        i == 0 || self.answer[self.words[i - 1].end..self.words[i].start].contains(['.', '!', '?', '\n', ':', ';'])
    }

    /// What the participant does, from its verb at `verb`: "I compose music",
    /// "I then make the method": the verb and its whole object.
    fn doing_at(&self, verb: usize) -> Option<NounPhrase<'a>> {
        let (all, lexicon) = (self.words, self.lexicon);
        let subject = (1..=2).map(|back| verb.saturating_sub(back)).find(|&at| all[at].normalized == "i" && at < verb)?;
        let between_adverbs = (subject + 1..verb).all(|k| listed(&self.lists.adverbs, &all[k]) || all[k].normalized.ends_with("ly"));
        let word = &all[verb];
        if !between_adverbs
            || !(subject + 1..=verb).all(|k| all[k].follows_closely)
            || listed(&self.lists.not_doings, word)
            || !lexicon.is_content(word)
            || lexicon.qualifier(all, verb).is_some()
            || word.normalized.ends_with("ing")
            || word.normalized.contains('\'')
        {
            return None;
        }
        let mut object = verb + 1;
        if object < all.len() && all[object].follows_closely && listed(&self.lists.determiners, &all[object]) {
            object += 1;
        }
        if object >= all.len() || !all[object].follows_closely || self.negated(object) {
            return None;
        }
        let end = self.body(object)?;
        let goes_on = end < all.len() && all[end].follows_closely && self.nominal(end);
        let named = all[object..end].iter().filter(|w| lexicon.is_content(w)).all(|w| listed(&self.lists.vague, w) || listed(&self.lists.vague_alone, w));
        let range = all[verb].start..all[end - 1].end;
        // Not a question the participant asks back ("should I provide examples?").
        let asked = self.answer[range.end..].split(['.', '!', '\n']).next().is_some_and(|rest| rest.contains('?'));
        let too_long = end - verb > MAX_WORDS + 1 || self.answer[range.clone()].chars().count() > MAX_CHARS;
        (!goes_on && !named && !asked && !too_long).then(|| NounPhrase { text: &self.answer[range.clone()], range, form: Form::Doing })
    }

    /// Where a phrase that begins at `first` ends, and its form: what follows
    /// a determiner, a preposition, a verb or a subject's verb; an activity;
    /// a list's item; a sentence's subject, or the sentence itself.
    fn extent_at(&self, first: usize) -> Option<(usize, Form)> {
        let (all, lexicon) = (self.words, self.lexicon);
        let before = first.checked_sub(1).filter(|_| all[first].follows_closely).map(|b| &all[b]);
        let after_determiner = before.is_some_and(|word| listed(&self.lists.determiners, word));
        let after_preposition = before.is_some_and(|word| listed(&self.lists.prepositions, word));
        // After a verb, its object; not after a modal ("will *help*"), a copula ("feel *confident*") or "do".
        let after_subject = first >= 2 && all[first - 1].follows_closely && SUBJECTS.contains(&all[first - 2].normalized.as_str());
        let after_verb = before.is_some_and(|word| {
            (listed(&self.lists.verbs, word) || listed(&self.lists.noun_or_verb, word) || (after_subject && self.nominal(first - 1)))
                && !listed(&self.lists.progressive, word)
                && !listed(&self.lists.copulas, word)
                && lexicon.qualifier(all, first - 1).is_none()
                && !matches!(word.normalized.as_str(), "do" | "does" | "did")
        });
        let after_progressive = before.is_some_and(|word| listed(&self.lists.progressive, word));
        // "maybe *automatic receipt scanning*", "mostly *emails and scheduling*".
        let after_hedge = before.is_some_and(|word| HEDGES.contains(&word.normalized.as_str()));
        // A list's item follows its comma, or an "and" right after one ("…, and business planning").
        let listed_and = |b: usize| matches!(all[b].normalized.as_str(), "and" | "or") && !all[b].follows_closely;
        let sentence_start = self.sentence_start(first);
        let opens = sentence_start || !all[first].follows_closely || (before.is_some() && listed_and(first - 1));
        let stands_alone = |end: usize| end >= all.len() || !all[end].follows_closely;
        if (after_preposition || after_progressive || opens) && !after_determiner && self.gerund(first) {
            self.activity(first).map(|end| (end, Form::Activity))
        } else if after_determiner || after_preposition || after_verb {
            self.body(first).map(|end| (end, if self.role_led(first) { Form::Role } else { Form::Noun }))
        } else if opens && !sentence_start {
            // An item of a list: it runs to the list's next comma or to the end.
            self.body(first).filter(|&end| stands_alone(end) || matches!(all[end].normalized.as_str(), "and" | "or")).map(|end| (end, Form::Noun))
        } else if sentence_start || after_hedge {
            // A sentence's subject: a verb follows it, or a preposition ("Hidden shipping costs *at* the last step");
            // or the sentence is the phrase and nothing else ("Friendly staff.", "maybe automatic receipt scanning").
            let subject_ends = |end: usize| {
                listed(&self.lists.verbs, &all[end]) || listed(&self.lists.prepositions, &all[end]) || lexicon.qualifier(all, end).is_some()
            };
            self.body(first).filter(|&end| stands_alone(end) || subject_ends(end)).map(|end| (end, Form::Noun))
        } else {
            None
        }
    }

    /// Whether the phrase `first..end` names something a question can ask
    /// about: not a partitive ("number of …"), a hanging adjective, an idiom's
    /// object, a phrase cut inside its clause, a vague or judging head, what the
    /// participant quotes, an activity of a light gerund, a participle.
    fn names_something(&self, first: usize, end: usize, form: Form) -> bool {
        let (all, lexicon) = (self.words, self.lexicon);
        let adjective = |word: &Word| {
            self.lists.adjective_endings.iter().any(|ending| word.normalized.ends_with(ending.as_str())) && !listed(&self.lists.not_adjectives, word)
        };
        let partitive = end > first + 1 && listed(&self.lists.partitives, &all[first]) && all[first + 1].normalized == "of";
        let hanging_adjective = (end == first + 1 || all[first..end].iter().any(|w| w.normalized == "and")) && adjective(&all[end - 1]) && form != Form::Activity;
        // After an idiom's preposition the phrase says how, not what ("in *depth knowledge*").
        let idiom = first > 0 && all[first].follows_closely && self.idiom(first - 1);
        // A phrase that a gerund (or, after an activity, "and", "to" or a noun) goes on from is cut inside its clause:
        // "possibility of AI *being* used", "Keeping the medical team *engaged*", "taking an idea *and* expanding", "Getting an AI *to* write".
        let goes_on = end < all.len() && all[end].follows_closely && {
            let next = &all[end].normalized;
            let gerund = next.ends_with("ing") && self.verbal(end) && lexicon.is_content(&all[end]);
            gerund || (form == Form::Activity && (next == "and" || next == "to" || self.nominal(end)))
        };
        // A vague head names nothing of its own: "typical sense", "hard time"; a judging one says how much: "massive issue".
        // A gerund before it makes a compound, not a judgement: "opening hours", "working day".
        let vague_head = end - first <= 2 && listed(&self.lists.vague, &all[end - 1]) && !all[first].normalized.ends_with("ing");
        let vague_alone = end == first + 1 && listed(&self.lists.vague_alone, &all[first]);
        let judged = end - first <= 2 && listed(&self.lists.evaluative, &all[end - 1]);
        let all_vague = all[first..end].iter().filter(|w| lexicon.is_content(w)).all(|w| listed(&self.lists.vague, w));
        // What the participant quotes ("things like 'change the colour of the lights'") is an example, not their point.
        let before = &self.answer[..all[first].start];
        let quoted = before.matches('"').count() % 2 == 1 || before.rfind('“').is_some_and(|open| before.rfind('”').is_none_or(|close| close < open));
        // An activity led by a light gerund says little, whatever follows: "using this method".
        let light = form == Form::Activity && listed(&self.lists.light_gerunds, &all[first]);
        // A participle names nothing: "noted", "learned".
        let participle = all[end - 1].normalized.ends_with("ed");
        let too_long = self.answer[all[first].start..all[end - 1].end].chars().count() > MAX_CHARS;
        !(partitive || hanging_adjective || idiom || goes_on || vague_head || vague_alone || judged || all_vague || quoted || light || participle || too_long)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;

    fn texts(answer: &str) -> Vec<&str> {
        noun_phrases(answer, &Lexicon::of(Language::En)).into_iter().map(|p| p.text).collect()
    }

    #[test]
    fn a_phrase_is_a_whole_noun_phrase_or_activity() {
        let phrases = texts("Taking care of drudge work so I can find the right font, the right color palette, etc.");
        assert!(phrases.contains(&"Taking care of drudge work") || phrases.contains(&"drudge work"), "{phrases:?}");
        assert!(phrases.contains(&"right color palette"), "{phrases:?}");
        // A name in -ly is a name, not an adverb: the phrase holds it whole.
        let phrases = texts("I asked it to compare my paintings to the work of artist Cy Twombly - a stretch.");
        assert!(phrases.contains(&"work of artist Cy Twombly") && !phrases.contains(&"work of artist Cy"), "{phrases:?}");
        let phrases = texts("I use AI tools for brainstorming, asking quick questions about technique and theory, and business planning.");
        assert!(phrases.contains(&"brainstorming"), "{phrases:?}");
        assert!(phrases.contains(&"asking quick questions") && phrases.contains(&"technique and theory"), "{phrases:?}");
        assert!(phrases.contains(&"business planning"), "{phrases:?}");
    }

    #[test]
    fn no_phrase_is_cut_inside_a_clause() {
        // The quotes a blind reader marked awkward are none.
        let cut = [
            ("it got too expensive once the intro discount ended. Forty dollars a week for three meals is more than I spend on groceries for the whole family", "spend on groceries for the whole family"),
            ("I could skip weeks easily without hunting through the settings", "could skip weeks easily without hunting"),
            ("I used AI to assist with creating the code for extracting the combined data", "used AI to assist with creating"),
            ("I'm honestly less concerned with AI's presence taking over my job", "concerned with AI's presence taking"),
        ];
        for (answer, awkward) in cut {
            let phrases = texts(answer);
            assert!(!phrases.contains(&awkward), "{phrases:?}");
            for phrase in &phrases {
                let start = answer.find(phrase).unwrap();
                let (before, after) = (&answer[..start], &answer[start + phrase.len()..]);
                assert!(before.is_empty() || !before.ends_with(char::is_alphanumeric), "{phrase:?} of {answer:?}");
                assert!(after.is_empty() || !after.starts_with(char::is_alphanumeric), "{phrase:?} of {answer:?}");
            }
        }
        assert!(texts("Forty dollars a week is more than I spend on groceries for the whole family").contains(&"groceries"));
    }

    #[test]
    fn what_a_negation_reaches_is_never_a_phrase() {
        let phrases = texts("Unfortunately there are no good ai plugins, and I could skip weeks without hunting through the settings.");
        assert!(phrases.iter().all(|p| !p.contains("plugins") && !p.contains("hunting")), "{phrases:?}");
    }

    #[test]
    fn what_the_participant_does_is_a_verb_and_its_whole_object() {
        let phrases = noun_phrases("I compose music and mix the audio. I then manage a small team of writers. I think it helps.", &Lexicon::of(Language::En));
        let doings: Vec<&str> = phrases.iter().filter(|p| p.form == Form::Doing).map(|p| p.text).collect();
        assert_eq!(doings, ["compose music", "manage a small team of writers"], "{phrases:?}");
    }

    #[test]
    fn a_role_is_what_the_participant_says_they_are() {
        let phrases = noun_phrases("Hmmm, I'm a media composer. That means I write music for film.", &Lexicon::of(Language::En));
        let role = phrases.iter().find(|p| p.text == "media composer").unwrap();
        assert_eq!(role.form, Form::Role);
        assert!(phrases.iter().any(|p| p.text == "film" && p.form == Form::Noun), "{phrases:?}");
    }
}
