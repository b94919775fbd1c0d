//! `make bench` (scripts/bench.sh): the app's hot paths measured against two
//! anchor components under the same runtime, with a real load generator, and
//! with `SPIN` set, under the test host and the real Spin side by side.
//!
//! Per runtime, four servers run side by side, each its own process: a
//! hello-world component (tests/fixtures/bench-hello), a component doing one
//! indexed SELECT (tests/fixtures/bench-select), the app (spin.toml), and the
//! SELECT component again on a copy of the app's database (what the schema
//! costs a request, which bounds every hot path: see docs/design-decisions.md),
//! once more with a counter upsert before the read (what the app's rate-limit
//! write adds).
//! The load table (tests/e2e/src/bench/load.rs):
//! `wrk` (2 threads, 16 connections) drives every scenario in turn, under every
//! runtime in turn, all of them once per round, for several rounds, so that a
//! busy moment of the machine hits every scenario alike; the table shows
//! medians over the rounds and each figure as a share of its own runtime's
//! hello-world in the same round. With two runtimes, a last column divides the
//! test host's share by Spin's: the host must cost what Spin costs, so a ratio
//! off by more than 25 % is flagged (docs/design-decisions.md says why where
//! it cannot be helped). Then 64 connections write for a while under each
//! runtime and any 5xx is reported, and one client at a time reads a project
//! (the latency of a quiet service, where each request opens the database
//! alone). Those servers stop; then the app starts
//! again on a fresh state directory for the interviews table
//! (tests/e2e/src/bench/): a tenant with `--interviews` interviews in one
//! project and a tenth as many in another, written straight into its SQLite
//! file, then the metadata filter, paging and the CSV exports over HTTP, with
//! the runtime's memory while an export streams. Then the synthesis table
//! (tests/e2e/src/bench/synthesis.rs): the synthesis of 1,000 and 10,000 ended
//! interviews, its time and the runtime's memory. Last, the recordings table
//! (tests/e2e/src/bench/recordings.rs): recording uploads and audio exports,
//! in MiB/s.
//! With `--database libsql` the app's `default` database is a libSQL server
//! (`sqld`, one per database, on loopback) instead of a local file, as
//! docs/deploy.md runs several nodes: the one-select anchor reads from a sqld
//! of its own and "one-select, app's schema" from the app's; each app row also
//! shows the statements a request made (sqld's count over the run: each is a
//! round trip), and a last table compares two nodes of the app on that one
//! database with one node (the interviews table, which writes its data set
//! straight into a SQLite file, is left out).
//! Targets are printed next to the figures, never asserted; they are judged on
//! Spin where it ran. Traffic goes to 127.0.0.1 only.

#[path = "../bench/backends.rs"]
mod backends;
#[path = "../bench/dataset.rs"]
mod dataset;
#[path = "../bench/interviews.rs"]
mod interviews;
#[path = "../bench/load.rs"]
mod load;
#[path = "../bench/recordings.rs"]
mod recordings;
#[path = "../bench/synthesis.rs"]
mod synthesis;
#[path = "../bench/scale.rs"]
mod scale;

use e2e::services::Sqld;
use e2e::{RuntimeProcess, PARTNER_TENANT_ID};
use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

const USAGE: &str = "\
usage: bench [--runtime spin-host|spin|both] [--host PATH] [--spin PATH] [--seconds N] [--rounds N]
             [--writers-seconds N] [--projects N] [--interviews N] [--recording-mib N]
             [--only load|interviews|recordings|synthesis|backends] [--manifest PATH] [--baseline-manifest PATH]
             [--database local|libsql] [--sqld PATH] [--cores N]
  --runtime          which runtime serves the components [both when SPIN is set, else spin-host]
  --host             the spin-host binary [target/bench-host/spin-host]
  --spin             the spin binary [$SPIN, else spin on PATH]
  --database         where the app's database lives: a local SQLite file, or a libSQL server
                     (sqld; the load table, statements per request, two nodes against one) [local]
  --sqld             the sqld binary for --database libsql [$SQLD, else sqld beside the spin binary]
  --manifest         the app's manifest, to compare a variant of the app [spin.toml]
  --baseline-manifest  the recordings table: another build to measure side by side (e.g. one without sealing)
  --seconds          length of each scenario run [5]
  --rounds           rounds over all scenarios [3]
  --writers-seconds  length of the 64-writer run [30]
  --projects         projects of the large tenant [10000]
  --interviews       interviews of the large project; the small one gets a tenth [100000]
  --recording-mib    size of each recording of the recordings table, MiB [16]
  --only             run only the load table, the interviews table, the recordings table, the synthesis table,
                     or the records' backends side by side (local file, Spin's libSQL, over HTTP; needs sqld)
  --cores            only the scale-up table: the runtime (the last of --runtime) pinned to 1, 2, 4 ... N
                     cores, wrk on 4 other cores (a machine of N + 4 cores or more); about 8 minutes for N = 12";

