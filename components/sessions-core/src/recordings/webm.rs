//! One WebM file from a recording made by several recorders (docs/sessions.md,
//! "Recordings that survive a reload").
//!
//! The page records with `MediaRecorder` and uploads each chunk as it comes.
//! A reload starts a new recorder, whose output is a WebM file of its own: an
//! EBML header, a Segment with its Info and Tracks, then Clusters whose
//! timecodes start again at 0. Appended as it is, that second header lands in
//! the middle of the stored file, and players stop there (or jumble the
//! timestamps). So the recording is spliced as it arrives: a chunk that starts
//! with an EBML header after the first starts a new segment, and the chunks of
//! a segment after the first keep only their Clusters, each Cluster's
//! timecode moved past the end of what was stored before (its header made of
//! unknown size, as browsers write them, so that a longer timecode never
//! disagrees with a stored size). The stored bytes are one WebM stream, one
//! Segment of the first recorder's tracks, that plays end to end; the first
//! segment is stored exactly as uploaded.
//!
//! The splicer reads element headers and skips payloads, so it costs little
//! per chunk; what it knows between chunks ([`Splicer`], a few numbers and at
//! most a few bytes of an element cut by a chunk boundary) is kept as JSON in
//! the recording's row. Anything it cannot follow (not WebM after all, an
//! element it cannot place) turns it off for the rest of the recording: the
//! chunks are then stored as uploaded, as before it existed.

use serde::{Deserialize, Serialize};

/// The EBML magic number: the ID of the EBML header every WebM file starts with.
pub const EBML_MAGIC: [u8; 4] = [0x1A, 0x45, 0xDF, 0xA3];

const SEGMENT: u32 = 0x1853_8067;
const CLUSTER: u32 = 0x1F43_B675;
const TIMECODE: u32 = 0xE7;
const SIMPLE_BLOCK: u32 = 0xA3;
const BLOCK_GROUP: u32 = 0xA0;
const BLOCK: u32 = 0xA1;
const EBML: u32 = 0x1A45_DFA3;
const VOID: u32 = 0xEC;
const CRC32: u32 = 0xBF;

/// The children a Segment may have: any other ID ends an unknown-size Segment.
const SEGMENT_CHILDREN: [u32; 8] =
    [0x114D_9B74, 0x1549_A966, 0x1654_AE6B, CLUSTER, 0x1C53_BB6B, 0x1941_A469, 0x1043_A770, 0x1254_C367];
/// The children a Cluster may have: any other ID ends an unknown-size Cluster.
const CLUSTER_CHILDREN: [u32; 7] = [TIMECODE, SIMPLE_BLOCK, BLOCK_GROUP, 0xA7, 0xAB, 0x5854, 0xAF];

/// Milliseconds between the last block stored and the first of a new segment
/// (a frame of audio; the time the reload took is not part of the recording).
const SEGMENT_GAP_MS: i64 = 20;
/// The most zero bytes written to complete an element the previous recorder
/// left unfinished (its last chunk lost in the reload); beyond it, splicing stops.
const MAX_PADDING: u64 = 1024 * 1024;
/// A cluster header of unknown size: what a spliced cluster's header says.
const UNKNOWN_SIZE: [u8; 8] = [0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF];

/// An element whose children are being read, and where it ends (`None`: of
/// unknown size, ended by the first element that cannot be its child).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Open {
    id: u32,
    end: Option<u64>,
}

/// What the splicer is in the middle of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Reading {
    /// An element header: its ID and size, `bytes` of it so far.
    Header { bytes: Vec<u8> },
    /// The payload of an element, `left` bytes to go; `keep`: stored or dropped.
    Payload { left: u64, keep: bool },
    /// A Cluster's timecode (a payload of `size` bytes), `bytes` of it so far.
    Timecode { size: u64, bytes: Vec<u8> },
    /// The start of a block (track number and relative timecode), `bytes` of
    /// it so far, of a payload of `size` bytes.
    BlockHead { size: u64, bytes: Vec<u8> },
}

