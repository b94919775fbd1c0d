//! What the probes know of each interview language: which words carry no
//! content (a stop-word list plus the fillers of spoken answers, and the
//! adverbs of degree, connectives, negations and modals of `function_words`),
//! which short words may link two content words inside a phrase ("cost *of*
//! delivery"), which negate or qualify a phrase and where a clause ends, how an
//! answer says "I don't know", and how words are stemmed.

use super::function_words as fw;
use super::words::{Script, Word};
use crate::Language;
use rust_stemmers::{Algorithm, Stemmer};

/// The stop-word lists of the interview languages, compiled in by `build.rs`
/// (normalized like an answer's words, and sorted).
mod lists {
    include!(concat!(env!("OUT_DIR"), "/stop_words.rs"));
}

/// The fillers, joiners and refusals of the interview languages: data
/// (`lexicon.json`), compiled in by `build.rs`.
mod word_data {
    use crate::Language;
    include!(concat!(env!("OUT_DIR"), "/lexicon.rs"));
}

/// One language's word knowledge, normalized like an answer's words. Making
/// one costs nothing but the stemmer: every list is static.
pub struct Lexicon {
    language: Language,
    stop_list: &'static [&'static str],
    fillers: &'static [&'static str],
    joiners: &'static [&'static str],
    degree_adverbs: &'static [&'static str],
    connectives: &'static [&'static str],
    negations: &'static [&'static str],
    modals: &'static [&'static str],
    stemmer: Option<Stemmer>,
}

/// A word that changes what the phrase it reaches says (`function_words`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Qualifier {
    /// "not", "never", "hardly", "no longer", "ne … pas", "nicht", "kein".
    Negation,
    /// "can", "should", "will", "would", "muss", "doit", "debería".
    Modal,
}

/// Japanese negates after the verb or adjective: these endings begin the kana
/// that follow it (`使わない`, `問題ない`, `できません`, `行かず`).
const JAPANESE_NEGATIVE_ENDINGS: [&str; 10] = ["ない", "なく", "なかっ", "なけれ", "ません", "ず", "ぬ", "じゃな", "ではな", "でな"];

impl Lexicon {
    pub fn of(language: Language) -> Lexicon {
        Lexicon {
            language,
            stop_list: stop_list(language),
            fillers: fillers(language),
            joiners: joiners(language),
            degree_adverbs: fw::degree_adverbs(language),
            connectives: fw::connectives(language),
            negations: fw::negations(language),
            modals: fw::modals(language),
            stemmer: stemmer(language),
        }
    }

    fn is_stop_word(&self, normalized: &str) -> bool {
        self.stop_list.binary_search(&normalized).is_ok() || self.fillers.contains(&normalized)
    }

    /// Whether the word is in the language's stop-word list (NLTK's or
    /// stopwords-iso's), fillers aside.
    pub fn is_stop_listed(&self, normalized: &str) -> bool {
        self.stop_list.binary_search(&normalized).is_ok()
    }

    /// A word that says nothing of its own and can never stand at a quote's
    /// edge: a stop word, a filler, an adverb of degree, a connective or a
    /// preposition.
    pub fn is_edge_word(&self, normalized: &str) -> bool {
        self.is_stop_word(normalized)
            || self.degree_adverbs.binary_search(&normalized).is_ok()
            || self.connectives.binary_search(&normalized).is_ok()
            || fw::prepositions(self.language).binary_search(&normalized).is_ok()
            || self.contraction_head(normalized).is_some_and(|head| self.is_edge_word(head))
    }