struct Options {
    runtimes: Vec<Runtime>,
    /// `--database libsql`: the sqld binary the databases are served by.
    libsql: Option<PathBuf>,
    manifest: PathBuf,
    baseline_manifest: Option<PathBuf>,
    seconds: u32,
    rounds: usize,
    writers_seconds: u32,
    projects: usize,
    interviews: usize,
    recording_mib: usize,
    /// `--cores N`: only the scale-up table, up to N cores.
    cores: Option<usize>,
    load: bool,
    interviews_part: bool,
    recordings_part: bool,
    synthesis_part: bool,
    /// The records' backends side by side (needs sqld).
    backends_part: Option<PathBuf>,
}

/// A runtime the bench runs the servers under: its binary, which takes
/// `spin up`'s arguments.
#[derive(Clone)]
pub struct Runtime {
    name: &'static str,
    binary: PathBuf,
}

fn parse_options() -> Result<Options, String> {
    let root = e2e::workspace_root();
    let spin_set = std::env::var_os("SPIN").is_some_and(|v| !v.is_empty());
    let mut runtime = if spin_set { "both" } else { "spin-host" }.to_string();
    let mut host = root.join("target/bench-host/spin-host");
    let mut spin = std::env::var_os("SPIN").filter(|v| !v.is_empty()).map_or_else(|| PathBuf::from("spin"), PathBuf::from);
    let mut database = "local".to_string();
    let mut sqld = Sqld::binary();
    let mut options = Options {
        runtimes: Vec::new(),
        libsql: None,
        manifest: root.join("spin.toml"),
        baseline_manifest: None,
        seconds: 5,
        rounds: 3,
        writers_seconds: 30,
        projects: 10_000,
        interviews: 100_000,
        recording_mib: 16,
        cores: None,
        load: true,
        interviews_part: true,
        recordings_part: true,
        synthesis_part: true,
        backends_part: None,
    };
    let mut backends = true;
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut value = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let number = |text: String| text.parse::<usize>().map_err(|_| format!("{flag}: not a number: {text}"));
        match flag.as_str() {
            "--runtime" => runtime = value()?,
            "--host" => host = PathBuf::from(value()?),
            "--spin" => spin = PathBuf::from(value()?),
            "--manifest" => options.manifest = PathBuf::from(value()?),
            "--database" => database = value()?,
            "--sqld" => sqld = Some(PathBuf::from(value()?)),
            "--baseline-manifest" => options.baseline_manifest = Some(PathBuf::from(value()?)),
            "--seconds" => options.seconds = number(value()?)?.max(1) as u32,
            "--rounds" => options.rounds = number(value()?)?.max(1),
            "--writers-seconds" => options.writers_seconds = number(value()?)?.max(1) as u32,
            "--projects" => options.projects = number(value()?)?.max(200),
            "--interviews" => options.interviews = number(value()?)?.max(1000),
            // Within the default recording limit (50 MiB of audio).
            "--recording-mib" => options.recording_mib = number(value()?)?.clamp(1, 48),
            "--cores" => options.cores = Some(number(value()?)?.max(1)),
            "--only" => {
                let only = value()?;
                if !["load", "interviews", "recordings", "synthesis", "backends"].contains(&only.as_str()) {
                    return Err(format!("--only: load, interviews, recordings, synthesis or backends, not {only}\n{USAGE}"));
                }
                options.load = only == "load";
                options.interviews_part = only == "interviews";
                options.recordings_part = only == "recordings";
                options.synthesis_part = only == "synthesis";
                backends = only == "backends";
            }
            "-h" | "--help" => return Err(USAGE.into()),
            other => return Err(format!("unknown option {other}\n{USAGE}")),
        }
    }
    let sqld = sqld.or_else(|| Some(spin.with_file_name("sqld")).filter(|p| p.is_file()));
    options.backends_part = match (&sqld, backends) {
        (Some(sqld), true) => Some(sqld.clone()),
        (None, true) if !options.load && !options.interviews_part && !options.recordings_part && !options.synthesis_part => {
            return Err("--only backends needs sqld: --sqld PATH, SQLD, or sqld beside the spin binary".into())
        }
        _ => None,
    };
    options.libsql = match database.as_str() {
        "local" => None,
        "libsql" => {
            let sqld = sqld.ok_or("--database libsql needs sqld: --sqld PATH, SQLD, or sqld beside the spin binary")?;
            // The interviews and synthesis tables write their data sets into a local SQLite file.
            options.interviews_part = false;
            options.synthesis_part = false;
            Some(sqld)
        }
        other => return Err(format!("--database: local or libsql, not {other}\n{USAGE}")),
    };
    let test_host = Runtime { name: "test host", binary: host };
    let spin = Runtime { name: "spin", binary: spin };
    options.runtimes = match runtime.as_str() {
        "spin-host" => vec![test_host],
        "spin" => vec![spin],
        "both" => vec![test_host, spin],
        other => return Err(format!("unknown runtime {other}\n{USAGE}")),
    };
    Ok(options)
}

// ---------------------------------------------------------------------------
// Servers.

