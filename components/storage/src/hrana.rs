//! The wire format of Hrana over HTTP, libSQL's protocol (`docs/HRANA_3_SPEC.md`
//! in tursodatabase/libsql), as sqld and Turso serve it: one `POST
//! {database_url}/v3/pipeline` carries a list of stream requests (`execute`,
//! `batch` with conditions, `close`) and answers a result for each, in order.
//! A `baton` ties further requests to the same server-side stream (what a
//! transaction across round trips needs); a pipeline that ends with `close`
//! leaves nothing behind on the server.
//!
//! Only the JSON encoding is spoken, with serde. Values travel as the Spin
//! SQLite interface's own [`Value`]s, so a result reads the same whichever
//! backend served it.

use base64::engine::general_purpose::STANDARD_NO_PAD;
use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use spin_sdk::sqlite::{QueryResult, RowResult, Value};

/// One statement with its positional arguments.
#[derive(Debug, Clone, Serialize)]
pub struct Stmt {
    pub sql: String,
    #[serde(serialize_with = "values_out")]
    pub args: Vec<Value>,
    pub want_rows: bool,
}

impl Stmt {
    pub fn new(sql: impl Into<String>, args: &[Value]) -> Stmt {
        Stmt { sql: sql.into(), args: args.to_vec(), want_rows: true }
    }
}

/// A condition on earlier steps of a batch (by index).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Cond {
    Ok { step: usize },
    Not { cond: Box<Cond> },
}

impl Cond {
    pub fn failed(step: usize) -> Cond {
        Cond::Not { cond: Box::new(Cond::Ok { step }) }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Step {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condition: Option<Cond>,
    pub stmt: Stmt,
}

/// A stream request of a pipeline.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Request {
    Execute { stmt: Stmt },
    Batch { batch: Batch },
    Close,
}

#[derive(Debug, Clone, Serialize)]
pub struct Batch {
    pub steps: Vec<Step>,
}

#[derive(Debug, Serialize)]
pub struct Pipeline<'a> {
    pub baton: Option<&'a str>,
    pub requests: &'a [Request],
}

/// The answer to a pipeline: the stream's next baton (`None`: closed), where
/// to send the stream's next requests, and one result per request.
#[derive(Debug, Deserialize)]
pub struct PipelineAnswer {
    pub baton: Option<String>,
    pub base_url: Option<String>,
    pub results: Vec<StreamResult>,
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamResult {
    Ok { response: Response },
    Error { error: ServerError },
}

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    Execute { result: StmtResult },
    Batch { result: BatchResult },
    Close,
    #[serde(other)]
    Other,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerError {
    pub message: String,
    #[serde(default)]
    pub code: Option<String>,
}

impl std::fmt::Display for ServerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.code {
            Some(code) => write!(f, "{} ({code})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

#[derive(Debug, Deserialize)]
pub struct StmtResult {
    pub cols: Vec<Col>,
    #[serde(deserialize_with = "rows_in")]
    pub rows: Vec<RowResult>,
}

#[derive(Debug, Deserialize)]
pub struct Col {
    pub name: Option<String>,
}

impl StmtResult {
    pub fn into_query_result(self) -> QueryResult {
        QueryResult { columns: self.cols.into_iter().map(|col| col.name.unwrap_or_default()).collect(), rows: self.rows }
    }
}

#[derive(Debug, Deserialize)]
pub struct BatchResult {
    pub step_results: Vec<Option<StmtResult>>,
    pub step_errors: Vec<Option<ServerError>>,
}

/// A value as Hrana writes it: `{"type": "integer", "value": "42"}` (integers
/// as strings, so that no JSON reader rounds them), blobs in base64.
struct ValueOut<'a>(&'a Value);

impl Serialize for ValueOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(2))?;
        match self.0 {
            Value::Null => map.serialize_entry("type", "null")?,
            Value::Integer(n) => {
                map.serialize_entry("type", "integer")?;
                map.serialize_entry("value", &n.to_string())?;
            }
            Value::Real(x) => {
                map.serialize_entry("type", "float")?;
                map.serialize_entry("value", x)?;
            }
            Value::Text(text) => {
                map.serialize_entry("type", "text")?;
                map.serialize_entry("value", text)?;
            }
            Value::Blob(bytes) => {
                map.serialize_entry("type", "blob")?;
                map.serialize_entry("base64", &STANDARD_NO_PAD.encode(bytes))?;
            }
        }
        map.end()
    }
}

fn values_out<S: Serializer>(values: &[Value], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(values.iter().map(ValueOut))
}

/// A value as it comes back, read straight into the interface's [`Value`].
#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum ValueIn {
    Null,
    Integer { value: IntegerText },
    Float { value: f64 },
    Text { value: String },
    Blob { base64: String },
}

/// An integer: a string in Hrana's JSON; a number is taken too.
#[derive(Deserialize)]
#[serde(untagged)]
enum IntegerText {
    Text(String),
    Number(i64),
}

impl ValueIn {
    fn into_value<E: serde::de::Error>(self) -> Result<Value, E> {
        Ok(match self {
            ValueIn::Null => Value::Null,
            ValueIn::Integer { value: IntegerText::Number(n) } => Value::Integer(n),
            ValueIn::Integer { value: IntegerText::Text(text) } => {
                Value::Integer(text.parse().map_err(|_| E::custom(format!("integer {text:?}")))?)
            }
            ValueIn::Float { value } => Value::Real(value),
            ValueIn::Text { value } => Value::Text(value),
            ValueIn::Blob { base64 } => Value::Blob(
                STANDARD_NO_PAD.decode(base64.trim_end_matches('=')).map_err(|_| E::custom("a blob that is not base64"))?,
            ),
        })
    }
}

