//! Sentences that say nothing about the question, only something to the
//! person asking it: a greeting, thanks, a goodbye, "that's all", or a word
//! about the interview itself ("great conversation", "hope this helps", "I
//! believe we've covered everything"). The interviewer asks no follow-up to an
//! answer that only thanks, says goodbye or says it is done (docs/sessions.md,
//! "Courtesies"), and the synthesis leaves such sentences out of what it groups.
//!
//! A sentence is a courtesy when it holds one of its language's courtesies and
//! every other word of it is a function word, a word the courtesies go with
//! ("for your *time*", "a *great* conversation", "*today*") or a name it is
//! addressed to ("…, Claude!"). Any other word is content: "Thanks to AI I save
//! hours" is about the question.

use super::lexicon::Lexicon;
use super::words::{words, Word};
use crate::Language;

/// A sentence longer than this says more than a courtesy ("I believe we've
/// covered everything so far, thank you for your time!" has 12 words); it is
/// not read further, which keeps the check cheap on long answers.
const MAX_COURTESY_WORDS: usize = 24;

/// What a courtesy does, from the strongest close to the weakest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Courtesy {
    /// "Bye!", "Take care", "Tschüss", "Au revoir".
    Goodbye,
    /// "Thank you!", "Thanks for your time", "Danke", "Merci".
    Thanks,
    /// "That's all", "Nothing more to add", "Das war's", "C'est tout".
    Done,
    /// "Great conversation", "Good questions", "Hope this helps", "I enjoyed
    /// this", "We've covered everything", "Hope we can continue".
    AboutInterview,
    /// "Hello!", "Good morning", "Hallo", "Bonjour"; and what only
    /// acknowledges: "All right", "Sounds good, let's start".
    Greeting,
}

impl Courtesy {
    /// Whether an answer made of courtesies with this one among them ends the
    /// thread: nothing is left to ask about.
    pub fn closes(self) -> bool {
        matches!(self, Courtesy::Goodbye | Courtesy::Thanks | Courtesy::Done)
    }
}

/// What `sentence` does when it says nothing but a courtesy (the strongest, when
/// it says several: "Great talk, thanks!" thanks); `None` when it says anything
/// about the question. A courtesy in English counts in every interview
/// language: people who answer in another language often say "No, nothing
/// else" or "Thanks!" in English, and the interviewer must not ask about it.
pub fn courtesy(sentence: &str, language: Language) -> Option<Courtesy> {
    courtesy_in(sentence, language).or_else(|| (language != Language::En).then(|| courtesy_in(sentence, Language::En)).flatten())
}

/// [`courtesy`] by one language's lists.
fn courtesy_in(sentence: &str, language: Language) -> Option<Courtesy> {
    let words = words(sentence);
    if words.len() > MAX_COURTESY_WORDS {
        return None;
    }
    let lists = lists(language);
    let mut covered = vec![false; words.len()];
    let mut found: Option<Courtesy> = None;
    for (kind, patterns) in lists.kinds() {
        for pattern in patterns {
            if mark(pattern, sentence, &words, language, &mut covered) {
                found = Some(found.map_or(kind, |before| before.min(kind)));
            }
        }
    }
    let found = found?;
    let lexicon = Lexicon::of(language);
    let says_nothing_else = (0..words.len()).all(|i| {
        covered[i]
            || !lexicon.is_content(&words[i])
            || forms(&words[i]).any(|form| lists.vocabulary.contains(&form))
            || addressed_to(&words, i, sentence)
    });
    says_nothing_else.then_some(found)
}

/// A name the sentence is addressed to: a capitalized word set off by
/// punctuation on both sides, not the first ("No, that's all for today, *Claude*!").
fn addressed_to(words: &[Word], i: usize, sentence: &str) -> bool {
    let word = &words[i];
    let set_off_after = words.get(i + 1).is_none_or(|next| !next.follows_closely) && sentence[word.end..].trim_start().chars().next().is_none_or(|c| !c.is_alphanumeric());
    i > 0 && !word.follows_closely && set_off_after && word.text.starts_with(char::is_uppercase)
}

/// A word as written, and without an elided article or pronoun ("j'espère": "espère").
fn forms<'w>(word: &'w Word) -> impl Iterator<Item = &'w str> {
    let whole = word.normalized.as_str();
    std::iter::once(whole).chain(whole.rsplit_once('\'').map(|(_, tail)| tail).filter(|tail| !tail.is_empty()))
}

