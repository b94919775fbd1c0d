//! An answer's whole phrases, and the most telling of them: the phrase a
//! probe quotes (docs/sessions.md, "Quotes").
//!
//! A phrase is a run of content words (stop words, fillers, adverbs of degree,
//! connectives, negations and modals break a run, punctuation ends it; a short
//! joiner may link two content words: "cost *of* delivery"), at most four
//! content words and 60 characters, that does not stop inside a compound
//! ("making a *high*" of "making a high quality video" is no phrase) nor
//! before what completes its last word ("for the *sake*" of "for the sake of
//! branches", "process *compared*" of "compared to colleagues") nor begin
//! inside a name ("*Diffusion* to iterate" of "Stable Diffusion"). It
//! carries the negations and modals that reach it, at its start: those of its
//! clause before it ("*can't* find a good reference image"), and those of the
//! three words right before it. A phrase that cannot carry them (too far, or
//! across a clause break) is no phrase, and neither is one a negation reaches
//! from behind: in German and French a negation later in its clause ("ich
//! finde das Bild *nicht*", "j'ai *pas* le temps") or a modal right after it, in
//! Japanese a negative ending (`問題ない`). A French or Italian elided article before it stays outside:
//! "école", not "l'école". So a quote never says the opposite of what was said.
//!
//! The most telling phrase says the most the interviewer has not asked or
//! probed already. Each content word weighs by its length (a long word is
//! usually a specific one: "commute" over "good"), more when the answer
//! repeats it, much less when the research question already names it (the
//! interviewee echoing the question) and least when an earlier probe did. A
//! phrase of two or more adjacent content words ("hidden shipping costs"; in
//! Japanese also two linked by の) is preferred to one that is not, then the
//! heavier one, then the earlier one. Phrases whose every word an earlier
//! probe named are left out: the interviewer never asks about the same thing twice.

use super::function_words::{reach, Reach};
use super::lexicon::{Lexicon, Qualifier};
use super::words::{words, Script, Word};
use crate::Language;
use std::collections::{HashMap, HashSet};
use std::ops::Range;

const MAX_CONTENT_WORDS: usize = 4;
const MAX_PHRASE_CHARS: usize = 60;
/// A phrase that carries a negation or modal may be this long.
const MAX_QUALIFIED_CHARS: usize = 65;
/// The most words between a negation or modal and the phrase it reaches
/// that a quote takes along ("don't *think I could ever* find ...").
const MAX_QUALIFIER_GAP: usize = 3;
/// Words right before a phrase whose negation or modal reaches it whatever
/// the connectives say (the same stretch between punctuation).
const NEAR_WORDS: usize = super::function_words::NEAR_WORDS;
const MAX_JOINERS: usize = 2;
/// A phrase of more content words weighs more, but less than their sum: a
/// quote is to be short.
const LENGTH_FACTORS: [f64; MAX_CONTENT_WORDS] = [1.0, 1.0, 0.9, 0.8];
const ECHO_WEIGHT: f64 = 0.35;
/// What may stand after the verb a German modal governs, at the clause's end:
/// "Inlandsflüge müssen verboten *werden*".
const GERMAN_AUXILIARIES: [&str; 15] =
    ["habe", "haben", "hat", "hatte", "hatten", "ist", "sein", "sind", "war", "waren", "werden", "wird", "worden", "wurde", "wurden"];
const PROBED_WEIGHT: f64 = 0.15;
const REPEATED_WEIGHT: f64 = 1.3;

/// What the interviewer has already named, as stems.
#[derive(Debug, Default)]
pub struct Named {
    /// The research question the answer is to.
    pub by_question: HashSet<String>,
    /// Earlier probes of this interview.
    pub by_probes: HashSet<String>,
}

impl Named {
    /// The stems of the content words of `texts`.
    pub fn stems_of<'t>(lexicon: &Lexicon, texts: impl IntoIterator<Item = &'t str>) -> HashSet<String> {
        texts.into_iter().flat_map(words).filter(|w| lexicon.is_content(w)).map(|w| lexicon.stem(&w)).collect()
    }
}

