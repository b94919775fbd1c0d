//! The test host's libSQL backend against a real `sqld`: the database a
//! runtime config of `type = "libsql"` gives components, through the client
//! Spin 4.0.2 uses (`libsql` 0.5.0, remote), one client per open
//! (tests/spin-host/src/sqlite_libsql.rs). What is shown here holds under
//! `spin up` too, which runs the same client code.
//!
//! Skipped, saying so, when no sqld is at hand (see `e2e::services::Sqld`).

use e2e::services::Sqld;
use spin_host::runtime_config::SqliteBackend;
use spin_host::sqlite::{Database, OpenConnection};
use spin_host::bindings::spin::fermyon::spin::sqlite::{Error, Value};
use std::time::{Duration, Instant};

fn database(sqld: &Sqld) -> Database {
    Database::create(&SqliteBackend::Libsql { url: sqld.url(), token: "unused-without-auth".into() }).unwrap()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn exec(rt: &tokio::runtime::Runtime, conn: &OpenConnection, sql: &str) -> Result<Vec<Vec<Value>>, Error> {
    rt.block_on(conn.execute(sql.to_string(), Vec::new())).map(|r| r.rows.into_iter().map(|row| row.values).collect())
}

fn count(rt: &tokio::runtime::Runtime, db: &Database, table: &str) -> i64 {
    match exec(rt, &db.open(), &format!("SELECT count(*) FROM {table}")).unwrap()[0][0] {
        Value::Integer(n) => n,
        ref other => panic!("{other:?}"),
    }
}

#[test]
fn statements_round_trip_and_local_file_pragmas_are_refused() {
    let Some(sqld) = Sqld::start_or_skip("statements_round_trip_and_local_file_pragmas_are_refused") else { return };
    let rt = runtime();
    let db = database(&sqld);
    let conn = db.open();
    exec(&rt, &conn, "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)").unwrap();
    let params = vec![Value::Text("a".into()), Value::Real(1.5), Value::Blob(vec![1, 2]), Value::Null];
    let inserted = rt
        .block_on(conn.execute("INSERT INTO t (name, score, data) VALUES (?, ?, ?), (?, NULL, NULL) RETURNING id, name".into(), params))
        .unwrap();
    assert_eq!(inserted.columns, vec!["id", "name"]);
    assert_eq!(inserted.rows.len(), 2);
    // Another open (another request) sees it at once: the server has it.
    let rows = exec(&rt, &db.open(), "SELECT id, name, score, data FROM t ORDER BY id").unwrap();
    assert!(matches!(&rows[0][..], [Value::Integer(1), Value::Text(a), Value::Real(s), Value::Blob(b)] if a == "a" && *s == 1.5 && b == &vec![1, 2]));
    assert!(matches!(&rows[1][..], [Value::Integer(2), Value::Null, Value::Null, Value::Null]));
    let error = exec(&rt, &conn, "INSERT INTO t (id) VALUES (1)").unwrap_err();
    assert!(matches!(&error, Error::Io(m) if m.contains("UNIQUE")), "{error:?}");

    // What the service sends: the schema version is read and written...
    exec(&rt, &conn, "PRAGMA user_version = 7").unwrap();
    assert!(matches!(exec(&rt, &db.open(), "PRAGMA user_version").unwrap()[0][0], Value::Integer(7)));
    assert!(matches!(exec(&rt, &db.open(), "SELECT user_version FROM pragma_user_version").unwrap()[0][0], Value::Integer(7)));
    // ...but the pragmas only a local file needs are refused (docs/deploy.md).
    for pragma in ["PRAGMA synchronous = NORMAL", "PRAGMA journal_mode=WAL", "PRAGMA wal_checkpoint(PASSIVE)", "PRAGMA secure_delete = ON"] {
        let error = exec(&rt, &conn, pragma).unwrap_err();
        assert!(matches!(&error, Error::Io(m) if m.contains("unsupported statement")), "{pragma}: {error:?}");
    }
    // The open still works after a refusal.
    assert_eq!(count(&rt, &db, "t"), 2);
}

#[test]
fn a_transaction_across_calls_of_one_open_is_atomic() {
    let Some(sqld) = Sqld::start_or_skip("a_transaction_across_calls_of_one_open_is_atomic") else { return };
    let rt = runtime();
    let db = database(&sqld);
    exec(&rt, &db.open(), "CREATE TABLE a (x INTEGER)").unwrap();
    exec(&rt, &db.open(), "CREATE TABLE b (x INTEGER)").unwrap();

    // BEGIN IMMEDIATE, two writes in two calls, COMMIT: the open keeps the
    // server's stream (and its connection) from BEGIN to COMMIT.
    let tx = db.open();
    exec(&rt, &tx, "BEGIN IMMEDIATE").unwrap();
    exec(&rt, &tx, "INSERT INTO a VALUES (1)").unwrap();
    // Inside, the transaction sees its own write; outside nobody does yet.
    assert!(matches!(exec(&rt, &tx, "SELECT count(*) FROM a").unwrap()[0][0], Value::Integer(1)));
    assert_eq!(count(&rt, &db, "a"), 0, "uncommitted rows are not visible to other opens");
    exec(&rt, &tx, "INSERT INTO b VALUES (1)").unwrap();
    exec(&rt, &tx, "COMMIT").unwrap();
    assert_eq!((count(&rt, &db, "a"), count(&rt, &db, "b")), (1, 1), "both writes, together");

    // ROLLBACK drops every write of the transaction.
    let tx = db.open();
    exec(&rt, &tx, "BEGIN IMMEDIATE").unwrap();
    exec(&rt, &tx, "INSERT INTO a VALUES (2)").unwrap();
    exec(&rt, &tx, "INSERT INTO b VALUES (2)").unwrap();
    exec(&rt, &tx, "ROLLBACK").unwrap();
    assert_eq!((count(&rt, &db, "a"), count(&rt, &db, "b")), (1, 1));

    // A failed statement inside leaves the transaction to the caller, who rolls back.
    let tx = db.open();
    exec(&rt, &tx, "BEGIN IMMEDIATE").unwrap();
    exec(&rt, &tx, "INSERT INTO a VALUES (3)").unwrap();
    assert!(exec(&rt, &tx, "INSERT INTO nowhere VALUES (3)").is_err());
    exec(&rt, &tx, "ROLLBACK").unwrap();
    assert_eq!(count(&rt, &db, "a"), 1);

    // After COMMIT the open goes on in autocommit mode.
    exec(&rt, &tx, "INSERT INTO a VALUES (4)").unwrap();
    assert_eq!(count(&rt, &db, "a"), 2);
}

#[test]
fn a_writer_waits_for_another_opens_transaction() {
    let Some(sqld) = Sqld::start_or_skip("a_writer_waits_for_another_opens_transaction") else { return };
    let rt = runtime();
    let db = database(&sqld);
    exec(&rt, &db.open(), "CREATE TABLE t (x INTEGER)").unwrap();
    let holder = db.open();
    exec(&rt, &holder, "BEGIN IMMEDIATE").unwrap();
    exec(&rt, &holder, "INSERT INTO t VALUES (1)").unwrap();
    let started = Instant::now();
    let writer = {
        let db = db.clone();
        let handle = rt.handle().clone();
        std::thread::spawn(move || {
            let conn = db.open();
            handle.block_on(conn.execute("INSERT INTO t VALUES (2)".into(), Vec::new())).map(|_| started.elapsed())
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    exec(&rt, &holder, "COMMIT").unwrap();
    let waited = writer.join().unwrap().expect("the second writer waits, then writes");
    assert!(waited >= Duration::from_millis(500), "it waited for the COMMIT: {waited:?}");
    assert_eq!(count(&rt, &db, "t"), 2);
}

/// A node killed in the middle of a transaction sends nothing more: sqld
/// keeps the transaction (and the write lock) until it gives up on it.
#[test]
fn a_transaction_left_open_by_a_dead_client_is_rolled_back_by_the_server() {
    let Some(sqld) = Sqld::start_or_skip("a_transaction_left_open_by_a_dead_client_is_rolled_back_by_the_server") else { return };
    let rt = runtime();
    let db = database(&sqld);
    exec(&rt, &db.open(), "CREATE TABLE t (x INTEGER)").unwrap();
    let abandoned = db.open();
    exec(&rt, &abandoned, "BEGIN IMMEDIATE").unwrap();
    exec(&rt, &abandoned, "INSERT INTO t VALUES (1)").unwrap();
    // As kill -9 would: no COMMIT, no ROLLBACK, no close of the stream.
    std::mem::forget(abandoned);
    let started = Instant::now();
    let result = exec(&rt, &db.open(), "INSERT INTO t VALUES (2)");
    let waited = started.elapsed();
    eprintln!("a writer behind a dead client's transaction: {result:?} after {waited:?}");
    let result = match result {
        Ok(rows) => Ok(rows),
        // Refused while the lock was held: the next attempt gets through.
        Err(_) => exec(&rt, &db.open(), "INSERT INTO t VALUES (2)"),
    };
    result.expect("the server gives the dead client's lock up");
    // Meanwhile every write waited: sqld's transaction timeout (5 s here).
    assert!(waited >= Duration::from_secs(2) && waited < Duration::from_secs(30), "{waited:?}");
    // Its uncommitted row is gone.
    let rows = exec(&rt, &db.open(), "SELECT x FROM t ORDER BY x").unwrap();
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert!(matches!(rows[0][0], Value::Integer(2)));
}

/// The other side of that rule: a live transaction that takes longer than
/// sqld's transaction timeout while another writer waits loses its lock and
/// its writes, and its COMMIT fails. A transaction over libSQL must be short
/// (no outbound call inside it).
#[test]
fn a_slow_transaction_loses_its_lock_to_a_waiting_writer() {
    let Some(sqld) = Sqld::start_or_skip("a_slow_transaction_loses_its_lock_to_a_waiting_writer") else { return };
    let rt = runtime();
    let db = database(&sqld);
    exec(&rt, &db.open(), "CREATE TABLE t (x INTEGER)").unwrap();
    let slow = db.open();
    exec(&rt, &slow, "BEGIN IMMEDIATE").unwrap();
    exec(&rt, &slow, "INSERT INTO t VALUES (1)").unwrap();
    let writer = {
        let db = db.clone();
        let handle = rt.handle().clone();
        std::thread::spawn(move || handle.block_on(db.open().execute("INSERT INTO t VALUES (2)".into(), Vec::new())).map(drop))
    };
    std::thread::sleep(Duration::from_secs(7));
    let late = exec(&rt, &slow, "INSERT INTO t VALUES (3)").and_then(|_| exec(&rt, &slow, "COMMIT"));
    eprintln!("a transaction 7 s long with a writer waiting: {late:?}");
    writer.join().unwrap().expect("the waiting writer got the lock");
    assert!(late.is_err(), "the slow transaction's COMMIT is refused");
    let rows = exec(&rt, &db.open(), "SELECT x FROM t ORDER BY x").unwrap();
    assert_eq!(rows.len(), 1, "only the waiting writer's row: {rows:?}");
    assert!(matches!(rows[0][0], Value::Integer(2)));
}
