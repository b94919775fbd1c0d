//! An answer's terms: the stems of its content words, which the built-in
//! synthesis groups interviews by. They are taken once, when the interview
//! ends, and kept per interview and question as a digest (`answer_terms`), so
//! that a synthesis of thousands of interviews reads them instead of
//! re-reading and re-stemming every answer.
//!
//! Words are read with the interviewer's word machinery (`sessions::probes`):
//! the interview language's stop words and fillers are no terms, words are
//! compared by their Snowball stem (as written where a language has none).
//! Numbers and the language's light verbs ("use", "make", "need") are no terms
//! either: they recur in any set of answers without being an idea of their own.

use crate::projects::Language;
use crate::sessions::probes::lexicon::Lexicon;
use crate::sessions::probes::words::{self, Word};

/// Verbs (normalized) that the stop-word lists keep but that name no idea: a
/// theme of "use" or "need" says nothing. They may still stand inside a label.
fn light_verbs(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => &[
            "use", "used", "uses", "using", "make", "makes", "made", "making", "need", "needs", "needed", "want",
            "wants", "wanted", "feel", "feels", "felt", "know", "knew", "see", "saw", "seen", "say", "said", "says",
            "take", "took", "taken", "give", "gave", "given", "try", "tried", "trying", "come", "came", "put", "let",
            "keep", "kept", "seem", "seems", "seemed", "look", "looks", "find", "found", "tell", "told", "ask", "asked",
            "mean", "means", "meant", "like", "liked", "help", "helps", "helped", "lot", "way", "ways", "yes",
        ],
        Language::De => &[
            "machen", "macht", "gemacht", "brauchen", "braucht", "finden", "findet", "sagen", "sagt", "gesagt",
            "sehen", "sieht", "geben", "wollen", "will", "möchte", "möchten", "kommen", "kommt", "gehen", "geht",
            "lassen", "nutzen", "benutzen", "sollte", "sollten", "soll", "müssen", "muss", "können", "kann",
        ],
        Language::Fr => &[
            "utiliser", "utilise", "besoin", "veux", "veut", "voulais", "dire", "dit", "voir", "vois", "prendre",
            "donner", "mettre", "trouver", "trouve", "falloir", "faut", "devrait", "doit", "pouvoir", "peux",
        ],
        Language::Es => &[
            "usar", "uso", "necesito", "necesita", "quiero", "quiere", "decir", "dice", "ver", "veo", "tomar", "dar",
            "poner", "encontrar", "debe", "deben", "debería", "puede", "pueden", "tener", "tiene", "tengo",
        ],
        Language::It => &[
            "usare", "uso", "bisogno", "voglio", "vuole", "dire", "dice", "vedere", "prendere", "dare", "mettere",
            "trovare", "deve", "devono", "dovrebbe", "può", "possono", "avere",
        ],
        _ => &[],
    }
}

/// The distinct terms of an answer, in the order they first appear.
pub fn answer_terms(text: &str, lexicon: &Lexicon) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in words::words(text) {
        if let Some(stem) = term(&word, lexicon) {
            if !terms.contains(&stem) {
                terms.push(stem);
            }
        }
    }
    terms
}

/// A word's term: its stem, if it is a content word that names something.
pub fn term(word: &Word, lexicon: &Lexicon) -> Option<String> {
    if !lexicon.is_content(word) || word.text.chars().any(|c| c.is_numeric()) {
        return None;
    }
    if light_verbs(lexicon.language()).contains(&word.normalized.as_str()) {
        return None;
    }
    Some(lexicon.stem(word))
}

/// One answer's line of a digest: its seq and its terms.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnswerTerms<'d> {
    pub seq: i64,
    pub terms: Vec<&'d str>,
}

/// The digest of one interview's answers to one question: a line per answer,
/// its seq then its terms, separated by spaces (a term holds no white space).
pub fn encode(answers: &[(i64, Vec<String>)]) -> String {
    let lines: Vec<String> = answers
        .iter()
        .map(|(seq, terms)| std::iter::once(seq.to_string()).chain(terms.iter().cloned()).collect::<Vec<_>>().join(" "))
        .collect();
    lines.join("\n")
}

/// The answers of a digest; a line that does not start with a seq is skipped.
pub fn decode(digest: &str) -> Vec<AnswerTerms<'_>> {
    digest
        .lines()
        .filter_map(|line| {
            let mut parts = line.split(' ').filter(|p| !p.is_empty());
            let seq = parts.next()?.parse().ok()?;
            Some(AnswerTerms { seq, terms: parts.collect() })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn digests_round_trip() {
        let digest = encode(&[(3, vec!["ship".into(), "cost".into()]), (5, vec![])]);
        assert_eq!(digest, "3 ship cost\n5");
        assert_eq!(
            decode(&digest),
            [AnswerTerms { seq: 3, terms: vec!["ship", "cost"] }, AnswerTerms { seq: 5, terms: vec![] }]
        );
        assert_eq!(decode("x y\n\n7 a"), [AnswerTerms { seq: 7, terms: vec!["a"] }]);
    }
}
