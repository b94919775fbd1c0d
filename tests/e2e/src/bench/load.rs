//! The load table of `make bench` (see the bench's own docs): hello-world,
//! the one-`SELECT` anchors and the app's hot routes under wrk, every runtime
//! in turn, then 64 writers, one client at a time, and with `--database
//! libsql` two nodes against one.

use super::{create_projects, create_tenant, median, project_body, verdict, Options, Runtime, Server, Tenant};
use e2e::services::Sqld;
use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

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

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Target {
    Hello,
    Select,
    /// The same one-SELECT component on a copy of the app's database.
    SelectOnAppSchema,
    App,
}

/// Which target a scenario's row reports (issue 28; judged on Spin where it ran).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Goal {
    None,
    /// The one-SELECT anchor on the app's schema: >= 0.30 of hello.
    Schema,
    /// Authed GET of one project: >= 0.22 of hello, >= 0.75 of one-select on
    /// the app's schema, p99 <= 5x hello's.
    Read,
    /// POST /v1/projects: >= 0.15 of hello.
    Create,
    /// An interviewee's answer with the built-in interviewer: >= 0.10 of hello.
    Answer,
    /// A page deep in the large tenant costs what one in the small tenant does.
    DeepPage,
}

#[derive(Clone)]
pub(super) struct Scenario {
    pub(super) name: String,
    pub(super) target: Target,
    pub(super) goal: Goal,
    pub(super) method: &'static str,
    pub(super) path: String,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: Option<String>,
    /// The status every answer should have.
    pub(super) expect: u16,
    /// Answers spread over many interviewees' sessions (see [`answer_pool`]):
    /// the project they answer in.
    pub(super) sessions_of: Option<String>,
    /// Each request from an address of its own (`X-Forwarded-For`, for an app
    /// that trusts it), so that no address meets its limit.
    pub(super) from_many_addresses: bool,
}

/// What one wrk run measured.
#[derive(Clone, Copy, Default)]
pub(super) struct Run {
    pub(super) rps: f64,
    pub(super) p50_ms: f64,
    pub(super) p99_ms: f64,
    pub(super) requests: u64,
    /// Answers without the expected status, and socket errors/timeouts.
    pub(super) unexpected: u64,
    pub(super) server_errors: u64,
    /// On libSQL: statements sqld executed per request of the run.
    pub(super) statements: Option<f64>,
}

fn lua_string(text: &str) -> String {
    format!("[==[{text}]==]")
}

