//! The built-in synthesis, offline and deterministic: the same interviews
//! always give the same synthesis. It reads the project's analysed
//! interviews and their digests, groups each question's answers into themes,
//! then reads the few answers its labels and quotes come from.

use super::labels::{self, Sample};
use super::quality::Quality;
use super::themes::{self, InterviewAnswers, Theme};
use super::{store, synthesized_questions, terms, QuestionSynthesis, Quote, Synthesis, ThemeSynthesis, WrittenBy, MAX_QUOTES};
use crate::db::Db;
use crate::error::ApiResult;
use crate::projects::{Language, Project};
use crate::record;
use crate::sessions::probes::lexicon::Lexicon;
use crate::time;
use std::collections::{HashMap, HashSet};

/// Answers of a theme read for its label and quotes, at most.
const SAMPLED_ANSWERS: usize = 30;

/// The interviews a synthesis analyses, oldest first, and how many it left out as low-effort.
pub struct Analysed {
    pub interviews: Vec<record::store::Ended>,
    pub excluded: usize,
}

impl Analysed {
    pub fn read(db: &Db, tenant_id: &str, project_id: &str) -> ApiResult<Analysed> {
        let ended = record::store::ended_interviews(db, tenant_id, project_id)?;
        let (interviews, excluded): (Vec<_>, Vec<_>) =
            ended.into_iter().partition(|i| !i.quality.as_ref().is_some_and(Quality::is_low_effort));
        Ok(Analysed { interviews, excluded: excluded.len() })
    }
}

/// The project's digests of analysed interviews, every page of them.
pub(super) fn read_digests(db: &Db, project_id: &str, place: &HashMap<&str, usize>) -> ApiResult<Vec<store::Digest>> {
    let mut digests: Vec<store::Digest> = Vec::new();
    let mut after: Option<(String, i64)> = None;
    loop {
        let page = store::digests(db, project_id, after.as_ref().map(|(id, index)| (id.as_str(), *index)))?;
        let done = (page.len() as i64) < store::DIGEST_PAGE;
        after = page.last().map(|d| (d.interview_id.clone(), d.question_index));
        digests.extend(page.into_iter().filter(|d| place.contains_key(d.interview_id.as_str())));
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
/// longer has come after, by the position they had), each with its answers.
pub(super) fn questions<'d>(
    plan: &'d [(usize, String)],
    digests: &'d [store::Digest],
    place: &HashMap<&str, usize>,
) -> Vec<Question<'d>> {
    let mut order: Vec<(i64, &str)> = plan.iter().map(|(index, q)| (*index as i64, q.as_str())).collect();
    let mut by_question: HashMap<&str, Vec<(usize, &store::Digest)>> = HashMap::new();
    for digest in digests {
        let question = digest.question.as_str();
        if !by_question.contains_key(question) && !order.iter().any(|(_, q)| *q == question) {
            order.push((digest.question_index + plan.len() as i64, question));
        }
        by_question.entry(question).or_default().push((place[digest.interview_id.as_str()], digest));
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
                    answers: terms::decode(&digest.terms),
                })
                .collect();
            Question { question, interviews }
        })
        .collect()
}

/// One question's entry, before labels and quotes.
struct Grouped<'d> {
    question: &'d str,
    answered: usize,
    themes: Vec<Theme>,
}

/// A question's themes, its own words aside (per language of its interviews).
fn group(question: Question) -> Grouped {
    let mut echoed: HashMap<Language, HashSet<String>> = HashMap::new();
    for interview in &question.interviews {
        echoed.entry(interview.language).or_insert_with(|| {
            terms::answer_terms(question.question, &Lexicon::of(interview.language)).into_iter().collect()
        });
    }
    let answered = question.interviews.iter().filter(|i| !i.answers.is_empty()).count();
    Grouped { question: question.question, answered, themes: themes::group(&question.interviews, &echoed) }
}

/// The built-in synthesis of the tenant's project.
pub fn builtin(db: &Db, project: &Project) -> ApiResult<Synthesis> {
    let project_id = project.project_id.as_str();
    let analysed = Analysed::read(db, &project.tenant_id, project_id)?;
    let place: HashMap<&str, usize> =
        analysed.interviews.iter().enumerate().map(|(i, e)| (e.interview_id.as_str(), i)).collect();
    let digests = read_digests(db, project_id, &place)?;
    let plan = plan_questions(project);
    let grouped: Vec<Grouped> = questions(&plan, &digests, &place).into_iter().map(group).collect();

    // The answers labels and quotes come from, read in one pass.
    let wanted: Vec<(&str, i64)> = grouped
        .iter()
        .flat_map(|g| g.themes.iter())
        .flat_map(|t| t.answers.iter().take(SAMPLED_ANSWERS))
        .map(|&(at, seq)| (analysed.interviews[at].interview_id.as_str(), seq))
        .collect();
    let texts = record::store::answer_texts(db, &wanted)?;
    let text_of: HashMap<(&str, i64), &str> = texts.iter().map(|(id, seq, text)| ((id.as_str(), *seq), text.as_str())).collect();

    let questions = grouped
        .iter()
        .map(|g| QuestionSynthesis {
            question: g.question.to_string(),
            answered: g.answered,
            finding: None,
            themes: g
                .themes
                .iter()
                .map(|theme| {
                    let samples: Vec<Sample> = theme
                        .answers
                        .iter()
                        .take(SAMPLED_ANSWERS)
                        .filter_map(|&(at, seq)| {
                            let text = text_of.get(&(analysed.interviews[at].interview_id.as_str(), seq))?;
                            Some(Sample { interview: at, seq, text })
                        })
                        .collect();
                    let labelled = labels::label_and_quote(&theme.term, &samples, theme.language, MAX_QUOTES);
                    let quotes = labelled
                        .quotes
                        .iter()
                        .map(|q| {
                            let interview_id = &analysed.interviews[q.interview].interview_id;
                            let text = text_of[&(interview_id.as_str(), q.seq)];
                            Quote { interview_id: interview_id.clone(), seq: q.seq, text: text[q.start..q.end].to_string() }
                        })
                        .collect();
                    ThemeSynthesis {
                        theme_id: super::theme_id(g.question, theme.language.as_str(), &theme.term),
                        label: labelled.label,
                        description: None,
                        interviews: theme.interviews.len(),
                        share: theme.interviews.len() as f64 / g.answered.max(1) as f64,
                        quotes,
                    }
                })
                .collect(),
        })
        .collect();
    Ok(Synthesis {
        project_id: project_id.to_string(),
        generated_at: time::rfc3339_now(),
        interviews_analyzed: analysed.interviews.len(),
        interviews_excluded: analysed.excluded,
        written_by: WrittenBy::BuiltIn,
        questions,
    })
}
