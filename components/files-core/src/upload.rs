//! Receiving an upload: the multipart body read as it arrives, the `file` part
//! streamed into chunks, the form fields validated, the content checked.

use super::{check_magic, check_svg, sniff, BlobStore, ChunkWriter, FileLimit, FileType, MIME_TYPES, PURPOSES};
use platform::error::{ApiError, ApiResult, FieldError, LocPart};
use platform::http::media_type;
use platform::validation;
use bytes::Bytes;
use futures::{Stream, StreamExt};
use std::io::BufReader;

/// Text fields (`mime_type`, `purpose`) are kept up to this many bytes; the rest is skipped.
const MAX_TEXT_FIELD_BYTES: usize = 1024;

/// A received, checked upload whose chunks are stored but not yet referenced.
pub struct Upload<'s, S: BlobStore + ?Sized> {
    pub file_type: FileType,
    pub purpose: String,
    pub blob: ChunkWriter<'s, S>,
}

#[derive(Debug)]
struct BodyReadError(String);

impl std::fmt::Display for BodyReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "reading the request body failed: {}", self.0)
    }
}

impl std::error::Error for BodyReadError {}

fn missing(name: &str) -> FieldError {
    FieldError::new(vec!["body".into(), name.into()], "missing", "Field required")
}

/// `true` for `multipart/form-data` (any parameters, any case).
fn is_multipart_form(content_type: Option<&str>) -> bool {
    content_type.and_then(media_type).is_some_and(|media| media == mime::MULTIPART_FORM_DATA)
}

fn multipart_error(error: multer::Error, limit: FileLimit) -> ApiError {
    match error {
        multer::Error::StreamSizeExceeded { .. } => limit.request_too_large(),
        multer::Error::StreamReadFailed(cause) => {
            eprintln!("request refused: the client's upload could not be read: {cause}");
            ApiError::BadRequest(format!("The request body could not be read ({cause}); send it again"))
        }
        other => ApiError::BadRequest(format!("Malformed multipart/form-data body: {other}")),
    }
}

/// Reads a multipart upload from `body` as it arrives, storing the `file` part's
/// bytes in chunks under `file_id`, then validates it:
///
/// - `Content-Length` over the limit's request size, or more bytes than that, or
///   a file over its file size: 413 at once, without reading further.
/// - Not `multipart/form-data`: 422 with `missing` for `file`, `mime_type` and
///   `purpose` (FastAPI's answer for a body it cannot read as a form).
/// - Broken multipart framing, a second `file` part: 400.
/// - Missing fields, `mime_type`/`purpose` outside their enums: 422 (all at once).
/// - Empty file, content not matching `mime_type`: 400.
///
/// On any error the chunks written so far are deleted.
pub async fn receive<'s, S, B, E>(
    content_type: Option<&str>,
    content_length: Option<&str>,
    body: B,
    store: &'s S,
    file_id: &str,
    limit: FileLimit,
) -> ApiResult<Upload<'s, S>>
where
    S: BlobStore + ?Sized,
    B: Stream<Item = Result<Vec<u8>, E>> + Send,
    E: std::fmt::Debug,
{
    if let Some(length) = content_length.and_then(|l| l.trim().parse::<u64>().ok()) {
        if length > limit.upload_bytes() {
            return Err(limit.request_too_large());
        }
    }
    if !is_multipart_form(content_type) {
        return Err(ApiError::Validation(vec![missing("file"), missing("mime_type"), missing("purpose")]));
    }
    let boundary = multer::parse_boundary(content_type.unwrap_or_default())
        .map_err(|_| ApiError::BadRequest("Malformed multipart/form-data: the Content-Type has no boundary".into()))?;
    let stream = body.map(|chunk| chunk.map(Bytes::from).map_err(|error| BodyReadError(format!("{error:?}"))));
    let constraints = multer::Constraints::new().size_limit(multer::SizeLimit::new().whole_stream(limit.upload_bytes()));
    let mut multipart = multer::Multipart::with_constraints(stream, boundary, constraints);

    let mut mime_type: Option<String> = None;
    let mut purpose: Option<String> = None;
    let mut file: Option<ChunkWriter<'s, S>> = None;
    while let Some(mut field) = multipart.next_field().await.map_err(|e| multipart_error(e, limit))? {
        let name = field.name().unwrap_or_default().to_string();
        match name.as_str() {
            "file" => {
                if file.is_some() {
                    return Err(ApiError::BadRequest("Send exactly one 'file' part".into()));
                }
                let mut writer = ChunkWriter::new(store, file_id).with_limit(limit).with_chunk_bytes(limit.chunk_bytes);
                // With a binary mime_type already known, a wrong magic number is
                // seen in the first bytes: nothing is stored from then on.
                writer.expected = mime_type.as_deref().and_then(FileType::from_mime).filter(|t| *t != FileType::Svg);
                while let Some(chunk) = field.chunk().await.map_err(|e| multipart_error(e, limit))? {
                    writer.write(&chunk)?;
                }
                writer.finish()?;
                file = Some(writer);
            }
            "mime_type" | "purpose" => {
                let mut text = Vec::new();
                while let Some(chunk) = field.chunk().await.map_err(|e| multipart_error(e, limit))? {
                    let take = (MAX_TEXT_FIELD_BYTES + 1).saturating_sub(text.len()).min(chunk.len());
                    text.extend_from_slice(&chunk[..take]);
                }
                // Like a form parser: the last value of a repeated field wins.
                let text = String::from_utf8_lossy(&text).into_owned();
                if name == "mime_type" {
                    mime_type = Some(text);
                } else {
                    purpose = Some(text);
                }
            }
            // Unknown parts are read past (they count toward the request limit).
            _ => while field.chunk().await.map_err(|e| multipart_error(e, limit))?.is_some() {},
        }
    }

    let (file, file_type, purpose) = parsed_fields(file, mime_type, purpose)?;
    check_content(file_type, &file)?;
    Ok(Upload { file_type, purpose, blob: file })
}

