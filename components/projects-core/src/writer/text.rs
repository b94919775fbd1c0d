//! Text helpers of the built-in writer: cutting, capitals, sentence ends, normalising a prompt, sentences.

use super::words::key;

/// Cuts `text` to at most `max` characters at a word boundary.
pub(super) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let prefix: String = text.chars().take(max + 1).collect();
    // Rather at a break between phrases ("..., e.g." or " - "), then between words.
    let phrase_break = [" - ", " – ", " — ", ", ", "; ", " (", " or "]
        .iter()
        .filter_map(|sep| prefix.rfind(sep))
        .max()
        .filter(|at| *at > max * 2 / 3);
    let word_break = prefix.rfind(' ').filter(|at| *at > max / 2);
    let cut = match phrase_break.or(word_break) {
        Some(at) => prefix[..at].to_string(),
        None => prefix.chars().take(max).collect(),
    };
    clean_tail(&cut)
}

/// Drops what a cut can leave dangling at the end: punctuation, an unclosed
/// bracket or quote, a preposition or conjunction.
pub(super) fn clean_tail(text: &str) -> String {
    const DANGLING: &[&str] = &[
        "and", "or", "of", "the", "a", "an", "to", "in", "for", "with", "on", "at", "by", "from", "about", "their",
        "our", "your", "its", "his", "her", "my", "as", "that", "which", "who", "but", "nor", "into", "how", "why",
        "what", "whether", "is", "are", "than", "like", "such", "e.g", "i.e", "etc",
    ];
    let mut text = text.trim().to_string();
    loop {
        let before = text.clone();
        for (open, close) in [('(', ')'), ('[', ']'), ('“', '”')] {
            if text.matches(open).count() > text.matches(close).count() {
                if let Some(at) = text.rfind(open) {
                    text.truncate(at);
                }
            }
        }
        if text.matches('"').count() % 2 == 1 {
            if let Some(at) = text.rfind('"') {
                text.truncate(at);
            }
        }
        text = text.trim_end_matches(|c: char| c.is_whitespace() || ",;:-–—/&(+".contains(c)).to_string();
        if let Some((head, last)) = text.rsplit_once(' ') {
            if DANGLING.contains(&key(last).as_str()) {
                text = head.to_string();
            }
        }
        if text == before {
            return text;
        }
    }
}

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

/// The sentences of normalised text: split after ".", "!", "?" or ";" (a run of
/// them, and closing quotes or brackets) followed by a space; not after
/// abbreviations such as "e.g." or "U.S.".
pub(super) fn sentences(text: &str) -> Vec<String> {
    const ABBREVIATIONS: &[&str] =
        &["e.g", "i.e", "etc", "vs", "approx", "incl", "mr", "mrs", "ms", "dr", "st", "no", "ca", "cf", "esp"];
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut current = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        current.push(c);
        i += 1;
        if !matches!(c, '.' | '!' | '?' | ';' | '？' | '。' | '！') {
            continue;
        }
        while i < chars.len() && (matches!(chars[i], '.' | '!' | '?' | '"' | '”' | ')' | '’' | '\'')) {
            current.push(chars[i]);
            i += 1;
        }
        if i < chars.len() && !chars[i].is_whitespace() {
            continue;
        }
        if c == '.' {
            let last = current.trim_end_matches('.').rsplit(' ').next().unwrap_or_default().to_lowercase();
            let abbreviation = ABBREVIATIONS.contains(&last.as_str()) || (last.contains('.') && last.len() <= 6);
            if abbreviation && i < chars.len() {
                continue;
            }
        }
        let sentence = current.trim().to_string();
        if sentence.chars().any(char::is_alphanumeric) {
            out.push(sentence);
        }
        current.clear();
    }
    let sentence = current.trim().to_string();
    if sentence.chars().any(char::is_alphanumeric) {
        out.push(sentence);
    }
    out
}
