//! Recordings of the interviewee (talking mode), uploaded by the page in chunks
//! while the interview runs. Each chunk's bytes are one key-value entry
//! (`recording:<interview_id>:<kind>:<index>:<nonce>`, at most 1 MiB, sealed
//! with the interview's key: `sealing`), written
//! before its SQLite row: a chunk without a row does not exist, and a refused
//! chunk's bytes are deleted at once. The nonce keeps two racing uploads of the
//! same index from overwriting each other's bytes: only the one whose row is
//! written stays. The row is written in one transaction that checks the chunk
//! against the recording as stored then (running interview, next index, the
//! recording's type, its limit, the session's bytes this minute) and keeps
//! the recording's totals.
//!
//! A reload of the page starts a new recorder, whose output is a file of its
//! own. A WebM recording is spliced as it arrives ([`webm`]): the new
//! recorder's chunks become a new segment of the one stored file, which plays
//! end to end. A new container that cannot be spliced (MP4, WAV, or a WebM
//! stream the splicer could not follow) is refused with 409
//! `recording_not_continuable`: the recording stays the valid file it was.

mod store;
pub mod webm;

use platform::ids::InterviewId;
use super::{session_closed, Interview};
use platform::config;
use storage::Db;
use platform::error::{ApiError, ApiResult, FieldError};
use files_core::BlobStore;
use platform::http::media_type;
use sealing::Sealed;
use platform::rate_limit::Window;
use text_enum::text_enum;
use platform::time;
use std::borrow::Cow;
use serde::Serialize;
use webm::{Spliced, Splicer};

text_enum! {
    pub enum RecordingKind { Audio = "audio", Video = "video" }
}

pub const AUDIO_TYPES: [&str; 5] = ["audio/webm", "audio/ogg", "audio/mp4", "audio/mpeg", "audio/wav"];
pub const VIDEO_TYPES: [&str; 2] = ["video/webm", "video/mp4"];
/// The file extension of a recording's `content_type` (a download's file
/// name, a transcription's upload): WebM where the type is not one of ours.
pub fn extension(content_type: &str) -> &'static str {
    match content_type.split(';').next().unwrap_or_default() {
        "audio/ogg" => "ogg",
        "audio/mp4" => "m4a",
        "audio/mpeg" => "mp3",
        "audio/wav" => "wav",
        "video/mp4" => "mp4",
        _ => "webm",
    }
}

pub const DEFAULT_AUDIO_MAX_BYTES: u64 = 50 * 1024 * 1024;
pub const DEFAULT_VIDEO_MAX_BYTES: u64 = 250 * 1024 * 1024;
/// Bytes a session's recordings may grow by per one-minute window: twice what
/// the page's video recording makes (about 4 MiB a minute), so that a backlog
/// drains after a bad minute, at a pace a person's recording never needs more of.
pub const RATE_VARIABLE: &str = "recording_bytes_per_minute";
pub const DEFAULT_BYTES_PER_MINUTE: u64 = 8 * 1024 * 1024;

/// Room a stored chunk may need beyond the bytes uploaded: the splice of a
/// recorder's first chunk into the stored file, and the seal (nonce and tag).
const STORED_ROOM: usize = 16 * 1024;

/// The largest chunk an upload may carry (the page cuts its recordings to
/// it): what the key-value store takes in one value (`blob_chunk_bytes`,
/// see [`files_core::configured_chunk_bytes`]) less the room it may grow by.
pub fn max_chunk_bytes() -> usize {
    files_core::configured_chunk_bytes() - STORED_ROOM
}

/// [`max_chunk_bytes`] at the default `blob_chunk_bytes` (1,032,192 bytes).
pub const DEFAULT_MAX_CHUNK_BYTES: usize = files_core::CHUNK_BYTES - STORED_ROOM;

/// A recording's totals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Recording {
    pub kind: RecordingKind,
    #[serde(skip)]
    pub content_type: String,
    #[serde(rename = "chunks")]
    pub chunk_count: u64,
    pub size: u64,
    /// The one-minute window (Unix seconds of its start) whose bytes
    /// `window_bytes` counts.
    #[serde(skip)]
    pub window_start: u64,
    #[serde(skip)]
    pub window_bytes: u64,
    /// Where splicing a WebM recording stands (`None`: not spliced).
    #[serde(skip)]
    pub splicer: Option<Splicer>,
}

/// The largest recording of each kind (Spin variables `recording_audio_max_bytes`,
/// `recording_video_max_bytes`), and the bytes a session's recordings may
/// grow by per minute (`recording_bytes_per_minute`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub audio: u64,
    pub video: u64,
    pub bytes_per_minute: u64,
}

