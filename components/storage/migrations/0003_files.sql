-- Files: metadata of uploaded blobs. The bytes live in the key-value store, in
-- chunks of at most 1 MiB under `file:<file_id>:<n>` (n = 0 .. chunk_count-1).
-- The row is written last, after every chunk: a file without a row does not exist.

CREATE TABLE IF NOT EXISTS files (
    file_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    mime_type TEXT NOT NULL,
    purpose TEXT NOT NULL,
    size INTEGER NOT NULL,
    -- lower-case hex SHA-256 of the bytes
    sha256 TEXT NOT NULL,
    chunk_count INTEGER NOT NULL,
    created_at TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS files_by_tenant ON files (tenant_id, created_at);