    /// The word an English contraction shortens ("who've": "who", "would've":
    /// "would"); the stop-word list holds only some of them.
    fn contraction_head<'w>(&self, normalized: &'w str) -> Option<&'w str> {
        const ENDINGS: [&str; 6] = ["s", "ve", "ll", "d", "re", "m"];
        let (head, ending) = normalized.split_once('\'')?;
        (self.language == Language::En && ENDINGS.contains(&ending) && !head.is_empty()).then_some(head)
    }

    fn is_modal(&self, normalized: &str) -> bool {
        self.modals.binary_search(&normalized).is_ok()
            || self.contraction_head(normalized).is_some_and(|head| self.modals.binary_search(&head).is_ok())
    }

    /// A listed negation, an English contraction in `n't`, a French elided `n'`.
    fn negates(&self, normalized: &str) -> bool {
        self.negations.binary_search(&normalized).is_ok()
            || (self.language == Language::En && normalized.ends_with("n't"))
            || (self.language == Language::Fr && normalized.starts_with("n'"))
    }

    /// Whether the word, on its own, negates or is a modal: `qualifier`
    /// without the context of its neighbours.
    fn qualifies(&self, normalized: &str) -> bool {
        self.negates(normalized) || self.is_modal(normalized)
    }

    /// Whether `words[i]` negates or qualifies what it reaches: a listed
    /// negation or modal, an English contraction in `n't`, a French elided
    /// `n'`, or the first of a two-word modal ("have to", "hay que"); not the
    /// first of a pair that only looks like a negation ("not only", "sin embargo").
    pub fn qualifier(&self, words: &[Word], i: usize) -> Option<Qualifier> {
        let word = words[i].normalized.as_str();
        let next = words.get(i + 1).filter(|next| next.follows_closely).map(|next| next.normalized.as_str());
        let pair_of = |pairs: &[(&str, &str)]| next.is_some_and(|next| pairs.contains(&(word, next)));
        let after = i.checked_sub(1).filter(|_| words[i].follows_closely).map(|before| (words[before].normalized.as_str(), word));
        if pair_of(fw::not_negating(self.language)) || after.is_some_and(|pair| fw::not_negating_after(self.language).contains(&pair)) {
            return None;
        }
        if self.negates(word) {
            return Some(Qualifier::Negation);
        }
        (self.is_modal(word) || pair_of(fw::modal_pairs(self.language))).then_some(Qualifier::Modal)
    }

    /// Whether `words[i]` negates words before it in its clause too: German
    /// `nicht`, French `pas` (not `ohne`, `kein`, `sans`, which reach only
    /// what follows them).
    pub fn negates_back(&self, words: &[Word], i: usize) -> bool {
        fw::reach(self.language) == fw::Reach::Clause
            && self.qualifier(words, i) == Some(Qualifier::Negation)
            && fw::local_negations(self.language).binary_search(&words[i].normalized.as_str()).is_err()
    }

    /// Whether a new clause begins at `words[i]`: after punctuation, at a
    /// connective that opens a clause ("but", "because", "aber", "mais"), or at
    /// "and"/"or" before a subject pronoun ("and I"). A negation right before the
    /// connective keeps it in its clause ("not because", "not when").
    pub fn begins_clause(&self, words: &[Word], i: usize) -> bool {
        let word = &words[i];
        if !word.follows_closely {
            return true;
        }
        let negated = self.qualifier(words, i - 1) == Some(Qualifier::Negation);
        let breaks = fw::clause_breaks(self.language).binary_search(&word.normalized.as_str()).is_ok();
        let new_subject = fw::coordinators(self.language).binary_search(&word.normalized.as_str()).is_ok()
            && words.get(i + 1).is_some_and(|next| {
                next.follows_closely && fw::subject_pronouns(self.language).binary_search(&next.normalized.as_str()).is_ok()
            });
        (breaks || new_subject) && !negated
    }

    /// Whether `words[i]` opens a clause inside the sentence (a wh-word, a
    /// relative, a subject: [`fw::clause_openers`]): a phrase that takes it
    /// in stops halfway through that clause.
    pub fn opens_clause(&self, words: &[Word], i: usize) -> bool {
        fw::clause_openers(self.language).binary_search(&words[i].normalized.as_str()).is_ok()
    }

    /// Whether the word right after `words[i]` ties a complement to it
    /// ([`fw::complement_ties`]: "the sake *of*", "compared *to*"): a phrase
    /// that ends on `words[i]` leaves it incomplete ("simple coding for the
    /// sake", "writing process compared").
    pub fn leaves_complement_open(&self, words: &[Word], i: usize) -> bool {
        let Some(next) = words.get(i + 1).filter(|next| next.follows_closely) else {
            return false;
        };
        let next = next.normalized.as_str();
        fw::complement_ties(self.language).0.binary_search(&next).is_ok() || (next == "to" && self.to_completes(&words[i]))
    }

    /// Whether the word right after `words[i]` is an article, possessive or
    /// object pronoun ([`fw::object_openers`]) that opens what completes it.
    pub fn leaves_object_open(&self, words: &[Word], i: usize) -> bool {
        let opens = |next: &Word| fw::object_openers(self.language).binary_search(&next.normalized.as_str()).is_ok();
        words.get(i + 1).is_some_and(|next| next.follows_closely && opens(next))
    }

    /// Whether a "to" after `word` ties its complement to it ("compared to").
    fn to_completes(&self, word: &Word) -> bool {
        fw::complement_ties(self.language).1.binary_search(&word.normalized.as_str()).is_ok()
    }

    /// Whether `words[i]` is a verb the sentence goes on to complete: after
    /// English "to" or a modal (in English an adverb between them or not:
    /// "AI can also *scan* for risks"), with its object right after it ("AI
    /// to *write* stories", "AI can *write* anything"). A phrase that ends
    /// there leaves it open; one whose next word is a preposition or a new
    /// clause does not ("access to *healthcare* for all").
    pub fn leaves_verb_open(&self, words: &[Word], i: usize) -> bool {
        let Some(next) = words.get(i + 1).filter(|next| next.follows_closely) else {
            return false;
        };
        let Some(mut marker) = i.checked_sub(1) else { return false };
        let adverb = |word: &Word| {
            let word = word.normalized.as_str();
            (self.fillers.contains(&word) || self.degree_adverbs.binary_search(&word).is_ok() || self.negates(word)) && !self.is_modal(word)
        };
        // English only: elsewhere the fillers hold auxiliaries ("doit *être* traitée").
        if self.language == Language::En && marker > 0 && words[i].follows_closely && words[marker].follows_closely && adverb(&words[marker]) {
            marker -= 1;
        }
        let before = words[marker].normalized.as_str();
        // "to" after a word it completes is a preposition ("compared to colleagues").
        let infinitive_to = before == "to" && !marker.checked_sub(1).is_some_and(|head| self.to_completes(&words[head]));
        let after_verb_marker = (self.language == Language::En && infinitive_to) || self.modals.contains(&before);
        let next = next.normalized.as_str();
        let goes_on = [fw::prepositions(self.language), fw::clause_breaks(self.language), fw::coordinators(self.language)]
            .iter()
            .all(|list| list.binary_search(&next).is_err());
        after_verb_marker && goes_on
    }

    /// Japanese: whether the kana right after `words[i]` negate it (`問題ない`).
    pub fn negated_after(&self, words: &[Word], i: usize) -> bool {
        self.language == Language::Ja
            && words.get(i + 1).is_some_and(|next| {
                next.follows_closely
                    && next.script == Script::Hiragana
                    && JAPANESE_NEGATIVE_ENDINGS.iter().any(|ending| next.text.starts_with(ending))
            })
    }

    pub fn language(&self) -> Language {
        self.language
    }

    /// Whether a word says something of its own: not a stop word or a filler,
    /// not a lone letter, not Japanese kana particles and endings.
    pub fn is_content(&self, word: &Word) -> bool {
        if word.script == Script::Hiragana {
            return false;
        }
        if word.script == Script::Other && word.normalized.chars().count() < 2 {
            return false;
        }
        if self.is_edge_word(&word.normalized) || self.qualifies(&word.normalized) {
            return false;
        }
        // French and Italian elide articles and pronouns: "l'école", "j'ai", "dell'asilo".
        match word.normalized.rsplit_once('\'') {
            Some((_, tail)) if matches!(self.language, Language::Fr | Language::It) => {
                !tail.is_empty() && !self.is_edge_word(tail)
            }
            _ => true,
        }
    }

    /// Whether a phrase may end after `words[i]`. Not on an English
    /// possessive, not in the middle of a Japanese word: a kanji stem that
    /// goes on in kana ("近い", "選びました") ends only where a particle or the
    /// copula follows it ("送料が", "便利な").
    pub fn may_end_phrase(&self, words: &[Word], i: usize) -> bool {
        // An English possessive modifies what follows it: "student's" (t test).
        if self.language == Language::En && (words[i].normalized.ends_with("'s") || words[i].normalized.ends_with("s'")) {
            return false;
        }
        const PARTICLES: [char; 14] = ['の', 'が', 'を', 'に', 'で', 'は', 'と', 'も', 'へ', 'や', 'か', 'よ', 'な', 'だ'];
        match words.get(i + 1) {
            Some(next) if self.language == Language::Ja && words[i].script == Script::Han => {
                !(next.follows_closely && next.script == Script::Hiragana) || next.text.starts_with(PARTICLES)
            }
            _ => true,
        }
    }

    /// Whether the content words `words[first]` and `words[second]` stand
    /// together as two words of one expression: next to each other, or in
    /// Japanese (whose words never touch) linked by の.
    pub fn adjacent(&self, words: &[Word], first: usize, second: usize) -> bool {
        second == first + 1 || (self.language == Language::Ja && second == first + 2 && words[first + 1].text == "の")
    }

    /// A short word that may stand between two content words of one phrase.
    pub fn is_joiner(&self, word: &Word) -> bool {
        self.joiners.contains(&word.normalized.as_str())
    }

    /// The word's stem (its normalized form where the language has no stemmer).
    pub fn stem(&self, word: &Word) -> String {
        match &self.stemmer {
            Some(stemmer) => stemmer.stem(&word.normalized).into_owned(),
            None => word.normalized.clone(),
        }
    }
}

