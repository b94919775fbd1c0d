//! The recordings part of `make bench` (issue 23): what storing and serving an
//! interview's recording costs, as the interview page and a tenant meet it.
//! Over real HTTP, one request at a time on one keep-alive connection, each
//! round a new talking-mode session:
//! - upload: `--recording-mib` chunks of 1 MiB (incompressible bytes), each a
//!   `PUT .../recordings/audio/{index}` in order, as the page sends them:
//!   MiB/s over the whole recording, and the p50 and p99 of one chunk;
//! - export: `GET /v1/interviews/{id}/audio-export` read to its last byte (and
//!   checked byte for byte against what was uploaded): MiB/s.
//!
//! Recording chunks are sealed with the interview's key before they are
//! stored and opened when they are served (docs/interviews.md, "Erasure"), so
//! this is where that cost shows. `--baseline-manifest` names another build of
//! the app (a `spin.toml` whose sources are that build's components, e.g. one
//! from before sealing): both are served side by side and measured in
//! alternate rounds, so that a busy moment of the machine hits both alike, and
//! the table gives this build's figures as a share of the baseline's (target:
//! within 10 %). Figures are printed, never asserted.

use super::{create_tenant, median, Runtime, Server, Tenant};
use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::io::Read as _;
use std::path::Path;
use std::time::{Duration, Instant};

/// Sessions recorded, each uploaded and exported once; the table shows medians.
const ROUNDS: usize = 7;
const MIB: usize = 1 << 20;
/// The largest chunk an upload may carry at the default `blob_chunk_bytes`
/// (docs/sessions.md).
const CHUNK: usize = sessions_core::recordings::DEFAULT_MAX_CHUNK_BYTES;

pub struct Options<'a> {
    pub runtime: &'a Runtime,
    pub manifest: &'a Path,
    /// Another build to compare with, measured in the same rounds.
    pub baseline: Option<&'a Path>,
    pub variables: &'a HashMap<String, String>,
    pub partner_key: &'a str,
    /// Size of each recording, in MiB (chunks of 1 MiB).
    pub mib: usize,
}

/// One build of the app, served, with a tenant and a talking-mode project.
struct Build {
    manifest: String,
    app: Server,
    tenant: Tenant,
    project: String,
    runs: Vec<RoundRun>,
}

/// One session's recording: sent, then read back.
struct RoundRun {
    upload: Duration,
    chunk_ms: Vec<f64>,
    export: Duration,
    /// The export answered 200 with exactly the uploaded bytes.
    intact: bool,
}

/// Deterministic bytes that do not compress (xorshift), different per round.
fn recording(len: usize, seed: u32) -> Vec<u8> {
    let mut state = 0x9E37_79B9u32 ^ seed.wrapping_mul(0x85EB_CA6B);
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8
        })
        .collect()
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let rank = ((p * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1]
}

fn auth(request: reqwest::blocking::RequestBuilder, tenant: &Tenant) -> reqwest::blocking::RequestBuilder {
    request.header("X-Api-Key", &tenant.key).header("X-Tenant-Id", &tenant.id)
}

/// An active talking-mode project of the tenant.
fn talking_project(client: &Client, app: &Server, tenant: &Tenant) -> String {
    let body = json!({
        "project_name": "Bench recordings",
        "project_objective": "Understand why shoppers abandon the checkout on mobile devices",
        "research_questions": "Why do shoppers leave the checkout? What would make them finish?",
        "success_criteria": "Three validated reasons for abandonment with supporting quotes",
        "recruiting_criteria": "Online shoppers aged 25-45 who bought on mobile in the last month",
        "interview_modes": ["talking"],
    });
    let response = auth(client.post(format!("{}/v1/projects", app.base)), tenant).json(&body).send().unwrap();
    assert_eq!(response.status(), 201, "creating the recordings project");
    let project: Value = response.json().unwrap();
    let id = project["project_id"].as_str().unwrap().to_string();
    let response = auth(client.post(format!("{}/v1/projects/{id}/activate", app.base)), tenant).send().unwrap();
    assert_eq!(response.status(), 200, "activating the recordings project");
    id
}

fn round(client: &Client, app: &Server, tenant: &Tenant, project: &str, bytes: &[u8]) -> RoundRun {
    let response = client
        .post(format!("{}/v1/sessions", app.base))
        .json(&json!({"project_id": project, "mode": "talking"}))
        .send()
        .unwrap();
    assert_eq!(response.status(), 201, "starting a session");
    let session: Value = response.json().unwrap();
    let interview = session["interview_id"].as_str().unwrap().to_string();
    let token = session["session_token"].as_str().unwrap().to_string();

    let mut chunk_ms = Vec::new();
    let started = Instant::now();
    for (index, chunk) in bytes.chunks(CHUNK).enumerate() {
        let sent = Instant::now();
        let response = client
            .put(format!("{}/v1/sessions/{interview}/recordings/audio/{index}", app.base))
            .bearer_auth(&token)
            .header("Content-Type", "audio/webm;codecs=opus")
            .body(chunk.to_vec())
            .send()
            .unwrap();
        let status = response.status();
        if status != 200 {
            let body = response.text().unwrap_or_default();
            panic!("uploading chunk {index}: {status} {body}\nthe runtime's last lines:\n{}", app.process.output_tail(40));
        }
        chunk_ms.push(sent.elapsed().as_secs_f64() * 1000.0);
    }
    let upload = started.elapsed();

    let started = Instant::now();
    let mut response = auth(client.get(format!("{}/v1/interviews/{interview}/audio-export", app.base)), tenant).send().unwrap();
    let status = response.status();
    let mut received = Vec::with_capacity(bytes.len());
    response.read_to_end(&mut received).unwrap();
    let export = started.elapsed();
    RoundRun { upload, chunk_ms, export, intact: status == 200 && received == bytes }
}

