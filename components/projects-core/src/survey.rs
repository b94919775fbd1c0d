//! Survey projects (docs/surveys.md): the ordered blocks a survey is made of,
//! and their rules, reported as pydantic does (every problem at once, `loc`
//! down to the block's field: `["body","survey_blocks",3,"media","file_id"]`).

use platform::error::{ApiError, FieldError, LocPart};
use text_enum::text_enum;
use platform::validation::{self, boolean, nullable, one_of, Checked, Fields};
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const MAX_BLOCKS: usize = 100;
pub const MAX_PROMPT_CHARS: usize = 2_000;
pub const MIN_OPTIONS: usize = 2;
pub const MAX_OPTIONS: usize = 20;
pub const MAX_OPTION_CHARS: usize = 200;
pub const MAX_BLOCK_ID_CHARS: usize = 64;
pub const BLOCK_ID_PATTERN: &str = "^[A-Za-z0-9_-]+$";

text_enum! {
    pub enum BlockType {
        OpenQuestion = "open_question",
        SingleChoice = "single_choice",
        MultipleChoice = "multiple_choice",
        Rating = "rating",
        /// Shown, not answered.
        Statement = "statement",
    }
}

text_enum! {
    pub enum RatingScale { OneToFive = "1-5", ZeroToTen = "0-10" }
}

impl RatingScale {
    pub fn bounds(self) -> (i64, i64) {
        match self {
            RatingScale::OneToFive => (1, 5),
            RatingScale::ZeroToTen => (0, 10),
        }
    }
}

impl BlockType {
    pub fn is_choice(self) -> bool {
        matches!(self, BlockType::SingleChoice | BlockType::MultipleChoice)
    }
}

/// An image or video shown with a block: a file the tenant uploaded with purpose `survey`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlockMedia {
    pub file_id: String,
}

/// One block of a survey, as stored and read back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SurveyBlock {
    pub block_id: String,
    #[serde(rename = "type")]
    pub kind: BlockType,
    pub prompt: String,
    /// The choices (choice blocks only).
    #[serde(default)]
    pub options: Option<Vec<String>>,
    /// Whether it must be answered (statements are never answered).
    #[serde(default = "answer_required")]
    pub required: bool,
    #[serde(default)]
    pub media: Option<BlockMedia>,
    /// Open questions: the AI asks one probing follow-up on the answer.
    #[serde(default)]
    pub ai_follow_up: bool,
    /// Rating blocks: `1-5` (the default) or `0-10`.
    #[serde(default)]
    pub scale: Option<RatingScale>,
}

fn answer_required() -> bool {
    true
}

impl SurveyBlock {
    pub fn is_answerable(&self) -> bool {
        self.kind != BlockType::Statement
    }

    pub fn options(&self) -> &[String] {
        self.options.as_deref().unwrap_or_default()
    }
}

/// How many blocks take an answer.
pub fn answerable(blocks: &[SurveyBlock]) -> i64 {
    blocks.iter().filter(|b| b.is_answerable()).count() as i64
}

fn only_for(loc: Vec<LocPart>, what: &str) -> FieldError {
    FieldError::new(loc, "value_error", format!("Value error, {what}"))
}

fn errors_of(error: ApiError) -> Vec<FieldError> {
    match error {
        ApiError::Validation(errors) => errors,
        other => vec![FieldError::new(vec![], "value_error", format!("{other:?}"))],
    }
}

fn options_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<String>> {
    let options = validation::list_of(value, loc.clone(), MIN_OPTIONS, |v, l| validation::text(v, l, 1, MAX_OPTION_CHARS))?;
    if options.len() > MAX_OPTIONS {
        return Err(vec![FieldError::new(
            loc,
            "too_long",
            format!("List should have at most {MAX_OPTIONS} items after validation, not {}", options.len()),
        )]);
    }
    let mut errors = Vec::new();
    for (index, option) in options.iter().enumerate() {
        if options[..index].contains(option) {
            let mut at = loc.clone();
            at.push(index.into());
            errors.push(only_for(at, "options must be distinct"));
        }
    }
    if errors.is_empty() {
        Ok(options)
    } else {
        Err(errors)
    }
}

