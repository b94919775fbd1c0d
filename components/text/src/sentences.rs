//! Quotes: verbatim spans of an interviewee's answer, at most 400 characters.
//!
//! A quote is the whole sentence that holds the theme's word: a sentence is a
//! safe span, since a negation belongs to the sentence it stands in. A sentence
//! longer than 400 characters is cut to its clauses (at commas, semicolons,
//! colons and dashes): the clause with the word, stretched over every clause of
//! the sentence that holds a negation (the interviewer's: `Lexicon::qualifier`),
//! so that "not", "kein" or "jamais" is never cut away from what it denies; when that is still too long, the
//! occurrence gives no quote. The span is taken from the stored text byte for
//! byte: never rewritten, never joined from pieces.

use crate::Language;
use crate::lexicon::{Lexicon, Qualifier};
use crate::{courtesy, noise};
use crate::words;

/// The longest quote, in characters.
pub const MAX_QUOTE_CHARS: usize = 400;

/// Whether `text` holds a negation of its language: what the interviewer's
/// quotes treat as one (`Lexicon::qualifier`: "not", "n't", "kein", "ne … pas",
/// "no", "не", ...; not "not only" or "sin embargo"), or, in Japanese, a
/// negative ending (`問題ない`).
pub fn has_negation(text: &str, language: Language) -> bool {
    let words = words::words(text);
    let lexicon = Lexicon::of(language);
    (0..words.len()).any(|i| lexicon.qualifier(&words, i) == Some(Qualifier::Negation) || lexicon.negated_after(&words, i))
}

/// Whether a sentence asks rather than says: it ends on a question mark of
/// any script (before closing quotes or brackets).
pub fn asks(sentence: &str) -> bool {
    let end = sentence.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ')' | ']' | '”' | '’' | '»' | '」'));
    end.ends_with(['?', '？', '؟'])
}

/// How a text marks where its sentences end: the one splitter reads both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prose {
    /// What people type in an answer: `. ! ? …` end a sentence only before
    /// one that does not open in lower case ("e.g. this" goes on). The
    /// quotes, probes and themes were judged on these boundaries; the brief's
    /// abbreviations and closing quotes would move some (docs/design-decisions.md,
    /// "One text toolkit").
    Answer,
    /// A brief for the project writer, white space collapsed: `;` ends a
    /// sentence too, a sentence may open in lower case (a prompt typed all in
    /// lower case, or one the writer lower-cased from capitals), a full stop
    /// that closes an abbreviation ends none ("e.g. Google", "the U.S.
    /// market"), and closing quotes and brackets stay with the sentence they close.
    Brief,
}

/// Words that end with a full stop inside a sentence ("e.g. Google", "Dr.
/// Smith"). "etc." and "no." are left out: they end sentences as often.
const ABBREVIATIONS: &[&str] = &["e.g", "i.e", "vs", "approx", "incl", "mr", "mrs", "ms", "dr", "st", "ca", "cf", "esp"];

/// Byte ranges of the sentences of an answer, without surrounding white space
/// (see [`Prose::Answer`]).
pub fn sentences(text: &str) -> Vec<(usize, usize)> {
    sentences_of(text, Prose::Answer)
}

/// Byte ranges of the sentences of `text`, without surrounding white space.
/// A sentence ends at a line break, at `。！？؟`, and at `. ! ? …` (with the
/// marks right after it) followed by white space, as [`Prose`] refines.
pub fn sentences_of(text: &str, prose: Prose) -> Vec<(usize, usize)> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut spans = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        i += 1;
        let end = at + c.len_utf8();
        match c {
            '\n' | '\r' => {
                push_trimmed(text, start, at, &mut spans);
                start = end;
                continue;
            }
            '。' | '！' | '？' | '؟' => {
                push_trimmed(text, start, end, &mut spans);
                start = end;
                continue;
            }
            '.' | '!' | '?' | '…' => {}
            ';' if prose == Prose::Brief => {}
            _ => continue,
        }
        let closing = |c: char| matches!(c, '.' | '!' | '?' | '…') || prose == Prose::Brief && matches!(c, '"' | '”' | '\'' | '’' | ')' | ']' | '»');
        while i < chars.len() && closing(chars[i].1) {
            i += 1;
        }
        let cut = chars.get(i).map_or(text.len(), |&(at, _)| at);
        let boundary = match chars.get(i) {
            None => true,
            Some(&(_, next)) if !next.is_whitespace() => false,
            Some(_) => {
                let opens_lower = chars[i..].iter().map(|&(_, n)| n).find(|n| !n.is_whitespace()).is_some_and(char::is_lowercase);
                match prose {
                    Prose::Answer => !opens_lower,
                    Prose::Brief => !(c == '.' && closes_abbreviation(&text[start..at])),
                }
            }
        };
        if boundary {
            push_trimmed(text, start, cut, &mut spans);
            start = cut;
        }
    }
    push_trimmed(text, start, text.len(), &mut spans);
    spans
}

