//! The interview page and its error pages (docs/sessions.md, "The link"): one
//! HTML document each, in the project's language, colours and logo, under a
//! per-response CSP nonce that admits its style sheet and script modules
//! (static assets with content-hashed names: [`super::assets`]) and its
//! inline colours.

use super::assets;
use super::screeners::ScreenerBlock;
use super::strings::{self, Strings};
use platform::http::ApiResponse;
pub use platform::html::{escape_html, fill_template, script_json};
use platform::keys;
use projects_core::{self as projects, Project};
use platform::validation::HexColor;
use serde_json::Value;

// Both pages share one <head> (lang, dir, title, the nonce'd styles).
const INTERVIEW_HTML: &str = concat!(include_str!("page/head.html"), include_str!("page/interview.html"));
const ERROR_HTML: &str = concat!(include_str!("page/head.html"), include_str!("page/error.html"));

const DEFAULT_SECONDARY_COLOR: &str = "#EEEDFB";
const DEFAULT_TEXT_COLOR: &str = "#1D1B2F";
const BACKGROUND_COLOR: &str = "#FFFFFF";


/// The page's colours: the project's, or the service's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    pub primary: String,
    /// Black or white, whichever reads better on `primary` (WCAG contrast).
    pub on_primary: String,
    pub secondary: String,
    pub text: String,
    pub background: String,
}

fn channel(byte: u8) -> f64 {
    let value = byte as f64 / 255.0;
    if value <= 0.03928 {
        value / 12.92
    } else {
        ((value + 0.055) / 1.055).powf(2.4)
    }
}

/// WCAG relative luminance of `#RRGGBB[AA]` (alpha ignored).
pub fn luminance(color: &HexColor) -> f64 {
    let [red, green, blue] = color.rgb();
    0.2126 * channel(red) + 0.7152 * channel(green) + 0.0722 * channel(blue)
}

fn contrast(a: f64, b: f64) -> f64 {
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

impl Palette {
    pub fn for_project(project: Option<&Project>) -> Palette {
        let pick = |color: Option<&HexColor>, default: &str| color.map_or_else(|| default.to_string(), HexColor::to_string);
        let fields = project.map(|p| &p.fields);
        let primary = fields.and_then(|f| f.primary_color.clone()).unwrap_or_else(projects::default_primary_color);
        let lum = luminance(&primary);
        let on_primary = if contrast(lum, 1.0) >= contrast(lum, 0.0) { "#FFFFFF" } else { "#000000" };
        Palette {
            on_primary: on_primary.to_string(),
            secondary: pick(fields.and_then(|f| f.secondary_color.as_ref()), DEFAULT_SECONDARY_COLOR),
            text: pick(fields.and_then(|f| f.text_color.as_ref()), DEFAULT_TEXT_COLOR),
            background: BACKGROUND_COLOR.to_string(),
            primary: primary.to_string(),
        }
    }

    /// The CSS custom properties the page's style sheet uses.
    pub fn css(&self) -> String {
        format!(
            ":root{{--primary:{};--on-primary:{};--secondary:{};--text:{};--background:{}}}",
            self.primary, self.on_primary, self.secondary, self.text, self.background
        )
    }
}

/// The origin of an `http(s)` logo URL, for the CSP's `img-src`.
fn logo_origin(logo_url: &str) -> Option<String> {
    let url = url::Url::parse(logo_url).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.origin().ascii_serialization())
}

fn logo_html(project: Option<&Project>, strings: &Strings) -> (String, Option<String>) {
    let Some(logo) = project.and_then(|p| p.fields.logo_url.as_deref()) else {
        return (String::new(), None);
    };
    let Some(origin) = logo_origin(logo) else {
        return (String::new(), None);
    };
    let html = format!(
        "<img class=\"logo\" src=\"{}\" alt=\"{}\" width=\"80\" height=\"80\">",
        escape_html(logo),
        escape_html(strings.page_text("logo_alt"))
    );
    (html, Some(origin))
}

