//! The sentence model itself, all-MiniLM-L6-v2, run exactly as
//! sentence-transformers runs it: the BERT encoder (candle's), the mean of its
//! last hidden states over the sentence's tokens, scaled to unit length. Pure
//! Rust, so that a wasm32-wasip2 component can run it where the model's files
//! are mounted.
//!
//! ```no_run
//! let encoder = sentence_model::Encoder::load(std::path::Path::new("/model"))?;
//! let vectors = encoder.encode(&["Shipping costs too much", "Delivery is expensive"])?;
//! let cosine: f32 = vectors[0].iter().zip(&vectors[1]).map(|(a, b)| a * b).sum();
//! # anyhow::Ok(())
//! ```

use std::path::Path;

use anyhow::{anyhow, ensure, Context, Result};
use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{Tokenizer, TruncationParams};

pub mod meanings;
mod weights;

use weights::Weights;

/// The model whose meanings [`Encoder::encode`] gives: what a stored vector
/// records as its maker.
pub const MODEL: &str = "all-MiniLM-L6-v2";

/// The longest sentence the model reads, in tokens: sentence-transformers'
/// `max_seq_length` for this model (its tokenizer.json says 128, which
/// sentence-transformers overrides).
const MAX_TOKENS: usize = 256;

/// Sentences encoded together at most.
const BATCH_SENTENCES: usize = 32;

/// The attention scores of one batch (sentences × heads × tokens², f32) stay
/// under this many bytes, so that a batch of long sentences does not raise
/// the instance's memory: 8 MiB holds 32 sentences of 64 tokens, or 2 of 256.
const BATCH_SCORE_BYTES: usize = 8 << 20;

/// A sentence's vector and its spans' meanings ([`Encoder::encode_with_spans`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Encoded {
    pub vector: Vec<f32>,
    pub spans: Vec<Option<Vec<f32>>>,
}

/// all-MiniLM-L6-v2, loaded lean (see [`Encoder::load`]).
pub struct Encoder {
    tokenizer: Tokenizer,
    config: Config,
    weights: Weights,
    /// Every weight but the word embeddings, f32.
    transformer: std::collections::HashMap<String, Tensor>,
}

