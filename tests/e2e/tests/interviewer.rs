//! The interviewer as interviewees meet it (docs/sessions.md, "The interviewer"):
//! scripted interviewees, in several projects, answer styles and languages, go
//! through the session API as the interview page does, and the tests read what
//! the interviewer said back.
//!
//! The built-in interviewer must follow at least 80 % of the substantive answers
//! given while their question's probe budget lasts with a probe containing two
//! or more consecutive content words of that answer; probe every other answer
//! but those that decline (the scripts' answers are all thin: none is long
//! enough to move on early, see `interviewer_real_answers.rs` and the unit
//! tests for rich answers); never say the same thing twice; ask every question
//! within the time and reach the closing. With a model (a fake OpenAI-compatible
//! server), its probe is used when it answers, the built-in one when it fails or
//! is slow.
//!
//! "Content word" is judged here independently of the service: a word of the
//! answer that is not in the language's stop-word list of the `stop-words` crate
//! (NLTK's; stopwords-iso's for Japanese and Ukrainian). Japanese, which has no
//! spaces, counts runs of kanji or katakana as words, joined directly or by の.

use e2e::fake_model::{FakeModel, ModelReply};
use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

/// One scripted interviewee and the project they are interviewed for.
struct Script {
    name: &'static str,
    language: &'static str,
    length_minutes: i64,
    objective: &'static str,
    questions: &'static [&'static str],
    /// Per research question, what the interviewee says in turn: to the
    /// question, then to each probe on it.
    answers: &'static [&'static [&'static str]],
    /// What they say when they have nothing more to say on a question (also
    /// when a question's answers run out), and to the wrap-up.
    declines: &'static str,
}