/// A wrk script that sets the request and prints what the table needs.
/// Statuses are only counted one by one (a per-response Lua call) when asked.
/// With a pool of sessions (`(path, bearer token)`), each request goes to the
/// next session of its thread's half of the pool, so no session has two
/// answers in flight at once.
fn wrk_script(scenario: &Scenario, count_statuses: bool, pool: &[(String, String)]) -> String {
    let mut script = format!("wrk.method = {}\n", lua_string(scenario.method));
    if let Some(body) = &scenario.body {
        script += &format!("wrk.body = {}\n", lua_string(body));
        script += "wrk.headers[\"Content-Type\"] = \"application/json\"\n";
    }
    for (name, value) in &scenario.headers {
        script += &format!("wrk.headers[ {} ] = {}\n", lua_string(name), lua_string(value));
    }
    script += "local threads = {}\nfunction setup(thread) thread:set(\"half\", #threads) table.insert(threads, thread) end\n";
    if !pool.is_empty() {
        script += "pool = {\n";
        for (path, token) in pool {
            script += &format!("  {{ {}, {} }},\n", lua_string(path), lua_string(&format!("Bearer {token}")));
        }
        script += "}\nlocal next = 0\n\
                   function request()\n\
                     local s = pool[(2 * next + half) % #pool + 1]\n\
                     next = next + 1\n\
                     wrk.headers[\"Authorization\"] = s[2]\n\
                     return wrk.format(nil, s[1])\n\
                   end\n";
    }
    if scenario.from_many_addresses {
        // 10.<thread>.<n / 256>.<n % 256>: a new address for each request of a run.
        script += "local sent = 0\n\
                   function request()\n\
                     sent = sent + 1\n\
                     wrk.headers[\"X-Forwarded-For\"] = string.format(\"10.%d.%d.%d\", half, math.floor(sent / 256) % 256, sent % 256)\n\
                     return wrk.format()\n\
                   end\n";
    }
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

pub fn wrk(base: &str, scenario: &Scenario, connections: u32, seconds: u32, count_statuses: bool, pool: &[(String, String)]) -> Run {
    wrk_on(None, base, scenario, connections, seconds, count_statuses, pool)
}

/// [`wrk`], pinned to the CPUs `cpus` names (`taskset -c`) when given.
pub fn wrk_on(
    cpus: Option<&str>,
    base: &str,
    scenario: &Scenario,
    connections: u32,
    seconds: u32,
    count_statuses: bool,
    pool: &[(String, String)],
) -> Run {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("scenario.lua");
    std::fs::File::create(&script).unwrap().write_all(wrk_script(scenario, count_statuses, pool).as_bytes()).unwrap();
    let mut command = match cpus {
        Some(cpus) => {
            let mut taskset = Command::new("taskset");
            taskset.args(["-c", cpus, "wrk"]);
            taskset
        }
        None => Command::new("wrk"),
    };
    let output = command
        .args([&format!("-t{}", connections.min(2)), &format!("-c{connections}"), &format!("-d{seconds}s"), "--timeout", "10s", "-s"])
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
        statements: None,
    }
}

/// Like [`wrk`], counting what sqld executed meanwhile when there is one.
fn wrk_counted(base: &str, scenario: &Scenario, connections: u32, seconds: u32, pool: &[(String, String)], sqld: Option<&Sqld>) -> Run {
    let before = sqld.map(Sqld::query_count);
    let mut run = wrk(base, scenario, connections, seconds, false, pool);
    if let (Some(sqld), Some(before)) = (sqld, before) {
        run.statements = Some((sqld.query_count() - before) as f64 / run.requests.max(1) as f64);
    }
    run
}

/// The libSQL servers of one runtime's load table (`--database libsql`): the
/// app's database (which "one-select, app's schema" reads too) and the
/// one-select anchor's own, each with a runtime config naming it.
struct Libsql {
    app: Sqld,
    /// Kept running for the anchor.
    _select: Sqld,
    app_config: tempfile::TempDir,
    select_config: tempfile::TempDir,
}

impl Libsql {
    fn start(sqld: &Path) -> Libsql {
        let (app, select) = (Sqld::start(sqld), Sqld::start(sqld));
        Libsql { app_config: app.runtime_config(""), select_config: select.runtime_config(""), app, _select: select }
    }

    fn app_config(&self) -> PathBuf {
        self.app_config.path().join("runtime-config.toml")
    }

    fn select_config(&self) -> PathBuf {
        self.select_config.path().join("runtime-config.toml")
    }
}

/// Everything one runtime serves for the load table.
struct Servers {
    runtime: Runtime,
    /// `--database libsql`: where the app's and the anchor's databases live.
    libsql: Option<Libsql>,
    hello: Server,
    select: Server,
    app: Server,
    select_on_app_schema: Server,
    /// The tenant with one project, the small and the large tenant, their cursors.
    tenant: Tenant,
    project: String,
    interview_project: String,
    small: Tenant,
    large: Tenant,
    small_cursor: String,
    large_cursor: String,
}

