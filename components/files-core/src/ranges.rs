//! The bytes of a blob stored in chunks that a `Range` header asks for (RFC 9110:
//! one range, 206, or 416 when unsatisfiable; a header with several ranges or that
//! cannot be parsed is ignored: 200), streamed one chunk at a time. Recordings and
//! survey media are answered this way.

use crate::BlobStore;
use platform::error::{ApiError, ApiResult};
use platform::http::{ApiResponse, BodySource, Reply};

/// Which bytes to send, inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Span {
    Full,
    Partial { start: u64, end: u64 },
    /// The range lies outside the blob (416).
    Unsatisfiable,
}

/// The span a `Range` header asks for.
pub fn span(range: Option<&str>, size: u64) -> Span {
    let Some(header) = range else { return Span::Full };
    let Ok(parsed) = http_range_header::parse_range_header(header.trim()) else {
        return Span::Full;
    };
    if parsed.ranges.len() != 1 {
        return Span::Full;
    }
    match parsed.validate(size) {
        Ok(ranges) => Span::Partial { start: *ranges[0].start(), end: *ranges[0].end() },
        Err(_) => Span::Unsatisfiable,
    }
}

/// The bytes `start..=end` of a blob stored as chunks, one chunk at a time.
pub struct BlobRange<S: BlobStore> {
    blobs: S,
    /// (blob key, size, byte offset), in order.
    chunks: Vec<(String, u64, u64)>,
    next: usize,
    start: u64,
    end: u64,
}

impl<S: BlobStore> BodySource for BlobRange<S> {
    fn next_chunk(&mut self) -> ApiResult<Option<Vec<u8>>> {
        while let Some((key, size, offset)) = self.chunks.get(self.next).cloned() {
            self.next += 1;
            // A chunk may store nothing (a new recorder's first chunk of headers only: webm.rs).
            if size == 0 {
                continue;
            }
            let chunk_end = offset + size - 1;
            if chunk_end < self.start {
                continue;
            }
            if offset > self.end {
                break;
            }
            let bytes = self
                .blobs
                .get(&key)?
                .ok_or_else(|| ApiError::internal(anyhow::anyhow!("recording chunk {key} is missing")))?;
            let from = self.start.saturating_sub(offset) as usize;
            let to = (self.end.min(chunk_end) - offset + 1) as usize;
            return Ok(Some(bytes[from..to.min(bytes.len())].to_vec()));
        }
        Ok(None)
    }
}

/// Answers with the bytes a `Range` header asks for (200 whole, 206 a part, 416)
/// of a blob of `size` bytes stored as `chunks` (key, size, byte offset): `head`
/// gets the status, `Accept-Ranges`, `Content-Length` and `Content-Range`.
pub fn ranged<S: BlobStore + 'static>(
    head: ApiResponse,
    size: u64,
    range: Option<&str>,
    chunks: Vec<(String, u64, u64)>,
    blobs: S,
) -> ApiResult<Reply> {
    let (status, start, end) = match span(range, size) {
        Span::Full => (200, 0, size.saturating_sub(1)),
        Span::Partial { start, end } => (206, start, end),
        Span::Unsatisfiable => return Err(ApiError::RangeNotSatisfiable { size }),
    };
    let mut head = ApiResponse { status, ..head }
        .with_header("accept-ranges", "bytes")
        .with_header("content-length", if size == 0 { 0 } else { end - start + 1 }.to_string());
    if status == 206 {
        head = head.with_header("content-range", format!("bytes {start}-{end}/{size}"));
    }
    Ok(Reply::Streamed(head, Box::new(BlobRange { blobs, chunks, next: 0, start, end })))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_follow_rfc_9110() {
        assert_eq!(span(None, 100), Span::Full);
        assert_eq!(span(Some("bytes=0-9"), 100), Span::Partial { start: 0, end: 9 });
        assert_eq!(span(Some("bytes=90-"), 100), Span::Partial { start: 90, end: 99 });
        assert_eq!(span(Some("bytes=-10"), 100), Span::Partial { start: 90, end: 99 });
        assert_eq!(span(Some("bytes=50-500"), 100), Span::Partial { start: 50, end: 99 });
        assert_eq!(span(Some("bytes=100-"), 100), Span::Unsatisfiable);
        assert_eq!(span(Some("bytes=-101"), 100), Span::Unsatisfiable);
        assert_eq!(span(Some("bytes=0-1,5-6"), 100), Span::Full, "several ranges: the whole");
        assert_eq!(span(Some("pages=1-2"), 100), Span::Full, "unparseable: ignored");
    }

    use crate::blob::MemoryBlobs as Blobs;

    fn read(start: u64, end: u64) -> Vec<u8> {
        let blobs = Blobs::default();
        blobs.put("a", b"0123").unwrap();
        blobs.put("b", b"4567").unwrap();
        blobs.put("c", b"89").unwrap();
        let chunks = vec![("a".into(), 4, 0), ("b".into(), 4, 4), ("c".into(), 2, 8)];
        let mut source = BlobRange { blobs, chunks, next: 0, start, end };
        let mut out = Vec::new();
        while let Some(piece) = source.next_chunk().unwrap() {
            out.extend(piece);
        }
        out
    }

    #[test]
    fn spans_cross_chunk_boundaries() {
        assert_eq!(read(0, 9), b"0123456789");
        assert_eq!(read(3, 5), b"345");
        assert_eq!(read(8, 9), b"89");
        assert_eq!(read(4, 7), b"4567");
    }
}
