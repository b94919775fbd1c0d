//! The encoder gives all-MiniLM-L6-v2's own vectors: those of the numpy
//! reference (scripts/vectors/minilm.py, in tests/minilm-reference.json) for
//! varied sentences, the model card's similarities, the same vectors whatever
//! the batch, and f16 weights close to f32 ones.
//!
//! The model's files come from `scripts/setup-model.sh` (it fetches them the
//! first time, in seconds), which this test runs itself, so it cannot pass by
//! skipping; `SENTENCE_MODEL_DIR` points it at another copy instead (a
//! machine without the registries).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sentence_model::{Encoder, MODEL};

/// Largest difference allowed in any dimension from the reference vectors.
const EXACT: f32 = 1e-5;

fn model_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if let Some(dir) = std::env::var_os("SENTENCE_MODEL_DIR").filter(|dir| !dir.is_empty()) {
            return PathBuf::from(dir);
        }
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let status = Command::new("bash").arg(root.join("scripts/setup-model.sh")).status().expect("bash runs");
        assert!(status.success(), "scripts/setup-model.sh failed (or set SENTENCE_MODEL_DIR to the model's folder)");
        root.join("target/models/all-minilm-l6-v2")
    })
}

fn encoder() -> &'static Encoder {
    static ENCODER: OnceLock<Encoder> = OnceLock::new();
    ENCODER.get_or_init(|| Encoder::load(model_dir()).expect("the model loads"))
}

#[derive(serde::Deserialize)]
struct Reference {
    model: String,
    sentences: Vec<ReferenceSentence>,
    spans: Vec<ReferenceSpan>,
}

/// A phrase's meaning in its sentence's context: the bytes of `sentences[sentence]`.
#[derive(serde::Deserialize)]
struct ReferenceSpan {
    sentence: usize,
    start: usize,
    end: usize,
    vector: Vec<f32>,
}

#[derive(serde::Deserialize)]
struct ReferenceSentence {
    text: String,
    tokens: usize,
    vector: Vec<f32>,
}

fn reference() -> Reference {
    serde_json::from_str(include_str!("minilm-reference.json")).unwrap()
}

