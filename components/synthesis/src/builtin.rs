//! The built-in synthesis, offline and deterministic: the same interviews
//! always give the same synthesis. It reads the project's analysed
//! interviews and their digests, groups each question's answers into themes,
//! then reads the few answers its labels and quotes come from.

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::ids::TenantId;
use super::ideas::{self, Idea, Sentence};
use super::labels::{self, Sample};
use super::naming::{self, Described, Source};
use super::profile;
use super::themes::{self, InterviewAnswers, Theme};
use super::units::{self, MeaningModel, Unit};
use super::{digest, store, synthesized_questions, QuestionSynthesis, Quote, Synthesis, ThemeSynthesis, WrittenBy, MAX_QUOTES};
use text::self_description::SelfDescription;
use text::vectors::{self, Meaning};
use storage::Db;
use platform::error::ApiResult;
use projects_core::{Language, Project};
use records as record;
use records::quality::Quality;
use text::lexicon::Lexicon;
use platform::time;
use std::collections::{HashMap, HashSet};

/// Answers (or sentences) of a theme read for its label and quotes, at most.
const SAMPLED_ANSWERS: usize = 30;

/// The interviews a synthesis analyses, oldest first, and how many it left out as low-effort.
pub struct Analysed {
    pub interviews: Vec<record::store::Ended>,
    pub excluded: usize,
}

impl Analysed {
    pub fn read(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<Analysed> {
        let ended = record::store::ended_interviews(db, tenant_id, project_id)?;
        let (interviews, excluded): (Vec<_>, Vec<_>) =
            ended.into_iter().partition(|i| !i.quality.as_ref().is_some_and(Quality::is_low_effort));
        Ok(Analysed { interviews, excluded: excluded.len() })
    }
}

/// The project's digests of analysed interviews, every page of them.
pub(super) fn read_digests(db: &Db, project_id: ProjectId, place: &HashMap<InterviewId, usize>) -> ApiResult<Vec<store::Digest>> {
    let mut digests: Vec<store::Digest> = Vec::new();
    let mut after: Option<(InterviewId, i64)> = None;
    loop {
        let page = store::digests(db, project_id, after)?;
        let done = (page.len() as i64) < store::DIGEST_PAGE;
        after = page.last().map(|d| (d.interview_id, d.question_index));
        digests.extend(page.into_iter().filter(|d| place.contains_key(&d.interview_id)));
        if done {
            return Ok(digests);
        }
    }
}

/// The questions a synthesis has an entry for, in plan order: `(position, question)`.
pub(super) fn plan_questions(project: &Project) -> Vec<(usize, String)> {
    let first_language = project.fields.interview_languages.first().copied().unwrap_or(Language::En);
    synthesized_questions(&project.fields, first_language)
        .into_iter()
        .enumerate()
        .filter_map(|(index, question)| question.map(|q| (index, q)))
        .collect()
}

/// One question's answers, per interview (oldest first), as the digests hold them.
pub(super) struct Question<'d> {
    pub question: &'d str,
    pub interviews: Vec<InterviewAnswers<'d>>,
}

/// The questions in plan order (those the interviews asked that the plan no
/// longer has come after, by the position they had), each with its answers;
/// sentences only where `meanings` made them.
pub(super) fn questions<'d>(
    plan: &'d [(usize, String)],
    digests: &'d [store::Digest],
    place: &HashMap<InterviewId, usize>,
    meanings: Option<MeaningModel>,
) -> Vec<Question<'d>> {
    let mut order: Vec<(i64, &str)> = plan.iter().map(|(index, q)| (*index as i64, q.as_str())).collect();
    let mut by_question: HashMap<&str, Vec<(usize, &store::Digest)>> = HashMap::new();
    for digest in digests {
        let question = digest.question.as_str();
        if !by_question.contains_key(question) && !order.iter().any(|(_, q)| *q == question) {
            order.push((digest.question_index + plan.len() as i64, question));
        }
        by_question.entry(question).or_default().push((place[&digest.interview_id], digest));
    }
    let (planned, older) = order.split_at_mut(plan.len());
    older.sort_by_key(|(index, _)| *index);
    planned
        .iter()
        .chain(older.iter())
        .map(|&(_, question)| {
            let mut rows = by_question.remove(question).unwrap_or_default();
            rows.sort_by_key(|(at, _)| *at);
            let interviews = rows
                .iter()
                .map(|(at, digest)| InterviewAnswers {
                    interview: *at,
                    language: digest.language,
                    answers: digest::decode(&digest.terms),
                    units: digest.units.as_deref().filter(|_| digest.units_by.is_some() && digest.units_by == meanings),
                })
                .collect();
            Question { question, interviews }
        })
        .collect()
}

