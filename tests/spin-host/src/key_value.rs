//! `fermyon:spin/key-value@2.0.0`, with the semantics of Spin 4.0.2's default
//! local store (`spin-key-value-spin`): the `default` store lives in the SQLite
//! file `<state-dir>/sqlite_key_value.db`, table `spin_key_value(store, key,
//! value)`, through ONE connection for the whole app, created on first use
//! (unlike SQLite's `default` database, which gets a connection per open: see
//! `sqlite.rs`).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Context as _;
use rusqlite::OptionalExtension;
use wasmtime::component::Resource;

use crate::bindings::spin::fermyon::spin::key_value::{self, Error};
use crate::sqlite::lock;
use crate::state::StoreState;

/// The store's database: opened lazily, once, and shared by every instance of
/// every component of the app.
pub struct KvDatabase {
    path: PathBuf,
    conn: OnceLock<Arc<Mutex<rusqlite::Connection>>>,
}

impl KvDatabase {
    pub fn new(path: PathBuf) -> KvDatabase {
        KvDatabase {
            path,
            conn: OnceLock::new(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn connection(&self) -> anyhow::Result<Arc<Mutex<rusqlite::Connection>>> {
        if let Some(c) = self.conn.get() {
            return Ok(c.clone());
        }
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("failed to create directory {}", parent.display()))?;
        }
        // rusqlite's defaults, as in Spin (busy timeout 5 s, synchronous=FULL).
        let conn = rusqlite::Connection::open(&self.path)
            .with_context(|| format!("failed to open {}", self.path.display()))?;
        init(&conn).with_context(|| format!("failed to initialise {}", self.path.display()))?;
        // A racing opener may have won; everyone then uses the winner's connection.
        Ok(self.conn.get_or_init(|| Arc::new(Mutex::new(conn))).clone())
    }
}

/// Creates Spin's table (same schema, so the file is interchangeable with Spin's).
pub fn init(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    conn.execute(
        "CREATE TABLE IF NOT EXISTS spin_key_value (
           store TEXT NOT NULL,
           key   TEXT NOT NULL,
           value BLOB NOT NULL,

           PRIMARY KEY (store, key)
        )",
        [],
    )
    .map(drop)
}

/// The `store` resource: a label on the shared connection.
#[derive(Clone)]
pub struct KvStore {
    name: String,
    conn: Arc<Mutex<rusqlite::Connection>>,
}

fn other(e: impl std::fmt::Display) -> Error {
    Error::Other(e.to_string())
}

impl KvStore {
    fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Error> {
        lock(&self.conn)
            .prepare_cached("SELECT value FROM spin_key_value WHERE store=$1 AND key=$2")
            .map_err(other)?
            .query_row([&self.name, key], |row| row.get::<_, Vec<u8>>(0))
            .optional()
            .map_err(other)
    }

    fn set(&self, key: &str, value: &[u8]) -> Result<(), Error> {
        lock(&self.conn)
            .prepare_cached(
                "INSERT INTO spin_key_value (store, key, value) VALUES ($1, $2, $3)
                 ON CONFLICT(store, key) DO UPDATE SET value=$3",
            )
            .map_err(other)?
            .execute(rusqlite::params![&self.name, key, value])
            .map(drop)
            .map_err(other)
    }

    fn delete(&self, key: &str) -> Result<(), Error> {
        lock(&self.conn)
            .prepare_cached("DELETE FROM spin_key_value WHERE store=$1 AND key=$2")
            .map_err(other)?
            .execute([&self.name, key])
            .map(drop)
            .map_err(other)
    }

    fn exists(&self, key: &str) -> Result<bool, Error> {
        lock(&self.conn)
            .prepare_cached("SELECT 1 FROM spin_key_value WHERE store=$1 AND key=$2 LIMIT 1")
            .map_err(other)?
            .exists([&self.name, key])
            .map_err(other)
    }

    fn get_keys(&self) -> Result<Vec<String>, Error> {
        let conn = lock(&self.conn);
        let mut stmt = conn
            .prepare_cached("SELECT key FROM spin_key_value WHERE store=$1")
            .map_err(other)?;
        let keys = stmt
            .query_map([&self.name], |row| row.get::<_, String>(0))
            .map_err(other)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(other);
        keys
    }
}

