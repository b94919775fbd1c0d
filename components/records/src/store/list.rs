//! The tenant's interview list (`GET /v1/interviews`), which runs on an index
//! whichever filters it has: it walks the most selective one. Each candidate
//! (each metadata key's `(tenant, key, value)` range, then the project's or
//! tenant's newest-first index) is counted, up to [`SELECTIVE_CAP`] rows and no
//! further than the smallest count so far; the smallest drives. When a key
//! drives, the other keys are checked on its rows by index lookups before the
//! interview row is read; when none is selective, the newest-first index
//! drives and the page ends as soon as it is full.

use platform::ids::TenantId;
use super::{count_of, placeholders, texts};
use storage::{self as db, Db, SqlValue};
use platform::error::ApiResult;
use crate::query::{ListItem, ListQuery, Position};

/// Counting a candidate stops here: beyond it, walking it costs the same as
/// walking the newest-first index.
pub const SELECTIVE_CAP: i64 = 5_000;

/// Which rows the list walks first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Driver {
    /// The interviews of the tenant (and project), newest first.
    Interviews,
    /// The rows of `query.metadata[i]`'s key and values.
    Metadata(usize),
}

/// The rows of `inner`, counted up to `cap`.
fn capped_count(db: &Db, inner: &str, mut values: Vec<SqlValue>, cap: i64) -> ApiResult<i64> {
    if cap <= 0 {
        return Ok(0);
    }
    values.push(SqlValue::Integer(cap));
    let count = db.query_scalar(&format!("SELECT COUNT(*) FROM ({inner} LIMIT ?)"), &values)?;
    Ok(count_of(count))
}

/// The rows of the tenant (and project) in the environment: `(condition, values)` on `i`.
fn scope(tenant_id: TenantId, query: &ListQuery) -> (String, Vec<SqlValue>) {
    let mut condition = "i.tenant_id = ? AND i.environment = ?".to_string();
    let mut values = vec![db::text(tenant_id), db::text(query.environment.as_str())];
    if let Some(project_id) = &query.project_id {
        condition.push_str(" AND i.project_id = ?");
        values.push(db::text(project_id));
    }
    (condition, values)
}

/// Picks the driver by counting each candidate (see [`pick_driver`]).
pub fn choose_driver(db: &Db, tenant_id: TenantId, query: &ListQuery) -> ApiResult<Driver> {
    pick_driver(query.metadata.len(), |candidate, cap| match candidate {
        Driver::Interviews => {
            let (condition, values) = scope(tenant_id, query);
            capped_count(db, &format!("SELECT 1 FROM interviews i WHERE {condition}"), values, cap)
        }
        Driver::Metadata(index) => {
            let filter = &query.metadata[index];
            let mut values = vec![db::text(tenant_id), db::text(&filter.key)];
            values.extend(texts(&filter.values));
            let inner = format!(
                "SELECT 1 FROM interview_metadata WHERE tenant_id = ? AND key = ? AND value IN ({})",
                placeholders(filter.values.len())
            );
            capped_count(db, &inner, values, cap)
        }
    })
}

/// The driver for a query with `keys` metadata keys, given `count(candidate, cap)`:
/// the candidate's rows counted up to `cap`. The keys are counted first, each
/// only up to the smallest count so far (starting at [`SELECTIVE_CAP`]); a key
/// wins only with fewer rows than every key before it. Then the scope (project
/// or tenant) is counted up to that count plus one, and it drives when it has
/// no more rows than the best key. The result is that of counting everything up
/// to the cap, ties going to the scope and then to the earlier key; counting
/// stops early instead of walking a large scope or key to the cap.
fn pick_driver(keys: usize, mut count: impl FnMut(Driver, i64) -> ApiResult<i64>) -> ApiResult<Driver> {
    let mut best: Option<(i64, usize)> = None;
    for index in 0..keys {
        let cap = best.map_or(SELECTIVE_CAP, |(smallest, _)| smallest);
        let rows = count(Driver::Metadata(index), cap)?;
        if rows < cap {
            best = Some((rows, index));
        }
    }
    // No key under the cap: the scope, which counts at most the cap, wins the tie.
    let Some((smallest, index)) = best else {
        return Ok(Driver::Interviews);
    };
    let scope = count(Driver::Interviews, smallest + 1)?;
    Ok(if scope <= smallest { Driver::Interviews } else { Driver::Metadata(index) })
}

/// Whether the interview of `row` (an alias with `tenant_id`, `created_ms` and
/// `interview_id`) has one of `values` values for a key (the key and the
/// values are the parameters, in that order).
///
/// The check seeks the key's rows by `(tenant, key, value, created_ms)` (a
/// metadata row carries its interview's `created_ms`), not the interview's
/// rows by id: the driving rows come newest first, so successive seeks land
/// on the same few pages of the key's range, where seeks by id land on a
/// page of their own each, and a request's connection starts with an empty
/// page cache (at 100,000 interviews, half the page reads of a two-key
/// filter). The `+` keeps SQLite off the by-interview index. Correlated on
/// `row`, the check runs in its loop; LIMIT 1 keeps it a subquery there
/// (SQLite turns a plain EXISTS into a join that it schedules after the
/// interview lookup). A semi-join, not a join: an interview with two
/// matching values of a key is found once.
fn key_check(row: &str, value_count: usize) -> String {
    format!(
        "EXISTS (SELECT 1 FROM interview_metadata m WHERE m.tenant_id = {row}.tenant_id AND m.key = ? \
         AND m.value IN ({}) AND m.created_ms = {row}.created_ms AND +m.interview_id = {row}.interview_id LIMIT 1)",
        placeholders(value_count)
    )
}

