//! The screener step: the blocks of a project's `screeners` the page can show,
//! and whether an interviewee's answers qualify (docs/sessions.md, "Screeners").
//!
//! Projects store any `screeners` object (the contract does not show its inner
//! structure); a project whose blocks do not follow this format skips the step.

use platform::error::{FieldError, LocPart};
use text_enum::text_enum;
use serde::Serialize;
use serde_json::{Map, Value};

pub const MAX_QUESTION_CHARS: usize = 1_000;
pub const MAX_OPTION_CHARS: usize = 200;
pub const MIN_OPTIONS: usize = 2;
pub const MAX_OPTIONS: usize = 20;

text_enum! {
    pub enum ChoiceType { Single = "single_choice", Multiple = "multiple_choice" }
}

/// One screener question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ScreenerBlock {
    pub question: String,
    #[serde(rename = "type")]
    pub choice: ChoiceType,
    pub options: Vec<String>,
    /// Never sent to the page.
    #[serde(skip)]
    pub qualifying_options: Vec<String>,
}

/// What the project's screeners mean for a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ScreenerStep {
    /// No screeners, or no blocks.
    None,
    Blocks(Vec<ScreenerBlock>),
    /// Blocks the page cannot show: the step is skipped (and this is logged).
    Unrenderable(String),
}

/// Whether the interviewee may go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Qualified,
    ScreenedOut,
}

fn strings(value: Option<&Value>, what: &str) -> Result<Vec<String>, String> {
    let items = value.and_then(Value::as_array).ok_or_else(|| format!("{what} is not a list"))?;
    items
        .iter()
        .map(|item| match item.as_str().map(str::trim) {
            Some(text) if !text.is_empty() && text.chars().count() <= MAX_OPTION_CHARS => Ok(text.to_string()),
            _ => Err(format!("{what} holds something that is not a text of 1..{MAX_OPTION_CHARS} characters")),
        })
        .collect()
}

impl ScreenerBlock {
    fn parse(value: &Value) -> Result<ScreenerBlock, String> {
        let block = value.as_object().ok_or("a block is not an object")?;
        let question = match block.get("question").and_then(Value::as_str).map(str::trim) {
            Some(q) if !q.is_empty() && q.chars().count() <= MAX_QUESTION_CHARS => q.to_string(),
            _ => return Err(format!("question must be a text of 1..{MAX_QUESTION_CHARS} characters")),
        };
        let choice = match block.get("type") {
            None | Some(Value::Null) => ChoiceType::Single,
            Some(value) => value.as_str().and_then(ChoiceType::parse).ok_or("type must be single_choice or multiple_choice")?,
        };
        let options = strings(block.get("options"), "options")?;
        if !(MIN_OPTIONS..=MAX_OPTIONS).contains(&options.len()) {
            return Err(format!("options must have {MIN_OPTIONS}..{MAX_OPTIONS} items"));
        }
        if (1..options.len()).any(|i| options[..i].contains(&options[i])) {
            return Err("options must be distinct".into());
        }
        let qualifying_options = strings(block.get("qualifying_options"), "qualifying_options")?;
        if qualifying_options.is_empty() || qualifying_options.iter().any(|q| !options.contains(q)) {
            return Err("qualifying_options must be a non-empty subset of options".into());
        }
        Ok(ScreenerBlock { question, choice, options, qualifying_options })
    }

    fn qualifies(&self, chosen: &[String]) -> bool {
        chosen.iter().any(|c| self.qualifying_options.contains(c))
    }
}

/// Reads a project's `screeners`.
pub fn step(screeners: Option<&Map<String, Value>>) -> ScreenerStep {
    let Some(blocks) = screeners.and_then(|s| s.get("screener_blocks")).filter(|b| !b.is_null()) else {
        return ScreenerStep::None;
    };
    let Some(blocks) = blocks.as_array() else {
        return ScreenerStep::Unrenderable("screener_blocks is not a list".into());
    };
    if blocks.is_empty() {
        return ScreenerStep::None;
    }
    match blocks.iter().enumerate().map(|(i, b)| ScreenerBlock::parse(b).map_err(|e| format!("block {i}: {e}"))).collect() {
        Ok(blocks) => ScreenerStep::Blocks(blocks),
        Err(why) => ScreenerStep::Unrenderable(why),
    }
}