impl Limits {
    pub fn from_variables() -> Limits {
        Limits {
            audio: config::var_u64("recording_audio_max_bytes", DEFAULT_AUDIO_MAX_BYTES),
            video: config::var_u64("recording_video_max_bytes", DEFAULT_VIDEO_MAX_BYTES),
            bytes_per_minute: config::var_u64(RATE_VARIABLE, DEFAULT_BYTES_PER_MINUTE),
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

/// Whether `bytes` start a file of `content_type` (a new recorder's output).
/// Ogg and MPEG audio are streams that may simply go on with another one.
fn starts_a_file(content_type: &str, bytes: &[u8]) -> bool {
    match media_type(content_type).as_ref().map(mime::Mime::essence_str) {
        Some("audio/webm" | "video/webm") => bytes.starts_with(&webm::EBML_MAGIC),
        Some("audio/mp4" | "video/mp4") => bytes.get(4..8) == Some(b"ftyp".as_slice()),
        Some("audio/wav") => bytes.starts_with(b"RIFF"),
        _ => false,
    }
}

/// What to store of the chunk that extends `current` (the next index, checked
/// by the caller), and the splicer for the chunk after it.
fn splice<'a>(current: Option<&Recording>, content_type: &str, bytes: &'a [u8]) -> ApiResult<(Cow<'a, [u8]>, Option<Splicer>)> {
    let Some(current) = current else {
        // The first chunk: a WebM recording is spliced from here on.
        let webm = matches!(media_type(content_type).as_ref().map(mime::Mime::essence_str), Some("audio/webm" | "video/webm"));
        return Ok(match webm.then(|| Splicer::for_first_chunk(bytes)).flatten().map(|splicer| splicer.splice(bytes)) {
            Some(Spliced::Bytes { stored, splicer }) => (Cow::Owned(stored), Some(splicer)),
            Some(Spliced::Off) | None => (Cow::Borrowed(bytes), None),
        });
    };
    match current.splicer.as_ref().map(|splicer| splicer.splice(bytes)) {
        Some(Spliced::Bytes { stored, splicer }) => Ok((Cow::Owned(stored), Some(splicer))),
        _ if starts_a_file(&current.content_type, bytes) => Err(ApiError::conflict(
            "recording_not_continuable",
            "These bytes start a new recording, which this one cannot take (only a WebM recording continues \
             across recorders); it ends with the chunks stored so far",
        )),
        _ => Ok((Cow::Borrowed(bytes), None)),
    }
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
    let max = max_chunk_bytes();
    if bytes.len() > max {
        return Err(ApiError::PayloadTooLarge(format!("A recording chunk carries at most {max} bytes")));
    }
    let now = time::now();
    let recordings = store::recordings(db, interview.interview_id)?;
    let current = recordings.iter().find(|recording| recording.kind == kind);
    if index != current.map_or(0, |recording| recording.chunk_count) {
        return Err(out_of_order(current.map_or(0, |recording| recording.chunk_count)));
    }
    let (stored_bytes, splicer) = splice(current, content_type, bytes)?;
    let chunk = Chunk {
        kind,
        index,
        content_type,
        size: stored_bytes.len() as u64,
        limit: limits.of(kind),
        bytes_per_minute: limits.bytes_per_minute,
        now: time::unix_seconds(now),
    };
    // Refused before its bytes are stored when it can be; checked again below
    // (the same index then means the same recording, so the same splice).
    chunk.fits(&recordings)?;
    let nonce = uuid::Uuid::new_v4().simple().to_string();
    let blob_key = format!("recording:{}:{kind}:{index}:{nonce}", interview.interview_id);
    // Sealed with the interview's key: erasing the interview makes every copy unreadable.
    Sealed::new(blobs, interview.sealing.clone()).put(&blob_key, &stored_bytes)?;
    let stored = db.transaction(|tx| {
        if !records::store::touch_running(tx, interview.interview_id, time::unix_millis(now))? {
            return Err(session_closed());
        }
        let offset = chunk.fits(&store::recordings(tx, interview.interview_id)?)?;
        store::add_chunk(
            tx,
            &store::NewChunk {
                interview_id: interview.interview_id,
                tenant_id: interview.tenant_id,
                kind,
                index,
                content_type,
                blob_key: &blob_key,
                size: chunk.size,
                byte_offset: offset,
                window_start: chunk.window().start,
                splicer: splicer.as_ref(),
                created_at: &time::rfc3339(now),
                created_ms: time::unix_millis(now),
            },
        )?;
        Ok(Recording {
            kind,
            content_type: content_type.to_string(),
            chunk_count: index + 1,
            size: offset + chunk.size,
            window_start: chunk.window().start,
            window_bytes: 0,
            splicer: splicer.clone(),
        })
    });
    if stored.is_err() {
        if let Err(error) = blobs.delete(&blob_key) {
            eprintln!("could not delete refused recording chunk {blob_key}: {error:?}");
        }
    }
    stored
}

/// The recording of `kind` (for its export), if any chunk arrived.
pub fn find(db: &Db, interview_id: InterviewId, kind: RecordingKind) -> ApiResult<Option<Recording>> {
    Ok(store::recordings(db, interview_id)?.into_iter().find(|recording| recording.kind == kind))
}

/// Where each chunk of a recording is, in order: (blob key, size, byte offset).
pub fn chunks(db: &Db, interview_id: InterviewId, kind: RecordingKind) -> ApiResult<Vec<(String, u64, u64)>> {
    store::chunks(db, interview_id, kind)
}

/// A chunk as it arrived.
struct Chunk<'a> {
    kind: RecordingKind,
    index: u64,
    content_type: &'a str,
    size: u64,
    /// The recording's limit (its kind's).
    limit: u64,
    /// The session's budget of bytes per minute, over both its recordings.
    bytes_per_minute: u64,
    /// When it arrived, Unix seconds.
    now: u64,
}

impl Chunk<'_> {
    fn window(&self) -> Window {
        Window::containing(self.now)
    }

