//! The meaning of a sentence as a vector, offline and on any host: each
//! WordPiece token of the sentence (all-MiniLM-L6-v2's uncased English
//! vocabulary) is looked up in a static table, and the sentence's vector is
//! the sum of its tokens' rows, made unit length. Two sentences that say the
//! same thing in other words point the same way (cosine near 1); unrelated
//! ones are near 0.
//!
//! The table (`data/sentence-vectors.bin`) is derived from the model by
//! `scripts/derive-vectors.sh`: each row is fitted so that the sum of a text's
//! rows reproduces the model's own vector of that text
//! (docs/design-decisions.md, "Sentence vectors"). A lookup costs no model and
//! no network: a few microseconds a sentence.
//!
//! Layout of the table, little-endian: `IRSV`, a `u16` version (1), a `u16`
//! number of dimensions, a `u32` number of tokens, a `u32` length of the
//! vocabulary; the vocabulary (tokens sorted bytewise, each ended by `\n`);
//! then per token, in that order, an `f32` scale and one `i8` per dimension.

use std::sync::OnceLock;
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

static TABLE_BYTES: &[u8] = include_bytes!("../data/sentence-vectors.bin");

/// A word longer than this (in characters) is one unknown token, as the model reads it.
const MAX_WORD_CHARS: usize = 100;

/// Where each token of the table's vocabulary begins (build.rs), and one
/// past the last.
mod vocabulary {
    include!(concat!(env!("OUT_DIR"), "/vector_vocabulary.rs"));
}

/// The static table: its vocabulary and its rows.
pub struct Table {
    dims: usize,
    /// The tokens, sorted bytewise, each ended by `\n`; `rows` follows the same order.
    vocabulary: &'static [u8],
    rows: &'static [u8],
}

/// A sentence's meaning: a unit vector (all zeros for a text without a known token).
#[derive(Clone, PartialEq, Default)]
pub struct Meaning(Vec<f32>);

impl std::fmt::Debug for Meaning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Meaning({:.3}, {:.3}, … {} dimensions)", self.0.first().unwrap_or(&0.0), self.0.get(1).unwrap_or(&0.0), self.0.len())
    }
}

/// The table compiled into the component: its header read once per instance,
/// nothing else parsed.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| Table::parse(TABLE_BYTES).expect("data/sentence-vectors.bin is a sentence-vector table"))
}

