//! An idea's label: a short phrase of its participants' own words that names
//! it ("saves me time", "fear of losing clients").
//!
//! The candidates are the phrases of two to six words of the idea's most
//! representative sentences that a quote could be: inside one clause, never
//! leaving out a negation or modal that reaches them (`text::audit`),
//! beginning on a word that names something (not a generic word like "use"
//! or "new") or on a negation, ending on a word that names something, and
//! naming something beyond the question's own words and generic ones ("AI
//! tools", "AI to be useful" name no idea). A candidate whose polarity is the
//! opposite of its sentences' (it negates a term most of them affirm, or the
//! other way round: "don't have concerns" over "a lot of concerns"; or it
//! holds a negation where most of them hold none) is none.
//! The label is the candidate whose meaning is closest to the sentences the
//! idea is quoted by (its most central ones, which a reader reads the label
//! beside), held back when it is as close to another idea of the question
//! (two themes never read alike), spelled as the answers write it most often.
//! Where the maintenance run had the model, the candidates are the phrases
//! it kept of each sentence (`units::Phrase`), with the model's meanings of
//! them read alone, as a label is read, weighed against the centre of the
//! model's meanings of those sentences. Else (the table's meanings) every candidate
//! is weighed by the table's meaning of its words. Either way it is helped by
//! how many of the idea's interviews use its words, each of its words beyond
//! the question's on its own (a label most of them would agree with:
//! "couldn't use Apple Pay" over "no guest checkout" for sentences most of
//! which are about paying). A request never runs the model.

use super::polarity::Polarity;
use projects_core::Language;
use text::audit::{dropped_qualifier, edge_fault};
use text::lexicon::{Lexicon, Qualifier};
use text::vectors::{self, Meaning};
use text::noun_phrases::noun_phrases_negated_too;
use text::{sentences, terms, words};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Words a label holds, at least and at most.
pub const MIN_LABEL_WORDS: usize = 2;
pub const MAX_LABEL_WORDS: usize = 6;
/// Two labels whose meanings are this alike say the same thing: their ideas are one theme.
pub const ONE_LABEL: f32 = 0.80;
/// A phrase names what an idea's interviews share when on average this share
/// of them use each of its words (the question's aside); else the idea's most
/// representative short sentence is its label.
pub const SHARED_AT_LEAST: f32 = 0.25;
/// Words a sentence that is a label whole holds, at most.
pub const SENTENCE_LABEL_WORDS: usize = 14;
/// The idea's sentences its label is looked for in, at most.
pub const LABEL_SOURCES: usize = 12;
/// How much a label weighed by the table's meanings gains when all of the
/// idea's interviews use each of its words: more than its meaning can (a
/// phrase's likeness to the sentences runs 0.4 to 0.8), for a label is what
/// most of them would agree with: "waiting list" over "waiting list was long"
/// when all three say the first and two the rest.
const SUPPORT_WEIGHT: f32 = 1.0;
/// The same by the model's meanings: as much, for a label names what the
/// theme's sentences share, not the phrase one of them says closest to its
/// centre ("AI to help brainstorm" over "utilize AI for any brainstorming",
/// "checking messages at night" over "sits on the keyboard during meetings").
/// At 0.3 blind readers found most labels fragments of one quote
/// (docs/synthesis.md, "Read blind").
const MODEL_SUPPORT_WEIGHT: f32 = 1.0;
/// How much a label loses per unit it is closer to another idea than to its own (less this margin).
const AMBIGUITY_WEIGHT: f32 = 0.5;
const AMBIGUITY_MARGIN: f32 = 0.05;

/// One sentence of the idea, as its label is looked for in it.
pub struct Source<'t> {
    pub interview: usize,
    pub text: &'t str,
    /// The phrases the maintenance run kept of it (`units::Phrase`), with
    /// the model's meanings of them read alone: bytes of `text`.
    pub phrases: Vec<(usize, usize, Meaning)>,
}

/// What a label is weighed against: the idea's sentences, the most
/// representative first, and their meaning (the table's centre of them).
pub struct Described<'t> {
    pub sources: Vec<Source<'t>>,
    pub centre: Meaning,
    /// The centre of the sentences the idea is quoted by in the meanings that
    /// grouped them (the model's), where its sources' phrases have meanings of that model.
    pub by_model: Option<Meaning>,
}

