//! File metadata in SQLite. Every query is scoped by `tenant_id`.

use platform::ids::TenantId;
use super::FileRecord;
use storage::{self as db, Db, SqlValue};
use platform::error::ApiResult;

/// Inserts the metadata row of a stored file.
pub fn insert(db: &Db, record: &FileRecord) -> ApiResult<()> {
    db.execute(
        "INSERT INTO files (file_id, tenant_id, mime_type, purpose, size, sha256, chunk_count, chunk_bytes, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        &[
            db::text(&record.file_id),
            db::text(record.tenant_id),
            db::text(&record.mime_type),
            db::text(&record.purpose),
            SqlValue::Integer(record.size as i64),
            db::text(&record.sha256),
            SqlValue::Integer(record.chunk_count as i64),
            SqlValue::Integer(record.chunk_bytes as i64),
            db::text(&record.created_at),
        ],
    )
}

/// The tenant's file `file_id` (a valid UUID), if it has one.
pub fn find(db: &Db, tenant_id: TenantId, file_id: &str) -> ApiResult<Option<FileRecord>> {
    let result = db.query(
        "SELECT file_id, tenant_id, mime_type, purpose, size, sha256, chunk_count, chunk_bytes, created_at
         FROM files WHERE tenant_id = ? AND file_id = ?",
        &[db::text(tenant_id), db::text(file_id)],
    )?;
    db::read_first(&result, |row| {
        Ok(FileRecord {
            file_id: row.text("file_id")?,
            tenant_id: row.id("tenant_id")?,
            mime_type: row.text("mime_type")?,
            purpose: row.text("purpose")?,
            size: row.int("size")? as u64,
            sha256: row.text("sha256")?,
            chunk_count: row.int("chunk_count")? as u64,
            chunk_bytes: row.int("chunk_bytes")? as u64,
            created_at: row.text("created_at")?,
        })
    })
}

/// The content types of the tenant's files among `file_ids`: `(file_id, mime_type)`.
pub fn types_of(db: &Db, tenant_id: TenantId, file_ids: &[&str]) -> ApiResult<Vec<(String, String)>> {
    if file_ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut values = vec![db::text(tenant_id)];
    values.extend(file_ids.iter().map(|id| db::text(*id)));
    let result = db.query(
        &format!(
            "SELECT file_id, mime_type FROM files WHERE tenant_id = ? AND file_id IN ({})",
            vec!["?"; file_ids.len()].join(", ")
        ),
        &values,
    )?;
    db::read_all(&result, |row| Ok((row.text("file_id")?, row.text("mime_type")?)))
}
