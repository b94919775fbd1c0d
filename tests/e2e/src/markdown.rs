//! The fenced code blocks of the README and `docs/*.md`, which the tests run.
//!
//! A block's info string says what it is: its first word is the language
//! (`sh`, `json`, `python`, ...), the words after it are tags:
//! - `run`: a shell example the docs test runs, in order, in one `bash` session;
//! - `setup`: (with `run`) part of the README's quickstart that every other
//!   document's examples build on;
//! - `output`: what the `run` block just before it prints, `...` standing for
//!   any text;
//! - a file name (`receiver.py`): the block is that file, written into the
//!   working directory before the examples run.

/// One fenced code block.
#[derive(Debug, Clone)]
pub struct Block {
    /// 1-based line of the opening fence.
    pub line: usize,
    pub language: String,
    pub tags: Vec<String>,
    pub text: String,
}

impl Block {
    pub fn has_tag(&self, tag: &str) -> bool {
        self.tags.iter().any(|t| t == tag)
    }

    /// The file this block is, when a tag names one (`receiver.py`).
    pub fn file_name(&self) -> Option<&str> {
        self.tags.iter().map(String::as_str).find(|t| t.contains('.'))
    }
}

/// Every fenced block (three backticks), in document order.
pub fn blocks(markdown: &str) -> Vec<Block> {
    let mut found = Vec::new();
    let mut open: Option<(usize, Vec<String>, Vec<&str>)> = None;
    for (index, line) in markdown.lines().enumerate() {
        match &mut open {
            None => {
                if let Some(info) = line.strip_prefix("```") {
                    let words = info.split_whitespace().map(str::to_string).collect();
                    open = Some((index + 1, words, Vec::new()));
                }
            }
            Some((_, _, lines)) if line.trim_end() != "```" => lines.push(line),
            Some(_) => {
                let (line, mut words, lines) = open.take().unwrap();
                let language = if words.is_empty() { String::new() } else { words.remove(0) };
                found.push(Block { line, language, tags: words, text: lines.join("\n") + "\n" });
            }
        }
    }
    assert!(open.is_none(), "a code block is not closed");
    found
}

/// Whether `actual` is `expected`, where each `...` in `expected` stands for any
/// text (none included, newlines included). Trailing whitespace is ignored, on
/// every line (a CSV's CRLF line ends print as a terminal shows them).
pub fn matches(expected: &str, actual: &str) -> bool {
    let trim = |text: &str| text.lines().map(str::trim_end).collect::<Vec<_>>().join("\n").trim_end().to_string();
    let (expected, actual) = (trim(expected), trim(actual));
    let (expected, actual) = (expected.as_str(), actual.as_str());
    let pieces: Vec<&str> = expected.split("...").collect();
    if pieces.len() == 1 {
        return expected == actual;
    }
    let (first, last) = (pieces[0], pieces[pieces.len() - 1]);
    if !actual.starts_with(first) || actual.len() < first.len() + last.len() || !actual.ends_with(last) {
        return false;
    }
    let mut rest = &actual[first.len()..actual.len() - last.len()];
    for piece in &pieces[1..pieces.len() - 1] {
        match rest.find(piece) {
            Some(at) => rest = &rest[at + piece.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_carry_their_language_tags_and_text() {
        let doc = "text\n```sh run setup\necho 1\n```\n\n```json output\n1\n```\n```\nplain\n```\n";
        let found = blocks(doc);
        assert_eq!(found.len(), 3);
        assert_eq!((found[0].line, found[0].language.as_str(), found[0].text.as_str()), (2, "sh", "echo 1\n"));
        assert!(found[0].has_tag("run") && found[0].has_tag("setup"));
        assert!(found[1].has_tag("output"));
        assert_eq!(found[2].language, "");
        let file = &blocks("```python receiver.py\nprint()\n```\n")[0];
        assert_eq!(file.file_name(), Some("receiver.py"));
    }

    #[test]
    fn ellipses_stand_for_any_text() {
        assert!(matches("201", "201\n"));
        assert!(matches("a,b\n1,2", "a,b\r\n1,2\r\n"));
        assert!(!matches("201", "200"));
        assert!(matches(r#"{"id":"..."}"#, r#"{"id":"3f0c"}"#));
        assert!(matches(r#"{"id":"..."}"#, r#"{"id":""}"#));
        assert!(matches("a...c...e", "abcde"));
        assert!(matches("a...\n200", "a\nb\nc\n200"));
        assert!(!matches("a...c...e", "abde"));
        assert!(!matches("ab...ba", "aba"), "the start and the end do not overlap");
        assert!(!matches(r#"{"id":"..."}"#, r#"{"id":"3f0c"} extra"#));
    }
}
