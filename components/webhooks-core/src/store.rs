//! Webhooks in SQLite (`migrations/0004_webhooks.sql`): secrets, subscriptions,
//! the event outbox and the delivery log. Every query is scoped by `tenant_id`;
//! writes of several rows run in the caller's transaction (`&Tx`).

use platform::ids::TenantId;
use super::{
    Attempt, Delivery, DeliveryFilter, DeliveryStatus, Event, EventType, Job, NewSubscription, Subscription,
    SubscriptionStatus,
};
use storage::{self as db, Db, Row, SqlValue, Tx};
use platform::error::ApiResult;
use platform::time;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Stores the workspace's secret unless one is active: whether it was stored.
pub fn insert_secret(db: &Db, tenant_id: TenantId, secret: &str) -> ApiResult<bool> {
    let inserted = db.query(
        "INSERT INTO webhook_secrets (id, tenant_id, secret, active, created_at) VALUES (?, ?, ?, 1, ?)
         ON CONFLICT DO NOTHING RETURNING id",
        &[
            db::text(uuid::Uuid::new_v4().to_string()),
            db::text(tenant_id),
            db::text(secret),
            db::text(time::rfc3339_now()),
        ],
    )?;
    Ok(!inserted.rows.is_empty())
}

/// Stores a pending subscription if the workspace has an active secret (one
/// statement: the check and the insert cannot be separated): whether it was stored.
pub fn insert_subscription(
    db: &Db,
    tenant_id: TenantId,
    id: &str,
    new: &NewSubscription,
    hook_secret_hash: &str,
    expires_at_ms: i64,
    now: SystemTime,
) -> ApiResult<bool> {
    let inserted = db.query(
        "INSERT INTO webhook_subscriptions
             (id, tenant_id, event_type, target_url, status, hook_secret_hash, hook_secret_expires_at,
              hook_secret_used, created_at)
         SELECT ?, ?, ?, ?, 'pending', ?, ?, 0, ?
         WHERE EXISTS (SELECT 1 FROM webhook_secrets WHERE tenant_id = ? AND active = 1)
         RETURNING id",
        &[
            db::text(id),
            db::text(tenant_id),
            db::text(new.event_type.as_str()),
            db::text(new.target_url.as_str()),
            db::text(hook_secret_hash),
            SqlValue::Integer(expires_at_ms),
            db::text(time::rfc3339(now)),
            db::text(tenant_id),
        ],
    )?;
    Ok(!inserted.rows.is_empty())
}

const SUBSCRIPTION_COLUMNS: &str = "id, tenant_id, event_type, target_url, status";

fn subscription_of(row: &Row<'_>) -> ApiResult<Subscription> {
    Ok(Subscription {
        id: row.text("id")?,
        workspace_id: row.text("tenant_id")?,
        event_type: row.named("event_type")?,
        target_url: row.text("target_url")?,
        status: row.named("status")?,
    })
}

pub fn subscriptions(db: &Db, tenant_id: TenantId) -> ApiResult<Vec<Subscription>> {
    let result = db.query(
        &format!("SELECT {SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE tenant_id = ? ORDER BY created_at, id"),
        &[db::text(tenant_id)],
    )?;
    db::read_all(&result, subscription_of)
}

pub fn subscription(db: &Db, tenant_id: TenantId, id: &str) -> ApiResult<Option<Subscription>> {
    let result = db.query(
        &format!("SELECT {SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE id = ? AND tenant_id = ?"),
        &[db::text(id), db::text(tenant_id)],
    )?;
    db::read_first(&result, subscription_of)
}

/// What confirming a subscription checks.
pub struct HookSecret {
    pub hash: String,
    pub expires_at_ms: i64,
    pub used: bool,
    pub status: SubscriptionStatus,
}

pub fn hook_secret(db: &Db, tenant_id: TenantId, id: &str) -> ApiResult<Option<HookSecret>> {
    let result = db.query(
        "SELECT hook_secret_hash, hook_secret_expires_at, hook_secret_used, status
         FROM webhook_subscriptions WHERE id = ? AND tenant_id = ?",
        &[db::text(id), db::text(tenant_id)],
    )?;
    db::read_first(&result, |row| {
        Ok(HookSecret {
            hash: row.text("hook_secret_hash")?,
            expires_at_ms: row.int("hook_secret_expires_at")?,
            used: row.flag("hook_secret_used")?,
            status: row.named("status")?,
        })
    })
}

