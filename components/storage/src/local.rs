//! The records through Spin's `fermyon:spin/sqlite@2.0.0`: the `default`
//! database the runtime grants (a local file, or a libSQL server that the
//! runtime config names and the runtime's own client reaches).
//!
//! With WAL and `synchronous=NORMAL` a commit is written to the WAL without an
//! fsync: it survives `kill -9` of the host (the OS has it); a power loss or
//! OS crash may lose the last commits before a checkpoint. No writer holds the
//! write lock across an fsync. `secure_delete` is set only when the connection
//! is about to write: a request that only reads never sends it.

use super::lock_wait::{self, is_contention, LockWait};
use super::{first_line, may_write, WalCheckpoint};
use platform::error::{ApiError, ApiResult};
use spin_sdk::sqlite::{Connection, Error, QueryResult, Value};
use std::cell::Cell;

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
        match platform::config::var(Backend::VARIABLE).as_deref().map(str::trim) {
            Some(name) if name.eq_ignore_ascii_case("libsql") => Backend::Libsql,
            _ => Backend::Local,
        }
    }
}

/// Why a statement did not run: the database's own refusal, or a write lock
/// that stayed held past [`lock_wait::BOUND`].
pub enum Refused {
    Sql(Error),
    Busy,
}

impl Refused {
    pub fn into_api_error(self, sql: &str) -> ApiError {
        match self {
            Refused::Sql(error) => internal(&error, sql),
            Refused::Busy => ApiError::StorageUnavailable { retry_after: lock_wait::RETRY_AFTER_SECONDS },
        }
    }
}

/// One open of Spin's `default` database.
pub struct SpinSqlite {
    conn: Connection,
    backend: Cell<Backend>,
    /// On a local file, until the connection's first write: `secure_delete`
    /// is still to be set (see [`SpinSqlite::before_statement`]).
    secure_delete_pending: Cell<bool>,
}

pub fn internal(error: &Error, sql: &str) -> ApiError {
    ApiError::Internal(anyhow::anyhow!("sqlite: {error:?} in `{}`", first_line(sql)))
}

impl SpinSqlite {
    pub fn open() -> ApiResult<SpinSqlite> {
        let db = SpinSqlite {
            conn: Connection::open_default()?,
            backend: Cell::new(Backend::configured()),
            secure_delete_pending: Cell::new(false),
        };
        db.apply_local_pragmas()?;
        Ok(db)
    }

    pub fn is_local_file(&self) -> bool {
        self.backend.get() == Backend::Local
    }

    pub fn backend(&self) -> Backend {
        self.backend.get()
    }

    /// Per connection, on a local file only: commits go to the WAL without an
    /// fsync (see the module docs), and a statement that finds the write lock
    /// held fails at once instead of sleeping in SQLite's busy handler: the
    /// connection waits in short steps of its own ([`LockWait`]). When the
    /// variable was forgotten on libSQL the first pragma is refused; the
    /// request goes on without them, treated as libSQL from then on.
    fn apply_local_pragmas(&self) -> ApiResult<()> {
        if !self.is_local_file() {
            return Ok(());
        }
        match self.conn.execute("PRAGMA synchronous = NORMAL", &[]) {
            Err(Error::Io(message)) if message.contains("unsupported statement") => {
                eprintln!(
                    "the database refused `PRAGMA synchronous` (a libSQL server?): set the variable {}=libsql",
                    Backend::VARIABLE
                );
                self.backend.set(Backend::Libsql);
                return Ok(());
            }
            other => other.map(drop).map_err(|error| internal(&error, "PRAGMA synchronous"))?,
        }
        self.conn.execute("PRAGMA busy_timeout = 0", &[]).map_err(|error| internal(&error, "PRAGMA busy_timeout"))?;
        self.secure_delete_pending.set(true);
        Ok(())
    }

    /// Before a statement of the request (not its rate-limit upsert, whose
    /// rows hold no personal data): one that can write gets `secure_delete`
    /// set first, once per connection. An interview row is rewritten by each
    /// answer, so old copies of it are freed long before it is erased; a
    /// connection that only reads frees nothing, and is spared the statement.
    pub fn before_statement(&self, sql: &str) {
        if may_write(sql) && self.secure_delete_pending.replace(false) {
            self.secure_delete();
        }
    }

    /// `PRAGMA secure_delete = ON` for this connection: whatever it deletes or
    /// frees (a row, an old version of an updated row, a page) is overwritten
    /// with zeros, so erased personal data does not linger in free space of
    /// the database file (docs/interviews.md, "Erasure"). Only a local file
    /// needs it: a backend that refuses the pragma (a remote server, which
    /// keeps its own files) is left as it is.
    fn secure_delete(&self) -> bool {
        self.conn.execute("PRAGMA secure_delete = ON", &[]).is_ok()
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
    pub fn execute_with_retry(&self, sql: &str, params: &[Value], in_transaction: bool) -> Result<QueryResult, Refused> {
        // From the first refusal: sqld may hold a statement in its own queue
        // for seconds before refusing it, and a wait already spent there would
        // leave it no further try.
        let mut wait: Option<LockWait> = None;
        loop {
            match self.conn.execute(sql, params) {
                Err(Error::Io(message)) if !in_transaction && is_contention(&message) => {
                    let wait = wait.get_or_insert_with(|| match self.backend.get() {
                        Backend::Local => LockWait::local(),
                        Backend::Libsql => LockWait::remote(),
                    });
                    if !wait.another_try() {
                        eprintln!(
                            "gave up after {} more tries, each refused for contention (the write lock, or a libSQL server at its limit of requests), the last with {}: `{}`",
                            wait.tries(),
                            first_line(&message),
                            first_line(sql)
                        );
                        return Err(Refused::Busy);
                    }
                }
                result => return result.map_err(Refused::Sql),
            }
        }
    }

    /// A statement that begins or ends a transaction, waiting for the lock
    /// as any statement does.
    pub fn control(&self, sql: &str) -> ApiResult<()> {
        self.before_statement(sql);
        self.execute_with_retry(sql, &[], false).map(drop).map_err(|refused| refused.into_api_error(sql))
    }

    /// Once per database, on a local file only: WAL makes each write several
    /// times cheaper, and persists in the file.
    pub fn apply_local_file_settings(&self) -> ApiResult<()> {
        if !self.is_local_file() {
            return Ok(());
        }
        self.conn.execute("PRAGMA journal_mode=WAL", &[]).map(drop).map_err(|error| internal(&error, "PRAGMA journal_mode"))
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: copies every WAL frame into the
    /// database file and truncates the WAL to zero bytes, so old page versions
    /// (rows as they were before an erasure) leave the WAL.
    pub fn checkpoint_wal(&self) -> WalCheckpoint {
        if !self.is_local_file() {
            return WalCheckpoint::NotApplicable;
        }
        match self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)", &[]) {
            Err(error) => {
                if is_contention(&format!("{error:?}")) {
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
}
