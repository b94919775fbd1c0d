//! Component output where Spin 4 puts it, at what Spin pays for it.
//!
//! `spin up` logs each component's stdout and stderr to
//! `<log dir>/<component>_stdout.txt` and `_stderr.txt` (the log dir:
//! `--log-dir`, else the runtime config's `log_dir`, else `<state dir>/logs`),
//! and follows every component on its own stderr unless told otherwise. It
//! opens both files for appending when it prepares an instance, so every
//! request and every cron event pays two opens and their closes (and a
//! `mkdir` of the log dir, and a duplicate of each handle): the test host does
//! the same, since what a request costs is part of what it mirrors. An
//! empty log dir turns the files off (output goes to stderr only).

use std::fs::File;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use anyhow::{Context as _, Result};
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::AsyncStdoutStream;

/// Where component output is logged: `explicit` (`--log-dir`, or the runtime
/// config's `log_dir`), else `<state_dir>/logs`; `None` when that is empty.
/// Created if missing.
pub fn log_dir(explicit: Option<&Path>, state_dir: &Path) -> Result<Option<PathBuf>> {
    let dir = match explicit {
        Some(dir) if dir.as_os_str().is_empty() => return Ok(None),
        Some(dir) => std::path::absolute(dir)?,
        None => state_dir.join("logs"),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create log dir {}", dir.display()))?;
    Ok(Some(dir))
}

/// One instance's stdout and stderr, prepared as `spin up` prepares them (its
/// system calls traced): the log dir created if missing (a `mkdir` that finds
/// it, and a `stat`), then each file opened for appending and its handle
/// duplicated, the first one closed.
pub fn instance_output(log_dir: Option<&Path>, component: &str) -> Result<(AsyncStdoutStream, AsyncStdoutStream)> {
    if let Some(dir) = log_dir {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create log dir {}", dir.display()))?;
    }
    Ok((stream(log_dir, component, "stdout")?, stream(log_dir, component, "stderr")?))
}

/// One instance's stdout or stderr: its log file (opened now) and the host's stderr.
fn stream(log_dir: Option<&Path>, component: &str, name: &str) -> Result<AsyncStdoutStream> {
    let file = match log_dir {
        Some(dir) => {
            let path = dir.join(format!("{}_{name}.txt", file_name(component)));
            let opened = File::options()
                .create(true)
                .append(true)
                .open(&path)
                .with_context(|| format!("failed to open log file {}", path.display()))?;
            Some(opened.try_clone()?)
        }
        None => None,
    };
    Ok(AsyncStdoutStream::new(8192, Followed { file }))
}

/// A component id as a file name (ids are kebab-case, but a manifest is input).
fn file_name(component: &str) -> String {
    component
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .collect()
}

/// Writes to the log file, then to the host's stderr. Component output is a
/// few lines a request at most, so the writes are plain blocking ones.
struct Followed {
    file: Option<File>,
}

impl AsyncWrite for Followed {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let this = self.get_mut();
        if let Some(file) = &mut this.file {
            file.write_all(buf)?;
        }
        std::io::stderr().write_all(buf)?;
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("spin-host-stdio-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn the_log_dir_is_explicit_else_under_the_state_dir_and_empty_turns_it_off() {
        let (state, other) = (scratch("state"), scratch("other"));
        assert_eq!(log_dir(None, &state).unwrap(), Some(state.join("logs")));
        assert!(state.join("logs").is_dir());
        assert_eq!(log_dir(Some(&other), &state).unwrap(), Some(other.clone()));
        assert_eq!(log_dir(Some(Path::new("")), &state).unwrap(), None);
        for dir in [state, other] {
            let _ = std::fs::remove_dir_all(dir);
        }
    }

    #[test]
    fn each_instance_appends_to_its_components_file() {
        let dir = scratch("append");
        for line in ["first\n", "second\n"] {
            let file = File::options().create(true).append(true).open(dir.join("a_stdout.txt")).unwrap();
            let mut out = Followed { file: Some(file) };
            let written = Pin::new(&mut out).poll_write(&mut Context::from_waker(std::task::Waker::noop()), line.as_bytes());
            assert!(matches!(written, Poll::Ready(Ok(n)) if n == line.len()));
        }
        assert_eq!(std::fs::read_to_string(dir.join("a_stdout.txt")).unwrap(), "first\nsecond\n");
        assert_eq!(file_name("api/../x y"), "api____x_y");
        let _ = std::fs::remove_dir_all(dir);
    }
}
