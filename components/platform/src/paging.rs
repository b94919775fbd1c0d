//! Keyset paging, the same for every list (additive to the contract, whose lists
//! return everything): `limit` (1..1000) and an opaque `cursor` return a page and
//! `next_cursor` (null on the last page). A page reads its index from the cursor
//! on, so it costs the same however deep it is, and items created meanwhile
//! are newer than any cursor, so paging neither skips nor repeats.

use crate::error::{FieldError, LocPart};
use crate::validation;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use serde_json::Value;

pub const MAX_LIMIT: u32 = 1000;

/// Where a page ended: the last item's sort key and id (a UUID). Opaque to
/// clients: base64url of `<key> <id>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub key: String,
    pub id: String,
}

impl Cursor {
    pub fn encode(&self) -> String {
        URL_SAFE_NO_PAD.encode(format!("{} {}", self.key, self.id))
    }

    /// Only what `encode` made: `key_ok` says whether the key is one this list writes.
    pub fn decode(text: &str, key_ok: impl Fn(&str) -> bool) -> Option<Cursor> {
        let bytes = URL_SAFE_NO_PAD.decode(text.trim()).ok()?;
        let text = String::from_utf8(bytes).ok()?;
        let (key, id) = text.split_once(' ')?;
        let id = uuid::Uuid::parse_str(id).ok()?.to_string();
        key_ok(key).then(|| Cursor { key: key.to_string(), id })
    }
}

/// The paging part of a list request.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageRequest {
    pub limit: Option<u32>,
    pub after: Option<Cursor>,
}

fn query_loc(name: &str) -> Vec<LocPart> {
    vec!["query".into(), name.into()]
}

impl PageRequest {
    /// Reads `limit` and `cursor` (the last of each wins); problems go to `errors`
    /// as 422 entries at `["query","limit"]` / `["query","cursor"]`.
    pub fn parse(pairs: &[(String, String)], key_ok: impl Fn(&str) -> bool, errors: &mut Vec<FieldError>) -> PageRequest {
        let last = |name: &str| pairs.iter().rev().find(|(n, _)| n == name).map(|(_, v)| v.as_str());
        // A query value is text: parse it first (`int_parsing`), then the same
        // range rule as a JSON integer.
        let limit = last("limit").and_then(|text| {
            let checked = match text.trim().parse::<i64>() {
                Ok(n) => validation::int_in(&Value::from(n), query_loc("limit"), 1, i64::from(MAX_LIMIT)),
                Err(_) => Err(vec![FieldError::new(
                    query_loc("limit"),
                    "int_parsing",
                    "Input should be a valid integer, unable to parse string as an integer",
                )]),
            };
            checked.map_err(|e| errors.extend(e)).ok().map(|n| n as u32)
        });
        let after = last("cursor").and_then(|text| {
            let cursor = Cursor::decode(text, &key_ok);
            if cursor.is_none() {
                errors.push(FieldError::new(
                    query_loc("cursor"),
                    "value_error",
                    "Value error, not a cursor this list returned (use next_cursor as given)",
                ));
            }
            cursor
        });
        PageRequest { limit, after }
    }

    /// Whether the answer is a page (and so carries `next_cursor`).
    pub fn is_paged(&self) -> bool {
        self.limit.is_some() || self.after.is_some()
    }

    /// The rows to read: one more than the page, to know whether another follows.
    pub fn rows_to_read(&self) -> Option<i64> {
        self.limit.map(|limit| i64::from(limit) + 1)
    }

    /// A list's answer: the contract's `{data}`, plus `next_cursor` when paged.
    pub fn body(&self, data: Vec<Value>, next: Option<Cursor>) -> Value {
        if self.is_paged() {
            serde_json::json!({ "data": data, "next_cursor": next.map(|c| c.encode()) })
        } else {
            serde_json::json!({ "data": data })
        }
    }

    /// Drops the extra row read by [`PageRequest::rows_to_read`]; the cursor of
    /// the next page, when there is one, comes from the last item kept.
    pub fn finish<T>(&self, mut items: Vec<T>, cursor_of: impl Fn(&T) -> Cursor) -> (Vec<T>, Option<Cursor>) {
        let more = self.limit.is_some_and(|limit| items.len() > limit as usize);
        if more {
            items.pop();
        }
        let next = if more { items.last().map(cursor_of) } else { None };
        (items, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10";

    fn parse(query: &str) -> (PageRequest, Vec<&'static str>) {
        let mut errors = Vec::new();
        let request = PageRequest::parse(&crate::http::parse_query(query), |key| key.parse::<i64>().is_ok(), &mut errors);
        (request, errors.into_iter().map(|e| e.kind).collect())
    }

    #[test]
    fn cursors_round_trip_and_reject_forgeries() {
        let cursor = Cursor { key: "1795268712345".into(), id: ID.into() };
        let (request, errors) = parse(&format!("limit=2&cursor={}", cursor.encode()));
        assert!(errors.is_empty());
        assert_eq!(request, PageRequest { limit: Some(2), after: Some(cursor) });
        assert_eq!(Cursor::decode(&URL_SAFE_NO_PAD.encode(format!("abc {ID}")), |k| k.parse::<i64>().is_ok()), None);
        assert_eq!(Cursor::decode(&URL_SAFE_NO_PAD.encode("12 not-a-uuid"), |_| true), None);
    }

    #[test]
    fn bad_parameters_are_422s() {
        assert_eq!(parse("limit=0&cursor=zzz").1, vec!["greater_than_equal", "value_error"]);
        assert_eq!(parse("limit=1001").1, vec!["less_than_equal"]);
        assert_eq!(parse("limit=ten").1, vec!["int_parsing"]);
        assert!(!parse("").0.is_paged());
    }

    #[test]
    fn the_extra_row_says_a_page_follows() {
        let (request, _) = parse("limit=2");
        assert_eq!(request.rows_to_read(), Some(3));
        let cursor_of = |n: &i64| Cursor { key: n.to_string(), id: ID.into() };
        let (items, next) = request.finish(vec![3, 2, 1], cursor_of);
        assert_eq!((items, next.map(|c| c.key)), (vec![3, 2], Some("2".to_string())));
        let (items, next) = request.finish(vec![1, 0], cursor_of);
        assert_eq!((items, next), (vec![1, 0], None));
    }
}
