//! Erasure and retention (docs/interviews.md, "Erasure"): an interview erased
//! by the tenant, by its interviewee's identifier, or past its project's
//! retention is gone from every route, export and list, and from every file
//! under the state directory, grepped raw; its recording was never readable
//! there (each chunk sealed with the interview's key); counters, events and
//! deliveries stay right. Redis as the key-value store: tests/redis.rs.

use e2e::sessions::{active_project, database, sandbox_start_body, start_body, Session};
use e2e::*;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::{Arc, Mutex};

// ---------------------------------------------------------------------------
// A webhook receiver: records every request and answers 200, except once
// for each failure it is told to script.

#[derive(Clone, Default)]
struct Receiver {
    addr: String,
    received: Arc<Mutex<Vec<(String, Value)>>>,
    /// (path, text in the body): the next such request gets a 500.
    failing: Arc<Mutex<Vec<(String, String)>>>,
}

impl Receiver {
    fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let receiver = Receiver { addr: listener.local_addr().unwrap().to_string(), ..Receiver::default() };
        let state = receiver.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    continue;
                }
                let path = line.split_whitespace().nth(1).unwrap_or_default().to_string();
                let mut length = 0;
                loop {
                    let mut header = String::new();
                    if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
                        break;
                    }
                    if let Some((name, value)) = header.split_once(':') {
                        if name.trim().eq_ignore_ascii_case("content-length") {
                            length = value.trim().parse().unwrap_or(0);
                        }
                    }
                }
                let mut body = vec![0; length];
                reader.read_exact(&mut body).unwrap();
                let text = String::from_utf8_lossy(&body).to_string();
                let fail = {
                    let mut failing = state.failing.lock().unwrap();
                    let scripted = failing.iter().position(|(p, needle)| *p == path && text.contains(needle.as_str()));
                    scripted.map(|at| failing.remove(at)).is_some()
                };
                state.received.lock().unwrap().push((path, serde_json::from_str(&text).unwrap_or(Value::Null)));
                let status = if fail { "500 Scripted" } else { "200 OK" };
                let mut stream = stream;
                let _ = stream.write_all(format!("HTTP/1.1 {status}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n").as_bytes());
            }
        });
        receiver
    }

    /// The next request to `path` whose body holds `needle` fails.
    fn fail_once(&self, path: &str, needle: &str) {
        self.failing.lock().unwrap().push((path.to_string(), needle.to_string()));
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    /// The bodies received at `path` of an event type, in order.
    fn events(&self, path: &str, event_type: &str) -> Vec<Value> {
        let received = self.received.lock().unwrap();
        received.iter().filter(|(p, body)| p == path && body["event_type"] == event_type).map(|(_, b)| b.clone()).collect()
    }
}

/// A confirmed subscription of the tenant (whose secret exists) to `event_type` at `url`.
fn subscribe(app: &TestApp, tenant: &TenantCredentials, event_type: &str, url: &str) {
    let (status, created) = json_of(
        app.post("/v1/webhooks/subscriptions")
            .auth(tenant)
            .json(&json!({"workspace_id": tenant.tenant_id, "event_type": event_type, "target_url": url}))
            .send()
            .unwrap(),
    );
    assert_eq!(status, 201, "{created}");
    let id = created["id"].as_str().unwrap();
    let (status, body) = json_of(
        app.post(&format!("/v1/webhooks/subscriptions/{id}")).auth(tenant).json(&json!({"secret": created["x_hook_secret"]})).send().unwrap(),
    );
    assert_eq!(status, 200, "{body}");
}

fn create_secret(app: &TestApp, tenant: &TenantCredentials) {
    let (status, body) =
        json_of(app.post("/v1/webhooks/secrets").auth(tenant).json(&json!({"workspace_id": tenant.tenant_id})).send().unwrap());
    assert_eq!(status, 201, "{body}");
}

// ---------------------------------------------------------------------------
// What is on disk

/// Every file under `dir`, with its bytes as they are on disk.
fn files_under(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else if let Ok(bytes) = std::fs::read(&path) {
            files.push((path.display().to_string(), bytes));
        }
    }
    files
}

/// The files under the state directory that hold `marker`, byte for byte.
fn files_holding(state_dir: &Path, marker: &[u8]) -> Vec<String> {
    files_under(state_dir)
        .into_iter()
        .filter(|(_, bytes)| bytes.windows(marker.len()).any(|window| window == marker))
        .map(|(name, _)| name)
        .collect()
}

