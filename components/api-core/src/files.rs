//! Files: `POST /v1/files` (streaming multipart upload, type checks, chunked blob
//! storage) and `GET /v1/files/{file_id}` (the bytes back, chunk by chunk).
//!
//! The bytes live in the key-value store in chunks of at most [`CHUNK_BYTES`]
//! under `file:<file_id>:<n>`; the metadata row in SQLite is written last. Every
//! failure after the first chunk was written deletes the chunks written so far
//! ([`ChunkWriter`] does it when dropped unless kept), so a refused upload leaves
//! nothing behind.

use crate::db::{self, Db, SqlValue};
use crate::error::{ApiError, ApiResult, FieldError, LocPart};
use crate::http::{ApiRequest, ApiResponse, BodySource};
use crate::time;
use crate::validation;
use bytes::Bytes;
use futures::{Stream, StreamExt};
use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::{BufRead, BufReader, Read};

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
}

impl Default for FileLimit {
    fn default() -> Self {
        FileLimit { file_bytes: MAX_FILE_BYTES }
    }
}

impl FileLimit {
    /// The `file_max_bytes` variable (25 MiB when unset).
    pub fn from_variables() -> FileLimit {
        FileLimit { file_bytes: crate::config::var_u64("file_max_bytes", MAX_FILE_BYTES).max(1) }
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
/// Size of one stored chunk (the last one may be shorter).
pub const CHUNK_BYTES: usize = 1024 * 1024;
/// Text fields (`mime_type`, `purpose`) are kept up to this many bytes; the rest is skipped.
const MAX_TEXT_FIELD_BYTES: usize = 1024;
/// Leading bytes kept for type sniffing.
const HEAD_BYTES: usize = 64;

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

// ---------------------------------------------------------------------------
// Type sniffing

const JPEG_MAGIC: &[u8] = &[0xFF, 0xD8, 0xFF];
const PNG_MAGIC: &[u8] = &[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
/// ISO-BMFF major brands of still images (HEIF, AVIF): an `ftyp` box, but no MP4 video.
const IMAGE_BRANDS: &[&[u8; 4]] = &[b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"mif1", b"msf1", b"avif", b"avis"];

/// What the leading bytes of a file look like, for error messages.
pub fn sniff(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(JPEG_MAGIC) {
        Some("image/jpeg")
    } else if head.starts_with(PNG_MAGIC) {
        Some("image/png")
    } else if head.len() >= 12 && &head[4..8] == b"ftyp" {
        if IMAGE_BRANDS.iter().any(|brand| &head[8..12] == *brand) {
            Some("a HEIF/AVIF image")
        } else {
            Some("video/mp4")
        }
    } else if head.starts_with(b"GIF8") {
        Some("image/gif")
    } else if head.starts_with(b"RIFF") && head.get(8..12) == Some(b"WEBP") {
        Some("image/webp")
    } else if head.starts_with(b"%PDF") {
        Some("application/pdf")
    } else {
        let text = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
        let text = &text[text.iter().position(|b| !b.is_ascii_whitespace()).unwrap_or(text.len())..];
        text.starts_with(b"<").then_some("XML or HTML text")
    }
}

/// Checks the magic number of a binary type against the file's leading bytes.
/// (SVG is checked by parsing, see [`check_svg`].)
pub fn check_magic(declared: FileType, head: &[u8]) -> Result<(), String> {
    let matches = match declared {
        FileType::Jpeg => head.starts_with(JPEG_MAGIC),
        FileType::Png => head.starts_with(PNG_MAGIC),
        FileType::Mp4 => head.len() >= 12 && &head[4..8] == b"ftyp" && !IMAGE_BRANDS.iter().any(|b| &head[8..12] == *b),
        FileType::Svg => true,
    };
    if matches {
        return Ok(());
    }
    let expected = match declared {
        FileType::Jpeg => "a JPEG file must start with FF D8 FF",
        FileType::Png => "a PNG file must start with the PNG signature 89 50 4E 47 0D 0A 1A 0A",
        FileType::Mp4 => "an MP4 file must start with an 'ftyp' box of a video brand",
        FileType::Svg => "",
    };
    let looks_like = match sniff(head) {
        Some(kind) => format!(" (the content looks like {kind})"),
        None => String::new(),
    };
    Err(format!(
        "The file content does not match mime_type '{}': {expected}{looks_like}",
        declared.mime()
    ))
}

// ---------------------------------------------------------------------------
// SVG checks

/// Elements that run code or embed other documents.
const FORBIDDEN_ELEMENTS: &[&str] = &[
    "script", "foreignobject", "handler", "listener", "iframe", "frame", "frameset", "embed", "object", "applet",
    "base", "link", "meta",
];
/// Animation elements, which could set an `href` or an event handler afterwards.
const ANIMATION_ELEMENTS: &[&str] = &["animate", "set", "animatetransform", "animatemotion", "animatecolor", "discard"];

/// Parses `reader` as XML and checks that it is a self-contained, script-free SVG
/// document: one `<svg>` root, well-formed UTF-8 XML, no DOCTYPE (so no entity
/// declarations), no processing instructions but the XML declaration, no
/// `<script>`/`<foreignObject>` (and other embedding elements), no `on*` event
/// handler attributes, no `href` that is not a same-document `#fragment`, and no
/// CSS (`style` attributes, `<style>` elements, presentation attributes) that
/// loads anything (`url(...)` not pointing at `#fragment`, `@import`, `image-set`).
/// The error says what was wrong. Memory is bounded by the largest single tag
/// or text node.
pub fn check_svg<R: BufRead>(reader: R) -> Result<(), String> {
    let mut reader = Reader::from_reader(reader);
    let config = reader.config_mut();
    config.check_end_names = true;
    config.check_comments = true;
    config.expand_empty_elements = false;
    let mut buf = Vec::new();
    let mut depth = 0usize;
    let mut seen_root = false;
    // Decoded text of the `<style>` element being read, if any.
    let mut style: Option<String> = None;
    loop {
        let event = reader
            .read_event_into(&mut buf)
            .map_err(|error| format!("The file is not well-formed XML: {error}"))?;
        match event {
            Event::Start(ref element) | Event::Empty(ref element) => {
                let empty = matches!(event, Event::Empty(_));
                let name = local_name(element)?;
                if depth == 0 {
                    if seen_root {
                        return Err("The file is not well-formed XML: more than one root element".into());
                    }
                    if name != "svg" {
                        return Err(format!("The file is not an SVG image: its root element is <{name}>, not <svg>"));
                    }
                    seen_root = true;
                }
                check_element(&name, element)?;
                if !empty {
                    depth += 1;
                    if name.eq_ignore_ascii_case("style") {
                        style = Some(String::new());
                    }
                }
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                if let Some(css) = style.take() {
                    check_css(&css, "a <style> element")?;
                }
            }
            Event::Text(text) => {
                let text = text.decode().map_err(|_| "The SVG file is not valid UTF-8".to_string())?;
                if depth == 0 && !text.trim().is_empty() {
                    return Err("The file is not well-formed XML: text outside the root element".into());
                }
                if let Some(css) = style.as_mut() {
                    css.push_str(&text);
                }
            }
            Event::CData(data) => {
                if depth == 0 {
                    return Err("The file is not well-formed XML: CDATA outside the root element".into());
                }
                let data = data.decode().map_err(|_| "The SVG file is not valid UTF-8".to_string())?;
                if let Some(css) = style.as_mut() {
                    css.push_str(&data);
                }
            }
            Event::GeneralRef(reference) => {
                if depth == 0 {
                    return Err("The file is not well-formed XML: a reference outside the root element".into());
                }
                let resolved = match reference.resolve_char_ref() {
                    Ok(Some(c)) => c.to_string(),
                    Ok(None) => {
                        let name = reference.decode().map_err(|_| "The SVG file is not valid UTF-8".to_string())?;
                        match quick_xml::escape::resolve_predefined_entity(&name) {
                            Some(text) => text.to_string(),
                            None => {
                                return Err(format!("The file is not well-formed XML: undeclared entity &{name};"))
                            }
                        }
                    }
                    Err(error) => return Err(format!("The file is not well-formed XML: {error}")),
                };
                if let Some(css) = style.as_mut() {
                    css.push_str(&resolved);
                }
            }
            Event::DocType(_) => {
                return Err("The SVG file must not contain a DOCTYPE (no DTDs or entity declarations)".into())
            }
            Event::PI(_) => {
                return Err("The SVG file must not contain processing instructions (such as xml-stylesheet)".into())
            }
            Event::Decl(_) | Event::Comment(_) => {}
            Event::Eof => {
                if !seen_root {
                    return Err("The file is not an SVG image: it has no <svg> root element".into());
                }
                if depth != 0 {
                    return Err("The file is not well-formed XML: the document ends inside an element".into());
                }
                return Ok(());
            }
        }
        buf.clear();
    }
}

fn local_name(element: &BytesStart) -> Result<String, String> {
    std::str::from_utf8(element.local_name().as_ref())
        .map(str::to_string)
        .map_err(|_| "The SVG file is not valid UTF-8".to_string())
}

fn check_element(name: &str, element: &BytesStart) -> Result<(), String> {
    let lower = name.to_ascii_lowercase();
    if FORBIDDEN_ELEMENTS.contains(&lower.as_str()) {
        return Err(format!("The SVG file must not contain <{name}> elements"));
    }
    let animation = ANIMATION_ELEMENTS.contains(&lower.as_str());
    for attribute in element.attributes().with_checks(true) {
        let attribute = attribute.map_err(|error| format!("The file is not well-formed XML: {error}"))?;
        let key = attribute.key;
        if key.as_namespace_binding().is_some() {
            continue;
        }
        let attr_name = std::str::from_utf8(key.local_name().as_ref())
            .map_err(|_| "The SVG file is not valid UTF-8".to_string())?
            .to_ascii_lowercase();
        let value = attribute
            .unescape_value()
            .map_err(|error| format!("The file is not well-formed XML: {error}"))?;
        if attr_name.starts_with("on") {
            return Err(format!(
                "The SVG file must not contain event handler attributes ('{}' on <{name}>)",
                String::from_utf8_lossy(key.as_ref())
            ));
        }
        if attr_name == "href" && !value.trim().starts_with('#') {
            return Err(format!(
                "The SVG file must not reference external resources ({}=\"{}\" on <{name}>); only #fragment links are allowed",
                String::from_utf8_lossy(key.as_ref()),
                shorten(&value)
            ));
        }
        if animation && attr_name == "attributename" {
            let target = value.trim().to_ascii_lowercase();
            let target = target.rsplit(':').next().unwrap_or_default();
            if target == "href" || target.starts_with("on") {
                return Err(format!("The SVG file must not animate '{}' (on <{name}>)", value.trim()));
            }
        }
        if compact(&value).contains("javascript:") {
            return Err(format!("The SVG file must not contain javascript: URLs (on <{name}>)"));
        }
        check_css(&value, &format!("the '{}' attribute of <{name}>", String::from_utf8_lossy(key.as_ref())))?;
    }
    Ok(())
}

/// Lower-cased, without whitespace and control characters (`java\tscript:`).
fn compact(value: &str) -> String {
    value.chars().filter(|c| !c.is_whitespace() && !c.is_control()).flat_map(char::to_lowercase).collect()
}

/// Refuses CSS that loads something: `url(x)` with `x` not a `#fragment`,
/// `@import`, `image-set(`, `src(`, `expression(`. CSS escapes and comments
/// are resolved first, so `u\72 l(` is seen as `url(`.
fn check_css(css: &str, place: &str) -> Result<(), String> {
    if !css.contains(['(', '@', '\\']) {
        return Ok(());
    }
    let css = normalize_css(css);
    if css.contains("@import") {
        return Err(format!("The SVG file must not import style sheets (in {place})"));
    }
    for function in ["image-set(", "src(", "expression("] {
        if css.contains(function) {
            return Err(format!("The SVG file must not load external resources ({function}...) in {place}"));
        }
    }
    let mut rest = css.as_str();
    while let Some(index) = rest.find("url(") {
        rest = &rest[index + 4..];
        let target = rest.trim_start().trim_start_matches(['"', '\'']).trim_start();
        if !target.starts_with('#') {
            let end = rest.find(')').unwrap_or(rest.len());
            return Err(format!(
                "The SVG file must not reference external resources (url({}) in {place}); only url(#fragment) is allowed",
                shorten(rest[..end].trim())
            ));
        }
    }
    Ok(())
}

/// Lower-cases CSS and resolves escapes (`\75` and `\u`) and comments.
fn normalize_css(css: &str) -> String {
    let mut out = String::with_capacity(css.len());
    let mut chars = css.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                let mut hex = String::new();
                while hex.len() < 6 && chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                    hex.push(chars.next().unwrap_or_default());
                }
                if hex.is_empty() {
                    if let Some(next) = chars.next() {
                        out.extend(next.to_lowercase());
                    }
                } else {
                    if chars.peek().is_some_and(|c| c.is_whitespace()) {
                        chars.next();
                    }
                    let decoded = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32).unwrap_or('\u{FFFD}');
                    out.extend(decoded.to_lowercase());
                }
            }
            '/' if chars.peek() == Some(&'*') => {
                chars.next();
                let mut previous = '\0';
                for c in chars.by_ref() {
                    if previous == '*' && c == '/' {
                        break;
                    }
                    previous = c;
                }
            }
            c => out.extend(c.to_lowercase()),
        }
    }
    out
}

