//! What the interviews say (docs/synthesis.md): per research question, the
//! themes that recur across interviews, each traced to the participants' own
//! words.
//!
//! When an interview ends, [`assess`] decides its quality and reduces its
//! answers to digests of terms (in the transaction that ends it); a synthesis
//! then reads the project's digests, groups each question's answers into
//! themes ([`themes`]), and reads back only the answers its labels and quotes
//! come from ([`labels`], [`quotes`]).
//!
//! Submodules: [`answers`] (what a synthesis reads of an interview),
//! [`quality`] (the quality signals), [`terms`] (the digests), [`store`]
//! (the synthesis' tables).

pub mod answers;
pub mod builtin;
pub mod communities;
pub mod digest;
pub mod ideas;
pub mod labels;
pub mod model;
pub mod naming;
pub mod polarity;
pub mod profile;
pub mod quality;
pub mod report;
pub mod store;
pub mod themes;
pub mod units;

pub use builtin::{builtin, Analysed};

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::ids::TenantId;
use storage::{Db, Tx};
use platform::error::{ApiError, ApiResult};
use projects_core::survey::BlockType;
use projects_core::{Environment, Language, Project, ProjectFields};
use records::{self as record, Interview};
use projects_core::plan::Plan;
use text::lexicon::Lexicon;
use text_enum::text_enum;
use records::quality::Quality;
use serde::Serialize;

/// Quotes per theme, at most.
pub const MAX_QUOTES: usize = 5;

text_enum! {
    /// Who wrote a synthesis: the built-in grouping, or a language model.
    pub enum WrittenBy { BuiltIn = "builtin", Model = "model" }
}

/// `GET /v1/projects/{id}/synthesis`.
#[derive(Debug, Clone, Serialize)]
pub struct Synthesis {
    pub project_id: ProjectId,
    pub generated_at: String,
    pub interviews_analyzed: usize,
    pub interviews_excluded: usize,
    /// Analysed interviews whose sentences wait for their meanings (the
    /// maintenance run after they end gives them): not in the themes yet.
    pub interviews_waiting: usize,
    pub written_by: WrittenBy,
    /// Who the participants say they are (the built-in synthesis'; a
    /// model's synthesis has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub participants: Option<profile::Participants>,
    pub questions: Vec<QuestionSynthesis>,
}

