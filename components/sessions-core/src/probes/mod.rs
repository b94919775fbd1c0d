//! The built-in interviewer's follow-up probes (docs/sessions.md, "The
//! interviewer"): offline and deterministic, on what the interviewee actually said.
//!
//! A probe asks about one thing: it quotes the phrase at the heart of the
//! answer, in the interviewee's own words (in English a whole noun phrase, an
//! activity or what the participant says they do: `text::noun_phrases`, ranked
//! by the sentence vectors; in the other languages a whole phrase with its
//! negation: [`phrase`]), and asks about it in one of seven ways: more about
//! it, a specific instance, a reason, a consequence, a contrast, a worry, a
//! wish. Where the answer gives no cue the way is "more" or an instance, in
//! turn; the others follow what the answer does ([`cues`]), and a cued way that
//! no wording fits the phrase of yields to "more". Each way has several
//! wordings per language (`asking` in `strings.json`), each for the kinds of
//! phrase it reads well with ([`kinds`]), some in the interviewer's own words
//! without a quote; an interview never uses one twice. Two phrases are quoted
//! only where the answer sets them against each other, right by its marker
//! ("rather than"), as a contrast. An answer with nothing to quote ("Yes.")
//! gets a plain probe; an answer that declines ("I don't know", "no",
//! "nothing"), or whose every sentence is a courtesy ("Thanks, bye!",
//! `text::courtesy`), a refusal or, in English, withholds ("My work is
//! confidential") gets none. No probe repeats anything the interviewer already
//! said.

pub mod audit;
pub mod cue_words;
pub mod cues;
pub mod kinds;
#[cfg(any(test, feature = "testing"))]
pub mod replay;

use super::strings::{fill, Asking, InterviewerStrings, Wording};
use projects_core::Language;
use text::lexicon::Lexicon;
use text::audit::negation_dropped_in;
use text::noise;
use text::noun_phrases;
use text::phrase::{self, Named};
use text::sentences::{self, sentences};
use text::vectors::{self, Meaning};
use text::words::{words, Word};
use text_enum::text_enum;
use kinds::PhraseKind;

text_enum! {
    /// How a probe asks about the quoted phrase.
    pub enum ProbeKind {
        More = "more", Instance = "instance", Reason = "reason", Consequence = "consequence", Contrast = "contrast",
        Worry = "worry", Wish = "wish",
    }
}

impl ProbeKind {
    /// The order an interview's probes take, round and round, where the
    /// answer gives no cue ([`cues`]): more about it (where the language has
    /// such wordings), or an example. A reason, what came of it, a contrast, a worry or a wish is asked about
    /// only where the answer judges (and gives no reason), narrates,
    /// compares, worries or wishes: asked of a plain description ("What
    /// changed?", "Why does that matter to you?" after "I write music for
    /// film"), a blind reader finds it ill-fitting.
    pub const ROTATION: [ProbeKind; 2] = [ProbeKind::More, ProbeKind::Instance];

    pub fn wordings(self, asking: &Asking) -> &[Wording] {
        match self {
            ProbeKind::More => &asking.more,
            ProbeKind::Instance => &asking.instance,
            ProbeKind::Reason => &asking.reason,
            ProbeKind::Consequence => &asking.consequence,
            ProbeKind::Contrast => &asking.contrast,
            ProbeKind::Worry => &asking.worry,
            ProbeKind::Wish => &asking.wish,
        }
    }
}

impl Asking {
    /// Every wording of every way.
    pub fn all(&self) -> impl Iterator<Item = &Wording> {
        [&self.more, &self.instance, &self.reason, &self.consequence, &self.contrast, &self.worry, &self.wish].into_iter().flatten()
    }

    /// The wording `message` was written in, and the phrases it quotes.
    pub fn read<'m>(&self, message: &'m str) -> Option<(&Wording, Vec<&'m str>)> {
        self.all().find_map(|wording| wording.read(message).map(|quotes| (wording, quotes)))
    }
}

impl Wording {
    /// What `message` quotes when it is this wording: the phrases where
    /// `{phrase}` and `{other}` stand, none for a wording in the interviewer's own words.
    pub fn read<'m>(&self, message: &'m str) -> Option<Vec<&'m str>> {
        let Some((before, rest)) = self.text.split_once("{phrase}") else { return (message == self.text).then(Vec::new) };
        let inner = message.strip_prefix(before)?;
        let quotes = match rest.split_once("{other}") {
            Some((between, after)) => {
                let (first, second) = inner.strip_suffix(after)?.split_once(between)?;
                vec![first, second]
            }
            None => vec![inner.strip_suffix(rest)?],
        };
        // A quote is a phrase, which holds no punctuation: one that holds the
        // closing quotation mark is another wording's ("“a” and “b”").
        let closing = rest.trim_start().chars().next();
        quotes.iter().all(|quote| !quote.is_empty() && closing.is_none_or(|mark| !quote.contains(mark))).then_some(quotes)
    }

    /// How many phrases of the answer it quotes: 0, 1 or 2.
    pub fn quotes(&self) -> usize {
        self.text.contains("{phrase}") as usize + self.text.contains("{other}") as usize
    }

    fn fits(&self, kind: PhraseKind) -> bool {
        self.fits.is_empty() || self.fits.contains(&kind)
    }
}

