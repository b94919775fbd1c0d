//! Speech to text for a spoken answer, through an OpenAI-compatible
//! `POST {llm_base_url}/audio/transcriptions` (multipart: `file`, `model`,
//! `response_format=json`). Only `llm_provider=openai` offers it; the page falls
//! back to typing whenever it is not available or fails.

use platform::config;
use platform::llm::{LlmConfig, LlmError, Provider};
use platform::outbound;
use crate::recordings::extension;
use serde_json::Value;

pub const DEFAULT_MODEL: &str = "whisper-1";
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Whether the configured model can transcribe.
pub fn available(llm: &LlmConfig) -> bool {
    llm.provider == Provider::OpenAi
}

/// The model named by the `llm_transcription_model` variable.
pub fn model() -> String {
    config::var_or("llm_transcription_model", DEFAULT_MODEL)
}

/// The multipart body of a transcription request, and its content type.
pub fn request_body(model: &str, content_type: &str, audio: &[u8]) -> (String, Vec<u8>) {
    let boundary = format!("irs-{}", uuid::Uuid::new_v4().simple());
    let mut body = Vec::with_capacity(audio.len() + 512);
    let mut text_part = |name: &str, value: &str| {
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n").as_bytes(),
        );
    };
    text_part("model", model);
    text_part("response_format", "json");
    body.extend_from_slice(
        format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"answer.{}\"\r\nContent-Type: {}\r\n\r\n",
            extension(content_type),
            content_type.split(';').next().unwrap_or_default()
        )
        .as_bytes(),
    );
    body.extend_from_slice(audio);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), body)
}

/// The text of a transcription answer (`{"text": "..."}`), trimmed.
pub fn parse_answer(body: &[u8]) -> Result<String, LlmError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| LlmError::BadAnswer(format!("not JSON: {e}")))?;
    value
        .get("text")
        .and_then(Value::as_str)
        .map(|text| text.trim().chars().take(super::MAX_ANSWER_CHARS).collect())
        .ok_or_else(|| LlmError::BadAnswer("no text".into()))
}

/// Transcribes one spoken answer.
pub fn transcribe(llm: &LlmConfig, model: &str, content_type: &str, audio: &[u8]) -> Result<String, LlmError> {
    if !available(llm) {
        return Err(LlmError::NotConfigured);
    }
    let (multipart_type, body) = request_body(model, content_type, audio);
    let url = format!("{}/audio/transcriptions", llm.base_url);
    let bearer = llm.api_key.as_ref().map(|key| format!("Bearer {key}"));
    let mut headers = vec![("content-type", multipart_type.as_str()), ("accept", "application/json")];
    if let Some(bearer) = &bearer {
        headers.push(("authorization", bearer.as_str()));
    }
    let response = outbound::send("POST", &url, &headers, &body, llm.timeout, MAX_ANSWER_BYTES)
        .map_err(|e| LlmError::Transport(e.to_string()))?;
    if response.status != 200 {
        return Err(LlmError::Status(response.status));
    }
    parse_answer(&response.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_multipart_with_the_audio_as_file() {
        let (content_type, body) = request_body("whisper-1", "audio/webm;codecs=opus", b"\x1aE\xdf\xa3");
        let boundary = content_type.strip_prefix("multipart/form-data; boundary=").unwrap();
        let text = String::from_utf8_lossy(&body);
        assert!(text.starts_with(&format!("--{boundary}\r\n")));
        assert!(text.contains("name=\"model\"\r\n\r\nwhisper-1\r\n"));
        assert!(text.contains("filename=\"answer.webm\"\r\nContent-Type: audio/webm\r\n\r\n"));
        assert!(text.ends_with(&format!("--{boundary}--\r\n")));
    }

    #[test]
    fn answers_carry_text() {
        assert_eq!(parse_answer(br#"{"text": " Hello there. "}"#).unwrap(), "Hello there.");
        assert!(parse_answer(b"{}").is_err());
        assert!(parse_answer(b"<html>").is_err());
    }
}
