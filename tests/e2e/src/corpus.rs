//! Scripted interview corpora for the synthesis (docs/synthesis.md): the
//! planted corpora (answers with planted ideas at known counts, every answer
//! a sentence of its own), unique noise and low-effort interviews, and a
//! replay of any interview's answers through the session API.

use crate::sessions::{start_body, Session};
use crate::TestApp;
use serde_json::Value;

/// A planted corpus of `tests/fixtures/synthesis-corpora`: 30 interviews,
/// per question three planted ideas held by 12, 8 and 6 of them and four
/// answers of their own, every answer a sentence of its own.
pub struct Corpus {
    pub questions: Vec<CorpusQuestion>,
}

/// One research question of a corpus.
pub struct CorpusQuestion {
    pub question: String,
    pub ideas: Vec<PlantedIdea>,
    /// Per interview, in order: the planted idea its answer says (`None`:
    /// one of its own) and the answer.
    pub answers: Vec<(Option<usize>, String)>,
}

/// A planted idea: how many interviews say it, and the words one of which
/// names it (empty where its answers share no word: the paraphrased corpus).
pub struct PlantedIdea {
    pub held_by: usize,
    pub label_words: Vec<String>,
}

impl Corpus {
    /// `checkout` (each idea's answers often name it) or `remote-work` (each
    /// idea's answers share no content word: paraphrases).
    pub fn read(name: &str) -> Corpus {
        let path = crate::workspace_root().join(format!("tests/fixtures/synthesis-corpora/{name}.json"));
        let corpus: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let strings = |list: &Value| -> Vec<String> { list.as_array().map_or(Vec::new(), |l| l.iter().map(|w| w.as_str().unwrap().to_string()).collect()) };
        let questions = corpus["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| CorpusQuestion {
                question: q["question"].as_str().unwrap().to_string(),
                ideas: q["ideas"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|idea| PlantedIdea { held_by: idea["held_by"].as_u64().unwrap() as usize, label_words: strings(&idea["label_words"]) })
                    .collect(),
                answers: q["answers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| (a["idea"].as_u64().map(|k| k as usize), a["text"].as_str().unwrap().to_string()))
                    .collect(),
            })
            .collect();
        Corpus { questions }
    }

    /// The research questions, one a line, as a project's `research_questions`.
    pub fn research_questions(&self) -> String {
        self.questions.iter().map(|q| q.question.as_str()).collect::<Vec<_>>().join("\n")
    }

    /// How many interviews the corpus holds.
    pub fn interviews(&self) -> usize {
        self.questions[0].answers.len()
    }

    /// Interview `i`'s answers, per question (one each).
    pub fn answers(&self, i: usize) -> Vec<Vec<String>> {
        self.questions.iter().map(|q| vec![q.answers[i].1.clone()]).collect()
    }
}

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
