//! The servers a deployment past one machine shares, run for a test on free
//! loopback ports and killed when dropped: libSQL's server `sqld` (the
//! `default` database of every node) and Redis (their key-value store).
//!
//! `sqld` is found through the `SQLD` environment variable, else next to the
//! Spin CLI named by `SPIN` (`../shared/runtime/install.sh` unpacks both into
//! one directory); a clone without it has none, and the tests that need it
//! say so and skip ([`Sqld::start_or_skip`]). `redis-server` and `redis-cli`
//! come from scripts/setup-redis.sh (`REDIS_SERVER`, `REDIS_CLI` override).

use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `sqld` of its own, on a fresh database directory or on one it finds
/// there from before (a restarted app's records).
pub struct Sqld {
    child: Child,
    pub port: u16,
    /// sqld's admin API (statistics).
    pub admin_port: u16,
    binary: PathBuf,
    /// Its database directory and log.
    dir: PathBuf,
    /// `--http-auth basic:<this>`, if any.
    basic_auth: Option<String>,
    /// Further flags, as given to [`Sqld::start_or_skip_with`].
    flags: Vec<String>,
    _temporary: Option<tempfile::TempDir>,
}

impl Sqld {
    /// The `sqld` binary: `$SQLD`, else `sqld` next to `$SPIN`.
    pub fn binary() -> Option<PathBuf> {
        if let Some(path) = std::env::var_os("SQLD").filter(|v| !v.is_empty()) {
            let path = PathBuf::from(path);
            assert!(path.is_file(), "SQLD={} is not a file", path.display());
            return Some(path);
        }
        let spin = PathBuf::from(std::env::var_os("SPIN").filter(|v| !v.is_empty())?);
        Some(spin.with_file_name("sqld")).filter(|path| path.is_file())
    }

    /// A running sqld, or `None` after saying why the test is skipped.
    pub fn start_or_skip(test: &str) -> Option<Sqld> {
        Sqld::start_or_skip_with(test, &[])
    }

    /// [`Sqld::start_or_skip`], with further flags for sqld (its limits).
    pub fn start_or_skip_with(test: &str, flags: &[&str]) -> Option<Sqld> {
        match Sqld::binary() {
            Some(binary) => Some(Sqld::launch_temporary(&binary, None, flags.iter().map(|flag| flag.to_string()).collect())),
            None => {
                eprintln!(
                    "skipped {test}: no sqld (libSQL's server) at hand: set SQLD=/path/to/sqld, or SPIN to a \
                     Spin CLI with sqld beside it (../shared/runtime/install.sh unpacks both)"
                );
                None
            }
        }
    }

    pub fn start(binary: &Path) -> Sqld {
        Sqld::launch_temporary(binary, None, Vec::new())
    }

    /// A sqld whose database and log live in `dir` (created if missing): a
    /// later one in the same directory serves the same records.
    pub fn start_in(binary: &Path, dir: &Path) -> Sqld {
        Sqld::launch(binary, dir, None, Vec::new())
    }

    /// A sqld that takes only HTTP basic credentials (`user:password`), on a
    /// fresh database: a client sending any other token is refused (401).
    pub fn start_with_basic_auth(binary: &Path, credentials: &str) -> Sqld {
        use base64::Engine as _;
        let basic = base64::engine::general_purpose::STANDARD.encode(credentials);
        Sqld::launch_temporary(binary, Some(basic), Vec::new())
    }

    /// On a fresh database in a directory of its own, removed with it.
    fn launch_temporary(binary: &Path, basic_auth: Option<String>, flags: Vec<String>) -> Sqld {
        let temporary = tempfile::tempdir().unwrap();
        let mut sqld = Sqld::launch(binary, temporary.path(), basic_auth, flags);
        sqld._temporary = Some(temporary);
        sqld
    }

    fn launch(binary: &Path, dir: &Path, basic_auth: Option<String>, flags: Vec<String>) -> Sqld {
        std::fs::create_dir_all(dir).unwrap();
        for _ in 0..5 {
            let (port, admin_port) = (free_port(), free_port());
            let child = spawn(binary, dir, port, admin_port, basic_auth.as_deref(), &flags);
            let mut sqld = Sqld {
                child,
                binary: binary.to_path_buf(),
                port,
                admin_port,
                dir: dir.to_path_buf(),
                basic_auth: basic_auth.clone(),
                flags: flags.clone(),
                _temporary: None,
            };
            if sqld.wait_until_ready() {
                return sqld;
            }
        }
        panic!("sqld did not start");
    }

