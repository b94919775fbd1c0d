//! `fermyon:spin/key-value@2.0.0`, with the semantics of Spin 4.0.2's stores
//! (crates `spin-factor-key-value`, `spin-key-value-spin`, `spin-key-value-redis`):
//!
//! - **`type = "spin"`** (and `default` without a runtime config): SQLite,
//!   table `spin_key_value(store, key, value)` with the store label in `store`,
//!   through ONE connection per store for the whole app, created on first use
//!   (unlike SQLite databases, which get a connection per open: see
//!   `sqlite.rs`). `default` lives in `<state-dir>/sqlite_key_value.db`; a
//!   `spin` store without `path` is in memory.
//! - **`type = "redis"`**: one multiplexed connection per store (redis-rs
//!   `ConnectionManager`, reconnecting in the background), made on first open;
//!   each open pings it first, ignoring errors, as Spin does. Keys are stored as
//!   they are (`GET`/`SET`/`DEL`/`EXISTS`), with no label prefix, and
//!   `get-keys` is `KEYS *`: the whole Redis database, like Spin. Give every
//!   store its own database (`redis://host/1`) if they must not mix.
//!
//! Whatever the backend, the interface behaves the same: a missing key is
//! `None` (`get`) / `false` (`exists`) / no error (`delete`); a store the
//! component does not list is `access-denied`; a backend failure is `other`
//! with its message; a value or key list over 128 MiB is `other` (Spin's
//! `MAX_HOST_BUFFERED_BYTES`); at most 256 stores are open per instance
//! (`store-table-full`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::Context as _;
use rusqlite::OptionalExtension;
use wasmtime::component::Resource;

use crate::bindings::spin::fermyon::spin::key_value::{self, Error};
use crate::runtime_config::KeyValueBackend;
use crate::sqlite::{lock, MAX_RESULT_BYTES};
use crate::state::StoreState;

/// Spin's per-instance cap on open stores (its resource table size).
pub const MAX_OPEN_STORES: usize = 256;

/// A SQLite store's database: opened lazily, once, and shared by every
/// instance of every component of the app.
pub struct KvDatabase {
    /// `None`: in memory.
    path: Option<PathBuf>,
    conn: OnceLock<Arc<Mutex<rusqlite::Connection>>>,
}

impl KvDatabase {
    pub fn new(path: PathBuf) -> KvDatabase {
        KvDatabase::at(Some(path))
    }

    /// A file, or memory for `None`.
    pub fn at(path: Option<PathBuf>) -> KvDatabase {
        KvDatabase {
            path,
            conn: OnceLock::new(),
        }
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn connection(&self) -> anyhow::Result<Arc<Mutex<rusqlite::Connection>>> {
        if let Some(c) = self.conn.get() {
            return Ok(c.clone());
        }
        // rusqlite's defaults, as in Spin (busy timeout 5 s, synchronous=FULL).
        let conn = match &self.path {
            Some(path) => {
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).with_context(|| {
                        format!("failed to create directory {}", parent.display())
                    })?;
                }
                rusqlite::Connection::open(path)
                    .with_context(|| format!("failed to open {}", path.display()))?
            }
            None => rusqlite::Connection::open_in_memory()?,
        };
        init(&conn).context("failed to initialise the key-value table")?;
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

/// A Redis store: the URL and, once opened, its connection.
pub struct RedisStore {
    url: String,
    conn: tokio::sync::OnceCell<redis::aio::ConnectionManager>,
}

impl RedisStore {
    pub fn new(url: String) -> RedisStore {
        RedisStore {
            url,
            conn: tokio::sync::OnceCell::new(),
        }
    }

    pub fn url(&self) -> &str {
        &self.url
    }