/// One app served by a runtime in its own process, with its own state
/// directory, without cron (the dispatcher's sweeps would add noise every few
/// seconds); stopped when dropped.
pub struct Server {
    process: RuntimeProcess,
    base: String,
    state: tempfile::TempDir,
}

impl Server {
    fn start(runtime: &Runtime, manifest: &Path, variables: &HashMap<String, String>) -> Server {
        Server::start_on(runtime, manifest, variables, None, None)
    }

    /// Like [`Server::start`], on a state directory whose `default` database
    /// is first a consistent copy of `database`, or with a runtime config file.
    fn start_on(
        runtime: &Runtime,
        manifest: &Path,
        variables: &HashMap<String, String>,
        database: Option<&Path>,
        runtime_config: Option<&Path>,
    ) -> Server {
        let state = tempfile::tempdir().unwrap();
        if let Some(database) = database {
            let copy = state.path().join("sqlite_db.db");
            // VACUUM INTO writes a rollback-journal database: the copy gets the
            // source's journal mode back (the app's is WAL), since what a
            // connection costs depends on it.
            rusqlite::Connection::open(database)
                .and_then(|source| {
                    source.execute("VACUUM INTO ?1", [copy.to_str().unwrap()])?;
                    let mode: String = source.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
                    rusqlite::Connection::open(&copy)?.query_row(&format!("PRAGMA journal_mode = {mode}"), [], |_| Ok(()))
                })
                .unwrap_or_else(|e| panic!("copying {}: {e}", database.display()));
        }
        let mut config = spin_host::HostConfig::new(manifest);
        config.state_dir = state.path().to_path_buf();
        config.variables = variables.clone();
        config.enable_cron = false;
        config.runtime_config_file = runtime_config.map(Path::to_path_buf);
        let process = RuntimeProcess::start_binary(&runtime.binary, &config);
        Server { base: process.base_url(), process, state }
    }

    /// The runtime's state directory (`sqlite_db.db`, `sqlite_key_value.db`).
    fn state_dir(&self) -> PathBuf {
        self.state.path().to_path_buf()
    }

    /// The runtime's process (the leader of its group).
    fn pid(&self) -> u32 {
        self.process.pid()
    }

    /// What the app logged as going wrong so far, the most frequent lines
    /// first (at most `top`, each cut to 240 characters): what a row's 5xx were.
    fn logged_errors(&self, top: usize) -> Vec<String> {
        let mut counts: HashMap<String, usize> = HashMap::new();
        for line in self.process.output().lines() {
            let lower = line.to_lowercase();
            if lower.contains("error") || lower.contains("gave up") || lower.contains("unavailable") {
                *counts.entry(line.chars().take(240).collect()).or_default() += 1;
            }
        }
        let mut lines: Vec<(String, usize)> = counts.into_iter().collect();
        lines.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        lines.into_iter().take(top).map(|(line, count)| format!("{count:>6}  {line}")).collect()
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
    // The bench starts many sessions and answers from one address: every budget is lifted.
    for limit in [
        "rate_limit_per_minute",
        "project_create_rate_limit_per_minute",
        "session_start_rate_limit_per_minute",
        "session_answer_rate_limit_per_minute",
        "session_transcription_rate_limit_per_minute",
        "recording_bytes_per_minute",
        "llm_daily_calls_per_project",
    ] {
        variables.insert(limit.into(), "100000000".into());
    }
    if options.libsql.is_some() {
        variables.insert("database_backend".into(), "libsql".into());
    }
    if let Some(most) = options.cores {
        let judged = options.runtimes.last().expect("a runtime");
        scale::cores(judged, &options, &variables, &partner_key, most);
        return;
    }
    if options.load {
        load::run(&options, &variables, &partner_key);
    }
    if options.interviews_part {
        let summaries: Vec<(&str, interviews::Summary)> = options
            .runtimes
            .iter()
            .map(|runtime| {
                let summary = interviews::run(&interviews::Options {
                    runtime,
                    manifest: &options.manifest,
                    variables: &variables,
                    partner_key: &partner_key,
                    interviews: options.interviews,
                });
                (runtime.name, summary)
            })
            .collect();
        if summaries.len() == 2 {
            interviews::compare(&summaries[0], &summaries[1]);
        }
    }
    if let Some(sqld) = &options.backends_part {
        backends::run(&backends::BackendsOptions { options: &options, sqld, variables: &variables, partner_key: &partner_key });
    }
    if options.synthesis_part {
        for runtime in &options.runtimes {
            synthesis::run(&synthesis::Options {
                runtime,
                manifest: &options.manifest,
                variables: &variables,
                partner_key: &partner_key,
            });
        }
    }
    if options.recordings_part {
        for runtime in &options.runtimes {
            recordings::run(&recordings::Options {
                runtime,
                manifest: &options.manifest,
                baseline: options.baseline_manifest.as_deref(),
                variables: &variables,
                partner_key: &partner_key,
                mib: options.recording_mib,
            });
        }
    }
}

fn verdict(met: bool) -> &'static str {
    if met {
        "met"
    } else {
        "MISSED"
    }
}