impl<'t> Described<'t> {
    /// `quoted_centre`: the centre of the sentences the idea is quoted by, by the meanings that grouped them.
    pub fn of(sources: Vec<Source<'t>>, quoted_centre: Meaning) -> Described<'t> {
        let table = vectors::table();
        let meanings: Vec<Meaning> = sources.iter().take(super::MAX_QUOTES).map(|s| table.meaning(s.text)).collect();
        let by_model = sources.iter().take(LABEL_SOURCES).any(|s| !s.phrases.is_empty()).then_some(quoted_centre);
        Described { centre: Meaning::mean(&meanings), sources, by_model }
    }
}

/// A candidate label, keyed by what it says whatever the inflection ([`Span`]).
struct Candidate {
    stems: Vec<String>,
    /// The order it was first found in (the most representative sentence first).
    order: usize,
    /// Its meaning where each of its sentences holds it.
    meanings: Vec<Meaning>,
}

/// A phrase of a sentence that could name an idea: its bytes in the sentence,
/// its stems, and what it says whatever the inflection ("waiting lists" and
/// "waiting list" are one candidate, spelled as most write it).
pub struct Span {
    pub start: usize,
    pub end: usize,
    stems: Vec<String>,
    key: String,
}

/// The phrases of `text` that could name an idea (the rules above that need
/// only the sentence and the question's stems; polarity is weighed against
/// the idea's sentences when its label is chosen), in order.
pub fn label_spans(text: &str, question: &HashSet<String>, lexicon: &Lexicon) -> Vec<Span> {
    // A question's phrases say what its participant asks, not what they hold: "police stop
    // enforcing parking regulations" of "Why has the police stop enforcing parking regulations?".
    if sentences::asks(text) {
        return Vec::new();
    }
    let words = words::words(text);
    let whole = WholePhrases::of(text, &words, lexicon);
    let mut found = Vec::new();
    for first in 0..words.len() {
        for last in first + MIN_LABEL_WORDS - 1..words.len().min(first + MAX_LABEL_WORDS) {
            // A label is a finished phrase: it never takes in the start of
            // another clause ("AI in what people", "music it's a big problem").
            if lexicon.begins_clause(&words, last) || lexicon.opens_clause(&words, last) {
                break;
            }
            // It begins on a word that names something or on a negation ("not reliable"),
            // never on a modal ("would be a book"); it ends on a word that names something.
            let leads = terms::term(&words, first, lexicon).is_some() || lexicon.qualifier(&words, first) == Some(Qualifier::Negation);
            if !leads || terms::term(&words, last, lexicon).is_none() {
                continue;
            }
            // Nor does it stop on a verb whose object follows ("AI to write" of "AI to write
            // stories"), nor before what completes its last word ("the accuracy" of "the accuracy of the model"),
            // nor before an article or possessive that opens it ("AI to help create" of "create the ...").
            if lexicon.leaves_verb_open(&words, last) || lexicon.leaves_complement_open(&words, last) || lexicon.leaves_object_open(&words, last) {
                continue;
            }
            // Never stopping inside a run of content words, as a quote never does: "shipping on a ten"
            // of "a ten euro order", "don't go into painstaking" of "painstaking detail".
            if words.get(last + 1).is_some_and(|next| next.follows_closely && lexicon.is_content(next) && lexicon.qualifier(&words, last + 1).is_none()) {
                continue;
            }
            let (start, end) = (words[first].start, words[last].end);
            if !whole.holds(first, last) {
                continue;
            }
            let terms: Vec<Option<String>> = (first..=last).map(|i| terms::term(&words, i, lexicon)).collect();
            let key: Vec<&str> = terms.iter().zip(&words[first..=last]).map(|(term, word)| term.as_deref().unwrap_or(&word.normalized)).collect();
            let key = key.join(" ");
            let stems: Vec<String> = terms.into_iter().flatten().collect();
            if stems.iter().all(|s| question.contains(s)) {
                continue;
            }
            if edge_fault(&text[start..end], Language::En).is_some() || dropped_qualifier(text, &text[start..end], Language::En).is_some() {
                continue;
            }
            found.push(Span { start, end, stems, key });
        }
    }
    found
}

/// The whole phrases of a sentence (`text::noun_phrases`), that a label never cuts: a label reads alone.
struct WholePhrases<'w> {
    words: &'w [words::Word<'w>],
    /// The noun phrases, activities and doings of the sentence, negated or not, as byte ranges.
    phrases: Vec<(usize, usize)>,
}

