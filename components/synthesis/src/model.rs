//! The synthesis with a language model (docs/synthesis.md, "With a model"):
//! the model may group, name and describe themes and write a finding per
//! question, but the evidence stays exact.
//!
//! It runs in the maintenance run, never in a request: a project is queued
//! when one of its interviews ends or is erased, and a run leases it, sends
//! each question's answers in batches that fit the model's context, merges the
//! batches' themes (again in batches, as many rounds as it takes), and stores
//! the result. Every call is counted against the project's daily budget. Only
//! what can be checked is kept: an answer id the batch did not hold is
//! dropped, a quote that is not a verbatim span of the answer it names (or
//! that cuts a negation of its sentence away, and cannot be widened to whole
//! sentences) is dropped, and counts are the interviews assigned to a theme,
//! never a number the model wrote. A failed or malformed run deletes the
//! project's model synthesis: the built-in one answers until a run succeeds.

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use super::builtin::{self, Analysed};
use text::sentences::{self as quotes, has_negation, MAX_QUOTE_CHARS};
use super::{store, MAX_QUOTES};
use storage::Db;
use platform::error::ApiResult;
use platform::llm::{self, LlmConfig, LlmError};
use projects_core::{self as projects, Language};
use records as record;
use platform::time;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};

/// Variable: characters of answers (or themes) per call. The default, about
/// 3,000 tokens of input, leaves room for the instructions and the answer in
/// any model's context; a small local model may want less.
pub const BATCH_CHARS_VARIABLE: &str = "llm_context_chars";
pub const DEFAULT_BATCH_CHARS: u64 = 12_000;
/// The fewest characters a batch may be set to.
const MIN_BATCH_CHARS: u64 = 500;

fn batch_chars() -> usize {
    platform::config::var_u64(BATCH_CHARS_VARIABLE, DEFAULT_BATCH_CHARS).max(MIN_BATCH_CHARS) as usize
}
/// An answer longer than this is cut in the prompt (its quotes are still
/// checked against the whole answer).
const PROMPT_ANSWER_CHARS: usize = 1_500;
/// Projects one maintenance run synthesises, at most.
const PROJECTS_PER_RUN: usize = 2;
/// How long a run holds its project.
const LEASE_MS: i64 = 30 * 60 * 1000;
const MAX_LABEL_CHARS: usize = 200;
const MAX_DESCRIPTION_CHARS: usize = 1_000;
const MAX_FINDING_CHARS: usize = 2_000;

/// A model synthesis as stored: per question, the interviews that answered
/// it and the themes with the interviews assigned to them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Stored {
    /// Every interview the run analysed.
    pub interviews: Vec<InterviewId>,
    pub questions: Vec<StoredQuestion>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredQuestion {
    pub question: String,
    pub finding: Option<String>,
    pub answered: Vec<InterviewId>,
    pub themes: Vec<StoredTheme>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredTheme {
    pub theme_id: String,
    pub label: String,
    pub description: Option<String>,
    pub interviews: Vec<InterviewId>,
    pub quotes: Vec<super::Quote>,
}

/// The maintenance run's part: synthesises up to [`PROJECTS_PER_RUN`] queued
/// projects with the model. Without a model the queue is emptied, and the
/// queued projects' model syntheses (from when one was configured) deleted:
/// the built-in synthesis answers for them. How many it wrote.
pub fn run_queue(db: &Db, llm: &LlmConfig, now: std::time::SystemTime) -> ApiResult<usize> {
    if !llm.enabled() {
        store::clear_queue(db)?;
        return Ok(0);
    }
    let mut written = 0;
    for _ in 0..PROJECTS_PER_RUN {
        let now_ms = time::unix_millis(now);
        let Some(leased) = store::lease_queued(db, now_ms, now_ms + LEASE_MS)? else { break };
        let result = match synthesize(db, leased.project_id, llm) {
            Ok(stored) => Some(serde_json::to_string(&stored).map_err(platform::ApiError::internal)?),
            Err(reason) => {
                eprintln!("synthesis of project {}: {reason}; the built-in synthesis answers", leased.project_id);
                None
            }
        };
        let generated_at = time::rfc3339_now();
        let stored = store::finish_queued(db, &leased, result.as_deref().map(|body| (generated_at.as_str(), body)))?;
        written += usize::from(stored && result.is_some());
    }
    Ok(written)
}

/// Why a run keeps the built-in synthesis.
#[derive(Debug)]
pub enum RunFailure {
    Storage(platform::ApiError),
    Model(LlmError),
    /// The project's model calls for today are spent.
    Budget,
}

impl std::fmt::Display for RunFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunFailure::Storage(error) => write!(f, "storage: {error:?}"),
            RunFailure::Model(error) => write!(f, "{error}"),
            RunFailure::Budget => f.write_str("today's model calls are spent"),
        }
    }
}

