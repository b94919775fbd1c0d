//! The sentence model inside a component under the selected runtime
//! (tests/fixtures/bench-embed): the component's `files` mounted read-only
//! where Spin 4.0.2 puts them, in both of the manifest's forms, and
//! all-MiniLM-L6-v2 run from the mounted model giving the reference vectors.
//!
//! Needs the model's files and the component, which the default build leaves
//! out: `scripts/setup-model.sh` and `scripts/build-wasm.sh -p bench-embed`
//! (`make model`; `make test` does both).

use e2e::{workspace_root, Runtime, Server};
use serde_json::Value;
use spin_host::HostConfig;
use std::time::Duration;

fn start() -> (Server, tempfile::TempDir) {
    let root = workspace_root();
    let wasm = root.join("target/wasm32-wasip2/release/bench_embed.wasm");
    assert!(wasm.exists(), "{} is missing: run `make model` (or `make test`) first", wasm.display());
    let model = root.join("target/models/all-minilm-l6-v2/model.safetensors");
    assert!(model.exists(), "{} is missing: run `make model` (or `make test`) first", model.display());
    let state = tempfile::tempdir().unwrap();
    let mut config = HostConfig::new(root.join("tests/fixtures/bench-embed/spin.toml"));
    config.state_dir = state.path().to_path_buf();
    (Server::start(&Runtime::selected(), config), state)
}

fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder().timeout(Duration::from_secs(120)).build().unwrap()
}

fn get(server: &Server, path: &str) -> (u16, String) {
    let response = client().get(format!("{}/files{path}", server.base_url())).send().unwrap();
    (response.status().as_u16(), response.text().unwrap())
}

#[test]
fn mounted_files_are_where_spin_puts_them_and_read_only() {
    let (server, _state) = start();
    // The placed directory at its destination, the path-form file at its own path.
    assert_eq!(get(&server, "/"), (200, "model\nmounted".to_string()));
    let (status, model) = get(&server, "/model/");
    assert_eq!(status, 200);
    for name in ["config.json", "model.safetensors", "tokenizer.json"] {
        assert!(model.lines().any(|line| line == name), "{name} in /model: {model}");
    }
    let config = std::fs::read_to_string(workspace_root().join("target/models/all-minilm-l6-v2/config.json")).unwrap();
    assert_eq!(get(&server, "/model/config.json"), (200, config));
    let note = std::fs::read_to_string(workspace_root().join("tests/fixtures/bench-embed/mounted/note.txt")).unwrap();
    assert_eq!(get(&server, "/mounted/note.txt"), (200, note.clone()));
    // Nothing else of the host's filesystem.
    assert_eq!(get(&server, "/etc/passwd").0, 404);
    // Writes are refused: a new file, an existing one, in either mount.
    for path in ["/model/new.txt", "/model/config.json", "/mounted/note.txt", "/new.txt"] {
        let response = client().put(format!("{}/files{path}", server.base_url())).body("overwritten").send().unwrap();
        assert_eq!(response.status(), 403, "{path} was written: {}", response.text().unwrap());
    }
    assert_eq!(get(&server, "/mounted/note.txt"), (200, note));
    assert_eq!(get(&server, "/new.txt").0, 404);
    server.stop();
}

#[test]
fn the_model_gives_the_reference_vectors_from_its_mount() {
    let reference: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace_root().join("components/sentence-model/tests/minilm-reference.json")).unwrap(),
    )
    .unwrap();
    let sentences = reference["sentences"].as_array().unwrap();
    let texts: Vec<&str> = sentences.iter().map(|sentence| sentence["text"].as_str().unwrap()).collect();
    let (server, _state) = start();
    let embed = |texts: &[&str]| -> Value {
        let response = client().post(format!("{}/embed", server.base_url())).json(&texts).send().unwrap();
        assert_eq!(response.status(), 200);
        response.json().unwrap()
    };
    let answer = embed(&texts);
    assert_eq!(answer["model"], "all-MiniLM-L6-v2");
    let vectors = answer["vectors"].as_array().unwrap();
    assert_eq!(vectors.len(), texts.len());
    for (sentence, vector) in sentences.iter().zip(vectors) {
        let expected = sentence["vector"].as_array().unwrap();
        let vector = vector.as_array().unwrap();
        assert_eq!(vector.len(), 384);
        let difference = expected.iter().zip(vector).map(|(a, b)| (a.as_f64().unwrap() - b.as_f64().unwrap()).abs()).fold(0.0, f64::max);
        assert!(difference <= 1e-5, "{:?}: {difference} from the reference", sentence["text"]);
    }
    // The model card's example, as the component computes it.
    let answer = embed(&["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."]);
    let vectors: Vec<Vec<f64>> = serde_json::from_value(answer["vectors"].clone()).unwrap();
    let cosine = |a: usize, b: usize| -> f64 {
        let dot: f64 = vectors[a].iter().zip(&vectors[b]).map(|(x, y)| x * y).sum();
        (dot * 10_000.0).round() / 10_000.0
    };
    assert_eq!([cosine(0, 1), cosine(0, 2), cosine(1, 2)], [0.6660, 0.1046, 0.1411]);
    // Not a JSON array of sentences: a 400 that says so.
    let response = client().post(format!("{}/embed", server.base_url())).body("{\"a\": 1}").send().unwrap();
    assert_eq!(response.status(), 400);
    server.stop();
}
