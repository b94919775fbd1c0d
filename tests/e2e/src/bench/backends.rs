//! The records' backends side by side (`make bench`, `--only backends`): the
//! authenticated read, the project write and the answer with the records on
//! the local file, on Spin's own libSQL backend (a runtime config naming a
//! sqld) and over HTTP from the edge manifest (`database_url`, a sqld), each
//! under every runtime, sqld on the same machine; then clients that go away
//! while 64 writers write through the HTTP backend.

use super::load::{answer_pool, answer_scenario, create_scenario, get_project_scenario, hot_path_data, wrk, Run, Scenario};
use super::{create_projects, median, verdict, Options, Runtime, Server, Tenant};
use e2e::services::Sqld;
use reqwest::blocking::Client;
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::io::{Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Clone, Copy, PartialEq)]
enum Backend {
    LocalFile,
    SpinLibsql,
    Http,
}

impl Backend {
    const ALL: [Backend; 3] = [Backend::LocalFile, Backend::SpinLibsql, Backend::Http];

    fn name(self) -> &'static str {
        match self {
            Backend::LocalFile => "local file",
            Backend::SpinLibsql => "Spin's libSQL",
            Backend::Http => "over HTTP",
        }
    }
}

/// One app on one backend, with the data its scenarios need.
struct App {
    backend: Backend,
    server: Server,
    sqld: Option<Sqld>,
    _config: Option<tempfile::TempDir>,
    tenant: Tenant,
    project: String,
    interview_project: String,
}

impl App {
    fn start(runtime: &Runtime, backend: Backend, sqld_binary: &Path, variables: &HashMap<String, String>, partner_key: &str) -> App {
        let root = e2e::workspace_root();
        let mut variables = variables.clone();
        variables.remove("database_backend");
        let (manifest, sqld, config): (PathBuf, Option<Sqld>, Option<tempfile::TempDir>) = match backend {
            Backend::LocalFile => (root.join("spin.toml"), None, None),
            Backend::SpinLibsql => {
                let sqld = Sqld::start(sqld_binary);
                variables.insert("database_backend".into(), "libsql".into());
                let config = sqld.runtime_config("");
                (root.join("spin.toml"), Some(sqld), Some(config))
            }
            Backend::Http => {
                let sqld = Sqld::start(sqld_binary);
                variables.insert("database_url".into(), sqld.url());
                (root.join(e2e::runtime::EDGE_MANIFEST), Some(sqld), None)
            }
        };
        let config_file = config.as_ref().map(|dir| dir.path().join("runtime-config.toml"));
        let server = Server::start_on(runtime, &manifest, &variables, None, config_file.as_deref());
        let (tenant, project, interview_project) = hot_path_data(&Client::new(), &server, partner_key);
        App { backend, server, sqld, _config: config, tenant, project, interview_project }
    }

    fn scenarios(&self) -> Vec<Scenario> {
        vec![
            get_project_scenario(&self.tenant, &self.project),
            create_scenario(&self.tenant),
            answer_scenario(&self.interview_project),
        ]
    }
}

pub struct BackendsOptions<'a> {
    pub options: &'a Options,
    pub sqld: &'a Path,
    pub variables: &'a HashMap<String, String>,
    pub partner_key: &'a str,
}

/// The table, then the clients that go away, under every runtime.
pub fn run(what: &BackendsOptions) {
    let options = what.options;
    for runtime in &options.runtimes {
        eprintln!("bench: the records' backends under the {}", runtime.name);
        let apps: Vec<App> =
            Backend::ALL.iter().map(|&backend| App::start(runtime, backend, what.sqld, what.variables, what.partner_key)).collect();
        let scenarios: Vec<Vec<Scenario>> = apps.iter().map(App::scenarios).collect();
        // runs[app][row], one Run per round; rows interleaved across the backends.
        let mut runs: Vec<Vec<Vec<Run>>> = vec![vec![Vec::new(); 3]; apps.len()];
        for round in 1..=options.rounds {
            eprintln!("bench: backends, round {round} of {}", options.rounds);
            for row in 0..3 {
                for (a, app) in apps.iter().enumerate() {
                    let scenario = &scenarios[a][row];
                    let pool = match &scenario.sessions_of {
                        Some(project) => {
                            let expected = runs[a][row].last().map_or(1500.0, |run: &Run| run.rps * options.seconds as f64);
                            answer_pool(&app.server, project, expected * 1.5)
                        }
                        None => Vec::new(),
                    };
                    let before = app.sqld.as_ref().map(Sqld::query_count);
                    let mut run = wrk(&app.server.base, scenario, 16, options.seconds, false, &pool);
                    if let (Some(sqld), Some(before)) = (&app.sqld, before) {
                        run.statements = Some((sqld.query_count() - before) as f64 / run.requests.max(1) as f64);
                    }
                    runs[a][row].push(run);
                }
            }
        }
        print_table(runtime, options, &apps, &scenarios, &runs);
        drop(apps);
        // On a server of its own: what the table's runs left behind counts for nothing.
        let http = App::start(runtime, Backend::Http, what.sqld, what.variables, what.partner_key);
        let seconds = u64::from(options.writers_seconds.clamp(5, 20));
        clients_that_go_away(&http.server, &http.tenant, seconds).print(runtime, seconds);
    }
}

