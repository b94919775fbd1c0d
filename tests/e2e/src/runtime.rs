//! Which runtime serves the components under test: the project's own
//! Spin-compatible host, or the real Spin CLI when the `SPIN` environment
//! variable names one (`SPIN=/path/to/spin cargo test -p e2e`).
//!
//! The test host runs in the test process ([`spin_host::Host`]); Spin runs as
//! `spin up` in a child process, from the same `spin.toml`, with the test's
//! variables as `SPIN_VARIABLE_<NAME>`, its state directory and runtime config
//! file, and the cron trigger through Spin's `trigger-cron` plugin. Either
//! runtime can also run as a child process that a test kills without warning
//! ([`RuntimeProcess`]): the test host's binary takes the same arguments as
//! `spin up`.
//!
//! A maintenance run on demand ([`Server::run_cron`]) fires the cron component
//! on the test host; a process has no such door, so it runs the same
//! `maintenance_core::run` through `POST /v1/maintenance/run` with the
//! app's `maintenance_token` (which every test app gets, see
//! [`crate::default_variables`]).

use spin_host::{Host, HostConfig};
use std::io::Read as _;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The runtime the suite runs under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Runtime {
    /// `tests/spin-host`, in the test process (or `target/debug/spin-host` as a process).
    TestHost,
    /// The Spin CLI at this path.
    Spin(PathBuf),
}

impl Runtime {
    /// `Spin` when `SPIN` names a file, else the test host.
    pub fn selected() -> Runtime {
        match std::env::var_os("SPIN").filter(|value| !value.is_empty()) {
            Some(path) => {
                let path = PathBuf::from(path);
                assert!(path.is_file(), "SPIN={} is not a file", path.display());
                Runtime::Spin(path)
            }
            None => Runtime::TestHost,
        }
    }

    pub fn is_spin(&self) -> bool {
        matches!(self, Runtime::Spin(_))
    }

    /// The binary that serves `up` in a child process.
    pub fn binary(&self) -> PathBuf {
        match self {
            Runtime::Spin(path) => path.clone(),
            Runtime::TestHost => crate::workspace_root().join("target/debug/spin-host"),
        }
    }
}

/// The edge manifest (no SQLite, records over HTTP), relative to the workspace.
pub const EDGE_MANIFEST: &str = "deploy/akamai/spin.toml";

/// Whether the suite runs the app from the edge manifest with its records on
/// a sqld of each app's own, reached over HTTP (`E2E_EDGE=1`): what an edge
/// platform without SQLite runs, here on loopback.
pub fn edge_selected() -> bool {
    !SPIN_SQLITE.load(std::sync::atomic::Ordering::Relaxed)
        && std::env::var_os("E2E_EDGE").is_some_and(|value| !value.is_empty() && value != "0")
}

/// Set by a test binary whose subject is Spin's own SQLite (a local file's
/// WAL, the runtime config's libSQL or Redis backends, the cron component).
static SPIN_SQLITE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// For a test whose subject is Spin's own SQLite database: its apps run from
/// spin.toml even with `E2E_EDGE` set (which then says so, once).
pub fn on_spin_sqlite(why: &str) {
    if !SPIN_SQLITE.swap(true, std::sync::atomic::Ordering::Relaxed) && std::env::var_os("E2E_EDGE").is_some() {
        eprintln!("E2E_EDGE: these tests run from spin.toml on Spin's SQLite: {why}");
    }
}

/// For a test that only makes sense on the test host (it reaches into the
/// host's own settings or internals): under Spin it prints why it is skipped
/// and returns true, and the test returns at once.
pub fn skip_under_spin(why: &str) -> bool {
    if Runtime::selected().is_spin() {
        eprintln!("skipped under Spin: {why}");
        return true;
    }
    false
}

/// A running app, whichever runtime serves it.
pub enum Server {
    /// The test host in this process; with the maintenance token when the
    /// manifest has no cron trigger (the edge manifest), whose runs then go
    /// through the maintenance route.
    InProcess(Host, Option<String>),
    /// `spin up` (or `spin-host up`) in a child process.
    Process(RuntimeProcess),
}