    /// `false` when it exited first (its port was taken meanwhile).
    fn wait_until_ready(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if self.try_query("SELECT 1").is_ok() {
                return true;
            }
            if self.child.try_wait().unwrap().is_some() {
                return false;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("sqld on port {} did not answer within 30 s:\n{}", self.port, self.log());
    }

    /// Stops the server (a database that went away); [`Sqld::restart`] brings it back.
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        crate::runtime::untrack(&self.child);
    }

    /// The same server again, on the same ports and database.
    pub fn restart(&mut self) {
        self.stop();
        for _ in 0..100 {
            self.child = spawn(&self.binary, &self.dir, self.port, self.admin_port, self.basic_auth.as_deref(), &self.flags);
            if self.wait_until_ready() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("sqld did not start again on port {}", self.port);
    }

    /// SIGSTOP, SIGCONT: a server that takes connections and answers nothing.
    pub fn pause(&self, paused: bool) {
        let signal = if paused { libc::SIGSTOP } else { libc::SIGCONT };
        // SAFETY: kill(2) on the process this struct started.
        unsafe { libc::kill(self.child.id() as i32, signal) };
    }

    /// `http://127.0.0.1:PORT`, what Spin's runtime config takes.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// What sqld printed.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.join("sqld.log")).unwrap_or_default()
    }

    /// The SQLite file sqld keeps the records in (WAL mode), for a test to
    /// read what the app stored as it reads a local database file.
    pub fn data_file(&self) -> PathBuf {
        self.dir.join("data.sqld/dbs/default/data")
    }

    /// A runtime config file in a directory of its own: the `default` database
    /// on this sqld (as `deploy/runtime-config.libsql.toml`, rendered), then `extra`.
    pub fn runtime_config(&self, extra: &str) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("runtime-config.toml"),
            format!(
                "[sqlite_database.default]\ntype = \"libsql\"\nurl = \"{}\"\ntoken = \"unused-without-auth\"\n{extra}",
                self.url()
            ),
        )
        .unwrap();
        dir
    }

    /// One statement over sqld's HTTP API (Hrana), outside any runtime: its
    /// rows, each value as JSON (integers as numbers, text as strings).
    pub fn query(&self, sql: &str) -> Vec<Vec<Value>> {
        self.try_query(sql).unwrap_or_else(|e| panic!("sqld: {e} in `{sql}`"))
    }

    pub fn try_query(&self, sql: &str) -> Result<Vec<Vec<Value>>, String> {
        let body = json!({"requests": [{"type": "execute", "stmt": {"sql": sql}}, {"type": "close"}]});
        let mut request = reqwest::blocking::Client::new().post(format!("{}/v2/pipeline", self.url()));
        if let Some(basic) = &self.basic_auth {
            request = request.header("authorization", format!("Basic {basic}"));
        }
        let response = request.timeout(Duration::from_secs(30)).json(&body).send().map_err(|e| e.to_string())?;
        let answer: Value = response.json().map_err(|e| e.to_string())?;
        let result = &answer["results"][0];
        if result["type"] != "ok" {
            return Err(result["error"]["message"].as_str().unwrap_or("no answer").to_string());
        }
        let rows = result["response"]["result"]["rows"].as_array().cloned().unwrap_or_default();
        Ok(rows
            .iter()
            .map(|row| {
                row.as_array()
                    .unwrap()
                    .iter()
                    .map(|cell| match cell["type"].as_str() {
                        Some("integer") => json!(cell["value"].as_str().unwrap().parse::<i64>().unwrap()),
                        Some("null") => Value::Null,
                        _ => cell["value"].clone(),
                    })
                    .collect()
            })
            .collect())
    }

    /// Statements sqld has executed so far (its admin API's `query_count`):
    /// the difference over some requests is what they cost in round trips.
    pub fn query_count(&self) -> u64 {
        let stats: Value = reqwest::blocking::Client::new()
            .get(format!("http://127.0.0.1:{}/v1/namespaces/default/stats", self.admin_port))
            .timeout(Duration::from_secs(30))
            .send()
            .and_then(|r| r.json())
            .unwrap_or_else(|e| panic!("sqld's statistics: {e}"));
        stats["query_count"].as_u64().expect("query_count")
    }

    /// The first column of the first row.
    pub fn scalar(&self, sql: &str) -> Value {
        self.query(sql).into_iter().next().and_then(|row| row.into_iter().next()).unwrap_or(Value::Null)
    }
}

