//! Helpers shared by the end-to-end tests: serve the built components (real
//! SQLite and key-value files in a temporary state directory) under the
//! runtime the suite runs on, and talk to them over real HTTP. The runtime is
//! the project's Spin-compatible host, or the real Spin CLI when `SPIN` names
//! one (see [`runtime`]).

use reqwest::blocking::{Client, RequestBuilder, Response};
use serde_json::{json, Value};
use spin_host::HostConfig;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

pub use reqwest::StatusCode;

pub mod corpus;
pub mod fake_model;
pub mod interview_page;
pub mod markdown;
pub mod media;
pub mod runtime;
pub mod services;
pub mod sessions;
pub mod webdriver;

pub use runtime::{edge_selected, on_spin_sqlite, skip_under_spin, Runtime, RuntimeProcess, Server};

pub const PARTNER_TENANT_ID: &str = "0b7e5d8c-6a4f-4c1e-9d2b-3f8a7c6e5d4b";

pub fn workspace_root() -> PathBuf {
    // A copy of the repo elsewhere names itself: the bench packed for another
    // machine (scripts/bench-pack.sh) runs where it was not built.
    if let Some(root) = std::env::var_os("E2E_WORKSPACE_ROOT") {
        return PathBuf::from(root);
    }
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn check_components_built() {
    let dir = workspace_root().join("target/wasm32-wasip2/release");
    for component in ["tenants", "webhooks", "fallback", "files", "projects", "sessions", "interviews", "operator", "maintenance"] {
        let wasm = dir.join(format!("{component}.wasm"));
        assert!(wasm.exists(), "{} is missing: run `make build` (or `make test`) first", wasm.display());
    }
}

/// A running app with its own state directory and partnership key.
pub struct TestApp {
    /// The runtime serving it (the test host in process, or a `spin up` process).
    pub host: Server,
    pub partner_key: String,
    pub client: Client,
    /// The host's state directory (`sqlite_db.db`, `sqlite_key_value.db`).
    pub state_dir: PathBuf,
    /// With `E2E_EDGE` set: the sqld that holds the app's records (its
    /// database in `<state dir>/records.sqld`, so an app started again on the
    /// same state directory finds them).
    pub records: Option<EdgeRecords>,
    _scheduler: Option<Scheduler>,
    _state: Option<tempfile::TempDir>,
}

/// Variables every test app gets unless a test overrides them: generous rate
/// limits so that tests do not trip over each other, and a maintenance token,
/// the door [`Server::run_cron`] uses where it cannot fire the cron component
/// itself (a test of the route without a token sets it to "").
pub fn default_variables(partner_key: &str) -> HashMap<String, String> {
    HashMap::from([
        ("partner_api_key".to_string(), partner_key.to_string()),
        ("partner_tenant_id".to_string(), PARTNER_TENANT_ID.to_string()),
        ("rate_limit_per_minute".to_string(), "100000".to_string()),
        ("project_create_rate_limit_per_minute".to_string(), "100000".to_string()),
        ("operator_rate_limit_per_minute".to_string(), "100000".to_string()),
        ("session_start_rate_limit_per_minute".to_string(), "100000".to_string()),
        ("session_answer_rate_limit_per_minute".to_string(), "100000".to_string()),
        ("session_transcription_rate_limit_per_minute".to_string(), "100000".to_string()),
        ("recording_bytes_per_minute".to_string(), "1000000000000".to_string()),
        ("maintenance_token".to_string(), format!("e2e-maintenance-{}", uuid::Uuid::new_v4().simple())),
    ])
}

impl TestApp {
    /// A fresh host with the default variables, overridden by `overrides`.
    pub fn start(overrides: &[(&str, &str)]) -> TestApp {
        let state = tempfile::tempdir().unwrap();
        let mut app = TestApp::start_in(state.path(), overrides);
        app._state = Some(state);
        app
    }

    /// A host on an existing state directory (to test restarts).
    pub fn start_in(state_dir: &Path, overrides: &[(&str, &str)]) -> TestApp {
        TestApp::start_with(state_dir, overrides, false)
    }

    /// Like [`TestApp::start_in`], optionally running the cron triggers on their schedules.
    pub fn start_with(state_dir: &Path, overrides: &[(&str, &str)], enable_cron: bool) -> TestApp {
        TestApp::start_configured(state_dir, overrides, |config| config.enable_cron = enable_cron)
    }

    /// A fresh app whose configuration `configure` adjusts (listen address,
    /// state directory and variables are set already), under the selected runtime.
    pub fn start_configured(
        state_dir: &Path,
        overrides: &[(&str, &str)],
        configure: impl FnOnce(&mut HostConfig),
    ) -> TestApp {
        TestApp::launch(Runtime::selected(), false, state_dir, overrides, configure)
    }

    /// Like [`TestApp::start_configured`], always as a child process of the
    /// selected runtime (`spin up`, or the test host's `spin-host up`), which
    /// a test can kill without warning ([`TestApp::process`]).
    pub fn start_process(
        state_dir: &Path,
        overrides: &[(&str, &str)],
        configure: impl FnOnce(&mut HostConfig),
    ) -> TestApp {
        TestApp::launch(Runtime::selected(), true, state_dir, overrides, configure)
    }

    /// The runtime's process, of an app made by [`TestApp::start_process`].
    pub fn process(&mut self) -> &mut RuntimeProcess {
        match &mut self.host {
            Server::Process(process) => process,
            Server::InProcess(..) => panic!("this app runs in the test process: start it with TestApp::start_process"),
        }
    }

    fn launch(
        runtime: Runtime,
        as_process: bool,
        state_dir: &Path,
        overrides: &[(&str, &str)],
        configure: impl FnOnce(&mut HostConfig),
    ) -> TestApp {
        check_components_built();
        // A test that gives a database_url runs the edge manifest against that
        // server (nodes sharing one sqld, a counted connection); with E2E_EDGE
        // every app does, each on a sqld of its own.
        let given_url = overrides.iter().any(|(name, _)| *name == "database_url");
        let edge = given_url || runtime::edge_selected();
        let partner_key = overrides
            .iter()
            .find(|(name, _)| *name == "partner_api_key")
            .map(|(_, value)| value.to_string())
            .unwrap_or_else(|| format!("sk-partner-test-{}", uuid::Uuid::new_v4().simple()));
        let manifest = if edge { runtime::EDGE_MANIFEST } else { "spin.toml" };
        let mut config = HostConfig::new(workspace_root().join(manifest));
        config.state_dir = state_dir.to_path_buf();
        config.enable_cron = false;
        config.variables = default_variables(&partner_key);
        let records = (edge && !given_url).then(|| {
            let binary = services::Sqld::binary()
                .expect("E2E_EDGE puts the records on a sqld: set SQLD, or SPIN with sqld beside it");
            let sqld = services::Sqld::start_in(&binary, &state_dir.join("records.sqld"));
            EdgeRecords { sqld, state_dir: state_dir.to_path_buf() }
        });
        if let Some(records) = &records {
            config.variables.insert("database_url".into(), records.sqld.url());
        }
        if edge {
            config.variables.insert("maintenance_tick_seconds".into(), "1".into());
            // The suite checks spin.toml's limits; the edge manifest's own
            // (10 MiB uploads, 960 KiB values) are held by tests/deploy.rs.
            config.variables.insert("file_max_bytes".into(), "26214400".into());
            config.variables.insert("blob_chunk_bytes".into(), "1048576".into());
        }
        for (name, value) in overrides {
            config.variables.insert(name.to_string(), value.to_string());
        }
        configure(&mut config);
        let cron = config.enable_cron;
        let host = match as_process {
            true => Server::Process(RuntimeProcess::start(&runtime, &config)),
            false => Server::start(&runtime, config),
        };
        // Maintenance on a schedule where the manifest has no cron trigger: the
        // platform's scheduler (`spin aka cron`) calls the tick route instead.
        let scheduler = (edge && cron).then(|| Scheduler::start(format!("{}/v1/maintenance/tick", host.base_url())));
        TestApp {
            host,
            partner_key,
            client: Client::new(),
            state_dir: state_dir.to_path_buf(),
            records,
            _scheduler: scheduler,
            _state: None,
        }
    }

    /// The SQLite file that holds the app's records, to open read-only:
    /// Spin's `default` database, or with `E2E_EDGE` the file of the sqld the
    /// app reaches over HTTP.
    pub fn sqlite_path(&self) -> PathBuf {
        match &self.records {
            Some(records) => records.sqld.data_file(),
            None => self.state_dir.join("sqlite_db.db"),
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.host.base_url())
    }

    pub fn get(&self, path: &str) -> RequestBuilder {
        self.client.get(self.url(path))
    }

    pub fn post(&self, path: &str) -> RequestBuilder {
        self.client.post(self.url(path))
    }

    pub fn request(&self, method: &str, path: &str) -> RequestBuilder {
        self.client.request(method.parse().unwrap(), self.url(path))
    }

    /// GETs `path` `times` times, one at a time over one kept-alive connection
    /// as a client script does, and says which response did not reach the
    /// client in one piece (its first read short of the whole response).
    pub fn responses_arrive_whole(&self, path: &str, tenant: &TenantCredentials, times: usize) -> Result<(), String> {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(self.host.addr()).unwrap();
        stream.set_read_timeout(Some(std::time::Duration::from_secs(10))).unwrap();
        let request = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nX-Api-Key: {}\r\nX-Tenant-Id: {}\r\n\r\n",
            self.host.addr(),
            tenant.api_key,
            tenant.tenant_id
        );
        let mut buffer = vec![0; 256 * 1024];
        for attempt in 0..times {
            stream.write_all(request.as_bytes()).unwrap();
            let first = stream.read(&mut buffer).unwrap();
            let mut received = buffer[..first].to_vec();
            while !is_whole_response(&received) {
                let more = stream.read(&mut buffer).unwrap();
                assert!(more > 0, "the connection closed mid-response: {}", String::from_utf8_lossy(&received));
                received.extend_from_slice(&buffer[..more]);
            }
            assert!(received.starts_with(b"HTTP/1.1 200"), "{}", String::from_utf8_lossy(&received));
            if first < received.len() {
                return Err(format!("GET {path}, request {attempt}: the first read held {first} bytes of {}", received.len()));
            }
        }
        Ok(())
    }

    /// `POST /v1/maintenance/run` as a scheduler calls it, with `token` as its
    /// bearer token: the status and what the run did.
    pub fn run_maintenance(&self, token: Option<&str>) -> (StatusCode, Value) {
        let mut request = self.post("/v1/maintenance/run");
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        json_of(request.send().unwrap())
    }

    /// The project's synthesis once no interview waits for its sentences'
    /// meanings: maintenance runs (each gives meanings for a few seconds, as
    /// the cron trigger's do) until its `interviews_waiting` is 0.
    pub fn settled_synthesis(&self, tenant: &TenantCredentials, project_id: &str) -> Value {
        for _ in 0..200 {
            let (status, body) = json_of(self.get(&format!("/v1/projects/{project_id}/synthesis")).auth(tenant).send().unwrap());
            assert_eq!(status, 200, "{body}");
            if body["interviews_waiting"] == 0 {
                return body;
            }
            self.host.run_cron("maintenance").unwrap();
        }
        panic!("interviews still wait for their meanings after 200 maintenance runs");
    }

    /// POST /v1/tenants with the partnership key.
    pub fn create_tenant_raw(&self, body: &Value) -> Response {
        self.post("/v1/tenants")
            .header("X-Api-Key", &self.partner_key)
            .header("X-Tenant-Id", PARTNER_TENANT_ID)
            .json(body)
            .send()
            .unwrap()
    }

    /// Creates a tenant with a unique name and returns its credentials.
    pub fn create_tenant(&self) -> TenantCredentials {
        let name = format!("Org {}", uuid::Uuid::new_v4());
        let response = self.create_tenant_raw(&json!({
            "organization_name": name,
            "contact_email": "research@example.com",
        }));
        assert_eq!(response.status(), 201);
        let body: Value = response.json().unwrap();
        TenantCredentials {
            tenant_id: body["tenant_id"].as_str().unwrap().to_string(),
            api_key: body["api_key"].as_str().unwrap().to_string(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct TenantCredentials {
    pub tenant_id: String,
    pub api_key: String,
}

/// What an edge platform's scheduler does for an app without a cron trigger:
/// `GET /v1/maintenance/tick` on a schedule (here every second), until dropped.
struct Scheduler {
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Scheduler {
    fn start(url: String) -> Scheduler {
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let client = Client::builder().timeout(std::time::Duration::from_secs(60)).build().unwrap();
            while !stopped.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = client.get(&url).send();
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        });
        Scheduler { stop, thread: Some(thread) }
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The sqld of an app run from the edge manifest (`E2E_EDGE`).
pub struct EdgeRecords {
    pub sqld: services::Sqld,
    state_dir: PathBuf,
}

impl Drop for EdgeRecords {
    /// The edge manifest grants no SQLite: the runtime never made the local
    /// database file, every record went to sqld over HTTP.
    fn drop(&mut self) {
        let local = self.state_dir.join("sqlite_db.db");
        if !std::thread::panicking() {
            assert!(!local.exists(), "the edge manifest's app created a local database file: {}", local.display());
        }
    }
}

/// Adds a tenant's authentication headers.
pub trait Authenticated {
    fn auth(self, tenant: &TenantCredentials) -> Self;
}

impl Authenticated for RequestBuilder {
    fn auth(self, tenant: &TenantCredentials) -> Self {
        self.header("X-Api-Key", &tenant.api_key).header("X-Tenant-Id", &tenant.tenant_id)
    }
}

/// One host shared by the tests of a test binary that need no special variables.
pub fn shared_app() -> &'static TestApp {
    static APP: OnceLock<TestApp> = OnceLock::new();
    APP.get_or_init(|| TestApp::start(&[]))
}

/// Status and JSON body of a response (panics on a non-JSON body).
pub fn json_of(response: Response) -> (StatusCode, Value) {
    let status = response.status();
    let text = response.text().unwrap();
    let body = serde_json::from_str(&text).unwrap_or_else(|_| panic!("not JSON ({status}): {text}"));
    (status, body)
}

/// Asserts the `{detail:{error,message}}` shape with the given error code.
pub fn assert_detail_error(body: &Value, code: &str) {
    assert_eq!(body["detail"]["error"], code, "body: {body}");
    assert!(body["detail"]["message"].as_str().is_some_and(|m| !m.is_empty()), "body: {body}");
}

/// Rate-limit windows are aligned minutes; a test that counts requests waits
/// when a window is about to end, so all its requests fall into one window.
pub fn wait_for_fresh_window(requests_needed_seconds: u64) {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    let left = 60 - now % 60;
    if left <= requests_needed_seconds {
        std::thread::sleep(std::time::Duration::from_secs(left + 1));
    }
}

/// A `multipart/form-data` body built byte by byte, so tests control every part.
pub struct Multipart {
    boundary: String,
    body: Vec<u8>,
}

impl Default for Multipart {
    fn default() -> Self {
        Multipart::new()
    }
}

impl Multipart {
    pub fn new() -> Multipart {
        Multipart { boundary: format!("e2e-boundary-{}", uuid::Uuid::new_v4().simple()), body: Vec::new() }
    }

    /// A plain form field.
    pub fn text(mut self, name: &str, value: &str) -> Multipart {
        self.part(&format!("Content-Disposition: form-data; name=\"{name}\"\r\n"), value.as_bytes());
        self
    }

    /// A file part (with a file name and a content type, as browsers and curl send it).
    pub fn file(mut self, name: &str, filename: &str, content_type: &str, bytes: &[u8]) -> Multipart {
        let headers = format!(
            "Content-Disposition: form-data; name=\"{name}\"; filename=\"{filename}\"\r\nContent-Type: {content_type}\r\n"
        );
        self.part(&headers, bytes);
        self
    }

    fn part(&mut self, headers: &str, content: &[u8]) {
        self.body.extend_from_slice(format!("--{}\r\n{headers}\r\n", self.boundary).as_bytes());
        self.body.extend_from_slice(content);
        self.body.extend_from_slice(b"\r\n");
    }

    /// The `Content-Type` header value (with the boundary) and the finished body.
    pub fn finish(mut self) -> (String, Vec<u8>) {
        self.body.extend_from_slice(format!("--{}--\r\n", self.boundary).as_bytes());
        (format!("multipart/form-data; boundary={}", self.boundary), self.body)
    }
}

/// Whether `bytes` hold a whole HTTP/1.1 response: its head and all of its
/// body (by `content-length`, or up to the last chunk of a chunked one).
fn is_whole_response(bytes: &[u8]) -> bool {
    let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let (head, body) = (String::from_utf8_lossy(&bytes[..end]).to_ascii_lowercase(), &bytes[end + 4..]);
    match head.lines().find_map(|line| line.strip_prefix("content-length:")) {
        Some(length) => body.len() == length.trim().parse::<usize>().unwrap(),
        None => head.contains("transfer-encoding: chunked") && body.ends_with(b"0\r\n\r\n"),
    }
}
