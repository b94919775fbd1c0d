//! What kind of thing a quoted phrase names, so that a probe is worded to fit
//! it (docs/sessions.md, "The way of asking"): a claim ("can't find a good
//! reference image", "should build more bike lanes": it carries a negation or
//! a modal, so it says what is not, or what ought to be), a problem
//! ("citation errors"; "hidden shipping costs" is none), a feeling ("really
//! frustrating"), an activity ("comparing prices", "comparer les prix"), or a
//! thing (anything else: a tool, a place, an idea). "When did “…” last come
//! up?" fits a thing or a problem, not a claim; "What makes you say “…”?" fits
//! them all.
//!
//! Told by the phrase's own words, in the languages that have cue lists
//! (English, German, French, Spanish, Italian); in the others a phrase is a
//! claim or a thing, and their wordings fit every kind.

use projects_core::Language;
use text::lexicon::Lexicon;
use text::words::{words, Word};
use text_enum::text_enum;

// The words that tell a kind, as data (`kind_words.json`, compiled in by
// build.rs): `problem_words` name a difficulty, `feeling_words` a feeling,
// `not_gerunds` are English words in -ing that are not gerunds.
mod data {
    use projects_core::Language;
    include!(concat!(env!("OUT_DIR"), "/kind_words.rs"));
}
use data::{feeling_words, not_gerunds, problem_words};

text_enum! {
    /// What a quoted phrase names.
    pub enum PhraseKind {
        Thing = "thing", Activity = "activity", Feeling = "feeling", Problem = "problem", Claim = "claim", Role = "role",
        Doing = "doing",
    }
}

/// The kind of `phrase` where `answer` (which holds it) says it: as
/// [`kind_of`], and in English, a thing the answer says someone is ("I'm *a
/// media composer*", "I work as *an audio engineer*") is a role, and one that
/// follows a subject or "to" is what someone does ("I *write music for film*",
/// "AI to *draft a formal warning letter*"): an activity.
pub fn kind_in(answer: &str, phrase: &str, language: Language) -> PhraseKind {
    let kind = kind_of(phrase, language);
    if kind != PhraseKind::Thing || language != Language::En {
        return kind;
    }
    let start = phrase.as_ptr() as usize - answer.as_ptr() as usize;
    // The three words before it lie within the forty characters before it.
    let from = (0..=start.saturating_sub(40)).rev().find(|&at| answer.is_char_boundary(at)).unwrap_or(0);
    let before: Vec<String> = words(&answer[from..start]).iter().rev().take(3).map(|w| w.normalized.clone()).collect();
    let before: Vec<&str> = before.iter().map(String::as_str).collect();
    // "I compose music": what the participant does, quoted from its verb.
    if before.first() == Some(&"i") || (before.first().is_some_and(|w| w.ends_with("ly")) && before.get(1) == Some(&"i")) {
        return PhraseKind::Doing;
    }
    match before.as_slice() {
        // Not "it is a time-intensive task" nor "count as an answer": what a thing is or counts as says no role.
        ["a" | "an", "i'm" | "im" | "am", ..] | ["a" | "an", "as", "work" | "works" | "worked" | "working", ..] => PhraseKind::Role,
        [first, ..] if DOERS.contains(first) => PhraseKind::Activity,
        _ => kind,
    }
}

/// English words after which a phrase says what someone does: subjects,
/// relative pronouns, "to".
const DOERS: &[&str] = &["i", "she", "he", "they", "to", "we", "who", "you"];

/// The kind of `phrase` (a whole phrase of an answer in `language`): a claim
/// when it carries a negation or a modal, else a problem when it names a
/// difficulty, else a feeling when it names one, else an activity when it is
/// led (German: ended) by a verb form, else a thing.
pub fn kind_of(phrase: &str, language: Language) -> PhraseKind {
    let words = words(phrase);
    let lexicon = Lexicon::of(language);
    let listed = |list: &[&str]| words.iter().any(|w| list.contains(&w.normalized.as_str()));
    if (0..words.len()).any(|i| lexicon.qualifier(&words, i).is_some()) {
        PhraseKind::Claim
    } else if names_a_problem(&words, language) {
        PhraseKind::Problem
    } else if listed(feeling_words(language)) {
        PhraseKind::Feeling
    } else if names_an_activity(&words, language) {
        PhraseKind::Activity
    } else {
        PhraseKind::Thing
    }
}

