//! The interviewee's page in Chromium when things go wrong (issue 26): a
//! reload in the middle of a recording, a slow and dropping connection, and
//! the page's own script and styles as cached static assets under its CSP.
//! Chromium's fake devices are the microphone (a beep), DevTools' network
//! emulation the bad connection; the exported recordings are read with
//! Debian's ffprobe and ffmpeg (`e2e::media`).

use e2e::interview_page::{answer_to_the_end, fetched_assets, stage, start_interview, throttle};
use e2e::sessions::{active_project, database};
use e2e::webdriver::Browser;
use e2e::{json_of, Authenticated, TenantCredentials, TestApp};
use serde_json::json;
use std::time::{Duration, Instant};

const WAIT: Duration = Duration::from_secs(15);

const ANSWERS: [&str; 3] = [
    "We visited three daycares and chose the one closest to my office, mostly for the commute.",
    "No, nothing else. Thank you!",
    "Nothing more to add.",
];

/// A new app with an active talking-mode project of one question, never
/// probed: two answers (to the question and to the wrap-up) end the interview;
/// no redirect, no logo (whose default is on another host). The app, its
/// tenant, the project's id and its production link.
fn talking_project() -> (TestApp, TenantCredentials, String, String) {
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let project_id = active_project(
        &app,
        &tenant,
        json!({
            "interview_modes": ["talking"],
            "research_questions": "How did you choose your current daycare?",
            "specific_guidelines": "Do not probe.",
            "redirect_url": null,
            "logo_url": null,
        }),
    );
    let (status, url) = json_of(app.get(&format!("/v1/projects/{project_id}/url?environment=production")).auth(&tenant).send().unwrap());
    assert_eq!(status, 200, "{url}");
    let link = url["url"].as_str().unwrap().to_string();
    (app, tenant, project_id, link)
}

fn interview_of(app: &TestApp, project_id: &str) -> String {
    database(app).query_row("SELECT interview_id FROM interviews WHERE project_id = ?", [project_id], |r| r.get(0)).unwrap()
}

