//! `make bench` (scripts/bench.sh): the app's hot paths measured against two
//! anchor components under the same runtime, with a real load generator.
//!
//! Four servers run side by side, each its own process of the same runtime
//! (the project's `spin-host`, or `spin` with `--runtime spin`): a hello-world
//! component (tests/fixtures/bench-hello), a component doing one indexed SELECT
//! (tests/fixtures/bench-select), the app (spin.toml), and the SELECT component
//! again on a copy of the app's database (what the schema costs a request,
//! which bounds every hot path: see docs/design-decisions.md). `wrk` (2 threads, 16
//! connections) drives every scenario in turn, all of them once per round, for
//! several rounds, so that a busy moment of the machine hits every scenario
//! alike; the table shows medians over the rounds and each figure as a share of
//! hello-world's in the same round. Then 64 connections write for a while and
//! any 5xx is reported. Those servers stop; then the app starts again on a
//! fresh state directory for the interviews table (tests/e2e/src/bench/): a
//! tenant with `--interviews` interviews in one project and a tenth as many in
//! another, written straight into its SQLite file, then the metadata filter,
//! paging and the CSV exports over HTTP, with the host's memory while an
//! export streams.
//! Targets are printed next to the figures, never asserted. Traffic goes to
//! 127.0.0.1 only.

#[path = "../bench/dataset.rs"]
mod dataset;
#[path = "../bench/interviews.rs"]
mod interviews;

use e2e::PARTNER_TENANT_ID;
use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const USAGE: &str = "\
usage: bench [--runtime spin-host|spin] [--host PATH] [--seconds N] [--rounds N]
             [--writers-seconds N] [--projects N] [--interviews N] [--only load|interviews]
             [--manifest PATH]
  --runtime          which runtime serves the components [spin-host]
  --host             the spin-host binary [target/bench-host/spin-host]
  --manifest         the app's manifest, to compare a variant of the app [spin.toml]
  --seconds          length of each scenario run [5]
  --rounds           rounds over all scenarios [3]
  --writers-seconds  length of the 64-writer run [30]
  --projects         projects of the large tenant [10000]
  --interviews       interviews of the large project; the small one gets a tenth [100000]
  --only             run only the load table or only the interviews table";

struct Options {
    runtime: Runtime,
    manifest: PathBuf,
    seconds: u32,
    rounds: usize,
    writers_seconds: u32,
    projects: usize,
    interviews: usize,
    load: bool,
    interviews_part: bool,
}

#[derive(Clone)]
enum Runtime {
    SpinHost(PathBuf),
    Spin,
}

impl Runtime {
    fn name(&self) -> &'static str {
        match self {
            Runtime::SpinHost(_) => "spin-host (bench-host build)",
            Runtime::Spin => "spin",
        }
    }
}