    async fn connection(&self) -> Result<redis::aio::ConnectionManager, Error> {
        self.conn
            .get_or_try_init(|| async {
                // redis-rs 1.x defaults to a 500 ms response timeout, which
                // Spin's (redis 0.32) does not have: a big value on a busy
                // machine would fail spuriously, so wait like Spin does.
                let config = redis::aio::ConnectionManagerConfig::new().set_response_timeout(None);
                redis::Client::open(self.url.as_str())?
                    .get_connection_manager_with_config(config)
                    .await
            })
            .await
            .cloned()
            .map_err(other)
    }
}

/// Where one label's data lives.
pub enum KvBackend {
    Sqlite(KvDatabase),
    Redis(RedisStore),
}

/// Every key-value store of the app, by label.
#[derive(Clone, Default)]
pub struct KvStores(HashMap<String, Arc<KvBackend>>);

impl KvStores {
    /// The stores of a resolved runtime config (see `RuntimeConfig::key_value_backends`).
    pub fn new(backends: &BTreeMap<String, KeyValueBackend>) -> KvStores {
        KvStores(
            backends
                .iter()
                .map(|(label, backend)| {
                    let backend = match backend {
                        KeyValueBackend::Sqlite(path) => KvBackend::Sqlite(KvDatabase::at(path.clone())),
                        KeyValueBackend::Redis(url) => KvBackend::Redis(RedisStore::new(url.clone())),
                    };
                    (label.clone(), Arc::new(backend))
                })
                .collect(),
        )
    }

    pub fn get(&self, label: &str) -> Option<&Arc<KvBackend>> {
        self.0.get(label)
    }

    pub fn contains(&self, label: &str) -> bool {
        self.0.contains_key(label)
    }

    /// Opens a store: the one connection of its backend, made on first use.
    async fn open(&self, label: &str) -> Result<KvStore, Error> {
        let backend = self.0.get(label).ok_or(Error::NoSuchStore)?.clone();
        match &*backend {
            KvBackend::Sqlite(_) => {
                let b = backend.clone();
                let conn = tokio::task::spawn_blocking(move || match &*b {
                    KvBackend::Sqlite(db) => db.connection(),
                    KvBackend::Redis(_) => unreachable!(),
                })
                .await
                .map_err(|e| other(format!("internal runtime error: {e}")))?
                .map_err(|e| Error::Other(format!("{e:#}")))?;
                Ok(KvStore::Sqlite {
                    name: label.to_string(),
                    conn,
                })
            }
            KvBackend::Redis(store) => {
                let mut conn = store.connection().await?;
                // Spin's `after_open`: a failed ping makes the manager reconnect
                // in the background; the open still succeeds.
                let _ = redis::cmd("PING").query_async::<()>(&mut conn).await;
                Ok(KvStore::Redis(conn))
            }
        }
    }
}

/// The `store` resource.
#[derive(Clone)]
pub enum KvStore {
    /// A label on its SQLite store's shared connection.
    Sqlite {
        name: String,
        conn: Arc<Mutex<rusqlite::Connection>>,
    },
    /// A handle on the store's Redis connection (cheap to clone).
    Redis(redis::aio::ConnectionManager),
}

fn other(e: impl std::fmt::Display) -> Error {
    Error::Other(e.to_string())
}

fn check_value_size(value: Option<Vec<u8>>) -> Result<Option<Vec<u8>>, Error> {
    if std::mem::size_of::<Option<Vec<u8>>>() + value.as_ref().map_or(0, Vec::len) > MAX_RESULT_BYTES {
        return Err(Error::Other(format!(
            "query result exceeds limit of {MAX_RESULT_BYTES} bytes"
        )));
    }
    Ok(value)
}

fn check_keys_size(keys: Vec<String>) -> Result<Vec<String>, Error> {
    let bytes = std::mem::size_of::<Vec<String>>()
        + keys
            .iter()
            .map(|k| std::mem::size_of::<String>() + k.len())
            .sum::<usize>();
    if bytes > MAX_RESULT_BYTES {
        return Err(Error::Other(format!(
            "query result exceeds limit of {MAX_RESULT_BYTES} bytes"
        )));
    }
    Ok(keys)
}

/// The SQLite side, as `spin-key-value-spin` runs it (blocking calls).
mod sqlite_ops {
    use super::*;

    pub fn get(conn: &Mutex<rusqlite::Connection>, store: &str, key: &str) -> Result<Option<Vec<u8>>, Error> {
        lock(conn)
            .prepare_cached("SELECT value FROM spin_key_value WHERE store=$1 AND key=$2")
            .map_err(other)?
            .query_row([store, key], |row| row.get::<_, Vec<u8>>(0))
            .optional()
            .map_err(other)
    }

