//! Reading a statement's result: typed columns by name, and the values a
//! statement's parameters are made of.

use platform::error::{ApiError, ApiResult};
use spin_sdk::sqlite::{QueryResult, Value};

/// Reads typed columns from a row by name. A column the statement does not
/// return, or a value of another type, is an error (the SQL and the reader
/// disagree): never a silent `""` or `0`.
pub struct Row<'a> {
    columns: &'a [String],
    values: &'a [Value],
    /// Where the next lookup looks first: the column after the last one read.
    /// Readers read in the statement's order, so a lookup is one comparison
    /// (an export reads millions of values; a search by name each was a
    /// few percent of it).
    next: std::cell::Cell<usize>,
}

impl<'a> Row<'a> {
    fn value(&self, column: &str) -> ApiResult<&'a Value> {
        let guess = self.next.get();
        let index = match self.columns.get(guess) {
            Some(name) if name == column => Some(guess),
            _ => self.columns.iter().position(|c| c == column),
        };
        let (index, value) = index
            .and_then(|index| Some((index, self.values.get(index)?)))
            .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("sqlite: the statement returns no column `{column}`")))?;
        self.next.set(index + 1);
        Ok(value)
    }

    fn mismatch<T>(column: &str, expected: &str, found: &Value) -> ApiResult<T> {
        Err(ApiError::Internal(anyhow::anyhow!("sqlite: column `{column}` holds {found:?}, not {expected}")))
    }

    /// A TEXT column that is never NULL.
    pub fn text(&self, column: &str) -> ApiResult<String> {
        self.str(column).map(str::to_string)
    }

    /// A TEXT column that holds an id (`platform::ids`), never NULL.
    pub fn id<T: std::str::FromStr>(&self, column: &str) -> ApiResult<T> {
        let text = self.str(column)?;
        text.parse().or_else(|_| Self::mismatch(column, "an id", &Value::Text(text.to_string())))
    }

    /// A nullable TEXT column.
    pub fn opt_text(&self, column: &str) -> ApiResult<Option<String>> {
        self.opt_str(column).map(|text| text.map(str::to_string))
    }

    /// A TEXT column that is never NULL, borrowed from the result (no copy:
    /// for what is read row by row in bulk, such as an export's turns).
    pub fn str(&self, column: &str) -> ApiResult<&'a str> {
        match self.opt_str(column)? {
            Some(text) => Ok(text),
            None => Self::mismatch(column, "text", &Value::Null),
        }
    }

    /// A nullable TEXT column, borrowed from the result.
    pub fn opt_str(&self, column: &str) -> ApiResult<Option<&'a str>> {
        match self.value(column)? {
            Value::Text(text) => Ok(Some(text.as_str())),
            Value::Null => Ok(None),
            other => Self::mismatch(column, "text", other),
        }
    }

    /// An INTEGER column that is never NULL.
    pub fn int(&self, column: &str) -> ApiResult<i64> {
        match self.opt_int(column)? {
            Some(n) => Ok(n),
            None => Self::mismatch(column, "an integer", &Value::Null),
        }
    }

    /// A nullable INTEGER column.
    pub fn opt_int(&self, column: &str) -> ApiResult<Option<i64>> {
        match self.value(column)? {
            Value::Integer(n) => Ok(Some(*n)),
            Value::Null => Ok(None),
            other => Self::mismatch(column, "an integer", other),
        }
    }

    /// A TEXT column holding one name of a closed set.
    pub fn named<T: text_enum::TextEnum>(&self, column: &str) -> ApiResult<T> {
        let text = self.str(column)?;
        T::parse(text).ok_or_else(|| {
            ApiError::Internal(anyhow::anyhow!("sqlite: column `{column}` holds `{text}`, none of {:?}", T::NAMES))
        })
    }

    /// A TEXT column holding JSON of type `T`, never NULL.
    pub fn json<T: serde::de::DeserializeOwned>(&self, column: &str) -> ApiResult<T> {
        Self::parse_json(column, self.str(column)?)
    }

    /// A nullable TEXT column holding JSON of type `T`.
    pub fn opt_json<T: serde::de::DeserializeOwned>(&self, column: &str) -> ApiResult<Option<T>> {
        self.opt_str(column)?.map(|text| Self::parse_json(column, text)).transpose()
    }

    fn parse_json<T: serde::de::DeserializeOwned>(column: &str, text: &str) -> ApiResult<T> {
        serde_json::from_str(text)
            .map_err(|error| ApiError::Internal(anyhow::anyhow!("sqlite: column `{column}` is not the JSON expected: {error}")))
    }

    /// A nullable BLOB column.
    pub fn opt_blob(&self, column: &str) -> ApiResult<Option<Vec<u8>>> {
        match self.value(column)? {
            Value::Blob(bytes) => Ok(Some(bytes.clone())),
            Value::Null => Ok(None),
            other => Self::mismatch(column, "a blob", other),
        }
    }

    /// An INTEGER column holding 0 or 1.
    pub fn flag(&self, column: &str) -> ApiResult<bool> {
        Ok(self.int(column)? != 0)
    }
}

