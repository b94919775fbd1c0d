//! The README and `docs/*.md` run as a newcomer runs them (issue 15): every
//! block tagged `run` is executed, in order, in one `bash` session against the
//! test host, and what it prints must match the `output` block after it (`...`
//! standing for ids, times and other text that differs between runs). A doc
//! example that breaks breaks the build. See `e2e::markdown` for the tags.
//!
//! The host runs as `make up` serves it (the default rate limits, the cron
//! dispatcher) with `webhook_allow_insecure_targets`, as the README asks for its
//! local webhook receiver. The examples' fixed addresses are rewritten to the
//! test's: the API's `http://127.0.0.1:3000` and the receiver's port 8000.

use e2e::markdown::{self, Block};
use e2e::*;
use std::io::Read;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one document's examples may take (the README waits for webhook
/// deliveries, a few seconds each).
const DOCUMENT_DEADLINE: Duration = Duration::from_secs(180);
const MARKER: &str = "@@@@ example ";

fn read(document: &str) -> String {
    std::fs::read_to_string(workspace_root().join(document)).unwrap()
}

/// What the other documents build on: the README's quickstart steps marked
/// `setup` (`BASE`, `AUTH`, ...) and its files (`receiver.py`).
fn readme_setup() -> Vec<Block> {
    markdown::blocks(&read("README.md"))
        .into_iter()
        .filter(|b| b.has_tag("run") && b.has_tag("setup") || b.file_name().is_some())
        .collect()
}

/// A host like `make up`'s, and a working directory like the repository's: the
/// quickstart reads the development partnership key from `.spin/`.
fn start_host(workdir: &Path) -> TestApp {
    let state = workdir.join(".spin");
    std::fs::create_dir_all(&state).unwrap();
    let app = TestApp::start_configured(
        &state,
        &[
            ("rate_limit_per_minute", "50"),
            ("project_create_rate_limit_per_minute", "10"),
            ("webhook_allow_insecure_targets", "true"),
        ],
        |config| config.enable_cron = true,
    );
    std::fs::write(state.join("dev-partner-key"), format!("{}\n", app.partner_key)).unwrap();
    std::fs::write(state.join("dev-partner-tenant-id"), format!("{PARTNER_TENANT_ID}\n")).unwrap();
    app
}

/// Runs `document`'s examples after `prelude` and checks each printed output.
fn run_document(document: &str, prelude: &[Block]) {
    let workdir = tempfile::tempdir().unwrap();
    let app = start_host(workdir.path());
    let blocks = markdown::blocks(&read(document));
    let receiver_port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port().to_string();
    let localize = |text: &str| {
        text.replace("http://127.0.0.1:3000", &app.host.base_url())
            .replace("127.0.0.1:8000", &format!("127.0.0.1:{receiver_port}"))
            .replace("PORT=8000", &format!("PORT={receiver_port}"))
    };

    for block in prelude.iter().chain(&blocks) {
        if let Some(name) = block.file_name() {
            std::fs::write(workdir.path().join(name), &block.text).unwrap();
        }
    }
    // Each example with the output block that follows it, if any.
    let mut examples: Vec<(&Block, Option<&Block>)> = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if block.has_tag("run") {
            let next = blocks.get(index + 1).filter(|b| b.has_tag("output"));
            examples.push((block, next));
        }
    }
    assert!(!examples.is_empty(), "{document} has no example to run");

    let mut script = String::from("set -euo pipefail\n");
    for block in prelude.iter().filter(|b| b.has_tag("run")) {
        script.push_str(&localize(&block.text));
    }
    for (index, (block, _)) in examples.iter().enumerate() {
        script.push_str(&format!("printf '\\n{MARKER}{index}\\n'\n"));
        script.push_str(&localize(&block.text));
    }
    script.push_str(&format!("printf '\\n{MARKER}end\\n'\n"));

    let (status, stdout, stderr) = run_bash(&script, workdir.path());
    // What each example printed, up to the next marker: an example whose next
    // marker is missing stopped the script (`set -e`).
    let printed: Vec<&str> = stdout
        .split(&format!("\n{MARKER}"))
        .skip(1)
        .map(|segment| segment.split_once('\n').map_or("", |(_, text)| text))
        .collect();
    for (index, (block, expected)) in examples.iter().enumerate() {
        let Some(output) = printed.get(index).filter(|_| index + 1 < printed.len()) else {
            panic!(
                "{document}:{}: the example failed (bash exited with {status})\n{}--- printed ---\n{}\n--- stderr ---\n{stderr}",
                block.line,
                block.text,
                printed.get(index).unwrap_or(&"(it did not start: an earlier example failed)"),
            );
        };
        if let Some(expected) = expected {
            assert!(
                markdown::matches(&localize(&expected.text), output),
                "{document}:{}: the example prints something else than the document shows\n{}\
                 --- shown ({document}:{}) ---\n{}--- printed ---\n{output}\n--- stderr ---\n{stderr}",
                block.line,
                block.text,
                expected.line,
                expected.text
            );
        }
    }
    assert!(status.success(), "{document}: bash exited with {status}\n--- stderr ---\n{stderr}");
}

/// Runs `script` with `bash` in its own process group, which is killed when it
/// ends (examples start background processes, such as the webhook receiver).
fn run_bash(script: &str, workdir: &Path) -> (std::process::ExitStatus, String, String) {
    let mut child = Command::new("bash")
        .arg("-c")
        .arg(script)
        .current_dir(workdir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("bash runs");
    let group = child.id();
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let err = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let deadline = Instant::now() + DOCUMENT_DEADLINE;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            kill_group(group);
            panic!("the examples ran longer than {DOCUMENT_DEADLINE:?}:\n{}", err.join().unwrap());
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    kill_group(group);
    (status, out.join().unwrap(), err.join().unwrap())
}

fn kill_group(group: u32) {
    let _ = Command::new("kill").args(["-KILL", "--", &format!("-{group}")]).stderr(Stdio::null()).status();
}

#[test]
fn the_readme_quickstart_runs_as_written() {
    run_document("README.md", &[]);
}

#[test]
fn the_webhooks_guide_runs_as_written() {
    run_document("docs/webhooks.md", &readme_setup());
}

#[test]
fn the_files_guide_runs_as_written() {
    run_document("docs/files.md", &readme_setup());
}

#[test]
fn the_interviews_guide_runs_as_written() {
    run_document("docs/interviews.md", &readme_setup());
}

#[test]
fn the_sessions_guide_runs_as_written() {
    run_document("docs/sessions.md", &readme_setup());
}

#[test]
fn the_surveys_guide_runs_as_written() {
    run_document("docs/surveys.md", &readme_setup());
}

#[test]
fn the_synthesis_guide_runs_as_written() {
    run_document("docs/synthesis.md", &readme_setup());
}

#[test]
fn the_projects_guide_runs_as_written() {
    run_document("docs/projects.md", &readme_setup());
}