impl<'w> WholePhrases<'w> {
    fn of(text: &str, words: &'w [words::Word<'w>], lexicon: &Lexicon) -> WholePhrases<'w> {
        let phrases = noun_phrases_negated_too(text, lexicon).into_iter().map(|p| (p.range.start, p.range.end)).collect();
        WholePhrases { words, phrases }
    }

    /// Whether the words `first..=last` leave every phrase of the sentence
    /// whole, in or out ("saves me time", "don't trust the output"), never
    /// beginning or ending inside one ("novelist and also a freelance
    /// content" of "a freelance content writer", "project involves molecular
    /// rotors" of "my current project"), and are no role (who a participant
    /// is names no idea).
    fn holds(&self, first: usize, last: usize) -> bool {
        let (start, end) = (self.words[first].start, self.words[last].end);
        self.phrases.iter().all(|&(from, to)| !(from < start && start < to) && !(from < end && end < to))
    }
}

/// The label of an idea from its sentences (`described`), or `None` when
/// no phrase of them can be one. `question`: the question's stems;
/// `others`: the question's other ideas. Where the
/// maintenance run kept its sentences' phrases with the model's meanings
/// ([`Source::phrases`]), the label is one of those, weighed by the model's
/// meanings; else any candidate, weighed by the table's.
pub fn label(described: &Described, question: &HashSet<String>, others: &[&Described]) -> Option<String> {
    let lexicon = Lexicon::of(Language::En);
    let sources = &described.sources[..described.sources.len().min(LABEL_SOURCES)];
    let used_by = terms_by_interview(sources, &lexicon);
    let held: Vec<(Vec<String>, Vec<String>)> =
        sources.iter().map(|s| (terms::answer_terms(s.text, &lexicon), terms::negated_terms(s.text, &lexicon))).collect();
    let polarity = SourcePolarity::of(sources, &held);
    let by_model = described.by_model.as_ref();
    let mut candidates: BTreeMap<String, Candidate> = BTreeMap::new();
    // How the sources write each candidate, counted over every phrase of theirs
    // the rules allow (not only those kept), in the order first written.
    let mut written: HashMap<String, Vec<(&str, usize)>> = HashMap::new();
    for source in sources {
        let spans = label_spans(source.text, question, &lexicon);
        for span in &spans {
            let text = &source.text[span.start..span.end];
            let spellings = written.entry(span.key.clone()).or_default();
            match spellings.iter_mut().find(|(s, _)| *s == text) {
                Some((_, count)) => *count += 1,
                None => spellings.push((text, 1)),
            }
        }
        for (span, meaning) in span_meanings(source, spans, by_model.is_some()) {
            if polarity.contradicted_by(&source.text[span.start..span.end], &lexicon) {
                continue;
            }
            let order = candidates.len();
            let candidate = candidates.entry(span.key).or_insert_with(|| Candidate { stems: span.stems, order, meanings: Vec::new() });
            candidate.meanings.push(meaning);
        }
    }
    // The centres, all in one space: the model's where this idea's phrases have its meanings.
    let centre = by_model.unwrap_or(&described.centre);
    let others: Vec<&Meaning> = others
        .iter()
        .filter_map(|other| match by_model {
            Some(_) => other.by_model.as_ref(),
            None => Some(&other.centre),
        })
        .collect();
    let support_weight = match by_model {
        Some(_) => MODEL_SUPPORT_WEIGHT,
        None => SUPPORT_WEIGHT,
    };
    let score = |candidate: &Candidate| {
        let meaning = Meaning::mean(&candidate.meanings);
        let fit = meaning.cosine(centre);
        let support = support(candidate, &used_by, question);
        let closest_other = others.iter().map(|o| meaning.cosine(o)).fold(f32::NEG_INFINITY, f32::max);
        let ambiguity = (closest_other - fit + AMBIGUITY_MARGIN).max(0.0);
        fit + support_weight * support - AMBIGUITY_WEIGHT * ambiguity
    };
    let best = candidates
        .iter()
        .map(|(key, candidate)| (key, (score(candidate), candidate)))
        .max_by(|(_, a), (_, b)| a.0.total_cmp(&b.0).then(b.1.order.cmp(&a.1.order)));
    // A phrase whose words few of the idea's interviews use names one participant's
    // particulars, not what they share: the idea's most representative short sentence does.
    match best.filter(|(_, (_, candidate))| support(candidate, &used_by, question) >= SHARED_AT_LEAST) {
        Some((key, _)) => Some(spelled(&written[key])),
        None => representative_sentence(sources, question, &lexicon).or_else(|| best.map(|(key, _)| spelled(&written[key]))),
    }
}

