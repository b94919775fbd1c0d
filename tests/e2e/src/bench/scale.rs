//! The bench's scale tables (docs/design-decisions.md, "Waiting for the
//! write lock"): what more requests in flight, more client addresses and more
//! cores do to the service. Every answer that is not a 2xx counts as a
//! failure here, 429s included, so that shedding load cannot pass a target.
//!
//! - [`concurrency`]: the authenticated read and the project write at 16, 64
//!   and 256 connections, under each runtime of the load table.
//! - [`many_addresses`]: the same read and write at the default limits, each
//!   request from an address of its own (`X-Forwarded-For` on an app that
//!   trusts it): every request counts in a fresh window row.
//! - [`cores`] (`--cores N`): the runtime pinned to 1, 2, 4 ... N cores with
//!   `taskset`, wrk on four others, hello-world, one `SELECT`, the read and
//!   the write at 64 connections, median of three rounds; the table a machine
//!   with 16 cores prints for the scale-up targets.

use super::load::{wrk, wrk_on, Goal, Run, Scenario, Target};
use super::{create_projects, create_tenant, median, project_body, verdict, Options, Runtime, Server, Tenant};
use reqwest::blocking::Client;
use std::collections::HashMap;
use std::path::PathBuf;

/// The connection counts of the concurrency table; the first is the reference.
const CONNECTIONS: [u32; 3] = [16, 64, 256];

fn auth(tenant: &Tenant) -> Vec<(String, String)> {
    vec![("X-Api-Key".to_string(), tenant.key.clone()), ("X-Tenant-Id".to_string(), tenant.id.clone())]
}

/// The authenticated read of one project and the project write, for `tenant`.
pub(super) fn read_and_write(tenant: &Tenant, project: &str) -> [Scenario; 2] {
    let scenario = |name: &str, goal, method, path: String, body: Option<String>, expect| Scenario {
        name: name.to_string(),
        target: Target::App,
        goal,
        method,
        path,
        headers: auth(tenant),
        body,
        expect,
        sessions_of: None,
        from_many_addresses: false,
    };
    [
        scenario("GET project (auth)", Goal::Read, "GET", format!("/v1/projects/{project}"), None, 200),
        scenario("POST project", Goal::Create, "POST", "/v1/projects".into(), Some(project_body(0).to_string()), 201),
    ]
}

fn failures(run: &Run) -> u64 {
    run.unexpected
}

/// A row's figures: requests a second, p50, p99 and their ratio, failures.
fn figures(run: &Run) -> String {
    format!(
        "{:>8.0} {:>8.2} {:>8.2} {:>6.1} {:>6}",
        run.rps,
        run.p50_ms,
        run.p99_ms,
        run.p99_ms / run.p50_ms.max(0.001),
        failures(run)
    )
}

/// The read and the write at 16, 64 and 256 connections against `base`,
/// `seconds` each, under `runtime`; printed with the two-core targets.
pub(super) fn concurrency(runtime: &str, base: &str, scenarios: &[Scenario; 2], seconds: u32) {
    println!();
    println!(
        "concurrency, {runtime}: {seconds} s per row; non-2xx (429 included) are failures; \
         targets on two cores: the read at 64 and 256 connections >= 0.9x its 16, p99 <= 10x p50"
    );
    println!("{:<22} {:>5} | {:>8} {:>8} {:>8} {:>6} {:>6} | {:>7} | target", "scenario", "conns", "req/s", "p50 ms", "p99 ms", "p99/50", "fail", "x at 16");
    for scenario in scenarios {
        let runs: Vec<Run> = CONNECTIONS.iter().map(|&connections| wrk(base, scenario, connections, seconds, false, &[])).collect();
        for (&connections, run) in CONNECTIONS.iter().zip(&runs) {
            let share = run.rps / runs[0].rps;
            let target = match (scenario.goal, connections) {
                (Goal::Read, 16) => format!("p99 <= 10x p50 ({})", verdict(run.p99_ms <= 10.0 * run.p50_ms && failures(run) == 0)),
                (Goal::Read, _) => format!(
                    ">= 0.9x at 16 ({}); p99 <= 10x p50 ({})",
                    verdict(share >= 0.9 && failures(run) == 0),
                    verdict(run.p99_ms <= 10.0 * run.p50_ms)
                ),
                _ => format!("no failure ({})", verdict(failures(run) == 0)),
            };
            println!("{:<22} {:>5} | {} | {:>7.2} | {target}", scenario.name, connections, figures(run), share);
        }
    }
}