fn content_security_policy(nonce: &str, logo_origin: Option<&str>) -> String {
    let logo = logo_origin.map(|o| format!(" {o}")).unwrap_or_default();
    format!(
        "default-src 'none'; script-src 'nonce-{nonce}'; style-src 'nonce-{nonce}'; img-src 'self' data:{logo}; \
         media-src 'self' blob:; connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"
    )
}

fn html_response(status: u16, body: String, nonce: &str, logo_origin: Option<&str>) -> ApiResponse {
    ApiResponse { status, headers: Vec::new(), body: body.into_bytes() }
        .with_header("content-type", "text/html; charset=utf-8")
        .with_header("content-security-policy", content_security_policy(nonce, logo_origin))
        .with_header("cache-control", "no-store")
        .with_header("referrer-policy", "no-referrer")
        .with_header("x-content-type-options", "nosniff")
        .with_header("x-frame-options", "DENY")
        .with_header("permissions-policy", "camera=(self), microphone=(self), geolocation=()")
}

fn nonce() -> String {
    keys::generate_secret("").chars().take(22).collect()
}

/// The page's script: every module preloaded (one round trip, not one per
/// import level), the entry module run; all under the response's nonce.
fn script_tags(nonce: &str) -> String {
    let modules = assets::module_urls();
    let mut tags: String =
        modules.iter().map(|url| format!("<link rel=\"modulepreload\" href=\"{url}\" nonce=\"{nonce}\">\n")).collect();
    tags.push_str(&format!("<script type=\"module\" src=\"{}\" nonce=\"{nonce}\"></script>", modules[0]));
    tags
}

/// What the page's script starts from (docs/sessions.md has every field).
pub struct PageData<'a> {
    pub project: &'a Project,
    pub strings: &'a Strings,
    /// The body of `POST /v1/sessions` the page sends (mode and screener answers added).
    pub start: Value,
    pub screeners: &'a [ScreenerBlock],
    pub transcription: bool,
    pub max_chunk_bytes: usize,
}

/// The interview page.
pub fn interview_page(data: &PageData) -> ApiResponse {
    let nonce = nonce();
    let strings = data.strings;
    let fields = &data.project.fields;
    let boot = serde_json::json!({
        "api": "/v1/sessions",
        "project_id": data.project.project_id,
        "environment": data.start["environment"],
        "start": data.start,
        "modes": fields.interview_modes,
        "camera_access": fields.camera_access,
        "language": strings.language,
        "direction": strings::direction(&strings.language),
        "strings": Value::Object(strings.page.clone()),
        "screeners": data.screeners,
        "transcription": data.transcription,
        "max_chunk_bytes": data.max_chunk_bytes,
    });
    let (logo, origin) = logo_html(Some(data.project), strings);
    let boot = script_json(&boot);
    let brand = Palette::for_project(Some(data.project)).css();
    let title = escape_html(strings.page_text("title"));
    let noscript = escape_html(strings.page_text("noscript"));
    let html = fill_template(
        INTERVIEW_HTML,
        &[
            ("lang", &strings.language),
            ("dir", strings::direction(&strings.language)),
            ("title", &title),
            ("nonce", &nonce),
            ("styles", &assets::url(assets::STYLES)),
            ("brand", &brand),
            ("logo", &logo),
            ("boot", &boot),
            ("scripts", &script_tags(&nonce)),
            ("noscript", &noscript),
        ],
    );
    html_response(200, html, &nonce, origin.as_deref())
}

/// Why the link shows an error page instead of the interview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkError {
    /// 404: no such project (or not a project id at all).
    NotFound,
    /// 409: draft or paused, for a production link.
    NotActive,
    /// 410: completed, or `max_interviews` reached.
    Completed,
    /// 429: too many requests from this address.
    RateLimited,
    /// Anything else, with its status.
    Other(u16),
}