#[derive(Debug, Clone, Serialize)]
pub struct QuestionSynthesis {
    pub question: String,
    /// Interviews with at least one answer to it.
    pub answered: usize,
    /// The model's one-paragraph finding; absent from a built-in synthesis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finding: Option<String>,
    pub themes: Vec<ThemeSynthesis>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThemeSynthesis {
    pub theme_id: String,
    pub label: String,
    /// The model's description; absent from a built-in synthesis.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub interviews: usize,
    pub share: f64,
    pub quotes: Vec<Quote>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Quote {
    pub interview_id: InterviewId,
    pub seq: i64,
    pub text: String,
}

/// `GET /v1/projects/{project_id}/synthesis`: 404 for an unknown or another
/// tenant's project.
pub fn synthesis(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<Synthesis> {
    Ok(of_project(db, tenant_id, project_id)?.0)
}

/// The tenant's project's synthesis, and the project: the model's when a run
/// stored one, else the built-in one.
fn of_project(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<(Synthesis, Project)> {
    let project = projects_core::store::get(db, tenant_id, project_id)?.ok_or_else(|| ApiError::not_found("Project"))?;
    if let Some((generated_at, body)) = store::model_synthesis(db, project_id)? {
        match serde_json::from_str::<model::Stored>(&body) {
            Ok(stored) => {
                let analysed = Analysed::read(db, tenant_id, project_id)?;
                return Ok((model::as_now(&stored, project_id, &generated_at, &analysed), project));
            }
            Err(error) => eprintln!("project {project_id}: unreadable model synthesis ({error}); the built-in one answers"),
        }
    }
    Ok((builtin(db, &project)?, project))
}

/// `GET /v1/projects/{project_id}/synthesis-report`: the synthesis as a
/// printable HTML page, framed in the project's first interview language.
pub fn report(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<platform::http::ApiResponse> {
    let (synthesis, project) = of_project(db, tenant_id, project_id)?;
    let language = project.fields.interview_languages.first().copied().unwrap_or(Language::En);
    Ok(report::response(&synthesis, &project.fields.project_name, language.as_str()))
}

/// What the end of an interview stores for the synthesis.
pub struct Assessment {
    pub quality: Quality,
    /// Per question answered, the digest of its answers.
    digests: Vec<store::NewDigest>,
}

/// The questions a synthesis has an entry for, in plan order: the research
/// questions an interview asks, or a survey's open-question blocks; `None`
/// for a position that is no such question.
pub fn synthesized_questions(fields: &ProjectFields, language: Language) -> Vec<Option<String>> {
    let plan = Plan::for_project(fields, language);
    match &fields.survey_blocks {
        Some(blocks) => blocks
            .iter()
            .zip(plan.questions)
            .map(|(block, question)| (block.kind == BlockType::OpenQuestion).then_some(question))
            .collect(),
        None => plan.questions.into_iter().map(Some).collect(),
    }
}

/// Assesses an interview as it ends (or, for one that ended before quality
/// signals existed, when the maintenance run gets to it): its quality, and,
/// for a production interview, its answers' digests per question.
pub fn assess(tx: &Tx, interview: &Interview) -> ApiResult<Assessment> {
    let turns = record::store::turns(tx, interview.interview_id)?;
    let project = projects_core::store::find_for_link(tx, interview.project_id)?;
    let blocks = project.as_ref().and_then(|p| p.fields.survey_blocks.as_deref());
    let answers = answers::free_text_answers(&turns, blocks);
    let quality = quality::assess(&answers, interview.language, interview.mode);
    let mut digests = Vec::new();
    if let (Some(project), Environment::Production) = (&project, interview.environment) {
        let questions = synthesized_questions(&project.fields, interview.language);
        for (index, question) in questions.iter().enumerate() {
            let Some(question) = question else { continue };
            let answered: Vec<&answers::Answer> = answers.iter().filter(|a| a.question_index == Some(index)).collect();
            if answered.is_empty() {
                continue;
            }
            let texts: Vec<&str> = answered.iter().map(|a| a.text).collect();
            let language = text::terms::reading_language(&texts.join("\n"), interview.language);
            let lexicon = Lexicon::of(language);
            let lines: Vec<(i64, Vec<String>)> = answered.iter().map(|a| (a.seq, text::terms::answer_terms(a.text, &lexicon))).collect();
            digests.push(store::NewDigest { question_index: index, question: question.clone(), language, terms: digest::encode(&lines) });
        }
    }
    Ok(Assessment { quality, digests })
}

/// Stores what [`assess`] found for the synthesis, in the same transaction,
/// and queues a production interview's project for the model's synthesis.
pub fn store_assessment(tx: &Tx, interview: &Interview, assessment: &Assessment) -> ApiResult<()> {
    if interview.environment != Environment::Production {
        return Ok(());
    }
    store::write_digests(tx, interview.project_id, interview.interview_id, &assessment.digests)?;
    store::enqueue(tx, interview.project_id, platform::time::unix_millis(platform::time::now()))
}

/// Interviews the maintenance run assesses late per run, at most.
pub const ASSESS_BATCH: i64 = 200;

/// The maintenance run: assesses interviews that ended before quality
/// signals existed (their quality, their digests). How many it assessed.
pub fn assess_unassessed(db: &Db) -> ApiResult<usize> {
    let mut assessed = 0;
    for interview_id in record::store::unassessed(db, ASSESS_BATCH)? {
        assessed += usize::from(db.transaction(|tx| {
            let Some(interview) = record::store::find(tx, interview_id)?.filter(|i| i.quality.is_none()) else {
                return Ok(false);
            };
            let assessment = assess(tx, &interview)?;
            record::store::set_quality(tx, interview_id, &assessment.quality)?;
            store_assessment(tx, &interview, &assessment)?;
            Ok(true)
        })?);
    }
    Ok(assessed)
}


/// Digests the maintenance run gives meanings per run, at most.
pub const EMBED_BATCH: i64 = 200;
/// A maintenance run stops giving meanings once this long has passed (the
/// model takes about 50 ms a sentence: a run that overran its tick would
/// overlap the next); what is left waits for the next run.
pub const EMBED_BUDGET: std::time::Duration = std::time::Duration::from_secs(3);

/// The maintenance run: gives the sentences of ended interviews' answers
/// their meanings with `encoder` (`units`), for the digests that have none
/// yet or a lesser model's (answers read in a language without meanings get
/// none, once), until [`EMBED_BUDGET`] has passed. How many digests it wrote.
pub fn embed_pending(db: &Db, encoder: &mut dyn units::Encoder) -> ApiResult<usize> {
    let started = std::time::Instant::now();
    let model = encoder.model();
    let pending = store::unembedded(db, model, EMBED_BATCH)?;
    let mut written = 0;
    for digest in &pending {
        if started.elapsed() >= EMBED_BUDGET {
            break;
        }
        let seqs: Vec<(InterviewId, i64)> = match units::has_meanings(digest.language) {
            true => digest::decode(&digest.terms).iter().map(|a| (digest.key.interview_id, a.seq)).collect(),
            false => Vec::new(),
        };
        let texts = if seqs.is_empty() { Vec::new() } else { record::store::answer_texts(db, &seqs)? };
        let answers: Vec<(i64, &str)> = texts.iter().map(|(_, seq, text)| (*seq, text.as_str())).collect();
        let found = units::of_answers(&answers, &digest.question, digest.language, encoder)
            .map_err(|error| ApiError::internal(anyhow::anyhow!("giving sentences their meanings with {model}: {error}")))?;
        let phrases = (!found.phrases.is_empty()).then(|| units::encode_phrases(&found.phrases));
        store::write_units(db, &digest.key, &units::encode(&found.units), phrases.as_deref(), model)?;
        written += 1;
    }
    Ok(written)
}

/// A theme id that stays the same while the theme does: from its question,
/// its language (or `model`) and its term (or label).
fn theme_id(question: &str, language: &str, term: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("{question}\n{language}\n{term}").as_bytes());
    let hex: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("th_{hex}")
}