/// 64 writers for `seconds`: no failure, p99 <= 5x p50.
pub(super) fn writers_line(runtime: &str, seconds: u32, run: &Run) -> String {
    format!(
        "64 writers, POST project, {seconds} s, {runtime}: {:.0} req/s, p50 {:.2} ms, p99 {:.2} ms; \
         no non-2xx ({}), p99 <= 5x p50 ({}): {} requests, {} non-2xx ({} of them 5xx)",
        run.rps,
        run.p50_ms,
        run.p99_ms,
        verdict(run.unexpected == 0),
        verdict(run.p99_ms <= 5.0 * run.p50_ms),
        run.requests,
        run.unexpected,
        run.server_errors,
    )
}

/// The read and the write from a new address each, on an app at the default
/// limits that trusts `X-Forwarded-For`, at 64 connections.
pub(super) fn many_addresses(runtime: &Runtime, options: &Options, variables: &HashMap<String, String>, partner_key: &str) {
    let mut variables = variables.clone();
    for limit in ["rate_limit_per_minute", "project_create_rate_limit_per_minute"] {
        variables.remove(limit);
    }
    variables.insert("trust_forwarded_for".into(), "true".into());
    let app = Server::start(runtime, &options.manifest, &variables);
    let client = Client::new();
    let tenant = create_tenant(&client, &app, partner_key);
    let project = create_projects(&app, &tenant, 1);
    println!();
    println!(
        "many client addresses, {}: the default limits (50 a minute per address, 10 project writes more), \
         each request from an address of its own; 64 connections, {} s; non-2xx are failures",
        runtime.name, options.seconds
    );
    for mut scenario in read_and_write(&tenant, &project) {
        scenario.from_many_addresses = true;
        let run = wrk(&app.base, &scenario, 64, options.seconds, false, &[]);
        println!("{:<22} | {} | no failure ({})", scenario.name, figures(&run), verdict(failures(&run) == 0));
    }
}

