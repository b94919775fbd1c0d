//! model.safetensors read lean: the header first, then each needed tensor's
//! bytes on their own, and the word embeddings never whole but only the rows a
//! batch uses. Reading the whole file (91 MB) and then making tensors of it
//! held it twice (174 MiB in a Spin instance, where nothing can be mapped);
//! tensor by tensor the instance holds the transformer's weights (43 MB) and
//! a few hundred vocabulary rows.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::sync::Mutex;

use anyhow::{bail, ensure, Context, Result};
use candle_core::{DType, Device, Tensor};
use safetensors::tensor::{Metadata, TensorInfo};
use safetensors::Dtype;

/// The word embeddings' name, after any prefix the checkpoint puts before the
/// BERT weights (e.g. `bert.`).
const WORD_EMBEDDINGS: &str = "embeddings.word_embeddings.weight";

/// An open model.safetensors whose header has been read.
pub struct Weights {
    file: Mutex<File>,
    /// Where the tensors' bytes begin in the file (after the length and the header).
    data_start: u64,
    metadata: Metadata,
    /// What comes before `embeddings.` in the tensor names ("" or e.g. "bert.").
    prefix: String,
}

impl Weights {
    pub fn open(path: &Path) -> Result<Weights> {
        let mut file = File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
        let file_len = file.metadata()?.len();
        let mut length = [0u8; 8];
        file.read_exact(&mut length).context("model.safetensors is shorter than its header")?;
        let header_len = u64::from_le_bytes(length);
        // safetensors' own bound on a header (100 MB); a larger one is a broken file.
        ensure!(header_len <= 100_000_000 && 8 + header_len <= file_len, "model.safetensors has a broken header length");
        let mut header = vec![0u8; header_len as usize];
        file.read_exact(&mut header)?;
        // The crate's parser checks that the tensors tile the data without gaps
        // and that each one's bytes fit its shape and type.
        let metadata: Metadata = serde_json::from_slice(&header).context("model.safetensors has a broken header")?;
        let data_start = 8 + header_len;
        ensure!(
            data_start + metadata.data_len() as u64 == file_len,
            "model.safetensors is {file_len} bytes, its header describes {}",
            data_start + metadata.data_len() as u64
        );
        let prefix = metadata
            .offset_keys()
            .iter()
            .find_map(|name| name.strip_suffix(WORD_EMBEDDINGS).map(str::to_string))
            .context("model.safetensors has no word embeddings")?;
        Ok(Weights { file: Mutex::new(file), data_start, metadata, prefix })
    }

    /// The BERT weights the model runs on, in f32 and named without the prefix:
    /// the embeddings' and the encoder's, less the word embeddings (see
    /// [`Weights::word_rows`]); not the pooler, which sentence-transformers does
    /// not use, nor the position ids.
    pub fn transformer(&self) -> Result<HashMap<String, Tensor>> {
        let mut tensors = HashMap::new();
        for name in self.metadata.offset_keys() {
            let Some(short) = name.strip_prefix(&self.prefix) else { continue };
            let wanted = (short.starts_with("embeddings.") || short.starts_with("encoder."))
                && short != WORD_EMBEDDINGS
                && short != "embeddings.position_ids";
            if !wanted {
                continue;
            }
            let info = self.info(&name)?;
            let bytes = self.read(info.data_offsets.0 as u64, info.data_offsets.1 - info.data_offsets.0)?;
            tensors.insert(short.to_string(), to_f32(&bytes, info.dtype, &info.shape).with_context(|| format!("tensor {name}"))?);
        }
        Ok(tensors)
    }

    /// How many rows the word embeddings have (the vocabulary's size).
    pub fn vocabulary_size(&self) -> Result<usize> {
        Ok(self.word_embeddings()?.shape[0])
    }

    /// The word embeddings' rows `ids` (sorted, distinct), in that order, as
    /// one (ids.len(), hidden) f32 matrix.
    pub fn word_rows(&self, ids: &[u32]) -> Result<Tensor> {
        let info = self.word_embeddings()?;
        let &[rows, width] = info.shape.as_slice() else { bail!("the word embeddings are not a matrix") };
        let row_bytes = width * info.dtype.bitsize() / 8;
        let mut bytes = vec![0u8; ids.len() * row_bytes];
        let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        for (&id, row) in ids.iter().zip(bytes.chunks_exact_mut(row_bytes)) {
            ensure!((id as usize) < rows, "token id {id} is outside the vocabulary of {rows}");
            let offset = self.data_start + (info.data_offsets.0 + id as usize * row_bytes) as u64;
            file.seek(SeekFrom::Start(offset))?;
            file.read_exact(row)?;
        }
        to_f32(&bytes, info.dtype, &[ids.len(), width])
    }

    fn word_embeddings(&self) -> Result<&TensorInfo> {
        self.info(&format!("{}{WORD_EMBEDDINGS}", self.prefix))
    }

    fn info(&self, name: &str) -> Result<&TensorInfo> {
        self.metadata.info(name).with_context(|| format!("model.safetensors has no tensor {name}"))
    }

    /// `len` bytes from `offset` within the data section.
    fn read(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut file = self.file.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        file.seek(SeekFrom::Start(self.data_start + offset))?;
        let mut bytes = vec![0u8; len];
        file.read_exact(&mut bytes)?;
        Ok(bytes)
    }
}

/// A tensor of the file's bytes in f32, whatever float type they are stored
/// in: the model computes in f32 always (candle's BERT in f16 casts its
/// attention mask's f32::MIN to -inf, and 0 × -inf makes every vector NaN).
fn to_f32(bytes: &[u8], dtype: Dtype, shape: &[usize]) -> Result<Tensor> {
    let dtype = match dtype {
        Dtype::F32 => DType::F32,
        Dtype::F16 => DType::F16,
        Dtype::BF16 => DType::BF16,
        other => bail!("weights stored as {other:?}: only F32, F16 and BF16 are read"),
    };
    Ok(Tensor::from_raw_buffer(bytes, dtype, shape, &Device::Cpu)?.to_dtype(DType::F32)?)
}
