//! The optional language model (docs/api-contract.md, "Language models").
//!
//! Spin variables: `llm_provider` (`none` default | `spin` | `openai`),
//! `llm_base_url` (OpenAI-compatible API root, e.g. `https://api.openai.com/v1`),
//! `llm_api_key` (secret, sent as a bearer token when set), `llm_model`, and
//! `llm_timeout_seconds` (default 20) for one call, and `llm_chat_format`
//! (`none` default | `llama3` | `chatml` | `llama2`): how the Spin provider
//! writes its one prompt string (docs/design-decisions.md, "The model through Spin").
//!
//! The model is one capability behind one trait, [`LanguageModel`], in the
//! style of Spin's factors: one implementation per way of reaching it
//! ([`OpenAiCompatible`], [`SpinLlm`]); [`LlmConfig::model`] picks the one the
//! variables name. Callers never depend on the model: any failure (not
//! configured, unreachable, slow, a malformed answer) is an [`LlmError`], and
//! [`ask_or_fall_back`] asks, parses and says why it falls back in one place,
//! so the caller answers with its built-in deterministic logic. Answers are
//! parsed strictly by [`parse_json_answer`].

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
    /// How the Spin provider lays out its prompt (the OpenAI route sends messages).
    pub chat_format: ChatFormat,
}

impl LlmConfig {
    pub fn disabled() -> LlmConfig {
        LlmConfig {
            provider: Provider::None,
            base_url: String::new(),
            api_key: None,
            model: String::new(),
            timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECONDS),
            chat_format: ChatFormat::None,
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
            chat_format: ChatFormat::parse(&config::var_or("llm_chat_format", "none")),
        }
    }

    pub fn enabled(&self) -> bool {
        self.provider != Provider::None
    }

    /// The model the variables name; none for `llm_provider=none`.
    pub fn model(&self) -> Option<Box<dyn LanguageModel + '_>> {
        match self.provider {
            Provider::None => None,
            Provider::OpenAi => Some(Box::new(OpenAiCompatible { config: self })),
            Provider::Spin => Some(Box::new(SpinLlm { model: &self.model, chat_format: self.chat_format })),
        }
    }

    /// Whether the configured model may be given a choice to make in a JSON
    /// object ([`LanguageModel::keeps_json`]); false without one.
    pub fn keeps_json(&self) -> bool {
        self.model().is_some_and(|model| model.keeps_json())
    }
}

/// One question to a model: its instructions, the task, what to answer with,
/// and how many tokens the answer may take where the route counts them.
#[derive(Debug, Clone, Copy)]
pub struct Question<'q> {
    pub system: &'q str,
    pub user: &'q str,
    pub answer: Answer,
    pub max_tokens: u32,
}

impl<'q> Question<'q> {
    /// A question answered with one JSON object.
    pub fn json(system: &'q str, user: &'q str) -> Question<'q> {
        Question { system, user, answer: Answer::Json, max_tokens: JSON_MAX_TOKENS }
    }

    /// A question answered with a text alone (a message, a summary) of at most `max_tokens`.
    pub fn text(system: &'q str, user: &'q str, max_tokens: u32) -> Question<'q> {
        Question { system, user, answer: Answer::Text, max_tokens }
    }
}

/// A language model, however it is reached.
pub trait LanguageModel {
    /// The model's answer to `question`, as text (a JSON object's text when
    /// one was asked for), before any parsing.
    fn ask(&self, question: Question) -> Result<String, LlmError>;

    /// Whether the model keeps an answer format of several decisions (a JSON
    /// object with a step and a message): an API that enforces
    /// `response_format` does; a model reached through Spin is whatever the
    /// operator runs, often a small one that keeps "write the message" only,
    /// so the plan decides and the model words.
    fn keeps_json(&self) -> bool;
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

/// What the caller asks the model to answer with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// One JSON object (the OpenAI route asks for `response_format: json_object`).
    Json,
    /// The text alone: one message, one summary.
    Text,
}

/// Tokens a JSON answer may take through Spin.
const JSON_MAX_TOKENS: u32 = 1024;