/// One question's entry, before labels and quotes: the ideas of the
/// interviews read in a language with meanings, the term themes of the others.
struct Grouped<'d> {
    question: &'d str,
    answered: usize,
    ideas: Vec<Idea>,
    /// The question's sentences the ideas index into.
    sentences: Vec<(usize, Unit)>,
    /// Its sentences that say who their participant is: in the profile, in no idea.
    profile: Vec<(usize, Unit)>,
    themes: Vec<Theme>,
}

/// A question's ideas (of the interviews read in a language with meanings,
/// whose meanings `meanings` made) and term themes (of the others).
fn group(question: Question, meanings: Option<MeaningModel>) -> Grouped {
    let answered = question.interviews.iter().filter(|i| !i.answers.is_empty()).count();
    let (with_meanings, by_terms): (Vec<InterviewAnswers>, Vec<InterviewAnswers>) =
        question.interviews.into_iter().partition(|i| units::has_meanings(i.language));
    let (mut profile, mut sentences): (Vec<(usize, Unit)>, Vec<(usize, Unit)>) = with_meanings
        .iter()
        .filter_map(|interview| Some(units::decode(interview.units?).into_iter().map(move |unit| (interview.interview, unit))))
        .flatten()
        .partition(profile::describes_participant);
    let ideas = match meanings {
        Some(model) => group_ideas(&sentences, &mut profile, model),
        None => Vec::new(),
    };
    // Labels and quotes need the sentences' places and terms, not their
    // meanings: at 10,000 interviews those are about 45 MB a question, and
    // every question's sentences are kept until the synthesis is written.
    for (_, unit) in sentences.iter_mut().chain(&mut profile) {
        unit.meaning = Meaning::default();
    }
    let mut echoed: HashMap<Language, HashSet<String>> = HashMap::new();
    for interview in &by_terms {
        echoed.entry(interview.language).or_insert_with(|| {
            text::terms::answer_terms(question.question, &Lexicon::of(interview.language)).into_iter().collect()
        });
    }
    Grouped { question: question.question, answered, ideas, sentences, profile, themes: themes::group(&by_terms, &echoed) }
}

/// Each idea under one question only ([`ideas::one_place`]).
fn one_place<'g>(questions: impl Iterator<Item = &'g mut Vec<Idea>>, model: MeaningModel) {
    ideas::one_place(&mut questions.collect::<Vec<_>>(), model.scale());
}

/// The ideas of a question's sentences (`(interview, unit)`), by the scale
/// of the model that made their meanings; an idea that says what its
/// participants' self-descriptions (`profile`) say joins them there
/// ([`ideas::about_the_participants`]), as their work.
fn group_ideas(sentences: &[(usize, Unit)], profile: &mut Vec<(usize, Unit)>, model: MeaningModel) -> Vec<Idea> {
    let sentences_of: Vec<Sentence> = sentences.iter().map(|(interview, unit)| Sentence { interview: *interview, unit }).collect();
    let mut ideas = ideas::group(&sentences_of, model.scale());
    let described: Vec<&Meaning> = profile.iter().map(|(_, unit)| &unit.meaning).collect();
    let background = ideas::about_the_participants(&mut ideas, &sentences_of, &described, model.scale());
    profile.extend(background.into_iter().map(|k| {
        let (interview, unit) = &sentences[k];
        (*interview, Unit { describes: Some(SelfDescription::Work), ..unit.clone() })
    }));
    ideas
}