/// Where a recording's splicing stands between chunks (see the module docs).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Splicer {
    /// Recorders whose output the recording holds, less one.
    pub segment: u32,
    /// Position in the current segment's uploaded bytes.
    pos: u64,
    stack: Vec<Open>,
    reading: Reading,
    /// Added to the timecodes of the current segment (set by its first cluster).
    offset: Option<i64>,
    /// The current cluster's timecode, as stored.
    cluster_ms: i64,
    /// The latest block time stored so far (ms).
    end_ms: i64,
}

/// What happened to a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Spliced {
    /// The bytes to store; `splicer` is what to keep for the next chunk.
    Bytes { stored: Vec<u8>, splicer: Splicer },
    /// The splicer could not follow: store the chunk as uploaded and splice no more.
    Off,
}

/// Why a stream cannot be followed.
struct Lost;

impl Splicer {
    /// A splicer for a recording whose first chunk is `first`: only a WebM
    /// stream (one that starts with the EBML header) is spliced.
    pub fn for_first_chunk(first: &[u8]) -> Option<Splicer> {
        first.starts_with(&EBML_MAGIC).then(|| Splicer {
            segment: 0,
            pos: 0,
            stack: Vec::new(),
            reading: Reading::Header { bytes: Vec::new() },
            offset: None,
            cluster_ms: 0,
            end_ms: 0,
        })
    }

    /// The next chunk of the recording, as it is to be stored. A chunk that
    /// starts with the EBML header starts a new segment.
    pub fn splice(&self, chunk: &[u8]) -> Spliced {
        let mut next = self.clone();
        let mut out = Vec::with_capacity(chunk.len());
        if chunk.starts_with(&EBML_MAGIC) && (self.pos > 0 || self.segment > 0) {
            if next.new_segment(&mut out).is_err() {
                return Spliced::Off;
            }
        }
        match next.feed(chunk, &mut out) {
            Ok(()) => Spliced::Bytes { stored: out, splicer: next },
            Err(Lost) => Spliced::Off,
        }
    }

    /// Ends the current segment (completing an element its recorder left
    /// unfinished with zero bytes) and starts the next one.
    fn new_segment(&mut self, out: &mut Vec<u8>) -> Result<(), Lost> {
        match &self.reading {
            Reading::Header { bytes } if bytes.is_empty() => {}
            // The first segment is stored as uploaded, so what its recorder
            // left unfinished is completed; a later one stored no header or
            // timecode before it was whole (its block heads it did).
            Reading::Header { bytes } if self.first() => complete_header(bytes, out)?,
            Reading::Header { .. } => {}
            Reading::Timecode { size, bytes } if self.first() => out.resize(out.len() + (*size as usize - bytes.len()), 0),
            Reading::Timecode { .. } => {}
            Reading::BlockHead { size, bytes } if *size <= MAX_PADDING => {
                if bytes.is_empty() {
                    out.push(0x81); // a track number (1) rather than an invalid one
                }
                out.resize(out.len() + (*size as usize).saturating_sub(bytes.len().max(1)), 0);
            }
            Reading::Payload { left, keep } if *left <= MAX_PADDING => {
                if *keep {
                    out.resize(out.len() + *left as usize, 0);
                }
            }
            _ => return Err(Lost),
        }
        // A Segment of known size (not what browsers write) cannot take more clusters.
        if self.segment == 0 && !self.stack.iter().any(|open| open.id == SEGMENT && open.end.is_none()) {
            return Err(Lost);
        }
        self.segment += 1;
        self.pos = 0;
        self.stack.clear();
        self.reading = Reading::Header { bytes: Vec::new() };
        self.offset = None;
        Ok(())
    }

    /// Whether the current segment is stored as uploaded (the first one is).
    fn first(&self) -> bool {
        self.segment == 0
    }

