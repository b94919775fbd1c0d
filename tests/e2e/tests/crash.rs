//! Atomicity proven, not assumed: the runtime (a `spin up` process, or the
//! test host's) is killed with SIGKILL at random moments while many clients
//! start, answer, finish and flag interviews, upload recording chunks and move
//! projects between states. After the last restart, the database keeps every
//! rule the use cases keep in their transactions:
//! - every interview that ended has exactly one `interview.finished` event (the
//!   one its row names) and a running one has none; every event has exactly
//!   its one delivery (one confirmed subscription per event type);
//! - every completed production interview that is not flagged is counted once
//!   in its project's `completed_interviews`, and a project that reached its
//!   `max_interviews` is completed, with exactly one `project.completed`;
//! - an interview's counters are its turns (count, answers, closing), and no
//!   turn comes after a closing;
//! - a recording's totals are its chunks (contiguous, offsets adding up), and
//!   every chunk's bytes are in the key-value store;
//! - every write a client saw acknowledged is there.

use e2e::sessions::{create_project, project_body};
use e2e::*;
use rand_like::Rng;
use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// A deterministic xorshift generator: enough randomness for moments and
/// choices, seeded per thread, printed so a failure can be replayed.
mod rand_like {
    pub struct Rng(u64);

    impl Rng {
        pub fn new(seed: u64) -> Rng {
            Rng(seed.max(1))
        }

        pub fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        pub fn below(&mut self, n: u64) -> u64 {
            self.next() % n.max(1)
        }
    }
}

/// What a client was told was stored.
#[derive(Debug, Clone)]
enum Ack {
    Started { interview_id: String },
    Answered { interview_id: String, text: String },
    Finished { interview_id: String },
    Chunk { interview_id: String, index: u64 },
    Flagged { interview_id: String },
    /// A project is in `status` after a move asked of it (its answer said so;
    /// whether this request or a concurrent one moved it, an event says it).
    Moved { project_id: String, status: String },
}

/// A running interview a client can go on with, after a restart too.
#[derive(Debug, Clone)]
struct Running {
    interview_id: String,
    token: String,
    chunks: u64,
}

struct World {
    tenant: TenantCredentials,
    projects: Vec<String>,
    acks: Mutex<Vec<Ack>>,
    running: Mutex<Vec<Running>>,
    ended: Mutex<Vec<String>>,
}

const CLIENTS: usize = 8;
const ROUNDS: usize = 4;

fn client() -> Client {
    Client::builder().timeout(Duration::from_secs(10)).build().unwrap()
}