/// Recording bytes: noise with `marker` in it several times.
fn recording_with(marker: &[u8], len: usize) -> Vec<u8> {
    let mut state: u32 = 0x2545_F491;
    let mut bytes: Vec<u8> = (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            (state >> 24) as u8
        })
        .collect();
    for at in [0, len / 3, len - marker.len()] {
        bytes[at..at + marker.len()].copy_from_slice(marker);
    }
    bytes
}

fn put_audio(app: &TestApp, session: &Session, index: usize, bytes: &[u8]) -> (StatusCode, Value) {
    json_of(
        app.request("PUT", &session.path(&format!("/recordings/audio/{index}")))
            .bearer_auth(&session.token)
            .header("content-type", "audio/webm;codecs=opus")
            .body(bytes.to_vec())
            .send()
            .unwrap(),
    )
}

fn maintenance(app: &TestApp) {
    app.host.run_cron("maintenance").expect("the maintenance run succeeds");
}

// ---------------------------------------------------------------------------
// What the API shows

fn listed(app: &TestApp, tenant: &TenantCredentials, query: &str) -> Vec<String> {
    let (status, body) = json_of(app.get(&format!("/v1/interviews{query}")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    body["data"].as_array().unwrap().iter().map(|i| i["interview_id"].as_str().unwrap().to_string()).collect()
}

/// The ids in the first column of a project's export (`interviews` or `interviewees`).
fn exported(app: &TestApp, tenant: &TenantCredentials, project: &str, kind: &str) -> Vec<String> {
    let response = app.get(&format!("/v1/projects/{project}/{kind}-export")).auth(tenant).send().unwrap();
    if response.status() == 204 {
        return Vec::new();
    }
    assert_eq!(response.status(), 200);
    let text = response.text().unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    reader.records().map(|r| r.unwrap()[0].to_string()).collect()
}

fn erase(app: &TestApp, tenant: &TenantCredentials, interview_id: &str) -> StatusCode {
    app.request("DELETE", &format!("/v1/interviews/{interview_id}")).auth(tenant).send().unwrap().status()
}

fn erase_interviewee(app: &TestApp, tenant: &TenantCredentials, body: &Value) -> (StatusCode, Value) {
    json_of(app.post("/v1/interviewees/erase").auth(tenant).json(body).send().unwrap())
}

fn unique(prefix: &str) -> String {
    format!("{prefix}{}", uuid::Uuid::new_v4().simple())
}

/// The tenant's interview answers as if it never existed.
fn assert_gone(app: &TestApp, tenant: &TenantCredentials, project: &str, session: &Session) {
    let id = &session.interview_id;
    assert!(!listed(app, tenant, "").contains(id), "not in the list");
    assert!(!listed(app, tenant, "?environment=sandbox").contains(id), "not in the sandbox list");
    assert!(!listed(app, tenant, &format!("?project_id={project}")).contains(id));
    for kind in ["interviews", "interviewees"] {
        assert!(!exported(app, tenant, project, kind).contains(id), "not in the {kind} export");
    }
    for kind in ["audio", "video"] {
        let (status, body) = json_of(app.get(&format!("/v1/interviews/{id}/{kind}-export")).auth(tenant).send().unwrap());
        assert_eq!(status, 404, "{kind}: {body}");
        assert_detail_error(&body, "not_found");
        assert_eq!(body["detail"]["message"], "Interview not found", "the interview, not only its recording");
    }
    let (status, body) =
        json_of(app.post(&format!("/v1/interviews/{id}/flag")).auth(tenant).json(&json!({"reason": "late"})).send().unwrap());
    assert_eq!(status, 404, "{body}");
    assert_eq!(erase(app, tenant, id), 404, "erased once");
    // Its own session learns that it is gone; anyone else's token is the usual 401.
    let (status, body) = session.get(app);
    assert_eq!(status, 404, "{body}");
    assert_detail_error(&body, "not_found");
    assert_eq!(json_of(app.get(&session.path("")).bearer_auth("ses_wrong").send().unwrap()).0, 401);
}

// ---------------------------------------------------------------------------
// Tests

/// The proof: an interview whose answers, metadata, identifier and
/// recording carry unique markers, whose interview.finished was delivered:
/// after `DELETE` and one maintenance run, no marker is in any file of the
/// state directory, and the routes, exports and events answer as if it never was.
#[test]
fn an_erased_interview_leaves_no_byte_of_it_on_disk() {
    let receiver = Receiver::start();
    let app = TestApp::start(&[("webhook_allow_insecure_targets", "true"), ("webhook_retry_base_seconds", "0,0")]);
    let tenant = app.create_tenant();
    create_secret(&app, &tenant);
    subscribe(&app, &tenant, "interview.finished", &receiver.url("/hooks"));
    // A receiver that fails the first attempt: its retry is still queued when the interview is erased.
    subscribe(&app, &tenant, "interview.finished", &receiver.url("/retried"));
    subscribe(&app, &tenant, "interview.erased", &receiver.url("/hooks"));
    let project = active_project(&app, &tenant, json!({"interview_modes": ["typing", "talking"]}));

    let email = format!("{}@example.com", unique("withdrawn."));
    let answer_marker = unique("answermarker");
    let metadata_marker = unique("cohortmarker");
    let audio_marker = unique("AUDIO-MARKER-");
    let mut start = start_body(&project, "production");
    start["mode"] = json!("talking");
    start["identifier"] = json!(email);
    start["country_code"] = json!("DE");
    start["external_metadata"] = json!({"cohort": metadata_marker});
    let mut session = Session::start(&app, &start);
    receiver.fail_once("/retried", &session.interview_id);
    // Someone else's interview, with a recording too: it stays, whole.
    let mut other_start = start_body(&project, "production");
    other_start["mode"] = json!("talking");
    other_start["identifier"] = json!("stays@example.com");
    let mut other = Session::start(&app, &other_start);
    let other_audio = recording_with(b"the other voice", 5000);
    assert_eq!(put_audio(&app, &other, 0, &other_audio).0, 200);

    let audio = recording_with(audio_marker.as_bytes(), 300_000);
    for (index, chunk) in audio.chunks(100_000).enumerate() {
        assert_eq!(put_audio(&app, &session, index, chunk).0, 200);
    }
    while session.body["interviewer_closed"] != true {
        session.answer(&app, &format!("We chose the daycare near work; {answer_marker} was what decided it for us."));
    }
    let (status, finished) = session.finish(&app, true);
    assert_eq!((status, finished["state"].clone()), (StatusCode::OK, json!("completed")), "{finished}");
    other.complete(&app);
    maintenance(&app);
    let delivered = receiver.events("/hooks", "interview.finished");
    assert!(
        delivered.iter().any(|e| e["interview_id"] == session.interview_id.as_str() && e["interviewee_id"] == email.as_str()),
        "interview.finished was delivered with the identifier: {delivered:?}"
    );
    assert_eq!(receiver.events("/retried", "interview.finished").len(), 2, "one attempt per interview, the erased one's failed");

    // Before: the words and the identifier are on disk (the grep finds them), the voice never is.
    let state = &app.state_dir;
    assert!(!files_holding(state, email.as_bytes()).is_empty(), "the identifier is stored");
    assert!(!files_holding(state, answer_marker.as_bytes()).is_empty(), "the answers are stored");
    assert!(!files_holding(state, metadata_marker.as_bytes()).is_empty(), "the metadata is stored");
    assert_eq!(files_holding(state, audio_marker.as_bytes()), Vec::<String>::new(), "recording chunks are sealed");
    let response = app.get(&format!("/v1/interviews/{}/audio-export", session.interview_id)).auth(&tenant).send().unwrap();
    assert!(response.bytes().unwrap() == audio, "the export opens the sealed chunks");

    assert_eq!(erase(&app, &tenant, &session.interview_id), 204);
    maintenance(&app);

    for marker in [email.as_bytes(), answer_marker.as_bytes(), metadata_marker.as_bytes(), audio_marker.as_bytes()] {
        let mut holding = files_holding(state, marker);
        // On the edge manifest the records are a libSQL server's: what it keeps
        // of past commits (its WAL and replication log) is its own promise, as
        // docs/deploy.md says ("Erasure, by backend"); the rows are gone (below).
        holding.retain(|name| app.records.is_none() || !name.contains("records.sqld"));
        assert!(holding.is_empty(), "{} is still on disk in {holding:?}", String::from_utf8_lossy(marker));
    }
    assert_gone(&app, &tenant, &project, &session);

    // Events: the queued retry went out without the identifier; interview.erased carries the ids only.
    let retried = receiver.events("/retried", "interview.finished");
    let retry = retried.iter().rev().find(|e| e["interview_id"] == session.interview_id.as_str()).unwrap();
    assert_eq!(retry["interviewee_id"], "", "the retry sends the redacted event: {retry}");
    let erased = receiver.events("/hooks", "interview.erased");
    assert_eq!(erased.len(), 1, "{erased:?}");
    let keys: BTreeSet<&str> = erased[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, BTreeSet::from(["project_id", "event_type", "interview_id", "erased_at"]));
    assert_eq!((erased[0]["interview_id"].as_str(), erased[0]["project_id"].as_str()), (Some(&*session.interview_id), Some(&*project)));
    // The delivery log keeps its entries (ids, statuses), the project its count.
    let (status, log) = json_of(app.get("/v1/webhooks/deliveries?limit=1000").auth(&tenant).send().unwrap());
    assert_eq!(status, 200);
    assert!(!log.to_string().contains(&email), "no delivery shows the identifier");
    assert_eq!(log.as_array().unwrap().iter().filter(|d| d["event_type"] == "interview.finished").count(), 4);

    // The other interviewee's interview is whole.
    assert!(listed(&app, &tenant, "").contains(&other.interview_id));
    assert_eq!(exported(&app, &tenant, &project, "interviews"), vec![other.interview_id.clone()]);
    let response = app.get(&format!("/v1/interviews/{}/audio-export", other.interview_id)).auth(&tenant).send().unwrap();
    assert!(response.bytes().unwrap() == other_audio, "another interview's recording still opens");
    assert!(!files_holding(state, b"stays@example.com").is_empty(), "the grep still finds what was kept");
}

#[test]
fn a_running_interview_is_ended_first_and_its_session_then_answers_404() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({"max_interviews": 2}));
    let mut running = Session::start(app, &json!({"project_id": project, "identifier": "ada@example.com"}));
    running.answer(app, "We looked at three places near home.");
    let event_count = |interview: &str, event_type: &str| -> Vec<Value> {
        let conn = database(app);
        let mut statement = conn
            .prepare("SELECT payload FROM events WHERE event_type = ?1 AND json_extract(payload, '$.interview_id') = ?2")
            .unwrap();
        let payloads = statement.query_map((event_type, interview), |r| r.get::<_, String>(0)).unwrap();
        payloads.map(|p| serde_json::from_str(&p.unwrap()).unwrap()).collect()
    };

    assert_eq!(erase(app, &tenant, &running.interview_id), 204);
    let finished = event_count(&running.interview_id, "interview.finished");
    assert_eq!(finished.len(), 1, "ended first, once: {finished:?}");
    assert_eq!(finished[0]["interviewee_id"], "", "and the identifier is out of its event");
    assert_eq!(finished[0]["interview_status"], "INITIATED");
    assert_eq!(event_count(&running.interview_id, "interview.erased").len(), 1);
    for (status, body) in [
        running.get(app),
        running.answer_raw(app, "Another answer"),
        running.finish(app, false),
        put_audio(app, &running, 0, b"late chunk"),
    ] {
        assert_eq!(status, 404, "{body}");
        assert_detail_error(&body, "not_found");
    }
    assert_gone(app, &tenant, &project, &running);
    // Another tenant cannot erase, nor learn that an interview exists.
    let kept = Session::start(app, &json!({"project_id": project}));
    let stranger = app.create_tenant();
    assert_eq!(erase(app, &stranger, &kept.interview_id), 404);
    assert_eq!(erase(app, &tenant, "not-a-uuid"), 404);
    assert_eq!(erase(app, &tenant, &uuid::Uuid::new_v4().to_string()), 404);
    assert_eq!(kept.get(app).0, 200, "untouched by the stranger's request");
}

