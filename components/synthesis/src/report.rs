//! `GET /v1/projects/{id}/synthesis-report`: the synthesis as one printable
//! HTML page, self-contained: its styles inline (admitted by their hash in a
//! Content-Security-Policy that allows nothing else: no script, no image, no
//! request of any kind), a bar chart of each question's theme shares as
//! inline SVG, the quotes under each theme with their interview ids. Every
//! text of a participant or a model is escaped, and isolated (`dir="auto"`,
//! `<bdi>`) so that it reads in its own direction. Its framing is in the
//! project's first interview language (`report_strings.json` has all of
//! them), right to left for Arabic and Hebrew.

use super::profile::Participants;
use super::{QuestionSynthesis, Quote, Synthesis, WrittenBy};
use platform::http::ApiResponse;
use text::language::direction;
use platform::html::{escape_html, fill_template};
use base64::Engine;
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::collections::HashMap;

const TEMPLATE: &str = include_str!("report.html");
const STYLE: &str = include_str!("report.css");
const STRINGS: &str = include_str!("report_strings.json");

/// The framing texts of one language.
#[derive(Debug, Clone, Deserialize)]
pub struct ReportStrings {
    pub title: String,
    pub analyzed: String,
    pub excluded: String,
    pub waiting: String,
    pub generated: String,
    pub builtin: String,
    pub model: String,
    pub question: String,
    pub answered: String,
    pub finding: String,
    pub chart: String,
    pub share: String,
    pub percent: String,
    pub quotes: String,
    pub source: String,
    pub no_themes: String,
    pub contents: String,
    pub participants: String,
    pub described: String,
    pub role_count: String,
    pub work: String,
}

/// The framing texts of `language` (English for a language without them).
pub fn strings(language: &str) -> ReportStrings {
    let mut all: HashMap<String, ReportStrings> = serde_json::from_str(STRINGS).expect("report_strings.json is valid");
    all.remove(language).or_else(|| all.remove("en")).expect("English report strings")
}

/// `{name}` of `text`, each replaced by its value (values are not expanded again).
fn fill(text: &str, values: &[(&str, &str)]) -> String {
    let pairs: Vec<(String, &str)> = values.iter().map(|(name, value)| (format!("{{{name}}}"), *value)).collect();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    'outer: while !rest.is_empty() {
        for (name, value) in &pairs {
            if let Some(after) = rest.strip_prefix(name.as_str()) {
                out.push_str(value);
                rest = after;
                continue 'outer;
            }
        }
        let c = rest.chars().next().expect("not empty");
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn percent(share: f64, strings: &ReportStrings) -> String {
    fill(&strings.percent, &[("p", &format!("{}", (share * 100.0).round() as i64))])
}

/// `2026-11-27 10:00 UTC` of an RFC 3339 time.
fn shown_time(rfc3339: &str) -> String {
    match rfc3339.get(..16) {
        Some(minutes) => format!("{} UTC", minutes.replace('T', " ")),
        None => rfc3339.to_string(),
    }
}

/// A label for the chart: at most this many characters (the list below has it whole).
const CHART_LABEL_CHARS: usize = 44;
const CHART_WIDTH: f64 = 360.0;
/// Room the bars leave for their value.
const BAR_SPACE: f64 = 300.0;
const ROW: f64 = 40.0;

/// The question's bar chart: a row per theme, its label above a bar as long
/// as its share, mirrored for a right-to-left language.
fn chart(index: usize, question: &QuestionSynthesis, strings: &ReportStrings, rtl: bool) -> String {
    let height = ROW * question.themes.len() as f64 + 4.0;
    let described: Vec<String> = question
        .themes
        .iter()
        .map(|t| format!("{}: {}", t.label, percent(t.share, strings)))
        .collect();
    let x = |at: f64, width: f64| if rtl { CHART_WIDTH - at - width } else { at };
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {CHART_WIDTH} {height}\" role=\"img\" \
         aria-labelledby=\"chart-{index}-title chart-{index}-desc\" direction=\"{}\">\
         <title id=\"chart-{index}-title\">{}</title><desc id=\"chart-{index}-desc\">{}</desc>",
        if rtl { "rtl" } else { "ltr" },
        escape_html(&strings.chart),
        escape_html(&described.join("; "))
    );
    for (row, theme) in question.themes.iter().enumerate() {
        let top = ROW * row as f64;
        let mut label: String = theme.label.chars().take(CHART_LABEL_CHARS).collect();
        if theme.label.chars().count() > CHART_LABEL_CHARS {
            label.push('…');
        }
        let width = (BAR_SPACE * theme.share.clamp(0.0, 1.0)).max(1.0);
        svg.push_str(&format!(
            "<text class=\"label\" x=\"{}\" y=\"{}\">{}</text>\
             <rect class=\"track\" x=\"{}\" y=\"{}\" width=\"{BAR_SPACE}\" height=\"12\"/>\
             <rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{width:.1}\" height=\"12\"/>\
             <text class=\"value\" x=\"{}\" y=\"{}\">{}</text>",
            x(0.0, 0.0),
            top + 14.0,
            escape_html(&label),
            x(0.0, BAR_SPACE),
            top + 20.0,
            x(0.0, width),
            top + 20.0,
            x(width + 6.0, 0.0),
            top + 31.0,
            escape_html(&percent(theme.share, strings)),
        ));
    }
    svg.push_str("</svg>");
    format!("<figure class=\"chart\">{svg}<figcaption>{}</figcaption></figure>", escape_html(&strings.chart))
}