/// Confirms the subscription with its hook secret, checking every condition
/// again in the one statement that uses the secret up: whether it did.
pub fn use_hook_secret(db: &Db, tenant_id: TenantId, id: &str, secret_hash: &str, now: SystemTime) -> ApiResult<bool> {
    let updated = db.query(
        "UPDATE webhook_subscriptions
         SET status = 'confirmed', hook_secret_used = 1, confirmed_at = ?
         WHERE id = ? AND tenant_id = ? AND status = 'pending' AND hook_secret_used = 0
           AND hook_secret_expires_at > ? AND hook_secret_hash = ?
         RETURNING id",
        &[
            db::text(time::rfc3339(now)),
            db::text(id),
            db::text(tenant_id),
            SqlValue::Integer(time::unix_millis(now)),
            db::text(secret_hash),
        ],
    )?;
    Ok(!updated.rows.is_empty())
}

/// Deletes the subscription: whether it existed.
pub fn delete_subscription(tx: &Tx, tenant_id: TenantId, id: &str) -> ApiResult<bool> {
    let deleted = tx.query(
        "DELETE FROM webhook_subscriptions WHERE id = ? AND tenant_id = ? RETURNING id",
        &[db::text(id), db::text(tenant_id)],
    )?;
    Ok(!deleted.rows.is_empty())
}

/// Cancels the subscription's deliveries that were not sent yet (the log stays).
pub fn cancel_pending_deliveries(tx: &Tx, subscription_id: &str, now: SystemTime) -> ApiResult<()> {
    tx.execute(
        "UPDATE webhook_deliveries SET status = 'cancelled', lease_owner = NULL, leased_at = NULL, updated_at = ?
         WHERE subscription_id = ? AND status = 'pending'",
        &[db::text(time::rfc3339(now)), db::text(subscription_id)],
    )
}

/// A subscription's health follows its latest finished delivery: `failing`
/// after a failure, `confirmed` after a success (a pending one stays pending).
pub fn set_subscription_health(tx: &Tx, subscription_id: &str, status: SubscriptionStatus) -> ApiResult<()> {
    tx.execute(
        "UPDATE webhook_subscriptions SET status = ? WHERE id = ? AND status IN ('confirmed', 'failing')",
        &[db::text(status.as_str()), db::text(subscription_id)],
    )
}

/// The outbox row of an event.
pub fn insert_event(tx: &Tx, event: &Event) -> ApiResult<()> {
    tx.execute(
        "INSERT INTO events (event_id, tenant_id, event_type, payload, created_at) VALUES (?, ?, ?, ?, ?)",
        &[
            db::text(&event.event_id),
            db::text(event.tenant_id),
            db::text(event.event_type.as_str()),
            db::text(event.payload.to_string()),
            db::text(&event.at),
        ],
    )
}

/// `interviewee_id` of an `interview.finished` event set to `""` (the other
/// members stay, in their order).
pub fn redact_interviewee(tx: &Tx, event_id: &str) -> ApiResult<()> {
    tx.execute(
        "UPDATE events SET payload = json_set(payload, '$.interviewee_id', '')
         WHERE event_id = ? AND event_type = ?",
        &[db::text(event_id), db::text(EventType::InterviewFinished.as_str())],
    )
}

/// The subscriptions an event of this tenant and type goes to: those confirmed
/// now (a failing one is confirmed too; a pending one is not yet).
pub fn subscriptions_to_notify(tx: &Tx, tenant_id: TenantId, event_type: EventType) -> ApiResult<Vec<String>> {
    let result = tx.query(
        "SELECT id FROM webhook_subscriptions WHERE tenant_id = ? AND event_type = ? AND status IN ('confirmed', 'failing')",
        &[db::text(tenant_id), db::text(event_type.as_str())],
    )?;
    db::read_all(&result, |row| row.text("id"))
}

/// One pending delivery of `event` per subscription, due at once
/// (`next_attempt_at` 0: due since it exists).
pub fn insert_deliveries(tx: &Tx, event: &Event, subscription_ids: &[String]) -> ApiResult<()> {
    if subscription_ids.is_empty() {
        return Ok(());
    }
    let mut params = Vec::with_capacity(subscription_ids.len() * 7);
    for subscription_id in subscription_ids {
        params.extend([
            db::text(uuid::Uuid::new_v4().to_string()),
            db::text(subscription_id),
            db::text(event.tenant_id),
            db::text(&event.event_id),
            db::text(event.event_type.as_str()),
            // created_at and updated_at: the event's time.
            db::text(&event.at),
            db::text(&event.at),
        ]);
    }
    let rows = vec!["(?, ?, ?, ?, ?, 'pending', 0, ?, ?)"; subscription_ids.len()].join(", ");
    tx.execute(
        &format!(
            "INSERT INTO webhook_deliveries
                 (id, subscription_id, tenant_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
             VALUES {rows}"
        ),
        &params,
    )
}

fn millis_to_rfc3339(ms: i64) -> String {
    time::rfc3339(UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64))
}

