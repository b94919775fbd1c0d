//! Hostile and odd inputs (issue 13): every one is a clear 4xx in the route's
//! documented shape, never a 500, never a partial write.

use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream};
use std::time::Duration;

/// Sends raw bytes to the app and returns (status, body) of its answer.
fn raw(app: &TestApp, request: &str, half_close: bool) -> (u16, Value) {
    let addr = app.host.addr();
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    if half_close {
        // The client stops sending before the body is complete.
        stream.shutdown(Shutdown::Write).unwrap();
    }
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).to_string();
    let status = text.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or_default();
    // A chunked answer: the JSON sits between the chunk-size lines.
    let json_text = body.find('{').and_then(|start| body.rfind('}').map(|end| &body[start..=end])).unwrap_or("null");
    (status, serde_json::from_str(json_text).unwrap_or(Value::Null))
}

fn head(app: &TestApp, method: &str, path: &str, headers: &[(&str, &str)]) -> String {
    let mut text = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n", app.host.addr());
    for (name, value) in headers {
        text.push_str(&format!("{name}: {value}\r\n"));
    }
    text
}

#[test]
fn whole_numbers_written_as_floats_are_integers_everywhere() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let created = create_project(app, &tenant, &project_body(json!({"interview_length": 15.0, "max_interviews": 1e2})));
    for (patch, column, expected) in [
        (json!({"max_interviews": 5.0}), "max_interviews", 5),
        (json!({"max_interviews": 1e2}), "max_interviews", 100),
        (json!({"interview_length": 20.0}), "interview_length", 20),
    ] {
        let (status, body) = json_of(app.request("PATCH", &format!("/v1/projects/{created}")).auth(&tenant).json(&patch).send().unwrap());
        assert_eq!(status, 200, "{patch}: {body}");
        let stored: i64 = database(app)
            .query_row(&format!("SELECT {column} FROM projects WHERE project_id = ?"), [&created], |r| r.get(0))
            .unwrap();
        assert_eq!(stored, expected, "{patch}");
    }
    let (status, body) = json_of(
        app.request("PATCH", &format!("/v1/projects/{created}")).auth(&tenant).json(&json!({"max_interviews": 5.5})).send().unwrap(),
    );
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["type"], "int_from_float");
}

#[test]
fn bodies_that_cannot_be_read_are_the_clients_400() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let auth = [("X-Api-Key", tenant.api_key.as_str()), ("X-Tenant-Id", tenant.tenant_id.as_str())];
    let json_type = ("Content-Type", "application/json");

    // A chunk size that is not hexadecimal.
    let mut request = head(app, "POST", "/v1/projects", &[auth[0], auth[1], json_type, ("Transfer-Encoding", "chunked")]);
    request.push_str("\r\nzz\r\n{}\r\n0\r\n\r\n");
    let (status, body) = raw(app, &request, false);
    assert_eq!(status, 400, "{body}");
    assert_detail_error(&body, "unreadable_body");

    // A body shorter than its Content-Length: the client stops sending.
    let mut request = head(app, "POST", "/v1/projects", &[auth[0], auth[1], json_type, ("Content-Length", "200")]);
    request.push_str("\r\n{\"project_name\": \"cut");
    let (status, body) = raw(app, &request, true);
    assert_eq!(status, 400, "{body}");
    assert_detail_error(&body, "unreadable_body");

    // File uploads answer in their own 400 shape.
    let mut request = head(app, "POST", "/v1/files", &[auth[0], auth[1], ("Content-Type", "multipart/form-data; boundary=b"), ("Transfer-Encoding", "chunked")]);
    request.push_str("\r\n5\r\n--b\r\n\r\nnothex\r\n");
    let (status, body) = raw(app, &request, false);
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["code"], 400, "{body}");

    // Tenant creation answers in its flat shape.
    let partner = [("X-Api-Key", app.partner_key.as_str()), ("X-Tenant-Id", PARTNER_TENANT_ID)];
    let mut request = head(app, "POST", "/v1/tenants", &[partner[0], partner[1], json_type, ("Content-Length", "100")]);
    request.push_str("\r\n{\"organization_name\"");
    let (status, body) = raw(app, &request, true);
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["error"], "unreadable_body", "{body}");
    // Nothing was written by the refused requests.
    let projects: i64 = database(app)
        .query_row("SELECT COUNT(*) FROM projects WHERE tenant_id = ?", [&tenant.tenant_id], |r| r.get(0))
        .unwrap();
    assert_eq!(projects, 0);
}

