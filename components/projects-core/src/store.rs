//! Projects in SQLite. Every query is scoped by `tenant_id`, except the
//! public link's read by id and the interview counter of a project an
//! interview belongs to. State changes take the caller's transaction (their
//! events are written with them: see `states.rs`).

use platform::ids::ProjectId;
use platform::ids::TenantId;
use super::{Column, Openness, Presence, Project, ProjectFields, ProjectType, Status, FIELDS};
use storage::{self as db, Db, Row, SqlValue, Tx};
use platform::error::{ApiError, ApiResult};
use platform::paging::{Cursor, PageRequest};
use platform::time;
use serde_json::{Map, Value};

/// The columns a project is read from: its [`FIELDS`] and the rest of the row.
fn columns() -> String {
    let mut names = vec![
        "project_id",
        "project_type",
        "status",
        "created_at",
        "published_at",
        "revision",
        "completed_interviews",
        "tenant_id",
    ];
    names.extend(FIELDS.iter().map(|spec| spec.name));
    names.join(", ")
}

fn json_text(value: &impl serde::Serialize) -> SqlValue {
    db::text(serde_json::to_string(value).expect("JSON values always serialize"))
}

/// The writable columns with their values, from [`FIELDS`]: one list, so a column
/// can never be bound to another column's value.
fn writable(f: &ProjectFields) -> ApiResult<Vec<(&'static str, SqlValue)>> {
    let Value::Object(mut values) = serde_json::to_value(f).map_err(ApiError::internal)? else {
        return Err(ApiError::internal(anyhow::anyhow!("project fields are not a JSON object")));
    };
    FIELDS
        .iter()
        .map(|spec| {
            let value = values.remove(spec.name).unwrap_or(Value::Null);
            let bound = match spec.column {
                _ if value.is_null() => Some(SqlValue::Null),
                Column::Text => value.as_str().map(db::text),
                Column::Integer => value.as_i64().map(SqlValue::Integer),
                Column::Json => Some(json_text(&value)),
            };
            let bound = bound.ok_or_else(|| {
                ApiError::internal(anyhow::anyhow!("project field `{}` does not fit its column: {value}", spec.name))
            })?;
            Ok((spec.name, bound))
        })
        .collect()
}

fn from_row(row: &Row) -> ApiResult<Project> {
    // Each column read as strictly as its table row says, then typed as a whole.
    let mut values = Map::new();
    for spec in FIELDS {
        let name = spec.name;
        let value = match (spec.column, spec.presence == Presence::Required) {
            (Column::Text, true) => Value::String(row.text(name)?),
            (Column::Text, false) => row.opt_text(name)?.map_or(Value::Null, Value::String),
            (Column::Integer, true) => row.int(name)?.into(),
            (Column::Integer, false) => row.opt_int(name)?.map_or(Value::Null, Value::from),
            (Column::Json, true) => row.json::<Value>(name)?,
            (Column::Json, false) => row.opt_json::<Value>(name)?.unwrap_or(Value::Null),
        };
        values.insert(name.to_string(), value);
    }
    let fields: ProjectFields = serde_json::from_value(Value::Object(values)).map_err(|error| {
        ApiError::Internal(anyhow::anyhow!("sqlite: a projects column is not the value expected: {error}"))
    })?;
    Ok(Project {
        project_id: row.id("project_id")?,
        project_type: row.named::<ProjectType>("project_type")?,
        fields,
        status: row.named::<Status>("status")?,
        created_at: row.text("created_at")?,
        published_at: row.opt_text("published_at")?,
        revision: row.int("revision")?,
        completed_interviews: row.int("completed_interviews")?,
        tenant_id: row.id("tenant_id")?,
    })
}

