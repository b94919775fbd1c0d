//! An `https://` address on loopback for a page to send the browser to, and
//! the proof that the browser went there.
//!
//! The interviewee page ends by sending the browser to the project's
//! `redirect_url`, which the API requires to start with `https://`; the tests
//! have no internet. The choice, tried with ChromeDriver 156:
//!
//! * Point `redirect_url` at `https://127.0.0.1:<port>/<path>`, where `<port>`
//!   is a plain TCP listener of the test's ([`HttpsLanding`]). It reads the
//!   first bytes of each connection, counts the ones that are a TLS ClientHello
//!   (record type 0x16, version 0x03xx) and closes the connection. Chromium
//!   shows its "This site can't be reached" page (`ERR_CONNECTION_RESET`), and
//!   WebDriver's current URL is then the URL it tried, path and query included
//!   (ChromeDriver reports the navigation's URL, not `chrome-error://chromewebdata/`).
//! * That is proof enough: a page on `http://127.0.0.1:<app port>` cannot make its
//!   own URL read `https://127.0.0.1:<other port>/...` without navigating
//!   (`history.pushState` refuses other origins), and the counted ClientHello
//!   shows that the browser really connected to that port and spoke TLS to it.
//!   [`HttpsLanding::wait_for_arrival`] checks both and returns the URL, so a
//!   test can assert the path and the query string the page added.
//! * Rejected: serving a real page over HTTPS needs a certificate (a generator
//!   crate such as rcgen, or a committed key), a TLS server in the test and
//!   `--ignore-certificate-errors`, which would also hide certificate problems
//!   elsewhere; it adds compile time and proves nothing more about where the
//!   page sent the browser. A closed port would work as well, but another
//!   process could take it; the listener keeps its port for the test.

use super::Browser;
use std::io::Read;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A loopback port that stands for an `https://` site (see the module docs).
pub struct HttpsLanding {
    addr: SocketAddr,
    hellos: Arc<AtomicUsize>,
    connections: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl HttpsLanding {
    pub fn start() -> HttpsLanding {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port for the https landing");
        let addr = listener.local_addr().unwrap();
        let hellos = Arc::new(AtomicUsize::new(0));
        let connections = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let (hellos, connections, stop) = (hellos.clone(), connections.clone(), stop.clone());
            std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(mut stream) = stream else { continue };
                    connections.fetch_add(1, Ordering::SeqCst);
                    let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
                    let mut header = [0u8; 3];
                    if stream.read_exact(&mut header).is_ok() && header[0] == 0x16 && header[1] == 0x03 {
                        hellos.fetch_add(1, Ordering::SeqCst);
                    }
                    // Dropping the stream resets the connection: the browser shows its error page.
                }
            })
        };
        HttpsLanding { addr, hellos, connections, stop, thread: Some(thread) }
    }

    /// `https://127.0.0.1:<port>`, without a trailing slash.
    pub fn origin(&self) -> String {
        format!("https://{}", self.addr)
    }

    /// The landing's URL for a path (with its query, if any): `url("/done?x=1")`.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin())
    }

    /// How many TLS ClientHellos arrived (Chromium retries, so often several per visit).
    pub fn tls_hellos(&self) -> usize {
        self.hellos.load(Ordering::SeqCst)
    }

    /// How many connections arrived, TLS or not.
    pub fn connections(&self) -> usize {
        self.connections.load(Ordering::SeqCst)
    }

    /// Waits until the browser's current URL is on this landing and a TLS
    /// ClientHello arrived; returns the full URL (path and query) it went to.
    /// Panics with the page's state on timeout.
    pub fn wait_for_arrival(&self, browser: &Browser, timeout: Duration) -> String {
        let prefix = format!("{}/", self.origin());
        let arrived = browser.poll(timeout, || {
            let url = browser.try_command("GET", "/url", None).map_err(|e| e.to_string())?;
            let url = url.as_str().unwrap_or_default().to_string();
            if !url.starts_with(&prefix) {
                return Err(format!("the browser is at {url}"));
            }
            if self.tls_hellos() == 0 {
                return Err(format!(
                    "the browser reports {url} but no TLS ClientHello arrived ({} connection(s))",
                    self.connections()
                ));
            }
            Ok(url)
        });
        arrived.unwrap_or_else(|last| {
            panic!(
                "timed out after {timeout:?} waiting for the browser to land on {prefix}; last: {last}\n{}",
                browser.describe()
            )
        })
    }
}

impl Drop for HttpsLanding {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wake the accept loop so that it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_secs(1));
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
