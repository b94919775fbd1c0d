//! The optional language model (docs/api-contract.md, "Language models").
//!
//! Spin variables: `llm_provider` (`none` default | `spin` | `openai`),
//! `llm_base_url` (OpenAI-compatible API root, e.g. `https://api.openai.com/v1`),
//! `llm_api_key` (secret, sent as a bearer token when set), `llm_model`, and
//! `llm_timeout_seconds` (default 20) for one call.
//!
//! Callers never depend on the model: any failure (not configured, unreachable,
//! slow, a malformed answer) is an [`LlmError`] they answer with their built-in
//! deterministic logic. Answers are parsed strictly by [`parse_json_answer`].

use crate::config;
use crate::outbound;
use serde_json::{json, Map, Value};
use std::time::Duration;

pub const DEFAULT_TIMEOUT_SECONDS: u64 = 20;
pub const DEFAULT_SPIN_MODEL: &str = "llama2-chat";
const MAX_ANSWER_BYTES: usize = 256 * 1024;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Provider {
    None,
    /// Spin's `fermyon:spin/llm` interface (the component needs `ai_models`).
    Spin,
    /// `POST {llm_base_url}/chat/completions`.
    OpenAi,
}

#[derive(Debug, Clone)]
pub struct LlmConfig {
    pub provider: Provider,
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub timeout: Duration,
}

impl LlmConfig {
    pub fn disabled() -> LlmConfig {
        LlmConfig {
            provider: Provider::None,
            base_url: String::new(),
            api_key: None,
            model: String::new(),
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECONDS),
        }
    }

    /// Reads the Spin variables; an unknown provider, or `openai` without a base
    /// URL, is treated as `none`.
    pub fn from_variables() -> LlmConfig {
        let provider = match config::var_or("llm_provider", "none").trim().to_ascii_lowercase().as_str() {
            "spin" => Provider::Spin,
            "openai" => Provider::OpenAi,
            _ => Provider::None,
        };
        let base_url = config::var_or("llm_base_url", "").trim().trim_end_matches('/').to_string();
        let provider = if provider == Provider::OpenAi && base_url.is_empty() { Provider::None } else { provider };
        let default_model = if provider == Provider::Spin { DEFAULT_SPIN_MODEL } else { "" };
        LlmConfig {
            provider,
            base_url,
            api_key: config::var("llm_api_key"),
            model: config::var_or("llm_model", default_model),
            timeout: Duration::from_secs(config::var_u64("llm_timeout_seconds", DEFAULT_TIMEOUT_SECONDS).max(1)),
        }
    }

    pub fn enabled(&self) -> bool {
        self.provider != Provider::None
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LlmError {
    NotConfigured,
    Transport(String),
    Status(u16),
    /// The answer is not what was asked for.
    BadAnswer(String),
}

impl std::fmt::Display for LlmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LlmError::NotConfigured => f.write_str("no language model configured"),
            LlmError::Transport(reason) => write!(f, "language model unreachable: {reason}"),
            LlmError::Status(status) => write!(f, "language model answered HTTP {status}"),
            LlmError::BadAnswer(reason) => write!(f, "unusable language model answer: {reason}"),
        }
    }
}

/// The body of an OpenAI-compatible chat completion request asking for a JSON object.
pub fn chat_request(model: &str, system: &str, user: &str) -> Value {
    let mut body = json!({
        "messages": [
            { "role": "system", "content": system },
            { "role": "user", "content": user },
        ],
        "temperature": 0.2,
        "response_format": { "type": "json_object" },
    });
    if !model.is_empty() {
        body["model"] = Value::from(model);
    }
    body
}

/// `choices[0].message.content` of a chat completion response.
pub fn chat_answer(body: &[u8]) -> Result<String, LlmError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| LlmError::BadAnswer(format!("not JSON: {e}")))?;
    value
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| LlmError::BadAnswer("no choices[0].message.content".into()))
}

