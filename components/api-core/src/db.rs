//! SQLite through Spin's `fermyon:spin/sqlite@2.0.0`, and the schema migrations.
//!
//! Spin's local SQLite shares ONE connection among all instances of the app, each
//! `execute` being one statement. A `BEGIN ... COMMIT` spanning several calls
//! would therefore take in other requests' statements, so the service never uses
//! one: every write is a single statement, and effects on several tables (an
//! event in the outbox with a state change) are done by triggers, which SQLite
//! runs inside the statement's own transaction.

use crate::error::{ApiError, ApiResult};
use crate::time;
use spin_sdk::sqlite::{Connection, QueryResult, Value};

pub use spin_sdk::sqlite::Value as SqlValue;

pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Versioned schema. Append only; statements must be idempotent (`IF NOT EXISTS`),
/// since two components may apply the same migration at the same moment.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 1,
        name: "foundation",
        sql: include_str!("../migrations/0001_foundation.sql"),
    },
    Migration {
        version: 2,
        name: "projects",
        sql: include_str!("../migrations/0002_projects.sql"),
    },
    Migration {
        version: 3,
        name: "files",
        sql: include_str!("../migrations/0003_files.sql"),
    },
    Migration {
        version: 4,
        name: "webhooks",
        sql: include_str!("../migrations/0004_webhooks.sql"),
    },
    Migration {
        version: 5,
        name: "sessions",
        sql: include_str!("../migrations/0005_sessions.sql"),
    },
];

pub fn latest_version() -> i64 {
    MIGRATIONS.last().map_or(0, |m| m.version)
}

/// Splits a migration file into statements: each ends with `;` at the end of a line,
/// except inside `CREATE TRIGGER`, which ends at a line `END;`. `--` comment lines
/// are dropped.
pub fn statements(sql: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in sql.lines() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with("--") {
            continue;
        }
        current.push_str(line);
        current.push('\n');
        let in_trigger = current.trim_start().to_ascii_uppercase().starts_with("CREATE TRIGGER");
        let ends = if in_trigger { trimmed.eq_ignore_ascii_case("END;") } else { trimmed.ends_with(';') };
        if ends {
            out.push(current.trim().trim_end_matches(';').trim().to_string());
            current.clear();
        }
    }
    if !current.trim().is_empty() {
        out.push(current.trim().to_string());
    }
    out
}

pub struct Db {
    conn: Connection,
}

impl Db {
    /// Opens the `default` database and brings its schema up to date.
    pub fn open() -> ApiResult<Db> {
        let db = Db { conn: Connection::open_default()? };
        db.migrate()?;
        Ok(db)
    }

    pub fn query(&self, sql: &str, params: &[Value]) -> ApiResult<QueryResult> {
        self.conn.execute(sql, params).map_err(|error| {
            ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `{}`", first_line(sql)))
        })
    }

    pub fn execute(&self, sql: &str, params: &[Value]) -> ApiResult<()> {
        self.query(sql, params).map(|_| ())
    }

    /// Runs a statement that a trigger may refuse (`RAISE(ABORT, '<code>')`) or a
    /// constraint may stop: `Ok(Err(text))` carries the database's message so the
    /// caller can answer the refusals it knows; any other failure is internal.
    pub fn query_refusable(&self, sql: &str, params: &[Value]) -> ApiResult<Result<QueryResult, String>> {
        match self.conn.execute(sql, params) {
            Ok(result) => Ok(Ok(result)),
            Err(spin_sdk::sqlite::Error::Io(message)) => Ok(Err(message)),
            Err(error) => Err(ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `{}`", first_line(sql)))),
        }
    }

    /// The first column of the first row, if any.
    pub fn query_scalar(&self, sql: &str, params: &[Value]) -> ApiResult<Option<Value>> {
        let result = self.query(sql, params)?;
        Ok(result.rows.into_iter().next().and_then(|row| row.values.into_iter().next()))
    }

    fn user_version(&self) -> ApiResult<i64> {
        Ok(match self.query_scalar("PRAGMA user_version", &[])? {
            Some(Value::Integer(version)) => version,
            _ => 0,
        })
    }

    /// One read on the hot path; the migrations themselves run once per database.
    fn migrate(&self) -> ApiResult<()> {
        let current = self.user_version()?;
        if current >= latest_version() {
            return Ok(());
        }
        // WAL makes each write several times cheaper and persists in the file.
        self.execute("PRAGMA journal_mode=WAL", &[])?;
        for migration in MIGRATIONS.iter().filter(|m| m.version > current) {
            for statement in statements(migration.sql) {
                if let Err(error) = self.conn.execute(&statement, &[]) {
                    // An `ADD COLUMN` another instance applied first is fine.
                    if !format!("{error:?}").contains("duplicate column name") {
                        return Err(ApiError::Internal(anyhow::anyhow!(
                            "migration {} failed: {error:?} in `{}`",
                            migration.version,
                            first_line(&statement)
                        )));
                    }
                }
            }
            self.execute(
                "INSERT OR IGNORE INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)",
                &[
                    Value::Integer(migration.version),
                    Value::Text(migration.name.into()),
                    Value::Text(time::rfc3339_now()),
                ],
            )?;
        }
        self.execute(&format!("PRAGMA user_version = {}", latest_version()), &[])?;
        Ok(())
    }

    /// Counts one request in its rate-limit window and returns the window's count.
    pub fn count_request(&self, bucket: &str, window_start: u64) -> ApiResult<u64> {
        let count = self.query_scalar(
            "INSERT INTO rate_limit_windows (bucket, window_start, count) VALUES (?, ?, 1)
             ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1
             RETURNING count",
            &[Value::Text(bucket.into()), Value::Integer(window_start as i64)],
        )?;
        let count = match count {
            Some(Value::Integer(count)) => count as u64,
            _ => 1,
        };
        if count == 1 {
            // First request of a new window: forget windows that are over.
            self.execute(
                "DELETE FROM rate_limit_windows WHERE window_start < ?",
                &[Value::Integer(window_start as i64)],
            )?;
        }
        Ok(count)
    }
}

fn first_line(sql: &str) -> &str {
    sql.trim().lines().next().unwrap_or_default()
}

/// Reads typed columns from a row by name.
pub struct Row<'a> {
    columns: &'a [String],
    values: &'a [Value],
}

