//! The request's count against its rate limits, stored in the records
//! (docs/design-decisions.md, "Rate limits"), in one of two ways:
//!
//! - **counted first** ([`Gatekeeper::admit`]): the request's first statement is an
//!   upsert of its counters that also returns the schema version and the key
//!   hash of the tenant its credentials name. A request that writes nothing
//!   else (a read) takes the write lock this once, for one statement.
//! - **counted with its write** ([`Gatekeeper::peek`], then [`Gatekeeper::count_with_next_write`]):
//!   the first statement only reads the counters (no write lock: a client past
//!   its limit is refused without a write), and the upsert joins the request's
//!   own write: the first statement of its first transaction, which it opens
//!   (a deferred `BEGIN`, so the upsert takes the lock: one write lock for
//!   the request). A request that ends without having written anything gets
//!   its count written on its own ([`Gatekeeper::settle`]). The upsert decides
//!   again, exactly: of two requests that both saw room for one more, the
//!   second is refused there, and its transaction rolled back. Only on Spin's
//!   SQLite (a local file): on a libSQL server a request is counted first.
//!
//! Either way every node and instance shares the counts, and a count is
//! committed whatever the request's outcome, except a refusal's, which would
//! change nothing in its window.
//!
//! The decision on what the first statement found (429, 401) comes as a
//! [`Decide`]. On a remote database the statement need not travel alone: it
//! waits ([`Gate::Pending`]) and goes out with the request's first read, so an
//! authenticated read is one round trip. Nothing the request reads reaches its
//! handler before the decision passed, no write goes out before it was made,
//! and the request's answer is the decision's refusal whatever the handler did
//! meanwhile (see `pipeline::route`).

use super::remote::Outcome;
use super::{latest_version, rows, statement_error, text, Db, Row};
use platform::ids::TenantId;
use platform::error::{ApiError, ApiResult};
use platform::rate_limit::Quota;
use spin_sdk::sqlite::{QueryResult, Value};
use std::cell::RefCell;

/// What the request's first statement found: each bucket's count in this
/// window (in the order of its quota's limits), and the tenant key hash it
/// looked up on the way.
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
    /// No admission (work outside a request: the maintenance run), or one
    /// counted with its write (decided already).
    #[default]
    Open,
    /// Its statement waits to go out with the next one.
    Pending { sql: String, params: Vec<Value>, quota: Quota, decide: Decide },
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

/// The request's admission as it stands on its connection: held by its
/// [`Db`], since the admission's statements ride with the request's own.
#[derive(Default)]
pub(super) struct AdmissionState {
    /// Its first statement, waiting, or its decision (see [`Gatekeeper::admit`]).
    pub(super) gate: RefCell<Gate>,
    /// Its rate-limit count, while it waits to join the request's first
    /// write (see [`Gatekeeper::count_with_next_write`]).
    pub(super) count_due: RefCell<Option<Quota>>,
}

/// The request's count against its rate limits and the lookup of its
/// tenant's key, in the request's records (the module docs): the pipeline's
/// door, beside the records' [`Db`], not part of it.
pub struct Gatekeeper<'db> {
    db: &'db Db,
}

impl Db {
    /// The gatekeeper of the request on this connection.
    pub fn gatekeeper(&self) -> Gatekeeper<'_> {
        Gatekeeper { db: self }
    }
}