/// Whether the last word of `before` (what precedes a full stop) is an
/// abbreviation: one of [`ABBREVIATIONS`], or letters joined by full stops
/// ("U.S", "a.m", "Ph.D", "z.B"; not "3.5").
fn closes_abbreviation(before: &str) -> bool {
    let word = before.rsplit(char::is_whitespace).next().unwrap_or_default().trim_start_matches(|c: char| !c.is_alphanumeric());
    let lower = word.to_lowercase();
    ABBREVIATIONS.contains(&lower.as_str())
        || (word.contains('.') && word.split('.').all(|part| (1..=2).contains(&part.chars().count()) && part.chars().all(char::is_alphabetic)))
}

fn push_trimmed(text: &str, start: usize, end: usize, spans: &mut Vec<(usize, usize)>) {
    let piece = &text[start..end];
    let trimmed_start = start + (piece.len() - piece.trim_start().len());
    let trimmed_end = end - (piece.len() - piece.trim_end().len());
    if trimmed_start < trimmed_end {
        spans.push((trimmed_start, trimmed_end));
    }
}

/// Byte ranges of the clauses of a sentence `(start, end)` of `text`: cut
/// after `,` `;` `:` `、` and around dashes.
pub fn clauses(text: &str, (start, end): (usize, usize)) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut from = start;
    for (offset, c) in text[start..end].char_indices() {
        if matches!(c, ',' | ';' | ':' | '、' | '，' | '—' | '–') {
            let cut = start + offset + c.len_utf8();
            push_trimmed(text, from, cut, &mut spans);
            from = cut;
        }
    }
    push_trimmed(text, from, end, &mut spans);
    spans
}

fn chars_in(text: &str, (start, end): (usize, usize)) -> usize {
    text[start..end].chars().count()
}

/// The quote around the words at `(start, end)` of `text` (byte offsets): its
/// sentence, or, for a sentence over [`MAX_QUOTE_CHARS`], its clause stretched
/// over the sentence's negations; `None` when no span that keeps them fits.
pub fn quote_span(text: &str, start: usize, end: usize, language: Language) -> Option<(usize, usize)> {
    let sentence = sentences(text).into_iter().find(|&(s, e)| s <= start && end <= e)?;
    if chars_in(text, sentence) <= MAX_QUOTE_CHARS {
        return Some(sentence);
    }
    let clauses = clauses(text, sentence);
    let own = clauses.iter().position(|&(s, e)| s <= start && start < e)?;
    let last = clauses.iter().position(|&(s, e)| s < end && end <= e).unwrap_or(own).max(own);
    let negated: Vec<usize> = (0..clauses.len()).filter(|&i| has_negation(&text[clauses[i].0..clauses[i].1], language)).collect();
    let first = negated.first().map_or(own, |&i| i.min(own));
    let last = negated.last().map_or(last, |&i| i.max(last));
    let span = (clauses[first].0, clauses[last].1);
    (chars_in(text, span) <= MAX_QUOTE_CHARS).then_some(span)
}

/// A quotable span says something when it holds this many content words.
const MIN_CONTENT_WORDS: usize = 2;