fn parse_options() -> Result<Options, String> {
    let root = e2e::workspace_root();
    let mut runtime = "spin-host".to_string();
    let mut host = root.join("target/bench-host/spin-host");
    let mut options = Options {
        runtime: Runtime::Spin,
        manifest: root.join("spin.toml"),
        seconds: 5,
        rounds: 3,
        writers_seconds: 30,
        projects: 10_000,
        interviews: 100_000,
        load: true,
        interviews_part: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| text.parse::<usize>().map_err(|_| format!("{flag}: not a number: {text}"));
        match flag.as_str() {
            "--runtime" => runtime = value()?,
            "--host" => host = PathBuf::from(value()?),
            "--manifest" => options.manifest = PathBuf::from(value()?),
            "--seconds" => options.seconds = number(value()?)?.max(1) as u32,
            "--rounds" => options.rounds = number(value()?)?.max(1),
            "--writers-seconds" => options.writers_seconds = number(value()?)?.max(1) as u32,
            "--projects" => options.projects = number(value()?)?.max(200),
            "--interviews" => options.interviews = number(value()?)?.max(1000),
            "--only" => match value()?.as_str() {
                "load" => options.interviews_part = false,
                "interviews" => options.load = false,
                other => return Err(format!("--only: load or interviews, not {other}\n{USAGE}")),
            },
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    options.runtime = match runtime.as_str() {
        "spin-host" => Runtime::SpinHost(host),
        "spin" => Runtime::Spin,
        other => return Err(format!("unknown runtime {other}\n{USAGE}")),
    };
    Ok(options)
}

// ---------------------------------------------------------------------------
// Servers.

/// One app served by the runtime in its own process group, with its own state
/// directory; stopped (the whole group) when dropped.
struct Server {
    child: Child,
    base: String,
    log: PathBuf,
    _state: tempfile::TempDir,
}

impl Server {
    fn start(runtime: &Runtime, manifest: &Path, variables: &HashMap<String, String>) -> Server {
        Server::start_on(runtime, manifest, variables, None)
    }

    /// Like [`Server::start`], on a state directory whose `default` database
    /// is first a consistent copy of `database`.
    fn start_on(runtime: &Runtime, manifest: &Path, variables: &HashMap<String, String>, database: Option<&Path>) -> Server {
        use std::os::unix::process::CommandExt as _;
        let state = tempfile::tempdir().unwrap();
        if let Some(database) = database {
            let dir = state.path().join("spin");
            std::fs::create_dir_all(&dir).unwrap();
            let copy = dir.join("sqlite_db.db");
            rusqlite::Connection::open(database)
                .and_then(|source| source.execute("VACUUM INTO ?1", [copy.to_str().unwrap()]))
                .unwrap_or_else(|e| panic!("copying {}: {e}", database.display()));
        }
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let listen = format!("127.0.0.1:{port}");
        let log = state.path().join("server.log");
        let mut command = match runtime {
            // No cron runs: the dispatcher's sweeps would add noise every few seconds.
            Runtime::SpinHost(binary) => {
                let mut c = Command::new(binary);
                c.arg("up").arg("--no-cron");
                c
            }
            Runtime::Spin => {
                let mut c = Command::new("spin");
                c.arg("up");
                c
            }
        };
        command
            .arg("--from")
            .arg(manifest)
            .arg("--listen")
            .arg(&listen)
            .arg("--state-dir")
            .arg(state.path().join("spin"))
            .envs(variables.iter().map(|(name, value)| (format!("SPIN_VARIABLE_{}", name.to_uppercase()), value)))
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&log).unwrap())
            .stderr(std::fs::File::create(state.path().join("server.err")).unwrap())
            .process_group(0);
        let child = command.spawn().unwrap_or_else(|e| panic!("cannot start {}: {e}", runtime.name()));
        let mut server = Server { child, base: format!("http://{listen}"), log, _state: state };
        if let Err(why) = server.wait_ready() {
            let errors = std::fs::read_to_string(server._state.path().join("server.err")).unwrap_or_default();
            let tail: Vec<&str> = errors.lines().rev().take(20).collect::<Vec<_>>().into_iter().rev().collect();
            panic!("{} serving {}: {why}\n{}", runtime.name(), manifest.display(), tail.join("\n"));
        }
        server
    }

    /// The runtime's state directory (`sqlite_db.db`, `sqlite_key_value.db`).
    fn state_dir(&self) -> PathBuf {
        self._state.path().join("spin")
    }

    /// The runtime's process (the group leader).
    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn wait_ready(&mut self) -> Result<(), String> {
        let client = Client::builder().timeout(Duration::from_secs(2)).build().unwrap();
        let deadline = Instant::now() + Duration::from_secs(300);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = self.child.try_wait() {
                return Err(format!("exited ({status})"));
            }
            if let Ok(r) = client.get(format!("{}/.well-known/spin/health", self.base)).send() {
                if r.status().is_success() {
                    return Ok(());
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Err(format!("not up after 300 s (log: {})", self.log.display()))
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // The runtime may have started helpers (Spin's trigger plugins): end its group.
        let _ = Command::new("kill").arg("-TERM").arg("--").arg(format!("-{}", self.child.id())).status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = Command::new("kill").arg("-KILL").arg("--").arg(format!("-{}", self.child.id())).status();
        let _ = self.child.wait();
    }
}

// ---------------------------------------------------------------------------
// The app's data.

struct Tenant {
    id: String,
    key: String,
}

fn project_body(n: usize) -> Value {
    json!({
        "project_name": format!("Bench study {n}"),
        "project_objective": "Understand why shoppers abandon the checkout on mobile devices",
        "research_questions": "Why do shoppers leave the checkout? What would make them finish?",
        "success_criteria": "Three validated reasons for abandonment with supporting quotes",
        "recruiting_criteria": "Online shoppers aged 25-45 who bought on mobile in the last month",
    })
}

fn create_tenant(client: &Client, app: &Server, partner_key: &str) -> Tenant {
    let response = client
        .post(format!("{}/v1/tenants", app.base))
        .header("X-Api-Key", partner_key)
        .header("X-Tenant-Id", PARTNER_TENANT_ID)
        .json(&json!({"organization_name": format!("Bench {}", uuid::Uuid::new_v4()), "contact_email": "bench@example.com"}))
        .send()
        .unwrap();
    assert_eq!(response.status(), 201, "creating a tenant");
    let body: Value = response.json().unwrap();
    Tenant { id: body["tenant_id"].as_str().unwrap().into(), key: body["api_key"].as_str().unwrap().into() }
}

/// Creates `count` projects through the API, eight at a time; returns one id.
fn create_projects(app: &Server, tenant: &Tenant, count: usize) -> String {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let ids: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    let client = Client::new();
                    let mut last = None;
                    loop {
                        let n = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if n >= count {
                            return last;
                        }
                        let response = client
                            .post(format!("{}/v1/projects", app.base))
                            .header("X-Api-Key", &tenant.key)
                            .header("X-Tenant-Id", &tenant.id)
                            .json(&project_body(n))
                            .send()
                            .unwrap();
                        assert_eq!(response.status(), 201, "creating project {n}");
                        let body: Value = response.json().unwrap();
                        last = body["project_id"].as_str().map(String::from);
                    }
                })
            })
            .collect();
        workers.into_iter().filter_map(|w| w.join().unwrap()).collect()
    });
    ids.into_iter().next().expect("at least one project")
}

