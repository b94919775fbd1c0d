//! The maintenance run (docs/deploy.md): ends the interviews idle for too long,
//! erases those past their project's retention, assesses for the synthesis
//! the interviews that ended before it existed, gives ended interviews'
//! sentences their meanings (sentence vectors), writes the syntheses due with
//! a language model (when one is configured), sends the webhook deliveries
//! that are due, then completes erasures (the key-value entries left to delete,
//! and a WAL checkpoint after any erasure: docs/interviews.md, "Erasure"). The cron component calls it
//! every few seconds where Spin's cron trigger runs; elsewhere an external
//! scheduler calls `POST /v1/maintenance/run`. Runs may overlap (the cron and
//! the route, or two schedulers): deliveries are leased before they are sent,
//! so each attempt goes out once, and ending an interview is a guarded update.

use storage::Db;
use files_core as files;
use interviews_core as interviews;
use platform::outbound;
use sessions_core as sessions;
use platform::time;
use webhooks_core::dispatch::{self, DispatchConfig, Job, Outcome};
use webhooks_core::signing::Transition;
use serde::Serialize;
use std::time::{Duration, Instant, SystemTime};

/// What one run did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Report {
    /// Interviews ended for inactivity.
    pub ended_interviews: usize,
    /// Interviews erased because their project's retention had passed.
    pub erased_interviews: usize,
    /// Ended interviews assessed for the synthesis: those that ended before
    /// its quality signals existed.
    pub assessed_interviews: usize,
    /// Ended interviews' answers to a question whose sentences were given
    /// their meanings (sentence vectors) for the synthesis.
    pub embedded_answers: usize,
    /// Projects whose synthesis a language model wrote (none without one).
    pub syntheses_written: usize,
    pub deliveries: DeliveryCounts,
}

/// Webhook deliveries attempted by one run, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DeliveryCounts {
    pub attempted: usize,
    pub delivered: usize,
    /// Failed, with a retry scheduled.
    pub retrying: usize,
    /// Failed for good (no retry left, or the subscription is gone).
    pub failed: usize,
}

/// The variable that turns on `GET /v1/maintenance/tick` and says how often
/// it may start a run: at most once per this many seconds, across every
/// instance and node (empty: the route is off).
pub use pipeline::TICK_VARIABLE;

/// One maintenance run if none started within `min_interval` (by anyone:
/// the start is one upsert on a shared row, which only one caller wins), else
/// nothing. A caller without credentials (an edge scheduler that can send no
/// header) can so only make due work happen, never more often than this.
pub fn run_if_due(db: &Db, now: SystemTime, min_interval: Duration, encoder: &mut dyn synthesis::units::Encoder) -> Result<Option<Report>, String> {
    let now_ms = time::unix_millis(now);
    let won = db
        .query(
            "INSERT INTO maintenance_runs (id, started_ms) VALUES (1, ?1)
             ON CONFLICT (id) DO UPDATE SET started_ms = excluded.started_ms WHERE started_ms <= ?2
             RETURNING started_ms",
            &[storage::SqlValue::Integer(now_ms), storage::SqlValue::Integer(now_ms - min_interval.as_millis() as i64)],
        )
        .map_err(|error| format!("starting a run: {error:?}"))?;
    if won.rows.is_empty() {
        return Ok(None);
    }
    run(db, now, encoder).map(Some)
}

