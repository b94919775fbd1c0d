//! A survey taken through the session API (docs/surveys.md): the interviewer
//! presents one block at a time (statements are shown on the way to the next
//! question, never answered), checks each answer against its block, asks one
//! follow-up on open questions that want it, and closes after the last block.

use super::interviewer::{self, Message, Plan};
use super::strings::InterviewerStrings;
use super::{Speaker, Turn, TurnKind, TurnSource};
use platform::error::{ApiError, ApiResult, FieldError};
use projects_core::survey::{BlockType, RatingScale, SurveyBlock};
use platform::validation::{self, boolean, Fields};
use serde_json::{json, Value};

/// What the interviewee sent for the current block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SurveyAnswer {
    Text(String),
    Choices(Vec<String>),
    Rating(i64),
    Skip,
}

impl SurveyAnswer {
    /// The body of an answer to `block` (or to its follow-up): `{"text"}` for open
    /// questions and follow-ups, `{"choices": [...]}` for choice blocks, `{"rating": n}`
    /// for ratings, `{"skip": true}` for a block that is not required.
    pub fn parse(block: &SurveyBlock, follow_up: bool, body: &Value) -> ApiResult<SurveyAnswer> {
        super::check_answer_fields(body)?;
        let mut f = Fields::body(body)?;
        // Optional: the block the answer is meant for. Another block is a 409, so a
        // stale page never stores its answer in the wrong place.
        if let Some(meant) = f.check("block_id", |v, l| validation::text(v, l, 1, 64)) {
            if meant != block.block_id {
                return Err(ApiError::conflict(
                    "block_mismatch",
                    format!("This answer is for block {meant:?}, but the survey is at {:?}; reload the session", block.block_id),
                ));
            }
        }
        let kind = if follow_up { BlockType::OpenQuestion } else { block.kind };
        let (field, expected) = match kind {
            BlockType::OpenQuestion | BlockType::Statement => ("text", "a text answer: {\"text\": \"...\"}"),
            BlockType::SingleChoice | BlockType::MultipleChoice => ("choices", "choices: {\"choices\": [\"...\"]}"),
            BlockType::Rating => ("rating", "a rating: {\"rating\": n}"),
        };
        if !follow_up && f.check("skip", boolean) == Some(true) {
            f.finish()?;
            if block.required {
                return Err(super::answer_mismatch("a skip", &format!("{expected} (this block must be answered)")));
            }
            return Ok(SurveyAnswer::Skip);
        }
        // A well-formed answer of another kind: 409, as for an interview.
        if !f.has(field) {
            let given = ["text", "choices", "rating"].into_iter().find(|name| f.has(name));
            if let Some(given) = given.or_else(|| super::answer_kind(body)) {
                return Err(super::answer_mismatch(given, expected));
            }
        }
        let answer = match kind {
            BlockType::OpenQuestion | BlockType::Statement => {
                f.require("text", super::answer_text).map(SurveyAnswer::Text)
            }
            BlockType::SingleChoice | BlockType::MultipleChoice => {
                let options: Vec<&str> = block.options().iter().map(String::as_str).collect();
                let choices = f.require("choices", |v, l| {
                    let min = 1;
                    let choices = validation::list_of(v, l.clone(), min, |v, l| validation::enum_text(v, l, &options))?;
                    let single = kind == BlockType::SingleChoice;
                    let repeated = (1..choices.len()).any(|i| choices[..i].contains(&choices[i]));
                    if (single && choices.len() != 1) || repeated {
                        let expected = if single { "exactly one option" } else { "options, each once" };
                        return Err(vec![FieldError::new(l, "value_error", format!("Value error, choose {expected}"))]);
                    }
                    Ok(choices)
                });
                choices.map(SurveyAnswer::Choices)
            }
            BlockType::Rating => {
                let (min, max) = block.scale.unwrap_or(RatingScale::OneToFive).bounds();
                f.require("rating", |v, l| validation::int_in(v, l, min, max)).map(SurveyAnswer::Rating)
            }
        };
        f.finish()?;
        Ok(answer.unwrap_or(SurveyAnswer::Skip))
    }

    /// How the answer reads in the transcript.
    pub fn transcript_text(&self, block: &SurveyBlock) -> String {
        match self {
            SurveyAnswer::Text(text) => text.clone(),
            SurveyAnswer::Choices(choices) => choices.join("; "),
            SurveyAnswer::Rating(rating) => {
                let (_, max) = block.scale.unwrap_or(RatingScale::OneToFive).bounds();
                format!("{rating}/{max}")
            }
            SurveyAnswer::Skip => "(skipped)".to_string(),
        }
    }

    /// The structured answer stored with the turn (none for a skip).
    pub fn stored(&self) -> Option<Value> {
        match self {
            SurveyAnswer::Text(text) => Some(json!({ "text": text })),
            SurveyAnswer::Choices(choices) => Some(json!({ "choices": choices })),
            SurveyAnswer::Rating(rating) => Some(json!({ "rating": rating })),
            SurveyAnswer::Skip => None,
        }
    }
}

