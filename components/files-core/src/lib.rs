//! Files: `POST /v1/files` (streaming multipart upload, type checks, chunked blob
//! storage) and `GET /v1/files/{file_id}` (the bytes back, chunk by chunk).
//!
//! The bytes live in the key-value store in chunks of at most [`CHUNK_BYTES`]
//! under `file:<file_id>:<n>`; the metadata row in SQLite is written last. Every
//! failure after the first chunk was written deletes the chunks written so far
//! ([`ChunkWriter`] does it when dropped unless kept), so a refused upload leaves
//! nothing behind.
//!
//! Submodules: [`mod@sniff`] (magic numbers), [`svg`] (the SVG and CSS checks),
//! [`blob`] (chunks in the key-value store), [`mod@upload`] (receiving a multipart
//! upload), [`store`] (SQLite), [`download`] (the bytes back), [`ranges`] (the
//! bytes a `Range` header asks for).

pub mod blob;
pub mod download;
pub mod ranges;
pub mod sniff;
pub mod store;
pub mod svg;
pub mod upload;

pub use blob::{chunk_key, configured_chunk_bytes, open_store, BlobStore, ChunkReader, ChunkWriter, CHUNK_BYTES, CHUNK_VARIABLE};
pub use download::{download_head, StoredChunks};
pub use sniff::{check_magic, sniff};
pub use svg::check_svg;
pub use upload::{check_content, receive, Upload};

use platform::ids::TenantId;
use storage::Db;
use platform::error::{ApiError, ApiResult};
use platform::http::ApiRequest;
use platform::time;
use platform::validation;
use futures::Stream;
use serde::Serialize;

/// Largest accepted file (the `file` part's content) by default: 25 MiB. The
/// `file_max_bytes` variable changes it (platforms with smaller request limits).
pub const MAX_FILE_BYTES: u64 = 25 * 1024 * 1024;
/// Room in an upload request for the other parts and the multipart framing.
pub const UPLOAD_OVERHEAD_BYTES: u64 = 64 * 1024;
/// Largest accepted upload request by default.
pub const MAX_UPLOAD_BYTES: u64 = MAX_FILE_BYTES + UPLOAD_OVERHEAD_BYTES;

/// How large an uploaded file may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileLimit {
    pub file_bytes: u64,
    /// The largest value the key-value store takes: the size of the chunks.
    pub chunk_bytes: usize,
}

impl Default for FileLimit {
    fn default() -> Self {
        FileLimit { file_bytes: MAX_FILE_BYTES, chunk_bytes: CHUNK_BYTES }
    }
}

impl FileLimit {
    /// The `file_max_bytes` variable (25 MiB when unset) and `blob_chunk_bytes` (1 MiB).
    pub fn from_variables() -> FileLimit {
        FileLimit {
            file_bytes: platform::config::var_u64("file_max_bytes", MAX_FILE_BYTES).max(1),
            chunk_bytes: configured_chunk_bytes(),
        }
    }

    /// The whole request: the file plus the other parts and framing.
    pub fn upload_bytes(self) -> u64 {
        self.file_bytes + UPLOAD_OVERHEAD_BYTES
    }

    fn file_too_large(self) -> ApiError {
        ApiError::PayloadTooLarge(format!("The file exceeds the maximum size of {} bytes", self.file_bytes))
    }

    fn request_too_large(self) -> ApiError {
        ApiError::PayloadTooLarge(format!(
            "The request body exceeds {} bytes (a {}-byte file plus 64 KiB for the other fields)",
            self.upload_bytes(),
            self.file_bytes
        ))
    }
}

pub const MIME_TYPES: &[&str] = &["image/jpeg", "image/png", "image/svg+xml", "video/mp4"];
pub const PURPOSES: &[&str] = &["survey"];

/// The accepted file types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    Jpeg,
    Png,
    Svg,
    Mp4,
}

impl FileType {
    pub fn from_mime(mime: &str) -> Option<FileType> {
        match mime {
            "image/jpeg" => Some(FileType::Jpeg),
            "image/png" => Some(FileType::Png),
            "image/svg+xml" => Some(FileType::Svg),
            "video/mp4" => Some(FileType::Mp4),
            _ => None,
        }
    }

    pub fn mime(self) -> &'static str {
        match self {
            FileType::Jpeg => "image/jpeg",
            FileType::Png => "image/png",
            FileType::Svg => "image/svg+xml",
            FileType::Mp4 => "video/mp4",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            FileType::Jpeg => "jpg",
            FileType::Png => "png",
            FileType::Svg => "svg",
            FileType::Mp4 => "mp4",
        }
    }
}

/// A stored file's metadata row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileRecord {
    pub file_id: String,
    #[serde(skip)]
    pub tenant_id: TenantId,
    pub mime_type: String,
    pub purpose: String,
    pub size: u64,
    pub sha256: String,
    #[serde(skip)]
    pub chunk_count: u64,
    /// The size of its chunks as written (the last one may be shorter).
    #[serde(skip)]
    pub chunk_bytes: u64,
    pub created_at: String,
}

impl FileRecord {
    pub fn file_type(&self) -> FileType {
        FileType::from_mime(&self.mime_type).unwrap_or(FileType::Jpeg)
    }
}

/// Writes the metadata row of a received upload (the last step) and keeps its chunks.
/// Writes the metadata row of a received upload (the last step) and keeps its chunks.
pub fn save(db: &Db, tenant_id: TenantId, file_id: &str, upload: Upload<'_, impl BlobStore + ?Sized>) -> ApiResult<FileRecord> {
    let record = FileRecord {
        file_id: file_id.to_string(),
        tenant_id,
        mime_type: upload.file_type.mime().to_string(),
        purpose: upload.purpose.clone(),
        size: upload.blob.size(),
        sha256: upload.blob.sha256_hex(),
        chunk_count: upload.blob.chunk_count(),
        chunk_bytes: upload.blob.chunk_bytes() as u64,
        created_at: time::rfc3339_now(),
    };
    store::insert(db, &record)?;
    upload.blob.keep();
    Ok(record)
}

/// `POST /v1/files`: receives, checks and stores an upload; returns its metadata.
pub async fn upload<S, B, E>(db: &Db, store: &S, tenant_id: TenantId, request: &ApiRequest, body: B) -> ApiResult<FileRecord>
where
    S: BlobStore + ?Sized,
    B: Stream<Item = Result<Vec<u8>, E>> + Send,
    E: std::fmt::Debug,
{
    let file_id = uuid::Uuid::new_v4().to_string();
    let upload =
        receive(request.header("content-type"), request.header("content-length"), body, store, &file_id, FileLimit::from_variables())
            .await?;
    save(db, tenant_id, &file_id, upload)
}

/// The tenant's file; another tenant's or an unknown one is 404. A `file_id`
/// The tenant's file; another tenant's or an unknown one is 404. A `file_id`
/// that is not a UUID is 422 `uuid_parsing` at `["path","file_id"]`.
pub fn find(db: &Db, tenant_id: TenantId, file_id: &str) -> ApiResult<FileRecord> {
    let file_id = validation::uuid_param(file_id, vec!["path".into(), "file_id".into()])
        .map_err(|error| ApiError::Validation(vec![error]))?
        .to_string();
    store::find(db, tenant_id, &file_id)?.ok_or_else(|| ApiError::not_found("File"))
}