/// The spans of `text` that can be quoted as they stand and say something:
/// its sentences that fit a quote (a longer one gives the clauses that do,
/// each with the negations of its sentence: [`quote_span`]), each once, that
/// hold two content words or more and are neither a refusal, keyboard mash,
/// nor a pleasantry (a greeting, thanks, a goodbye, "that's all", a word on
/// the interview itself: `courtesy`), which says nothing about any question.
pub fn quotable_spans(text: &str, language: Language) -> Vec<(usize, usize)> {
    let lexicon = Lexicon::of(language);
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for (start, end) in sentences(text) {
        let candidates = match text[start..end].chars().count() <= MAX_QUOTE_CHARS {
            true => vec![(start, end)],
            false => clauses(text, (start, end))
                .into_iter()
                .filter_map(|(s, e)| quote_span(text, s, e, language))
                .collect(),
        };
        for span in candidates {
            let piece = &text[span.0..span.1];
            let content = words::words(piece).iter().filter(|w| lexicon.is_content(w)).count();
            let says_something = content >= MIN_CONTENT_WORDS
                && !noise::is_gibberish(piece)
                && !noise::declines(piece, language)
                && courtesy::courtesy(piece, language).is_none();
            if says_something && !spans.contains(&span) {
                spans.push(span);
            }
        }
    }
    spans
}

/// Whether every sentence of `answer` is a courtesy (`courtesy`: a greeting,
/// thanks, a goodbye, "that's all"), and it has one.
pub fn only_courtesies(answer: &str, language: Language) -> bool {
    let spans = sentences(answer);
    !spans.is_empty() && spans.iter().all(|&(start, end)| courtesy::courtesy(&answer[start..end], language).is_some())
}

/// Whether `answer` closes what was asked: every sentence of it is a courtesy,
/// and one thanks, says goodbye or says it is done ("No, that's all. Thanks!").
pub fn closes(answer: &str, language: Language) -> bool {
    let kinds: Option<Vec<courtesy::Courtesy>> = sentences(answer).iter().map(|&(start, end)| courtesy::courtesy(&answer[start..end], language)).collect();
    kinds.is_some_and(|kinds| kinds.iter().any(|kind| kind.closes()))
}