impl Encoder {
    /// Loads the model from a folder holding `tokenizer.json`, `config.json`
    /// and `model.safetensors` (f32, f16 or bf16 weights; computed in f32).
    /// The safetensors file stays open: the word embeddings are read from it
    /// a few rows at a time, those of the sentences being encoded.
    pub fn load(dir: &Path) -> Result<Encoder> {
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|error| anyhow!("cannot read {}: {error}", dir.join("tokenizer.json").display()))?;
        tokenizer
            .with_truncation(Some(TruncationParams { max_length: MAX_TOKENS, ..TruncationParams::default() }))
            .map_err(|error| anyhow!("tokenizer truncation: {error}"))?
            .with_padding(None);
        let config_path = dir.join("config.json");
        let config: Config = serde_json::from_slice(
            &std::fs::read(&config_path).with_context(|| format!("cannot read {}", config_path.display()))?,
        )
        .with_context(|| format!("{} is not a BERT configuration", config_path.display()))?;
        let weights = Weights::open(&dir.join("model.safetensors"))?;
        ensure!(
            weights.vocabulary_size()? == config.vocab_size,
            "config.json's vocabulary ({}) is not model.safetensors' ({})",
            config.vocab_size,
            weights.vocabulary_size()?
        );
        let transformer = weights.transformer()?;
        Ok(Encoder { tokenizer, config, weights, transformer })
    }

    /// Each sentence's vector (384 dimensions, unit length), in order. The
    /// sentences are encoded in batches of similar length; a sentence's
    /// vector does not depend on the others beyond rounding (under 1e-6).
    pub fn encode(&self, sentences: &[&str]) -> Result<Vec<Vec<f32>>> {
        let none: Vec<&[(usize, usize)]> = vec![&[]; sentences.len()];
        Ok(self.encode_with_spans(sentences, &none)?.into_iter().map(|encoded| encoded.vector).collect())
    }

    /// Each sentence's vector, and the meaning of each of its `spans` (byte
    /// ranges of the sentence) as the sentence gives it: the mean of the
    /// states of the tokens within the span, from the same run of the model,
    /// unit length. A span that holds no whole token (or only tokens past the
    /// model's 256) has no meaning (`None`).
    pub fn encode_with_spans(&self, sentences: &[&str], spans: &[&[(usize, usize)]]) -> Result<Vec<Encoded>> {
        ensure!(spans.len() == sentences.len(), "{} sentences, {} lists of spans", sentences.len(), spans.len());
        let tokenized = sentences
            .iter()
            .map(|sentence| self.tokenizer.encode(*sentence, true).map_err(|error| anyhow!("tokenizer: {error}")))
            .collect::<Result<Vec<_>>>()?;
        let tokens: Vec<Vec<u32>> = tokenized.iter().map(|encoding| encoding.get_ids().to_vec()).collect();
        let mut order: Vec<usize> = (0..tokens.len()).collect();
        order.sort_by_key(|&index| tokens[index].len());
        let mut encoded: Vec<Option<Encoded>> = (0..tokens.len()).map(|_| None).collect();
        let mut start = 0;
        while start < order.len() {
            let end = start + self.batch_len(&order[start..], &tokens);
            let batch: Vec<&[u32]> = order[start..end].iter().map(|&index| tokens[index].as_slice()).collect();
            for (&index, states) in order[start..end].iter().zip(self.encode_batch(&batch)?) {
                // The special tokens ([CLS], [SEP]) have the empty offset (0, 0): in no span.
                let offsets = tokenized[index].get_offsets();
                let pooled = spans[index]
                    .iter()
                    .map(|&(from, to)| {
                        let within: Vec<&[f32]> = states
                            .iter()
                            .zip(offsets)
                            .filter(|(_, &(first, last))| first < last && from <= first && last <= to)
                            .map(|(state, _)| state.as_slice())
                            .collect();
                        (!within.is_empty()).then(|| mean_unit(&within))
                    })
                    .collect();
                encoded[index] = Some(Encoded { vector: mean_unit(&states), spans: pooled });
            }
            start = end;
        }
        Ok(encoded.into_iter().map(|e| e.expect("every sentence is in a batch")).collect())
    }

    /// How many of `order` (sentences by increasing length) go in the next batch.
    fn batch_len(&self, order: &[usize], tokens: &[Vec<u32>]) -> usize {
        let score_bytes = |count: usize, longest: usize| count * self.config.num_attention_heads * longest * longest * 4;
        let mut count = 1;
        while count < order.len()
            && count < BATCH_SENTENCES
            && score_bytes(count + 1, tokens[order[count]].len()) <= BATCH_SCORE_BYTES
        {
            count += 1;
        }
        count
    }

    /// The last hidden states of one batch of token ids (the [CLS] … [SEP]
    /// of each), a state per token of each sentence.
    fn encode_batch(&self, batch: &[&[u32]]) -> Result<Vec<Vec<Vec<f32>>>> {
        // The batch's own vocabulary: its distinct ids, sorted; the model sees
        // each token as its place in it, with those rows as its embeddings.
        let mut vocabulary: Vec<u32> = batch.iter().flat_map(|ids| ids.iter().copied()).collect();
        vocabulary.sort_unstable();
        vocabulary.dedup();
        let longest = batch.iter().map(|ids| ids.len()).max().unwrap_or(0);
        // Padding takes row 0: what a padded position holds never reaches a
        // real token (the attention mask) nor the mean (taken over real tokens).
        let mut input_ids = vec![0u32; batch.len() * longest];
        let mut mask = vec![0u32; batch.len() * longest];
        for (row, ids) in batch.iter().enumerate() {
            for (column, id) in ids.iter().enumerate() {
                let place = vocabulary.binary_search(id).expect("every id is in the batch's vocabulary");
                input_ids[row * longest + column] = place as u32;
                mask[row * longest + column] = 1;
            }
        }
        let device = Device::Cpu;
        let shape = (batch.len(), longest);
        let input_ids = Tensor::from_vec(input_ids, shape, &device)?;
        let token_types = input_ids.zeros_like()?;
        let mask = Tensor::from_vec(mask, shape, &device)?;

        // candle's BERT, built for this vocabulary: the other weights are
        // shared (a tensor's clone is a reference), so this costs microseconds.
        let mut tensors = self.transformer.clone();
        tensors.insert("embeddings.word_embeddings.weight".to_string(), self.weights.word_rows(&vocabulary)?);
        let config = Config { vocab_size: vocabulary.len(), ..self.config.clone() };
        let model = BertModel::load(VarBuilder::from_tensors(tensors, DType::F32, &device), &config)?;
        let hidden = model.forward(&input_ids, &token_types, Some(&mask))?.to_vec3::<f32>()?;

        Ok(batch.iter().zip(hidden).map(|(ids, mut states)| {
            states.truncate(ids.len());
            states
        }).collect())
    }
}

/// The mean of a sentence's token states, scaled to unit length
/// (sentence-transformers' mean pooling and its Normalize module).
fn mean_unit<S: AsRef<[f32]>>(states: &[S]) -> Vec<f32> {
    let states: Vec<&[f32]> = states.iter().map(AsRef::as_ref).collect();
    let mut mean = vec![0f32; states[0].len()];
    for state in &states {
        for (sum, value) in mean.iter_mut().zip(state.iter()) {
            *sum += value;
        }
    }
    for value in &mut mean {
        *value /= states.len() as f32;
    }
    let norm = mean.iter().map(|value| value * value).sum::<f32>().sqrt().max(1e-12);
    mean.iter().map(|value| value / norm).collect()
}
