//! The app with its `default` key-value store on Redis, through Spin's runtime
//! config (`[key_value_store.default] type = "redis"`), as a production
//! deployment runs it: file chunks and recording chunks must land in Redis,
//! under the same keys the app uses (Spin's Redis store adds no prefix), and
//! nothing in the local `sqlite_key_value.db`; an erased interview's recording
//! leaves Redis, and was never readable there.
//!
//! Needs `redis-server` and `redis-cli` (`make test` installs them with
//! scripts/setup-redis.sh). Each test runs its own server on a free loopback
//! port, without persistence, killed when the test ends.

use e2e::services::RedisServer;
use e2e::sessions::{project_body, start_body};
use e2e::*;
use serde_json::json;
use std::path::Path;

const MIB: usize = 1024 * 1024;

/// A runtime config in its own directory putting the `default` key-value store on `redis`.
fn redis_runtime_config(redis: &RedisServer) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("runtime-config.toml"),
        format!("[key_value_store.default]\ntype = \"redis\"\nurl = \"{}\"\n", redis.url()),
    )
    .unwrap();
    dir
}

/// PNG-looking bytes of a given length (deterministic filler after the signature).
fn png(len: usize) -> Vec<u8> {
    let mut bytes = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, b'I', b'H', b'D', b'R'];
    let mut state: u32 = 0x9E37_79B9;
    while bytes.len() < len {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        bytes.push((state >> 24) as u8);
    }
    bytes
}

/// Keys of the local key-value file (Spin's default store without a runtime
/// config) that match a SQL LIKE pattern; none when the file does not exist.
fn local_keys(state_dir: &Path, like: &str) -> Vec<String> {
    let path = state_dir.join("sqlite_key_value.db");
    if !path.exists() {
        return Vec::new();
    }
    let conn = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let has_table: bool = conn
        .query_row("SELECT count(*) > 0 FROM sqlite_master WHERE name = 'spin_key_value'", [], |r| r.get(0))
        .unwrap();
    if !has_table {
        return Vec::new();
    }
    let mut statement = conn.prepare("SELECT key FROM spin_key_value WHERE key LIKE ?").unwrap();
    let keys = statement.query_map([like], |r| r.get(0)).unwrap().map(Result::unwrap).collect();
    keys
}

/// The app on a fresh state directory with `redis` as its key-value store; the
/// directories (runtime config, state) must outlive it.
fn app_on_redis(redis: &RedisServer) -> (TestApp, [tempfile::TempDir; 2]) {
    let config_dir = redis_runtime_config(redis);
    let state = tempfile::tempdir().unwrap();
    let runtime_config = config_dir.path().join("runtime-config.toml");
    let app = TestApp::start_configured(state.path(), &[], |config| config.runtime_config_file = Some(runtime_config));
    (app, [config_dir, state])
}

#[test]
fn files_and_recordings_live_in_redis_when_the_runtime_config_says_so() {
    e2e::on_spin_sqlite("their runtime config puts the key-value store in Redis beside Spin's database");
    let redis = RedisServer::start();
    let (app, _dirs) = app_on_redis(&redis);
    let tenant = app.create_tenant();

    // A file upload and download round trip: two chunks (1 MiB each at most).
    let bytes = png(MIB + MIB / 2 + 7);
    let (content_type, body) = Multipart::new()
        .file("file", "upload.png", "application/octet-stream", &bytes)
        .text("mime_type", "image/png")
        .text("purpose", "survey")
        .finish();
    let (status, uploaded) =
        json_of(app.post("/v1/files").auth(&tenant).header("Content-Type", content_type).body(body).send().unwrap());
    assert_eq!(status, 200, "{uploaded}");
    let file_id = uploaded["file_id"].as_str().unwrap().to_string();
    let response = app.get(&format!("/v1/files/{file_id}")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "image/png");
    assert!(response.bytes().unwrap() == bytes, "the download returns the uploaded bytes");

    // The chunks are in Redis under the app's own keys, byte for byte.
    let chunk_keys = redis.scan(&format!("file:{file_id}:*"));
    assert_eq!(chunk_keys, vec![format!("file:{file_id}:0"), format!("file:{file_id}:1")]);
    assert_eq!(redis.strlen(&chunk_keys[0]), MIB);
    assert_eq!(redis.strlen(&chunk_keys[1]), bytes.len() - MIB);
    let mut stored = redis.get(&chunk_keys[0]);
    stored.extend(redis.get(&chunk_keys[1]));
    assert!(stored == bytes, "Redis holds the file's bytes");

    // A recording chunk of a talking interview.
    let (interview_id, token) = talking_interview(&app, &tenant, "Redis study");
    let audio: Vec<u8> = (0..1500u32).map(|i| (i * 7 % 256) as u8).collect();
    let (status, recorded) = json_of(
        app.request("PUT", &format!("/v1/sessions/{interview_id}/recordings/audio/0"))
            .bearer_auth(&token)
            .header("content-type", "audio/webm;codecs=opus")
            .body(audio.clone())
            .send()
            .unwrap(),
    );
    assert_eq!((status, recorded), (StatusCode::OK, json!({"kind": "audio", "chunks": 1, "size": 1500})));
    let recording_keys = redis.scan(&format!("recording:{interview_id}:audio:0:*"));
    assert_eq!(recording_keys.len(), 1, "{recording_keys:?}");
    // Sealed with the interview's key (docs/interviews.md, "Erasure"): a version
    // byte, a nonce and a tag more than the chunk, and none of its bytes in the clear.
    assert_eq!(redis.strlen(&recording_keys[0]), audio.len() + sealing::OVERHEAD);
    let stored = redis.get(&recording_keys[0]);
    assert!(!stored.windows(64).any(|window| audio.windows(64).any(|part| part == window)), "no run of the audio in Redis");
    let exported = app.get(&format!("/v1/interviews/{interview_id}/audio-export")).auth(&tenant).send().unwrap();
    assert!(exported.bytes().unwrap() == audio, "the export opens it");

    // Nothing of it went to the local key-value file.
    assert_eq!(local_keys(&app.state_dir, "file:%"), Vec::<String>::new());
    assert_eq!(local_keys(&app.state_dir, "recording:%"), Vec::<String>::new());
    // The records themselves stay in the default SQLite database, as before.
    assert!(app.state_dir.join("sqlite_db.db").exists());
}

