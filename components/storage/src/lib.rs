//! The records, through one seam: [`Db`]. Use cases read and write through it
//! and never know which backend serves them:
//! - Spin's `fermyon:spin/sqlite@2.0.0` (`default`), a local SQLite file or a
//!   libSQL server the runtime config names ([`local`]);
//! - a libSQL server (sqld, Turso) the component reaches itself over outbound
//!   HTTP, when the variable `database_url` is set ([`remote`]): for hosts that
//!   grant no SQLite, such as an edge platform. It wins over
//!   `database_backend`, which only describes Spin's own database.
//!
//! Each is a `connection::Connection`, the one trait of this capability: `Db`
//! holds one and runs its statements, transactions, admission and migrations
//! through it; what differs between the two (a statement now or with the next,
//! a lock taken or a read checked at the commit) is each one's.
//!
//! What the runtime gives us: since Spin 3 every `Connection::open` is a
//! connection of its own, shared with nobody, and a remote server holds a
//! transaction for the stream that began it. So a transaction spanning several
//! statements is atomic: [`Db::transaction`] is the one way a write that
//! touches several rows runs (`BEGIN IMMEDIATE`, then `COMMIT`, or `ROLLBACK`
//! on any error). Single-row writes stay single statements. The schema is
//! plain tables and indexes: every rule (what an interview's end writes, which
//! events a change raises, which deliveries they fan out to) is Rust in the
//! areas' use cases, inside such a transaction. Spin 2, which shared one
//! connection among all instances, is not supported (docs/deploy.md).
//!
//! The cost model (docs/design-decisions.md, "Storage"): the request's first
//! statement is its rate-limit count ([`Gatekeeper::admit`]) or, for a write on a
//! local file, a read of it ([`Gatekeeper::peek`]), which also returns the schema
//! version, so an up-to-date database costs no separate check. On a remote
//! database each exchange is a round trip, so statements travel together
//! wherever the logic allows (see [`remote`] and [`admission`]). A write lock
//! held by another is waited for in short bounded steps (`lock_wait`), then 503.

use platform::error::{ApiError, ApiResult};
use platform::time;
use std::cell::Cell;

pub use spin_sdk::sqlite::{QueryResult, Value as SqlValue};
use spin_sdk::sqlite::Value;

mod admission;
mod checks;
mod connection;
mod hrana;
mod local;
mod lock_wait;
mod migrations;
mod remote;
mod row;

pub use admission::{Admission, Decide, Gatekeeper};
use admission::AdmissionState;
use connection::{Connection, FailedTries};
use hrana::Stmt;
pub use local::Backend;
use local::SpinSqlite;
use lock_wait::{is_contention, LockWait};
pub use migrations::{latest_version, statements, Migration, MIGRATIONS};
use migrations::applied_already;
use remote::{Outcome, Remote, TxFailure};
pub use remote::{Settings as RemoteSettings, TOKEN_VARIABLE as DATABASE_TOKEN_VARIABLE, URL_VARIABLE as DATABASE_URL_VARIABLE};
pub use row::{opt_text, read_all, read_first, rows, text, Row};

pub struct Db {
    conn: Box<dyn Connection>,
    /// Inside [`Db::transaction`]: a refused statement is not sent again there,
    /// and on a remote database writes wait for the next answer or the `COMMIT`.
    in_transaction: Cell<bool>,
    /// The request's admission ([`Gatekeeper`]).
    admission: AdmissionState,
}

/// What a 503 for unreachable records asks a client to wait, seconds.
const RETRY_AFTER: u64 = 2;

/// Whether a failed database call was refused for contention ([`is_contention`])
/// inside a transaction, which only a new try of the whole transaction gets past.
fn is_contended(error: &ApiError) -> bool {
    matches!(error, ApiError::Internal(error) if is_contention(&format!("{error:#}")))
}

/// A refusal for contention that outlasted the wait's bound: the database's
/// state, not a fault.
fn busy() -> ApiError {
    ApiError::StorageUnavailable { retry_after: lock_wait::RETRY_AFTER_SECONDS }
}