impl Gatekeeper<'_> {
    /// Counts the request first (see the module docs), reads the schema
    /// version and, when credentials came, the tenant's key hash, all in one
    /// upsert, and hands what it found to `decide` (the 429, the 401). A
    /// database without the schema (a missing table) or behind it is migrated,
    /// then the request goes on.
    ///
    /// On Spin's SQLite the statement runs now, and `decide`'s refusal is the
    /// answer. On a remote database it waits for the request's first read and
    /// travels with it; [`Gatekeeper::settle_admission`] sends it alone.
    pub fn admit(&self, quota: &Quota, tenant_id: Option<TenantId>, decide: Decide) -> ApiResult<()> {
        let (sql, mut params) = count_statement(
            quota,
            ", (SELECT user_version FROM pragma_user_version) AS schema_version,
                 (SELECT api_key_hash FROM tenants WHERE tenant_id = ?) AS key_hash",
        );
        params.push(tenant_id.map_or(Value::Null, text));
        let pending = Gate::Pending { sql, params, quota: quota.clone(), decide };
        if self.db.conn.holds_admission() {
            *self.db.admission.gate.borrow_mut() = pending;
            return Ok(());
        }
        let Gate::Pending { sql, params, .. } = &pending else { unreachable!() };
        let outcome = self.bookkeeping(sql, params)?;
        self.decide(pending, outcome).map(drop)
    }

    /// Everything the request still owes the records, once its handler is
    /// done or refused: its admission, sent now if it still waits, then its
    /// count, written on its own if no write took it along. A refusal of
    /// theirs (429, 401) is the request's answer, whatever happened since.
    pub fn settle(&self) -> ApiResult<()> {
        self.settle_admission()?;
        self.settle_count()
    }

    /// Makes sure the request's admission was counted and decided: sends its
    /// statement now if it still waits (a count due with the next write stays
    /// due). Its refusal (429, 401), if any, is the request's answer.
    pub fn settle_admission(&self) -> ApiResult<()> {
        let Some((sql, params)) = self.pending_admission() else {
            return self.db.admission.gate.borrow().refusal();
        };
        let outcome = self.bookkeeping(&sql, &params)?;
        let pending = self.db.admission.gate.take();
        self.decide(pending, outcome).map(drop)
    }

    /// The admission's statement while it waits to go out.
    pub(super) fn pending_admission(&self) -> Option<(String, Vec<Value>)> {
        match &*self.db.admission.gate.borrow() {
            Gate::Pending { sql, params, .. } => Some((sql.clone(), params.clone())),
            _ => None,
        }
    }

    /// Reads the admission's outcome: migrates a database without the schema
    /// (and counts again) or behind it, remembers the decision and answers its
    /// refusal. `Ok(true)`: the schema was migrated, so what went out with the
    /// admission must go again.
    pub(super) fn decide(&self, pending: Gate, outcome: Outcome) -> ApiResult<bool> {
        let Gate::Pending { sql, params, quota, decide } = pending else { return Ok(false) };
        let (result, migrated) = match outcome {
            Ok(result) => (result, false),
            Err(message) if message.contains("no such table") => {
                self.db.migrate_from(0)?;
                let counted = self.bookkeeping(&sql, &params)?.map_err(|message| statement_error(&message, &sql))?;
                (counted, true)
            }
            Err(message) => return Err(statement_error(&message, &sql)),
        };
        let returned: Vec<Row> = rows(&result).collect();
        let schema_version = match returned.first() {
            Some(row) => row.int("schema_version")?,
            None => 0,
        };
        let migrated = migrated || schema_version < latest_version();
        self.db.migrate_from(schema_version)?;
        let admission = Admission {
            counts: counts_of(&quota, &returned)?,
            key_hash: match returned.first() {
                Some(row) => row.opt_text("key_hash")?,
                None => None,
            },
        };
        let passed = decide(&admission).is_ok();
        *self.db.admission.gate.borrow_mut() = Gate::Decided { passed, admission, decide };
        self.db.admission.gate.borrow().refusal()?;
        Ok(migrated)
    }

    /// Reads the request's counts so far (no write), the schema version and
    /// the key hash of the tenant its credentials name, in one statement:
    /// for a request counted with its write (see the module docs).
    pub fn peek(&self, quota: &Quota, tenant_id: Option<TenantId>) -> ApiResult<Admission> {
        let counts: Vec<String> = (0..quota.limits.len())
            .map(|i| format!("(SELECT count FROM rate_limit_windows WHERE bucket = ? AND window_start = ?) AS count{i}"))
            .collect();
        let sql = format!(
            "SELECT (SELECT user_version FROM pragma_user_version) AS schema_version,
                 (SELECT api_key_hash FROM tenants WHERE tenant_id = ?) AS key_hash{}{}",
            if counts.is_empty() { "" } else { ", " },
            counts.join(", ")
        );
        let mut params = vec![tenant_id.map_or(Value::Null, text)];
        params.extend(quota.buckets().flat_map(|bucket| [Value::Text(bucket.to_string()), Value::Integer(quota.window.start as i64)]));
        let result = self.query_migrating(&sql, &params)?;
        let row = rows(&result).next().ok_or_else(|| ApiError::internal(anyhow::anyhow!("sqlite: the admission read returned no row")))?;
        self.db.migrate_from(row.int("schema_version")?)?;
        let counts = (0..quota.limits.len())
            .map(|i| Ok(row.opt_int(&format!("count{i}"))?.unwrap_or(0).max(0) as u64))
            .collect::<ApiResult<_>>()?;
        Ok(Admission { counts, key_hash: row.opt_text("key_hash")? })
    }

    /// The request, admitted by [`Gatekeeper::peek`], is counted with its first write.
    pub fn count_with_next_write(&self, quota: Quota) {
        *self.db.admission.count_due.borrow_mut() = Some(quota);
    }

    /// Writes the count still due, if any, on its own; refuses the request
    /// when it lost the last room in its window to another.
    pub(super) fn settle_count(&self) -> ApiResult<()> {
        let Some(quota) = self.db.admission.count_due.borrow_mut().take() else { return Ok(()) };
        self.count(&quota)
    }

    /// The upsert of a count due, and its decision; inside a transaction, a
    /// refusal rolls the transaction (and so the count) back.
    pub(super) fn count(&self, quota: &Quota) -> ApiResult<()> {
        let (sql, params) = count_statement(quota, "");
        let result = self.bookkeeping(&sql, &params)?.map_err(|message| statement_error(&message, &sql))?;
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
        self.db.execute("DELETE FROM rate_limit_windows WHERE window_start < ?", &[Value::Integer(window_start as i64)])
    }

    /// A request's first statement: on a database without the schema yet,
    /// migrates it and runs the statement again.
    fn query_migrating(&self, sql: &str, params: &[Value]) -> ApiResult<QueryResult> {
        match self.bookkeeping(sql, params)? {
            Err(message) if message.contains("no such table") => {
                self.db.migrate_from(0)?;
                self.db.query(sql, params)
            }
            other => other.map_err(|message| statement_error(&message, sql)),
        }
    }

    /// A statement of the admission's own, alone and now: its rows hold no
    /// personal data, so it frees none, and gets no `secure_delete` (see
    /// `local::SpinSqlite::before_statement`). Refused for contention past the
    /// wait's bound: 503.
    fn bookkeeping(&self, sql: &str, params: &[Value]) -> ApiResult<Outcome> {
        self.db.conn.bookkeeping(self.db, sql, params)
    }
}