/// One client's work until the runtime dies or `stop` is set.
fn work(world: &World, base: &str, seed: u64, stop: &AtomicBool) {
    let http = client();
    let mut rng = Rng::new(seed);
    let auth = |request: reqwest::blocking::RequestBuilder| {
        request.header("X-Api-Key", &world.tenant.api_key).header("X-Tenant-Id", &world.tenant.tenant_id)
    };
    while !stop.load(Ordering::Relaxed) {
        let choice = rng.below(100);
        let outcome: Result<(), reqwest::Error> = (|| {
            if choice < 20 {
                // A new interview.
                let project = &world.projects[rng.below(world.projects.len() as u64) as usize];
                let response =
                    http.post(format!("{base}/v1/sessions")).json(&json!({"project_id": project, "mode": "talking"})).send()?;
                if response.status() == 201 {
                    let body: Value = response.json()?;
                    let interview_id = body["interview_id"].as_str().unwrap().to_string();
                    world.acks.lock().unwrap().push(Ack::Started { interview_id: interview_id.clone() });
                    let token = body["session_token"].as_str().unwrap().to_string();
                    world.running.lock().unwrap().push(Running { interview_id, token, chunks: 0 });
                }
                return Ok(());
            }
            let picked = {
                let running = world.running.lock().unwrap();
                if running.is_empty() {
                    None
                } else {
                    Some(running[rng.below(running.len() as u64) as usize].clone())
                }
            };
            if choice < 30 {
                // A flag on an interview that ended (or any, now and then).
                let ended = world.ended.lock().unwrap().clone();
                let Some(interview_id) = ended.get(rng.below(ended.len().max(1) as u64) as usize).cloned() else {
                    return Ok(());
                };
                let response = auth(http.post(format!("{base}/v1/interviews/{interview_id}/flag")))
                    .json(&json!({"reason": "crash test"}))
                    .send()?;
                if response.status() == 200 {
                    world.acks.lock().unwrap().push(Ack::Flagged { interview_id });
                }
                return Ok(());
            }
            if choice < 36 {
                // A project moves.
                let project = &world.projects[rng.below(world.projects.len() as u64) as usize];
                let action = ["activate", "deactivate", "activate"][rng.below(3) as usize];
                let before = auth(http.get(format!("{base}/v1/projects/{project}"))).send()?;
                let before: Value = before.json()?;
                let response = auth(http.post(format!("{base}/v1/projects/{project}/{action}"))).send()?;
                if response.status() == 200 {
                    let body: Value = response.json()?;
                    if body["status"] != before["status"] {
                        world.acks.lock().unwrap().push(Ack::Moved {
                            project_id: project.clone(),
                            status: body["status"].as_str().unwrap().to_string(),
                        });
                    }
                }
                return Ok(());
            }
            let Some(session) = picked else { return Ok(()) };
            let path = format!("{base}/v1/sessions/{}", session.interview_id);
            if choice < 50 {
                // A recording chunk, in order.
                let index = session.chunks;
                let bytes = vec![b'a' + (index % 26) as u8; 1000 + rng.below(4000) as usize];
                let response = http
                    .put(format!("{path}/recordings/audio/{index}"))
                    .bearer_auth(&session.token)
                    .header("content-type", "audio/webm")
                    .body(bytes)
                    .send()?;
                if response.status() == 200 {
                    world.acks.lock().unwrap().push(Ack::Chunk { interview_id: session.interview_id.clone(), index });
                }
                // Whatever the answer, the server now says which index comes next.
                let mut running = world.running.lock().unwrap();
                if let Some(entry) = running.iter_mut().find(|r| r.interview_id == session.interview_id) {
                    if response_ok_or_conflict(&response) {
                        entry.chunks = index + u64::from(response.status() == 200);
                    }
                }
                return Ok(());
            }
            if choice < 85 {
                // An answer.
                let text = format!("We chose by distance and price, marker {}", uuid::Uuid::new_v4().simple());
                let response = http.post(format!("{path}/answers")).bearer_auth(&session.token).json(&json!({"text": text})).send()?;
                match response.status().as_u16() {
                    200 => world.acks.lock().unwrap().push(Ack::Answered { interview_id: session.interview_id.clone(), text }),
                    409 => retire(world, &session.interview_id, false),
                    _ => {}
                }
                return Ok(());
            }
            // The interviewee finishes.
            let response = http.post(format!("{path}/finish")).bearer_auth(&session.token).json(&json!({})).send()?;
            match response.status().as_u16() {
                200 => {
                    world.acks.lock().unwrap().push(Ack::Finished { interview_id: session.interview_id.clone() });
                    retire(world, &session.interview_id, true);
                }
                409 => retire(world, &session.interview_id, true),
                _ => {}
            }
            Ok(())
        })();
        if outcome.is_err() {
            // The runtime is gone (killed): this round is over for this client.
            return;
        }
    }
}

fn response_ok_or_conflict(response: &reqwest::blocking::Response) -> bool {
    matches!(response.status().as_u16(), 200 | 409)
}

/// An interview no longer takes answers: off the running list (onto the ended one).
fn retire(world: &World, interview_id: &str, ended: bool) {
    world.running.lock().unwrap().retain(|r| r.interview_id != interview_id);
    if ended {
        world.ended.lock().unwrap().push(interview_id.to_string());
    }
}