/// How long the first requests on a fresh database wait in all for the one of
/// them that migrates it (see [`Db::migrate_from`]). A migration runs once per
/// database and version, and holds the write lock for its whole transaction:
/// on a loaded machine, longer than an ordinary statement's wait
/// ([`lock_wait::BOUND`]). Waiting here beats a 503 to a deploy's first burst.
const MIGRATION_BOUND: std::time::Duration = std::time::Duration::from_secs(30);

/// What [`Db::checkpoint_wal`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalCheckpoint {
    /// Every frame is in the database file; the WAL is empty.
    Truncated,
    /// Another connection held it up: not all of it was done.
    Busy,
    /// No WAL here: the database is not in WAL mode, or the backend refuses the pragma.
    NotApplicable,
}

/// A statement the database refused, as an internal error that names it (a
/// check's failure: its [`Stop`]).
fn statement_error(message: &str, sql: &str) -> ApiError {
    match message {
        checks::GUARD_LOST => return Stop::GuardLost.error(),
        checks::READ_CHANGED => return Stop::ReadChanged.error(),
        _ => {}
    }
    ApiError::Internal(anyhow::anyhow!("sqlite: Io({message:?}) in `{}`", first_line(sql)))
}

fn unavailable(_: remote::Unavailable) -> ApiError {
    ApiError::StorageUnavailable { retry_after: RETRY_AFTER }
}

fn tx_failure(failure: TxFailure) -> ApiError {
    match failure {
        TxFailure::Unavailable(unavailable) => self::unavailable(unavailable),
        TxFailure::AppliedBefore => Stop::AppliedBefore.error(),
    }
}

/// A write in progress on one connection, from [`Db::transaction`]: what it
/// does is committed together or not at all. It reads and writes like a
/// [`Db`]; functions that must run inside one take a `&Tx`. On a remote
/// database its writes wait to go out with its next read or its `COMMIT`.
pub struct Tx<'a> {
    db: &'a Db,
}

impl std::ops::Deref for Tx<'_> {
    type Target = Db;

    fn deref(&self) -> &Db {
        self.db
    }
}

impl Tx<'_> {
    /// A write that must change a row, for a rule decided on what was read
    /// before the transaction (it ends with `RETURNING`, and its `WHERE` holds
    /// the state the decision was made on): when it changes none, nothing of
    /// the transaction is written and [`Db::guarded_transaction`] answers
    /// `None`. On a remote database it leaves with the transaction's other
    /// writes, in one batch, and the server checks it: a transaction of
    /// guarded writes holds the writer for no round trip.
    pub fn guard(&self, sql: &str, params: &[Value]) -> ApiResult<()> {
        self.db.conn.guard(self, sql, params)
    }
}

/// Why a try of a transaction stopped short of its commit, carried out of the
/// work through its `?` as an internal error that the seam recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// An earlier try committed (its receipt is there): that try's value is the answer.
    AppliedBefore,
    /// A guarded write changed no row (see [`Tx::guard`]): nothing was written.
    GuardLost,
    /// A read the transaction was decided on changed before it committed
    /// (see [`checks`]): nothing was written, and it runs again.
    ReadChanged,
}

impl Stop {
    fn error(self) -> ApiError {
        ApiError::Internal(anyhow::Error::new(self))
    }

    fn of(error: &ApiError) -> Option<Stop> {
        match error {
            ApiError::Internal(error) => error.downcast_ref::<Stop>().copied(),
            _ => None,
        }
    }
}

impl std::error::Error for Stop {}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Stop::AppliedBefore => "an earlier try of this transaction committed",
            Stop::GuardLost => checks::GUARD_LOST,
            Stop::ReadChanged => checks::READ_CHANGED,
        })
    }
}

