//! What the interviewer checks of its own messages: the phrase a message
//! quotes, and whether a follow-up takes up what the answer said. The rules a
//! quote itself must keep are the word machinery's (`text::audit`).

pub use crate::text::audit::{dropped_qualifier, edge_fault, EdgeFault, NEAR_WORDS};
use crate::projects::Language;
use crate::sessions::strings;
use crate::text::lexicon::Lexicon;
use crate::text::words::{words, Word};
use std::collections::BTreeSet;

/// The phrase an interviewer message quotes: what stands where `{phrase}`
/// stands in one of the language's quoting templates (a probe's, or the one
/// that moves on after a rich answer).
pub fn quoted_phrase(message: &str, language: Language) -> Option<String> {
    let strings = strings::for_language(language.as_str()).interviewer;
    let quoted = &strings.quoted_probes;
    let after_example = strings.after_example.split("{question}").next().unwrap_or_default().to_string();
    let templates = [&quoted.instance, &quoted.reason, &quoted.consequence, &quoted.contrast, &after_example];
    let phrase = templates.into_iter().find_map(|template| {
        let (before, after) = template.split_once("{phrase}")?;
        let rest = message.strip_prefix(before)?;
        let end = if after.is_empty() { rest.len() } else { rest.find(after)? };
        Some(rest[..end].to_string())
    });
    phrase
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
        let probe = "You said “compare prices”. What makes that matter to you?";
        assert_eq!(quoted_phrase(probe, Language::En).as_deref(), Some("compare prices"));
        let moving_on = "Sie sagten: „Kurze Wege“, und Ihr Beispiel macht das sehr anschaulich. Danke. Was noch?";
        assert_eq!(quoted_phrase(moving_on, Language::De).as_deref(), Some("Kurze Wege"));
        assert_eq!(quoted_phrase("Could you tell me a bit more about that?", Language::En), None);
        let answer = "Then I compare prices in another shop before paying anything.";
        assert!(takes_up(answer, probe, Language::En), "a content word pair");
        assert!(takes_up(answer, "Which shop, and what about paying?", Language::En), "two long content words");
        assert!(!takes_up(answer, "Could you tell me a bit more about that?", Language::En));
    }
}
