//! What a media player makes of a recording: Debian's `ffprobe` and `ffmpeg`
//! (package ffmpeg, installed by `scripts/setup-media.sh`, which `make test`
//! runs; `FFPROBE` / `FFMPEG` point at other binaries). The tests fail, saying
//! so, when they are missing.

use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

fn binary(variable: &str, default: &str) -> PathBuf {
    let path = std::env::var_os(variable).map(PathBuf::from).unwrap_or_else(|| default.into());
    assert!(
        path.is_file(),
        "{} is missing: the recording tests need Debian's ffmpeg (run `make test`, whose setup installs it, \
         or scripts/setup-media.sh), or {variable} pointing at another binary",
        path.display()
    );
    path
}

/// A recording as `ffprobe` reads it and `ffmpeg` decodes it.
#[derive(Debug, Clone)]
pub struct Probe {
    /// The container, as ffprobe names it (`matroska,webm`).
    pub format: String,
    /// The codec of each stream (`opus`, `vp8`).
    pub codecs: Vec<String>,
    /// Where the last packet of any stream ends, in seconds: how long it plays.
    pub end_seconds: f64,
    /// What decoding every frame to the end reported (empty: nothing).
    pub decode_errors: String,
}

/// Probes and fully decodes `bytes` (a file of `extension`).
pub fn probe(bytes: &[u8], extension: &str) -> Probe {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("recording.{extension}"));
    std::fs::write(&file, bytes).unwrap();
    let output = Command::new(binary("FFPROBE", "/usr/bin/ffprobe"))
        .args(["-v", "error", "-show_entries", "format=format_name:stream=codec_name:packet=pts_time,duration_time", "-of", "json"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(output.status.success(), "ffprobe cannot read it: {}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let seconds = |value: &Value| value.as_str().and_then(|text| text.parse::<f64>().ok());
    let end_seconds = report["packets"]
        .as_array()
        .map(|packets| {
            packets
                .iter()
                .filter_map(|packet| Some(seconds(&packet["pts_time"])? + seconds(&packet["duration_time"]).unwrap_or(0.0)))
                .fold(0.0, f64::max)
        })
        .unwrap_or(0.0);
    let decoded = Command::new(binary("FFMPEG", "/usr/bin/ffmpeg"))
        .args(["-v", "error", "-i"])
        .arg(&file)
        .args(["-f", "null", "-"])
        .output()
        .unwrap();
    let mut decode_errors = String::from_utf8_lossy(&decoded.stderr).into_owned();
    if !decoded.status.success() {
        decode_errors.push_str(&format!("\nffmpeg exited with {}", decoded.status));
    }
    Probe {
        format: report["format"]["format_name"].as_str().unwrap_or_default().to_string(),
        codecs: report["streams"].as_array().into_iter().flatten().filter_map(|s| s["codec_name"].as_str().map(str::to_string)).collect(),
        end_seconds,
        decode_errors,
    }
}