/// Which model's meanings a synthesis groups (the best any of its digests
/// has), and the interviews that wait for theirs: those with answers to group
/// by meaning whose digests have no meanings yet, or a lesser model's. The
/// maintenance run gives them meanings seconds after they end; a synthesis
/// never makes them (the model runs in the maintenance run only).
fn meanings_of(digests: &[store::Digest]) -> (Option<MeaningModel>, usize) {
    let grouped_by_meaning = || digests.iter().filter(|d| units::has_meanings(d.language));
    let best = grouped_by_meaning().filter_map(|d| d.units_by).max_by_key(|model| model.rank());
    let mut waiting: Vec<InterviewId> = grouped_by_meaning().filter(|d| d.units_by.is_none() || d.units_by != best).map(|d| d.interview_id).collect();
    waiting.sort_unstable();
    waiting.dedup();
    (best, waiting.len())
}

/// A theme of the synthesis before it is written out: from an idea or from a term.
struct Named {
    theme_id: String,
    label: String,
    interviews: Vec<usize>,
    quotes: Vec<Quote>,
}

/// The built-in synthesis of the tenant's project.
pub fn builtin(db: &Db, project: &Project) -> ApiResult<Synthesis> {
    let project_id = project.project_id;
    let analysed = Analysed::read(db, project.tenant_id, project_id)?;
    let place: HashMap<InterviewId, usize> =
        analysed.interviews.iter().enumerate().map(|(i, e)| (e.interview_id, i)).collect();
    let digests = read_digests(db, project_id, &place)?;
    let (meanings, waiting) = meanings_of(&digests);
    let plan = plan_questions(project);
    let questions = questions(&plan, &digests, &place, meanings);
    let mut grouped: Vec<Grouped> = questions.into_iter().map(|q| group(q, meanings)).collect();
    if let Some(model) = meanings {
        one_place(grouped.iter_mut().map(|g| &mut g.ideas), model);
    }
    let ids: Vec<InterviewId> = analysed.interviews.iter().map(|e| e.interview_id).collect();
    let id_of = |at: usize| ids[at];

    // The answers labels and quotes come from, read in one pass.
    let mut wanted: Vec<(InterviewId, i64)> = Vec::new();
    for g in &grouped {
        for theme in &g.themes {
            wanted.extend(theme.answers.iter().take(SAMPLED_ANSWERS).map(|&(at, seq)| (id_of(at), seq)));
        }
        for idea in &g.ideas {
            wanted.extend(idea.sentences.iter().take(SAMPLED_ANSWERS).map(|&k| (id_of(g.sentences[k].0), g.sentences[k].1.seq)));
        }
    }
    let participants = profile::count(grouped.iter().flat_map(|g| &g.profile));
    wanted.extend(participants.quoted().map(|(at, seq)| (id_of(at), seq)));
    wanted.sort_unstable();
    wanted.dedup();
    let texts = record::store::answer_texts(db, &wanted)?;
    let text_of: HashMap<(InterviewId, i64), &str> = texts.iter().map(|(id, seq, text)| ((*id, *seq), text.as_str())).collect();
    let phrases = match meanings {
        Some(model) => label_phrases(db, project_id, &grouped, &ids, &place, model)?,
        None => HashMap::new(),
    };

    let questions = grouped
        .iter()
        .map(|g| {
            let mut named = named_ideas(g, &text_of, &ids, &phrases);
            named.extend(g.themes.iter().map(|theme| named_term_theme(g.question, theme, &text_of, &ids)));
            // Most interviews first; ideas before term themes of as many (a stable sort).
            named.sort_by(|a, b| b.interviews.len().cmp(&a.interviews.len()));
            named.truncate(themes::MAX_THEMES);
            QuestionSynthesis {
                question: g.question.to_string(),
                answered: g.answered,
                finding: None,
                themes: named
                    .into_iter()
                    .map(|n| ThemeSynthesis {
                        theme_id: n.theme_id,
                        label: n.label,
                        description: None,
                        interviews: n.interviews.len(),
                        share: n.interviews.len() as f64 / g.answered.max(1) as f64,
                        quotes: n.quotes,
                    })
                    .collect(),
            }
        })
        .collect();
    let participants = participants.written(|at, unit| {
        let text = text_of.get(&(id_of(at), unit.seq))?.get(unit.start..unit.end)?;
        Some(Quote { interview_id: id_of(at), seq: unit.seq, text: text.to_string() })
    });
    Ok(Synthesis {
        project_id,
        generated_at: time::rfc3339_now(),
        interviews_analyzed: analysed.interviews.len(),
        interviews_excluded: analysed.excluded,
        interviews_waiting: waiting,
        written_by: WrittenBy::BuiltIn,
        participants: Some(participants),
        questions,
    })
}