/// How many of the phrases at the heart of the answer a probe may fall back
/// on when the best ones would repeat a message.
const PHRASES_TRIED: usize = 3;

/// The English phrases weighed by meaning: all of them, but for an answer
/// long past what a probe follows up.
const WEIGHED_PHRASES: usize = 64;
/// Past this many words a phrase says no more of the answer: a long one is
/// mostly a particular ("time researching different lesson plans").
const MOST_TELLING_WORDS: usize = 3;
/// How much the fit of a phrase's sentence to the question counts for it.
const SENTENCE_WEIGHT: f32 = 0.5;
/// In the other languages, the most salient phrases checked for what may not
/// be quoted (mash, a refusal, a mere cue).
const CHECKED_PHRASES: usize = 12;
/// A phrase's likeness to the whole answer counts more the more words it has
/// (a longer phrase says more of the answer), less than in proportion.
const LENGTH_EXPONENT: f32 = 0.5;
/// How much likeness to the question, and to what an earlier probe quoted,
/// counts against a phrase: the probe should ask about something new.
const QUESTION_WEIGHT: f32 = 0.25;
const PROBED_WEIGHT: f32 = 0.5;
/// A quote that holds this share of a short answer's content words or more is
/// the answer itself: asking about "that" says as much without saying it back.
const WHOLE_ANSWER_SHARE: f64 = 0.8;
/// An answer of this many content words or fewer is short: "that" names it.
const SHORT_ANSWER_CONTENT_WORDS: usize = 3;

/// Where the interview stands when a probe is wanted.
pub struct ProbeContext<'a> {
    /// The language the answer is read in (`text::reading`); the wordings are
    /// `strings`, in the interview's language.
    pub language: Language,
    pub strings: &'a InterviewerStrings,
    /// The research question the answer is to.
    pub question: &'a str,
    /// Every message the interviewer has sent in this interview.
    pub said: Vec<&'a str>,
    /// The probes among them.
    pub earlier_probes: Vec<&'a str>,
}

impl ProbeContext<'_> {
    /// What the research question and the earlier probes already name.
    fn named(&self, lexicon: &Lexicon) -> Named {
        Named {
            by_question: Named::stems_of(lexicon, [self.question]),
            by_probes: Named::stems_of(lexicon, self.earlier_probes.iter().copied()),
        }
    }

    /// The wordings this interview has used already.
    fn used(&self) -> Vec<&Wording> {
        self.said.iter().filter_map(|message| self.strings.asking.read(message)).map(|(wording, _)| wording).collect()
    }

    fn fresh(&self, message: &str) -> bool {
        !self.said.contains(&message)
    }
}

/// The phrases a message may quote back, the one at the heart of the answer
/// first: never keyboard mash nor a refusal ("No idea"), which nobody meant to
/// be asked about, nor a courtesy ("Thanks for the great conversation"), nor a
/// phrase that only marks how the answer goes ("last week", "always"). A
/// phrase that begins inside a run of the answer's words reads as a fragment:
/// it comes after the others, in every language.
fn quotable_phrases<'a>(answer: &'a str, context: &ProbeContext, courtesies: &[(usize, usize)]) -> Vec<&'a str> {
    let lexicon = Lexicon::of(context.language);
    if noise::is_gibberish(answer) {
        return Vec::new();
    }
    let named = context.named(&lexicon);
    let mut phrases = if context.language == Language::En {
        english_phrases(answer, &lexicon, &named)
    } else {
        phrase::telling_phrases(answer, &lexicon, &named)
    };
    // Only the most salient are ever asked about: the rest need no checking. English weighs them all by meaning.
    if context.language != Language::En {
        phrases.truncate(CHECKED_PHRASES);
    }
    phrases.retain(|phrase| {
        let start = offset_in(answer, phrase);
        !courtesies.iter().any(|&(from, to)| from <= start && start < to)
            && !noise::is_gibberish(phrase)
            && !noise::is_refusal(phrase, &lexicon)
            && !cues::is_only_a_cue(phrase, context.language)
    });
    let answer_words = words(answer);
    let fragment: Vec<bool> = phrases.iter().map(|phrase| begins_inside(answer, &answer_words, phrase, &phrases, &lexicon)).collect();
    if context.language == Language::En {
        by_meaning(&mut phrases, &fragment, answer, context);
    } else {
        let mut ranked: Vec<(bool, &str)> = fragment.into_iter().zip(phrases.iter().copied()).collect();
        ranked.sort_by_key(|(fragment, _)| *fragment);
        phrases = ranked.into_iter().map(|(_, phrase)| phrase).collect();
    }
    phrases
}

