//! Past one machine: two nodes serving one dataset, as docs/deploy.md
//! ("Several nodes") sets them up. Each test runs one libSQL server (`sqld`,
//! the `default` database), one Redis (the `default` key-value store) and two
//! runtimes of the selected kind (two `spin up` with `SPIN` set, else two test
//! hosts), each a process of its own with its own state directory, on two
//! ports, with the same runtime config and variables (`database_backend =
//! libsql`). With `E2E_EDGE` set the nodes run the edge manifest instead:
//! each component reaches the same sqld itself over HTTP (`database_url`), and
//! the runtime config only puts the key-value store in Redis. Requests go to
//! either node; maintenance runs through `POST /v1/maintenance/run` of either
//! node, the way a scheduler calls it.
//!
//! Without sqld at hand (see `e2e::services::Sqld`) every test says so and
//! skips; Redis comes from scripts/setup-redis.sh.

use storage::latest_version;
use e2e::services::{RedisServer, Sqld};
use e2e::sessions::{active_project, create_project, project_body, Session};
use e2e::*;
use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex};
use std::thread;
use std::time::{Duration, Instant};

/// One deployment: sqld, Redis, two nodes.
struct Cluster {
    nodes: Vec<TestApp>,
    sqld: Sqld,
    _redis: RedisServer,
    _config: tempfile::TempDir,
    _states: Vec<tempfile::TempDir>,
    turn: AtomicUsize,
    /// The nodes' `maintenance_token`.
    token: String,
}

impl Cluster {
    /// `None` (after saying so) without sqld. `overrides` are app variables
    /// on top of the suite's: the same on both nodes, as one deployment has.
    fn start(test: &str, overrides: &[(&str, &str)]) -> Option<Cluster> {
        Cluster::start_with_sqld(test, overrides, &[])
    }

    /// [`Cluster::start`] with flags for sqld (its limits).
    fn start_with_sqld(test: &str, overrides: &[(&str, &str)], sqld_flags: &[&str]) -> Option<Cluster> {
        let sqld = Sqld::start_or_skip_with(test, sqld_flags)?;
        let redis = RedisServer::start();
        let key_value = format!("\n[key_value_store.default]\ntype = \"redis\"\nurl = \"{}\"\n", redis.url());
        let edge = edge_selected();
        let config = if edge {
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("runtime-config.toml"), key_value).unwrap();
            dir
        } else {
            sqld.runtime_config(&key_value)
        };
        let partner_key = format!("sk-partner-two-nodes-{}", uuid::Uuid::new_v4().simple());
        let token = format!("two-nodes-maintenance-{}", uuid::Uuid::new_v4().simple());
        let url = sqld.url();
        let records = if edge { ("database_url", url.as_str()) } else { ("database_backend", "libsql") };
        let mut variables = vec![
            ("partner_api_key", partner_key.as_str()),
            ("maintenance_token", token.as_str()),
            records,
            ("webhook_allow_insecure_targets", "true"),
        ];
        variables.extend_from_slice(overrides);
        let states: Vec<tempfile::TempDir> = (0..2).map(|_| tempfile::tempdir().unwrap()).collect();
        let file = config.path().join("runtime-config.toml");
        let nodes = states
            .iter()
            .map(|state| {
                TestApp::start_process(state.path(), &variables, |host| host.runtime_config_file = Some(file.clone()))
            })
            .collect();
        Some(Cluster { nodes, sqld, _redis: redis, _config: config, _states: states, turn: AtomicUsize::new(0), token })
    }

    fn a(&self) -> &TestApp {
        &self.nodes[0]
    }

    fn b(&self) -> &TestApp {
        &self.nodes[1]
    }

    /// What both runtimes printed (their components' errors included), for failure messages.
    fn logs(&self) -> String {
        let mut text = String::new();
        for (name, node) in ["A", "B"].iter().zip(&self.nodes) {
            if let Server::Process(process) = &node.host {
                text += &format!("==== node {name}\n{}\n", process.output());
            }
        }
        text
    }

    /// The next node, round robin.
    fn next(&self) -> &TestApp {
        &self.nodes[self.turn.fetch_add(1, Ordering::Relaxed) % self.nodes.len()]
    }
}