impl From<platform::ApiError> for RunFailure {
    fn from(error: platform::ApiError) -> RunFailure {
        RunFailure::Storage(error)
    }
}

impl From<LlmError> for RunFailure {
    fn from(error: LlmError) -> RunFailure {
        RunFailure::Model(error)
    }
}

/// One answer as the model sees it: its id in the prompt and where it is.
struct Answer<'t> {
    id: String,
    interview: usize,
    seq: i64,
    text: &'t str,
    /// The language it was read in.
    language: Language,
}

/// Asks the model, counting the call against the project's budget.
fn ask(db: &Db, project_id: ProjectId, llm: &LlmConfig, system: &str, user: &str) -> Result<serde_json::Map<String, Value>, RunFailure> {
    let admitted = projects::model_calls::admit(db, project_id, llm)?;
    if !admitted.enabled() {
        return Err(RunFailure::Budget);
    }
    Ok(llm::parse_json_answer(&llm::ask(&admitted, llm::Question::json(system, user))?)?)
}

/// A theme as checked, before counting: its words and its evidence.
#[derive(Debug, Clone, Default)]
struct Checked {
    label: String,
    description: Option<String>,
    /// The interviews assigned to it (their places in the synthesis).
    interviews: BTreeSet<usize>,
    /// `(interview, seq, start, end)` of each checked quote.
    quotes: Vec<(usize, i64, usize, usize)>,
}

fn text_field(value: Option<&Value>, max: usize) -> Option<String> {
    let text = value?.as_str()?.trim();
    (!text.is_empty() && text.chars().count() <= max).then(|| text.to_string())
}

fn bad(reason: &str) -> RunFailure {
    RunFailure::Model(LlmError::BadAnswer(reason.to_string()))
}

/// The span a model's quote may stand for: its place in the answer, widened
/// to its whole sentences when it leaves a negation of them out; `None` when
/// it is no verbatim span of the answer, or the widened span is too long.
pub fn checked_quote(answer: &str, quote: &str, language: Language) -> Option<(usize, usize)> {
    let quote = quote.trim();
    if quote.is_empty() {
        return None;
    }
    let start = answer.find(quote)?;
    let end = start + quote.len();
    let sentences = quotes::sentences(answer);
    let touched: Vec<&(usize, usize)> = sentences.iter().filter(|(s, e)| *s < end && start < *e).collect();
    let outside = touched.iter().any(|&&(s, e)| {
        has_negation(&answer[s..start.max(s).min(e)], language) || has_negation(&answer[end.min(e).max(s)..e], language)
    });
    let (start, end) = match (outside, touched.first(), touched.last()) {
        (true, Some(first), Some(last)) => (first.0.min(start), last.1.max(end)),
        _ => (start, end),
    };
    (answer[start..end].chars().count() <= MAX_QUOTE_CHARS).then_some((start, end))
}