const SCRIPTS: &[Script] = &[
    Script {
        name: "checkout, talkative",
        language: "en",
        length_minutes: 10,
        objective: "Understand why shoppers abandon an online checkout.",
        questions: &["What makes you abandon a checkout?", "How do you decide which shop to trust with your payment?"],
        answers: &[
            &[
                "Hidden shipping costs at the last step make me leave.",
                "Last week a shoe shop added twelve euros for delivery right before payment.",
                "I closed the tab and bought the same shoes in a local store.",
                "Free returns usually win me back, to be honest.",
            ],
            &[
                "Reviews from other buyers and a familiar payment provider.",
                "PayPal feels safer because I never type my card number.",
                "I don't know.",
            ],
        ],
        declines: "No, nothing else. Thank you!",
    },
    Script {
        name: "daycare, terse",
        language: "en",
        length_minutes: 15,
        objective: "Understand how parents of toddlers choose a daycare.",
        questions: &[
            "How did you choose your current daycare?",
            "What mattered most to you in that decision?",
            "What would you change about how you searched?",
        ],
        answers: &[
            &["Location.", "Ten minutes from my office.", "Rainy mornings with the stroller.", "Yes."],
            &["Friendly staff.", "The nap room.", "No idea."],
            &["Earlier waiting list registration.", "Nothing, really."],
        ],
        declines: "No.",
    },
    Script {
        name: "budget app, reluctant and rambling",
        language: "en",
        length_minutes: 20,
        objective: "Explore how young adults track their monthly spending.",
        questions: &["How do you keep track of what you spend?", "What would make a budgeting app worth paying for?"],
        answers: &[
            &[
                "Well, honestly, I kind of just check my banking app, like, maybe once a week on Sunday evenings.",
                "Not really, no.",
            ],
            &[
                "I don't know, maybe automatic receipt scanning so I never type anything?",
                "Yesterday I lost a grocery receipt and had no idea what I had paid.",
                "I'd rather not say.",
            ],
        ],
        declines: "Nope.",
    },
    Script {
        name: "Kita",
        language: "de",
        length_minutes: 10,
        objective: "Verstehen, wie Eltern eine Kita auswählen.",
        questions: &["Wie haben Sie Ihre aktuelle Kita ausgewählt?", "Was war Ihnen bei der Entscheidung am wichtigsten?"],
        answers: &[
            &[
                "Wir haben drei Kitas besichtigt und die nächste zum Büro genommen.",
                "Die Erzieherinnen haben sich beim ersten Besuch viel Zeit für unsere Tochter genommen.",
                "Seitdem geht sie morgens gerne hin, ohne zu weinen.",
                "Die langen Öffnungszeiten passen zu unseren Schichten.",
            ],
            &["Kurze Wege und feste Bezugspersonen waren entscheidend.", "Im Winter spart uns der kurze Weg jeden Tag eine halbe Stunde.", "Weiß ich nicht."],
        ],
        declines: "Nein, eigentlich nichts.",
    },
    Script {
        name: "crèche",
        language: "fr",
        length_minutes: 10,
        objective: "Comprendre comment les parents choisissent une crèche.",
        questions: &["Comment avez-vous choisi votre crèche actuelle ?", "Qu'est-ce qui a le plus compté dans cette décision ?"],
        answers: &[
            &[
                "Nous avons visité trois crèches et choisi la plus proche du bureau.",
                "La directrice a pris le temps de répondre à toutes nos questions lors de la visite.",
                "Notre fils s'est senti à l'aise dès la première semaine d'adaptation.",
                "Les horaires d'ouverture tardifs conviennent à nos emplois du temps.",
            ],
            &["Le trajet quotidien et la stabilité du personnel ont tout décidé.", "Un trajet court nous évite les embouteillages du matin.", "Je ne sais pas."],
        ],
        declines: "Non, rien.",
    },
    Script {
        name: "guardería",
        language: "es",
        length_minutes: 10,
        objective: "Entender cómo eligen los padres una guardería.",
        questions: &["¿Cómo eligió su guardería actual?", "¿Qué fue lo más importante en esa decisión?"],
        answers: &[
            &[
                "Visitamos tres guarderías y elegimos la más cercana a la oficina.",
                "La directora respondió todas nuestras preguntas con mucha paciencia.",
                "Nuestra hija se adaptó en la primera semana sin llorar.",
                "El horario de tarde encaja con nuestros turnos de trabajo.",
            ],
            &["El trayecto diario y un personal estable fueron decisivos.", "Un trayecto corto nos ahorra media hora cada mañana.", "No sé."],
        ],
        declines: "Nada.",
    },
    Script {
        name: "asilo nido",
        language: "it",
        length_minutes: 10,
        objective: "Capire come i genitori scelgono un asilo nido.",
        questions: &["Come ha scelto il suo asilo nido attuale?", "Che cosa ha contato di più in questa decisione?"],
        answers: &[
            &[
                "Abbiamo visitato tre asili e scelto quello più vicino all'ufficio.",
                "La direttrice ha risposto con pazienza a tutte le nostre domande.",
                "Nostro figlio si è ambientato nella prima settimana senza piangere.",
                "L'orario prolungato si adatta ai nostri turni di lavoro.",
            ],
            &["Il tragitto quotidiano e le educatrici stabili sono stati decisivi.", "Un tragitto breve ci fa risparmiare mezz'ora ogni mattina.", "Non lo so."],
        ],
        declines: "No, niente.",
    },
    Script {
        name: "детский сад",
        language: "ru",
        length_minutes: 10,
        objective: "Понять, как родители выбирают детский сад.",
        questions: &["Как вы выбрали ваш нынешний детский сад?", "Что было самым важным в этом решении?"],
        answers: &[
            &[
                "Мы посетили три детских сада и выбрали ближайший к офису.",
                "Заведующая терпеливо ответила на все наши вопросы во время визита.",
                "Наш сын привык к группе за первую неделю без слёз.",
                "Вечерние часы работы подходят под наши смены.",
            ],
            &["Короткая дорога и постоянные воспитатели оказались решающими.", "Короткая дорога экономит нам полчаса каждое утро.", "Не знаю."],
        ],
        declines: "Нет, ничего.",
    },
    Script {
        name: "дитячий садок",
        language: "uk",
        length_minutes: 10,
        objective: "Зрозуміти, як батьки обирають дитячий садок.",
        questions: &["Як ви обрали ваш теперішній дитячий садок?", "Що було найважливішим у цьому рішенні?"],
        answers: &[
            &[
                "Ми відвідали три садочки й обрали найближчий до офісу.",
                "Завідувачка терпляче відповіла на всі наші запитання під час візиту.",
                "Наш син звик до групи за перший тиждень без сліз.",
                "Вечірній графік роботи підходить під наші зміни.",
            ],
            &["Коротка дорога й постійні вихователі виявилися вирішальними.", "Коротка дорога заощаджує нам пів години щоранку.", "Не знаю."],
        ],
        declines: "Ні, нічого.",
    },
    Script {
        name: "παιδικός σταθμός",
        language: "el",
        length_minutes: 10,
        objective: "Να κατανοήσουμε πώς οι γονείς επιλέγουν παιδικό σταθμό.",
        questions: &["Πώς επιλέξατε τον σημερινό παιδικό σας σταθμό;", "Τι μέτρησε περισσότερο σε αυτή την απόφαση;"],
        answers: &[
            &[
                "Επισκεφτήκαμε τρεις παιδικούς σταθμούς και διαλέξαμε τον πιο κοντινό στο γραφείο.",
                "Η διευθύντρια απάντησε υπομονετικά σε όλες τις ερωτήσεις μας.",
                "Ο γιος μας προσαρμόστηκε την πρώτη εβδομάδα χωρίς κλάματα.",
                "Το απογευματινό ωράριο ταιριάζει με τις βάρδιές μας.",
            ],
            &["Η σύντομη διαδρομή και το σταθερό προσωπικό ήταν καθοριστικά.", "Η σύντομη διαδρομή μας γλιτώνει μισή ώρα κάθε πρωί.", "Δεν ξέρω."],
        ],
        declines: "Όχι, τίποτα.",
    },
    Script {
        name: "حضانة",
        language: "ar",
        length_minutes: 10,
        objective: "فهم كيف يختار الآباء الحضانة.",
        questions: &["كيف اخترت حضانتك الحالية؟", "ما الأهم بالنسبة إليك في هذا القرار؟"],
        answers: &[
            &[
                "زرنا ثلاث حضانات واخترنا الأقرب إلى المكتب.",
                "أجابت المديرة بصبر عن كل أسئلتنا خلال الزيارة.",
                "تأقلم ابننا مع المجموعة في الأسبوع الأول دون بكاء.",
                "ساعات العمل المسائية تناسب نوبات عملنا.",
            ],
            &["الطريق القصير والمربيات الثابتات كانا حاسمين.", "الطريق القصير يوفر لنا نصف ساعة كل صباح.", "لا أعرف."],
        ],
        declines: "لا، لا شيء.",
    },
    Script {
        name: "גן ילדים",
        language: "he",
        length_minutes: 10,
        objective: "להבין איך הורים בוחרים גן ילדים.",
        questions: &["איך בחרת את הגן הנוכחי?", "מה היה הכי חשוב בהחלטה הזו?"],
        answers: &[
            &[
                "ביקרנו בשלושה גנים ובחרנו את הקרוב ביותר למשרד.",
                "הגננת ענתה בסבלנות על כל השאלות שלנו בביקור.",
                "הבן שלנו התרגל לקבוצה כבר בשבוע הראשון בלי בכי.",
                "שעות הפעילות הארוכות מתאימות למשמרות שלנו.",
            ],
            &["הדרך הקצרה וצוות קבוע היו מכריעים.", "הדרך הקצרה חוסכת לנו חצי שעה כל בוקר.", "לא יודע."],
        ],
        declines: "לא, כלום.",
    },
    Script {
        name: "保育園",
        language: "ja",
        length_minutes: 10,
        objective: "保護者が保育園をどのように選ぶのかを理解する。",
        questions: &["現在の保育園をどのように選びましたか？", "その決定で最も重要だったことは何ですか？"],
        answers: &[
            &[
                "三つの保育園を見学して、職場の近くの保育園を選びました。",
                "見学の時に園長先生がすべての質問に丁寧に答えてくれました。",
                "息子は最初の一週間でクラスの雰囲気に慣れました。",
                "夕方の延長保育がシフト勤務に合っています。",
            ],
            &["通勤時間の短さと担任の先生の安定が決め手でした。", "毎朝の送迎で三十分の余裕ができます。", "わかりません。"],
        ],
        declines: "いいえ、特にありません。",
    },
];