/// `POST /v1/maintenance/run` on a node: its answer, or why there was none.
fn maintenance(node: &TestApp) -> anyhow::Result<()> {
    node.host.run_cron("maintenance")
}

/// Both nodes' maintenance runs at the same moment, waited for.
fn maintenance_on_both_at_once(cluster: &Cluster) {
    let barrier = Barrier::new(2);
    thread::scope(|scope| {
        for node in &cluster.nodes {
            let barrier = &barrier;
            scope.spawn(move || {
                barrier.wait();
                maintenance(node).unwrap_or_else(|e| panic!("a maintenance run: {e}\n{}", cluster.logs()));
            });
        }
    });
}

fn tenant_get(node: &TestApp, tenant: &TenantCredentials, path: &str) -> (StatusCode, Value) {
    json_of(node.get(path).auth(tenant).send().unwrap())
}

#[test]
fn a_tenant_created_on_one_node_works_on_the_other() {
    let Some(cluster) = Cluster::start("a_tenant_created_on_one_node_works_on_the_other", &[]) else { return };
    let tenant = cluster.a().create_tenant();

    // Its key authenticates on B, which creates a project A then reads and changes.
    let project = create_project(cluster.b(), &tenant, &project_body(json!({"project_name": "Made on B"})));
    let (status, read) = tenant_get(cluster.a(), &tenant, &format!("/v1/projects/{project}"));
    assert_eq!((status, &read["project_name"]), (StatusCode::OK, &json!("Made on B")), "{read}");
    let (status, _) = json_of(
        cluster
            .a()
            .request("PATCH", &format!("/v1/projects/{project}"))
            .auth(&tenant)
            .header("content-type", "application/merge-patch+json")
            .body(json!({"project_name": "Renamed on A"}).to_string())
            .send()
            .unwrap(),
    );
    assert_eq!(status, 200);
    let (status, listed) = tenant_get(cluster.b(), &tenant, "/v1/projects");
    assert_eq!(status, 200);
    let names: Vec<&Value> = listed["data"].as_array().unwrap().iter().map(|p| &p["project_name"]).collect();
    assert_eq!(names, vec![&json!("Renamed on A")], "{listed}");

    // Uniqueness holds across nodes: the same organization again, on B, is a conflict.
    let (status, body) = json_of(cluster.a().create_tenant_raw(&json!({"organization_name": "Acme Two Nodes", "contact_email": "a@acme.example"})));
    assert_eq!(status, 201, "{body}");
    let (status, body) = json_of(cluster.b().create_tenant_raw(&json!({"organization_name": "  ACME two nodes ", "contact_email": "b@acme.example"})));
    assert_eq!(status, 409, "{body}");
    // Another tenant's project stays a 404 on either node.
    let stranger = cluster.b().create_tenant();
    for node in &cluster.nodes {
        assert_eq!(tenant_get(node, &stranger, &format!("/v1/projects/{project}")).0, 404);
    }
}

#[test]
fn an_interview_taken_through_one_node_is_listed_and_exported_from_the_other() {
    let Some(cluster) = Cluster::start("an_interview_taken_through_one_node_is_listed_and_exported_from_the_other", &[]) else {
        return;
    };
    let (a, b) = (cluster.a(), cluster.b());
    let tenant = b.create_tenant();
    let project = active_project(b, &tenant, json!({"interview_modes": ["typing", "talking"]}));

    // The whole interview through A: start, answers, a recording chunk, finish.
    let mut session = Session::start(a, &json!({"project_id": project, "mode": "talking", "identifier": "ada@example.com",
                                                "external_metadata": {"plan": "pro"}}));
    let answer = "We visited three daycares and chose the one closest to my office.";
    session.answer(a, answer);
    let audio: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
    let (status, recorded) = json_of(
        a.request("PUT", &session.path("/recordings/audio/0"))
            .bearer_auth(&session.token)
            .header("content-type", "audio/webm;codecs=opus")
            .body(audio.clone())
            .send()
            .unwrap(),
    );
    assert_eq!((status, recorded), (StatusCode::OK, json!({"kind": "audio", "chunks": 1, "size": 3000})));
    session.complete(a);

    // B lists it, filters by its metadata, exports its transcript and serves the recording.
    let (status, listed) = tenant_get(b, &tenant, &format!("/v1/interviews?project_id={project}&external_metadata%5Bplan%5D=pro"));
    assert_eq!(status, 200, "{listed}");
    let ids: Vec<&Value> = listed["data"].as_array().unwrap().iter().map(|i| &i["interview_id"]).collect();
    assert_eq!(ids, vec![&json!(session.interview_id)]);
    let response = b.get(&format!("/v1/projects/{project}/interviews-export")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 200);
    let csv = response.text().unwrap();
    let row = csv.lines().find(|line| line.starts_with(&session.interview_id)).unwrap_or_else(|| panic!("{csv}"));
    assert!(row.contains("ada@example.com") && row.contains("COMPLETED"), "{row}");
    assert!(csv.contains(answer), "the transcript holds the answer given through A:\n{csv}");
    let response = b.get(&format!("/v1/interviews/{}/audio-export", session.interview_id)).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.bytes().unwrap() == audio, "B serves the bytes A stored (Redis)");
}