/// The configured model's answer to `question`: a text answer trimmed and never empty.
/// On the Spin route the prompt's own echo and anything after the model's turn
/// are cut off first ([`spin_completion`]); `max_tokens` bounds its answer (its
/// local engine generates them one by one, one call of the app at a time).
pub fn ask(config: &LlmConfig, question: Question) -> Result<String, LlmError> {
    let model = config.model().ok_or(LlmError::NotConfigured)?;
    let text = model.ask(question)?;
    match question.answer {
        Answer::Json => Ok(text),
        Answer::Text if text.trim().is_empty() => Err(LlmError::BadAnswer("an empty answer".into())),
        Answer::Text => Ok(text.trim().to_string()),
    }
}

/// The configured model's answer to `question`, parsed by `parse`; `None`
/// when no model is configured, and when its answer is unusable, with why on
/// stderr (`<caller>: <error>; <instead>`): the caller's built-in logic
/// answers instead. The one place every caller asks, parses and falls back.
pub fn ask_or_fall_back<T>(
    config: &LlmConfig,
    caller: &str,
    instead: &str,
    question: Question,
    parse: impl FnOnce(String) -> Result<T, LlmError>,
) -> Option<T> {
    if !config.enabled() {
        return None;
    }
    match ask(config, question).and_then(parse) {
        Ok(answer) => Some(answer),
        Err(error) => {
            eprintln!("{caller}: {error}; {instead}");
            None
        }
    }
}

/// `POST {llm_base_url}/chat/completions` of an OpenAI-compatible API.
pub struct OpenAiCompatible<'c> {
    config: &'c LlmConfig,
}

impl LanguageModel for OpenAiCompatible<'_> {
    fn ask(&self, question: Question) -> Result<String, LlmError> {
        let config = self.config;
        let url = format!("{}/chat/completions", config.base_url);
        let mut request = chat_request(&config.model, question.system, question.user);
        if question.answer == Answer::Text {
            request.as_object_mut().expect("an object").remove("response_format");
        }
        let body = serde_json::to_vec(&request).expect("JSON serializes");
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

    fn keeps_json(&self) -> bool {
        true
    }
}

/// Spin's `fermyon:spin/llm` `infer` (the component lists the model in `ai_models`).
pub struct SpinLlm<'c> {
    model: &'c str,
    chat_format: ChatFormat,
}

impl LanguageModel for SpinLlm<'_> {
    fn ask(&self, question: Question) -> Result<String, LlmError> {
        // The host call has no timeout of its own; Spin bounds it by the model's
        // `max_tokens`. Under Spin's local engine `text` is the prompt and the
        // completion decoded together; with `remote_http` it is the completion.
        let prompt = spin_prompt(self.chat_format, question.system, question.user, question.answer);
        let params = spin_sdk::llm::InferencingParams { max_tokens: question.max_tokens, temperature: 0.2, ..Default::default() };
        let model = spin_sdk::llm::InferencingModel::Other(self.model);
        let text = spin_sdk::llm::infer_with_options(model, &prompt, params)
            .map(|result| result.text)
            .map_err(|e| LlmError::Transport(format!("{e:?}")))?;
        spin_completion(self.chat_format, &prompt, &text)
    }

    fn keeps_json(&self) -> bool {
        false
    }
}

// ---------------------------------------------------------------------------
// The Spin route: one prompt string in, the decoded tokens out

/// How the one prompt string of `fermyon:spin/llm` `infer` is laid out. Spin's
/// local engine applies no chat template (it tokenizes the string as it is);
/// a `remote_http` engine sends the string as one user message, which the
/// server wraps in its model's own template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChatFormat {
    /// Plain text: the instructions, the task, a last line saying what to answer.
    None,
    /// Llama 3 (and 3.1, 3.2) Instruct: `<|start_header_id|>role<|end_header_id|>`, `<|eot_id|>`.
    Llama3,
    /// ChatML (`<|im_start|>role`, `<|im_end|>`): Qwen, SmolLM2 and other Llama-architecture chat models.
    ChatMl,
    /// Llama 2 Chat: `[INST] <<SYS>> ... <</SYS>> ... [/INST]`.
    Llama2,
}