/// An interview's recording in Redis is sealed: no byte of its marker in any
/// value (`GET`) or serialized value (`DUMP`); once the interview is erased and
/// a maintenance run has passed, its keys are gone.
#[test]
fn an_erased_interviews_recording_leaves_redis_and_was_never_readable_there() {
    e2e::on_spin_sqlite("their runtime config puts the key-value store in Redis beside Spin's database");
    let redis = RedisServer::start();
    let (app, _dirs) = app_on_redis(&redis);
    let tenant = app.create_tenant();
    let (interview_id, token) = talking_interview(&app, &tenant, "Redis erasure study");
    let marker = format!("REDIS-VOICE-MARKER-{}", uuid::Uuid::new_v4().simple());
    let mut audio = png(300_000);
    for at in [0, 150_000, audio.len() - marker.len()] {
        audio[at..at + marker.len()].copy_from_slice(marker.as_bytes());
    }
    for (index, chunk) in audio.chunks(100_000).enumerate() {
        let response = app
            .request("PUT", &format!("/v1/sessions/{interview_id}/recordings/audio/{index}"))
            .bearer_auth(&token)
            .header("content-type", "audio/webm")
            .body(chunk.to_vec())
            .send()
            .unwrap();
        assert_eq!(response.status(), 200);
    }
    let holds_marker = |bytes: &[u8]| bytes.windows(marker.len()).any(|window| window == marker.as_bytes());
    let everything = |redis: &RedisServer| -> Vec<(String, Vec<u8>, Vec<u8>)> {
        redis.scan("*").into_iter().map(|key| (key.clone(), redis.cli(&["GET", &key]), redis.cli(&["DUMP", &key]))).collect()
    };
    assert_eq!(redis.scan(&format!("recording:{interview_id}:*")).len(), 3);
    for (key, value, dump) in everything(&redis) {
        assert!(!holds_marker(&value) && !holds_marker(&dump), "{key} holds the recording in the clear");
    }
    let exported = app.get(&format!("/v1/interviews/{interview_id}/audio-export")).auth(&tenant).send().unwrap();
    assert!(exported.bytes().unwrap() == audio, "the export opens the sealed chunks");

    let erased = app.request("DELETE", &format!("/v1/interviews/{interview_id}")).auth(&tenant).send().unwrap();
    assert_eq!(erased.status(), 204);
    app.host.run_cron("maintenance").unwrap();
    assert_eq!(redis.scan(&format!("recording:{interview_id}:*")), Vec::<String>::new(), "the chunks are deleted");
    for (key, value, dump) in everything(&redis) {
        assert!(!holds_marker(&value) && !holds_marker(&dump), "{key} holds the recording in the clear");
    }
    let response = app.get(&format!("/v1/interviews/{interview_id}/audio-export")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 404);
}

/// An active talking project named `name` and a production interview started
/// on it: (interview id, session token).
fn talking_interview(app: &TestApp, tenant: &TenantCredentials, name: &str) -> (String, String) {
    let mut project = project_body(json!({"interview_modes": ["talking"]}));
    project["project_name"] = json!(name);
    let (status, created) = json_of(app.post("/v1/projects").auth(tenant).json(&project).send().unwrap());
    assert_eq!(status, 201, "{created}");
    let project_id = created["project_id"].as_str().unwrap().to_string();
    let (status, activated) = json_of(app.post(&format!("/v1/projects/{project_id}/activate")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{activated}");
    let mut start = start_body(&project_id, "production");
    start["mode"] = json!("talking");
    let (status, session) = json_of(app.post("/v1/sessions").json(&start).send().unwrap());
    assert_eq!(status, 201, "{session}");
    let field = |name: &str| session[name].as_str().unwrap().to_string();
    (field("interview_id"), field("session_token"))
}
