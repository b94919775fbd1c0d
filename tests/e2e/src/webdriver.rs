//! A small W3C WebDriver client for the browser tests: it starts ChromeDriver
//! with headless Chromium (Debian's `chromium` and `chromium-driver`, installed by
//! `scripts/setup-browser.sh`, which `make test` runs) and drives pages through
//! ChromeDriver's HTTP API with the blocking `reqwest` client.
//!
//! ```no_run
//! use e2e::webdriver::{keys, Browser};
//! use std::time::Duration;
//!
//! let browser = Browser::start();
//! browser.goto("http://127.0.0.1:8080/");
//! browser.find("#message").send_keys(&format!("hello{}", keys::ENTER));
//! browser.wait_for_text("#list li", "hello", Duration::from_secs(5));
//! browser.screenshot(std::path::Path::new("target/page.png"));
//! ```
//!
//! Methods panic with a message that says what the page showed (URL, title,
//! text, console errors) and, for a timed-out wait, where a screenshot of it was
//! saved; the `try_` variants return `Result` or `Option` instead. Dropping the
//! [`Browser`] ends the session and kills ChromeDriver and Chromium, also when the
//! test panics; if the test process itself dies, a watchdog shell around
//! ChromeDriver kills the whole process group when the process's pipe to it
//! closes, so no browser outlives the tests (even one kept in a `static`).

mod element;
pub mod landing;

pub use element::Element;
pub use landing::HttpsLanding;

use reqwest::blocking::Client;
use serde_json::{json, Value};
use std::fmt;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

/// What a test waits for unless it says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// The key that W3C WebDriver uses for a DOM element reference.
const ELEMENT_KEY: &str = "element-6066-11e4-a52e-4f735466cecf";

/// Special keys for [`Element::send_keys`], e.g. `format!("hello{}", keys::ENTER)`.
pub mod keys {
    pub const BACKSPACE: &str = "\u{E003}";
    pub const TAB: &str = "\u{E004}";
    pub const ENTER: &str = "\u{E007}";
    pub const SHIFT: &str = "\u{E008}";
    pub const CONTROL: &str = "\u{E009}";
    pub const ESCAPE: &str = "\u{E00C}";
    pub const SPACE: &str = "\u{E00D}";
    pub const ARROW_LEFT: &str = "\u{E012}";
    pub const ARROW_UP: &str = "\u{E013}";
    pub const ARROW_RIGHT: &str = "\u{E014}";
    pub const ARROW_DOWN: &str = "\u{E015}";
    pub const DELETE: &str = "\u{E017}";
}

/// How the browser is started.
#[derive(Debug, Clone)]
pub struct BrowserOptions {
    /// Window size in CSS pixels (in headless Chromium also the viewport).
    pub window_size: (u32, u32),
    /// Emulate a phone (ChromeDriver's `mobileEmulation`: the window size as the
    /// device's screen, pixel ratio 3, touch, a mobile user agent).
    pub mobile: bool,
    /// Extra Chromium command-line switches, e.g. `--lang=de`.
    pub extra_args: Vec<String>,
}

impl Default for BrowserOptions {
    fn default() -> Self {
        BrowserOptions::desktop()
    }
}

impl BrowserOptions {
    /// A 1280x900 desktop window.
    pub fn desktop() -> BrowserOptions {
        BrowserOptions { window_size: (1280, 900), mobile: false, extra_args: Vec::new() }
    }

    /// A 390x844 phone (an iPhone-12-sized screen) with touch and a mobile user agent.
    pub fn mobile() -> BrowserOptions {
        BrowserOptions { window_size: (390, 844), mobile: true, extra_args: Vec::new() }
    }
}

/// A WebDriver command that failed: the command, the W3C error code (`no such
/// element`, `timeout`, ...) and ChromeDriver's message.
#[derive(Debug, Clone)]
pub struct WebDriverError {
    pub command: String,
    pub error: String,
    pub message: String,
}