    fn feed(&mut self, mut input: &[u8], out: &mut Vec<u8>) -> Result<(), Lost> {
        while !input.is_empty() {
            let taken = match std::mem::replace(&mut self.reading, Reading::Header { bytes: Vec::new() }) {
                Reading::Header { mut bytes } => {
                    let (taken, complete) = take_header(&mut bytes, input);
                    if self.first() {
                        out.extend_from_slice(&input[..taken]);
                    }
                    if complete {
                        let header_end = self.pos + taken as u64;
                        self.reading = self.element(&bytes, header_end, out)?;
                    } else {
                        self.reading = Reading::Header { bytes };
                    }
                    taken
                }
                Reading::Payload { left, keep } => {
                    let taken = left.min(input.len() as u64) as usize;
                    if keep {
                        out.extend_from_slice(&input[..taken]);
                    }
                    if left > taken as u64 {
                        self.reading = Reading::Payload { left: left - taken as u64, keep };
                    }
                    taken
                }
                Reading::Timecode { size, mut bytes } => {
                    let taken = ((size as usize) - bytes.len()).min(input.len());
                    bytes.extend_from_slice(&input[..taken]);
                    if self.first() {
                        out.extend_from_slice(&input[..taken]);
                    }
                    if bytes.len() as u64 == size {
                        self.timecode(&bytes, out);
                    } else {
                        self.reading = Reading::Timecode { size, bytes };
                    }
                    taken
                }
                Reading::BlockHead { size, mut bytes } => {
                    let wanted = block_head_len(&bytes).min(size as usize);
                    let taken = (wanted - bytes.len()).min(input.len());
                    bytes.extend_from_slice(&input[..taken]);
                    out.extend_from_slice(&input[..taken]);
                    if bytes.len() == block_head_len(&bytes).min(size as usize) {
                        if let Some(relative) = block_timecode(&bytes) {
                            self.end_ms = self.end_ms.max(self.cluster_ms + i64::from(relative));
                        }
                        if size > bytes.len() as u64 {
                            self.reading = Reading::Payload { left: size - bytes.len() as u64, keep: true };
                        }
                    } else {
                        self.reading = Reading::BlockHead { size, bytes };
                    }
                    taken
                }
            };
            self.pos += taken as u64;
            input = &input[taken..];
        }
        Ok(())
    }

    /// An element whose header `header` is complete, ending at `header_end`
    /// in the segment's uploaded bytes: what to read next.
    fn element(&mut self, header: &[u8], header_end: u64, out: &mut Vec<u8>) -> Result<Reading, Lost> {
        let (id, id_len) = read_id(header).ok_or(Lost)?;
        let (size, _) = read_size(&header[id_len..]).ok_or(Lost)?;
        let start = header_end - header.len() as u64;
        // Known-size elements that ended before this one close; an unknown-size
        // one closes when this element cannot be its child.
        while let Some(open) = self.stack.last() {
            let ended = match open.end {
                Some(end) => end <= start,
                None => match open.id {
                    SEGMENT => !(SEGMENT_CHILDREN.contains(&id) || id == VOID || id == CRC32),
                    CLUSTER => !(CLUSTER_CHILDREN.contains(&id) || id == VOID || id == CRC32),
                    _ => true,
                },
            };
            if !ended {
                break;
            }
            self.stack.pop();
        }
        let parent = self.stack.last().map(|open| open.id);
        let first = self.first();
        let end = size.map(|size| header_end + size);
        // Spliced segments keep their clusters' contents only.
        let keep = |reading: Reading, out: &mut Vec<u8>| {
            if !first {
                out.extend_from_slice(header);
            }
            reading
        };
        Ok(match (parent, id) {
            // A second header inside the first recorder's bytes (not at a chunk's start): not followed.
            (None, EBML) if first && start > 0 => return Err(Lost),
            (None, EBML) => Reading::Payload { left: size.ok_or(Lost)?, keep: first },
            (None, SEGMENT) => {
                self.stack.push(Open { id: SEGMENT, end });
                Reading::Header { bytes: Vec::new() }
            }
            (None, _) => return Err(Lost),
            (Some(SEGMENT), CLUSTER) => {
                if !first {
                    out.extend_from_slice(&header[..4]);
                    out.extend_from_slice(&UNKNOWN_SIZE);
                }
                self.stack.push(Open { id: CLUSTER, end });
                Reading::Header { bytes: Vec::new() }
            }
            // Info, Tracks, Cues, Tags...: the first recorder's stand for the whole file.
            (Some(SEGMENT), _) => Reading::Payload { left: size.ok_or(Lost)?, keep: first },
            (Some(CLUSTER), TIMECODE) if size.is_some_and(|size| (1..=8).contains(&size)) => {
                Reading::Timecode { size: size.ok_or(Lost)?, bytes: Vec::new() }
            }
            (Some(CLUSTER), TIMECODE) => return Err(Lost),
            (Some(CLUSTER), SIMPLE_BLOCK) | (Some(BLOCK_GROUP), BLOCK) => {
                keep(Reading::BlockHead { size: size.ok_or(Lost)?, bytes: Vec::new() }, out)
            }
            (Some(CLUSTER), BLOCK_GROUP) => {
                size.ok_or(Lost)?;
                self.stack.push(Open { id: BLOCK_GROUP, end });
                keep(Reading::Header { bytes: Vec::new() }, out)
            }
            (Some(_), _) => keep(Reading::Payload { left: size.ok_or(Lost)?, keep: true }, out),
        }
        .normalized())
    }

