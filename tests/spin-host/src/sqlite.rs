//! `fermyon:spin/sqlite@2.0.0` as Spin 4.0.2 serves its local databases
//! (crates `spin-sqlite` and `spin-sqlite-inproc` at tag v4.0.2).
//!
//! Why follow Spin this closely: the host exists so that tests and benchmarks
//! show what the app will meet under `spin up`. An earlier version shared one
//! connection among all instances; it ran about four times faster than real
//! Spin and could never show a request waiting on another's write lock.
//!
//! What Spin 4.0.2 does, and so this module:
//! - the `default` database is the file `<state-dir>/sqlite_db.db`, unless the
//!   runtime config file defines `[sqlite_database.default]`; other labels exist
//!   only when that file defines them (`type = "spin"`, see `runtime_config.rs`);
//! - every `Connection::open` makes a NEW connection handle; its rusqlite
//!   connection is created on the handle's first statement (so an `open` that
//!   is never used costs nothing) and closed when the handle is dropped;
//!   a `spin` database without `path` is in memory, so each open then gets a
//!   fresh empty database;
//! - each such connection has rusqlite's defaults and nothing else: busy timeout
//!   5 s, `synchronous=FULL`, an empty statement cache of 16 (`prepare_cached`
//!   only helps within one open), no `PRAGMA`s; `ATTACH` of a file is refused
//!   (only `''` and `':memory:'` may be attached) unless the database has
//!   `allow_attach_file = true`;
//! - connections of different opens share nothing but the file, so they queue
//!   on SQLite's file locks (waiting up to the busy timeout) like Spin's do, and
//!   per-connection state (TEMP tables, `PRAGMA synchronous`, ...) is gone at the
//!   next open; statements of one open run in order on its own connection;
//! - at most 256 connections open at once per instance; a result may hold at
//!   most 128 MiB.
//!
//! Known difference: the bundled SQLite is the one of this crate's rusqlite
//! (Spin 4.0.2 bundles rusqlite 0.34); both are built with the same options.
//! The key-value store is different in Spin: ONE connection per store (see
//! `key_value.rs`).
//!
//! A database of `type = "libsql"` is a remote libSQL server, opened with
//! Spin's own client, a client per open: see `sqlite_libsql.rs`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use anyhow::Context as _;
use rusqlite::types::ValueRef;
use wasmtime::component::Resource;

use crate::bindings::spin::fermyon::spin::sqlite::{self, Error, QueryResult, RowResult, Value};
use crate::runtime_config::{SqliteBackend, SqliteLocation};
use crate::sqlite_libsql::{LazyLibsqlConnection, LibsqlDatabase};
use crate::state::StoreState;

/// Spin's per-instance cap on open SQLite connections (its resource table size).
pub const MAX_OPEN_CONNECTIONS: usize = 256;

/// Spin's cap on the bytes of one query result (`MAX_HOST_BUFFERED_BYTES`).
pub const MAX_RESULT_BYTES: usize = 128 << 20;

/// A database that components open, by its runtime-config type: a local
/// SQLite file (`spin`) or a libSQL server (`libsql`).
#[derive(Debug, Clone)]
pub enum Database {
    Local(SqliteDatabase),
    Libsql(LibsqlDatabase),
}

impl Database {
    /// The database of a runtime config entry (creating a local file's directory).
    pub fn create(backend: &SqliteBackend) -> anyhow::Result<Database> {
        Ok(match backend {
            SqliteBackend::Local(location) => Database::Local(SqliteDatabase::create(location)?),
            SqliteBackend::Libsql { url, token } => Database::Libsql(LibsqlDatabase::new(url, token)),
        })
    }

    /// What one `Connection::open` gets: a connection (or client) of its own, made on first use.
    pub fn open(&self) -> OpenConnection {
        match self {
            Database::Local(db) => OpenConnection::Local(Arc::new(db.open())),
            Database::Libsql(db) => OpenConnection::Libsql(Arc::new(db.open())),
        }
    }
}

/// One opened connection, of either kind.
#[derive(Clone)]
pub enum OpenConnection {
    Local(Arc<LazyConnection>),
    Libsql(Arc<LazyLibsqlConnection>),
}

