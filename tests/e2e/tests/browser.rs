//! Tests in a real browser: headless Chromium driven through ChromeDriver
//! (`e2e::webdriver`). `make test` installs both (scripts/setup-browser.sh);
//! without them these tests fail, saying so, rather than skip.
//!
//! The helpers at the top are shared by the tests of this file: starting the
//! browser, saving screenshots under `target/`, a tiny static web server, and
//! the `https://` landing that stands for a project's `redirect_url`.

use e2e::interview_page::answer_to_the_end;
use e2e::webdriver::{keys, Browser, BrowserOptions, HttpsLanding};
use serde_json::json;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

// ---- shared helpers ----------------------------------------------------------

const WAIT: Duration = Duration::from_secs(10);

/// Saves a screenshot as `target/browser-<name>.png` and returns its path.
fn save_screenshot(browser: &Browser, name: &str) -> PathBuf {
    let path = e2e::workspace_root().join("target").join(format!("browser-{name}.png"));
    browser.screenshot(&path);
    path
}

/// A minimal HTTP/1.1 server on loopback for fixed pages: `GET <path>` answers
/// the registered body, anything else 404. One short-lived thread per request.
struct StaticSite {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl StaticSite {
    /// `pages`: path (without query) -> (content type, body).
    fn start(pages: HashMap<String, (String, String)>) -> StaticSite {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let pages = Arc::new(pages);
        let stopped = stop.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if stopped.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                let pages = pages.clone();
                std::thread::spawn(move || serve(stream, &pages));
            }
        });
        StaticSite { addr, stop }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