/// Marks the words of every occurrence of `pattern` in `words` and says
/// whether there was one. A pattern is words in order, each a choice
/// (`thank|thanks`), with any words between them (which must then say nothing
/// else for the sentence to be a courtesy); in Japanese, which has no spaces,
/// it is a choice of strings found in the sentence as written.
fn mark(pattern: &str, sentence: &str, words: &[Word], language: Language, covered: &mut [bool]) -> bool {
    if language == Language::Ja {
        let mut any = false;
        for choice in pattern.split('|') {
            for (at, found) in sentence.match_indices(choice) {
                let end = at + found.len();
                for (i, word) in words.iter().enumerate() {
                    if word.start < end && at < word.end {
                        covered[i] = true;
                    }
                }
                any = true;
            }
        }
        return any;
    }
    let is = |i: usize, step: &str| forms(&words[i]).any(|form| step.split('|').any(|choice| choice == form));
    let Some(first) = pattern.split(' ').next() else { return false };
    let mut any = false;
    for start in (0..words.len()).filter(|&i| is(i, first)) {
        let mut matched = vec![start];
        for step in pattern.split(' ').skip(1) {
            match (matched[matched.len() - 1] + 1..words.len()).find(|&i| is(i, step)) {
                Some(i) => matched.push(i),
                None => break,
            }
        }
        if matched.len() == pattern.split(' ').count() {
            matched.iter().for_each(|&i| covered[i] = true);
            any = true;
        }
    }
    any
}

/// One language's courtesies, and the words that go with them, from
/// `courtesy.json` (data a linguist edits). Each pattern's words are
/// normalized (`words::normalize`); a choice is written `a|b`.
struct Lists {
    goodbye: &'static [&'static str],
    thanks: &'static [&'static str],
    done: &'static [&'static str],
    about_interview: &'static [&'static str],
    greeting: &'static [&'static str],
    /// Content words a courtesy may hold besides its own ("time", "great",
    /// "conversation", "today"): none of them makes a courtesy alone.
    vocabulary: &'static [&'static str],
}

impl Lists {
    fn kinds(&self) -> [(Courtesy, &'static [&'static str]); 5] {
        [
            (Courtesy::Goodbye, self.goodbye),
            (Courtesy::Thanks, self.thanks),
            (Courtesy::Done, self.done),
            (Courtesy::AboutInterview, self.about_interview),
            (Courtesy::Greeting, self.greeting),
        ]
    }
}

// `lists(language)`: the lists of `courtesy.json`, compiled in by build.rs.
include!(concat!(env!("OUT_DIR"), "/courtesy_lists.rs"));

#[cfg(test)]
mod tests {
    use super::*;
    use crate::words::normalize;
    use text_enum::TextEnum;
    use Courtesy::*;

