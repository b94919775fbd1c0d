//! The sentences of an interview's answers to one question that the built-in
//! synthesis groups into ideas and quotes from, each with its meaning, its
//! terms and the terms it negates. They are made once per interview and
//! question, after the interview ends (the maintenance run, `embed_pending`),
//! and stored beside its digest (`answer_terms.units`, with the model that
//! made the meanings in `units_by`), so that a synthesis reads them instead
//! of reading and embedding every answer again.
//!
//! A unit is a sentence that can be quoted as it stands and says something
//! (`text::sentences::quotable_spans`) about the question beyond the
//! question's own words: a sentence whose every term the question holds
//! ("This is where AI comes in" to a question about AI) is no unit. Its
//! meaning is what it says beyond the question's subject: the question's own
//! meaning is taken out of it ([`Meaning::apart_from`]), so that answers are
//! grouped by what they say about the question, not by the subject they all
//! name; nothing of what the answers share is taken out, so the majority's
//! idea stays whole.
//!
//! Where the model makes the meanings, each unit also keeps the phrases its
//! idea's label may be ([`Phrase`]): chosen by their meanings in its
//! context, stored with their meanings read alone, as a label is read.

use super::naming;
use std::collections::HashSet;
use projects_core::Language;
use text::lexicon::Lexicon;
use text::vectors::{self, Meaning};
use text::self_description::{self_description, SelfDescription};
use text::{sentences, terms};
use text_enum::text_enum;
use base64::engine::general_purpose::STANDARD_NO_PAD as BASE64;
use base64::Engine;

/// The cosines that decide, for one model's meanings ([`MeaningModel::scale`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scale {
    /// A sentence this close to an idea's centre belongs to it.
    pub joins: f32,
    /// Two ideas whose centres are this close say the same thing.
    pub one_idea: f32,
}

text_enum! {
    /// What made a digest's meanings: the static table compiled into every
    /// component, or all-MiniLM-L6-v2 itself, run by the maintenance run
    /// where the model's files are mounted (docs/design-decisions.md, "The
    /// model's own sentence meanings"). A synthesis never groups the two together.
    pub enum MeaningModel { Table = "table", MiniLm = "all-MiniLM-L6-v2" }
}

impl MeaningModel {
    /// The cosines that decide for this model's meanings (measured on the
    /// planted and the real corpora: docs/synthesis.md).
    pub fn scale(self) -> Scale {
        match self {
            MeaningModel::MiniLm => Scale { joins: 0.53, one_idea: 0.70 },
            MeaningModel::Table => Scale { joins: 0.50, one_idea: 0.80 },
        }
    }

    /// The model's meanings are better than the table's: a digest the table
    /// gave meanings is given the model's where the model runs.
    pub fn rank(self) -> u8 {
        match self {
            MeaningModel::Table => 0,
            MeaningModel::MiniLm => 1,
        }
    }

    /// The models whose meanings this one's replace, in declaration order.
    pub fn lesser(self) -> Vec<MeaningModel> {
        <MeaningModel as text_enum::TextEnum>::NAMES
            .iter()
            .filter_map(|name| MeaningModel::parse(name))
            .filter(|other| other.rank() < self.rank())
            .collect()
    }
}

/// What gives sentences their meanings (unit vectors, one per text, in order).
pub trait Encoder {
    fn model(&self) -> MeaningModel;
    fn encode(&mut self, texts: &[&str]) -> Result<Vec<Meaning>, String>;

    /// Each text's meaning and, where the encoder reads each word in its
    /// sentence (the model: the mean of its tokens' states from the same run),
    /// the meaning of each of its `spans` (bytes of the text; `None` where a
    /// span holds no token). The table reads words alone: no spans' meanings.
    #[allow(clippy::type_complexity)]
    fn encode_in_context(&mut self, texts: &[&str], spans: &[Vec<(usize, usize)>]) -> Result<(Vec<Meaning>, Option<Vec<Vec<Option<Meaning>>>>), String> {
        let _ = spans;
        Ok((self.encode(texts)?, None))
    }
}

/// The static table: on every host, microseconds a sentence.
pub struct TableEncoder;

impl Encoder for TableEncoder {
    fn model(&self) -> MeaningModel {
        MeaningModel::Table
    }

    fn encode(&mut self, texts: &[&str]) -> Result<Vec<Meaning>, String> {
        let table = vectors::table();
        Ok(texts.iter().map(|text| table.meaning(text)).collect())
    }
}

/// The languages whose answers get meanings: those of the models (English).
/// Answers read in another language are grouped by their terms.
pub fn has_meanings(language: Language) -> bool {
    language == Language::En
}

