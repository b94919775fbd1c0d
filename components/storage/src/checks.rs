//! The steps a remote transaction's batch checks its premises with, under
//! the write lock, when it commits (see `remote.rs`): a batch's conditions
//! only see whether a step failed, so a check is a `SELECT` that fails (with
//! `json()` of a text that is no JSON) exactly when its premise no longer
//! holds, and the batch stops there and rolls back.
//!
//! - A guard: the write just before it changed a row (`changes()`).
//! - A read check: a read the transaction made before it took the write lock
//!   still returns what it returned then (the same number of rows, and no row
//!   that was not among them). A transaction that reads, decides in Rust and
//!   writes is so one batch, and holds the writer for no round trip; when a
//!   check fails, the transaction runs again from its reads.

use super::hrana::Stmt;
use spin_sdk::sqlite::{QueryResult, Value};

/// After a guarded write: fails when it changed no row (`json(NULL)` is NULL).
pub const GUARD_CHECK: &str = "SELECT json(CASE changes() WHEN 0 THEN 'no row changed' END)";

/// What a failed guard says.
pub const GUARD_LOST: &str = "a guarded write changed no row";

/// What a failed read check says.
pub const READ_CHANGED: &str = "a read the transaction was decided on changed before it committed";

/// How many values a check may bind (SQLite's limit is 32766).
const MAX_CHECK_VALUES: usize = 16_000;

/// What a step of a transaction's batch is, for the meaning of its failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Plain,
    Guard,
    ReadCheck,
}

impl StepKind {
    /// What a failure of this step means to the transaction.
    pub fn failure(self, error: String) -> String {
        match self {
            StepKind::Plain => error,
            StepKind::Guard => GUARD_LOST.to_string(),
            StepKind::ReadCheck => READ_CHANGED.to_string(),
        }
    }
}

/// The check that `read` still returns `result`, or `None` when it cannot be
/// checked so (not a plain `SELECT` with positional parameters, or too large):
/// then the read must be made under the lock.
pub fn read_check(read: &Stmt, result: &QueryResult) -> Option<Stmt> {
    let sql = read.sql.trim();
    let is_select = sql.get(..6).is_some_and(|word| word.eq_ignore_ascii_case("SELECT"));
    if !is_select || !positional_only(sql) || sql.contains(';') {
        return None;
    }
    let columns = result.columns.len();
    let rows = result.rows.len();
    if columns == 0 || rows * columns + 2 * read.args.len() + 1 > MAX_CHECK_VALUES {
        return None;
    }
    if rows == 0 {
        return Some(Stmt::new(format!("SELECT json(CASE WHEN EXISTS ({sql}) THEN 'changed' END)"), &read.args));
    }
    let row = format!("({})", vec!["?"; columns].join(", "));
    let values = vec![row; rows].join(", ");
    let check = format!(
        "SELECT json(CASE WHEN (SELECT count(*) FROM ({sql})) = ? AND NOT EXISTS (SELECT * FROM ({sql}) EXCEPT VALUES {values}) \
         THEN NULL ELSE 'changed' END)"
    );
    let mut args = read.args.clone();
    args.push(Value::Integer(rows as i64));
    args.extend(read.args.iter().cloned());
    args.extend(result.rows.iter().flat_map(|row| row.values.iter().cloned()));
    Some(Stmt::new(check, &args))
}

/// Whether every parameter of `sql` is a plain `?` (outside quoted text):
/// the check repeats the read, so numbered or named ones would not bind.
fn positional_only(sql: &str) -> bool {
    let mut quote: Option<char> = None;
    let mut chars = sql.chars().peekable();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(open), c) if c == open => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"' | '`') => quote = Some(c),
            (None, '?') if chars.peek().is_some_and(char::is_ascii_digit) => return false,
            (None, ':' | '@' | '$') if chars.peek().is_some_and(|next| next.is_ascii_alphabetic() || *next == '_') => return false,
            _ => {}
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use spin_sdk::sqlite::RowResult;

    fn result(rows: &[&[Value]]) -> QueryResult {
        QueryResult {
            columns: vec!["a".into(), "b".into()],
            rows: rows.iter().map(|values| RowResult { values: values.to_vec() }).collect(),
        }
    }

    #[test]
    fn a_read_check_repeats_the_read_and_binds_what_it_returned() {
        let read = Stmt::new("SELECT a, b FROM t WHERE k = ? ORDER BY a LIMIT 2", &[Value::Text("x".into())]);
        let check = read_check(&read, &result(&[&[Value::Integer(1), Value::Null], &[Value::Integer(2), Value::Blob(vec![7])]])).unwrap();
        assert!(check.sql.contains("(SELECT count(*) FROM (SELECT a, b FROM t WHERE k = ? ORDER BY a LIMIT 2)) = ?"), "{}", check.sql);
        assert!(check.sql.ends_with("EXCEPT VALUES (?, ?), (?, ?)) THEN NULL ELSE 'changed' END)"), "{}", check.sql);
        assert_eq!(check.args.len(), 1 + 1 + 1 + 4);
        assert!(matches!(check.args[1], Value::Integer(2)), "the row count");
        let empty = read_check(&read, &result(&[])).unwrap();
        assert_eq!(empty.sql, "SELECT json(CASE WHEN EXISTS (SELECT a, b FROM t WHERE k = ? ORDER BY a LIMIT 2) THEN 'changed' END)");
    }

    #[test]
    fn only_plain_selects_with_positional_parameters_are_checked() {
        let rows = result(&[&[Value::Integer(1), Value::Integer(2)]]);
        for sql in ["PRAGMA user_version", "UPDATE t SET a = 1 RETURNING a, b", "SELECT a, b FROM t WHERE k = ?1", "SELECT a, b FROM t WHERE k = :k"] {
            assert!(read_check(&Stmt::new(sql, &[]), &rows).is_none(), "{sql}");
        }
        assert!(read_check(&Stmt::new("SELECT a, b FROM t WHERE k = '?1' AND j = ?", &[Value::Null]), &rows).is_some());
    }
}