/// The phrases the maintenance run kept of the sentences labels come from
/// (each idea's first [`naming::LABEL_SOURCES`]), by `(interview, seq)`: a
/// read of those interviews' digests only.
fn label_phrases(
    db: &Db,
    project_id: ProjectId,
    grouped: &[Grouped],
    ids: &[InterviewId],
    place: &HashMap<InterviewId, usize>,
    model: MeaningModel,
) -> ApiResult<LabelPhrases> {
    let mut interviews: Vec<InterviewId> = Vec::new();
    for g in grouped {
        for idea in &g.ideas {
            interviews.extend(idea.sentences.iter().take(naming::LABEL_SOURCES).map(|&k| ids[g.sentences[k].0]));
        }
    }
    interviews.sort_unstable();
    interviews.dedup();
    let questions: HashSet<&str> = grouped.iter().filter(|g| !g.ideas.is_empty()).map(|g| g.question).collect();
    let mut phrases: LabelPhrases = HashMap::new();
    for (interview_id, question, stored) in store::label_phrases(db, project_id, &interviews, model)? {
        if !questions.contains(question.as_str()) {
            continue;
        }
        for phrase in units::decode_phrases(&stored) {
            phrases.entry((place[&interview_id], phrase.seq)).or_default().push(phrase);
        }
    }
    Ok(phrases)
}

/// Label phrases by the `(interview, seq)` of their answer.
type LabelPhrases = HashMap<(usize, i64), Vec<units::Phrase>>;