    /// A cluster's timecode, `bytes` big-endian: remembered, and in a spliced
    /// segment moved past what was stored before (written in 8 bytes).
    fn timecode(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        let value = bytes.iter().fold(0i64, |value, byte| (value << 8) | i64::from(*byte));
        if self.first() {
            self.cluster_ms = value;
            return;
        }
        let offset = *self.offset.get_or_insert(self.end_ms + SEGMENT_GAP_MS - value);
        self.cluster_ms = (value + offset).max(0);
        out.extend_from_slice(&[0xE7, 0x88]);
        out.extend_from_slice(&(self.cluster_ms as u64).to_be_bytes());
    }
}

impl Reading {
    /// An empty payload is nothing to read: the next element's header follows.
    fn normalized(self) -> Reading {
        match self {
            Reading::Payload { left: 0, .. } => Reading::Header { bytes: Vec::new() },
            Reading::BlockHead { size: 0, .. } => Reading::Header { bytes: Vec::new() },
            other => other,
        }
    }
}

/// The length of an EBML variable-size integer from its first byte (1..=8), if valid.
fn vint_len(first: u8) -> Option<usize> {
    (first != 0).then(|| first.leading_zeros() as usize + 1)
}

/// An element ID (its marker bits kept, as IDs are written) and its length.
fn read_id(bytes: &[u8]) -> Option<(u32, usize)> {
    let len = vint_len(*bytes.first()?).filter(|len| *len <= 4)?;
    let id = bytes.get(..len)?.iter().fold(0u32, |id, byte| (id << 8) | u32::from(*byte));
    Some((id, len))
}

/// An element size (`None` inside: unknown, all value bits set) and its length.
fn read_size(bytes: &[u8]) -> Option<(Option<u64>, usize)> {
    let len = vint_len(*bytes.first()?)?;
    let raw = bytes.get(..len)?;
    let mask = if len == 8 { 0 } else { 0xFFu8 >> len };
    let value = raw[1..].iter().fold(u64::from(raw[0] & mask), |value, byte| (value << 8) | u64::from(*byte));
    let unknown = value == (1u64 << (7 * len)) - 1;
    Some((if unknown { None } else { Some(value) }, len))
}

/// Moves bytes of an element header from `input` into `header` until it is
/// complete (ID and size); returns how many it took and whether it is.
fn take_header(header: &mut Vec<u8>, input: &[u8]) -> (usize, bool) {
    let mut taken = 0;
    loop {
        let wanted = match header.first().and_then(|first| vint_len(*first)) {
            None if header.is_empty() => 1,
            None => return (taken, true), // an invalid ID: the caller finds out
            Some(id_len) => match header.get(id_len).and_then(|first| vint_len(*first)) {
                None if header.len() <= id_len => id_len + 1,
                None => return (taken, true),
                Some(size_len) => id_len + size_len,
            },
        };
        if header.len() >= wanted {
            return (taken, true);
        }
        let Some(byte) = input.get(taken) else { return (taken, false) };
        header.push(*byte);
        taken += 1;
    }
}