impl LinkError {
    pub fn from_status(status: u16) -> LinkError {
        match status {
            404 => LinkError::NotFound,
            409 => LinkError::NotActive,
            410 => LinkError::Completed,
            429 => LinkError::RateLimited,
            other => LinkError::Other(other),
        }
    }

    pub fn status(self) -> u16 {
        match self {
            LinkError::NotFound => 404,
            LinkError::NotActive => 409,
            LinkError::Completed => 410,
            LinkError::RateLimited => 429,
            LinkError::Other(status) => status,
        }
    }
}

/// A small HTML page saying why there is no interview here, in the project's
/// colours when the project is known.
pub fn error_page(error: LinkError, strings: &Strings, project: Option<&Project>) -> ApiResponse {
    let nonce = nonce();
    let e = &strings.errors;
    let (heading, message) = match error {
        LinkError::NotFound => (&e.not_found_title, &e.not_found_message),
        LinkError::NotActive => (&e.not_active_title, &e.not_active_message),
        LinkError::Completed => (&e.completed_title, &e.completed_message),
        LinkError::RateLimited => (&e.rate_limited_title, &e.rate_limited_message),
        LinkError::Other(_) => (&e.error_title, &e.error_message),
    };
    let (logo, origin) = logo_html(project, strings);
    let heading = escape_html(heading);
    let status = error.status().to_string();
    let html = fill_template(
        ERROR_HTML,
        &[
            ("lang", &strings.language),
            ("dir", strings::direction(&strings.language)),
            ("title", &heading),
            ("heading", &heading),
            ("message", &escape_html(message)),
            ("status", &status),
            ("nonce", &nonce),
            ("styles", &assets::url(assets::STYLES)),
            ("brand", &Palette::for_project(project).css()),
            ("logo", &logo),
        ],
    );
    html_response(error.status(), html, &nonce, origin.as_deref())
}

/// The page for an error of the pipeline (rate limit, internal error) on a
/// page route: unbranded, in English, with the error's status.
pub fn error_response(error: platform::ApiError) -> ApiResponse {
    let status = error.status();
    let retry_after = match &error {
        platform::ApiError::RateLimited { retry_after } => Some(retry_after.to_string()),
        _ => None,
    };
    // Logs an internal error's cause like every other route does.
    drop(error.into_response());
    let page = error_page(LinkError::from_status(status), &strings::for_language(strings::FALLBACK_LANGUAGE), None);
    match retry_after {
        Some(seconds) => page.with_header("retry-after", seconds),
        None => page,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buttons_get_the_readable_text_colour() {
        let color = |text: &str| HexColor::parse(text).unwrap();
        assert!(luminance(&color("#FFFFFF")) > 0.99 && luminance(&color("#000000")) < 0.01);
        let palette = |primary: &str| {
            let mut project = projects_core::tests_support::project();
            project.fields.primary_color = Some(color(primary));
            Palette::for_project(Some(&project))
        };
        assert_eq!(palette("#6759DF").on_primary, "#FFFFFF");
        assert_eq!(palette("#FFE066").on_primary, "#000000");
        assert_eq!(palette("#6759DF80").primary, "#6759DF80");
        assert_eq!(Palette::for_project(None).primary, projects::DEFAULT_PRIMARY_COLOR);
        assert_eq!(Palette::for_project(None).text, DEFAULT_TEXT_COLOR);
    }

    #[test]
    fn the_csp_admits_only_the_logo_origin() {
        let csp = content_security_policy("n0nce", logo_origin("https://cdn.example.com:8443/logo.png?x=1").as_deref());
        assert!(csp.contains("img-src 'self' data: https://cdn.example.com:8443;"), "{csp}");
        assert!(csp.contains("script-src 'nonce-n0nce'"));
        assert_eq!(logo_origin("javascript:alert(1)"), None);
    }
}
