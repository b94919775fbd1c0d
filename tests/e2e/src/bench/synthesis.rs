//! The synthesis part of `make bench` (docs/synthesis.md, "Performance"):
//! projects of one tenant with 60, 500, 2,000 and 10,000 ended interviews,
//! written straight into the app's SQLite file as the service would have
//! stored them (the interview rows with their quality, 13 turns each, and the
//! answers' digests with their sentences' terms and meanings, computed by
//! `synthesis` itself; the meanings are of the model's size, 384
//! numbers, made from the static table's by a fixed projection: the model
//! itself would take hours on this machine for the data set's sentences, and
//! a synthesis costs the same whatever the numbers say), then
//! `GET /v1/projects/{id}/synthesis` of
//! each over HTTP, one request at a time: the median time (targets: < 1 s for
//! 60 interviews, < 5 s for 2,000 and 10,000 under Spin) and the runtime's memory while
//! it answers (target: < 128 MiB), sampled as the interviews table samples an
//! export's. Then what the meanings cost when interviews end: 200 more ended
//! interviews without them, given them by the maintenance route run after
//! run (with the model itself where the manifest mounts its files), its time
//! per answer and per interview beyond an idle run's. Figures are printed,
//! never asserted.

use super::dataset::rfc3339_millis;
use super::interviews::{group_kib, group_pids};
use super::{create_tenant, median, verdict, Runtime, Server, Tenant};
use projects_core::{InterviewMode, Language};
use synthesis::answers::Answer;
use synthesis::units::{self, Encoder, MeaningModel};
use synthesis::{digest, quality};
use text::terms;
use text::vectors::{self, Meaning};
use reqwest::blocking::Client;
use rusqlite::{params, Connection};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

pub struct Options<'a> {
    pub runtime: &'a Runtime,
    pub manifest: &'a Path,
    pub variables: &'a HashMap<String, String>,
    pub partner_key: &'a str,
}

/// Measured requests per project (after one unmeasured).
const RUNS: usize = 5;
/// Interviews per project, and the target for each (seconds), if any.
const SIZES: [(usize, Option<f64>); 4] = [(60, Some(1.0)), (500, None), (2_000, Some(5.0)), (10_000, Some(5.0))];
/// Interviews whose sentences the maintenance route gives meanings, for their cost.
const EMBEDDED: usize = 200;
const MAINTENANCE_TOKEN: &str = "bench-maintenance-token-0123456789";
const MEMORY_TARGET_MIB: f64 = 128.0;

const QUESTIONS: [&str; 3] = [
    "What makes you abandon an online checkout?",
    "What would make you trust a shop you have never bought from?",
    "How do you decide between two similar products?",
];

/// Theme sentences per question: each interview carries some (by a hash of its number).
const THEMES: [[&str; 6]; 3] = [
    [
        "The shipping costs only show up on the very last page.",
        "Being forced to create an account before I can pay.",
        "My preferred payment method was missing.",
        "The page kept loading forever on my phone.",
        "A discount code field that never accepts my coupon.",
        "Too many form fields for the delivery address.",
    ],
    [
        "Plenty of customer reviews from real buyers.",
        "A clear return policy that is easy to find.",
        "A phone number where a person actually answers.",
        "Secure payment with a provider I already know.",
        "Friends who ordered there before and were happy.",
        "A proper company address and imprint on the website.",
    ],
    [
        "I compare the price per unit and the delivery time.",
        "Reviews with photos from other customers decide it for me.",
        "The brand I already trust usually wins.",
        "Warranty length matters more than small price differences.",
        "I ask a friend who knows the product category.",
        "Whichever one has the clearer description and size chart.",
    ],
];

/// Words for each interview's own remarks: combinations make the long tail of
/// terms a real project has.
const TAIL: [&str; 48] = [
    "weekend", "evening", "commute", "kids", "budget", "tablet", "laptop", "store", "mall", "neighbour", "colleague",
    "sister", "birthday", "holiday", "winter", "summer", "kitchen", "garden", "bicycle", "camera", "headphones",
    "sneakers", "jacket", "furniture", "groceries", "vitamins", "printer", "router", "charger", "blender", "lamp",
    "backpack", "umbrella", "watch", "perfume", "books", "games", "toys", "paint", "tools", "tent", "coffee",
    "tea", "plants", "shoes", "glasses", "mattress", "pillow",
];

/// Meanings of the model's size (384 numbers) for the data set: the static
/// table's, through a fixed projection that keeps how alike two sentences are.
struct ModelSized {
    projection: Vec<f32>,
}

impl ModelSized {
    const DIMENSIONS: usize = 384;