impl OpenConnection {
    /// One statement: a local one on a blocking thread (opening, waiting for
    /// locks and file I/O block), a remote one as the HTTP request it is.
    pub async fn execute(&self, sql: String, params: Vec<Value>) -> Result<QueryResult, Error> {
        match self {
            OpenConnection::Local(conn) => {
                let conn = conn.clone();
                tokio::task::spawn_blocking(move || conn.execute(&sql, params))
                    .await
                    .unwrap_or_else(|e| Err(Error::Io(format!("internal runtime error: {e}"))))
            }
            OpenConnection::Libsql(conn) => conn.execute(&sql, params).await,
        }
    }

    /// Several `;`-separated statements, as `spin up --sqlite @file` runs a file.
    pub async fn execute_batch(&self, sql: String) -> Result<(), Error> {
        match self {
            OpenConnection::Local(conn) => {
                let conn = conn.clone();
                tokio::task::spawn_blocking(move || conn.execute_batch(&sql))
                    .await
                    .unwrap_or_else(|e| Err(Error::Io(format!("internal runtime error: {e}"))))
            }
            OpenConnection::Libsql(conn) => conn.execute_batch(&sql).await,
        }
    }
}

/// A local database file (or memory) that components open; the host keeps no
/// connection to it.
#[derive(Debug, Clone)]
pub struct SqliteDatabase {
    /// `None`: in memory (a fresh database per open, as in Spin).
    path: Option<PathBuf>,
    allow_attach_file: bool,
}

impl SqliteDatabase {
    /// A database file, attaching other files refused (Spin's `default`).
    pub fn new(path: PathBuf) -> SqliteDatabase {
        SqliteDatabase {
            path: Some(path),
            allow_attach_file: false,
        }
    }

    /// A database from the runtime config; creates the file's directory, as Spin does.
    pub fn create(location: &SqliteLocation) -> anyhow::Result<SqliteDatabase> {
        if let Some(parent) = location.path.as_deref().and_then(Path::parent) {
            std::fs::create_dir_all(parent).with_context(|| {
                format!("failed to create sqlite database directory '{}'", parent.display())
            })?;
        }
        Ok(SqliteDatabase {
            path: location.path.clone(),
            allow_attach_file: location.allow_attach_file,
        })
    }

    /// The file, or `None` in memory.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// What one `Connection::open` gets: a connection of its own, made on first use.
    pub fn open(&self) -> LazyConnection {
        LazyConnection {
            path: self.path.clone(),
            allow_attach_file: self.allow_attach_file,
            conn: OnceLock::new(),
        }
    }
}

/// One opened connection. Its mutex is never contended across requests: it
/// only orders the statements of the instance that opened it.
pub struct LazyConnection {
    path: Option<PathBuf>,
    allow_attach_file: bool,
    conn: OnceLock<Arc<Mutex<rusqlite::Connection>>>,
}

impl LazyConnection {
    fn connection(&self) -> Result<Arc<Mutex<rusqlite::Connection>>, Error> {
        if let Some(c) = self.conn.get() {
            return Ok(c.clone());
        }
        let mut conn = match &self.path {
            Some(path) => rusqlite::Connection::open(path),
            None => rusqlite::Connection::open_in_memory(),
        }
        .map_err(|e| Error::Io(e.to_string()))?;
        if !self.allow_attach_file {
            conn.authorizer(Some(|ctx: rusqlite::hooks::AuthContext<'_>| {
                use rusqlite::hooks::{AuthAction, Authorization};
                match ctx.action {
                    AuthAction::Attach { filename } if !matches!(filename, "" | ":memory:") => {
                        Authorization::Deny
                    }
                    _ => Authorization::Allow,
                }
            }))
            .map_err(|e| Error::Io(e.to_string()))?;
        }
        Ok(self
            .conn
            .get_or_init(|| Arc::new(Mutex::new(conn)))
            .clone())
    }

    /// One statement, as `connection.execute` (creating the connection if needed).
    pub fn execute(&self, sql: &str, params: Vec<Value>) -> Result<QueryResult, Error> {
        let conn = self.connection()?;
        let conn = lock(&conn);
        execute(&conn, sql, params)
    }

    /// Several `;`-separated statements, as `spin up --sqlite @file` runs a file.
    pub fn execute_batch(&self, sql: &str) -> Result<(), Error> {
        let conn = self.connection()?;
        let conn = lock(&conn);
        conn.execute_batch(sql).map_err(|e| Error::Io(e.to_string()))
    }
}

