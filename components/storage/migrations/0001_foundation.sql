-- Foundation: tenants and the per-IP rate-limit counters.
-- Every statement is idempotent: components may run migrations concurrently.

CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    applied_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS tenants (
    tenant_id TEXT PRIMARY KEY,
    organization_name TEXT NOT NULL,
    -- trimmed, lower-cased name: uniqueness is case-insensitive
    organization_key TEXT NOT NULL UNIQUE,
    contact_email TEXT NOT NULL,
    description TEXT,
    api_key_hash TEXT NOT NULL,
    created_at TEXT NOT NULL
);

CREATE TABLE IF NOT EXISTS rate_limit_windows (
    bucket TEXT NOT NULL,
    window_start INTEGER NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (bucket, window_start)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS rate_limit_windows_by_start ON rate_limit_windows (window_start);
