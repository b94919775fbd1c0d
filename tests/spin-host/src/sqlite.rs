//! `fermyon:spin/sqlite@2.0.0`, with the semantics of Spin's in-process
//! SQLite (`spin-sqlite-inproc`): the `default` database is the file
//! `<state-dir>/sqlite_db.db`, opened ONCE per app as one shared
//! `Arc<Mutex<rusqlite::Connection>>`; every `execute` locks it for exactly one
//! statement (prepared through the statement cache) on a blocking thread.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

use anyhow::Context as _;
use rusqlite::types::ValueRef;
use wasmtime::component::Resource;

use crate::bindings::spin::fermyon::spin::sqlite::{self, Error, QueryResult, RowResult, Value};
use crate::state::StoreState;

/// How long a statement waits for a lock held by another connection
/// (e.g. a `sqlite3` shell or a second host on the same state dir).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// A database file opened lazily, once, and shared by every instance of every
/// component of the app.
pub struct SharedDb {
    path: PathBuf,
    init: fn(&rusqlite::Connection) -> rusqlite::Result<()>,
    conn: OnceLock<Arc<Mutex<rusqlite::Connection>>>,
}

impl SharedDb {
    pub fn new(path: PathBuf, init: fn(&rusqlite::Connection) -> rusqlite::Result<()>) -> SharedDb {
        SharedDb {
            path,
            init,
            conn: OnceLock::new(),
        }
    }

    pub fn path(&self) -> &std::path::Path {
        &self.path
    }

    pub fn connection(&self) -> anyhow::Result<Arc<Mutex<rusqlite::Connection>>> {
        if let Some(c) = self.conn.get() {
            return Ok(c.clone());
        }
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("failed to create directory {}", parent.display()))?;
        }
        let conn = rusqlite::Connection::open(&self.path)
            .with_context(|| format!("failed to open {}", self.path.display()))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        (self.init)(&conn)
            .with_context(|| format!("failed to initialise {}", self.path.display()))?;
        // A racing opener may have won; everyone then uses the winner's connection.
        Ok(self.conn.get_or_init(|| Arc::new(Mutex::new(conn))).clone())
    }

    /// Runs statements outside any component (e.g. `spin up --sqlite`).
    pub fn execute_batch(&self, sql: &str) -> anyhow::Result<()> {
        let conn = self.connection()?;
        let conn = lock(&conn);
        conn.execute_batch(sql)?;
        Ok(())
    }
}

pub fn no_init(_: &rusqlite::Connection) -> rusqlite::Result<()> {
    Ok(())
}

pub(crate) fn lock(m: &Mutex<rusqlite::Connection>) -> MutexGuard<'_, rusqlite::Connection> {
    // A panic while holding the lock leaves the connection usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `connection` resource: a handle on the shared connection.
pub struct SqliteConnection(Arc<Mutex<rusqlite::Connection>>);

fn execute(
    conn: &Mutex<rusqlite::Connection>,
    sql: &str,
    params: Vec<Value>,
) -> Result<QueryResult, Error> {
    let io = |e: rusqlite::Error| Error::Io(e.to_string());
    let conn = lock(conn);
    let mut stmt = conn.prepare_cached(sql).map_err(io)?;
    let columns: Vec<String> = stmt.column_names().map(String::from).collect();
    let params = params.into_iter().map(|v| match v {
        Value::Integer(i) => rusqlite::types::Value::Integer(i),
        Value::Real(r) => rusqlite::types::Value::Real(r),
        Value::Text(t) => rusqlite::types::Value::Text(t),
        Value::Blob(b) => rusqlite::types::Value::Blob(b),
        Value::Null => rusqlite::types::Value::Null,
    });
    let n = columns.len();
    let mut rows = stmt.query(rusqlite::params_from_iter(params)).map_err(io)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(io)? {
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            values.push(match row.get_ref(i).map_err(io)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(i) => Value::Integer(i),
                ValueRef::Real(f) => Value::Real(f),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::Blob(b.to_vec()),
            });
        }
        out.push(RowResult { values });
    }
    Ok(QueryResult { columns, rows: out })
}

impl sqlite::Host for StoreState {}

impl sqlite::HostConnection for StoreState {
    async fn open(
        &mut self,
        database: String,
    ) -> wasmtime::Result<Result<Resource<SqliteConnection>, Error>> {
        if !self.component.sqlite_databases.contains(&database) {
            return Ok(Err(Error::AccessDenied));
        }
        if database != "default" {
            return Ok(Err(Error::NoSuchDatabase));
        }
        let db = self.app.sqlite.clone();
        // Opening may create the file: keep it off the async worker threads.
        let conn = match tokio::task::spawn_blocking(move || db.connection()).await? {
            Ok(c) => c,
            Err(e) => return Ok(Err(Error::Io(format!("{e:#}")))),
        };
        Ok(Ok(self.table.push(SqliteConnection(conn))?))
    }

    async fn execute(
        &mut self,
        this: Resource<SqliteConnection>,
        statement: String,
        parameters: Vec<Value>,
    ) -> wasmtime::Result<Result<QueryResult, Error>> {
        let conn = match self.table.get(&this) {
            Ok(c) => c.0.clone(),
            Err(_) => return Ok(Err(Error::InvalidConnection)),
        };
        let result = tokio::task::spawn_blocking(move || execute(&conn, &statement, parameters))
            .await
            .unwrap_or_else(|e| Err(Error::Io(format!("internal runtime error: {e}"))));
        Ok(result)
    }

    async fn drop(&mut self, rep: Resource<SqliteConnection>) -> wasmtime::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_db(name: &str) -> SharedDb {
        let dir =
            std::env::temp_dir().join(format!("spin-host-sqlite-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        SharedDb::new(dir.join("sqlite_db.db"), no_init)
    }

    #[test]
    fn executes_with_params_and_returning() {
        let db = temp_db("exec");
        let conn = db.connection().unwrap();
        // Same connection every time.
        assert!(Arc::ptr_eq(&conn, &db.connection().unwrap()));
        execute(
            &conn,
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)",
            vec![],
        )
        .unwrap();
        let r = execute(
            &conn,
            "INSERT INTO t (name, score, data) VALUES (?, ?, ?) RETURNING id, name",
            vec![
                Value::Text("a".into()),
                Value::Real(1.5),
                Value::Blob(vec![1, 2]),
            ],
        )
        .unwrap();
        assert_eq!(r.columns, vec!["id", "name"]);
        assert_eq!(r.rows.len(), 1);
        assert!(matches!(r.rows[0].values[0], Value::Integer(1)));
        execute(&conn, "INSERT INTO t (name) VALUES (?)", vec![Value::Null]).unwrap();
        let r = execute(
            &conn,
            "SELECT id, name, score, data FROM t ORDER BY id",
            vec![],
        )
        .unwrap();
        assert_eq!(r.rows.len(), 2);
        assert!(matches!(&r.rows[0].values[3], Value::Blob(b) if b == &vec![1, 2]));
        assert!(matches!(r.rows[1].values[1], Value::Null));
        let err = execute(&conn, "SELECT nope FROM t", vec![]).unwrap_err();
        assert!(matches!(err, Error::Io(_)));
        let err = execute(&conn, "INSERT INTO t (id) VALUES (1)", vec![]).unwrap_err();
        assert!(matches!(err, Error::Io(m) if m.contains("UNIQUE")));
        let _ = std::fs::remove_dir_all(db.path().parent().unwrap());
    }
}