/// An English answer's noun phrases and activities ([`noun_phrases`]): each
/// a whole phrase a question can ask about, with no word that looks
/// misspelt (`Table::misspelt`: no typo is quoted back), and saying something the research
/// question and the earlier probes have not named. The longer first, as
/// the other languages' salience prefers phrases of two or more words.
fn english_phrases<'a>(answer: &'a str, lexicon: &Lexicon, named: &Named) -> Vec<&'a str> {
    let table = vectors::table();
    let answer_words = words(answer);
    // Each word of the answer is looked at once, however many phrases hold it.
    let misspelt: std::collections::HashSet<&str> = answer_words
        .iter()
        .filter(|word| !word.text.starts_with(char::is_uppercase))
        .filter(|word| word.text.split(['-', '/']).any(|part| table.misspelt(part)))
        .map(|word| word.text)
        .collect();
    let spelt = |text: &str| words(text).iter().all(|word| !misspelt.contains(word.text));
    let new_to_the_interview = |text: &str| {
        let stems: Vec<String> = words(text).iter().filter(|w| lexicon.is_content(w)).map(|w| lexicon.stem(w)).collect();
        !stems.iter().all(|stem| named.by_question.contains(stem) || named.by_probes.contains(stem))
    };
    // In a longer answer a lone noun ("data", "Google") is seldom what it is about: an activity may be.
    let long = words(answer).len() >= LONG_ANSWER_WORDS;
    // A capital tells a name ("Google"), but not at a sentence's start ("Price.").
    let sentence_starts: Vec<usize> = sentences(answer).into_iter().map(|(from, _)| from).collect();
    let lone_noun = |phrase: &noun_phrases::NounPhrase| {
        let lone = words(phrase.text).len() == 1;
        let name = phrase.text.starts_with(char::is_uppercase) && !sentence_starts.contains(&phrase.range.start);
        lone && (name || (long && phrase.form != noun_phrases::Form::Activity))
    };
    let mut phrases: Vec<&str> = noun_phrases::noun_phrases(answer, lexicon)
        .into_iter()
        .filter(|phrase| !lone_noun(phrase))
        .map(|phrase| phrase.text)
        .filter(|text| spelt(text) && new_to_the_interview(text) && !negation_dropped_in(answer, &answer_words, lexicon, text))
        .collect();
    phrases.sort_by_key(|text| words(text).len() < 2);
    phrases
}

/// Words that say the participant may not tell more ("confidential", "I
/// can't share"): a probe never asks about what was withheld, as a person
/// would not.
const WITHHOLDING: [&str; 12] = [
    "confidential", "confidentiality", "nda", "non-disclosure", "can't share", "cannot share", "can't disclose",
    "cannot disclose", "not allowed to share", "go into too much detail", "can't go into", "proprietary",
];

/// The sentences of an English `answer` that withhold something ([`WITHHOLDING`]).
fn withheld_spans(answer: &str, language: Language) -> Vec<(usize, usize)> {
    if language != Language::En {
        return Vec::new();
    }
    let withholds = |text: &str| {
        let lower = text.to_lowercase().replace('’', "'");
        WITHHOLDING.iter().any(|marker| lower.split(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-').any(|w| w == *marker) || (marker.contains(' ') && lower.contains(marker)))
    };
    sentences(answer).into_iter().filter(|&(from, to)| withholds(&answer[from..to])).collect()
}

/// An English answer of this many words or more is long: a lone noun is not its heart.
const LONG_ANSWER_WORDS: usize = 20;

/// Where `part`, a slice of `answer`, begins in it.
fn offset_in(answer: &str, part: &str) -> usize {
    part.as_ptr() as usize - answer.as_ptr() as usize
}

/// Orders English phrases by how much of the answer's meaning they carry that
/// the question and the earlier probes have not named: likeness to the whole
/// answer, less half the greatest likeness to the question or an earlier
/// probe's quote; a `fragment` last, whatever it means. The salience order
/// breaks ties. The sentence vectors are English (docs/design-decisions.md,
/// "Sentence vectors"): other languages keep the salience order.
fn by_meaning(phrases: &mut [&str], fragment: &[bool], answer: &str, context: &ProbeContext) {
    if phrases.len() < 2 {
        return;
    }
    let table = vectors::table();
    let whole = table.meaning(answer);
    let asking = &context.strings.asking;
    let earlier_quotes: Vec<Meaning> = context
        .earlier_probes
        .iter()
        .filter_map(|probe| asking.read(probe))
        .flat_map(|(_, quotes)| quotes)
        .map(|quote| table.meaning(quote))
        .collect();
    let question = table.meaning(context.question);
    // How well each sentence answers the question: a phrase of the sentence that answers it is at its heart.
    let sentence_fit: Vec<((usize, usize), f32)> =
        sentences(answer).into_iter().map(|(from, to)| ((from, to), table.meaning(&answer[from..to]).cosine(&question))).collect();
    let fit_of = |phrase: &str| {
        let start = offset_in(answer, phrase);
        sentence_fit.iter().find(|((from, to), _)| *from <= start && start < *to).map_or(0.0, |(_, fit)| *fit)
    };
    let score = |phrase: &str| {
        let meaning = table.meaning(phrase);
        let probed = earlier_quotes.iter().map(|before| meaning.cosine(before)).fold(0.0, f32::max);
        let length = (words(phrase).len().min(MOST_TELLING_WORDS) as f32).powf(LENGTH_EXPONENT);
        meaning.cosine(&whole) * length - QUESTION_WEIGHT * meaning.cosine(&question) + SENTENCE_WEIGHT * fit_of(phrase)
            - PROBED_WEIGHT * probed
    };
    let weighed = phrases.len().min(WEIGHED_PHRASES);
    let mut scored: Vec<(bool, f32, usize, &str)> =
        phrases[..weighed].iter().enumerate().map(|(rank, phrase)| (fragment[rank], score(phrase), rank, *phrase)).collect();
    scored.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.total_cmp(&a.1)).then(a.2.cmp(&b.2)));
    for (slot, (_, _, _, phrase)) in phrases.iter_mut().zip(scored) {
        *slot = phrase;
    }
}