/// The form's three fields, each present and in its enum: 422 with every
/// problem at once otherwise.
fn parsed_fields<'s, S: BlobStore + ?Sized>(
    file: Option<ChunkWriter<'s, S>>,
    mime_type: Option<String>,
    purpose: Option<String>,
) -> ApiResult<(ChunkWriter<'s, S>, FileType, String)> {
    let mut errors = Vec::new();
    if file.is_none() {
        errors.push(missing("file"));
    }
    let file_type = match mime_type.as_deref() {
        None => {
            errors.push(missing("mime_type"));
            None
        }
        Some(value) => {
            let parsed = FileType::from_mime(value);
            if parsed.is_none() {
                errors.push(FieldError::new(
                    vec![LocPart::from("body"), "mime_type".into()],
                    "enum",
                    validation::enum_message(MIME_TYPES),
                ));
            }
            parsed
        }
    };
    match purpose.as_deref() {
        None => errors.push(missing("purpose")),
        Some(value) if !PURPOSES.contains(&value) => errors.push(FieldError::new(
            vec![LocPart::from("body"), "purpose".into()],
            "enum",
            validation::enum_message(PURPOSES),
        )),
        Some(_) => {}
    }
    match (file, file_type, purpose, errors.is_empty()) {
        (Some(file), Some(file_type), Some(purpose), true) => Ok((file, file_type, purpose)),
        _ => Err(ApiError::Validation(errors)),
    }
}