/// The documented budget: the minutes per question less one, between 1 and 3.
fn probe_budget(length_minutes: i64, questions: usize) -> usize {
    ((length_minutes as usize / questions).saturating_sub(1)).clamp(1, 3)
}

// ---------------------------------------------------------------------------
// Content words, judged by the stop-word lists alone

fn normalize(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'ά' => 'α',
            'έ' => 'ε',
            'ή' => 'η',
            'ί' | 'ϊ' | 'ΐ' => 'ι',
            'ό' => 'ο',
            'ύ' | 'ϋ' | 'ΰ' => 'υ',
            'ώ' => 'ω',
            'ς' => 'σ',
            '’' => '\'',
            c => c,
        })
        .collect()
}

fn is_japanese_content(c: char) -> bool {
    matches!(c, '\u{30A0}'..='\u{30FF}' | '\u{4E00}'..='\u{9FFF}' | '々')
}

/// The spans (in the answer) of two or more consecutive content words: two
/// words with only white space between them, neither a stop word.
fn content_pairs<'a>(language: &str, answer: &'a str) -> Vec<&'a str> {
    let stop: Vec<String> = stop_words::get(language).iter().map(|w| normalize(w)).collect();
    if language == "ja" {
        // Runs of kanji or katakana, joined directly or by の. A kanji run that
        // goes on in kana other than a particle is half a word (近く, 選び): no run.
        const PARTICLES: [char; 14] = ['の', 'が', 'を', 'に', 'で', 'は', 'と', 'も', 'へ', 'や', 'か', 'よ', 'な', 'だ'];
        let chars: Vec<(usize, char)> = answer.char_indices().collect();
        let mut runs: Vec<(usize, usize)> = Vec::new();
        let mut i = 0;
        while i < chars.len() {
            if !is_japanese_content(chars[i].1) {
                i += 1;
                continue;
            }
            let start = i;
            while i < chars.len() && is_japanese_content(chars[i].1) {
                i += 1;
            }
            let next = chars.get(i).map(|(_, c)| *c);
            let goes_on_in_kana = next.is_some_and(|c| ('\u{3041}'..='\u{309F}').contains(&c) && !PARTICLES.contains(&c));
            let ends_in_kanji = ('\u{4E00}'..='\u{9FFF}').contains(&chars[i - 1].1);
            if !(goes_on_in_kana && ends_in_kanji) {
                runs.push((chars[start].0, chars.get(i).map_or(answer.len(), |(at, _)| *at)));
            }
        }
        return runs
            .windows(2)
            .filter(|pair| matches!(&answer[pair[0].1..pair[1].0], "" | "の"))
            .filter(|pair| pair.iter().all(|(from, to)| !stop.contains(&answer[*from..*to].to_string())))
            .map(|pair| &answer[pair[0].0..pair[1].1])
            .collect();
    }
    let is_word = |c: char| c.is_alphanumeric() || matches!(c, '\'' | '’' | '-') || ('\u{064B}'..='\u{0652}').contains(&c);
    let mut words: Vec<(usize, usize)> = Vec::new();
    let mut start = None;
    for (at, c) in answer.char_indices().chain([(answer.len(), ' ')]) {
        match (is_word(c), start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                words.push((from, at));
                start = None;
            }
            _ => {}
        }
    }
    let content = |(from, to): (usize, usize)| {
        let word = normalize(answer[from..to].trim_matches(['\'', '’', '-']));
        word.chars().count() > 1 && !stop.contains(&word)
    };
    words
        .windows(2)
        .filter(|pair| answer[pair[0].1..pair[1].0].chars().all(char::is_whitespace))
        .filter(|pair| content(pair[0]) && content(pair[1]))
        .map(|pair| &answer[pair[0].0..pair[1].1])
        .collect()
}

