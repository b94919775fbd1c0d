-- Erasure and retention (docs/interviews.md, "Erasure"). Plain tables and
-- indexes; the rules are Rust (interviews/erasure.rs).

-- Each interview's data key: 32 random bytes, the only key to its recording
-- chunks in the key-value store (sealed.rs). Erasing the interview deletes it
-- first. NULL for interviews started before this migration, whose chunks were
-- stored as they came.
ALTER TABLE interviews ADD COLUMN data_key BLOB;

-- Withdrawals arrive by identifier; an e-mail address matches whatever its case.
CREATE INDEX IF NOT EXISTS interviews_by_identifier ON interviews (tenant_id, identifier COLLATE NOCASE);

-- Retention: a project's stopped interviews, by when they stopped.
CREATE INDEX IF NOT EXISTS interviews_by_close ON interviews (project_id, closed_at) WHERE closed_at IS NOT NULL;

-- Days a project's interviews are kept after they stop; NULL keeps them.
ALTER TABLE projects ADD COLUMN data_retention_days INTEGER;
CREATE INDEX IF NOT EXISTS projects_with_retention ON projects (project_id) WHERE data_retention_days IS NOT NULL;

-- What an erased interview leaves: ids, and the hash of its session token, so
-- that its own session learns it is gone (404) while anyone else still gets
-- the 401 of an unknown session. awaiting_checkpoint: 1 until a maintenance
-- run has truncated the WAL, which still holds the pages as they were.
CREATE TABLE IF NOT EXISTS erased_interviews (
    interview_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    session_token_hash TEXT NOT NULL,
    erased_at TEXT NOT NULL,
    awaiting_checkpoint INTEGER NOT NULL DEFAULT 1
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS erased_interviews_awaiting_checkpoint ON erased_interviews (interview_id)
    WHERE awaiting_checkpoint = 1;

-- Key-value entries of erased interviews not deleted yet (their key is gone
-- already): deleted right after the erasure, and by the maintenance run when
-- that failed.
CREATE TABLE IF NOT EXISTS erased_blobs (
    blob_key TEXT PRIMARY KEY,
    erased_at TEXT NOT NULL
) WITHOUT ROWID;