fn spawn(binary: &Path, dir: &Path, port: u16, admin_port: u16, basic_auth: Option<&str>, flags: &[String]) -> Child {
    let log = std::fs::OpenOptions::new().create(true).append(true).open(dir.join("sqld.log")).unwrap();
    let mut command = Command::new(binary);
    command
        .arg("--db-path")
        .arg(dir.join("data.sqld"))
        .args(["--http-listen-addr", &format!("127.0.0.1:{port}")])
        .args(["--admin-listen-addr", &format!("127.0.0.1:{admin_port}"), "--no-welcome"])
        // As docs/deploy.md tells operators: checkpoints by time, not by the
        // WAL's length, which under concurrent writers can stall sqld 0.24's
        // write queue for good.
        .args(["--checkpoint-interval-s", "60"])
        .args(flags);
    if let Some(basic) = basic_auth {
        command.arg("--http-auth").arg(format!("basic:{basic}"));
    }
    // A group of its own, killed at the latest when the test binary exits
    // (an app in a `static` is never dropped).
    use std::os::unix::process::CommandExt as _;
    let child = command
        .stdin(Stdio::null())
        .stdout(log.try_clone().unwrap())
        .stderr(log)
        .process_group(0)
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", binary.display()));
    crate::runtime::track(&child, None);
    child
}

impl Drop for Sqld {
    /// Stops sqld; dropped by a failing test, prints the end of its log.
    fn drop(&mut self) {
        self.stop();
        if std::thread::panicking() {
            eprintln!("sqld's log (last 40 lines):\n{}", crate::runtime::last_lines(&self.log(), 40));
        }
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn redis_binary(var: &str, name: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| name.to_string())
}

/// A `redis-server --port N --save '' --appendonly no` of its own, killed on drop.
pub struct RedisServer {
    child: Child,
    pub port: u16,
    _dir: tempfile::TempDir,
}

impl RedisServer {
    pub fn start() -> RedisServer {
        for _ in 0..5 {
            if let Some(redis) = RedisServer::try_start() {
                return redis;
            }
        }
        panic!("redis-server did not start");
    }

    /// `None` when the server exits before answering (the port was taken meanwhile).
    fn try_start() -> Option<RedisServer> {
        let server = redis_binary("REDIS_SERVER", "redis-server");
        let dir = tempfile::tempdir().unwrap();
        // A free port, released just before the server takes it.
        let port = free_port();
        let child = Command::new(&server)
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .arg("--dir")
            .arg(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run {server} ({e}): run scripts/setup-redis.sh (make test does)"));
        let mut redis = RedisServer { child, port, _dir: dir };
        for _ in 0..400 {
            if redis.try_cli(&["PING"]).is_some_and(|out| out == b"PONG\n") {
                return Some(redis);
            }
            if redis.child.try_wait().unwrap().is_some() {
                return None;
            }
            std::thread::sleep(Duration::from_millis(25));
        }
        panic!("redis-server on port {port} did not answer PING");
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// `redis-cli -p N <args>`'s stdout (raw, as it prints when not on a terminal).
    pub fn try_cli(&self, args: &[&str]) -> Option<Vec<u8>> {
        let out = Command::new(redis_binary("REDIS_CLI", "redis-cli"))
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string()])
            .args(args)
            .stderr(Stdio::null())
            .output()
            .ok()?;
        out.status.success().then_some(out.stdout)
    }

    pub fn cli(&self, args: &[&str]) -> Vec<u8> {
        self.try_cli(args).unwrap_or_else(|| panic!("redis-cli {args:?} failed"))
    }

    /// Keys matching a glob, from `redis-cli --scan`, sorted.
    pub fn scan(&self, pattern: &str) -> Vec<String> {
        let out = String::from_utf8(self.cli(&["--scan", "--pattern", pattern])).unwrap();
        let mut keys: Vec<String> = out.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
        keys.sort();
        keys
    }

    /// A value's bytes, from `redis-cli GET` (which ends them with a newline).
    pub fn get(&self, key: &str) -> Vec<u8> {
        let mut out = self.cli(&["GET", key]);
        assert_eq!(out.pop(), Some(b'\n'), "redis-cli ends a value with a newline");
        out
    }

