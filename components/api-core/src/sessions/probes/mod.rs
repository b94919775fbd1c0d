//! The built-in interviewer's follow-up probes (docs/sessions.md, "The
//! interviewer"): offline and deterministic, on what the interviewee actually said.
//!
//! A probe quotes the answer's most telling phrase ([`phrase`]: a whole
//! phrase, in the interviewee's own words, with its negation) and asks about it
//! in one of four ways: a specific instance, a reason, a consequence, a contrast
//! (`quoted_probes` in `strings.json`: each language's template puts the phrase
//! between its quotation marks, so any phrase reads grammatically). The way
//! follows what the answer does ([`cues`]), equals taken in turn through the
//! interview. An answer with nothing to quote ("Yes.") gets a plain probe; an
//! answer that declines ("I don't know", "no", "nothing") gets none. No probe
//! repeats anything the interviewer already said.

pub mod audit;
pub mod cue_words;
pub mod cues;
#[cfg(test)]
pub(crate) mod replay;

use super::strings::{fill, InterviewerStrings, QuotedProbes};
use crate::projects::Language;
use crate::text_enum;
use crate::text::lexicon::Lexicon;
use crate::text::phrase::{self, Named};
use crate::text::noise;

text_enum! {
    /// How a probe asks about the quoted phrase.
    pub enum ProbeKind { Instance = "instance", Reason = "reason", Consequence = "consequence", Contrast = "contrast" }
}

impl ProbeKind {
    /// The order an interview's probes take, round and round, where the
    /// answer gives no cue ([`cues`]).
    pub const ROTATION: [ProbeKind; 4] = [ProbeKind::Instance, ProbeKind::Reason, ProbeKind::Consequence, ProbeKind::Contrast];

    fn template(self, templates: &QuotedProbes) -> &str {
        match self {
            ProbeKind::Instance => &templates.instance,
            ProbeKind::Reason => &templates.reason,
            ProbeKind::Consequence => &templates.consequence,
            ProbeKind::Contrast => &templates.contrast,
        }
    }
}

/// How many of the most telling phrases a probe may fall back on when the
/// best ones would repeat a message.
const PHRASES_TRIED: usize = 3;

/// Where the interview stands when a probe is wanted.
pub struct ProbeContext<'a> {
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
}

/// The answer's most telling phrases that a message may quote back: never
/// keyboard mash nor a refusal ("No idea"), which nobody meant to be asked about.
fn quotable_phrases<'a>(answer: &'a str, lexicon: &Lexicon, named: &Named) -> Vec<&'a str> {
    if noise::is_gibberish(answer) {
        return Vec::new();
    }
    let mut phrases = phrase::telling_phrases(answer, lexicon, named);
    phrases.retain(|phrase| !noise::is_gibberish(phrase) && !noise::is_refusal(phrase, lexicon));
    phrases
}

/// The built-in probe on `answer`, or none when the answer declines or every
/// probe would repeat a message already sent.
pub fn builtin_probe(answer: &str, context: &ProbeContext) -> Option<String> {
    let lexicon = Lexicon::of(context.language);
    if noise::is_refusal(answer, &lexicon) {
        return None;
    }
    let fresh = |text: &String| !context.said.contains(&text.as_str());
    let named = context.named(&lexicon);
    let turn = context.earlier_probes.len();
    let kinds = cues::ways_of_asking(answer, context.language, turn);
    let quoted = quotable_phrases(answer, &lexicon, &named)
        .into_iter()
        .take(PHRASES_TRIED)
        .flat_map(|phrase| kinds.iter().map(move |kind| fill(kind.template(&context.strings.quoted_probes), "phrase", phrase)))
        .find(fresh);
    let plain = || {
        let probes = &context.strings.probes;
        (0..probes.len()).map(|k| probes[(turn + k) % probes.len()].clone()).find(fresh)
    };
    quoted.or_else(plain)
}

