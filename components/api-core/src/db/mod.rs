//! SQLite through Spin's `fermyon:spin/sqlite@2.0.0`, and the schema migrations.
//!
//! What the runtime gives us: since Spin 3 every `Connection::open` is a
//! connection of its own (Spin 4's local databases: a new SQLite connection
//! with SQLite's defaults, `synchronous=FULL` and a 5 s busy timeout; its
//! libSQL backend: a client with its own stream), shared with nobody. So the
//! statements of one open run in order on one connection, and a transaction
//! spanning several `execute` calls is atomic: [`Db::transaction`] is the one
//! way a write that touches several rows runs (`BEGIN IMMEDIATE`, then
//! `COMMIT`, or `ROLLBACK` on any error). Single-row writes stay single
//! statements. The schema is plain tables and indexes: every rule (what an
//! interview's end writes, which events a change raises, which deliveries they
//! fan out to) is Rust in the areas' use cases, inside such a transaction.
//! Spin 2, which shared one connection among all instances, is not supported
//! (docs/deploy.md).
//!
//! The cost model (see docs/design-decisions.md, "Storage"): a request opens a
//! connection, sets `synchronous=NORMAL` on it when the database is a local
//! file (WAL is already on, from the migrations; pragmas are per connection
//! and do not persist; a libSQL server gets none), and its first statement is
//! the rate-limit upsert, which also returns the schema version, so an
//! up-to-date database costs no separate check. `secure_delete` is set only
//! when the connection is about to write anything else: a request that only
//! reads never sends it. With WAL and `synchronous=NORMAL` a commit is written
//! to the WAL without an fsync: it survives `kill -9` of the host (the OS has
//! it); a power loss or OS crash may lose the last commits before a checkpoint
//! (for everything, rate-limit counters included). No writer holds the write
//! lock across an fsync.

use crate::error::{ApiError, ApiResult};
use crate::time;
use spin_sdk::sqlite::{Connection, Value};

pub use spin_sdk::sqlite::{QueryResult, Value as SqlValue};

mod admission;
mod lock_wait;
mod migrations;
mod row;

pub use admission::Admission;
pub use migrations::{latest_version, statements, Migration, MIGRATIONS};
use lock_wait::{is_contention, LockWait};
use migrations::applied_already;
pub use row::{opt_text, read_all, read_first, rows, text, Row};

pub struct Db {
    conn: Connection,
    backend: Backend,
    /// Inside [`Db::transaction`]: a refused statement is not sent again there.
    in_transaction: std::cell::Cell<bool>,
    /// On a local file, until the connection's first write: `secure_delete`
    /// is still to be set (see [`Db::before_statement`]).
    secure_delete_pending: std::cell::Cell<bool>,
    /// The request's rate-limit count, while it waits to join the request's
    /// first write (see `admission`).
    count_due: std::cell::RefCell<Option<crate::rate_limit::Quota>>,
}

/// Where the `default` database lives, as the `database_backend` variable
/// says (the component cannot see the runtime config): a local SQLite file
/// (`local`, the default) or a libSQL server (`libsql`: sqld, Turso). Only a
/// local file takes the pragmas below; a libSQL server refuses them ("unsupported
/// statement") and keeps its own journal and durability (docs/deploy.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Local,
    Libsql,
}

impl Backend {
    pub const VARIABLE: &'static str = "database_backend";

    pub fn configured() -> Backend {
        match crate::config::var(Backend::VARIABLE).as_deref().map(str::trim) {
            Some(name) if name.eq_ignore_ascii_case("libsql") => Backend::Libsql,
            _ => Backend::Local,
        }
    }
}