/// A whole phrase of an answer, exactly as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Phrase<'a> {
    pub text: &'a str,
    /// Its bytes in the answer.
    pub range: Range<usize>,
    /// It begins with the negation or modal that reaches it.
    pub qualified: bool,
    /// Two of its content words stand together ("shipping costs").
    pub adjacent: bool,
    /// Its content words, as indices into `words(answer)`.
    content: Vec<usize>,
}

impl Phrase<'_> {
    pub fn content_words(&self) -> usize {
        self.content.len()
    }
}

/// Every whole phrase of `answer`, in the order they begin (see the module's
/// rules): a quote of any of them says what the interviewee said.
pub fn whole_phrases(answer: &str, language: Language) -> Vec<Phrase<'_>> {
    phrases_of(answer, &words(answer), &Lexicon::of(language))
}

fn phrases_of<'a>(answer: &'a str, words: &[Word<'a>], lexicon: &Lexicon) -> Vec<Phrase<'a>> {
    let qualifiers: Vec<Option<Qualifier>> = (0..words.len()).map(|i| lexicon.qualifier(words, i)).collect();
    let set_phrase = in_set_phrases(words, lexicon.language());
    let content: Vec<bool> =
        (0..words.len()).map(|i| qualifiers[i].is_none() && !set_phrase[i] && lexicon.is_content(&words[i])).collect();
    let clauses = Clauses::of(words, lexicon);
    // A phrase ends where its compound does: not right before a content word it stands next to,
    // nor right before the "of" or "to" that ties its last word to what completes it ("for the sake",
    // "writing process compared": `Lexicon::leaves_complement_open`), nor on a verb after "to" or a
    // modal whose object or particle follows ("databases to look" of "to look for studies":
    // `Lexicon::leaves_verb_open`), nor on an abbreviation: a period the sentence goes on after
    // ("organismo internac. c sede"), or one after a consonant and "r", which ends no word of these
    // languages ("elektr. Sitze", "Dr.").
    let abbreviated = |i: usize| {
        let mut after = answer[words[i].end..].chars();
        let goes_on = after.next() == Some('.') && after.find(|c| !c.is_whitespace()).is_some_and(|c| c.is_lowercase() || c.is_ascii_digit());
        let letters: Vec<char> = words[i].normalized.chars().rev().take(2).collect();
        let cut_short = matches!(letters.as_slice(), ['r', before] if before.is_alphabetic() && !"aeiouyäöüéèàáíóú".contains(*before));
        answer[words[i].end..].starts_with('.') && (goes_on || cut_short)
    };
    // German puts the verb a modal governs at the end of its clause (or of its part before
    // "und"/"oder"): what follows a modal there is no object the verb leaves open, and a phrase
    // that holds a modal reaches that verb ("Inlandsflüge *müssen* verboten"), or it is a
    // fragment ("*muss* vorallem in den Städten").
    let verb_final = lexicon.language() == Language::De;
    let whole_end = |i: usize| {
        let cuts_compound = words.get(i + 1).is_some_and(|next| next.follows_closely && content[i + 1]);
        !cuts_compound && !abbreviated(i) && lexicon.may_end_phrase(words, i)
            && !lexicon.leaves_complement_open(words, i)
            && (verb_final || !lexicon.leaves_verb_open(words, i))
    };
    let reaches_its_verb = |start: usize, b: usize| {
        let coordinator = |k: usize| super::function_words::coordinators(Language::De).contains(&words[k].normalized.as_str());
        let auxiliary = |k: usize| qualifiers[k] == Some(Qualifier::Modal) || GERMAN_AUXILIARIES.contains(&words[k].normalized.as_str());
        !verb_final
            || !(start..=b).any(|k| qualifiers[k] == Some(Qualifier::Modal))
            || (b + 1..clauses.clause_end[b]).take_while(|&k| !coordinator(k)).all(auxiliary)
    };
    // Nor does it begin inside a name ("Stable *Diffusion*"), where capitals tell names (not in German).
    let capital = |i: usize| words[i].text.starts_with(char::is_uppercase);
    let cased = matches!(lexicon.language(), Language::En | Language::Fr | Language::Es | Language::It);
    let inside_name = |i: usize| cased && i > 0 && words[i].follows_closely && content[i - 1] && capital(i - 1) && capital(i);
    let mut phrases = Vec::new();
    for run in runs(words, &content, &qualifiers, &set_phrase, lexicon) {
        let content_words: Vec<usize> = run.into_iter().filter(|&i| content[i]).collect();
        for first in 0..content_words.len() {
            for last in first..content_words.len().min(first + MAX_CONTENT_WORDS) {
                let chosen = &content_words[first..=last];
                let (a, b) = (chosen[0], chosen[chosen.len() - 1]);
                if answer[words[a].start..words[b].end].chars().count() > MAX_PHRASE_CHARS {
                    break;
                }
                if !whole_end(b) || inside_name(a) {
                    continue;
                }
                let Some(start) = clauses.carried(words, a, b, &qualifiers, lexicon) else { continue };
                if !reaches_its_verb(start, b) {
                    continue;
                }
                let qualified = start < a;
                let range = lead_start(&words[start], qualified, lexicon)..words[b].end;
                let text = &answer[range.clone()];
                if qualified && text.chars().count() > MAX_QUALIFIED_CHARS {
                    continue;
                }
                phrases.push(Phrase {
                    text,
                    range,
                    qualified,
                    adjacent: chosen.windows(2).any(|pair| lexicon.adjacent(words, pair[0], pair[1])),
                    content: chosen.to_vec(),
                });
            }
        }
    }
    phrases.sort_by_key(|p| (p.range.start, p.range.end));
    phrases
}

/// Where a phrase's quote begins in its first word: after a French or Italian
/// elided article or pronoun ("l'école" quotes "école"), unless the word is
/// its negation ("n'est").
fn lead_start(word: &Word, is_qualifier: bool, lexicon: &Lexicon) -> usize {
    if is_qualifier || !matches!(lexicon.language(), Language::Fr | Language::It) {
        return word.start;
    }
    let elided = word.normalized.split_once('\'').is_some_and(|(head, tail)| !tail.is_empty() && lexicon.is_edge_word(head));
    match word.text.char_indices().find(|(_, c)| matches!(c, '\'' | '’')) {
        Some((at, c)) if elided => word.start + at + c.len_utf8(),
        _ => word.start,
    }
}

/// Where each word's clause and stretch (between punctuation) begin.
struct Clauses {
    clause_start: Vec<usize>,
    stretch_start: Vec<usize>,
    clause_end: Vec<usize>,
    reach: Reach,
}

impl Clauses {
    fn of(words: &[Word], lexicon: &Lexicon) -> Clauses {
        let (mut clause_start, mut stretch_start) = (vec![0; words.len()], vec![0; words.len()]);
        for i in 1..words.len() {
            clause_start[i] = if lexicon.begins_clause(words, i) { i } else { clause_start[i - 1] };
            stretch_start[i] = if words[i].follows_closely { stretch_start[i - 1] } else { i };
        }
        let mut clause_end = vec![words.len(); words.len()];
        for i in (0..words.len().saturating_sub(1)).rev() {
            clause_end[i] = if clause_start[i + 1] == i + 1 { i + 1 } else { clause_end[i + 1] };
        }
        Clauses { clause_start, stretch_start, clause_end, reach: reach(lexicon.language()) }
    }

    /// The word a quote of content words `a..=b` must begin at to carry every
    /// negation and modal that reaches them; `None` when it cannot: one too
    /// far before them, or one in the clause before that reaches them across
    /// the break ("I *don't* know but tools are slow"), one after them (German,
    /// French, a Japanese ending).
    fn carried(&self, words: &[Word], a: usize, b: usize, qualifiers: &[Option<Qualifier>], lexicon: &Lexicon) -> Option<usize> {
        let near = self.stretch_start[a].max(a.saturating_sub(NEAR_WORDS));
        let from = self.clause_start[a].min(near);
        let mut start = a;
        if let Some(q) = (from..a).find(|&q| qualifiers[q].is_some()) {
            if q < self.clause_start[a] || a - q - 1 > MAX_QUALIFIER_GAP {
                return None;
            }
            start = q;
        }
        // German and French: a negation later in the clause reaches back ("ich finde das Bild nicht"),
        // and a modal right after belongs to the phrase ("..., dass man Radwege bauen sollte");
        // a quote would end on it, so another phrase is chosen.
        if self.reach == Reach::Clause {
            let negated_later = (b + 1..self.clause_end[b]).any(|q| lexicon.negates_back(words, q));
            let modal_next = words.get(b + 1).is_some_and(|next| next.follows_closely) && qualifiers.get(b + 1) == Some(&Some(Qualifier::Modal));
            if negated_later || modal_next {
                return None;
            }
        }
        if lexicon.negated_after(words, b) {
            return None;
        }
        Some(start)
    }
}

#[derive(Debug)]
struct Candidate<'a> {
    text: &'a str,
    adjacent: bool,
    weight: f64,
    start: usize,
}

