//! The synthesis' own tables in SQLite: the answer digests written when an
//! interview ends (`answer_terms`), the model's syntheses
//! (`model_syntheses`) and the projects whose model synthesis is due
//! (`synthesis_queue`). The interviews and answers it reads are the record's
//! (`records::store`).

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use storage::{self as db, Db, SqlValue, Tx};
use platform::error::ApiResult;
use projects_core::Language;
use crate::units::MeaningModel;

/// One interview's answers to one question, as the interview asked it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub interview_id: InterviewId,
    pub question_index: i64,
    pub question: String,
    /// The language the answers were read in.
    pub language: Language,
    /// See `digest::encode`.
    pub terms: String,
    /// Its sentences and their meanings (`units::encode`); `None` until the
    /// maintenance run writes them.
    pub units: Option<String>,
    /// The model that made the meanings (`None`: none yet, or written before
    /// models were recorded, to be made again).
    pub units_by: Option<MeaningModel>,
}

/// Digests per statement when a synthesis reads them.
pub const DIGEST_PAGE: i64 = 2_000;

/// The next page of the project's digests after `(interview_id, question_index)`.
pub fn digests(db: &Db, project_id: ProjectId, after: Option<(InterviewId, i64)>) -> ApiResult<Vec<Digest>> {
    let (after_id, after_index) = after.map_or((String::new(), -1), |(id, index)| (id.to_string(), index));
    let result = db.query(
        "SELECT interview_id, question_index, question, language, terms, units, units_by FROM answer_terms
         WHERE project_id = ? AND (interview_id, question_index) > (?, ?)
         ORDER BY interview_id, question_index LIMIT ?",
        &[db::text(project_id), db::text(after_id), SqlValue::Integer(after_index), SqlValue::Integer(DIGEST_PAGE)],
    )?;
    db::read_all(&result, |row| {
        Ok(Digest {
            interview_id: row.id("interview_id")?,
            question_index: row.int("question_index")?,
            question: row.text("question")?,
            language: row.named("language")?,
            terms: row.text("terms")?,
            units: row.opt_text("units")?,
            units_by: row.opt_text("units_by")?.as_deref().and_then(MeaningModel::parse),
        })
    })
}

/// Digests whose sentences `model` is to give meanings, up to `limit`:
/// those with none (or none recorded by model), then those a lesser model
/// gave theirs. `(digest key, question, language, terms)`, on the index `answer_terms_units_by`.
pub fn unembedded(db: &Db, model: MeaningModel, limit: i64) -> ApiResult<Vec<Pending>> {
    let read = |condition: &str, values: &[SqlValue]| -> ApiResult<Vec<Pending>> {
        let result = db.query(
            &format!("SELECT project_id, interview_id, question_index, question, language, terms FROM answer_terms WHERE {condition} LIMIT ?"),
            values,
        )?;
        db::read_all(&result, |row| {
            Ok(Pending {
                key: DigestKey {
                    project_id: row.id("project_id")?,
                    interview_id: row.id("interview_id")?,
                    question_index: row.int("question_index")?,
                },
                question: row.text("question")?,
                language: row.named("language")?,
                terms: row.text("terms")?,
            })
        })
    };
    let mut pending = read("units_by IS NULL", &[SqlValue::Integer(limit)])?;
    for lesser in model.lesser() {
        let room = limit - pending.len() as i64;
        if room > 0 {
            pending.extend(read("units_by = ?", &[db::text(lesser.as_str()), SqlValue::Integer(room)])?);
        }
    }
    Ok(pending)
}

/// A digest whose sentences are to get meanings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    pub key: DigestKey,
    pub question: String,
    pub language: Language,
    pub terms: String,
}

/// Which digest: one interview's answers to one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DigestKey {
    pub project_id: ProjectId,
    pub interview_id: InterviewId,
    pub question_index: i64,
}