impl Servers {
    fn start(runtime: &Runtime, options: &Options, variables: &HashMap<String, String>, partner_key: &str) -> Servers {
        let root = e2e::workspace_root();
        let no_variables = HashMap::new();
        let libsql = options.libsql.as_deref().map(Libsql::start);
        let (select_config, app_config) = match &libsql {
            Some(l) => (Some(l.select_config()), Some(l.app_config())),
            None => (None, None),
        };
        eprintln!("bench: starting hello, one-select and the app under the {}", runtime.name);
        let hello = Server::start(runtime, &root.join("tests/fixtures/bench-hello/spin.toml"), &no_variables);
        let select_manifest = root.join("tests/fixtures/bench-select/spin.toml");
        let select = Server::start_on(runtime, &select_manifest, &no_variables, None, select_config.as_deref());
        let app = Server::start_on(runtime, &options.manifest, variables, None, app_config.as_deref());
        let client = Client::new();
        eprintln!("bench: creating tenants and {} + 200 projects", options.projects);
        let started = Instant::now();
        let (tenant, project, interview_project) = hot_path_data(&client, &app, partner_key);
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
        // On libSQL: the app's own database, where the anchor adds its table.
        let select_on_app_schema = match &app_config {
            Some(config) => Server::start_on(runtime, &select_manifest, &no_variables, None, Some(config)),
            None => Server::start_on(runtime, &select_manifest, &no_variables, Some(&app.state_dir().join("sqlite_db.db")), None),
        };
        let _ = select_warm(&client, &select);
        let _ = select_warm(&client, &select_on_app_schema);
        Servers {
            runtime: runtime.clone(),
            libsql,
            hello,
            select,
            app,
            select_on_app_schema,
            tenant,
            project,
            interview_project,
            small,
            large,
            small_cursor,
            large_cursor,
        }
    }

    fn base(&self, target: Target) -> &str {
        match target {
            Target::Hello => &self.hello.base,
            Target::Select => &self.select.base,
            Target::SelectOnAppSchema => &self.select_on_app_schema.base,
            Target::App => &self.app.base,
        }
    }

    /// The scenarios, in table order, with this runtime's ids and credentials.
    fn scenarios(&self, projects: usize) -> Vec<Scenario> {
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
            sessions_of: None,
            from_many_addresses: false,
        };
        vec![
            get("hello", Target::Hello, Goal::None, "/".into(), vec![], 200),
            get("one-select", Target::Select, Goal::None, "/?id=500".into(), vec![], 200),
            get("one-select, app's schema", Target::SelectOnAppSchema, Goal::Schema, "/?id=500".into(), vec![], 200),
            // What the app's rate-limit write adds to that (the anchor's `count=1`).
            get("  + a counter upsert", Target::SelectOnAppSchema, Goal::None, "/?id=500&count=1".into(), vec![], 200),
            get("GET unknown route (404)", Target::App, Goal::None, "/v1/nothing".into(), vec![], 404),
            get("GET event-types (auth)", Target::App, Goal::None, "/v1/webhooks/event-types".into(), auth(&self.tenant), 200),
            get_project_scenario(&self.tenant, &self.project),
            create_scenario(&self.tenant),
            answer_scenario(&self.interview_project),
            get("GET projects, all 200", Target::App, Goal::None, "/v1/projects".into(), auth(&self.small), 200),
            get(
                "GET projects, page of 20 in 200",
                Target::App,
                Goal::None,
                format!("/v1/projects?limit=20&cursor={}", self.small_cursor),
                auth(&self.small),
                200,
            ),
            get(
                &format!("GET projects, page of 20 in {projects}"),
                Target::App,
                Goal::DeepPage,
                format!("/v1/projects?limit=20&cursor={}", self.large_cursor),
                auth(&self.large),
                200,
            ),
        ]
    }
}

/// What the hot-path scenarios need: a tenant with one project to read, and
/// an active one to answer in.
pub(super) fn hot_path_data(client: &Client, app: &Server, partner_key: &str) -> (Tenant, String, String) {
    let tenant = create_tenant(client, app, partner_key);
    let project = create_projects(app, &tenant, 1);
    let interview_project = create_projects(app, &tenant, 1);
    let activated = client
        .post(format!("{}/v1/projects/{interview_project}/activate", app.base))
        .header("X-Api-Key", &tenant.key)
        .header("X-Tenant-Id", &tenant.id)
        .send()
        .unwrap();
    assert_eq!(activated.status(), 200, "activating the interview project");
    (tenant, project, interview_project)
}

