//! Answers that say nothing: a refusal ("I don't know", "no", "nothing", in
//! the interview's language or another), keyboard mash and placeholder text.
//! The quality signals leave such answers out of what they judge, the
//! interviewer never quotes them back, and the synthesis groups none of them.

use super::lexicon::{self, Lexicon};
use super::words;
use crate::Language;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Whether an answer declines: it holds a way of saying "I don't know", "no"
/// or "nothing" of its language, and no content word besides.
pub fn declines(answer: &str, language: Language) -> bool {
    is_refusal(answer, &Lexicon::of(language))
}

/// A language's refusals, the longest first (so "nothing else" is matched
/// before "nothing"), as written and as normalized words: read once.
fn refusals_of(language: Language) -> &'static (Vec<&'static str>, Vec<Vec<String>>) {
    static READ: OnceLock<Mutex<HashMap<Language, &'static (Vec<&'static str>, Vec<Vec<String>>)>>> = OnceLock::new();
    let mut read = READ.get_or_init(Default::default).lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    read.entry(language).or_insert_with(|| {
        let mut refusals: Vec<&'static str> = lexicon::refusals(language).to_vec();
        refusals.sort_by_key(|r| std::cmp::Reverse(r.chars().count()));
        let normalized = refusals.iter().map(|r| r.split_whitespace().map(words::normalize).collect()).collect();
        Box::leak(Box::new((refusals, normalized)))
    })
}

pub fn is_refusal(answer: &str, lexicon: &Lexicon) -> bool {
    let (refusals, normalized) = refusals_of(lexicon.language());
    if lexicon.language() == Language::Ja {
        // No spaces: the refusals are cut out of the text, then what is left must say nothing.
        let mut rest = answer.to_string();
        let mut matched = false;
        for refusal in refusals {
            if rest.contains(refusal) {
                rest = rest.replace(refusal, "、");
                matched = true;
            }
        }
        return matched && words::words(&rest).iter().all(|w| !lexicon.is_content(w));
    }
    let answer_words = words::words(answer);
    let refusals = normalized;
    let mut matched = false;
    let mut i = 0;
    while i < answer_words.len() {
        let rest = &answer_words[i..];
        let found = refusals.iter().find(|refusal| {
            refusal.len() <= rest.len() && refusal.iter().zip(rest).all(|(r, w)| *r == w.normalized)
        });
        match found {
            Some(refusal) => {
                matched = true;
                i += refusal.len();
            }
            None if lexicon.is_content(&answer_words[i]) => return false,
            None => i += 1,
        }
    }
    matched
}

/// Whether an answer declines in its interview's language or any other (an
/// interviewee may answer in another language than the interview's).
pub fn declines_in_any_language(text: &str, language: Language) -> bool {
    declines(text, language)
        || <Language as text_enum::TextEnum>::NAMES.iter().filter_map(|name| Language::parse(name)).any(|other| declines(text, other))
}

/// Letter runs of the keyboard's rows (QWERTY, QWERTZ, AZERTY, ЙЦУКЕН) that
/// no word of the interview languages holds: what a hand slid along the keys types.
const KEYBOARD_RUNS: [&str; 20] = [
    "qwer", "asdf", "sdfg", "dfgh", "fghj", "ghjk", "hjkl", "zxcv", "xcvb", "cvbn", "vbnm", "yuio", "uiop", "tyui",
    "qsdf", "wxcv", "йцук", "фыва", "ывап", "ячсм",
];

/// Words typed to fill a field, not to say anything: placeholder Latin and
/// filler syllables.
const PLACEHOLDERS: [&str; 12] =
    ["adipiscing", "amet", "bla", "blabla", "blah", "consectetur", "dolor", "elit", "ipsum", "lorem", "xxx", "yada"];

/// A word no language writes: three letters or more without a vowel (in the
/// alphabets that write vowels; an acronym in capitals aside), a letter three
/// times in a row, a run of the keyboard's keys, or a placeholder.
fn is_implausible(word: &str) -> bool {
    let lower: String = word.chars().flat_map(char::to_lowercase).collect();
    if PLACEHOLDERS.contains(&lower.as_str()) {
        return true;
    }
    let letters: Vec<char> = lower.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() < 3 {
        return false;
    }
    let tripled = letters.windows(3).any(|w| w[0] == w[1] && w[1] == w[2]);
    let keyboard = KEYBOARD_RUNS.iter().any(|run| lower.contains(run));
    let writes_vowels = letters.iter().all(|c| c.is_ascii_alphabetic() || is_cyrillic(*c) || is_greek(*c) || is_latin_extended(*c));
    let acronym = letters.len() <= 5 && !word.chars().any(char::is_lowercase);
    let no_vowel = writes_vowels && !acronym && !letters.iter().any(|c| is_vowel(*c));
    tripled || keyboard || no_vowel
}

fn is_cyrillic(c: char) -> bool {
    ('\u{0400}'..='\u{04FF}').contains(&c)
}

fn is_greek(c: char) -> bool {
    ('\u{0370}'..='\u{03FF}').contains(&c) || ('\u{1F00}'..='\u{1FFF}').contains(&c)
}

fn is_latin_extended(c: char) -> bool {
    ('\u{00C0}'..='\u{024F}').contains(&c)
}

fn is_vowel(c: char) -> bool {
    "aeiouyàáâãäåæèéêëìíîïòóôõöøœùúûüýÿąęėįųāēīōūőűаеёиоуыэюяіїєαεηιουωάέήίόύώϊϋΐΰ".contains(c)
}

/// An answer most of whose words (of letters; numbers and acronyms of two
/// letters aside) no language writes, or one word said over and over ("test
/// test test").
pub fn is_gibberish(text: &str) -> bool {
    let found = words::words(text);
    let lettered: Vec<&str> = found.iter().map(|w| w.text).filter(|w| w.chars().any(char::is_alphabetic)).collect();
    if lettered.is_empty() {
        // Punctuation, emoji or numbers only: nothing written.
        return !text.chars().any(|c| c.is_numeric());
    }
    let one_word_over_and_over = lettered.len() >= 3 && found.iter().all(|w| w.normalized == found[0].normalized);
    let odd = lettered.iter().filter(|w| is_implausible(w)).count();
    one_word_over_and_over || odd * 2 > lettered.len()
}