/// One question's section: its heading, the finding (model only), the chart
/// and each theme with its quotes.
fn section(index: usize, question: &QuestionSynthesis, strings: &ReportStrings, rtl: bool) -> String {
    let number = (index + 1).to_string();
    let mut html = format!(
        "<section class=\"question\" aria-labelledby=\"question-{number}\"><h2 id=\"question-{number}\">\
         <span class=\"number\">{}</span> <bdi>{}</bdi></h2><p class=\"answered\">{}</p>",
        escape_html(&fill(&strings.question, &[("n", &number)])),
        escape_html(&question.question),
        escape_html(&fill(&strings.answered, &[("n", &question.answered.to_string())]))
    );
    if let Some(finding) = &question.finding {
        html.push_str(&format!(
            "<div class=\"finding\"><h3>{}</h3><p dir=\"auto\">{}</p></div>",
            escape_html(&strings.finding),
            escape_html(finding)
        ));
    }
    if question.themes.is_empty() {
        html.push_str(&format!("<p class=\"empty\">{}</p></section>", escape_html(&strings.no_themes)));
        return html;
    }
    html.push_str(&chart(index + 1, question, strings, rtl));
    html.push_str("<ol class=\"themes\">");
    for theme in &question.themes {
        let share = fill(
            &strings.share,
            &[
                ("n", &theme.interviews.to_string()),
                ("total", &question.answered.to_string()),
                ("percent", &percent(theme.share, strings)),
            ],
        );
        html.push_str(&format!(
            "<li class=\"theme\"><h3 dir=\"auto\">{}</h3><p class=\"share\">{}</p>",
            escape_html(&theme.label),
            escape_html(&share)
        ));
        if let Some(description) = &theme.description {
            html.push_str(&format!("<p class=\"description\" dir=\"auto\">{}</p>", escape_html(description)));
        }
        html.push_str(&quotes(&theme.quotes, strings));
        html.push_str("</li>");
    }
    html.push_str("</ol></section>");
    html
}

/// A theme's or a role's quotes, each with its interview and turn.
fn quotes(quotes: &[Quote], strings: &ReportStrings) -> String {
    if quotes.is_empty() {
        return String::new();
    }
    let mut html = format!("<ul class=\"quotes\" aria-label=\"{}\">", escape_html(&strings.quotes));
    for quote in quotes {
        let source = fill(&strings.source, &[("id", &quote.interview_id.to_string()), ("seq", &quote.seq.to_string())]);
        html.push_str(&format!(
            "<li><blockquote><p dir=\"auto\">{}</p></blockquote><p class=\"source\">{}</p></li>",
            escape_html(&quote.text),
            escape_html(&source)
        ));
    }
    html.push_str("</ul>");
    html
}

/// Who the participants are: how many say it, and each role they name with its count and words.
fn participants(participants: &Participants, analysed: usize, strings: &ReportStrings) -> String {
    if participants.described == 0 {
        return String::new();
    }
    let described = fill(&strings.described, &[("n", &participants.described.to_string()), ("total", &analysed.to_string())]);
    let mut html = format!(
        "<section class=\"participants\" aria-labelledby=\"participants\"><h2 id=\"participants\">{}</h2><p class=\"answered\">{}</p><ol class=\"themes\">",
        escape_html(&strings.participants),
        escape_html(&described)
    );
    let work = (participants.work.interviews > 0).then_some((&strings.work, participants.work.interviews, &participants.work.quotes));
    let roles = participants.roles.iter().map(|role| (&role.role, role.interviews, &role.quotes));
    for (name, interviews, said) in roles.chain(work) {
        html.push_str(&format!(
            "<li class=\"theme\"><h3 dir=\"auto\">{}</h3><p class=\"share\">{}</p>{}</li>",
            escape_html(name),
            escape_html(&fill(&strings.role_count, &[("n", &interviews.to_string())])),
            quotes(said, strings)
        ));
    }
    html.push_str("</ol></section>");
    html
}