/// What an interviewee answers in the answer scenario: substantive, so the
/// interviewer has something to follow up.
const ANSWER: &str = "Hidden shipping costs at the last step make me leave, and the form asks for an account first.";

/// The authenticated read: one project of the tenant.
pub(super) fn get_project_scenario(tenant: &Tenant, project: &str) -> Scenario {
    Scenario {
        name: "GET project (auth)".into(),
        target: Target::App,
        goal: Goal::Read,
        method: "GET",
        path: format!("/v1/projects/{project}"),
        headers: vec![("X-Api-Key".to_string(), tenant.key.clone()), ("X-Tenant-Id".to_string(), tenant.id.clone())],
        body: None,
        expect: 200,
        sessions_of: None,
        from_many_addresses: false,
    }
}

/// An interviewee's answer with the built-in interviewer, spread over many
/// sessions of `project` (see [`answer_pool`]).
pub(super) fn answer_scenario(project: &str) -> Scenario {
    Scenario {
        name: "POST answer (built-in)".into(),
        target: Target::App,
        goal: Goal::Answer,
        method: "POST",
        path: "/v1/sessions/-/answers".into(),
        headers: vec![],
        body: Some(json!({"text": ANSWER}).to_string()),
        expect: 200,
        sessions_of: Some(project.to_string()),
        from_many_addresses: false,
    }
}

pub(super) fn create_scenario(tenant: &Tenant) -> Scenario {
    Scenario {
        name: "POST project".into(),
        target: Target::App,
        goal: Goal::Create,
        method: "POST",
        path: "/v1/projects".into(),
        headers: vec![("X-Api-Key".to_string(), tenant.key.clone()), ("X-Tenant-Id".to_string(), tenant.id.clone())],
        body: Some(project_body(0).to_string()),
        expect: 201,
        sessions_of: None,
        from_many_addresses: false,
    }
}

/// Fresh sessions of `project` for one run of the answer scenario: each takes a
/// few answers before its interviewer closes, so the pool is sized from the
/// rate the scenario ran at before (`expected_answers`), with room to spare.
pub(super) fn answer_pool(app: &Server, project: &str, expected_answers: f64) -> Vec<(String, String)> {
    const ANSWERS_PER_SESSION: f64 = 3.0;
    let count = ((expected_answers / ANSWERS_PER_SESSION).ceil() as usize).clamp(64, 20_000);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                scope.spawn(|| {
                    let client = Client::builder().timeout(std::time::Duration::from_secs(60)).build().unwrap();
                    let mut made = Vec::new();
                    while next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) < count {
                        let started = client.post(format!("{}/v1/sessions", app.base)).json(&json!({"project_id": project})).send();
                        // A start that failed is reported, and the pool is one session short.
                        let body: Value = match started {
                            Ok(response) if response.status() == 201 => response.json().unwrap(),
                            Ok(response) => {
                                eprintln!("bench: starting a session answered {}", response.status());
                                continue;
                            }
                            Err(error) => {
                                eprintln!("bench: starting a session failed: {error}");
                                continue;
                            }
                        };
                        let id = body["interview_id"].as_str().unwrap();
                        made.push((format!("/v1/sessions/{id}/answers"), body["session_token"].as_str().unwrap().to_string()));
                    }
                    made
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap()).collect()
    })
}

