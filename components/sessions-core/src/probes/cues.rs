//! The way of asking that fits what an answer does (docs/sessions.md, "The
//! way of asking"), and whether an answer is already rich enough to move on.
//!
//! An answer that generalises is asked for an instance, one that judges,
//! feels or predicts for the reason, one that narrates for what it led to, one
//! that compares for the contrast, one that worries for what it fears, one
//! that wishes for what it would want. Each cue word or phrase (the lists are `cue_words`'s) the
//! answer holds counts once, and so does each narrated past ("we tried", "I
//! went", "habe … gekauft", "j'ai essayé"); the ways with the most cues come
//! first, equals in the interview's rotation. An answer with no cue keeps the
//! rotation as it is.

use super::cue_words;
use text::words::{words, Word};
use super::ProbeKind;
use projects_core::Language;

/// What an answer does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cue {
    Generalises,
    Judges,
    Narrates,
    Compares,
    Worries,
    Wishes,
}

impl Cue {
    pub const ALL: [Cue; 6] = [Cue::Generalises, Cue::Judges, Cue::Narrates, Cue::Compares, Cue::Worries, Cue::Wishes];

    /// The single words that tell the cue.
    pub fn words(self, language: Language) -> &'static [&'static str] {
        match self {
            Cue::Generalises => cue_words::generalising_words(language),
            Cue::Judges => cue_words::judging_words(language),
            Cue::Narrates => cue_words::narrating_words(language),
            Cue::Compares => cue_words::comparing_words(language),
            Cue::Worries => cue_words::worrying_words(language),
            Cue::Wishes => cue_words::wishing_words(language),
        }
    }

    /// The phrases that tell the cue.
    pub fn phrases(self, language: Language) -> &'static [&'static str] {
        match self {
            Cue::Generalises => cue_words::generalising_phrases(language),
            Cue::Judges => cue_words::judging_phrases(language),
            Cue::Narrates => cue_words::narrating_phrases(language),
            Cue::Compares => cue_words::comparing_phrases(language),
            Cue::Worries => cue_words::worrying_phrases(language),
            Cue::Wishes => cue_words::wishing_phrases(language),
        }
    }

    /// The way of asking the cue calls for.
    pub fn ask(self) -> ProbeKind {
        match self {
            Cue::Generalises => ProbeKind::Instance,
            Cue::Judges => ProbeKind::Reason,
            Cue::Narrates => ProbeKind::Consequence,
            Cue::Compares => ProbeKind::Contrast,
            Cue::Worries => ProbeKind::Worry,
            Cue::Wishes => ProbeKind::Wish,
        }
    }
}

/// An answer of this many words or more that gives a concrete example is rich:
/// the interviewer may move on to the next question.
pub const RICH_WORDS: usize = 60;
/// The same for Japanese, counted in characters (no spaces between words).
pub const RICH_JAPANESE_CHARS: usize = 150;

/// A cue word or phrase counts this much; a cue told by structure alone (a
/// past tense, a comparative) half as much: it says less about what the answer is for.
const LISTED_CUE: usize = 2;
const STRUCTURAL_CUE: usize = 1;
/// A worry or a wish says more than a judgement beside it ("I'm worried
/// clients *will* leave"): the probe asks about the worry.
const VOICED_CUE: usize = 3;

/// How strongly the answer gives each cue, in the order of [`Cue::ALL`].
pub fn cue_counts(answer: &str, language: Language) -> [usize; 6] {
    let words = words(answer);
    let normalized: Vec<&str> = words.iter().map(|w| w.normalized.as_str()).collect();
    Cue::ALL.map(|cue| {
        let listed = cue.words(language);
        // "Less concerned", "not worried": a worry or wish denied is none.
        let denied = |i: usize| {
            matches!(cue, Cue::Worries | Cue::Wishes)
                && normalized[i.saturating_sub(2)..i].iter().any(|w| DENIALS.contains(w) || w.ends_with("n't"))
        };
        let single = (0..normalized.len()).filter(|&i| listed.binary_search(&normalized[i]).is_ok() && !denied(i)).count();
        let phrases = cue.phrases(language).iter().map(|phrase| occurrences(&normalized, phrase)).sum::<usize>();
        let structural = match cue {
            Cue::Narrates => narrated_pasts(&words, language),
            Cue::Compares => comparatives(&words, language),
            _ => 0,
        };
        // A judgement that gives its reason ("…, because …") needs no "why?".
        if cue == Cue::Judges && normalized.iter().any(|w| REASON_MARKERS.contains(w)) {
            return 0;
        }
        let weight = if matches!(cue, Cue::Worries | Cue::Wishes) { VOICED_CUE } else { LISTED_CUE };
        (single + phrases) * weight + structural * STRUCTURAL_CUE
    })
}

