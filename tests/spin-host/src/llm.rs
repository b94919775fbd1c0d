//! `fermyon:spin/llm@2.0.0` as Spin 4.0.2 serves it (crates `spin-factor-llm`,
//! `spin-llm-local` and `spin-llm-remote-http` at tag v4.0.2).
//!
//! - A component may use only the models its manifest lists in `ai_models`;
//!   any other is refused with Spin's `invalid-input` message, before an engine
//!   is asked.
//! - One engine serves the whole app, behind one lock held for the whole call:
//!   one inference at a time, whichever component asks.
//! - The engine is the runtime config's `[llm_compute]`: `type = "remote_http"`
//!   (`url`, `auth_token`, `api_type = "open_ai"` or the default `"default"`),
//!   or `type = "spin"` and no `[llm_compute]` at all: the local engine.
//! - `remote_http` with `api_type = "open_ai"` POSTs one user message holding
//!   the whole prompt to `<url's origin>/v1/chat/completions` (`authorization:
//!   bearer <auth_token>`, `model`, `max_completion_tokens`,
//!   `frequency_penalty`), and answers `text` = `choices[0].message.content`: the
//!   completion alone. A body without `usage` or `choices`, or an `error`
//!   object, is a `runtime-error`, as in Spin. The `default` api type POSTs
//!   `{model, prompt, options}` to `/infer` and reads `{text, usage}`.
//! - The local engine looks for `<state dir>/ai-models/<arch>/<model>/`, and
//!   runs only the `llama` arch (any other directory is `model-not-supported`).
//!   Spin then loads `tokenizer.json`, `config.json`,
//!   `model.safetensors.index.json` and the files its weight map names, in f16,
//!   and answers the prompt *and* the completion decoded together (special
//!   tokens skipped). This host cannot run a model: it answers each missing
//!   file's error as Spin does, and with every file present a `runtime-error`
//!   that says it cannot run Llama (the gap: an echo from a real model is seen
//!   under `spin up` only; `platform`'s unit tests (`llm.rs`) hold its separation).
//! - Embeddings: the local engine knows only `all-minilm-l6-v2` (its
//!   directory missing is Spin's error; present, this host cannot run it);
//!   `remote_http` embeddings are not served here (a `runtime-error` says so).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Result};
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use serde_json::{json, Value};
use tokio::sync::Mutex;

use crate::bindings::spin::fermyon::spin::llm::{
    self, EmbeddingsResult, Error, InferencingParams, InferencingResult, InferencingUsage,
};
use crate::state::StoreState;

/// Spin's `MAX_HOST_BUFFERED_BYTES`: the most an answer may hold.
pub const MAX_RESULT_BYTES: usize = 128 << 20;
/// The embeddings model Spin's local engine knows.
const MODEL_ALL_MINILM_L6_V2: &str = "all-minilm-l6-v2";

/// `api_type` of a `remote_http` engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiType {
    OpenAi,
    Default,
}

/// The app's engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Engine {
    /// Spin's local engine, its models under `registry` (`<state dir>/ai-models`).
    Local { registry: PathBuf },
    /// `[llm_compute] type = "remote_http"`.
    RemoteHttp { url: http::Uri, auth_token: String, api_type: ApiType },
}

/// The one engine of an app, one call at a time.
pub type SharedEngine = Arc<Mutex<Engine>>;

