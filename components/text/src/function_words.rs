//! The words a quote must treat with care, per interview language: negations
//! and modals (a quote carries the ones that belong to its phrase, or another
//! phrase is chosen), adverbs of degree and connectives (never at a quote's
//! edge), and the connectives that end a clause, and with it the reach of a
//! negation (docs/sessions.md, "Quotes").
//!
//! Every list is written normalized (`words::normalize`) and sorted, so a word
//! is looked up by binary search: a test holds them to it.

use crate::Language;

// The lists are data (`function_words.json`: per list, per language, normalized
// and sorted), compiled into static slices by build.rs.
mod data {
    use crate::Language;
    include!(concat!(env!("OUT_DIR"), "/function_words.rs"));
}

/// Where a negation or modal reaches in its clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// Over what follows it to the clause's end: "can't *find a good image*".
    Following,
    /// Over the whole clause, before it too: German puts `nicht` after the verb
    /// ("ich finde das Bild *nicht*"), spoken French drops `ne` ("j'ai *pas* le temps").
    Clause,
}

/// How many words right before a phrase are read for a negation or modal,
/// even across a connective.
pub const NEAR_WORDS: usize = 3;

pub fn reach(language: Language) -> Reach {
    match language {
        Language::De | Language::Fr => Reach::Clause,
        _ => Reach::Following,
    }
}

/// Words that negate what they reach: "not", "never", "hardly", "without",
/// "no (longer)", the words that say "not able" or "not there" ("unable",
/// "impossible", "lack", "fehlt", "manque"), and English "least", which turns
/// what follows into its opposite ("my *least* favourite part"). English contractions in `n't` and French `n'` are negations
/// whatever the verb (see `Lexicon::qualifier`).
///
/// Japanese negates with an ending after the verb (ない, ません): see `Lexicon::negated_after`.
pub use data::negations;

/// Negations that reach only the words right after them, even where others
/// reach the whole clause: "ohne Umweltstandards", "keine Lösung", "sans
/// contrôle", "aucun intérêt".
pub use data::local_negations;

/// Modal verbs: "should build more parks" is not "build more parks".
pub use data::modals;

/// Two-word modals, written as their two normalized words: "have to", "hay que".
pub use data::modal_pairs;

/// Two words that look like a negation and its word but are not one: "sin
/// embargo" (however), "no obstante" (nevertheless), "non solo" (not only:
/// nothing is denied).
pub use data::not_negating;

/// Words that only look like a negation after the word before them:
/// "whether *or not*", "*at least*", "ou *non*", "oder *nicht*".
pub use data::not_negating_after;

/// Prepositions the stop-word lists leave out: like them, they never stand at
/// a quote's edge ("*entre* grandes puissances").
pub use data::prepositions;

/// Adverbs of degree: they qualify a word and say nothing of their own, so a
/// quote never begins or ends on one ("perspective *somewhat*").
pub use data::degree_adverbs;

/// Set phrases that work as one adverb or connective ("in erster Linie", "par
/// exemple", "of course"): their words say nothing of their own there, so a
/// phrase never begins, ends or runs through them ("*erster Linie* sollen die
/// Unternehmen" is no phrase). Normalized words, space-separated.
pub use data::adverbial_phrases;

/// Connectives: they join clauses and say nothing of their own, so a quote
/// never begins or ends on one ("*therefore* a better output").
pub use data::connectives;

/// The connectives that begin a new clause, and so end the reach of a negation
/// or modal before them ("I *don't* use it for writing, *but* the research
/// part is great"). "and", "or", "if", "that" are not among them: "no time
/// or energy", "not sure if it helps", "don't think that it works".
pub use data::clause_breaks;

/// Personal pronouns that, after "and" or "or", begin a clause of their own:
/// "I can't draw *and I* use it for sketches".
pub use data::subject_pronouns;

/// Words that open a clause inside a sentence: wh-words, relatives and
/// subjects ("AI in *what* people think", "music *it's* a big problem"). A
/// phrase that takes one in stops halfway through that clause. English only:
/// the labels of the built-in synthesis are English phrases.
pub use data::clause_openers;

/// The word that ties a noun to what it is of ("the accuracy *of* the
/// model", "for the sake *of* branches"), and the words whose complement
/// "to" ties to them ("compared *to* colleagues", "due *to* cost", "supposed
/// *to* look"): a phrase that stops right before the tie leaves its head
/// without what completes it. In German, French, Spanish and Italian the tie
/// is "von" and the forms of "of" that hold an article ("du", "del", "della":
/// "el Fin *del* Embargo"); a plain "de" or "di" often opens an infinitive
/// instead ("le temps *de* tout vérifier"), and is no tie.
pub fn complement_ties(language: Language) -> (&'static [&'static str], &'static [&'static str]) {
    match language {
        Language::En => (&["of"], &["according", "compared", "contrary", "due", "prior", "related", "relative", "similar", "supposed", "thanks"]),
        Language::De => (&["von"], &[]),
        Language::Fr => (&["des", "du"], &[]),
        Language::Es => (&["del"], &[]),
        Language::It => (&["degli", "dei", "del", "della", "delle", "dello"], &[]),
        _ => (&[], &[]),
    }
}

/// The words that open a verb's object: articles, possessives and object
/// pronouns. A label that stops right before one stops before its verb's
/// object ("AI to help create" of "create *the* ...", "AI is very useful for
/// helping" of "helping *me* write the tools"). English only, like
/// [`clause_openers`]: quotes do without it, where it cut "should publish
/// each month *the* ..." short.
pub use data::object_openers;

/// The words "and" and "or" (see [`subject_pronouns`]).
pub use data::coordinators;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::normalize;
    use text_enum::TextEnum;

    /// Every list is looked up by binary search: it must be normalized and sorted.
    pub fn assert_sorted_and_normalized(name: &str, list: &[&str]) {
        for word in list {
            assert_eq!(normalize(word), *word, "{name}: {word}");
        }
        assert!(list.windows(2).all(|pair| pair[0] < pair[1]), "{name} is not sorted: {list:?}");
    }

    #[test]
    fn the_lists_are_normalized_and_sorted() {
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            let lists = [
                ("negations", negations(language)),
                ("local negations", local_negations(language)),
                ("modals", modals(language)),
                ("prepositions", prepositions(language)),
                ("degree adverbs", degree_adverbs(language)),
                ("connectives", connectives(language)),
                ("clause breaks", clause_breaks(language)),
                ("subject pronouns", subject_pronouns(language)),
                ("coordinators", coordinators(language)),
                ("clause openers", clause_openers(language)),
                ("complement ties", complement_ties(language).0),
                ("heads tied by to", complement_ties(language).1),
                ("object openers", object_openers(language)),
            ];
            for (list, words) in lists {
                assert_sorted_and_normalized(&format!("{name} {list}"), words);
            }
            assert!(adverbial_phrases(language).iter().all(|p| normalize(p) == *p && p.contains(' ')), "{name}");
            // A connective that opens a clause is a connective; a local negation a negation.
            assert!(clause_breaks(language).iter().all(|w| connectives(language).contains(w)), "{name}");
            assert!(local_negations(language).iter().all(|w| negations(language).contains(w)), "{name}");
        }
        assert!(matches!(reach(Language::De), Reach::Clause) && matches!(reach(Language::En), Reach::Following));
    }
}