/// Whether `phrase` begins inside a run of the answer's words rather than
/// where one starts: right after a content word it follows closely ("shop
/// added twelve euros" of "a shoe shop added twelve euros"), or inside
/// another of the answer's `phrases` ("costs at the last step" of "hidden
/// shipping costs at the last step").
fn begins_inside(answer: &str, all: &[Word], phrase: &str, phrases: &[&str], lexicon: &Lexicon) -> bool {
    let span = |p: &str| {
        let start = offset_in(answer, p);
        start..start + p.len()
    };
    let this = span(phrase);
    let after_content = all.iter().position(|word| word.start == this.start).is_some_and(|first| {
        first > 0 && all[first].follows_closely && lexicon.is_content(&all[first - 1]) && lexicon.qualifier(all, first).is_none()
    });
    after_content || phrases.iter().map(|other| span(other)).any(|other| other.start < this.start && this.start < other.end && other.end < this.end)
}

/// The built-in probe on `answer`, or none when the answer declines, says
/// nothing but courtesies ("Thanks, that's all!"), or every probe would repeat a message
/// already sent. It asks about one thing: the phrase at the heart of the
/// answer, in a wording of the way its cues call for that fits the kind of
/// phrase; two phrases only where the answer sets them against each other, as
/// a contrast.
pub fn builtin_probe(answer: &str, context: &ProbeContext) -> Option<String> {
    let lexicon = Lexicon::of(context.language);
    let mut courtesies = sentences::courtesy_spans(answer, context.language);
    courtesies.extend(withheld_spans(answer, context.language));
    // Nothing to ask about: every sentence thanks, says goodbye, withholds or declines ("I don't think so. Take it easy!").
    let answer_sentences = sentences(answer);
    let says_nothing = answer_sentences.iter().all(|&(from, to)| {
        courtesies.iter().any(|&(start, end)| start <= from && to <= end) || noise::is_refusal(&answer[from..to], &lexicon)
    });
    if noise::is_refusal(answer, &lexicon) || says_nothing {
        return None;
    }
    let turn = context.earlier_probes.len();
    let ways = cues::ways_of_asking(answer, context.language, turn);
    let used = context.used();
    let phrases = quotable_phrases(answer, context, &courtesies);
    // The wordings of `way` that quote `quotes` phrases, fit `kind` and this interview has not used.
    let open = |way: ProbeKind, quotes: usize, kind: PhraseKind| -> Vec<&Wording> {
        way.wordings(&context.strings.asking)
            .iter()
            .filter(|wording| wording.quotes() == quotes && wording.fits(kind) && !used.iter().any(|u| std::ptr::eq(*u, *wording)))
            .collect()
    };
    let contrast = (ways.first() == Some(&ProbeKind::Contrast))
        .then(|| contrasted(answer, &phrases, context.language))
        .flatten()
        .and_then(|(first, second)| {
            let kind = kinds::kind_in(answer, first, context.language);
            let wordings = open(ProbeKind::Contrast, 2, kind);
            in_turn(&wordings, first)
                .map(|wording| fill(&fill(&wording.text, "phrase", first), "other", second))
                .find(|text| context.fresh(text))
        });
    let counts = cues::cue_counts(answer, context.language);
    let cued = |way: ProbeKind| cued_by(&counts, way);
    let quoted_in = |way: ProbeKind| {
        phrases
            .iter()
            .take(PHRASES_TRIED)
            .filter(|phrase| !is_whole_answer(phrase, answer, &lexicon))
            // A worry or a wish is asked about a phrase of the sentence that voices it: not "What worries
            // you most about “utmost importance”?" of "… safety concerns, which is of utmost importance".
            .filter(|phrase| !matches!(way, ProbeKind::Worry | ProbeKind::Wish) || gives_cue(sentence_of(answer, &answer_sentences, phrase), way, context.language))
            .find_map(|&phrase| {
                let kind = kinds::kind_in(answer, phrase, context.language);
                in_turn(&open(way, 1, kind), phrase).map(|wording| fill(&wording.text, "phrase", phrase)).find(|text| context.fresh(text))
            })
    };
    // Own words fit every kind: the kind passed is any.
    let own_words_in = |way: ProbeKind| in_turn(&open(way, 0, PhraseKind::Thing), answer).map(|wording| wording.text.clone()).find(|text| context.fresh(text));
    let quoted = || {
        // An answer with nothing to quote ("Yes.", mash) gets a plain probe.
        if phrases.is_empty() {
            return None;
        }
        let short = words(answer).len() < LONG_ANSWER_WORDS;
        let as_such = ways.first().copied().filter(|&way| cued(way) && asked_as_such(way, short));
        let asked_as_cued = as_such.and_then(|way| quoted_in(way).or_else(|| own_words_in(way)));
        // A short answer that the quote would repeat whole is asked about in the interviewer's own words.
        let whole = phrases.first().is_some_and(|phrase| is_whole_answer(phrase, answer, &lexicon));
        let order = yielding_order(&ways, cued);
        let in_quotes = || if whole { None } else { order.iter().find_map(|&way| quoted_in(way)) };
        asked_as_cued.or_else(in_quotes).or_else(|| order.iter().find_map(|&way| own_words_in(way)))
    };
    let plain = || {
        let probes = &context.strings.probes;
        (0..probes.len()).map(|k| probes[(turn + k) % probes.len()].clone()).find(|text| context.fresh(text))
    };
    contrast.or_else(quoted).or_else(plain)
}