/// Words that give a reason, in the languages with cue lists.
const REASON_MARKERS: [&str; 13] =
    ["because", "since", "cause", "weil", "denn", "parce", "car", "puisque", "porque", "pues", "perché", "poiché", "why"];

/// Words that deny the worry or wish right after them, in the languages with cue lists.
const DENIALS: [&str; 12] = ["less", "not", "never", "no", "nicht", "kein", "keine", "pas", "jamais", "nunca", "non", "nessuna"];

/// The ways of asking in the order a probe on `answer` tries them: the ways
/// its cues call for, the strongest first, then the rotation's; equals in the
/// rotation's order from the interview's `turn` (the number of probes so
/// far), and a worry or a wish after the rotation's ways.
pub fn ways_of_asking(answer: &str, language: Language, turn: usize) -> Vec<ProbeKind> {
    let counts = cue_counts(answer, language);
    let rotation = ProbeKind::ROTATION;
    let mut ways: Vec<(usize, ProbeKind)> = (0..rotation.len()).map(|k| (k, rotation[(turn + k) % rotation.len()])).collect();
    let cued_only = [ProbeKind::Reason, ProbeKind::Consequence, ProbeKind::Contrast, ProbeKind::Worry, ProbeKind::Wish];
    ways.extend(cued_only.into_iter().enumerate().map(|(k, kind)| (rotation.len() + k, kind)));
    let count = |kind: ProbeKind| Cue::ALL.iter().position(|cue| cue.ask() == kind).map_or(0, |i| counts[i]);
    // A reason, what came of it, a contrast, a worry or a wish is asked about only where the answer gives its cue.
    ways.retain(|&(_, kind)| ProbeKind::ROTATION.contains(&kind) || count(kind) > 0);
    ways.sort_by_key(|&(k, kind)| (std::cmp::Reverse(count(kind)), k));
    ways.into_iter().map(|(_, kind)| kind).collect()
}

/// Whether `phrase` says only how the answer goes, not what it is about: every
/// word of it a cue ("last week", "always", "frustrating") or an example's marker.
pub fn is_only_a_cue(phrase: &str, language: Language) -> bool {
    let normalized: Vec<String> = words(phrase).into_iter().map(|w| w.normalized).collect();
    let joined = normalized.join(" ");
    let listed_phrase = Cue::ALL.iter().any(|&cue| cue.phrases(language).contains(&joined.as_str()))
        || cue_words::example_markers(language).contains(&joined.as_str());
    let every_word_a_cue =
        normalized.iter().all(|w| Cue::ALL.iter().any(|&cue| cue.words(language).binary_search(&w.as_str()).is_ok()));
    !normalized.is_empty() && (listed_phrase || every_word_a_cue)
}

/// Whether an answer is long and already gives a concrete example ("for
/// example", "last week", "yesterday"): then a follow-up is not needed.
pub fn is_rich(answer: &str, language: Language) -> bool {
    let markers = cue_words::example_markers(language);
    if language == Language::Ja {
        return answer.chars().filter(|c| !c.is_whitespace()).count() >= RICH_JAPANESE_CHARS
            && markers.iter().any(|marker| answer.contains(marker));
    }
    let words = words(answer);
    let normalized: Vec<&str> = words.iter().map(|w| w.normalized.as_str()).collect();
    normalized.len() >= RICH_WORDS && markers.iter().any(|marker| occurrences(&normalized, marker) > 0)
}

/// How often `phrase` (normalized words, space-separated) occurs in `words`.
fn occurrences(words: &[&str], phrase: &str) -> usize {
    let phrase: Vec<&str> = phrase.split(' ').collect();
    words.windows(phrase.len()).filter(|window| *window == phrase.as_slice()).count()
}