impl Db {
    /// Per connection, on a local file only: commits go to the WAL without an
    /// fsync (see the module docs), and a statement that finds the write lock
    /// held fails at once instead of sleeping in SQLite's busy handler: the
    /// connection waits in short steps of its own ([`LockWait`]). When the
    /// variable was forgotten on libSQL the first pragma is refused; the
    /// request goes on without them, treated as libSQL from then on.
    fn apply_local_pragmas(&mut self) -> ApiResult<()> {
        if self.backend != Backend::Local {
            return Ok(());
        }
        match self.conn.execute("PRAGMA synchronous = NORMAL", &[]) {
            Err(spin_sdk::sqlite::Error::Io(message)) if message.contains("unsupported statement") => {
                eprintln!(
                    "the database refused `PRAGMA synchronous` (a libSQL server?): set the variable {}=libsql",
                    Backend::VARIABLE
                );
                self.backend = Backend::Libsql;
                return Ok(());
            }
            other => other.map(drop).map_err(|error| ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `PRAGMA synchronous`")))?,
        }
        self.conn
            .execute("PRAGMA busy_timeout = 0", &[])
            .map_err(|error| ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `PRAGMA busy_timeout`")))?;
        self.secure_delete_pending.set(true);
        Ok(())
    }

    /// Before a statement of the request (not its rate-limit upsert, whose
    /// rows hold no personal data): one that can write gets `secure_delete`
    /// set first, once per connection. An interview row is rewritten by each
    /// answer, so old copies of it are freed long before it is erased (see
    /// [`Db::secure_delete`]); a connection that only reads frees nothing, and
    /// is spared the statement.
    fn before_statement(&self, sql: &str) {
        if may_write(sql) && self.secure_delete_pending.replace(false) {
            self.secure_delete();
        }
    }

    /// One statement. One refused because another writer holds the lock did
    /// not happen, so it is sent again after a short pause ([`LockWait`]): on a
    /// local file SQLite fails it at once (the connection's busy timeout is 0);
    /// sqld refuses it (SQLITE_BUSY while it checkpoints, SQLITE_INTERRUPT when
    /// it aborts a writer others queue behind: a few statements in a thousand
    /// under concurrent writers through several nodes). Only outside a
    /// transaction: inside one the lock is held already on a local file, and on
    /// libSQL sqld's refusal ends the transaction, so only the whole of it may
    /// be tried again. Past the wait's bound: [`Refused::Busy`].
    fn execute_with_retry(&self, sql: &str, params: &[Value]) -> Result<QueryResult, Refused> {
        let mut wait = self.lock_wait();
        loop {
            match self.conn.execute(sql, params) {
                Err(spin_sdk::sqlite::Error::Io(message)) if !self.in_transaction.get() && is_contention(&message) => {
                    if !wait.another_try() {
                        eprintln!("gave up waiting for the write lock after {} tries: `{}`", wait.tries(), first_line(sql));
                        return Err(Refused::Busy);
                    }
                }
                result => return result.map_err(Refused::Sql),
            }
        }
    }

    fn lock_wait(&self) -> LockWait {
        match self.backend {
            Backend::Local => LockWait::local(),
            Backend::Libsql => LockWait::remote(),
        }
    }

    /// Once per database, on a local file only: WAL makes each write several
    /// times cheaper, and persists in the file.
    fn apply_local_file_settings(&self) -> ApiResult<()> {
        match self.backend {
            Backend::Local => self.execute("PRAGMA journal_mode=WAL", &[]),
            Backend::Libsql => Ok(()),
        }
    }
}

/// A write in progress on one connection, from [`Db::transaction`]: what it
/// does is committed together or not at all. It reads and writes like a
/// [`Db`]; functions that must run inside one take a `&Tx`.
pub struct Tx<'a> {
    db: &'a Db,
}

impl std::ops::Deref for Tx<'_> {
    type Target = Db;

    fn deref(&self) -> &Db {
        self.db
    }
}

/// Why a statement did not run: the database's own refusal, or a write lock
/// that stayed held past [`lock_wait::BOUND`].
enum Refused {
    Sql(spin_sdk::sqlite::Error),
    Busy,
}

impl Refused {
    fn into_api_error(self, sql: &str) -> ApiError {
        match self {
            Refused::Sql(error) => ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `{}`", first_line(sql))),
            Refused::Busy => ApiError::StorageUnavailable { retry_after: lock_wait::RETRY_AFTER_SECONDS },
        }
    }
}

/// Whether a failed database call was refused for contention ([`is_contention`])
/// inside a transaction, which only a new try of the whole transaction gets past.
fn is_contended(error: &ApiError) -> bool {
    matches!(error, ApiError::Internal(error) if is_contention(&format!("{error:#}")))
}

/// Passes of a migration refused by a concurrent one (see [`Db::migrate_from`]):
/// about 2 s of pauses in all.
const MIGRATION_ATTEMPTS: u64 = 20;

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

