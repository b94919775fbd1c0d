//! The model through Spin's own interface (`llm_provider=spin`,
//! docs/design-decisions.md, "The model through Spin"), under either runtime:
//! the runtime config's `[llm_compute] type = "remote_http"` with `api_type =
//! "open_ai"` points Spin (or the test host, which serves `fermyon:spin/llm` as
//! Spin 4.0.2 does) at a stand-in OpenAI-compatible server, a real HTTP server
//! on loopback in place of the third party an operator connects.
//!
//! Spin sends the component's one prompt string as one user message and
//! answers the completion alone; the interviewer asks for each message alone,
//! the plan choosing probe or move on. Every interviewer message of the
//! interview must come from the model (`written_by: model`), none fall back.
//! A model the component's `ai_models` does not list is refused by Spin before
//! any request, and Spin's local engine without a model's files answers an
//! error: both leave the built-in interviewer to write every turn. Spin holds
//! one lock around every model call of the app: calls never overlap.

use e2e::fake_model::{FakeModel, ModelReply, ModelRequest};
use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};
use std::path::Path;
use std::time::Instant;

/// The stand-in: a summary when asked for one, else an interviewer message
/// numbered by the answers in the transcript (so none repeats one sent).
fn stand_in() -> FakeModel {
    FakeModel::start(|request: &ModelRequest| {
        let body = request.json();
        let prompt = body["messages"][0]["content"].as_str().unwrap_or_default().to_string();
        let answers = prompt.lines().filter(|l| l.starts_with("Interviewee:")).count();
        if prompt.contains("summarise") {
            return ModelReply::chat("MODEL SUMMARY: the parent chose the daycare closest to work.");
        }
        ModelReply::chat(&format!("MODEL {answers}: what happened right after that?"))
    })
}

/// A runtime config whose `[llm_compute]` is `remote_http` at the stand-in.
fn remote_http_config(dir: &Path, model: &FakeModel) -> std::path::PathBuf {
    let origin = model.base_url.trim_end_matches("/v1");
    let file = dir.join("runtime-config.toml");
    std::fs::write(
        &file,
        format!("[llm_compute]\ntype = \"remote_http\"\nurl = \"{origin}\"\nauth_token = \"e2e-spin-token\"\napi_type = \"open_ai\"\n"),
    )
    .unwrap();
    file
}

fn interviewer_turns(session: &Value) -> Vec<Value> {
    session["turns"].as_array().unwrap().iter().filter(|t| t["speaker"] == "interviewer").cloned().collect()
}

/// An interview answered until the interviewer closes, then finished; its
/// interviewer turns and the seconds each answer took.
fn interview(app: &TestApp, tenant: &TenantCredentials) -> (String, Vec<Value>, Vec<f64>) {
    let project_id = active_project(app, tenant, json!({}));
    let mut session = Session::start(app, &json!({"project_id": project_id, "mode": "typing"}));
    let answers = [
        "We compared three places and chose the one closest to work, mainly for the commute.",
        "The first one had a waiting list of eight months, so we dropped it.",
        "My partner visited the second one and disliked how loud the rooms were.",
        "The staff at ours knew every child's name on our first visit.",
        "Price mattered less than we expected once we saw the garden.",
        "I would ask other parents earlier instead of reading websites.",
        "We wasted weeks on reviews that turned out to be old.",
        "Nothing else, thank you.",
    ];
    let mut seconds = Vec::new();
    for answer in answers.iter().cycle().take(20) {
        if session.body["interviewer_closed"] == true {
            break;
        }
        let started = Instant::now();
        session.answer(app, answer);
        seconds.push(started.elapsed().as_secs_f64());
    }
    assert_eq!(session.body["interviewer_closed"], true, "{}", session.body);
    let (status, finished) = session.finish(app, true);
    assert_eq!(status, 200, "{finished}");
    (project_id, interviewer_turns(&session.body), seconds)
}

fn summary_of(app: &TestApp, tenant: &TenantCredentials, project_id: &str) -> String {
    let export = app.get(&format!("/v1/projects/{project_id}/interviews-export")).auth(tenant).send().unwrap().text().unwrap();
    let rows: Vec<Vec<String>> =
        csv::Reader::from_reader(export.as_bytes()).records().map(|r| r.unwrap().iter().map(str::to_string).collect()).collect();
    rows[0][11].clone()
}