#[test]
fn rate_limits_count_per_ip_across_both_nodes() {
    let Some(cluster) = Cluster::start("rate_limits_count_per_ip_across_both_nodes", &[("rate_limit_per_minute", "12")]) else {
        return;
    };
    wait_for_fresh_window(20);
    // Twelve requests, six on each node: the budget of one client, not of each node.
    for n in 0..12 {
        let response = cluster.next().get("/v1/no-such-route").send().unwrap();
        assert_eq!(response.status(), 404, "request {n} is within the budget");
    }
    for node in &cluster.nodes {
        let response = node.get("/v1/no-such-route").send().unwrap();
        assert_eq!(response.status(), 429, "the 13th and 14th requests, whichever node");
        let retry_after: u64 = response.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=60).contains(&retry_after), "{retry_after}");
    }
}

/// sqld refuses a request while more requests wait for one of its connections
/// than its limit allows (`--max-concurrent-requests`: 429, "Too many
/// concurrent requests"); the statement did not run. The nodes try it again
/// (Spin's libSQL client, or the edge's own), as they do a write that met
/// another, and past the wait's bound answer 503 with `Retry-After`: never a
/// 500, and every project acknowledged is kept.
#[test]
fn a_libsql_server_at_its_limit_of_requests_costs_a_wait_never_a_500() {
    // One connection at a time, refusing as soon as two requests wait for it.
    let limits = ["--max-concurrent-connections", "1", "--max-concurrent-requests", "2"];
    let Some(cluster) = Cluster::start_with_sqld("a_libsql_server_at_its_limit_of_requests_costs_a_wait_never_a_500", &[], &limits)
    else {
        return;
    };
    let tenant = cluster.a().create_tenant();
    let clients = 16;
    let barrier = Barrier::new(clients);
    let answers: Vec<(String, StatusCode, Option<String>, Value)> = thread::scope(|scope| {
        let sent: Vec<_> = (0..clients)
            .map(|n| {
                let (node, tenant, barrier) = (&cluster.nodes[n % 2], &tenant, &barrier);
                scope.spawn(move || {
                    let name = format!("Burst {n}");
                    barrier.wait();
                    let response = node.post("/v1/projects").auth(tenant).json(&project_body(json!({"project_name": name}))).send().unwrap();
                    let retry_after = response.headers().get("retry-after").map(|value| value.to_str().unwrap().to_string());
                    let (status, body) = json_of(response);
                    (name, status, retry_after, body)
                })
            })
            .collect();
        sent.into_iter().map(|client| client.join().unwrap()).collect()
    });

    let created: Vec<&(String, StatusCode, Option<String>, Value)> = answers.iter().filter(|(_, status, _, _)| *status == 201).collect();
    for (name, status, retry_after, body) in &answers {
        match status.as_u16() {
            201 => {}
            503 => {
                assert_detail_error(body, "storage_unavailable");
                // 1 s past the wait for a busy database, 2 s for one out of reach.
                let retry_after: u64 = retry_after.as_deref().unwrap_or_default().parse().unwrap_or_default();
                assert!((1..=2).contains(&retry_after), "{name}: Retry-After {retry_after}: {body}");
            }
            other => panic!("{name}: {other} {body}\n{}", cluster.logs()),
        }
    }
    assert!(created.len() > clients / 2, "most of the burst gets through: {} of {clients}\n{}", created.len(), cluster.logs());
    for (name, _, _, body) in &created {
        let id = body["project_id"].as_str().unwrap();
        let (status, project) = tenant_get(cluster.b(), &tenant, &format!("/v1/projects/{id}"));
        assert_eq!((status, &project["project_name"]), (StatusCode::OK, &json!(name)), "{id}");
    }
    let stored = cluster.sqld.scalar(&format!("SELECT count(*) FROM projects WHERE tenant_id = '{}'", tenant.tenant_id));
    assert_eq!(stored.as_u64().unwrap() as usize, created.len(), "a 503 wrote nothing");
}