/// The page of a synthesis, framed in `language`.
pub fn page(synthesis: &Synthesis, project_name: &str, language: &str) -> String {
    let strings = strings(language);
    let rtl = direction(language) == "rtl";
    let mut facts = vec![fill(&strings.analyzed, &[("n", &synthesis.interviews_analyzed.to_string())])];
    if synthesis.interviews_excluded > 0 {
        facts.push(fill(&strings.excluded, &[("n", &synthesis.interviews_excluded.to_string())]));
    }
    if synthesis.interviews_waiting > 0 {
        facts.push(fill(&strings.waiting, &[("n", &synthesis.interviews_waiting.to_string())]));
    }
    facts.push(fill(&strings.generated, &[("at", &shown_time(&synthesis.generated_at))]));
    let facts: String = facts.iter().map(|f| format!("<li>{}</li>", escape_html(f))).collect();
    let method = match synthesis.written_by {
        WrittenBy::BuiltIn => &strings.builtin,
        WrittenBy::Model => &strings.model,
    };
    let toc: String = synthesis
        .questions
        .iter()
        .enumerate()
        .map(|(i, q)| format!("<li><a href=\"#question-{}\"><bdi>{}</bdi></a></li>", i + 1, escape_html(&q.question)))
        .collect();
    let mut questions: String = synthesis.participants.as_ref().map(|p| participants(p, synthesis.interviews_analyzed, &strings)).unwrap_or_default();
    questions.extend(synthesis.questions.iter().enumerate().map(|(i, q)| section(i, q, &strings, rtl)));
    let title = format!("{} · {}", strings.title, project_name);
    fill_template(
        TEMPLATE,
        &[
            ("lang", language),
            ("dir", direction(language)),
            ("title", &escape_html(&title)),
            ("style", STYLE),
            ("project", &format!("<bdi>{}</bdi>", escape_html(project_name))),
            ("heading", &escape_html(&strings.title)),
            ("facts", &facts),
            ("method", &escape_html(method)),
            ("contents", &escape_html(&strings.contents)),
            ("toc", &toc),
            ("questions", &questions),
        ],
    )
}

/// The Content-Security-Policy of the page: its one style element, by hash; nothing else.
pub fn content_security_policy() -> String {
    let hash = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(STYLE.as_bytes()));
    format!("default-src 'none'; style-src 'sha256-{hash}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
}

/// The page as a response: HTML, its policy, never cached or framed.
pub fn response(synthesis: &Synthesis, project_name: &str, language: &str) -> ApiResponse {
    ApiResponse { status: 200, headers: Vec::new(), body: page(synthesis, project_name, language).into_bytes() }
        .with_header("content-type", "text/html; charset=utf-8")
        .with_header("content-security-policy", content_security_policy())
        .with_header("cache-control", "no-store")
        .with_header("referrer-policy", "no-referrer")
        .with_header("x-content-type-options", "nosniff")
        .with_header("x-frame-options", "DENY")
}

#[cfg(test)]
mod tests {
    use super::super::profile::{Role, Work};
    use super::super::ThemeSynthesis;
    use super::*;

    fn id(text: &str) -> platform::ids::InterviewId {
        platform::ids::InterviewId::parse(text).unwrap()
    }

    fn synthesis() -> Synthesis {
        Synthesis {
            project_id: platform::ids::ProjectId::new_random(),
            generated_at: "2026-11-27T10:00:00.000Z".into(),
            interviews_analyzed: 4,
            interviews_excluded: 1,
            interviews_waiting: 0,
            written_by: WrittenBy::BuiltIn,
            participants: None,
            questions: vec![QuestionSynthesis {
                question: "What <b>stops</b> you?".into(),
                answered: 4,
                finding: None,
                themes: vec![ThemeSynthesis {
                    theme_id: "th_1".into(),
                    label: "shipping <costs>".into(),
                    description: None,
                    interviews: 3,
                    share: 0.75,
                    quotes: vec![Quote { interview_id: id("00000000-0000-4000-8000-000000000001"), seq: 3, text: "<script>alert(1)</script> & \"more\"".into() }],
                }],
            }],
        }
    }