/// Each span with its meaning: the model's, of the phrases the maintenance run
/// kept that are candidates still (`by_model`), else the table's.
fn span_meanings(source: &Source, spans: Vec<Span>, by_model: bool) -> Vec<(Span, Meaning)> {
    if by_model {
        return spans
            .into_iter()
            .filter_map(|span| {
                let (_, _, meaning) = source.phrases.iter().find(|(start, end, _)| (*start, *end) == (span.start, span.end))?;
                Some((span, meaning.clone()))
            })
            .collect();
    }
    let table = vectors::table();
    spans
        .into_iter()
        .map(|span| {
            let meaning = table.meaning(&source.text[span.start..span.end]);
            (span, meaning)
        })
        .collect()
}

/// The spelling written most often; the first written on a tie.
fn spelled(spellings: &[(&str, usize)]) -> String {
    spellings.iter().fold(&spellings[0], |best, s| if s.1 > best.1 { s } else { best }).0.to_string()
}

/// The most representative sentence of an idea that is short enough to be
/// its label whole: the first of its interview (the one its quotes show), of
/// at most [`SENTENCE_LABEL_WORDS`] words, asking nothing and naming
/// something beyond the question's words.
fn representative_sentence(sources: &[Source], question: &HashSet<String>, lexicon: &Lexicon) -> Option<String> {
    let mut seen: Vec<usize> = Vec::new();
    for source in sources.iter().take(super::MAX_QUOTES * 2) {
        if seen.contains(&source.interview) {
            continue;
        }
        seen.push(source.interview);
        if seen.len() > super::MAX_QUOTES {
            break;
        }
        // It names something beyond the question's words, as any label does.
        let names = terms::answer_terms(source.text, lexicon).iter().any(|term| !question.contains(term));
        if names && words::words(source.text).len() <= SENTENCE_LABEL_WORDS && !sentences::asks(source.text) {
            return Some(source.text.to_string());
        }
    }
    None
}

/// How an idea's sentences hold their terms ([`Polarity`]), and whether most
/// of them negate at all.
struct SourcePolarity<'t> {
    terms: Polarity<'t>,
    mostly_negated: bool,
}

