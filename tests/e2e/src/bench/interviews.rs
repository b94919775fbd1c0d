//! The interviews part of `make bench` (issue 10): a tenant with a large and a
//! small project (`--interviews N` and N/10 interviews, see `dataset.rs`), then
//! over real HTTP, with the tenant's credentials, one request at a time on one
//! keep-alive connection:
//! - a two-key metadata filter with `project_id`: median and p99 (target: median < 10 ms);
//! - a page of 100 of the large project, and the page after it (its cursor);
//! - both CSV exports of each project, each run five times, interleaved (the
//!   table shows medians): time to last byte (target < 5 s for the large one),
//!   the rows (every run must have all of them) and the host's memory while it
//!   streams (target: the large export's within 10 % of the small one's, or
//!   inside the range of the small one's runs: repeated runs of one export
//!   differ by more than 10 % of a few MiB, as the table shows).
//!
//! The header line gives the cores and the load average: the machine may be
//! shared, and the reference row (an authenticated GET that reads nothing)
//! shows what a request costs at that moment.
//!
//! Memory is the host's own: the app runs in a separate process (the runtime's
//! `up`, in its own process group: with spin-host that one process), and a
//! thread reads `/proc/<pid>/status` (`VmRSS`, summed over the group) every
//! 2 ms while the export streams. The figure is the peak minus the RSS read just before the
//! request. Where the kernel allows it, the process's high-water mark is also
//! reset (`/proc/<pid>/clear_refs`, `5`) before the request and `VmHWM` read
//! after it, which catches a peak between two samples. Figures are printed,
//! never asserted.

use super::dataset::{self, Generated, Spec};
use super::{create_projects, create_tenant, median, verdict, Runtime, Server, Tenant};
use reqwest::blocking::Client;
use serde_json::Value;
use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Requests per latency figure (after a few unmeasured ones).
const SAMPLES: usize = 200;
const WARMUP: usize = 10;
/// Each export runs this many times, interleaved; the table shows medians.
const EXPORT_ROUNDS: usize = 5;

pub struct Options<'a> {
    pub runtime: &'a Runtime,
    pub manifest: &'a Path,
    pub variables: &'a HashMap<String, String>,
    pub partner_key: &'a str,
    /// Interviews of the large project; the small one gets a tenth.
    pub interviews: usize,
}

/// Latencies of one repeated request.
struct Latencies {
    p50_ms: f64,
    p99_ms: f64,
    /// Items of the (last) answer.
    rows: usize,
    errors: usize,
}

struct ExportRun {
    status: u16,
    first_byte: Duration,
    last_byte: Duration,
    bytes: u64,
    /// CSV records after the header.
    rows: u64,
    rss_before_kib: u64,
    /// Sampled peak minus the RSS before.
    rss_growth_kib: u64,
    /// VmHWM after the request minus the RSS before, when the mark could be reset.
    hwm_growth_kib: Option<u64>,
    samples: u64,
}

fn auth(request: reqwest::blocking::RequestBuilder, tenant: &Tenant) -> reqwest::blocking::RequestBuilder {
    request.header("X-Api-Key", &tenant.key).header("X-Tenant-Id", &tenant.id)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

/// `SAMPLES` rounds of sequential GETs, one of each url per round (so that a
/// busy moment of the machine hits every url alike), after `WARMUP` unmeasured
/// rounds; each answer must be a 200 with JSON.
fn latencies(client: &Client, tenant: &Tenant, urls: &[&str]) -> Vec<Latencies> {
    let mut times = vec![Vec::with_capacity(SAMPLES); urls.len()];
    let mut rows = vec![0; urls.len()];
    let mut errors = vec![0; urls.len()];
    for round in 0..WARMUP + SAMPLES {
        for (i, url) in urls.iter().enumerate() {
            let started = Instant::now();
            let response = auth(client.get(*url), tenant).send().unwrap();
            let status = response.status();
            let body = response.bytes().unwrap();
            let elapsed = started.elapsed();
            if round < WARMUP {
                continue;
            }
            times[i].push(elapsed.as_secs_f64() * 1000.0);
            match serde_json::from_slice::<Value>(&body).ok().filter(|_| status == 200) {
                Some(value) => rows[i] = value["data"].as_array().map_or(0, Vec::len),
                None => errors[i] += 1,
            }
        }
    }
    times
        .iter_mut()
        .zip(rows.into_iter().zip(errors))
        .map(|(times, (rows, errors))| {
            times.sort_by(|a, b| a.partial_cmp(b).unwrap());
            Latencies { p50_ms: percentile(times, 0.5), p99_ms: percentile(times, 0.99), rows, errors }
        })
        .collect()
}

fn get_json(client: &Client, tenant: &Tenant, url: &str) -> Value {
    let response = auth(client.get(url), tenant).send().unwrap();
    assert_eq!(response.status(), 200, "GET {url}");
    response.json().unwrap()
}

/// `VmRSS` or `VmHWM` of a process, in KiB.
fn status_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The processes of the runtime's process group (the server runs in its own):
/// spin-host is one process; `spin up` may run its trigger as a child.
pub(crate) fn group_pids(leader: u32) -> Vec<u32> {
    let mut pids = vec![leader];
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        // After the command name: state, ppid, pgrp.
        let pgrp = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(2)?.parse::<u32>().ok());
        if pid != leader && pgrp == Some(leader) {
            pids.push(pid);
        }
    }
    pids
}