/// The message that moves on after a rich answer ([`cues::is_rich`]): it names
/// the answer's most telling phrase, then asks `next` (the next question or the
/// wrap-up); `None` when there is nothing new to name.
pub fn after_example(answer: &str, next: &str, context: &ProbeContext) -> Option<String> {
    let lexicon = Lexicon::of(context.language);
    let named = context.named(&lexicon);
    let template = fill(&context.strings.after_example, "question", next);
    quotable_phrases(answer, &lexicon, &named)
        .into_iter()
        .take(PHRASES_TRIED)
        .map(|phrase| fill(&template, "phrase", phrase))
        .find(|text| !context.said.contains(&text.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sessions::strings;
    use crate::text::noise::declines;
    use crate::text_enum::TextEnum;

    fn context<'a>(language: Language, strings: &'a InterviewerStrings, said: &[&'a str]) -> ProbeContext<'a> {
        ProbeContext {
            language,
            strings,
            question: "What makes you abandon a checkout?",
            said: said.to_vec(),
            earlier_probes: said.to_vec(),
        }
    }

    #[test]
    fn a_probe_quotes_the_answer_and_asks_what_fits_it() {
        let en = strings::for_language("en").interviewer;
        let probe = |answer: &str, earlier: &[&str]| builtin_probe(answer, &context(Language::En, &en, earlier)).unwrap();
        // No cue: the rotation, instance then reason.
        let first = probe("Hidden shipping costs at the last step make me leave.", &[]);
        assert_eq!(first, "You mentioned “Hidden shipping costs”. Can you tell me about a specific time when that came up?");
        let second = probe("Coupon codes and gift cards.", &[&first]);
        assert_eq!(second, "You said “Coupon codes”. What makes that matter to you?");
        // Generalises, judges, narrates, compares: the fitting way, whatever the turn.
        assert!(probe("I always pay by card at checkout.", &[&first]).ends_with("specific time when that came up?"));
        assert!(probe("The extra fees are so frustrating.", &[]).ends_with("What makes that matter to you?"));
        assert!(probe("Last week we ordered shoes and paid twelve euros for delivery.", &[]).ends_with("What did that lead to for you?"));
        assert!(probe("The local store was much cheaper than the website.", &[]).ends_with("other experiences you have had?"));
    }

    #[test]
    fn mash_and_refusals_are_never_quoted_back() {
        let en = strings::for_language("en").interviewer;
        for answer in ["asdf qwer zxcv", "jkl jkl jkl", "No idea, sdfgh", "lorem ipsum dolor"] {
            let probe = builtin_probe(answer, &context(Language::En, &en, &[])).unwrap();
            assert!(en.probes.contains(&probe), "{answer:?} got {probe:?}");
        }
        let probe = builtin_probe("No idea, but the hidden fees annoyed me.", &context(Language::En, &en, &[])).unwrap();
        assert!(!probe.contains("No idea") && probe.contains("hidden fees"), "{probe}");
    }

    #[test]
    fn a_phrase_is_never_probed_twice_and_no_message_repeats() {
        let en = strings::for_language("en").interviewer;
        let answer = "Hidden shipping costs.";
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
            (Language::En, "Not really, no."), (Language::En, "No, nothing else. Thank you!"), (Language::Fr, "Je ne sais pas."), (Language::Fr, "Non, rien."),
            (Language::De, "Weiß nicht."), (Language::De, "Nein, eigentlich nichts."), (Language::Es, "No sé."),
            (Language::Es, "Nada."), (Language::It, "Non lo so."), (Language::Ar, "لا أعرف."), (Language::Ru, "Не знаю."),
            (Language::Ru, "Нет, ничего."), (Language::Ja, "特にありません。"), (Language::Ja, "いいえ、わかりません。"),
            (Language::He, "לא יודע."), (Language::El, "Δεν ξέρω."), (Language::El, "Όχι, τίποτα."),
            (Language::Uk, "Не знаю."), (Language::Uk, "Ні, нічого."),
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
    fn every_language_quotes_between_its_own_quotation_marks() {
        let answers = [
            ("en", "Hidden shipping costs make me leave."),
            ("fr", "Les frais de livraison cachés me font partir."),
            ("de", "Versteckte Versandkosten lassen mich abbrechen."),
            ("es", "Los gastos de envío ocultos me hacen abandonar."),
            ("it", "Le spese di spedizione nascoste mi fanno rinunciare."),
            ("ar", "تكاليف الشحن المخفية تجعلني أغادر."),
            ("ru", "Скрытые расходы на доставку заставляют меня уйти."),
            ("ja", "隠れた送料が最後に出ると、やめてしまいます。"),
            ("he", "עלויות משלוח נסתרות גורמות לי לעזוב."),
            ("el", "Τα κρυφά έξοδα αποστολής με κάνουν να φύγω."),
            ("uk", "Приховані витрати на доставку змушують мене піти."),
        ];
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            let strings = strings::for_language(name).interviewer;
            let (_, answer) = answers.iter().find(|(code, _)| code == name).unwrap();
            for (turn, kind) in ProbeKind::ROTATION.iter().enumerate() {
                let earlier: Vec<&str> = vec!["…"; turn];
                let context = ProbeContext { language, strings: &strings, question: "?", said: Vec::new(), earlier_probes: earlier };
                let probe = builtin_probe(answer, &context).unwrap();
                let template = kind.template(&strings.quoted_probes);
                let (before, after) = template.split_once("{phrase}").unwrap();
                let quoted = probe.strip_prefix(before).and_then(|rest| rest.strip_suffix(after));
                let quoted = quoted.unwrap_or_else(|| panic!("{name} {kind}: {probe}"));
                assert!(answer.contains(quoted) && quoted.chars().count() >= 2, "{name} {kind}: {probe}");
            }
        }
    }
}
