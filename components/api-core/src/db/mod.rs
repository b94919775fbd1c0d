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

mod migrations;
mod row;

pub use migrations::{latest_version, statements, Migration, MIGRATIONS};
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
    /// fsync (see the module docs). When the variable was forgotten on libSQL
    /// the pragma is refused; the request goes on without it, treated as
    /// libSQL from then on.
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

    /// One statement. On libSQL, one that sqld refused for contention
    /// (SQLITE_BUSY, at once while it checkpoints; SQLITE_INTERRUPT when it
    /// aborts a writer others queue behind) did not happen, so it is sent
    /// again after a short pause, for up to about 2 s: under concurrent writers
    /// through several nodes a few statements in a thousand meet one. Only for
    /// statements outside a transaction: inside one, sqld's refusal ends the
    /// transaction, and only the whole of it may be tried again.
    fn execute_with_retry(&self, sql: &str, params: &[Value]) -> Result<QueryResult, spin_sdk::sqlite::Error> {
        let mut attempt = 0;
        loop {
            match self.conn.execute(sql, params) {
                Err(spin_sdk::sqlite::Error::Io(message))
                    if self.backend == Backend::Libsql
                        && !self.in_transaction.get()
                        && attempt < CONTENTION_ATTEMPTS
                        && is_contention(&message) =>
                {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10 * attempt));
                }
                result => return result,
            }
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

/// `BEGIN IMMEDIATE` attempts: SQLite itself waits for the write lock for up
/// to the busy timeout (5 s under Spin); a database still busy after that (or
/// a backend that does not wait, like a remote one) is asked again after a
/// short pause, growing to about 1.5 s in all.
const BEGIN_ATTEMPTS: u32 = 8;

/// Whether a failure is a refusal caused by another writer, which a later try
/// gets past: SQLite's "database is locked"; on sqld also SQLITE_BUSY, and
/// SQLITE_INTERRUPT (sqld aborts a write that holds its write lock while others
/// queue for it: seen when several nodes migrate a new database).
fn is_contention(message: &str) -> bool {
    ["database is locked", "database is busy", "SQLITE_BUSY", "SQLITE_INTERRUPT"].iter().any(|needle| message.contains(needle))
}

/// Whether a failed database call was refused for contention ([`is_contention`]).
fn is_contended(error: &ApiError) -> bool {
    matches!(error, ApiError::Internal(error) if is_contention(&format!("{error:#}")))
}

/// The pause before the `attempt`th try of a write refused for contention:
/// 10, 20, 40 ... 320 ms, with jitter so that waiting writers spread out.
fn contention_pause(attempt: u32) {
    let pause = 10u64 << attempt.min(5);
    let jitter = u64::from(uuid::Uuid::new_v4().as_bytes()[0]) % (pause / 2 + 1);
    std::thread::sleep(std::time::Duration::from_millis(pause / 2 + jitter));
}

/// Passes of a migration refused by a concurrent one (see [`Db::migrate_from`]):
/// about 2 s of pauses in all.
const MIGRATION_ATTEMPTS: u64 = 20;

/// Tries of a statement libSQL refused for contention (see `Db::execute_with_retry`).
const CONTENTION_ATTEMPTS: u64 = 20;

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