/// The stored bytes must be non-empty and of the declared type: 400 otherwise.
pub fn check_content<S: BlobStore + ?Sized>(file_type: FileType, file: &ChunkWriter<'_, S>) -> ApiResult<()> {
    if file.size() == 0 {
        return Err(ApiError::BadRequest("The file is empty".into()));
    }
    if file_type != FileType::Svg {
        return check_magic(file_type, file.head()).map_err(ApiError::BadRequest);
    }
    if let Some(kind) = sniff(file.head()).filter(|kind| !kind.contains("text")) {
        return Err(ApiError::BadRequest(format!(
            "The file content does not match mime_type 'image/svg+xml': an SVG file must be XML text (the content looks like {kind})"
        )));
    }
    let mut reader = file.reader();
    let result = check_svg(BufReader::with_capacity(64 * 1024, &mut reader));
    if let Some(failure) = reader.failure.take() {
        return Err(failure);
    }
    result.map_err(ApiError::BadRequest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sniff::tests::png;
    use crate::svg::tests::SVG_NS;
    use crate::{ChunkReader, FileRecord, StoredChunks, CHUNK_BYTES, MAX_FILE_BYTES, MAX_UPLOAD_BYTES};
    use platform::http::BodySource;
    use sha2::{Digest, Sha256};
    use std::cell::RefCell;
    use std::collections::BTreeMap;
    use std::io::Read;

    /// An in-memory store that can be told to fail the n-th write.
    #[derive(Default)]
    struct MemoryStore {
        map: RefCell<BTreeMap<String, Vec<u8>>>,
        puts: RefCell<usize>,
        fail_put_at: Option<usize>,
    }

    impl BlobStore for MemoryStore {
        fn put(&self, key: &str, value: &[u8]) -> ApiResult<()> {
            *self.puts.borrow_mut() += 1;
            if Some(*self.puts.borrow()) == self.fail_put_at {
                return Err(ApiError::internal(anyhow::anyhow!("disk full")));
            }
            assert!(value.len() <= CHUNK_BYTES, "chunks are at most 1 MiB");
            self.map.borrow_mut().insert(key.to_string(), value.to_vec());
            Ok(())
        }
        fn get(&self, key: &str) -> ApiResult<Option<Vec<u8>>> {
            Ok(self.map.borrow().get(key).cloned())
        }
        fn delete(&self, key: &str) -> ApiResult<()> {
            self.map.borrow_mut().remove(key);
            Ok(())
        }
    }

    impl MemoryStore {
        fn len(&self) -> usize {
            self.map.borrow().len()
        }
    }

    const BOUNDARY: &str = "XyZboundary42";

    enum Part<'a> {
        Text(&'a str, &'a str),
        File(&'a str, &'a [u8]),
    }

    fn form(parts: &[Part]) -> Vec<u8> {
        let mut body = Vec::new();
        for part in parts {
            body.extend_from_slice(format!("--{BOUNDARY}\r\n").as_bytes());
            match part {
                Part::Text(name, value) => {
                    body.extend_from_slice(format!("Content-Disposition: form-data; name=\"{name}\"\r\n\r\n").as_bytes());
                    body.extend_from_slice(value.as_bytes());
                }
                Part::File(name, bytes) => {
                    body.extend_from_slice(
                        format!("Content-Disposition: form-data; name=\"{name}\"; filename=\"x.bin\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                            .as_bytes(),
                    );
                    body.extend_from_slice(bytes);
                }
            }
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{BOUNDARY}--\r\n").as_bytes());
        body
    }

    fn content_type() -> String {
        format!("multipart/form-data; boundary={BOUNDARY}")
    }

    /// Feeds `body` in pieces of 16 KiB, as the host does.
    fn run<'s>(store: &'s MemoryStore, content_type: Option<&str>, body: Vec<u8>) -> ApiResult<Upload<'s, MemoryStore>> {
        let pieces: Vec<Result<Vec<u8>, ()>> = body.chunks(16 * 1024).map(|c| Ok(c.to_vec())).collect();
        let stream = futures::stream::iter(pieces);
        futures::executor::block_on(receive(content_type, None, stream, store, "f1", FileLimit::default()))
    }

    fn upload_of(store: &MemoryStore, mime: &str, bytes: &[u8]) -> ApiResult<(FileType, u64, u64, String)> {
        let body = form(&[Part::File("file", bytes), Part::Text("mime_type", mime), Part::Text("purpose", "survey")]);
        let upload = run(store, Some(&content_type()), body)?;
        let result = (upload.file_type, upload.blob.size(), upload.blob.chunk_count(), upload.blob.sha256_hex());
        upload.blob.keep();
        Ok(result)
    }

    fn read_back(store: &MemoryStore, count: u64) -> Vec<u8> {
        let mut out = Vec::new();
        ChunkReader::new(store, "f1", count).read_to_end(&mut out).unwrap();
        out
    }

    fn validation_entries(error: ApiError) -> Vec<(String, &'static str)> {
        match error {
            ApiError::Validation(errors) => errors
                .into_iter()
                .map(|e| {
                    let loc: Vec<String> = e.loc.iter().map(|p| format!("{p:?}")).collect();
                    (loc.join("/"), e.kind)
                })
                .collect(),
            other => panic!("expected 422, got {other:?}"),
        }
    }

    fn bad_request(error: ApiError) -> String {
        match error {
            ApiError::BadRequest(message) => message,
            other => panic!("expected 400, got {other:?}"),
        }
    }
    #[test]
    fn uploads_are_stored_in_chunks_and_read_back() {
        let store = MemoryStore::default();
        let bytes = png(2 * CHUNK_BYTES + CHUNK_BYTES / 2);
        let (file_type, size, chunks, sha) = upload_of(&store, "image/png", &bytes).unwrap();
        assert_eq!(file_type, FileType::Png);
        assert_eq!(size, bytes.len() as u64);
        assert_eq!(chunks, 3);
        assert_eq!(store.len(), 3);
        assert_eq!(sha, format!("{:x}", Sha256::digest(&bytes)));
        assert_eq!(read_back(&store, 3), bytes);
        assert_eq!(store.get("file:f1:2").unwrap().unwrap().len(), CHUNK_BYTES / 2);

        let mut source = StoredChunks::new(store, &FileRecord {
            chunk_bytes: CHUNK_BYTES as u64,
            file_id: "f1".into(),
            tenant_id: platform::ids::TenantId::new_random(),
            mime_type: "image/png".into(),
            purpose: "survey".into(),
            size,
            sha256: sha,
            chunk_count: 3,
            created_at: String::new(),
        });
        let mut streamed = Vec::new();
        while let Some(chunk) = source.next_chunk().unwrap() {
            streamed.extend(chunk);
        }
        assert_eq!(streamed, bytes);
    }

    #[test]
    fn field_order_does_not_matter_and_svg_is_checked_from_the_store() {
        let store = MemoryStore::default();
        let doc = format!("<svg {SVG_NS}>{}</svg>", "<rect width=\"1\" height=\"1\"/>".repeat(50_000));
        assert!(doc.len() > CHUNK_BYTES);
        let body = form(&[
            Part::Text("purpose", "survey"),
            Part::Text("mime_type", "image/svg+xml"),
            Part::Text("ignored", "x"),
            Part::File("file", doc.as_bytes()),
        ]);
        let upload = run(&store, Some(&content_type()), body).unwrap();
        assert_eq!(upload.file_type, FileType::Svg);
        assert_eq!(upload.blob.chunk_count(), 2);
        upload.blob.keep();

        let store = MemoryStore::default();
        let bad = format!("<svg {SVG_NS}>{}<script/></svg>", "<rect/>".repeat(200_000));
        let error = upload_of(&store, "image/svg+xml", bad.as_bytes()).err().unwrap();
        assert!(bad_request(error).contains("<script>"));
        assert_eq!(store.len(), 0, "no orphan chunks");
    }

    #[test]
    fn missing_fields_and_enum_violations_are_422_in_field_order() {
        let store = MemoryStore::default();
        let body = form(&[Part::Text("mime_type", "image/gif"), Part::Text("purpose", "logo")]);
        let entries = validation_entries(run(&store, Some(&content_type()), body).err().unwrap());
        assert_eq!(
            entries,
            vec![
                ("Key(\"body\")/Key(\"file\")".to_string(), "missing"),
                ("Key(\"body\")/Key(\"mime_type\")".to_string(), "enum"),
                ("Key(\"body\")/Key(\"purpose\")".to_string(), "enum"),
            ]
        );

        let body = form(&[Part::File("file", &png(100))]);
        let entries = validation_entries(run(&store, Some(&content_type()), body).err().unwrap());
        assert_eq!(entries.iter().map(|e| e.1).collect::<Vec<_>>(), vec!["missing", "missing"]);
        assert_eq!(store.len(), 0, "the stored file part was deleted");

        for content_type in [None, Some("application/json"), Some("application/x-www-form-urlencoded")] {
            let entries = validation_entries(run(&store, content_type, b"{}".to_vec()).err().unwrap());
            assert_eq!(entries.len(), 3);
            assert!(entries.iter().all(|e| e.1 == "missing"));
        }
    }

    #[test]
    fn mismatches_empty_files_and_broken_forms_are_400_without_orphans() {
        let store = MemoryStore::default();
        let error = upload_of(&store, "image/jpeg", &png(3 * CHUNK_BYTES)).err().unwrap();
        assert!(bad_request(error).contains("does not match mime_type 'image/jpeg'"));
        assert_eq!(store.len(), 0);

        let error = upload_of(&store, "image/png", b"").err().unwrap();
        assert_eq!(bad_request(error), "The file is empty");

        let body = form(&[Part::File("file", &png(10)), Part::File("file", &png(10))]);
        let error = run(&store, Some(&content_type()), body).err().unwrap();
        assert!(bad_request(error).contains("exactly one"));
        assert_eq!(store.len(), 0);

        let mut body = form(&[Part::File("file", &png(CHUNK_BYTES + 10))]);
        body.truncate(body.len() - 30);
        let error = run(&store, Some(&content_type()), body).err().unwrap();
        assert!(bad_request(error).contains("Malformed multipart"));
        assert_eq!(store.len(), 0);

        let error = run(&store, Some("multipart/form-data"), b"x".to_vec()).err().unwrap();
        assert!(bad_request(error).contains("boundary"));
    }

    #[test]
    fn a_mismatch_seen_early_stores_nothing_more() {
        let store = MemoryStore::default();
        let body = form(&[
            Part::Text("mime_type", "image/jpeg"),
            Part::Text("purpose", "survey"),
            Part::File("file", &png(3 * CHUNK_BYTES)),
        ]);
        let error = run(&store, Some(&content_type()), body).err().unwrap();
        assert!(bad_request(error).contains("looks like image/png"));
        assert_eq!(*store.puts.borrow(), 0, "no chunk was written");

        // The 422 still wins over the mismatch.
        let body = form(&[Part::Text("mime_type", "image/jpeg"), Part::File("file", &png(3 * CHUNK_BYTES))]);
        let entries = validation_entries(run(&store, Some(&content_type()), body).err().unwrap());
        assert_eq!(entries, vec![("Key(\"body\")/Key(\"purpose\")".to_string(), "missing")]);
        assert_eq!(store.len(), 0);
    }

    #[test]
    fn oversized_uploads_are_413_without_orphans() {
        let store = MemoryStore::default();
        let too_big = png(MAX_FILE_BYTES as usize + 1);
        let error = upload_of(&store, "image/png", &too_big).err().unwrap();
        assert!(matches!(error, ApiError::PayloadTooLarge(_)), "{error:?}");
        assert_eq!(store.len(), 0);

        let exact = png(MAX_FILE_BYTES as usize);
        let (_, size, chunks, _) = upload_of(&store, "image/png", &exact).unwrap();
        assert_eq!((size, chunks), (MAX_FILE_BYTES, 25));

        let stream = futures::stream::iter(Vec::<Result<Vec<u8>, ()>>::new());
        let declared = (MAX_UPLOAD_BYTES + 1).to_string();
        let error =
            futures::executor::block_on(receive(Some(&content_type()), Some(&declared), stream, &store, "f2", FileLimit::default()))
                .err()
                .unwrap();
        assert!(matches!(error, ApiError::PayloadTooLarge(_)));

        // Many small parts beyond the request limit.
        let filler = "x".repeat(64 * 1024);
        let parts: Vec<Part> = (0..420).map(|_| Part::Text("note", &filler)).collect();
        let store = MemoryStore::default();
        let error = run(&store, Some(&content_type()), form(&parts)).err().unwrap();
        assert!(matches!(error, ApiError::PayloadTooLarge(_)), "{error:?}");
    }

    #[test]
    fn a_failing_store_leaves_no_chunks() {
        let store = MemoryStore { fail_put_at: Some(3), ..MemoryStore::default() };
        let error = upload_of(&store, "image/png", &png(4 * CHUNK_BYTES)).err().unwrap();
        assert!(matches!(error, ApiError::Internal(_)));
        assert_eq!(store.len(), 0);
    }
}
