//! The interview record: an interview (one interviewee session) and its turns,
//! as stored. It is the one owner of the `interviews`, `interview_turns` and
//! `interview_metadata` rows and of the erased interviews' tombstones: the
//! areas that read or write them (`sessions` runs an interview, `interviews`
//! lists, exports, flags and erases them, `synthesis` reads what was said) do
//! it through [`store`], with the row types declared here, once.
//!
//! Submodules: [`store`] (the SQL; its `list` the interview list's statement),
//! [`quality`] (an interview's quality signals, as stored with it), [`query`]
//! (the interview list's filters and cursor, parsed). Its recording chunks are
//! sealed with the interview's own key by `sealing`.

pub mod quality;
pub mod query;
pub mod store;

use platform::ids::InterviewId;
use platform::ids::ProjectId;
use platform::ids::TenantId;
use self::quality::Quality;
use platform::error::{ApiError, ApiResult};
use platform::metadata::ExternalMetadata;
use projects_core::{Environment, InterviewMode, Language, ProjectType};
use text_enum::text_enum;

text_enum! {
    /// Where a session stands. Every state but `in_progress` is final.
    pub enum SessionState {
        InProgress = "in_progress",
        /// Finished after the interviewer closed the conversation.
        Completed = "completed",
        /// Finished by the interviewee before the interviewer closed it.
        Left = "left",
        /// No activity for the idle timeout.
        TimedOut = "timed_out",
    }
}

text_enum! {
    pub enum Speaker { Interviewer = "interviewer", Interviewee = "interviewee" }
}

text_enum! {
    /// What a turn is: the interviewer's opening (with the first question), a
    /// research question, a follow-up probe on an answer, the wrap-up, a survey block,
    /// a follow-up on a survey answer, the closing; or the interviewee's answer
    /// (or skip of an optional survey block).
    pub enum TurnKind {
        Opening = "opening",
        Question = "question",
        Probe = "probe",
        WrapUp = "wrap_up",
        Block = "block",
        FollowUp = "follow_up",
        Closing = "closing",
        Answer = "answer",
        Skip = "skip",
    }
}

text_enum! {
    /// Who wrote a turn's text.
    pub enum TurnSource { BuiltIn = "builtin", Model = "model", Interviewee = "interviewee" }
}

text_enum! {
    pub enum DeviceType { Mobile = "MOBILE", Desktop = "DESKTOP" }
}

text_enum! {
    /// The contract's derived `interview_status` ([`InterviewStatus::of`]).
    pub enum InterviewStatus { Initiated = "INITIATED", Partial = "PARTIAL", Completed = "COMPLETED" }
}

impl InterviewStatus {
    /// COMPLETED once the interview is completed; before, PARTIAL when the
    /// interviewee gave four answers (an interview) or answered a third of the
    /// blocks that take an answer (a survey), INITIATED otherwise. An interview
    /// that ended early keeps the status it had.
    pub fn of(state: SessionState, project_type: ProjectType, responses: i64, answerable_blocks: i64, answered_blocks: i64) -> InterviewStatus {
        let partial = if project_type == ProjectType::Survey {
            answerable_blocks > 0 && answered_blocks * 3 >= answerable_blocks
        } else {
            responses >= 4
        };
        match (state, partial) {
            (SessionState::Completed, _) => InterviewStatus::Completed,
            (_, true) => InterviewStatus::Partial,
            (_, false) => InterviewStatus::Initiated,
        }
    }
}

/// One message of the conversation: a row of `interview_turns`. Its texts are
/// `String`s where a turn is kept (a session), or `&str`s borrowed from the
/// statement's result where many are read once (an export page, a synthesis).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn<T = String> {
    pub seq: i64,
    pub speaker: Speaker,
    pub kind: TurnKind,
    /// The research question (or survey block) the turn belongs to.
    pub question_index: Option<usize>,
    pub source: TurnSource,
    pub text: T,
    pub created_at: T,
}

/// A stored interview (one interviewee session): a row of `interviews`.
#[derive(Debug, Clone)]
pub struct Interview {
    pub interview_id: InterviewId,
    pub tenant_id: TenantId,
    pub project_id: ProjectId,
    pub project_type: ProjectType,
    pub environment: Environment,
    pub session_token_hash: String,
    pub identifier: String,
    pub country_code: String,
    pub device_type: DeviceType,
    pub language: Language,
    pub mode: InterviewMode,
    pub external_metadata: ExternalMetadata,
    pub state: SessionState,
    pub interviewer_closed: bool,
    pub response_count: i64,
    pub turn_count: i64,
    /// Surveys: blocks that take an answer, and how many are answered.
    pub answerable_blocks: i64,
    pub answered_blocks: i64,
    pub opt_in_for_followup: bool,
    pub summary: Option<String>,
    pub created_at: String,
    pub created_ms: i64,
    pub last_activity_ms: i64,
    pub ended_at: Option<String>,
    pub closed_at: Option<String>,
    /// Flagged as fraud by the tenant (it then does not count toward `max_interviews`).
    pub flagged: bool,
    pub interview_status: InterviewStatus,
    /// Its answers' quality signals, decided when it ended (none while it runs).
    pub quality: Option<Quality>,
    /// How its recording chunks are stored: sealed with its own key (`sealing`).
    pub sealing: sealing::Sealing,
}

impl Interview {
    /// Whether it counts toward its project's `max_interviews`: a completed
    /// production interview that is not flagged.
    pub fn counts_toward_max(&self) -> bool {
        self.state == SessionState::Completed && self.environment == Environment::Production && !self.flagged
    }

    /// Refuses any change to a session that has ended.
    pub fn ensure_running(&self) -> ApiResult<()> {
        if self.state == SessionState::InProgress {
            Ok(())
        } else {
            Err(session_closed())
        }
    }
}

/// The refusal of a change to an interview whose session has ended.
pub fn session_closed() -> ApiError {
    ApiError::conflict("session_closed", "This interview has ended; it takes no more answers or recordings")
}

impl Turn<&str> {
    /// The turn with texts of its own, to keep.
    pub fn to_owned(&self) -> Turn {
        Turn {
            seq: self.seq,
            speaker: self.speaker,
            kind: self.kind,
            question_index: self.question_index,
            source: self.source,
            text: self.text.to_string(),
            created_at: self.created_at.to_string(),
        }
    }
}
