//! The localized texts of the page, its error pages and the built-in
//! interviewer (`strings.json`: one object per language, English complete, the
//! other languages falling back to English key by key).

use crate::probes::kinds::PhraseKind;
use serde::Deserialize;
use serde_json::{Map, Value};

/// strings.json, one JSON text per language (split by build.rs, so a request
/// parses only the languages it shows).
mod by_language {
    include!(concat!(env!("OUT_DIR"), "/strings.rs"));
}

pub const FALLBACK_LANGUAGE: &str = "en";

/// What the built-in interviewer says around the research questions.
#[derive(Debug, Clone, Deserialize)]
pub struct InterviewerStrings {
    pub greeting: String,
    /// `{objective}`
    pub objective_intro: String,
    /// `{topic}` (English only: see `interviewer::topic`)
    pub topic_intro: String,
    pub no_wrong_answers: String,
    /// `{question}`
    pub first_question: String,
    /// `{question}`
    pub next_question: String,
    /// `{question}` (or the wrap-up) after an answer that declines ("I don't know").
    pub after_refusal: String,
    /// `{phrase}`, `{question}` (or the wrap-up): moving on after a rich answer,
    /// naming what it said (see `probes::after_example`).
    pub after_example: String,
    /// Plain probes, for an answer with nothing to quote.
    pub probes: Vec<String>,
    /// The wordings of each way of asking (see `sessions::probes`).
    pub asking: Asking,
    pub wrap_up: String,
    pub time_up: String,
    pub closing: String,
}

/// The wordings of each way of asking about an answer. A wording quotes the
/// answer's phrase where it has `{phrase}` (between the language's quotation
/// marks), a second one where it has `{other}`, or asks in the interviewer's
/// own words; `fits` names the kinds of
/// phrase it reads well with (every kind when absent). A language without cue
/// lists needs only the four ways of the rotation.
#[derive(Debug, Clone, Deserialize)]
pub struct Asking {
    /// More about what was said: the default way, where the answer gives no cue.
    pub more: Vec<Wording>,
    pub instance: Vec<Wording>,
    pub reason: Vec<Wording>,
    pub consequence: Vec<Wording>,
    pub contrast: Vec<Wording>,
    #[serde(default)]
    pub worry: Vec<Wording>,
    #[serde(default)]
    pub wish: Vec<Wording>,
}

/// One way to word a probe.
#[derive(Debug, Clone, Deserialize)]
#[serde(from = "WordingText")]
pub struct Wording {
    pub text: String,
    /// The kinds of phrase it fits; empty: every kind.
    pub fits: Vec<PhraseKind>,
}

/// A wording as strings.json writes it: its text alone when it fits every kind.
#[derive(Deserialize)]
#[serde(untagged)]
enum WordingText {
    Any(String),
    Fitting { text: String, fits: Vec<PhraseKind> },
}

impl From<WordingText> for Wording {
    fn from(written: WordingText) -> Wording {
        match written {
            WordingText::Any(text) => Wording { text, fits: Vec::new() },
            WordingText::Fitting { text, fits } => Wording { text, fits },
        }
    }
}

/// The error pages' titles and messages.
#[derive(Debug, Clone, Deserialize)]
pub struct ErrorStrings {
    pub not_found_title: String,
    pub not_found_message: String,
    pub not_active_title: String,
    pub not_active_message: String,
    pub completed_title: String,
    pub completed_message: String,
    pub rate_limited_title: String,
    pub rate_limited_message: String,
    pub error_title: String,
    pub error_message: String,
}

/// Every text of one language.
#[derive(Debug, Clone)]
pub struct Strings {
    pub language: String,
    /// The page's own strings, handed to its script.
    pub page: Map<String, Value>,
    pub interviewer: InterviewerStrings,
    pub errors: ErrorStrings,
}

impl Strings {
    pub fn page_text<'a>(&'a self, key: &'a str) -> &'a str {
        self.page.get(key).and_then(Value::as_str).unwrap_or(key)
    }
}

/// One language's texts, by section (`page`, `interviewer`, `errors`).
fn texts_of(language: &str) -> Map<String, Value> {
    by_language::json(language)
        .map(|json| serde_json::from_str(json).expect("strings.json: each language is a JSON object"))
        .unwrap_or_default()
}

fn section(fallback: &Map<String, Value>, own: Option<&Map<String, Value>>, name: &str) -> Map<String, Value> {
    let pick = |texts: &Map<String, Value>| texts.get(name).and_then(Value::as_object).cloned().unwrap_or_default();
    let mut merged = pick(fallback);
    for (key, value) in own.map(pick).unwrap_or_default() {
        merged.insert(key, value);
    }
    merged
}

/// The texts of `language`, English where it has none.
pub fn for_language(language: &str) -> Strings {
    let fallback = texts_of(FALLBACK_LANGUAGE);
    let own = (language != FALLBACK_LANGUAGE).then(|| texts_of(language));
    let typed = |name: &str| Value::Object(section(&fallback, own.as_ref(), name));
    Strings {
        language: language.to_string(),
        page: section(&fallback, own.as_ref(), "page"),
        interviewer: serde_json::from_value(typed("interviewer")).expect("strings.json: complete English interviewer texts"),
        errors: serde_json::from_value(typed("errors")).expect("strings.json: complete English error texts"),
    }
}

/// The languages `strings.json` has.
pub fn languages() -> Vec<String> {
    by_language::LANGUAGES.iter().map(|language| language.to_string()).collect()
}

pub use text::language::direction;

/// `template` with `{name}` replaced by `value`.
pub fn fill(template: &str, name: &str, value: &str) -> String {
    template.replace(&format!("{{{name}}}"), value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_project_language_has_complete_texts() {
        for language in <projects_core::Language as text_enum::TextEnum>::NAMES {
            assert!(languages().iter().any(|l| l == language), "strings.json lacks {language}");
            let strings = for_language(language);
            assert!(strings.interviewer.probes.len() >= 3, "{language}");
            for key in ["title", "noscript", "logo_alt"] {
                assert!(strings.page.contains_key(key), "{language} lacks page.{key}");
            }
            let interviewer = &strings.interviewer;
            for template in [&interviewer.first_question, &interviewer.next_question, &interviewer.after_refusal, &interviewer.after_example] {
                assert!(template.contains("{question}"), "{language}: {template}");
            }
            assert_eq!(interviewer.after_example.matches("{phrase}").count(), 1, "{language}");
            let asking = &interviewer.asking;
            for way in [&asking.more, &asking.instance, &asking.reason, &asking.consequence, &asking.contrast, &asking.worry, &asking.wish] {
                for wording in way {
                    assert!(wording.text.matches("{phrase}").count() <= 1, "{language}: {}", wording.text);
                    assert!(wording.text.matches("{other}").count() <= wording.text.matches("{phrase}").count(), "{language}: {}", wording.text);
                }
            }
            assert!(strings.interviewer.objective_intro.contains("{objective}"), "{language}");
        }
    }

    #[test]
    fn missing_keys_fall_back_to_english() {
        let unknown = for_language("xx");
        assert_eq!(unknown.interviewer.greeting, for_language("en").interviewer.greeting);
        assert_ne!(for_language("fr").interviewer.greeting, unknown.interviewer.greeting);
    }

    #[test]
    fn placeholders_are_filled() {
        assert_eq!(fill("Let's begin. {question}", "question", "Why?"), "Let's begin. Why?");
        assert_eq!(direction("he"), "rtl");
        assert_eq!(direction("fr"), "ltr");
    }
}
