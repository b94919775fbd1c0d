//! An answer's words: each exactly as written (so a probe quotes the
//! interviewee's own words), where it sits, its normalized form for looking it
//! up, and whether it continues the phrase before it or punctuation comes between.

/// The writing system of a word, which decides where Japanese words end (it has
/// no spaces: a change of script is the only boundary a dictionary-free reader has).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Script {
    Han,
    Hiragana,
    Katakana,
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word<'a> {
    /// Exactly as the interviewee wrote it.
    pub text: &'a str,
    /// Byte offsets in the answer.
    pub start: usize,
    pub end: usize,
    /// For looking the word up: see [`normalize`].
    pub normalized: String,
    /// Only white space (or nothing, between Japanese scripts) separates it from
    /// the word before: the two may belong to one phrase.
    pub follows_closely: bool,
    pub script: Script,
}

pub fn script(c: char) -> Script {
    match c {
        '\u{3040}'..='\u{309F}' => Script::Hiragana,
        '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}' => Script::Katakana,
        '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '々' => Script::Han,
        _ => Script::Other,
    }
}

/// Arabic harakat, Hebrew niqqud and the combining accents: part of a word, not
/// a break (std's `is_alphanumeric` says no to marks).
fn is_mark(c: char) -> bool {
    matches!(c, '\u{0300}'..='\u{036F}' | '\u{0591}'..='\u{05C7}' | '\u{0610}'..='\u{061A}' | '\u{064B}'..='\u{065F}' | '\u{0670}' | '\u{06D6}'..='\u{06ED}')
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_mark(c)
}

/// Joins two parts of one word when it stands between letters: "don't", "l'école", "well-known".
fn is_inner_joint(c: char) -> bool {
    matches!(c, '\'' | '’' | '-' | '‐')
}

/// Lower-case, without the marks a stop-word list leaves out (Greek accents and
/// final sigma, Arabic and Hebrew vowel points, the Arabic tatweel), with plain apostrophes.
pub fn normalize(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .filter_map(|c| match c {
            '’' | '‘' | '`' => Some('\''),
            'ά' => Some('α'),
            'έ' => Some('ε'),
            'ή' => Some('η'),
            'ί' | 'ϊ' | 'ΐ' => Some('ι'),
            'ό' => Some('ο'),
            'ύ' | 'ϋ' | 'ΰ' => Some('υ'),
            'ώ' => Some('ω'),
            'ς' => Some('σ'),
            '\u{0640}' => None,
            c if is_mark(c) => None,
            c => Some(c),
        })
        .collect()
}

/// The words of `text`, in order.
pub fn words(text: &str) -> Vec<Word<'_>> {
    let mut words = Vec::new();
    let mut start: Option<usize> = None;
    // Whether anything but white space came since the last word.
    let mut broken = true;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        let next_is_word = chars.get(i + 1).is_some_and(|&(_, n)| is_word_char(n));
        let inside = is_word_char(c) || (start.is_some() && is_inner_joint(c) && next_is_word);
        match (inside, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                split_scripts(text, from, at, broken, &mut words);
                start = None;
                broken = false;
            }
            _ => {}
        }
        // "and/or", "R&D", "A+B" join what they stand between; other punctuation breaks a phrase.
        if !inside && !c.is_whitespace() && !matches!(c, '/' | '&' | '+') {
            broken = true;
        }
    }
    if let Some(from) = start {
        split_scripts(text, from, text.len(), broken, &mut words);
    }
    words
}

/// One run of word characters, cut where the script changes (Japanese).
fn split_scripts<'a>(text: &'a str, from: usize, to: usize, broken: bool, words: &mut Vec<Word<'a>>) {
    let mut piece_start = from;
    let mut piece_script = None;
    let mut first = true;
    for (offset, c) in text[from..to].char_indices() {
        let at = from + offset;
        let this = script(c);
        // Marks and joints stay with the piece they are in.
        let this = if is_mark(c) || is_inner_joint(c) { piece_script.unwrap_or(this) } else { this };
        if let Some(current) = piece_script {
            if current != this {
                push(text, piece_start, at, current, !(first && broken), words);
                first = false;
                piece_start = at;
            }
        }
        piece_script = Some(this);
    }
    if let Some(current) = piece_script {
        push(text, piece_start, to, current, !(first && broken), words);
    }
}

fn push<'a>(text: &'a str, start: usize, end: usize, script: Script, follows_closely: bool, words: &mut Vec<Word<'a>>) {
    let follows_closely = follows_closely && !words.is_empty();
    words.push(Word { text: &text[start..end], start, end, normalized: normalize(&text[start..end]), follows_closely, script });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts<'a>(words: &[Word<'a>]) -> Vec<(&'a str, bool)> {
        words.iter().map(|w| (w.text, w.follows_closely)).collect()
    }

    #[test]
    fn punctuation_breaks_phrases_and_inner_apostrophes_do_not() {
        let words = words("Hidden shipping costs, at the last step; I don't like well-known tricks.");
        assert_eq!(
            texts(&words),
            vec![
                ("Hidden", false), ("shipping", true), ("costs", true), ("at", false), ("the", true), ("last", true),
                ("step", true), ("I", false), ("don't", true), ("like", true), ("well-known", true), ("tricks", true)
            ]
        );
        assert_eq!(words[8].normalized, "don't");
        assert_eq!((words[0].start, words[0].end), (0, 6));
    }

    #[test]
    fn japanese_words_end_where_the_script_changes() {
        let words = words("最後のステップで送料が出ると、やめます。");
        assert_eq!(
            texts(&words),
            vec![("最後", false), ("の", true), ("ステップ", true), ("で", true), ("送料", true), ("が", true), ("出", true), ("ると", true), ("やめます", false)]
        );
        assert_eq!(words[0].script, Script::Han);
        assert_eq!(words[2].script, Script::Katakana);
    }

    #[test]
    fn normalizing_drops_what_stop_word_lists_leave_out() {
        assert_eq!(normalize("Πολύ"), "πολυ");
        assert_eq!(normalize("σιγουρος"), "σιγουροσ");
        assert_eq!(normalize("L’École"), "l'école");
        assert_eq!(normalize("مُمْتَاز"), "ممتاز");
    }
}
