//! Webhooks: workspace secrets, double opt-in subscriptions, the delivery log
//! (API side), and claiming / signing / recording deliveries (dispatcher side).
//!
//! Storage is `migrations/0004_webhooks.sql`. Events come from the `events`
//! outbox: the change that raises one writes it ([`emit`]) in its own
//! transaction, with one `webhook_deliveries` row per subscription confirmed
//! at that moment; an event raised before a subscription was confirmed is
//! never sent to it. The dispatcher sends them later.

pub mod dispatch;
pub mod signing;
mod store;
pub mod target;

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::ids::TenantId;
use platform::auth::Tenant;
use storage::{Db, Tx};
use platform::error::{ApiError, ApiResult, FieldError};
use platform::keys;
use platform::time;
use platform::validation::{self, Fields};
use serde::Serialize;
use serde_json::{json, Value};
use std::time::Duration;

pub use signing::{after_attempt, sign, RetrySchedule, Transition};
pub use target::{TargetError, TargetPolicy, TargetUrl};

/// Event types the service emits, as `GET /v1/webhooks/event-types` lists them.
pub const EVENT_TYPES: &[&str] = <EventType as text_enum::TextEnum>::NAMES;

/// Spin variable: admit `http://` and loopback targets (development and tests only).
pub const ALLOW_INSECURE_VARIABLE: &str = "webhook_allow_insecure_targets";

/// Workspace secrets are `whsec_` + 43 base64url characters.
pub const SECRET_PREFIX: &str = "whsec_";
/// Hook (confirmation) secrets are `hook_` + 43 base64url characters.
pub const HOOK_SECRET_PREFIX: &str = "hook_";
/// How long a hook secret can confirm its subscription.
pub const HOOK_SECRET_TTL: Duration = Duration::from_secs(24 * 60 * 60);

text_enum::text_enum! {
    /// The events the service emits (docs/webhooks.md).
    pub enum EventType {
        ProjectPublished = "project.published",
        ProjectCompleted = "project.completed",
        InterviewFinished = "interview.finished",
        /// An interview was erased (docs/interviews.md, "Erasure"): ids only.
        InterviewErased = "interview.erased",
    }
}

text_enum::text_enum! {
    /// A subscription's state: `pending` until its hook secret confirms it,
    /// then `confirmed`, or `failing` while its last delivery failed.
    pub enum SubscriptionStatus { Pending = "pending", Confirmed = "confirmed", Failing = "failing" }
}

text_enum::text_enum! {
    /// A delivery's state (`cancelled`: its subscription was deleted first).
    pub enum DeliveryStatus { Pending = "pending", Delivered = "delivered", Failed = "failed", Cancelled = "cancelled" }
}

/// The target policy as configured.
pub fn configured_policy() -> TargetPolicy {
    TargetPolicy { allow_insecure: platform::config::var_bool(ALLOW_INSECURE_VARIABLE) }
}

/// 403 unless the workspace is the tenant's own (one workspace per tenant).
fn check_workspace(tenant: &Tenant, workspace_id: &str) -> ApiResult<()> {
    let own = tenant.id().to_string();
    if keys::constant_time_eq(workspace_id.trim().to_ascii_lowercase().as_bytes(), own.as_bytes()) {
        Ok(())
    } else {
        Err(ApiError::Forbidden("workspace_id does not belong to the authenticated tenant".into()))
    }
}

// ---------------------------------------------------------------------------
// Events (the outbox)

/// An event, as its receivers get it: the payload is the exact JSON body POSTed
/// (docs/webhooks.md), its members in the order they are written.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub event_id: String,
    pub tenant_id: TenantId,
    pub event_type: EventType,
    pub payload: Value,
    /// When it happened (RFC 3339, UTC): the payload's own time member too.
    pub at: String,
}

impl Event {
    fn new(tenant_id: TenantId, event_type: EventType, payload: Value, at: &str) -> Event {
        Event {
            event_id: uuid::Uuid::new_v4().to_string(),
            tenant_id,
            event_type,
            payload,
            at: at.to_string(),
        }
    }

    /// A project became active (its first publication, or a resume).
    pub fn project_published(tenant_id: TenantId, project_id: ProjectId, at: &str) -> Event {
        let payload = json!({"project_id": project_id, "event_type": EventType::ProjectPublished, "published_at": at});
        Event::new(tenant_id, EventType::ProjectPublished, payload, at)
    }