/// One sentence of an answer and what the synthesis knows of it.
#[derive(Debug, Clone, PartialEq)]
pub struct Unit {
    /// The answer's seq in the transcript.
    pub seq: i64,
    /// Its bytes in the answer's text.
    pub start: usize,
    pub end: usize,
    /// What it says beyond the question's subject.
    pub meaning: Meaning,
    /// Its terms, the question's aside, in order.
    pub terms: Vec<String>,
    /// The terms its negations reach (`text::terms::negated_terms`).
    pub negated: Vec<String>,
    /// What it says of who the participant is, where that is all it says
    /// (`text::self_description`): such a sentence is in the participants'
    /// profile, never in a theme.
    pub describes: Option<SelfDescription>,
}

/// A phrase of a unit that could be its idea's label (`naming::label_spans`):
/// kept where the model made the meanings, the [`KEPT_PHRASES`] of each unit
/// whose meanings in the unit's context are most like the unit itself, and
/// stored with the model's meaning of the phrase read alone (a label is read
/// alone: a fragment that borrows its sentence's meaning in context means
/// little on its own) in a column of their own (`answer_terms.phrases`),
/// read only for the sentences labels come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Phrase {
    pub seq: i64,
    /// Its bytes in the answer's text.
    pub start: usize,
    pub end: usize,
    /// What it says beyond the question's subject, read alone.
    pub meaning: Meaning,
}

/// A unit's phrases kept, at most: those most like the sentence say what it
/// says (docs/design-decisions.md, "Labels by the model's meanings").
pub const KEPT_PHRASES: usize = 2;

/// What the maintenance run stores of one interview's answers to a question.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Said {
    pub units: Vec<Unit>,
    /// Empty where the meanings are the table's.
    pub phrases: Vec<Phrase>,
}

/// The units of one interview's answers to `question` (`(seq, text)`), read
/// in `language`, with meanings from `encoder`, and the phrases their labels
/// may come from; none in a language without meanings.
pub fn of_answers(answers: &[(i64, &str)], question: &str, language: Language, encoder: &mut dyn Encoder) -> Result<Said, String> {
    if !has_meanings(language) {
        return Ok(Said::default());
    }
    let lexicon = Lexicon::of(language);
    let question_terms = terms::answer_terms(question, &lexicon);
    let question_stems: HashSet<String> = question_terms.iter().cloned().collect();
    let beyond_question = |found: Vec<String>| -> Vec<String> { found.into_iter().filter(|t| !question_terms.contains(t)).collect() };
    let mut units: Vec<Unit> = Vec::new();
    let mut texts: Vec<&str> = vec![question];
    let mut spans: Vec<Vec<(usize, usize)>> = vec![Vec::new()];
    for &(seq, text) in answers {
        for (start, end) in sentences::quotable_spans(text, language) {
            let sentence = &text[start..end];
            let terms = beyond_question(terms::answer_terms(sentence, &lexicon));
            if terms.is_empty() {
                continue;
            }
            let negated = beyond_question(terms::negated_terms(sentence, &lexicon));
            let describes = self_description(sentence, &question_stems, &lexicon);
            units.push(Unit { seq, start, end, meaning: Meaning::default(), terms, negated, describes });
            texts.push(sentence);
            spans.push(naming::label_spans(sentence, &question_stems, &lexicon).into_iter().map(|s| (s.start, s.end)).collect());
        }
    }
    if units.is_empty() {
        return Ok(Said::default());
    }
    let (meanings, in_context) = encoder.encode_in_context(&texts, &spans)?;
    let mut meanings = meanings.into_iter();
    let subject = meanings.next().unwrap_or_default();
    // As stored (one byte a dimension): a synthesis reads exactly what was written.
    let stored = |meaning: &Meaning| Meaning::from_bytes(&meaning.apart_from(&subject).to_bytes());
    for (unit, meaning) in units.iter_mut().zip(meanings) {
        unit.meaning = stored(&meaning);
    }
    // Which phrases each sentence keeps, by their meanings in its context: (seq, its span in the answer, its text).
    let mut kept_phrases: Vec<(i64, usize, usize, &str)> = Vec::new();
    for (((unit, sentence), spans), meanings) in units.iter().zip(&texts[1..]).zip(&spans[1..]).zip(in_context.into_iter().flatten().skip(1)) {
        if unit.meaning.is_empty() {
            continue;
        }
        let mut kept: Vec<(f32, usize, usize)> = spans
            .iter()
            .zip(meanings)
            .filter_map(|(&(start, end), meaning)| Some((stored(&meaning?).cosine(&unit.meaning), start, end)))
            .collect();
        kept.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
        kept_phrases.extend(kept.iter().take(KEPT_PHRASES).map(|&(_, start, end)| (unit.seq, unit.start + start, unit.start + end, &sentence[start..end])));
    }
    // A label is read alone: the kept phrases carry the model's meanings of them on their own.
    let phrases = match kept_phrases.is_empty() {
        true => Vec::new(),
        false => {
            let texts: Vec<&str> = kept_phrases.iter().map(|&(_, _, _, text)| text).collect();
            let meanings = encoder.encode(&texts)?;
            kept_phrases.iter().zip(meanings).map(|(&(seq, start, end, _), meaning)| Phrase { seq, start, end, meaning: stored(&meaning) }).collect()
        }
    };
    let units = units.into_iter().filter(|unit| !unit.meaning.is_empty()).collect();
    Ok(Said { units, phrases })
}