/// One maintenance run, sentences given their meanings by `encoder` (the
/// model where the component can load it, else the static table). A failure
/// of one part is reported after the others ran.
pub fn run(db: &Db, now: SystemTime, encoder: &mut dyn synthesis::units::Encoder) -> Result<Report, String> {
    let mut report = Report::default();
    let mut problems = Vec::new();
    match sessions::end_idle(db, now) {
        Ok(ended) => report.ended_interviews = ended,
        Err(error) => problems.push(format!("ending idle interviews: {error:?}")),
    }
    match interviews::erasure::erase_expired(db, now) {
        Ok(erased) => report.erased_interviews = erased,
        Err(error) => problems.push(format!("erasing interviews past retention: {error:?}")),
    }
    // Interviews that ended before quality signals existed join the synthesis.
    match synthesis::assess_unassessed(db) {
        Ok(assessed) => report.assessed_interviews = assessed,
        Err(error) => problems.push(format!("assessing interviews for the synthesis: {error:?}")),
    }
    // With a model: the syntheses that interviews ended (or erased) since made due.
    match synthesis::model::run_queue(db, &platform::llm::LlmConfig::from_variables(), now) {
        Ok(written) => report.syntheses_written = written,
        Err(error) => problems.push(format!("writing syntheses with the model: {error:?}")),
    }
    match deliver(db, now) {
        Ok(counts) => report.deliveries = counts,
        Err(error) => problems.push(error),
    }
    // Ended interviews' sentences get their meanings, off the request that
    // ended them; after the deliveries, which their budget of seconds would delay.
    match synthesis::embed_pending(db, encoder) {
        Ok(embedded) => report.embedded_answers = embedded,
        Err(error) => problems.push(format!("giving sentences their meanings for the synthesis: {error:?}")),
    }
    let current_window = platform::rate_limit::Window::containing(time::unix_seconds(now)).start;
    if let Err(error) = db.gatekeeper().forget_rate_limit_windows_before(current_window) {
        problems.push(format!("forgetting finished rate-limit windows: {error:?}"));
    }
    // Last: after this run's own erasures, and with no delivery still writing.
    if let Err(error) = interviews::erasure::complete_erasures(db, files::open_store) {
        problems.push(format!("completing erasures: {error:?}"));
    }
    if let Err(error) = db.forget_receipts(now) {
        problems.push(format!("forgetting old receipts of transactions: {error:?}"));
    }
    if problems.is_empty() {
        Ok(report)
    } else {
        Err(problems.join("; "))
    }
}

/// Leases the due deliveries, sends them all at once (each signed, redirects not
/// followed, within the receiver timeout), and records every attempt.
fn deliver(db: &Db, now: SystemTime) -> Result<DeliveryCounts, String> {
    let config = DispatchConfig::from_variables();
    if config.lease_ms <= config.timeout_ms {
        eprintln!(
            "maintenance: webhook_lease_seconds should exceed webhook_timeout_seconds, \
             or a slow attempt can be sent twice by overlapping runs"
        );
    }
    let owner = uuid::Uuid::new_v4().to_string();
    let jobs = dispatch::claim(db, &config, &owner, now).map_err(|e| format!("claiming deliveries: {e:?}"))?;
    let mut counts = DeliveryCounts { attempted: jobs.len(), ..DeliveryCounts::default() };
    if jobs.is_empty() {
        return Ok(counts);
    }
    let outcomes = send_all(&jobs, &config);
    let mut problems = Vec::new();
    for (job, outcome) in jobs.iter().zip(outcomes) {
        match dispatch::record(db, &config, job, &owner, &outcome) {
            Ok(Transition::Delivered) => counts.delivered += 1,
            Ok(Transition::Retry { .. }) => counts.retrying += 1,
            Ok(Transition::Failed) => counts.failed += 1,
            // Left leased: it is sent again once the lease expires.
            Err(error) => problems.push(format!("recording delivery {}: {error:?}", job.delivery_id)),
        }
    }
    if problems.is_empty() {
        Ok(counts)
    } else {
        Err(problems.join("; "))
    }
}

/// Sends every job's request at once and waits for all answers, bounded by the
/// receiver timeout; one outcome per job, in order.
fn send_all(jobs: &[Job], config: &DispatchConfig) -> Vec<Outcome> {
    let started_at = time::now();
    let started = Instant::now();
    let timeout = Duration::from_millis(config.timeout_ms);
    let prepared: Vec<_> = jobs.iter().map(|job| dispatch::prepare(job, config.policy, started_at)).collect();
    let requests = prepared
        .iter()
        .map(|request| {
            let request = request.as_ref().map_err(|reason| outbound::OutboundError::InvalidUrl(reason.clone()))?;
            let headers: Vec<(&str, &str)> = request.headers.iter().map(|(n, v)| (n.as_str(), v.as_str())).collect();
            outbound::start("POST", request.url.as_str(), &headers, &request.body, timeout)
        })
        .collect();
    let answers = outbound::statuses(requests, timeout);
    prepared
        .iter()
        .zip(answers)
        .map(|(request, answer)| {
            let (status, error) = match (request, answer) {
                (Err(reason), _) => (None, Some(reason.clone())),
                (Ok(_), Ok(status)) => (Some(status), None),
                (Ok(_), Err(error)) => (None, Some(error.to_string())),
            };
            Outcome {
                status,
                error,
                started_at,
                duration_ms: started.elapsed().as_millis() as u64,
                timestamp: request.as_ref().ok().map(|r| r.timestamp),
            }
        })
        .collect()
}