impl Table {
    fn parse(bytes: &'static [u8]) -> Option<Table> {
        let header = bytes.get(..16)?;
        if &header[..4] != b"IRSV" || u16::from_le_bytes([header[4], header[5]]) != 1 {
            return None;
        }
        let dims = u16::from_le_bytes([header[6], header[7]]) as usize;
        let count = u32::from_le_bytes(header[8..12].try_into().ok()?) as usize;
        let vocabulary_len = u32::from_le_bytes(header[12..16].try_into().ok()?) as usize;
        let vocabulary = bytes.get(16..16 + vocabulary_len)?;
        let rows = bytes.get(16 + vocabulary_len..)?;
        let starts = &vocabulary::TOKEN_STARTS;
        (starts.len() == count + 1 && rows.len() == count * (4 + dims)).then_some(Table { dims, vocabulary, rows })
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    fn id(&self, token: &str) -> Option<usize> {
        let starts = &vocabulary::TOKEN_STARTS;
        let count = starts.len() - 1;
        let token_at = |i: usize| &self.vocabulary[starts[i] as usize..starts[i + 1] as usize - 1];
        let (mut low, mut high) = (0, count);
        while low < high {
            let middle = (low + high) / 2;
            match token_at(middle).cmp(token.as_bytes()) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle),
            }
        }
        None
    }

    /// Whether `word` looks misspelt: the vocabulary does not hold it whole
    /// (nor its singular), but it holds a word of five letters or more one
    /// slip away: two letters swapped ("amterial"), one left out ("vison"),
    /// one too many ("materials" of "matterials"). A rare word one substitution from a
    /// common one ("commute", "compute") is not taken for a typo: that slip is
    /// the one real words make most.
    pub fn misspelt(&self, word: &str) -> bool {
        let lower = word.to_lowercase();
        let known = |w: &str| self.id(w).is_some();
        if !lower.chars().all(|c| c.is_ascii_lowercase()) || known(&lower) || lower.strip_suffix('s').is_some_and(known) {
            return false;
        }
        let letters: Vec<char> = lower.chars().collect();
        let near = |candidate: Vec<char>| candidate.len() >= 5 && known(&candidate.iter().collect::<String>());
        let swapped = (0..letters.len().saturating_sub(1)).any(|i| {
            let mut swap = letters.clone();
            swap.swap(i, i + 1);
            near(swap)
        });
        let extra = (0..letters.len()).any(|i| {
            let mut less = letters.clone();
            less.remove(i);
            near(less)
        });
        // Inside the word: a letter more at its end is an inflection ("commute", "commuter").
        let missing = (1..letters.len()).any(|i| ('a'..='z').any(|c| {
            let mut more = letters.clone();
            more.insert(i, c);
            near(more)
        }));
        swapped || extra || missing
    }

    /// Adds token `id`'s row to `sum`.
    fn add_row(&self, id: usize, sum: &mut [f32]) {
        let row = &self.rows[id * (4 + self.dims)..(id + 1) * (4 + self.dims)];
        let scale = f32::from_le_bytes([row[0], row[1], row[2], row[3]]);
        for (total, &value) in sum.iter_mut().zip(&row[4..]) {
            *total += scale * f32::from(value as i8);
        }
    }

    /// The WordPiece tokens of `text` as the model reads it (lower case,
    /// accents stripped, punctuation apart), by their place in the table;
    /// a word the vocabulary cannot spell is left out (the model's `[UNK]`).
    pub fn token_ids(&self, text: &str) -> Vec<usize> {
        let mut ids = Vec::new();
        for word in basic_words(text) {
            self.word_pieces(&word, &mut ids);
        }
        ids
    }

    /// Greedy longest-match-first WordPiece, as BERT's tokenizer does it.
    fn word_pieces(&self, word: &str, ids: &mut Vec<usize>) {
        if word.chars().count() > MAX_WORD_CHARS {
            return;
        }
        let mut pieces = Vec::new();
        let mut start = 0;
        let mut candidate = String::new();
        while start < word.len() {
            let mut end = word.len();
            let found = loop {
                candidate.clear();
                if start > 0 {
                    candidate.push_str("##");
                }
                candidate.push_str(&word[start..end]);
                if let Some(id) = self.id(&candidate) {
                    break Some(id);
                }
                match word[start..end].char_indices().next_back() {
                    Some((last, _)) if last > 0 => end = start + last,
                    _ => break None,
                }
            };
            match found {
                Some(id) => pieces.push(id),
                None => return,
            }
            start = end;
        }
        ids.extend(pieces);
    }

    /// The meaning of `text`: the sum of its tokens' rows, unit length.
    pub fn meaning(&self, text: &str) -> Meaning {
        let mut sum = vec![0.0f32; self.dims];
        for id in self.token_ids(text) {
            self.add_row(id, &mut sum);
        }
        Meaning::unit(sum)
    }
}

/// BERT's basic tokenizer (uncased): control characters dropped, lower case,
/// accents stripped (canonical decomposition, marks left out), split at white
/// space, and each punctuation mark and CJK ideograph a word of its own.
fn basic_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let flush = |current: &mut String, words: &mut Vec<String>| {
        if !current.is_empty() {
            words.push(std::mem::take(current));
        }
    };
    for c in text.chars().flat_map(char::to_lowercase).nfd() {
        if c.is_whitespace() {
            flush(&mut current, &mut words);
        } else if c == '\0' || c == '\u{fffd}' || c.is_control() || is_combining_mark(c) {
            continue;
        } else if is_punctuation(c) || is_cjk(c) {
            flush(&mut current, &mut words);
            words.push(c.to_string());
        } else {
            current.push(c);
        }
    }
    flush(&mut current, &mut words);
    words
}

/// BERT's punctuation: ASCII's non-alphanumeric printable characters, and
/// (approximately: Unicode's P categories) any other character that is
/// neither a letter, a digit nor a mark.
fn is_punctuation(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_punctuation();
    }
    !c.is_alphanumeric() && !is_combining_mark(c) && !matches!(c, '\u{a2}'..='\u{a9}' | '\u{ae}'..='\u{b0}' | '\u{b4}' | '\u{b8}' | '\u{20a0}'..='\u{20cf}' | '\u{2100}'..='\u{214f}' | '\u{2190}'..='\u{2bff}' | '\u{1f000}'..='\u{1faff}')
}