/// The cursor after the first `skip` projects of the tenant's list.
fn cursor_after(client: &Client, app: &Server, tenant: &Tenant, skip: usize) -> String {
    let mut cursor: Option<String> = None;
    let mut seen = 0;
    while seen < skip {
        let limit = (skip - seen).min(1000);
        let mut url = format!("{}/v1/projects?limit={limit}", app.base);
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let response = client.get(url).header("X-Api-Key", &tenant.key).header("X-Tenant-Id", &tenant.id).send().unwrap();
        assert_eq!(response.status(), 200, "paging the project list");
        let body: Value = response.json().unwrap();
        seen += body["data"].as_array().map_or(0, Vec::len);
        cursor = Some(body["next_cursor"].as_str().expect("a next_cursor (is paging built?)").to_string());
    }
    cursor.unwrap()
}

// ---------------------------------------------------------------------------
// Load.

#[derive(Clone, Copy, PartialEq)]
enum Target {
    Hello,
    Select,
    /// The same one-SELECT component on a copy of the app's database.
    SelectOnAppSchema,
    App,
}

/// Which of the targets a scenario's row reports.
#[derive(Clone, Copy, PartialEq)]
enum Goal {
    None,
    /// Authed GET of one project: >= 0.25 of hello, >= 0.75 of one-select, p99 <= 3x hello's.
    Read,
    /// POST /v1/projects: >= 0.15 of hello.
    Create,
    /// A page deep in the large tenant costs what one in the small tenant does.
    DeepPage,
}

#[derive(Clone)]
struct Scenario {
    name: String,
    target: Target,
    goal: Goal,
    method: &'static str,
    path: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
    /// The status every answer should have.
    expect: u16,
}

/// What one wrk run measured.
#[derive(Clone, Copy, Default)]
struct Run {
    rps: f64,
    p50_ms: f64,
    p99_ms: f64,
    requests: u64,
    /// Answers without the expected status, and socket errors/timeouts.
    unexpected: u64,
    server_errors: u64,
}