fn print_table(runtime: &Runtime, options: &Options, apps: &[App], scenarios: &[Vec<Scenario>], runs: &[Vec<Vec<Run>>]) {
    println!();
    println!(
        "the records' backends under the {}: wrk 2 threads, 16 connections; {} rounds of {} s, interleaved; medians; \
         sqld on the same {} cores; stmts = statements sqld ran per request (round trips over HTTP: docs/deploy.md)",
        runtime.name,
        options.rounds,
        options.seconds,
        std::thread::available_parallelism().map_or(0, |n| n.get()),
    );
    println!("{:<24} | {:<14} | {:>8} {:>8} {:>8} {:>8} {:>6}", "scenario", "records", "req/s", "p50 ms", "p99 ms", "p99/p50", "stmts");
    for row in 0..3 {
        for (a, app) in apps.iter().enumerate() {
            let field = |f: fn(&Run) -> f64| median(runs[a][row].iter().map(f).collect());
            let statements: Vec<f64> = runs[a][row].iter().filter_map(|run| run.statements).collect();
            let errors: u64 = runs[a][row].iter().map(|run| run.unexpected).sum();
            println!(
                "{:<24} | {:<14} | {:>8.0} {:>8.2} {:>8.2} {:>8.1} {:>6}{}",
                scenarios[a][row].name,
                app.backend.name(),
                field(|r| r.rps),
                field(|r| r.p50_ms),
                field(|r| r.p99_ms),
                field(|r| r.p99_ms / r.p50_ms),
                if statements.is_empty() { String::new() } else { format!("{:.2}", median(statements)) },
                if errors > 0 { format!(" ({errors} unexpected)") } else { String::new() },
            );
        }
    }
    let read = |backend: Backend, f: fn(&Run) -> f64| {
        let a = apps.iter().position(|app| app.backend == backend).unwrap();
        median(runs[a][0].iter().map(f).collect())
    };
    let (http, local) = (read(Backend::Http, |r| r.rps), read(Backend::LocalFile, |r| r.rps));
    let spread = read(Backend::Http, |r| r.p99_ms / r.p50_ms);
    println!(
        "GET project over HTTP: {:.2} of the local file's req/s (target >= 1: {}); p99 {:.1}x its p50 (target <= 5: {})",
        http / local,
        verdict(http >= local),
        spread,
        verdict(spread <= 5.0)
    );
}

/// What the writers and the clients that went away saw.
struct GoneReport {
    requests: u64,
    server_errors: u64,
    other_failures: u64,
    p50_ms: f64,
    p99_ms: f64,
    acknowledged: usize,
    lost: usize,
    gone: u64,
}

impl GoneReport {
    fn print(&self, runtime: &Runtime, seconds: u64) {
        println!(
            "64 writers (POST project) over HTTP for {seconds} s under the {} while 10 clients a second went away (mid-body, \
             waiting for a write's answer: {} of them): {} requests, {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms; \
             0 5xx ({}: {}), p99 <= 5x p50 ({}), no acknowledged write lost ({}: {} of {} acknowledged missing), {} other failures",
            runtime.name,
            self.gone,
            self.requests,
            self.requests as f64 / seconds as f64,
            self.p50_ms,
            self.p99_ms,
            verdict(self.server_errors == 0),
            self.server_errors,
            verdict(self.p99_ms <= 5.0 * self.p50_ms),
            verdict(self.lost == 0),
            self.lost,
            self.acknowledged,
            self.other_failures,
        );
    }
}