impl Server {
    /// Starts `config` under `runtime`: the test host in process, Spin as a child.
    pub fn start(runtime: &Runtime, config: HostConfig) -> Server {
        match runtime {
            Runtime::TestHost => {
                // In process, component output stays on the test's stderr only.
                let config = HostConfig { log_dir: config.log_dir.or_else(|| Some(PathBuf::new())), ..config };
                let manifest = spin_host::manifest::Manifest::load(&config.manifest).expect("the manifest parses");
                let by_route = match manifest.trigger.cron.is_empty() {
                    true => config.variables.get("maintenance_token").filter(|t| !t.is_empty()).cloned(),
                    false => None,
                };
                Server::InProcess(Host::start(config).expect("the host starts"), by_route)
            }
            Runtime::Spin(_) => Server::Process(RuntimeProcess::start(runtime, &config)),
        }
    }

    pub fn addr(&self) -> SocketAddr {
        match self {
            Server::InProcess(host, _) => host.addr(),
            Server::Process(process) => process.addr,
        }
    }

    /// `http://127.0.0.1:PORT`
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr())
    }

    /// One maintenance run, waited for: the cron component on the test host,
    /// `POST /v1/maintenance/run` in a process.
    pub fn run_cron(&self, component: &str) -> anyhow::Result<()> {
        match self {
            Server::InProcess(host, None) => host.run_cron(component),
            Server::InProcess(host, token) => run_maintenance(&format!("http://{}", host.addr()), token.as_deref()),
            Server::Process(process) => process.run_maintenance(),
        }
    }

    /// Stops the app gracefully (Spin: SIGINT, as Ctrl-C).
    pub fn stop(self) {
        match self {
            Server::InProcess(host, _) => host.stop(),
            Server::Process(mut process) => process.stop(),
        }
    }
}

/// `spin up` (or the test host's `spin-host up`) as a child process in a
/// process group of its own (Spin runs its trigger plugins as children), with
/// `spin up`'s arguments; its output goes to a log file outside the state
/// directory. Stopped (SIGINT to the group, then SIGKILL) when dropped.
pub struct RuntimeProcess {
    child: Option<Child>,
    pub addr: SocketAddr,
    maintenance_token: Option<String>,
    /// Spin's own output and, with `--log-dir`, the components' logs; and
    /// its temporary directory (`scratch`).
    logs: tempfile::TempDir,
}

/// How long a runtime may take to answer its health check after starting
/// (the first start of Spin compiles every component).
const START_TIMEOUT: Duration = Duration::from_secs(180);

impl RuntimeProcess {
    /// Starts the app of `config` under `runtime`'s binary and waits until it
    /// answers. `config.listen` with port 0 picks a free port.
    pub fn start(runtime: &Runtime, config: &HostConfig) -> RuntimeProcess {
        RuntimeProcess::start_binary(&runtime.binary(), config)
    }

    /// Like [`RuntimeProcess::start`], with another build of a runtime's binary
    /// (`make bench` runs an optimised test host).
    pub fn start_binary(binary: &Path, config: &HostConfig) -> RuntimeProcess {
        let logs = tempfile::tempdir().unwrap();
        let mut attempt = 0;
        loop {
            attempt += 1;
            let addr = match config.listen.port() {
                0 => free_port(config.listen),
                _ => config.listen,
            };
            let mut child = command(binary, config, addr, logs.path()).spawn().unwrap_or_else(|error| {
                panic!("cannot run {}: {error} (make build builds the test host)", binary.display())
            });
            track(&child, Some(scratch(logs.path())));
            match wait_until_healthy(&mut child, addr) {
                Ok(()) => {
                    return RuntimeProcess {
                        child: Some(child),
                        addr,
                        maintenance_token: config.variables.get("maintenance_token").filter(|t| !t.is_empty()).cloned(),
                        logs,
                    }
                }
                Err(why) => {
                    kill_group(&child);
                    let _ = child.wait();
                    let output = std::fs::read_to_string(logs.path().join("output.log")).unwrap_or_default();
                    // Another process took the port between our probe and its bind.
                    if attempt < 5 && config.listen.port() == 0 && output.contains("in use") {
                        continue;
                    }
                    panic!("{} did not start ({why}); its output:\n{output}", binary.display());
                }
            }
        }
    }

