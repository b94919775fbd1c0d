//! Webhooks in SQLite (`migrations/0004_webhooks.sql`): secrets, subscriptions
//! and the delivery log. Every query is scoped by `tenant_id`, and every write
//! is one statement (the fan-out of events into deliveries is a trigger).

use super::{Attempt, Delivery, DeliveryFilter, DeliveryStatus, NewSubscription, Subscription, SubscriptionStatus};
use crate::db::{self, Db, Row, SqlValue};
use crate::error::ApiResult;
use crate::time;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Stores the workspace's secret unless one is active: whether it was stored.
pub fn insert_secret(db: &Db, tenant_id: &str, secret: &str) -> ApiResult<bool> {
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
    tenant_id: &str,
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

pub fn subscriptions(db: &Db, tenant_id: &str) -> ApiResult<Vec<Subscription>> {
    let result = db.query(
        &format!("SELECT {SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions WHERE tenant_id = ? ORDER BY created_at, id"),
        &[db::text(tenant_id)],
    )?;
    db::read_all(&result, subscription_of)
}

pub fn subscription(db: &Db, tenant_id: &str, id: &str) -> ApiResult<Option<Subscription>> {
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

pub fn hook_secret(db: &Db, tenant_id: &str, id: &str) -> ApiResult<Option<HookSecret>> {
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
pub fn use_hook_secret(db: &Db, tenant_id: &str, id: &str, secret_hash: &str, now: SystemTime) -> ApiResult<bool> {
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

/// Deletes the subscription (a trigger cancels its pending deliveries): whether it existed.
pub fn delete_subscription(db: &Db, tenant_id: &str, id: &str) -> ApiResult<bool> {
    let deleted = db.query(
        "DELETE FROM webhook_subscriptions WHERE id = ? AND tenant_id = ? RETURNING id",
        &[db::text(id), db::text(tenant_id)],
    )?;
    Ok(!deleted.rows.is_empty())
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
pub fn deliveries(db: &Db, tenant_id: &str, filter: &DeliveryFilter) -> ApiResult<Vec<Delivery>> {
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
pub fn delivery(db: &Db, tenant_id: &str, id: &str) -> ApiResult<Option<Delivery>> {
    let sql = format!("SELECT {DELIVERY_COLUMNS} FROM webhook_deliveries WHERE tenant_id = ? AND id = ?");
    Ok(with_attempts(db, tenant_id, &sql, &[db::text(tenant_id), db::text(id)])?.pop())
}

fn with_attempts(db: &Db, tenant_id: &str, sql: &str, params: &[SqlValue]) -> ApiResult<Vec<Delivery>> {
    let result = db.query(sql, params)?;
    let mut deliveries = db::read_all(&result, delivery_of)?;
    attach_attempts(db, tenant_id, &mut deliveries)?;
    Ok(deliveries)
}

fn attach_attempts(db: &Db, tenant_id: &str, deliveries: &mut [Delivery]) -> ApiResult<()> {
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
pub fn requeue_failed(db: &Db, tenant_id: &str, id: &str, now: SystemTime) -> ApiResult<bool> {
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