/// Stores a digest's sentences and their meanings, made by `model`, and the
/// phrases its labels may come from (`None`: none kept), unless another run
/// gave it this model's or a better one's meanings meanwhile (or the
/// interview was erased: then there is no row to update).
pub fn write_units(db: &Db, key: &DigestKey, units: &str, phrases: Option<&str>, model: MeaningModel) -> ApiResult<()> {
    let lesser = model.lesser();
    let mut values = vec![
        db::text(units),
        phrases.map_or(SqlValue::Null, db::text),
        db::text(model.as_str()),
        db::text(&key.project_id),
        db::text(key.interview_id),
        SqlValue::Integer(key.question_index),
    ];
    values.extend(lesser.iter().map(|lesser| db::text(lesser.as_str())));
    let replaceable = match lesser.len() {
        0 => "units_by IS NULL".to_string(),
        n => format!("(units_by IS NULL OR units_by IN ({}))", vec!["?"; n].join(", ")),
    };
    db.execute(
        &format!(
            "UPDATE answer_terms SET units = ?, phrases = ?, units_by = ? WHERE project_id = ? AND interview_id = ? AND question_index = ? AND {replaceable}"
        ),
        &values,
    )
}

/// Interviews whose label phrases one statement reads, at most.
const PHRASES_PER_STATEMENT: usize = 200;

/// The label phrases (`units::encode_phrases`) of the project's digests of
/// `interviews` whose meanings `model` made: `(interview_id, question, phrases)`.
pub fn label_phrases(db: &Db, project_id: ProjectId, interviews: &[InterviewId], model: MeaningModel) -> ApiResult<Vec<(InterviewId, String, String)>> {
    let mut found = Vec::new();
    for batch in interviews.chunks(PHRASES_PER_STATEMENT) {
        let mut values = vec![db::text(project_id), db::text(model.as_str())];
        values.extend(batch.iter().map(|id| db::text(id)));
        let result = db.query(
            &format!(
                "SELECT interview_id, question, phrases FROM answer_terms
                 WHERE project_id = ? AND units_by = ? AND phrases IS NOT NULL AND interview_id IN ({})",
                vec!["?"; batch.len()].join(", ")
            ),
            &values,
        )?;
        found.extend(db::read_all(&result, |row| Ok((row.id("interview_id")?, row.text("question")?, row.text("phrases")?)))?);
    }
    Ok(found)
}

/// An interview's digests, written in the transaction that ends it (or that
/// assesses it late): one row per question it answered.
pub fn write_digests(tx: &Tx, project_id: ProjectId, interview_id: InterviewId, digests: &[NewDigest]) -> ApiResult<()> {
    if digests.is_empty() {
        return Ok(());
    }
    let mut values = Vec::with_capacity(digests.len() * 6);
    for digest in digests {
        values.extend([
            db::text(project_id),
            db::text(interview_id),
            SqlValue::Integer(digest.question_index as i64),
            db::text(&digest.question),
            db::text(digest.language.as_str()),
            db::text(&digest.terms),
        ]);
    }
    tx.execute(
        &format!(
            "INSERT OR REPLACE INTO answer_terms (project_id, interview_id, question_index, question, language, terms) VALUES {}",
            vec!["(?, ?, ?, ?, ?, ?)"; digests.len()].join(", ")
        ),
        &values,
    )
}

/// A digest to write: one interview's answers to one question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewDigest {
    pub question_index: usize,
    pub question: String,
    pub language: Language,
    pub terms: String,
}

/// Forgets an erased interview, in its erasure's transaction: its digests, and
/// the model's synthesis of its project, which may quote it (the project is
/// queued for a new one, and a run that read it before stores nothing).
pub fn forget(tx: &Tx, project_id: ProjectId, interview_id: InterviewId, now_ms: i64) -> ApiResult<()> {
    tx.execute("DELETE FROM answer_terms WHERE project_id = ? AND interview_id = ?", &[db::text(project_id), db::text(interview_id)])?;
    tx.execute("DELETE FROM model_syntheses WHERE project_id = ?", &[db::text(project_id)])?;
    tx.execute(
        "INSERT INTO synthesis_queue (project_id, queued_ms, erased_ms) VALUES (?1, ?2, ?2)
         ON CONFLICT (project_id) DO UPDATE SET queued_ms = MAX(queued_ms + 1, ?2), erased_ms = MAX(erased_ms + 1, ?2)",
        &[db::text(project_id), SqlValue::Integer(now_ms)],
    )
}