/// Whether a phrase's words name a difficulty; in English, its head word
/// must ("citation *errors*", "*lack* of time"), not a modifier ("error
/// analysis" is a kind of analysis).
fn names_a_problem(words: &[Word], language: Language) -> bool {
    let listed = |word: &Word| problem_words(language).contains(&word.normalized.as_str());
    if language != Language::En {
        return words.iter().any(listed);
    }
    let head = words.iter().position(|w| w.normalized == "of").and_then(|of| of.checked_sub(1)).or(words.len().checked_sub(1));
    head.is_some_and(|at| listed(&words[at]))
}

/// An English phrase led by a gerund ("comparing prices"); a Romance one led
/// by an infinitive ("comparer les prix", "comparar precios"); a German one
/// ended by one ("Radwege bauen").
fn names_an_activity(words: &[Word], language: Language) -> bool {
    let (Some(first), Some(last)) = (words.first(), words.last()) else { return false };
    let lower = |word: &Word| word.text.starts_with(|c: char| c.is_lowercase());
    let long_ending = |word: &Word, endings: &[&str], min: usize| {
        word.normalized.chars().count() >= min && endings.iter().any(|ending| word.normalized.ends_with(ending))
    };
    match language {
        Language::En => long_ending(first, &["ing"], 5) && !not_gerunds(Language::En).contains(&first.normalized.as_str()),
        Language::De => words.len() > 1 && lower(last) && long_ending(last, &["en", "ern", "eln"], 4),
        Language::Fr => lower(first) && long_ending(first, &["er", "ir", "re"], 4),
        Language::Es => lower(first) && long_ending(first, &["ar", "er", "ir"], 4),
        Language::It => lower(first) && long_ending(first, &["are", "ere", "ire"], 5),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kind of `phrase` where the English `answer` says it first.
    fn kind_where(answer: &str, phrase: &str) -> PhraseKind {
        let start = answer.find(phrase).unwrap();
        kind_in(answer, &answer[start..start + phrase.len()], Language::En)
    }

    #[test]
    fn where_the_answer_says_it_a_phrase_may_be_a_role_a_doing_or_an_activity() {
        let answer = "I'm a media composer. That means I write music for film, and I use AI to draft emails.";
        assert_eq!(kind_where(answer, "media composer"), PhraseKind::Role);
        assert_eq!(kind_where(answer, "write music for film"), PhraseKind::Doing);
        assert_eq!(kind_where(answer, "draft emails"), PhraseKind::Activity);
        assert_eq!(kind_where(answer, "AI"), PhraseKind::Thing);
        let answer = "I work as an audio engineer, and that should count as an answer.";
        assert_eq!(kind_where(answer, "audio engineer"), PhraseKind::Role);
        assert_eq!(kind_where(answer, "answer"), PhraseKind::Thing);
    }

    #[test]
    fn a_phrase_is_a_feeling_an_activity_a_problem_or_a_thing() {
        let cases = [
            (Language::En, "really frustrating", PhraseKind::Feeling),
            (Language::En, "love the speed", PhraseKind::Feeling),
            (Language::En, "comparing prices", PhraseKind::Activity),
            (Language::En, "can't find a good reference image", PhraseKind::Claim),
            (Language::En, "should build more bike lanes", PhraseKind::Claim),
            (Language::En, "hidden shipping costs", PhraseKind::Thing),
            (Language::En, "morning routine", PhraseKind::Thing),
            (Language::En, "citation errors", PhraseKind::Problem),
            (Language::De, "Radwege bauen", PhraseKind::Activity),
            (Language::De, "kurze Wege", PhraseKind::Thing),
            (Language::Fr, "comparer les prix", PhraseKind::Activity),
            (Language::Fr, "frais de livraison", PhraseKind::Thing),
            (Language::Es, "comparar precios", PhraseKind::Activity),
            (Language::Es, "no tengo tiempo", PhraseKind::Claim),
            (Language::De, "Inlandsflüge müssen verboten", PhraseKind::Claim),
            (Language::Fr, "erreurs de citation", PhraseKind::Problem),
            (Language::It, "confrontare i prezzi", PhraseKind::Activity),
            (Language::It, "mi piace", PhraseKind::Feeling),
            (Language::Ja, "送料", PhraseKind::Thing),
            (Language::Ru, "не нашёл хорошую картинку", PhraseKind::Claim),
        ];
        for (language, phrase, kind) in cases {
            assert_eq!(kind_of(phrase, language), kind, "{language}: {phrase}");
        }
    }
}