impl ChatFormat {
    pub const NAMES: [&'static str; 4] = ["none", "llama3", "chatml", "llama2"];

    /// `llm_chat_format`'s value; an unknown one is `none` (plain text works
    /// with every engine, only less well with a local chat model).
    pub fn parse(value: &str) -> ChatFormat {
        match value.trim().to_ascii_lowercase().as_str() {
            "llama3" | "llama-3" => ChatFormat::Llama3,
            "chatml" => ChatFormat::ChatMl,
            "llama2" | "llama-2" => ChatFormat::Llama2,
            _ => ChatFormat::None,
        }
    }

    /// The format's markers that the tokenizer reads as special tokens: Spin's
    /// local engine decodes with `skip_special_tokens`, so they are not in the
    /// echo. (Llama 2's `[INST]` and `<<SYS>>` are plain text, and stay.)
    fn special_markers(self) -> &'static [&'static str] {
        match self {
            ChatFormat::Llama3 => &["<|begin_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>"],
            ChatFormat::ChatMl => &["<|im_start|>", "<|im_end|>"],
            ChatFormat::Llama2 | ChatFormat::None => &[],
        }
    }
}

/// The last line of every prompt: what the model is to write.
fn cue(answer: Answer) -> &'static str {
    match answer {
        Answer::Json => "Answer with the JSON object only.",
        Answer::Text => "Answer with the text only.",
    }
}

/// The prompt string for `infer`. The tokenizer adds the model's
/// begin-of-text token itself (Spin encodes with special tokens on), so no
/// format writes it.
pub fn spin_prompt(format: ChatFormat, system: &str, user: &str, answer: Answer) -> String {
    let cue = cue(answer);
    match format {
        ChatFormat::None => format!("{system}\n\n{user}\n\n{cue}\n"),
        ChatFormat::Llama3 => format!(
            "<|start_header_id|>system<|end_header_id|>\n\n{system}<|eot_id|>\
             <|start_header_id|>user<|end_header_id|>\n\n{user}\n\n{cue}<|eot_id|>\
             <|start_header_id|>assistant<|end_header_id|>\n\n"
        ),
        ChatFormat::ChatMl => format!(
            "<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user}\n\n{cue}<|im_end|>\n<|im_start|>assistant\n"
        ),
        ChatFormat::Llama2 => format!("[INST] <<SYS>>\n{system}\n<</SYS>>\n\n{user}\n\n{cue} [/INST]"),
    }
}

/// Markers that end the model's turn, in any format: a model that runs on past
/// its end writes one of them (where its tokenizer does not make them special)
/// before a turn of its own making.
const TURN_MARKERS: [&str; 12] = [
    "<|eot_id|>",
    "<|start_header_id|>",
    "<|end_header_id|>",
    "<|end_of_text|>",
    "<|begin_of_text|>",
    "<|im_end|>",
    "<|im_start|>",
    "<|endoftext|>",
    "</s>",
    "<s>",
    "[INST]",
    "[/INST]",
];

/// The completion in Spin's `text`: the echoed prompt cut off where there is
/// one, then cut at the end of the model's turn ([`cut_at_turn_end`]). An
/// answer that still carries the prompt is unusable: a participant never sees
/// the prompt.
pub fn spin_completion(format: ChatFormat, prompt: &str, text: &str) -> Result<String, LlmError> {
    let mut visible = prompt.to_string();
    for marker in format.special_markers() {
        visible = visible.replace(marker, "");
    }
    let completion = separate_echo(&visible, text)?;
    let completion = cut_at_turn_end(completion);
    if completion.is_empty() {
        return Err(LlmError::BadAnswer("no completion after the prompt".into()));
    }
    Ok(completion.to_string())
}

/// Characters of the prompt's beginning and end that recognise an echo.
const ECHO_PROBE_CHARS: usize = 80;

/// `text` without the echo of `prompt` (as the engine saw it): the whole
/// prompt at its start, or else all up to the last place its end occurs
/// (a decode need not give the prompt back byte for byte: a tokenizer may
/// change its spaces, or its beginning); whitespace is compared collapsed.
/// Text with no echo is the completion alone (`remote_http`). Text that opens
/// like the prompt but whose end cannot be found, or a completion that
/// repeats the prompt's beginning or end, is an echo not separated: an error.
pub fn separate_echo<'t>(prompt: &str, text: &'t str) -> Result<&'t str, LlmError> {
    let (prompt, _) = collapsed(prompt);
    let (seen, origin) = collapsed(text);
    if prompt.is_empty() {
        return Ok(text.trim());
    }
    let head: String = prompt.chars().take(ECHO_PROBE_CHARS).collect();
    let tail: String = {
        let chars: Vec<char> = prompt.chars().collect();
        chars[chars.len().saturating_sub(ECHO_PROBE_CHARS)..].iter().collect()
    };
    let end = if seen.starts_with(&prompt) {
        Some(prompt.len())
    } else {
        seen.rfind(&tail).map(|at| at + tail.len())
    };
    let completion = match end {
        Some(end) => {
            let char_index = seen[..end].chars().count();
            let byte = origin.get(char_index).copied().unwrap_or(text.len());
            text[byte..].trim()
        }
        None if seen.contains(&head) => {
            return Err(LlmError::BadAnswer("the prompt is echoed but its end is not found".into()))
        }
        None => text.trim(),
    };
    let (rest, _) = collapsed(completion);
    if rest.contains(&head) || rest.contains(&tail) {
        return Err(LlmError::BadAnswer("the answer repeats the prompt".into()));
    }
    Ok(completion)
}