// ---------------------------------------------------------------------------
// The interviewee

fn project_for(script: &Script) -> Value {
    project_body(json!({
        "project_name": script.name,
        "project_objective": script.objective,
        "research_questions": script.questions.join("\n"),
        "interview_languages": [script.language],
        "interview_length": script.length_minutes,
    }))
}

/// A published project for the script. Ukrainian is no language of the create
/// schema (the contract's list), only of an update: set it there.
fn published_project(app: &TestApp, tenant: &TenantCredentials, script: &Script) -> String {
    let mut body = project_for(script);
    if script.language == "uk" {
        body["interview_languages"] = json!(["en"]);
    }
    let project_id = create_project(app, tenant, &body);
    if script.language == "uk" {
        let response = app
            .request("PATCH", &format!("/v1/projects/{project_id}"))
            .auth(tenant)
            .header("content-type", "application/merge-patch+json")
            .body(json!({"interview_languages": ["uk"]}).to_string())
            .send()
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    act(app, tenant, &project_id, "activate");
    project_id
}

fn interviewer_turns(session: &Value) -> Vec<Value> {
    session["turns"].as_array().unwrap().iter().filter(|t| t["speaker"] == "interviewer").cloned().collect()
}

/// Answers as the script says until the interviewer closes, then finishes.
fn interview(app: &TestApp, script: &Script, project_id: &str) -> Session {
    let mut session = Session::start(app, &json!({"project_id": project_id, "language": script.language, "mode": "typing"}));
    let mut question = 0;
    let mut said_on_question = 0;
    for _ in 0..40 {
        let last = interviewer_turns(&session.body).pop().unwrap();
        let text = match last["kind"].as_str().unwrap() {
            "opening" | "question" => {
                question = interviewer_turns(&session.body).iter().filter(|t| matches!(t["kind"].as_str(), Some("opening" | "question"))).count() - 1;
                said_on_question = 0;
                script.answers[question].first().copied().unwrap_or(script.declines)
            }
            "probe" => script.answers[question].get(said_on_question).copied().unwrap_or(script.declines),
            "wrap_up" => script.declines,
            "closing" => break,
            other => panic!("{}: an interview turn of kind {other}", script.name),
        };
        said_on_question += 1;
        session.answer(app, text);
    }
    assert_eq!(session.body["interviewer_closed"], true, "{}: the interviewer closes", script.name);
    let (status, finished) = session.finish(app, false);
    assert_eq!((status, finished["interview_status"].as_str()), (StatusCode::OK, Some("COMPLETED")), "{}", script.name);
    session
}

/// What one interview shows: the rate of substantive answers (given while the
/// budget lasted) followed by a probe quoting two consecutive content words.
#[derive(Debug, Default)]
struct Followed {
    quoted: usize,
    substantive: usize,
}

/// Checks one finished interview turn by turn, and measures it.
fn check(script: &Script, session: &Value) -> Followed {
    let name = script.name;
    let turns = session["turns"].as_array().unwrap();
    let budget = probe_budget(script.length_minutes, script.questions.len());
    let interviewer = interviewer_turns(session);
    let said: Vec<&str> = interviewer.iter().map(|t| t["text"].as_str().unwrap()).collect();
    let mut unique = said.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), said.len(), "{name}: an interviewer message repeats: {said:#?}");

    let mut followed = Followed::default();
    let mut question = 0;
    let mut probes_on_question = 0;
    for (i, turn) in turns.iter().enumerate() {
        assert_eq!(turn["written_by"], if turn["speaker"] == "interviewer" { "builtin" } else { "interviewee" }, "{name}: {turn}");
        match turn["kind"].as_str().unwrap() {
            "opening" | "question" if i > 0 => {
                question += 1;
                probes_on_question = 0;
            }
            "probe" => {
                probes_on_question += 1;
                assert!(probes_on_question <= budget, "{name}: question {question} got more than {budget} probes");
            }
            "answer" => {
                let asked = &turns[i - 1];
                let reply = &turns[i + 1];
                if !matches!(asked["kind"].as_str(), Some("opening" | "question" | "probe")) {
                    continue;
                }
                let answer = turn["text"].as_str().unwrap();
                let reply_kind = reply["kind"].as_str().unwrap();
                if answer == script.declines || is_decline(answer) {
                    assert_ne!(reply_kind, "probe", "{name}: {answer:?} declines and is never probed: {reply}");
                    continue;
                }
                if probes_on_question == budget {
                    assert_ne!(reply_kind, "probe", "{name}: the budget of question {question} is spent");
                    continue;
                }
                assert_eq!(reply_kind, "probe", "{name}: {answer:?} is followed by a probe while the budget lasts");
                let pairs = content_pairs(script.language, answer);
                if !pairs.is_empty() {
                    followed.substantive += 1;
                    let probe = reply["text"].as_str().unwrap();
                    // A short answer that a quote would repeat whole is asked about in the interviewer's own words.
                    let asking = sessions_core::strings::for_language(script.language).interviewer.asking;
                    let own_words = asking.all().any(|wording| wording.quotes() == 0 && wording.text == probe);
                    // It follows the answer: it quotes a whole phrase of it (issue 58: a noun phrase, not
                    // necessarily two adjacent content words), or shares two of its content words.
                    let quotes = sessions_core::probes::audit::quoted_phrases(probe, projects_core::Language::parse(script.language).unwrap());
                    let quotes_it = !quotes.is_empty() && quotes.iter().all(|quote| answer.contains(quote.as_str()));
                    if quotes_it || pairs.iter().any(|pair| probe.contains(pair)) || (own_words && answer.split_whitespace().count() <= 5) {
                        followed.quoted += 1;
                    } else {
                        eprintln!("{name}: {answer:?} -> {probe:?} quotes none of {pairs:?}");
                    }
                }
            }
            _ => {}
        }
    }
    // Every question within the time, then the wrap-up and the closing.
    for (index, research_question) in script.questions.iter().enumerate() {
        assert!(
            interviewer.iter().any(|t| matches!(t["kind"].as_str(), Some("opening" | "question"))
                && t["text"].as_str().unwrap().ends_with(research_question)),
            "{name}: question {} was asked",
            index + 1
        );
    }
    let kinds: Vec<&str> = interviewer.iter().map(|t| t["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds[kinds.len() - 2..], ["wrap_up", "closing"], "{name}: {kinds:?}");
    followed
}

/// The scripts' ways of declining a question (besides their `declines`).
fn is_decline(answer: &str) -> bool {
    const DECLINES: [&str; 14] = [
        "I don't know.", "No idea.", "Nothing, really.", "Not really, no.", "I'd rather not say.", "Weiß ich nicht.",
        "Je ne sais pas.", "No sé.", "Non lo so.", "Не знаю.", "Δεν ξέρω.", "لا أعرف.", "לא יודע.", "わかりません。",
    ];
    DECLINES.contains(&answer)
}

#[test]
fn scripted_interviewees_get_probes_on_what_they_said_in_every_language() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let mut by_language: Vec<(&str, Followed)> = Vec::new();
    for script in SCRIPTS {
        let project_id = published_project(app, &tenant, script);
        let session = interview(app, script, &project_id);
        let (_, read) = session.get(app);
        let followed = check(script, &read);
        match by_language.iter_mut().find(|(language, _)| *language == script.language) {
            Some((_, total)) => {
                total.quoted += followed.quoted;
                total.substantive += followed.substantive;
            }
            None => by_language.push((script.language, followed)),
        }
    }
    for (language, followed) in &by_language {
        let rate = followed.quoted as f64 / followed.substantive.max(1) as f64;
        println!("{language}: {} of {} substantive answers followed by a probe quoting them ({:.0} %)", followed.quoted, followed.substantive, rate * 100.0);
        assert!(followed.substantive >= 3, "{language}: the scripts give substantive answers");
        assert!(rate >= 0.8, "{language}: {} of {} substantive answers followed by a quoting probe", followed.quoted, followed.substantive);
    }
}