fn shorten(text: &str) -> String {
    let mut short: String = text.chars().take(60).collect();
    if short.len() < text.len() {
        short.push('…');
    }
    short
}

// ---------------------------------------------------------------------------
// Blob storage

/// Where chunks are kept: Spin's key-value store, or a map in unit tests.
pub trait BlobStore {
    fn put(&self, key: &str, value: &[u8]) -> ApiResult<()>;
    fn get(&self, key: &str) -> ApiResult<Option<Vec<u8>>>;
    fn delete(&self, key: &str) -> ApiResult<()>;
}

impl BlobStore for spin_sdk::key_value::Store {
    fn put(&self, key: &str, value: &[u8]) -> ApiResult<()> {
        Ok(self.set(key, value)?)
    }

    fn get(&self, key: &str) -> ApiResult<Option<Vec<u8>>> {
        Ok(spin_sdk::key_value::Store::get(self, key)?)
    }

    fn delete(&self, key: &str) -> ApiResult<()> {
        Ok(spin_sdk::key_value::Store::delete(self, key)?)
    }
}

/// The `default` key-value store of the component.
pub fn open_store() -> ApiResult<spin_sdk::key_value::Store> {
    Ok(spin_sdk::key_value::Store::open_default()?)
}

pub fn chunk_key(file_id: &str, index: u64) -> String {
    format!("file:{file_id}:{index}")
}