/// Completes an element header cut short after `bytes`: an ID cut short is
/// a Cluster's (the only ID longer than a byte in a recording's clusters), the
/// rest of the size zero bytes (a size of 0 when none of it arrived: Chromium's
/// recorder may end a chunk between a block's ID and its size, and demuxers
/// skip an empty element), then a payload of that size in zeros.
fn complete_header(bytes: &[u8], out: &mut Vec<u8>) -> Result<(), Lost> {
    let id_len = bytes.first().and_then(|first| vint_len(*first)).filter(|len| *len <= 4).ok_or(Lost)?;
    let mut header = bytes.to_vec();
    if header.len() < id_len {
        let cluster = CLUSTER.to_be_bytes();
        header = cluster.starts_with(&header).then(|| cluster.to_vec()).ok_or(Lost)?;
    }
    if header.len() == id_len {
        header.push(0x80);
    }
    let size_len = vint_len(header[id_len]).ok_or(Lost)?;
    header.resize(id_len + size_len, 0);
    let size = read_size(&header[id_len..]).and_then(|(size, _)| size).filter(|size| *size <= MAX_PADDING).ok_or(Lost)?;
    out.extend_from_slice(&header[bytes.len()..]);
    out.resize(out.len() + size as usize, 0);
    Ok(())
}

/// How many bytes the start of a block has: its track number and its 16-bit
/// relative timecode (as far as `bytes` tells; 3 until the track number's length is known).
fn block_head_len(bytes: &[u8]) -> usize {
    bytes.first().and_then(|first| vint_len(*first)).map_or(3, |track_len| track_len + 2)
}