/// The CJK ideographs BERT reads one by one.
fn is_cjk(c: char) -> bool {
    matches!(c as u32, 0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F | 0x2B740..=0x2B81F | 0x2B820..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

impl Meaning {
    fn unit(mut values: Vec<f32>) -> Meaning {
        let norm = values.iter().map(|v| v * v).sum::<f32>().sqrt();
        if norm > 0.0 {
            values.iter_mut().for_each(|v| *v /= norm);
        }
        Meaning(values)
    }

    /// A meaning from a model's vector (made unit length).
    pub fn from_vector(values: Vec<f32>) -> Meaning {
        Meaning::unit(values)
    }

    /// Its numbers (unit length, or all zeros).
    pub fn values(&self) -> &[f32] {
        &self.0
    }

    /// The mean direction of several meanings (their centroid, unit length).
    pub fn mean<'m>(meanings: impl IntoIterator<Item = &'m Meaning>) -> Meaning {
        let mut sum: Vec<f32> = Vec::new();
        for meaning in meanings {
            if sum.is_empty() {
                sum = vec![0.0; meaning.0.len()];
            }
            sum.iter_mut().zip(&meaning.0).for_each(|(s, v)| *s += v);
        }
        Meaning::unit(sum)
    }

    /// What this meaning says beyond `subject` (the question a sentence
    /// answers): the part of it along `subject` taken out, unit length.
    pub fn apart_from(&self, subject: &Meaning) -> Meaning {
        let along = self.cosine(subject);
        Meaning::unit(self.0.iter().zip(subject.0.iter().chain(std::iter::repeat(&0.0))).map(|(v, s)| v - along * s).collect())
    }

    /// Whether it says anything at all (a text of unknown tokens says nothing).
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|v| *v == 0.0)
    }

    /// How alike two meanings are: their cosine, from -1 to 1 (0 when either is empty).
    pub fn cosine(&self, other: &Meaning) -> f32 {
        // Eight running sums, not one: a single float sum is one chain of
        // dependent adds the compiler may not reorder, and the synthesis takes
        // about a million of these a question. They are eight locals, not an
        // array: a build for size does not unroll the loop over an array's
        // lanes, which then lives in memory (the synthesis took 1.6 times as long).
        const LANES: usize = 8;
        let (a, a_rest) = self.0.as_chunks::<LANES>();
        let (b, b_rest) = other.0.as_chunks::<LANES>();
        let rest: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
        let [mut s0, mut s1, mut s2, mut s3, mut s4, mut s5, mut s6, mut s7] = [0.0f32; LANES];
        for (x, y) in a.iter().zip(b) {
            s0 += x[0] * y[0];
            s1 += x[1] * y[1];
            s2 += x[2] * y[2];
            s3 += x[3] * y[3];
            s4 += x[4] * y[4];
            s5 += x[5] * y[5];
            s6 += x[6] * y[6];
            s7 += x[7] * y[7];
        }
        [s0, s1, s2, s3, s4, s5, s6, s7].iter().sum::<f32>() + rest
    }

    /// As stored: one byte a dimension, the largest component at ±127 (the
    /// cosine does not change with the scale).
    pub fn to_bytes(&self) -> Vec<u8> {
        let largest = self.0.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let scale = if largest > 0.0 { 127.0 / largest } else { 0.0 };
        self.0.iter().map(|v| (v * scale).round().clamp(-127.0, 127.0) as i8 as u8).collect()
    }

    /// The meaning stored by [`Meaning::to_bytes`].
    pub fn from_bytes(bytes: &[u8]) -> Meaning {
        Meaning::unit(bytes.iter().map(|&b| f32::from(b as i8)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<&'static str> {
        let table = table();
        let starts = &vocabulary::TOKEN_STARTS;
        let token = |id: usize| std::str::from_utf8(&table.vocabulary[starts[id] as usize..starts[id + 1] as usize - 1]).unwrap();
        table.token_ids(text).into_iter().map(token).collect()
    }

    #[test]
    fn a_slip_from_a_known_word_is_a_typo_and_a_rare_word_is_not() {
        let table = table();
        for typo in ["amterial", "vison", "expresso"] {
            assert!(table.misspelt(typo), "{typo}");
        }
        for word in ["material", "commute", "brainstorming", "choreography", "metabolites", "Procreate", "2D"] {
            assert!(!table.misspelt(word), "{word}");
        }
    }

    #[test]
    fn words_are_split_as_the_model_reads_them() {
        assert_eq!(tokens("Hypotheses, e.g. Café-owners' résumés!"), ["h", "##yp", "##oth", "##eses", ",", "e", ".", "g", ".", "cafe", "-", "owners", "'", "resume", "##s", "!"]);
        assert_eq!(tokens("I don't   trust\tits output"), ["i", "don", "'", "t", "trust", "its", "output"]);
        assert!(tokens("").is_empty());
    }

    #[test]
    fn sentences_that_say_the_same_are_alike() {
        let table = table();
        let saves = table.meaning("It saves me a lot of time every week.");
        let faster = table.meaning("I get my work done much faster now.");
        let garden = table.meaning("The tomatoes in my garden are ripe.");
        assert!(saves.cosine(&faster) > saves.cosine(&garden) + 0.2, "{} vs {}", saves.cosine(&faster), saves.cosine(&garden));
        let stored = Meaning::from_bytes(&saves.to_bytes());
        assert!((stored.cosine(&saves) - 1.0).abs() < 0.001);
        assert!(table.meaning("").is_empty());
    }
}