impl Db {
    /// Opens the records for a request: Spin's `default` database, or, with
    /// `database_url` set, the libSQL server it names (nothing is sent yet).
    /// The schema is checked by the request's first statement, [`Gatekeeper::admit`].
    pub fn connect() -> ApiResult<Db> {
        let conn: Box<dyn Connection> = match RemoteSettings::from_variables() {
            None => Box::new(SpinSqlite::open()?),
            Some(Ok(settings)) => Box::new(Remote::new(settings)),
            Some(Err(reason)) => {
                eprintln!("records: the database is not configured right: {reason}");
                return Err(ApiError::StorageUnavailable { retry_after: RETRY_AFTER });
            }
        };
        Ok(Db { conn, in_transaction: Cell::new(false), admission: AdmissionState::default() })
    }

    /// Where the records live, as far as the admission cares: a local file,
    /// or a libSQL server (Spin's, or one reached over HTTP).
    pub fn backend(&self) -> Backend {
        self.conn.backend()
    }

    /// Opens the records and brings their schema up to date: for work that
    /// does not start with [`Gatekeeper::admit`] (the maintenance run).
    pub fn open() -> ApiResult<Db> {
        let db = Db::connect()?;
        db.migrate_from(db.schema_version()?)?;
        Ok(db)
    }