    /// The last `lines` lines of [`RuntimeProcess::output`], for a failure's message.
    pub fn output_tail(&self, lines: usize) -> String {
        last_lines(&self.output(), lines)
    }

    /// Everything the runtime printed so far (its components' logs included).
    pub fn output(&self) -> String {
        let mut text = String::new();
        if let Ok(entries) = std::fs::read_dir(self.logs.path()) {
            let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            paths.sort();
            for path in paths.into_iter().filter(|p| p.is_file()) {
                let mut file = std::fs::File::open(&path).unwrap();
                text.push_str(&format!("== {}\n", path.file_name().unwrap().to_string_lossy()));
                let _ = file.read_to_string(&mut text);
            }
        }
        text
    }

    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The runtime's process id (the leader of its process group).
    pub fn pid(&self) -> u32 {
        self.child.as_ref().expect("the runtime runs").id()
    }

    /// `POST /v1/maintenance/run` with the app's token: the maintenance run the
    /// cron component does, waited for.
    pub fn run_maintenance(&self) -> anyhow::Result<()> {
        run_maintenance(&self.base_url(), self.maintenance_token.as_deref())
    }

    /// SIGKILL to the whole group: no shutdown, no checkpoint, no flush.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            kill_group(&child);
            let _ = child.wait();
        }
    }

    /// SIGINT, as Ctrl-C, then SIGKILL if it has not exited within 10 s.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else { return };
        signal_group(&child, libc::SIGINT);
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                // Plugins the runtime started go with it.
                kill_group(&child);
                return;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        kill_group(&child);
        let _ = child.wait();
    }
}

/// `POST /v1/maintenance/run` with the app's maintenance token, waited for.
fn run_maintenance(base_url: &str, token: Option<&str>) -> anyhow::Result<()> {
    let token = token.ok_or_else(|| anyhow::anyhow!("this app has no maintenance_token: its maintenance route is off"))?;
    let response = reqwest::blocking::Client::new()
        .post(format!("{base_url}/v1/maintenance/run"))
        .bearer_auth(token)
        .timeout(Duration::from_secs(120))
        .send()?;
    let status = response.status();
    let body = response.text()?;
    anyhow::ensure!(status == 200, "maintenance run answered {status}: {body}");
    Ok(())
}

/// Process groups of the runtimes (and the servers: `crate::services`)
/// started here and not stopped yet. One held in a `static` (a test binary's
/// shared app) is never dropped, and `spin up` does not end with the process
/// that started it: when the test binary exits, the groups left here are
/// killed, so no runtime (nor the trigger processes it started) outlives the tests.
static RUNNING: std::sync::Mutex<Vec<(i32, Option<PathBuf>)>> = std::sync::Mutex::new(Vec::new());

fn running() -> std::sync::MutexGuard<'static, Vec<(i32, Option<PathBuf>)>> {
    RUNNING.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `child`'s group, to kill at exit if it still runs then, and the
/// temporary directory to remove with it (a runtime's: [`scratch`]).
pub(crate) fn track(child: &Child, scratch: Option<PathBuf>) {
    static AT_EXIT: std::sync::Once = std::sync::Once::new();
    // SAFETY: registers a function without arguments that only signals
    // process groups and removes their directories; the C library calls it once, at exit.
    AT_EXIT.call_once(|| unsafe {
        libc::atexit(kill_left_running);
    });
    running().push((child.id() as i32, scratch));
}

pub(crate) fn untrack(child: &Child) {
    running().retain(|(group, _)| *group != child.id() as i32);
}

/// The runtime's temporary directory (its `TMPDIR`), inside its log
/// directory: `spin up` copies every mounted file there at each start (the
/// model's 91 MB) and removes them only when it exits gracefully, so a runtime
/// killed (by a crash test, or at exit: a test binary's shared app) would
/// leave them behind for good.
fn scratch(logs: &Path) -> PathBuf {
    logs.join("tmp")
}

extern "C" fn kill_left_running() {
    for (group, scratch) in running().iter() {
        // SAFETY: kill(2) with a negative pid signals the group this process created.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        if let Some(scratch) = scratch {
            let _ = std::fs::remove_dir_all(scratch);
        }
    }
}