#[test]
fn a_fresh_database_migrated_by_both_nodes_at_once_is_migrated_once() {
    let Some(cluster) = Cluster::start("a_fresh_database_migrated_by_both_nodes_at_once_is_migrated_once", &[]) else {
        return;
    };
    // Nothing has touched the database yet: the nodes open it lazily.
    assert_eq!(cluster.sqld.scalar("SELECT count(*) FROM sqlite_master"), json!(0));
    // Every node's first requests at the same moment, each migrating what it finds.
    let requests = 12;
    let barrier = Barrier::new(requests);
    let statuses: Vec<(u16, String)> = thread::scope(|scope| {
        let workers: Vec<_> = (0..requests)
            .map(|n| {
                let node = &cluster.nodes[n % 2];
                let barrier = &barrier;
                scope.spawn(move || {
                    let client = Client::new();
                    barrier.wait();
                    let response = client
                        .post(node.url("/v1/tenants"))
                        .header("X-Api-Key", &node.partner_key)
                        .header("X-Tenant-Id", PARTNER_TENANT_ID)
                        .json(&json!({"organization_name": format!("First {n}"), "contact_email": "ops@first.example"}))
                        .send()
                        .unwrap();
                    (response.status().as_u16(), response.text().unwrap())
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for (status, body) in &statuses {
        assert_eq!(*status, 201, "every first request succeeds: {body}\n{}", cluster.logs());
    }
    // One schema, at the latest version, each migration recorded once.
    assert_eq!(cluster.sqld.scalar("PRAGMA user_version"), json!(latest_version()));
    let versions: Vec<i64> =
        cluster.sqld.query("SELECT version FROM schema_migrations ORDER BY version").iter().map(|r| r[0].as_i64().unwrap()).collect();
    assert_eq!(versions, (1..=latest_version()).collect::<Vec<_>>());
    assert_eq!(cluster.sqld.scalar("SELECT count(*) FROM tenants"), json!(requests));
    // And the nodes go on with it as it is.
    let tenant = cluster.b().create_tenant();
    create_project(cluster.a(), &tenant, &project_body(json!({})));
    assert_eq!(cluster.sqld.query("SELECT version FROM schema_migrations").len() as i64, latest_version());
}

// ---------------------------------------------------------------------------
// Webhooks: a receiver that answers each event's first request one way
// (500, or not at all) and every later one 200, recording them all.

#[derive(Clone, Copy)]
enum FirstAttempt {
    /// 500 at once.
    Fails,
    /// No answer until the sender goes away (or a minute passes).
    Hangs,
}

struct Received {
    event_id: String,
    body: Value,
    /// What the receiver answered (None: nothing).
    answered: Option<u16>,
}

struct Receiver {
    addr: SocketAddr,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Receiver {
    fn start(first: FirstAttempt) -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let received: Arc<Mutex<Vec<Received>>> = Arc::default();
        let state = received.clone();
        thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = state.clone();
                thread::spawn(move || serve_one(stream, &state, first));
            }
        });
        Receiver { addr, received }
    }

    fn url(&self) -> String {
        format!("http://{}/hooks", self.addr)
    }

    /// Requests received per X-Event-ID, with what each was answered, in order.
    fn by_event(&self) -> BTreeMap<String, Vec<Option<u16>>> {
        let mut out: BTreeMap<String, Vec<Option<u16>>> = BTreeMap::new();
        for r in self.received.lock().unwrap().iter() {
            out.entry(r.event_id.clone()).or_default().push(r.answered);
        }
        out
    }

    fn count(&self) -> usize {
        self.received.lock().unwrap().len()
    }

    fn wait_for(&self, count: usize, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while self.count() < count {
            assert!(Instant::now() < deadline, "expected {count} webhook requests, got {}", self.count());
            thread::sleep(Duration::from_millis(20));
        }
    }
}

fn serve_one(stream: TcpStream, state: &Mutex<Vec<Received>>, first: FirstAttempt) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut length = 0;
    let mut chunked = false;
    let mut event_id = String::new();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap_or(0) == 0 || header.trim().is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            match name.trim().to_ascii_lowercase().as_str() {
                "content-length" => length = value.trim().parse().unwrap_or(0),
                "transfer-encoding" => chunked = value.contains("chunked"),
                "x-event-id" => event_id = value.trim().to_string(),
                _ => {}
            }
        }
    }
    let mut body = vec![0; length];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    while chunked {
        let mut size = String::new();
        if reader.read_line(&mut size).unwrap_or(0) == 0 {
            return;
        }
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        let mut chunk = vec![0; size + 2];
        if reader.read_exact(&mut chunk).is_err() {
            return;
        }
        body.extend_from_slice(&chunk[..size]);
        chunked = size > 0;
    }
    let answer = {
        let mut received = state.lock().unwrap();
        let seen = received.iter().any(|r| r.event_id == event_id);
        let answer = match (seen, first) {
            (true, _) => Some(200),
            (false, FirstAttempt::Fails) => Some(500),
            (false, FirstAttempt::Hangs) => None,
        };
        received.push(Received { event_id, body: serde_json::from_slice(&body).unwrap_or(Value::Null), answered: answer });
        answer
    };
    let mut stream = stream;
    match answer {
        Some(status) => {
            let _ = stream.write_all(format!("HTTP/1.1 {status} Scripted\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok").as_bytes());
        }
        None => {
            // Until the sender closes the connection (it was killed) or a minute passes.
            stream.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            let _ = stream.read(&mut [0; 1]);
        }
    }
}