/// The load table: the anchors and the app's hot paths under wrk, then 64
/// writers, under every runtime.
pub fn run(options: &Options, variables: &HashMap<String, String>, partner_key: &str) {
    let servers: Vec<Servers> =
        options.runtimes.iter().map(|runtime| Servers::start(runtime, options, variables, partner_key)).collect();
    let scenarios: Vec<Vec<Scenario>> = servers.iter().map(|s| s.scenarios(options.projects)).collect();
    let rows = scenarios[0].len();

    // runs[runtime][row]: one Run per round.
    let mut runs: Vec<Vec<Vec<Run>>> = vec![vec![Vec::new(); rows]; servers.len()];
    for round in 1..=options.rounds {
        eprintln!("bench: round {round} of {}", options.rounds);
        for row in 0..rows {
            for (r, server) in servers.iter().enumerate() {
                let scenario = &scenarios[r][row];
                let pool = match &scenario.sessions_of {
                    Some(project) => {
                        let expected = runs[r][row].last().map_or(1500.0, |run: &Run| run.rps * options.seconds as f64);
                        answer_pool(&server.app, project, expected * 1.5)
                    }
                    None => Vec::new(),
                };
                let sqld = server.libsql.as_ref().filter(|_| scenario.target == Target::App).map(|l| &l.app);
                runs[r][row].push(wrk_counted(server.base(scenario.target), scenario, 16, options.seconds, &pool, sqld));
            }
        }
    }
    let writers: Vec<Run> = servers
        .iter()
        .map(|server| {
            eprintln!("bench: 64 writers for {} s under the {}", options.writers_seconds, server.runtime.name);
            wrk(&server.app.base, &create_scenario(&server.tenant), 64, options.writers_seconds, true, &[])
        })
        .collect();
    // One client at a time: what a request costs a quiet service, where each
    // request's connection is the database's only one when it closes (see
    // docs/design-decisions.md, "A request alone").
    let alone: Vec<(Run, Run)> = servers
        .iter()
        .zip(&scenarios)
        .map(|(server, scenarios)| {
            eprintln!("bench: one client at a time under the {}", server.runtime.name);
            let read = scenarios.iter().find(|s| s.goal == Goal::Read).expect("the GET project row");
            (
                wrk(server.base(Target::Hello), &scenarios[0], 1, options.seconds, false, &[]),
                wrk(server.base(read.target), read, 1, options.seconds, false, &[]),
            )
        })
        .collect();
    print_load_table(options, &servers, &scenarios[0], &runs, &writers, &alone);
    for server in &servers {
        eprintln!("bench: the read and the write at {{16, 64, 256}} connections under the {}", server.runtime.name);
        let scenarios = super::scale::read_and_write(&server.tenant, &server.project);
        super::scale::concurrency(server.runtime.name, &server.app.base, &scenarios, options.seconds);
    }
    for runtime in &options.runtimes {
        eprintln!("bench: many client addresses under the {}", runtime.name);
        super::scale::many_addresses(runtime, options, variables, partner_key);
    }
    if options.libsql.is_some() {
        two_nodes(options, &servers, &scenarios, variables);
    }
}