    /// The schema's version as the database file holds it (0 when new).
    fn schema_version(&self) -> ApiResult<i64> {
        Ok(match self.query_scalar("PRAGMA user_version", &[])? {
            Some(Value::Integer(version)) => version,
            _ => 0,
        })
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)` on a local file (see
    /// [`local::SpinSqlite::checkpoint_wal`]); other backends keep their own files.
    pub fn checkpoint_wal(&self) -> WalCheckpoint {
        self.conn.checkpoint_wal()
    }

    pub fn query(&self, sql: &str, params: &[Value]) -> ApiResult<QueryResult> {
        self.one(sql, params)?.map_err(|message| statement_error(&message, sql))
    }

    /// A statement whose answer nobody reads: inside a transaction on a remote
    /// database it goes out with the transaction's next statement.
    pub fn execute(&self, sql: &str, params: &[Value]) -> ApiResult<()> {
        if self.in_transaction.get() && self.conn.defer(sql, params) {
            return Ok(());
        }
        self.query(sql, params).map(drop)
    }

    /// Runs a statement that a constraint may stop: `Ok(Err(text))` carries
    /// the database's message so the caller can answer the refusals it knows
    /// (a second answer to one message hits the turns' primary key); any other
    /// failure is internal.
    pub fn query_refusable(&self, sql: &str, params: &[Value]) -> ApiResult<Result<QueryResult, String>> {
        match self.one(sql, params)? {
            // Contention is no refusal of this write: the caller cannot answer it.
            Err(message) if is_contention(&message) => Err(statement_error(&message, sql)),
            outcome => Ok(outcome),
        }
    }

    /// Forgets the receipts of transactions on a remote database (see
    /// [`Db::transaction`]) older than an hour: a transaction is retried within
    /// seconds. For the maintenance run.
    pub fn forget_receipts(&self, now: std::time::SystemTime) -> ApiResult<()> {
        self.execute("DELETE FROM applied_batches WHERE applied_ms < ?", &[Value::Integer(time::unix_millis(now) - 3_600_000)])
    }

    /// Reads that do not depend on each other's answers: their results in
    /// order. On a remote database they travel together, in one round trip.
    pub fn query_together(&self, stmts: &[(&str, &[Value])]) -> ApiResult<Vec<QueryResult>> {
        let outcomes = self.each(stmts, true)?;
        outcomes.into_iter().zip(stmts).map(|(outcome, (sql, _))| outcome.map_err(|message| statement_error(&message, sql))).collect()
    }

    /// The first column of the first row, if any.
    pub fn query_scalar(&self, sql: &str, params: &[Value]) -> ApiResult<Option<Value>> {
        let result = self.query(sql, params)?;
        Ok(result.rows.into_iter().next().and_then(|row| row.values.into_iter().next()))
    }

    fn one(&self, sql: &str, params: &[Value]) -> ApiResult<Outcome> {
        Ok(self.each(&[(sql, params)], true)?.remove(0))
    }

    /// Statements in order, each one's outcome. With `stop_at_failure`, on a
    /// remote database, a failed one skips those after it in the same exchange.
    fn each(&self, stmts: &[(&str, &[Value])], stop_at_failure: bool) -> ApiResult<Vec<Outcome>> {
        self.count_before_lone_write(stmts)?;
        self.conn.each(self, stmts, stop_at_failure)
    }

    /// A write outside any transaction while the request's count is due:
    /// the count is written first, on its own (see `admission`).
    fn count_before_lone_write(&self, stmts: &[(&str, &[Value])]) -> ApiResult<()> {
        if self.in_transaction.get() || self.admission.count_due.borrow().is_none() || !stmts.iter().any(|(sql, _)| may_write(sql)) {
            return Ok(());
        }
        self.gatekeeper().settle_count()
    }

    /// Statements outside a transaction on a remote database: with the
    /// request's admission when it still waits and they only read, after it
    /// when they write.
    fn remote_each(&self, remote: &Remote, stmts: Vec<Stmt>) -> ApiResult<Vec<Outcome>> {
        self.admission.gate.borrow().refusal()?;
        let writes = stmts.iter().any(|stmt| may_write(&stmt.sql));
        if writes {
            self.gatekeeper().settle_admission()?;
        } else if let Some((sql, params)) = self.gatekeeper().pending_admission() {
            let mut sent = vec![Stmt::new(sql.as_str(), &params)];
            sent.extend(stmts.iter().cloned());
            let mut outcomes = self.remote_round(remote, sent)?;
            let admitted = outcomes.remove(0);
            let pending = self.admission.gate.take();
            if !self.gatekeeper().decide(pending, admitted)? {
                return Ok(outcomes);
            }
            // The schema was behind: what was read went to the old one.
        }
        self.remote_round(remote, stmts)
    }

    /// One exchange outside a transaction. A statement the server refused for
    /// contention (SQLITE_BUSY while it checkpoints, or while another holds
    /// the lock; it did not run) goes out again after a short pause
    /// ([`LockWait`]); past the wait's bound the request answers 503.
    fn remote_round(&self, remote: &Remote, stmts: Vec<Stmt>) -> ApiResult<Vec<Outcome>> {
        let mut outcomes = remote.each(stmts.clone()).map_err(unavailable)?;
        let mut wait = LockWait::remote();
        loop {
            let contended: Vec<usize> =
                outcomes.iter().enumerate().filter(|(_, outcome)| matches!(outcome, Err(m) if is_contention(m))).map(|(i, _)| i).collect();
            if contended.is_empty() {
                return Ok(outcomes);
            }
            if !wait.another_try() {
                eprintln!("records: still busy after {} tries: {:?}", wait.tries() + 1, outcomes[contended[0]]);
                return Err(busy());
            }
            let again = remote.each(contended.iter().map(|&index| stmts[index].clone()).collect()).map_err(unavailable)?;
            for (index, outcome) in contended.into_iter().zip(again) {
                outcomes[index] = outcome;
            }
        }
    }

    /// Runs `work` as one transaction on this connection: `BEGIN IMMEDIATE`
    /// (so its reads see the state its writes change, with no other writer in
    /// between), `COMMIT` when it returns `Ok`, `ROLLBACK` when it returns an
    /// error. A busy database at `BEGIN` is retried with a short bounded backoff.
    /// (A component that traps mid-way leaves the transaction open on a
    /// connection that closes with its instance, which rolls it back.)
    ///
    /// On libSQL, sqld may also refuse a statement inside the transaction, or
    /// its `COMMIT`, for contention (it aborts a writer others queue behind),
    /// which ends the transaction: then the whole of `work` runs again, after
    /// the same backoff; on a remote database also when its exchange was lost
    /// (the receipt tells whether it committed). So `work` must only read and
    /// write through `tx`.
    pub fn transaction<T>(&self, mut work: impl FnMut(&Tx) -> ApiResult<T>) -> ApiResult<T> {
        self.gatekeeper().settle_admission()?;
        let receipt = uuid::Uuid::new_v4().simple().to_string();
        // The value of a try whose commit went out and whose answer was lost:
        // the answer if a later try finds its receipt.
        let mut committed_maybe: Option<T> = None;
        let mut tries = FailedTries::default();
        // From the first refusal for contention (or a read that changed).
        let mut wait: Option<LockWait> = None;
        loop {
            // Reads before the lock, checked at the commit, until they changed
            // twice under this transaction's feet: then read under the lock.
            let optimistic = tries.changed < 2;
            let (error, value) = match self.transaction_once(&mut work, Some(&receipt), optimistic) {
                Ok(value) => return Ok(value),
                Err(failed) => failed,
            };
            let stop = Stop::of(&error);
            if stop == Some(Stop::AppliedBefore) {
                return committed_maybe.ok_or_else(|| ApiError::internal(anyhow::anyhow!("a receipt without its transaction")));
            }
            committed_maybe = value.or(committed_maybe);
            let retry = self.conn.retries(&error, stop, &mut tries);
            let contended = is_contended(&error) || stop == Some(Stop::ReadChanged);
            if !retry {
                return Err(error);
            }
            if !contended {
                // A lost exchange: once more after a moment.
                std::thread::sleep(std::time::Duration::from_millis(20));
                continue;
            }
            let wait = wait.get_or_insert_with(LockWait::remote);
            if !wait.another_try() {
                eprintln!("records: a transaction gave up after {} tries: {error:?}", wait.tries() + 1);
                return Err(busy());
            }
        }
    }

    /// [`Db::transaction`] for work whose writes are guarded ([`Tx::guard`]):
    /// `None` when a guard lost (another writer changed what the work was
    /// decided on), and nothing was written.
    pub fn guarded_transaction<T>(&self, work: impl FnMut(&Tx) -> ApiResult<T>) -> ApiResult<Option<T>> {
        match self.transaction(work) {
            Err(error) if Stop::of(&error) == Some(Stop::GuardLost) => Ok(None),
            outcome => outcome.map(Some),
        }
    }

    /// One try of [`Db::transaction`]: `receipt` names it on a remote database
    /// (none for a migration, whose table may not exist yet). A failure comes
    /// with the try's value when its commit went out and its answer was lost.
    fn transaction_once<T>(
        &self,
        work: &mut impl FnMut(&Tx) -> ApiResult<T>,
        receipt: Option<&str>,
        optimistic: bool,
    ) -> Result<T, (ApiError, Option<T>)> {
        let mut value: Option<T> = None;
        let outcome = {
            let mut erased = |tx: &Tx| -> ApiResult<()> {
                value = Some(work(tx)?);
                Ok(())
            };
            self.conn.transaction_once(self, &mut erased, receipt, optimistic)
        };
        match outcome {
            Ok(()) => value.ok_or_else(|| (ApiError::internal(anyhow::anyhow!("a committed try without its value")), None)),
            Err((error, keep)) => Err((error, value.filter(|_| keep))),
        }
    }

    /// One try of a transaction on Spin's SQLite.
    ///
    /// With the request's rate-limit count due (see `admission`), the
    /// transaction begins deferred and the count's upsert takes the write lock
    /// as its first statement, so the request takes the lock once; a count
    /// past its limit refuses the request and rolls its work back.
    fn spin_transaction_once(&self, spin: &SpinSqlite, work: &mut dyn FnMut(&Tx) -> ApiResult<()>) -> ApiResult<()> {
        // Out of `count_due` while it is being written: back in when the
        // transaction fails (the count is still owed), gone when it commits
        // or when the count refused the request (nothing is owed for a refusal).
        let due = self.admission.count_due.take();
        let owed_again = |error: ApiError| {
            *self.admission.count_due.borrow_mut() = due.clone();
            error
        };
        let begun = match &due {
            Some(quota) => spin.control("BEGIN").and_then(|()| {
                self.gatekeeper().count(quota).inspect_err(|_| {
                    let _ = spin.control("ROLLBACK");
                })
            }),
            None => spin.control("BEGIN IMMEDIATE"),
        };
        begun.map_err(|error| match error {
            refusal @ ApiError::RateLimited { .. } => refusal,
            error => owed_again(error),
        })?;
        self.in_transaction.set(true);
        let outcome = work(&Tx { db: self });
        self.in_transaction.set(false);
        match outcome {
            Ok(value) => match spin.control("COMMIT") {
                Ok(()) => Ok(value),
                Err(error) => {
                    let _ = spin.control("ROLLBACK");
                    Err(owed_again(error))
                }
            },
            Err(error) => {
                if let Err(rollback) = spin.control("ROLLBACK") {
                    eprintln!("rolling back after {error:?}: {rollback:?}");
                }
                Err(owed_again(error))
            }
        }
    }

    /// Applies the migrations after `current`; runs once per database and version.
    ///
    /// Instances that start together on a fresh database all try to migrate
    /// it. Each pass is one transaction that reads the version again once it
    /// holds the write lock, so the first pass migrates and the others find
    /// nothing left to do. A pass refused for contention (see
    /// [`is_contention`]: switching a local file to WAL outside any
    /// transaction, or sqld aborting one of several nodes' passes) is rolled
    /// back whole and run again after a short pause; so is one whose wait for
    /// the write lock ran past its bound (another instance's pass holds it).
    /// Past [`MIGRATION_BOUND`] in all the request answers 503.
    fn migrate_from(&self, current: i64) -> ApiResult<()> {
        if current >= latest_version() {
            return Ok(());
        }
        let started = std::time::Instant::now();
        let mut attempt = 0;
        loop {
            let settings = self.conn.prepare_for_migration();
            // One try per pass, without a receipt (its table may not exist yet):
            // the passes are this loop's retries, and a pass is idempotent.
            let pass = settings.and_then(|()| {
                self.transaction_once(
                    &mut |tx| tx.apply_migrations_after(tx.schema_version()?),
                    None,
                    false,
                )
                .map_err(|(error, _)| error)
            });
            match pass {
                Err(error) if started.elapsed() < MIGRATION_BOUND && is_contended(&error) => {}
                // The pass waited past the statement's bound: another instance's
                // pass holds the lock. Done once that one has committed.
                Err(ApiError::StorageUnavailable { .. }) if started.elapsed() < MIGRATION_BOUND => {
                    match self.schema_version() {
                        Ok(version) if version >= latest_version() => return Ok(()),
                        Ok(_) | Err(ApiError::StorageUnavailable { .. }) => {}
                        Err(error) => return Err(error),
                    }
                }
                done => return done,
            }
            attempt += 1;
            std::thread::sleep(std::time::Duration::from_millis((10 * attempt).min(100)));
        }
    }

    fn apply_migrations_after(&self, current: i64) -> ApiResult<()> {
        if current >= latest_version() {
            return Ok(());
        }
        for migration in MIGRATIONS.iter().filter(|m| m.version > current) {
            let statements = statements(migration.sql);
            let stmts: Vec<(&str, &[Value])> = statements.iter().map(|sql| (sql.as_str(), &[][..])).collect();
            // A migration's statements go out together, each whatever the others did.
            for (statement, outcome) in statements.iter().zip(self.each(&stmts, false)?) {
                if let Err(error) = outcome {
                    if !applied_already(statement, &error) {
                        return Err(ApiError::Internal(anyhow::anyhow!(
                            "migration {} failed: {error:?} in `{}`",
                            migration.version,
                            first_line(statement)
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
}

/// Whether a statement may write: anything but a `SELECT` (a `WITH` may end
/// in an `INSERT`, a pragma may change the file).
fn may_write(sql: &str) -> bool {
    !sql.trim_start().get(..6).is_some_and(|word| word.eq_ignore_ascii_case("SELECT"))
}

fn first_line(sql: &str) -> &str {
    sql.trim().lines().next().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_select_is_taken_for_a_read() {
        for read in ["SELECT 1", "  select x FROM t", "\nSelect *"] {
            assert!(!may_write(read), "{read}");
        }
        for write in ["INSERT INTO t VALUES (1)", "UPDATE t SET x = 1", "DELETE FROM t", "BEGIN IMMEDIATE",
            "WITH n AS (SELECT 1) INSERT INTO t SELECT * FROM n", "PRAGMA user_version = 3", "SELEC", ""] {
            assert!(may_write(write), "{write}");
        }
    }
}