/// Iterates the rows of a result with by-name access.
pub fn rows(result: &QueryResult) -> impl Iterator<Item = Row<'_>> {
    result.rows.iter().map(|row| Row { columns: &result.columns, values: &row.values, next: std::cell::Cell::new(0) })
}

/// Reads every row of a result with `read`; the first row it cannot read is the error.
pub fn read_all<'r, T>(result: &'r QueryResult, read: impl Fn(&Row<'r>) -> ApiResult<T>) -> ApiResult<Vec<T>> {
    rows(result).map(|row| read(&row)).collect()
}

/// Reads the first row of a result, if there is one.
pub fn read_first<'r, T>(result: &'r QueryResult, read: impl Fn(&Row<'r>) -> ApiResult<T>) -> ApiResult<Option<T>> {
    rows(result).next().map(|row| read(&row)).transpose()
}

/// `Some(text)` as TEXT, `None` as NULL.
pub fn opt_text(value: Option<&str>) -> Value {
    value.map_or(Value::Null, |text| Value::Text(text.to_string()))
}

pub fn text(value: impl Into<String>) -> Value {
    Value::Text(value.into())
}

#[cfg(test)]
mod tests {
    use super::*;

    text_enum::text_enum! {
        enum Status { Active = "active", Paused = "paused" }
    }

    #[test]
    fn rows_read_what_the_statement_returns_and_nothing_else() {
        use spin_sdk::sqlite::RowResult;
        let result = QueryResult {
            columns: vec!["name".into(), "count".into(), "note".into(), "status".into()],
            rows: vec![RowResult {
                values: vec![Value::Text("a".into()), Value::Integer(3), Value::Null, Value::Text("paused".into())],
            }],
        };
        let read = read_first(&result, |row| {
            Ok((row.text("name")?, row.int("count")?, row.opt_text("note")?, row.named::<Status>("status")?))
        });
        assert_eq!(read.unwrap(), Some(("a".into(), 3, None, Status::Paused)));
        let internal = |outcome: ApiResult<_>| matches!(outcome, Err(ApiError::Internal(_)));
        // A column the statement does not return, NULL where a value must be,
        // another type, a name outside the set: errors, never "" or 0.
        assert!(internal(read_first(&result, |row| row.text("missing")).map(drop)));
        assert!(internal(read_first(&result, |row| row.text("note")).map(drop)));
        assert!(internal(read_first(&result, |row| row.int("name")).map(drop)));
        assert!(internal(read_first(&result, |row| row.text("count")).map(drop)));
        assert!(internal(read_first(&result, |row| row.named::<Status>("name")).map(drop)));
        assert!(internal(read_first(&result, |row| row.json::<Vec<String>>("name")).map(drop)));
    }

    #[test]
    fn a_row_reads_its_columns_in_any_order() {
        use spin_sdk::sqlite::RowResult;
        let result = QueryResult {
            columns: vec!["a".into(), "b".into(), "c".into()],
            rows: vec![RowResult { values: vec![Value::Integer(1), Value::Integer(2), Value::Integer(3)] }],
        };
        // In the statement's order, backwards, the same column twice, and on
        // after a column the statement does not return.
        let read = read_first(&result, |row| {
            let forwards = [row.int("a")?, row.int("b")?, row.int("c")?];
            let backwards = [row.int("c")?, row.int("b")?, row.int("a")?];
            let twice = [row.int("b")?, row.int("b")?];
            assert!(row.int("d").is_err());
            Ok((forwards, backwards, twice, row.int("a")?, row.int("c")?))
        });
        assert_eq!(read.unwrap(), Some(([1, 2, 3], [3, 2, 1], [2, 2], 1, 3)));
    }
}
