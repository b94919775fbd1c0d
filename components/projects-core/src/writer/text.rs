//! Text helpers of the built-in writer: capitals, sentence ends, normalising a prompt, its sentences.

pub(super) use text::cut::{clean_tail, cut};
use text::sentences::{sentences_of, Prose};

/// Drops trailing sentence punctuation (and spaces) from a sentence.
pub(super) fn trim_end_punctuation(text: &str) -> &str {
    text.trim_end_matches(|c: char| c.is_whitespace() || ".!?;:,…？。".contains(c))
}

pub(super) fn capitalize(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Lower-cases the first letter of a sentence-initial word, unless it looks like a
/// name or an acronym ("SaaS", "B2B", "Google Maps").
pub(super) fn lower_first(text: &str) -> String {
    let mut words = text.splitn(3, ' ');
    let first = words.next().unwrap_or_default();
    let second = words.next().unwrap_or_default();
    let rest_of_first: String = first.chars().skip(1).collect();
    let keep = rest_of_first.chars().any(|c| c.is_uppercase() || c.is_ascii_digit())
        || second.chars().next().is_some_and(char::is_uppercase)
        || first == "I"
        || first.starts_with("I'");
    if keep {
        return text.to_string();
    }
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

/// Ends a sentence with a full stop unless it already ends with punctuation.
pub(super) fn end_sentence(text: &str) -> String {
    let text = text.trim_end();
    if text.ends_with(['.', '!', '?', '…', '"', '”', '？']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

/// Whitespace collapsed; list items (lines opening with "-", "*", "•", "1." or
/// "2)") joined into a comma-separated list; blank lines end sentences; a prompt
/// written all in capitals is lower-cased; typographic apostrophes made plain.
pub(super) fn normalise(prompt: &str) -> String {
    let mut out = String::new();
    let mut in_list = false;
    let mut break_pending = false;
    for line in prompt.replace(['’', '‘'], "'").lines() {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        if line.is_empty() {
            break_pending = !out.is_empty();
            continue;
        }
        let item = list_item(&line);
        if let Some(item) = item {
            let item = item.trim_end_matches([',', ';', '.']).trim();
            if item.is_empty() {
                continue;
            }
            if in_list {
                out.push_str(", ");
            } else if !out.is_empty() {
                if out.ends_with(':') {
                    out.push(' ');
                } else {
                    let ended = out.ends_with(['.', '!', '?', ';']);
                    out.push_str(if ended { " " } else { ": " });
                }
            }
            out.push_str(item);
            in_list = true;
            break_pending = false;
            continue;
        }
        if !out.is_empty() {
            let ended = out.ends_with(['.', '!', '?', ';', ':']);
            if (in_list || break_pending) && !ended {
                out.push('.');
            }
            out.push(' ');
        }
        out.push_str(&line);
        in_list = false;
        break_pending = false;
    }
    if !out.chars().any(char::is_lowercase) && out.chars().filter(|c| c.is_alphabetic()).count() > 3 {
        out = out.to_lowercase();
    }
    // A lone "i" is the pronoun.
    out.split(' ')
        .map(|word| {
            let lower = word.to_lowercase();
            if lower == "i" || lower.starts_with("i'") && word.starts_with('i') && word.len() <= 4 {
                capitalize(word)
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn list_item(line: &str) -> Option<&str> {
    for marker in ["- ", "* ", "• ", "· ", "– ", "— ", "+ "] {
        if let Some(rest) = line.strip_prefix(marker) {
            return Some(rest);
        }
    }
    let digits = line.chars().take_while(char::is_ascii_digit).count();
    if digits > 0 && digits <= 2 {
        let rest = &line[digits..];
        for marker in [". ", ") "] {
            if let Some(rest) = rest.strip_prefix(marker) {
                return Some(rest);
            }
        }
    }
    None
}

/// The sentences of a normalised brief (the toolkit's splitter, see
/// `text::sentences::Prose::Brief`), each with a letter or digit in it.
pub(super) fn sentences(text: &str) -> Vec<String> {
    sentences_of(text, Prose::Brief)
        .into_iter()
        .map(|(start, end)| text[start..end].to_string())
        .filter(|sentence| sentence.chars().any(char::is_alphanumeric))
        .collect()
}