    fn new() -> ModelSized {
        let table_dims = vectors::table().dims();
        let projection = (0..Self::DIMENSIONS * table_dims).map(|k| (pick(k, 7) % 2001) as f32 / 1000.0 - 1.0).collect();
        ModelSized { projection }
    }
}

impl Encoder for ModelSized {
    fn model(&self) -> MeaningModel {
        MeaningModel::MiniLm
    }

    fn encode(&mut self, texts: &[&str]) -> Result<Vec<Meaning>, String> {
        let table = vectors::table();
        Ok(texts
            .iter()
            .map(|text| {
                let small = table.meaning(text).values().to_vec();
                let wide = self.projection.chunks(small.len()).map(|row| row.iter().zip(&small).map(|(a, b)| a * b).sum()).collect();
                Meaning::from_vector(wide)
            })
            .collect())
    }

    /// Each label phrase's meaning as its own words' (the bench weighs the store's cost, not the meanings).
    fn encode_in_context(&mut self, texts: &[&str], spans: &[Vec<(usize, usize)>]) -> Result<(Vec<Meaning>, Option<Vec<Vec<Option<Meaning>>>>), String> {
        let mut in_context = Vec::with_capacity(texts.len());
        for (text, spans) in texts.iter().zip(spans) {
            let phrases: Vec<&str> = spans.iter().map(|&(start, end)| &text[start..end]).collect();
            in_context.push(self.encode(&phrases)?.into_iter().map(Some).collect());
        }
        Ok((self.encode(texts)?, Some(in_context)))
    }
}