fn media_rule(value: &Value, loc: Vec<LocPart>) -> Checked<BlockMedia> {
    let mut f = Fields::of(value, loc).map_err(errors_of)?;
    let file_id = f.require("file_id", |v, l| validation::text(v, l, 1, 64));
    f.finish().map_err(errors_of)?;
    Ok(BlockMedia { file_id: file_id.unwrap_or_default() })
}

fn block_rule(value: &Value, loc: Vec<LocPart>) -> Checked<SurveyBlock> {
    let mut f = Fields::of(value, loc).map_err(errors_of)?;
    let block_id = f.require("block_id", |v, l| {
        validation::patterned(v, l, 1, MAX_BLOCK_ID_CHARS, BLOCK_ID_PATTERN, |t| {
            t.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
    });
    let kind = f.require("type", one_of::<BlockType>);
    let prompt = f.require("prompt", |v, l| validation::text(v, l, 1, MAX_PROMPT_CHARS));
    let choice = kind.is_some_and(BlockType::is_choice);
    let options = if choice {
        f.require("options", options_rule)
    } else {
        if f.raw("options").is_some_and(|o| !o.is_null()) {
            f.extend([only_for(f.loc("options"), "options apply to single_choice and multiple_choice blocks only")]);
        }
        None
    };
    let required = f.check("required", |v, l| nullable(v, l, boolean)).flatten();
    let media = f.check("media", |v, l| nullable(v, l, media_rule)).flatten();
    let ai_follow_up = f.check("ai_follow_up", |v, l| nullable(v, l, boolean)).flatten().unwrap_or(false);
    if ai_follow_up && kind.is_some_and(|k| k != BlockType::OpenQuestion) {
        f.extend([only_for(f.loc("ai_follow_up"), "ai_follow_up applies to open_question blocks only")]);
    }
    let scale = f.check("scale", |v, l| nullable(v, l, one_of::<RatingScale>)).flatten();
    if scale.is_some() && kind.is_some_and(|k| k != BlockType::Rating) {
        f.extend([only_for(f.loc("scale"), "scale applies to rating blocks only")]);
    }
    f.finish().map_err(errors_of)?;
    let kind = kind.unwrap_or(BlockType::Statement);
    Ok(SurveyBlock {
        block_id: block_id.unwrap_or_default(),
        kind,
        prompt: prompt.unwrap_or_default(),
        options,
        required: kind != BlockType::Statement && required.unwrap_or(true),
        media,
        ai_follow_up,
        scale: (kind == BlockType::Rating).then(|| scale.unwrap_or(RatingScale::OneToFive)),
    })
}

/// `survey_blocks`: 1..100 valid blocks with distinct `block_id`s. (Whether each
/// media file is the tenant's is checked against storage by the caller.)
pub fn blocks_rule(value: &Value, loc: Vec<LocPart>) -> Checked<Vec<SurveyBlock>> {
    let blocks = validation::list_of(value, loc.clone(), 1, block_rule)?;
    if blocks.len() > MAX_BLOCKS {
        return Err(vec![FieldError::new(
            loc,
            "too_long",
            format!("List should have at most {MAX_BLOCKS} items after validation, not {}", blocks.len()),
        )]);
    }
    let mut errors = Vec::new();
    for (index, block) in blocks.iter().enumerate() {
        if blocks[..index].iter().any(|b| b.block_id == block.block_id) {
            let mut at = loc.clone();
            at.extend([LocPart::from(index), LocPart::from("block_id")]);
            errors.push(only_for(at, &format!("block_id {:?} is used by an earlier block", block.block_id)));
        }
    }
    if errors.is_empty() {
        Ok(blocks)
    } else {
        Err(errors)
    }
}

/// `(block index, file_id)` of every block with media.
pub fn media_files(blocks: &[SurveyBlock]) -> Vec<(usize, &str)> {
    blocks.iter().enumerate().filter_map(|(i, b)| b.media.as_ref().map(|m| (i, m.file_id.as_str()))).collect()
}

/// The 422 for a block whose file is not one of the tenant's survey files.
pub fn unknown_file(index: usize, file_id: &str) -> FieldError {
    FieldError::new(
        vec!["body".into(), "survey_blocks".into(), index.into(), "media".into(), "file_id".into()],
        "value_error",
        format!("Value error, no file {file_id:?} with purpose survey was uploaded by this tenant; upload it with POST /v1/files"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn loc() -> Vec<LocPart> {
        vec!["body".into(), "survey_blocks".into()]
    }

    fn problems(value: Value) -> Vec<(Vec<LocPart>, &'static str)> {
        blocks_rule(&value, loc()).unwrap_err().into_iter().map(|e| (e.loc, e.kind)).collect()
    }

    fn at(parts: &[LocPart]) -> Vec<LocPart> {
        let mut l = loc();
        l.extend_from_slice(parts);
        l
    }

    #[test]
    fn every_block_type_parses_with_its_defaults() {
        let blocks = blocks_rule(
            &json!([
                {"block_id": "intro", "type": "statement", "prompt": "Thanks for joining."},
                {"block_id": "why", "type": "open_question", "prompt": "Why?", "ai_follow_up": true},
                {"block_id": "pick", "type": "single_choice", "prompt": "Pick one", "options": ["A", "B"], "required": false},
                {"block_id": "many", "type": "multiple_choice", "prompt": "Pick some", "options": ["A", "B", "C"], "media": {"file_id": "f"}},
                {"block_id": "nps", "type": "rating", "prompt": "Recommend?", "scale": "0-10"},
                {"block_id": "stars", "type": "rating", "prompt": "Stars?"}
            ]),
            loc(),
        )
        .unwrap();
        assert_eq!(answerable(&blocks), 5);
        assert!(!blocks[0].required, "statements are never answered");
        assert!(blocks[1].ai_follow_up && blocks[1].required);
        assert!(!blocks[2].required);
        assert_eq!(blocks[3].media, Some(BlockMedia { file_id: "f".into() }));
        assert_eq!((blocks[4].scale, blocks[5].scale), (Some(RatingScale::ZeroToTen), Some(RatingScale::OneToFive)));
        assert_eq!(media_files(&blocks), vec![(3, "f")]);
        let read_back: Vec<SurveyBlock> = serde_json::from_value(serde_json::to_value(&blocks).unwrap()).unwrap();
        assert_eq!(read_back, blocks);
    }

    #[test]
    fn each_rule_has_its_422() {
        assert_eq!(problems(json!([])), vec![(loc(), "too_short")]);
        assert_eq!(problems(json!({})), vec![(loc(), "list_type")]);
        assert_eq!(problems(json!([{"block_id": "a", "type": "slider", "prompt": "p"}])), vec![(at(&[0.into(), "type".into()]), "enum")]);
        assert_eq!(problems(json!([{"block_id": "a", "type": "single_choice", "prompt": "p"}])), vec![(at(&[0.into(), "options".into()]), "missing")]);
        assert_eq!(
            problems(json!([{"block_id": "a", "type": "single_choice", "prompt": "p", "options": ["x"]}])),
            vec![(at(&[0.into(), "options".into()]), "too_short")]
        );
        assert_eq!(
            problems(json!([{"block_id": "a", "type": "single_choice", "prompt": "p", "options": ["x", "x"]}])),
            vec![(at(&[0.into(), "options".into(), 1.into()]), "value_error")]
        );
        assert_eq!(
            problems(json!([{"block_id": "a", "type": "statement", "prompt": "p"}, {"block_id": "a", "type": "statement", "prompt": "q"}])),
            vec![(at(&[1.into(), "block_id".into()]), "value_error")]
        );
        assert_eq!(
            problems(json!([{"block_id": "has space", "type": "rating", "prompt": "p", "scale": "1-7"}])),
            vec![(at(&[0.into(), "block_id".into()]), "string_pattern_mismatch"), (at(&[0.into(), "scale".into()]), "enum")]
        );
        assert_eq!(
            problems(json!([{"block_id": "a", "type": "rating", "prompt": "p", "ai_follow_up": true, "media": {}}])),
            vec![(at(&[0.into(), "media".into(), "file_id".into()]), "missing"), (at(&[0.into(), "ai_follow_up".into()]), "value_error")]
        );
        let too_many: Vec<Value> = (0..101).map(|i| json!({"block_id": format!("b{i}"), "type": "statement", "prompt": "p"})).collect();
        assert_eq!(problems(Value::from(too_many)), vec![(loc(), "too_long")]);
        assert_eq!(problems(json!([{"type": "statement"}])).len(), 2, "block_id and prompt missing");
    }
}