/// Queues the project for a model synthesis (an interview of it ended).
pub fn enqueue(tx: &Tx, project_id: ProjectId, now_ms: i64) -> ApiResult<()> {
    tx.execute(
        "INSERT INTO synthesis_queue (project_id, queued_ms) VALUES (?1, ?2)
         ON CONFLICT (project_id) DO UPDATE SET queued_ms = MAX(queued_ms + 1, ?2)",
        &[db::text(project_id), SqlValue::Integer(now_ms)],
    )
}

/// A project a run of the queue holds: what the queue said when it was leased.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Leased {
    pub project_id: ProjectId,
    pub queued_ms: i64,
    pub erased_ms: i64,
}

/// Leases the project queued longest that no run holds, until `until_ms`.
pub fn lease_queued(db: &Db, now_ms: i64, until_ms: i64) -> ApiResult<Option<Leased>> {
    let result = db.query(
        "UPDATE synthesis_queue SET leased_until_ms = ?1
         WHERE project_id = (SELECT project_id FROM synthesis_queue WHERE leased_until_ms < ?2 ORDER BY queued_ms LIMIT 1)
           AND leased_until_ms < ?2
         RETURNING project_id, queued_ms, erased_ms",
        &[SqlValue::Integer(until_ms), SqlValue::Integer(now_ms)],
    )?;
    db::read_first(&result, |row| {
        Ok(Leased { project_id: row.id("project_id")?, queued_ms: row.int("queued_ms")?, erased_ms: row.int("erased_ms")? })
    })
}

/// Ends a run of the queue: stores what it wrote (`Some((generated_at,
/// body))`; `None` deletes the project's model synthesis, and the built-in one
/// answers) unless an interview of the project was erased since it was
/// leased; the project leaves the queue unless it was queued again meanwhile.
/// Whether it stored the run's result.
pub fn finish_queued(db: &Db, leased: &Leased, synthesis: Option<(&str, &str)>) -> ApiResult<bool> {
    db.transaction(|tx| {
        let erased = tx.query_scalar("SELECT erased_ms FROM synthesis_queue WHERE project_id = ?", &[db::text(leased.project_id)])?;
        let current = matches!(erased, Some(SqlValue::Integer(ms)) if ms == leased.erased_ms);
        if current {
            match synthesis {
                Some((generated_at, body)) => tx.execute(
                    "INSERT OR REPLACE INTO model_syntheses (project_id, generated_at, body) VALUES (?, ?, ?)",
                    &[db::text(leased.project_id), db::text(generated_at), db::text(body)],
                )?,
                None => tx.execute("DELETE FROM model_syntheses WHERE project_id = ?", &[db::text(leased.project_id)])?,
            }
        }
        tx.execute(
            "DELETE FROM synthesis_queue WHERE project_id = ? AND queued_ms = ?",
            &[db::text(leased.project_id), SqlValue::Integer(leased.queued_ms)],
        )?;
        tx.execute("UPDATE synthesis_queue SET leased_until_ms = 0 WHERE project_id = ?", &[db::text(leased.project_id)])?;
        Ok(current)
    })
}

/// The project's model synthesis: `(generated_at, body)`.
pub fn model_synthesis(db: &Db, project_id: ProjectId) -> ApiResult<Option<(String, String)>> {
    let result = db.query("SELECT generated_at, body FROM model_syntheses WHERE project_id = ?", &[db::text(project_id)])?;
    db::read_first(&result, |row| Ok((row.text("generated_at")?, row.text("body")?)))
}

/// Without a model: every queued project's model synthesis is out of date for
/// good (one written while a model was configured): deleted, and the queue
/// emptied. Nothing when nothing is queued.
pub fn clear_queue(db: &Db) -> ApiResult<()> {
    if db.query_scalar("SELECT 1 FROM synthesis_queue LIMIT 1", &[])?.is_none() {
        return Ok(());
    }
    db.transaction(|tx| {
        tx.execute("DELETE FROM model_syntheses WHERE project_id IN (SELECT project_id FROM synthesis_queue)", &[])?;
        tx.execute("DELETE FROM synthesis_queue", &[])
    })
}
