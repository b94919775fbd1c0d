//! The interview page's script and styles as static assets (docs/sessions.md,
//! "The page's assets"): `GET /i/assets/<stem>.<hash>.<ext>`, each named by
//! the SHA-256 of its content (build.rs), so it is cached for a year and
//! never asked for again, while the page itself (with its per-response CSP
//! nonce and its boot data) stays `no-store`. The script is ES modules by
//! concern (`page/assets/*.js`); the page preloads them all. An asset costs
//! no SQLite statement and no rate-limit count: it is the same bytes for
//! everyone, from memory, as a CDN would serve them.

use platform::error::{ApiError, ApiResult};
use platform::http::ApiResponse;

/// One asset: its source name, its content-hashed file name, its type and bytes.
#[derive(Debug)]
pub struct Asset {
    pub name: &'static str,
    pub file: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/page_assets.rs"));

/// Where the page's assets are served.
pub const PREFIX: &str = "/i/assets/";
/// The module the page starts (it imports the others).
pub const ENTRY_MODULE: &str = "interview.js";
pub const STYLES: &str = "interview.css";
/// A year: the longest lifetime caches honour; the name changes with the content.
const CACHE_CONTROL: &str = "public, max-age=31536000, immutable";

fn asset(name: &str) -> &'static Asset {
    ASSETS.iter().find(|asset| asset.name == name).unwrap_or_else(|| panic!("build.rs made no asset {name}"))
}

/// The URL of the asset whose source is `name` (`interview.css`).
pub fn url(name: &str) -> String {
    format!("{PREFIX}{}", asset(name).file)
}

/// The URLs of every module of the page's script, the entry first.
pub fn module_urls() -> Vec<String> {
    let mut urls = vec![url(ENTRY_MODULE)];
    urls.extend(ASSETS.iter().filter(|a| a.name.ends_with(".js") && a.name != ENTRY_MODULE).map(|a| format!("{PREFIX}{}", a.file)));
    urls
}

/// `GET /i/assets/{file}`: the asset of that content-hashed name; 404 for any other.
pub fn serve(file: &str) -> ApiResult<ApiResponse> {
    let asset = ASSETS.iter().find(|asset| asset.file == file).ok_or_else(|| ApiError::not_found("Asset"))?;
    Ok(ApiResponse { status: 200, headers: Vec::new(), body: asset.body.as_bytes().to_vec() }
        .with_header("content-type", asset.content_type)
        .with_header("cache-control", CACHE_CONTROL)
        .with_header("x-content-type-options", "nosniff")
        .with_header("cross-origin-resource-policy", "same-origin"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::strings;
    use sha2::{Digest, Sha256};

    #[test]
    fn assets_are_named_by_their_content() {
        for asset in ASSETS {
            let hex: String = Sha256::digest(asset.body.as_bytes()).iter().take(8).map(|b| format!("{b:02x}")).collect();
            let (stem, extension) = asset.name.rsplit_once('.').unwrap();
            assert_eq!(asset.file, format!("{stem}.{hex}.{extension}"));
        }
        // Modules import each other by those names, so a change anywhere renames its importers.
        let entry = asset(ENTRY_MODULE);
        assert!(entry.body.contains(&format!("from './{}'", asset("conversation.js").file)), "{}", entry.body);
        assert!(!ASSETS.iter().any(|a| a.body.contains("from './conversation.js'")));
        for name in ["page.js", "transport.js", "recorder.js", "speech.js", "screeners.js", "survey.js", "conversation.js", STYLES] {
            assert!(ASSETS.iter().any(|a| a.name == name), "{name}");
        }
    }

    /// The texts a module names (`t('key')`, `fatal('heading', 'message')`,
    /// `recordingStatus('key')`): the quoted words among those calls' arguments.
    fn text_keys(source: &str) -> Vec<&str> {
        let mut keys = Vec::new();
        for call in ["t('", "fatal('", "recordingStatus('"] {
            for (at, _) in source.match_indices(call) {
                if source[..at].chars().next_back().is_some_and(|c| c.is_alphanumeric() || c == '.') {
                    continue; // another function whose name ends so
                }
                let args = &source[at + call.len() - 1..];
                let args = &args[..args.find(')').unwrap_or(args.len())];
                let quoted = args.split(',').filter_map(|arg| arg.trim().strip_prefix('\'')?.strip_suffix('\''));
                keys.extend(quoted.filter(|key| !key.is_empty() && key.chars().all(|c| c.is_ascii_lowercase() || c == '_')));
            }
        }
        keys
    }

    #[test]
    fn every_text_the_modules_name_is_in_every_language() {
        let named: Vec<&str> = ASSETS.iter().filter(|a| a.name.ends_with(".js")).flat_map(|a| text_keys(a.body)).collect();
        for key in ["upload_behind", "upload_caught_up", "error_rate_limited", "error_session_lost"] {
            assert!(named.contains(&key), "{key} not found in {named:?}");
        }
        for language in strings::languages() {
            let strings = strings::for_language(&language);
            for key in &named {
                assert!(strings.page.contains_key(*key), "strings.json: {language} lacks page.{key}");
            }
        }
    }

    #[test]
    fn assets_are_served_by_their_hashed_names_only() {
        let styles = serve(asset(STYLES).file).unwrap();
        assert_eq!(styles.header("content-type"), Some("text/css; charset=utf-8"));
        assert_eq!(styles.header("cache-control"), Some("public, max-age=31536000, immutable"));
        assert_eq!(serve("interview.css").unwrap_err().status(), 404, "the source name is no URL");
        assert_eq!(serve("../interview.css").unwrap_err().status(), 404);
        assert!(module_urls()[0].starts_with("/i/assets/interview."));
        assert_eq!(module_urls().len(), ASSETS.iter().filter(|a| a.name.ends_with(".js")).count());
    }
}
