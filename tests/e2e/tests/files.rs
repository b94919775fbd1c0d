//! Files: `POST /v1/files` (multipart, type checks, 25 MiB limit, chunked
//! storage without orphans) and `GET /v1/files/{file_id}`.

use e2e::*;
use reqwest::blocking::{Body, Response};
use serde_json::Value;

const MIB: usize = 1024 * 1024;

/// Deterministic filler bytes (xorshift), different per seed.
fn noise(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn with_prefix(prefix: &[u8], len: usize, seed: u64) -> Vec<u8> {
    let mut bytes = prefix.to_vec();
    bytes.extend(noise(len.saturating_sub(prefix.len()), seed));
    bytes
}

fn jpeg(len: usize) -> Vec<u8> {
    with_prefix(&[0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, b'J', b'F', b'I', b'F', 0x00], len, 1)
}

fn png(len: usize) -> Vec<u8> {
    with_prefix(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 0x0D, b'I', b'H', b'D', b'R'], len, 2)
}

fn mp4(len: usize) -> Vec<u8> {
    with_prefix(b"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00isomiso2avc1mp41", len, 3)
}

const SVG: &str = r##"<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 100 100">
  <defs><linearGradient id="g"><stop offset="0" stop-color="#0af"/><stop offset="1" stop-color="#fa0"/></linearGradient></defs>
  <style>.logo { fill: url(#g); }</style>
  <circle class="logo" cx="50" cy="50" r="40"/>
  <use xlink:href="#g"/>
  <text x="10" y="90">Research &amp; Co</text>
</svg>
"##;

fn send_form(app: &TestApp, tenant: &TenantCredentials, form: Multipart) -> Response {
    let (content_type, body) = form.finish();
    app.post("/v1/files").auth(tenant).header("Content-Type", content_type).body(body).send().unwrap()
}

fn upload(app: &TestApp, tenant: &TenantCredentials, mime_type: &str, bytes: &[u8]) -> Response {
    let form = Multipart::new()
        .file("file", "upload.bin", "application/octet-stream", bytes)
        .text("mime_type", mime_type)
        .text("purpose", "survey");
    send_form(app, tenant, form)
}

fn uploaded_id(app: &TestApp, tenant: &TenantCredentials, mime_type: &str, bytes: &[u8]) -> String {
    let (status, body) = json_of(upload(app, tenant, mime_type, bytes));
    assert_eq!(status, 200, "{body}");
    let object = body.as_object().unwrap();
    assert_eq!(object.len(), 1, "only file_id: {body}");
    let file_id = body["file_id"].as_str().unwrap().to_string();
    assert!(uuid::Uuid::parse_str(&file_id).is_ok(), "{file_id}");
    file_id
}

/// Keys and value sizes of the key-value store's entries under `prefix`.
fn kv_entries(app: &TestApp, prefix: &str) -> Vec<(String, usize)> {
    let path = app.state_dir.join("sqlite_key_value.db");
    let conn = rusqlite::Connection::open_with_flags(&path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).unwrap();
    let mut statement = conn
        .prepare("SELECT key, length(value) FROM spin_key_value WHERE store = 'default' AND substr(key, 1, length(?1)) = ?1 ORDER BY key")
        .unwrap();
    let rows = statement
        .query_map([prefix], |row| Ok((row.get::<_, String>(0)?, row.get::<_, i64>(1)? as usize)))
        .unwrap();
    rows.collect::<Result<_, _>>().unwrap()
}

fn assert_coded(response: Response, status: u16, needle: &str) -> String {
    let (actual, body) = json_of(response);
    assert_eq!(actual.as_u16(), status, "{body}");
    assert_eq!(body["code"], status, "{body}");
    assert_eq!(body.as_object().unwrap().len(), 2, "only message and code: {body}");
    let message = body["message"].as_str().unwrap().to_string();
    assert!(message.contains(needle), "{message:?} should mention {needle:?}");
    message
}

/// `(loc, type)` of every entry of a 422 body.
fn validation_entries(response: Response) -> Vec<(Value, String)> {
    let (status, body) = json_of(response);
    assert_eq!(status, 422, "{body}");
    body["detail"]
        .as_array()
        .unwrap_or_else(|| panic!("detail list: {body}"))
        .iter()
        .map(|entry| {
            assert!(entry["msg"].as_str().is_some_and(|m| !m.is_empty()), "{entry}");
            (entry["loc"].clone(), entry["type"].as_str().unwrap().to_string())
        })
        .collect()
}

fn loc(field: &str) -> Value {
    serde_json::json!(["body", field])
}

#[test]
fn every_accepted_type_round_trips_byte_for_byte() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("image/jpeg", jpeg(300 * 1024), "jpg"),
        ("image/png", png(5 * MIB / 2), "png"),
        ("image/svg+xml", SVG.as_bytes().to_vec(), "svg"),
        ("video/mp4", mp4(MIB + 17), "mp4"),
    ];
    for (mime_type, bytes, extension) in cases {
        let file_id = uploaded_id(app, &tenant, mime_type, &bytes);
        let response = app.get(&format!("/v1/files/{file_id}")).auth(&tenant).send().unwrap();
        assert_eq!(response.status(), 200);
        let headers = response.headers().clone();
        assert_eq!(headers["content-type"], mime_type);
        assert_eq!(headers["content-length"], bytes.len().to_string().as_str());
        assert_eq!(headers["content-disposition"], format!("inline; filename=\"{file_id}.{extension}\"").as_str());
        assert_eq!(headers["x-content-type-options"], "nosniff");
        assert!(headers.contains_key("x-request-id"));
        let csp = headers.get("content-security-policy").map(|v| v.to_str().unwrap().to_string());
        if mime_type == "image/svg+xml" {
            assert!(csp.unwrap().starts_with("default-src 'none'"));
        } else {
            assert_eq!(csp, None);
        }
        let body = response.bytes().unwrap();
        assert!(body[..] == bytes[..], "{mime_type}: the bytes come back unchanged ({} vs {})", body.len(), bytes.len());

        // Chunks of at most 1 MiB in the key-value store.
        let chunks = kv_entries(app, &format!("file:{file_id}:"));
        let expected = bytes.len().div_ceil(MIB);
        assert_eq!(chunks.len(), expected, "{chunks:?}");
        assert_eq!(chunks.iter().map(|(_, len)| len).sum::<usize>(), bytes.len());
        assert!(chunks.iter().all(|(_, len)| *len <= MIB));
    }
}

