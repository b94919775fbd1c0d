//! The synthesis report (`GET /v1/projects/{id}/synthesis-report`) in a real
//! browser: headless Chromium at a desktop and a phone width, the tenant's
//! credentials sent as headers by the browser itself (DevTools'
//! `Network.setExtraHTTPHeaders`), the page served by the real components
//! under its Content-Security-Policy. Screenshots go to
//! `target/browser-synthesis-*.png`. axe-core 4.14.1 (vendored in
//! tests/fixtures/axe-core, MPL-2.0; SHA-256 of axe.min.js
//! 29348999450cdf2849a8e70b7912fc2da85a849da39c0d0d5394f51d4a9ed95c) finds no
//! WCAG 2.2 AA violation.

use e2e::corpus::{self, Corpus, MOVE_ON};
use e2e::sessions::*;
use e2e::webdriver::{Browser, BrowserOptions};
use e2e::*;
use serde_json::{json, Value};
use std::time::Duration;

const WAIT: Duration = Duration::from_secs(10);

/// A project of `languages` with the planted corpus answered in its first language.
fn reported_project(app: &TestApp, tenant: &TenantCredentials, languages: Value) -> String {
    let corpus = Corpus::read("checkout");
    let questions = corpus.research_questions();
    let project = active_project(
        app,
        tenant,
        json!({"research_questions": questions, "interview_length": 10, "interview_languages": languages, "project_name": "Checkout <study> & trust"}),
    );
    let language = languages[0].as_str().unwrap();
    for i in 0..20 {
        corpus::replay(app, &project, language, &corpus.answers(i), MOVE_ON);
    }
    // A participant's markup is text on the page, never markup.
    corpus::replay(app, &project, language, &[vec!["<script>alert('x')</script> The shipping costs <b>hurt</b>.".into()]], MOVE_ON);
    // The answers' meanings, which the maintenance run gives seconds after each interview ends.
    app.settled_synthesis(tenant, &project);
    project
}

/// Opens the report as the tenant: the browser sends the two headers itself.
fn open_report(options: BrowserOptions, app: &TestApp, tenant: &TenantCredentials, project: &str) -> Browser {
    let browser = Browser::start_with(options);
    browser.cdp("Network.enable", json!({}));
    browser.cdp(
        "Network.setExtraHTTPHeaders",
        json!({"headers": {"X-Api-Key": tenant.api_key, "X-Tenant-Id": tenant.tenant_id}}),
    );
    browser.goto(&app.url(&format!("/v1/projects/{project}/synthesis-report")));
    browser.wait_for("main .theme", WAIT);
    browser
}

/// axe-core's WCAG 2.2 AA violations of the page (A and AA rules of 2.0, 2.1, 2.2).
fn axe_violations(browser: &Browser) -> Vec<Value> {
    let axe = std::fs::read_to_string(workspace_root().join("tests/fixtures/axe-core/axe.min.js")).unwrap();
    browser.execute(&format!("{axe}\n;return typeof axe.run"), vec![]);
    let result = browser.execute_async(
        "const done = arguments[arguments.length - 1];
         axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'] } })
           .then(r => done(r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.target) }))))
           .catch(e => done([{ id: 'axe-error', help: String(e) }]));",
        vec![],
    );
    result.as_array().unwrap().clone()
}

fn save(browser: &Browser, name: &str) {
    browser.screenshot(&workspace_root().join("target").join(format!("browser-synthesis-{name}.png")));
}

#[test]
fn the_report_reads_well_on_desktop_and_phone_loads_nothing_and_passes_axe() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = reported_project(app, &tenant, json!(["en", "de"]));

    let response = app.get(&format!("/v1/projects/{project}/synthesis-report")).auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 200);
    let header = |name: &str| response.headers().get(name).map(|v| v.to_str().unwrap().to_string()).unwrap_or_default();
    assert_eq!(header("content-type"), "text/html; charset=utf-8");
    let policy = header("content-security-policy");
    assert!(policy.starts_with("default-src 'none'; style-src 'sha256-") && !policy.contains("script-src"), "{policy}");
    let html = response.text().unwrap();
    assert!(html.contains("Checkout &lt;study&gt; &amp; trust") && !html.contains("<script>"));

    for (options, name) in [(BrowserOptions::desktop(), "desktop"), (BrowserOptions::mobile(), "phone")] {
        let browser = open_report(options, app, &tenant, &project);
        assert_eq!(browser.title(), "Synthesis · Checkout <study> & trust");
        // The style sheet applied (its hash admitted it), no script ran, nothing was fetched.
        assert_eq!(browser.execute("return getComputedStyle(document.querySelector('.share')).fontWeight", vec![]), json!("600"));
        assert_eq!(browser.execute("return document.scripts.length", vec![]), json!(0));
        assert_eq!(browser.execute("return performance.getEntriesByType('resource').length", vec![]), json!(0));
        // Each question: its chart, its themes with shares and quotes.
        assert_eq!(browser.find_all("section.question").len(), 2);
        assert_eq!(browser.find_all("figure.chart svg[role=img]").len(), 2);
        let text = browser.page_text();
        assert!(text.contains("shipping costs") && text.contains("of 21 interviews"), "{text}");
        // Nothing wider than the screen.
        let overflow = browser.execute("return document.documentElement.scrollWidth - window.innerWidth", vec![]);
        assert!(overflow.as_i64().unwrap() <= 0, "{name}: the page is {overflow} px wider than the screen");
        save(&browser, name);
        let violations = axe_violations(&browser);
        assert!(violations.is_empty(), "{name}: WCAG 2.2 AA violations: {violations:#?}");
    }
}

#[test]
fn an_arabic_project_gets_a_right_to_left_report_in_arabic() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = reported_project(app, &tenant, json!(["ar", "en"]));
    let browser = open_report(BrowserOptions::desktop(), app, &tenant, &project);
    assert_eq!(browser.execute("return [document.documentElement.lang, document.documentElement.dir]", vec![]), json!(["ar", "rtl"]));
    assert_eq!(browser.find("h1").text(), "الخلاصة");
    // The bars start at the right: the first bar's right edge is the track's (to a pixel's rounding), its left edge within.
    let edges = browser.execute(
        "const bar = document.querySelector('svg .bar').getBoundingClientRect();
         const track = document.querySelector('svg .track').getBoundingClientRect();
         return [bar.left, bar.right, track.left, track.right]",
        vec![],
    );
    let edge = |i: usize| edges[i].as_f64().unwrap();
    assert!((edge(1) - edge(3)).abs() <= 1.0 && edge(0) > edge(2) + 1.0, "{edges}");
    // Participants' words in English keep their direction but align with the page: a theme's label and
    // its first quote end at the right, as its count does.
    let rights = browser.execute(
        "const right = el => { const r = document.createRange(); r.selectNodeContents(el); return r.getBoundingClientRect().right; };
         const theme = document.querySelector('.theme');
         const quote = theme.querySelector('blockquote p');
         return [theme.querySelector('h3').textContent, right(theme.querySelector('h3')), right(theme.querySelector('.share')),
                 right(quote), quote.getBoundingClientRect().right]",
        vec![],
    );
    let right = |i: usize| rights[i].as_f64().unwrap();
    assert!(rights[0].as_str().unwrap().is_ascii(), "an English label: {rights}");
    assert!((right(1) - right(2)).abs() <= 1.0 && (right(3) - right(4)).abs() <= 1.0, "{rights}");
    save(&browser, "arabic");
    let violations = axe_violations(&browser);
    assert!(violations.is_empty(), "WCAG 2.2 AA violations: {violations:#?}");
}