/// Writes one file's bytes as chunks while hashing them. Dropped without
/// [`ChunkWriter::keep`], it deletes every chunk it wrote.
pub struct ChunkWriter<'s, S: BlobStore + ?Sized> {
    store: &'s S,
    file_id: String,
    buffer: Vec<u8>,
    /// Chunks started (written, or attempted: a failed write is cleaned up too).
    chunks: u64,
    size: u64,
    hasher: Sha256,
    head: Vec<u8>,
    kept: bool,
    /// The content is known to be refused: bytes are still counted and hashed, not stored.
    discarding: bool,
    /// A binary type the content must have: a wrong magic number switches to discarding.
    expected: Option<FileType>,
    limit: FileLimit,
}

impl<'s, S: BlobStore + ?Sized> ChunkWriter<'s, S> {
    pub fn new(store: &'s S, file_id: &str) -> Self {
        ChunkWriter {
            store,
            file_id: file_id.to_string(),
            buffer: Vec::new(),
            chunks: 0,
            size: 0,
            hasher: Sha256::new(),
            head: Vec::new(),
            kept: false,
            discarding: false,
            expected: None,
            limit: FileLimit::default(),
        }
    }

    /// The largest file it takes (413 beyond).
    pub fn with_limit(mut self, limit: FileLimit) -> Self {
        self.limit = limit;
        self
    }

