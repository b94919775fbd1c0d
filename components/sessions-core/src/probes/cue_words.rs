//! What an answer does, told by its words (docs/sessions.md, "The way of
//! asking"): it generalises ("always", "everyone"), judges, feels or predicts
//! ("frustrating", "love", "will"), narrates ("last week", "we tried"),
//! compares ("than", "compared to"), worries ("afraid", "risk") or wishes
//! ("I wish", "ideally"); whether it already gives a concrete example ("for
//! example", "yesterday"); and what sets two things against each other
//! ("rather than", "instead of").
//!
//! Per language: single words (normalized and sorted, looked up by binary
//! search) and phrases of two or three words (normalized, space-separated).
//! Arabic, Russian, Japanese, Hebrew, Greek and Ukrainian have no cue lists:
//! their probes keep the rotation. Only lists live here: which list tells
//! which cue, and the rules that read them, are `cues.rs`'s.

use projects_core::Language;

// The lists themselves are data (`cue_words.json`: per list, per language),
// compiled into static slices by build.rs; a language a list has no entry for
// has none (`&[]`).
mod lists {
    use projects_core::Language;
    include!(concat!(env!("OUT_DIR"), "/cue_words.rs"));
}

/// Per cue, its single words and its phrases; then what tells that an answer
/// already gives a concrete example (a marker of an example, or of one
/// particular time), and what sets two things of an answer against each other
/// ("editing *rather than* drafting", "*unlike* image tools, the music plugins
/// …"), normalized phrases of one to four words. Japanese markers are matched
/// as written (it has no spaces); "vs" and "versus" are no contrast markers:
/// they join a compound as often as they contrast ("batter vs. hitter matchups").
pub use lists::{
    comparing_phrases, comparing_words, contrast_markers, example_markers, generalising_phrases, generalising_words,
    judging_phrases, judging_words, narrating_phrases, narrating_words, wishing_phrases, wishing_words, worrying_phrases,
    worrying_words,
};















/// The words after which a past tense or participle tells a story, and how
/// many words on it may follow: an English subject ("we tried"), the German,
/// French, Spanish and Italian auxiliaries of the past ("habe … gekauft",
/// "j'ai essayé", "hemos probado", "ho provato").
pub fn past_auxiliaries(language: Language) -> (&'static [&'static str], usize) {
    match language {
        Language::En => (&["he", "i", "she", "they", "we", "you"], 2),
        Language::De => (&[
            "bin", "habe", "haben", "hast", "hat", "hatte", "hatten", "ist", "sind", "war", "waren", "wurde",
            "wurden",
        ], 8),
        Language::Fr => (&["a", "ai", "as", "avez", "avons", "j'ai", "ont"], 2),
        Language::Es => (&["ha", "había", "habíamos", "habían", "han", "has", "he", "hemos"], 2),
        Language::It => (&["abbiamo", "avete", "ha", "hai", "hanno", "ho", "siamo", "sono", "è"], 2),
        _ => (&[], 0),
    }
}

/// English pasts that do not end in -ed.
pub fn irregular_pasts() -> &'static [&'static str] {
    &[
        "became", "began", "bought", "brought", "built", "came", "chose", "did", "drove", "felt", "found", "gave",
        "got", "had", "heard", "held", "kept", "knew", "left", "lost", "made", "meant", "met", "paid", "ran", "read",
        "said", "sat", "saw", "sent", "spent", "spoke", "stood", "taught", "thought", "told", "took", "understood",
        "was", "went", "were", "won", "wrote",
    ]
}

/// The German separable prefixes a participle's ge- may follow ("ausgetauscht",
/// "eingebaut"), and none.
pub const GERMAN_PREFIXES: [&str; 17] =
    ["", "ab", "an", "auf", "aus", "bei", "ein", "fest", "her", "hin", "los", "mit", "nach", "um", "vor", "weg", "zu"];

/// The forms of German "haben" among the auxiliaries of the past.
pub const GERMAN_HABEN: [&str; 6] = ["habe", "haben", "hast", "hat", "hatte", "hatten"];

/// What a comparison is built of beyond its words: the words of degree before
/// a comparative ("much", "viel"; Romance "plus", "más", "più") and what
/// follows it ("als"; "que", "di", "che").
pub fn comparison_frames(language: Language) -> Option<(&'static [&'static str], &'static [&'static str])> {
    match language {
        Language::En => Some((&["bit", "even", "far", "lot", "much", "slightly", "way"], &[])),
        Language::De => Some((&["etwas", "noch", "viel", "weit"], &["als"])),
        Language::Fr => Some((&["aussi", "moins", "plus"], &["que"])),
        Language::Es => Some((&["menos", "más", "tan"], &["como", "que"])),
        Language::It => Some((&["meno", "più"], &["che", "dei", "del", "della", "delle", "dello", "di"])),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use text::words::normalize;
    use text_enum::TextEnum;

    #[test]
    fn the_cue_lists_are_normalized_and_the_word_lists_sorted() {
        let sorted = |name: &str, list: &[&str]| {
            assert!(list.iter().all(|w| normalize(w) == *w), "{name}");
            assert!(list.windows(2).all(|pair| pair[0] < pair[1]), "{name} is not sorted");
        };
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            for list in [generalising_words, judging_words, narrating_words, comparing_words, worrying_words, wishing_words] {
                sorted(name, list(language));
            }
            for list in [generalising_phrases, judging_phrases, narrating_phrases, comparing_phrases, worrying_phrases, wishing_phrases] {
                assert!(list(language).iter().all(|p| normalize(p) == *p && p.contains(' ')), "{name}");
            }
            sorted(&format!("{name} past auxiliaries"), past_auxiliaries(language).0);
            if let Some((intensifiers, comparison)) = comparison_frames(language) {
                sorted(name, intensifiers);
                sorted(name, comparison);
            }
            assert!(example_markers(language).iter().all(|m| normalize(m) == *m), "{name}");
            assert!(contrast_markers(language).iter().all(|m| normalize(m) == *m), "{name}");
        }
        sorted("irregular pasts", irregular_pasts());
    }
}