/// A download that fits one piece leaves with its head, like any whole
/// response (see foundation.rs); a larger one streams.
#[test]
fn a_small_download_reaches_the_client_in_one_piece() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let file_id = uploaded_id(app, &tenant, "image/png", &png(4096));
    if let Err(problem) = app.responses_arrive_whole(&format!("/v1/files/{file_id}"), &tenant, 30) {
        panic!("{problem}");
    }
}

#[test]
fn downloads_support_etags_and_head() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let bytes = png(4096);
    let file_id = uploaded_id(app, &tenant, "image/png", &bytes);
    let path = format!("/v1/files/{file_id}");
    let response = app.get(&path).auth(&tenant).send().unwrap();
    let etag = response.headers()["etag"].to_str().unwrap().to_string();
    assert!(etag.starts_with('"') && etag.len() == 66, "{etag}");
    let cached = app.get(&path).auth(&tenant).header("If-None-Match", &etag).send().unwrap();
    assert_eq!(cached.status(), 304);
    assert!(cached.bytes().unwrap().is_empty());

    let head = app.request("HEAD", &path).auth(&tenant).send().unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.headers()["content-type"], "image/png");
    assert!(head.bytes().unwrap().is_empty());
}

#[test]
fn enum_violations_and_missing_fields_are_422() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let file = png(1000);

    let bad_mime = Multipart::new().file("file", "a.gif", "image/gif", &file).text("mime_type", "image/gif").text("purpose", "survey");
    assert_eq!(validation_entries(send_form(app, &tenant, bad_mime)), vec![(loc("mime_type"), "enum".into())]);

    let bad_purpose = Multipart::new().file("file", "a.png", "image/png", &file).text("mime_type", "image/png").text("purpose", "logo");
    let response = send_form(app, &tenant, bad_purpose);
    let (_, body) = json_of(response);
    assert_eq!(body["detail"][0]["loc"], loc("purpose"), "{body}");
    assert_eq!(body["detail"][0]["type"], "enum");
    assert_eq!(body["detail"][0]["msg"], "Input should be 'survey'");

    for missing in ["file", "mime_type", "purpose"] {
        let mut form = Multipart::new();
        if missing != "file" {
            form = form.file("file", "a.png", "image/png", &file);
        }
        if missing != "mime_type" {
            form = form.text("mime_type", "image/png");
        }
        if missing != "purpose" {
            form = form.text("purpose", "survey");
        }
        assert_eq!(validation_entries(send_form(app, &tenant, form)), vec![(loc(missing), "missing".into())], "{missing}");
    }

    // Every problem at once, in field order.
    let everything = Multipart::new().text("mime_type", "text/html").text("purpose", "");
    assert_eq!(
        validation_entries(send_form(app, &tenant, everything)),
        vec![(loc("file"), "missing".into()), (loc("mime_type"), "enum".into()), (loc("purpose"), "enum".into())]
    );

    // A body that is not multipart/form-data has none of the fields.
    let json = app.post("/v1/files").auth(&tenant).json(&serde_json::json!({"mime_type": "image/png"})).send().unwrap();
    assert_eq!(
        validation_entries(json),
        vec![(loc("file"), "missing".into()), (loc("mime_type"), "missing".into()), (loc("purpose"), "missing".into())]
    );
}