    /// Appends bytes; full chunks go to the store at once. Over its limit: 413.
    pub fn write(&mut self, mut data: &[u8]) -> ApiResult<()> {
        if self.size + data.len() as u64 > self.limit.file_bytes {
            return Err(self.limit.file_too_large());
        }
        self.size += data.len() as u64;
        self.hasher.update(data);
        if self.head.len() < HEAD_BYTES {
            let take = (HEAD_BYTES - self.head.len()).min(data.len());
            self.head.extend_from_slice(&data[..take]);
        }
        if let Some(expected) = self.expected {
            if !self.discarding && self.head.len() >= 12 && check_magic(expected, &self.head).is_err() {
                self.discard();
            }
        }
        if self.discarding {
            return Ok(());
        }
        while !data.is_empty() {
            if self.buffer.capacity() == 0 {
                self.buffer.reserve_exact(CHUNK_BYTES);
            }
            let take = (CHUNK_BYTES - self.buffer.len()).min(data.len());
            self.buffer.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buffer.len() == CHUNK_BYTES {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn flush(&mut self) -> ApiResult<()> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        let key = chunk_key(&self.file_id, self.chunks);
        self.chunks += 1;
        self.store.put(&key, &self.buffer)?;
        self.buffer.clear();
        Ok(())
    }

    /// Writes the last, partial chunk.
    pub fn finish(&mut self) -> ApiResult<()> {
        if self.discarding {
            return Ok(());
        }
        self.flush()
    }

    /// Deletes what was stored and stores nothing more (the upload will be refused,
    /// but is still read to its end so that the right error is answered).
    pub fn discard(&mut self) {
        self.delete_chunks();
        self.buffer = Vec::new();
        self.discarding = true;
    }

    fn delete_chunks(&mut self) {
        for index in 0..self.chunks {
            if let Err(error) = self.store.delete(&chunk_key(&self.file_id, index)) {
                eprintln!("could not delete chunk {index} of refused file {}: {error:?}", self.file_id);
            }
        }
        self.chunks = 0;
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn chunk_count(&self) -> u64 {
        self.chunks
    }

    /// The first bytes of the file (up to 64), for sniffing.
    pub fn head(&self) -> &[u8] {
        &self.head
    }

    pub fn sha256_hex(&self) -> String {
        hex(&self.hasher.clone().finalize())
    }

    /// Reads the chunks written so far back, in order.
    pub fn reader(&self) -> ChunkReader<'s, S> {
        ChunkReader::new(self.store, &self.file_id, self.chunks)
    }

    /// The chunks stay (the metadata row now refers to them).
    pub fn keep(mut self) {
        self.kept = true;
    }
}

impl<S: BlobStore + ?Sized> Drop for ChunkWriter<'_, S> {
    fn drop(&mut self) {
        if !self.kept {
            self.delete_chunks();
        }
    }
}

/// `Read` over a stored file, one chunk in memory at a time. A store failure
/// ends the stream with an I/O error and is kept in `failure`.
pub struct ChunkReader<'s, S: BlobStore + ?Sized> {
    store: &'s S,
    file_id: String,
    count: u64,
    next: u64,
    current: Vec<u8>,
    position: usize,
    pub failure: Option<ApiError>,
}