fn stop_list(language: Language) -> &'static [&'static str] {
    match language {
        Language::En => lists::EN,
        Language::Fr => lists::FR,
        Language::De => lists::DE,
        Language::Es => lists::ES,
        Language::It => lists::IT,
        Language::Ar => lists::AR,
        Language::Ru => lists::RU,
        Language::Ja => lists::JA,
        Language::He => lists::HE,
        Language::El => lists::EL,
        Language::Uk => lists::UK,
    }
}

/// Snowball stemmers where one exists (Hebrew, Japanese and Ukrainian have none:
/// their words are compared as written). Each arm names its algorithm, so only
/// these eight are linked into a component.
fn stemmer(language: Language) -> Option<Stemmer> {
    let algorithm = match language {
        Language::En => Algorithm::English,
        Language::Fr => Algorithm::French,
        Language::De => Algorithm::German,
        Language::Es => Algorithm::Spanish,
        Language::It => Algorithm::Italian,
        Language::Ar => Algorithm::Arabic,
        Language::Ru => Algorithm::Russian,
        Language::El => Algorithm::Greek,
        Language::Ja | Language::He | Language::Uk => return None,
    };
    Some(Stemmer::create(algorithm))
}

/// Words the stop-word lists leave out that say nothing in a spoken answer:
/// fillers, hedges, yes and no, light verbs and pronouns (written normalized:
/// a test holds them to it).
///
/// Contractions typed without their apostrophe.
/// Question words and relative pronouns the stop-word list lacks, and written abbreviations.
use word_data::fillers;