impl fmt::Display for WebDriverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "WebDriver {}: {}: {}", self.command, self.error, self.message)
    }
}

impl std::error::Error for WebDriverError {}

/// One entry of the browser's console log (`console.log`/`error`, uncaught
/// exceptions, failed requests), as ChromeDriver reports it.
#[derive(Debug, Clone)]
pub struct LogEntry {
    /// `SEVERE`, `WARNING`, `INFO`, `DEBUG`.
    pub level: String,
    /// `console-api`, `javascript`, `network`, ...
    pub source: String,
    pub message: String,
    /// Milliseconds since the Unix epoch.
    pub timestamp: i64,
}

impl fmt::Display for LogEntry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{} {}] {}", self.level, self.source, self.message)
    }
}

/// A headless Chromium driven through its own ChromeDriver.
pub struct Browser {
    client: Client,
    base: String,
    session: String,
    /// The watchdog shell (the process group leader) and the pipe it watches.
    driver: Mutex<Option<(Child, ChildStdin)>>,
    /// Console entries read so far (ChromeDriver hands each out only once).
    console: Mutex<Vec<LogEntry>>,
    screenshots: AtomicUsize,
    work_dir: tempfile::TempDir,
}

/// `CHROMEDRIVER` or Debian's path.
pub fn chromedriver_path() -> PathBuf {
    std::env::var_os("CHROMEDRIVER").map(PathBuf::from).unwrap_or_else(|| "/usr/bin/chromedriver".into())
}

/// `CHROMIUM` or Debian's path.
pub fn chromium_path() -> PathBuf {
    std::env::var_os("CHROMIUM").map(PathBuf::from).unwrap_or_else(|| "/usr/bin/chromium".into())
}

fn setup_error(what: &str) -> WebDriverError {
    WebDriverError {
        command: "start".into(),
        error: "browser not installed".into(),
        message: format!(
            "{what}. The browser tests need Debian's chromium and chromium-driver: run `make test` \
             (its setup installs them) or scripts/setup-browser.sh, or point CHROMIUM and \
             CHROMEDRIVER at other binaries"
        ),
    }
}

impl Browser {
    /// A desktop-sized headless Chromium. Panics (never skips) when Chromium or
    /// ChromeDriver is missing, saying how to install them.
    #[track_caller]
    pub fn start() -> Browser {
        Browser::start_with(BrowserOptions::desktop())
    }

    #[track_caller]
    pub fn start_with(options: BrowserOptions) -> Browser {
        match Browser::try_start_with(options) {
            Ok(browser) => browser,
            Err(e) => panic!("{e}"),
        }
    }

    pub fn try_start_with(options: BrowserOptions) -> Result<Browser, WebDriverError> {
        let chromedriver = chromedriver_path();
        let chromium = chromium_path();
        if !is_executable(&chromedriver) {
            return Err(setup_error(&format!("ChromeDriver is missing ({})", chromedriver.display())));
        }
        if !is_executable(&chromium) {
            return Err(setup_error(&format!("Chromium is missing ({})", chromium.display())));
        }
        let work_dir =
            tempfile::Builder::new().prefix("e2e-browser-").tempdir().map_err(|e| start_error(e.to_string()))?;
        let log_path = work_dir.path().join("chromedriver.log");

        // The watchdog: ChromeDriver runs in the background of a shell that
        // waits for its stdin (a pipe from this process) to close, then kills
        // its process group: ChromeDriver and every Chromium process it started.
        let mut child = Command::new("/bin/sh")
            .arg("-c")
            .arg("\"$0\" \"$@\" & read -r _; kill -KILL 0")
            .arg(&chromedriver)
            .arg("--port=0")
            .arg(format!("--log-path={}", log_path.display()))
            .arg("--allowed-ips=127.0.0.1")
            .process_group(0)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| start_error(format!("cannot run {}: {e}", chromedriver.display())))?;
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let client = Client::builder()
            .no_proxy()
            .timeout(Duration::from_secs(90))
            .build()
            .map_err(|e| start_error(e.to_string()))?;
        let mut browser = Browser {
            client,
            base: String::new(),
            session: String::new(),
            driver: Mutex::new(Some((child, stdin))),
            console: Mutex::new(Vec::new()),
            screenshots: AtomicUsize::new(0),
            work_dir,
        };
        // From here on, dropping `browser` cleans up whatever was started.