/// As stored: a line per unit, its seq, start, end, meaning (base64), terms
/// and negated terms (each list joined by commas, `-` when empty; a term
/// holds neither white space nor a comma), and, for a sentence that says who
/// its participant is, `role:<head>` (`+` for a space) or `work` (units stored before profiles
/// existed have none: they read as saying more).
pub fn encode(units: &[Unit]) -> String {
    let list = |terms: &[String]| if terms.is_empty() { "-".to_string() } else { terms.join(",") };
    let lines: Vec<String> = units
        .iter()
        .map(|u| {
            let line = format!("{} {} {}", placed(u.seq, u.start, u.end, &u.meaning), list(&u.terms), list(&u.negated));
            match &u.describes {
                // A role of two words ("creative director") keeps its field one: `+` for the space.
                Some(SelfDescription::Role(head)) => format!("{line} role:{}", head.replace(' ', "+")),
                Some(SelfDescription::Work) => format!("{line} work"),
                None => line,
            }
        })
        .collect();
    lines.join("\n")
}

/// As stored: a line per phrase, its seq, start, end and meaning (base64).
pub fn encode_phrases(phrases: &[Phrase]) -> String {
    let lines: Vec<String> = phrases.iter().map(|p| placed(p.seq, p.start, p.end, &p.meaning)).collect();
    lines.join("\n")
}

/// The phrases stored by [`encode_phrases`]; a line that does not parse is skipped.
pub fn decode_phrases(stored: &str) -> Vec<Phrase> {
    stored
        .lines()
        .filter_map(|line| {
            let (seq, start, end, meaning) = read_placed(&mut line.split(' '))?;
            Some(Phrase { seq, start, end, meaning })
        })
        .collect()
}

/// How a stored line begins, for units and phrases alike: the answer's seq,
/// the span's bytes in it and the meaning (base64).
fn placed(seq: i64, start: usize, end: usize, meaning: &Meaning) -> String {
    format!("{seq} {start} {end} {}", BASE64.encode(meaning.to_bytes()))
}

/// What [`placed`] wrote, from a line's parts.
fn read_placed<'l>(parts: &mut impl Iterator<Item = &'l str>) -> Option<(i64, usize, usize, Meaning)> {
    let seq = parts.next()?.parse().ok()?;
    let start = parts.next()?.parse().ok()?;
    let end = parts.next()?.parse().ok()?;
    let meaning = Meaning::from_bytes(&BASE64.decode(parts.next()?).ok()?);
    Some((seq, start, end, meaning))
}

