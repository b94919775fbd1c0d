//! An interviewee's answer (`POST /v1/sessions/{id}/answers`): the body
//! checked against the message it answers, the interviewer's next turns, and
//! both stored as one exchange; and a spoken answer turned into text
//! (`POST /v1/sessions/{id}/transcriptions`).

use super::{interviewer, project_and_turns, recordings, session_closed, strings, survey, transcription, MAX_ANSWER_CHARS};
use super::{Interview, InterviewStatus, Session, SessionState, Speaker, Turn, TurnKind, TurnSource};

use storage::Db;
use platform::error::{ApiError, ApiResult, LocPart};
use platform::llm::LlmConfig;
use projects_core as projects;
use records::store;
use platform::time;
use platform::validation::{self, Fields};
use interviewer::Plan;
use survey::SurveyAnswer;
use projects::survey::SurveyBlock;
use projects::Project;
use serde_json::Value;
use std::time::SystemTime;

/// The text of an answer: 1..5,000 characters, not only whitespace; trimmed.
pub fn answer_text(value: &Value, loc: Vec<LocPart>) -> validation::Checked<String> {
    let text = validation::text(value, loc.clone(), 1, MAX_ANSWER_CHARS)?;
    if text.trim().is_empty() {
        return Err(vec![platform::FieldError::new(loc, "string_too_short", "String should have at least 1 character")]);
    }
    Ok(text.trim().to_string())
}

/// The fields an answer may carry, each checked whenever it is present, whatever
/// the current message takes (which one that is decides later): `text` (see
/// [`answer_text`]), `choices` 1..20 options of 1..200 characters, `rating` an
/// integer 0..10 (the widest scale), `skip` a boolean, `block_id` 1..64
/// characters. Like a pydantic model whose fields are all optional: a field the
/// current message does not use is still typed, so `{"text": "…", "skip": {}}`
/// is a 422 `bool_type`, not an answer with a stray member.
pub fn check_answer_fields(body: &Value) -> ApiResult<()> {
    use projects::survey::{MAX_BLOCK_ID_CHARS, MAX_OPTIONS, MAX_OPTION_CHARS};
    let mut f = Fields::body(body)?;
    f.check("text", answer_text);
    f.check("choices", |v, l| {
        let choices = validation::list_of(v, l.clone(), 1, |v, l| validation::text(v, l, 1, MAX_OPTION_CHARS))?;
        if choices.len() > MAX_OPTIONS {
            return Err(vec![platform::FieldError::new(
                l,
                "too_long",
                format!("List should have at most {MAX_OPTIONS} items after validation, not {}", choices.len()),
            )]);
        }
        Ok(())
    });
    f.check("rating", |v, l| validation::int_in(v, l, 0, MAX_RATING));
    f.check("skip", validation::boolean);
    f.check("block_id", |v, l| validation::text(v, l, 1, MAX_BLOCK_ID_CHARS));
    f.finish()
}

/// The top of the widest rating scale (`0-10`).
pub const MAX_RATING: i64 = 10;

/// `{"text": "..."}` of an interview answer (the other answer fields typed too:
/// [`check_answer_fields`]). A well-formed answer of another kind (choices, a
/// rating, a skip) is a 409 [`answer_mismatch`]: an interview question takes text.
pub fn parse_answer(body: &Value) -> ApiResult<String> {
    check_answer_fields(body)?;
    let mut f = Fields::body(body)?;
    if !f.has("text") {
        if let Some(given) = answer_kind(body) {
            return Err(answer_mismatch(given, "a text answer: {\"text\": \"...\"}"));
        }
    }
    let text = f.require("text", answer_text);
    f.finish()?;
    Ok(text.unwrap_or_default())
}

/// The kind of answer a body carries besides text, if any: `choices`, `rating`
/// or `skip` (only `"skip": true` skips).
pub fn answer_kind(body: &Value) -> Option<&'static str> {
    ["choices", "rating"]
        .into_iter()
        .find(|name| body.get(name).is_some())
        .or_else(|| (body.get("skip") == Some(&Value::Bool(true))).then_some("skip"))
}

/// 409 `answer_mismatch`: a well-formed answer of a kind the current message
/// does not take (its fields were checked first), which depends on the
/// session's state, not on the request: choices for an interview question,
/// text for a rating block, a skip of a block that must be answered.
pub fn answer_mismatch(given: &str, expected: &str) -> ApiError {
    ApiError::conflict(
        "answer_mismatch",
        format!("This answer gives {given}, but the current message takes {expected}; see the session's last turn"),
    )
}

