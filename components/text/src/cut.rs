//! Shortening a text to a length for a heading, a name or an opening line:
//! the one `cut` of the product.

/// Words a cut must not leave at the end ("pricing, delivery and").
const DANGLING: &[&str] = &[
    "and", "or", "of", "the", "a", "an", "to", "in", "for", "with", "on", "at", "by", "from", "about", "their", "our",
    "your", "its", "his", "her", "my", "as", "that", "which", "who", "but", "nor", "into", "how", "why", "what",
    "whether", "is", "are", "than", "like", "such", "e.g", "i.e", "etc",
];

/// `text` in at most `max` characters: whole when it fits; otherwise cut at
/// a break between phrases (", ", " - ", " (", " or ") in its last third, or
/// else between words, and [`clean_tail`]ed.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    let prefix: String = text.chars().take(max + 1).collect();
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

/// [`cut`] with an ellipsis where it shortened: at most `max` characters.
pub fn cut_with_ellipsis(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_string();
    }
    format!("{}…", cut(text, max.saturating_sub(1)))
}

/// Drops what a cut can leave dangling at the end: punctuation, an unclosed
/// bracket or quote, a preposition or conjunction.
pub fn clean_tail(text: &str) -> String {
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
            let last = last.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase();
            if DANGLING.contains(&last.as_str()) {
                text = head.to_string();
            }
        }
        if text == before {
            return text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_falls_between_phrases_or_words_and_leaves_nothing_dangling() {
        assert_eq!(cut("one two three four five six", 12), "one two");
        assert_eq!(cut("pricing, delivery and the support of", 34), "pricing, delivery and the support");
        assert_eq!(cut("short enough", 12), "short enough");
        assert_eq!(cut_with_ellipsis("how parents of toddlers choose a daycare and what", 30), "how parents of toddlers…");
        assert_eq!(cut_with_ellipsis("fits", 30), "fits");
    }
}
