//! The cron trigger, like the `spin-trigger-cron` plugin: for each
//! `[[trigger.cron]]`, call the component's `handle-cron-event` in a fresh
//! instance on every tick of its `cron_expression` (six or seven fields,
//! seconds first, evaluated in UTC), passing the Unix time in seconds.
//! A tick does not wait for the previous run to finish (nor does the plugin).

use std::str::FromStr;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{anyhow, bail, Context, Result};
use chrono::Utc;
use tokio::sync::watch;
use tokio::task::JoinSet;

use crate::bindings::cron::fermyon::spin_cron::cron_types::{Error as CronError, Metadata};
use crate::server::App;
use crate::state::new_store;

/// Parses a cron expression the way the plugin accepts it: six or seven
/// whitespace-separated fields, seconds first.
pub fn parse_schedule(expr: &str) -> Result<cron::Schedule> {
    let fields = expr.split_whitespace().count();
    if !(6..=7).contains(&fields) {
        bail!("cron expression {expr:?} has {fields} fields; expected 6 or 7 (sec min hour day-of-month month day-of-week [year])");
    }
    cron::Schedule::from_str(expr).map_err(|e| anyhow!("invalid cron expression {expr:?}: {e}"))
}

/// Instantiates the component and calls `handle-cron-event` once.
/// `Err` if it trapped or returned an error.
pub async fn run_once(app: Arc<App>, component: &str) -> Result<()> {
    let loaded = app
        .components
        .get(component)
        .with_context(|| format!("no component {component:?} in this app"))?;
    let pre = loaded
        .cron
        .clone()
        .with_context(|| format!("component {component:?} has no cron trigger"))?;
    let timestamp = SystemTime::now().duration_since(UNIX_EPOCH)?.as_secs();
    let mut store = new_store(&loaded.info, &app.state)?;
    let instance = pre.instantiate_async(&mut store).await?;
    let result = instance
        .call_handle_cron_event(&mut store, Metadata { timestamp })
        .await
        .map_err(anyhow::Error::from)
        .context("cron handler trapped")?;
    result.map_err(|CronError::Other(msg)| anyhow!("Component {component} failed: {msg}"))
}

/// `run_once` with a log line, as scheduled runs report their outcome.
pub async fn run_logged(app: Arc<App>, component: String) -> Result<()> {
    let start = Instant::now();
    let result = run_once(app, &component).await;
    let ms = start.elapsed().as_millis();
    match &result {
        Ok(()) => eprintln!("cron {component} ok {ms}ms"),
        Err(e) => eprintln!("cron {component} failed {ms}ms: {e:#}"),
    }
    result
}

/// Fires `component` on `schedule` until shutdown, then waits (bounded) for
/// runs still in progress.
pub async fn schedule_loop(
    app: Arc<App>,
    component: String,
    schedule: cron::Schedule,
    mut shutdown: watch::Receiver<bool>,
) {
    let mut running = JoinSet::new();
    let mut last = Utc::now();
    loop {
        // `after(last)` never yields the tick just fired, even if the clock
        // reads slightly early; skip ticks missed while suspended.
        let now = Utc::now();
        let Some(next) = schedule
            .after(&last)
            .find(|t| *t > now - chrono::Duration::seconds(1))
        else {
            break;
        };
        let wait = (next - Utc::now()).to_std().unwrap_or(Duration::ZERO);
        tokio::select! {
            _ = tokio::time::sleep(wait) => {}
            _ = shutdown.wait_for(|stop| *stop) => break,
        }
        last = next;
        running.spawn(run_logged(app.clone(), component.clone()));
        // Reap finished runs so the set does not grow.
        while running.try_join_next().is_some() {}
    }
    let _ = tokio::time::timeout(crate::server::SHUTDOWN_GRACE, async {
        while running.join_next().await.is_some() {}
    })
    .await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_six_and_seven_fields() {
        let s = parse_schedule("*/5 * * * * *").unwrap();
        let mut it = s.upcoming(Utc);
        let a = it.next().unwrap();
        let b = it.next().unwrap();
        assert_eq!((b - a).num_seconds(), 5);
        assert_eq!(a.timestamp() % 5, 0);

        let s = parse_schedule("0 30 9 * * Mon-Fri 2099").unwrap();
        let next = s.upcoming(Utc).next().unwrap();
        assert_eq!(next.format("%H:%M:%S %Y").to_string(), "09:30:00 2099");

        let s = parse_schedule("0 0 * * * *").unwrap();
        let next = s.upcoming(Utc).next().unwrap();
        assert_eq!(next.timestamp() % 3600, 0);
    }

    #[test]
    fn rejects_bad_expressions() {
        for bad in [
            "",
            "* * * * *",
            "*/5 * * * * * * *",
            "61 * * * * *",
            "x * * * * *",
        ] {
            assert!(parse_schedule(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn after_skips_the_current_tick() {
        let s = parse_schedule("*/2 * * * * *").unwrap();
        let first = s.upcoming(Utc).next().unwrap();
        let second = s.after(&first).next().unwrap();
        assert_eq!((second - first).num_seconds(), 2);
    }
}