    pub fn strlen(&self, key: &str) -> usize {
        String::from_utf8(self.cli(&["STRLEN", key])).unwrap().trim().parse().unwrap()
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A TCP relay in front of a server that counts the HTTP requests passing
/// through it (`POST` request lines: a client's round trips to that server),
/// and can be told to fail the network the way networks fail: lose the answer
/// to a request (the server did run it), or hold a request back. Stopped when
/// dropped.
pub struct Relay {
    pub port: u16,
    shared: std::sync::Arc<RelayState>,
}

#[derive(Default)]
struct RelayState {
    requests: std::sync::atomic::AtomicU64,
    stop: std::sync::atomic::AtomicBool,
    /// The next request holding these bytes has its answer lost (once).
    lose_answer_to: std::sync::Mutex<Option<Vec<u8>>>,
    /// Requests holding these bytes are held back, never forwarded.
    hold: std::sync::Mutex<Option<Vec<u8>>>,
    held: std::sync::atomic::AtomicU64,
}

impl Relay {
    pub fn start(upstream_port: u16) -> Relay {
        use std::sync::atomic::Ordering;
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let shared = std::sync::Arc::new(RelayState::default());
        let state = shared.clone();
        std::thread::spawn(move || {
            while !state.stop.load(Ordering::Relaxed) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                client.set_nonblocking(false).unwrap();
                let Ok(server) = std::net::TcpStream::connect(("127.0.0.1", upstream_port)) else { continue };
                let lose = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
                let (client_in, server_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                let (state_up, lose_up) = (state.clone(), lose.clone());
                std::thread::spawn(move || relay_requests(client_in, server_out, &state_up, &lose_up));
                std::thread::spawn(move || relay_answers(server, client, &lose));
            }
        });
        Relay { port, shared }
    }

    /// `http://127.0.0.1:PORT`: the server's address through the relay.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    pub fn requests(&self) -> u64 {
        self.shared.requests.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The next request that holds `bytes` reaches the server, and its answer
    /// never reaches the client: the connection breaks instead.
    pub fn lose_answer_to(&self, bytes: &[u8]) {
        *self.shared.lose_answer_to.lock().unwrap() = Some(bytes.to_vec());
    }

    /// From now on, requests that hold `bytes` stop at the relay.
    pub fn hold_requests_with(&self, bytes: &[u8]) {
        *self.shared.hold.lock().unwrap() = Some(bytes.to_vec());
    }

    /// Requests held back so far.
    pub fn held(&self) -> u64 {
        self.shared.held.load(std::sync::atomic::Ordering::Relaxed)
    }
}

impl Drop for Relay {
    fn drop(&mut self) {
        self.shared.stop.store(true, std::sync::atomic::Ordering::Relaxed);
    }
}

fn holds(pattern: &std::sync::Mutex<Option<Vec<u8>>>, bytes: &[u8]) -> bool {
    pattern.lock().unwrap().as_ref().is_some_and(|p| bytes.windows(p.len()).any(|window| window == p.as_slice()))
}

/// Client to server: counts request lines, holds back or marks requests as told.
fn relay_requests(
    mut from: std::net::TcpStream,
    mut to: std::net::TcpStream,
    state: &RelayState,
    lose: &std::sync::atomic::AtomicBool,
) {
    use std::io::{Read as _, Write as _};
    use std::sync::atomic::Ordering;
    const REQUEST_LINE: &[u8] = b"POST /v";
    let mut buffer = vec![0; 256 * 1024];
    // The end of the previous read, so that a request line split between reads counts.
    let mut carry: Vec<u8> = Vec::new();
    loop {
        let read = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        let bytes = &buffer[..read];
        carry.extend_from_slice(bytes);
        let seen = carry.windows(REQUEST_LINE.len()).filter(|window| *window == REQUEST_LINE).count();
        state.requests.fetch_add(seen as u64, Ordering::Relaxed);
        let keep = carry.len().min(REQUEST_LINE.len() - 1);
        carry.drain(..carry.len() - keep);
        if holds(&state.hold, bytes) {
            state.held.fetch_add(1, Ordering::Relaxed);
            // Never forwarded: the connection stays open until the client goes.
            while matches!(from.read(&mut buffer), Ok(n) if n > 0) {}
            break;
        }
        if holds(&state.lose_answer_to, bytes) {
            *state.lose_answer_to.lock().unwrap() = None;
            lose.store(true, Ordering::Relaxed);
        }
        if to.write_all(bytes).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}

/// Server to client: forwards answers, or breaks the connection instead of
/// the one answer that is to be lost.
fn relay_answers(mut from: std::net::TcpStream, mut to: std::net::TcpStream, lose: &std::sync::atomic::AtomicBool) {
    use std::io::{Read as _, Write as _};
    let mut buffer = vec![0; 256 * 1024];
    loop {
        let read = match from.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(read) => read,
        };
        if lose.load(std::sync::atomic::Ordering::Relaxed) {
            let _ = from.shutdown(std::net::Shutdown::Both);
            break;
        }
        if to.write_all(&buffer[..read]).is_err() {
            break;
        }
    }
    let _ = to.shutdown(std::net::Shutdown::Both);
}
