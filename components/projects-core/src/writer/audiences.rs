//! Audiences: the people a topic names ("parents of toddlers", "new nurses").

use crate::context;
use super::words::{DETERMINERS, NOT_PEOPLE, VERBS, is_function_word, is_in, is_verb, keys};
use super::clauses::{is_plural, is_progressive};

/// Whether a word names a group of people, by the validate-context rule ("parents", "nurses", "people").
fn is_people(word: &str) -> bool {
    is_plural(word)
        && word.chars().all(|c| c.is_alphabetic() || c == '-')
        && !is_in(NOT_PEOPLE, word)
        && context::check_field("recruiting_criteria", &format!("only the {word} here")).is_valid
}

/// The people a topic names, as a word range: the first group of people with the
/// words that qualify it ("new nurses", "parents of toddlers", "small business owners").
pub(super) fn find_audience(words: &[String]) -> Option<(usize, usize)> {
    let lower = keys(words);
    let head = lower.iter().position(|w| is_people(w))?;
    let modifier = |w: &str| !is_function_word(w) && !is_verb(w) && (!w.ends_with('s') || w.ends_with("ss"));
    let mut start = head;
    while start > 0
        && head - start < 3
        && modifier(&lower[start - 1])
        && !words[start - 1].ends_with([',', ';', ':', '.'])
        && lower[start - 1].chars().all(|c| c.is_alphanumeric() || c == '-')
    {
        start -= 1;
    }
    if start > 0 && lower[start - 1] == "our" {
        start -= 1;
    }
    let mut end = head + 1;
    let qualifier = ["of", "in", "from", "at", "with", "without", "under", "over", "aged", "across"];
    if !words[head].ends_with([',', ';', ':', '.']) && lower.get(end).is_some_and(|w| qualifier.contains(&w.as_str())) {
        let mut k = end + 1;
        if lower.get(k).is_some_and(|w| is_in(DETERMINERS, w)) {
            k += 1;
        }
        let mut content = 0;
        while k < lower.len() && content < 3 {
            let word = lower[k].as_str();
            if word.is_empty() || is_function_word(word) || is_verb(word) || is_progressive(word) {
                break;
            }
            content += 1;
            let terminal = is_plural(word)
                || words[k].starts_with(char::is_uppercase)
                || word.chars().any(|c| c.is_ascii_digit())
                || k + 1 == lower.len()
                || is_function_word(&lower[k + 1])
                || is_in(VERBS, &lower[k + 1])
                || words[k].ends_with([',', ';', ':', '.']);
            k += 1;
            if terminal {
                end = k;
                break;
            }
        }
    }
    Some((start, end))
}
