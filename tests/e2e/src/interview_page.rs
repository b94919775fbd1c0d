//! The interviewee's page as the browser tests drive it (`webdriver`): what
//! it shows and an interviewee typing their way to the end of an interview.

use crate::webdriver::Browser;
use serde_json::json;
use std::time::Duration;

/// The interviewer messages the page shows.
pub fn interviewer_turns(browser: &Browser) -> usize {
    browser.find_all("#transcript li.turn.interviewer").len()
}

/// The page's stage (`welcome`, `conversation`, `finish`, `thanks`, ...).
pub fn stage(browser: &Browser) -> String {
    browser.execute("return document.body.dataset.stage", vec![]).as_str().unwrap_or_default().to_string()
}

/// Types answers, one after each interviewer message (the last one again
/// when they run out), until the page offers to finish; each reply is awaited
/// at most `wait`. Returns how many answers were sent.
#[track_caller]
pub fn answer_to_the_end(browser: &Browser, answers: &[&str], wait: Duration, mut after_each: impl FnMut(usize)) -> usize {
    let finish_shown = || browser.try_find("#finish").is_some_and(|f| f.is_displayed());
    let mut answered = 0;
    while !finish_shown() {
        assert!(answered < answers.len() + 3, "the interviewer should have closed by now:\n{}", browser.describe());
        let before = interviewer_turns(browser);
        let answer = browser.find("#answer");
        answer.click();
        answer.send_keys(answers[answered.min(answers.len() - 1)]);
        browser.find("#send").click();
        answered += 1;
        browser
            .poll(wait, || if interviewer_turns(browser) > before || finish_shown() { Ok(()) } else { Err(format!("waiting for reply {answered}")) })
            .unwrap_or_else(|e| panic!("{e}\n{}", browser.describe()));
        after_each(answered);
        if stage(browser) == "finish" {
            break;
        }
    }
    browser.wait_until("document.body.dataset.stage === 'finish'", wait);
    answered
}

/// Starts the interview from the welcome step (one mode offered, no screeners)
/// and waits for the interviewer's opening.
#[track_caller]
pub fn start_interview(browser: &Browser, wait: Duration) {
    browser.wait_until("document.body.dataset.stage === 'welcome'", wait);
    browser.find("#start").click();
    browser.wait_until("document.body.dataset.stage === 'conversation'", wait);
    browser.wait_for("#transcript li.turn.interviewer", wait);
}

/// The page's assets as the browser fetched them: `(url, bytes over the
/// network)` of every resource under `/i/assets/` (0 bytes: from its cache).
pub fn fetched_assets(browser: &Browser) -> Vec<(String, u64)> {
    let entries = browser.execute(
        "return performance.getEntriesByType('resource')
           .filter((e) => new URL(e.name).pathname.startsWith('/i/assets/'))
           .map((e) => [new URL(e.name).pathname, e.transferSize]);",
        vec![],
    );
    serde_json::from_value(entries).unwrap_or_default()
}

/// Chromium's network throttling (DevTools' `Network.emulateNetworkConditions`)
/// on this tab: `latency` added to every request, the throughputs in bytes a
/// second; `offline` fails every request as a lost connection would.
pub fn throttle(browser: &Browser, latency: Duration, download: u64, upload: u64, offline: bool) {
    browser.cdp("Network.enable", json!({}));
    browser.cdp(
        "Network.emulateNetworkConditions",
        json!({
            "offline": offline,
            "latency": latency.as_millis() as u64,
            "downloadThroughput": download,
            "uploadThroughput": upload,
        }),
    );
}