/// A block's timecode relative to its cluster, from the start of the block.
fn block_timecode(bytes: &[u8]) -> Option<i16> {
    let track_len = vint_len(*bytes.first()?)?;
    let relative = bytes.get(track_len..track_len + 2)?;
    Some(i16::from_be_bytes([relative[0], relative[1]]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An element: ID bytes, size (`None`: unknown), payload.
    fn element(id: &[u8], size: Option<usize>, payload: &[u8]) -> Vec<u8> {
        let mut bytes = id.to_vec();
        match size {
            Some(size) => {
                assert!(size < 0x3FFF);
                bytes.extend_from_slice(&[0x40 | (size >> 8) as u8, size as u8]);
            }
            None => bytes.extend_from_slice(&UNKNOWN_SIZE),
        }
        bytes.extend_from_slice(payload);
        bytes
    }

    fn known(id: &[u8], payload: &[u8]) -> Vec<u8> {
        element(id, Some(payload.len()), payload)
    }

    fn block(relative_ms: i16, frame: &[u8]) -> Vec<u8> {
        let mut payload = vec![0x81];
        payload.extend_from_slice(&relative_ms.to_be_bytes());
        payload.push(0x80);
        payload.extend_from_slice(frame);
        known(&[0xA3], &payload)
    }

    fn cluster(timecode: u16, blocks: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = element(&[0x1F, 0x43, 0xB6, 0x75], None, &known(&[0xE7], &timecode.to_be_bytes()));
        for block in blocks {
            bytes.extend_from_slice(block);
        }
        bytes
    }

    /// A recorder's output, as browsers write it: header, unknown-size Segment, Info, Tracks, clusters.
    fn recording(clusters: &[Vec<u8>]) -> Vec<u8> {
        let mut bytes = known(&EBML_MAGIC, b"webm header");
        bytes.extend_from_slice(&element(&[0x18, 0x53, 0x80, 0x67], None, &[]));
        bytes.extend_from_slice(&known(&[0x15, 0x49, 0xA9, 0x66], b"info"));
        bytes.extend_from_slice(&known(&[0x16, 0x54, 0xAE, 0x6B], b"tracks of the recorder"));
        for cluster in clusters {
            bytes.extend_from_slice(cluster);
        }
        bytes
    }

    /// Splices `chunks` in order, as the recordings' chunks arrive.
    fn splice_all(chunks: &[&[u8]]) -> (Vec<u8>, Splicer) {
        let mut splicer = Splicer::for_first_chunk(chunks[0]).expect("WebM");
        let mut stored = Vec::new();
        for chunk in chunks {
            match splicer.splice(chunk) {
                Spliced::Bytes { stored: bytes, splicer: next } => {
                    stored.extend_from_slice(&bytes);
                    splicer = next;
                }
                Spliced::Off => panic!("the splicer lost the stream"),
            }
        }
        (stored, splicer)
    }

    /// Every cluster timecode and block time of a stored stream, by walking it.
    fn times(stream: &[u8]) -> (usize, Vec<i64>) {
        let headers = stream.windows(4).filter(|w| *w == EBML_MAGIC).count();
        let mut splicer = Splicer::for_first_chunk(stream).unwrap();
        let mut found = Vec::new();
        // Walk block by block: feed one byte at a time (the magic first) and watch end_ms move.
        let mut last = -1;
        let Spliced::Bytes { splicer: next, .. } = splicer.splice(&stream[..4]) else { panic!("lost") };
        splicer = next;
        for byte in &stream[4..] {
            let Spliced::Bytes { splicer: next, .. } = splicer.splice(std::slice::from_ref(byte)) else { panic!("lost") };
            splicer = next;
            if splicer.end_ms != last && matches!(splicer.reading, Reading::Payload { .. } | Reading::Header { .. }) {
                found.push(splicer.end_ms);
                last = splicer.end_ms;
            }
        }
        (headers, found)
    }

    #[test]
    fn a_single_recorder_is_stored_as_uploaded_in_any_cut() {
        let file = recording(&[cluster(0, &[block(0, b"a"), block(20, b"b")]), cluster(1020, &[block(0, b"c")])]);
        for cut in [4, 5, 7, 40, 61, file.len() - 1] {
            let (stored, splicer) = splice_all(&[&file[..cut], &file[cut..]]);
            assert_eq!(stored, file, "cut at {cut}");
            assert_eq!((splicer.segment, splicer.end_ms), (0, 1020));
        }
        let mut bytewise: Vec<&[u8]> = vec![&file[..4]];
        bytewise.extend(file[4..].chunks(1));
        assert_eq!(splice_all(&bytewise).0, file);
    }

    #[test]
    fn a_second_recorder_continues_the_first_file_after_its_end() {
        let first = recording(&[cluster(0, &[block(0, b"a"), block(980, b"b")]), cluster(1000, &[block(40, b"c")])]);
        let second = recording(&[cluster(0, &[block(0, b"d"), block(500, b"e")]), cluster(1020, &[block(0, b"f")])]);
        for cut in [4, 5, 30, 50, 70, second.len() - 2] {
            let (stored, splicer) = splice_all(&[&first, &second[..cut], &second[cut..]]);
            assert_eq!(splicer.segment, 1);
            let (headers, ends) = times(&stored);
            assert_eq!(headers, 1, "one EBML header: the second recorder's is gone (cut {cut})");
            // The first part's blocks end at 1040; the second's start 20 ms later and keep their spacing.
            assert_eq!(ends, [0, 980, 1040, 1060, 1560, 2080], "cut {cut}");
            assert!(stored.starts_with(&first), "the first part as uploaded");
            let tracks = stored.windows(22).filter(|w| *w == b"tracks of the recorder".as_slice()).count();
            assert_eq!(tracks, 1, "the first recorder's tracks stand for the file");
        }
    }

    #[test]
    fn an_element_cut_off_by_the_reload_is_completed() {
        let first = recording(&[cluster(0, &[block(0, b"a"), block(20, b"frame that the reload cut")])]);
        let cut = first.len() - 10; // the last chunk of the first recorder never arrived
        let second = recording(&[cluster(0, &[block(0, b"d")])]);
        let (stored, _) = splice_all(&[&first[..cut], &second]);
        assert_eq!(&stored[..cut], &first[..cut]);
        assert_eq!(&stored[cut..first.len()], &[0u8; 10], "the cut block is completed with zeros");
        let (headers, ends) = times(&stored);
        assert_eq!((headers, ends), (1, vec![0, 20, 40]));
    }

    #[test]
    fn a_header_or_timecode_cut_off_by_the_reload_is_completed() {
        let first = recording(&[cluster(0, &[block(0, b"a"), block(20, b"b")]), cluster(40, &[block(0, b"c")])]);
        let second = recording(&[cluster(0, &[block(0, b"d")])]);
        let block_at = first.len() - block(0, b"c").len();
        let cluster_at = first.iter().rposition(|byte| *byte == 0x1F).unwrap();
        let timecode_at = cluster_at + 4 + 8 + 2 + 1; // inside the second cluster's two-byte timecode
        // Cut after a block's ID (what Chromium's recorder did), inside a cluster's ID, inside a timecode.
        for cut in [block_at + 1, cluster_at + 2, timecode_at] {
            let (stored, splicer) = splice_all(&[&first[..cut], &second]);
            assert_eq!(&stored[..cut], &first[..cut], "cut at {cut}");
            assert_eq!(splicer.segment, 1, "cut at {cut}");
            let (headers, ends) = times(&stored);
            assert_eq!(headers, 1, "cut at {cut}");
            assert!(ends.last().is_some_and(|end| *end >= 40), "cut at {cut}: {ends:?}");
        }
        let (stored, _) = splice_all(&[&first[..block_at + 1], &second]);
        assert_eq!(stored[block_at + 1], 0x80, "a block cut after its ID is an empty block");
    }

    #[test]
    fn what_is_not_a_browsers_webm_is_not_spliced() {
        assert_eq!(Splicer::for_first_chunk(b"OggS...."), None);
        let splicer = Splicer::for_first_chunk(&EBML_MAGIC).unwrap();
        // The EBML magic, then garbage where a Segment should be.
        let garbage = [&EBML_MAGIC[..], &[0x81, 0x00, 0x00, 0x12, 0x34]].concat();
        assert_eq!(splicer.splice(&garbage), Spliced::Off);
        // A Segment of known size cannot take a second recorder's clusters.
        let mut file = known(&EBML_MAGIC, b"h");
        file.extend_from_slice(&known(&[0x18, 0x53, 0x80, 0x67], &cluster(0, &[block(0, b"a")])));
        let Spliced::Bytes { stored, splicer } = splicer.splice(&file) else { panic!("a known-size segment is read") };
        assert_eq!(stored, file);
        assert_eq!(splicer.splice(&recording(&[])), Spliced::Off);
    }

    #[test]
    fn recordings_made_by_chromium_splice_into_one_stream() {
        let pairs: [(&[u8], &[u8]); 2] = [
            (include_bytes!("../../../../tests/fixtures/recordings/audio-1.webm"), include_bytes!("../../../../tests/fixtures/recordings/audio-2.webm")),
            (include_bytes!("../../../../tests/fixtures/recordings/video-1.webm"), include_bytes!("../../../../tests/fixtures/recordings/video-2.webm")),
        ];
        for (first, second) in pairs {
            // Chunks of a few kilobytes, as the page uploads them.
            let mut chunks: Vec<&[u8]> = first.chunks(4096).collect();
            chunks.extend(second.chunks(4096));
            let (stored, splicer) = splice_all(&chunks);
            assert_eq!(splicer.segment, 1);
            assert!(stored.starts_with(first));
            let (headers, ends) = times(&stored);
            assert_eq!(headers, 1);
            assert!(ends.windows(2).all(|pair| pair[0] < pair[1]), "block times only grow: {ends:?}");
            // 3.5 s each: the spliced stream's last block is well past the first recording's end.
            assert!(*ends.last().unwrap() > 6_000, "{ends:?}");
            assert!(stored.len() < first.len() + second.len(), "the second header, info and tracks are gone");
        }
    }

    #[test]
    fn element_headers_and_sizes_read_as_ebml_writes_them() {
        assert_eq!(read_id(&[0x1A, 0x45, 0xDF, 0xA3]), Some((EBML, 4)));
        assert_eq!(read_id(&[0xE7]), Some((TIMECODE, 1)));
        assert_eq!(read_id(&[0x00]), None);
        assert_eq!(read_size(&[0x81]), Some((Some(1), 1)));
        assert_eq!(read_size(&[0x40, 0x02]), Some((Some(2), 2)));
        assert_eq!(read_size(&UNKNOWN_SIZE), Some((None, 8)));
        assert_eq!(read_size(&[0xFF]), Some((None, 1)));
        assert_eq!(read_size(&[0x01, 0, 0, 0, 0, 0, 0x01, 0x00]), Some((Some(256), 8)));
    }
}