/// `text` with each run of whitespace one space, trimmed, and for each of its
/// characters the byte offset in `text` it comes from.
fn collapsed(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    let mut space_at: Option<usize> = None;
    for (at, c) in text.char_indices() {
        if c.is_whitespace() {
            space_at.get_or_insert(at);
            continue;
        }
        if let Some(space) = space_at.take() {
            if !out.is_empty() {
                out.push(' ');
                origin.push(space);
            }
        }
        out.push(c);
        origin.push(at);
    }
    (out, origin)
}

/// The completion up to the end of the model's turn: the first turn marker
/// ([`TURN_MARKERS`]), or a line that is a role's name alone (`user`,
/// `assistant`: a template's header once its special tokens are decoded away).
/// A role's name on the first line is the header of the model's own turn, and
/// is left out.
pub fn cut_at_turn_end(completion: &str) -> &str {
    let is_role = |line: &str| {
        matches!(line.trim().trim_end_matches(':').to_ascii_lowercase().as_str(), "user" | "assistant" | "system")
    };
    let completion = completion.trim_start();
    let completion = match completion.split_once('\n') {
        Some((first, rest)) if is_role(first) => rest,
        _ => completion,
    };
    let mut end = TURN_MARKERS.iter().filter_map(|marker| completion.find(marker)).min().unwrap_or(completion.len());
    let mut offset = 0;
    for line in completion.split_inclusive('\n') {
        if offset >= end {
            break;
        }
        if offset > 0 && is_role(line) {
            end = offset;
            break;
        }
        offset += line.len();
    }
    completion[..end].trim()
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

    /// What Spin 4.0.2's local engine gives back: the prompt's tokens and the
    /// completion's decoded together, special tokens skipped.
    fn decoded(format: ChatFormat, prompt: &str, completion: &str) -> String {
        let mut text = prompt.to_string();
        for marker in format.special_markers() {
            text = text.replace(marker, "");
        }
        text + completion
    }

    const SYSTEM: &str = "You are a warm, neutral user-research interviewer. Write the interviewer's next message.";
    const USER: &str = "Transcript so far:\nInterviewer: What made you choose it?\nInterviewee: The garden.\n\nYour next step: probe.";

    #[test]
    fn every_format_lays_out_the_prompt_its_models_were_trained_on() {
        let llama3 = spin_prompt(ChatFormat::Llama3, "S", "U", Answer::Text);
        assert_eq!(
            llama3,
            "<|start_header_id|>system<|end_header_id|>\n\nS<|eot_id|><|start_header_id|>user<|end_header_id|>\n\nU\n\n\
             Answer with the text only.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n"
        );
        let chatml = spin_prompt(ChatFormat::ChatMl, "S", "U", Answer::Json);
        assert_eq!(
            chatml,
            "<|im_start|>system\nS<|im_end|>\n<|im_start|>user\nU\n\nAnswer with the JSON object only.<|im_end|>\n<|im_start|>assistant\n"
        );
        let llama2 = spin_prompt(ChatFormat::Llama2, "S", "U", Answer::Text);
        assert_eq!(llama2, "[INST] <<SYS>>\nS\n<</SYS>>\n\nU\n\nAnswer with the text only. [/INST]");
        assert_eq!(spin_prompt(ChatFormat::None, "S", "U", Answer::Text), "S\n\nU\n\nAnswer with the text only.\n");
        for (name, format) in [("llama3", ChatFormat::Llama3), ("ChatML", ChatFormat::ChatMl), ("llama2", ChatFormat::Llama2), ("none", ChatFormat::None), ("mistral", ChatFormat::None)] {
            assert_eq!(ChatFormat::parse(name), format, "{name}");
        }
    }

    #[test]
    fn the_echoed_prompt_is_cut_off_in_every_format() {
        let completion = "What did the garden give your child that others did not?";
        for format in [ChatFormat::None, ChatFormat::Llama3, ChatFormat::ChatMl, ChatFormat::Llama2] {
            let prompt = spin_prompt(format, SYSTEM, USER, Answer::Text);
            // The local engine: prompt and completion.
            assert_eq!(spin_completion(format, &prompt, &decoded(format, &prompt, completion)).unwrap(), completion, "{format:?}");
            // remote_http: the completion alone.
            assert_eq!(spin_completion(format, &prompt, completion).unwrap(), completion, "{format:?}");
        }
    }

    #[test]
    fn an_echo_decoded_with_other_spaces_or_another_beginning_is_still_cut_off() {
        let format = ChatFormat::Llama2;
        let prompt = spin_prompt(format, SYSTEM, USER, Answer::Text);
        let completion = "  What did the garden give your child?";
        // SentencePiece decodes a leading space and may join lines differently.
        let respaced = format!(" {}{completion}", prompt.replace("\n\n", "\n"));
        assert_eq!(spin_completion(format, &prompt, &respaced).unwrap(), completion.trim());
        // The beginning lost (a tokenizer's normalizer, a truncated context): its end still marks the cut.
        let truncated = format!("{}{completion}", &prompt[40..]);
        assert_eq!(spin_completion(format, &prompt, &truncated).unwrap(), completion.trim());
    }

    #[test]
    fn an_echo_that_cannot_be_separated_is_unusable() {
        let format = ChatFormat::None;
        let prompt = spin_prompt(format, SYSTEM, USER, Answer::Text);
        // The prompt's beginning, then something that is not its end.
        let broken = format!("{} and then the model wandered off", &prompt[..120]);
        assert!(matches!(spin_completion(format, &prompt, &broken), Err(LlmError::BadAnswer(_))));
        // A completion that repeats the prompt.
        let repeated = format!("{prompt}{prompt}");
        let twice = format!("{prompt}Sure. {SYSTEM} {USER}");
        assert!(spin_completion(format, &prompt, &twice).is_err(), "{twice}");
        assert!(spin_completion(format, &prompt, &repeated).is_err());
        // Only the prompt, no completion.
        assert!(spin_completion(format, &prompt, &prompt).is_err());
        assert!(spin_completion(format, &prompt, "   ").is_err());
    }

    #[test]
    fn the_completion_ends_where_the_models_turn_ends() {
        assert_eq!(cut_at_turn_end("What happened next?<|eot_id|><|start_header_id|>user"), "What happened next?");
        assert_eq!(cut_at_turn_end("What happened next?<|im_end|>\n<|im_start|>user\nI left."), "What happened next?");
        assert_eq!(cut_at_turn_end("What happened next? </s><s>[INST] more"), "What happened next?");
        assert_eq!(cut_at_turn_end("What happened next?\n[INST] I left. [/INST]"), "What happened next?");
        // Special tokens decoded away: the next turn's header is a line of its own.
        assert_eq!(cut_at_turn_end("What happened next?\nuser\n\nI left the shop."), "What happened next?");
        assert_eq!(cut_at_turn_end("assistant\n\nWhat happened next?\n\nuser\nI left."), "What happened next?");
        // A role named inside a sentence is no turn.
        assert_eq!(cut_at_turn_end("Which user\nfeature mattered?"), "Which user\nfeature mattered?");
        assert_eq!(cut_at_turn_end("Two lines.\nStill mine."), "Two lines.\nStill mine.");
    }

    #[test]
    fn each_provider_is_one_model_and_only_an_api_keeps_a_json_choice() {
        let mut config = LlmConfig::disabled();
        assert!(config.model().is_none() && !config.keeps_json());
        config.provider = Provider::OpenAi;
        assert!(config.model().is_some() && config.keeps_json());
        config.provider = Provider::Spin;
        assert!(config.model().is_some() && !config.keeps_json());
    }

    #[test]
    fn without_a_model_nothing_is_asked_and_the_caller_falls_back() {
        let mut parsed = false;
        let answer = ask_or_fall_back(&LlmConfig::disabled(), "test", "built-in", Question::json("s", "u"), |text| {
            parsed = true;
            Ok(text)
        });
        assert_eq!(answer, None);
        assert!(!parsed);
        assert_eq!(ask(&LlmConfig::disabled(), Question::text("s", "u", 10)), Err(LlmError::NotConfigured));
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