const DELIVERY_COLUMNS: &str = "id, subscription_id, event_id, event_type, status, attempt_count, next_attempt_at,
    last_status_code, last_error, created_at, updated_at";

fn delivery_of(row: &Row<'_>) -> ApiResult<Delivery> {
    let status = row.named::<DeliveryStatus>("status")?;
    // 0 is how the outbox trigger says "due at once": due since the delivery exists.
    let next_attempt_at = match (status, row.int("next_attempt_at")?) {
        (DeliveryStatus::Pending, 0) => Some(row.text("created_at")?),
        (DeliveryStatus::Pending, due) => Some(millis_to_rfc3339(due)),
        _ => None,
    };
    Ok(Delivery {
        id: row.text("id")?,
        subscription_id: row.text("subscription_id")?,
        event_id: row.text("event_id")?,
        event_type: row.named("event_type")?,
        next_attempt_at,
        status,
        attempt_count: row.int("attempt_count")?,
        last_status_code: row.opt_int("last_status_code")?,
        last_error: row.opt_text("last_error")?,
        created_at: row.text("created_at")?,
        updated_at: row.text("updated_at")?,
        attempts: Vec::new(),
    })
}

/// The tenant's deliveries matching the filter, newest first, each with every
/// attempt (oldest first).
pub fn deliveries(db: &Db, tenant_id: TenantId, filter: &DeliveryFilter) -> ApiResult<Vec<Delivery>> {
    let mut sql = format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = ?");
    let mut params = vec![db::text(tenant_id)];
    if let Some(subscription_id) = &filter.subscription_id {
        sql.push_str(" AND subscription_id = ?");
        params.push(db::text(subscription_id));
    }
    if let Some(status) = filter.status {
        sql.push_str(" AND status = ?");
        params.push(db::text(status.as_str()));
    }
    sql.push_str(" ORDER BY created_at DESC, rowid DESC LIMIT ?");
    params.push(SqlValue::Integer(filter.limit as i64));
    with_attempts(db, tenant_id, &sql, &params)
}

/// One of the tenant's deliveries, with every attempt.
pub fn delivery(db: &Db, tenant_id: TenantId, id: &str) -> ApiResult<Option<Delivery>> {
    let sql = format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = ? AND id = ?");
    Ok(with_attempts(db, tenant_id, &sql, &[db::text(tenant_id), db::text(id)])?.pop())
}

fn with_attempts(db: &Db, tenant_id: TenantId, sql: &str, params: &[SqlValue]) -> ApiResult<Vec<Delivery>> {
    let result = db.query(sql, params)?;
    let mut deliveries = db::read_all(&result, delivery_of)?;
    attach_attempts(db, tenant_id, &mut deliveries)?;
    Ok(deliveries)
}

fn attach_attempts(db: &Db, tenant_id: TenantId, deliveries: &mut [Delivery]) -> ApiResult<()> {
    if deliveries.is_empty() {
        return Ok(());
    }
    let placeholders = vec!["?"; deliveries.len()].join(", ");
    let mut params = vec![db::text(tenant_id)];
    params.extend(deliveries.iter().map(|d| db::text(&d.id)));
    let result = db.query(
        &format!(
            "SELECT delivery_id, attempt, attempted_at, target_url, status_code, error, duration_ms, success
             FROM webhook_delivery_attempts WHERE tenant_id = ? AND delivery_id IN ({placeholders})
             ORDER BY delivery_id, attempt, id"
        ),
        &params,
    )?;
    for row in db::rows(&result) {
        let delivery_id = row.text("delivery_id")?;
        if let Some(delivery) = deliveries.iter_mut().find(|d| d.id == delivery_id) {
            delivery.attempts.push(Attempt {
                attempt: row.int("attempt")?,
                attempted_at: row.text("attempted_at")?,
                target_url: row.text("target_url")?,
                status_code: row.opt_int("status_code")?,
                error: row.opt_text("error")?,
                duration_ms: row.opt_int("duration_ms")?,
                success: row.flag("success")?,
            });
        }
    }
    Ok(())
}

/// Queues a failed delivery whose subscription still exists again, due now,
/// with a fresh round of retries: whether it did.
pub fn requeue_failed(db: &Db, tenant_id: TenantId, id: &str, now: SystemTime) -> ApiResult<bool> {
    let updated = db.query(
        "UPDATE webhook_deliveries
         SET status = 'pending', round_attempts = 0, next_attempt_at = ?, leased_at = NULL, lease_owner = NULL,
             updated_at = ?
         WHERE id = ? AND tenant_id = ? AND status = 'failed'
           AND subscription_id IN (SELECT id FROM webhook_subscriptions WHERE tenant_id = ?)
         RETURNING id",
        &[
            SqlValue::Integer(time::unix_millis(now)),
            db::text(time::rfc3339(now)),
            db::text(id),
            db::text(tenant_id),
            db::text(tenant_id),
        ],
    )?;
    Ok(!updated.rows.is_empty())
}

