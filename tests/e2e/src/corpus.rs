//! Scripted interview corpora for the synthesis (docs/synthesis.md): answers
//! with planted themes at known counts, unique noise and low-effort
//! interviews, and a replay of any interview's answers through the session API.

use crate::sessions::{start_body, Session};
use crate::TestApp;
use serde_json::Value;

/// A planted theme: the words its label must hold, and sentences that carry it.
pub struct Planted {
    pub words: &'static [&'static str],
    pub interviews: usize,
    pub sentences: &'static [&'static str],
}

/// One research question of the corpus and its three planted themes (12, 8 and 6 interviews).
pub struct PlantedQuestion {
    pub question: &'static str,
    pub themes: [Planted; 3],
}

pub const CHECKOUT: PlantedQuestion = PlantedQuestion {
    question: "What makes you abandon an online checkout?",
    themes: [
        Planted {
            words: &["shipping"],
            interviews: 12,
            sentences: &[
                "The shipping costs only show up on the very last page.",
                "Honestly it is the surprise shipping costs at the end.",
                "I leave when the shipping costs are higher than the item itself.",
                "Hidden shipping costs, every single time.",
            ],
        },
        Planted {
            words: &["account"],
            interviews: 8,
            sentences: &[
                "Being forced to create an account before I can pay.",
                "When the shop insists that I create an account first.",
                "I do not want yet another account with a password to remember.",
            ],
        },
        Planted {
            words: &["payment"],
            interviews: 6,
            sentences: &[
                "My preferred payment method was missing.",
                "They did not offer the payment method I use.",
                "Too few payment methods, so I gave up.",
            ],
        },
    ],
};

pub const TRUST: PlantedQuestion = PlantedQuestion {
    question: "What would make you trust a shop you have never bought from?",
    themes: [
        Planted {
            words: &["reviews"],
            interviews: 12,
            sentences: &[
                "Plenty of customer reviews from real buyers.",
                "I read the customer reviews before anything else.",
                "Honest customer reviews, including the bad ones.",
            ],
        },
        Planted {
            words: &["return"],
            interviews: 8,
            sentences: &[
                "A clear return policy that is easy to find.",
                "Free returns within thirty days.",
                "If the return policy is vague I will not buy.",
            ],
        },
        Planted {
            words: &["phone"],
            interviews: 6,
            sentences: &[
                "A phone number where a person actually answers.",
                "Being able to call them on the phone.",
                "A real phone line for support.",
            ],
        },
    ],
};

/// Words for noise sentences, each used once in a corpus (80 of each), so
/// that no noise recurs across interviews.
const NOISE_THINGS: [&str; 80] = [
    "aardvark", "bassoon", "cathedral", "dolphin", "eucalyptus", "flamingo", "gondola", "harpsichord", "iceberg",
    "jellyfish", "kangaroo", "lighthouse", "mandolin", "narwhal", "observatory", "pelican", "quarry", "rhubarb",
    "saxophone", "tortoise", "umbrella", "volcano", "walrus", "xylophone", "yacht", "zeppelin", "avalanche",
    "bonsai", "cactus", "dinosaur", "escalator", "fjord", "glacier", "hammock", "igloo", "jigsaw", "kayak",
    "labyrinth", "meteorite", "nectarine", "origami", "porcupine", "quiche", "raccoon", "submarine", "trombone",
    "unicycle", "vineyard", "windmill", "yodeling", "zucchini", "anchovy", "blacksmith", "canoe", "drawbridge",
    "emerald", "ferret", "greenhouse", "hedgehog", "ivy", "juniper", "kiln", "lemur", "mosaic", "nightingale",
    "octopus", "pumpkin", "quill", "reindeer", "scarecrow", "tapestry", "toucan", "violin", "waffle", "yak",
    "zebra", "accordion", "barnacle", "chandelier", "dragonfly",
];
const NOISE_PLACES: [&str; 80] = [
    "Lisbon", "Oslo", "Nairobi", "Quito", "Hanoi", "Tbilisi", "Reykjavik", "Montevideo", "Accra", "Bergen",
    "Cusco", "Dakar", "Esbjerg", "Fukuoka", "Galway", "Hobart", "Innsbruck", "Jaipur", "Kraków", "Luxor",
    "Mombasa", "Nantes", "Odessa", "Palermo", "Québec", "Rotterdam", "Sapporo", "Tallinn", "Uppsala",
    "Valparaíso", "Windhoek", "Xiamen", "Yerevan", "Zanzibar", "Antwerp", "Bruges", "Cádiz", "Dubrovnik",
    "Eindhoven", "Florence", "Geneva", "Helsinki", "Istanbul", "Jakarta", "Kyoto", "Lima", "Marrakesh",
    "Naples", "Ottawa", "Porto", "Riga", "Seville", "Tunis", "Utrecht", "Vilnius", "Warsaw", "Zagreb",
    "Aberdeen", "Bilbao", "Cairo", "Delft", "Edinburgh", "Fez", "Granada", "Havana", "Ibiza", "Jerusalem",
    "Kampala", "Leipzig", "Malmö", "Nagoya", "Oaxaca", "Perth", "Rabat", "Salzburg", "Toledo", "Ulm", "Verona",
    "Wellington", "Zurich",
];

