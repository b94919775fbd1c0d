//! The schema's versioned migrations, compiled in, and how a migration file
//! splits into statements (applied by [`super::Db`]).

pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

/// One entry of [`MIGRATIONS`]: its file under `migrations/`, compiled in.
macro_rules! migration {
    ($version:literal, $name:literal, $file:literal) => {
        Migration { version: $version, name: $name, sql: include_str!(concat!("../migrations/", $file)) }
    };
}

/// Versioned schema. Append only; statements must be idempotent (`IF NOT EXISTS`),
/// since two components may apply the same migration at the same moment.
pub const MIGRATIONS: &[Migration] = &[
    migration!(1, "foundation", "0001_foundation.sql"),
    migration!(2, "projects", "0002_projects.sql"),
    migration!(3, "files", "0003_files.sql"),
    migration!(4, "webhooks", "0004_webhooks.sql"),
    migration!(5, "sessions", "0005_sessions.sql"),
    migration!(6, "surveys", "0006_surveys.sql"),
    migration!(7, "rules_in_rust", "0007_rules_in_rust.sql"),
    migration!(8, "erasure", "0008_erasure.sql"),
    migration!(9, "interviewee_side", "0009_interviewee_side.sql"),
    migration!(10, "interview_quality", "0010_interview_quality.sql"),
    migration!(11, "answer_terms", "0011_answer_terms.sql"),
    migration!(12, "model_syntheses", "0012_model_syntheses.sql"),
    migration!(13, "edge", "0013_edge.sql"),
    migration!(14, "sentence_meanings", "0014_sentence_meanings.sql"),
    migration!(15, "meanings_by_model", "0015_meanings_by_model.sql"),
    migration!(16, "label_phrases", "0016_label_phrases.sql"),
    migration!(17, "phrases_read_alone", "0017_phrases_read_alone.sql"),
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

/// A migration step another instance applied first: an `ADD COLUMN` whose
/// column exists, a `DROP COLUMN` whose column is gone.
pub(super) fn applied_already(statement: &str, error: &str) -> bool {
    let statement = statement.to_ascii_uppercase();
    (statement.contains(" ADD COLUMN ") && error.contains("duplicate column name"))
        || (statement.contains(" DROP COLUMN ") && error.contains("no such column"))
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