/// The summed field of the processes, in KiB.
pub(crate) fn group_kib(pids: &[u32], field: &str) -> Option<u64> {
    pids.iter().map(|pid| status_kib(*pid, field)).sum()
}

/// Counts CSV records (RFC 4180: a line break inside quotes is not a record end).
#[derive(Default)]
struct RecordCounter {
    in_quotes: bool,
    records: u64,
}

impl RecordCounter {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            match b {
                b'"' => self.in_quotes = !self.in_quotes,
                b'\n' if !self.in_quotes => self.records += 1,
                _ => {}
            }
        }
    }
}

/// One export, read to its end while a thread samples the host's RSS.
fn export(client: &Client, tenant: &Tenant, host_pid: u32, url: &str) -> ExportRun {
    // Let the previous request's memory settle, then take the baseline.
    std::thread::sleep(Duration::from_millis(300));
    let pids = group_pids(host_pid);
    let hwm_reset = pids.iter().all(|pid| std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok());
    let before = group_kib(&pids, "VmRSS:").expect("the host's /proc status");
    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(before));
    let samples = Arc::new(AtomicU64::new(0));
    let sampler = {
        let (stop, peak, samples, pids) = (stop.clone(), peak.clone(), samples.clone(), pids.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Some(rss) = group_kib(&pids, "VmRSS:") {
                    peak.fetch_max(rss, Ordering::Relaxed);
                    samples.fetch_add(1, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let started = Instant::now();
    let mut response = auth(client.get(url), tenant).send().unwrap();
    let status = response.status().as_u16();
    let mut buffer = vec![0u8; 256 << 10];
    let (mut bytes, mut first_byte) = (0u64, None);
    let mut counter = RecordCounter::default();
    loop {
        let n = response.read(&mut buffer).unwrap();
        if n == 0 {
            break;
        }
        first_byte.get_or_insert_with(|| started.elapsed());
        bytes += n as u64;
        counter.feed(&buffer[..n]);
    }
    let last_byte = started.elapsed();
    // A last sample after the end, so a short export still gets one.
    std::thread::sleep(Duration::from_millis(20));
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let hwm = if hwm_reset { group_kib(&pids, "VmHWM:") } else { None };
    ExportRun {
        status,
        first_byte: first_byte.unwrap_or(last_byte),
        last_byte,
        bytes,
        rows: counter.records.saturating_sub(1),
        rss_before_kib: before,
        rss_growth_kib: peak.load(Ordering::Relaxed).saturating_sub(before),
        hwm_growth_kib: hwm.map(|h| h.saturating_sub(before)),
        samples: samples.load(Ordering::Relaxed),
    }
}

/// CPU time so far, in clock ticks: the whole machine's busy time, the host's and this process's.
#[derive(Clone, Copy)]
struct Cpu {
    at: Instant,
    machine: u64,
    host: u64,
    driver: u64,
}

fn process_ticks(pid: &str) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    let fields: Vec<&str> = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace().collect();
    fields.get(11..13).map_or(0, |f| f.iter().filter_map(|v| v.parse::<u64>().ok()).sum())
}

fn cpu(host_pid: u32) -> Cpu {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<u64> = stat.lines().next().unwrap_or("").split_whitespace().skip(1).filter_map(|v| v.parse().ok()).collect();
    // user nice system idle iowait irq softirq steal: busy is all but idle and iowait.
    let busy = ticks.iter().take(8).sum::<u64>() - ticks.get(3).copied().unwrap_or(0) - ticks.get(4).copied().unwrap_or(0);
    // The whole group, as for memory: under Spin the leader is `spin up`, and
    // a child (`spin trigger http`) serves.
    let host = group_pids(host_pid).iter().map(|pid| process_ticks(&pid.to_string())).sum();
    Cpu { at: Instant::now(), machine: busy, host, driver: process_ticks("self") }
}

/// Cores kept busy between two snapshots: (by other processes, by the host, by this driver).
fn cores_busy(from: Cpu, to: Cpu) -> (f64, f64, f64) {
    let seconds = to.at.duration_since(from.at).as_secs_f64().max(1e-3);
    // Linux reports these in USER_HZ (100 per second).
    let cores = |ticks: u64| ticks as f64 / 100.0 / seconds;
    let (machine, host, driver) = (to.machine - from.machine, to.host - from.host, to.driver - from.driver);
    (cores(machine.saturating_sub(host + driver)), cores(host), cores(driver))
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The figures the runtimes are compared by, each as a multiple of the
/// runtime's own reference request (an authenticated GET that reads nothing).
pub struct Summary {
    reference_ms: f64,
    rows: Vec<(String, f64)>,
}

/// One line per figure: each runtime's time, as a multiple of its reference,
/// and the test host's multiple over Spin's (flagged when off by over 25 %).
pub fn compare((host_name, host): &(&str, Summary), (spin_name, spin): &(&str, Summary)) {
    println!();
    println!(
        "interviews, side by side: p50 or median time as a multiple of the runtime's own reference request \
         ({host_name} {:.2} ms, {spin_name} {:.2} ms)",
        host.reference_ms, spin.reference_ms
    );
    println!("{:<46} {:>12} {:>12} {:>10}", "figure", host_name, spin_name, "host/spin");
    for ((name, a), (_, b)) in host.rows.iter().zip(&spin.rows) {
        let ratio = (a / host.reference_ms) / (b / spin.reference_ms);
        let flag = if (ratio - 1.0).abs() > 0.25 { " OFF" } else { "" };
        println!("{name:<46} {:>12.1} {:>12.1} {ratio:>10.2}{flag}", a / host.reference_ms, b / spin.reference_ms);
    }
}

pub fn run(options: &Options) -> Summary {
    let large = options.interviews;
    let small = (large / 10).max(1);
    eprintln!("bench: interviews: starting the app under the {}", options.runtime.name);
    let app = Server::start(options.runtime, options.manifest, options.variables);
    let client = Client::builder().timeout(Duration::from_secs(600)).build().unwrap();
    let tenant = create_tenant(&client, &app, options.partner_key);
    let large_project = create_projects(&app, &tenant, 1);
    let small_project = create_projects(&app, &tenant, 1);
    for project in [&large_project, &small_project] {
        let response = auth(client.post(format!("{}/v1/projects/{project}/activate", app.base)), &tenant).send().unwrap();
        assert_eq!(response.status(), 200, "activating a project");
    }
    // The schema exists now (the requests above migrated the database).
    let db = app.state_dir().join("sqlite_db.db");
    eprintln!("bench: interviews: writing {large} + {small} interviews into the app's SQLite file");
    let spec = Spec { tenant_id: &tenant.id, large_project: &large_project, large, small_project: &small_project, small };
    let generated: Generated = dataset::generate(&db, &spec).unwrap_or_else(|e| panic!("generating the dataset: {e}"));
    eprintln!(
        "bench: interviews: {} turns, {} metadata rows, {:.0} MiB in {:.0} s",
        generated.turns,
        generated.metadata_rows,
        generated.file_bytes as f64 / (1 << 20) as f64,
        generated.elapsed.as_secs_f64()
    );

    let base = format!("{}/v1", app.base);
    eprintln!("bench: interviews: list requests");
    let load_average = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let host_pid = app.pid();
    let list_cpu = cpu(host_pid);
    let filter_url = format!(
        "{base}/interviews?project_id={large_project}&external_metadata%5Bcohort%5D={}&external_metadata%5Bplan%5D={}",
        dataset::FILTER_COHORT,
        dataset::FILTER_PLAN
    );
    let filter_body = get_json(&client, &tenant, &filter_url);
    let filter_ok = filter_body["data"].as_array().is_some_and(|items| {
        items.len() == generated.filter_matches && items.iter().all(|i| i["project_id"] == large_project.as_str())
    });
    let page_url = format!("{base}/interviews?project_id={large_project}&limit=100");
    let first = get_json(&client, &tenant, &page_url);
    let cursor = first["next_cursor"].as_str().expect("a next_cursor").to_string();
    let next_url = format!("{page_url}&cursor={cursor}");
    let second = get_json(&client, &tenant, &next_url);
    // The fixed cost of an authenticated request on this database, for reference.
    let reference_url = format!("{base}/webhooks/event-types");
    let measured = latencies(&client, &tenant, &[&reference_url, &filter_url, &page_url, &next_url]);
    let [reference, filter, page, next] = <[Latencies; 4]>::try_from(measured).ok().unwrap();
    let ids = |page: &Value| -> Vec<String> {
        page["data"].as_array().unwrap().iter().map(|i| i["interview_id"].as_str().unwrap().to_string()).collect()
    };
    let (first_ids, second_ids) = (ids(&first), ids(&second));
    let pages_ok = first_ids.len() == 100
        && second_ids.len() == 100
        && !second_ids.iter().any(|id| first_ids.contains(id))
        && first["data"][99]["created_at"].as_str() >= second["data"][0]["created_at"].as_str();

    let lists_busy = cores_busy(list_cpu, cpu(host_pid));
    eprintln!("bench: interviews: exports");
    let export_cpu = cpu(host_pid);
    let export_url = |project: &str, kind: &str| format!("{base}/projects/{project}/{kind}-export");
    // One unmeasured export first: the host's first streamed answer grows its
    // own buffers and allocator arenas once; measured runs then compare alike.
    let _ = export(&client, &tenant, host_pid, &export_url(&small_project, "interviewees"));
    let mut exports: Vec<(&str, usize, Vec<ExportRun>)> = Vec::new();
    for kind in ["interviews", "interviewees"] {
        for count in [small, large] {
            exports.push((kind, count, Vec::new()));
        }
    }
    for round in 1..=EXPORT_ROUNDS {
        eprintln!("bench: interviews: exports, round {round} of {EXPORT_ROUNDS}");
        for (kind, count, runs) in exports.iter_mut() {
            let project = if *count == large { &large_project } else { &small_project };
            runs.push(export(&client, &tenant, host_pid, &export_url(project, kind)));
        }
    }

    let exports_busy = cores_busy(export_cpu, cpu(host_pid));
    // The table.
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    println!();
    println!(
        "interviews: one tenant, {large} + {small} interviews ({} turns, ~{} transcript chars each, 5 metadata keys), \
         SQLite {:.0} MiB, written in {:.0} s (flush {:.0} s)",
        generated.turns,
        generated.transcript_chars,
        generated.file_bytes as f64 / (1 << 20) as f64,
        generated.elapsed.as_secs_f64(),
        generated.flush.as_secs_f64(),
    );
    println!(
        "runtime: {}; {cores} cores (load average {} before); one keep-alive connection, one request at a time; \
         {SAMPLES} rounds of one request per row, after {WARMUP} unmeasured; + ref = p50 minus the reference's",
        options.runtime.name,
        load_average.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    );
    let busy = |(others, host, driver): (f64, f64, f64)| {
        format!("{others:.2} cores busy with other processes (host {host:.2}, driver {driver:.2})")
    };
    println!("while the lists ran: {}", busy(lists_busy));
    println!(
        "{:<46} {:>8} {:>8} {:>8} {:>6} {:>6}  target",
        "list scenario", "p50 ms", "+ ref ms", "p99 ms", "rows", "errors"
    );
    let row = |name: &str, l: &Latencies, target: String| {
        println!(
            "{:<46} {:>8.2} {:>8.2} {:>8.2} {:>6} {:>6}  {}",
            name,
            l.p50_ms,
            l.p50_ms - reference.p50_ms,
            l.p99_ms,
            l.rows,
            l.errors,
            target
        );
    };
    row("GET event-types (auth), same app", &reference, "reference: a request's fixed cost".into());
    row(
        &format!("filter cohort+plan+project_id, in {large}"),
        &filter,
        format!(
            "median < 10 ms ({}); {} matches expected ({})",
            verdict(filter.p50_ms < 10.0),
            generated.filter_matches,
            if filter_ok { "found" } else { "WRONG" }
        ),
    );
    row(&format!("page of 100, project of {large}"), &page, String::new());
    row(
        "next page (its cursor)",
        &next,
        format!("pages of 100, disjoint, in order ({})", if pages_ok { "yes" } else { "WRONG" }),
    );
    println!();
    println!("exports: {EXPORT_ROUNDS} runs each, interleaved; medians (rows: every run); {}", busy(exports_busy));
    println!(
        "{:<30} {:>6} {:>7} {:>6} {:>7} {:>6} {:>7} {:>9} {:>9} {:>8}  target",
        "export", "status", "rows", "MiB", "1st b s", "last s", "RSS MiB", "+peak MiB", "(runs)", "+HWM MiB"
    );
    let med = |runs: &[ExportRun], field: fn(&ExportRun) -> f64| median(runs.iter().map(field).collect());
    let runs_of = |kind: &str, count: usize| {
        exports.iter().find(|(k, c, _)| *k == kind && *c == count).map_or(&[][..], |(_, _, runs)| runs.as_slice())
    };
    let growth = |kind: &str, count: usize| med(runs_of(kind, count), |r| r.rss_growth_kib as f64);
    for (kind, count, runs) in &exports {
        let rows_ok = runs.iter().all(|r| r.rows == *count as u64 && r.status == 200);
        let last_byte = med(runs, |r| r.last_byte.as_secs_f64());
        let target = if *count == large {
            let (big, little) = (growth(kind, large), growth(kind, small));
            let ratio = if little > 0.0 { big / little } else { f64::INFINITY };
            let small_runs = runs_of(kind, small).iter().map(|r| r.rss_growth_kib as f64);
            let (low, high) = small_runs.fold((f64::MAX, 0f64), |(l, h), g| (l.min(g), h.max(g)));
            let within = (big - little).abs() <= 0.10 * little || (low..=high).contains(&big);
            format!(
                "< 5 s ({}); memory as {small}'s (within 10 % or its runs' range): x{ratio:.2}, {:+.1} MiB ({}); rows ({})",
                verdict(last_byte < 5.0),
                (big - little) / 1024.0,
                verdict(within),
                if rows_ok { "all" } else { "WRONG" }
            )
        } else {
            format!("rows ({})", if rows_ok { "all" } else { "WRONG" })
        };
        let hwm = if runs.iter().all(|r| r.hwm_growth_kib.is_some()) {
            format!("{:.1}", mib(med(runs, |r| r.hwm_growth_kib.unwrap_or(0) as f64) as u64))
        } else {
            "-".to_string()
        };
        let spread = |field: fn(&ExportRun) -> u64| {
            let (low, high) = (runs.iter().map(field).min().unwrap_or(0), runs.iter().map(field).max().unwrap_or(0));
            format!("{:.1}-{:.1}", mib(low), mib(high))
        };
        println!(
            "{:<30} {:>6} {:>7} {:>6.1} {:>7.3} {:>6.2} {:>7.1} {:>9.1} {:>9} {:>8}  {}",
            format!("{kind}-export, {count}"),
            runs[0].status,
            runs[0].rows,
            runs[0].bytes as f64 / (1 << 20) as f64,
            med(runs, |r| r.first_byte.as_secs_f64()),
            last_byte,
            mib(med(runs, |r| r.rss_before_kib as f64) as u64),
            mib(med(runs, |r| r.rss_growth_kib as f64) as u64),
            spread(|r| r.rss_growth_kib),
            hwm,
            target
        );
    }
    println!(
        "memory: the host process's VmRSS (/proc/<pid>/status), sampled every 2 ms while the export streams \
         ({} samples in the longest run); +peak = peak - RSS just before the request (median, and the runs' \
         range); +HWM = VmHWM after the request (reset before it) - that RSS",
        exports.iter().flat_map(|(_, _, runs)| runs.iter().map(|r| r.samples)).max().unwrap_or(0)
    );
    let mut rows = vec![
        (format!("filter cohort+plan+project_id, in {large}"), filter.p50_ms),
        (format!("page of 100, project of {large}"), page.p50_ms),
    ];
    for (kind, count, runs) in &exports {
        rows.push((format!("{kind}-export, {count}, to the last byte"), 1000.0 * med(runs, |r| r.last_byte.as_secs_f64())));
    }
    Summary { reference_ms: reference.p50_ms, rows }
}
