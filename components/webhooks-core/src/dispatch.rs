//! The dispatcher's side of deliveries: claim due ones under a lease, build
//! each signed request, record each attempt. Sending is the component's job.
//!
//! A run leases a batch with ONE `UPDATE ... RETURNING` (overlapping runs get
//! disjoint batches), sends, then records each attempt in one transaction:
//! the delivery moves on and its lease is released, the attempt is logged,
//! and the subscription's health follows a delivery that finished. A lease is
//! taken at `leased_at` and counts as expired `lease_ms` later; a run that
//! died between sending and recording leaves its rows leased until then,
//! after which they are sent again with the same `X-Event-ID`: at least once,
//! never lost.

use super::signing::{after_attempt, random_u64, sign, RetrySchedule, Transition};
use super::store::{self, AttemptRecord};
use super::target::{TargetPolicy, TargetUrl};
pub use super::Job;
use super::{DeliveryStatus, SubscriptionStatus};
use storage::Db;
use platform::error::ApiResult;
use platform::time;
use std::time::SystemTime;

/// Dispatcher settings (Spin variables).
#[derive(Debug, Clone)]
pub struct DispatchConfig {
    /// `webhook_timeout_seconds` (20): the receiver must answer within this.
    pub timeout_ms: u64,
    /// `webhook_lease_seconds` (60): must exceed the timeout plus recording time.
    pub lease_ms: u64,
    /// `webhook_retry_base_seconds` ("60,120").
    pub schedule: RetrySchedule,
    /// `webhook_batch_size` (50): deliveries claimed per run.
    pub batch_size: u64,
    pub policy: TargetPolicy,
}

impl Default for DispatchConfig {
    fn default() -> Self {
        DispatchConfig {
            timeout_ms: 20_000,
            lease_ms: 60_000,
            schedule: RetrySchedule::default(),
            batch_size: 50,
            policy: TargetPolicy::default(),
        }
    }
}

impl DispatchConfig {
    /// Reads the Spin variables, with the defaults above.
    pub fn from_variables() -> DispatchConfig {
        use platform::config::{var, var_bool};
        let seconds = |name: &str, default: u64| -> u64 {
            var(name)
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|s| s.is_finite() && *s > 0.0)
                .map_or(default, |s| (s * 1000.0).round() as u64)
        };
        DispatchConfig {
            timeout_ms: seconds("webhook_timeout_seconds", 20_000),
            lease_ms: seconds("webhook_lease_seconds", 60_000),
            schedule: var("webhook_retry_base_seconds").map(|v| RetrySchedule::parse(&v)).unwrap_or_default(),
            batch_size: var("webhook_batch_size").and_then(|v| v.trim().parse().ok()).filter(|n| *n > 0).unwrap_or(50),
            policy: TargetPolicy { allow_insecure: var_bool(super::ALLOW_INSECURE_VARIABLE) },
        }
    }
}

/// Leases up to `batch_size` due deliveries for `owner` and loads them.
pub fn claim(db: &Db, config: &DispatchConfig, owner: &str, now: SystemTime) -> ApiResult<Vec<Job>> {
    let now_ms = time::unix_millis(now);
    if !store::lease_due(db, owner, now_ms, now_ms - config.lease_ms as i64, config.batch_size)? {
        return Ok(Vec::new());
    }
    store::leased_jobs(db, owner)
}

/// One signed HTTP request, ready to send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SignedRequest {
    /// The normalised URL that passed the target policy.
    pub url: url::Url,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// UNIX seconds of this attempt (both timestamp headers).
    pub timestamp: u64,
}

/// Builds the attempt's request, or says why it cannot be sent (recorded as a
/// failed attempt without touching the network).
pub fn prepare(job: &Job, policy: TargetPolicy, now: SystemTime) -> Result<SignedRequest, String> {
    let target = job.target_url.as_deref().ok_or("subscription was deleted")?;
    let url = TargetUrl::parse(target, policy).map_err(|e| format!("target refused: {}", e.message()))?.into_url();
    let secret = job.secret.as_deref().ok_or("the workspace has no active webhook secret")?;
    let payload = job.payload.as_deref().ok_or("the event is missing from the outbox")?;
    let timestamp = time::unix_seconds(now);
    let body = payload.as_bytes().to_vec();
    let signature = sign(secret, timestamp, &body);
    let headers = vec![
        ("content-type".to_string(), "application/json".to_string()),
        ("content-length".to_string(), body.len().to_string()),
        ("user-agent".to_string(), "interview-research-service-webhooks/1.0".to_string()),
        ("x-event-id".to_string(), job.event_id.clone()),
        ("x-timestamp".to_string(), timestamp.to_string()),
        ("x-service-request-timestamp".to_string(), timestamp.to_string()),
        ("x-service-request-signature".to_string(), signature),
    ];
    Ok(SignedRequest { url, headers, body, timestamp })
}

/// The result of one attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// HTTP status, if an answer came.
    pub status: Option<u16>,
    /// Network error, timeout, policy refusal, or why the status is not success.
    pub error: Option<String>,
    pub started_at: SystemTime,
    pub duration_ms: u64,
    /// The value of the timestamp headers, if the request was built.
    pub timestamp: Option<u64>,
}