/// `[llm_compute]` as Spin reads it: `None` when the runtime config has none.
pub fn parse_compute(value: &toml::Value) -> Result<Engine> {
    let table = value.as_table().ok_or_else(|| anyhow::anyhow!("invalid type: expected a table for llm_compute"))?;
    match table.get("type").and_then(toml::Value::as_str) {
        Some("spin") => Ok(Engine::Local { registry: PathBuf::new() }),
        Some("remote_http") => {
            let text = |key: &str| -> Result<String> {
                match table.get(key) {
                    Some(toml::Value::String(text)) => Ok(text.clone()),
                    Some(_) => bail!("invalid type for `{key}`: expected a string"),
                    None => bail!("missing field `{key}`"),
                }
            };
            let url_text = text("url")?;
            let url: http::Uri = url_text.parse().map_err(|e| anyhow::anyhow!("invalid url {url_text:?}: {e}"))?;
            if !matches!(url.scheme_str(), Some("http" | "https")) || url.authority().is_none() {
                bail!("invalid url {url_text:?}: only http:// and https:// URLs with a host are supported by this test host");
            }
            let api_type = match table.get("api_type").map(|v| v.as_str()) {
                None | Some(Some("default")) => ApiType::Default,
                Some(Some("open_ai")) => ApiType::OpenAi,
                Some(other) => bail!("unknown variant `{}`, expected `open_ai` or `default`", other.unwrap_or("?")),
            };
            Ok(Engine::RemoteHttp { url, auth_token: text("auth_token")?, api_type })
        }
        Some(other) => bail!("unknown variant `{other}`, expected `spin` or `remote_http`"),
        None => bail!("missing field `type`"),
    }
}

impl Engine {
    /// The engine for an app whose state directory is `state_dir`: `compute`
    /// from the runtime config, else (or for `type = "spin"`) the local engine.
    pub fn for_app(compute: Option<&Engine>, state_dir: &Path) -> Engine {
        match compute {
            Some(remote @ Engine::RemoteHttp { .. }) => remote.clone(),
            _ => Engine::Local { registry: state_dir.join("ai-models") },
        }
    }

    /// How Spin names the engine at start-up (`summary`).
    pub fn summary(&self) -> String {
        match self {
            Engine::Local { .. } => "local model".into(),
            Engine::RemoteHttp { url, .. } => format!("model at {url}"),
        }
    }

    pub async fn infer(&self, model: &str, prompt: String, params: InferencingParams) -> Result<InferencingResult, Error> {
        match self {
            Engine::Local { registry } => {
                let (dir, arch) = walk_registry(registry, model).await?;
                match arch.as_str() {
                    "llama" => Err(load_llama(&dir)),
                    _ => Err(Error::ModelNotSupported),
                }
            }
            Engine::RemoteHttp { url, auth_token, api_type } => {
                remote_infer(url, auth_token, *api_type, model, prompt, params).await
            }
        }
    }

    pub async fn generate_embeddings(&self, model: &str) -> Result<EmbeddingsResult, Error> {
        match self {
            Engine::Local { registry } => {
                if model != MODEL_ALL_MINILM_L6_V2 {
                    return Err(Error::ModelNotSupported);
                }
                let dir = registry.join(model);
                if !dir.exists() {
                    return Err(Error::RuntimeError(format!(
                        "The directory expected to house the embeddings models '{}' does not exist.",
                        dir.display()
                    )));
                }
                Err(Error::RuntimeError(format!(
                    "the test host (tests/spin-host) cannot run the embeddings model in '{}'; use spin up",
                    dir.display()
                )))
            }
            Engine::RemoteHttp { .. } => Err(Error::RuntimeError(
                "remote_http embeddings are not served by the test host (tests/spin-host); use spin up".into(),
            )),
        }
    }
}

/// Spin's `walk_registry_for_model`: the first `<arch>/<model>` directory.
async fn walk_registry(registry: &Path, model: &str) -> Result<(PathBuf, String), Error> {
    let arch_dirs = std::fs::read_dir(registry).map_err(|e| {
        Error::RuntimeError(format!("Could not read model registry directory '{}': {e}", registry.display()))
    })?;
    for arch_dir in arch_dirs {
        let arch_dir = arch_dir
            .map_err(|e| Error::RuntimeError(format!("Failed to read arch directory in model registry: {e}")))?;
        if arch_dir.path().is_file() {
            continue;
        }
        let model_dirs = std::fs::read_dir(arch_dir.path())
            .map_err(|e| Error::RuntimeError(format!("Error reading architecture directory in model registry: {e}")))?;
        for model_dir in model_dirs {
            let model_dir = model_dir
                .map_err(|e| Error::RuntimeError(format!("Error reading model folder in model registry: {e}")))?;
            if model_dir.path().is_file() {
                continue;
            }
            if model_dir.file_name().to_str() == Some(model) {
                let arch = arch_dir.file_name().to_str().ok_or(Error::ModelNotSupported)?.to_string();
                return Ok((model_dir.path(), arch));
            }
        }
    }
    Err(Error::InvalidInput(format!("no model directory found in registry for model '{model}'")))
}