/// A question's ideas, labelled and quoted: an idea no phrase can name is
/// left out, and one whose label says what an earlier one's does (its words
/// within the other's, or the same meaning, of the same polarity) joins it.
fn named_ideas(g: &Grouped, text_of: &HashMap<(InterviewId, i64), &str>, ids: &[InterviewId], phrases: &LabelPhrases) -> Vec<Named> {
    let lexicon = Lexicon::of(Language::En);
    let question_stems: HashSet<String> = text::terms::answer_terms(g.question, &lexicon).into_iter().collect();
    let unit_text = |k: usize| {
        let (at, unit) = &g.sentences[k];
        text_of.get(&(ids[*at], unit.seq)).and_then(|text| text.get(unit.start..unit.end))
    };
    // A sentence's phrases, as bytes of the sentence.
    let phrases_of = |k: usize| -> Vec<(usize, usize, Meaning)> {
        let (at, unit) = &g.sentences[k];
        let within = |p: &&units::Phrase| unit.start <= p.start && p.end <= unit.end;
        let held = phrases.get(&(*at, unit.seq)).map_or(&[][..], Vec::as_slice);
        held.iter().filter(within).map(|p| (p.start - unit.start, p.end - unit.start, p.meaning.clone())).collect()
    };
    let described: Vec<Described> = g
        .ideas
        .iter()
        .map(|idea| {
            let sources = idea
                .sentences
                .iter()
                .take(SAMPLED_ANSWERS)
                .filter_map(|&k| Some(Source { interview: g.sentences[k].0, text: unit_text(k)?, phrases: phrases_of(k) }));
            Described::of(sources.collect(), idea.quoted.clone())
        })
        .collect();
    let mut named: Vec<NamedIdea> = Vec::new();
    for (index, (idea, this)) in g.ideas.iter().zip(&described).enumerate() {
        let others: Vec<&Described> = described.iter().enumerate().filter(|(i, _)| *i != index).map(|(_, o)| o).collect();
        let Some(label) = naming::label(this, &question_stems, &others) else { continue };
        let candidate = NamedIdea {
            key: naming::label_stems(&label).into_iter().filter(|stem| !question_stems.contains(stem)).collect(),
            negated: text::terms::negated_terms(&label, &lexicon),
            meaning: vectors::table().meaning(&label),
            sentences: idea.sentences.clone(),
            theme: Named {
                theme_id: super::theme_id(g.question, Language::En.as_str(), &naming::label_stems(&label).join(" ")),
                label,
                interviews: idea.interviews.clone(),
                quotes: Vec::new(),
            },
        };
        match named.iter_mut().find(|n| n.says_what(&candidate)) {
            Some(same) => {
                same.sentences.extend(&candidate.sentences);
                same.theme.interviews.extend(&candidate.theme.interviews);
                same.theme.interviews.sort_unstable();
                same.theme.interviews.dedup();
            }
            None => named.push(candidate),
        }
    }
    for NamedIdea { theme, sentences, .. } in &mut named {
        let with_text = sentences.iter().filter_map(|&k| Some((&g.sentences[k], unit_text(k)?)));
        theme.quotes = ideas::quoted_by(with_text, |((at, _), _)| *at)
            .into_iter()
            .map(|((at, unit), text)| Quote { interview_id: ids[*at], seq: unit.seq, text: text.to_string() })
            .collect();
    }
    named.into_iter().map(|n| n.theme).collect()
}

/// A labelled idea, with what tells whether another says the same.
struct NamedIdea {
    theme: Named,
    sentences: Vec<usize>,
    /// The label's stems, the question's aside.
    key: Vec<String>,
    /// The terms the label negates.
    negated: Vec<String>,
    /// The label's meaning (the table's).
    meaning: Meaning,
}

impl NamedIdea {
    /// Whether `other` says what this one says: of the same polarity, its
    /// label's words are within this one's or the other way round ("shipping
    /// costs", "surprise shipping costs at the end"), or the two labels mean the same.
    fn says_what(&self, other: &NamedIdea) -> bool {
        let within = |a: &[String], b: &[String]| !a.is_empty() && a.iter().all(|stem| b.contains(stem));
        self.negated == other.negated
            && (within(&self.key, &other.key) || within(&other.key, &self.key) || self.meaning.cosine(&other.meaning) >= naming::ONE_LABEL)
    }
}

/// A term theme (answers read in a language without meanings), labelled and quoted.
fn named_term_theme(question: &str, theme: &Theme, text_of: &HashMap<(InterviewId, i64), &str>, ids: &[InterviewId]) -> Named {
    let samples: Vec<Sample> = theme
        .answers
        .iter()
        .take(SAMPLED_ANSWERS)
        .filter_map(|&(at, seq)| Some(Sample { interview: at, seq, text: text_of.get(&(ids[at], seq))? }))
        .collect();
    let labelled = labels::label_and_quote(&theme.term, &samples, theme.language, MAX_QUOTES);
    let quotes = labelled
        .quotes
        .iter()
        .map(|q| {
            let interview_id = ids[q.interview];
            Quote { interview_id, seq: q.seq, text: text_of[&(interview_id, q.seq)][q.start..q.end].to_string() }
        })
        .collect();
    Named {
        theme_id: super::theme_id(question, theme.language.as_str(), &theme.term),
        label: labelled.label,
        interviews: theme.interviews.clone(),
        quotes,
    }
}

#[cfg(test)]
#[path = "real_answers.rs"]
mod real_answers;