/// A tenant subscribed (confirmed) to `project.published` at the receiver,
/// its secret made on one node and its subscription confirmed on the other.
fn subscribed_tenant(cluster: &Cluster, receiver: &Receiver) -> TenantCredentials {
    let tenant = cluster.a().create_tenant();
    let post = |node: &TestApp, path: &str, body: Value| json_of(node.post(path).auth(&tenant).json(&body).send().unwrap());
    let (status, body) = post(cluster.a(), "/v1/webhooks/secrets", json!({"workspace_id": tenant.tenant_id}));
    assert_eq!(status, 201, "{body}");
    let (status, body) = post(
        cluster.b(),
        "/v1/webhooks/subscriptions",
        json!({"workspace_id": tenant.tenant_id, "event_type": "project.published", "target_url": receiver.url()}),
    );
    assert_eq!(status, 201, "{body}");
    let (status, body) = post(
        cluster.a(),
        &format!("/v1/webhooks/subscriptions/{}", body["id"].as_str().unwrap()),
        json!({"secret": body["x_hook_secret"]}),
    );
    assert_eq!(status, 200, "{body}");
    tenant
}

/// Publishes `count` projects round robin; returns their ids.
fn publish(cluster: &Cluster, tenant: &TenantCredentials, count: usize) -> BTreeSet<String> {
    (0..count).map(|_| active_project(cluster.next(), tenant, json!({}))).collect()
}

fn deliveries(node: &TestApp, tenant: &TenantCredentials) -> Vec<Value> {
    let (status, body) = tenant_get(node, tenant, "/v1/webhooks/deliveries?limit=100");
    assert_eq!(status, 200, "{body}");
    body.as_array().unwrap().clone()
}

