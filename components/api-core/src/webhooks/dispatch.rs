//! The dispatcher's side of deliveries: claim due ones under a lease, build
//! each signed request, record each attempt. Sending is the component's job.
//!
//! A run leases a batch with ONE `UPDATE ... RETURNING` (overlapping runs get
//! disjoint batches), sends, then records each attempt with ONE `UPDATE` that
//! also releases the lease (a trigger logs the attempt, another keeps the
//! subscription's health). A lease is taken at `leased_at` and counts as
//! expired `lease_ms` later; a run that died between sending and recording
//! leaves its rows leased until then, after which they are sent again with
//! the same `X-Event-ID`: at least once, never lost.

use super::signing::{after_attempt, random_u64, sign, RetrySchedule, Transition};
use super::target::{TargetPolicy, TargetUrl};
use super::DeliveryStatus;
use crate::db::{self, Db, SqlValue};
use crate::error::ApiResult;
use crate::time;
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
        use crate::config::{var, var_bool};
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

/// A leased delivery with everything needed to send it.
#[derive(Debug, Clone)]
pub struct Job {
    pub delivery_id: String,
    pub tenant_id: String,
    pub subscription_id: String,
    pub event_id: String,
    /// Attempts made before this one (all rounds / this round).
    pub attempt_count: i64,
    pub round_attempts: i64,
    /// None when the subscription is gone (then the delivery is cancelled).
    pub target_url: Option<String>,
    pub secret: Option<String>,
    pub payload: Option<String>,
}

/// Leases up to `batch_size` due deliveries for `owner` and loads them.
pub fn claim(db: &Db, config: &DispatchConfig, owner: &str, now: SystemTime) -> ApiResult<Vec<Job>> {
    let now_ms = time::unix_millis(now);
    let claimed = db.query(
        "UPDATE webhook_deliveries SET leased_at = ?, lease_owner = ?
         WHERE id IN (
             SELECT id FROM webhook_deliveries
             WHERE status = 'pending' AND next_attempt_at <= ?
               AND (leased_at IS NULL OR leased_at <= ?)
             ORDER BY next_attempt_at
             LIMIT ?)
         RETURNING id",
        &[
            SqlValue::Integer(now_ms),
            db::text(owner),
            SqlValue::Integer(now_ms),
            SqlValue::Integer(now_ms - config.lease_ms as i64),
            SqlValue::Integer(config.batch_size as i64),
        ],
    )?;
    if claimed.rows.is_empty() {
        return Ok(Vec::new());
    }
    let result = db.query(
        "SELECT d.id, d.tenant_id, d.subscription_id, d.event_id, d.attempt_count, d.round_attempts,
                s.target_url, k.secret, e.payload
         FROM webhook_deliveries d
         LEFT JOIN webhook_subscriptions s ON s.id = d.subscription_id
         LEFT JOIN webhook_secrets k ON k.tenant_id = d.tenant_id AND k.active = 1
         LEFT JOIN events e ON e.event_id = d.event_id
         WHERE d.lease_owner = ? AND d.status = 'pending'",
        &[db::text(owner)],
    )?;
    db::read_all(&result, |row| {
        Ok(Job {
            delivery_id: row.text("id")?,
            tenant_id: row.text("tenant_id")?,
            subscription_id: row.text("subscription_id")?,
            event_id: row.text("event_id")?,
            attempt_count: row.int("attempt_count")?,
            round_attempts: row.int("round_attempts")?,
            target_url: row.opt_text("target_url")?,
            secret: row.opt_text("secret")?,
            payload: row.opt_text("payload")?,
        })
    })
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
/// releasing the lease, in one statement; returns the transition. When the
/// lease was lost meanwhile (it expired and another run took the delivery),
/// the attempt is only logged.
pub fn record(db: &Db, config: &DispatchConfig, job: &Job, owner: &str, outcome: &Outcome) -> ApiResult<Transition> {
    if job.target_url.is_none() {
        // The subscription is gone: nothing to retry.
        db.execute(
            "UPDATE webhook_deliveries SET status = 'cancelled', leased_at = NULL, lease_owner = NULL, updated_at = ?
             WHERE id = ? AND lease_owner = ? AND status = 'pending'",
            &[db::text(time::rfc3339_now()), db::text(&job.delivery_id), db::text(owner)],
        )?;
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
    let target = job.target_url.clone().unwrap_or_default();
    let status_code = outcome.status.map_or(SqlValue::Null, |s| SqlValue::Integer(s as i64));
    let timestamp = outcome.timestamp.map_or(SqlValue::Null, |t| SqlValue::Integer(t as i64));
    let updated = db.query(
        "UPDATE webhook_deliveries
         SET status = ?, attempt_count = attempt_count + 1, round_attempts = ?, next_attempt_at = ?,
             leased_at = NULL, lease_owner = NULL,
             last_attempt_at = ?, last_status_code = ?, last_error = ?, last_duration_ms = ?,
             last_target_url = ?, last_timestamp = ?, updated_at = ?
         WHERE id = ? AND lease_owner = ? AND status = 'pending'
         RETURNING id",
        &[
            db::text(status.as_str()),
            SqlValue::Integer(round_attempts),
            SqlValue::Integer(next_attempt_at),
            db::text(time::rfc3339(outcome.started_at)),
            status_code.clone(),
            db::opt_text(error.as_deref()),
            SqlValue::Integer(outcome.duration_ms as i64),
            db::text(&target),
            timestamp.clone(),
            db::text(time::rfc3339(finished)),
            db::text(&job.delivery_id),
            db::text(owner),
        ],
    )?;
    if updated.rows.is_empty() {
        db.execute(
            "INSERT INTO webhook_delivery_attempts
                 (delivery_id, tenant_id, attempt, attempted_at, x_timestamp, target_url, status_code, error,
                  duration_ms, success)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            &[
                db::text(&job.delivery_id),
                db::text(&job.tenant_id),
                SqlValue::Integer(job.attempt_count + 1),
                db::text(time::rfc3339(outcome.started_at)),
                timestamp,
                db::text(&target),
                status_code,
                db::text(format!(
                    "{} (result not applied: the lease expired or the delivery was cancelled meanwhile)",
                    error.as_deref().unwrap_or("delivered")
                )),
                SqlValue::Integer(outcome.duration_ms as i64),
                SqlValue::Integer((outcome.status == Some(200)) as i64),
            ],
        )?;
    }
    Ok(transition)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, UNIX_EPOCH};

    fn job() -> Job {
        Job {
            delivery_id: "d1".into(),
            tenant_id: "t1".into(),
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
