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

/// One language's courtesies, and the words that go with them. Each pattern's
/// words are normalized (`words::normalize`); a choice is written `a|b`.
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

fn lists(language: Language) -> Lists {
    match language {
        Language::En => Lists {
            goodbye: &[
                "bye|goodbye|bye-bye|byebye|farewell|cya|ciao|cheerio", "see you|ya", "take care",
                "have nice|good|great|lovely|wonderful day|evening|weekend|one|night", "all best", "best wishes|regards",
                "kind|warm regards", "talk soon|later", "until|till next time", "take it easy",
            ],
            thanks: &[
                "thanks|thank|thankyou|thx|ty|tysm|thnx|cheers", "appreciate|appreciated", "grateful", "you're|youre welcome",
                "no problem|worries", "my pleasure",
            ],
            done: &[
                "that's|thats|that all|it|everything", "i'm|im|i done|finished", "all done",
                "nothing else|more|further|add|particular", "no|nope|nah that's|thats|that fine", "that covers|covered",
                "no more|further|other",
            ],
            about_interview: &[
                "great|good|nice|lovely|interesting|engaging|wonderful|fun|insightful|thoughtful|pleasant|fascinating|excellent|amazing|awesome|fantastic|enjoyable|stimulating conversation|chat|interview|discussion|questions|question|talk|session|exchange",
                "conversation|chat|interview|discussion|chatting", "enjoyed|enjoy|enjoying", "pleasure",
                "hope|hopefully help|helps|helped|helpful|useful", "hope|hopefully continue|again|talk|chat|speak",
                "happy|glad help|helped|continue|share|talk|chat|contribute|participate|answer", "covered",
                "feel free reach|contact", "let know questions",
            ],
            greeting: &[
                "hi|hello|hey|hiya|howdy|greetings", "good morning|afternoon|evening", "nice|pleased|glad meet", "all right",
                "alright|ok|okay|sure", "sounds good|great", "let's|lets start|begin|go",
            ],
            vocabulary: &[
                "add", "afternoon", "alright", "begin", "go", "sounds", "start", "amazing", "answer", "answers", "appreciate", "appreciated", "asking",
                "awesome", "believe", "best", "care", "chance", "chat", "chatting", "come", "comes", "continue",
                "conversation", "conversations", "cool", "covered", "covers", "day", "discussion", "done", "engaging",
                "enjoy", "enjoyable", "enjoyed", "evening", "everybody", "everyone", "excellent", "experience",
                "fantastic", "far", "fascinating", "fine", "finished", "folks", "free", "friend", "fun", "getting",
                "glad", "good", "great", "guys", "happy", "help", "helpful", "hope", "hopefully", "insightful",
                "interest", "interesting", "interview", "invitation", "kind", "know", "later", "listening", "lovely",
                "luck", "meet", "mind", "moment", "morning", "nah", "next", "nice", "night", "nope", "oh", "opinion",
                "opportunity", "part", "participate", "patience", "perspective", "pleasant", "pleasure", "point",
                "project", "question", "questions", "reach", "regards", "research", "right", "say", "session", "share",
                "sharing", "sincerely", "soon", "speak", "stimulating", "study", "sure", "survey", "taking", "talk",
                "talking", "thoughtful", "thought", "thoughts", "time", "today", "truly", "views", "wanted", "weekend", "welcome", "worries", "easy",
                "wishes", "wonderful", "wow", "ya", "yep",
            ],
        },
        Language::De => Lists {
            goodbye: &[
                "tschüss|tschüs|ciao|tschau|adieu|bye|servus|baba", "auf wiedersehen|wiederhören", "bis bald|dann|später|nächste",
                "schönen tag|abend|feierabend|wochenende", "alles gute", "mach's|machs gut",
            ],
            thanks: &["danke|dankeschön|danken|merci", "vielen|herzlichen|besten|tausend dank"],
            done: &["das war's|wars|alles", "mehr nicht", "nichts weiter|mehr|hinzuzufügen|ergänzen", "bin fertig|durch"],
            about_interview: &[
                "gut|gute|gutes|schön|schönes|toll|tolles|interessant|interessantes|nett|nettes|angenehm|angenehmes|spannend|spannendes gespräch|interview|unterhaltung|austausch|fragen",
                "gespräch|interview|unterhaltung", "spaß gemacht", "hoffe helfen|hilft|geholfen|weiterhilft|nützlich",
                "gern|gerne geschehen", "freut mich", "gern|gerne wieder",
            ],
            greeting: &["hallo|hi|hey|moin|grüß|grüezi", "guten morgen|tag|abend"],
            vocabulary: &[
                "abend", "allen", "angenehm", "angenehmes", "austausch", "dank", "durch", "ergänzen", "erstmal",
                "feierabend", "fertig", "frage", "fragen", "freut", "gelegenheit", "gemacht", "geduld", "geholfen",
                "gerne", "gern", "geschehen", "gespräch", "gott", "gut", "gute", "guten", "gutes", "heute", "helfen",
                "herzlich", "herzlichen", "hilft", "hinzuzufügen", "hoffe", "interessant", "interessantes", "interesse",
                "interview", "jetzt", "moment", "momentan", "morgen", "nett", "nettes", "nochmal", "nochmals",
                "nützlich", "sagen", "schön", "schönen", "schönes", "spannend", "spannendes", "spaß", "tag",
                "tausend", "toll", "tolles", "unterhaltung", "vielen", "weiter", "weiterhilft", "wiederhören",
                "wiedersehen", "wochenende", "zeit",
            ],
        },
        Language::Fr => Lists {
            goodbye: &[
                "au revoir", "adieu|ciao|tchao|bye|salut", "à bientôt|prochaine", "bonne journée|soirée|fin|continuation|nuit",
            ],
            thanks: &["merci|remercie|remercions"],
            done: &["c'est tout", "ce sera tout", "rien d'autre|ajouter|plus", "j'ai fini|terminé", "voilà"],
            about_interview: &[
                "bonne|belle|agréable|intéressante|super|chouette conversation|discussion|échange|entretien|questions",
                "conversation|discussion|échange|entretien", "plaisir",
                "espère aide|aidé|aider|aidera|utile|utiles|serve|servir", "ravi|ravie|content|contente aider|participer|échanger|partager",
            ],
            greeting: &["bonjour|bonsoir|coucou|hello", "enchanté|enchantée"],
            vocabulary: &[
                "agréable", "aide", "aidé", "aider", "aidera", "ajouter", "autre", "aujourd'hui", "belle", "bientôt", "bon",
                "bonne", "chouette", "content", "contente", "continuation", "conversation", "discussion", "encore",
                "entretien", "espère", "fin", "fini", "génial", "infiniment", "intéressant", "intéressante", "intérêt",
                "journée", "mille", "moment", "nuit", "occasion", "participer", "partager", "patience", "plaisir",
                "prochaine", "question", "questions", "ravi", "ravie", "revoir", "serve", "servir", "soirée", "super",
                "temps", "terminé", "utile", "utiles", "échange", "échanger",
            ],
        },
        Language::Es => Lists {
            goodbye: &[
                "adiós|adios|chao|chau|bye", "hasta luego|pronto|mañana|próxima", "nos vemos", "cuídate|cuídese",
                "vaya bien",
            ],
            thanks: &["gracias|agradezco|agradecido|agradecida"],
            done: &["eso es todo", "es todo", "sería todo", "nada más|agregar|añadir", "ya está", "he terminado", "terminé"],
            about_interview: &[
                "buena|linda|agradable|interesante|excelente|bonita conversación|charla|entrevista|preguntas",
                "conversación|charla|entrevista", "placer", "espero ayude|sirva|útil|ayudado",
                "feliz|contento|contenta ayudar|participar|compartir",
            ],
            greeting: &["hola|buenas|saludos", "buenos días", "mucho gusto", "encantado|encantada"],
            vocabulary: &[
                "agradable", "agregar", "ayudado", "ayudar", "ayude", "añadir", "bonita", "buena", "buenas", "bueno",
                "buenos", "charla", "compartir", "contenta", "contento", "conversación", "día", "días", "encantada",
                "encantado", "entrevista", "espero", "está", "excelente", "feliz", "gusto", "hoy", "interesante",
                "interés", "linda", "luego", "mañana", "mil", "muchas", "noches", "oportunidad", "paciencia",
                "participar", "placer", "pregunta", "preguntas", "pronto", "próxima", "sirva", "tardes", "terminado",
                "terminé", "tiempo", "vaya", "vemos", "útil",
            ],
        },
        Language::It => Lists {
            goodbye: &["ciao|arrivederci|arrivederla|addio", "a presto|dopo|domani|prossima", "buona giornata|serata|notte|continuazione"],
            thanks: &["grazie|ringrazio|ringraziamo"],
            done: &["è tutto", "nient'altro", "niente|nulla altro|aggiungere", "ho finito", "tutto qui"],
            about_interview: &[
                "bella|piacevole|interessante|ottima|buona conversazione|chiacchierata|intervista|domande|discussione",
                "conversazione|chiacchierata|intervista", "piacere", "spero utile|aiuti|servito|aiutato",
                "felice|contento|contenta aiutare|partecipare|condividere",
            ],
            greeting: &["salve|buongiorno|buonasera", "buon giorno"],
            vocabulary: &[
                "aggiungere", "aiutare", "aiutato", "aiuti", "altro", "bella", "bello", "esservi", "essere", "stata", "stato", "buon", "buona", "chiacchierata",
                "condividere", "contenta", "contento", "continuazione", "conversazione", "discussione", "domanda",
                "domande", "domani", "felice", "finito", "giornata", "giorno", "infinite", "interessante", "interesse",
                "intervista", "mille", "notte", "occasione", "oggi", "opportunità", "ottima", "ottimo", "partecipare",
                "pazienza", "piacere", "piacevole", "presto", "prossima", "qui", "serata", "servito", "spero", "tante",
                "tempo", "utile",
            ],
        },
        Language::Ar => Lists {
            goodbye: &["مع السلامة", "وداعا|الوداع", "إلى|الى اللقاء"],
            thanks: &["شكرا|وشكرا|أشكرك|اشكرك|أشكركم|اشكركم|شكر|ممتن|ممتنة"],
            done: &["هذا كل", "لا آخر|اخر", "انتهيت"],
            about_interview: &[
                "محادثة|المحادثة|مقابلة|المقابلة|حوار|الحوار|الأسئلة|الاسئلة", "أتمنى|اتمنى يفيد|مفيد|مفيدا|مفيدة|ساعد|ساعدت",
                "سعيد|سعيدة|سعدت|سررت",
            ],
            greeting: &["مرحبا|أهلا|اهلا|السلام|سلام", "صباح|مساء الخير|النور"],
            vocabulary: &[
                "آخر", "اخر", "كان", "كانت", "الأسئلة", "الاسئلة", "الحوار", "الخير", "السلامة", "اللقاء", "المحادثة", "المقابلة",
                "النور", "الوقت", "اليوم", "جزيلا", "جميل", "جميلة", "حوار", "رائع", "رائعة", "سعيد", "سعيدة", "عليكم",
                "لك", "لكم", "محادثة", "مفيد", "مفيدا", "مفيدة", "مقابلة", "ممتع", "ممتعة", "وقت", "وقتك", "وقتكم",
            ],
        },
        Language::He => Lists {
            goodbye: &["להתראות|ביי|ביינתיים|שלום"],
            thanks: &["תודה|ותודה|תודות|מודה"],
            done: &["זה הכל|הכול", "זהו", "סיימתי", "מה להוסיף"],
            about_interview: &["שיחה|השיחה|ראיון|הראיון|הריאיון", "מקווה שעזרתי|עזר|מועיל|שעזר", "נהניתי"],
            greeting: &["היי|הי|אהלן", "בוקר|ערב טוב"],
            vocabulary: &[
                "בוקר", "הזמן", "הכול", "השיחה", "טוב", "טובה", "להוסיף", "לכולם", "מעניין", "מעניינת", "מקווה",
                "נעים", "נעימה", "ערב", "רבה", "רבות", "שיחה", "שעזרתי", "זמן",
            ],
        },
        Language::El => Lists {
            goodbye: &["αντιο|γεια|καληνυχτα", "τα λεμε", "καλη συνεχεια|μερα|βραδια"],
            thanks: &["ευχαριστω|ευχαριστουμε|ευχαριστιεσ"],
            done: &["αυτα", "αυτο ηταν", "τιποτα|τιποτε αλλο", "τελειωσα"],
            about_interview: &[
                "συζητηση|κουβεντα|συνεντευξη", "ελπιζω βοηθησα|βοηθησει|χρησιμο|χρησιμα", "χαρηκα",
            ],
            greeting: &["καλημερα|καλησπερα|χαιρετω|χαιρετε|χαιρετισμουσ"],
            vocabulary: &[
                "αλλο", "βοηθησα", "βοηθησει", "βραδια", "ενδιαφερουσα", "ενδιαφερον", "ελπιζω", "ερωτησεισ", "ηταν",
                "καλη", "κουβεντα", "λεμε", "μερα", "ολουσ", "συζητηση", "συνεντευξη", "συνεχεια", "σημερα", "χρονο",
                "χρησιμα", "χρησιμο", "ωραια", "ωραιο",
            ],
        },
        Language::Ru => Lists {
            goodbye: &["пока|прощайте|удачи", "до свидания|встречи|связи", "всего доброго|хорошего|наилучшего"],
            thanks: &["спасибо|благодарю|благодарим|спс"],
            done: &["это|вот|этом всё|все", "больше ничего", "нечего добавить", "закончил|закончила"],
            about_interview: &[
                "беседа|беседу|разговор|интервью", "надеюсь помог|помогла|полезно|пригодится|поможет",
                "рад|рада помочь|поговорить|пообщаться",
            ],
            greeting: &["привет|здравствуйте|здравствуй|приветствую", "добрый день|утро|вечер"],
            vocabulary: &[
                "беседа", "беседу", "большое", "вам", "вечер", "вопросы", "время", "встречи", "день", "добавить",
                "доброго", "добрый", "закончил", "закончила", "интервью", "интересная", "интересный", "надеюсь",
                "наилучшего", "огромное", "поговорить", "полезно", "помог", "помогла", "помочь", "пообщаться",
                "приятная", "приятный", "разговор", "рад", "рада", "связи", "сегодня", "утро", "хороший",
                "хорошего",
            ],
        },
        Language::Uk => Lists {
            goodbye: &["бувай|бувайте|па", "до побачення|зустрічі", "всього доброго|найкращого"],
            thanks: &["дякую|дякуємо|спасибі"],
            done: &["це|цьому все", "більше нічого", "нічого додати", "закінчив|закінчила"],
            about_interview: &[
                "розмова|розмову|бесіда|інтерв'ю", "сподіваюся|сподіваюсь допоміг|допомогла|корисно|знадобиться",
                "радий|рада допомогти|поговорити",
            ],
            greeting: &["привіт|вітаю|здрастуйте", "добрий день|ранок|вечір"],
            vocabulary: &[
                "вам", "велике", "вечір", "щиро", "день", "додати", "доброго", "добрий", "допоміг", "допомогла", "допомогти",
                "закінчив", "закінчила", "зустрічі", "йдеться", "інтерв'ю", "корисно", "найкращого", "поговорити",
                "питання", "побачення", "приємна", "радий", "рада", "ранок", "розмова", "розмову", "сьогодні", "час",
                "цікава",
            ],
        },
        Language::Ja => Lists {
            goodbye: &["さようなら|さよなら|失礼します|失礼いたします|またね|では、また|それでは、また|お疲れ様|お疲れさま|おつかれ"],
            thanks: &["ありがとう|有難う|有り難う|感謝|どうも"],
            done: &["以上です|以上|それだけです|それだけ|特にありません|他にありません|終わりです"],
            about_interview: &["楽しかった|いい質問|良い質問|面白い質問|お役に立て|役に立て|話せて良かった|話せてよかった"],
            greeting: &["こんにちは|こんばんは|おはよう|はじめまして|初めまして|よろしく"],
            vocabulary: &["今日", "本日", "貴重", "本当", "時間", "質問", "会話", "色々", "皆様", "皆", "大変", "誠", "機会", "様"],
        },
    }
}

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
