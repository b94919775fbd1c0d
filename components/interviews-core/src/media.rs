//! `GET /v1/interviews/{id}/audio-export` and `.../video-export`: the recording
//! as the page uploaded it, in its own content type, streamed chunk by chunk,
//! with single `Range` requests (`files_core::ranges`).

use platform::ids::InterviewId;
use platform::ids::TenantId;
use storage::Db;
use platform::error::{ApiError, ApiResult};
use files_core::ranges::ranged;
use files_core::BlobStore;
use platform::http::{ApiResponse, Reply};
use sealing::Sealed;
use sessions_core::recordings::{self, RecordingKind};

/// The tenant's interview's recording of `kind`: 404 when there is no such
/// interview or no such recording.
pub fn download<S: BlobStore + 'static>(
    db: &Db,
    blobs: S,
    tenant_id: TenantId,
    interview_id: InterviewId,
    kind: RecordingKind,
    range: Option<&str>,
) -> ApiResult<Reply> {
    let missing = || ApiError::NotFound(format!("This interview has no {kind} recording"));
    let Some(sealing) = records::store::interview_sealing(db, tenant_id, interview_id)? else {
        return Err(ApiError::not_found("Interview"));
    };
    let recording = recordings::find(db, interview_id, kind)?.ok_or_else(missing)?;
    let head = ApiResponse::empty(200)
        .with_header("content-type", recording.content_type.clone())
        .with_header(
            "content-disposition",
            format!("attachment; filename=\"{interview_id}-{kind}.{}\"", recordings::extension(&recording.content_type)),
        )
        .with_header("cache-control", "private, no-store")
        .with_header("x-content-type-options", "nosniff");
    let chunks = recordings::chunks(db, interview_id, kind)?;
    // Each chunk is opened with the interview's key as it is read.
    ranged(head, recording.size, range, chunks, Sealed::new(blobs, sealing))
}