fn rows_in<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<RowResult>, D::Error> {
    let rows = Vec::<Vec<ValueIn>>::deserialize(deserializer)?;
    rows.into_iter()
        .map(|row| Ok(RowResult { values: row.into_iter().map(ValueIn::into_value::<D::Error>).collect::<Result<_, _>>()? }))
        .collect()
}

/// Parses a pipeline's answer; an answer that is not one is the server's or a
/// proxy's failure, described for the log.
pub fn parse_answer(body: &[u8]) -> Result<PipelineAnswer, String> {
    serde_json::from_slice(body).map_err(|error| format!("not a Hrana pipeline answer ({error})"))
}

/// The JSON body of a pipeline.
pub fn encode(baton: Option<&str>, requests: &[Request]) -> Vec<u8> {
    serde_json::to_vec(&Pipeline { baton, requests }).expect("a pipeline always serializes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_pipeline_is_written_as_the_spec_says() {
        let requests = [
            Request::Execute {
                stmt: Stmt::new(
                    "INSERT INTO t VALUES (?, ?, ?, ?, ?)",
                    &[Value::Integer(i64::MAX), Value::Real(1.5), Value::Text("é".into()), Value::Blob(vec![0, 1, 255]), Value::Null],
                ),
            },
            Request::Batch {
                batch: Batch {
                    steps: vec![
                        Step { condition: None, stmt: Stmt::new("BEGIN IMMEDIATE", &[]) },
                        Step { condition: Some(Cond::Ok { step: 0 }), stmt: Stmt::new("COMMIT", &[]) },
                        Step { condition: Some(Cond::failed(1)), stmt: Stmt::new("ROLLBACK", &[]) },
                    ],
                },
            },
            Request::Close,
        ];
        let written: serde_json::Value = serde_json::from_slice(&encode(None, &requests)).unwrap();
        assert_eq!(
            written,
            json!({"baton": null, "requests": [
                {"type": "execute", "stmt": {"sql": "INSERT INTO t VALUES (?, ?, ?, ?, ?)", "want_rows": true, "args": [
                    {"type": "integer", "value": "9223372036854775807"},
                    {"type": "float", "value": 1.5},
                    {"type": "text", "value": "é"},
                    {"type": "blob", "base64": "AAH/"},
                    {"type": "null"}]}},
                {"type": "batch", "batch": {"steps": [
                    {"stmt": {"sql": "BEGIN IMMEDIATE", "args": [], "want_rows": true}},
                    {"condition": {"type": "ok", "step": 0}, "stmt": {"sql": "COMMIT", "args": [], "want_rows": true}},
                    {"condition": {"type": "not", "cond": {"type": "ok", "step": 1}},
                     "stmt": {"sql": "ROLLBACK", "args": [], "want_rows": true}}]}},
                {"type": "close"}]})
        );
    }

    #[test]
    fn an_answer_reads_into_the_interfaces_values() {
        let answer = parse_answer(
            br#"{"baton": "b1", "base_url": null, "results": [
                {"type": "ok", "response": {"type": "execute", "result": {
                    "cols": [{"name": "n", "decltype": "INTEGER"}, {"name": "x"}, {"name": "t"}, {"name": "b"}, {"name": null}],
                    "rows": [[{"type": "integer", "value": "-9223372036854775808"}, {"type": "float", "value": 0.25},
                              {"type": "text", "value": "a\"b"}, {"type": "blob", "base64": "AAH/"}, {"type": "null"}]],
                    "affected_row_count": 0, "last_insert_rowid": null, "rows_read": 1, "rows_written": 0}}},
                {"type": "error", "error": {"message": "no such table: x", "code": "SQLITE_ERROR"}},
                {"type": "ok", "response": {"type": "batch", "result": {"step_results": [null, {"cols": [], "rows": [],
                    "affected_row_count": 2}], "step_errors": [{"message": "busy"}, null]}}},
                {"type": "ok", "response": {"type": "close"}}]}"#,
        )
        .unwrap();
        assert_eq!(answer.baton.as_deref(), Some("b1"));
        let mut results = answer.results.into_iter();
        let Some(StreamResult::Ok { response: Response::Execute { result } }) = results.next() else { panic!() };
        let result = result.into_query_result();
        assert_eq!(result.columns, vec!["n", "x", "t", "b", ""]);
        assert!(matches!(
            &result.rows[0].values[..],
            [Value::Integer(i64::MIN), Value::Real(x), Value::Text(t), Value::Blob(b), Value::Null]
                if *x == 0.25 && t == "a\"b" && b == &vec![0, 1, 255]
        ));
        let Some(StreamResult::Error { error }) = results.next() else { panic!() };
        assert_eq!(error.to_string(), "no such table: x (SQLITE_ERROR)");
        let Some(StreamResult::Ok { response: Response::Batch { result } }) = results.next() else { panic!() };
        assert_eq!(result.step_errors[0].as_ref().unwrap().message, "busy");
        assert!(result.step_results[0].is_none() && result.step_results[1].as_ref().unwrap().rows.is_empty());
        assert!(matches!(results.next(), Some(StreamResult::Ok { response: Response::Close })));
        assert!(parse_answer(b"<html>Bad gateway</html>").is_err());
    }
}