impl<'a> Row<'a> {
    fn value(&self, column: &str) -> Option<&'a Value> {
        let index = self.columns.iter().position(|c| c == column)?;
        self.values.get(index)
    }

    pub fn text(&self, column: &str) -> String {
        self.opt_text(column).unwrap_or_default()
    }

    pub fn opt_text(&self, column: &str) -> Option<String> {
        match self.value(column)? {
            Value::Text(text) => Some(text.clone()),
            Value::Integer(n) => Some(n.to_string()),
            Value::Real(n) => Some(n.to_string()),
            Value::Blob(bytes) => Some(String::from_utf8_lossy(bytes).into_owned()),
            Value::Null => None,
        }
    }

    pub fn int(&self, column: &str) -> i64 {
        self.opt_int(column).unwrap_or_default()
    }

    pub fn opt_int(&self, column: &str) -> Option<i64> {
        match self.value(column)? {
            Value::Integer(n) => Some(*n),
            Value::Real(n) => Some(*n as i64),
            Value::Text(text) => text.parse().ok(),
            _ => None,
        }
    }

    pub fn blob(&self, column: &str) -> Vec<u8> {
        match self.value(column) {
            Some(Value::Blob(bytes)) => bytes.clone(),
            Some(Value::Text(text)) => text.clone().into_bytes(),
            _ => Vec::new(),
        }
    }
}

/// Iterates the rows of a result with by-name access.
pub fn rows(result: &QueryResult) -> impl Iterator<Item = Row<'_>> {
    result.rows.iter().map(|row| Row { columns: &result.columns, values: &row.values })
}

/// `Some(text)` as TEXT, `None` as NULL.
pub fn opt_text(value: Option<&str>) -> Value {
    value.map_or(Value::Null, |text| Value::Text(text.to_string()))
}

pub fn text(value: impl Into<String>) -> Value {
    Value::Text(value.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_statements_and_drops_comments() {
        let sql = "-- heading\nCREATE TABLE a (\n  x INTEGER -- inline stays\n);\n\nCREATE INDEX i ON a (x);\n";
        assert_eq!(
            statements(sql),
            vec!["CREATE TABLE a (\n  x INTEGER -- inline stays\n)", "CREATE INDEX i ON a (x)"]
        );
    }

    #[test]
    fn triggers_are_one_statement() {
        let sql = "CREATE TRIGGER IF NOT EXISTS t AFTER UPDATE ON a\nBEGIN\n  INSERT INTO b VALUES (1);\n  INSERT INTO b VALUES (2);\nEND;\nCREATE INDEX i ON a (x);\n";
        let split = statements(sql);
        assert_eq!(split.len(), 2);
        assert!(split[0].ends_with("END"));
        assert!(split[0].contains("VALUES (2);"));
    }

    #[test]
    fn migrations_are_ordered_and_parse() {
        let mut previous = 0;
        for migration in MIGRATIONS {
            assert!(migration.version > previous, "versions must increase");
            previous = migration.version;
            let statements = statements(migration.sql);
            assert!(!statements.is_empty());
            for statement in statements {
                let is_trigger = statement.to_ascii_uppercase().starts_with("CREATE TRIGGER");
                assert!(is_trigger || !statement.contains(";\n"), "one statement per split: {statement}");
            }
        }
        assert_eq!(latest_version(), previous);
    }
}