/// A goodbye is a goodbye (issue 48): an answer that only thanks, says goodbye
/// or says it is done gets no follow-up in any interview language; the next
/// question follows, and after the last one the closing, with no wrap-up to
/// ask again what was just answered. A greeting alone to the opening gets the
/// first question again.
#[test]
fn a_goodbye_thanks_or_thats_all_is_never_followed_up() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let goodbyes = [
        ("en", "Bye!", "No, that's all. Thanks!"),
        ("de", "Tschüss!", "Nein, das war's. Danke!"),
        ("fr", "Au revoir !", "Non, c'est tout. Merci !"),
        ("es", "¡Adiós!", "No, eso es todo. ¡Gracias!"),
        ("it", "Arrivederci!", "No, è tutto. Grazie!"),
        ("ja", "さようなら。", "以上です。ありがとうございました。"),
    ];
    for (language, goodbye, done) in goodbyes {
        let script = SCRIPTS.iter().find(|s| s.language == language).unwrap();
        let project_id = published_project(app, &tenant, script);
        let mut session = Session::start(app, &json!({"project_id": project_id, "language": language, "mode": "typing"}));
        let kind = |session: &Session| interviewer_turns(&session.body).pop().unwrap()["kind"].as_str().unwrap().to_string();
        session.answer(app, script.answers[0][0]);
        assert_eq!(kind(&session), "probe", "{language}: a first answer is probed");
        let reply = session.answer(app, goodbye);
        assert_eq!(kind(&session), "question", "{language}: {goodbye:?} got {reply:?}");
        assert!(reply.ends_with(script.questions[1]), "{language}: {reply}");
        session.answer(app, done);
        assert_eq!(kind(&session), "closing", "{language}: {done:?} after the last question closes");
        assert_eq!(session.body["interviewer_closed"], true);
    }
    let script = &SCRIPTS[0];
    let project_id = published_project(app, &tenant, script);
    let mut session = Session::start(app, &json!({"project_id": project_id, "mode": "typing"}));
    let again = session.answer(app, "Hi, thanks for having me!");
    assert_eq!(again, format!("Thank you. {}", script.questions[0]));
}