    /// Whether the chunk extends its recording among `stored` (the session's
    /// recordings as stored): the next index, the recording's type, within
    /// its limit, and within the session's bytes for this minute (a chunk
    /// always fits a minute that has none yet). Its byte offset if so.
    fn fits(&self, stored: &[Recording]) -> ApiResult<u64> {
        let current = stored.iter().find(|recording| recording.kind == self.kind);
        let (size, chunks) = current.map_or((0, 0), |r| (r.size, r.chunk_count));
        if self.index != chunks {
            return Err(out_of_order(chunks));
        }
        if let Some(recording) = current {
            if !same_type(&recording.content_type, self.content_type) {
                // A type this kind takes, but not the recording's: the request is
                // well-formed and conflicts with what the first chunk fixed.
                return Err(ApiError::conflict(
                    "recording_type_mismatch",
                    format!("This recording is {}; every chunk must have that content type", recording.content_type),
                ));
            }
        }
        if size + self.size > self.limit {
            return Err(ApiError::PayloadTooLarge(format!(
                "The {} recording would exceed its limit of {} bytes",
                self.kind, self.limit
            )));
        }
        let window = self.window();
        let this_minute: u64 =
            stored.iter().filter(|recording| recording.window_start == window.start).map(|r| r.window_bytes).sum();
        if this_minute > 0 && this_minute + self.size > self.bytes_per_minute {
            return Err(ApiError::RateLimited { retry_after: window.retry_after(self.now) });
        }
        Ok(size)
    }
}

fn out_of_order(expected: u64) -> ApiError {
    ApiError::conflict("chunk_out_of_order", format!("Chunks are numbered from 0 in order; the next one is {expected}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(kind: RecordingKind, size: u64, chunks: u64, window_start: u64, window_bytes: u64) -> Recording {
        Recording { kind, content_type: "audio/webm".into(), chunk_count: chunks, size, window_start, window_bytes, splicer: None }
    }

    fn chunk(kind: RecordingKind, index: u64, size: u64, now: u64) -> Chunk<'static> {
        let content_type = if kind == RecordingKind::Audio { "audio/webm" } else { "video/webm" };
        Chunk { kind, index, content_type, size, limit: 10_000, bytes_per_minute: 3_000, now }
    }

    #[test]
    fn a_sessions_recordings_share_a_budget_of_bytes_per_minute() {
        let minute = 600; // a window start
        let audio = stored(RecordingKind::Audio, 2_000, 1, minute, 2_000);
        // Within the minute's budget: its offset.
        assert_eq!(chunk(RecordingKind::Audio, 1, 1_000, minute + 10).fits(&[audio.clone()]).unwrap(), 2_000);
        // Beyond it: 429 until the window ends.
        match chunk(RecordingKind::Audio, 1, 1_001, minute + 10).fits(&[audio.clone()]) {
            Err(ApiError::RateLimited { retry_after }) => assert_eq!(retry_after, 50),
            other => panic!("expected 429, got {other:?}"),
        }
        // The other recording of the session counts too; a new minute starts again.
        assert!(matches!(chunk(RecordingKind::Video, 0, 1_500, minute + 59).fits(&[audio.clone()]), Err(ApiError::RateLimited { .. })));
        assert_eq!(chunk(RecordingKind::Audio, 1, 2_500, minute + 60).fits(&[audio.clone()]).unwrap(), 2_000);
        // A chunk larger than the budget still fits a minute with nothing in it yet.
        let quiet = stored(RecordingKind::Audio, 2_000, 1, minute - 60, 2_000);
        assert_eq!(chunk(RecordingKind::Audio, 1, 5_000, minute).fits(&[quiet]).unwrap(), 2_000);
        // The size limit and the order still come first.
        assert_eq!(chunk(RecordingKind::Audio, 1, 8_001, minute + 60).fits(&[audio.clone()]).unwrap_err().status(), 413);
        assert_eq!(chunk(RecordingKind::Audio, 3, 10, minute).fits(&[audio]).unwrap_err().status(), 409);
    }

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

    /// Every accepted type has its own extension, the same for a download and a transcription.
    #[test]
    fn each_accepted_type_names_its_file() {
        let named: Vec<&str> = AUDIO_TYPES.iter().chain(&VIDEO_TYPES).map(|essence| extension(essence)).collect();
        assert_eq!(named, ["webm", "ogg", "m4a", "mp3", "wav", "webm", "mp4"]);
        assert_eq!(extension("audio/webm;codecs=opus"), "webm");
        assert_eq!(extension("audio/ogg;codecs=opus"), "ogg");
    }
}