// ---------------------------------------------------------------------------
// The dispatcher's leases

/// Leases up to `batch` due deliveries for `owner` (free ones, or ones whose
/// lease was taken before `expired_before_ms`): whether it leased any.
pub fn lease_due(db: &Db, owner: &str, now_ms: i64, expired_before_ms: i64, batch: u64) -> ApiResult<bool> {
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
            SqlValue::Integer(expired_before_ms),
            SqlValue::Integer(batch as i64),
        ],
    )?;
    Ok(!claimed.rows.is_empty())
}

/// The deliveries `owner` holds, with their target, secret and payload.
pub fn leased_jobs(db: &Db, owner: &str) -> ApiResult<Vec<Job>> {
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
            tenant_id: row.id("tenant_id")?,
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

/// Cancels a leased delivery whose subscription is gone.
pub fn cancel_leased(db: &Db, delivery_id: &str, owner: &str, now: SystemTime) -> ApiResult<()> {
    db.execute(
        "UPDATE webhook_deliveries SET status = 'cancelled', leased_at = NULL, lease_owner = NULL, updated_at = ?
         WHERE id = ? AND lease_owner = ? AND status = 'pending'",
        &[db::text(time::rfc3339(now)), db::text(delivery_id), db::text(owner)],
    )
}

/// One attempt as the log keeps it.
#[derive(Clone)]
pub struct AttemptRecord<'a> {
    pub delivery_id: &'a str,
    pub tenant_id: TenantId,
    /// Its number among all attempts of the delivery (1-based).
    pub attempt: i64,
    pub attempted_at: String,
    /// The value of the timestamp headers, if the request was built.
    pub x_timestamp: Option<u64>,
    pub target_url: &'a str,
    pub status_code: Option<u16>,
    pub error: Option<String>,
    pub duration_ms: u64,
    pub success: bool,
}

fn opt_int(value: Option<impl Into<i64>>) -> SqlValue {
    value.map_or(SqlValue::Null, |v| SqlValue::Integer(v.into()))
}

/// Moves a delivery `owner` still holds on after `attempt` (to `status`, due
/// again at `next_attempt_at` when pending) and releases the lease: whether
/// the lease was still `owner`'s.
pub fn move_leased(
    tx: &Tx,
    attempt: &AttemptRecord,
    owner: &str,
    status: DeliveryStatus,
    round_attempts: i64,
    next_attempt_at: i64,
    now: SystemTime,
) -> ApiResult<bool> {
    let updated = tx.query(
        "UPDATE webhook_deliveries
         SET status = ?, attempt_count = ?, round_attempts = ?, next_attempt_at = ?,
             leased_at = NULL, lease_owner = NULL,
             last_attempt_at = ?, last_status_code = ?, last_error = ?, last_duration_ms = ?,
             last_target_url = ?, last_timestamp = ?, updated_at = ?
         WHERE id = ? AND lease_owner = ? AND status = 'pending'
         RETURNING id",
        &[
            db::text(status.as_str()),
            SqlValue::Integer(attempt.attempt),
            SqlValue::Integer(round_attempts),
            SqlValue::Integer(next_attempt_at),
            db::text(&attempt.attempted_at),
            opt_int(attempt.status_code),
            db::opt_text(attempt.error.as_deref()),
            SqlValue::Integer(attempt.duration_ms as i64),
            db::text(attempt.target_url),
            opt_int(attempt.x_timestamp.map(|t| t as i64)),
            db::text(time::rfc3339(now)),
            db::text(attempt.delivery_id),
            db::text(owner),
        ],
    )?;
    Ok(!updated.rows.is_empty())
}

/// The attempt's entry in the delivery log.
pub fn log_attempt(tx: &Tx, attempt: &AttemptRecord) -> ApiResult<()> {
    tx.execute(
        "INSERT INTO webhook_delivery_attempts
             (delivery_id, tenant_id, attempt, attempted_at, x_timestamp, target_url, status_code, error, duration_ms,
              success)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            db::text(attempt.delivery_id),
            db::text(attempt.tenant_id),
            SqlValue::Integer(attempt.attempt),
            db::text(&attempt.attempted_at),
            opt_int(attempt.x_timestamp.map(|t| t as i64)),
            db::text(attempt.target_url),
            opt_int(attempt.status_code),
            db::opt_text(attempt.error.as_deref()),
            SqlValue::Integer(attempt.duration_ms as i64),
            SqlValue::Integer(attempt.success as i64),
        ],
    )
}