/// The export's built-in summary summarises: per question answered, the
/// question, then the interviewee's own sentences that carry what they said,
/// verbatim and quoted; no interviewer message; at most 0.3 of their words.
#[test]
fn the_builtin_summary_quotes_the_sentences_that_carry_each_answer() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let script = &SCRIPTS[0];
    let project_id = active_project(app, &tenant, project_for(script));
    let session = interview(app, script, &project_id);
    let (_, read) = session.get(app);
    let turns = read["turns"].as_array().unwrap();
    let said: Vec<&str> = turns.iter().filter(|t| t["speaker"] == "interviewee").map(|t| t["text"].as_str().unwrap()).collect();
    let interviewer: Vec<&str> = turns.iter().filter(|t| t["speaker"] == "interviewer").map(|t| t["text"].as_str().unwrap()).collect();
    let export = app.get(&format!("/v1/projects/{project_id}/interviews-export")).auth(&tenant).send().unwrap().text().unwrap();
    let rows: Vec<Vec<String>> = csv::Reader::from_reader(export.as_bytes()).records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
    let summary = &rows.iter().find(|r| r[0] == session.interview_id).unwrap()[11];
    let mut quotes = 0;
    for line in summary.lines() {
        if line.starts_with('“') {
            for quote in line.split('”').map(|q| q.trim().trim_start_matches('“')).filter(|q| !q.is_empty()) {
                assert!(said.iter().any(|answer| answer.contains(quote)), "not the interviewee's words: {quote:?}\n{summary}");
                quotes += 1;
            }
        } else {
            assert!(script.questions.contains(&line) || line == "Additional remarks", "a heading that is no question: {line:?}\n{summary}");
        }
    }
    assert!(quotes >= 1, "{summary}");
    assert!(interviewer.iter().all(|message| !summary.contains(message)), "{summary}");
    let words = |text: &str| text.split_whitespace().count();
    let spoken: usize = said.iter().map(|a| words(a)).sum();
    assert!(words(summary) * 10 <= spoken * 3, "{} words of {spoken}:\n{summary}", words(summary));
    assert!(summary.chars().count() <= 1500);
}