/// Short words a phrase may hold between two content words (besides a
/// negation or modal: "economy *can't* continue"): prepositions, articles, possessives ("frais *de* livraison", "answered *every*
/// question", "最後*の*段階"); never at a phrase's ends. Normalized.
use word_data::joiners;

/// How an answer declines in each language ("I don't know", "no", "nothing"),
/// as normalized words: an answer made only of these and words without content
/// refuses, and is never probed. Japanese is matched as written (no spaces).
pub use word_data::refusals;

#[cfg(test)]
mod tests {
    use super::*;
    use text_enum::TextEnum;

    #[test]
    fn every_interview_language_has_stop_words_and_refusals() {
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            assert!(stop_list(language).len() > 50, "{name}: {} stop words", stop_list(language).len());
            assert!(!refusals(language).is_empty(), "{name}");
        }
    }

    #[test]
    fn the_lists_are_normalized_and_the_stop_lists_sorted() {
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            for word in stop_list(language).iter().chain(fillers(language)).chain(joiners(language)) {
                assert_eq!(super::super::words::normalize(word), *word, "{name}");
            }
            assert!(stop_list(language).windows(2).all(|pair| pair[0] < pair[1]), "{name}");
        }
        let english = Lexicon::of(Language::En);
        let word = |text| super::super::words::words(text).remove(0);
        assert!(!english.is_content(&word("The")), "a stop word, capitalized");
        assert!(!english.is_content(&word("Honestly")), "a filler");
        assert!(english.is_content(&word("shipping")));
    }

    #[test]
    fn stems_join_a_words_forms_where_a_stemmer_exists() {
        let stem = |language, text: &str| {
            let lexicon = Lexicon::of(language);
            super::super::words::words(text).iter().map(|w| lexicon.stem(w)).collect::<Vec<_>>()
        };
        assert_eq!(stem(Language::En, "costs cost"), vec!["cost", "cost"]);
        assert_eq!(stem(Language::De, "Kosten Kosten"), vec!["kost", "kost"]);
        assert_eq!(stem(Language::Uk, "доставка доставки"), vec!["доставка", "доставки"], "no Ukrainian stemmer");
    }
}