/// 64 writers create projects for `seconds` while, ten times a second, a
/// client sends a request and goes away at a random point: in the middle of
/// a project's body, or after a whole project or a state change (a
/// transaction that reads, holding the database's writer between its round
/// trips) while it waits for the answer. Then every project a writer saw
/// acknowledged is looked for in the tenant's list.
fn clients_that_go_away(server: &Server, tenant: &Tenant, seconds: u64) -> GoneReport {
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let latencies = Arc::new(Mutex::new(Vec::<f64>::new()));
    let acknowledged = Arc::new(Mutex::new(Vec::<String>::new()));
    let (server_errors, other_failures, gone) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let toggled = create_projects(server, tenant, 1);
    let stop = Arc::new(AtomicBool::new(false));
    std::thread::scope(|scope| {
        for writer in 0..64 {
            let (latencies, acknowledged) = (latencies.clone(), acknowledged.clone());
            let (server_errors, other_failures) = (server_errors.clone(), other_failures.clone());
            scope.spawn(move || {
                let client = Client::builder().timeout(Duration::from_secs(60)).build().unwrap();
                let mut n = 0;
                while Instant::now() < deadline {
                    n += 1;
                    let started = Instant::now();
                    let response = client
                        .post(format!("{}/v1/projects", server.base))
                        .header("X-Api-Key", &tenant.key)
                        .header("X-Tenant-Id", &tenant.id)
                        .json(&super::project_body(writer * 100_000 + n))
                        .send();
                    let elapsed = started.elapsed().as_secs_f64() * 1000.0;
                    match response {
                        Ok(response) if response.status() == 201 => {
                            let body: Value = response.json().unwrap_or_default();
                            if let Some(id) = body["project_id"].as_str() {
                                acknowledged.lock().unwrap().push(id.to_string());
                            }
                            latencies.lock().unwrap().push(elapsed);
                        }
                        Ok(response) if response.status().is_server_error() => {
                            server_errors.fetch_add(1, Ordering::Relaxed);
                            latencies.lock().unwrap().push(elapsed);
                        }
                        _ => {
                            other_failures.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
            });
        }
        let addr = server.base.trim_start_matches("http://").to_string();
        let (gone, stop) = (gone.clone(), stop.clone());
        scope.spawn(move || {
            let mut n: u64 = 0;
            while Instant::now() < deadline && !stop.load(Ordering::Relaxed) {
                n += 1;
                let (addr, tenant_id, key, toggled) = (addr.clone(), tenant.id.clone(), tenant.key.clone(), toggled.clone());
                let gone = gone.clone();
                std::thread::spawn(move || {
                    if go_away(&addr, &tenant_id, &key, &toggled, n) {
                        gone.fetch_add(1, Ordering::Relaxed);
                    }
                });
                std::thread::sleep(Duration::from_millis(100));
            }
        });
    });
    stop.store(true, Ordering::Relaxed);
    let mut latencies = Arc::try_unwrap(latencies).unwrap().into_inner().unwrap();
    latencies.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let at = |q: f64| latencies.get(((latencies.len() as f64 * q) as usize).min(latencies.len().saturating_sub(1))).copied().unwrap_or(0.0);
    let acknowledged = Arc::try_unwrap(acknowledged).unwrap().into_inner().unwrap();
    let listed = listed_projects(server, tenant);
    let lost = acknowledged.iter().filter(|id| !listed.contains(*id)).count();
    GoneReport {
        requests: latencies.len() as u64 + other_failures.load(Ordering::Relaxed),
        server_errors: server_errors.load(Ordering::Relaxed),
        other_failures: other_failures.load(Ordering::Relaxed),
        p50_ms: at(0.5),
        p99_ms: at(0.99),
        acknowledged: acknowledged.len(),
        lost,
        gone: gone.load(Ordering::Relaxed),
    }
}

/// One client that goes away: by turns, half a project's body; a whole
/// project, gone after 0 to 20 ms; a state change of a project (activate,
/// deactivate), gone after 0 to 20 ms. `true` when it went away as planned.
fn go_away(addr: &str, tenant_id: &str, key: &str, toggled: &str, n: u64) -> bool {
    let Ok(mut stream) = std::net::TcpStream::connect(addr) else { return false };
    let body = super::project_body(n as usize + 9_000_000).to_string();
    let head = |method: &str, path: &str, length: usize| {
        format!(
            "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nX-Api-Key: {key}\r\nX-Tenant-Id: {tenant_id}\r\n\
             Content-Type: application/json\r\nContent-Length: {length}\r\n\r\n"
        )
    };
    let wait = Duration::from_millis(uuid::Uuid::new_v4().as_bytes()[0] as u64 % 21);
    let sent = match n % 3 {
        0 => stream.write_all(head("POST", "/v1/projects", body.len()).as_bytes()).and_then(|()| stream.write_all(&body.as_bytes()[..body.len() / 2])),
        1 => stream.write_all(format!("{}{body}", head("POST", "/v1/projects", body.len())).as_bytes()),
        _ => {
            let action = if n % 2 == 0 { "activate" } else { "deactivate" };
            stream.write_all(head("POST", &format!("/v1/projects/{toggled}/{action}"), 0).as_bytes())
        }
    };
    if sent.is_err() {
        return false;
    }
    std::thread::sleep(wait);
    // Gone: the socket closes with whatever it had not read.
    let _ = stream.set_nonblocking(true);
    let _ = stream.read(&mut [0; 64]);
    drop(stream);
    true
}

/// Every project id of the tenant, paging through the list.
fn listed_projects(server: &Server, tenant: &Tenant) -> HashSet<String> {
    let client = Client::new();
    let mut ids = HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{}/v1/projects?limit=1000", server.base);
        if let Some(cursor) = &cursor {
            url += &format!("&cursor={cursor}");
        }
        let response = client.get(url).header("X-Api-Key", &tenant.key).header("X-Tenant-Id", &tenant.id).send().unwrap();
        assert_eq!(response.status(), 200, "listing the tenant's projects");
        let page: Value = response.json().unwrap();
        ids.extend(page["data"].as_array().unwrap().iter().filter_map(|p| p["project_id"].as_str().map(String::from)));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => return ids,
        }
    }
}
