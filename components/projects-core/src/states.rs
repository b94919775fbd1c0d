//! A project's states and what moves it: draft -> active (activate) <->
//! paused (deactivate / activate) -> completed (complete, or its completed
//! production interviews reaching `max_interviews`). Each move is one
//! transaction with the event it raises: `project.published` on every move
//! into active, `project.completed` into completed.

use platform::ids::ProjectId;
use platform::ids::TenantId;
use super::{store, Status};
use storage::{Db, Tx};
use platform::error::{ApiError, ApiResult};
use platform::time;
use webhooks_core::{self as webhooks, Event};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Activate,
    Deactivate,
    Complete,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Move to the action's target state (and raise its event, if any).
    Move,
    /// Already there: 200 without a change or an event.
    Stay,
    /// 409 invalid_state with this message.
    Refuse(String),
}

impl Action {
    pub fn target(self) -> Status {
        match self {
            Action::Activate => Status::Active,
            Action::Deactivate => Status::Paused,
            Action::Complete => Status::Completed,
        }
    }

    /// The states this action moves a project out of.
    pub fn sources(self) -> &'static [Status] {
        match self {
            Action::Activate => &[Status::Draft, Status::Paused],
            Action::Deactivate => &[Status::Active],
            Action::Complete => &[Status::Draft, Status::Active, Status::Paused],
        }
    }

    /// draft -> active (activate) -> paused (deactivate) -> active ...; any state but
    /// completed -> completed (complete). Activating an active project is a no-op.
    pub fn decide(self, current: Status) -> Decision {
        if self.sources().contains(&current) {
            return Decision::Move;
        }
        match (self, current) {
            (Action::Activate, Status::Active) => Decision::Stay,
            (Action::Activate, _) => Decision::Refuse("A completed project cannot be activated".into()),
            (Action::Deactivate, state) => Decision::Refuse(format!(
                "Only an active project can be deactivated; this project is {}",
                state.as_str()
            )),
            (Action::Complete, _) => Decision::Refuse("The project is already completed".into()),
        }
    }
}

pub fn invalid_state(message: impl Into<String>) -> ApiError {
    ApiError::conflict("invalid_state", message)
}

/// `POST /v1/projects/{id}/activate|deactivate|complete`: the state after the
/// request. 404 for another tenant's project, 409 for a move the state refuses.
pub fn change_state(db: &Db, tenant_id: TenantId, project_id: ProjectId, action: Action) -> ApiResult<Status> {
    db.transaction(|tx| {
        let current = store::openness(tx, tenant_id, project_id)?.ok_or_else(store::not_found)?.status;
        match action.decide(current) {
            Decision::Stay => Ok(current),
            Decision::Refuse(message) => Err(invalid_state(message)),
            Decision::Move => {
                move_to(tx, tenant_id, project_id, action.target(), &time::rfc3339_now())?;
                Ok(action.target())
            }
        }
    })
}

/// Moves the project into `status` and raises the event that state has, if any.
fn move_to(tx: &Tx, tenant_id: TenantId, project_id: ProjectId, status: Status, at: &str) -> ApiResult<()> {
    store::set_status(tx, project_id, status, at)?;
    let event = match status {
        Status::Active => Event::project_published(tenant_id, project_id, at),
        Status::Completed => Event::project_completed(tenant_id, project_id, at),
        Status::Draft | Status::Paused => return Ok(()),
    };
    webhooks::emit(tx, &event).map(drop)
}

/// What decides whether a project takes a new interview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Openness {
    pub status: Status,
    pub max_interviews: Option<i64>,
    /// Completed, unflagged production interviews.
    pub completed_interviews: i64,
}

impl Openness {
    /// Its production interviews reached `max_interviews`.
    pub fn full(&self) -> bool {
        self.max_interviews.is_some_and(|max| self.completed_interviews >= max)
    }
}

/// A completed production interview (not flagged) counts toward
/// `max_interviews`; the one that reaches it completes an active or paused
/// project, raising `project.completed`. In the transaction that ends the
/// interview.
pub fn count_completed_interview(tx: &Tx, project_id: ProjectId, at: &str) -> ApiResult<()> {
    let (tenant_id, openness) = store::add_completed_interview(tx, project_id, 1)?;
    if openness.full() && matches!(openness.status, Status::Active | Status::Paused) {
        move_to(tx, tenant_id, project_id, Status::Completed, at)?;
    }
    Ok(())
}

/// A completed production interview flagged as fraud no longer counts (a
/// project it completed stays completed).
pub fn uncount_completed_interview(tx: &Tx, project_id: ProjectId) -> ApiResult<()> {
    store::add_completed_interview(tx, project_id, -1).map(drop)
}
