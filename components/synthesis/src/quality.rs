//! The rules that decide an interview's quality signals (`record::quality`;
//! docs/synthesis.md, "Who counts"), once, when the interview ends, from its
//! free-text answers.
//!
//! Each signal is a flag that lowers a score of 5. A strong flag (gibberish,
//! the same text pasted again and again, one-word or declining answers
//! throughout, no answer at all) takes 3 and makes the interview low-effort
//! (a score of 2 or less); a mild one (short answers throughout, answers typed
//! faster than anyone types) takes 1 and never excludes alone: a careful
//! participant may paste a prepared answer, or answer briefly. The rules look
//! at the form of the answers only, never at what they say, so a genuine
//! interview in any language keeps its place.

use super::answers::Answer;
use projects_core::{InterviewMode, Language};
use records::quality::{Quality, QualityFlag};
use text::noise::{declines_in_any_language, is_gibberish};
use text::words;

/// Answers of at least this many characters tell a typist's speed.
const TIMED_ANSWER_CHARS: usize = 40;
/// Characters a second beyond any sustained typing (about 180 words a minute;
/// fast typists reach 120).
const MAX_TYPED_CHARS_PER_SECOND: f64 = 15.0;

/// The quality of an interview's free-text answers, as it ends.
pub fn assess(answers: &[Answer], language: Language, mode: InterviewMode) -> Quality {
    if answers.is_empty() {
        return Quality::of_flags(vec![QualityFlag::NoAnswers]);
    }
    let n = answers.len();
    let word_counts: Vec<usize> = answers.iter().map(|a| words::words(a.text).len()).collect();
    let mut flags = Vec::new();
    // Mash and repetition are judged on what the interviewee said: a refusal
    // ("No.", "I don't know") says nothing either way, and must not dilute them.
    let said: Vec<&Answer> = answers.iter().filter(|a| !declines_in_any_language(a.text, language)).collect();
    let gibberish = said.iter().filter(|a| is_gibberish(a.text)).count();
    if !said.is_empty() && gibberish * 2 >= said.len() {
        flags.push(QualityFlag::Gibberish);
    }
    if is_repeated(&said) {
        flags.push(QualityFlag::RepeatedAnswers);
    }
    if n >= 3 && word_counts.iter().all(|&w| w <= 1) {
        flags.push(QualityFlag::OneWordAnswers);
    } else if n >= 3 && answers.iter().all(|a| declines_in_any_language(a.text, language)) {
        flags.push(QualityFlag::DeclinedAnswers);
    } else if n >= 3 && word_counts.iter().filter(|&&w| w <= 3).count() * 2 >= n {
        flags.push(QualityFlag::ShortAnswers);
    }
    if mode == InterviewMode::Typing && typed_too_fast(answers) {
        flags.push(QualityFlag::TooFast);
    }
    Quality::of_flags(flags)
}

/// The same text (compared without case, spacing or closing punctuation), of
/// two words or more, in two thirds or more of two or more answers (refusals
/// left out by the caller).
fn is_repeated(answers: &[&Answer]) -> bool {
    if answers.len() < 2 {
        return false;
    }
    let key = |text: &str| {
        let text: Vec<String> = words::words(text).iter().map(|w| w.normalized.clone()).collect();
        text.join(" ")
    };
    let keys: Vec<String> = answers.iter().map(|a| key(a.text)).collect();
    keys.iter().any(|candidate| {
        let repeats = keys.iter().filter(|k| *k == candidate).count();
        candidate.contains(' ') && repeats >= 2 && repeats * 3 >= keys.len() * 2
    })
}