/// The audio recording as stored: `(chunks, segment)`, the segment being how
/// many recorders after the first the server has spliced in.
fn recording(app: &TestApp, interview_id: &str) -> (i64, i64) {
    database(app)
        .query_row(
            "SELECT chunk_count, COALESCE(json_extract(splicer, '$.segment'), 0) FROM recordings WHERE interview_id = ? AND kind = 'audio'",
            [interview_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap_or((0, 0))
}

#[track_caller]
fn wait_for_recording(browser: &Browser, app: &TestApp, interview_id: &str, wait: Duration, done: impl Fn((i64, i64)) -> bool) {
    browser
        .poll(wait, || {
            let stored = recording(app, interview_id);
            if done(stored) { Ok(()) } else { Err(format!("recording as stored (chunks, segment): {stored:?}")) }
        })
        .unwrap_or_else(|e| panic!("{e}\n{}", browser.describe()));
}

fn audio_export(app: &TestApp, tenant: &TenantCredentials, interview_id: &str) -> Vec<u8> {
    let response = app.get(&format!("/v1/interviews/{interview_id}/audio-export")).auth(tenant).send().unwrap();
    assert_eq!(response.status(), 200);
    response.bytes().unwrap().to_vec()
}

/// Finishes from the finish step and waits for the thanks.
#[track_caller]
fn finish(browser: &Browser, wait: Duration) {
    browser.find("#finish-button").click();
    browser.wait_until("document.body.dataset.stage === 'thanks'", wait);
}

#[test]
fn a_recording_survives_a_reload_and_exports_as_one_file_that_plays_both_parts() {
    let (app, tenant, project_id, link) = talking_project();
    let browser = Browser::start();
    browser.goto(&link);
    start_interview(&browser, WAIT);
    assert!(browser.find("#recording-indicator").is_displayed(), "{}", browser.describe());
    let interview_id = interview_of(&app, &project_id);

    // The first recorder: two chunks of a few seconds each, then the reload.
    wait_for_recording(&browser, &app, &interview_id, WAIT, |(chunks, _)| chunks >= 2);
    let first = e2e::media::probe(&audio_export(&app, &tenant, &interview_id), "webm");
    assert!(first.end_seconds > 3.0, "{first:?}");
    let assets_before = fetched_assets(&browser);
    browser.refresh();

    // The page resumes the session with a new recorder, which the server
    // splices in as the recording's second segment.
    browser.wait_until("document.body.dataset.stage === 'conversation'", WAIT);
    browser.wait_for("#recording-indicator:not([hidden])", WAIT);
    let resumed = Instant::now();
    wait_for_recording(&browser, &app, &interview_id, WAIT, |(_, segment)| segment == 1);
    // The assets came from the browser's cache: content-hashed names, immutable for a year.
    let assets_after = fetched_assets(&browser);
    assert_eq!(assets_after.len(), assets_before.len(), "{assets_after:?}");
    assert!(assets_after.iter().all(|(_, bytes)| *bytes == 0), "fetched again after a reload: {assets_after:?}");

    answer_to_the_end(&browser, &ANSWERS, WAIT, |_| {});
    let second_part = resumed.elapsed().as_secs_f64();
    finish(&browser, WAIT);
    let (chunks, segment) = recording(&app, &interview_id);
    assert_eq!(segment, 1, "one reload, one more segment");
    let exported = audio_export(&app, &tenant, &interview_id);
    assert_eq!(exported.windows(4).filter(|w| *w == [0x1A, 0x45, 0xDF, 0xA3]).count(), 1, "one header, not two");
    let played = e2e::media::probe(&exported, "webm");
    assert_eq!((played.format.as_str(), played.codecs.as_slice()), ("matroska,webm", ["opus".to_string()].as_slice()), "{played:?}");
    assert_eq!(played.decode_errors, "", "it decodes to the end without an error");
    // Both parts: what was stored before the reload and (less the second
    // recorder's start-up) everything recorded after it.
    assert!(
        played.end_seconds >= first.end_seconds + second_part - 1.5,
        "{} s played of {} s before the reload and {second_part:.1} s after ({chunks} chunks)",
        played.end_seconds,
        first.end_seconds,
    );
    // The one refusal: the new recorder's chunk 0, answered with the index to go on at.
    let errors = browser.console_errors();
    assert!(errors.iter().all(|e| e.message.contains("/recordings/audio/0 ") && e.message.contains("409")), "{errors:?}");
}

#[test]
fn an_interview_completes_on_a_slow_connection_that_drops() {
    let (app, tenant, project_id, link) = talking_project();
    let browser = Browser::start();
    // A poor mobile connection: 400 ms each way, 48 KB/s down, 16 KB/s up (the
    // recording takes 8 KB/s). The page and its 70 KB of assets load through it.
    let slow = Duration::from_millis(400);
    throttle(&browser, slow, 48 * 1024, 16 * 1024, false);
    let wait = Duration::from_secs(60);
    let loading = Instant::now();
    browser.goto(&link);
    assert!(loading.elapsed() > Duration::from_millis(800), "throttled: {:?}", loading.elapsed());
    start_interview(&browser, wait);
    let interview_id = interview_of(&app, &project_id);
    wait_for_recording(&browser, &app, &interview_id, wait, |(chunks, _)| chunks >= 1);

    // The connection drops for longer than the upload queue may lag (30 s):
    // the recorder pauses and the page says why, then that it has caught up.
    throttle(&browser, slow, 48 * 1024, 16 * 1024, true);
    browser.wait_for("#recording-status[data-state='upload_behind']", Duration::from_secs(45));
    let notice = browser.find("#recording-status").text();
    assert!(notice.starts_with("Your connection cannot keep up"), "{notice}");
    assert_eq!(browser.execute("return document.body.dataset.stage", vec![]), json!("conversation"), "the interview goes on");
    throttle(&browser, slow, 48 * 1024, 16 * 1024, false);
    browser.wait_for("#recording-status[data-state='upload_caught_up']", wait);

    answer_to_the_end(&browser, &ANSWERS, wait, |_| {});
    finish(&browser, wait);
    assert_eq!(stage(&browser), "thanks");
    let state: String =
        database(&app).query_row("SELECT state FROM interviews WHERE interview_id = ?", [&interview_id], |r| r.get(0)).unwrap();
    assert_eq!(state, "completed");
    let played = e2e::media::probe(&audio_export(&app, &tenant, &interview_id), "webm");
    assert_eq!(played.decode_errors, "", "the paused recording is still one file: {played:?}");
    // Only the offline requests failed; nothing was refused by the page's CSP.
    let errors = browser.console_errors();
    assert!(errors.iter().all(|e| e.message.contains("ERR_INTERNET_DISCONNECTED")), "{errors:?}");
}

#[test]
fn the_page_loads_its_hashed_assets_under_its_csp() {
    let (app, _, _, link) = talking_project();
    let page = app.get(&link.replace(&app.url(""), "")).send().unwrap();
    let csp = page.headers()["content-security-policy"].to_str().unwrap().to_string();
    assert!(csp.contains("script-src 'nonce-") && !csp.contains("unsafe-inline"), "{csp}");
    assert_eq!(page.headers()["cache-control"], "no-store");

    let browser = Browser::start();
    browser.goto(&link);
    browser.wait_until("document.body.dataset.stage === 'welcome'", WAIT);
    let assets = fetched_assets(&browser);
    let names: Vec<&str> = assets.iter().map(|(path, _)| path.rsplit('/').next().unwrap()).collect();
    for module in ["interview", "page", "transport", "recorder", "speech", "conversation", "survey", "screeners"] {
        let hashed = names.iter().find(|name| name.starts_with(&format!("{module}.")) && name.ends_with(".js"));
        let hashed = hashed.unwrap_or_else(|| panic!("{module}.js not loaded: {names:?}"));
        assert_eq!(hashed.len(), module.len() + 1 + 16 + 3, "<stem>.<16 hex digits>.js: {hashed}");
    }
    assert!(names.iter().any(|name| name.starts_with("interview.") && name.ends_with(".css")), "{names:?}");
    // Styled (the sheet applied) and scripted (the modules ran), with no CSP report.
    let hidden = browser.execute("return getComputedStyle(document.getElementById('conversation')).display", vec![]);
    assert_eq!(hidden, json!("none"));
    assert!(browser.console_errors().is_empty(), "{:?}", browser.console_errors());

    for (path, _) in &assets {
        let response = app.get(path).send().unwrap();
        assert_eq!(response.status(), 200, "{path}");
        assert_eq!(response.headers()["cache-control"], "public, max-age=31536000, immutable", "{path}");
    }
    for stale in ["/i/assets/interview.js", "/i/assets/interview.0123456789abcdef.js"] {
        assert_eq!(app.get(stale).send().unwrap().status(), 404, "only the current hashed names are served: {stale}");
    }
}