/// The answer's phrases worth quoting, the most telling first (none when it has
/// no content word the interviewer has not probed already).
pub fn telling_phrases<'a>(answer: &'a str, lexicon: &Lexicon, named: &Named) -> Vec<&'a str> {
    let words = words(answer);
    let stems: Vec<String> = words.iter().map(|w| lexicon.stem(w)).collect();
    let phrases = phrases_of(answer, &words, lexicon);
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for (i, stem) in stems.iter().enumerate() {
        if lexicon.is_content(&words[i]) {
            *counts.entry(stem).or_default() += 1;
        }
    }
    let weight = |i: usize| {
        let stem = stems[i].as_str();
        let mut weight = word_weight(&words[i]);
        if named.by_question.contains(stem) {
            weight *= ECHO_WEIGHT;
        }
        if named.by_probes.contains(stem) {
            weight *= PROBED_WEIGHT;
        }
        if counts.get(stem).copied().unwrap_or(0) > 1 {
            weight *= REPEATED_WEIGHT;
        }
        weight
    };
    let mut candidates: Vec<Candidate> = phrases
        .iter()
        // A quote names the place it was said: its first occurrence in the answer.
        .filter(|p| answer.find(p.text) == Some(p.range.start))
        .filter(|p| !p.content.iter().all(|&i| named.by_probes.contains(&stems[i])))
        .map(|p| Candidate {
            text: p.text,
            adjacent: p.adjacent,
            weight: p.content.iter().map(|&i| weight(i)).sum::<f64>() * LENGTH_FACTORS[p.content.len() - 1],
            start: p.range.start,
        })
        .collect();
    candidates.sort_by(|a, b| {
        b.adjacent.cmp(&a.adjacent).then(b.weight.total_cmp(&a.weight)).then(a.start.cmp(&b.start))
    });
    let mut texts: Vec<&str> = Vec::new();
    for candidate in candidates {
        if !texts.contains(&candidate.text) {
            texts.push(candidate.text);
        }
    }
    texts
}

