//! Blob storage: a file's bytes as chunks in the key-value store, written while
//! hashing (and deleted again unless kept), and read back in order.

use super::{check_magic, FileLimit, FileType};
use platform::error::{ApiError, ApiResult};
use sha2::{Digest, Sha256};
use std::io::Read;

/// Size of one stored chunk (the last one may be shorter), unless the
/// variable [`CHUNK_VARIABLE`] says less.
pub const CHUNK_BYTES: usize = 1024 * 1024;
/// The variable that sets the largest value the service writes to the
/// key-value store (an edge platform's store takes values of at most 1 MB):
/// the size of a file's chunks, and, less room for a recording's splicing and
/// sealing, of a recording chunk an upload may carry. Each file keeps the
/// size it was written with, so files written with another stay readable.
pub const CHUNK_VARIABLE: &str = "blob_chunk_bytes";
/// The smallest chunk size the variable may set.
const MIN_CHUNK_BYTES: usize = 64 * 1024;

/// The chunk size of new files: [`CHUNK_VARIABLE`], within 64 KiB ..= 1 MiB.
pub fn configured_chunk_bytes() -> usize {
    usize::try_from(platform::config::var_u64(CHUNK_VARIABLE, CHUNK_BYTES as u64)).unwrap_or(CHUNK_BYTES).clamp(MIN_CHUNK_BYTES, CHUNK_BYTES)
}
/// Leading bytes kept for type sniffing.
const HEAD_BYTES: usize = 64;

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

/// A borrowed store is a store (a wrapper such as `sealing::Sealed` can hold one).
impl<S: BlobStore + ?Sized> BlobStore for &S {
    fn put(&self, key: &str, value: &[u8]) -> ApiResult<()> {
        (**self).put(key, value)
    }

    fn get(&self, key: &str) -> ApiResult<Option<Vec<u8>>> {
        (**self).get(key)
    }

    fn delete(&self, key: &str) -> ApiResult<()> {
        (**self).delete(key)
    }
}

/// A store in memory, for the unit tests of this crate and the crates above.
#[cfg(any(test, feature = "testing"))]
#[derive(Default)]
pub struct MemoryBlobs(pub std::cell::RefCell<std::collections::HashMap<String, Vec<u8>>>);

#[cfg(any(test, feature = "testing"))]
impl BlobStore for MemoryBlobs {
    fn put(&self, key: &str, value: &[u8]) -> ApiResult<()> {
        self.0.borrow_mut().insert(key.into(), value.into());
        Ok(())
    }

    fn get(&self, key: &str) -> ApiResult<Option<Vec<u8>>> {
        Ok(self.0.borrow().get(key).cloned())
    }

    fn delete(&self, key: &str) -> ApiResult<()> {
        self.0.borrow_mut().remove(key);
        Ok(())
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
    /// The size of its chunks (the last one may be shorter).
    chunk_bytes: usize,
    /// Chunks started (written, or attempted: a failed write is cleaned up too).
    chunks: u64,
    size: u64,
    hasher: Sha256,
    head: Vec<u8>,
    kept: bool,
    /// The content is known to be refused: bytes are still counted and hashed, not stored.
    discarding: bool,
    /// A binary type the content must have: a wrong magic number switches to discarding.
    pub(super) expected: Option<FileType>,
    limit: FileLimit,
}

impl<'s, S: BlobStore + ?Sized> ChunkWriter<'s, S> {
    pub fn new(store: &'s S, file_id: &str) -> Self {
        ChunkWriter {
            store,
            file_id: file_id.to_string(),
            buffer: Vec::new(),
            chunk_bytes: CHUNK_BYTES,
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

    /// Chunks of `bytes` instead of [`CHUNK_BYTES`].
    pub fn with_chunk_bytes(mut self, bytes: usize) -> Self {
        self.chunk_bytes = bytes.max(1);
        self
    }

    pub fn chunk_bytes(&self) -> usize {
        self.chunk_bytes
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
                self.buffer.reserve_exact(self.chunk_bytes);
            }
            let take = (self.chunk_bytes - self.buffer.len()).min(data.len());
            self.buffer.extend_from_slice(&data[..take]);
            data = &data[take..];
            if self.buffer.len() == self.chunk_bytes {
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
        format!("{:x}", self.hasher.clone().finalize())
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

pub(super) fn load_chunk<S: BlobStore + ?Sized>(store: &S, file_id: &str, index: u64) -> ApiResult<Vec<u8>> {
    store
        .get(&chunk_key(file_id, index))?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("chunk {index} of file {file_id} is missing")))
}