/// On libSQL: the app's write and read hot paths served by two nodes (a
/// second runtime process on the same database) against one node, at the
/// same client load (16 connections in all; 8 on each of two nodes).
fn two_nodes(options: &Options, servers: &[Servers], scenarios: &[Vec<Scenario>], variables: &HashMap<String, String>) {
    let rows: Vec<usize> = scenarios[0]
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.goal, Goal::Read | Goal::Create))
        .map(|(i, _)| i)
        .collect();
    let seconds = options.seconds;
    let seconds_nodes: Vec<Server> = servers
        .iter()
        .map(|s| {
            eprintln!("bench: a second node of the app under the {}", s.runtime.name);
            let config = s.libsql.as_ref().expect("libSQL").app_config();
            Server::start_on(&s.runtime, &options.manifest, variables, None, Some(&config))
        })
        .collect();
    // [runtime][row]: (one node, two nodes) per round.
    let mut runs: Vec<Vec<Vec<(Run, Run)>>> = vec![vec![Vec::new(); rows.len()]; servers.len()];
    for round in 1..=options.rounds {
        eprintln!("bench: two nodes against one, round {round} of {}", options.rounds);
        for (k, &row) in rows.iter().enumerate() {
            for (r, server) in servers.iter().enumerate() {
                let scenario = &scenarios[r][row];
                let one = wrk(&server.app.base, scenario, 16, seconds, false, &[]);
                let (a, b) = std::thread::scope(|scope| {
                    let a = scope.spawn(|| wrk(&server.app.base, scenario, 8, seconds, false, &[]));
                    let b = scope.spawn(|| wrk(&seconds_nodes[r].base, scenario, 8, seconds, false, &[]));
                    (a.join().unwrap(), b.join().unwrap())
                });
                let two = Run {
                    rps: a.rps + b.rps,
                    p99_ms: a.p99_ms.max(b.p99_ms),
                    requests: a.requests + b.requests,
                    unexpected: a.unexpected + b.unexpected,
                    ..Run::default()
                };
                runs[r][k].push((one, two));
            }
        }
    }
    println!();
    println!(
        "two nodes against one on one libSQL database (the same machine: {} cores for both nodes and sqld); \
         wrk 16 connections in all, 8 on each of two nodes; medians of {} rounds",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        options.rounds
    );
    println!("{:<34} | {:<10} | {:>12} {:>10} | {:>12} {:>10} | {:>8}", "scenario", "runtime", "one node", "p99 ms", "two nodes", "p99 ms", "two/one");
    for (k, &row) in rows.iter().enumerate() {
        for (r, server) in servers.iter().enumerate() {
            let field = |f: fn(&(Run, Run)) -> f64| median(runs[r][k].iter().map(f).collect());
            let errors: u64 = runs[r][k].iter().map(|(one, two)| one.unexpected + two.unexpected).sum();
            println!(
                "{:<34} | {:<10} | {:>12.0} {:>10.2} | {:>12.0} {:>10.2} | {:>8.2}{}",
                scenarios[r][row].name,
                server.runtime.name,
                field(|(one, _)| one.rps),
                field(|(one, _)| one.p99_ms),
                field(|(_, two)| two.rps),
                field(|(_, two)| two.p99_ms),
                field(|(one, two)| two.rps / one.rps),
                if errors > 0 { format!(" ({errors} unexpected)") } else { String::new() },
            );
        }
    }
}