/// What Spin's `LlamaModels::new` answers for `dir`: the error of the first
/// file it cannot read, in its order; all there, this host's own limit.
fn load_llama(dir: &Path) -> Error {
    let missing = |name: &str| !dir.join(name).is_file();
    // Tokenizer::from_file and fs::read: the I/O error's text.
    for name in ["tokenizer.json", "config.json"] {
        if missing(name) {
            return Error::RuntimeError("No such file or directory (os error 2)".into());
        }
    }
    let index = dir.join("model.safetensors.index.json");
    if missing("model.safetensors.index.json") {
        return Error::RuntimeError(format!("Could not read model index file: {index:?}"));
    }
    let weight_map = std::fs::read(&index)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Value>(&bytes).ok())
        .and_then(|json| json.get("weight_map").cloned());
    let files: HashSet<String> = match weight_map {
        Some(Value::Object(map)) => map.values().filter_map(Value::as_str).map(str::to_string).collect(),
        Some(_) => return Error::RuntimeError(format!("weight map in {index:?} is not a map")),
        None => return Error::RuntimeError(format!("no weight map in {index:?}")),
    };
    if files.iter().any(|file| missing(file)) {
        return Error::RuntimeError("No such file or directory (os error 2)".into());
    }
    Error::RuntimeError(format!(
        "the test host (tests/spin-host) cannot run the Llama model in '{}'; use spin up",
        dir.display()
    ))
}

/// Spin's `remote_http` engine.
async fn remote_infer(
    url: &http::Uri,
    auth_token: &str,
    api_type: ApiType,
    model: &str,
    prompt: String,
    params: InferencingParams,
) -> Result<InferencingResult, Error> {
    let (path, body) = match api_type {
        ApiType::OpenAi => (
            "/v1/chat/completions",
            json!({
                "messages": [{"role": "user", "content": prompt}],
                "model": model,
                "max_completion_tokens": params.max_tokens,
                "frequency_penalty": params.repeat_penalty,
            }),
        ),
        ApiType::Default => (
            "/infer",
            json!({
                "model": model,
                "prompt": prompt,
                "options": {
                    "maxTokens": params.max_tokens,
                    "repeatPenalty": params.repeat_penalty,
                    "repeatPenaltyLastNTokenCount": params.repeat_penalty_last_n_token_count,
                    "temperature": params.temperature,
                    "topK": params.top_k,
                    "topP": params.top_p,
                },
            }),
        ),
    };
    let bytes = post(url, path, auth_token, body.to_string())
        .await
        .map_err(|e| Error::RuntimeError(format!("POST {path} request error: {e}")))??;
    let answer: Option<Value> = serde_json::from_slice(&bytes).ok();
    let u32_at = |value: &Value, pointer: &str| value.pointer(pointer).and_then(Value::as_u64).map(|n| n as u32);
    match api_type {
        ApiType::OpenAi => {
            let Some(answer) = answer else {
                return Err(Error::RuntimeError(format!(
                    "Failed to deserialize response for \"POST  {path}\": not JSON"
                )));
            };
            // Spin's untagged `Success { choices, usage } | Error { error }`.
            let success = answer.get("choices").and_then(Value::as_array).and_then(|choices| {
                let text = match choices.first() {
                    Some(choice) => choice.pointer("/message/content")?.as_str()?.to_string(),
                    None => String::new(),
                };
                Some(InferencingResult {
                    text,
                    usage: InferencingUsage {
                        prompt_token_count: u32_at(&answer, "/usage/prompt_tokens")?,
                        generated_token_count: u32_at(&answer, "/usage/completion_tokens")?,
                    },
                })
            });
            if let Some(result) = success {
                return Ok(result);
            }
            match answer.pointer("/error/message").and_then(Value::as_str) {
                Some(message) => Err(Error::RuntimeError(message.to_string())),
                None => Err(Error::RuntimeError(format!(
                    "Failed to deserialize response for \"POST  {path}\": data did not match any variant of untagged enum CreateChatCompletionResponseKind"
                ))),
            }
        }
        ApiType::Default => {
            let result = answer.as_ref().and_then(|answer| {
                Some(InferencingResult {
                    text: answer.get("text")?.as_str()?.to_string(),
                    usage: InferencingUsage {
                        prompt_token_count: u32_at(answer, "/usage/promptTokenCount")?,
                        generated_token_count: u32_at(answer, "/usage/generatedTokenCount")?,
                    },
                })
            });
            result.ok_or_else(|| {
                Error::RuntimeError("Failed to deserialize response for \"POST  /index\": not an inference result".into())
            })
        }
    }
}