/// Checks the answers' shape against the blocks (422s at `["body","screener_answers",...]`)
/// and decides. `answers` must hold one list of chosen options per block: exactly
/// one for a single-choice block, at least one (distinct) for a multiple-choice one.
pub fn evaluate(blocks: &[ScreenerBlock], answers: Option<&[Vec<String>]>) -> Result<Verdict, Vec<FieldError>> {
    let loc = |rest: &[LocPart]| -> Vec<LocPart> {
        let mut loc = vec![LocPart::from("body"), LocPart::from("screener_answers")];
        loc.extend_from_slice(rest);
        loc
    };
    let Some(answers) = answers else {
        return Err(vec![FieldError::new(loc(&[]), "missing", "Field required")]);
    };
    if answers.len() != blocks.len() {
        return Err(vec![FieldError::new(
            loc(&[]),
            "value_error",
            format!("Value error, expected one answer per screener question ({}), got {}", blocks.len(), answers.len()),
        )]);
    }
    let mut errors = Vec::new();
    for (index, (block, chosen)) in blocks.iter().zip(answers).enumerate() {
        let count_ok = match block.choice {
            ChoiceType::Single => chosen.len() == 1,
            ChoiceType::Multiple => !chosen.is_empty() && (1..chosen.len()).all(|i| !chosen[..i].contains(&chosen[i])),
        };
        if !count_ok {
            let expected = match block.choice {
                ChoiceType::Single => "exactly one option",
                ChoiceType::Multiple => "at least one option, each once",
            };
            errors.push(FieldError::new(loc(&[index.into()]), "value_error", format!("Value error, choose {expected}")));
        }
        for (option_index, option) in chosen.iter().enumerate() {
            if !block.options.contains(option) {
                let listed: Vec<&str> = block.options.iter().map(String::as_str).collect();
                errors.push(FieldError::new(
                    loc(&[index.into(), option_index.into()]),
                    "enum",
                    platform::validation::enum_message(&listed),
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let qualified = blocks.iter().zip(answers).all(|(block, chosen)| block.qualifies(chosen));
    Ok(if qualified { Verdict::Qualified } else { Verdict::ScreenedOut })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn screeners(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    fn two_blocks() -> Vec<ScreenerBlock> {
        let s = screeners(json!({"screener_blocks": [
            {"question": "Kids under 5?", "options": ["None", "One", "Two or more"], "qualifying_options": ["One", "Two or more"]},
            {"question": "Care used?", "type": "multiple_choice", "options": ["Daycare", "Nanny", "Family"], "qualifying_options": ["Daycare"]}
        ]}));
        match step(Some(&s)) {
            ScreenerStep::Blocks(blocks) => blocks,
            other => panic!("expected blocks, got {other:?}"),
        }
    }

    fn answers(list: &[&[&str]]) -> Vec<Vec<String>> {
        list.iter().map(|a| a.iter().map(|s| s.to_string()).collect()).collect()
    }

    #[test]
    fn every_block_must_qualify() {
        let blocks = two_blocks();
        assert_eq!(blocks[0].choice, ChoiceType::Single);
        assert_eq!(evaluate(&blocks, Some(&answers(&[&["One"], &["Nanny", "Daycare"]]))), Ok(Verdict::Qualified));
        assert_eq!(evaluate(&blocks, Some(&answers(&[&["None"], &["Daycare"]]))), Ok(Verdict::ScreenedOut));
        assert_eq!(evaluate(&blocks, Some(&answers(&[&["One"], &["Nanny"]]))), Ok(Verdict::ScreenedOut));
    }

    #[test]
    fn answers_must_fit_the_blocks() {
        let blocks = two_blocks();
        assert_eq!(evaluate(&blocks, None).unwrap_err()[0].kind, "missing");
        assert_eq!(evaluate(&blocks, Some(&answers(&[&["One"]]))).unwrap_err()[0].kind, "value_error");
        let errors = evaluate(&blocks, Some(&answers(&[&["One", "None"], &["Pony"]]))).unwrap_err();
        let found: Vec<_> = errors.iter().map(|e| (e.kind, e.loc.clone())).collect();
        assert_eq!(found[0], ("value_error", vec!["body".into(), "screener_answers".into(), 0.into()]));
        assert_eq!(found[1], ("enum", vec!["body".into(), "screener_answers".into(), 1.into(), 0.into()]));
    }

    #[test]
    fn unknown_formats_skip_the_step() {
        assert_eq!(step(None), ScreenerStep::None);
        assert_eq!(step(Some(&screeners(json!({"screen_out_url": "https://x.example"})))), ScreenerStep::None);
        assert_eq!(step(Some(&screeners(json!({"screener_blocks": []})))), ScreenerStep::None);
        for blocks in [
            json!([{"text": "free form"}]),
            json!([{"question": "Q", "options": ["a"], "qualifying_options": ["a"]}]),
            json!([{"question": "Q", "options": ["a", "b"], "qualifying_options": ["c"]}]),
            json!([{"question": "Q", "options": ["a", "a"], "qualifying_options": ["a"]}]),
            json!([{"question": "Q", "type": "ranking", "options": ["a", "b"], "qualifying_options": ["a"]}]),
            json!("not a list"),
        ] {
            let s = screeners(json!({"screener_blocks": blocks}));
            assert!(matches!(step(Some(&s)), ScreenerStep::Unrenderable(_)), "{blocks}");
        }
    }

    #[test]
    fn the_page_never_sees_which_options_qualify() {
        let shown = serde_json::to_value(two_blocks()).unwrap();
        assert_eq!(shown[1], json!({"question": "Care used?", "type": "multiple_choice", "options": ["Daycare", "Nanny", "Family"]}));
    }
}