/// The fake model: offered a probe, it probes, unless the last answer says FAIL
/// (500), SLOW (no answer in time) or ENOUGH (it moves on); asked to word a
/// step, it words it; asked for a summary, it summarises. Every message counts
/// the answers so far, so no two are the same.
fn probing_model() -> FakeModel {
    FakeModel::start(|request| {
        let body = request.json();
        let system = body["messages"][0]["content"].as_str().unwrap_or_default().to_string();
        let user = body["messages"][1]["content"].as_str().unwrap_or_default().to_string();
        let answers = user.lines().filter(|l| l.starts_with("Interviewee:")).count();
        let last = user.lines().rfind(|l| l.starts_with("Interviewee:")).unwrap_or_default().to_string();
        if system.contains("summarise") {
            return ModelReply::chat(r#"{"summary": "MODEL SUMMARY"}"#);
        }
        if !system.contains("\"move_on\"") {
            return ModelReply::chat(&json!({"message": format!("MODEL WORDS {answers}: the next step.")}).to_string());
        }
        if last.contains("FAIL") {
            ModelReply::Status(500)
        } else if last.contains("SLOW") {
            ModelReply::Hang
        } else if last.contains("ENOUGH") {
            ModelReply::chat(&json!({"step": "move_on", "message": format!("MODEL NEXT {answers}: moving on.")}).to_string())
        } else {
            ModelReply::chat(&json!({"step": "probe", "message": format!("MODEL PROBE {answers}: what happened right after that?")}).to_string())
        }
    })
}

#[test]
fn the_model_probes_when_it_answers_and_the_builtin_probe_stands_in_when_it_fails_or_is_slow() {
    let model = probing_model();
    let variables = model.variables();
    let pairs: Vec<(&str, &str)> = variables.iter().map(|(n, v)| (*n, v.as_str())).collect();
    let app = TestApp::start(&pairs);
    let tenant = app.create_tenant();
    let script = &SCRIPTS[0];
    let project_id = active_project(&app, &tenant, project_for(script));
    let mut session = Session::start(&app, &json!({"project_id": project_id, "mode": "typing"}));
    let latest = |session: &Session| {
        let turn = interviewer_turns(&session.body).pop().unwrap();
        (turn["kind"].as_str().unwrap().to_string(), turn["written_by"].as_str().unwrap().to_string(), turn["text"].as_str().unwrap().to_string())
    };
    let step = |kind: &str, by: &str, text: &str| (kind.to_string(), by.to_string(), text.to_string());
    assert_eq!(latest(&session), step("opening", "model", "MODEL WORDS 0: the next step."));

    // The model answers: its probe.
    let answer = "Hidden shipping costs at the last step make me leave.";
    session.answer(&app, answer);
    assert_eq!(latest(&session), step("probe", "model", "MODEL PROBE 1: what happened right after that?"));
    let offer = model.requests_to("/chat/completions").pop().unwrap();
    let prompt = offer.json()["messages"][1]["content"].as_str().unwrap().to_string();
    assert!(prompt.contains(&format!("The participant's last answer: {answer}")), "{prompt}");
    assert!(prompt.contains("Interviewer: MODEL WORDS 0: the next step.\nInterviewee: Hidden shipping costs"), "the transcript so far: {prompt}");
    assert!(prompt.contains("You may ask 3 more follow-up question(s)"), "{prompt}");

    // The model fails: the built-in probe on the answer.
    let answer = "FAIL: the coupon field rejected my discount code twice.";
    session.answer(&app, answer);
    let (kind, by, text) = latest(&session);
    assert_eq!((kind.as_str(), by.as_str()), ("probe", "builtin"), "{text}");
    assert!(content_pairs("en", answer).iter().any(|pair| text.contains(pair)), "{text}");

    // The model is slow (the test host's timeout is 2 seconds): the built-in probe.
    let answer = "SLOW: the payment page froze while loading the card form.";
    let started = std::time::Instant::now();
    session.answer(&app, answer);
    assert!(started.elapsed() < std::time::Duration::from_secs(15), "the timeout bounds the wait");
    let (kind, by, text) = latest(&session);
    assert_eq!((kind.as_str(), by.as_str()), ("probe", "builtin"), "{text}");
    assert!(content_pairs("en", answer).iter().any(|pair| text.contains(pair)), "{text}");

    // The question's three probes are spent: no probe is offered, the model words the next question.
    session.answer(&app, "I left the shop and bought the shoes elsewhere.");
    assert_eq!(latest(&session), step("question", "model", "MODEL WORDS 4: the next step."));
    let asked = model.requests_to("/chat/completions").pop().unwrap().text();
    assert!(!asked.contains("move_on"), "no probe on offer once the budget is spent");

    // The model may also move on by itself: here to the wrap-up, the last question done.
    session.answer(&app, "ENOUGH said: reviews from other buyers decide it for me.");
    assert_eq!(latest(&session), step("wrap_up", "model", "MODEL NEXT 5: moving on."));
    session.answer(&app, "No, nothing else.");
    assert_eq!(latest(&session).0, "closing");
    let (status, _) = session.finish(&app, true);
    assert_eq!(status, 200);

    // The export's transcript tells what each interviewer turn was and who wrote it.
    let export = app.get(&format!("/v1/projects/{project_id}/interviews-export")).auth(&tenant).send().unwrap().text().unwrap();
    let rows: Vec<Vec<String>> = csv::Reader::from_reader(export.as_bytes()).records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
    let labels: Vec<&str> = rows[0][10]
        .lines()
        .filter_map(|line| line.strip_prefix("Interviewer: ["))
        .map(|rest| rest.split_once(']').unwrap().0)
        .collect();
    assert_eq!(
        labels,
        ["opening, model", "probe, model", "probe, builtin", "probe, builtin", "question, model", "wrap_up, model", "closing, model"]
    );
    assert_eq!(rows[0][11], "MODEL SUMMARY");
}