fn builtin(kind: TurnKind, question_index: Option<usize>, text: String) -> Message {
    Message { kind, question_index, text, source: TurnSource::BuiltIn }
}

/// The turns presenting the blocks from `from` on: each statement, then the next
/// answerable block; the closing when no block is left.
pub fn present_from(blocks: &[SurveyBlock], from: usize, strings: &InterviewerStrings) -> Vec<Message> {
    let mut turns = Vec::new();
    for (index, block) in blocks.iter().enumerate().skip(from) {
        turns.push(builtin(TurnKind::Block, Some(index), block.prompt.clone()));
        if block.is_answerable() {
            return turns;
        }
    }
    turns.push(builtin(TurnKind::Closing, None, strings.closing.clone()));
    turns
}

/// The first turns: the introduction, then the first block(s).
pub fn opening(plan: &Plan, blocks: &[SurveyBlock], strings: &InterviewerStrings) -> Vec<Message> {
    let mut turns = vec![builtin(TurnKind::Opening, None, interviewer::introduction(plan, strings))];
    turns.extend(present_from(blocks, 0, strings));
    turns
}

/// The block the interviewee answers now, and whether it is the follow-up on it.
pub fn current(turns: &[Turn]) -> Option<(usize, bool)> {
    let last = turns.iter().rev().find(|t| t.speaker == Speaker::Interviewer)?;
    match last.kind {
        TurnKind::Block => last.question_index.map(|i| (i, false)),
        TurnKind::FollowUp => last.question_index.map(|i| (i, true)),
        _ => None,
    }
}

/// The interviewer's turns after an answer to block `index` (or to its follow-up).
pub fn next(
    blocks: &[SurveyBlock],
    index: usize,
    follow_up: bool,
    answer: &SurveyAnswer,
    strings: &InterviewerStrings,
) -> Vec<Message> {
    let wants_follow_up = blocks.get(index).is_some_and(|b| b.ai_follow_up) && matches!(answer, SurveyAnswer::Text(_));
    if !follow_up && wants_follow_up {
        let probe = &strings.probes[index % strings.probes.len().max(1)];
        return vec![builtin(TurnKind::FollowUp, Some(index), probe.clone())];
    }
    present_from(blocks, index + 1, strings)
}