/// Half or more of the long answers (and two at least) arrived faster than anyone types.
fn typed_too_fast(answers: &[Answer]) -> bool {
    let timed: Vec<bool> = answers
        .iter()
        .filter(|a| a.text.chars().count() >= TIMED_ANSWER_CHARS)
        .filter_map(|a| {
            let seconds = a.took_ms? as f64 / 1000.0;
            Some(a.text.chars().count() as f64 > seconds * MAX_TYPED_CHARS_PER_SECOND)
        })
        .collect();
    let fast = timed.iter().filter(|&&f| f).count();
    fast >= 2 && fast * 2 >= timed.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answers<'a>(texts: &[&'a str]) -> Vec<Answer<'a>> {
        texts
            .iter()
            .enumerate()
            .map(|(i, text)| Answer { seq: 2 * i as i64 + 1, question_index: Some(0), text, took_ms: Some(60_000) })
            .collect()
    }

    fn flags(texts: &[&str]) -> Vec<QualityFlag> {
        assess(&answers(texts), Language::En, InterviewMode::Typing).flags
    }

    #[test]
    fn genuine_answers_score_five() {
        let quality = assess(
            &answers(&[
                "The shipping cost only appears on the last page, so I left.",
                "I don't want to create an account for one purchase.",
                "Schnell und günstig, keine Frage.",
            ]),
            Language::En,
            InterviewMode::Typing,
        );
        assert_eq!(quality, Quality { score: 5, flags: vec![] });
        assert!(!quality.is_low_effort());
    }

    #[test]
    fn strong_signals_exclude() {
        for (texts, flag) in [
            (vec!["asdf asdf", "jkjkjk sdfgh", "qwerty"], QualityFlag::Gibberish),
            (vec!["sdkfjh skdjfh", "lkjsdf", "fine"], QualityFlag::Gibberish),
            (vec!["Lorem ipsum dolor sit amet", "lorem ipsum", "blah blah blah"], QualityFlag::Gibberish),
            (vec!["test test test", "ok ok ok ok", "good"], QualityFlag::Gibberish),
            (vec!["Great product, love it!", "great product love it", "Great product, love it."], QualityFlag::RepeatedAnswers),
            (vec!["good", "ok", "fine", "yes"], QualityFlag::OneWordAnswers),
            (vec!["I don't know", "no idea", "nothing really"], QualityFlag::DeclinedAnswers),
            (vec![], QualityFlag::NoAnswers),
        ] {
            let quality = assess(&answers(&texts), Language::En, InterviewMode::Typing);
            assert!(quality.flags.contains(&flag), "{texts:?}: {quality:?}");
            assert!(quality.is_low_effort(), "{texts:?}: {quality:?}");
        }
    }

    #[test]
    fn mild_signals_lower_the_score_without_excluding() {
        let fast: Vec<Answer> = answers(&[
            "I compared three providers and picked the one with the clearest prices.",
            "Mostly the onboarding call, which answered every question we had.",
        ])
        .into_iter()
        .map(|a| Answer { took_ms: Some(900), ..a })
        .collect();
        let quality = assess(&fast, Language::En, InterviewMode::Typing);
        assert_eq!(quality, Quality { score: 4, flags: vec![QualityFlag::TooFast] });
        assert_eq!(assess(&fast, Language::En, InterviewMode::Talking).score, 5, "spoken answers are not typed");
        assert_eq!(flags(&["Price mostly", "The support team", "Speed", "It was really about the integrations we needed."]), [QualityFlag::ShortAnswers]);
    }

    #[test]
    fn real_words_are_not_gibberish() {
        for text in [
            "Angstschweiß und Schwierigkeiten",
            "Förderung für Photovoltaikanlagen… und einfachere Einreichung",
            "We need a real bus system.",
            "FMLA and KRS rules, 401k, SQL",
            "Bewertung, Mehrwert, Azerbaijan, цукерка",
            "Очень удобно и быстро",
            "Η παράδοση ήταν γρήγορη",
            "التوصيل كان سريعا",
            "配送が早かった",
            "משלוח מהיר",
            "42",
        ] {
            assert!(!is_gibberish(text), "{text}");
        }
        assert!(is_gibberish("...") && is_gibberish(":)"), "nothing written");
    }

    #[test]
    fn refusals_do_not_dilute_mash_or_repetition() {
        let mash = flags(&["asdf qwer zxcv", "No.", "jkl jkl jkl", "No."]);
        assert!(mash.contains(&QualityFlag::Gibberish), "{mash:?}");
        let repeated = flags(&["good good good", "No.", "good good good", "No."]);
        assert!(repeated.contains(&QualityFlag::RepeatedAnswers), "{repeated:?}");
        for texts in [&["asdf qwer zxcv", "No.", "jkl jkl jkl", "No."][..], &["good good good", "No.", "good good good", "No."]] {
            assert!(assess(&answers(texts), Language::En, InterviewMode::Typing).is_low_effort(), "{texts:?}");
        }
        let genuine = flags(&["The shipping cost surprised me at the very end.", "No.", "asdf", "No.", "I left the cart for a cheaper shop."]);
        assert!(!genuine.contains(&QualityFlag::Gibberish), "one slip among real answers: {genuine:?}");
    }

    #[test]
    fn a_refusal_in_another_language_than_the_interviews_is_still_one() {
        let texts = ["The delivery was late twice.", "No, nothing else.", "No, nothing else.", "No, nothing else.", "No, nothing else."];
        let quality = assess(&answers(&texts), Language::Ar, InterviewMode::Typing);
        assert!(!quality.is_low_effort() && !quality.flags.contains(&QualityFlag::RepeatedAnswers), "{quality:?}");
    }

    #[test]
    fn quality_round_trips_through_storage() {
        let quality = Quality::of_flags(vec![QualityFlag::Gibberish, QualityFlag::TooFast]);
        assert_eq!(quality.score, 1);
        assert_eq!(Quality::from_stored(1, &quality.flags_json()), quality);
        assert_eq!(quality.flags_json(), r#"["gibberish","too_fast"]"#);
    }

    /// Every interview of the real answers in tests/fixtures/real-answers
    /// (Anthropic Interviewer transcripts, Polis statements) is genuine.
    #[test]
    fn no_real_interview_is_low_effort() {
        let fixtures = [
            (Language::En, include_str!("../../../tests/fixtures/real-answers/anthropic-interviewer-creatives.json")),
            (Language::En, include_str!("../../../tests/fixtures/real-answers/anthropic-interviewer-scientists.json")),
            (Language::En, include_str!("../../../tests/fixtures/real-answers/polis-bowling-green-en.json")),
            (Language::De, include_str!("../../../tests/fixtures/real-answers/polis-austria-klimarat-de.json")),
            (Language::Fr, include_str!("../../../tests/fixtures/real-answers/polis-ia-messages-propositions-fr.json")),
            (Language::Es, include_str!("../../../tests/fixtures/real-answers/polis-cuba-15n-es.json")),
        ];
        for (language, text) in fixtures {
            let fixture: serde_json::Value = serde_json::from_str(text).unwrap();
            for interview in fixture["interviews"].as_array().unwrap() {
                let texts: Vec<&str> = match interview.get("turns") {
                    Some(turns) => turns.as_array().unwrap().iter().map(|t| t["participant"].as_str().unwrap()).collect(),
                    None => interview["answers"].as_array().unwrap().iter().map(|a| a["text"].as_str().unwrap()).collect(),
                };
                // Every prefix: a replay may end the interview after any answer.
                for end in 1..=texts.len() {
                    let quality = assess(&answers(&texts[..end]), language, InterviewMode::Typing);
                    assert!(!quality.is_low_effort(), "{} after {end} answers: {quality:?} {:?}", interview["id"], &texts[..end]);
                }
            }
        }
    }
}