/// Whether `text` gives the cue that calls for `way` ([`cues`]).
fn gives_cue(text: &str, way: ProbeKind, language: Language) -> bool {
    cued_by(&cues::cue_counts(text, language), way)
}

/// Whether the cue counts of [`cues::cue_counts`] call for `way`.
fn cued_by(counts: &[usize; 6], way: ProbeKind) -> bool {
    cues::Cue::ALL.iter().zip(counts).any(|(cue, &count)| cue.ask() == way && count > 0)
}

/// The sentence of `answer` (its `sentences`) that `phrase`, a slice of it, stands in.
fn sentence_of<'a>(answer: &'a str, sentences: &[(usize, usize)], phrase: &str) -> &'a str {
    let start = offset_in(answer, phrase);
    sentences.iter().find(|&&(from, to)| from <= start && start < to).map_or(answer, |&(from, to)| &answer[from..to])
}

/// Whether the answer's cued `way` is asked as such, in the interviewer's own
/// words if no quote fits it: a worry, a wish, and a judgement without its
/// reason where it is the whole of a `short` answer (in a longer one the
/// judged thing is seldom the phrase quoted). A generalisation, a narration or
/// a comparison yields to a quote that fits: a blind reader finds "What came of
/// that?" after a description generic, "Tell me more about …" not.
fn asked_as_such(way: ProbeKind, short: bool) -> bool {
    match way {
        ProbeKind::Reason => short,
        _ => matches!(way, ProbeKind::Worry | ProbeKind::Wish),
    }
}

/// `ways` in the order a quote is tried in them: the cued first, then "more",
/// then the rest; an answer that narrates is not asked for an example of what
/// it just told.
fn yielding_order(ways: &[ProbeKind], cued: impl Fn(ProbeKind) -> bool) -> Vec<ProbeKind> {
    let mut order = ways.to_vec();
    order.sort_by_key(|&way| if cued(way) { 0 } else if way == ProbeKind::More { 1 } else { 2 });
    order
}

/// The most words between a contrast marker and a phrase it sets against another.
const MARKER_REACH: usize = 2;

/// Two of `phrases` that the answer sets against each other, in the order it
/// says them: within one sentence, the phrases right before and right after a
/// contrast marker ("editing *rather than* drafting"); where the marker
/// comes first ("*Unlike* image tools, the music plugins…"), the first after
/// it and the most telling after that one.
fn contrasted<'a>(answer: &str, phrases: &[&'a str], language: Language) -> Option<(&'a str, &'a str)> {
    let markers: Vec<Vec<&str>> = cue_words::contrast_markers(language).iter().map(|m| m.split(' ').collect()).collect();
    if markers.is_empty() {
        return None;
    }
    let all = words(answer);
    let span = |p: &str| {
        let start = offset_in(answer, p);
        (start, start + p.len())
    };
    for (from, to) in sentences(answer) {
        let inside = |p: &&&str| {
            let (start, end) = span(p);
            from <= start && end <= to
        };
        for at in (0..all.len()).filter(|&i| from <= all[i].start && all[i].end <= to) {
            let Some(marker) = markers.iter().find(|marker| {
                at + marker.len() <= all.len() && marker.iter().zip(&all[at..]).all(|(part, word)| word.normalized == *part)
            }) else {
                continue;
            };
            let (before, after) = (all[at].start, all[at + marker.len() - 1].end);
            let mut following: Vec<&'a str> = phrases.iter().filter(inside).filter(|p| span(p).0 >= after).copied().collect();
            following.sort_by_key(|p| span(p).0);
            let first_after = following.first().copied();
            let closest_before = phrases.iter().filter(inside).filter(|p| span(p).1 <= before).max_by_key(|p| span(p).1);
            // What the marker sets against each other stands right by it: at most two words between.
            let words_between = |from: usize, to: usize| all.iter().filter(|w| from <= w.start && w.end <= to).count();
            let by_marker = |(earlier, later): (&'a str, &'a str)| {
                words_between(span(earlier).1, before) <= MARKER_REACH && words_between(after, span(later).0) <= MARKER_REACH
            };
            let pair = match closest_before {
                Some(&earlier) => first_after.map(|later| (earlier, later)).filter(|&pair| by_marker(pair)),
                // The marker comes first only where it opens the sentence ("Unlike image tools, …").
                None if words_between(from, before) == 0 => first_after.filter(|first| words_between(after, span(first).0) <= MARKER_REACH).and_then(|first| {
                    let end = span(first).1;
                    phrases.iter().filter(inside).find(|p| span(p).0 > end).map(|&later| (first, later))
                }),
                None => None,
            };
            if pair.is_some() {
                return pair;
            }
        }
    }
    None
}