/// Figures of a build's runs: (upload MiB/s per run, export MiB/s per run, chunk times sorted).
fn figures(runs: &[RoundRun], mib: f64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let rate = |time: Duration| mib / time.as_secs_f64().max(1e-9);
    let mut chunks: Vec<f64> = runs.iter().flat_map(|r| r.chunk_ms.iter().copied()).collect();
    chunks.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (runs.iter().map(|r| rate(r.upload)).collect(), runs.iter().map(|r| rate(r.export)).collect(), chunks)
}

/// Runs the rounds under one runtime and prints its table.
pub fn run(options: &Options) {
    let client = Client::builder().timeout(Duration::from_secs(600)).build().unwrap();
    let manifests: Vec<&Path> = options.baseline.into_iter().chain([options.manifest]).collect();
    let mut builds: Vec<Build> = manifests
        .iter()
        .map(|manifest| {
            eprintln!("bench: recordings: starting {} under the {}", manifest.display(), options.runtime.name);
            let app = Server::start(options.runtime, manifest, options.variables);
            let tenant = create_tenant(&client, &app, options.partner_key);
            let project = talking_project(&client, &app, &tenant);
            // One unmeasured round: the first requests compile and warm the components.
            let _ = round(&client, &app, &tenant, &project, &recording(CHUNK, 0));
            Build { manifest: manifest.display().to_string(), app, tenant, project, runs: Vec::new() }
        })
        .collect();
    let size = options.mib * MIB;
    for n in 1..=ROUNDS {
        eprintln!("bench: recordings: round {n} of {ROUNDS}");
        let bytes = recording(size, n as u32);
        for build in builds.iter_mut() {
            let run = round(&client, &build.app, &build.tenant, &build.project, &bytes);
            build.runs.push(run);
        }
    }

    let mib = size as f64 / MIB as f64;
    let spread = |rates: &[f64]| {
        let (low, high) = rates.iter().fold((f64::MAX, 0f64), |(l, h), r| (l.min(*r), h.max(*r)));
        format!("{low:.1}-{high:.1}")
    };
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let load_average = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!();
    println!(
        "recordings: runtime {}; {cores} cores (load average {} after); {ROUNDS} rounds of one session per build, \
         each a {mib:.0} MiB audio recording in chunks of 1 MiB, one request at a time; medians (and the runs' range)",
        options.runtime.name,
        load_average.split_whitespace().take(3).collect::<Vec<_>>().join(" "),
    );
    println!(
        "{:<34} {:>9} {:>13} {:>12} {:>12} {:>10}  build",
        "figure", "MiB/s", "(runs)", "chunk p50 ms", "chunk p99 ms", "x baseline"
    );
    // Per round, this build's rate over the baseline's, then the median of those.
    let baseline = options.baseline.map(|_| figures(&builds[0].runs, mib));
    for build in &builds {
        let (uploads, exports, chunks) = figures(&build.runs, mib);
        let share = |mine: &[f64], theirs: Option<&Vec<f64>>| match theirs {
            Some(theirs) if options.baseline.is_some() => {
                format!("{:.2}", median(mine.iter().zip(theirs).map(|(a, b)| a / b).collect()))
            }
            _ => "-".to_string(),
        };
        let intact = build.runs.iter().all(|r| r.intact);
        println!(
            "{:<34} {:>9.1} {:>13} {:>12.2} {:>12.2} {:>10}  {}",
            "upload (PUT chunk by chunk)",
            median(uploads.clone()),
            spread(&uploads),
            percentile(&chunks, 0.5),
            percentile(&chunks, 0.99),
            share(&uploads, baseline.as_ref().map(|b| &b.0)),
            build.manifest
        );
        println!(
            "{:<34} {:>9.1} {:>13} {:>12} {:>12} {:>10}  {} (the bytes uploaded, every run: {})",
            "audio-export (to the last byte)",
            median(exports.clone()),
            spread(&exports),
            "",
            "",
            share(&exports, baseline.as_ref().map(|b| &b.1)),
            build.manifest,
            if intact { "yes" } else { "WRONG" }
        );
    }
    match options.baseline {
        Some(_) => println!("target: within 10 % of the baseline (x baseline >= 0.90), each figure"),
        None => println!("target: sealed chunks within 10 % of unsealed ones: run with --baseline-manifest <a build without sealing>"),
    }
}