#[test]
fn control_characters_are_refused_wherever_text_enters() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let (status, body) = json_of(app.create_tenant_raw(&json!({"organization_name": "Nul\u{0}Org", "contact_email": "a@example.com"})));
    assert_eq!((status.as_u16(), body["error"].as_str()), (400, Some("invalid_request")), "{body}");
    let (status, body) = json_of(app.post("/v1/projects").auth(&tenant).json(&project_body(json!({"project_name": "Bell\u{7}"}))).send().unwrap());
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0], json!({"loc": ["body", "project_name"], "msg": "String should match pattern '^[^\\x00-\\x08\\x0B\\x0C\\x0E-\\x1F\\x7F-\\x9F]*$'", "type": "string_pattern_mismatch"}));
    let project_id = active_project(app, &tenant, json!({"specific_guidelines": "Tabs\tand\nnew lines are fine"}));
    let mut session = Session::start(app, &start_body(&project_id, "production"));
    let (status, body) = session.answer_raw(app, "escape \u{1b}[31m");
    assert_eq!((status.as_u16(), body["detail"][0]["type"].as_str()), (422, Some("string_pattern_mismatch")));
    let mut start = start_body(&project_id, "production");
    start["external_metadata"] = json!({"plan": "pro\u{0}"});
    assert_eq!(start_raw(app, &start).0, 422);
}

/// A client that stops sending in the middle of its headers or of its body
/// holds its own connection and nothing else: Spin 4.0.2 sets no client
/// timeouts (it waits for the rest as long as the connection lives), and the
/// test host serves the same way. The app keeps answering everyone else, and a
/// request whose client went away half-way through its body stores nothing.
/// (Bounding slow clients is the reverse proxy's job: docs/deploy.md.)
#[test]
fn a_client_that_stops_sending_holds_only_its_own_connection() {
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let auth = [("X-Api-Key", tenant.api_key.as_str()), ("X-Tenant-Id", tenant.tenant_id.as_str())];
    let stalled = |request: String| {
        let mut stream = TcpStream::connect(app.host.addr()).unwrap();
        stream.write_all(request.as_bytes()).unwrap();
        stream.set_read_timeout(Some(Duration::from_millis(1500))).unwrap();
        stream
    };
    let mut body_stalled = stalled(
        head(&app, "POST", "/v1/projects", &[auth[0], auth[1], ("Content-Type", "application/json"), ("Content-Length", "200")])
            + "\r\n{\"project_name\": \"slow",
    );
    let mut headers_stalled = stalled(head(&app, "GET", "/v1/projects", &auth));

    for _ in 0..5 {
        let (status, _) = json_of(app.get("/v1/projects").auth(&tenant).send().unwrap());
        assert_eq!(status, 200, "others are served while two clients stall");
    }
    // Neither stalled request has been answered, nor its connection closed.
    for stream in [&mut body_stalled, &mut headers_stalled] {
        let mut byte = [0u8; 1];
        match stream.read(&mut byte) {
            Err(error) => assert!(matches!(error.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut), "{error}"),
            Ok(read) => panic!("a stalled request was answered or closed ({read} bytes): no client timeouts, as in Spin"),
        }
    }
    // The body never completes: the client gives up.
    drop(body_stalled);
    drop(headers_stalled);
    let (status, list) = json_of(app.get("/v1/projects").auth(&tenant).send().unwrap());
    assert_eq!(status, 200);
    assert_eq!(list["data"], json!([]), "the half-sent project was not stored");
}