/// A completed interview that is erased still counts toward `max_interviews`:
/// the cap is on interviews held, and an erasure does not reopen a project.
#[test]
fn an_erased_completed_interview_still_counts_toward_max_interviews() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({"max_interviews": 2}));
    let mut first = Session::start(app, &start_body(&project, "production"));
    first.complete(app);
    assert_eq!(erase(app, &tenant, &first.interview_id), 204);
    assert_eq!(exported(app, &tenant, &project, "interviews"), Vec::<String>::new(), "the export has nothing left");
    let mut second = Session::start(app, &start_body(&project, "production"));
    second.complete(app);
    let (status, read) = json_of(app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap());
    assert_eq!((status, read["status"].clone()), (StatusCode::OK, json!("completed")), "two completed, one erased: {read}");
    let (status, body) = e2e::sessions::start_raw(app, &start_body(&project, "production"));
    assert_eq!(status, 410, "{body}");
    assert_eq!(exported(app, &tenant, &project, "interviews"), vec![second.interview_id.clone()]);
}

#[test]
fn an_interviewee_is_erased_by_identifier_in_every_project_of_the_tenant_only() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let email = format!("{}@Example.com", unique("Ada."));
    let first = active_project(app, &tenant, json!({}));
    let second = active_project(app, &tenant, json!({}));
    let with = |project: &str, environment: &str, identifier: &str| {
        // A sandbox link is a capability: its start carries the project's token.
        let mut body = match environment {
            "sandbox" => sandbox_start_body(app, &tenant, project),
            _ => start_body(project, environment),
        };
        body["identifier"] = json!(identifier);
        Session::start(app, &body)
    };
    let mut completed = with(&first, "production", &email);
    completed.complete(app);
    let erased = [
        completed,
        with(&second, "production", &email.to_lowercase()),
        with(&second, "sandbox", &email.to_uppercase()),
    ];
    let kept = [with(&first, "production", "someone.else@example.com"), with(&first, "production", "")];
    // The same person in another tenant's study is that tenant's to erase.
    let stranger = app.create_tenant();
    let strangers_project = active_project(app, &stranger, json!({}));
    let strangers = with(&strangers_project, "production", &email);

    let (status, body) = erase_interviewee(app, &tenant, &json!({"identifier": email}));
    assert_eq!((status, body), (StatusCode::OK, json!({"erased": 3})));
    for session in &erased {
        let project = if session.interview_id == erased[0].interview_id { &first } else { &second };
        assert_gone(app, &tenant, project, session);
    }
    for session in &kept {
        assert_eq!(session.get(app).0, 200);
    }
    assert_eq!(strangers.get(app).0, 200, "another tenant's interview stays");
    assert!(listed(app, &stranger, "").contains(&strangers.interview_id));
    assert_eq!(erase_interviewee(app, &tenant, &json!({"identifier": email})), (StatusCode::OK, json!({"erased": 0})));

    // A user id matches exactly (only e-mail addresses ignore case).
    let user = with(&first, "production", "User-42");
    assert_eq!(erase_interviewee(app, &tenant, &json!({"identifier": "user-42"})).1, json!({"erased": 0}));
    assert_eq!(user.get(app).0, 200);
    assert_eq!(erase_interviewee(app, &tenant, &json!({"identifier": "User-42"})).1, json!({"erased": 1}));

    // The empty identifier is every anonymous interview's: refused, like anything but a string.
    for body in [json!({"identifier": ""}), json!({}), json!({"identifier": 42}), json!({"identifier": "a".repeat(321)})] {
        let (status, problem) = erase_interviewee(app, &tenant, &body);
        assert_eq!(status, 422, "{body}: {problem}");
        assert_eq!(problem["detail"][0]["loc"], json!(["body", "identifier"]), "{problem}");
    }
    assert_eq!(kept[1].get(app).0, 200, "the anonymous interview stays");
    let response = app.post("/v1/interviewees/erase").auth(&tenant).header("content-type", "application/json").body("{").send().unwrap();
    assert_eq!(response.status(), 422);
    let response = app.post("/v1/interviewees/erase").json(&json!({"identifier": email})).send().unwrap();
    assert_eq!(response.status(), 401);
}