    #[test]
    fn the_lists_are_normalized() {
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            let lists = lists(language);
            for (_, patterns) in lists.kinds() {
                for choice in patterns.iter().flat_map(|p| p.split(' ')).flat_map(|step| step.split('|')) {
                    assert_eq!(normalize(choice), choice, "{name}");
                }
            }
            for word in lists.vocabulary {
                assert_eq!(normalize(word), *word, "{name}");
            }
        }
    }

    /// Per language: sentences as interviewees write them, and what they do
    /// (`None`: they say something about the question).
    const SENTENCES: &[(Language, &str, Option<Courtesy>)] = &[
        (Language::En, "Thank you!", Some(Thanks)),
        (Language::En, "Thanks for the engaging conversation!", Some(Thanks)),
        (Language::En, "This was a great conversation, thank you!", Some(Thanks)),
        (Language::En, "I believe we've covered everything so far, thank you for your time!", Some(Thanks)),
        (Language::En, "No, I think that's all for today, Claude!", Some(Done)),
        (Language::En, "That's all that comes to mind for now.", Some(Done)),
        (Language::En, "No, nothing in particular at the moment, thank you!", Some(Thanks)),
        (Language::En, "nope thats fine thank you.", Some(Thanks)),
        (Language::En, "Bye!", Some(Goodbye)),
        (Language::En, "Have a great day, bye!", Some(Goodbye)),
        (Language::En, "Take care!", Some(Goodbye)),
        (Language::En, "Hope we can continue.", Some(AboutInterview)),
        (Language::En, "I hope this helps.", Some(AboutInterview)),
        (Language::En, "Great questions!", Some(AboutInterview)),
        (Language::En, "I enjoyed getting to talk about this.", Some(AboutInterview)),
        (Language::En, "I believe we've covered everything so far.", Some(AboutInterview)),
        (Language::En, "Hi there!", Some(Greeting)),
        (Language::En, "Good morning!", Some(Greeting)),
        (Language::En, "Sounds good, let's start.", Some(Greeting)),
        (Language::En, "all right", Some(Greeting)),
        (Language::En, "All right, the export takes ages.", None),
        (Language::En, "Thanks to AI I save hours every week.", None),
        (Language::En, "I'm grateful for the transcription tool.", None),
        (Language::En, "Good questions about privacy keep coming up with clients.", None),
        (Language::En, "I hope AI helps small studios.", None),
        (Language::En, "Our insurance covered the repairs.", None),
        (Language::En, "The job interview was stressful.", None),
        (Language::En, "That's all the budget we had.", None),
        (Language::En, "Thanks to Google, I found it.", None),
        (Language::De, "Danke!", Some(Thanks)),
        (Language::De, "Vielen Dank für das Gespräch.", Some(Thanks)),
        (Language::De, "Das war's von mir.", Some(Done)),
        (Language::De, "Mehr habe ich nicht zu sagen.", Some(Done)),
        (Language::De, "Tschüss und einen schönen Tag!", Some(Goodbye)),
        (Language::De, "Auf Wiedersehen!", Some(Goodbye)),
        (Language::De, "Es war ein interessantes Gespräch.", Some(AboutInterview)),
        (Language::De, "Ich hoffe, das hilft.", Some(AboutInterview)),
        (Language::De, "Guten Tag!", Some(Greeting)),
        (Language::De, "Dank der Förderung haben wir eine Wärmepumpe.", None),
        (Language::De, "Das Gespräch mit dem Bürgermeister war schwierig.", None),
        (Language::De, "Ich hoffe, die Bahn hilft den Pendlern.", None),
        (Language::Fr, "Merci beaucoup !", Some(Thanks)),
        (Language::Fr, "Merci pour cet échange, c'était un plaisir.", Some(Thanks)),
        (Language::Fr, "C'est tout pour moi.", Some(Done)),
        (Language::Fr, "Rien à ajouter.", Some(Done)),
        (Language::Fr, "Au revoir et bonne journée !", Some(Goodbye)),
        (Language::Fr, "J'espère que cela vous aidera, j'espère que c'est utile.", Some(AboutInterview)),
        (Language::Fr, "Bonjour !", Some(Greeting)),
        (Language::Fr, "Merci à l'IA, je gagne du temps sur les traductions.", None),
        (Language::Fr, "L'entretien des routes coûte trop cher.", None),
        (Language::Es, "¡Muchas gracias!", Some(Thanks)),
        (Language::Es, "Gracias por su tiempo.", Some(Thanks)),
        (Language::Es, "Eso es todo.", Some(Done)),
        (Language::Es, "Nada más que agregar.", Some(Done)),
        (Language::Es, "¡Hasta luego!", Some(Goodbye)),
        (Language::Es, "Fue una conversación muy interesante.", Some(AboutInterview)),
        (Language::Es, "Espero que le sirva.", Some(AboutInterview)),
        (Language::Es, "¡Hola, buenas tardes!", Some(Greeting)),
        (Language::Es, "Gracias a las redes sociales nos organizamos.", None),
        (Language::Es, "La entrevista con la policía duró horas.", None),
        (Language::It, "Grazie mille!", Some(Thanks)),
        (Language::It, "È tutto, grazie.", Some(Thanks)),
        (Language::It, "Nient'altro da aggiungere.", Some(Done)),
        (Language::It, "Arrivederci e buona giornata!", Some(Goodbye)),
        (Language::It, "Ciao!", Some(Goodbye)),
        (Language::It, "È stata una bella chiacchierata.", Some(AboutInterview)),
        (Language::It, "Spero di esservi stato utile.", Some(AboutInterview)),
        (Language::It, "Buongiorno!", Some(Greeting)),
        (Language::It, "Grazie al nuovo autobus arrivo prima al lavoro.", None),
        (Language::It, "Spero che il comune costruisca piste ciclabili.", None),
        (Language::Ar, "شكراً جزيلاً!", Some(Thanks)),
        (Language::Ar, "مع السلامة.", Some(Goodbye)),
        (Language::Ar, "هذا كل شيء.", Some(Done)),
        (Language::Ar, "كانت محادثة ممتعة.", Some(AboutInterview)),
        (Language::Ar, "مرحبا!", Some(Greeting)),
        (Language::Ar, "شكرا للذكاء الاصطناعي أوفر ساعات من العمل.", None),
        (Language::He, "תודה רבה!", Some(Thanks)),
        (Language::He, "להתראות!", Some(Goodbye)),
        (Language::He, "זה הכל.", Some(Done)),
        (Language::He, "הייתה שיחה מעניינת.", Some(AboutInterview)),
        (Language::He, "בוקר טוב!", Some(Greeting)),
        (Language::He, "תודה לבינה המלאכותית אני חוסך שעות עבודה.", None),
        (Language::El, "Ευχαριστώ πολύ!", Some(Thanks)),
        (Language::El, "Αντίο!", Some(Goodbye)),
        (Language::El, "Αυτά.", Some(Done)),
        (Language::El, "Ήταν μια ωραία συζήτηση.", Some(AboutInterview)),
        (Language::El, "Καλημέρα!", Some(Greeting)),
        (Language::El, "Ευχαριστώ την τεχνητή νοημοσύνη που γλιτώνω ώρες δουλειάς.", None),
        (Language::Ru, "Большое спасибо!", Some(Thanks)),
        (Language::Ru, "До свидания!", Some(Goodbye)),
        (Language::Ru, "Это всё.", Some(Done)),
        (Language::Ru, "Надеюсь, это поможет.", Some(AboutInterview)),
        (Language::Ru, "Здравствуйте!", Some(Greeting)),
        (Language::Ru, "Спасибо нейросетям, я экономлю часы работы.", None),
        (Language::Uk, "Щиро дякую!", Some(Thanks)),
        (Language::Uk, "До побачення!", Some(Goodbye)),
        (Language::Uk, "Це все.", Some(Done)),
        (Language::Uk, "Сподіваюся, це корисно.", Some(AboutInterview)),
        (Language::Uk, "Привіт!", Some(Greeting)),
        (Language::Uk, "Дякую штучному інтелекту, я економлю години роботи.", None),
        (Language::Ja, "ありがとうございました。", Some(Thanks)),
        (Language::Ja, "本日は貴重なお時間をありがとうございました。", Some(Thanks)),
        (Language::Ja, "以上です。", Some(Done)),
        (Language::Ja, "さようなら。", Some(Goodbye)),
        (Language::Ja, "楽しかったです。", Some(AboutInterview)),
        (Language::Ja, "こんにちは。", Some(Greeting)),
        (Language::Ja, "AIのおかげで翻訳の時間が減りました。ありがとう。", None),
    ];

    #[test]
    fn a_courtesy_says_nothing_but_that_in_every_language() {
        let mut wrong = Vec::new();
        for (language, sentence, expected) in SENTENCES {
            let found = courtesy(sentence, *language);
            if found != *expected {
                wrong.push(format!("{language}: {sentence:?} is {found:?}, not {expected:?}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        for name in Language::NAMES {
            let language = Language::parse(name).unwrap();
            for kind in [Greeting, Thanks, Goodbye, Done, AboutInterview] {
                assert!(SENTENCES.iter().any(|(l, _, k)| *l == language && *k == Some(kind)), "{name}: {kind:?}");
            }
            assert!(SENTENCES.iter().any(|(l, _, k)| *l == language && k.is_none()), "{name}: a sentence with content");
        }
    }

    #[test]
    fn an_english_courtesy_counts_in_any_interview_language() {
        // An Arabic interview answered in English: "No, nothing else." once got "What makes you say «nothing else»?".
        assert!(courtesy("No, nothing else.", Language::Ar).is_some_and(|kind| kind.closes()));
        assert!(courtesy("Thanks, bye!", Language::De).is_some_and(|kind| kind.closes()));
        assert_eq!(courtesy("Expensive shipping makes me close the tab.", Language::Ar), None);
        assert_eq!(courtesy("Thanks to AI I save hours.", Language::Es), None);
    }
}
