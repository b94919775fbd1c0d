//! Recordings of the interviewee (talking mode), uploaded by the page in chunks
//! while the interview runs. Each chunk's bytes are one key-value entry
//! (`recording:<interview_id>:<kind>:<index>:<nonce>`, at most 1 MiB), written
//! before its SQLite row: a chunk without a row does not exist, and a refused
//! chunk's bytes are deleted at once. The nonce keeps two racing uploads of the
//! same index from overwriting each other's bytes: only the one whose row is
//! written stays.

use super::store::{self, ChunkRefusal, NewChunk};
use super::{session_closed, Interview};
use crate::config;
use crate::db::Db;
use crate::error::{ApiError, ApiResult, FieldError};
use crate::files::BlobStore;
use crate::http::media_type;
use crate::text_enum;
use crate::time;
use serde::Serialize;

text_enum! {
    pub enum RecordingKind { Audio = "audio", Video = "video" }
}

pub const AUDIO_TYPES: [&str; 5] = ["audio/webm", "audio/ogg", "audio/mp4", "audio/mpeg", "audio/wav"];
pub const VIDEO_TYPES: [&str; 2] = ["video/webm", "video/mp4"];
pub const DEFAULT_AUDIO_MAX_BYTES: u64 = 50 * 1024 * 1024;
pub const DEFAULT_VIDEO_MAX_BYTES: u64 = 250 * 1024 * 1024;

/// A recording's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recording {
    pub kind: RecordingKind,
    #[serde(skip)]
    pub content_type: String,
    #[serde(rename = "chunks")]
    pub chunk_count: u64,
    pub size: u64,
}

/// The largest recording of each kind (Spin variables `recording_audio_max_bytes`,
/// `recording_video_max_bytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub audio: u64,
    pub video: u64,
}

impl Limits {
    pub fn from_variables() -> Limits {
        Limits {
            audio: config::var_u64("recording_audio_max_bytes", DEFAULT_AUDIO_MAX_BYTES),
            video: config::var_u64("recording_video_max_bytes", DEFAULT_VIDEO_MAX_BYTES),
        }
    }

    fn of(self, kind: RecordingKind) -> u64 {
        match kind {
            RecordingKind::Audio => self.audio,
            RecordingKind::Video => self.video,
        }
    }
}

/// The content type of a chunk of `kind`: an accepted essence, with a `codecs`
/// parameter kept when given (`audio/webm;codecs=opus`). 415 otherwise.
pub fn content_type(kind: RecordingKind, header: Option<&str>) -> ApiResult<String> {
    let (accepted, recordings): (&[&str], _) = match kind {
        RecordingKind::Audio => (&AUDIO_TYPES, "Audio recordings"),
        RecordingKind::Video => (&VIDEO_TYPES, "Video recordings"),
    };
    let essence = header.and_then(media_type).map(|media| media.essence_str().to_string());
    let Some(essence) = essence.filter(|essence| accepted.contains(&essence.as_str())) else {
        return Err(ApiError::UnsupportedMediaType(format!(
            "{recordings} take one of these content types: {}",
            accepted.join(", ")
        )));
    };
    // The codecs as the `mime` crate reads them; kept only when plainly written.
    let codecs = header
        .and_then(|header| header.parse::<mime::Mime>().ok())
        .and_then(|full| full.get_param("codecs").map(|codecs| codecs.as_str().to_string()))
        .filter(|codecs| {
            !codecs.is_empty() && codecs.len() <= 100 && codecs.bytes().all(|b| b.is_ascii_alphanumeric() || b".,-_ ".contains(&b))
        });
    Ok(match codecs {
        Some(codecs) if codecs.bytes().any(|b| b == b',' || b == b' ') => format!("{essence};codecs=\"{codecs}\""),
        Some(codecs) => format!("{essence};codecs={codecs}"),
        None => essence,
    })
}

fn same_type(stored: &str, given: &str) -> bool {
    media_type(stored) == media_type(given)
}