/// The list's statement for a driver: `(sql, values)`.
pub fn list_statement(tenant_id: TenantId, query: &ListQuery, driver: Driver) -> (String, Vec<SqlValue>) {
    let (scope_condition, scope_values) = scope(tenant_id, query);
    let mut sql = String::from("SELECT i.interview_id, i.project_id, i.created_at, i.created_ms, i.quality_score, i.quality_flags FROM ");
    let mut conditions = Vec::new();
    let mut values = Vec::new();
    // The columns the order (and the cursor) use: the driver's own, so its index gives the order.
    let order = match driver {
        Driver::Interviews => {
            sql.push_str("interviews i");
            conditions.push(scope_condition);
            values.extend(scope_values);
            // The other keys: looked up for each interview of the scope.
            for filter in &query.metadata {
                conditions.push(key_check("i", filter.values.len()));
                values.push(db::text(&filter.key));
                values.extend(texts(&filter.values));
            }
            "i.created_ms, i.interview_id"
        }
        Driver::Metadata(index) => {
            let filter = &query.metadata[index];
            // CROSS JOIN keeps this order: the selective metadata rows first.
            sql.push_str("interview_metadata d CROSS JOIN interviews i");
            conditions.push(format!(
                "d.tenant_id = ? AND d.key = ? AND d.value IN ({})",
                placeholders(filter.values.len())
            ));
            values.extend([db::text(tenant_id), db::text(&filter.key)]);
            values.extend(texts(&filter.values));
            // The other keys: looked up for the driving row's interview, so
            // that most rows are thrown out before their interview row is read.
            for (other, filter) in query.metadata.iter().enumerate() {
                if other == index {
                    continue;
                }
                conditions.push(key_check("d", filter.values.len()));
                values.push(db::text(&filter.key));
                values.extend(texts(&filter.values));
            }
            conditions.push(format!("i.interview_id = d.interview_id AND {scope_condition}"));
            values.extend(scope_values);
            "d.created_ms, d.interview_id"
        }
    };
    if let Some(after) = query.created_after {
        conditions.push("i.created_ms > ?".into());
        values.push(SqlValue::Integer(after));
    }
    if let Some(before) = query.created_before {
        conditions.push("i.created_ms < ?".into());
        values.push(SqlValue::Integer(before));
    }
    if let Some(Position { created_ms, interview_id }) = query.after() {
        conditions.push(format!("({order}) < (?, ?)"));
        values.push(SqlValue::Integer(created_ms));
        values.push(db::text(interview_id));
    }
    let (first, second) = order.split_once(", ").expect("two order columns");
    sql.push_str(&format!(" WHERE {} ORDER BY {first} DESC, {second} DESC", conditions.join(" AND ")));
    if let Some(rows) = query.page.rows_to_read() {
        sql.push_str(" LIMIT ?");
        values.push(SqlValue::Integer(rows));
    }
    (sql, values)
}

