//! Questions as noun clauses: "How do people pick a bank?" is about "how people pick a bank".

use super::words::{
    ADVERBS, BE, CONTRACTIONS, DETERMINERS, DO, DO_NOT, HAVE, HOW_MODS, ING_NOUNS, IRREGULAR_PAST, MODALS, NOUN_VERBS,
    PARTICIPLES, PREDICATE_WORDS, PREPOSITIONS, PRONOUNS, SUBJECT_PRONOUNS, VERBS, WH, is_aux, is_function_word, is_in,
    is_verb, key, keys,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Aux {
    Do,
    DoNot,
    Be,
    Have,
    Modal,
}

fn aux_class(word: &str) -> Option<Aux> {
    if is_in(DO, word) {
        Some(Aux::Do)
    } else if is_in(DO_NOT, word) {
        Some(Aux::DoNot)
    } else if is_in(BE, word) {
        Some(Aux::Be)
    } else if is_in(HAVE, word) {
        Some(Aux::Have)
    } else if is_in(MODALS, word) {
        Some(Aux::Modal)
    } else {
        None
    }
}

pub(super) fn is_progressive(word: &str) -> bool {
    word.len() >= 5 && word.ends_with("ing") && !is_in(ING_NOUNS, word)
}

fn is_participle(word: &str) -> bool {
    is_in(PARTICIPLES, word) || (word.len() > 3 && word.ends_with("ed") && !word.ends_with("eed"))
}

pub(super) fn is_plural(word: &str) -> bool {
    matches!(word, "people" | "children" | "men" | "women" | "staff" | "folks")
        || (word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") && !word.ends_with("'s"))
}

/// Whether the predicate (a verb, or for "to be" an adjective, participle or
/// complement) opens at `rest[j]`. Pass 0 looks for clear verbs, pass 1 also
/// accepts words that are nouns as often as verbs.
fn predicate_at(rest: &[String], j: usize, class: Aux, pass: u8) -> bool {
    let Some(word) = rest.get(j).map(String::as_str) else {
        return false;
    };
    let next_is_verb = rest.get(j + 1).is_some_and(|next| is_verb(next));
    match (class, pass) {
        (Aux::Do | Aux::DoNot | Aux::Modal, 0) => is_in(VERBS, word) || (is_in(ADVERBS, word) && next_is_verb),
        // "how will remote work change office design": not "work" but "change".
        (Aux::Do | Aux::DoNot | Aux::Modal, _) => is_in(NOUN_VERBS, word) && !next_is_verb,
        (Aux::Be, 0) => {
            is_progressive(word)
                || is_participle(word)
                || is_in(PREDICATE_WORDS, word)
                || (j > 0 && is_in(DETERMINERS, word) && !is_in(PREPOSITIONS, &rest[j - 1]))
        }
        (Aux::Have, 0) => is_participle(word) || is_in(ADVERBS, word),
        _ => false,
    }
}

/// Whether `rest[i]` (not the first word) can belong to a subject noun phrase.
fn in_noun_phrase(rest: &[String], i: usize) -> bool {
    let word = rest[i].as_str();
    !(is_aux(word)
        || is_in(SUBJECT_PRONOUNS, word)
        || is_in(WH, word)
        || matches!(word, "to" | "not" | "that" | "than" | "because" | "if" | "so" | "")
        || (is_in(DETERMINERS, word) && !is_in(PREPOSITIONS, &rest[i - 1])))
}

/// How many of `rest`'s words form the subject, the predicate following.
fn subject_len(rest: &[String], class: Aux) -> Option<usize> {
    let first = rest.first()?.as_str();
    if is_aux(first) || is_in(PREPOSITIONS, first) || is_in(WH, first) || first == "not" {
        return None;
    }
    // "should we add ...", "does it help ...": a personal pronoun is the whole subject.
    let personal = is_in(PRONOUNS, first) && !matches!(first, "this" | "that");
    if personal && rest.get(1).is_some_and(|next| !is_function_word(next) || is_in(ADVERBS, next)) {
        return Some(1);
    }
    if is_in(PRONOUNS, first) && (0..2).any(|pass| predicate_at(rest, 1, class, pass)) {
        return Some(1);
    }
    let min = if is_in(DETERMINERS, first) { 2 } else { 1 };
    for pass in 0..2 {
        for j in min..rest.len().min(7) {
            if j > 1 && !in_noun_phrase(rest, j - 1) {
                break;
            }
            if predicate_at(rest, j, class, pass) {
                return Some(j);
            }
        }
    }
    None
}

fn third_person(verb: &str) -> String {
    match verb {
        "be" => "is".into(),
        "have" => "has".into(),
        "do" => "does".into(),
        "go" => "goes".into(),
        _ => {
            let before_y = verb.chars().rev().nth(1).unwrap_or('a');
            if verb.ends_with('y') && !"aeiou".contains(before_y) {
                format!("{}ies", &verb[..verb.len() - 1])
            } else if ["s", "sh", "ch", "x", "z", "o"].iter().any(|end| verb.ends_with(end)) {
                format!("{verb}es")
            } else {
                format!("{verb}s")
            }
        }
    }
}

fn past(verb: &str) -> String {
    if let Some((_, past)) = IRREGULAR_PAST.iter().find(|(base, _)| *base == verb) {
        return past.to_string();
    }
    let before_y = verb.chars().rev().nth(1).unwrap_or('a');
    if verb.ends_with('e') {
        format!("{verb}d")
    } else if verb.ends_with('y') && !"aeiou".contains(before_y) {
        format!("{}ied", &verb[..verb.len() - 1])
    } else {
        format!("{verb}ed")
    }
}

/// A question or clause opening with a question word, "if" or (for a question)
/// an auxiliary, as a noun clause: "how people pick a bank", "why users are
/// leaving", "whether our pricing is too complex". `None` when the word order
/// cannot be worked out.
pub(super) fn noun_clause(words: &[String], question: bool) -> Option<String> {
    let lower = keys(words);
    let n = words.len();
    let (mut out, start) = clause_opening(words, &lower, question)?;
    if start >= n {
        return Some(out.join(" "));
    }
    let aux = lower[start].as_str();
    let Some(class) = aux_class(aux) else {
        out.extend_from_slice(&words[start..]);
        return Some(out.join(" "));
    };
    let rest = &words[start + 1..];
    let rest_lower = &lower[start + 1..];
    // The question word is the subject: "what is driving churn", "who would pay for it".
    let wh_subject = matches!(out[0].as_str(), "what" | "who" | "which" | "whose");
    if wh_subject && class != Aux::Do && (rest.is_empty() || (0..2).any(|pass| predicate_at(rest_lower, 0, class, pass))) {
        out.push(aux.to_string());
        out.extend_from_slice(rest);
        return Some(out.join(" "));
    }
    if rest.is_empty() {
        return None;
    }
    // "why do users not finish onboarding"
    if class == Aux::Do {
        if let Some(not) = rest_lower.iter().take(6).position(|w| w == "not") {
            if not > 0 && (1..not).all(|i| in_noun_phrase(rest_lower, i)) {
                out.extend_from_slice(&rest[..not]);
                out.push(format!("{aux} not"));
                out.extend_from_slice(&rest[not + 1..]);
                return Some(out.join(" "));
            }
        }
    }
    uninvert(&mut out, class, aux, rest, rest_lower)?;
    Some(out.join(" "))
}

/// The clause's opening words ("whether", the question word and what belongs
/// to it: "how much money", "to what extent") and where the rest starts.
fn clause_opening(words: &[String], lower: &[String], question: bool) -> Option<(Vec<String>, usize)> {
    let n = words.len();
    let first = lower.first()?.as_str();
    let mut out: Vec<String>;
    let start;
    if first == "if" || first == "whether" {
        out = vec!["whether".to_string()];
        start = 1;
    } else if is_in(WH, first) || (n > 2 && matches!((first, lower[1].as_str()), ("to" | "in" | "for", "what"))) {
        let mut wh = 1;
        if n > 2 && lower[1] == "what" {
            wh = 3; // "to what extent", "in what way", "for what reason"
        } else if first == "how" && n > 1 && is_in(HOW_MODS, &lower[1]) {
            wh = 2;
        }
        // "which features do users miss", "how much money do people spend": a noun after the question word.
        if question && (matches!(first, "what" | "which" | "whose") || (wh == 2 && matches!(lower[1].as_str(), "much" | "many"))) {
            if let Some(at) = (wh..(wh + 3).min(n)).find(|&at| is_aux(&lower[at])) {
                if at > wh && lower[wh..at].iter().all(|w| !is_function_word(w) || w == "of") {
                    wh = at;
                }
            }
        }
        out = words[..wh.min(n)].to_vec();
        out[0] = lower[0].clone();
        start = wh.min(n);
    } else if is_aux(first) && question {
        out = vec!["whether".to_string()];
        start = 0;
    } else {
        return None;
    }
    Some((out, start))
}

/// The rest of the clause after its opening, in statement order: the
/// auxiliary after its subject ("how people choose", "what the main pain
/// points are"); `None` when the word order cannot be worked out.
fn uninvert(out: &mut Vec<String>, class: Aux, aux: &str, rest: &[String], rest_lower: &[String]) -> Option<()> {
    match (class, aux) {
        (Aux::Do, "do") => {
            // "How do you choose your bank?" is about how people choose theirs.
            let you = rest_lower[0] == "you";
            for (word, lower) in rest.iter().zip(rest_lower) {
                out.push(match lower.as_str() {
                    "you" if you => "people".to_string(),
                    "your" if you => "their".to_string(),
                    "yourself" | "yourselves" if you => "themselves".to_string(),
                    _ => word.clone(),
                });
            }
        }
        (Aux::Do, _) => {
            let subject = subject_len(rest_lower, class)?;
            let mut verb = subject;
            while verb + 1 < rest.len() && is_in(ADVERBS, &rest_lower[verb]) {
                verb += 1;
            }
            if !is_verb(&rest_lower[verb]) {
                return None;
            }
            out.extend_from_slice(&rest[..verb]);
            out.push(if aux == "does" { third_person(&rest_lower[verb]) } else { past(&rest_lower[verb]) });
            out.extend_from_slice(&rest[verb + 1..]);
        }
        _ => {
            // "what the main pain points are when invoicing clients"
            let before_subordinate = || {
                let at = rest_lower.iter().position(|w| matches!(w.as_str(), "when" | "while" | "if" | "because" | "once"));
                at.filter(|&at| at > 0).unwrap_or(rest.len())
            };
            let subject = subject_len(rest_lower, class)
                .or_else(|| (class == Aux::Be && out[0] != "whether").then(before_subordinate))?;
            out.extend_from_slice(&rest[..subject]);
            out.push(aux.to_string());
            out.extend_from_slice(&rest[subject..]);
        }
    }
    Some(())
}

/// "Checkout abandonment is rising and we do not know why": "why checkout abandonment is rising".
pub(super) fn unknown_why(words: &[String]) -> Option<String> {
    let lower = keys(words);
    if lower.len() < 5 || lower.last()? != "why" {
        return None;
    }
    let knowing = ["know", "understand", "sure", "idea", "clue", "explain", "out"];
    (1..lower.len() - 2).rev().find_map(|at| {
        let subject = matches!(lower[at].as_str(), "we" | "i" | "nobody" | "no" | "we're" | "i'm" | "we've");
        let linked = matches!(lower[at - 1].as_str(), "and" | "but") || words[at - 1].ends_with(',');
        if !subject || !linked || !lower[at..].iter().any(|w| knowing.contains(&w.as_str())) {
            return None;
        }
        let end = if matches!(lower[at - 1].as_str(), "and" | "but") { at - 1 } else { at };
        let statement = words[..end].join(" ");
        let statement = statement.trim_end_matches(',');
        (!statement.is_empty()).then(|| format!("why {statement}"))
    })
}

/// Whether a phrase is a full statement ("Our nurses leave in their first year",
/// "Checkout abandonment is rising") rather than a noun phrase.
pub(super) fn is_statement(lower: &[String]) -> bool {
    let end = lower
        .iter()
        .position(|w| matches!(w.as_str(), "who" | "that" | "which" | "whose" | "where" | "when" | "why" | "how" | "whether"))
        .unwrap_or(lower.len());
    let head = &lower[..end];
    head.iter().any(|w| is_aux(w) || is_in(SUBJECT_PRONOUNS, w) || is_in(CONTRACTIONS, w))
        || head.iter().enumerate().any(|(at, word)| {
            let verb = head[at + 1..].iter().find(|w| !is_in(ADVERBS, w));
            is_plural(word) && !is_in(DETERMINERS, word) && verb.is_some_and(|verb| is_in(VERBS, verb))
        })
}

/// A phrase with no English function word in it but letters outside ASCII.
pub(super) fn is_foreign(lower: &[String]) -> bool {
    lower.len() > 1
        && lower.iter().any(|w| w.chars().any(|c| c.is_alphabetic() && !c.is_ascii()))
        && !lower.iter().any(|w| is_function_word(w) || is_verb(w))
}

/// "pricing, delivery, support" as "pricing, delivery and support"; whether it is a list.
pub(super) fn join_list(text: &str) -> (String, bool) {
    let mut items: Vec<&str> = text.split(',').map(str::trim).filter(|item| !item.is_empty()).collect();
    if items.len() < 2 || items.iter().any(|item| item.split_whitespace().count() > 5) {
        return (text.to_string(), false);
    }
    if items.last().is_some_and(|last| matches!(key(last).as_str(), "etc" | "and so on")) {
        items.pop();
    }
    let Some((last, head)) = items.split_last() else {
        return (text.to_string(), false);
    };
    if head.is_empty() {
        return (last.to_string(), false);
    }
    let last_lower = last.to_lowercase();
    if last_lower.starts_with("and ") || last_lower.starts_with("or ") {
        return (format!("{} {}", head.join(", "), last), true);
    }
    if last_lower.contains(" and ") || last_lower.contains(" or ") {
        return (format!("{}, {}", head.join(", "), last), true);
    }
    (format!("{} and {}", head.join(", "), last), true)
}