#[test]
fn killed_at_random_moments_the_database_keeps_every_rule() {
    let state = tempfile::tempdir().unwrap();
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    eprintln!("crash test seed: {seed}");
    let mut rng = Rng::new(seed);
    let variables = [("webhook_allow_insecure_targets", "true")];
    let mut app = TestApp::start_process(state.path(), &variables, |_| {});
    let partner_key = app.partner_key.clone();
    let tenant = app.create_tenant();
    let post = |app: &TestApp, path: &str, body: Value| {
        let (status, answer) = json_of(app.post(path).auth(&tenant).json(&body).send().unwrap());
        assert!(status.is_success(), "{path}: {answer}");
        answer
    };
    post(&app, "/v1/webhooks/secrets", json!({"workspace_id": tenant.tenant_id}));
    for event_type in ["project.published", "project.completed", "interview.finished"] {
        let created = post(
            &app,
            "/v1/webhooks/subscriptions",
            json!({"workspace_id": tenant.tenant_id, "event_type": event_type, "target_url": "http://127.0.0.1:9/hooks"}),
        );
        post(&app, &format!("/v1/webhooks/subscriptions/{}", created["id"].as_str().unwrap()), json!({"secret": created["x_hook_secret"]}));
    }
    let mut projects = Vec::new();
    for max in [Some(3), Some(5), None] {
        let body = project_body(json!({"max_interviews": max, "interview_modes": ["talking", "typing"],
            "research_questions": "How did you choose your daycare?\nWhat mattered most?"}));
        let id = create_project(&app, &tenant, &body);
        post(&app, &format!("/v1/projects/{id}/activate"), json!({}));
        projects.push(id);
    }
    let world = World {
        tenant: tenant.clone(),
        projects,
        acks: Mutex::new(Vec::new()),
        running: Mutex::new(Vec::new()),
        ended: Mutex::new(Vec::new()),
    };

    for round in 0..ROUNDS {
        if round > 0 {
            app = TestApp::start_process(state.path(), &[("partner_api_key", partner_key.as_str()), variables[0]], |_| {});
        }
        let base = app.host.base_url();
        let stop = AtomicBool::new(false);
        let lifetime = Duration::from_millis(800 + rng.below(2200));
        std::thread::scope(|scope| {
            for client in 0..CLIENTS {
                let (world, base, stop) = (&world, &base, &stop);
                let seed = seed ^ ((round * CLIENTS + client) as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                scope.spawn(move || work(world, base, seed, stop));
            }
            std::thread::sleep(lifetime);
            app.process().kill(); // SIGKILL, mid-request for most clients
            stop.store(true, Ordering::Relaxed);
        });
    }
    // One last start, so that the database is opened (and any WAL recovered) by the app.
    let app = TestApp::start_in(state.path(), &[("partner_api_key", partner_key.as_str())]);
    let (status, _) = json_of(app.get("/v1/projects").auth(&tenant).send().unwrap());
    assert_eq!(status, 200);

    let acks = world.acks.lock().unwrap().clone();
    let counts = acks.iter().fold(HashMap::new(), |mut counts, ack| {
        *counts.entry(format!("{:?}", ack).split_whitespace().next().unwrap().to_string()).or_insert(0) += 1;
        counts
    });
    eprintln!("acknowledged writes: {counts:?}");
    assert!(acks.iter().filter(|a| matches!(a, Ack::Answered { .. })).count() > 20, "the clients got work done: {counts:?}");

    // Read-write: a file the last kill left a hot journal in needs recovering
    // first (the app is idle now).
    let db = rusqlite::Connection::open(app.sqlite_path()).unwrap();
    let kv = rusqlite::Connection::open(app.state_dir.join("sqlite_key_value.db")).unwrap();
    let rows = |sql: &str| -> Vec<Vec<rusqlite::types::Value>> {
        let mut statement = db.prepare(sql).unwrap();
        let columns = statement.column_count();
        statement
            .query_map([], |row| (0..columns).map(|i| row.get::<_, rusqlite::types::Value>(i)).collect())
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let none = |what: &str, sql: &str| {
        let found = rows(sql);
        assert!(found.is_empty(), "{what}: {found:?}");
    };

    // Events and their deliveries.
    none(
        "an event without exactly one delivery",
        "SELECT e.event_id, COUNT(d.id) FROM events e LEFT JOIN webhook_deliveries d ON d.event_id = e.event_id
         GROUP BY e.event_id HAVING COUNT(d.id) <> 1",
    );
    none(
        "an ended interview without exactly its one interview.finished",
        "SELECT i.interview_id, COUNT(e.event_id) FROM interviews i
         LEFT JOIN events e ON e.event_type = 'interview.finished' AND json_extract(e.payload, '$.interview_id') = i.interview_id
         WHERE i.state <> 'in_progress'
         GROUP BY i.interview_id HAVING COUNT(e.event_id) <> 1 OR MAX(e.event_id) IS NOT MAX(i.finished_event_id)",
    );
    none(
        "a running interview with an interview.finished",
        "SELECT i.interview_id FROM interviews i JOIN events e ON e.event_type = 'interview.finished'
             AND json_extract(e.payload, '$.interview_id') = i.interview_id
         WHERE i.state = 'in_progress'",
    );
    // max_interviews.
    none(
        "a project whose counter is not its completed, unflagged production interviews",
        "SELECT p.project_id, p.completed_interviews, COUNT(i.interview_id) FROM projects p
         LEFT JOIN interviews i ON i.project_id = p.project_id AND i.environment = 'production'
             AND i.state = 'completed' AND i.flagged_at IS NULL
         GROUP BY p.project_id HAVING p.completed_interviews <> COUNT(i.interview_id)",
    );
    none(
        "a project completed other than exactly once",
        "SELECT p.project_id, p.status, COUNT(e.event_id) FROM projects p
         LEFT JOIN events e ON e.event_type = 'project.completed' AND json_extract(e.payload, '$.project_id') = p.project_id
         GROUP BY p.project_id HAVING (p.status = 'completed') <> (COUNT(e.event_id) = 1) OR COUNT(e.event_id) > 1",
    );
    // Turns and the counters kept with them.
    none(
        "an interview whose counters are not its turns",
        "SELECT i.interview_id, i.turn_count, COUNT(t.seq), MAX(t.seq), i.response_count,
                SUM(t.speaker = 'interviewee' AND t.kind = 'answer'), i.interviewer_closed, MAX(t.kind = 'closing')
         FROM interviews i JOIN interview_turns t ON t.interview_id = i.interview_id
         GROUP BY i.interview_id
         HAVING i.turn_count <> COUNT(t.seq) OR MAX(t.seq) <> COUNT(t.seq) - 1
             OR i.response_count <> SUM(t.speaker = 'interviewee' AND t.kind = 'answer')
             OR i.interviewer_closed <> MAX(t.kind = 'closing')",
    );
    none(
        "a turn after the closing",
        "SELECT t.interview_id, t.seq FROM interview_turns t
         JOIN interview_turns c ON c.interview_id = t.interview_id AND c.kind = 'closing' AND t.seq > c.seq",
    );
    // Recordings.
    none(
        "a recording whose totals are not its chunks",
        "SELECT r.interview_id, r.size, r.chunk_count, SUM(c.size), COUNT(c.idx), MAX(c.idx) FROM recordings r
         JOIN recording_chunks c ON c.interview_id = r.interview_id AND c.kind = r.kind
         GROUP BY r.interview_id, r.kind
         HAVING r.size <> SUM(c.size) OR r.chunk_count <> COUNT(c.idx) OR MAX(c.idx) <> COUNT(c.idx) - 1",
    );
    none(
        "a chunk whose offset is not the size before it",
        "SELECT c.interview_id, c.idx FROM recording_chunks c
         WHERE c.byte_offset <> COALESCE((SELECT SUM(p.size) FROM recording_chunks p
                                         WHERE p.interview_id = c.interview_id AND p.kind = c.kind AND p.idx < c.idx), 0)",
    );
    none("chunks without their recording", "SELECT c.interview_id FROM recording_chunks c
         LEFT JOIN recordings r ON r.interview_id = c.interview_id AND r.kind = c.kind WHERE r.interview_id IS NULL");
    for row in rows("SELECT blob_key FROM recording_chunks") {
        let rusqlite::types::Value::Text(key) = &row[0] else { panic!("{row:?}") };
        let stored: i64 = kv.query_row("SELECT COUNT(*) FROM spin_key_value WHERE key = ?", [key], |r| r.get(0)).unwrap();
        assert_eq!(stored, 1, "the bytes of chunk {key}");
    }

    // Every acknowledged write.
    let scalar = |sql: &str, params: &[&str]| -> i64 {
        db.query_row(sql, rusqlite::params_from_iter(params.iter()), |row| row.get(0)).unwrap()
    };
    for ack in &acks {
        let there = match ack {
            Ack::Started { interview_id } => scalar("SELECT COUNT(*) FROM interviews WHERE interview_id = ?", &[interview_id]) == 1,
            Ack::Answered { interview_id, text } => {
                scalar("SELECT COUNT(*) FROM interview_turns WHERE interview_id = ? AND text = ?", &[interview_id, text]) == 1
            }
            Ack::Finished { interview_id } => {
                scalar("SELECT COUNT(*) FROM interviews WHERE interview_id = ? AND state <> 'in_progress'", &[interview_id]) == 1
            }
            Ack::Chunk { interview_id, index } => {
                scalar(
                    "SELECT COUNT(*) FROM recording_chunks WHERE interview_id = ? AND idx = ?",
                    &[interview_id, &index.to_string()],
                ) == 1
            }
            Ack::Flagged { interview_id } => {
                scalar("SELECT COUNT(*) FROM interviews WHERE interview_id = ? AND flagged_at IS NOT NULL", &[interview_id]) == 1
            }
            Ack::Moved { project_id, status } => {
                let event = if status == "active" { "project.published" } else { "" };
                event.is_empty()
                    || scalar(
                        "SELECT COUNT(*) FROM events WHERE event_type = ? AND json_extract(payload, '$.project_id') = ?",
                        &[event, project_id],
                    ) >= 1
            }
        };
        assert!(there, "acknowledged but not stored: {ack:?}");
    }
}