impl Db {
    /// Opens the `default` database for a request. The schema is checked by
    /// the request's first statement, [`Db::admit`], not here.
    pub fn connect() -> ApiResult<Db> {
        let mut db = Db {
            conn: Connection::open_default()?,
            backend: Backend::configured(),
            in_transaction: Default::default(),
            secure_delete_pending: Default::default(),
            count_due: Default::default(),
        };
        db.apply_local_pragmas()?;
        Ok(db)
    }

    /// Where the records live (see [`Backend`]).
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// `PRAGMA secure_delete = ON` for this connection: whatever it deletes or
    /// frees (a row, an old version of an updated row, a page) is overwritten
    /// with zeros, so erased personal data does not linger in free space of
    /// the database file (docs/interviews.md, "Erasure"). Only a local file
    /// needs it: a backend that refuses the pragma (a remote server, which
    /// keeps its own files) is left as it is, and the answer says whether it is on.
    fn secure_delete(&self) -> bool {
        self.conn.execute("PRAGMA secure_delete = ON", &[]).is_ok()
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: copies every WAL frame into the
    /// database file and truncates the WAL to zero bytes, so old page versions
    /// (rows as they were before an erasure) leave the WAL. Another connection
    /// reading or writing meanwhile makes it [`WalCheckpoint::Busy`]: try
    /// again later. A database not in WAL mode, or a backend that refuses the
    /// pragma (a remote one), has nothing to checkpoint here.
    pub fn checkpoint_wal(&self) -> WalCheckpoint {
        if self.backend != Backend::Local {
            return WalCheckpoint::NotApplicable;
        }
        match self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)", &[]) {
            Err(error) => {
                let message = format!("{error:?}");
                if is_contention(&message) {
                    WalCheckpoint::Busy
                } else {
                    WalCheckpoint::NotApplicable
                }
            }
            // One row: busy (1 when it could not finish), WAL frames, frames checkpointed (-1 without a WAL).
            Ok(result) => match result.rows.first().map(|row| row.values.as_slice()) {
                Some([Value::Integer(0), Value::Integer(-1), ..]) => WalCheckpoint::NotApplicable,
                Some([Value::Integer(0), ..]) => WalCheckpoint::Truncated,
                Some([Value::Integer(_), ..]) => WalCheckpoint::Busy,
                _ => WalCheckpoint::NotApplicable,
            },
        }
    }

    /// Opens the `default` database and brings its schema up to date: for work
    /// that does not start with [`Db::admit`] (the cron dispatcher).
    pub fn open() -> ApiResult<Db> {
        let db = Db::connect()?;
        let current = match db.query_scalar("PRAGMA user_version", &[])? {
            Some(Value::Integer(version)) => version,
            _ => 0,
        };
        db.migrate_from(current)?;
        Ok(db)
    }

    pub fn query(&self, sql: &str, params: &[Value]) -> ApiResult<QueryResult> {
        self.count_before_lone_write(sql)?;
        self.before_statement(sql);
        self.execute_with_retry(sql, params).map_err(|refused| refused.into_api_error(sql))
    }

    pub fn execute(&self, sql: &str, params: &[Value]) -> ApiResult<()> {
        self.query(sql, params).map(|_| ())
    }

    /// Runs a statement that a constraint may stop: `Ok(Err(text))` carries
    /// the database's message so the caller can answer the refusals it knows
    /// (a second answer to one message hits the turns' primary key); any other
    /// failure is internal.
    pub fn query_refusable(&self, sql: &str, params: &[Value]) -> ApiResult<Result<QueryResult, String>> {
        self.count_before_lone_write(sql)?;
        self.before_statement(sql);
        match self.execute_with_retry(sql, params) {
            Ok(result) => Ok(Ok(result)),
            // Contention is no refusal of this write: the caller cannot answer it.
            Err(Refused::Sql(spin_sdk::sqlite::Error::Io(message))) if !is_contention(&message) => Ok(Err(message)),
            Err(refused) => Err(refused.into_api_error(sql)),
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
    /// the same backoff. So `work` must only read and write through `tx`.
    pub fn transaction<T>(&self, mut work: impl FnMut(&Tx) -> ApiResult<T>) -> ApiResult<T> {
        let mut wait = LockWait::remote();
        loop {
            match self.transaction_once(&mut work) {
                Err(error) if self.backend == Backend::Libsql && is_contended(&error) => {
                    if !wait.another_try() {
                        return Err(Refused::Busy.into_api_error("BEGIN IMMEDIATE"));
                    }
                }
                outcome => return outcome,
            }
        }
    }

    /// One try of [`Db::transaction`], for callers that retry on their own terms.
    ///
    /// With the request's rate-limit count due (see `admission`), the
    /// transaction begins deferred and the count's upsert takes the write lock
    /// as its first statement, so the request takes the lock once; a count
    /// past its limit refuses the request and rolls its work back.
    fn transaction_once<T>(&self, work: &mut impl FnMut(&Tx) -> ApiResult<T>) -> ApiResult<T> {
        // Out of `count_due` while it is being written: back in when the
        // transaction fails (the count is still owed), gone when it commits
        // or when the count refused the request (nothing is owed for a refusal).
        let due = self.count_due.take();
        let owed_again = |error: ApiError| {
            *self.count_due.borrow_mut() = due.clone();
            error
        };
        let begun = match &due {
            Some(quota) => self.control("BEGIN").and_then(|()| {
                self.count(quota).inspect_err(|_| {
                    let _ = self.control("ROLLBACK");
                })
            }),
            None => self.begin_immediate(),
        };
        begun.map_err(|error| match error {
            refusal @ ApiError::RateLimited { .. } => refusal,
            error => owed_again(error),
        })?;
        self.in_transaction.set(true);
        let outcome = work(&Tx { db: self });
        self.in_transaction.set(false);
        match outcome {
            Ok(value) => match self.control("COMMIT") {
                Ok(()) => Ok(value),
                Err(error) => {
                    let _ = self.control("ROLLBACK");
                    Err(owed_again(error))
                }
            },
            Err(error) => {
                if let Err(rollback) = self.control("ROLLBACK") {
                    eprintln!("rolling back after {error:?}: {rollback:?}");
                }
                Err(owed_again(error))
            }
        }
    }

    /// Takes the write lock, waiting for it as any statement does.
    fn begin_immediate(&self) -> ApiResult<()> {
        self.control("BEGIN IMMEDIATE")
    }

    /// A statement that begins or ends a transaction: never the write a
    /// count due waits for.
    fn control(&self, sql: &str) -> ApiResult<()> {
        self.before_statement(sql);
        self.execute_with_retry(sql, &[]).map(drop).map_err(|refused| refused.into_api_error(sql))
    }

    /// A write outside any transaction while the request's count is due:
    /// the count is written first, on its own (see `admission`).
    fn count_before_lone_write(&self, sql: &str) -> ApiResult<()> {
        if self.in_transaction.get() || !may_write(sql) || self.count_due.borrow().is_none() {
            return Ok(());
        }
        self.settle_count()
    }

    /// The first column of the first row, if any.
    pub fn query_scalar(&self, sql: &str, params: &[Value]) -> ApiResult<Option<Value>> {
        let result = self.query(sql, params)?;
        Ok(result.rows.into_iter().next().and_then(|row| row.values.into_iter().next()))
    }

    /// Applies the migrations after `current`; runs once per database and version.
    ///
    /// Instances that start together on a fresh database all try to migrate
    /// it. Each pass is one transaction that reads the version again once it
    /// holds the write lock, so the first pass migrates and the others find
    /// nothing left to do. A pass refused for contention (see
    /// [`is_contention`]: switching a local file to WAL outside any
    /// transaction, or sqld aborting one of several nodes' passes) is rolled
    /// back whole and run again after a short pause.
    fn migrate_from(&self, current: i64) -> ApiResult<()> {
        if current >= latest_version() {
            return Ok(());
        }
        let mut attempt = 0;
        loop {
            // One try per pass: the passes are this loop's retries.
            let pass = self.apply_local_file_settings().and_then(|()| {
                self.transaction_once(&mut |tx| {
                    let current = match tx.query_scalar("PRAGMA user_version", &[])? {
                        Some(Value::Integer(version)) => version,
                        _ => 0,
                    };
                    tx.apply_migrations_after(current)
                })
            });
            match pass {
                Err(error) if attempt < MIGRATION_ATTEMPTS && is_contended(&error) => {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10 * attempt));
                }
                done => return done,
            }
        }
    }

    fn apply_migrations_after(&self, current: i64) -> ApiResult<()> {
        if current >= latest_version() {
            return Ok(());
        }
        for migration in MIGRATIONS.iter().filter(|m| m.version > current) {
            for statement in statements(migration.sql) {
                if let Err(error) = self.conn.execute(&statement, &[]) {
                    if !applied_already(&statement, &format!("{error:?}")) {
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