/// `POST /v1/sessions/{id}/answers`: checks the answer (against the current
/// block, for a survey), then stores it with the interviewer's next turns; the
/// model (when configured) is asked outside any write.
pub fn answer(db: &Db, interview: &Interview, body: &Value, llm: &LlmConfig) -> ApiResult<Session> {
    interview.ensure_running()?;
    if interview.interviewer_closed {
        return Err(session_closed());
    }
    let (project, mut turns) = project_and_turns(db, interview)?;
    let now = time::now();
    let answered = |kind, question_index, text: String| Turn {
        seq: interview.turn_count,
        speaker: Speaker::Interviewee,
        kind,
        question_index,
        source: TurnSource::Interviewee,
        text,
        created_at: time::rfc3339(now),
    };
    let answering = Answering { db, interview, project: &project, llm };
    let exchange = match &project.fields.survey_blocks {
        Some(blocks) => answering.survey(blocks, &mut turns, body, answered)?,
        None => answering.conversation(&mut turns, body, now, answered)?,
    };
    let stored_at = time::now();
    let (now, now_ms) = (time::rfc3339(stored_at), time::unix_millis(stored_at));
    let (stored, counted) = store_exchange(db, interview, &exchange, &now, now_ms)?;
    // The session as it is now, from what was read and written: no second read.
    turns.retain(|turn| turn.seq < interview.turn_count);
    turns.extend(stored.iter().enumerate().map(|(offset, turn)| Turn {
        seq: interview.turn_count + offset as i64,
        speaker: turn.speaker,
        kind: turn.kind,
        question_index: turn.question_index,
        source: turn.source,
        text: turn.text.to_string(),
        created_at: now.clone(),
    }));
    let interview = after_exchange(interview, stored.len(), counted, now_ms);
    Ok(Session { project, interview, turns })
}

/// An answer and the interviewer's replies to it, before they are stored.
struct Exchange {
    answer: Turn,
    /// A survey block's structured answer, as stored with its turn.
    structured: Option<Value>,
    replies: Vec<interviewer::Message>,
}

/// What an answer is given to: the session, its project, the configured model.
struct Answering<'a> {
    db: &'a Db,
    interview: &'a Interview,
    project: &'a Project,
    llm: &'a LlmConfig,
}

impl Answering<'_> {
    /// A survey's answer to its current block, and the next block (or the block's
    /// follow-up, worded by the model when configured).
    fn survey(
        &self,
        blocks: &[SurveyBlock],
        turns: &mut Vec<Turn>,
        body: &Value,
        answered: impl Fn(TurnKind, Option<usize>, String) -> Turn,
    ) -> ApiResult<Exchange> {
        let Answering { db, interview, project, llm } = *self;
        let strings = strings::for_language(interview.language.as_str());
        let (index, follow_up) = survey::current(turns).ok_or_else(session_closed)?;
        let block = blocks.get(index).ok_or_else(|| {
            ApiError::conflict("survey_changed", "The survey changed while it was being taken; please start again")
        })?;
        let answer = SurveyAnswer::parse(block, follow_up, body)?;
        let kind = if answer == SurveyAnswer::Skip { TurnKind::Skip } else { TurnKind::Answer };
        let turn = answered(kind, Some(index), answer.transcript_text(block));
        let mut replies = survey::next(blocks, index, follow_up, &answer, &strings.interviewer);
        if replies[0].kind == TurnKind::FollowUp {
            turns.push(turn.clone());
            let step = replies.remove(0);
            let llm = projects::model_calls::admit(db, project.project_id, llm)?;
            let plan = Plan::for_project(&project.fields, interview.language);
            replies.insert(0, interviewer::word_with_model(&plan, turns, step, &llm));
        }
        Ok(Exchange { answer: turn, structured: if follow_up { None } else { answer.stored() }, replies })
    }

    /// A conversation's answer to the interviewer's last message, and the
    /// interviewer's reply.
    fn conversation(
        &self,
        turns: &mut Vec<Turn>,
        body: &Value,
        now: SystemTime,
        answered: impl Fn(TurnKind, Option<usize>, String) -> Turn,
    ) -> ApiResult<Exchange> {
        let Answering { db, interview, project, llm } = *self;
        let text = parse_answer(body)?;
        let last = turns
            .iter()
            .rev()
            .find(|t| t.speaker == Speaker::Interviewer)
            .cloned()
            .ok_or_else(|| ApiError::internal(anyhow::anyhow!("interview {} has no opening", interview.interview_id)))?;
        let elapsed_minutes = (time::unix_millis(now) - interview.created_ms) as f64 / 60_000.0;
        let turn = answered(TurnKind::Answer, interviewer::answered_question(&last), text);
        turns.push(turn.clone());
        let llm = projects::model_calls::admit(db, project.project_id, llm)?;
        let plan = Plan::for_project(&project.fields, interview.language);
        let strings = strings::for_language(interview.language.as_str());
        let reply = interviewer::reply(&plan, &strings.interviewer, turns, elapsed_minutes, &llm);
        Ok(Exchange { answer: turn, structured: None, replies: vec![reply] })
    }
}