    pub fn set(conn: &Mutex<rusqlite::Connection>, store: &str, key: &str, value: &[u8]) -> Result<(), Error> {
        lock(conn)
            .prepare_cached(
                "INSERT INTO spin_key_value (store, key, value) VALUES ($1, $2, $3)
                 ON CONFLICT(store, key) DO UPDATE SET value=$3",
            )
            .map_err(other)?
            .execute(rusqlite::params![store, key, value])
            .map(drop)
            .map_err(other)
    }

    pub fn delete(conn: &Mutex<rusqlite::Connection>, store: &str, key: &str) -> Result<(), Error> {
        lock(conn)
            .prepare_cached("DELETE FROM spin_key_value WHERE store=$1 AND key=$2")
            .map_err(other)?
            .execute([store, key])
            .map(drop)
            .map_err(other)
    }

    pub fn exists(conn: &Mutex<rusqlite::Connection>, store: &str, key: &str) -> Result<bool, Error> {
        lock(conn)
            .prepare_cached("SELECT 1 FROM spin_key_value WHERE store=$1 AND key=$2 LIMIT 1")
            .map_err(other)?
            .exists([store, key])
            .map_err(other)
    }

    pub fn get_keys(conn: &Mutex<rusqlite::Connection>, store: &str) -> Result<Vec<String>, Error> {
        let conn = lock(conn);
        let mut stmt = conn
            .prepare_cached("SELECT key FROM spin_key_value WHERE store=$1")
            .map_err(other)?;
        let keys = stmt
            .query_map([store], |row| row.get::<_, String>(0))
            .map_err(other)?
            .collect::<Result<Vec<_>, _>>()
            .map_err(other);
        keys
    }
}

/// One operation of the interface, run on either backend.
enum Op {
    Get(String),
    Set(String, Vec<u8>),
    Delete(String),
    Exists(String),
    GetKeys,
}

enum Out {
    Value(Option<Vec<u8>>),
    Unit,
    Bool(bool),
    Keys(Vec<String>),
}

impl KvStore {
    async fn run(&self, op: Op) -> Result<Out, Error> {
        match self {
            KvStore::Sqlite { name, conn } => {
                let (name, conn) = (name.clone(), conn.clone());
                // SQLite I/O and the shared lock block: off the async threads.
                tokio::task::spawn_blocking(move || match op {
                    Op::Get(k) => sqlite_ops::get(&conn, &name, &k).map(Out::Value),
                    Op::Set(k, v) => sqlite_ops::set(&conn, &name, &k, &v).map(|()| Out::Unit),
                    Op::Delete(k) => sqlite_ops::delete(&conn, &name, &k).map(|()| Out::Unit),
                    Op::Exists(k) => sqlite_ops::exists(&conn, &name, &k).map(Out::Bool),
                    Op::GetKeys => sqlite_ops::get_keys(&conn, &name).map(Out::Keys),
                })
                .await
                .unwrap_or_else(|e| Err(other(format!("internal runtime error: {e}"))))
            }
            KvStore::Redis(conn) => {
                let mut conn = conn.clone();
                let result = match op {
                    Op::Get(k) => redis::cmd("GET")
                        .arg(k)
                        .query_async::<Option<Vec<u8>>>(&mut conn)
                        .await
                        .map(Out::Value),
                    Op::Set(k, v) => redis::cmd("SET")
                        .arg(k)
                        .arg(v)
                        .query_async::<()>(&mut conn)
                        .await
                        .map(|()| Out::Unit),
                    Op::Delete(k) => redis::cmd("DEL")
                        .arg(k)
                        .query_async::<()>(&mut conn)
                        .await
                        .map(|()| Out::Unit),
                    Op::Exists(k) => redis::cmd("EXISTS")
                        .arg(k)
                        .query_async::<bool>(&mut conn)
                        .await
                        .map(Out::Bool),
                    Op::GetKeys => redis::cmd("KEYS")
                        .arg("*")
                        .query_async::<Vec<String>>(&mut conn)
                        .await
                        .map(Out::Keys),
                };
                result.map_err(other)
            }
        }
    }

    pub async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, Error> {
        match self.run(Op::Get(key.to_string())).await? {
            Out::Value(v) => check_value_size(v),
            _ => unreachable!(),
        }
    }

    pub async fn set(&self, key: &str, value: &[u8]) -> Result<(), Error> {
        self.run(Op::Set(key.to_string(), value.to_vec())).await.map(drop)
    }

