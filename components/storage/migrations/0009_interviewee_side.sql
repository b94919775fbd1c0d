-- The interviewee side under abuse and flaky networks (issue 26).
-- Every statement is idempotent: components may run migrations concurrently
-- (an ADD COLUMN that another instance applied first is skipped).

-- Sandbox links are capabilities (projects/share.rs): a sandbox link carries
-- an HMAC of its project under this per-tenant secret (base64url of 32 random
-- bytes), made when the tenant first asks for a sandbox URL and replaced by
-- POST /v1/sandbox-links/rotate. NULL: the tenant never had a sandbox link.
ALTER TABLE tenants ADD COLUMN sandbox_secret TEXT;

-- A project's language-model calls on the current UTC day (projects/model_calls.rs):
-- counted before each call; once `calls` reaches the variable
-- llm_daily_calls_per_project, calls are refused (`refused` counts them) and
-- the built-in interviewer writes instead. `admitted`: whether the last call
-- asked for was made (what the counting upsert returns). One row per project
-- that ever called the model, reset by the first call of a new day.
CREATE TABLE IF NOT EXISTS project_model_calls (
    project_id TEXT PRIMARY KEY,
    day TEXT NOT NULL,
    calls INTEGER NOT NULL,
    refused INTEGER NOT NULL,
    admitted INTEGER NOT NULL
) WITHOUT ROWID;

-- Recording rate (sessions/recordings): the bytes a recording stored in the
-- current one-minute window (Unix seconds of its start, like
-- rate_limit_windows); a session's recordings together may grow by the
-- variable recording_bytes_per_minute in a window.
ALTER TABLE recordings ADD COLUMN window_start INTEGER NOT NULL DEFAULT 0;
ALTER TABLE recordings ADD COLUMN window_bytes INTEGER NOT NULL DEFAULT 0;

-- Recordings that survive a reload (sessions/recordings/webm.rs): where
-- splicing a WebM recording stands between chunks (JSON: the segment, that is
-- the recorders so far less one, and a few numbers and bytes of the stream).
-- NULL: the recording is not spliced (another container, or recorded before).
ALTER TABLE recordings ADD COLUMN splicer TEXT;