        // ChromeDriver picks a free port itself (`--port=0`) and prints it.
        let (port_tx, port_rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut port_tx = Some(port_tx);
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Some(port) = line.split("started successfully on port ").nth(1) {
                    if let (Some(tx), Ok(port)) = (port_tx.take(), port.trim().trim_end_matches('.').parse::<u16>()) {
                        let _ = tx.send(port);
                    }
                }
            }
        });
        let port = port_rx
            .recv_timeout(Duration::from_secs(20))
            .map_err(|_| start_error(format!("ChromeDriver did not report its port{}", log_tail(&log_path))))?;
        browser.base = format!("http://127.0.0.1:{port}");

        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let ready = browser
                .client
                .get(format!("{}/status", browser.base))
                .timeout(Duration::from_secs(2))
                .send()
                .ok()
                .and_then(|r| r.json::<Value>().ok())
                .is_some_and(|v| v["value"]["ready"] == true);
            if ready {
                break;
            }
            if Instant::now() > deadline {
                return Err(start_error(format!("ChromeDriver did not become ready{}", log_tail(&log_path))));
            }
            std::thread::sleep(Duration::from_millis(50));
        }

        let profile = browser.work_dir.path().join("profile");
        let (width, height) = options.window_size;
        let mut args: Vec<String> = [
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-crash-reporter",
            "--password-store=basic",
            // Pages asking for the microphone or camera get fake devices, no prompt.
            "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream",
            // Audio (an interviewer's voice) may play without a user gesture.
            "--autoplay-policy=no-user-gesture-required",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        args.push(format!("--user-data-dir={}", profile.display()));
        args.push(format!("--window-size={width},{height}"));
        args.extend(options.extra_args.iter().cloned());
        let mut chrome_options = json!({ "binary": chromium.to_string_lossy(), "args": args });
        if options.mobile {
            chrome_options["mobileEmulation"] = json!({
                "deviceMetrics": { "width": width, "height": height, "pixelRatio": 3.0, "touch": true, "mobile": true },
                "userAgent": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 \
                              (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36",
            });
        }
        let capabilities = json!({ "capabilities": { "alwaysMatch": {
            "browserName": "chrome",
            "pageLoadStrategy": "normal",
            "timeouts": { "implicit": 0, "pageLoad": 30_000, "script": 30_000 },
            "goog:chromeOptions": chrome_options,
            "goog:loggingPrefs": { "browser": "ALL" },
        }}});
        let created = browser
            .request("POST", "/session", Some(capabilities))
            .map_err(|e| start_error(format!("{e}{}", log_tail(&log_path))))?;
        browser.session = created["sessionId"]
            .as_str()
            .ok_or_else(|| start_error(format!("no session id in {created}")))?
            .to_string();
        Ok(browser)
    }

    /// The W3C session id.
    pub fn session_id(&self) -> &str {
        &self.session
    }

    /// A W3C command on this session, e.g. `("GET", "/window/rect", None)`; the
    /// `value` of the answer.
    pub fn try_command(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, WebDriverError> {
        self.request(method, &format!("/session/{}{path}", self.session), body)
    }

    /// [`Browser::try_command`] that panics with the error and the page's state.
    #[track_caller]
    pub fn command(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        self.ok(self.try_command(method, path, body))
    }

    /// A Chrome DevTools Protocol command (ChromeDriver's `goog/cdp/execute`),
    /// e.g. `cdp("Emulation.setGeolocationOverride", json!({...}))`.
    #[track_caller]
    pub fn cdp(&self, cmd: &str, params: Value) -> Value {
        self.command("POST", "/goog/cdp/execute", Some(json!({ "cmd": cmd, "params": params })))
    }

    fn request(&self, method: &str, path: &str, body: Option<Value>) -> Result<Value, WebDriverError> {
        let command = format!("{method} {path}");
        let fail =
            |error: &str, message: String| WebDriverError { command: command.clone(), error: error.into(), message };
        let url = format!("{}{path}", self.base);
        let builder = match method {
            "GET" => self.client.get(url),
            "POST" => self.client.post(url).json(&body.unwrap_or_else(|| json!({}))),
            "DELETE" => self.client.delete(url),
            other => return Err(fail("invalid method", other.to_string())),
        };
        let response = builder.send().map_err(|e| fail("no answer from ChromeDriver", e.to_string()))?;
        let status = response.status();
        let text = response.text().map_err(|e| fail("unreadable answer", e.to_string()))?;
        let answer: Value =
            serde_json::from_str(&text).map_err(|_| fail("answer is not JSON", format!("{status}: {text}")))?;
        let value = answer.get("value").cloned().unwrap_or(Value::Null);
        if status.is_success() {
            return Ok(value);
        }
        let error = value["error"].as_str().unwrap_or("unknown error").to_string();
        let message = value["message"].as_str().map(str::to_string).unwrap_or_else(|| format!("{status}: {text}"));
        Err(fail(&error, message))
    }

    /// The value, or a panic with the error and a description of the page.
    #[track_caller]
    fn ok<T, E: fmt::Display>(&self, result: Result<T, E>) -> T {
        match result {
            Ok(value) => value,
            Err(e) => self.fail(&e.to_string()),
        }
    }

    /// Panics with `message` and a description of the page.
    #[track_caller]
    fn fail(&self, message: &str) -> ! {
        panic!("{message}\n{}", self.describe())
    }

    // ---- navigation ------------------------------------------------------

    /// Opens `url` and waits for its load event.
    #[track_caller]
    pub fn goto(&self, url: &str) {
        self.ok(self.try_goto(url))
    }

    /// [`Browser::goto`] returning the error, e.g. `net::ERR_CONNECTION_REFUSED`.
    pub fn try_goto(&self, url: &str) -> Result<(), WebDriverError> {
        self.try_command("POST", "/url", Some(json!({ "url": url }))).map(drop)
    }

    /// The URL of the current page. For a page that could not be loaded (an
    /// unreachable host) this is still the URL the browser went to, not
    /// Chromium's error page: see [`HttpsLanding`].
    #[track_caller]
    pub fn current_url(&self) -> String {
        as_string(self.command("GET", "/url", None))
    }

    #[track_caller]
    pub fn title(&self) -> String {
        as_string(self.command("GET", "/title", None))
    }

    /// The serialised DOM of the current page.
    #[track_caller]
    pub fn source(&self) -> String {
        as_string(self.command("GET", "/source", None))
    }

    /// The rendered text of the page (`document.body.innerText`).
    #[track_caller]
    pub fn page_text(&self) -> String {
        as_string(self.execute("return document.body ? document.body.innerText : ''", vec![]))
    }

    #[track_caller]
    pub fn back(&self) {
        self.command("POST", "/back", None);
    }

    #[track_caller]
    pub fn refresh(&self) {
        self.command("POST", "/refresh", None);
    }

    // ---- elements ----------------------------------------------------------

    /// The first element matching the CSS selector; panics when there is none.
    #[track_caller]
    pub fn find(&self, css: &str) -> Element<'_> {
        match self.try_find(css) {
            Some(element) => element,
            None => self.fail(&format!("no element matches `{css}`")),
        }
    }

    /// The first element matching the CSS selector, if any.
    #[track_caller]
    pub fn try_find(&self, css: &str) -> Option<Element<'_>> {
        match self.try_command("POST", "/element", Some(json!({ "using": "css selector", "value": css }))) {
            Ok(value) => Some(self.element(&value)),
            Err(e) if e.error == "no such element" => None,
            Err(e) => self.fail(&e.to_string()),
        }
    }

    /// Every element matching the CSS selector, in document order.
    #[track_caller]
    pub fn find_all(&self, css: &str) -> Vec<Element<'_>> {
        self.ok(self.try_find_all(css))
    }

    pub fn try_find_all(&self, css: &str) -> Result<Vec<Element<'_>>, WebDriverError> {
        let value = self.try_command("POST", "/elements", Some(json!({ "using": "css selector", "value": css })))?;
        Ok(value.as_array().map(|items| items.iter().map(|v| self.element(v)).collect()).unwrap_or_default())
    }

    /// The element that a script returned (or a `find` answer).
    #[track_caller]
    pub fn element(&self, reference: &Value) -> Element<'_> {
        let Some(id) = reference[ELEMENT_KEY].as_str() else {
            self.fail(&format!("not an element reference: {reference}"))
        };
        Element { browser: self, id: id.to_string() }
    }

    /// The element that has the focus.
    #[track_caller]
    pub fn active_element(&self) -> Element<'_> {
        let value = self.command("GET", "/element/active", None);
        self.element(&value)
    }

    // ---- waiting -------------------------------------------------------------

    /// Waits until an element matching the CSS selector is displayed.
    #[track_caller]
    pub fn wait_for(&self, css: &str, timeout: Duration) -> Element<'_> {
        let found = self.poll(timeout, || {
            let elements = self.try_find_all(css).map_err(|e| e.to_string())?;
            let count = elements.len();
            match elements.into_iter().find(|e| e.try_is_displayed().unwrap_or(false)) {
                Some(element) => Ok(element),
                None if count == 0 => Err(format!("no element matches `{css}`")),
                _ => Err(format!("{count} element(s) match `{css}`, none is displayed")),
            }
        });
        match found {
            Ok(value) => value,
            Err(last) => self.timed_out(&format!("a displayed element matching `{css}`"), timeout, &last),
        }
    }

    /// Waits until an element matching the CSS selector shows `text` (a
    /// substring of its rendered text) and returns that element.
    #[track_caller]
    pub fn wait_for_text(&self, css: &str, text: &str, timeout: Duration) -> Element<'_> {
        let script = "const [css, text] = arguments; \
            return Array.from(document.querySelectorAll(css)).find(e => (e.innerText || e.textContent || '').includes(text)) || null;";
        let found = self.poll(timeout, || match self.try_execute(script, vec![json!(css), json!(text)]) {
            Ok(Value::Null) => Err(format!("no element matching `{css}` shows {text:?}")),
            Ok(value) => Ok(self.element(&value)),
            Err(e) => Err(e.to_string()),
        });
        match found {
            Ok(value) => value,
            Err(last) => self.timed_out(&format!("`{css}` showing {text:?}"), timeout, &last),
        }
    }

    /// Waits until the JavaScript expression is truthy and returns its value,
    /// e.g. `wait_until("document.querySelectorAll('li').length >= 2", ...)`.
    /// Exceptions count as "not yet" (the last one is reported on timeout).
    #[track_caller]
    pub fn wait_until(&self, js_expression: &str, timeout: Duration) -> Value {
        let script = format!("return ({js_expression});");
        let found = self.poll(timeout, || match self.try_execute(&script, vec![]) {
            Ok(value) if truthy(&value) => Ok(value),
            Ok(value) => Err(format!("the expression is {value}")),
            Err(e) => Err(e.to_string()),
        });
        match found {
            Ok(value) => value,
            Err(last) => self.timed_out(&format!("`{js_expression}`"), timeout, &last),
        }
    }

    /// Waits until the current URL satisfies `accept` and returns it.
    #[track_caller]
    pub fn wait_for_url(&self, accept: impl Fn(&str) -> bool, timeout: Duration) -> String {
        let found = self.poll(timeout, || {
            let url = self.try_command("GET", "/url", None).map(as_string).map_err(|e| e.to_string())?;
            if accept(&url) {
                Ok(url)
            } else {
                Err(format!("the URL is {url}"))
            }
        });
        match found {
            Ok(value) => value,
            Err(last) => self.timed_out("the expected URL", timeout, &last),
        }
    }

    /// Calls `attempt` every 100 ms until it gives `Ok` or `timeout` passes;
    /// then the last `Err`.
    pub fn poll<T>(&self, timeout: Duration, mut attempt: impl FnMut() -> Result<T, String>) -> Result<T, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let last = match attempt() {
                Ok(value) => return Ok(value),
                Err(last) => last,
            };
            if Instant::now() >= deadline {
                return Err(last);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    #[track_caller]
    fn timed_out(&self, what: &str, timeout: Duration, last: &str) -> ! {
        let shot = self.failure_screenshot();
        self.fail(&format!("timed out after {timeout:?} waiting for {what}; last: {last}{shot}"))
    }

    // ---- scripts ---------------------------------------------------------------

    /// Runs a synchronous script (a function body: `return ...`, the arguments
    /// in `arguments`) and returns its result. Elements go in with
    /// [`Element::to_arg`] and come out as references for [`Browser::element`].
    #[track_caller]
    pub fn execute(&self, script: &str, args: Vec<Value>) -> Value {
        self.ok(self.try_execute(script, args))
    }

    pub fn try_execute(&self, script: &str, args: Vec<Value>) -> Result<Value, WebDriverError> {
        self.try_command("POST", "/execute/sync", Some(json!({ "script": script, "args": args })))
    }

    /// Runs an asynchronous script: it finishes by calling its last argument,
    /// e.g. `fetch(u).then(r => r.status).then(arguments[arguments.length - 1])`.
    #[track_caller]
    pub fn execute_async(&self, script: &str, args: Vec<Value>) -> Value {
        self.command("POST", "/execute/async", Some(json!({ "script": script, "args": args })))
    }

    // ---- window, screenshots, dialogs, console -----------------------------------

    #[track_caller]
    pub fn set_window_size(&self, width: u32, height: u32) {
        self.command("POST", "/window/rect", Some(json!({ "width": width, "height": height })));
    }

    /// The page's viewport as the page sees it: `(innerWidth, innerHeight)`.
    #[track_caller]
    pub fn viewport(&self) -> (u64, u64) {
        let v = self.execute("return [window.innerWidth, window.innerHeight]", vec![]);
        (v[0].as_u64().unwrap_or(0), v[1].as_u64().unwrap_or(0))
    }

    /// A PNG of the viewport.
    #[track_caller]
    pub fn screenshot_png(&self) -> Vec<u8> {
        let data = self.command("GET", "/screenshot", None);
        self.ok(decode_png(&data))
    }

    /// Saves a PNG of the viewport at `path`, creating its directory.
    #[track_caller]
    pub fn screenshot(&self, path: &Path) {
        let png = self.screenshot_png();
        self.ok(write_file(path, &png));
    }

    /// Saves a screenshot under `target/browser-failures/` and says where (best effort).
    fn failure_screenshot(&self) -> String {
        let n = self.screenshots.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}-{n}.png", &self.session.chars().take(8).collect::<String>());
        let path = crate::workspace_root().join("target/browser-failures").join(name);
        let saved = self
            .try_command("GET", "/screenshot", None)
            .map_err(|e| e.to_string())
            .and_then(|v| decode_png(&v))
            .and_then(|png| write_file(&path, &png));
        match saved {
            Ok(()) => format!("\nscreenshot: {}", path.display()),
            Err(e) => format!("\n(no screenshot: {e})"),
        }
    }

    /// The text of an open `alert`/`confirm`/`prompt`, if one is open.
    pub fn alert_text(&self) -> Option<String> {
        self.try_command("GET", "/alert/text", None).ok().map(as_string)
    }

    #[track_caller]
    pub fn accept_alert(&self) {
        self.command("POST", "/alert/accept", None);
    }

    #[track_caller]
    pub fn dismiss_alert(&self) {
        self.command("POST", "/alert/dismiss", None);
    }

    /// Every console entry of the session so far (messages, uncaught
    /// exceptions, failed resource loads), oldest first.
    pub fn console_log(&self) -> Vec<LogEntry> {
        self.read_console();
        self.console.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The `SEVERE` console entries: JavaScript errors and failed loads.
    pub fn console_errors(&self) -> Vec<LogEntry> {
        self.console_log().into_iter().filter(|e| e.level == "SEVERE").collect()
    }

    fn read_console(&self) {
        let Ok(Value::Array(entries)) = self.try_command("POST", "/se/log", Some(json!({ "type": "browser" }))) else {
            return;
        };
        let mut console = self.console.lock().unwrap_or_else(|e| e.into_inner());
        console.extend(entries.iter().map(|e| LogEntry {
            level: e["level"].as_str().unwrap_or("").to_string(),
            source: e["source"].as_str().unwrap_or("").to_string(),
            message: e["message"].as_str().unwrap_or("").to_string(),
            timestamp: e["timestamp"].as_i64().unwrap_or(0),
        }));
    }

    /// What the page shows, for failure messages: URL, title, the start of its
    /// text and the console entries (never panics).
    pub fn describe(&self) -> String {
        let url = self.try_command("GET", "/url", None).map(as_string).unwrap_or_else(|e| format!("? ({e})"));
        let title = self.try_command("GET", "/title", None).map(as_string).unwrap_or_default();
        let text = self
            .try_execute("return document.body ? document.body.innerText : ''", vec![])
            .map(as_string)
            .unwrap_or_default();
        let mut text: String = text.chars().take(1500).collect();
        if text.is_empty() {
            text = "(none)".into();
        }
        self.read_console();
        let console = self.console.lock().unwrap_or_else(|e| e.into_inner());
        let console = if console.is_empty() {
            "(empty)".to_string()
        } else {
            console.iter().rev().take(20).rev().map(|e| format!("\n  {e}")).collect()
        };
        format!("page: {url}\ntitle: {title:?}\ntext:\n{text}\nconsole: {console}")
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        if !self.session.is_empty() && !self.base.is_empty() {
            // Closes Chromium cleanly; a short timeout so a hung browser cannot hang the test.
            let _ = self
                .client
                .delete(format!("{}/session/{}", self.base, self.session))
                .timeout(Duration::from_secs(5))
                .send();
        }
        let driver = self.driver.get_mut().unwrap_or_else(|e| e.into_inner()).take();
        if let Some((mut child, stdin)) = driver {
            // Closing the pipe makes the watchdog kill the process group.
            drop(stdin);
            let deadline = Instant::now() + Duration::from_secs(5);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// JavaScript truthiness of a script result.
fn truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

fn as_string(value: Value) -> String {
    match value {
        Value::String(s) => s,
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn decode_png(value: &Value) -> Result<Vec<u8>, String> {
    use base64::Engine as _;
    let data = value.as_str().ok_or_else(|| format!("the screenshot is not a string: {value}"))?;
    base64::engine::general_purpose::STANDARD.decode(data).map_err(|e| format!("the screenshot is not base64: {e}"))
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<(), String> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

fn start_error(message: String) -> WebDriverError {
    WebDriverError { command: "start".into(), error: "session not created".into(), message }
}

/// The end of ChromeDriver's log, for start-up failures.
fn log_tail(log: &Path) -> String {
    let Ok(text) = std::fs::read_to_string(log) else { return String::new() };
    let lines: Vec<&str> = text.lines().collect();
    let tail: Vec<String> =
        lines[lines.len().saturating_sub(25)..].iter().map(|l| l.chars().take(400).collect()).collect();
    format!("\nChromeDriver log (last lines):\n{}", tail.join("\n"))
}