/// POSTs `body` to `path` at `url`'s origin (Spin joins an absolute path,
/// which replaces the URL's own); the response body whatever its status, as
/// Spin reads it, bounded by [`MAX_RESULT_BYTES`].
async fn post(
    url: &http::Uri,
    path: &str,
    auth_token: &str,
    body: String,
) -> Result<Result<Bytes, Error>, String> {
    let authority = url.authority().expect("checked when parsed");
    let target = format!("{}://{authority}{path}", url.scheme_str().unwrap_or("http"));
    let request = http::Request::post(&target)
        .header("authorization", format!("bearer {auth_token}"))
        .header("content-type", "application/json")
        .header("host", authority.as_str())
        .body(Full::new(Bytes::from(body)).map_err(|never| match never {}).boxed_unsync())
        .map_err(|e| e.to_string())?;
    let (response, io) = wasmtime_wasi_http::default_send_request(request, None).await.map_err(|e| e.to_string())?;
    let worker = tokio::spawn(io);
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| e.to_string())?;
        if let Ok(data) = frame.into_data() {
            bytes.extend_from_slice(&data);
            if bytes.len() > MAX_RESULT_BYTES {
                worker.abort();
                return Ok(Err(Error::RuntimeError(format!(
                    "query result exceeds limit of {MAX_RESULT_BYTES} bytes"
                ))));
            }
        }
    }
    worker.abort();
    Ok(Ok(Bytes::from(bytes)))
}

/// Spin's message when a component asks for a model its `ai_models` does not list.
fn access_denied(model: &str) -> Error {
    Error::InvalidInput(format!(
        "The component does not have access to use '{model}'. To give the component access, add '{model}' to the 'ai_models' key for the component in your spin.toml manifest"
    ))
}

/// Spin's parameters when a component passes none.
fn default_params() -> InferencingParams {
    InferencingParams {
        max_tokens: 100,
        repeat_penalty: 1.1,
        repeat_penalty_last_n_token_count: 64,
        temperature: 0.8,
        top_k: 40,
        top_p: 0.9,
    }
}

impl llm::Host for StoreState {
    async fn infer(
        &mut self,
        model: String,
        prompt: String,
        params: Option<InferencingParams>,
    ) -> wasmtime::Result<Result<InferencingResult, Error>> {
        if !self.component.ai_models.contains(&model) {
            return Ok(Err(access_denied(&model)));
        }
        let engine = self.app.llm.clone();
        let engine = engine.lock().await;
        let result = engine.infer(&model, prompt, params.unwrap_or_else(default_params)).await;
        if let Ok(answer) = &result {
            if std::mem::size_of::<InferencingResult>() + answer.text.len() > MAX_RESULT_BYTES {
                return Ok(Err(Error::RuntimeError(format!("query result exceeds limit of {MAX_RESULT_BYTES} bytes"))));
            }
        }
        Ok(result)
    }

