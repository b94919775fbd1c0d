//! Downloads: the status and headers of a stored file, and its chunks as the body.

use super::blob::load_chunk;
use super::{BlobStore, FileRecord, FileType};
use platform::error::ApiResult;
use platform::http::{ApiResponse, BodySource};

/// Status and headers of a download (the body comes from [`StoredChunks`]).
/// `if_none_match` holding the file's ETag gives 304 with no body.
pub fn download_head(record: &FileRecord, if_none_match: Option<&str>) -> ApiResponse {
    let file_type = record.file_type();
    let etag = format!("\"{}\"", record.sha256);
    let not_modified = if_none_match
        .is_some_and(|value| value.split(',').any(|tag| tag.trim().trim_start_matches("W/") == etag || tag.trim() == "*"));
    let mut head = ApiResponse::empty(if not_modified { 304 } else { 200 })
        .with_header("etag", etag)
        .with_header("cache-control", "private, no-cache")
        .with_header("x-content-type-options", "nosniff");
    if not_modified {
        return head;
    }
    head = head
        .with_header("content-type", file_type.mime())
        .with_header("content-length", record.size.to_string())
        .with_header(
            "content-disposition",
            format!("inline; filename=\"{}.{}\"", record.file_id, file_type.extension()),
        );
    if file_type == FileType::Svg {
        head = head.with_header("content-security-policy", "default-src 'none'; style-src 'unsafe-inline'; sandbox");
    }
    head
}

/// A stored file's chunks, read one at a time as the response body is written.
pub struct StoredChunks<S: BlobStore> {
    store: S,
    file_id: String,
    next: u64,
    count: u64,
}

impl<S: BlobStore> StoredChunks<S> {
    pub fn new(store: S, record: &FileRecord) -> Self {
        StoredChunks { store, file_id: record.file_id.clone(), next: 0, count: record.chunk_count }
    }
}

impl<S: BlobStore> BodySource for StoredChunks<S> {
    fn next_chunk(&mut self) -> ApiResult<Option<Vec<u8>>> {
        if self.next == self.count {
            return Ok(None);
        }
        let chunk = load_chunk(&self.store, &self.file_id, self.next)?;
        self.next += 1;
        Ok(Some(chunk))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn download_headers() {
        let record = FileRecord {
            file_id: "11111111-2222-4333-8444-555555555555".into(),
            tenant_id: platform::ids::TenantId::new_random(),
            mime_type: "image/svg+xml".into(),
            purpose: "survey".into(),
            size: 42,
            sha256: "ab".repeat(32),
            chunk_count: 1,
            chunk_bytes: 1 << 20,
            created_at: String::new(),
        };
        let head = download_head(&record, None);
        assert_eq!(head.status, 200);
        assert_eq!(head.header("content-type"), Some("image/svg+xml"));
        assert_eq!(head.header("content-length"), Some("42"));
        assert_eq!(
            head.header("content-disposition"),
            Some("inline; filename=\"11111111-2222-4333-8444-555555555555.svg\"")
        );
        assert_eq!(head.header("x-content-type-options"), Some("nosniff"));
        assert!(head.header("content-security-policy").unwrap().starts_with("default-src 'none'"));
        let etag = head.header("etag").unwrap().to_string();
        let cached = download_head(&record, Some(&format!("W/\"x\", {etag}")));
        assert_eq!(cached.status, 304);
        assert_eq!(cached.header("content-length"), None);

        let png_record = FileRecord { mime_type: "image/png".into(), ..record };
        assert_eq!(download_head(&png_record, None).header("content-security-policy"), None);
    }
}