impl<'s, S: BlobStore + ?Sized> ChunkReader<'s, S> {
    pub fn new(store: &'s S, file_id: &str, count: u64) -> Self {
        ChunkReader { store, file_id: file_id.to_string(), count, next: 0, current: Vec::new(), position: 0, failure: None }
    }
}

impl<S: BlobStore + ?Sized> Read for ChunkReader<'_, S> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        while self.position == self.current.len() {
            if self.next == self.count {
                return Ok(0);
            }
            match load_chunk(self.store, &self.file_id, self.next) {
                Ok(chunk) => {
                    self.current = chunk;
                    self.position = 0;
                    self.next += 1;
                }
                Err(error) => {
                    self.failure = Some(error);
                    return Err(std::io::Error::other("reading a stored chunk failed"));
                }
            }
        }
        let n = out.len().min(self.current.len() - self.position);
        out[..n].copy_from_slice(&self.current[self.position..self.position + n]);
        self.position += n;
        Ok(n)
    }
}

fn load_chunk<S: BlobStore + ?Sized>(store: &S, file_id: &str, index: u64) -> ApiResult<Vec<u8>> {
    store
        .get(&chunk_key(file_id, index))?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("chunk {index} of file {file_id} is missing")))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

// ---------------------------------------------------------------------------
// Upload

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
    content_type
        .and_then(|value| value.split(';').next())
        .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("multipart/form-data"))
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
                let mut writer = ChunkWriter::new(store, file_id).with_limit(limit);
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
    let (Some(file), Some(file_type), Some(purpose), true) = (file, file_type, purpose, errors.is_empty()) else {
        return Err(ApiError::Validation(errors));
    };
    check_content(file_type, &file)?;
    Ok(Upload { file_type, purpose, blob: file })
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