fn pick(n: usize, salt: usize) -> usize {
    let mut x = (n as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (salt as u64).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x ^= x >> 31;
    x = x.wrapping_mul(0x94D0_49BB_1331_11EB);
    (x ^ (x >> 29)) as usize
}

/// Interview `n`'s two answers to question `q`: its themes, then a remark of its own.
fn answers(n: usize, q: usize) -> [String; 2] {
    let themes: Vec<&str> = (0..6).filter(|t| pick(n, q * 10 + t) % 100 < [40, 25, 18, 12, 8, 5][*t]).map(|t| THEMES[q][t]).collect();
    let first = if themes.is_empty() { "Nothing in particular, it depends on the day.".to_string() } else { themes.join(" ") };
    let (a, b, c) = (TAIL[pick(n, q + 100) % 48], TAIL[pick(n, q + 200) % 48], TAIL[pick(n, q + 300) % 48]);
    [first, format!("Last time it was about the {a} and the {b}, and honestly the {c} mattered too.")]
}

/// Writes `count` ended interviews of `project_id` (production, typing,
/// English), their sentences' meanings too when `embedded` (as the
/// maintenance run writes them after the interview ends).
fn generate(db: &Path, tenant_id: &str, project_id: &str, count: usize, first_n: usize, embedded: bool) -> rusqlite::Result<()> {
    let mut conn = Connection::open(db)?;
    conn.busy_timeout(Duration::from_secs(30))?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    let tx = conn.transaction()?;
    {
        let mut interview = tx.prepare(
            "INSERT INTO interviews (interview_id, tenant_id, project_id, project_type, environment, session_token_hash,
                 identifier, country_code, device_type, language, mode, external_metadata, state, interviewer_closed,
                 response_count, turn_count, created_at, created_ms, last_activity_ms, ended_at, closed_at,
                 quality_score, quality_flags)
             VALUES (?, ?, ?, 'contextual_interview', 'production', ?, '', '', 'DESKTOP', 'en', 'typing', '{}',
                     'completed', 1, 6, 13, ?, ?, ?, ?, ?, ?, ?)",
        )?;
        let mut turn = tx.prepare(
            "INSERT INTO interview_turns (interview_id, seq, speaker, kind, question_index, source, text, created_at, created_ms)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )?;
        let mut digest = tx.prepare(
            "INSERT INTO answer_terms (project_id, interview_id, question_index, question, language, terms, units, phrases, units_by)
             VALUES (?, ?, ?, ?, 'en', ?, ?, ?, ?)",
        )?;
        let lexicon = text::lexicon::Lexicon::of(Language::En);
        let mut encoder = ModelSized::new();
        for i in 0..count {
            let n = first_n + i;
            let id = uuid::Uuid::new_v4().to_string();
            let created_ms = now_ms - 86_400_000 + n as i64 * 1_000;
            let mut seq = 0i64;
            let mut put = |speaker: &str, kind: &str, question: Option<i64>, text: &str| -> rusqlite::Result<i64> {
                let at = created_ms + seq * 40_000;
                let source = if speaker == "interviewer" { "builtin" } else { "interviewee" };
                turn.execute(params![id, seq, speaker, kind, question, source, text, rfc3339_millis(at), at])?;
                seq += 1;
                Ok(seq - 1)
            };
            let mut all_answers: Vec<(i64, usize, String)> = Vec::new();
            for (q, question) in QUESTIONS.iter().enumerate() {
                put("interviewer", if q == 0 { "opening" } else { "question" }, Some(q as i64), question)?;
                let [first, second] = answers(n, q);
                let s = put("interviewee", "answer", Some(q as i64), &first)?;
                all_answers.push((s, q, first));
                put("interviewer", "probe", Some(q as i64), "Could you tell me a bit more about that?")?;
                let s = put("interviewee", "answer", Some(q as i64), &second)?;
                all_answers.push((s, q, second));
            }
            put("interviewer", "closing", None, "Thank you for your time.")?;
            let typed: Vec<Answer> = all_answers
                .iter()
                .map(|(s, q, text)| Answer { seq: *s, question_index: Some(*q), text, took_ms: Some(40_000) })
                .collect();
            let assessed = quality::assess(&typed, Language::En, InterviewMode::Typing);
            for q in 0..QUESTIONS.len() {
                let answered: Vec<&Answer> = typed.iter().filter(|a| a.question_index == Some(q)).collect();
                let lines: Vec<(i64, Vec<String>)> = answered.iter().map(|a| (a.seq, terms::answer_terms(a.text, &lexicon))).collect();
                let said = embedded.then(|| {
                    let texts: Vec<(i64, &str)> = answered.iter().map(|a| (a.seq, a.text)).collect();
                    units::of_answers(&texts, QUESTIONS[q], Language::En, &mut encoder).expect("the table's meanings")
                });
                let units = said.as_ref().map(|said| units::encode(&said.units));
                let phrases = said.as_ref().map(|said| units::encode_phrases(&said.phrases));
                let units_by = embedded.then_some(encoder.model().as_str());
                digest.execute(params![project_id, id, q as i64, QUESTIONS[q], digest::encode(&lines), units, phrases, units_by])?;
            }
            let ended = rfc3339_millis(created_ms + seq * 40_000);
            interview.execute(params![
                id,
                tenant_id,
                project_id,
                format!("{:064x}", n),
                rfc3339_millis(created_ms),
                created_ms,
                created_ms + seq * 40_000,
                ended,
                ended,
                i64::from(assessed.score),
                assessed.flags_json(),
            ])?;
        }
    }
    tx.commit()?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    Ok(())
}

/// One synthesis request while a thread samples the runtime's memory: seconds, RSS growth in KiB, the body.
fn measured(client: &Client, tenant: &Tenant, host_pid: u32, url: &str) -> (f64, u64, Value) {
    std::thread::sleep(Duration::from_millis(300));
    let pids = group_pids(host_pid);
    let before = group_kib(&pids, "VmRSS:").unwrap_or(0);
    let (stop, peak) = (Arc::new(AtomicBool::new(false)), Arc::new(AtomicU64::new(before)));
    let sampler = {
        let (stop, peak, pids) = (stop.clone(), peak.clone(), pids.clone());
        std::thread::spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                if let Some(rss) = group_kib(&pids, "VmRSS:") {
                    peak.fetch_max(rss, Ordering::Relaxed);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let started = Instant::now();
    let response = client.get(url).header("X-Api-Key", &tenant.key).header("X-Tenant-Id", &tenant.id).send().unwrap();
    assert_eq!(response.status(), 200, "GET {url}");
    let body: Value = response.json().unwrap();
    let seconds = started.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(20));
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    (seconds, peak.load(Ordering::Relaxed).saturating_sub(before), body)
}

pub fn run(options: &Options) {
    eprintln!("bench: synthesis: starting the app under the {}", options.runtime.name);
    let mut variables = options.variables.clone();
    variables.insert("maintenance_token".into(), MAINTENANCE_TOKEN.into());
    let app = Server::start(options.runtime, options.manifest, &variables);
    let client = Client::builder().timeout(Duration::from_secs(600)).build().unwrap();
    let tenant = create_tenant(&client, &app, options.partner_key);
    let mut projects = Vec::new();
    for count in SIZES.iter().map(|(count, _)| *count).chain([EMBEDDED]) {
        let body = json!({
            "project_name": format!("Synthesis of {count}"), "project_objective": "Understand online shopping decisions",
            "research_questions": QUESTIONS.join("\n"), "success_criteria": "Recurring reasons with quotes",
            "recruiting_criteria": "Online shoppers", "interview_modes": ["typing"], "interview_length": 15,
        });
        let response =
            client.post(format!("{}/v1/projects", app.base)).header("X-Api-Key", &tenant.key).header("X-Tenant-Id", &tenant.id).json(&body).send().unwrap();
        assert_eq!(response.status(), 201, "creating a project");
        projects.push(response.json::<Value>().unwrap()["project_id"].as_str().unwrap().to_string());
    }
    let db = app.state_dir().join("sqlite_db.db");
    let started = Instant::now();
    let mut first_n = 0;
    for (index, project) in projects.iter().enumerate() {
        let (count, embedded) = SIZES.get(index).map_or((EMBEDDED, false), |(count, _)| (*count, true));
        generate(&db, &tenant.id, project, count, first_n, embedded).unwrap_or_else(|e| panic!("writing the synthesis data set: {e}"));
        first_n += count;
    }
    eprintln!("bench: synthesis: {first_n} interviews written in {:.0} s", started.elapsed().as_secs_f64());
    let load_average = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!();
    println!(
        "synthesis: GET /v1/projects/{{id}}/synthesis, built-in, 3 questions x 2 answers per interview; runtime: {}; \
         load average {} before; {RUNS} runs after one unmeasured",
        options.runtime.name,
        load_average.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    println!("{:<34} {:>8} {:>8} {:>10} {:>8}  target", "project", "p50 s", "max s", "+peak MiB", "themes");
    for ((count, target), project) in SIZES.iter().zip(&projects) {
        let url = format!("{}/v1/projects/{project}/synthesis", app.base);
        let (_, _, body) = measured(&client, &tenant, app.pid(), &url);
        let runs: Vec<(f64, u64)> = (0..RUNS).map(|_| measured(&client, &tenant, app.pid(), &url)).map(|(s, m, _)| (s, m)).collect();
        let p50 = median(runs.iter().map(|r| r.0).collect());
        let max = runs.iter().map(|r| r.0).fold(0.0, f64::max);
        let peak_mib = runs.iter().map(|r| r.1).max().unwrap_or(0) as f64 / 1024.0;
        let analysed = body["interviews_analyzed"].as_u64().unwrap_or(0);
        let themes: usize = body["questions"].as_array().map_or(0, |q| q.iter().map(|q| q["themes"].as_array().map_or(0, Vec::len)).sum());
        let time = target.map_or("no time target".to_string(), |target| format!("p50 < {target} s ({})", verdict(p50 < target)));
        println!(
            "{:<34} {p50:>8.3} {max:>8.3} {peak_mib:>10.1} {themes:>8}  {time}; memory < {MEMORY_TARGET_MIB} MiB ({}); {analysed} of {count} analysed",
            format!("{count} ended interviews"),
            verdict(peak_mib < MEMORY_TARGET_MIB),
        );
    }
    println!("memory: the runtime's VmRSS (its process group), sampled every 2 ms during each request: the largest peak over the runs, minus the RSS before it");
    embedding_cost(&client, &app);
}

/// One maintenance run through the route: its seconds and how many digests it gave meanings.
fn maintenance_run(client: &Client, app: &Server) -> (f64, u64) {
    let started = Instant::now();
    let response = client.post(format!("{}/v1/maintenance/run", app.base)).bearer_auth(MAINTENANCE_TOKEN).send().unwrap();
    assert_eq!(response.status(), 200, "POST /v1/maintenance/run");
    let report: Value = response.json().unwrap();
    (started.elapsed().as_secs_f64(), report["embedded_answers"].as_u64().unwrap_or(0))
}

/// What giving the sentences of ended interviews their meanings costs: the
/// maintenance route's time per digest (an interview's answers to one
/// question) and per answer, beyond what an idle run takes. The cron trigger
/// may take some of them meanwhile: only the route's own count is divided.
fn embedding_cost(client: &Client, app: &Server) {
    let (mut seconds, mut digests, mut runs) = (0.0, 0, 0);
    loop {
        let (took, embedded) = maintenance_run(client, app);
        if embedded == 0 {
            break;
        }
        seconds += took;
        digests += embedded;
        runs += 1;
    }
    let idle = median((0..5).map(|_| maintenance_run(client, app).0).collect());
    let answers = digests * 2;
    let beyond = (seconds - idle * runs as f64).max(0.0);
    let per_interview = beyond / (digests as f64 / QUESTIONS.len() as f64).max(1.0);
    println!(
        "meanings when interviews end: the maintenance route gave {digests} digests ({answers} answers, {EMBEDDED} interviews) their meanings in {runs} runs, \
         {seconds:.3} s; an idle run {idle:.3} s; beyond it {:.2} ms an answer, {:.2} ms a digest, {:.3} s an ended interview ({} answers of a sentence or two)",
        beyond * 1000.0 / answers.max(1) as f64,
        beyond * 1000.0 / digests.max(1) as f64,
        per_interview,
        2 * QUESTIONS.len(),
    );
}
