//! The request's admission: its rate-limit count, the schema version and the
//! tenant's key hash, in the request's first statement, and the decision on
//! it (429, 401) that the pipeline hands over as a [`Decide`].
//!
//! On a remote database the statement need not travel alone: it waits
//! ([`Gate::Pending`]) and goes out with the request's first read, so an
//! authenticated read is one round trip. Nothing the request reads reaches its
//! handler before the decision passed, no write goes out before it was made,
//! and the request's answer is the decision's refusal whatever the handler did
//! meanwhile (see `service::route`).

use super::row::{opt_text, rows, Row};
use crate::error::ApiResult;
use spin_sdk::sqlite::{QueryResult, Value};

/// What the request's rate-limit statement found: each bucket's count in this
/// window (in the order asked), and the tenant key hash it looked up on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    pub counts: Vec<u64>,
    pub key_hash: Option<String>,
}

/// The pipeline's decision on an admission: `Err` is the request's answer
/// (429, 401). Called again each time the decision is asked for, so that the
/// refusal reaches whoever asks; it must not change anything.
pub type Decide = Box<dyn Fn(&Admission) -> ApiResult<()>>;

/// The admission of the request on this connection.
#[derive(Default)]
pub enum Gate {
    /// No admission (work outside a request: the maintenance run).
    #[default]
    Open,
    /// Its statement waits to go out with the next one.
    Pending { sql: String, params: Vec<Value>, buckets: Vec<String>, window_start: u64, decide: Decide },
    /// Counted and decided.
    Decided { passed: bool, admission: Admission, decide: Decide },
}

impl Gate {
    /// The decision's refusal, when it was refused.
    pub fn refusal(&self) -> ApiResult<()> {
        match self {
            Gate::Decided { passed: false, admission, decide } => decide(admission),
            _ => Ok(()),
        }
    }
}

/// The upsert that counts the request in each bucket's current window and
/// returns the counts, the schema version and, when credentials came, the
/// tenant's key hash.
pub fn statement(buckets: &[String], window_start: u64, tenant_id: Option<&str>) -> (String, Vec<Value>) {
    let values = vec!["(?, ?, 1)"; buckets.len()].join(", ");
    let sql = format!(
        "INSERT INTO rate_limit_windows (bucket, window_start, count) VALUES {values}
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1
         RETURNING bucket, count, (SELECT user_version FROM pragma_user_version) AS schema_version,
             (SELECT api_key_hash FROM tenants WHERE tenant_id = ?) AS key_hash"
    );
    let mut params: Vec<Value> = buckets
        .iter()
        .flat_map(|bucket| [Value::Text(bucket.clone()), Value::Integer(window_start as i64)])
        .collect();
    params.push(opt_text(tenant_id));
    (sql, params)
}

/// The statement that forgets finished windows, sent by the first request of
/// a client in a new window.
pub fn cleanup(window_start: u64) -> (&'static str, Vec<Value>) {
    ("DELETE FROM rate_limit_windows WHERE window_start < ?", vec![Value::Integer(window_start as i64)])
}

/// Reads the upsert's rows: the admission, the schema version, and whether
/// this is a client's first request in the window.
pub fn read(buckets: &[String], result: &QueryResult) -> ApiResult<(Admission, i64, bool)> {
    let returned: Vec<Row> = rows(result).collect();
    let schema_version = match returned.first() {
        Some(row) => row.int("schema_version")?,
        None => 0,
    };
    // RETURNING promises no order: match the rows to the buckets by name.
    let counted: Vec<(String, u64)> =
        returned.iter().map(|row| Ok((row.text("bucket")?, row.int("count")?.max(1) as u64))).collect::<ApiResult<_>>()?;
    let count_of = |bucket: &String| counted.iter().find(|(name, _)| name == bucket).map_or(1, |(_, count)| *count);
    let admission = Admission {
        counts: buckets.iter().map(count_of).collect(),
        key_hash: match returned.first() {
            Some(row) => row.opt_text("key_hash")?,
            None => None,
        },
    };
    let first_in_window = admission.counts.contains(&1);
    Ok((admission, schema_version, first_in_window))
}