/// Pasts told as a story: an English subject and a past tense ("we tried",
/// "I went"); in German, French, Spanish and Italian an auxiliary of the past
/// and a participle soon after ("habe … gekauft", "j'ai essayé", "hemos
/// probado", "ho provato").
fn narrated_pasts(words: &[Word], language: Language) -> usize {
    let (auxiliaries, reach) = (cue_words::past_auxiliaries(language), cue_words::past_reach(language));
    (0..words.len())
        .filter(|&i| auxiliaries.binary_search(&words[i].normalized.as_str()).is_ok())
        .filter(|&i| {
            let stretch: Vec<usize> = (i + 1..words.len().min(i + 1 + reach)).take_while(|&j| words[j].follows_closely).collect();
            // German "haben" puts any participle at the clause's end; after "sein" that may be an adjective ("ist zu kurz bemessen").
            let haben = cue_words::haben_forms(language).contains(&words[i].normalized.as_str());
            stretch.iter().enumerate().any(|(k, &j)| is_past(&words[j], haben && k + 1 == stretch.len() && clause_ends_after(words, j), language))
        })
        .count()
}

fn clause_ends_after(words: &[Word], i: usize) -> bool {
    words.get(i + 1).is_none_or(|next| !next.follows_closely)
}

/// A past tense (English) or past participle; `last` when the word ends the
/// clause of a German "haben", where the participle stands ("… im Sommer ausgetauscht").
fn is_past(word: &Word, last: bool, language: Language) -> bool {
    let w = word.normalized.as_str();
    let ends = |endings: &[&str]| endings.iter().any(|ending| w.ends_with(ending));
    match language {
        Language::En => {
            cue_words::irregular_pasts(language).binary_search(&w).is_ok() || (w.len() > 4 && w.ends_with("ed") && !w.ends_with("eed"))
        }
        // Nouns are capitalized: a lower-case word in ge…t or ge…en (also after
        // a separable prefix: "eingebaut"), or one in -t or -en that ends the clause.
        Language::De => {
            let lower = word.text.starts_with(|c: char| c.is_lowercase());
            let ge = cue_words::separable_prefixes(language).iter().any(|prefix| w.starts_with(&format!("{prefix}ge")));
            lower && w.chars().count() >= 5 && ends(&["t", "en"]) && (ge || last)
        }
        Language::Fr => w.chars().count() >= 3 && ends(&["é", "ée", "és", "ées", "u", "us", "is", "it", "ait"]),
        Language::Es => w.chars().count() >= 4 && ends(&["ado", "ada", "ido", "ida", "cho", "to"]),
        Language::It => w.chars().count() >= 4 && ends(&["ato", "ata", "ati", "ate", "uto", "uta", "ito", "ita", "tto", "eso"]),
        _ => false,
    }
}

/// Comparisons told by structure: a comparative after a word of degree
/// ("much cleaner", "viel günstiger") or before "than" ("günstiger als"), and
/// "plus … que", "más … que", "più … di".
fn comparatives(words: &[Word], language: Language) -> usize {
    let (intensifiers, comparison) = (cue_words::comparison_intensifiers(language), cue_words::comparison_followers(language));
    if intensifiers.is_empty() {
        return 0;
    }
    let is = |i: usize, list: &[&str]| words.get(i).is_some_and(|w| w.follows_closely && list.binary_search(&w.normalized.as_str()).is_ok());
    let comparative = |w: &Word| w.normalized.chars().count() >= 5 && w.normalized.ends_with("er");
    let mut count = 0;
    for i in 0..words.len() {
        if !intensifiers.binary_search(&words[i].normalized.as_str()).is_ok() {
            continue;
        }
        count += match language {
            // Germanic: a comparative right after the intensifier.
            Language::En | Language::De => words.get(i + 1).is_some_and(|next| next.follows_closely && comparative(next)) as usize,
            // Romance: "plus/más/più" and its "que/di" within five words.
            _ => (i + 2..=i + 6).any(|j| is(j, comparison)) as usize,
        };
    }
    if language == Language::De {
        count += (1..words.len()).filter(|&i| is(i, comparison) && comparative(&words[i - 1])).count();
    }
    count
}

#[cfg(test)]
#[path = "cue_examples.rs"]
mod cue_examples;