    pub async fn delete(&self, key: &str) -> Result<(), Error> {
        self.run(Op::Delete(key.to_string())).await.map(drop)
    }

    pub async fn exists(&self, key: &str) -> Result<bool, Error> {
        match self.run(Op::Exists(key.to_string())).await? {
            Out::Bool(b) => Ok(b),
            _ => unreachable!(),
        }
    }

    pub async fn get_keys(&self) -> Result<Vec<String>, Error> {
        match self.run(Op::GetKeys).await? {
            Out::Keys(k) => check_keys_size(k),
            _ => unreachable!(),
        }
    }
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
        if self.open_kv_stores >= MAX_OPEN_STORES {
            return Ok(Err(Error::StoreTableFull));
        }
        let store = match self.app.key_value.open(&label).await {
            Ok(s) => s,
            Err(e) => return Ok(Err(e)),
        };
        let resource = self.table.push(store)?;
        self.open_kv_stores += 1;
        Ok(Ok(resource))
    }

    async fn get(
        &mut self,
        this: Resource<KvStore>,
        key: String,
    ) -> wasmtime::Result<Result<Option<Vec<u8>>, Error>> {
        Ok(self.kv(&this)?.get(&key).await)
    }

    async fn set(
        &mut self,
        this: Resource<KvStore>,
        key: String,
        value: Vec<u8>,
    ) -> wasmtime::Result<Result<(), Error>> {
        Ok(self.kv(&this)?.set(&key, &value).await)
    }

    async fn delete(
        &mut self,
        this: Resource<KvStore>,
        key: String,
    ) -> wasmtime::Result<Result<(), Error>> {
        Ok(self.kv(&this)?.delete(&key).await)
    }

    async fn exists(
        &mut self,
        this: Resource<KvStore>,
        key: String,
    ) -> wasmtime::Result<Result<bool, Error>> {
        Ok(self.kv(&this)?.exists(&key).await)
    }

    async fn get_keys(
        &mut self,
        this: Resource<KvStore>,
    ) -> wasmtime::Result<Result<Vec<String>, Error>> {
        Ok(self.kv(&this)?.get_keys().await)
    }

