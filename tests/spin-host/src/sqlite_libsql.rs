//! `[sqlite_database.<label>] type = "libsql"` as Spin 4.0.2 serves it
//! (crates `spin-sqlite` and `spin-sqlite-libsql` at tag v4.0.2), with the
//! same client crate at the same version (`libsql` 0.5.0, remote only).
//!
//! What Spin 4.0.2 does, and so this module:
//! - every `Connection::open` makes a NEW lazy connection; on its first
//!   statement it builds a `libsql` remote database
//!   (`Builder::new_remote(url, token)`: a fresh HTTP client, its TLS settings
//!   loaded from the system's root certificates) and one connection of it,
//!   kept until the open is dropped; failing to build it answers
//!   `invalid-connection`;
//! - a statement is `connection.query(sql, params)`: the client parses it
//!   (libSQL's SQL parser, which refuses what it does not know, such as
//!   `PRAGMA synchronous = NORMAL`, with "unsupported statement" before
//!   anything is sent) and sends it as one Hrana pipeline over HTTP, which
//!   closes the server's stream again, unless a transaction is open: after
//!   `BEGIN` the stream (and the server-side connection holding the
//!   transaction) stays with this open until `COMMIT`/`ROLLBACK`;
//! - errors are `io(<the client's message>)`; a result may hold at most
//!   [`crate::sqlite::MAX_RESULT_BYTES`].
//!
//! So every request that uses the database pays its own TCP connection and an
//! HTTP round trip per statement, as under Spin.

use tokio::sync::OnceCell;

use crate::bindings::spin::fermyon::spin::sqlite::{Error, QueryResult, RowResult, Value};
use crate::sqlite::MAX_RESULT_BYTES;

/// A libSQL database that components open; the host keeps no client for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibsqlDatabase {
    url: String,
    token: String,
}

impl LibsqlDatabase {
    /// `url`: `http://` or `https://` (checked by the runtime config parser).
    pub fn new(url: impl Into<String>, token: impl Into<String>) -> LibsqlDatabase {
        LibsqlDatabase { url: url.into(), token: token.into() }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    /// What one `Connection::open` gets: a client of its own, made on first use.
    pub fn open(&self) -> LazyLibsqlConnection {
        LazyLibsqlConnection { url: self.url.clone(), token: self.token.clone(), inner: OnceCell::new() }
    }
}

/// One opened connection to a libSQL server.
pub struct LazyLibsqlConnection {
    url: String,
    token: String,
    inner: OnceCell<libsql::Connection>,
}

impl LazyLibsqlConnection {
    async fn connection(&self) -> Result<&libsql::Connection, Error> {
        self.inner
            .get_or_try_init(|| async {
                let db = libsql::Builder::new_remote(self.url.clone(), self.token.clone()).build().await?;
                db.connect()
            })
            .await
            .map_err(|_| Error::InvalidConnection)
    }

    /// One statement, as `connection.execute` (creating the client if needed).
    pub async fn execute(&self, sql: &str, params: Vec<Value>) -> Result<QueryResult, Error> {
        let conn = self.connection().await?;
        let io = |e: libsql::Error| Error::Io(e.to_string());
        let mut rows = conn.query(sql, convert_parameters(params)).await.map_err(io)?;
        let count = rows.column_count();
        let columns = (0..count).map(|i| rows.column_name(i).unwrap_or("").to_owned()).collect();
        let mut out = Vec::new();
        let mut bytes = 0usize;
        while let Some(row) = rows.next().await.map_err(io)? {
            let values: Vec<Value> = (0..count).map(|i| convert_value(row.get_value(i).unwrap_or(libsql::Value::Null))).collect();
            bytes += values.iter().map(memory_size).sum::<usize>();
            if bytes > MAX_RESULT_BYTES {
                return Err(Error::Io(format!("query result exceeds limit of {MAX_RESULT_BYTES} bytes")));
            }
            out.push(RowResult { values });
        }
        Ok(QueryResult { columns, rows: out })
    }

    /// Several `;`-separated statements, as `spin up --sqlite @file` runs a file.
    pub async fn execute_batch(&self, sql: &str) -> Result<(), Error> {
        let conn = self.connection().await?;
        conn.execute_batch(sql).await.map(drop).map_err(|e| Error::Io(e.to_string()))
    }
}

fn memory_size(value: &Value) -> usize {
    std::mem::size_of::<Value>()
        + match value {
            Value::Text(t) => t.len(),
            Value::Blob(b) => b.len(),
            _ => 0,
        }
}

fn convert_value(value: libsql::Value) -> Value {
    match value {
        libsql::Value::Null => Value::Null,
        libsql::Value::Integer(i) => Value::Integer(i),
        libsql::Value::Real(r) => Value::Real(r),
        libsql::Value::Text(t) => Value::Text(t),
        libsql::Value::Blob(b) => Value::Blob(b),
    }
}

fn convert_parameters(params: Vec<Value>) -> Vec<libsql::Value> {
    params
        .into_iter()
        .map(|v| match v {
            Value::Integer(i) => libsql::Value::Integer(i),
            Value::Real(r) => libsql::Value::Real(r),
            Value::Text(t) => libsql::Value::Text(t),
            Value::Blob(b) => libsql::Value::Blob(b),
            Value::Null => libsql::Value::Null,
        })
        .collect()
}