/// The units stored by [`encode`]; a line that does not parse is skipped.
pub fn decode(stored: &str) -> Vec<Unit> {
    let list = |part: &str| -> Vec<String> {
        match part {
            "-" => Vec::new(),
            terms => terms.split(',').map(String::from).collect(),
        }
    };
    stored
        .lines()
        .filter_map(|line| {
            let mut parts = line.split(' ');
            let (seq, start, end, meaning) = read_placed(&mut parts)?;
            let terms = list(parts.next()?);
            let negated = list(parts.next()?);
            let describes = match parts.next() {
                Some("work") => Some(SelfDescription::Work),
                Some(role) => role.strip_prefix("role:").filter(|head| !head.is_empty()).map(|head| SelfDescription::Role(head.replace('+', " "))),
                None => None,
            };
            Some(Unit { seq, start, end, meaning, terms, negated, describes })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_the_sentences_that_say_something_beyond_the_question() {
        let text = "Yes. It saves me hours every week on invoices!\nasdf qwer zxcv. I don't know. This is where AI comes in.";
        let units = of_answers(&[(3, text)], "Where does AI come in for you?", Language::En, &mut TableEncoder).unwrap().units;
        let found: Vec<&str> = units.iter().map(|u| &text[u.start..u.end]).collect();
        assert_eq!(found, ["It saves me hours every week on invoices!"]);
        assert_eq!(units[0].terms, ["save", "hour", "week", "invoic"]);
        let filler = "and then there was a long story about the weekend, ".repeat(5);
        let long = format!("{filler}but I would not trust its citations, {filler}the end");
        let found: Vec<&str> = sentences::quotable_spans(&long, Language::En).into_iter().map(|(s, e)| &long[s..e]).collect();
        assert!(found.iter().all(|q| q.chars().count() <= sentences::MAX_QUOTE_CHARS), "{found:?}");
        assert!(found.iter().any(|q| q.contains("would not trust its citations")), "{found:?}");
    }

    #[test]
    fn units_round_trip_through_storage() {
        let units = of_answers(
            &[(3, "It saves me hours every week. I don't have any concerns about my job. I'm a Creative Director. My current project involves rotors.")],
            "What do you think of it?",
            Language::En,
            &mut TableEncoder,
        )
        .unwrap()
        .units;
        assert_eq!(units.len(), 4);
        assert_eq!(units[1].negated, ["concern"]);
        let described: Vec<Option<SelfDescription>> = units.iter().map(|u| u.describes.clone()).collect();
        assert_eq!(described, [None, None, Some(SelfDescription::Role("creative director".into())), Some(SelfDescription::Work)]);
        let stored = decode(&encode(&units));
        assert_eq!(stored, units);
        let nothing = of_answers(&[(1, "Das spart mir viel Zeit.")], "Was?", Language::De, &mut TableEncoder).unwrap().units;
        assert!(nothing.is_empty(), "no German model");
    }

    /// The model's way with the table's meanings: a span's meaning in its
    /// sentence leans toward the sentence (the mean of the two); read alone, a
    /// phrase means what the table says of its words.
    struct InContext;

    impl InContext {
        fn in_sentence(text: &str, (start, end): (usize, usize)) -> Meaning {
            let table = vectors::table();
            Meaning::mean([&table.meaning(&text[start..end]), &table.meaning(text)])
        }
    }

    impl Encoder for InContext {
        fn model(&self) -> MeaningModel {
            MeaningModel::MiniLm
        }

        fn encode(&mut self, texts: &[&str]) -> Result<Vec<Meaning>, String> {
            TableEncoder.encode(texts)
        }

        fn encode_in_context(&mut self, texts: &[&str], spans: &[Vec<(usize, usize)>]) -> Result<(Vec<Meaning>, Option<Vec<Vec<Option<Meaning>>>>), String> {
            let in_context = texts.iter().zip(spans).map(|(text, spans)| spans.iter().map(|&span| Some(InContext::in_sentence(text, span))).collect()).collect();
            Ok((self.encode(texts)?, Some(in_context)))
        }
    }

    #[test]
    fn each_unit_keeps_the_label_phrases_most_like_it_in_context_with_their_meanings_read_alone() {
        let question = "What changed for you?";
        let answer = "Honestly it saves me hours every week on invoices. My manager reads every report twice before it goes out.";
        let said = of_answers(&[(5, answer)], question, Language::En, &mut InContext).unwrap();
        assert_eq!(said.units.len(), 2);
        let lexicon = Lexicon::of(Language::En);
        let subject = vectors::table().meaning(question);
        let stored = |meaning: Meaning| Meaning::from_bytes(&meaning.apart_from(&subject).to_bytes());
        for unit in &said.units {
            let sentence = &answer[unit.start..unit.end];
            let kept: Vec<&Phrase> = said.phrases.iter().filter(|p| unit.start <= p.start && p.end <= unit.end).collect();
            assert_eq!(kept.len(), KEPT_PHRASES, "{sentence}: {kept:?}");
            let spans = naming::label_spans(sentence, &HashSet::new(), &lexicon);
            let in_context = |(start, end): (usize, usize)| stored(InContext::in_sentence(sentence, (start - unit.start, end - unit.start))).cosine(&unit.meaning);
            for phrase in &kept {
                assert_eq!(phrase.seq, 5);
                assert!(spans.iter().any(|s| (unit.start + s.start, unit.start + s.end) == (phrase.start, phrase.end)), "{phrase:?}");
                // Stored as read alone, not as in its sentence.
                assert_eq!(phrase.meaning, stored(vectors::table().meaning(&answer[phrase.start..phrase.end])));
                assert_ne!(phrase.meaning, stored(InContext::in_sentence(sentence, (phrase.start - unit.start, phrase.end - unit.start))));
            }
            // None of the sentence's other candidates is more like it in context than the kept ones.
            let least_kept = kept.iter().map(|p| in_context((p.start, p.end))).fold(f32::INFINITY, f32::min);
            for span in &spans {
                let at = (unit.start + span.start, unit.start + span.end);
                assert!(in_context(at) <= least_kept + 1e-6 || kept.iter().any(|p| (p.start, p.end) == at), "{:?}", &sentence[span.start..span.end]);
            }
        }
        assert_eq!(decode_phrases(&encode_phrases(&said.phrases)), said.phrases);
        let table = of_answers(&[(5, answer)], "What changed for you?", Language::En, &mut TableEncoder).unwrap();
        assert!(table.phrases.is_empty(), "the table reads words alone: no meanings in context");
        assert_eq!(table.units, said.units);
    }
}