/// The byte ranges of `answer`'s sentences that are courtesies: what is never
/// quoted back nor grouped.
pub fn courtesy_spans(answer: &str, language: Language) -> Vec<(usize, usize)> {
    sentences(answer).into_iter().filter(|&(start, end)| courtesy::courtesy(&answer[start..end], language).is_some()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quote<'t>(text: &'t str, word: &str, language: Language) -> Option<&'t str> {
        let start = text.find(word).unwrap();
        quote_span(text, start, start + word.len(), language).map(|(s, e)| &text[s..e])
    }

    fn split(text: &str, prose: Prose) -> Vec<&str> {
        sentences_of(text, prose).into_iter().map(|(s, e)| &text[s..e]).collect()
    }

    #[test]
    fn in_a_brief_abbreviations_and_closing_quotes_stay_with_their_sentence() {
        let brief = "We sell in the U.S. Market shares e.g. Google hold. She said \"no.\" Then Dr. Smith left. Version 3.5. Next";
        assert_eq!(
            split(brief, Prose::Brief),
            ["We sell in the U.S. Market shares e.g. Google hold.", "She said \"no.\"", "Then Dr. Smith left.", "Version 3.5.", "Next"]
        );
        // "etc." and "no." end sentences.
        assert_eq!(split("Forms, fees etc. Then I gave up. I said no. Later", Prose::Brief), ["Forms, fees etc.", "Then I gave up.", "I said no.", "Later"]);
        // An answer keeps the boundaries its quotes were judged on.
        assert_eq!(split("I mean e.g. Google. She said \"no.\" Then", Prose::Answer), ["I mean e.g.", "Google.", "She said \"no.\" Then"]);
    }

    #[test]
    fn an_answer_goes_on_after_a_lower_case_letter_a_brief_does_not() {
        let text = "learn why shoppers leave. ask what would help; and how often. 日本語です。次";
        assert_eq!(split(text, Prose::Answer), ["learn why shoppers leave. ask what would help; and how often.", "日本語です。", "次"]);
        assert_eq!(split(text, Prose::Brief), ["learn why shoppers leave.", "ask what would help;", "and how often.", "日本語です。", "次"]);
        assert_eq!(split("One line\nanother line", Prose::Brief), ["One line", "another line"]);
    }

    #[test]
    fn a_quote_is_the_sentence_of_the_word() {
        let text = "I shop a lot. The shipping cost only appears on the last page! So I left, e.g. yesterday.";
        assert_eq!(quote(text, "shipping", Language::En), Some("The shipping cost only appears on the last page!"));
        assert_eq!(quote(text, "left", Language::En), Some("So I left, e.g. yesterday."));
        assert_eq!(quote("Line one\nshipping is slow", "slow", Language::En), Some("shipping is slow"));
        assert_eq!(quote("配送が遅い。送料が高くない。", "送料", Language::Ja), Some("送料が高くない。"));
    }

    #[test]
    fn a_sentence_that_ends_on_a_question_mark_asks() {
        assert!(asks("Why has the police stop enforcing parking regulations?"));
        assert!(asks("Would it even be \"my\" work then?\""));
        assert!(asks("هل هذا عادل؟") && asks("それは公平ですか？"));
        assert!(!asks("I asked myself why. It was the price.") && !asks("Is it? Yes, it is."));
    }

    #[test]
    fn pleasantries_are_never_quoted() {
        let text = "This was a great conversation, thank you! I believe we've covered everything so far, thank you for your time! The shipping costs were a shock.";
        let quoted: Vec<&str> = quotable_spans(text, Language::En).into_iter().map(|(s, e)| &text[s..e]).collect();
        assert_eq!(quoted, ["The shipping costs were a shock."]);
        let german = "Vielen Dank für das Gespräch! Die Versandkosten waren zu hoch.";
        let quoted: Vec<&str> = quotable_spans(german, Language::De).into_iter().map(|(s, e)| &german[s..e]).collect();
        assert_eq!(quoted, ["Die Versandkosten waren zu hoch."]);
    }

    #[test]
    fn a_long_sentence_keeps_its_negations() {
        let filler = "and then there was a long story about the weekend".repeat(4);
        let text = format!("I would not say, {filler}, that shipping costs matter, {filler}, really");
        let quoted = quote(&text, "shipping", Language::En);
        assert!(quoted.is_none_or(|q| q.contains("not")), "{quoted:?}");
        let text = format!("{filler}, {filler}, the shipping costs were fine, {filler}");
        assert_eq!(quote(&text, "shipping", Language::En), Some("the shipping costs were fine,"));
        let text = format!("{filler}, {filler}, the shipping costs, {filler}, {filler}, do not matter");
        assert_eq!(quote(&text, "shipping", Language::En), None, "the negation is too far to keep: no quote");
    }

    #[test]
    fn negations_per_language() {
        assert!(has_negation("I don't think so", Language::En));
        assert!(has_negation("Das war keine gute Idee", Language::De));
        assert!(has_negation("Je n'ai pas aimé", Language::Fr));
        assert!(has_negation("No me gustó", Language::Es));
        assert!(has_negation("Это не работает", Language::Ru));
        assert!(!has_negation("The shipping was fast", Language::En));
        assert!(has_negation("Writing up is my least favourite part", Language::En));
        assert!(!has_negation("I check it at least twice", Language::En));
    }

    #[test]
    fn an_answer_closes_when_it_only_thanks_says_goodbye_or_is_done() {
        let en = Language::En;
        assert!(closes("No, that's all. Thanks!", en));
        assert!(closes("No, that's it! I enjoyed getting to talk about this, thank you :)", en));
        assert!(closes("Bye!", en));
        assert!(closes("Great conversation. Take care!", en));
        assert!(!closes("Great questions!", en), "says nothing, but does not close");
        assert!(!closes("Hello!", en));
        assert!(!closes("I mostly use it for mixing. Thanks!", en), "an answer, then thanks");
        assert!(!closes("", en));
        assert!(closes("Nein, das war's. Danke!", Language::De));
        assert!(closes("Non, c'est tout. Merci !", Language::Fr));
        assert!(closes("No, eso es todo. ¡Gracias!", Language::Es));
        assert!(closes("No, è tutto. Grazie!", Language::It));
        assert!(closes("以上です。ありがとうございました。", Language::Ja));
        assert!(only_courtesies("Hello!", en) && !only_courtesies("Hello! I make films.", en));
        let answer = "I make films. Thanks for asking!";
        let spans = courtesy_spans(answer, en);
        assert_eq!(spans.iter().map(|&(s, e)| &answer[s..e]).collect::<Vec<_>>(), ["Thanks for asking!"]);
    }

    #[test]
    fn an_english_courtesy_closes_in_any_interview_language() {
        assert!(closes("No, nothing else.", Language::Ar));
        assert!(closes("Thanks, bye!", Language::De));
        assert!(closes("Non, c'est tout. Thanks!", Language::Fr), "one language a sentence");
    }
}