/// Stores the chunk `index` of the interview's `kind` recording.
pub fn add_chunk(
    db: &Db,
    blobs: &impl BlobStore,
    interview: &Interview,
    kind: RecordingKind,
    index: u64,
    content_type: &str,
    bytes: &[u8],
    limits: Limits,
) -> ApiResult<Recording> {
    interview.ensure_running()?;
    if bytes.is_empty() {
        return Err(ApiError::Validation(vec![FieldError::new(vec!["body".into()], "missing", "Field required")]));
    }
    let current = store::recording(db, &interview.interview_id, kind)?;
    let (size, chunks) = current.as_ref().map_or((0, 0), |r| (r.size, r.chunk_count));
    if index != chunks {
        return Err(out_of_order(chunks));
    }
    if let Some(recording) = &current {
        if !same_type(&recording.content_type, content_type) {
            // A type this kind takes, but not the recording's: the request is
            // well-formed and conflicts with what the first chunk fixed.
            return Err(ApiError::conflict(
                "recording_type_mismatch",
                format!("This recording is {}; every chunk must have that content type", recording.content_type),
            ));
        }
    }
    let limit = limits.of(kind);
    if size + bytes.len() as u64 > limit {
        return Err(ApiError::PayloadTooLarge(format!(
            "The {kind} recording would exceed its limit of {limit} bytes"
        )));
    }
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    let blob_key = format!("recording:{}:{kind}:{index}:{nonce}", interview.interview_id);
    blobs.put(&blob_key, bytes)?;
    let now = time::now();
    let refusal = store::add_chunk(
        db,
        &NewChunk {
            interview_id: &interview.interview_id,
            tenant_id: &interview.tenant_id,
            kind,
            index,
            content_type,
            blob_key: &blob_key,
            size: bytes.len() as u64,
            created_at: &time::rfc3339(now),
            created_ms: time::unix_millis(now),
        },
    );
    let refusal = match refusal {
        Ok(Ok(())) => None,
        Ok(Err(refusal)) => Some(Ok(refusal)),
        Err(error) => Some(Err(error)),
    };
    if let Some(refusal) = refusal {
        if let Err(error) = blobs.delete(&blob_key) {
            eprintln!("could not delete refused recording chunk {blob_key}: {error:?}");
        }
        return Err(match refusal? {
            ChunkRefusal::SessionClosed => session_closed(),
            ChunkRefusal::OutOfOrder => {
                let now_at = store::recording(db, &interview.interview_id, kind)?.map_or(0, |r| r.chunk_count);
                out_of_order(now_at)
            }
        });
    }
    Ok(Recording { kind, content_type: content_type.to_string(), chunk_count: chunks + 1, size: size + bytes.len() as u64 })
}

fn out_of_order(expected: u64) -> ApiError {
    ApiError::conflict("chunk_out_of_order", format!("Chunks are numbered from 0 in order; the next one is {expected}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_are_checked_per_kind() {
        assert_eq!(content_type(RecordingKind::Audio, Some("audio/webm;codecs=opus")).unwrap(), "audio/webm;codecs=opus");
        assert_eq!(content_type(RecordingKind::Audio, Some("Audio/OGG")).unwrap(), "audio/ogg");
        assert_eq!(content_type(RecordingKind::Video, Some("video/webm; codecs=\"vp8,opus\"")).unwrap(), "video/webm;codecs=\"vp8,opus\"");
        assert_eq!(content_type(RecordingKind::Audio, Some("audio/webm; codecs=<script>")).unwrap(), "audio/webm");
        assert_eq!(content_type(RecordingKind::Audio, Some("audio/webm; codecs=\"\"")).unwrap(), "audio/webm");
        assert_eq!(content_type(RecordingKind::Audio, Some("audio/webm;rate=48000;codecs=opus")).unwrap(), "audio/webm;codecs=opus");
        assert!(same_type("audio/webm;codecs=opus", "AUDIO/WEBM"));
        assert!(!same_type("audio/webm", "audio/ogg"));
        for (kind, header) in [(RecordingKind::Audio, Some("video/webm")), (RecordingKind::Video, Some("text/html")), (RecordingKind::Audio, None)] {
            assert_eq!(content_type(kind, header).unwrap_err().status(), 415);
        }
    }
}