/// Runs a store operation on a blocking thread (SQLite I/O and the shared lock).
async fn blocking<T: Send + 'static>(
    store: KvStore,
    f: impl FnOnce(&KvStore) -> Result<T, Error> + Send + 'static,
) -> Result<T, Error> {
    tokio::task::spawn_blocking(move || f(&store))
        .await
        .unwrap_or_else(|e| Err(other(format!("internal runtime error: {e}"))))
}

impl StoreState {
    fn kv(&self, this: &Resource<KvStore>) -> wasmtime::Result<KvStore> {
        Ok(self.table.get(this)?.clone())
    }
}

impl key_value::Host for StoreState {}

impl key_value::HostStore for StoreState {
    async fn open(&mut self, label: String) -> wasmtime::Result<Result<Resource<KvStore>, Error>> {
        if !self.component.key_value_stores.contains(&label) {
            return Ok(Err(Error::AccessDenied));
        }
        if label != "default" {
            return Ok(Err(Error::NoSuchStore));
        }
        let db = self.app.key_value.clone();
        let conn = match tokio::task::spawn_blocking(move || db.connection()).await? {
            Ok(c) => c,
            Err(e) => return Ok(Err(Error::Other(format!("{e:#}")))),
        };
        Ok(Ok(self.table.push(KvStore { name: label, conn })?))
    }

    async fn get(
        &mut self,
        this: Resource<KvStore>,
        key: String,
    ) -> wasmtime::Result<Result<Option<Vec<u8>>, Error>> {
        let store = self.kv(&this)?;
        Ok(blocking(store, move |s| s.get(&key)).await)
    }

    async fn set(
        &mut self,
        this: Resource<KvStore>,
        key: String,
        value: Vec<u8>,
    ) -> wasmtime::Result<Result<(), Error>> {
        let store = self.kv(&this)?;
        Ok(blocking(store, move |s| s.set(&key, &value)).await)
    }

    async fn delete(
        &mut self,
        this: Resource<KvStore>,
        key: String,
    ) -> wasmtime::Result<Result<(), Error>> {
        let store = self.kv(&this)?;
        Ok(blocking(store, move |s| s.delete(&key)).await)
    }

    async fn exists(
        &mut self,
        this: Resource<KvStore>,
        key: String,
    ) -> wasmtime::Result<Result<bool, Error>> {
        let store = self.kv(&this)?;
        Ok(blocking(store, move |s| s.exists(&key)).await)
    }

    async fn get_keys(
        &mut self,
        this: Resource<KvStore>,
    ) -> wasmtime::Result<Result<Vec<String>, Error>> {
        let store = self.kv(&this)?;
        Ok(blocking(store, |s| s.get_keys()).await)
    }

    async fn drop(&mut self, rep: Resource<KvStore>) -> wasmtime::Result<()> {
        self.table.delete(rep)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_operations() {
        let dir = std::env::temp_dir().join(format!("spin-host-kv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let db = KvDatabase::new(dir.join("sqlite_key_value.db"));
        let s = KvStore {
            name: "default".into(),
            conn: db.connection().unwrap(),
        };
        let other_store = KvStore {
            name: "other".into(),
            conn: db.connection().unwrap(),
        };
        // One connection for the whole app.
        assert!(Arc::ptr_eq(&s.conn, &other_store.conn));
        assert_eq!(s.get("a").unwrap(), None);
        assert!(!s.exists("a").unwrap());
        s.set("a", b"1").unwrap();
        s.set("a", b"2").unwrap();
        s.set("b", b"").unwrap();
        assert_eq!(s.get("a").unwrap(), Some(b"2".to_vec()));
        assert!(s.exists("b").unwrap());
        let mut keys = s.get_keys().unwrap();
        keys.sort();
        assert_eq!(keys, vec!["a", "b"]);
        // Stores are separate namespaces in the same table.
        assert_eq!(other_store.get("a").unwrap(), None);
        s.delete("a").unwrap();
        s.delete("a").unwrap();
        assert_eq!(s.get_keys().unwrap(), vec!["b"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