// ---------------------------------------------------------------------------
// Metadata

/// A stored file's metadata row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileRecord {
    pub file_id: String,
    #[serde(skip)]
    pub tenant_id: String,
    pub mime_type: String,
    pub purpose: String,
    pub size: u64,
    pub sha256: String,
    #[serde(skip)]
    pub chunk_count: u64,
    pub created_at: String,
}

impl FileRecord {
    pub fn file_type(&self) -> FileType {
        FileType::from_mime(&self.mime_type).unwrap_or(FileType::Jpeg)
    }
}

/// Writes the metadata row of a received upload (the last step) and keeps its chunks.
pub fn save(db: &Db, tenant_id: &str, file_id: &str, upload: Upload<'_, impl BlobStore + ?Sized>) -> ApiResult<FileRecord> {
    let record = FileRecord {
        file_id: file_id.to_string(),
        tenant_id: tenant_id.to_string(),
        mime_type: upload.file_type.mime().to_string(),
        purpose: upload.purpose.clone(),
        size: upload.blob.size(),
        sha256: upload.blob.sha256_hex(),
        chunk_count: upload.blob.chunk_count(),
        created_at: time::rfc3339_now(),
    };
    db.execute(
        "INSERT INTO files (file_id, tenant_id, mime_type, purpose, size, sha256, chunk_count, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            db::text(&record.file_id),
            db::text(&record.tenant_id),
            db::text(&record.mime_type),
            db::text(&record.purpose),
            SqlValue::Integer(record.size as i64),
            db::text(&record.sha256),
            SqlValue::Integer(record.chunk_count as i64),
            db::text(&record.created_at),
        ],
    )?;
    upload.blob.keep();
    Ok(record)
}

/// `POST /v1/files`: receives, checks and stores an upload; returns its metadata.
pub async fn upload<S, B, E>(db: &Db, store: &S, tenant_id: &str, request: &ApiRequest, body: B) -> ApiResult<FileRecord>
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
/// that is not a UUID is 422 `uuid_parsing` at `["path","file_id"]`.
pub fn find(db: &Db, tenant_id: &str, file_id: &str) -> ApiResult<FileRecord> {
    let file_id = validation::uuid_param(file_id, vec!["path".into(), "file_id".into()])
        .map_err(|error| ApiError::Validation(vec![error]))?
        .to_string();
    let result = db.query(
        "SELECT file_id, tenant_id, mime_type, purpose, size, sha256, chunk_count, created_at
         FROM files WHERE tenant_id = ? AND file_id = ?",
        &[db::text(tenant_id), db::text(&file_id)],
    )?;
    let record = db::rows(&result).next().map(|row| FileRecord {
        file_id: row.text("file_id"),
        tenant_id: row.text("tenant_id"),
        mime_type: row.text("mime_type"),
        purpose: row.text("purpose"),
        size: row.int("size") as u64,
        sha256: row.text("sha256"),
        chunk_count: row.int("chunk_count") as u64,
        created_at: row.text("created_at"),
    });
    record.ok_or_else(|| ApiError::not_found("File"))
}