impl<'t> SourcePolarity<'t> {
    /// `held`: each source's terms and negated terms, in order.
    fn of(sources: &[Source], held: &'t [(Vec<String>, Vec<String>)]) -> SourcePolarity<'t> {
        let negating = sources.iter().filter(|s| sentences::has_negation(s.text, Language::En)).count();
        SourcePolarity {
            terms: Polarity::of(held.iter().map(|(terms, negated)| (terms.as_slice(), negated.as_slice()))),
            mostly_negated: negating * 2 > sources.len(),
        }
    }

    /// Whether `phrase` negates a term the sentences mostly affirm, or affirms
    /// one they mostly negate, or holds a negation where most of them hold none
    /// ("can't see the shipping price" names no idea of sentences that say
    /// what shipping costs).
    fn contradicted_by(&self, phrase: &str, lexicon: &Lexicon) -> bool {
        if !self.mostly_negated && sentences::has_negation(phrase, Language::En) {
            return true;
        }
        self.terms.at_odds(&terms::answer_terms(phrase, lexicon), &terms::negated_terms(phrase, lexicon))
    }
}

/// The share of the idea's interviews (`used_by`) that use a word of the
/// candidate, averaged over its words beyond the question's: the interviews
/// each say the idea in words of their own, so a label whose every word only
/// one of them uses names one participant's sentence, and one whose words
/// many of them use names what they share.
fn support(candidate: &Candidate, used_by: &[(usize, HashSet<String>)], question: &HashSet<String>) -> f32 {
    let own: Vec<&String> = candidate.stems.iter().filter(|stem| !question.contains(*stem)).collect();
    let uses: usize = own.iter().map(|stem| used_by.iter().filter(|(_, stems)| stems.contains(*stem)).count()).sum();
    uses as f32 / (own.len() * used_by.len()).max(1) as f32
}

/// The terms of `sources`, per interview (in the order they first come).
fn terms_by_interview(sources: &[Source], lexicon: &Lexicon) -> Vec<(usize, HashSet<String>)> {
    let mut by_interview: Vec<(usize, HashSet<String>)> = Vec::new();
    for source in sources {
        let words = words::words(source.text);
        let found = (0..words.len()).filter_map(|i| terms::term(&words, i, lexicon));
        match by_interview.iter_mut().find(|(interview, _)| *interview == source.interview) {
            Some((_, all)) => all.extend(found),
            None => by_interview.push((source.interview, found.collect())),
        }
    }
    by_interview
}

/// What a label says, for telling two apart: the stems of its terms, sorted.
pub fn label_stems(label: &str) -> Vec<String> {
    let lexicon = Lexicon::of(Language::En);
    let words = words::words(label);
    let mut stems: Vec<String> = (0..words.len()).filter_map(|i| terms::term(&words, i, &lexicon)).collect();
    stems.sort_unstable();
    stems.dedup();
    stems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn described<'t>(texts: &[(usize, &'t str)]) -> Described<'t> {
        Described::of(texts.iter().map(|&(interview, text)| Source { interview, text, phrases: Vec::new() }).collect(), Meaning::default())
    }

    fn stems(words: &[&str]) -> HashSet<String> {
        let lexicon = Lexicon::of(Language::En);
        words.iter().map(|w| lexicon.stem(&words::words(w)[0])).collect()
    }

    #[test]
    fn a_label_never_cuts_a_phrase_and_one_participants_particulars_give_the_sentence() {
        // The creatives' "novelist and also a freelance content" of "a freelance content writer".
        let idea = described(&[
            (0, "I'm a novelist and also a freelance content writer."),
            (1, "Most of my income comes from freelance content writing."),
            (2, "I do freelance content writing for small companies."),
        ]);
        let named = label(&idea, &stems(&["AI"]), &[]).unwrap();
        assert!(!named.ends_with("freelance content"), "{named}");
        // The scientists' "project involves molecular rotors": one participant's research, in no
        // other's words, is no label; the most representative short sentence is, whole.
        let idea = described(&[
            (0, "It mostly helps me find papers I would have missed."),
            (1, "My current project involves molecular rotors."),
            (2, "It finds relevant literature faster than I could."),
        ]);
        let named = label(&idea, &stems(&["AI"]), &[]).unwrap();
        assert!(!named.contains("molecular rotors"), "{named}");
        assert!(named.split_whitespace().count() <= MAX_LABEL_WORDS || idea.sources.iter().any(|s| s.text == named), "{named}");
    }

    #[test]
    fn the_label_is_a_phrase_of_the_answers_that_names_the_idea() {
        let idea = described(&[
            (0, "Honestly, it saves me so much time on emails."),
            (1, "It saves me time with the boring admin work."),
            (2, "The biggest thing is that it saves me time every day."),
        ]);
        let label = label(&idea, &HashSet::new(), &[]).unwrap();
        assert!(label.contains("saves me") && label.contains("time"), "{label}");
        let words = label.split_whitespace().count();
        assert!((MIN_LABEL_WORDS..=MAX_LABEL_WORDS).contains(&words), "{label}");
    }

    #[test]
    fn a_label_never_drops_a_negation_nor_echoes_the_question() {
        let idea = described(&[(0, "I don't trust the output at all."), (1, "I don't trust the output of these tools.")]);
        let label = label(&idea, &HashSet::new(), &[]).unwrap();
        assert!(!label.contains("trust") || label.starts_with("don't"), "{label}");
        let echo = super::label(&idea, &stems(&["trust", "output"]), &[]);
        assert!(echo.as_deref().is_none_or(|l| !l.ends_with("output")), "{echo:?}");
    }

    #[test]
    fn a_label_never_says_the_opposite_of_its_sentences() {
        let idea = described(&[
            (0, "I don't have concerns about my job."),
            (1, "I have a lot of concerns about job losses."),
            (2, "There are real concerns about jobs disappearing."),
            (3, "My concerns are about people losing their jobs."),
        ]);
        let label = label(&idea, &stems(&["AI"]), &[]).unwrap();
        assert!(!label.contains("don't"), "{label}");
        // Nor is it a phrase of a question, which asks what the others say (Bowling Green's).
        let idea = described(&[
            (0, "Why has the police stop enforcing parking regulations?"),
            (1, "Parking lots should be monitored by the police."),
            (2, "The police need to enforce the parking law."),
        ]);
        let named = super::label(&idea, &stems(&["city"]), &[]).unwrap();
        assert!(!named.contains("stop"), "{named}");
        // Nor leaves out the "least" that turns its words around (the scientists').
        let idea = described(&[
            (0, "This is my least favourite part of doing research."),
            (1, "Writing up my research is my least favourite part."),
            (2, "The favourite part of research is not the write-up."),
        ]);
        let named = super::label(&idea, &stems(&["AI"]), &[]);
        assert!(named.as_deref().is_none_or(|l| !l.starts_with("favourite")), "{named:?}");
    }

    #[test]
    fn a_label_is_a_finished_phrase() {
        // Verbs left without their object, clauses cut halfway: the creatives' and scientists' answers.
        let idea = described(&[
            (0, "I'm super concerned about the use of AI to write stories and design characters."),
            (1, "People use AI to write stories now, and that worries me."),
            (2, "Some studios already use AI to write stories for games."),
        ]);
        let named = label(&idea, &stems(&["AI"]), &[]).unwrap();
        assert!(!named.ends_with("to write"), "{named}");
        assert!(named.contains("write stories"), "{named}");
        let idea = described(&[
            (0, "I worry about AI in what people think of as art."),
            (1, "AI changes what people think art is."),
            (2, "With music it's a big problem already."),
        ]);
        let named = label(&idea, &stems(&["AI"]), &[]);
        let cut = ["what", "it's", "which", "that"];
        assert!(named.as_deref().is_none_or(|l| l.split_whitespace().all(|w| !cut.contains(&w))), "{named:?}");
        // Nor stops before the noun its last word describes (the scientists': "manuals themselves don't go into painstaking").
        let idea = described(&[
            (0, "Even instrument manuals don't go into painstaking detail."),
            (1, "The manuals never go into painstaking detail about troubleshooting."),
        ]);
        let named = label(&idea, &stems(&["AI"]), &[]);
        assert!(named.as_deref().is_none_or(|l| !l.ends_with("painstaking")), "{named:?}");
        // Nor stops before the article that opens its verb's object (the creatives': "AI to help create").
        let idea = described(&[
            (0, "I use generative tools to help create the first drafts of my mood boards."),
            (1, "Generative tools help create the rough layout before I paint."),
        ]);
        let named = label(&idea, &stems(&["AI"]), &[]);
        assert!(named.as_deref().is_none_or(|l| !l.ends_with("help create")), "{named:?}");
        // Nor before the pronoun that is its verb's object (the scientists': "AI is very useful for helping").
        let idea = described(&[
            (0, "I think AI is very useful for helping me write the tools to process my data."),
            (1, "AI is very useful for helping us clean the data."),
        ]);
        let named = label(&idea, &stems(&["AI"]), &[]);
        assert!(named.as_deref().is_none_or(|l| !l.ends_with("helping")), "{named:?}");
    }

    #[test]
    fn the_label_names_what_most_of_the_sentences_say() {
        // The planted checkout corpus's payment idea, as the model places its first
        // twenty interviews: an account sentence and a stray one among them.
        let idea = described(&[
            (0, "I couldn't use Apple Pay on their site."),
            (1, "They only took credit cards and I wanted to pay with PayPal."),
            (2, "No option to pay by invoice, so I left."),
            (3, "No guest checkout."),
            (4, "The site was so sluggish that the page timed out."),
        ]);
        let named = label(&idea, &stems(&["makes", "abandon", "online", "checkout"]), &[]).unwrap();
        assert!(named.to_lowercase().contains("pay"), "{named}");
    }

    #[test]
    fn with_the_models_meanings_the_label_is_the_kept_phrase_closest_to_the_idea() {
        // The model's meanings as the maintenance run keeps them: the idea's centre is
        // the second phrase's meaning, which the table alone would not choose.
        let axis = |k: usize| Meaning::from_vector((0..8).map(|i| if i == k { 1.0 } else { 0.1 }).collect());
        let text = "My manager reads every report twice before it goes out.";
        let phrase = |words: &str, meaning: Meaning| {
            let start = text.find(words).unwrap();
            (start, start + words.len(), meaning)
        };
        let source = |phrases| Source { interview: 0, text, phrases };
        let kept = vec![phrase("manager reads every report twice", axis(1)), phrase("report twice", axis(2))];
        let idea = Described::of(vec![source(kept.clone())], axis(2));
        assert_eq!(label(&idea, &HashSet::new(), &[]).as_deref(), Some("report twice"));
        let other = Described::of(vec![source(kept)], axis(1));
        assert_eq!(label(&other, &HashSet::new(), &[]).as_deref(), Some("manager reads every report twice"));
        // A kept phrase the label rules no longer allow (it ends before the noun its last word
        // describes) is none: with no phrase left, the idea's sentence is its label whole.
        let cut = Described::of(vec![source(vec![phrase("reads every", axis(2))])], axis(2));
        assert_eq!(label(&cut, &HashSet::new(), &[]).as_deref(), Some(text));
        // Nor one that negates what the idea's sentences affirm.
        let said = ["I don't trust its summaries.", "I trust its summaries.", "Honestly, I trust its summaries."];
        let sources: Vec<Source> = said
            .iter()
            .enumerate()
            .map(|(interview, text)| {
                let words = if interview == 0 { "don't trust its summaries" } else { "trust its summaries" };
                let start = text.find(words).unwrap();
                Source { interview, text, phrases: vec![(start, start + words.len(), axis(3 + interview.min(1)))] }
            })
            .collect();
        assert_eq!(label(&Described::of(sources, axis(3)), &HashSet::new(), &[]).as_deref(), Some("trust its summaries"));
        // Read alone, one participant's vivid phrase may come closest to the idea; the words
        // most of its interviews use name it (the planted remote-work study's).
        let said = [
            ("I keep checking messages late at night.", "checking messages late at night", vec![0.8, 0.0, 0.6]),
            ("The cat sits on the keyboard during meetings and I still check messages.", "sits on the keyboard during meetings", vec![0.9, 0.436, 0.0]),
            ("Checking messages at night has become a habit.", "Checking messages at night", vec![0.7, 0.0, 0.714]),
        ];
        let sources: Vec<Source> = said
            .iter()
            .enumerate()
            .map(|(interview, (text, words, meaning))| {
                let start = text.find(words).unwrap();
                Source { interview, text, phrases: vec![(start, start + words.len(), Meaning::from_vector(meaning.clone()))] }
            })
            .collect();
        let centre = Meaning::from_vector(vec![1.0, 0.0, 0.0]);
        assert_eq!(label(&Described::of(sources, centre), &HashSet::new(), &[]).as_deref(), Some("Checking messages at night"), "the words all three use");
    }

    #[test]
    fn one_phrase_in_several_inflections_is_one_candidate_spelled_as_most_write_it() {
        // The daycare example of docs/synthesis.md, with the model's meanings; the
        // third sentence's kept phrase is another, yet it writes "waiting list" too.
        let centre = Meaning::from_vector(vec![1.0, 0.2, 0.0]);
        let aside = Meaning::from_vector(vec![0.0, 0.0, 1.0]);
        let said = [
            ("The waiting lists were over a year long everywhere we asked.", "waiting lists", &centre),
            ("Honestly the waiting list.", "waiting list", &centre),
            ("Opening hours did not fit our shifts, and the waiting list was long.", "Opening hours", &aside),
        ];
        let sources = said
            .iter()
            .enumerate()
            .map(|(interview, (text, phrase, meaning))| {
                let start = text.find(phrase).unwrap();
                Source { interview, text, phrases: vec![(start, start + phrase.len(), (*meaning).clone())] }
            })
            .collect();
        assert_eq!(label(&Described::of(sources, centre.clone()), &HashSet::new(), &[]).as_deref(), Some("waiting list"));
    }

    #[test]
    fn a_generic_phrase_names_no_idea() {
        let idea = described(&[(0, "AI tools are useful."), (1, "Honestly AI tools are so useful.")]);
        assert_eq!(label(&idea, &stems(&["AI"]), &[]), None);
    }
}