    /// A project became completed (by request, or its `max_interviews` reached).
    pub fn project_completed(tenant_id: TenantId, project_id: ProjectId, at: &str) -> Event {
        let payload = json!({"project_id": project_id, "event_type": EventType::ProjectCompleted, "completed_at": at});
        Event::new(tenant_id, EventType::ProjectCompleted, payload, at)
    }

    /// An interview left `in_progress`: `interviewee_id` is its identifier;
    /// `interview_status` and `environment` are additive members.
    pub fn interview_finished(finished: &FinishedInterview, at: &str) -> Event {
        let payload = json!({
            "project_id": finished.project_id,
            "event_type": EventType::InterviewFinished,
            "interview_id": finished.interview_id,
            "interviewee_id": finished.identifier,
            "finished_at": at,
            "interview_status": finished.interview_status,
            "environment": finished.environment,
        });
        Event::new(finished.tenant_id, EventType::InterviewFinished, payload, at)
    }

    /// An interview was erased (deleted by the tenant, withdrawn by its
    /// interviewee, or past its project's retention): the ids and the time,
    /// nothing else of the interview.
    pub fn interview_erased(tenant_id: TenantId, project_id: ProjectId, interview_id: InterviewId, at: &str) -> Event {
        let payload = json!({
            "project_id": project_id,
            "event_type": EventType::InterviewErased,
            "interview_id": interview_id,
            "erased_at": at,
        });
        Event::new(tenant_id, EventType::InterviewErased, payload, at)
    }
}

/// What `interview.finished` says about the interview.
pub struct FinishedInterview<'a> {
    pub tenant_id: TenantId,
    pub project_id: ProjectId,
    pub interview_id: InterviewId,
    pub identifier: &'a str,
    pub interview_status: &'a str,
    pub environment: &'a str,
}

/// Writes `event` and its deliveries, in the caller's transaction; returns the
/// number of deliveries it fanned out to.
pub fn emit(tx: &Tx, event: &Event) -> ApiResult<usize> {
    store::insert_event(tx, event)?;
    let subscriptions = store::subscriptions_to_notify(tx, event.tenant_id, event.event_type)?;
    store::insert_deliveries(tx, event, &subscriptions)?;
    Ok(subscriptions.len())
}

/// Takes the interviewee's identifier out of an erased interview's
/// `interview.finished` event (`interviewee_id` becomes `""`, as for an
/// interview without one), in the caller's transaction. The stored payload is
/// what every delivery of the event sends, so a queued delivery, a retry and a
/// redelivery from the log all carry the redacted body from now on.
pub fn redact_interviewee(tx: &Tx, event_id: &str) -> ApiResult<()> {
    store::redact_interviewee(tx, event_id)
}

// ---------------------------------------------------------------------------
// Secrets

#[derive(Debug, Serialize)]
pub struct CreatedSecret {
    pub secret: String,
}

/// `POST /v1/webhooks/secrets`: 201 `{secret}`; 409 while one is active.
pub fn create_secret(db: &Db, tenant: &Tenant, body: &Value) -> ApiResult<CreatedSecret> {
    let mut fields = Fields::body(body)?;
    let workspace_id = fields.required_string("workspace_id", 1, 100);
    fields.finish()?;
    check_workspace(tenant, &workspace_id.unwrap_or_default())?;
    let secret = keys::generate_secret(SECRET_PREFIX);
    if !store::insert_secret(db, tenant.id(), &secret)? {
        return Err(ApiError::conflict("secret_exists", "This workspace already has an active webhook secret"));
    }
    Ok(CreatedSecret { secret })
}

// ---------------------------------------------------------------------------
// Subscriptions

/// A valid subscription request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSubscription {
    pub workspace_id: String,
    pub event_type: EventType,
    pub target_url: TargetUrl,
}