/// `wordings` in the order a probe on `phrase` tries them: from one that
/// follows from the phrase itself (a stable hash of it), round, so the same
/// answer is always asked alike and different answers spread over the wordings.
fn in_turn<'w>(wordings: &[&'w Wording], phrase: &str) -> impl Iterator<Item = &'w Wording> {
    const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;
    let hash = phrase.bytes().fold(FNV_OFFSET, |hash, byte| (hash ^ u64::from(byte)).wrapping_mul(FNV_PRIME));
    let start = (hash % wordings.len().max(1) as u64) as usize;
    let ordered: Vec<&'w Wording> = wordings.iter().cycle().skip(start).take(wordings.len()).copied().collect();
    ordered.into_iter()
}

/// Whether `phrase` is the answer, or nearly: a short answer (at most
/// [`SHORT_ANSWER_CONTENT_WORDS`] content words) most of whose content words it holds.
fn is_whole_answer(phrase: &str, answer: &str, lexicon: &Lexicon) -> bool {
    let content = |text: &str| words(text).iter().filter(|word| lexicon.is_content(word)).count();
    let (quoted, said) = (content(phrase), content(answer));
    said <= SHORT_ANSWER_CONTENT_WORDS && quoted as f64 >= WHOLE_ANSWER_SHARE * said as f64
}