pub(crate) fn lock(m: &Mutex<rusqlite::Connection>) -> MutexGuard<'_, rusqlite::Connection> {
    // A panic while holding the lock leaves the connection usable.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The `connection` resource.
pub struct SqliteConnection(OpenConnection);

fn execute(
    conn: &rusqlite::Connection,
    sql: &str,
    params: Vec<Value>,
) -> Result<QueryResult, Error> {
    let io = |e: rusqlite::Error| Error::Io(e.to_string());
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
    let mut bytes = 0usize;
    while let Some(row) = rows.next().map_err(io)? {
        let mut values = Vec::with_capacity(n);
        for i in 0..n {
            let value = match row.get_ref(i).map_err(io)? {
                ValueRef::Null => Value::Null,
                ValueRef::Integer(i) => Value::Integer(i),
                ValueRef::Real(f) => Value::Real(f),
                ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
                ValueRef::Blob(b) => Value::Blob(b.to_vec()),
            };
            bytes += std::mem::size_of::<Value>()
                + match &value {
                    Value::Text(t) => t.len(),
                    Value::Blob(b) => b.len(),
                    _ => 0,
                };
            values.push(value);
        }
        if bytes > MAX_RESULT_BYTES {
            return Err(Error::Io(format!(
                "query result exceeds limit of {MAX_RESULT_BYTES} bytes"
            )));
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
        let Some(db) = self.app.sqlite.get(&database) else {
            return Ok(Err(Error::NoSuchDatabase));
        };
        if self.open_sqlite_connections >= MAX_OPEN_CONNECTIONS {
            return Ok(Err(Error::Io("too many connections opened".into())));
        }
        let conn = SqliteConnection(db.open());
        let resource = self.table.push(conn)?;
        self.open_sqlite_connections += 1;
        Ok(Ok(resource))
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
        Ok(conn.execute(statement, parameters).await)
    }

    async fn drop(&mut self, rep: Resource<SqliteConnection>) -> wasmtime::Result<()> {
        // Closes the connection (as in Spin, on the calling thread).
        self.table.delete(rep)?;
        self.open_sqlite_connections = self.open_sqlite_connections.saturating_sub(1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    fn temp_db(name: &str) -> SqliteDatabase {
        let dir =
            std::env::temp_dir().join(format!("spin-host-sqlite-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        SqliteDatabase::new(dir.join("sqlite_db.db"))
    }

    fn cleanup(db: &SqliteDatabase) {
        let _ = std::fs::remove_dir_all(db.path().unwrap().parent().unwrap());
    }

    fn scalar(conn: &LazyConnection, sql: &str) -> Value {
        let r = conn.execute(sql, vec![]).unwrap();
        r.rows.into_iter().next().unwrap().values.into_iter().next().unwrap()
    }

    #[test]
    fn executes_with_params_and_returning() {
        let db = temp_db("exec");
        let conn = db.open();
        conn.execute(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)",
            vec![],
        )
        .unwrap();
        let r = conn
            .execute(
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
        conn.execute("INSERT INTO t (name) VALUES (?)", vec![Value::Null])
            .unwrap();
        // Another open sees what this one committed.
        let r = db
            .open()
            .execute("SELECT id, name, score, data FROM t ORDER BY id", vec![])
            .unwrap();
        assert_eq!(r.rows.len(), 2);
        assert!(matches!(&r.rows[0].values[3], Value::Blob(b) if b == &vec![1, 2]));
        assert!(matches!(r.rows[1].values[1], Value::Null));
        let err = conn.execute("SELECT nope FROM t", vec![]).unwrap_err();
        assert!(matches!(err, Error::Io(_)));
        let err = conn
            .execute("INSERT INTO t (id) VALUES (1)", vec![])
            .unwrap_err();
        assert!(matches!(err, Error::Io(m) if m.contains("UNIQUE")));
        cleanup(&db);
    }

    #[test]
    fn connection_state_does_not_outlive_its_open() {
        let db = temp_db("per-open");
        let first = db.open();
        // Nothing happens until the first statement, as in Spin.
        assert!(!db.path().unwrap().exists(), "open alone must not touch the file");
        first
            .execute("CREATE TEMP TABLE scratch (x INTEGER)", vec![])
            .unwrap();
        first.execute("PRAGMA synchronous = NORMAL", vec![]).unwrap();
        // Within one open the state holds...
        first
            .execute("INSERT INTO scratch VALUES (1)", vec![])
            .unwrap();
        assert!(matches!(scalar(&first, "PRAGMA synchronous"), Value::Integer(1)));
        // ...but the next open (the next request) starts from rusqlite's defaults.
        let next = db.open();
        let err = next.execute("SELECT x FROM scratch", vec![]).unwrap_err();
        assert!(matches!(&err, Error::Io(m) if m.contains("no such table")), "{err:?}");
        assert!(matches!(scalar(&next, "PRAGMA synchronous"), Value::Integer(2)), "FULL");
        assert!(matches!(scalar(&next, "PRAGMA busy_timeout"), Value::Integer(5000)));
        // A persistent setting lives in the file and so reaches later opens.
        first.execute("PRAGMA journal_mode = WAL", vec![]).unwrap();
        assert!(matches!(scalar(&db.open(), "PRAGMA journal_mode"), Value::Text(m) if m == "wal"));
        cleanup(&db);
    }

    #[test]
    fn opens_wait_for_each_others_write_locks() {
        let db = Arc::new(temp_db("locks"));
        let holder = db.open();
        holder
            .execute("CREATE TABLE t (x INTEGER)", vec![])
            .unwrap();
        // Statements of one open share a connection, so this transaction spans calls.
        holder.execute("BEGIN IMMEDIATE", vec![]).unwrap();
        holder.execute("INSERT INTO t VALUES (1)", vec![]).unwrap();
        let started = Instant::now();
        let writer = {
            let db = db.clone();
            std::thread::spawn(move || {
                db.open()
                    .execute("INSERT INTO t VALUES (2)", vec![])
                    .map(|_| started.elapsed())
            })
        };
        std::thread::sleep(Duration::from_millis(300));
        holder.execute("COMMIT", vec![]).unwrap();
        let waited = writer.join().unwrap().expect("waits (busy timeout), then writes");
        assert!(waited >= Duration::from_millis(300), "{waited:?}");
        assert!(matches!(scalar(&db.open(), "SELECT count(*) FROM t"), Value::Integer(2)));
        cleanup(&db);
    }

    #[test]
    fn attaching_files_is_refused() {
        let db = temp_db("attach");
        let conn = db.open();
        let other = db.path().unwrap().with_file_name("other.db");
        let sql = format!("ATTACH DATABASE '{}' AS other", other.display());
        let err = conn.execute(&sql, vec![]).unwrap_err();
        assert!(matches!(&err, Error::Io(m) if m.contains("authoriz")), "{err:?}");
        conn.execute("ATTACH DATABASE ':memory:' AS scratch", vec![])
            .unwrap();
        // `allow_attach_file = true` in the runtime config lifts the ban.
        let open = SqliteDatabase::create(&SqliteLocation {
            path: db.path().map(Path::to_path_buf),
            allow_attach_file: true,
        })
        .unwrap();
        open.open().execute(&sql, vec![]).unwrap();
        cleanup(&db);
    }

    #[test]
    fn without_a_path_every_open_is_a_fresh_memory_database() {
        let db = SqliteDatabase::create(&SqliteLocation { path: None, allow_attach_file: false }).unwrap();
        let first = db.open();
        first.execute("CREATE TABLE t (x INTEGER)", vec![]).unwrap();
        first.execute("INSERT INTO t VALUES (1)", vec![]).unwrap();
        assert!(matches!(scalar(&first, "SELECT count(*) FROM t"), Value::Integer(1)));
        let err = db.open().execute("SELECT x FROM t", vec![]).unwrap_err();
        assert!(matches!(&err, Error::Io(m) if m.contains("no such table")), "{err:?}");
    }
}