#[test]
fn both_nodes_maintenance_runs_send_each_attempt_once() {
    let Some(cluster) = Cluster::start(
        "both_nodes_maintenance_runs_send_each_attempt_once",
        &[("webhook_retry_base_seconds", "1,1"), ("webhook_timeout_seconds", "5"), ("webhook_lease_seconds", "10")],
    ) else {
        return;
    };
    let receiver = Receiver::start(FirstAttempt::Fails);
    let tenant = subscribed_tenant(&cluster, &receiver);
    let projects = publish(&cluster, &tenant, 6);

    // Both nodes run maintenance at the same moments until every event got
    // its failing first attempt and its successful retry (due within 1 s).
    let deadline = Instant::now() + Duration::from_secs(60);
    let all_delivered = || deliveries(cluster.a(), &tenant).iter().all(|d| d["status"] == "delivered");
    while receiver.count() < 2 * projects.len() || !all_delivered() {
        assert!(Instant::now() < deadline, "deliveries so far: {:?}", receiver.by_event());
        maintenance_on_both_at_once(&cluster);
        thread::sleep(Duration::from_millis(200));
    }
    // A few more rounds change nothing: everything is delivered.
    for _ in 0..3 {
        maintenance_on_both_at_once(&cluster);
    }
    let by_event = receiver.by_event();
    assert_eq!(by_event.len(), projects.len(), "one event per published project: {by_event:?}");
    for (event_id, answers) in &by_event {
        assert_eq!(
            answers,
            &vec![Some(500), Some(200)],
            "event {event_id}: each attempt sent once, the retry with the same X-Event-ID; deliveries: {:#}",
            json!(deliveries(cluster.a(), &tenant))
        );
    }
    let published: BTreeSet<String> = receiver
        .received
        .lock()
        .unwrap()
        .iter()
        .map(|r| r.body["project_id"].as_str().unwrap_or_default().to_string())
        .collect();
    assert_eq!(published, projects, "the events are the published projects");
    // Either node's delivery log says so.
    for node in &cluster.nodes {
        let log = deliveries(node, &tenant);
        assert_eq!(log.len(), projects.len());
        for delivery in &log {
            assert_eq!((&delivery["status"], &delivery["attempt_count"]), (&json!("delivered"), &json!(2)), "{delivery}");
            assert!(by_event.contains_key(delivery["event_id"].as_str().unwrap()), "{delivery}");
        }
    }
}

/// What one writer thread saw: the projects acknowledged (201) by each node,
/// and the answers that were neither 201 nor a refused connection.
#[derive(Default)]
struct Writes {
    acknowledged: Vec<(usize, String, String)>,
    failed_connections: [usize; 2],
    unexpected: Vec<(usize, String)>,
}