/// Retention: the maintenance run erases the interviews that stopped more than
/// `data_retention_days` ago, and only those. Days cannot pass in a test: the
/// stop times are moved back in the database file instead.
#[test]
fn the_maintenance_run_erases_interviews_past_their_projects_retention() {
    let receiver = Receiver::start();
    let app = TestApp::start(&[("webhook_allow_insecure_targets", "true")]);
    let tenant = app.create_tenant();
    create_secret(&app, &tenant);
    subscribe(&app, &tenant, "interview.erased", &receiver.url("/hooks"));
    let kept_for_a_week = active_project(&app, &tenant, json!({"data_retention_days": 7}));
    let kept_forever = active_project(&app, &tenant, json!({}));
    let finished = |project: &str| {
        let mut session = Session::start(&app, &start_body(project, "production"));
        session.complete(&app);
        session
    };
    let old = finished(&kept_for_a_week);
    let recent = finished(&kept_for_a_week);
    let running = Session::start(&app, &start_body(&kept_for_a_week, "production"));
    let old_but_kept = finished(&kept_forever);
    {
        let conn = rusqlite::Connection::open(app.sqlite_path()).unwrap();
        conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
        let moved_back = |id: &str, days: i64| {
            conn.execute(
                "UPDATE interviews SET closed_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?1), ended_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now', ?1)
                 WHERE interview_id = ?2",
                (format!("-{days} days"), id),
            )
            .unwrap()
        };
        assert_eq!(moved_back(&old.interview_id, 8), 1);
        assert_eq!(moved_back(&recent.interview_id, 6), 1);
        assert_eq!(moved_back(&old_but_kept.interview_id, 3000), 1);
    }
    maintenance(&app);

    assert_gone(&app, &tenant, &kept_for_a_week, &old);
    for session in [&recent, &running, &old_but_kept] {
        assert_eq!(session.get(&app).0, 200, "{} stays", session.interview_id);
    }
    // The export lists running interviews too.
    assert_eq!(
        exported(&app, &tenant, &kept_for_a_week, "interviews"),
        vec![recent.interview_id.clone(), running.interview_id.clone()]
    );
    let erased = receiver.events("/hooks", "interview.erased");
    assert_eq!(erased.iter().map(|e| e["interview_id"].as_str().unwrap()).collect::<Vec<_>>(), vec![old.interview_id.as_str()]);

    // Keeping interviews again (null) stops the erasures.
    let (status, body) = json_of(
        app.request("PATCH", &format!("/v1/projects/{kept_for_a_week}")).auth(&tenant).json(&json!({"data_retention_days": null})).send().unwrap(),
    );
    assert_eq!(status, 200, "{body}");
    {
        let conn = rusqlite::Connection::open(app.sqlite_path()).unwrap();
        conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
        conn.execute("UPDATE interviews SET closed_at = '2000-01-01T00:00:00.000Z' WHERE interview_id = ?1", [&recent.interview_id])
            .unwrap();
    }
    maintenance(&app);
    assert_eq!(recent.get(&app).0, 200, "kept: the project keeps its interviews now");
    assert_eq!(receiver.events("/hooks", "interview.erased").len(), 1);
}