#[test]
fn through_spins_remote_http_engine_every_interviewer_message_comes_from_the_model() {
    let model = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let runtime_config = remote_http_config(dir.path(), &model);
    let app = TestApp::start_configured(dir.path(), &[("llm_provider", "spin")], |config| {
        config.runtime_config_file = Some(runtime_config)
    });
    let tenant = app.create_tenant();
    let (project_id, turns, seconds) = interview(&app, &tenant);

    for turn in &turns {
        assert_eq!(turn["written_by"], "model", "every interviewer turn from the model: {turn}");
        assert!(turn["text"].as_str().unwrap().starts_with("MODEL "), "the stand-in's words, nothing of the prompt: {turn}");
    }
    let kinds: Vec<&str> = turns.iter().map(|t| t["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds.first(), Some(&"opening"));
    assert_eq!(kinds.last(), Some(&"closing"));
    assert!(kinds.contains(&"probe") && kinds.contains(&"question"), "the plan's probes and questions: {kinds:?}");
    assert!(summary_of(&app, &tenant, &project_id).starts_with("MODEL SUMMARY"), "the summary from the model too");

    // What Spin sent: one user message holding the whole prompt, the model
    // named as the component asked for it, the runtime config's bearer token.
    let requests = model.requests.lock().unwrap().clone();
    assert_eq!(requests.len(), turns.len() + 1, "one call per interviewer message and one for the summary");
    for request in &requests {
        assert_eq!(request.path, "/v1/chat/completions");
        assert!(request.authorization.eq_ignore_ascii_case("bearer e2e-spin-token"), "{}", request.authorization);
        let body = request.json();
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1, "{body}");
        assert_eq!(messages[0]["role"], "user");
        assert_eq!(body["model"], "llama2-chat", "the default Spin model, listed in the component's ai_models");
        let summary = body["messages"][0]["content"].as_str().unwrap().contains("summarise");
        assert_eq!(body["max_completion_tokens"], if summary { 1024 } else { 400 }, "the bound the component passes: {body}");
    }
    let asked = requests[1].json()["messages"][0]["content"].as_str().unwrap().to_string();
    assert!(asked.contains("Write only the message itself"), "the message alone is asked for: {asked}");
    assert!(asked.ends_with("Answer with the text only.\n"), "the plain prompt (llm_chat_format=none): {asked}");
    let mean = seconds.iter().sum::<f64>() / seconds.len() as f64;
    eprintln!(
        "spin llm: {} calls, 0 fallbacks, {} answers at {:.0} ms each on average (max {:.0} ms)",
        requests.len(),
        seconds.len(),
        mean * 1000.0,
        seconds.iter().cloned().fold(0.0, f64::max) * 1000.0
    );
}

#[test]
fn a_model_the_components_ai_models_do_not_list_is_refused_and_the_builtin_interviewer_writes() {
    let model = stand_in();
    let dir = tempfile::tempdir().unwrap();
    let runtime_config = remote_http_config(dir.path(), &model);
    let app = TestApp::start_configured(dir.path(), &[("llm_provider", "spin"), ("llm_model", "unlisted-model")], |config| {
        config.runtime_config_file = Some(runtime_config)
    });
    let tenant = app.create_tenant();
    let (_, turns, _) = interview(&app, &tenant);
    assert!(turns.iter().all(|t| t["written_by"] == "builtin"), "{turns:?}");
    assert!(model.requests.lock().unwrap().is_empty(), "Spin refuses before it calls the engine");
}

#[test]
fn spins_local_engine_without_the_models_files_leaves_every_turn_to_the_builtin_interviewer() {
    let dir = tempfile::tempdir().unwrap();
    // The model's directory, without its files.
    std::fs::create_dir_all(dir.path().join("ai-models/llama/llama2-chat")).unwrap();
    let app = TestApp::start_in(dir.path(), &[("llm_provider", "spin"), ("llm_chat_format", "llama3")]);
    let tenant = app.create_tenant();
    let (_, turns, _) = interview(&app, &tenant);
    assert!(turns.iter().all(|t| t["written_by"] == "builtin"), "{turns:?}");
    for turn in &turns {
        let text = turn["text"].as_str().unwrap();
        assert!(!text.contains("<|") && !text.contains("research interviewer"), "no prompt shown: {text}");
    }
}

#[test]
fn spin_serves_one_model_call_at_a_time_for_the_whole_app() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    let (in_flight, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (counting, highest) = (in_flight.clone(), most.clone());
    let model = FakeModel::start(move |_| {
        let now = counting.fetch_add(1, Ordering::SeqCst) + 1;
        highest.fetch_max(now, Ordering::SeqCst);
        std::thread::sleep(std::time::Duration::from_millis(300));
        counting.fetch_sub(1, Ordering::SeqCst);
        ModelReply::chat("MODEL: hello, and thank you for joining. How did you choose your current daycare?")
    });
    let dir = tempfile::tempdir().unwrap();
    let runtime_config = remote_http_config(dir.path(), &model);
    let app = TestApp::start_configured(dir.path(), &[("llm_provider", "spin")], |config| {
        config.runtime_config_file = Some(runtime_config)
    });
    let tenant = app.create_tenant();
    let project_id = active_project(&app, &tenant, json!({}));
    // Four participants open the link at once: each opening is a model call.
    let url = app.url("/v1/sessions");
    let body = json!({"project_id": project_id, "mode": "typing"});
    let openings: Vec<Value> = std::thread::scope(|scope| {
        let starts: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let response = reqwest::blocking::Client::new().post(&url).json(&body).send().unwrap();
                    assert_eq!(response.status(), 201);
                    response.json::<Value>().unwrap()
                })
            })
            .collect();
        starts.into_iter().map(|start| start.join().unwrap()).collect()
    });
    for opening in &openings {
        assert_eq!(interviewer_turns(opening)[0]["written_by"], "model", "{opening}");
    }
    assert_eq!(model.requests.lock().unwrap().len(), 4);
    assert_eq!(most.load(Ordering::SeqCst), 1, "Spin holds one lock around every call of the app");
}