    async fn generate_embeddings(
        &mut self,
        model: String,
        _text: Vec<String>,
    ) -> wasmtime::Result<Result<EmbeddingsResult, Error>> {
        if !self.component.ai_models.contains(&model) {
            return Ok(Err(access_denied(&model)));
        }
        let engine = self.app.llm.clone();
        let engine = engine.lock().await;
        Ok(engine.generate_embeddings(&model).await)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(future)
    }

    fn text_of(error: Error) -> String {
        match error {
            Error::RuntimeError(text) | Error::InvalidInput(text) => text,
            Error::ModelNotSupported => "model-not-supported".into(),
        }
    }

    #[test]
    fn the_local_engine_answers_as_spin_does_for_each_missing_file() {
        let state = tempfile::tempdir().unwrap();
        let engine = Engine::for_app(None, state.path());
        let infer = |engine: &Engine| run(engine.infer("llama2-chat", "Hi".into(), default_params())).map(|_| ()).unwrap_err();
        let error = text_of(infer(&engine));
        assert!(error.starts_with("Could not read model registry directory '"), "{error}");
        assert!(error.contains("ai-models"), "{error}");
        let registry = state.path().join("ai-models");
        std::fs::create_dir_all(registry.join("llama")).unwrap();
        assert_eq!(text_of(infer(&engine)), "no model directory found in registry for model 'llama2-chat'");
        std::fs::create_dir_all(registry.join("mistral/llama2-chat")).unwrap();
        assert!(matches!(infer(&engine), Error::ModelNotSupported));
        std::fs::remove_dir_all(registry.join("mistral")).unwrap();
        let dir = registry.join("llama/llama2-chat");
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(text_of(infer(&engine)), "No such file or directory (os error 2)");
        std::fs::write(dir.join("tokenizer.json"), "{}").unwrap();
        std::fs::write(dir.join("config.json"), "{}").unwrap();
        assert!(text_of(infer(&engine)).starts_with("Could not read model index file: \""));
        std::fs::write(dir.join("model.safetensors.index.json"), r#"{"weight_map": {"a": "model-1.safetensors"}}"#).unwrap();
        assert_eq!(text_of(infer(&engine)), "No such file or directory (os error 2)");
        std::fs::write(dir.join("model-1.safetensors"), "").unwrap();
        assert!(text_of(infer(&engine)).contains("cannot run the Llama model"));
    }

    #[test]
    fn llm_compute_is_read_as_spin_reads_it() {
        let parse = |text: &str| parse_compute(&toml::from_str::<toml::Table>(text).unwrap()["llm_compute"]);
        assert_eq!(parse("[llm_compute]\ntype = \"spin\"").unwrap(), Engine::Local { registry: PathBuf::new() });
        let remote = parse("[llm_compute]\ntype = \"remote_http\"\nurl = \"http://127.0.0.1:9/x\"\nauth_token = \"t\"\napi_type = \"open_ai\"").unwrap();
        assert_eq!(
            remote,
            Engine::RemoteHttp { url: "http://127.0.0.1:9/x".parse().unwrap(), auth_token: "t".into(), api_type: ApiType::OpenAi }
        );
        let default = parse("[llm_compute]\ntype = \"remote_http\"\nurl = \"https://m.example\"\nauth_token = \"t\"").unwrap();
        assert!(matches!(default, Engine::RemoteHttp { api_type: ApiType::Default, .. }));
        for bad in [
            "[llm_compute]\ntype = \"remote_http\"\nurl = \"http://127.0.0.1:9\"",
            "[llm_compute]\ntype = \"remote_http\"\nauth_token = \"t\"",
            "[llm_compute]\ntype = \"remote_http\"\nurl = \"http://h\"\nauth_token = \"t\"\napi_type = \"anthropic\"",
            "[llm_compute]\ntype = \"cloud\"",
            "[llm_compute]\nurl = \"http://h\"",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        let state = Path::new("/state");
        assert_eq!(Engine::for_app(Some(&Engine::Local { registry: PathBuf::new() }), state), Engine::Local { registry: state.join("ai-models") });
        assert_eq!(Engine::for_app(Some(&remote), state), remote);
    }
}