/// Longer words weigh more, up to a point; a Japanese character counts twice
/// (one kanji says about as much as two letters); numbers weigh little.
fn word_weight(word: &Word) -> f64 {
    if word.text.chars().all(|c| c.is_ascii_digit()) {
        return 0.5;
    }
    let letters = word.text.chars().filter(|c| c.is_alphanumeric()).count();
    let length = if matches!(word.script, Script::Han | Script::Katakana) { letters * 2 } else { letters };
    1.0 + length.min(12) as f64 / 4.0
}

/// Which words stand in a set phrase of the language that works as one adverb
/// ("in erster Linie", "par exemple": `function_words::adverbial_phrases`).
fn in_set_phrases(words: &[Word], language: Language) -> Vec<bool> {
    let mut bound = vec![false; words.len()];
    for set in super::function_words::adverbial_phrases(language) {
        let parts: Vec<&str> = set.split(' ').collect();
        for start in 0..words.len().saturating_sub(parts.len() - 1) {
            let at = &words[start..start + parts.len()];
            if at.iter().zip(&parts).all(|(word, part)| word.normalized == *part) && at[1..].iter().all(|w| w.follows_closely) {
                bound[start..start + parts.len()].iter_mut().for_each(|b| *b = true);
            }
        }
    }
    bound
}