#[test]
fn content_that_does_not_match_the_declared_type_is_400() {
    let app = shared_app();
    let tenant = app.create_tenant();
    assert_coded(upload(app, &tenant, "image/jpeg", &png(2048)), 400, "does not match mime_type 'image/jpeg'");
    assert_coded(upload(app, &tenant, "image/png", &jpeg(2048)), 400, "does not match mime_type 'image/png'");
    assert_coded(upload(app, &tenant, "video/mp4", &png(2048)), 400, "does not match mime_type 'video/mp4'");
    assert_coded(upload(app, &tenant, "image/png", &mp4(2048)), 400, "looks like video/mp4");
    assert_coded(upload(app, &tenant, "image/svg+xml", &png(2048)), 400, "looks like image/png");
    assert_coded(upload(app, &tenant, "image/svg+xml", b"<svg><g></svg>"), 400, "not well-formed XML");
    assert_coded(upload(app, &tenant, "image/svg+xml", b"<html><body/></html>"), 400, "not <svg>");
    assert_coded(upload(app, &tenant, "image/png", b""), 400, "empty");
    assert_coded(upload(app, &tenant, "image/svg+xml", b""), 400, "empty");

    // Broken multipart framing is a bad request too.
    let response = app
        .post("/v1/files")
        .auth(&tenant)
        .header("Content-Type", "multipart/form-data; boundary=abc")
        .body("--abc\r\nContent-Disposition: form-data; name=\"file\"\r\n\r\nno end")
        .send()
        .unwrap();
    assert_coded(response, 400, "Malformed multipart");
}

#[test]
fn svg_with_script_event_handlers_or_external_references_is_refused() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let svg = |inner: &str| format!("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">{inner}</svg>");
    let cases = [
        (svg("<script>alert(document.cookie)</script>"), "<script>"),
        (svg("<script type=\"text/javascript\"><![CDATA[ fetch('/x') ]]></script>"), "<script>"),
        ("<svg xmlns=\"http://www.w3.org/2000/svg\" onload=\"alert(1)\"><rect/></svg>".to_string(), "onload"),
        (svg("<rect width=\"5\" onclick=\"steal()\"/>"), "onclick"),
        (svg("<foreignObject><body xmlns=\"http://www.w3.org/1999/xhtml\"/></foreignObject>"), "foreignObject"),
        (svg("<image xlink:href=\"https://tracker.example/pixel.png\"/>"), "external"),
        (svg("<rect style=\"fill: url(https://tracker.example/p)\"/>"), "external"),
        (
            "<!DOCTYPE svg [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]><svg xmlns=\"http://www.w3.org/2000/svg\">&xxe;</svg>"
                .to_string(),
            "DOCTYPE",
        ),
    ];
    for (doc, needle) in cases {
        assert_coded(upload(app, &tenant, "image/svg+xml", doc.as_bytes()), 400, needle);
    }
}

/// Sends the head of an upload announcing `content_length` bytes, then only
/// `sent` bytes of body, and reads the answer: status and JSON body.
fn raw_upload_head(app: &TestApp, tenant: &TenantCredentials, content_length: u64, sent: usize) -> (u16, Value) {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(app.host.addr()).unwrap();
    stream.set_read_timeout(Some(std::time::Duration::from_secs(60))).unwrap();
    let head = format!(
        "POST /v1/files HTTP/1.1\r\nHost: {}\r\nX-Api-Key: {}\r\nX-Tenant-Id: {}\r\n\
         Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {content_length}\r\nConnection: close\r\n\r\n",
        app.host.addr(),
        tenant.api_key,
        tenant.tenant_id
    );
    stream.write_all(head.as_bytes()).unwrap();
    let _ = stream.write_all(&vec![b'x'; sent]);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or_else(|| panic!("no HTTP answer: {text:?}"));
    let (_, body) = text.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no body: {text:?}"));
    // The body may come chunked: take the JSON object out of it.
    let json = body.find('{').zip(body.rfind('}')).map(|(start, end)| &body[start..=end]).unwrap_or(body);
    (status, serde_json::from_str(json).unwrap_or_else(|_| panic!("not JSON: {body:?}")))
}

