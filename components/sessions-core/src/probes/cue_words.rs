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

/// The words after which a past tense or participle tells a story: an
/// English subject ("we tried"), the German, French, Spanish and Italian
/// auxiliaries of the past ("habe … gekauft", "j'ai essayé", "hemos probado",
/// "ho provato"). English pasts that do not end in -ed. The German separable
/// prefixes a participle's ge- may follow ("ausgetauscht", "eingebaut"), and
/// none; the forms of German "haben" among the auxiliaries.
pub use lists::{haben_forms, irregular_pasts, past_auxiliaries, separable_prefixes};

/// How many words on from its auxiliary a past participle may follow: German
/// puts it at the clause's end ("habe das Abo gestern *gekündigt*").
pub fn past_reach(language: Language) -> usize {
    match language {
        Language::De => 8,
        Language::En | Language::Fr | Language::Es | Language::It => 2,
        _ => 0,
    }
}

/// What a comparison is built of beyond its words: the words of degree before
/// a comparative ("much", "viel"; Romance "plus", "más", "più") and what
/// follows it ("als"; "que", "di", "che"). A language without the first has no
/// comparison frames.
pub use lists::{comparison_followers, comparison_intensifiers};

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
            sorted(&format!("{name} past auxiliaries"), past_auxiliaries(language));
            sorted(&format!("{name} irregular pasts"), irregular_pasts(language));
            sorted(&format!("{name} haben"), haben_forms(language));
            sorted(name, comparison_intensifiers(language));
            sorted(name, comparison_followers(language));
            assert!(example_markers(language).iter().all(|m| normalize(m) == *m), "{name}");
            assert!(contrast_markers(language).iter().all(|m| normalize(m) == *m), "{name}");
        }
    }
}