/// Records an attempt and moves the delivery on (delivered / retry / failed),
/// releasing the lease, in one transaction with its log entry and the
/// subscription's health; returns the transition. When the lease was lost
/// meanwhile (it expired and another run took the delivery), the attempt is
/// only logged.
pub fn record(db: &Db, config: &DispatchConfig, job: &Job, owner: &str, outcome: &Outcome) -> ApiResult<Transition> {
    if job.target_url.is_none() {
        // The subscription is gone: nothing to retry.
        store::cancel_leased(db, &job.delivery_id, owner, time::now())?;
        return Ok(Transition::Failed);
    }
    let round_attempts = job.round_attempts + 1;
    let transition = after_attempt(outcome.status, round_attempts as u32, &config.schedule, random_u64());
    let error = match (&outcome.error, outcome.status) {
        (Some(error), _) => Some(error.clone()),
        (None, Some(200)) => None,
        (None, Some(status)) if (300..400).contains(&status) => {
            Some(format!("HTTP {status}: redirects are not followed, only 200 counts as success"))
        }
        (None, Some(status)) => Some(format!("HTTP {status}: only 200 counts as success")),
        (None, None) => Some("no response".to_string()),
    };
    let finished = time::now();
    let finished_ms = time::unix_millis(finished);
    let (status, next_attempt_at) = match transition {
        Transition::Delivered => (DeliveryStatus::Delivered, finished_ms),
        Transition::Retry { delay_ms } => (DeliveryStatus::Pending, finished_ms + delay_ms as i64),
        Transition::Failed => (DeliveryStatus::Failed, finished_ms),
    };
    let attempt = AttemptRecord {
        delivery_id: &job.delivery_id,
        tenant_id: job.tenant_id,
        attempt: job.attempt_count + 1,
        attempted_at: time::rfc3339(outcome.started_at),
        x_timestamp: outcome.timestamp,
        target_url: job.target_url.as_deref().unwrap_or_default(),
        status_code: outcome.status,
        error,
        duration_ms: outcome.duration_ms,
        success: status == DeliveryStatus::Delivered,
    };
    db.transaction(|tx| {
        // A copy per try: a transaction sqld refused runs again from the start.
        let mut attempt = attempt.clone();
        let moved = store::move_leased(tx, &attempt, owner, status, round_attempts, next_attempt_at, finished)?;
        if !moved {
            attempt.success = outcome.status == Some(200);
            attempt.error = Some(format!(
                "{} (result not applied: the lease expired or the delivery was cancelled meanwhile)",
                attempt.error.as_deref().unwrap_or("delivered")
            ));
        }
        store::log_attempt(tx, &attempt)?;
        let health = match status {
            DeliveryStatus::Delivered => Some(SubscriptionStatus::Confirmed),
            DeliveryStatus::Failed => Some(SubscriptionStatus::Failing),
            DeliveryStatus::Pending | DeliveryStatus::Cancelled => None,
        };
        if let (true, Some(health)) = (moved, health) {
            store::set_subscription_health(tx, &job.subscription_id, health)?;
        }
        Ok(())
    })?;
    Ok(transition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn job() -> Job {
        Job {
            delivery_id: "d1".into(),
            tenant_id: platform::ids::TenantId::parse("00000000-0000-4000-8000-000000000001").unwrap(),
            subscription_id: "s1".into(),
            event_id: "6f1c1f4e-2a7b-4e59-9a43-0c8f6b1d2e3f".into(),
            attempt_count: 0,
            round_attempts: 0,
            target_url: Some("https://hooks.example.com/in".into()),
            secret: Some("whsec_test".into()),
            payload: Some(r#"{"a":1}"#.into()),
        }
    }

    fn header<'a>(request: &'a SignedRequest, name: &str) -> &'a str {
        &request.headers.iter().find(|(n, _)| n == name).unwrap().1
    }

    #[test]
    fn prepared_requests_carry_every_header_and_a_valid_signature() {
        let now = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let request = prepare(&job(), TargetPolicy::default(), now).unwrap();
        assert_eq!(request.url.as_str(), "https://hooks.example.com/in");
        assert_eq!(request.body, br#"{"a":1}"#);
        assert_eq!(header(&request, "content-type"), "application/json");
        assert_eq!(header(&request, "content-length"), "7");
        assert_eq!(header(&request, "x-event-id"), "6f1c1f4e-2a7b-4e59-9a43-0c8f6b1d2e3f");
        assert_eq!(header(&request, "x-timestamp"), "1700000000");
        assert_eq!(header(&request, "x-service-request-timestamp"), "1700000000");
        assert_eq!(header(&request, "x-service-request-signature"), "BNopxFwKLBadjbZiNGAWnittPuG4VB2NF5bKWtdBpr0=");
    }

    #[test]
    fn targets_are_checked_again_before_sending() {
        let mut private = job();
        private.target_url = Some("https://10.0.0.1/in".into());
        let error = prepare(&private, TargetPolicy::default(), time::now()).unwrap_err();
        assert!(error.starts_with("target refused"), "{error}");
        let mut local = job();
        local.target_url = Some("http://127.0.0.1:9000/in".into());
        assert!(prepare(&local, TargetPolicy::default(), time::now()).is_err());
        assert!(prepare(&local, TargetPolicy { allow_insecure: true }, time::now()).is_ok());
    }

    #[test]
    fn missing_pieces_are_reported() {
        let mut gone = job();
        gone.target_url = None;
        assert_eq!(prepare(&gone, TargetPolicy::default(), time::now()).unwrap_err(), "subscription was deleted");
        let mut no_secret = job();
        no_secret.secret = None;
        assert!(prepare(&no_secret, TargetPolicy::default(), time::now()).is_err());
    }
}
