//! The built-in writer's word lists (lower case) and the small helpers that look words up in them.
//! The lists are data (`words.json`), compiled in by build.rs; the Rust says
//! what each is for.

mod data {
    include!(concat!(env!("OUT_DIR"), "/writer_words.rs"));
}

pub(super) use data::WH;
pub(super) use data::HOW_MODS;
pub(super) use data::DO;
pub(super) use data::DO_NOT;
pub(super) use data::BE;
pub(super) use data::HAVE;
pub(super) use data::MODALS;
pub(super) use data::PRONOUNS;
pub(super) use data::SUBJECT_PRONOUNS;
pub(super) use data::CONTRACTIONS;
pub(super) use data::DETERMINERS;
pub(super) use data::PREPOSITIONS;
use data::CONJUNCTIONS;
use data::OTHER_FUNCTION_WORDS;
pub(super) use data::ADVERBS;
/// Words that open the predicate after a form of "to be".
pub(super) use data::PREDICATE_WORDS;
/// Nouns ending in "-ing" (not a progressive verb).
pub(super) use data::ING_NOUNS;
pub(super) use data::PARTICIPLES;
/// Verbs that are seldom nouns.
pub(super) use data::VERBS;
/// Verbs that are often nouns too.
pub(super) use data::NOUN_VERBS;
/// Imperatives that state a goal: "Improve onboarding" is about "how to improve onboarding".
pub(super) use data::GOAL_VERBS;
/// Plural nouns that name no people, although the validate-context rule knows their singular.
pub(super) use data::NOT_PEOPLE;
/// English verbs whose past is not in -ed (or doubles its consonant), with it: ("choose", "chose").
pub(super) use data::IRREGULAR_PAST;

// Lead-ins, matched word by word as sequences of groups ("" makes a group optional).

pub(super) use data::SUBJECTS;
pub(super) use data::LEAD_ADVERBS;
pub(super) use data::DESIRES;
/// "We want insights into ...", "I need a better understanding of ...".
pub(super) use data::WANTS;
pub(super) use data::WANTED;
pub(super) use data::BE_FORMS;
pub(super) use data::STATES;
pub(super) use data::GOAL_DETERMINERS;
pub(super) use data::GOAL_NOUNS;
pub(super) use data::GOAL_MIDDLES;
pub(super) use data::GOAL_TAILS;
pub(super) use data::STUDY_DETERMINERS;
pub(super) use data::STUDY_NOUNS;
pub(super) use data::STUDY_TAILS;
pub(super) use data::FILLERS;
/// "We've noticed that ...": an observation to explain.
pub(super) use data::OBSERVED;
pub(super) use data::PRE_VERB;
pub(super) use data::RESEARCH_VERBS;
/// Research verbs that also start topics ("study habits"): stripped only before a clause or a determiner.
pub(super) use data::RESEARCH_VERBS_IF_FOLLOWED;
pub(super) use data::FOLLOWERS;
pub(super) use data::POST_VERB;
pub(super) use data::INTERVIEW_VERBS;
pub(super) use data::INTERVIEW_TOPIC_MARKERS;
pub(super) use data::RECRUIT_OPENINGS;
pub(super) use data::RECRUIT_LINKS;
pub(super) use data::LABEL_WORDS;

pub(super) fn is_in(list: &[&str], word: &str) -> bool {
    list.contains(&word)
}

pub(super) fn is_aux(word: &str) -> bool {
    is_in(DO, word) || is_in(DO_NOT, word) || is_in(BE, word) || is_in(HAVE, word) || is_in(MODALS, word)
}

pub(super) fn is_function_word(word: &str) -> bool {
    is_in(DETERMINERS, word)
        || is_in(PREPOSITIONS, word)
        || is_in(CONJUNCTIONS, word)
        || is_in(OTHER_FUNCTION_WORDS, word)
        || is_in(WH, word)
        || is_in(HOW_MODS, word)
        || is_aux(word)
}

pub(super) fn is_verb(word: &str) -> bool {
    is_in(VERBS, word) || is_in(NOUN_VERBS, word)
}

/// A word's lower-case core: surrounding punctuation dropped, inner apostrophes and hyphens kept.
pub(super) fn key(word: &str) -> String {
    word.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase()
}

pub(super) fn keys(words: &[String]) -> Vec<String> {
    words.iter().map(|w| key(w)).collect()
}

/// The brief's tokens: split at white space with their punctuation, since the
/// writer writes them back as the customer typed them ([`key`] reads one as a
/// word). Not a word splitter: words are `text::words`'.
pub(super) fn tokens(text: &str) -> Vec<String> {
    text.split_whitespace().map(str::to_string).collect()
}