/// Asks the configured model; returns its raw text answer.
pub fn complete(config: &LlmConfig, system: &str, user: &str) -> Result<String, LlmError> {
    match config.provider {
        Provider::None => Err(LlmError::NotConfigured),
        Provider::OpenAi => {
            let url = format!("{}/chat/completions", config.base_url);
            let body = serde_json::to_vec(&chat_request(&config.model, system, user)).expect("JSON serializes");
            let bearer = config.api_key.as_ref().map(|key| format!("Bearer {key}"));
            let mut headers = vec![("content-type", "application/json"), ("accept", "application/json")];
            if let Some(bearer) = &bearer {
                headers.push(("authorization", bearer.as_str()));
            }
            let response = outbound::send("POST", &url, &headers, &body, config.timeout, MAX_ANSWER_BYTES)
                .map_err(|e| LlmError::Transport(e.to_string()))?;
            if response.status != 200 {
                return Err(LlmError::Status(response.status));
            }
            chat_answer(&response.body)
        }
        Provider::Spin => {
            // The host call has no timeout of its own; Spin bounds it by the model's
            // `max_tokens`.
            let prompt = format!("{system}\n\n{user}\n\nAnswer with the JSON object only.");
            let params = spin_sdk::llm::InferencingParams { max_tokens: 1024, temperature: 0.2, ..Default::default() };
            let model = spin_sdk::llm::InferencingModel::Other(&config.model);
            spin_sdk::llm::infer_with_options(model, &prompt, params)
                .map(|result| result.text)
                .map_err(|e| LlmError::Transport(format!("{e:?}")))
        }
    }
}

/// Parses a model's answer that must be one JSON object. A single Markdown code
/// fence around it is tolerated; anything else around it is not.
pub fn parse_json_answer(answer: &str) -> Result<Map<String, Value>, LlmError> {
    let mut text = answer.trim();
    if let Some(inner) = text.strip_prefix("```") {
        let inner = inner.strip_prefix("json").unwrap_or(inner);
        text = inner.strip_suffix("```").ok_or_else(|| LlmError::BadAnswer("unclosed code fence".into()))?.trim();
    }
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(map),
        Ok(_) => Err(LlmError::BadAnswer("not a JSON object".into())),
        Err(e) => Err(LlmError::BadAnswer(format!("not JSON: {e}"))),
    }
}

/// Exactly the `expected` keys, each a non-blank string of at most `max_chars`
/// characters (trimmed). Missing, extra or mistyped keys reject the whole answer.
pub fn exact_string_fields(
    map: &Map<String, Value>,
    expected: &[&str],
    max_chars: impl Fn(&str) -> usize,
) -> Result<Vec<String>, LlmError> {
    if map.len() != expected.len() {
        return Err(LlmError::BadAnswer(format!("expected exactly the keys {expected:?}")));
    }
    expected
        .iter()
        .map(|key| match map.get(*key) {
            Some(Value::String(text)) if !text.trim().is_empty() && text.trim().chars().count() <= max_chars(key) => {
                Ok(text.trim().to_string())
            }
            Some(_) => Err(LlmError::BadAnswer(format!("{key} is not a usable string"))),
            None => Err(LlmError::BadAnswer(format!("{key} is missing"))),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_answers_are_read_from_the_first_choice() {
        let body = br#"{"choices":[{"message":{"role":"assistant","content":"{\"a\":\"b\"}"}}]}"#;
        assert_eq!(chat_answer(body).unwrap(), r#"{"a":"b"}"#);
        assert!(matches!(chat_answer(b"{}"), Err(LlmError::BadAnswer(_))));
        assert!(matches!(chat_answer(b"<html>"), Err(LlmError::BadAnswer(_))));
    }

    #[test]
    fn answers_must_be_one_json_object() {
        assert!(parse_json_answer(r#" {"a": "b"} "#).is_ok());
        assert!(parse_json_answer("```json\n{\"a\": \"b\"}\n```").is_ok());
        assert!(parse_json_answer("Sure! {\"a\": \"b\"}").is_err());
        assert!(parse_json_answer("[1]").is_err());
        assert!(parse_json_answer("```json\n{\"a\": 1}").is_err());
    }

    #[test]
    fn string_fields_are_exact() {
        let limit = |_: &str| 10;
        let ok = parse_json_answer(r#"{"a": " x ", "b": "y"}"#).unwrap();
        assert_eq!(exact_string_fields(&ok, &["a", "b"], limit).unwrap(), vec!["x", "y"]);
        for bad in [r#"{"a": "x"}"#, r#"{"a": "x", "b": "y", "c": "z"}"#, r#"{"a": "x", "b": 1}"#, r#"{"a": "x", "b": "  "}"#, r#"{"a": "x", "b": "12345678901"}"#] {
            let map = parse_json_answer(bad).unwrap();
            assert!(exact_string_fields(&map, &["a", "b"], limit).is_err(), "{bad}");
        }
    }

    #[test]
    fn chat_requests_ask_for_json() {
        let body = chat_request("m", "sys", "usr");
        assert_eq!(body["model"], "m");
        assert_eq!(body["messages"][1]["content"], "usr");
        assert_eq!(body["response_format"]["type"], "json_object");
        assert!(chat_request("", "s", "u").get("model").is_none());
    }
}