#[test]
fn the_file_limit_is_the_operators_to_lower() {
    // E.g. for a platform whose requests may not exceed 10 MiB.
    let app = TestApp::start(&[("file_max_bytes", "2000")]);
    let tenant = app.create_tenant();
    assert_eq!(upload(&app, &tenant, "image/png", &png(2000)).status(), 200);
    let (status, body) = json_of(upload(&app, &tenant, "image/png", &png(2001)));
    assert_eq!(status, 413);
    assert_eq!(body["code"], 413);
    assert!(body["message"].as_str().unwrap().contains("2000 bytes"), "{body}");
}

#[test]
fn uploads_over_25_mib_are_413() {
    let app = shared_app();
    let tenant = app.create_tenant();
    // Announced by Content-Length: refused before the body is read. (Over a raw
    // connection: the answer comes while the client is still sending, and the
    // host closes the connection, which an HTTP client may report as a broken pipe.)
    let (status, body) = raw_upload_head(app, &tenant, 26 * MIB as u64, 64 * 1024);
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["code"], 413);
    assert!(body["message"].as_str().unwrap().contains("exceeds"), "{body}");

    // Exactly 25 MiB is fine.
    let bytes = png(25 * MIB);
    let file_id = uploaded_id(app, &tenant, "image/png", &bytes);
    let response = app.get(&format!("/v1/files/{file_id}")).auth(&tenant).send().unwrap();
    assert_eq!(response.headers()["content-length"], (25 * MIB).to_string().as_str());
    assert!(response.bytes().unwrap()[..] == bytes[..]);
}

#[test]
fn files_are_private_to_their_tenant() {
    let app = shared_app();
    let owner = app.create_tenant();
    let other = app.create_tenant();
    let file_id = uploaded_id(app, &owner, "image/jpeg", &jpeg(1024));

    let (status, body) = json_of(app.get(&format!("/v1/files/{file_id}")).auth(&other).send().unwrap());
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");

    let unknown = uuid::Uuid::new_v4();
    let (status, body) = json_of(app.get(&format!("/v1/files/{unknown}")).auth(&owner).send().unwrap());
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");

    let response = app.get("/v1/files/not-a-uuid").auth(&owner).send().unwrap();
    assert_eq!(validation_entries(response), vec![(serde_json::json!(["path", "file_id"]), "uuid_parsing".into())]);

    let (status, body) = json_of(app.get(&format!("/v1/files/{file_id}")).send().unwrap());
    assert_eq!(status, 401);
    assert_detail_error(&body, "unauthorized");
    let (status, _) = json_of(upload(app, &TenantCredentials { tenant_id: owner.tenant_id.clone(), api_key: "irs_wrong".into() }, "image/png", &png(10)));
    assert_eq!(status, 401);

    let (status, body) = json_of(app.request("DELETE", &format!("/v1/files/{file_id}")).auth(&owner).send().unwrap());
    assert_eq!(status, 405);
    assert_detail_error(&body, "method_not_allowed");
}