/// Stores a new draft project and returns its id.
pub fn insert(db: &Db, tenant_id: TenantId, project_type: ProjectType, creation_mode: &str, fields: &ProjectFields) -> ApiResult<ProjectId> {
    let project_id = ProjectId::new_random();
    let now = time::rfc3339_now();
    let mut columns = vec!["project_id", "tenant_id", "project_type", "creation_mode", "status", "created_at", "updated_at"];
    let mut values = vec![
        db::text(project_id),
        db::text(tenant_id),
        db::text(project_type.as_str()),
        db::text(creation_mode),
        db::text(Status::Draft.as_str()),
        db::text(&now),
        db::text(&now),
    ];
    for (column, value) in writable(fields)? {
        columns.push(column);
        values.push(value);
    }
    let placeholders = vec!["?"; columns.len()].join(", ");
    db.execute(&format!("INSERT INTO projects ({}) VALUES ({placeholders})", columns.join(", ")), &values)?;
    Ok(project_id)
}

/// A project's place in the list order (`created_at` DESC, `project_id`).
fn cursor_of(project: &Project) -> Cursor {
    Cursor { key: project.created_at.clone(), id: project.project_id.to_string() }
}

/// Only timestamps as the service writes them are list keys.
pub fn is_list_key(key: &str) -> bool {
    time::parse_rfc3339(key).map(time::rfc3339).as_deref() == Some(key)
}

/// A `GET /v1/projects` request: the states asked for (`status`, repeatable: any
/// of them; none: every state) and the page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListQuery {
    pub statuses: Vec<Status>,
    pub page: PageRequest,
}

impl ListQuery {
    /// 422s at `["query","status"]`, `["query","limit"]`, `["query","cursor"]`.
    pub fn parse(pairs: &[(String, String)]) -> ApiResult<ListQuery> {
        let mut errors = Vec::new();
        let mut statuses = Vec::new();
        for (_, value) in pairs.iter().filter(|(name, _)| name == "status") {
            match Status::parse(value) {
                Some(status) if !statuses.contains(&status) => statuses.push(status),
                Some(_) => {}
                None => errors.push(platform::FieldError::new(
                    vec!["query".into(), "status".into()],
                    "enum",
                    platform::validation::enum_message(<Status as text_enum::TextEnum>::NAMES),
                )),
            }
        }
        let page = PageRequest::parse(pairs, is_list_key, &mut errors);
        if errors.is_empty() {
            Ok(ListQuery { statuses, page })
        } else {
            Err(ApiError::Validation(errors))
        }
    }
}

/// The tenant's projects, newest first, and the cursor of the next page. A page
/// walks the `(tenant_id, created_at)` index from the cursor on.
pub fn list(db: &Db, tenant_id: TenantId, query: &ListQuery) -> ApiResult<(Vec<Project>, Option<Cursor>)> {
    let page = &query.page;
    let mut sql = format!("SELECT {} FROM projects WHERE tenant_id = ?", columns());
    let mut params = vec![db::text(tenant_id)];
    if !query.statuses.is_empty() {
        sql += &format!(" AND status IN ({})", vec!["?"; query.statuses.len()].join(", "));
        params.extend(query.statuses.iter().map(|s| db::text(s.as_str())));
    }
    if let Some(after) = &page.after {
        // The range on created_at uses the index; the OR settles ties.
        sql += " AND created_at <= ? AND (created_at < ? OR project_id > ?)";
        params.extend([db::text(&after.key), db::text(&after.key), db::text(&after.id)]);
    }
    sql += " ORDER BY created_at DESC, project_id";
    if let Some(rows) = page.rows_to_read() {
        sql += " LIMIT ?";
        params.push(SqlValue::Integer(rows));
    }
    let result = db.query(&sql, &params)?;
    let projects = db::read_all(&result, from_row)?;
    Ok(query.page.finish(projects, cursor_of))
}