/// The built-in summary: each answerable block with its answer (and the
/// follow-up answer), `(skipped)` or `(not reached)`.
pub fn builtin_summary(blocks: &[SurveyBlock], turns: &[Turn]) -> String {
    let mut lines = Vec::new();
    let mut number = 0;
    for (index, block) in blocks.iter().enumerate().filter(|(_, b)| b.is_answerable()) {
        number += 1;
        lines.push(format!("{number}. {}", block.prompt));
        let said: Vec<&Turn> =
            turns.iter().filter(|t| t.speaker == Speaker::Interviewee && t.question_index == Some(index)).collect();
        lines.push(match said.as_slice() {
            [] => "   (not reached)".to_string(),
            [first, rest @ ..] if first.kind == TurnKind::Skip || rest.is_empty() => format!("   {}", first.text),
            [first, rest @ ..] => {
                let more: Vec<&str> = rest.iter().map(|t| t.text.as_str()).collect();
                format!("   {} (follow-up: {})", first.text, more.join(" "))
            }
        });
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use projects_core::survey::blocks_rule;
    use crate::strings;

    fn blocks() -> Vec<SurveyBlock> {
        blocks_rule(
            &json!([
                {"block_id": "hello", "type": "statement", "prompt": "Welcome to our short survey."},
                {"block_id": "why", "type": "open_question", "prompt": "Why did you sign up?", "ai_follow_up": true},
                {"block_id": "note", "type": "statement", "prompt": "Two quick ones now."},
                {"block_id": "plan", "type": "single_choice", "prompt": "Your plan?", "options": ["Free", "Pro"], "required": false},
                {"block_id": "tools", "type": "multiple_choice", "prompt": "Tools you use?", "options": ["A", "B", "C"]},
                {"block_id": "nps", "type": "rating", "prompt": "Recommend us?", "scale": "0-10"}
            ]),
            vec!["body".into(), "survey_blocks".into()],
        )
        .unwrap()
    }

    fn kinds(messages: &[Message]) -> Vec<(TurnKind, Option<usize>)> {
        messages.iter().map(|m| (m.kind, m.question_index)).collect()
    }

    #[test]
    fn statements_are_shown_on_the_way_to_the_next_question() {
        let en = strings::for_language("en").interviewer;
        let blocks = blocks();
        assert_eq!(kinds(&present_from(&blocks, 0, &en)), vec![(TurnKind::Block, Some(0)), (TurnKind::Block, Some(1))]);
        assert_eq!(kinds(&present_from(&blocks, 2, &en)), vec![(TurnKind::Block, Some(2)), (TurnKind::Block, Some(3))]);
        assert_eq!(kinds(&present_from(&blocks, 6, &en)), vec![(TurnKind::Closing, None)]);
        let follow = next(&blocks, 1, false, &SurveyAnswer::Text("Curiosity".into()), &en);
        assert_eq!(kinds(&follow), vec![(TurnKind::FollowUp, Some(1))]);
        let after = next(&blocks, 1, true, &SurveyAnswer::Text("More".into()), &en);
        assert_eq!(kinds(&after), vec![(TurnKind::Block, Some(2)), (TurnKind::Block, Some(3))]);
        assert_eq!(kinds(&next(&blocks, 5, false, &SurveyAnswer::Rating(9), &en)), vec![(TurnKind::Closing, None)]);
    }

    #[test]
    fn answers_are_checked_against_their_block() {
        let blocks = blocks();
        let parse = |i: usize, body: Value| SurveyAnswer::parse(&blocks[i], false, &body);
        let kind = |r: ApiResult<SurveyAnswer>| match r {
            Err(ApiError::Validation(e)) => (e[0].loc.clone(), e[0].kind),
            other => panic!("expected 422, got {other:?}"),
        };
        assert_eq!(parse(3, json!({"choices": ["Pro"]})).unwrap(), SurveyAnswer::Choices(vec!["Pro".into()]));
        assert_eq!(parse(3, json!({"skip": true})).unwrap(), SurveyAnswer::Skip);
        assert_eq!(kind(parse(3, json!({"choices": ["Pro", "Free"]}))).1, "value_error");
        assert_eq!(kind(parse(3, json!({"choices": ["Gold"]}))), (vec!["body".into(), "choices".into(), 0.into()], "enum"));
        assert_eq!(parse(4, json!({"choices": ["C", "A"]})).unwrap(), SurveyAnswer::Choices(vec!["C".into(), "A".into()]));
        let mismatch = |r: ApiResult<SurveyAnswer>| match r {
            Err(error) => (error.status(), error.body()["detail"]["error"].clone()),
            other => panic!("expected 409, got {other:?}"),
        };
        assert_eq!(mismatch(parse(4, json!({"skip": true}))), (409, json!("answer_mismatch")), "a required block");
        assert_eq!(kind(parse(4, json!({"choices": []}))).1, "too_short");
        assert_eq!(parse(5, json!({"rating": 0})).unwrap(), SurveyAnswer::Rating(0));
        assert_eq!(kind(parse(5, json!({"rating": 11}))).1, "less_than_equal");
        assert_eq!(mismatch(parse(5, json!({"text": "ten"}))), (409, json!("answer_mismatch")), "text for a rating");
        assert_eq!(mismatch(parse(3, json!({"rating": 2}))), (409, json!("answer_mismatch")), "a rating for choices");
        assert_eq!(kind(parse(5, json!({}))).1, "missing", "no answer at all");
        assert_eq!(kind(parse(5, json!({"skip": false}))).1, "missing");
        let follow_up = SurveyAnswer::parse(&blocks[1], true, &json!({"skip": true}));
        assert_eq!(mismatch(follow_up), (409, json!("answer_mismatch")), "a follow-up takes text");
        assert_eq!(kind(parse(1, json!({"text": "  "}))).1, "string_too_short");
        assert_eq!(SurveyAnswer::parse(&blocks[5], true, &json!({"text": "why"})).unwrap(), SurveyAnswer::Text("why".into()));
        assert_eq!(parse(5, json!({"block_id": "nps", "rating": 3})).unwrap(), SurveyAnswer::Rating(3));
        assert_eq!(parse(5, json!({"block_id": "plan", "rating": 3})).unwrap_err().status(), 409);
        assert_eq!(SurveyAnswer::Rating(7).transcript_text(&blocks[5]), "7/10");
        assert_eq!(SurveyAnswer::Choices(vec!["A".into(), "C".into()]).stored(), Some(json!({"choices": ["A", "C"]})));
    }

    #[test]
    fn the_summary_covers_every_answerable_block() {
        let blocks = blocks();
        let turn = |seq: i64, speaker, kind, index: usize, text: &str| Turn {
            seq,
            speaker,
            kind,
            question_index: Some(index),
            source: TurnSource::Interviewee,
            text: text.into(),
            created_at: String::new(),
        };
        let turns = vec![
            turn(1, Speaker::Interviewee, TurnKind::Answer, 1, "Curiosity"),
            turn(2, Speaker::Interviewer, TurnKind::FollowUp, 1, "More?"),
            turn(3, Speaker::Interviewee, TurnKind::Answer, 1, "A friend told me"),
            turn(4, Speaker::Interviewee, TurnKind::Skip, 3, "(skipped)"),
        ];
        assert_eq!(
            builtin_summary(&blocks, &turns),
            "1. Why did you sign up?\n   Curiosity (follow-up: A friend told me)\n2. Your plan?\n   (skipped)\n\
             3. Tools you use?\n   (not reached)\n4. Recommend us?\n   (not reached)"
        );
        assert_eq!(current(&turns), Some((1, true)));
    }
}