impl NewSubscription {
    /// 422 for every missing or invalid field at once (target URL policy included).
    pub fn parse(body: &Value, policy: TargetPolicy) -> ApiResult<NewSubscription> {
        let mut fields = Fields::body(body)?;
        let workspace_id = fields.required_string("workspace_id", 1, 100);
        let event_type = match fields.raw("event_type") {
            Some(value) if !value.is_string() => {
                fields.error(fields.loc("event_type"), "string_type", "Input should be a valid string");
                None
            }
            _ => fields.require("event_type", validation::one_of::<EventType>),
        };
        let target_url = match fields.required_string("target_url", 1, target::MAX_TARGET_URL) {
            Some(text) => match TargetUrl::parse(&text, policy) {
                Ok(target_url) => Some(target_url),
                Err(error) => {
                    fields.error(fields.loc("target_url"), error.kind(), error.message());
                    None
                }
            },
            None => None,
        };
        let errors = fields.into_errors();
        match (workspace_id, event_type, target_url) {
            (Some(workspace_id), Some(event_type), Some(target_url)) if errors.is_empty() => {
                Ok(NewSubscription { workspace_id, event_type, target_url })
            }
            _ => Err(ApiError::Validation(errors)),
        }
    }
}

#[derive(Debug, Serialize)]
pub struct CreatedSubscription {
    pub id: String,
    pub workspace_id: String,
    pub event_type: EventType,
    pub target_url: String,
    pub x_hook_secret: String,
}

/// `POST /v1/webhooks/subscriptions`: stores a pending subscription with a
/// single-use hook secret; 409 when the workspace has no active secret.
pub fn create_subscription(db: &Db, tenant: &Tenant, new: NewSubscription) -> ApiResult<CreatedSubscription> {
    check_workspace(tenant, &new.workspace_id)?;
    let id = uuid::Uuid::new_v4().to_string();
    let hook_secret = keys::generate_secret(HOOK_SECRET_PREFIX);
    let now = time::now();
    let expires_at = time::unix_millis(now + HOOK_SECRET_TTL);
    let inserted = store::insert_subscription(db, tenant.id(), &id, &new, &keys::hash_secret(&hook_secret), expires_at, now)?;
    if !inserted {
        return Err(ApiError::conflict(
            "no_active_secret",
            "Create a webhook secret (POST /v1/webhooks/secrets) before subscribing",
        ));
    }
    Ok(CreatedSubscription {
        id,
        workspace_id: tenant.id().to_string(),
        event_type: new.event_type,
        target_url: new.target_url.as_str().to_string(),
        x_hook_secret: hook_secret,
    })
}

#[derive(Debug, Serialize, PartialEq, Eq)]
pub struct Subscription {
    pub id: String,
    pub workspace_id: String,
    pub event_type: EventType,
    pub target_url: String,
    pub status: SubscriptionStatus,
}

pub fn list_subscriptions(db: &Db, tenant: &Tenant) -> ApiResult<Vec<Subscription>> {
    store::subscriptions(db, tenant.id())
}

pub fn get_subscription(db: &Db, tenant: &Tenant, id: &str) -> ApiResult<Subscription> {
    store::subscription(db, tenant.id(), id)?.ok_or_else(|| ApiError::not_found("Subscription"))
}

#[derive(Debug, Serialize)]
pub struct Confirmed {
    pub id: String,
    pub status: SubscriptionStatus,
}

/// `POST /v1/webhooks/subscriptions/{id}` with `{secret}`: 200 once; a wrong
/// secret is 400 `invalid_secret`; an expired or used one is 409.
pub fn confirm_subscription(db: &Db, tenant: &Tenant, id: &str, body: &Value) -> ApiResult<Confirmed> {
    let mut fields = Fields::body(body)?;
    let secret = fields.required_string("secret", 1, 200);
    fields.finish()?;
    let secret = secret.unwrap_or_default();

    let hook = store::hook_secret(db, tenant.id(), id)?.ok_or_else(|| ApiError::not_found("Subscription"))?;
    if !keys::secret_matches(&secret, &hook.hash) {
        return Err(ApiError::BadRequestDetail {
            code: "invalid_secret",
            message: "The secret does not match this subscription's X-Hook-Secret".into(),
        });
    }
    if hook.used || hook.status != SubscriptionStatus::Pending {
        return Err(ApiError::conflict("secret_used", "This hook secret was already used"));
    }
    let now = time::now();
    if hook.expires_at_ms <= time::unix_millis(now) {
        return Err(ApiError::conflict("secret_expired", "This hook secret has expired; subscribe again"));
    }
    if !store::use_hook_secret(db, tenant.id(), id, &keys::hash_secret(&secret), now)? {
        return Err(ApiError::conflict("secret_used", "This hook secret was already used"));
    }
    Ok(Confirmed { id: id.to_string(), status: SubscriptionStatus::Confirmed })
}