/// The message that moves on after a rich answer ([`cues::is_rich`]): it names
/// the phrase at the heart of the answer, then asks `next` (the next question
/// or the wrap-up); `None` when there is nothing new to name.
pub fn after_example(answer: &str, next: &str, context: &ProbeContext) -> Option<String> {
    let template = fill(&context.strings.after_example, "question", next);
    quotable_phrases(answer, context, &sentences::courtesy_spans(answer, context.language))
        .into_iter()
        .take(PHRASES_TRIED)
        .map(|phrase| fill(&template, "phrase", phrase))
        .find(|text| context.fresh(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings;
    use text::noise::declines;
    use text_enum::TextEnum;

    fn context<'a>(language: Language, strings: &'a InterviewerStrings, said: &[&'a str]) -> ProbeContext<'a> {
        ProbeContext {
            language,
            strings,
            question: "What makes you abandon a checkout?",
            said: said.to_vec(),
            earlier_probes: said.to_vec(),
        }
    }

    /// The way a probe asks and the phrases it quotes (none in the interviewer's own words).
    fn read<'m>(probe: &'m str, strings: &InterviewerStrings) -> (ProbeKind, Vec<&'m str>) {
        let kinds = ProbeKind::NAMES.iter().map(|name| ProbeKind::parse(name).unwrap());
        kinds
            .flat_map(|kind| kind.wordings(&strings.asking).iter().map(move |wording| (kind, wording)))
            .find_map(|(kind, wording)| wording.read(probe).map(|quotes| (kind, quotes)))
            .unwrap_or_else(|| panic!("{probe:?} is no wording"))
    }

    #[test]
    fn a_probe_quotes_the_answer_and_asks_what_fits_it() {
        let en = strings::for_language("en").interviewer;
        let probe = |answer: &str, earlier: &[&str]| builtin_probe(answer, &context(Language::En, &en, earlier)).unwrap();
        // No cue: more about the phrase at its heart, a whole noun phrase.
        let first = probe("Hidden shipping costs at the last step make me leave.", &[]);
        assert_eq!(read(&first, &en), (ProbeKind::More, vec!["Hidden shipping costs"]));
        let second = probe("Coupon codes and gift cards at checkout, every single time.", &[&first]);
        assert_eq!(read(&second, &en), (ProbeKind::More, vec!["Coupon codes and gift cards"]), "{second}");
        assert_ne!(en.asking.read(&first).unwrap().0.text, en.asking.read(&second).unwrap().0.text, "another wording");
        // A generalisation of an activity is asked for an instance, a short judgement without its reason
        // for the reason, a worry and a wish as such; a generalisation, a narration or a comparison whose
        // way no quote fits yields to "more".
        let ways = [
            ("I always save money by comparing prices on three sites.", ProbeKind::Instance),
            ("I always pay by card at checkout, because the bank covers fraud.", ProbeKind::More),
            ("The extra fees are so frustrating.", ProbeKind::Reason),
            ("Last week we ordered shoes and paid twelve euros for delivery.", ProbeKind::More),
            ("Yesterday I tried comparing prices on three sites.", ProbeKind::More),
            ("The local store was much cheaper than the website.", ProbeKind::More),
            ("I'm worried the card details will leak somewhere, like that breach at a big retailer.", ProbeKind::Worry),
            ("I wish the delivery date showed up before the payment page.", ProbeKind::Wish),
        ];
        for (answer, way) in ways {
            let asked = probe(answer, &[&first]);
            let (kind, quoted) = read(&asked, &en);
            assert_eq!(kind, way, "{answer} → {asked}");
            assert!(quoted.len() <= 1 && quoted.iter().all(|quote| answer.contains(quote)), "{answer} → {asked}");
        }
    }

    #[test]
    fn a_quote_is_never_cut_inside_a_clause_nor_a_typo() {
        let en = strings::for_language("en").interviewer;
        let cases = [
            // What the blind reader marked awkward: a clause cut open, then a stock question.
            ("it got too expensive once the intro discount ended. Forty dollars a week for three meals is more than I spend on groceries for the whole family", "spend on groceries"),
            ("I could skip weeks easily without hunting through the settings", "hunting"),
            ("I would find amterial data sheets for various filaments and have AI go through all of these documents.", "amterial"),
            ("I'm honestly less concerned with AI's presence taking over my job.", "presence taking"),
        ];
        for (answer, never) in cases {
            let asked = builtin_probe(answer, &context(Language::En, &en, &[])).unwrap();
            assert!(!asked.contains(never), "{answer} → {asked}");
            for quote in audit::quoted_phrases(&asked, Language::En) {
                let start = answer.find(&quote).unwrap();
                let (before, after) = (&answer[..start], &answer[start + quote.len()..]);
                assert!(!before.ends_with(char::is_alphanumeric) && !after.starts_with(char::is_alphanumeric), "{answer} → {asked}");
            }
        }
        // A worry denied is no worry.
        let asked = builtin_probe("I'm honestly less concerned with AI's presence taking over my job.", &context(Language::En, &en, &[])).unwrap();
        assert!(!ProbeKind::Worry.wordings(&en.asking).iter().any(|wording| wording.read(&asked).is_some()), "{asked}");
    }

    #[test]
    fn what_is_withheld_closed_or_declined_is_never_probed() {
        let en = strings::for_language("en").interviewer;
        let nothing = [
            "My work is confidential, so I can't share the details.",
            "I think that covers the key points. Thanks!",
            "I don't think so. Take it easy!",
            "Nothing that I can think of at the moment.",
            "No, nothing else.",
        ];
        for answer in nothing {
            assert_eq!(builtin_probe(answer, &context(Language::En, &en, &[])), None, "{answer}");
        }
        // What is withheld is left out; the rest may be asked about.
        let answer = "The project is confidential, so I won't go into too much detail. We used AI for literature screening.";
        let asked = builtin_probe(answer, &context(Language::En, &en, &[])).unwrap();
        assert!(asked.contains("literature screening"), "{asked}");
    }

    #[test]
    fn no_wording_serves_twice_in_an_interview() {
        let en = strings::for_language("en").interviewer;
        let answers = [
            "The extra fees are so frustrating.",
            "Honestly the slow payment page is annoying.",
            "I hate retyping my address on a phone keyboard.",
            "Reviews from other buyers are really useful.",
            "Free returns are important for shoes.",
            "A clear delivery date is essential.",
            "Guest checkout would be great.",
        ];
        let mut said: Vec<String> = Vec::new();
        for answer in answers {
            let earlier: Vec<&str> = said.iter().map(String::as_str).collect();
            let probe = builtin_probe(answer, &context(Language::En, &en, &earlier)).unwrap();
            said.push(probe);
        }
        let wordings: Vec<&Wording> = said
            .iter()
            .filter_map(|probe| en.asking.read(probe).map(|(wording, _)| wording))
            .collect();
        for (i, wording) in wordings.iter().enumerate() {
            assert!(!wordings[..i].iter().any(|earlier| std::ptr::eq(*earlier, *wording)), "{said:#?}");
        }
        // Seven judgements, and the reason way has six wordings: the seventh asks another way or plainly.
        assert!(said.iter().filter(|probe| en.probes.contains(probe)).count() <= 1, "{said:#?}");
    }

    #[test]
    fn a_quote_of_the_whole_answer_is_asked_in_the_interviewers_own_words() {
        let en = strings::for_language("en").interviewer;
        let probe = builtin_probe("The price.", &context(Language::En, &en, &[])).unwrap();
        assert_eq!(read(&probe, &en).1, Vec::<&str>::new(), "{probe}");
        let probe = builtin_probe("The price, because the same shoes cost less in town.", &context(Language::En, &en, &[])).unwrap();
        assert_eq!(read(&probe, &en).1.len(), 1, "{probe}");
    }

    #[test]
    fn in_english_the_quote_is_what_the_answer_is_about() {
        let en = strings::for_language("en").interviewer;
        let question = "How does AI fit into your work?";
        let answer = "I research medieval manuscripts, occasionally photographing extraordinarily fragile parchment, and AI \
                      helps me transcribe the handwriting.";
        let context = ProbeContext { language: Language::En, strings: &en, question, said: Vec::new(), earlier_probes: Vec::new() };
        // The longest words are an aside; what the answer says about the question is elsewhere.
        let lexicon = Lexicon::of(Language::En);
        assert_eq!(phrase::telling_phrases(answer, &lexicon, &context.named(&lexicon))[0], "photographing extraordinarily fragile parchment");
        let probe = builtin_probe(answer, &context).unwrap();
        let quoted = read(&probe, &en).1;
        assert!(quoted == ["research medieval manuscripts"] || quoted == ["handwriting"], "{probe}");
    }

    #[test]
    fn mash_and_refusals_are_never_quoted_back() {
        let en = strings::for_language("en").interviewer;
        for answer in ["asdf qwer zxcv", "jkl jkl jkl", "No idea, sdfgh", "lorem ipsum dolor"] {
            let probe = builtin_probe(answer, &context(Language::En, &en, &[])).unwrap();
            assert!(en.probes.contains(&probe), "{answer:?} got {probe:?}");
        }
        let probe = builtin_probe("No idea, but maybe the hidden fees at checkout.", &context(Language::En, &en, &[])).unwrap();
        assert!(!probe.contains("No idea") && probe.contains("hidden fees"), "{probe}");
    }

    #[test]
    fn a_phrase_is_never_probed_twice_and_no_message_repeats() {
        let en = strings::for_language("en").interviewer;
        let answer = "Hidden shipping costs at the last step.";
        let first = builtin_probe(answer, &context(Language::En, &en, &[])).unwrap();
        let second = builtin_probe(answer, &context(Language::En, &en, &[&first])).unwrap();
        assert!(!second.contains("Hidden shipping costs"), "{second}");
        assert_ne!(first, second);
        // Nothing left to quote and every plain probe said: no probe.
        let mut said = vec![first.as_str(), second.as_str()];
        said.extend(en.probes.iter().map(String::as_str));
        assert_eq!(builtin_probe("Yes.", &context(Language::En, &en, &said)), None);
        assert_eq!(builtin_probe("Yes.", &context(Language::En, &en, &[])).as_deref(), Some(en.probes[0].as_str()));
    }

    #[test]
    fn refusals_are_never_probed_in_any_language() {
        let refusing = [
            (Language::En, "I don't know."), (Language::En, "No."), (Language::En, "Nothing, really."),
            (Language::En, "Not really, no."), (Language::En, "No, nothing else. Thank you!"), (Language::Fr, "Je ne sais pas."),
            (Language::Fr, "Non, rien."), (Language::De, "Weiß nicht."), (Language::De, "Nein, eigentlich nichts."),
            (Language::Es, "No sé."), (Language::Es, "Nada."), (Language::It, "Non lo so."), (Language::Ar, "لا أعرف."),
            (Language::Ru, "Не знаю."), (Language::Ru, "Нет, ничего."), (Language::Ja, "特にありません。"),
            (Language::Ja, "いいえ、わかりません。"), (Language::He, "לא יודע."), (Language::El, "Δεν ξέρω."),
            (Language::El, "Όχι, τίποτα."), (Language::Uk, "Не знаю."), (Language::Uk, "Ні, нічого."),
        ];
        for (language, answer) in refusing {
            assert!(declines(answer, language), "{language}: {answer}");
        }
        let answering = [
            (Language::En, "I don't know, maybe the price?"), (Language::En, "No, the waiting list decided it."),
            (Language::En, "Yes."), (Language::Fr, "Non, c'est le prix."), (Language::Ja, "いいえ、送料が高いからです。"),
            (Language::Ru, "Нет, дело в цене."),
        ];
        for (language, answer) in answering {
            assert!(!declines(answer, language), "{language}: {answer}");
        }
    }

    #[test]
    fn every_language_asks_each_way_in_several_wordings_between_its_own_quotation_marks() {
        let answers = [
            ("en", "Hidden shipping costs make me leave the shop, and then I buy elsewhere."),
            ("fr", "Les frais de livraison cachés me font partir, et j'achète ailleurs."),
            ("de", "Versteckte Versandkosten lassen mich abbrechen, dann kaufe ich woanders."),
            ("es", "Los gastos de envío ocultos me hacen abandonar, y compro en otra tienda."),
            ("it", "Le spese di spedizione nascoste mi fanno rinunciare, e compro altrove."),
            ("ar", "تكاليف الشحن المخفية تجعلني أغادر، ثم أشتري من متجر آخر."),
            ("ru", "Скрытые расходы на доставку заставляют меня уйти, и я покупаю в другом магазине."),
            ("ja", "隠れた送料が最後に出ると、やめてしまいます。そして別の店で買います。"),
            ("he", "עלויות משלוח נסתרות גורמות לי לעזוב, ואז אני קונה בחנות אחרת."),
            ("el", "Τα κρυφά έξοδα αποστολής με κάνουν να φύγω, και αγοράζω από άλλο κατάστημα."),
            ("uk", "Приховані витрати на доставку змушують мене піти, і я купую в іншому магазині."),
        ];
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            let strings = strings::for_language(name).interviewer;
            let cued = !cues::Cue::Judges.words(language).is_empty();
            for kind in ProbeKind::NAMES.iter().map(|name| ProbeKind::parse(name).unwrap()) {
                let wordings = kind.wordings(&strings.asking);
                let needed = if ProbeKind::ROTATION.contains(&kind) || cued { 3 } else { 0 };
                assert!(wordings.len() >= needed, "{name} {kind}: {} wordings", wordings.len());
                assert!(wordings.is_empty() || wordings.iter().any(|w| w.quotes() == 0), "{name} {kind}: none in own words");
                assert!(wordings.iter().all(|w| !strings.probes.contains(&w.text)), "{name} {kind}: a plain probe");
            }
            let (_, answer) = answers.iter().find(|(code, _)| code == name).unwrap();
            for turn in 0..ProbeKind::ROTATION.len() {
                let earlier: Vec<&str> = vec!["…"; turn];
                let context = ProbeContext { language, strings: &strings, question: "?", said: Vec::new(), earlier_probes: earlier };
                let probe = builtin_probe(answer, &context).unwrap();
                let (asked, quoted) = read(&probe, &strings);
                // A way of the rotation that the language has no fitting wording of gives way to the next.
                assert!(ProbeKind::ROTATION.contains(&asked), "{name}: {probe}");
                assert!(quoted.len() == 1 && answer.contains(quoted[0]) && quoted[0].chars().count() >= 2, "{name} turn {turn}: {probe}");
            }
        }
    }
}