/// Stores the answer and its replies in one guarded transaction: refused
/// (409) when the session ended or another answer to the same message came
/// first. Returns the turns as stored and what they counted.
fn store_exchange<'e>(
    db: &Db,
    interview: &Interview,
    exchange: &'e Exchange,
    now: &str,
    now_ms: i64,
) -> ApiResult<(Vec<store::NewTurn<'e>>, store::Counted)> {
    let answer = &exchange.answer;
    let mut turns = vec![store::NewTurn {
        speaker: Speaker::Interviewee,
        kind: answer.kind,
        question_index: answer.question_index,
        source: TurnSource::Interviewee,
        text: &answer.text,
        answer: exchange.structured.as_ref(),
    }];
    turns.extend(exchange.replies.iter().map(super::interviewer_turn));
    let counted = store::Counted {
        answered: answer.kind == TurnKind::Answer,
        answered_block: exchange.structured.is_some(),
        closes: exchange.replies.iter().any(|reply| reply.kind == TurnKind::Closing),
    };
    let appended = db.guarded_transaction(|tx| {
        store::append_exchange(tx, interview.interview_id, interview.turn_count, &turns, counted, now, now_ms)
    })?;
    if appended.is_none() {
        // Ended, or another answer to the same message came first.
        return Err(match store::find(db, interview.interview_id)? {
            Some(current) if current.state == SessionState::InProgress && !current.interviewer_closed => ApiError::conflict(
                "answer_conflict",
                "Another answer to this message was stored first; reload the session to see it",
            ),
            _ => session_closed(),
        });
    }
    Ok((turns, counted))
}

/// The interview as the stored exchange of `turns` turns left it.
fn after_exchange(interview: &Interview, turns: usize, counted: store::Counted, now_ms: i64) -> Interview {
    let mut updated = interview.clone();
    updated.turn_count += turns as i64;
    updated.response_count += counted.answered as i64;
    updated.answered_blocks += counted.answered_block as i64;
    updated.interviewer_closed = counted.closes;
    updated.last_activity_ms = updated.last_activity_ms.max(now_ms);
    updated.interview_status = InterviewStatus::of(
        updated.state,
        updated.project_type,
        updated.response_count,
        updated.answerable_blocks,
        updated.answered_blocks,
    );
    updated
}

/// `POST /v1/sessions/{id}/transcriptions`: a model call, counted against the
/// project's daily budget (spent: 503, and the page asks for typing).
pub fn transcribe(db: &Db, interview: &Interview, content_type: Option<&str>, audio: &[u8], llm: &LlmConfig) -> ApiResult<String> {
    interview.ensure_running()?;
    let content_type = recordings::content_type(recordings::RecordingKind::Audio, content_type)?;
    if audio.is_empty() {
        return Err(ApiError::Validation(vec![platform::FieldError::new(vec!["body".into()], "missing", "Field required")]));
    }
    let llm = match transcription::available(llm) {
        true => projects::model_calls::admit(db, interview.project_id, llm)?,
        false => llm.clone(),
    };
    transcription::transcribe(&llm, &transcription::model(), &content_type, audio).map_err(|error| {
        eprintln!("transcription for interview {}: {error}", interview.interview_id);
        ApiError::Unavailable {
            code: "transcription_unavailable",
            message: "Speech could not be turned into text; please type your answer".into(),
        }
    })
}