    async fn drop(&mut self, rep: Resource<KvStore>) -> wasmtime::Result<()> {
        self.table.delete(rep)?;
        self.open_kv_stores = self.open_kv_stores.saturating_sub(1);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The interface's behaviour, the same on every backend.
    pub(crate) async fn exercise(s: &KvStore, other_store: Option<&KvStore>) {
        assert_eq!(s.get("a").await.unwrap(), None);
        assert!(!s.exists("a").await.unwrap());
        s.delete("a").await.unwrap();
        s.set("a", b"1").await.unwrap();
        s.set("a", b"2").await.unwrap();
        s.set("b", b"").await.unwrap();
        s.set("bin", &[0, 255, 1, 254]).await.unwrap();
        assert_eq!(s.get("a").await.unwrap(), Some(b"2".to_vec()));
        assert_eq!(s.get("b").await.unwrap(), Some(Vec::new()), "an empty value is a value");
        assert_eq!(s.get("bin").await.unwrap(), Some(vec![0, 255, 1, 254]));
        assert!(s.exists("b").await.unwrap());
        let mut keys = s.get_keys().await.unwrap();
        keys.sort();
        assert_eq!(keys, vec!["a", "b", "bin"]);
        if let Some(o) = other_store {
            // Stores are separate namespaces.
            assert_eq!(o.get("a").await.unwrap(), None);
        }
        s.delete("a").await.unwrap();
        s.delete("a").await.unwrap();
        s.delete("bin").await.unwrap();
        assert_eq!(s.get_keys().await.unwrap(), vec!["b"]);
        assert!(!s.exists("a").await.unwrap());
    }

    #[tokio::test]
    async fn sqlite_store_operations() {
        let dir = std::env::temp_dir().join(format!("spin-host-kv-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let stores = KvStores::new(&BTreeMap::from([
            ("default".to_string(), KeyValueBackend::Sqlite(Some(dir.join("sqlite_key_value.db")))),
            ("memory".to_string(), KeyValueBackend::Sqlite(None)),
        ]));
        let s = stores.open("default").await.unwrap();
        let again = stores.open("default").await.unwrap();
        // One connection per store for the whole app.
        match (&s, &again) {
            (KvStore::Sqlite { conn: a, .. }, KvStore::Sqlite { conn: b, .. }) => assert!(Arc::ptr_eq(a, b)),
            _ => panic!("sqlite stores"),
        }
        let memory = stores.open("memory").await.unwrap();
        exercise(&s, Some(&memory)).await;
        exercise(&memory, Some(&s)).await;
        assert!(dir.join("sqlite_key_value.db").exists());
        assert!(matches!(stores.open("nope").await, Err(Error::NoSuchStore)));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A throw-away `redis-server` on a free loopback port, killed on drop.
    struct Redis {
        child: std::process::Child,
        port: u16,
        _dir: PathBuf,
    }

    impl Redis {
        /// `None` when no redis-server is installed (`make test` installs one).
        fn start() -> Option<Redis> {
            let server = std::env::var("REDIS_SERVER").unwrap_or_else(|_| "redis-server".into());
            let dir = std::env::temp_dir().join(format!("spin-host-redis-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            for _ in 0..5 {
                let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
                let child = match std::process::Command::new(&server)
                    .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                    .arg("--dir")
                    .arg(&dir)
                    .stdout(std::process::Stdio::null())
                    .stderr(std::process::Stdio::null())
                    .spawn()
                {
                    Ok(c) => c,
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                        eprintln!("note: no redis-server installed (scripts/setup-redis.sh): Redis store test skipped");
                        return None;
                    }
                    Err(e) => panic!("cannot run {server}: {e}"),
                };
                let mut redis = Redis { child, port, _dir: dir.clone() };
                for _ in 0..100 {
                    if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                        return Some(redis);
                    }
                    if redis.child.try_wait().unwrap().is_some() {
                        break; // the port was taken meanwhile: try another
                    }
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            }
            panic!("redis-server did not start");
        }
    }

    impl Drop for Redis {
        fn drop(&mut self) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redis_store_behaves_like_the_sqlite_one() {
        let Some(redis) = Redis::start() else { return };
        let stores = KvStores::new(&BTreeMap::from([
            ("default".to_string(), KeyValueBackend::Redis(format!("redis://127.0.0.1:{}", redis.port))),
            ("other".to_string(), KeyValueBackend::Redis(format!("redis://127.0.0.1:{}/1", redis.port))),
        ]));
        let s = stores.open("default").await.unwrap();
        let other_db = stores.open("other").await.unwrap();
        exercise(&s, Some(&other_db)).await;
        // Keys are stored as they are, without a label prefix (as Spin's Redis
        // store does), and get-keys is the whole database.
        s.set("file:abc:0", b"xyz").await.unwrap();
        let mut conn = redis::Client::open(format!("redis://127.0.0.1:{}", redis.port))
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .unwrap();
        let raw: Option<Vec<u8>> = redis::cmd("GET").arg("file:abc:0").query_async(&mut conn).await.unwrap();
        assert_eq!(raw, Some(b"xyz".to_vec()));
        let _: () = redis::cmd("SET").arg("written:elsewhere").arg("1").query_async(&mut conn).await.unwrap();
        let mut keys = s.get_keys().await.unwrap();
        keys.sort();
        assert_eq!(keys, vec!["b", "file:abc:0", "written:elsewhere"]);
        // A value of a few MiB round-trips.
        let big: Vec<u8> = (0..3 << 20).map(|i| (i % 251) as u8).collect();
        s.set("big", &big).await.unwrap();
        assert_eq!(s.get("big").await.unwrap().unwrap(), big);
        drop(redis);
        // The server is gone: operations fail with `other`, not a trap.
        assert!(matches!(s.get("b").await, Err(Error::Other(_))));
    }

    #[tokio::test]
    async fn an_unreachable_redis_is_an_other_error_at_open() {
        // A port nothing listens on (bound, then released).
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let stores = KvStores::new(&BTreeMap::from([(
            "default".to_string(),
            KeyValueBackend::Redis(format!("redis://127.0.0.1:{port}")),
        )]));
        match stores.open("default").await {
            Err(Error::Other(m)) => assert!(!m.is_empty()),
            Err(e) => panic!("{e:?}"),
            Ok(_) => panic!("opened a store on a closed port"),
        }
    }
}
