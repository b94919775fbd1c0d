//! The request's count against its rate limits, stored in the records
//! (docs/design-decisions.md, "Rate limits"), in one of two ways:
//!
//! - **counted first** ([`Db::admit`]): the request's first statement is an
//!   upsert of its counters that also returns the schema version and the key
//!   hash of the tenant its credentials name. A request that writes nothing
//!   else (a read) takes the write lock this once, for one statement.
//! - **counted with its write** ([`Db::peek`], then [`Db::count_with_next_write`]):
//!   the first statement only reads the counters (no write lock: a client past
//!   its limit is refused without a write), and the upsert joins the request's
//!   own write: the first statement of its first transaction, which it opens
//!   (a deferred `BEGIN`, so the upsert takes the lock: one write lock for
//!   the request). A request that ends without having written anything gets
//!   its count written on its own ([`Db::settle_count`]). The upsert decides
//!   again, exactly: of two requests that both saw room for one more, the
//!   second is refused there, and its transaction rolled back.
//!
//! Either way every node and instance shares the counts, and a count is
//! committed whatever the request's outcome, except a refusal's, which would
//! change nothing in its window.

use super::{opt_text, rows, Db, Refused, Row};
use crate::error::{ApiError, ApiResult};
use crate::rate_limit::Quota;
use spin_sdk::sqlite::Value;

/// What the request's first statement found: each bucket's count in this
/// window (in the order of its quota's limits), and the tenant key hash it
/// looked up on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    pub counts: Vec<u64>,
    pub key_hash: Option<String>,
}

/// The upsert of a quota's counters, returning each bucket's new count.
fn count_statement(quota: &Quota, returning: &str) -> (String, Vec<Value>) {
    let values = vec!["(?, ?, 1)"; quota.limits.len()].join(", ");
    let sql = format!(
        "INSERT INTO rate_limit_windows (bucket, window_start, count) VALUES {values}
         ON CONFLICT (bucket, window_start) DO UPDATE SET count = count + 1
         RETURNING bucket, count{returning}"
    );
    let params = quota
        .buckets()
        .flat_map(|bucket| [Value::Text(bucket.to_string()), Value::Integer(quota.window.start as i64)])
        .collect();
    (sql, params)
}

/// The counts the upsert returned, in the quota's order (RETURNING promises
/// no order: they are matched by bucket).
fn counts_of(quota: &Quota, returned: &[Row]) -> ApiResult<Vec<u64>> {
    let counted: Vec<(String, u64)> =
        returned.iter().map(|row| Ok((row.text("bucket")?, row.int("count")?.max(1) as u64))).collect::<ApiResult<_>>()?;
    Ok(quota.buckets().map(|bucket| counted.iter().find(|(name, _)| name == bucket).map_or(1, |(_, count)| *count)).collect())
}

impl Db {
    /// Counts the request first (see the module docs), reads the schema
    /// version and, when credentials came, the tenant's key hash, all in one
    /// upsert. A database without the schema (a missing table) or behind it is
    /// migrated, then the request goes on.
    pub fn admit(&self, quota: &Quota, tenant_id: Option<&str>) -> ApiResult<Admission> {
        let (sql, mut params) = count_statement(
            quota,
            ", (SELECT user_version FROM pragma_user_version) AS schema_version,
                 (SELECT api_key_hash FROM tenants WHERE tenant_id = ?) AS key_hash",
        );
        params.push(opt_text(tenant_id));
        let result = self.query_migrating(&sql, &params)?;
        let returned: Vec<Row> = rows(&result).collect();
        let schema_version = match returned.first() {
            Some(row) => row.int("schema_version")?,
            None => 0,
        };
        self.migrate_from(schema_version)?;
        Ok(Admission {
            counts: counts_of(quota, &returned)?,
            key_hash: match returned.first() {
                Some(row) => row.opt_text("key_hash")?,
                None => None,
            },
        })
    }

    /// Reads the request's counts so far (no write), the schema version and
    /// the key hash of the tenant its credentials name, in one statement:
    /// for a request counted with its write (see the module docs).
    pub fn peek(&self, quota: &Quota, tenant_id: Option<&str>) -> ApiResult<Admission> {
        let counts: Vec<String> = (0..quota.limits.len())
            .map(|i| format!("(SELECT count FROM rate_limit_windows WHERE bucket = ? AND window_start = ?) AS count{i}"))
            .collect();
        let sql = format!(
            "SELECT (SELECT user_version FROM pragma_user_version) AS schema_version,
                 (SELECT api_key_hash FROM tenants WHERE tenant_id = ?) AS key_hash{}{}",
            if counts.is_empty() { "" } else { ", " },
            counts.join(", ")
        );
        let mut params = vec![opt_text(tenant_id)];
        params.extend(quota.buckets().flat_map(|bucket| [Value::Text(bucket.to_string()), Value::Integer(quota.window.start as i64)]));
        let result = self.query_migrating(&sql, &params)?;
        let row = rows(&result).next().ok_or_else(|| ApiError::internal(anyhow::anyhow!("sqlite: the admission read returned no row")))?;
        self.migrate_from(row.int("schema_version")?)?;
        let counts = (0..quota.limits.len())
            .map(|i| Ok(row.opt_int(&format!("count{i}"))?.unwrap_or(0).max(0) as u64))
            .collect::<ApiResult<_>>()?;
        Ok(Admission { counts, key_hash: row.opt_text("key_hash")? })
    }

    /// The request, admitted by [`Db::peek`], is counted with its first write.
    pub fn count_with_next_write(&self, quota: Quota) {
        *self.count_due.borrow_mut() = Some(quota);
    }

    /// Writes the count still due, if any, on its own; refuses the request
    /// when it lost the last room in its window to another.
    pub fn settle_count(&self) -> ApiResult<()> {
        let Some(quota) = self.count_due.borrow_mut().take() else { return Ok(()) };
        self.count(&quota)
    }

    /// The upsert of a count due, and its decision; inside a transaction, a
    /// refusal rolls the transaction (and so the count) back.
    pub(super) fn count(&self, quota: &Quota) -> ApiResult<()> {
        let (sql, params) = count_statement(quota, "");
        // Like the counted-first upsert, it frees nothing that held personal
        // data: no `secure_delete` for it (see `Db::before_statement`).
        let result = self.execute_with_retry(&sql, &params).map_err(|refused| refused.into_api_error(&sql))?;
        let returned: Vec<Row> = rows(&result).collect();
        quota.decide(&counts_of(quota, &returned)?)
    }

    /// Forgets the counts of windows that ended before `window_start`: the
    /// maintenance run's, not a request's (a request that deleted them, as
    /// the first of its client in a window once did, took the write lock a
    /// second time, and with clients from many addresses that was nearly
    /// every request). Rows of finished windows count for nothing, so until
    /// the next run they only take room: one per client and minute.
    pub fn forget_rate_limit_windows_before(&self, window_start: u64) -> ApiResult<()> {
        self.execute("DELETE FROM rate_limit_windows WHERE window_start < ?", &[Value::Integer(window_start as i64)])
    }

    /// A request's first statement: on a database without the schema yet,
    /// migrates it and runs the statement again.
    fn query_migrating(&self, sql: &str, params: &[Value]) -> ApiResult<spin_sdk::sqlite::QueryResult> {
        match self.execute_with_retry(sql, params) {
            Err(Refused::Sql(spin_sdk::sqlite::Error::Io(message))) if message.contains("no such table") => {
                self.migrate_from(0)?;
                self.query(sql, params)
            }
            other => other.map_err(|refused| refused.into_api_error(sql)),
        }
    }
}