/// `DELETE /v1/webhooks/subscriptions/{id}`: the subscription, and with it
/// every delivery of it not sent yet (cancelled; the log stays).
pub fn delete_subscription(db: &Db, tenant: &Tenant, id: &str) -> ApiResult<()> {
    db.transaction(|tx| {
        if !store::delete_subscription(tx, tenant.id(), id)? {
            return Err(ApiError::not_found("Subscription"));
        }
        store::cancel_pending_deliveries(tx, id, time::now())
    })
}

/// A leased delivery with everything needed to send it.
#[derive(Debug, Clone)]
pub struct Job {
    pub delivery_id: String,
    pub tenant_id: TenantId,
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

// ---------------------------------------------------------------------------
// Delivery log

#[derive(Debug, Serialize)]
pub struct Attempt {
    pub attempt: i64,
    pub attempted_at: String,
    pub target_url: String,
    /// HTTP status of the answer; null after a network error or timeout.
    pub status_code: Option<i64>,
    pub error: Option<String>,
    pub duration_ms: Option<i64>,
    pub success: bool,
}

#[derive(Debug, Serialize)]
pub struct Delivery {
    pub id: String,
    pub subscription_id: String,
    pub event_id: String,
    pub event_type: EventType,
    pub status: DeliveryStatus,
    pub attempt_count: i64,
    /// When the next attempt is due (pending deliveries only).
    pub next_attempt_at: Option<String>,
    pub last_status_code: Option<i64>,
    pub last_error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
    pub attempts: Vec<Attempt>,
}

/// Query of `GET /v1/webhooks/deliveries`.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct DeliveryFilter {
    pub subscription_id: Option<String>,
    pub status: Option<DeliveryStatus>,
    pub limit: u32,
}

pub const DEFAULT_DELIVERY_LIMIT: u32 = 100;
pub const MAX_DELIVERY_LIMIT: u32 = 1000;

impl DeliveryFilter {
    pub fn parse(pairs: &[(String, String)]) -> ApiResult<DeliveryFilter> {
        let mut filter = DeliveryFilter { limit: DEFAULT_DELIVERY_LIMIT, ..Default::default() };
        let mut errors = Vec::new();
        for (name, value) in pairs {
            let loc = vec!["query".into(), name.as_str().into()];
            match name.as_str() {
                "subscription_id" => match validation::uuid_param(value, loc) {
                    Ok(id) => filter.subscription_id = Some(id.to_string()),
                    Err(error) => errors.push(error),
                },
                "status" => match validation::one_of::<DeliveryStatus>(&Value::from(value.as_str()), loc) {
                    Ok(status) => filter.status = Some(status),
                    Err(problems) => errors.extend(problems),
                },
                // A query value is text: parse it first (`int_parsing`), then the
                // same range rule as a JSON integer.
                "limit" => match value.trim().parse::<i64>() {
                    Ok(n) => match validation::int_in(&Value::from(n), loc, 1, MAX_DELIVERY_LIMIT as i64) {
                        Ok(n) => filter.limit = n as u32,
                        Err(problems) => errors.extend(problems),
                    },
                    Err(_) => errors.push(FieldError::new(
                        loc,
                        "int_parsing",
                        "Input should be a valid integer, unable to parse string as an integer",
                    )),
                },
                _ => {}
            }
        }
        if errors.is_empty() {
            Ok(filter)
        } else {
            Err(ApiError::Validation(errors))
        }
    }
}

/// The tenant's deliveries, newest first, each with every attempt (oldest first).
pub fn list_deliveries(db: &Db, tenant: &Tenant, filter: &DeliveryFilter) -> ApiResult<Vec<Delivery>> {
    store::deliveries(db, tenant.id(), filter)
}

pub fn get_delivery(db: &Db, tenant: &Tenant, id: &str) -> ApiResult<Delivery> {
    store::delivery(db, tenant.id(), id)?.ok_or_else(|| ApiError::not_found("Delivery"))
}