/// The themes of one batch of answers, checked against it.
fn batch_themes(map: &serde_json::Map<String, Value>, batch: &[Answer]) -> Result<Vec<Checked>, RunFailure> {
    let themes = map.get("themes").and_then(Value::as_array).ok_or_else(|| bad("no \"themes\" list"))?;
    let by_id: HashMap<&str, &Answer> = batch.iter().map(|a| (a.id.as_str(), a)).collect();
    let mut checked = Vec::new();
    for theme in themes {
        let Some(label) = text_field(theme.get("label"), MAX_LABEL_CHARS) else { continue };
        let mut out = Checked { label, description: text_field(theme.get("description"), MAX_DESCRIPTION_CHARS), ..Checked::default() };
        let ids = theme.get("answers").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let assigned: Vec<&Answer> = ids.iter().filter_map(|id| by_id.get(id.as_str()?).copied()).collect();
        out.interviews = assigned.iter().map(|a| a.interview).collect();
        for quote in theme.get("quotes").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            let answer = quote.get("answer").and_then(Value::as_str).and_then(|id| by_id.get(id).copied());
            let (Some(answer), Some(text)) = (answer, quote.get("text").and_then(Value::as_str)) else { continue };
            if !assigned.iter().any(|a| a.id == answer.id) {
                continue;
            }
            if let Some((start, end)) = checked_quote(answer.text, text, answer.language) {
                out.quotes.push((answer.interview, answer.seq, start, end));
            }
        }
        checked.push(out);
    }
    Ok(checked)
}

const BATCH_SYSTEM: &str = "You are a qualitative researcher. Group the answers below into themes: ideas that recur \
across the answers of different participants. Answer with one JSON object: {\"themes\": [{\"label\": a short name for \
the theme in the participants' own words, \"description\": one or two sentences, \"answers\": [the id of every answer \
that expresses it], \"quotes\": [{\"answer\": an id, \"text\": an exact excerpt of that answer, copied character for \
character, at most 400 characters}]}], \"finding\": one paragraph on what the answers say about the question}. At most \
12 themes; a theme needs answers of at least two participants; at most 5 quotes per theme.";

const MERGE_SYSTEM: &str = "You are a qualitative researcher. The themes below were found in separate batches of \
answers to one research question; several may be the same idea. Merge them. Answer with one JSON object: {\"themes\": \
[{\"label\": a short name in the participants' words, \"description\": one or two sentences, \"merges\": [the ids of \
the themes below that it unites]}], \"finding\": one paragraph on what the answers say about the question}. Every theme \
below belongs to at most one merged theme; at most 12 themes.";

/// Splits items into runs whose prompt lines fit [`batch_chars`] (one each at least).
fn batches<T>(items: &[T], line: impl Fn(&T) -> usize) -> Vec<&[T]> {
    let limit = batch_chars();
    let mut out = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        let length = line(item);
        if i > start && size + length > limit {
            out.push(&items[start..i]);
            (start, size) = (i, 0);
        }
        size += length;
    }
    if start < items.len() {
        out.push(&items[start..]);
    }
    out
}

fn prompt_text(text: &str) -> String {
    let cut: String = text.chars().take(PROMPT_ANSWER_CHARS).collect();
    cut.replace(['\n', '\r'], " ")
}

/// Rounds of merging before a run gives up.
const MAX_MERGE_ROUNDS: usize = 6;

fn merge_prompt(question: &str, group: &[Checked]) -> String {
    let lines: Vec<String> = group
        .iter()
        .enumerate()
        .map(|(i, t)| format!("[T{}] {}: {} ({} participants)", i + 1, t.label, t.description.as_deref().unwrap_or(""), t.interviews.len()))
        .collect();
    format!("Research question: {question}\n\nThemes:\n{}", lines.join("\n"))
}