    #[test]
    fn every_text_is_escaped_and_the_page_loads_nothing() {
        let html = page(&synthesis(), "Checkout <study>", "en");
        assert!(!html.contains("<script>") && html.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;more&quot;"));
        assert!(html.contains("shipping &lt;costs&gt;") && html.contains("What &lt;b&gt;stops&lt;/b&gt; you?"));
        assert!(html.contains("Checkout &lt;study&gt;"));
        for external in ["src=", "href=\"http", "@import", "url("] {
            assert!(!html.contains(external), "{external}");
        }
        assert!(html.contains("3 of 4 interviews (75%)") && html.contains("Interview 00000000-0000-4000-8000-000000000001, turn 3"));
        assert!(html.contains("<html lang=\"en\" dir=\"ltr\">"));
    }

    #[test]
    fn the_policy_admits_the_style_by_its_hash() {
        let policy = content_security_policy();
        assert!(policy.starts_with("default-src 'none'; style-src 'sha256-"), "{policy}");
        assert!(!policy.contains("unsafe") && !policy.contains("script-src"));
        let html = page(&synthesis(), "p", "en");
        assert!(html.contains(&format!("<style>{STYLE}</style>")), "the hashed text is the element's whole content");
    }

    #[test]
    fn every_interview_language_frames_the_page_and_arabic_and_hebrew_run_right_to_left() {
        for language in <projects_core::Language as text_enum::TextEnum>::NAMES {
            let all: HashMap<String, ReportStrings> = serde_json::from_str(STRINGS).unwrap();
            assert!(all.contains_key(*language), "{language}");
            let html = page(&synthesis(), "p", language);
            let rtl = matches!(*language, "ar" | "he");
            assert!(html.contains(&format!("dir=\"{}\"", if rtl { "rtl" } else { "ltr" })), "{language}");
            assert!(html.contains(&format!("direction=\"{}\"", if rtl { "rtl" } else { "ltr" })), "{language}");
        }
        assert!(page(&synthesis(), "p", "de").contains("3 von 4 Interviews (75 %)"));
    }

    #[test]
    fn the_page_says_who_the_participants_are_before_the_questions() {
        assert!(!page(&synthesis(), "p", "en").contains("Who the participants are"));
        let role = Role { role: "<writer>".into(), interviews: 2, quotes: vec![Quote { interview_id: id("00000000-0000-4000-8000-000000000002"), seq: 1, text: "I'm a <writer>.".into() }] };
        let work = Work { interviews: 1, quotes: vec![Quote { interview_id: id("00000000-0000-4000-8000-000000000003"), seq: 2, text: "My current project involves molecular rotors.".into() }] };
        let described = Synthesis { participants: Some(Participants { described: 3, roles: vec![role], work }), ..synthesis() };
        let html = page(&described, "p", "en");
        let profile = html.find("<h2 id=\"participants\">Who the participants are</h2>").expect("the profile's heading");
        assert!(profile < html.find("id=\"question-1\"").unwrap());
        assert!(html.contains("3 of 4 interviews say who they are.") && html.contains("&lt;writer&gt;</h3><p class=\"share\">2 interviews</p>"));
        assert!(html.contains("I&#39;m a &lt;writer&gt;."));
        assert!(html.contains("Interview 00000000-0000-4000-8000-000000000002, turn 1"));
        let work = html.find("Their work, in their words</h3><p class=\"share\">1 interviews</p>").expect("their work, after the roles");
        assert!(work > html.find("&lt;writer&gt;</h3>").unwrap() && html.contains("My current project involves molecular rotors."));
        assert!(page(&described, "p", "de").contains("In 3 von 4 Interviews sagen sie, wer sie sind."));
    }

    #[test]
    fn the_page_says_how_many_interviews_wait_for_their_meanings() {
        assert!(!page(&synthesis(), "p", "en").contains("waiting"));
        let waiting = Synthesis { interviews_waiting: 3, ..synthesis() };
        assert!(page(&waiting, "p", "en").contains("<li>3 still waiting for their meanings (seconds after they end)</li>"));
        assert!(page(&waiting, "p", "fr").contains("3 encore en attente"));
    }
}