/// What the request's rate-limit statement found: each bucket's count in this
/// window (in the order asked), and the tenant key hash it looked up on the way.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Admission {
    pub counts: Vec<u64>,
    pub key_hash: Option<String>,
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
        };
        db.apply_local_pragmas()?;
        Ok(db)
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
        self.before_statement(sql);
        self.execute_with_retry(sql, params).map_err(|error| {
            ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `{}`", first_line(sql)))
        })
    }

    pub fn execute(&self, sql: &str, params: &[Value]) -> ApiResult<()> {
        self.query(sql, params).map(|_| ())
    }

    /// Runs a statement that a constraint may stop: `Ok(Err(text))` carries
    /// the database's message so the caller can answer the refusals it knows
    /// (a second answer to one message hits the turns' primary key); any other
    /// failure is internal.
    pub fn query_refusable(&self, sql: &str, params: &[Value]) -> ApiResult<Result<QueryResult, String>> {
        self.before_statement(sql);
        match self.execute_with_retry(sql, params) {
            Ok(result) => Ok(Ok(result)),
            // Contention is no refusal of this write: the caller cannot answer it.
            Err(spin_sdk::sqlite::Error::Io(message)) if !is_contention(&message) => Ok(Err(message)),
            Err(error) => Err(ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `{}`", first_line(sql)))),
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
        let mut attempt = 0;
        loop {
            match self.transaction_once(&mut work) {
                Err(error) if self.backend == Backend::Libsql && attempt + 1 < BEGIN_ATTEMPTS && is_contended(&error) => {
                    attempt += 1;
                    contention_pause(attempt);
                }
                outcome => return outcome,
            }
        }
    }

    /// One try of [`Db::transaction`], for callers that retry on their own terms.
    fn transaction_once<T>(&self, work: &mut impl FnMut(&Tx) -> ApiResult<T>) -> ApiResult<T> {
        self.begin_immediate()?;
        self.in_transaction.set(true);
        let outcome = work(&Tx { db: self });
        self.in_transaction.set(false);
        match outcome {
            Ok(value) => match self.execute("COMMIT", &[]) {
                Ok(()) => Ok(value),
                Err(error) => {
                    let _ = self.execute("ROLLBACK", &[]);
                    Err(error)
                }
            },
            Err(error) => {
                if let Err(rollback) = self.execute("ROLLBACK", &[]) {
                    eprintln!("rolling back after {error:?}: {rollback:?}");
                }
                Err(error)
            }
        }
    }

    fn begin_immediate(&self) -> ApiResult<()> {
        self.before_statement("BEGIN IMMEDIATE");
        let mut attempt = 0;
        loop {
            match self.conn.execute("BEGIN IMMEDIATE", &[]) {
                Ok(_) => return Ok(()),
                Err(spin_sdk::sqlite::Error::Io(message)) if is_contention(&message) && attempt + 1 < BEGIN_ATTEMPTS => {
                    attempt += 1;
                    contention_pause(attempt);
                }
                Err(error) => {
                    return Err(ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `BEGIN IMMEDIATE`")))
                }
            }
        }
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

    /// The request's first statement: counts it in each rate-limit bucket's
    /// current window, reads the schema version and, when credentials came,
    /// the tenant's key hash, all in one upsert. A database without the schema
    /// (a missing table) or behind it is migrated, then the request goes on.
    pub fn admit(&self, buckets: &[String], window_start: u64, tenant_id: Option<&str>) -> ApiResult<Admission> {
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
        let result = match self.execute_with_retry(&sql, &params) {
            Err(spin_sdk::sqlite::Error::Io(message)) if message.contains("no such table") => {
                self.migrate_from(0)?;
                self.query(&sql, &params)?
            }
            other => other.map_err(|error| {
                ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `{}`", first_line(&sql)))
            })?,
        };
        let returned: Vec<Row> = rows(&result).collect();
        let schema_version = match returned.first() {
            Some(row) => row.int("schema_version")?,
            None => 0,
        };
        self.migrate_from(schema_version)?;
        // RETURNING promises no order: match the rows to the buckets by name.
        let counted: Vec<(String, u64)> =
            returned.iter().map(|row| Ok((row.text("bucket")?, row.int("count")?.max(1) as u64))).collect::<ApiResult<_>>()?;
        let count_of =
            |bucket: &String| counted.iter().find(|(name, _)| name == bucket).map_or(1, |(_, count)| *count);
        let admission = Admission {
            counts: buckets.iter().map(count_of).collect(),
            key_hash: match returned.first() {
                Some(row) => row.opt_text("key_hash")?,
                None => None,
            },
        };
        if admission.counts.contains(&1) {
            // First request of a client in a new window: forget windows that are over.
            self.execute(
                "DELETE FROM rate_limit_windows WHERE window_start < ?",
                &[Value::Integer(window_start as i64)],
            )?;
        }
        Ok(admission)
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