/// Runs of content words, each word following the one before closely, with up
/// to two joiners allowed between two content words ("answered *every*
/// question", "coût *de la* livraison"). Word indices, in order.
fn runs(words: &[Word], content: &[bool], qualifiers: &[Option<Qualifier>], set_phrase: &[bool], lexicon: &Lexicon) -> Vec<Vec<usize>> {
    let closely = |i: usize| i < words.len() && words[i].follows_closely;
    let joiner = |i: usize| closely(i) && !content[i] && !set_phrase[i] && (lexicon.is_joiner(&words[i]) || qualifiers[i].is_some());
    let mut runs = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if !content[i] {
            i += 1;
            continue;
        }
        let mut run = vec![i];
        let mut next = i + 1;
        loop {
            let mut after_joiners = next;
            while after_joiners < next + MAX_JOINERS && joiner(after_joiners) {
                after_joiners += 1;
            }
            if !(closely(after_joiners) && content[after_joiners]) {
                break;
            }
            run.extend(next..=after_joiners);
            next = after_joiners + 1;
        }
        runs.push(run);
        i = next;
    }
    runs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Language;

    fn best(language: Language, answer: &str, question: &str, probed: &[&str]) -> Option<String> {
        let lexicon = Lexicon::of(language);
        let named = Named {
            by_question: Named::stems_of(&lexicon, [question]),
            by_probes: Named::stems_of(&lexicon, probed.iter().copied()),
        };
        telling_phrases(answer, &lexicon, &named).first().map(|p| p.to_string())
    }

    #[test]
    fn the_phrase_is_adjacent_content_words_in_the_interviewees_own_words() {
        let question = "What makes you abandon a checkout?";
        assert_eq!(best(Language::En, "Hidden shipping costs at the last step make me leave.", question, &[]).as_deref(), Some("Hidden shipping costs"));
        assert_eq!(
            best(Language::En, "Honestly, I really just think the staff answered every question patiently.", "Why?", &[]).as_deref(),
            Some("staff answered every question patiently")
        );
        assert_eq!(best(Language::En, "Price.", question, &[]).as_deref(), Some("Price"));
        assert_eq!(best(Language::En, "Yes, I think so.", question, &[]), None);
    }

    #[test]
    fn echoes_of_the_question_and_earlier_probes_weigh_less() {
        let answer = "Choosing a daycare nearby, and the waiting list.";
        assert_eq!(best(Language::En, answer, "Why?", &[]).as_deref(), Some("Choosing a daycare nearby"));
        let question = "How did you choose your daycare?";
        assert_eq!(best(Language::En, answer, question, &[]).as_deref(), Some("waiting list"));
        let probed = ["You mentioned “waiting list”. Can you tell me about a specific time?"];
        assert_eq!(best(Language::En, answer, question, &probed).as_deref(), Some("Choosing a daycare nearby"));
        assert_eq!(best(Language::En, "The waiting list.", question, &probed), None, "nothing new to ask about");
    }

    #[test]
    fn joiners_link_content_words_in_each_language() {
        assert_eq!(best(Language::Fr, "Les frais de livraison cachés, à la fin.", "Pourquoi ?", &[]).as_deref(), Some("frais de livraison cachés"));
        assert_eq!(best(Language::Ja, "最後のステップで送料が表示されると、買うのをやめます。", "なぜですか？", &[]).as_deref(), Some("最後のステップ"));
        assert_eq!(
            best(Language::De, "Versteckte Versandkosten im letzten Schritt.", "Warum?", &[]).as_deref(),
            Some("Versteckte Versandkosten im letzten Schritt")
        );
        assert_eq!(best(Language::Ru, "Скрытые расходы на доставку в самом конце.", "Почему?", &[]).as_deref(), Some("Скрытые расходы"));
        // Never half a Japanese word: 近 goes on in kana (近い), 選 too (選びました).
        assert_eq!(best(Language::Ja, "職場に一番近いところを選びました。", "なぜですか？", &[]).as_deref(), Some("職場"));
        // Two Japanese words linked by の stand together, as two adjacent words do elsewhere.
        assert_eq!(best(Language::Ja, "見学の時に園長先生が答えてくれました。", "なぜですか？", &[]).as_deref(), Some("見学の時"));
    }

    /// Per language: an answer, and the phrase a probe quotes (`None`: nothing
    /// can be quoted without changing what was said).
    const NEGATIONS: &[(Language, &str, Option<&str>)] = &[
        (Language::En, "I can't find a good reference image.", Some("can't find a good reference image")),
        (Language::En, "It no longer needs human oversight.", Some("no longer needs human oversight")),
        (Language::En, "I never use the voice feature.", Some("never use the voice feature")),
        (Language::En, "I hardly touch the mixing plugins.", Some("hardly touch the mixing plugins")),
        (Language::En, "The tool is not currently advanced enough.", Some("not currently advanced")),
        (Language::En, "I don't think it will replace composers.", Some("don't think it will replace composers")),
        (Language::En, "We should build more bike lanes.", Some("should build more bike lanes")),
        (Language::En, "I dont trust the summaries", Some("dont trust the summaries")),
        (Language::En, "I don't mind but slow exports annoy me.", Some("exports annoy")),
        (Language::En, "It is not only faster tooling.", Some("faster tooling")),
        (Language::De, "Ich finde kein gutes Referenzbild.", Some("kein gutes Referenzbild")),
        (Language::De, "Das Werkzeug funktioniert nicht.", None),
        (Language::De, "Ich mag das neue Layout nicht, aber die Farben sind schön.", Some("Farben")),
        (Language::De, "Wir fahren nie mit dem Zug.", Some("nie mit dem Zug")),
        (Language::De, "Inlandsflüge müssen verboten werden.", Some("Inlandsflüge müssen verboten")),
        (Language::De, "Importe ohne Umweltstandards verbieten.", Some("Importe ohne Umweltstandards verbieten")),
        (Language::Fr, "Je ne trouve pas de bonne image de référence.", Some("ne trouve pas de bonne image de référence")),
        (Language::Fr, "J'ai pas le temps de tout vérifier.", Some("pas le temps")),
        (Language::Fr, "L'outil n'est plus assez précis.", Some("n'est plus assez précis")),
        (Language::Fr, "Il faut interdire la reconnaissance faciale.", Some("faut interdire la reconnaissance faciale")),
        (Language::Fr, "L'école publique manque de moyens.", Some("école publique manque de moyens")),
        (Language::Es, "No encuentro una buena imagen de referencia.", Some("No encuentro una buena imagen de referencia")),
        (Language::Es, "Ya no necesita supervisión humana.", Some("no necesita supervisión humana")),
        (Language::Es, "Nunca uso la función de voz.", Some("Nunca uso la función de voz")),
        (Language::Es, "Apenas uso los complementos.", Some("Apenas uso los complementos")),
        (Language::Es, "Hay que definir los textos de los carteles.", Some("Hay que definir los textos de los carteles")),
        (Language::Es, "Sin embargo la marcha pacífica continuó.", Some("marcha pacífica continuó")),
        // Italian: written by hand (no real Italian answers were found).
        (Language::It, "Non trovo una buona immagine di riferimento.", Some("Non trovo una buona immagine di riferimento")),
        (Language::It, "Non ha più bisogno di supervisione umana.", Some("Non ha più bisogno di supervisione umana")),
        (Language::It, "Non uso mai la funzione vocale.", Some("Non uso mai la funzione vocale")),
        (Language::It, "Il comune dovrebbe costruire piste ciclabili.", Some("comune dovrebbe costruire piste ciclabili")),
        (Language::It, "Lavoriamo senza supervisione umana.", Some("Lavoriamo senza supervisione umana")),
        (Language::It, "L'asilo nido costa troppo.", Some("asilo nido costa")),
        (Language::Ja, "送料は問題ないです。", Some("送料")),
        (Language::Ru, "Я не нашёл хорошую картинку.", Some("не нашёл хорошую картинку")),
    ];

    #[test]
    fn negations_and_modals_stay_with_their_phrase_in_each_language() {
        let mut wrong = Vec::new();
        for (language, answer, expected) in NEGATIONS {
            let quoted = best(*language, answer, "?", &[]);
            if quoted.as_deref() != *expected {
                wrong.push(format!("{language}: {answer:?} quotes {quoted:?}, not {expected:?}"));
            }
            for phrase in whole_phrases(answer, *language) {
                assert_eq!(&answer[phrase.range.clone()], phrase.text);
                assert_eq!(super::super::audit::dropped_qualifier(answer, phrase.text, *language), None, "{language}: {phrase:?}");
                assert_eq!(super::super::audit::edge_fault(phrase.text, *language), None, "{language}: {phrase:?}");
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn no_phrase_is_cut_inside_a_word_a_set_phrase_or_a_clause_in_any_language() {
        let phrases = |language, answer| -> Vec<&str> { whole_phrases(answer, language).into_iter().map(|p| p.text).collect() };
        // An abbreviation is no word's end; "zB" and "wer" say nothing of their own.
        let german = phrases(Language::De, "Wer braucht zB elektr. Sitze?");
        assert!(german.iter().all(|p| !p.contains("zB") && !p.ends_with("elektr") && !p.starts_with("Wer")), "{german:?}");
        let spanish = phrases(Language::Es, "Identificar organismo internac. c sede en Cuba");
        assert!(spanish.iter().all(|p| !p.ends_with("internac")), "{spanish:?}");
        // A German modal governs the verb at its clause's end: a phrase that holds one reaches it.
        let modal = phrases(Language::De, "Es muss vorallem in den Städten massiv in die Fahrradinfrastruktur investiert werden");
        assert!(modal.iter().all(|p| !p.starts_with("muss")), "{modal:?}");
        let coordinated = phrases(Language::De, "Biologisch angebaute Produkte sollten gefördert werden und somit günstiger angeboten werden");
        assert!(coordinated.contains(&"Biologisch angebaute Produkte sollten gefördert"), "{coordinated:?}");
        // A set phrase is one adverb: "in erster Linie", "par exemple".
        let set = phrases(Language::De, "In erster Linie sollen die Unternehmen weniger Gewinn machen dürfen.");
        assert!(set.iter().all(|p| !p.contains("Linie") && !p.contains("sollen die Unternehmen")), "{set:?}");
        let french = phrases(Language::Fr, "Les algorithmes, par exemple les recommandations, favorisent les extrêmes.");
        assert!(french.iter().all(|p| !p.contains("exemple")), "{french:?}");
    }

    #[test]
    fn a_phrase_ends_where_its_compound_does() {
        let phrases: Vec<&str> = whole_phrases("AI is capable of making a high quality video", Language::En).iter().map(|p| p.text).collect();
        assert!(phrases.contains(&"high quality video"), "{phrases:?}");
        assert!(!phrases.iter().any(|p| p.ends_with("high") || p.ends_with("quality")), "{phrases:?}");
        assert!(!phrases.iter().any(|p| p.ends_with("student's")));
        let degree = whole_phrases("It helped me refine my own perspective somewhat.", Language::En);
        assert!(degree.iter().all(|p| !p.text.ends_with("somewhat")), "{degree:?}");
        assert!(degree.iter().any(|p| p.text == "refine my own perspective"), "{degree:?}");
        let connective = whole_phrases("It saves time, therefore a better output.", Language::En);
        assert!(connective.iter().all(|p| !p.text.starts_with("therefore")), "{connective:?}");
    }

    #[test]
    fn a_phrase_keeps_what_completes_its_last_word() {
        // The replayed creatives and scientists: "You said “incorporating simple coding for the sake”".
        let of = whole_phrases("It also incorporates simple coding for the sake of branches and managing stats.", Language::En);
        assert!(of.iter().all(|p| !p.text.ends_with("sake")), "{of:?}");
        assert!(of.iter().any(|p| p.text.ends_with("sake of branches")), "{of:?}");
        let to = whole_phrases("It speeds up my scientific writing process compared to colleagues who do it manually.", Language::En);
        assert!(to.iter().all(|p| !p.text.ends_with("compared")), "{to:?}");
        assert!(to.iter().any(|p| p.text.ends_with("process compared to colleagues")), "{to:?}");
        // The replayed Cuban consultation: "Agregar Carteles pidiendo el Fin" of "el Fin del Embargo".
        let del = whole_phrases("Agregar Carteles pidiendo el Fin del Embargo.", Language::Es);
        assert!(del.iter().all(|p| !p.text.ends_with("Fin")), "{del:?}");
        let du = whole_phrases("Il faut une grande décroissance du secteur.", Language::Fr);
        assert!(du.iter().all(|p| !p.text.ends_with("décroissance")), "{du:?}");
        // A plain "de" often opens an infinitive ("le temps de tout vérifier"): no tie.
        let de = whole_phrases("J'ai pas le temps de tout vérifier.", Language::Fr);
        assert!(de.iter().any(|p| p.text == "pas le temps"), "{de:?}");
    }

    #[test]
    fn a_phrase_keeps_what_its_verb_goes_on_to() {
        // The replayed scientists: "When did “access to online databases to look” last come up for you?"
        let particle = whole_phrases(
            "Our company has access to online databases to look for studies and we search through those with traditional search queries.",
            Language::En,
        );
        assert!(particle.iter().all(|p| !p.text.ends_with("to look")), "{particle:?}");
        assert!(particle.iter().any(|p| p.text == "traditional search queries"), "{particle:?}");
        let object = whole_phrases("Greenwood Mall should be remodeled to attract more buyers.", Language::En);
        assert!(object.iter().all(|p| !p.text.ends_with("attract")), "{object:?}");
        // An adverb between the modal and its verb: the scientists' label "AI can also scan".
        let adverb = whole_phrases("AI can also scan for most safety concerns, which is of utmost importance.", Language::En);
        assert!(adverb.iter().all(|p| !p.text.ends_with("scan")), "{adverb:?}");
        let tied = whole_phrases("I made sure it did what it was supposed to do with the data.", Language::En);
        assert!(tied.iter().all(|p| p.text != "supposed"), "{tied:?}");
        // A set phrase says nothing of its own: "For instance" is no quote.
        let set = whole_phrases("For instance, I would love to sign up for a community choir.", Language::En);
        assert!(set.iter().all(|p| !p.text.contains("instance")), "{set:?}");
        // German puts the verb a modal governs last: what follows the participle is no object.
        let german = whole_phrases("Biologisch angebaute Produkte sollten gefördert werden.", Language::De);
        assert!(german.iter().any(|p| p.text.starts_with("Biologisch angebaute Produkte")), "{german:?}");
    }
}