fn print_load_table(
    options: &Options,
    servers: &[Servers],
    scenarios: &[Scenario],
    runs: &[Vec<Vec<Run>>],
    writers: &[Run],
    alone: &[(Run, Run)],
) {
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let names: Vec<&str> = servers.iter().map(|s| s.runtime.name).collect();
    println!();
    println!(
        "runtimes: {}; database: {}; {cores} cores; wrk 2 threads, 16 connections; {} rounds of {} s per scenario and runtime, \
         interleaved; medians; x hello = share of the same runtime's hello-world",
        names.join(", "),
        match options.libsql {
            Some(_) => "libSQL (sqld on loopback; stmts = statements sqld ran per request, each a round trip)",
            None => "local SQLite file",
        },
        options.rounds,
        options.seconds
    );
    let ratio_column = if names.len() == 2 { " | host/spin" } else { "" };
    // On libSQL each runtime's block has a statements column too.
    let stmts = options.libsql.is_some();
    let width = if stmts { 43 } else { 36 };
    println!("{:<34}{}{ratio_column}", "", names.iter().map(|name| format!(" | {name:<width$}")).collect::<String>());
    println!(
        "{:<34}{}{} | target (judged on the {})",
        "scenario",
        names
            .iter()
            .map(|_| format!(" | {:>8} {:>7} {:>8} {:>9}{}", "req/s", "x hello", "p99 ms", "p99/hello", if stmts { "  stmts" } else { "" }))
            .collect::<String>(),
        if names.len() == 2 { " | of shares" } else { "" },
        names.last().unwrap()
    );
    // The anchors' rows, which the shares are of.
    let row_of = |target: Target| scenarios.iter().position(|s| s.target == target).expect("every anchor has a row");
    let (hello_row, app_schema_row) = (row_of(Target::Hello), row_of(Target::SelectOnAppSchema));
    let share = |r: usize, i: usize, of: usize, field: fn(&Run) -> f64| {
        median(runs[r][i].iter().zip(&runs[r][of]).map(|(a, b)| field(a) / field(b)).collect())
    };
    let rps = |r: &Run| r.rps;
    let p99 = |r: &Run| r.p99_ms;
    let judged = servers.len() - 1;
    let mut off = Vec::new();
    for (i, scenario) in scenarios.iter().enumerate() {
        let mut line = format!("{:<34}", scenario.name);
        for r in 0..servers.len() {
            let errors: u64 = runs[r][i].iter().map(|run| run.unexpected).sum();
            line += &format!(
                " | {:>8.0} {:>7.2} {:>8.2} {:>9.1}",
                median(runs[r][i].iter().map(rps).collect()),
                share(r, i, hello_row, rps),
                median(runs[r][i].iter().map(p99).collect()),
                share(r, i, hello_row, p99),
            );
            if stmts {
                let counted: Vec<f64> = runs[r][i].iter().filter_map(|run| run.statements).collect();
                line += &match counted.is_empty() {
                    true => format!(" {:>6}", ""),
                    false => format!(" {:>6.2}", median(counted)),
                };
            }
            if errors > 0 {
                line += &format!(" ({errors} unexpected)");
            }
        }
        if servers.len() == 2 && i != hello_row {
            let ratio = share(0, i, hello_row, rps) / share(1, i, hello_row, rps);
            let flag = if (ratio - 1.0).abs() > 0.25 { " OFF" } else { "" };
            if !flag.is_empty() {
                off.push(scenario.name.clone());
            }
            line += &format!(" | {ratio:>6.2}{flag:<3}");
        } else if servers.len() == 2 {
            line += &format!(" | {:>9}", "");
        }
        let h = share(judged, i, hello_row, rps);
        let target = match scenario.goal {
            Goal::Schema => format!(">= 0.30 hello ({})", verdict(h >= 0.30)),
            Goal::Read => format!(
                ">= 0.22 hello ({}); >= 0.75 one-select on the app's schema: {:.2} ({}); p99 <= 5x hello ({})",
                verdict(h >= 0.22),
                share(judged, i, app_schema_row, rps),
                verdict(share(judged, i, app_schema_row, rps) >= 0.75),
                verdict(share(judged, i, hello_row, p99) <= 5.0),
            ),
            Goal::Create => format!(">= 0.15 hello ({})", verdict(h >= 0.15)),
            Goal::Answer => format!(">= 0.10 hello ({})", verdict(h >= 0.10)),
            Goal::DeepPage => format!("as a page in 200: {:.2} of its req/s", share(judged, i, i - 1, rps)),
            Goal::None => String::new(),
        };
        println!("{line} | {target}");
    }
    for (server, writers) in servers.iter().zip(writers) {
        println!("{}", super::scale::writers_line(server.runtime.name, options.writers_seconds, writers));
        if writers.server_errors > 0 {
            println!("  what the app logged going wrong, by count:");
            for line in server.app.logged_errors(5) {
                println!("  {line}");
            }
        }
    }
    for (server, (hello, read)) in servers.iter().zip(alone) {
        println!(
            "one client at a time, {} s, {}: GET project (auth) p50 {:.2} ms, p99 {:.2} ms ({:.0} req/s); hello p50 {:.2} ms",
            options.seconds, server.runtime.name, read.p50_ms, read.p99_ms, read.rps, hello.p50_ms,
        );
    }
    if servers.len() == 2 {
        match off.is_empty() {
            true => println!("every row's share agrees between the runtimes within 25 %"),
            false => println!("rows whose share differs from Spin's by more than 25 %: {}", off.join(", ")),
        }
    }
}

/// The select anchor creates its tables on first use: keep that out of the runs.
fn select_warm(client: &Client, select: &Server) -> reqwest::Result<()> {
    client.get(format!("{}/?id=1&count=1", select.base)).send()?.error_for_status().map(drop)
}