/// A noise sentence no other interview repeats a word of: the `n`th (0..80) of the corpus.
pub fn noise(n: usize) -> String {
    format!("{} and {}.", NOISE_THINGS[n], NOISE_PLACES[n])
}

/// Whether interview `i` (of 30) carries theme `t`: overlapping sets of 12, 8 and 6.
pub fn carries(question: usize, theme: usize, i: usize) -> bool {
    let shifted = (i + question * 11) % 30;
    match theme {
        0 => shifted < 12,
        1 => (9..17).contains(&shifted),
        _ => (20..26).contains(&shifted),
    }
}

/// The answers of genuine interview `i` (of 30) to each planted question: the
/// first names its themes, the second is noise.
pub fn planted_answers(questions: &[&PlantedQuestion], i: usize) -> Vec<Vec<String>> {
    questions
        .iter()
        .enumerate()
        .map(|(q, question)| {
            let mut first: Vec<&str> = Vec::new();
            for (t, theme) in question.themes.iter().enumerate() {
                if carries(q, t, i) {
                    first.push(theme.sentences[(i + t) % theme.sentences.len()]);
                }
            }
            let own_noise = noise(i * questions.len() + q);
            if first.is_empty() {
                // Nothing planted: its unique noise only.
                return vec![own_noise];
            }
            vec![first.join(" "), own_noise]
        })
        .collect()
}

/// Low-effort interviews, each with what it answers when it has nothing
/// more to say: gibberish, the same text pasted, one-word answers, refusals.
pub fn low_effort_answers(questions: usize) -> Vec<(Vec<Vec<String>>, &'static str)> {
    const PASTED: &str = "shipping costs shipping costs customer reviews";
    vec![
        (vec![vec!["asdf jkl".into(), "sdfgh qwer".into()]; questions], "asdfgh"),
        (vec![vec![PASTED.into(); 2]; questions], PASTED),
        (vec![vec!["ok".into(), "fine".into()]; questions], "no"),
        (vec![vec!["I don't know".into(), "no idea".into()]; questions], "nothing"),
    ]
}

/// An interview replayed through the session API.
pub struct Replayed {
    pub session: Session,
    /// What the interviewee sent, by seq.
    pub sent: Vec<(i64, String)>,
}

/// What a genuine interviewee says when they have nothing to add.
pub const MOVE_ON: &str = "No, nothing else.";

/// Starts an interview and answers each research question with its answers
/// (the interviewer probes after each; `move_on`, a refusal, takes it to the
/// next question), then the wrap-up, and finishes it. For a project of 10
/// minutes and two questions (three probes each): up to four answers per question.
pub fn replay(app: &TestApp, project_id: &str, language: &str, per_question: &[Vec<String>], move_on: &str) -> Replayed {
    let mut body = start_body(project_id, "production");
    body["language"] = Value::from(language);
    let mut session = Session::start(app, &body);
    let mut sent = Vec::new();
    for answers in per_question {
        let mut texts: Vec<&str> = answers.iter().map(String::as_str).collect();
        texts.push(move_on);
        for text in texts {
            let seq = session.body["turns"].as_array().unwrap().len() as i64;
            let (status, _) = session.answer_raw(app, text);
            if status != 200 {
                break;
            }
            sent.push((seq, text.to_string()));
            let kind = session.body["turns"].as_array().unwrap().last().unwrap()["kind"].clone();
            if kind != "probe" {
                break;
            }
        }
    }
    while session.body["interviewer_closed"] != true {
        let seq = session.body["turns"].as_array().unwrap().len() as i64;
        let (status, body) = session.answer_raw(app, move_on);
        assert_eq!(status, 200, "{body}");
        sent.push((seq, move_on.to_string()));
    }
    let (status, finished) = session.finish(app, false);
    assert_eq!(status, 200, "{finished}");
    Replayed { session, sent }
}