/// `POST /v1/webhooks/deliveries/{id}/redeliver`: a failed delivery is queued
/// again, due now, with a fresh round of retries. 409 for any other state or
/// when its subscription was deleted.
pub fn redeliver(db: &Db, tenant: &Tenant, id: &str) -> ApiResult<Delivery> {
    let now = time::now();
    let requeued = store::requeue_failed(db, tenant.id(), id, now)?;
    let delivery = get_delivery(db, tenant, id)?;
    if !requeued {
        let message = if delivery.status == DeliveryStatus::Failed {
            "The delivery's subscription was deleted".to_string()
        } else {
            format!("Only failed deliveries can be redelivered; this one is {}", delivery.status)
        };
        return Err(ApiError::conflict("invalid_state", message));
    }
    Ok(delivery)
}

#[cfg(test)]
mod tests {
    use super::*;
    use platform::error::LocPart;
    use serde_json::json;

    fn problems(error: ApiError) -> Vec<(Vec<LocPart>, &'static str)> {
        match error {
            ApiError::Validation(errors) => errors.into_iter().map(|e| (e.loc, e.kind)).collect(),
            other => panic!("expected 422, got {other:?}"),
        }
    }

    fn loc(field: &str) -> Vec<LocPart> {
        vec!["body".into(), field.into()]
    }

    #[test]
    fn subscription_requests_report_every_problem() {
        let policy = TargetPolicy::default();
        let error = NewSubscription::parse(&json!({}), policy).unwrap_err();
        assert_eq!(
            problems(error),
            vec![(loc("workspace_id"), "missing"), (loc("event_type"), "missing"), (loc("target_url"), "missing")]
        );
        let body = json!({"workspace_id": 5, "event_type": "project.deleted", "target_url": "https://10.0.0.1/x"});
        assert_eq!(
            problems(NewSubscription::parse(&body, policy).unwrap_err()),
            vec![(loc("workspace_id"), "string_type"), (loc("event_type"), "enum"), (loc("target_url"), "value_error")]
        );
        let body = json!({"workspace_id": "w", "event_type": "interview.finished", "target_url": " https://hooks.example.com/x "});
        let parsed = NewSubscription::parse(&body, policy).unwrap();
        assert_eq!(parsed.event_type, EventType::InterviewFinished);
        assert_eq!(parsed.target_url.as_str(), "https://hooks.example.com/x");
        assert_eq!(problems(NewSubscription::parse(&json!([1]), policy).unwrap_err()), vec![(vec!["body".into()], "dict_type")]);
    }

    #[test]
    fn delivery_filters_are_checked() {
        let pairs = |list: &[(&str, &str)]| -> Vec<(String, String)> {
            list.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect()
        };
        let id = uuid::Uuid::new_v4().to_string();
        let filter = DeliveryFilter::parse(&pairs(&[("subscription_id", &id), ("status", "failed"), ("limit", "5")])).unwrap();
        assert_eq!(filter, DeliveryFilter { subscription_id: Some(id), status: Some(DeliveryStatus::Failed), limit: 5 });
        assert_eq!(DeliveryFilter::parse(&[]).unwrap().limit, DEFAULT_DELIVERY_LIMIT);
        let error = DeliveryFilter::parse(&pairs(&[("subscription_id", "x"), ("status", "lost"), ("limit", "0")])).unwrap_err();
        let kinds: Vec<_> = problems(error).into_iter().map(|(_, kind)| kind).collect();
        assert_eq!(kinds, vec!["uuid_parsing", "enum", "greater_than_equal"]);
        let error = DeliveryFilter::parse(&pairs(&[("limit", "1001"), ("limit", "ten")])).unwrap_err();
        let kinds: Vec<_> = problems(error).into_iter().map(|(_, kind)| kind).collect();
        assert_eq!(kinds, vec!["less_than_equal", "int_parsing"]);
    }

    #[test]
    fn workspace_must_be_the_tenants_own() {
        let tenant = Tenant::authenticated_for_tests(platform::ids::TenantId::new_random());
        assert!(check_workspace(&tenant, &tenant.id().to_string()).is_ok());
        assert!(check_workspace(&tenant, &tenant.id().to_string().to_uppercase()).is_ok());
        let error = check_workspace(&tenant, &uuid::Uuid::new_v4().to_string()).unwrap_err();
        assert_eq!(error.status(), 403);
        assert_eq!(error.body()["detail"]["error"], "forbidden");
    }
}