#[test]
fn refused_uploads_leave_no_orphan_chunks() {
    // A host of its own: no other test's upload is in flight while we look.
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let prefix = png(3 * MIB);

    // 3 MiB stored, then the content does not match the declared type.
    assert_coded(upload(&app, &tenant, "image/jpeg", &prefix), 400, "does not match");
    // 3 MiB stored, then the form turns out to be incomplete or invalid.
    let no_purpose = Multipart::new().file("file", "a.png", "image/png", &prefix).text("mime_type", "image/png");
    assert_eq!(validation_entries(send_form(&app, &tenant, no_purpose)), vec![(loc("purpose"), "missing".into())]);
    let bad_mime_last = Multipart::new().text("purpose", "survey").file("file", "a.png", "image/png", &prefix).text("mime_type", "png");
    assert_eq!(validation_entries(send_form(&app, &tenant, bad_mime_last)), vec![(loc("mime_type"), "enum".into())]);
    // 3 MiB stored, then the body breaks off (no closing boundary).
    let (content_type, mut body) =
        Multipart::new().text("mime_type", "image/png").text("purpose", "survey").file("file", "a.png", "image/png", &prefix).finish();
    body.truncate(body.len() - 100);
    let response = app.post("/v1/files").auth(&tenant).header("Content-Type", content_type).body(body).send().unwrap();
    assert_coded(response, 400, "Malformed multipart");
    // 3 MiB stored, then a second file part.
    let two_files = Multipart::new()
        .file("file", "a.png", "image/png", &prefix)
        .file("file", "b.png", "image/png", &prefix)
        .text("mime_type", "image/png")
        .text("purpose", "survey");
    assert_coded(send_form(&app, &tenant, two_files), 400, "exactly one");
    assert_eq!(kv_entries(&app, "file:"), vec![], "no chunk survives a refused upload");

    // Without Content-Length (chunked), the limit is enforced while reading.
    let (content_type, body) = Multipart::new()
        .text("mime_type", "image/png")
        .text("purpose", "survey")
        .file("file", "big.png", "image/png", &png(26 * MIB))
        .finish();
    let result = app
        .post("/v1/files")
        .auth(&tenant)
        .header("Content-Type", content_type)
        .body(Body::new(std::io::Cursor::new(body)))
        .send();
    match result {
        Ok(response) => {
            assert_coded(response, 413, "exceeds");
            eprintln!("the chunked oversized upload was answered 413");
        }
        // The host may close the connection while the client is still sending.
        Err(error) => eprintln!("the client saw the early answer as: {error}"),
    }
    assert_eq!(kv_entries(&app, "file:"), vec![], "no chunk survives an oversized upload");

    // A good upload afterwards stores exactly its own chunks.
    let file_id = uploaded_id(&app, &tenant, "image/png", &prefix);
    let keys: Vec<String> = kv_entries(&app, "file:").into_iter().map(|(key, _)| key).collect();
    assert_eq!(keys, (0..3).map(|n| format!("file:{file_id}:{n}")).collect::<Vec<_>>());
}

/// `blob_chunk_bytes` sets the size of new files' chunks (an edge platform's
/// key-value store takes values of at most 1 MB); a file keeps the size it
/// was written with, so files written before read back whole, and by range.
#[test]
fn files_written_with_another_chunk_size_stay_readable() {
    let state = tempfile::tempdir().unwrap();
    let partner_key = format!("sk-partner-chunks-{}", uuid::Uuid::new_v4().simple());
    let first = TestApp::start_in(state.path(), &[("partner_api_key", partner_key.as_str())]);
    let tenant = first.create_tenant();
    let old_bytes = png(2 * MIB + MIB / 2);
    let old = uploaded_id(&first, &tenant, "image/png", &old_bytes);
    let survey = e2e::sessions::project_body(serde_json::json!({"project_type": "survey", "survey_blocks": [
        {"block_id": "look", "type": "statement", "prompt": "Have a look.", "media": {"file_id": old}}]}));
    let project = e2e::sessions::create_project(&first, &tenant, &survey);
    first.host.stop();

    let chunk = 64 * 1024;
    let chunk_text = chunk.to_string();
    let app = TestApp::start_in(state.path(), &[("partner_api_key", partner_key.as_str()), ("blob_chunk_bytes", chunk_text.as_str())]);
    let new_bytes = png(200 * 1024 + 3);
    let new = uploaded_id(&app, &tenant, "image/png", &new_bytes);
    let sizes = |file_id: &str| kv_entries(&app, &format!("file:{file_id}:")).into_iter().map(|(_, size)| size).max().unwrap();
    assert_eq!(sizes(&old), MIB, "written before, with 1 MiB chunks");
    assert_eq!(sizes(&new), chunk, "written now, with chunks of blob_chunk_bytes");
    for (file_id, bytes) in [(&old, &old_bytes), (&new, &new_bytes)] {
        let response = app.get(&format!("/v1/files/{file_id}")).auth(&tenant).send().unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.bytes().unwrap().as_ref() == bytes.as_slice(), "{file_id} reads back whole");
    }
    // A range across the old file's first chunk boundary.
    let (from, to) = (MIB - 5, MIB + 9);
    let part = app.get(&format!("/i/{project}/media/{old}")).header("range", format!("bytes={from}-{to}")).send().unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(part.bytes().unwrap().as_ref(), &old_bytes[from..=to]);
}