/// `signal` to the runtime's process group: the runtime and every process it started.
fn signal_group(child: &Child, signal: libc::c_int) {
    // SAFETY: kill(2) with a negative pid signals the group this process created.
    unsafe { libc::kill(-(child.id() as i32), signal) };
}

/// SIGKILL to the runtime's group, which is then no longer left to kill at exit.
fn kill_group(child: &Child) {
    signal_group(child, libc::SIGKILL);
    untrack(child);
}

impl Drop for RuntimeProcess {
    /// Stops the runtime; dropped by a failing test, prints the end of what it
    /// printed (its log directory goes with it), so that a 500 says why.
    fn drop(&mut self) {
        self.stop();
        if std::thread::panicking() {
            eprintln!("the runtime at {} printed (last {FAILURE_TAIL_LINES} lines):\n{}", self.addr, self.output_tail(FAILURE_TAIL_LINES));
        }
    }
}

/// The last `count` lines of `text`.
pub fn last_lines(text: &str, count: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(count)..].join("\n")
}

/// How much of a runtime's output a failing test shows.
const FAILURE_TAIL_LINES: usize = 60;

/// `<binary> up --from spin.toml --listen ADDR --state-dir DIR --log-dir DIR [--runtime-config-file F] [-c ID]...`
/// with the variables as `SPIN_VARIABLE_<NAME>` (and none inherited from the caller).
fn command(binary: &Path, config: &HostConfig, addr: SocketAddr, logs: &Path) -> Command {
    use std::os::unix::process::CommandExt as _;
    let mut command = Command::new(binary);
    command
        .arg("up")
        .arg("--from")
        .arg(&config.manifest)
        .arg("--listen")
        .arg(addr.to_string())
        .arg("--state-dir")
        .arg(&config.state_dir);
    if let Some(file) = &config.runtime_config_file {
        command.arg("--runtime-config-file").arg(file);
    }
    // Component output next to the runtime's own, not in the state directory,
    // unless the test chose a log dir.
    command.arg("--log-dir").arg(config.log_dir.clone().unwrap_or_else(|| logs.join("components")));
    for component in components(config) {
        command.arg("-c").arg(component);
    }
    for (name, _) in std::env::vars_os() {
        if name.to_string_lossy().starts_with("SPIN_VARIABLE_") {
            command.env_remove(name);
        }
    }
    for (name, value) in &config.variables {
        command.env(format!("SPIN_VARIABLE_{}", name.to_uppercase()), value);
    }
    let scratch = scratch(logs);
    std::fs::create_dir_all(&scratch).unwrap();
    command.env("TMPDIR", scratch);
    let output = std::fs::File::create(logs.join("output.log")).unwrap();
    command.stdin(Stdio::null()).stdout(output.try_clone().unwrap()).stderr(output).process_group(0);
    command
}

/// The components to run: those `config.components` names, and without cron
/// (`enable_cron: false`) only those of HTTP triggers, as `make up` does when
/// the cron plugin is missing. Empty: all of them.
fn components(config: &HostConfig) -> Vec<String> {
    if config.enable_cron {
        return config.components.clone();
    }
    let manifest = spin_host::manifest::Manifest::load(&config.manifest).expect("spin.toml parses");
    let mut http: Vec<String> = Vec::new();
    for trigger in &manifest.trigger.http {
        let chosen = config.components.is_empty() || config.components.contains(&trigger.component);
        if chosen && !http.contains(&trigger.component) {
            http.push(trigger.component.clone());
        }
    }
    http
}

fn free_port(listen: SocketAddr) -> SocketAddr {
    std::net::TcpListener::bind(listen).unwrap().local_addr().unwrap()
}

fn wait_until_healthy(child: &mut Child, addr: SocketAddr) -> Result<(), String> {
    let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(2)).build().unwrap();
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Ok(Some(status)) = child.try_wait() {
            return Err(format!("it exited with {status}"));
        }
        if let Ok(response) = client.get(format!("http://{addr}/.well-known/spin/health")).send() {
            if response.status() == 200 {
                return Ok(());
            }
        }
        if Instant::now() > deadline {
            return Err(format!("no health answer within {START_TIMEOUT:?}"));
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}