fn serve(mut stream: TcpStream, pages: &HashMap<String, (String, String)>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    if reader.read_line(&mut request_line).is_err() {
        return;
    }
    // Skip the headers (no request of these pages has a body).
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
        line.clear();
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split('?').next().unwrap_or("/");
    let (status, content_type, body) = match pages.get(path) {
        Some((content_type, body)) => ("200 OK", content_type.as_str(), body.as_str()),
        None => ("404 Not Found", "text/plain", "not found"),
    };
    let _ = write!(
        stream,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

impl Drop for StaticSite {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
    }
}

fn html(body: String) -> (String, String) {
    ("text/html; charset=utf-8".to_string(), body)
}

// ---- the infrastructure itself -----------------------------------------------

/// A page with a form that appends what is typed to a list, and a link whose
/// script sends the browser on to `landing` (as the interviewee page does with
/// the project's `redirect_url`).
fn smoke_page(landing: &str) -> String {
    format!(
        r#"<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Browser smoke</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<style>
  body {{ font-family: sans-serif; margin: 2rem; background: #f6f7fb; color: #1d2433; }}
  form {{ display: flex; gap: .5rem; }}
  input {{ font-size: 1.1rem; padding: .4rem; flex: 1; max-width: 24rem; }}
  button {{ font-size: 1.1rem; padding: .4rem 1rem; }}
  li {{ padding: .3rem; font-size: 1.2rem; }}
</style></head>
<body>
  <h1>Browser smoke test</h1>
  <form id="say"><input id="message" autocomplete="off" placeholder="Say something"><button id="send">Add</button></form>
  <ul id="said"></ul>
  <p><a id="finish" href="{landing}">Finish</a></p>
  <script>
    const input = document.getElementById('message');
    document.getElementById('say').addEventListener('submit', event => {{
      event.preventDefault();
      const item = document.createElement('li');
      item.textContent = input.value;
      document.getElementById('said').appendChild(item);
      console.info('added: ' + input.value);
      input.value = '';
    }});
    document.getElementById('finish').addEventListener('click', event => {{
      event.preventDefault();
      setTimeout(() => {{ window.location.href = event.target.href; }}, 50);
    }});
  </script>
</body></html>"#
    )
}

#[test]
fn chromium_types_clicks_screenshots_and_lands_on_the_https_redirect() {
    let landing = HttpsLanding::start();
    let landing_url = landing.url("/done?interview=smoke&status=completed");
    let site = StaticSite::start(HashMap::from([("/".to_string(), html(smoke_page(&landing_url)))]));
    let browser = Browser::start();

    browser.goto(&site.url("/"));
    assert_eq!(browser.title(), "Browser smoke");
    assert_eq!(browser.current_url(), site.url("/"));

    // Typing, then Enter submits the form.
    let input = browser.wait_for("#message", WAIT);
    input.send_keys(&format!("hello from the browser{}", keys::ENTER));
    browser.wait_for_text("#said li", "hello from the browser", WAIT);
    assert_eq!(input.value(), "", "the page empties the input after adding");

    // Typing, then a click on the button.
    input.send_keys("a second line");
    browser.find("#send").click();
    let second = browser.wait_for_text("#said li", "a second line", WAIT);
    assert_eq!(second.tag_name(), "li");
    let items: Vec<String> = browser.find_all("#said li").iter().map(|li| li.text()).collect();
    assert_eq!(items, ["hello from the browser", "a second line"]);
    assert_eq!(browser.wait_until("document.querySelectorAll('#said li').length", WAIT), json!(2));
    assert!(browser.try_find("#nothing-like-this").is_none());
    assert_eq!(browser.find("#message").attribute("placeholder").as_deref(), Some("Say something"));
    assert_eq!(browser.execute("return arguments[0] + arguments[1]", vec![json!(40), json!(2)]), json!(42));

    // The page's console reaches the test (for printing JS errors on failure).
    let console = browser.console_log();
    assert!(
        console.iter().any(|entry| entry.message.contains("added: hello from the browser")),
        "console: {console:?}"
    );
    assert!(browser.console_errors().is_empty(), "console: {console:?}");

    // The window can be resized on the fly, e.g. to a phone's width.
    assert_eq!(browser.viewport().0, 1280);
    browser.set_window_size(600, 800);
    browser.wait_until("window.innerWidth === 600", WAIT);
    browser.set_window_size(1280, 900);

    let shot = save_screenshot(&browser, "smoke");
    let png = std::fs::read(&shot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 2000, "{} is not a PNG of the page", shot.display());

    // The page's script sends the browser to the https landing.
    browser.find("#finish").click();
    let landed = landing.wait_for_arrival(&browser, WAIT);
    assert_eq!(landed, landing_url);
    assert!(landing.tls_hellos() >= 1);
}

#[test]
fn mobile_chromium_has_a_phone_viewport_and_a_fake_microphone() {
    let site = StaticSite::start(HashMap::from([(
        "/".to_string(),
        html("<!doctype html><meta name=viewport content='width=device-width'><link rel=icon href='data:,'><title>Mobile</title><p>Phone</p>".into()),
    )]));
    let browser = Browser::start_with(BrowserOptions::mobile());
    browser.goto(&site.url("/"));

    assert_eq!(browser.viewport(), (390, 844));
    let agent = browser.execute("return navigator.userAgent", vec![]);
    assert!(agent.as_str().is_some_and(|a| a.contains("Mobile")), "user agent: {agent}");
    assert_eq!(browser.execute("return 'ontouchstart' in window", vec![]), json!(true));

    // getUserMedia answers at once with Chromium's fake devices (no prompt):
    // what the interviewee page needs for its voice mode.
    let tracks = browser.execute_async(
        "const done = arguments[arguments.length - 1];
         navigator.mediaDevices.getUserMedia({ audio: true, video: true })
           .then(stream => done({ audio: stream.getAudioTracks().length, video: stream.getVideoTracks().length }))
           .catch(error => done({ error: String(error) }));",
        vec![],
    );
    assert_eq!(tracks, json!({ "audio": 1, "video": 1 }));
    assert!(browser.console_errors().is_empty(), "console: {:?}", browser.console_log());
}

// ---- the interview page ------------------------------------------------------

#[test]
fn an_interviewee_types_an_interview_to_the_end_and_lands_on_the_redirect() {
    use e2e::sessions::{active_project, database};
    use e2e::{json_of, Authenticated, TestApp};

    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let landing = HttpsLanding::start();
    let redirect = landing.url("/done?panel=42");
    let project_id = active_project(
        &app,
        &tenant,
        json!({"redirect_url": redirect, "logo_url": null, "primary_color": "#0B6E4F", "interview_languages": ["en", "fr"]}),
    );
    let (_, url) = json_of(app.get(&format!("/v1/projects/{project_id}/url?environment=production")).auth(&tenant).send().unwrap());
    let link = format!("{}?email=ada%40example.com&external_metadata%5Bplan%5D=pro&external_metadata%5Bsource%5D=newsletter", url["url"].as_str().unwrap());

    let browser = Browser::start();
    browser.goto(&link);
    browser.wait_until("document.body.dataset.stage === 'welcome'", WAIT);
    browser.wait_for("#start", WAIT);
    assert_eq!(browser.execute("return document.documentElement.lang", vec![]), json!("en"));
    save_screenshot(&browser, "interview-start");
    browser.find("#start").click();
    browser.wait_until("document.body.dataset.stage === 'conversation'", WAIT);
    browser.wait_for("#transcript li.turn.interviewer", WAIT);
    let opening = browser.find("#transcript li.turn.interviewer .text").text();
    assert!(opening.starts_with("Hello, and thank you"), "{opening}");

    // The interviewer probes each answer while the question's budget lasts (10
    // minutes, 3 questions: 2 probes each); declining moves on.
    let answers = [
        "We visited three daycares and chose the one closest to my office, mostly for the commute.",
        "Last winter the bus strike made the trip to the other daycare take an hour.",
        "Honestly the staff: they were warm with our son and answered every question patiently.",
        "The director showed us the nap room and the garden before we even asked.",
        "I would have started earlier and asked other parents in the neighbourhood for advice.",
        "Our neighbour knew the waiting lists by heart.",
        "No, nothing else. Thank you!",
    ];
    let answered = answer_to_the_end(&browser, &answers, WAIT, |answered| {
        if answered == 2 {
            save_screenshot(&browser, "interview-conversation");
        }
    });
    browser.find("#opt-in").click();
    save_screenshot(&browser, "interview-finish");
    browser.find("#finish-button").click();
    browser.wait_until("document.body.dataset.stage === 'thanks' || !location.href.startsWith('http://')", WAIT);
    let arrived = landing.wait_for_arrival(&browser, WAIT);
    assert_eq!(arrived, redirect);
    assert!(browser.console_errors().iter().all(|e| e.message.contains(&landing.origin())), "{:?}", browser.console_errors());

    // The interview, read back through the API.
    let (status, listed) = json_of(
        app.get(&format!("/v1/interviews?project_id={project_id}&external_metadata%5Bplan%5D=pro")).auth(&tenant).send().unwrap(),
    );
    assert_eq!(status, 200);
    assert_eq!(listed["data"].as_array().unwrap().len(), 1, "{listed}");
    let interview_id = listed["data"][0]["interview_id"].as_str().unwrap().to_string();
    let (identifier, status, opt_in, metadata, responses): (String, String, i64, String, i64) = database(&app)
        .query_row(
            "SELECT identifier, state, opt_in_for_followup, external_metadata, response_count FROM interviews WHERE interview_id = ?",
            [&interview_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .unwrap();
    assert_eq!((identifier.as_str(), status.as_str(), opt_in), ("ada@example.com", "completed", 1));
    assert_eq!(metadata, r#"{"plan":"pro","source":"newsletter"}"#);
    assert_eq!(responses, answered as i64);
    let export = app.get(&format!("/v1/projects/{project_id}/interviews-export")).auth(&tenant).send().unwrap().text().unwrap();
    assert!(export.contains(answers[0]), "the export holds what was typed");
}

/// A 16x16 green PNG that browsers decode.
const GREEN_PNG: &[u8] = b"\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x10\x00\x00\x00\x10\x08\x02\x00\x00\x00\x90\x91\x68\x36\x00\x00\x00\x16\x49\x44\x41\x54\x78\xda\x63\xe0\xce\xf3\x27\x09\x31\x8c\x6a\x18\xd5\x30\x7c\x35\x00\x00\x10\xfe\xc8\x01\x9e\x14\xf2\xb7\x00\x00\x00\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

#[test]
fn an_interviewee_takes_a_survey_block_by_block_to_the_end() {
    use e2e::sessions::{act, create_project, project_body};
    use e2e::{json_of, Authenticated, Multipart, TestApp};

    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    let (content_type, body) =
        Multipart::new().text("mime_type", "image/png").text("purpose", "survey").file("file", "logo.png", "image/png", GREEN_PNG).finish();
    let (_, file) = json_of(app.post("/v1/files").auth(&tenant).header("content-type", content_type).body(body).send().unwrap());
    let file_id = file["file_id"].as_str().unwrap();
    let landing = HttpsLanding::start();
    let redirect = landing.url("/survey-done");
    let project_id = create_project(
        &app,
        &tenant,
        &project_body(json!({
            "project_type": "survey", "redirect_url": redirect, "logo_url": null,
            "survey_blocks": [
                {"block_id": "hello", "type": "statement", "prompt": "Welcome! Four quick questions."},
                {"block_id": "why", "type": "open_question", "prompt": "Why did you choose us?", "ai_follow_up": true},
                {"block_id": "plan", "type": "single_choice", "prompt": "Which plan do you use?", "options": ["Free", "Pro", "Team"]},
                {"block_id": "tools", "type": "multiple_choice", "prompt": "Which tools, if any?", "options": ["Email", "Chat"], "required": false},
                {"block_id": "logo", "type": "rating", "prompt": "How much do you like our new logo?", "media": {"file_id": file_id}}
            ]
        })),
    );
    act(&app, &tenant, &project_id, "activate");

    let browser = Browser::start();
    browser.goto(&app.url(&format!("/i/{project_id}")));
    browser.wait_for("#start", WAIT).click();
    browser.wait_until("document.body.dataset.stage === 'conversation'", WAIT);
    let mut seen = Vec::new();
    loop {
        browser.wait_until(
            "document.body.dataset.stage !== 'conversation' || (!document.getElementById('conversation').classList.contains('sending') \
             && document.getElementById('survey-block') && !document.getElementById('survey-block').hidden)",
            WAIT,
        );
        if browser.execute("return document.body.dataset.stage", vec![]) != json!("conversation") {
            break;
        }
        let block = browser.find("#survey-block");
        let step = (block.attribute("data-block-id").unwrap_or_default(), block.attribute("data-follow-up").unwrap_or_default());
        assert!(!seen.contains(&step), "the page showed {step:?} twice:\n{}", browser.describe());
        seen.push(step.clone());
        match block.attribute("data-block-type").as_deref() {
            Some("statement") => browser.find("#block-continue").click(),
            Some("open_question") => {
                browser.find("#answer").send_keys("Mostly the price, and a friend recommended you to me last spring.");
                browser.find("#send").click();
            }
            Some("single_choice") => {
                browser.find("input[name='block-option'][value='Pro']").click();
                browser.find("#block-submit").click();
            }
            Some("multiple_choice") => browser.find("#block-skip").click(),
            Some("rating") => {
                let media = browser.wait_for("#block-media img", WAIT);
                browser.wait_until("document.querySelector('#block-media img').naturalWidth === 16", WAIT);
                assert!(media.attribute("src").unwrap().ends_with(&format!("/i/{project_id}/media/{file_id}")));
                save_screenshot(&browser, "survey-rating");
                browser.find("input[name='block-option'][value='4']").click();
                browser.find("#block-submit").click();
            }
            other => panic!("unexpected block type {other:?}:\n{}", browser.describe()),
        }
        // The next step: another block, or the end of the survey.
        let previous = step;
        browser
            .poll(WAIT, || {
                let stage = browser.execute("return document.body.dataset.stage", vec![]);
                let now = browser.try_find("#survey-block").map(|b| {
                    (b.attribute("data-block-id").unwrap_or_default(), b.attribute("data-follow-up").unwrap_or_default())
                });
                if stage != json!("conversation") || now.as_ref() != Some(&previous) { Ok(()) } else { Err("waiting for the next block".to_string()) }
            })
            .unwrap_or_else(|e| panic!("{e}\n{}", browser.describe()));
    }
    let ids: Vec<&str> = seen.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, vec!["hello", "why", "why", "plan", "tools", "logo"], "the follow-up repeats its block: {seen:?}");
    browser.wait_until("document.body.dataset.stage === 'finish'", WAIT);
    save_screenshot(&browser, "survey-finish");
    browser.find("#finish-button").click();
    assert_eq!(landing.wait_for_arrival(&browser, WAIT), redirect);
    assert!(browser.console_errors().iter().all(|e| e.message.contains(&landing.origin())), "{:?}", browser.console_errors());

    let export = app.get(&format!("/v1/projects/{project_id}/interviews-export")).auth(&tenant).send().unwrap().text().unwrap();
    let row = export.lines().nth(1).unwrap_or_default().to_string();
    assert!(row.contains(",COMPLETED,false,") && row.contains(",SURVEY,"), "{row}");
    let (_, results) = json_of(app.get(&format!("/v1/projects/{project_id}/survey-results")).auth(&tenant).send().unwrap());
    let plan = results["blocks"].as_array().unwrap().iter().find(|b| b["block_id"] == "plan").unwrap().clone();
    assert_eq!(plan["options"][1], json!({"option": "Pro", "count": 1}));
}
