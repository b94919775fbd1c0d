//! One capability, the records, behind one trait in the style of Spin's
//! factors: a [`Connection`] per way of reaching a database, Spin's SQLite
//! ([`SpinSqlite`], `local`) or a libSQL server over HTTP ([`Remote`],
//! `remote`). [`Db`] runs every statement, transaction, admission and
//! migration through it and never asks which one it holds; what differs
//! between them (a statement now or travelling with the next one, a lock
//! taken or a read checked at the commit) is each implementation's.

use super::hrana::Stmt;
use super::local::{Refused, SpinSqlite};
use super::remote::{Outcome, Remote, TxFailure};
use super::{is_contended, may_write, statement_error, tx_failure, unavailable, Backend, Db, Stop, Tx, WalCheckpoint};
use platform::error::{ApiError, ApiResult};
use platform::time;
use spin_sdk::sqlite::Value;

/// The failed tries of one transaction so far, which decide whether it runs again.
#[derive(Debug, Default)]
pub(crate) struct FailedTries {
    /// Tries whose exchange was lost (no answer came).
    pub unanswered: usize,
    /// Tries a read they were decided on changed under.
    pub changed: usize,
}

pub(crate) trait Connection {
    /// Where the records live, as far as the admission cares.
    fn backend(&self) -> Backend;

    /// `PRAGMA wal_checkpoint(TRUNCATE)` where the WAL is ours to checkpoint.
    fn checkpoint_wal(&self) -> WalCheckpoint;

    /// What the database needs before a migration's pass (a local file's settings).
    fn prepare_for_migration(&self) -> ApiResult<()>;

    /// Whether the request's admission waits to travel with its first read
    /// (a round trip saved) instead of going out at once.
    fn holds_admission(&self) -> bool;

    /// A statement of the admission's own, alone and now (see `admission`).
    fn bookkeeping(&self, db: &Db, sql: &str, params: &[Value]) -> ApiResult<Outcome>;

    /// Statements in order, each one's outcome. With `stop_at_failure`, a
    /// failed one may skip those after it in the same exchange.
    fn each(&self, db: &Db, stmts: &[(&str, &[Value])], stop_at_failure: bool) -> ApiResult<Vec<Outcome>>;

    /// A write inside a transaction whose answer nobody reads: `true` when it
    /// waits to go out with the transaction's next statement.
    fn defer(&self, sql: &str, params: &[Value]) -> bool;

    /// A guarded write inside a transaction (see [`Tx::guard`]).
    fn guard(&self, tx: &Tx, sql: &str, params: &[Value]) -> ApiResult<()>;

    /// One try of a transaction around `work`. A failure says whether the
    /// try's value is to be kept: its commit went out and its answer was lost.
    fn transaction_once(
        &self,
        db: &Db,
        work: &mut dyn FnMut(&Tx) -> ApiResult<()>,
        receipt: Option<&str>,
        optimistic: bool,
    ) -> Result<(), (ApiError, bool)>;

    /// Whether a transaction whose try failed with `error` runs again.
    fn retries(&self, error: &ApiError, stop: Option<Stop>, tries: &mut FailedTries) -> bool;
}

impl Connection for SpinSqlite {
    fn backend(&self) -> Backend {
        SpinSqlite::backend(self)
    }

    fn checkpoint_wal(&self) -> WalCheckpoint {
        SpinSqlite::checkpoint_wal(self)
    }

    fn prepare_for_migration(&self) -> ApiResult<()> {
        self.apply_local_file_settings()
    }

    fn holds_admission(&self) -> bool {
        false
    }

    fn bookkeeping(&self, _: &Db, sql: &str, params: &[Value]) -> ApiResult<Outcome> {
        match self.execute_with_retry(sql, params, false) {
            Ok(result) => Ok(Ok(result)),
            Err(Refused::Sql(spin_sdk::sqlite::Error::Io(message))) => Ok(Err(message)),
            Err(refused) => Err(refused.into_api_error(sql)),
        }
    }

    fn each(&self, db: &Db, stmts: &[(&str, &[Value])], _: bool) -> ApiResult<Vec<Outcome>> {
        stmts
            .iter()
            .map(|(sql, params)| {
                self.before_statement(sql);
                match self.execute_with_retry(sql, params, db.in_transaction.get()) {
                    Ok(result) => Ok(Ok(result)),
                    Err(Refused::Sql(spin_sdk::sqlite::Error::Io(message))) => Ok(Err(message)),
                    Err(refused) => Err(refused.into_api_error(sql)),
                }
            })
            .collect()
    }