#[test]
fn a_killed_node_loses_nothing() {
    let Some(mut cluster) = Cluster::start(
        "a_killed_node_loses_nothing",
        &[("webhook_timeout_seconds", "5"), ("webhook_lease_seconds", "12"), ("webhook_retry_base_seconds", "1,1")],
    ) else {
        return;
    };
    let receiver = Receiver::start(FirstAttempt::Hangs);
    let tenant = subscribed_tenant(&cluster, &receiver);
    let published = publish(&cluster, &tenant, 3);

    // Write load through both nodes, round robin, from four clients.
    let stop = Arc::new(AtomicBool::new(false));
    let killed = Arc::new(AtomicBool::new(false));
    let urls: Vec<String> = cluster.nodes.iter().map(|n| n.url("/v1/projects")).collect();
    let writers: Vec<thread::JoinHandle<Writes>> = (0..4)
        .map(|w| {
            let (stop, killed, urls, tenant) = (stop.clone(), killed.clone(), urls.clone(), tenant.clone());
            thread::spawn(move || {
                let client = Client::builder().timeout(Duration::from_secs(30)).build().unwrap();
                let mut writes = Writes::default();
                let mut n = 0;
                while !stop.load(Ordering::Relaxed) {
                    n += 1;
                    let node = (w + n) % 2;
                    let name = format!("Load {w}-{n}");
                    let killed_before = killed.load(Ordering::Relaxed);
                    let response = client
                        .post(&urls[node])
                        .header("X-Api-Key", &tenant.api_key)
                        .header("X-Tenant-Id", &tenant.tenant_id)
                        .json(&project_body(json!({"project_name": name})))
                        .send();
                    match response {
                        Ok(r) if r.status() == 201 => {
                            let id = r.json::<Value>().unwrap()["project_id"].as_str().unwrap().to_string();
                            writes.acknowledged.push((node, id, name));
                        }
                        Ok(r) => writes.unexpected.push((node, format!("{} {}", r.status(), r.text().unwrap_or_default()))),
                        // Node A went away (while this request was in flight, or before).
                        Err(_) if node == 0 && (killed_before || killed.load(Ordering::Relaxed)) => writes.failed_connections[node] += 1,
                        Err(e) => writes.unexpected.push((node, e.to_string())),
                    }
                }
                writes
            })
        })
        .collect();

    // Meanwhile A's maintenance run sends the three deliveries, which the
    // receiver holds without answering: A holds their leases when it dies.
    thread::sleep(Duration::from_millis(500));
    let a_run = {
        let url = cluster.a().url("/v1/maintenance/run");
        let token = cluster.token.clone();
        thread::spawn(move || Client::new().post(url).bearer_auth(token).timeout(Duration::from_secs(60)).send().map(|r| r.status()))
    };
    receiver.wait_for(published.len(), Duration::from_secs(30));
    let leased_at = Instant::now();
    thread::sleep(Duration::from_millis(500));
    killed.store(true, Ordering::Relaxed);
    cluster.nodes[0].process().kill();
    assert!(a_run.join().unwrap().is_err(), "A died in the middle of its run");

    // B keeps serving the writers; its run leaves A's leased deliveries alone.
    thread::sleep(Duration::from_secs(2));
    maintenance(cluster.b()).unwrap_or_else(|e| panic!("B's maintenance run: {e}\n{}", cluster.logs()));
    assert!(leased_at.elapsed() < Duration::from_secs(11), "the check ran while the leases held");
    assert_eq!(receiver.count(), published.len(), "nothing is sent twice while A's leases hold");
    stop.store(true, Ordering::Relaxed);
    let writes: Vec<Writes> = writers.into_iter().map(|w| w.join().unwrap()).collect();

    // Every write a client saw acknowledged is there, read through B.
    let acknowledged: Vec<&(usize, String, String)> = writes.iter().flat_map(|w| &w.acknowledged).collect();
    let unexpected: Vec<&(usize, String)> = writes.iter().flat_map(|w| &w.unexpected).collect();
    assert!(unexpected.is_empty(), "answers other than 201 (or A's refused connections): {unexpected:?}\n{}", cluster.logs());
    let by_node = |node| acknowledged.iter().filter(|(n, _, _)| *n == node).count();
    assert!(by_node(0) > 0 && by_node(1) > 0, "both nodes took writes: A {}, B {}", by_node(0), by_node(1));
    assert!(writes.iter().map(|w| w.failed_connections[0]).sum::<usize>() > 0, "writes went on after A died");
    for (_, id, name) in &acknowledged {
        let (status, project) = tenant_get(cluster.b(), &tenant, &format!("/v1/projects/{id}"));
        assert_eq!((status, &project["project_name"]), (StatusCode::OK, &json!(name)), "project {id}");
    }
    let stored = cluster.sqld.scalar(&format!("SELECT count(*) FROM projects WHERE tenant_id = '{}'", tenant.tenant_id));
    assert!(stored.as_u64().unwrap() as usize >= acknowledged.len() + published.len(), "{stored}");

    // Once A's leases expire, B sends those deliveries, with the same X-Event-IDs.
    let expiry = Duration::from_secs(12) + Duration::from_millis(500);
    thread::sleep(expiry.saturating_sub(leased_at.elapsed()));
    let deadline = Instant::now() + Duration::from_secs(30);
    let all_delivered = || deliveries(cluster.b(), &tenant).iter().all(|d| d["status"] == "delivered");
    while receiver.count() < 2 * published.len() || !all_delivered() {
        assert!(Instant::now() < deadline, "B resent only {:?}", receiver.by_event());
        maintenance(cluster.b()).unwrap_or_else(|e| panic!("B's maintenance run: {e}\n{}", cluster.logs()));
        thread::sleep(Duration::from_millis(200));
    }
    for (event_id, answers) in receiver.by_event() {
        assert_eq!(answers, vec![None, Some(200)], "event {event_id}: A's unanswered attempt, then B's");
    }
    for delivery in deliveries(cluster.b(), &tenant) {
        assert_eq!(delivery["status"], "delivered", "{delivery}");
    }
}
