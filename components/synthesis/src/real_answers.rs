//! The built-in synthesis by meaning on real answers (`tests/fixtures/real-answers`,
//! attributed there), each interview replayed through the built-in
//! interviewer as `sessions::probes::replay` replays it, and on the planted
//! corpora (`tests/fixtures/synthesis-corpora`): the themes a researcher
//! gets, held to what docs/synthesis.md promises.
//!
//! The meanings are the static table's, which the tests can always make.
//! With `SYNTHESIS_VECTORS=<file>` they are the model's own, read from that
//! file (a JSON object from each sentence to its vector, and from each label
//! candidate's key to its meaning in context, written by
//! `scripts/vectors/embed.py`; what it lacks is listed in `<file>.missing`
//! for the next run): the same grouping and labels the maintenance run feeds
//! with all-MiniLM-L6-v2, without the model in a native test. With
//! `SYNTHESIS_DUMP=<folder>` each fixture's themes and every sentence with its
//! idea are written there as JSON, for judging them with the full model
//! (scripts/vectors/judge.py).

use platform::ids::InterviewId;
use super::*;
use sessions_core::probes::replay::replayed;
use crate::answers::free_text_answers;
use crate::units::{Encoder, TableEncoder};
use text::self_description::self_description;
use serde_json::json;
use std::sync::Mutex;

/// The meanings of the tests' sentences: the model's where `SYNTHESIS_VECTORS` has them.
struct TestEncoder {
    vectors: Option<HashMap<String, Vec<f32>>>,
}

/// Sentences `SYNTHESIS_VECTORS` lacked, across the tests of this run.
static MISSING: Mutex<Vec<String>> = Mutex::new(Vec::new());

impl TestEncoder {
    fn new() -> TestEncoder {
        let vectors = std::env::var("SYNTHESIS_VECTORS").ok().map(|path| match std::fs::read_to_string(&path) {
            Ok(json) => serde_json::from_str(&json).expect("SYNTHESIS_VECTORS is a JSON object of vectors"),
            Err(_) => HashMap::new(),
        });
        TestEncoder { vectors }
    }

    fn model(&self) -> MeaningModel {
        Encoder::model(self)
    }

    /// Lists the sentences the vectors lacked, for the next run.
    fn finish(&self) {
        let missing = MISSING.lock().unwrap();
        if let (Ok(path), false) = (std::env::var("SYNTHESIS_VECTORS"), missing.is_empty()) {
            std::fs::write(format!("{path}.missing"), serde_json::to_string(&*missing).unwrap()).unwrap();
            panic!("{} sentences have no vector in {path}: listed in {path}.missing", missing.len());
        }
    }
}

impl Encoder for TestEncoder {
    fn model(&self) -> MeaningModel {
        match self.vectors {
            Some(_) => MeaningModel::MiniLm,
            None => MeaningModel::Table,
        }
    }

    fn encode(&mut self, texts: &[&str]) -> Result<Vec<Meaning>, String> {
        let Some(vectors) = &self.vectors else { return TableEncoder.encode(texts) };
        Ok(texts
            .iter()
            .map(|text| match vectors.get(*text) {
                Some(vector) => Meaning::from_vector(vector.clone()),
                None => {
                    MISSING.lock().unwrap().push(text.to_string());
                    vectors::table().meaning(text)
                }
            })
            .collect())
    }

    /// A span's meaning in context is in the file under its sentence, a
    /// `\u{1}` and its byte range (`start\u{1}end`): what
    /// `scripts/vectors/embed.py` pools from the model's token states.
    fn encode_in_context(&mut self, texts: &[&str], spans: &[Vec<(usize, usize)>]) -> Result<(Vec<Meaning>, Option<Vec<Vec<Option<Meaning>>>>), String> {
        let meanings = self.encode(texts)?;
        if self.vectors.is_none() {
            return Ok((meanings, None));
        }
        let keys: Vec<Vec<String>> =
            texts.iter().zip(spans).map(|(text, spans)| spans.iter().map(|(start, end)| format!("{text}\u{1}{start}\u{1}{end}")).collect()).collect();
        let in_context = keys
            .iter()
            .map(|keys| {
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                self.encode(&keys).map(|found| found.into_iter().map(Some).collect())
            })
            .collect::<Result<_, _>>()?;
        Ok((meanings, Some(in_context)))
    }
}