/// `--cores N`: the scale-up table (see the module docs).
pub(super) fn cores(runtime: &Runtime, options: &Options, variables: &HashMap<String, String>, partner_key: &str, most: usize) {
    let available = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(most + 4 <= available, "--cores {most} needs {} cores: the runtime's and four for wrk ({available} here)", most + 4);
    let load_cpus = format!("{most}-{}", most + 3);
    let counts: Vec<usize> = [1, 2, 4, 8, 12, 16, 24, 32].into_iter().filter(|&n| n < most).chain([most]).collect();
    let root = e2e::workspace_root();
    let none = HashMap::new();
    println!(
        "cores: {}, pinned to 1..{most} cores with taskset, wrk -c64 on cores {load_cpus}; {} s per row, \
         medians of {} rounds; req/s (p99 ms); non-2xx are failures",
        runtime.name, options.seconds, options.rounds
    );
    println!("{:>5} | {:>18} | {:>18} | {:>18} | {:>18} | fail", "cores", "hello-world", "one SELECT", "GET project (auth)", "POST project");
    let mut table: Vec<(usize, [Run; 4])> = Vec::new();
    for &count in &counts {
        let pinned = pinned_runtime(runtime, count);
        let hello = Server::start(&pinned, &root.join("tests/fixtures/bench-hello/spin.toml"), &none);
        let select = Server::start(&pinned, &root.join("tests/fixtures/bench-select/spin.toml"), &none);
        let app = Server::start(&pinned, &options.manifest, variables);
        let client = Client::new();
        let tenant = create_tenant(&client, &app, partner_key);
        let project = create_projects(&app, &tenant, 1);
        let _ = client.get(format!("{}/?id=1", select.base)).send();
        let [read, write] = read_and_write(&tenant, &project);
        let anchor = |name: &str, path: &str| Scenario {
            name: name.into(),
            target: Target::Hello,
            goal: Goal::None,
            method: "GET",
            path: path.into(),
            headers: Vec::new(),
            body: None,
            expect: 200,
            sessions_of: None,
            from_many_addresses: false,
        };
        let rows = [(&hello.base, anchor("hello", "/")), (&select.base, anchor("one-select", "/?id=500")), (&app.base, read), (&app.base, write)];
        let mut rounds: Vec<[Run; 4]> = Vec::new();
        for _ in 0..options.rounds {
            rounds.push(rows.each_ref().map(|(base, scenario)| wrk_on(Some(&load_cpus), base, scenario, 64, options.seconds, false, &[])));
        }
        let medians: [Run; 4] = std::array::from_fn(|k| {
            let rps = median(rounds.iter().map(|r| r[k].rps).collect());
            // The round whose rate is the median, for its latencies.
            *rounds.iter().map(|r| &r[k]).min_by(|a, b| (a.rps - rps).abs().total_cmp(&(b.rps - rps).abs())).unwrap()
        });
        let fails: u64 = rounds.iter().flatten().map(failures).sum();
        let cell = |run: &Run| format!("{:>8.0} ({:>6.1})", run.rps, run.p99_ms);
        println!("{count:>5} | {:>18} | {:>18} | {:>18} | {:>18} | {fails}", cell(&medians[0]), cell(&medians[1]), cell(&medians[2]), cell(&medians[3]));
        table.push((count, medians));
    }
    print_cores_targets(&table);
}

/// The scale-up targets over the table's rows (their wording in the docs).
fn print_cores_targets(table: &[(usize, [Run; 4])]) {
    let (first, last) = (&table[0].1, &table[table.len() - 1].1);
    let at = |cores: usize| table.iter().find(|(n, _)| *n == cores).map(|(_, runs)| runs);
    let largest = table.last().map_or(0, |(n, _)| *n);
    let reference = at(12).unwrap_or(last);
    println!(
        "GET project at {} cores >= 0.5x one SELECT: {:.2} ({}); >= 2x its 1-core figure: {:.2} ({}); \
         POST project at {largest} cores >= 2x its 1-core figure: {:.2} ({})",
        if at(12).is_some() { 12 } else { largest },
        reference[2].rps / reference[1].rps,
        verdict(reference[2].rps >= 0.5 * reference[1].rps),
        reference[2].rps / first[2].rps,
        verdict(reference[2].rps >= 2.0 * first[2].rps),
        last[3].rps / first[3].rps,
        verdict(last[3].rps >= 2.0 * first[3].rps),
    );
    let mut monotone = true;
    let mut tail = true;
    for pair in table.windows(2) {
        for k in [2, 3] {
            monotone &= pair[1].1[k].rps >= 0.9 * pair[0].1[k].rps;
        }
    }
    for (_, runs) in table {
        for run in &runs[2..] {
            tail &= run.p99_ms <= 5.0 * run.p50_ms;
        }
    }
    println!(
        "every app row >= 0.9x the row below it ({}); p99 <= 5x p50 in every app row ({})",
        verdict(monotone),
        verdict(tail)
    );
}

/// `runtime`, started through `taskset` on cores 0..count.
fn pinned_runtime(runtime: &Runtime, count: usize) -> Runtime {
    let dir = std::env::temp_dir().join(format!("bench-pinned-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wrapper: PathBuf = dir.join(format!("runtime-on-{count}-cores"));
    let script = format!("#!/bin/sh\nexec taskset -c 0-{} '{}' \"$@\"\n", count - 1, runtime.binary.display());
    std::fs::write(&wrapper, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    Runtime { name: runtime.name, binary: wrapper }
}
