//! What the interviewer checks of its own messages: the phrase a message
//! quotes, and whether a follow-up takes up what the answer said. The rules a
//! quote itself must keep are the word machinery's (`text::audit`).

pub use text::audit::{dropped_negation, dropped_qualifier, edge_fault, EdgeFault, NEAR_WORDS};
use projects_core::Language;
use crate::strings;
use text::lexicon::Lexicon;
use text::words::{words, Word};
use std::collections::BTreeSet;

/// The phrases an interviewer message quotes: what stands where `{phrase}`
/// (and `{other}`) stand in one of the language's quoting wordings (a
/// probe's, or the one that moves on after a rich answer); none for a message
/// that does not quote.
pub fn quoted_phrases(message: &str, language: Language) -> Vec<String> {
    let strings = strings::for_language(language.as_str()).interviewer;
    let after_example = strings.after_example.split("{question}").next().unwrap_or_default();
    let moving_on = || -> Option<Vec<&str>> {
        let (before, after) = after_example.split_once("{phrase}")?;
        let rest = message.strip_prefix(before)?;
        let end = if after.is_empty() { rest.len() } else { rest.find(after)? };
        Some(vec![&rest[..end]])
    };
    let by_wording = strings.asking.read(message).filter(|(wording, _)| wording.quotes() > 0).map(|(_, quotes)| quotes);
    by_wording.or_else(moving_on).unwrap_or_default().into_iter().map(str::to_string).collect()
}

/// Whether a follow-up takes up what an answer said: it shares two
/// consecutive content words of it, or two content words of 4 letters or more
/// (content: not in the language's stop-word list).
pub fn takes_up(answer: &str, follow_up: &str, language: Language) -> bool {
    let lexicon = Lexicon::of(language);
    let content = |w: &Word| w.normalized.chars().count() > 1 && !lexicon.is_stop_listed(&w.normalized);
    let follow_up_lower = follow_up.to_lowercase();
    let answer_words = words(answer);
    let pair = answer_words.windows(2).any(|pair| {
        pair[1].follows_closely
            && content(&pair[0])
            && content(&pair[1])
            && follow_up_lower.contains(&answer[pair[0].start..pair[1].end].to_lowercase())
    });
    let long = |text: &str| -> BTreeSet<String> {
        words(text).iter().filter(|w| content(w) && w.normalized.chars().count() >= 4).map(|w| w.normalized.clone()).collect()
    };
    pair || long(answer).intersection(&long(follow_up)).count() >= 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quoted_phrase_of_a_message_and_whether_it_takes_up_the_answer() {
        let probe = "You mentioned “compare prices”. Could you tell me more about that?";
        assert_eq!(quoted_phrases(probe, Language::En), ["compare prices"]);
        let two = "You set “compare prices” against “another shop”. What makes the difference for you?";
        assert_eq!(quoted_phrases(two, Language::En), ["compare prices", "another shop"]);
        let moving_on = "Sie sagten: „Kurze Wege“, und Ihr Beispiel macht das sehr anschaulich. Danke. Was noch?";
        assert_eq!(quoted_phrases(moving_on, Language::De), ["Kurze Wege"]);
        assert!(quoted_phrases("Could you tell me a bit more about that?", Language::En).is_empty());
        let answer = "Then I compare prices in another shop before paying anything.";
        assert!(takes_up(answer, probe, Language::En), "a content word pair");
        assert!(takes_up(answer, "Which shop, and what about paying?", Language::En), "two long content words");
        assert!(!takes_up(answer, "Could you tell me a bit more about that?", Language::En));
    }
}