/// One corpus's questions, each with its ideas named and quoted.
struct Replayed {
    interview_ids: Vec<InterviewId>,
    /// `(interview, seq)` → the answer's text.
    texts: HashMap<(usize, i64), String>,
    /// `(interview, seq)` → the answer's label phrases.
    phrases: LabelPhrases,
    questions: Vec<(String, Grouped<'static>)>,
}

impl Replayed {
    /// Per interview (its answers by seq and question), grouped as a synthesis groups them.
    fn of(interview_ids: Vec<InterviewId>, questions: Vec<String>, answers: Vec<Vec<(i64, Option<usize>, String)>>, encoder: &mut TestEncoder) -> Replayed {
        let mut texts = HashMap::new();
        let mut phrases: LabelPhrases = HashMap::new();
        let mut per_question: Vec<Vec<(usize, Unit)>> = vec![Vec::new(); questions.len()];
        let mut answered: Vec<HashSet<usize>> = vec![HashSet::new(); questions.len()];
        for (at, interview) in answers.iter().enumerate() {
            for (question, said) in per_question.iter_mut().enumerate() {
                let to_it: Vec<(i64, &str)> =
                    interview.iter().filter(|(_, q, _)| *q == Some(question)).map(|(seq, _, text)| (*seq, text.as_str())).collect();
                if to_it.is_empty() {
                    continue;
                }
                answered[question].insert(at);
                let found = units::of_answers(&to_it, &questions[question], Language::En, encoder).unwrap();
                said.extend(found.units.into_iter().map(|unit| (at, unit)));
                for phrase in found.phrases {
                    phrases.entry((at, phrase.seq)).or_default().push(phrase);
                }
            }
            for (seq, _, text) in interview {
                texts.insert((at, *seq), text.clone());
            }
        }
        let model = encoder.model();
        let mut questions: Vec<(String, Grouped<'static>)> = questions
            .into_iter()
            .zip(per_question)
            .zip(answered)
            .map(|((question, sentences), answered)| {
                let (mut profile, sentences): (Vec<(usize, Unit)>, Vec<(usize, Unit)>) = sentences.into_iter().partition(profile::describes_participant);
                let ideas = group_ideas(&sentences, &mut profile, model);
                let question_text: &'static str = Box::leak(question.clone().into_boxed_str());
                (question, Grouped { question: question_text, answered: answered.len(), ideas, sentences, profile, themes: Vec::new() })
            })
            .collect();
        one_place(questions.iter_mut().map(|(_, g)| &mut g.ideas), model);
        Replayed { interview_ids, texts, phrases, questions }
    }

    fn named(&self, grouped: &Grouped) -> Vec<Named> {
        let ids = &self.interview_ids;
        let text_of: HashMap<(InterviewId, i64), &str> = self.texts.iter().map(|((at, seq), text)| ((ids[*at], *seq), text.as_str())).collect();
        let mut named = named_ideas(grouped, &text_of, ids, &self.phrases);
        named.sort_by(|a, b| b.interviews.len().cmp(&a.interviews.len()));
        named.truncate(themes::MAX_THEMES);
        named
    }
}

/// Ids for `n` replayed interviews: the replay knows them by their place.
fn numbered_ids(n: usize) -> Vec<InterviewId> {
    (0..n).map(|at| InterviewId::parse(&format!("00000000-0000-4000-8000-{at:012}")).expect("a UUID")).collect()
}

fn real(file: &str, encoder: &mut TestEncoder) -> Replayed {
    let interviews = replayed(file);
    let questions: Vec<String> = interviews[0].1.clone();
    let answers = interviews
        .iter()
        .map(|(_, _, turns)| free_text_answers(turns, None).into_iter().map(|a| (a.seq, a.question_index, a.text.to_string())).collect())
        .collect();
    Replayed::of(numbered_ids(interviews.len()), questions, answers, encoder)
}

/// A planted corpus: per question, how many interviews hold each planted
/// idea, and per interview its answer and the idea it says (`None`: one of its own).
struct Planted {
    questions: Vec<(String, Vec<usize>, Vec<(Option<usize>, String)>)>,
}

impl Planted {
    fn read(name: &str) -> Planted {
        let path = format!("{}/../../tests/fixtures/synthesis-corpora/{name}.json", env!("CARGO_MANIFEST_DIR"));
        let corpus: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let questions = corpus["questions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|q| {
                let held = q["ideas"].as_array().unwrap().iter().map(|idea| idea["held_by"].as_u64().unwrap() as usize).collect();
                let answers = q["answers"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|a| (a["idea"].as_u64().map(|k| k as usize), a["text"].as_str().unwrap().to_string()))
                    .collect();
                (q["question"].as_str().unwrap().to_string(), held, answers)
            })
            .collect();
        Planted { questions }
    }
}

#[test]
fn real_interviews_give_themes_that_are_ideas_in_the_participants_words() {
    let mut encoder = TestEncoder::new();
    for file in ["anthropic-interviewer-creatives.json", "anthropic-interviewer-scientists.json", "polis-bowling-green-en.json"] {
        let replayed = real(file, &mut encoder);
        let mut dump = Vec::new();
        for (question, grouped) in &replayed.questions {
            let themes = replayed.named(grouped);
            let lexicon = Lexicon::of(Language::En);
            let question_stems: HashSet<String> = text::terms::answer_terms(question, &lexicon).into_iter().collect();
            println!("{file} | {question} | {} answered", grouped.answered);
            for theme in &themes {
                println!("    {:>3}  {}", theme.interviews.len(), theme.label);
                for quote in &theme.quotes {
                    println!("           {}", quote.text);
                }
            }
            for theme in &themes {
                // A phrase of 2 to 6 words, or the theme's most representative short sentence, whole.
                let words = theme.label.split_whitespace().count();
                let phrase = (naming::MIN_LABEL_WORDS..=naming::MAX_LABEL_WORDS).contains(&words);
                let sentence = words <= naming::SENTENCE_LABEL_WORDS && theme.quotes.iter().any(|q| q.text == theme.label);
                assert!(phrase || sentence, "{file}: {:?}", theme.label);
                assert!(theme.interviews.len() >= ideas::MIN_INTERVIEWS, "{file}: {:?}", theme.label);
                for quote in &theme.quotes {
                    assert_eq!(self_description(&quote.text, &question_stems, &lexicon), None, "{file}: a theme quotes who its participant is: {:?}", quote.text);
                    let at = replayed.interview_ids.iter().position(|id| *id == quote.interview_id).unwrap();
                    assert!(replayed.texts[&(at, quote.seq)].contains(&quote.text), "{file}: not verbatim: {:?}", quote.text);
                    assert!(text::audit::dropped_qualifier(&replayed.texts[&(at, quote.seq)], &quote.text, Language::En).is_none());
                }
            }
            let keys: Vec<Vec<String>> = themes.iter().map(|t| naming::label_stems(&t.label)).collect();
            let distinct: HashSet<&Vec<String>> = keys.iter().collect();
            assert_eq!(distinct.len(), keys.len(), "{file}: two themes say the same: {keys:?}");
            if std::env::var("SYNTHESIS_DUMP").is_ok() {
                let sentences: Vec<serde_json::Value> = grouped
                    .sentences
                    .iter()
                    .enumerate()
                    .map(|(k, (at, unit))| {
                        let idea = grouped.ideas.iter().position(|idea| idea.sentences.contains(&k));
                        json!({"interview": at, "text": &replayed.texts[&(*at, unit.seq)][unit.start..unit.end], "idea": idea})
                    })
                    .collect();
                let themes: Vec<serde_json::Value> = themes
                    .iter()
                    .map(|t| json!({"label": t.label, "interviews": t.interviews.len(), "quotes": t.quotes.iter().map(|q| &q.text).collect::<Vec<_>>()}))
                    .collect();
                dump.push(json!({"question": question, "answered": grouped.answered, "themes": themes, "sentences": sentences}));
            }
        }
        // Who the participants are is in the profile, never in a theme.
        let counted = profile::count(replayed.questions.iter().flat_map(|(_, g)| &g.profile));
        let participants = counted.written(|at, unit| {
            Some(Quote { interview_id: replayed.interview_ids[at], seq: unit.seq, text: replayed.texts[&(at, unit.seq)][unit.start..unit.end].to_string() })
        });
        println!("{file} | participants: {} of {} say who they are", participants.described, replayed.interview_ids.len());
        for role in &participants.roles {
            println!("    {:>3}  {}  {:?}", role.interviews, role.role, role.quotes.iter().map(|q| &q.text).collect::<Vec<_>>());
        }
        println!("    {:>3}  (their work)  {:?}", participants.work.interviews, participants.work.quotes.iter().map(|q| &q.text).collect::<Vec<_>>());
        if let Ok(folder) = std::env::var("SYNTHESIS_DUMP") {
            let profile = json!({
                "interviews": replayed.interview_ids.len(), "described": participants.described,
                "roles": participants.roles.iter().map(|r| json!({"role": r.role, "interviews": r.interviews, "quotes": r.quotes.iter().map(|q| &q.text).collect::<Vec<_>>()})).collect::<Vec<_>>(),
                "work": {"interviews": participants.work.interviews, "quotes": participants.work.quotes.iter().map(|q| &q.text).collect::<Vec<_>>()},
            });
            let dump = json!({"questions": dump, "profile": profile});
            std::fs::write(format!("{folder}/{file}"), serde_json::to_string_pretty(&dump).unwrap()).unwrap();
        }
    }
    encoder.finish();
}

/// The planted corpora: each planted idea is among the top four themes of
/// its question, most of that theme's quotes are its own, and it counts at
/// least half of its interviews and at most two more; with the model's
/// meanings, the checkout's within two of its interviews. The table's
/// meanings are held to the checkout corpus only, whose ideas share words:
/// they cannot tell the remote-work corpus's paraphrases apart (the reason
/// the maintenance run runs the model). End to end, with the model itself:
/// `tests/e2e/tests/synthesis.rs`.
#[test]
fn planted_ideas_are_counted_in_any_words() {
    let mut encoder = TestEncoder::new();
    let model = encoder.model();
    let names: &[&str] = match model {
        MeaningModel::MiniLm => &["checkout", "remote-work"],
        MeaningModel::Table => &["checkout"],
    };
    let corpora: Vec<(&str, Planted, Replayed)> = names
        .iter()
        .copied()
        .map(|name| {
            let planted = Planted::read(name);
            let interviews = planted.questions[0].2.len();
            let answers: Vec<Vec<(i64, Option<usize>, String)>> = (0..interviews)
                .map(|i| planted.questions.iter().enumerate().map(|(q, (_, _, answers))| (1 + 2 * q as i64, Some(q), answers[i].1.clone())).collect())
                .collect();
            let questions: Vec<String> = planted.questions.iter().map(|(q, _, _)| q.clone()).collect();
            let replayed = Replayed::of(numbered_ids(interviews), questions, answers, &mut encoder);
            (name, planted, replayed)
        })
        .collect();
    encoder.finish();
    for (name, planted, replayed) in &corpora {
        for ((question, grouped), (_, held_by, answers)) in replayed.questions.iter().zip(&planted.questions) {
            let themes = replayed.named(grouped);
            println!("{name} | {question}");
            for theme in &themes {
                println!("    {:>3}  {}  {:?}", theme.interviews.len(), theme.label, theme.quotes.iter().map(|q| &q.text).collect::<Vec<_>>());
            }
            let idea_of = |id: InterviewId| answers[replayed.interview_ids.iter().position(|i| *i == id).unwrap()].0;
            for (k, &held) in held_by.iter().enumerate() {
                let own = |t: &&Named| t.quotes.iter().filter(|quote| idea_of(quote.interview_id) == Some(k)).count() * 2 > t.quotes.len();
                let Some(found) = themes.iter().take(4).find(own) else {
                    panic!("{name} ({model}): idea {k} of {question:?} ({held} interviews) is not among the top 4")
                };
                let count = found.interviews.len();
                let (least, most) = match model {
                    // The model's meanings: the count of the planted interviews, within two (a fifth of twelve).
                    MeaningModel::MiniLm if *name == "checkout" => (held - 2, held + 2),
                    _ => (held.div_ceil(2), held + 2),
                };
                assert!((least..=most).contains(&count), "{name} ({model}): {:?} counts {count} of {held}", found.label);
            }
        }
    }
}