// ---------------------------------------------------------------------------
// Download

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
    use std::cell::RefCell;
    use std::collections::BTreeMap;

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

    fn png(len: usize) -> Vec<u8> {
        let mut bytes = PNG_MAGIC.to_vec();
        bytes.extend((0..len.saturating_sub(8)).map(|i| (i % 251) as u8));
        bytes
    }

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
    fn magic_numbers_match_declared_types() {
        assert!(check_magic(FileType::Jpeg, &[0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10]).is_ok());
        assert!(check_magic(FileType::Png, &png(16)).is_ok());
        assert!(check_magic(FileType::Mp4, b"\0\0\0\x20ftypisom\0\0\x02\0").is_ok());
        assert!(check_magic(FileType::Mp4, b"\0\0\0\x18ftypmp42\0\0\0\0").is_ok());

        let error = check_magic(FileType::Jpeg, &png(16)).unwrap_err();
        assert!(error.contains("image/jpeg") && error.contains("looks like image/png"), "{error}");
        assert!(check_magic(FileType::Png, &[0xFF, 0xD8, 0xFF]).is_err());
        assert!(check_magic(FileType::Png, &PNG_MAGIC[..7]).is_err());
        assert!(check_magic(FileType::Mp4, b"\0\0\0\x18moov").is_err());
        let error = check_magic(FileType::Mp4, b"\0\0\0\x18ftypheic\0\0\0\0").unwrap_err();
        assert!(error.contains("HEIF"), "{error}");
    }

    #[test]
    fn sniffing_names_what_the_bytes_look_like() {
        assert_eq!(sniff(&[0xFF, 0xD8, 0xFF, 0xDB]), Some("image/jpeg"));
        assert_eq!(sniff(b"GIF89a"), Some("image/gif"));
        assert_eq!(sniff(b"\xEF\xBB\xBF  <svg/>"), Some("XML or HTML text"));
        assert_eq!(sniff(b"hello"), None);
    }

    fn svg(text: &str) -> Result<(), String> {
        check_svg(text.as_bytes())
    }

    const SVG_NS: &str = "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\"";

    #[test]
    fn plain_svg_documents_pass() {
        svg(&format!(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!-- logo -->\n<svg {SVG_NS} viewBox=\"0 0 10 10\">\
             <defs><linearGradient id=\"g\"><stop offset=\"0\" stop-color=\"#fff\"/></linearGradient></defs>\
             <style>.a {{ fill: url(#g); }} /* ok */</style>\
             <rect class=\"a\" width=\"10\" height=\"10\" fill=\"url('#g')\" style=\"opacity: .5\"/>\
             <use xlink:href=\"#g\"/><use href=\" #g\"/><a href=\"#top\"><text>A &amp; B &#169;</text></a>\
             <![CDATA[ x < y ]]></svg>\n"
        ))
        .unwrap();
        svg("\u{FEFF}<svg/>").unwrap();
    }

    #[test]
    fn svg_scripts_and_event_handlers_are_refused() {
        for (doc, expected) in [
            (format!("<svg {SVG_NS}><script>alert(1)</script></svg>"), "<script>"),
            (format!("<svg {SVG_NS}><SCRIPT>alert(1)</SCRIPT></svg>"), "<SCRIPT>"),
            (format!("<svg {SVG_NS} xmlns:h=\"http://www.w3.org/1999/xhtml\"><h:script/></svg>"), "<script>"),
            (format!("<svg {SVG_NS} onload=\"alert(1)\"/>"), "'onload'"),
            (format!("<svg {SVG_NS}><rect OnClick=\"x()\"/></svg>"), "'OnClick'"),
            (format!("<svg {SVG_NS}><foreignObject><div/></foreignObject></svg>"), "<foreignObject>"),
            (format!("<svg {SVG_NS}><a href=\"javascript:alert(1)\">x</a></svg>"), "external"),
            (format!("<svg {SVG_NS}><set attributeName=\"href\" to=\"#x\"/></svg>"), "animate"),
            (format!("<svg {SVG_NS}><animate attributeName=\"onbegin\" values=\"a\"/></svg>"), "animate"),
            (format!("<svg {SVG_NS}><animate values=\"java&#x09;script:alert(1)\"/></svg>"), "javascript:"),
        ] {
            let error = svg(&doc).unwrap_err();
            assert!(error.contains(expected), "{doc}: {error}");
        }
    }

    #[test]
    fn svg_external_references_are_refused() {
        for doc in [
            format!("<svg {SVG_NS}><image href=\"https://evil.example/x.png\"/></svg>"),
            format!("<svg {SVG_NS}><image xlink:href=\"data:image/png;base64,AAAA\"/></svg>"),
            format!("<svg {SVG_NS}><use xlink:href=\"other.svg#x\"/></svg>"),
            format!("<svg {SVG_NS}><rect style=\"fill: url(https://evil.example/p)\"/></svg>"),
            format!("<svg {SVG_NS}><rect fill=\"url( 'http://evil.example/p' )\"/></svg>"),
            format!("<svg {SVG_NS}><rect style=\"fill: u\\72 l(http://evil.example/p)\"/></svg>"),
            format!("<svg {SVG_NS}><style>@import 'http://evil.example/x.css';</style></svg>"),
            format!("<svg {SVG_NS}><style>rect {{ fill: url(&#104;ttp://evil.example/p) }}</style></svg>"),
            format!("<svg {SVG_NS}><style><![CDATA[ rect {{ fill: url(http://e.example/p) }} ]]></style></svg>"),
            format!("<svg {SVG_NS}><style>a {{ background: image-set('x.png' 1x) }}</style></svg>"),
        ] {
            let error = svg(&doc).unwrap_err();
            assert!(error.contains("external") || error.contains("import"), "{doc}: {error}");
        }
    }

    #[test]
    fn svg_doctypes_entities_and_broken_xml_are_refused() {
        let cases = [
            ("<?xml version=\"1.0\"?><!DOCTYPE svg [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><svg>&x;</svg>", "DOCTYPE"),
            ("<?xml-stylesheet href=\"http://evil.example/x.css\"?><svg/>", "processing instructions"),
            ("<svg><g></svg>", "well-formed"),
            ("<svg><g>", "well-formed"),
            ("<svg/><svg/>", "more than one root"),
            ("<html><svg/></html>", "root element is <html>"),
            ("just text", "text outside the root element"),
            ("", "no <svg> root"),
            ("<svg>&nbsp;</svg>", "undeclared entity"),
            ("<svg a=\"1\" a=\"2\"/>", "well-formed"),
        ];
        for (doc, expected) in cases {
            let error = svg(doc).unwrap_err();
            assert!(error.contains(expected), "{doc}: {error}");
        }
        let error = check_svg(&b"<svg>\xFF\xFE</svg>"[..]).unwrap_err();
        assert!(error.contains("UTF-8") || error.contains("well-formed"), "{error}");
    }

    #[test]
    fn css_normalisation_resolves_escapes_and_comments() {
        assert_eq!(normalize_css("U\\52 L(/**/x)"), "url(x)");
        assert_eq!(normalize_css("a\\:b"), "a:b");
        assert!(check_css("fill: url(#a) url( \"#b\" )", "x").is_ok());
        assert!(check_css("fill: url(x)", "x").is_err());
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
        assert_eq!(sha, hex(&Sha256::digest(&bytes)));
        assert_eq!(read_back(&store, 3), bytes);
        assert_eq!(store.get("file:f1:2").unwrap().unwrap().len(), CHUNK_BYTES / 2);

        let mut source = StoredChunks::new(store, &FileRecord {
            file_id: "f1".into(),
            tenant_id: "t".into(),
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

    #[test]
    fn download_headers() {
        let record = FileRecord {
            file_id: "11111111-2222-4333-8444-555555555555".into(),
            tenant_id: "t".into(),
            mime_type: "image/svg+xml".into(),
            purpose: "survey".into(),
            size: 42,
            sha256: "ab".repeat(32),
            chunk_count: 1,
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
