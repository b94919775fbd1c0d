//! A fake OpenAI-compatible model server for the tests: a real HTTP/1.1 server on
//! loopback that records every request and answers by a script the test gives.
//! It stands in for a third party (the language model), never for our code.

use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One request the fake received.
#[derive(Debug, Clone)]
pub struct ModelRequest {
    pub path: String,
    pub authorization: String,
    pub content_type: String,
    pub body: Vec<u8>,
}

impl ModelRequest {
    /// The body as JSON (`Null` when it is not JSON, e.g. a multipart upload).
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The body as text, for matching on what a prompt contains.
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// How the fake answers a request.
#[derive(Debug, Clone)]
pub enum ModelReply {
    /// 200 with this JSON body.
    Json(Value),
    /// This status with an empty JSON object.
    Status(u16),
    /// Never answers (until long after any client timeout).
    Hang,
}

impl ModelReply {
    /// A chat completion whose `choices[0].message.content` is `content`, with
    /// the `usage` an OpenAI-compatible server reports (Spin's `remote_http`
    /// engine refuses a completion without it).
    pub fn chat(content: &str) -> ModelReply {
        ModelReply::Json(json!({
            "id": "x", "object": "chat.completion",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
        }))
    }
}

type Script = dyn Fn(&ModelRequest) -> ModelReply + Send + Sync;

pub struct FakeModel {
    /// The API root to configure as `llm_base_url` (ends in `/v1`).
    pub base_url: String,
    pub requests: Arc<Mutex<Vec<ModelRequest>>>,
}

impl FakeModel {
    pub fn start(script: impl Fn(&ModelRequest) -> ModelReply + Send + Sync + 'static) -> FakeModel {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        let script: Arc<Script> = Arc::new(script);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (recorded, script) = (recorded.clone(), script.clone());
                std::thread::spawn(move || serve(stream, &recorded, &*script));
            }
        });
        FakeModel { base_url, requests }
    }

    /// The requests so far whose path ends with `suffix`.
    pub fn requests_to(&self, suffix: &str) -> Vec<ModelRequest> {
        self.requests.lock().unwrap().iter().filter(|r| r.path.ends_with(suffix)).cloned().collect()
    }

    /// Host variables that point the service at this fake (`openai` provider).
    pub fn variables(&self) -> Vec<(&'static str, String)> {
        vec![
            ("llm_provider", "openai".to_string()),
            ("llm_base_url", self.base_url.clone()),
            ("llm_api_key", "test-model-key".to_string()),
            ("llm_model", "fake-model".to_string()),
            ("llm_timeout_seconds", "2".to_string()),
        ]
    }
}

fn serve(mut stream: TcpStream, requests: &Mutex<Vec<ModelRequest>>, script: &Script) {
    stream.set_read_timeout(Some(Duration::from_secs(10))).ok();
    let mut data = Vec::new();
    let mut buffer = [0u8; 8192];
    let header_end = loop {
        let n = match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        data.extend_from_slice(&buffer[..n]);
        if let Some(end) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break end + 4;
        }
    };
    let head = String::from_utf8_lossy(&data[..header_end]).to_string();
    let header = |name: &str| {
        head.lines()
            .find_map(|l| l.split_once(':').filter(|(n, _)| n.trim().eq_ignore_ascii_case(name)).map(|(_, v)| v.trim().to_string()))
            .unwrap_or_default()
    };
    let length: usize = header("content-length").parse().unwrap_or(0);
    while data.len() < header_end + length {
        let n = match stream.read(&mut buffer) {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        data.extend_from_slice(&buffer[..n]);
    }
    let request = ModelRequest {
        path: head.split_whitespace().nth(1).unwrap_or_default().to_string(),
        authorization: header("authorization"),
        content_type: header("content-type"),
        body: data[header_end..header_end + length].to_vec(),
    };
    requests.lock().unwrap().push(request.clone());
    let (status, body) = match script(&request) {
        ModelReply::Json(body) => (200, body.to_string()),
        ModelReply::Status(status) => (status, "{}".to_string()),
        ModelReply::Hang => {
            std::thread::sleep(Duration::from_secs(30));
            return;
        }
    };
    let response = format!(
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = stream.write_all(response.as_bytes());
}