    fn defer(&self, _: &str, _: &[Value]) -> bool {
        false
    }

    fn guard(&self, tx: &Tx, sql: &str, params: &[Value]) -> ApiResult<()> {
        match tx.query(sql, params)?.rows.is_empty() {
            true => Err(Stop::GuardLost.error()),
            false => Ok(()),
        }
    }

    fn transaction_once(
        &self,
        db: &Db,
        work: &mut dyn FnMut(&Tx) -> ApiResult<()>,
        _: Option<&str>,
        _: bool,
    ) -> Result<(), (ApiError, bool)> {
        db.spin_transaction_once(self, work).map_err(|error| (error, false))
    }

    fn retries(&self, error: &ApiError, _: Option<Stop>, _: &mut FailedTries) -> bool {
        !self.is_local_file() && is_contended(error)
    }
}

impl Connection for Remote {
    fn backend(&self) -> Backend {
        Backend::Libsql
    }

    fn checkpoint_wal(&self) -> WalCheckpoint {
        WalCheckpoint::NotApplicable
    }

    fn prepare_for_migration(&self) -> ApiResult<()> {
        Ok(())
    }

    fn holds_admission(&self) -> bool {
        true
    }

    fn bookkeeping(&self, db: &Db, sql: &str, params: &[Value]) -> ApiResult<Outcome> {
        Ok(db.remote_round(self, vec![Stmt::new(sql, params)])?.remove(0))
    }

    fn each(&self, db: &Db, stmts: &[(&str, &[Value])], stop_at_failure: bool) -> ApiResult<Vec<Outcome>> {
        let stmts: Vec<Stmt> = stmts.iter().map(|(sql, params)| Stmt::new(*sql, params)).collect();
        if !db.in_transaction.get() {
            return db.remote_each(self, stmts);
        }
        // Reads go out before the lock when they can be checked at the commit.
        if stmts.iter().all(|stmt| !may_write(&stmt.sql)) {
            if let Some(outcomes) = self.read_ahead(&stmts).map_err(unavailable)? {
                return Ok(outcomes);
            }
        }
        self.send(stmts, stop_at_failure).map_err(tx_failure)
    }

    fn defer(&self, sql: &str, params: &[Value]) -> bool {
        self.queue(Stmt::new(sql, params));
        true
    }

    fn guard(&self, _: &Tx, sql: &str, params: &[Value]) -> ApiResult<()> {
        self.queue_guarded(Stmt::new(sql, params));
        Ok(())
    }

    fn transaction_once(
        &self,
        db: &Db,
        work: &mut dyn FnMut(&Tx) -> ApiResult<()>,
        receipt: Option<&str>,
        optimistic: bool,
    ) -> Result<(), (ApiError, bool)> {
        let receipt = receipt.map(|id| {
            Stmt::new(
                "INSERT INTO applied_batches (batch_id, applied_ms) VALUES (?, ?)",
                &[Value::Text(id.to_string()), Value::Integer(time::unix_millis(time::now()))],
            )
        });
        self.begin(receipt, optimistic);
        db.in_transaction.set(true);
        let outcome = work(&Tx { db });
        db.in_transaction.set(false);
        match outcome {
            Ok(()) => match self.commit() {
                Ok(Ok(())) | Err(TxFailure::AppliedBefore) => Ok(()),
                Ok(Err(message)) => Err((statement_error(&message, "COMMIT"), false)),
                Err(failure) => Err((tx_failure(failure), true)),
            },
            Err(error) => {
                if Stop::of(&error) == Some(Stop::AppliedBefore) || matches!(error, ApiError::StorageUnavailable { .. }) {
                    // Nothing to roll back that the server does not drop itself.
                    self.abandon();
                } else {
                    self.rollback();
                }
                Err((error, false))
            }
        }
    }

    /// A lost exchange is tried again twice at most: the server may be down.
    fn retries(&self, error: &ApiError, stop: Option<Stop>, tries: &mut FailedTries) -> bool {
        let lost = matches!(error, ApiError::StorageUnavailable { .. });
        tries.unanswered += usize::from(lost);
        tries.changed += usize::from(stop == Some(Stop::ReadChanged));
        is_contended(error) || stop == Some(Stop::ReadChanged) || lost && tries.unanswered <= 2
    }
}