/// One of the tenant's projects; another tenant's is `None`, like a missing one.
pub fn get(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<Option<Project>> {
    let result = db.query(
        &format!("SELECT {} FROM projects WHERE project_id = ? AND tenant_id = ?", columns()),
        &[db::text(project_id), db::text(tenant_id)],
    )?;
    db::read_first(&result, from_row)
}

/// One of the tenant's projects with its model calls today (the single read
/// shows them): the counts come with the row, in the same statement.
pub fn get_with_model_calls(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<Option<(Project, super::model_calls::ModelCalls)>> {
    let result = db.query(
        &format!(
            "SELECT {}, {} FROM projects WHERE project_id = ? AND tenant_id = ?",
            columns(),
            super::model_calls::COLUMNS
        ),
        &[db::text(project_id), db::text(tenant_id)],
    )?;
    let now = time::now();
    db::read_first(&result, |row| Ok((from_row(row)?, super::model_calls::ModelCalls::from_row(row, now)?)))
}

/// A project by id alone, whoever owns it: for the public interview link, which
/// carries no credentials. Callers must scope what they do by `tenant_id`.
pub fn find_for_link(db: &Db, project_id: ProjectId) -> ApiResult<Option<Project>> {
    let (sql, params) = for_link_statement(project_id);
    project_from(&db.query(&sql, &params)?)
}

/// The statement of [`find_for_link`], to read it together with others
/// (`Db::query_together`); its result reads with [`project_from`].
pub fn for_link_statement(project_id: ProjectId) -> (String, Vec<SqlValue>) {
    (format!("SELECT {} FROM projects WHERE project_id = ?", columns()), vec![db::text(project_id)])
}

/// The project a statement of this store found, if any.
pub fn project_from(result: &db::QueryResult) -> ApiResult<Option<Project>> {
    db::read_first(result, from_row)
}

/// A project by id alone with its tenant's sandbox secret (see
/// [`super::share`]): for a sandbox link, whose token is checked against it.
pub fn find_for_sandbox_link(db: &Db, project_id: ProjectId) -> ApiResult<Option<(Project, Option<String>)>> {
    let result = db.query(
        &format!(
            "SELECT {}, (SELECT sandbox_secret FROM tenants t WHERE t.tenant_id = projects.tenant_id) AS sandbox_secret
             FROM projects WHERE project_id = ?",
            columns()
        ),
        &[db::text(project_id)],
    )?;
    db::read_first(&result, |row| Ok((from_row(row)?, row.opt_text("sandbox_secret")?)))
}

/// The tenant's sandbox secret, if it has one yet.
pub fn sandbox_secret(db: &Db, tenant_id: TenantId) -> ApiResult<Option<String>> {
    match db.query_scalar("SELECT sandbox_secret FROM tenants WHERE tenant_id = ?", &[db::text(tenant_id)])? {
        Some(SqlValue::Text(secret)) => Ok(Some(secret)),
        _ => Ok(None),
    }
}

/// Gives the tenant its first sandbox secret (a secret it has already stays).
pub fn set_sandbox_secret_if_none(db: &Db, tenant_id: TenantId, secret: &str) -> ApiResult<()> {
    db.execute(
        "UPDATE tenants SET sandbox_secret = ? WHERE tenant_id = ? AND sandbox_secret IS NULL",
        &[db::text(secret), db::text(tenant_id)],
    )
}

/// Replaces the tenant's sandbox secret.
pub fn set_sandbox_secret(db: &Db, tenant_id: TenantId, secret: &str) -> ApiResult<()> {
    db.execute("UPDATE tenants SET sandbox_secret = ? WHERE tenant_id = ?", &[db::text(secret), db::text(tenant_id)])
}

/// The 422s for survey blocks whose media is not one of the tenant's survey files.
pub fn unknown_survey_files(db: &Db, tenant_id: TenantId, blocks: &[super::survey::SurveyBlock]) -> ApiResult<Vec<platform::FieldError>> {
    let wanted = super::survey::media_files(blocks);
    if wanted.is_empty() {
        return Ok(Vec::new());
    }
    let mut values = vec![db::text(tenant_id)];
    values.extend(wanted.iter().map(|(_, id)| db::text(*id)));
    let result = db.query(
        &format!(
            "SELECT file_id FROM files WHERE tenant_id = ? AND purpose = 'survey' AND file_id IN ({})",
            vec!["?"; wanted.len()].join(", ")
        ),
        &values,
    )?;
    let found = db::read_all(&result, |row| row.text("file_id"))?;
    Ok(wanted
        .into_iter()
        .filter(|(_, id)| !found.iter().any(|f| f == id))
        .map(|(index, id)| super::survey::unknown_file(index, id))
        .collect())
}

/// Whether the tenant has this project.
pub fn exists(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<bool> {
    let found = db.query_scalar(
        "SELECT 1 FROM projects WHERE project_id = ? AND tenant_id = ?",
        &[db::text(project_id), db::text(tenant_id)],
    )?;
    Ok(found.is_some())
}

pub fn not_found() -> ApiError {
    ApiError::not_found("Project")
}

/// Writes a project's fields if nobody changed them since `revision` was read.
/// `Ok(false)`: the project changed (or vanished) in between.
/// `survey_locked`: only if no production interview exists (the survey's blocks change).
pub fn update(
    db: &Db,
    tenant_id: TenantId,
    project_id: ProjectId,
    revision: i64,
    fields: &ProjectFields,
    survey_locked: bool,
) -> ApiResult<bool> {
    let (columns, mut values): (Vec<&str>, Vec<SqlValue>) = writable(fields)?.into_iter().unzip();
    let assignments: Vec<String> = columns.iter().map(|c| format!("{c} = ?")).collect();
    values.extend([
        db::text(time::rfc3339_now()),
        db::text(project_id),
        db::text(tenant_id),
        SqlValue::Integer(revision),
    ]);
    let result = db.query(
        &format!(
            "UPDATE projects SET {}, updated_at = ?, revision = revision + 1
             WHERE project_id = ? AND tenant_id = ? AND revision = ?{} RETURNING project_id",
            assignments.join(", "),
            if survey_locked {
                " AND NOT EXISTS (SELECT 1 FROM interviews i
                                  WHERE i.project_id = projects.project_id AND i.environment = 'production')"
            } else {
                ""
            }
        ),
        &values,
    )?;
    Ok(!result.rows.is_empty())
}

/// What decides whether the tenant's project takes an interview, as stored now.
pub fn openness(db: &Db, tenant_id: TenantId, project_id: ProjectId) -> ApiResult<Option<Openness>> {
    let result = db.query(
        "SELECT status, max_interviews, completed_interviews FROM projects WHERE project_id = ? AND tenant_id = ?",
        &[db::text(project_id), db::text(tenant_id)],
    )?;
    db::read_first(&result, openness_of)
}

fn openness_of(row: &Row) -> ApiResult<Openness> {
    Ok(Openness {
        status: row.named::<Status>("status")?,
        max_interviews: row.opt_int("max_interviews")?,
        completed_interviews: row.int("completed_interviews")?,
    })
}

/// Sets the project's state; the first move into active is remembered as its
/// publication (it unlocks the production URL).
pub fn set_status(tx: &Tx, project_id: ProjectId, status: Status, at: &str) -> ApiResult<()> {
    let published = if status == Status::Active { ", published_at = COALESCE(published_at, ?3)" } else { "" };
    tx.execute(
        &format!("UPDATE projects SET status = ?1, updated_at = ?3{published} WHERE project_id = ?2"),
        &[db::text(status.as_str()), db::text(project_id), db::text(at)],
    )
}

/// Adds `delta` (1 or -1) to the project's completed interviews (never below
/// 0); returns its tenant and what it now takes.
pub fn add_completed_interview(tx: &Tx, project_id: ProjectId, delta: i64) -> ApiResult<(TenantId, Openness)> {
    let result = tx.query(
        "UPDATE projects SET completed_interviews = MAX(completed_interviews + ?, 0) WHERE project_id = ?
         RETURNING tenant_id, status, max_interviews, completed_interviews",
        &[SqlValue::Integer(delta), db::text(project_id)],
    )?;
    db::read_first(&result, |row| Ok((row.id("tenant_id")?, openness_of(row)?)))?
        .ok_or_else(|| ApiError::internal(anyhow::anyhow!("project {project_id} vanished while counting an interview")))
}

/// Whether the project has a production interview (its survey blocks are then fixed).
pub fn has_production_interviews(db: &Db, project_id: ProjectId) -> ApiResult<bool> {
    let found = db.query_scalar(
        "SELECT 1 FROM interviews WHERE project_id = ? AND environment = 'production' LIMIT 1",
        &[db::text(project_id)],
    )?;
    Ok(found.is_some())
}