fn lua_string(text: &str) -> String {
    format!("[==[{text}]==]")
}

/// A wrk script that sets the request and prints what the table needs.
/// Statuses are only counted one by one (a per-response Lua call) when asked.
fn wrk_script(scenario: &Scenario, count_statuses: bool) -> String {
    let mut script = format!("wrk.method = {}\n", lua_string(scenario.method));
    if let Some(body) = &scenario.body {
        script += &format!("wrk.body = {}\n", lua_string(body));
        script += "wrk.headers[\"Content-Type\"] = \"application/json\"\n";
    }
    for (name, value) in &scenario.headers {
        script += &format!("wrk.headers[ {} ] = {}\n", lua_string(name), lua_string(value));
    }
    script += "local threads = {}\nfunction setup(thread) table.insert(threads, thread) end\n";
    if count_statuses {
        script += &format!(
            "expected = 0\nunexpected = 0\nserver_errors = 0\n\
             function response(status, headers, body)\n\
               if status == {} then expected = expected + 1 else unexpected = unexpected + 1 end\n\
               if status >= 500 then server_errors = server_errors + 1 end\n\
             end\n",
            scenario.expect
        );
    }
    script += "function done(summary, latency, requests)\n";
    if count_statuses {
        script += "  local u, s = 0, 0\n  for _, t in ipairs(threads) do u = u + t:get(\"unexpected\"); s = s + t:get(\"server_errors\") end\n";
    } else {
        script += "  local u, s = summary.errors.status, -1\n";
    }
    script += "  local e = summary.errors\n\
                 io.write(string.format(\"BENCH %d %d %d %d %d %d\\n\", summary.requests, summary.duration, \
                 latency:percentile(50), latency:percentile(99), u + e.connect + e.read + e.write + e.timeout, s))\n\
               end\n";
    script
}

fn wrk(base: &str, scenario: &Scenario, connections: u32, seconds: u32, count_statuses: bool) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("scenario.lua");
    std::fs::File::create(&script).unwrap().write_all(wrk_script(scenario, count_statuses).as_bytes()).unwrap();
    let output = Command::new("wrk")
        .args(["-t2", &format!("-c{connections}"), &format!("-d{seconds}s"), "--timeout", "10s", "-s"])
        .arg(&script)
        .arg(format!("{base}{}", scenario.path))
        .output()
        .expect("wrk runs (scripts/bench.sh installs it)");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout.lines().find_map(|l| l.strip_prefix("BENCH ")).unwrap_or_else(|| {
        panic!("wrk printed no result for {}:\n{stdout}\n{}", scenario.name, String::from_utf8_lossy(&output.stderr))
    });
    let n: Vec<i64> = line.split_whitespace().map(|v| v.parse().unwrap()).collect();
    let (requests, duration_us) = (n[0] as u64, n[1] as f64);
    // wrk counts non-2xx/3xx answers; where 404 is what we expect, those are fine.
    let unexpected = if !count_statuses && scenario.expect >= 400 { (n[4] - n[4].min(requests as i64)) as u64 } else { n[4] as u64 };
    Run {
        rps: requests as f64 / (duration_us / 1e6),
        p50_ms: n[2] as f64 / 1000.0,
        p99_ms: n[3] as f64 / 1000.0,
        requests,
        unexpected,
        server_errors: n[5].max(0) as u64,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.partial_cmp(b).unwrap());
    values[values.len() / 2]
}

