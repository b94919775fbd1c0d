//! An answer's terms: the stems of its content words, which the built-in
//! synthesis groups interviews by. They are taken once, when the interview
//! ends, and kept per interview and question as a digest (`answer_terms`), so
//! that a synthesis of thousands of interviews reads them instead of
//! re-reading and re-stemming every answer.
//!
//! Words are read with the interviewer's word machinery (`sessions::probes`):
//! the interview language's stop words and fillers are no terms, words are
//! compared by their Snowball stem (as written where a language has none).
//! Numbers, negations and modals (the interviewer's: `Lexicon::qualifier`) and
//! the language's generic words ("use", "need", "specific", "new") are no terms
//! either: they recur in any set of answers without being an idea of their own.

use crate::Language;
use crate::lexicon::Lexicon;
use crate::words::{self, Word};

// `generic_words(language)`: words (normalized) that the stop-word lists keep
// but that name no idea of their own: light verbs ("use", "need"), and words
// that qualify, compare or point ("specific", "different", "new", "example").
// A theme of "need" or "different" says nothing; they may still stand inside a
// label. The lists are data (`terms.json`), compiled in by build.rs.
mod data {
    use crate::Language;
    include!(concat!(env!("OUT_DIR"), "/terms_lists.rs"));
}
use data::generic_words;

/// A stop word more than the interview language's that another language must
/// count in a text to be the language it is read in.
const OTHER_LANGUAGE_MARGIN: usize = 2;

/// The language `text` is read in: the interview's, unless another interview
/// language's stop words and fillers are clearly more of its words (an
/// interviewee may answer in another language than the interview's: "the",
/// "and", "not" say English whatever the interview was).
pub fn reading_language(text: &str, interview_language: Language) -> Language {
    let words = words::words(text);
    let grammatical = |language: Language| {
        let lexicon = Lexicon::of(language);
        words.iter().filter(|w| w.normalized.chars().count() >= 2 && !lexicon.is_content(w)).count()
    };
    let own = grammatical(interview_language);
    let mut best = (interview_language, own);
    for other in <Language as text_enum::TextEnum>::NAMES.iter().filter_map(|name| Language::parse(name)) {
        let count = grammatical(other);
        if count > best.1 && count >= own + OTHER_LANGUAGE_MARGIN {
            best = (other, count);
        }
    }
    best.0
}

/// The distinct terms of an answer, in the order they first appear.
pub fn answer_terms(text: &str, lexicon: &Lexicon) -> Vec<String> {
    let words = words::words(text);
    let mut terms: Vec<String> = Vec::new();
    for i in 0..words.len() {
        if let Some(stem) = term(&words, i, lexicon) {
            if !terms.contains(&stem) {
                terms.push(stem);
            }
        }
    }
    terms
}

/// The term of `words[i]`: its stem, if it is a content word that names
/// something (not a negation or modal: `Lexicon::qualifier`, nor a number or a
/// generic word).
pub fn term(words: &[Word], i: usize, lexicon: &Lexicon) -> Option<String> {
    let word = &words[i];
    if !lexicon.is_content(word) || lexicon.qualifier(words, i).is_some() || word.text.chars().any(|c| c.is_numeric()) {
        return None;
    }
    if generic_words(lexicon.language()).contains(&word.normalized.as_str()) {
        return None;
    }
    Some(lexicon.stem(word))
}

/// The terms an answer's negations reach: per negation, the term of the
/// first content word after it in its clause ("I don't have any *concerns*",
/// "*no* guest checkout"). When that word is a generic one, the negation is
/// about it and reaches no term: "I don't want another password" is about
/// the password as much as "they asked for a password" is.
pub fn negated_terms(text: &str, lexicon: &Lexicon) -> Vec<String> {
    let words = words::words(text);
    let mut negated: Vec<String> = Vec::new();
    for i in 0..words.len() {
        if lexicon.qualifier(&words, i) != Some(crate::lexicon::Qualifier::Negation) {
            continue;
        }
        let reached = (i + 1..words.len())
            .take_while(|&j| !lexicon.begins_clause(&words, j))
            .find(|&j| lexicon.is_content(&words[j]) && lexicon.qualifier(&words, j).is_none());
        if let Some(stem) = reached.and_then(|j| term(&words, j, lexicon)) {
            if !negated.contains(&stem) {
                negated.push(stem);
            }
        }
    }
    negated
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_negation_reaches_the_first_word_after_it_that_names_something() {
        let lexicon = Lexicon::of(Language::En);
        assert_eq!(negated_terms("I don't have any concerns about it.", &lexicon), ["concern"]);
        assert_eq!(negated_terms("There are a lot of concerns, not all of them fair.", &lexicon), ["fair"]);
        assert_eq!(negated_terms("No guest checkout, so I left.", &lexicon), ["guest"]);
        assert_eq!(negated_terms("I don't want another password.", &lexicon), Vec::<String>::new());
        assert_eq!(negated_terms("It is not reliable, but the speed is great.", &lexicon), ["reliabl"]);
    }

    #[test]
    fn terms_are_stems_of_words_that_name_something() {
        let lexicon = Lexicon::of(Language::En);
        assert_eq!(
            answer_terms("I really needed 2 hours: the shipping costs, and the shipping cost again!", &lexicon),
            ["hour", "ship", "cost"]
        );
        let german = Lexicon::of(Language::De);
        assert_eq!(answer_terms("Mehr Wasserkraft und Windräder, wo es effizient ist", &german), ["wasserkraft", "windrad", "effizient"]);
    }

    #[test]
    fn answers_are_read_in_the_language_their_words_show() {
        assert_eq!(reading_language("I do not want to create an account for this.", Language::Ar), Language::En);
        assert_eq!(reading_language("Ich möchte kein Konto für diesen Einkauf anlegen.", Language::En), Language::De);
        assert_eq!(reading_language("Windräder dort, wo effizient", Language::De), Language::De);
        assert_eq!(reading_language("Photovoltaik", Language::En), Language::En, "nothing says otherwise");
    }

}