fn max_difference(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter().zip(b).map(|(x, y)| (x - y).abs()).fold(0.0, f32::max)
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn texts(reference: &Reference) -> Vec<&str> {
    reference.sentences.iter().map(|sentence| sentence.text.as_str()).collect()
}

#[test]
fn vectors_are_the_reference_models() {
    let reference = reference();
    assert_eq!(reference.model, MODEL);
    assert!(reference.sentences.iter().any(|sentence| sentence.tokens == 256), "a sentence is cut at 256 tokens");
    let vectors = encoder().encode(&texts(&reference)).unwrap();
    let mut worst = (0.0f32, "");
    for (sentence, vector) in reference.sentences.iter().zip(&vectors) {
        assert_eq!(vector.len(), 384);
        let difference = max_difference(vector, &sentence.vector);
        assert!(difference <= EXACT, "{:?}: {difference} from the reference", sentence.text);
        if difference > worst.0 {
            worst = (difference, &sentence.text);
        }
    }
    eprintln!("largest difference from the reference: {} ({:?})", worst.0, worst.1);
    // What the model says, not only that it agrees: distinct sentences, distinct vectors.
    assert!(cosine(&vectors[5], &vectors[6]) < 0.9, "negation changes the vector");
}

#[test]
fn model_card_similarities() {
    // The model card's example: similarities 0.6660, 0.1046 and 0.1411.
    let vectors = encoder()
        .encode(&["The weather is lovely today.", "It's so sunny outside!", "He drove to the stadium."])
        .unwrap();
    let rounded = |a: usize, b: usize| (cosine(&vectors[a], &vectors[b]) * 10_000.0).round() / 10_000.0;
    assert_eq!([rounded(0, 1), rounded(0, 2), rounded(1, 2)], [0.6660, 0.1046, 0.1411]);
    for vector in &vectors {
        assert!((cosine(vector, vector) - 1.0).abs() < 1e-6, "unit length");
    }
}

#[test]
fn phrases_have_their_meanings_in_context_as_the_reference_pools_them() {
    let reference = reference();
    let texts = texts(&reference);
    let mut spans: Vec<Vec<(usize, usize)>> = vec![Vec::new(); texts.len()];
    for span in &reference.spans {
        spans[span.sentence].push((span.start, span.end));
    }
    let slices: Vec<&[(usize, usize)]> = spans.iter().map(Vec::as_slice).collect();
    let encoded = encoder().encode_with_spans(&texts, &slices).unwrap();
    let plain = encoder().encode(&texts).unwrap();
    for (with_spans, vector) in encoded.iter().zip(&plain) {
        assert_eq!(&with_spans.vector, vector, "the sentence's own vector is the same");
    }
    let mut worst = 0.0f32;
    for span in &reference.spans {
        let place = spans[span.sentence].iter().position(|s| *s == (span.start, span.end)).unwrap();
        let found = encoded[span.sentence].spans[place].as_ref().expect("a phrase of whole tokens has a meaning");
        worst = worst.max(max_difference(found, &span.vector));
    }
    eprintln!("largest difference from the reference's phrases in context: {worst}");
    assert!(worst < EXACT, "{worst}");
    // A phrase in context is not the phrase alone: "concerns" beside "don't have any" differs.
    let alone = encoder().encode(&["don't have any concerns"]).unwrap();
    assert!(cosine(&alone[0], encoded[5].spans[0].as_ref().unwrap()) < 0.99);
    // A span that holds no whole token has no meaning.
    let none = encoder().encode_with_spans(&["Thanks!"], &[&[(0, 0), (1, 3)]]).unwrap();
    assert_eq!(none[0].spans, [None, None]);
}

#[test]
fn a_batch_gives_each_sentence_its_own_vector() {
    let reference = reference();
    let texts = texts(&reference);
    let together = encoder().encode(&texts).unwrap();
    let mut worst = 0.0f32;
    for (text, vector) in texts.iter().zip(&together) {
        let alone = encoder().encode(&[text]).unwrap();
        worst = worst.max(max_difference(&alone[0], vector));
    }
    eprintln!("largest difference between a batch and one sentence at a time: {worst}");
    assert!(worst < 1e-6, "{worst}");
    // Repeats and order change nothing; nothing to encode is no vector.
    let shuffled = encoder().encode(&[texts[9], texts[0], texts[9]]).unwrap();
    assert_eq!(shuffled[0], shuffled[2]);
    assert!(max_difference(&shuffled[1], &together[0]) < 1e-6);
    assert!(encoder().encode(&[]).unwrap().is_empty());
}

#[test]
fn f16_weights_are_computed_in_f32() {
    // The same model stored in f16 (half the file): close to the f32 vectors,
    // never NaN (candle's BERT computing in f16 gives NaN).
    let folder = tempfile::tempdir().unwrap();
    for name in ["tokenizer.json", "config.json"] {
        std::fs::copy(model_dir().join(name), folder.path().join(name)).unwrap();
    }
    let f32_file = std::fs::read(model_dir().join("model.safetensors")).unwrap();
    let tensors = candle_core::safetensors::load_buffer(&f32_file, &candle_core::Device::Cpu).unwrap();
    let halves: std::collections::HashMap<String, candle_core::Tensor> = tensors
        .into_iter()
        .map(|(name, tensor)| {
            let tensor = if tensor.dtype() == candle_core::DType::F32 { tensor.to_dtype(candle_core::DType::F16).unwrap() } else { tensor };
            (name, tensor)
        })
        .collect();
    candle_core::safetensors::save(&halves, folder.path().join("model.safetensors")).unwrap();
    drop(halves);
    let f16 = Encoder::load(folder.path()).unwrap();
    let reference = reference();
    let vectors = f16.encode(&texts(&reference)).unwrap();
    let mut worst = 0.0f32;
    for (sentence, vector) in reference.sentences.iter().zip(&vectors) {
        assert!(vector.iter().all(|value| value.is_finite()), "{:?}", sentence.text);
        worst = worst.max(max_difference(vector, &sentence.vector));
    }
    eprintln!("largest difference of the f16 weights from the reference: {worst}");
    assert!(worst < 1e-3, "{worst}");
}

#[test]
fn broken_folders_are_errors_that_say_why() {
    let folder = tempfile::tempdir().unwrap();
    let error = Encoder::load(folder.path()).err().expect("an empty folder is no model").to_string();
    assert!(error.contains("tokenizer.json"), "{error}");
    for name in ["tokenizer.json", "config.json"] {
        std::fs::copy(model_dir().join(name), folder.path().join(name)).unwrap();
    }
    // A file cut short: its header promises more than it holds.
    let file = std::fs::read(model_dir().join("model.safetensors")).unwrap();
    std::fs::write(folder.path().join("model.safetensors"), &file[..file.len() / 2]).unwrap();
    let error = format!("{:#}", Encoder::load(folder.path()).err().expect("a truncated file is no model"));
    assert!(error.contains("model.safetensors is"), "{error}");
}