fn main() {
    let options = match parse_options() {
        Ok(o) => o,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let partner_key = format!("sk-partner-bench-{}", uuid::Uuid::new_v4().simple());
    // The test defaults: the same partnership setup and limits far above the load.
    let mut variables = e2e::default_variables(&partner_key);
    for limit in ["rate_limit_per_minute", "project_create_rate_limit_per_minute"] {
        variables.insert(limit.into(), "100000000".into());
    }
    if options.load {
        load(&options, &variables, &partner_key);
    }
    if options.interviews_part {
        interviews::run(&interviews::Options {
            runtime: &options.runtime,
            manifest: &options.manifest,
            variables: &variables,
            partner_key: &partner_key,
            interviews: options.interviews,
        });
    }
}

/// The load table: the anchors and the app's hot paths under wrk, then 64 writers.
fn load(options: &Options, variables: &HashMap<String, String>, partner_key: &str) {
    let root = e2e::workspace_root();
    let no_variables = HashMap::new();

    eprintln!("bench: starting hello, one-select and the app under {}", options.runtime.name());
    let hello = Server::start(&options.runtime, &root.join("tests/fixtures/bench-hello/spin.toml"), &no_variables);
    let select = Server::start(&options.runtime, &root.join("tests/fixtures/bench-select/spin.toml"), &no_variables);
    let app = Server::start(&options.runtime, &options.manifest, variables);

    let client = Client::new();
    eprintln!("bench: creating tenants and {} + 200 projects", options.projects);
    let started = Instant::now();
    let tenant = create_tenant(&client, &app, partner_key);
    let project = create_projects(&app, &tenant, 1);
    let small = create_tenant(&client, &app, partner_key);
    create_projects(&app, &small, 200);
    let large = create_tenant(&client, &app, partner_key);
    create_projects(&app, &large, options.projects);
    let small_cursor = cursor_after(&client, &app, &small, 100);
    let large_cursor = cursor_after(&client, &app, &large, options.projects / 2);
    eprintln!("bench: data ready in {:.0} s", started.elapsed().as_secs_f64());
    // What any request of the app pays before its own work: the runtime opens
    // a connection per request, and SQLite reads the whole schema into it on
    // the first statement. The same anchor on the app's schema shows that cost.
    let select_on_app_schema = Server::start_on(
        &options.runtime,
        &root.join("tests/fixtures/bench-select/spin.toml"),
        &no_variables,
        Some(&app.state_dir().join("sqlite_db.db")),
    );
    let _ = select_warm(&client, &select);
    let _ = select_warm(&client, &select_on_app_schema);

    let auth = |t: &Tenant| vec![("X-Api-Key".to_string(), t.key.clone()), ("X-Tenant-Id".to_string(), t.id.clone())];
    let get = |name: &str, target, goal, path: String, headers, expect| Scenario {
        name: name.to_string(),
        target,
        goal,
        method: "GET",
        path,
        headers,
        body: None,
        expect,
    };
    let create = Scenario {
        name: "POST project".into(),
        target: Target::App,
        goal: Goal::Create,
        method: "POST",
        path: "/v1/projects".into(),
        headers: auth(&tenant),
        body: Some(project_body(0).to_string()),
        expect: 201,
    };
    let scenarios = vec![
        get("hello", Target::Hello, Goal::None, "/".into(), vec![], 200),
        get("one-select", Target::Select, Goal::None, "/?id=500".into(), vec![], 200),
        get("one-select, app's schema", Target::SelectOnAppSchema, Goal::None, "/?id=500".into(), vec![], 200),
        get("GET unknown route (404)", Target::App, Goal::None, "/v1/nothing".into(), vec![], 404),
        get("GET event-types (auth)", Target::App, Goal::None, "/v1/webhooks/event-types".into(), auth(&tenant), 200),
        get("GET project (auth)", Target::App, Goal::Read, format!("/v1/projects/{project}"), auth(&tenant), 200),
        create.clone(),
        get("GET projects, all 200", Target::App, Goal::None, "/v1/projects".into(), auth(&small), 200),
        get(
            "GET projects, page of 20 in 200",
            Target::App,
            Goal::None,
            format!("/v1/projects?limit=20&cursor={small_cursor}"),
            auth(&small),
            200,
        ),
        get(
            &format!("GET projects, page of 20 in {}", options.projects),
            Target::App,
            Goal::DeepPage,
            format!("/v1/projects?limit=20&cursor={large_cursor}"),
            auth(&large),
            200,
        ),
    ];
    let base = |target| match target {
        Target::Hello => &hello.base,
        Target::Select => &select.base,
        Target::SelectOnAppSchema => &select_on_app_schema.base,
        Target::App => &app.base,
    };

    let mut runs: Vec<Vec<Run>> = vec![Vec::new(); scenarios.len()];
    for round in 1..=options.rounds {
        eprintln!("bench: round {round} of {}", options.rounds);
        for (i, scenario) in scenarios.iter().enumerate() {
            runs[i].push(wrk(base(scenario.target), scenario, 16, options.seconds, false));
        }
    }

    eprintln!("bench: 64 writers for {} s", options.writers_seconds);
    let writers = wrk(&app.base, &create, 64, options.writers_seconds, true);

    // The table.
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!();
    println!(
        "runtime: {}; {cores} cores; wrk 2 threads, 16 connections; {} rounds of {} s per scenario, interleaved; medians",
        options.runtime.name(),
        options.rounds,
        options.seconds
    );
    println!(
        "{:<34} {:>8} {:>7} {:>8} {:>8} {:>9} {:>6}  target",
        "scenario", "req/s", "x hello", "p50 ms", "p99 ms", "p99/hello", "errors"
    );
    // The anchors' rows, which the shares are of.
    let row_of = |target: Target| scenarios.iter().position(|s| s.target == target).expect("every anchor has a row");
    let (hello_row, select_row, app_schema_row) =
        (row_of(Target::Hello), row_of(Target::Select), row_of(Target::SelectOnAppSchema));
    let share = |i: usize, of: usize, field: fn(&Run) -> f64| {
        median(runs[i].iter().zip(&runs[of]).map(|(a, b)| field(a) / field(b)).collect())
    };
    let rps = |r: &Run| r.rps;
    let p99 = |r: &Run| r.p99_ms;
    for (i, scenario) in scenarios.iter().enumerate() {
        let errors: u64 = runs[i].iter().map(|r| r.unexpected).sum();
        let target = match scenario.goal {
            Goal::Read => {
                let (h, s, p) = (share(i, hello_row, rps), share(i, select_row, rps), share(i, hello_row, p99));
                format!(
                    ">= 0.25 hello ({}); >= 0.75 one-select: {s:.2} ({}); p99 <= 3x hello ({}); \
                     {:.2} of one-select on the app's schema",
                    verdict(h >= 0.25),
                    verdict(s >= 0.75),
                    verdict(p <= 3.0),
                    share(i, app_schema_row, rps)
                )
            }
            Goal::Create => format!(">= 0.15 hello ({})", verdict(share(i, hello_row, rps) >= 0.15)),
            Goal::DeepPage => format!("as a page in 200: {:.2} of its req/s", share(i, i - 1, rps)),
            Goal::None => String::new(),
        };
        println!(
            "{:<34} {:>8.0} {:>7.2} {:>8.2} {:>8.2} {:>9.1} {:>6}  {}",
            scenario.name,
            median(runs[i].iter().map(rps).collect()),
            share(i, hello_row, rps),
            median(runs[i].iter().map(|r| r.p50_ms).collect()),
            median(runs[i].iter().map(p99).collect()),
            share(i, hello_row, p99),
            errors,
            target
        );
    }
    println!(
        "{:<34} {:>8.0} {:>7} {:>8.2} {:>8.2} {:>9} {:>6}  no 5xx ({}): {} requests, {} 5xx, {} other unexpected",
        format!("64 writers, POST project, {} s", options.writers_seconds),
        writers.rps,
        "",
        writers.p50_ms,
        writers.p99_ms,
        "",
        writers.unexpected,
        verdict(writers.server_errors == 0),
        writers.requests,
        writers.server_errors,
        writers.unexpected - writers.server_errors.min(writers.unexpected),
    );
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "MISSED"
    }
}

/// The select anchor creates its table on first use: keep that out of the runs.
fn select_warm(client: &Client, select: &Server) -> reqwest::Result<()> {
    client.get(format!("{}/?id=1", select.base)).send()?.error_for_status().map(drop)
}