/// The merged themes of one merge call: each unites the evidence of the themes it names.
fn merged_themes(map: &serde_json::Map<String, Value>, group: &[Checked]) -> Result<Vec<Checked>, RunFailure> {
    let list = map.get("themes").and_then(Value::as_array).ok_or_else(|| bad("no \"themes\" list"))?;
    let mut merged = Vec::new();
    for theme in list {
        let Some(label) = text_field(theme.get("label"), MAX_LABEL_CHARS) else { continue };
        let mut out = Checked { label, description: text_field(theme.get("description"), MAX_DESCRIPTION_CHARS), ..Checked::default() };
        let merges = theme.get("merges").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        for id in merges.iter().filter_map(Value::as_str) {
            let part = id.strip_prefix('T').and_then(|n| n.parse::<usize>().ok()).and_then(|n| group.get(n.wrapping_sub(1)));
            if let Some(part) = part {
                out.interviews.extend(&part.interviews);
                out.quotes.extend(&part.quotes);
            }
        }
        merged.push(out);
    }
    Ok(merged)
}

/// One question's themes and finding from the model, checked.
fn question_themes(
    db: &Db,
    project_id: ProjectId,
    llm: &LlmConfig,
    question: &str,
    answers: &[Answer],
) -> Result<(Vec<Checked>, Option<String>), RunFailure> {
    let mut themes = Vec::new();
    let mut finding = None;
    let answer_batches = batches(answers, |a| a.text.chars().count().min(PROMPT_ANSWER_CHARS) + 12);
    for batch in &answer_batches {
        let lines: Vec<String> = batch.iter().map(|a| format!("[{}] {}", a.id, prompt_text(a.text))).collect();
        let user = format!("Research question: {question}\n\nAnswers (an id, then the participant's words):\n{}", lines.join("\n"));
        let map = ask(db, project_id, llm, BATCH_SYSTEM, &user)?;
        finding = text_field(map.get("finding"), MAX_FINDING_CHARS);
        themes.extend(batch_themes(&map, batch)?);
    }
    // Several batches: their themes are merged, in rounds of what fits a call,
    // until one call has seen them all.
    let mut rounds = 0;
    while answer_batches.len() > 1 && !themes.is_empty() {
        let groups: Vec<Vec<Checked>> = batches(&themes, |t| t.label.len() + t.description.as_ref().map_or(0, String::len) + 24)
            .into_iter()
            .map(<[Checked]>::to_vec)
            .collect();
        let mut merged = Vec::new();
        for group in &groups {
            let map = ask(db, project_id, llm, MERGE_SYSTEM, &merge_prompt(question, group))?;
            finding = text_field(map.get("finding"), MAX_FINDING_CHARS);
            merged.extend(merged_themes(&map, group)?);
        }
        themes = merged;
        rounds += 1;
        if groups.len() == 1 {
            break;
        }
        if rounds == MAX_MERGE_ROUNDS {
            return Err(bad("the merged themes do not fit one call"));
        }
    }
    Ok((themes, finding))
}

