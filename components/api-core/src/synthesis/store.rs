//! The synthesis' own tables in SQLite: the answer digests written when an
//! interview ends (`answer_terms`). The interviews and answers it reads are
//! the record's (`crate::record::store`).

use crate::db::{self, Db, SqlValue, Tx};
use crate::error::ApiResult;

/// One interview's answers to one question, as the interview asked it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Digest {
    pub interview_id: String,
    pub question_index: i64,
    pub question: String,
    /// See `terms::encode`.
    pub terms: String,
}

/// Digests per statement when a synthesis reads them.
pub const DIGEST_PAGE: i64 = 2_000;

/// The next page of the project's digests after `(interview_id, question_index)`.
pub fn digests(db: &Db, project_id: &str, after: Option<(&str, i64)>) -> ApiResult<Vec<Digest>> {
    let (after_id, after_index) = after.unwrap_or(("", -1));
    let result = db.query(
        "SELECT interview_id, question_index, question, terms FROM answer_terms
         WHERE project_id = ? AND (interview_id, question_index) > (?, ?)
         ORDER BY interview_id, question_index LIMIT ?",
        &[db::text(project_id), db::text(after_id), SqlValue::Integer(after_index), SqlValue::Integer(DIGEST_PAGE)],
    )?;
    db::read_all(&result, |row| {
        Ok(Digest {
            interview_id: row.text("interview_id")?,
            question_index: row.int("question_index")?,
            question: row.text("question")?,
            terms: row.text("terms")?,
        })
    })
}

/// An interview's digests, written in the transaction that ends it (or that
/// assesses it late): one row per question it answered.
pub fn write_digests(tx: &Tx, project_id: &str, interview_id: &str, digests: &[(usize, &str, String)]) -> ApiResult<()> {
    if digests.is_empty() {
        return Ok(());
    }
    let mut values = Vec::with_capacity(digests.len() * 5);
    for (index, question, terms) in digests {
        values.extend([
            db::text(project_id),
            db::text(interview_id),
            SqlValue::Integer(*index as i64),
            db::text(*question),
            db::text(terms),
        ]);
    }
    tx.execute(
        &format!(
            "INSERT OR REPLACE INTO answer_terms (project_id, interview_id, question_index, question, terms) VALUES {}",
            vec!["(?, ?, ?, ?, ?)"; digests.len()].join(", ")
        ),
        &values,
    )
}
