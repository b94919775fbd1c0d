//! The model as the synthesis' maker of meanings
//! (`synthesis::units::Encoder`), for the components that run the
//! maintenance: all-MiniLM-L6-v2 where its files are mounted (spin.toml's
//! `files` of the maintenance and operator components), else the static
//! table (an edge host without the mount). The model loads on the first
//! sentence a run gives meanings, so an idle run costs no load.

use crate::Encoder;
use synthesis::units::{self, MeaningModel, TableEncoder};
use text::vectors::Meaning;
use std::path::{Path, PathBuf};

/// Where the components mount the model's folder.
pub const MOUNTED: &str = "/models/all-minilm-l6-v2";

/// The model if its files are at [`MOUNTED`], else the static table.
pub fn maker() -> Box<dyn units::Encoder> {
    let dir = Path::new(MOUNTED);
    match dir.join("model.safetensors").is_file() {
        true => Box::new(Mounted { dir: dir.to_path_buf(), loaded: None }),
        false => Box::new(TableEncoder),
    }
}

/// The mounted model, loaded when first needed.
struct Mounted {
    dir: PathBuf,
    loaded: Option<Encoder>,
}

impl units::Encoder for Mounted {
    fn model(&self) -> MeaningModel {
        MeaningModel::MiniLm
    }

    fn encode(&mut self, texts: &[&str]) -> Result<Vec<Meaning>, String> {
        let vectors = self.loaded()?.encode(texts).map_err(|error| format!("{error:#}"))?;
        Ok(vectors.into_iter().map(Meaning::from_vector).collect())
    }

    /// The spans' meanings from the same run of the model as their sentences'.
    fn encode_in_context(&mut self, texts: &[&str], spans: &[Vec<(usize, usize)>]) -> Result<(Vec<Meaning>, Option<Vec<Vec<Option<Meaning>>>>), String> {
        let spans: Vec<&[(usize, usize)]> = spans.iter().map(Vec::as_slice).collect();
        let encoded = self.loaded()?.encode_with_spans(texts, &spans).map_err(|error| format!("{error:#}"))?;
        let (meanings, in_context) = encoded
            .into_iter()
            .map(|e| (Meaning::from_vector(e.vector), e.spans.into_iter().map(|span| span.map(Meaning::from_vector)).collect()))
            .unzip();
        Ok((meanings, Some(in_context)))
    }
}

impl Mounted {
    fn loaded(&mut self) -> Result<&Encoder, String> {
        match &mut self.loaded {
            Some(encoder) => Ok(encoder),
            loaded => Ok(loaded.insert(Encoder::load(&self.dir).map_err(|error| format!("loading {}: {error:#}", crate::MODEL))?)),
        }
    }
}