#[test]
fn the_new_routes_are_tenant_routes() {
    let app = shared_app();
    let id = uuid::Uuid::new_v4();
    assert_eq!(app.request("DELETE", &format!("/v1/interviews/{id}")).send().unwrap().status(), 401);
    let response = app.get("/v1/interviewees/erase").send().unwrap();
    assert_eq!(response.status(), 405, "the route takes POST only");
}

/// Erasure's lookups run on indexes, whatever the number of interviews: the
/// retention sweep (every maintenance run) and the erasure by identifier.
#[test]
fn erasure_finds_its_interviews_on_indexes() {
    use records::store::{EXPIRED_SQL, OF_IDENTIFIER_SQL};
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({"data_retention_days": 30}));
    Session::start(app, &json!({"project_id": project, "identifier": "plan@example.com"}));
    let conn = database(app);
    let plan = |sql: &str, params: &[&dyn rusqlite::ToSql]| -> Vec<String> {
        conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap()
            .query_map(params, |row| row.get::<_, String>(3))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let retention = plan(EXPIRED_SQL, &[&0i64, &200i64]);
    assert!(retention.iter().any(|step| step.contains("projects_with_retention")), "{retention:?}");
    assert!(retention.iter().any(|step| step.contains("interviews_by_close")), "{retention:?}");
    assert!(!retention.iter().any(|step| step.starts_with("SCAN") && !step.contains("USING")), "{retention:?}");
    let by_identifier = plan(OF_IDENTIFIER_SQL, &[&tenant.tenant_id, &"plan@example.com", &1i64]);
    assert!(by_identifier.iter().any(|step| step.contains("interviews_by_identifier")), "{by_identifier:?}");
    assert!(!by_identifier.iter().any(|step| step.starts_with("SCAN")), "{by_identifier:?}");
}