/// The model synthesis of a project, from its analysed interviews now.
fn synthesize(db: &Db, project_id: ProjectId, llm: &LlmConfig) -> Result<Stored, RunFailure> {
    let Some(project) = projects::store::find_for_link(db, project_id)? else {
        return Err(RunFailure::Storage(platform::ApiError::not_found("Project")));
    };
    let analysed = Analysed::read(db, project.tenant_id, project_id)?;
    let place: HashMap<InterviewId, usize> = analysed.interviews.iter().enumerate().map(|(i, e)| (e.interview_id, i)).collect();
    let digests = builtin::read_digests(db, project_id, &place)?;
    let plan = builtin::plan_questions(&project);
    let questions = builtin::questions(&plan, &digests, &place, None);
    let ended = &analysed.interviews;
    let wanted: Vec<(InterviewId, i64)> = questions
        .iter()
        .flat_map(|q| q.interviews.iter())
        .flat_map(|i| i.answers.iter().map(move |a| (ended[i.interview].interview_id, a.seq)))
        .collect();
    let texts = record::store::answer_texts(db, &wanted)?;
    let text_of: HashMap<(InterviewId, i64), &str> = texts.iter().map(|(id, seq, text)| ((*id, *seq), text.as_str())).collect();
    let id_of = |at: usize| analysed.interviews[at].interview_id;
    let mut stored = Stored { interviews: analysed.interviews.iter().map(|i| i.interview_id).collect(), questions: Vec::new() };
    for question in &questions {
        let mut answers = Vec::new();
        for interview in &question.interviews {
            for answer in &interview.answers {
                if let Some(text) = text_of.get(&(analysed.interviews[interview.interview].interview_id, answer.seq)) {
                    let id = format!("A{}", answers.len() + 1);
                    answers.push(Answer { id, interview: interview.interview, seq: answer.seq, text, language: interview.language });
                }
            }
        }
        let (themes, finding) = match answers.is_empty() {
            true => (Vec::new(), None),
            false => question_themes(db, project_id, llm, question.question, &answers)?,
        };
        let mut themes: Vec<StoredTheme> = themes
            .into_iter()
            .filter(|t| t.interviews.len() >= super::themes::MIN_INTERVIEWS)
            .map(|t| {
                let mut quotes: Vec<super::Quote> = Vec::new();
                for &(at, seq, start, end) in &t.quotes {
                    let interview_id = id_of(at);
                    if quotes.len() < MAX_QUOTES && !quotes.iter().any(|q| q.interview_id == interview_id) {
                        let text = text_of[&(analysed.interviews[at].interview_id, seq)][start..end].to_string();
                        quotes.push(super::Quote { interview_id, seq, text });
                    }
                }
                StoredTheme {
                    theme_id: super::theme_id(question.question, "model", &t.label.to_lowercase()),
                    interviews: t.interviews.iter().map(|&at| id_of(at)).collect(),
                    label: t.label,
                    description: t.description,
                    quotes,
                }
            })
            .collect();
        themes.sort_by(|a, b| b.interviews.len().cmp(&a.interviews.len()));
        themes.truncate(super::themes::MAX_THEMES);
        stored.questions.push(StoredQuestion {
            question: question.question.to_string(),
            finding,
            answered: question.interviews.iter().map(|i| id_of(i.interview)).collect(),
            themes,
        });
    }
    Ok(stored)
}

/// A stored model synthesis as it stands now: only interviews that still
/// count are counted or quoted (one erased, flagged or found low-effort since
/// the run is gone from it), and a theme left with fewer than two is dropped.
pub fn as_now(stored: &Stored, project_id: ProjectId, generated_at: &str, analysed: &Analysed) -> super::Synthesis {
    let counted: std::collections::HashSet<InterviewId> = analysed.interviews.iter().map(|i| i.interview_id).collect();
    let still = |ids: &[InterviewId]| ids.iter().filter(|id| counted.contains(id)).count();
    let questions = stored
        .questions
        .iter()
        .map(|question| {
            let answered = still(&question.answered);
            let mut themes: Vec<super::ThemeSynthesis> = question
                .themes
                .iter()
                .map(|theme| (theme, still(&theme.interviews)))
                .filter(|(_, count)| *count >= super::themes::MIN_INTERVIEWS)
                .map(|(theme, count)| super::ThemeSynthesis {
                    theme_id: theme.theme_id.clone(),
                    label: theme.label.clone(),
                    description: theme.description.clone(),
                    interviews: count,
                    share: count as f64 / answered.max(1) as f64,
                    quotes: theme.quotes.iter().filter(|q| counted.contains(&q.interview_id)).cloned().collect(),
                })
                .collect();
            themes.sort_by(|a, b| b.interviews.cmp(&a.interviews));
            super::QuestionSynthesis { question: question.question.clone(), answered, finding: question.finding.clone(), themes }
        })
        .collect();
    super::Synthesis {
        project_id,
        generated_at: generated_at.to_string(),
        interviews_analyzed: still(&stored.interviews),
        interviews_excluded: analysed.excluded,
        // The model reads the answers themselves, not their meanings: nothing waits.
        interviews_waiting: 0,
        written_by: super::WrittenBy::Model,
        participants: None,
        questions,
    }
}
