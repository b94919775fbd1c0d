//! The outbox: an event is written in the transaction of the change that
//! raises it, with one delivery per subscription of its tenant and type that
//! is confirmed (or failing) at that moment; the dispatcher sends them later.
//! An event raised before a subscription was confirmed is never sent to it.

use super::{store, EventType};
use crate::db::Tx;
use crate::error::ApiResult;
use serde_json::{json, Value};

/// An event, as its receivers get it: the payload is the exact JSON body POSTed
/// (docs/webhooks.md), its members in the order they are written.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub event_id: String,
    pub tenant_id: String,
    pub event_type: EventType,
    pub payload: Value,
    /// When it happened (RFC 3339, UTC): the payload's own time member too.
    pub at: String,
}

impl Event {
    fn new(tenant_id: &str, event_type: EventType, payload: Value, at: &str) -> Event {
        Event {
            event_id: uuid::Uuid::new_v4().to_string(),
            tenant_id: tenant_id.to_string(),
            event_type,
            payload,
            at: at.to_string(),
        }
    }

    /// A project became active (its first publication, or a resume).
    pub fn project_published(tenant_id: &str, project_id: &str, at: &str) -> Event {
        let payload = json!({"project_id": project_id, "event_type": EventType::ProjectPublished, "published_at": at});
        Event::new(tenant_id, EventType::ProjectPublished, payload, at)
    }

    /// A project became completed (by request, or its `max_interviews` reached).
    pub fn project_completed(tenant_id: &str, project_id: &str, at: &str) -> Event {
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
}

/// What `interview.finished` says about the interview.
pub struct FinishedInterview<'a> {
    pub tenant_id: &'a str,
    pub project_id: &'a str,
    pub interview_id: &'a str,
    pub identifier: &'a str,
    pub interview_status: &'a str,
    pub environment: &'a str,
}

/// Writes `event` and its deliveries, in the caller's transaction; returns the
/// number of deliveries it fanned out to.
pub fn emit(tx: &Tx, event: &Event) -> ApiResult<usize> {
    store::insert_event(tx, event)?;
    let subscriptions = store::subscriptions_to_notify(tx, &event.tenant_id, event.event_type)?;
    store::insert_deliveries(tx, event, &subscriptions)?;
    Ok(subscriptions.len())
}