/// The tenant's interviews matching the query, newest first (one more than the
/// page, when paged: see `paging`).
pub fn list(db: &Db, tenant_id: TenantId, query: &ListQuery) -> ApiResult<Vec<ListItem>> {
    let driver = choose_driver(db, tenant_id, query)?;
    let (sql, values) = list_statement(tenant_id, query, driver);
    let result = db.query(&sql, &values)?;
    db::read_all(&result, |row| {
        Ok(ListItem {
            interview_id: row.id("interview_id")?,
            project_id: row.id("project_id")?,
            created_at: row.text("created_at")?,
            created_ms: row.int("created_ms")?,
            quality: super::quality_from_row(row)?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(text: &str) -> ListQuery {
        ListQuery::parse(&platform::http::parse_query(text)).unwrap()
    }

    #[test]
    fn the_interviews_index_drives_without_metadata() {
        let (sql, values) = list_statement(TenantId::parse("00000000-0000-4000-8000-0000000000aa").unwrap(), &query("project_id=6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10&limit=5"), Driver::Interviews);
        assert_eq!(
            sql,
            "SELECT i.interview_id, i.project_id, i.created_at, i.created_ms, i.quality_score, i.quality_flags FROM interviews i \
             WHERE i.tenant_id = ? AND i.environment = ? AND i.project_id = ? \
             ORDER BY i.created_ms DESC, i.interview_id DESC LIMIT ?"
        );
        assert_eq!(values.len(), 4);
    }

    #[test]
    fn a_metadata_key_can_drive_and_the_others_are_looked_up() {
        let cursor = platform::paging::Cursor { key: "12".into(), id: "6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10".into() }.encode();
        let q = query(&format!("external_metadata[a]=1&external_metadata[a]=2&external_metadata[b]=x&cursor={cursor}"));
        let (sql, values) = list_statement(TenantId::parse("00000000-0000-4000-8000-0000000000aa").unwrap(), &q, Driver::Metadata(1));
        assert!(
            sql.contains(
                "FROM interview_metadata d CROSS JOIN interviews i WHERE d.tenant_id = ? AND d.key = ? AND d.value IN (?) \
                 AND EXISTS (SELECT 1 FROM interview_metadata m WHERE m.tenant_id = d.tenant_id AND m.key = ? \
                 AND m.value IN (?, ?) AND m.created_ms = d.created_ms AND +m.interview_id = d.interview_id LIMIT 1) \
                 AND i.interview_id = d.interview_id AND i.tenant_id = ? AND i.environment = ?"
            ),
            "{sql}"
        );
        assert!(sql.contains("(d.created_ms, d.interview_id) < (?, ?)"), "{sql}");
        assert!(sql.ends_with("ORDER BY d.created_ms DESC, d.interview_id DESC"), "{sql}");
        // tenant, key b, x | key a, 1, 2 | tenant, environment | cursor
        assert_eq!(values.len(), 3 + 3 + 2 + 2);
        let text = |i: usize| match &values[i] {
            SqlValue::Text(text) => text.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!((1..6).map(text).collect::<Vec<_>>(), ["b", "x", "a", "1", "2"]);
        assert_eq!((text(6), text(7)), ("00000000-0000-4000-8000-0000000000aa".to_string(), "production".to_string()));
    }

    #[test]
    fn with_the_interviews_index_driving_every_key_is_looked_up() {
        let q = query("project_id=6f1c0f0e-4d0a-4b8e-9a53-2d7c1f9c2b10&external_metadata[a]=1&external_metadata[b]=x&external_metadata[b]=y");
        let (sql, values) = list_statement(TenantId::parse("00000000-0000-4000-8000-0000000000aa").unwrap(), &q, Driver::Interviews);
        assert!(sql.contains("FROM interviews i WHERE i.tenant_id = ? AND i.environment = ? AND i.project_id = ? AND EXISTS"), "{sql}");
        assert_eq!(sql.matches("m.created_ms = i.created_ms AND +m.interview_id = i.interview_id LIMIT 1)").count(), 2, "{sql}");
        assert!(!sql.contains("LIMIT ?"), "no page, no page limit: {sql}");
        // tenant, environment, project | key a, 1 | key b, x, y
        assert_eq!(values.len(), 3 + 2 + 3);
    }

    /// Today's rule, counting everything up to the cap: the scope unless a key
    /// has fewer rows, then the first key with the fewest.
    fn rule(scope: i64, keys: &[i64]) -> Driver {
        let mut best = (scope.min(SELECTIVE_CAP), Driver::Interviews);
        for (index, &rows) in keys.iter().enumerate() {
            if rows.min(SELECTIVE_CAP) < best.0 {
                best = (rows.min(SELECTIVE_CAP), Driver::Metadata(index));
            }
        }
        best.1
    }

    #[test]
    fn the_driver_is_todays_and_no_count_goes_past_the_smallest() {
        let sizes = [0, 1, 2, 175, 1_050, 4_999, 5_000, 5_001, 21_926, 100_000];
        let mut cases = Vec::new();
        for &scope in &sizes {
            for &a in &sizes {
                cases.push((scope, vec![a]));
                for &b in &sizes {
                    cases.push((scope, vec![a, b]));
                    cases.push((scope, vec![a, b, a.min(b)]));
                }
            }
        }
        for (scope, keys) in cases {
            let mut asked = Vec::new();
            let driver = pick_driver(keys.len(), |candidate, cap| {
                asked.push((candidate, cap));
                let rows = match candidate {
                    Driver::Interviews => scope,
                    Driver::Metadata(index) => keys[index],
                };
                Ok(rows.min(cap))
            })
            .unwrap();
            assert_eq!(driver, rule(scope, &keys), "scope {scope}, keys {keys:?}");
            // Each key up to the smallest count before it; the scope up to the smallest plus one.
            let mut smallest = SELECTIVE_CAP;
            for (candidate, cap) in &asked {
                match candidate {
                    Driver::Metadata(index) => {
                        assert_eq!(*cap, smallest, "scope {scope}, keys {keys:?}: {asked:?}");
                        smallest = smallest.min(keys[*index]);
                    }
                    Driver::Interviews => assert_eq!(*cap, smallest + 1, "scope {scope}, keys {keys:?}: {asked:?}"),
                }
            }
            assert_eq!(asked.iter().filter(|(c, _)| *c == Driver::Interviews).count(), usize::from(smallest < SELECTIVE_CAP));
        }
        assert_eq!(pick_driver(0, |_, _| unreachable!()).unwrap(), Driver::Interviews);
    }
}
