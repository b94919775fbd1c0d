-- Projects, and the event outbox their state changes write to.
-- Every statement is idempotent: components may run migrations concurrently.

CREATE TABLE IF NOT EXISTS projects (
    project_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_type TEXT NOT NULL,
    creation_mode TEXT NOT NULL,
    project_name TEXT NOT NULL,
    project_description TEXT,
    project_objective TEXT NOT NULL,
    research_questions TEXT NOT NULL,
    success_criteria TEXT NOT NULL,
    recruiting_criteria TEXT NOT NULL,
    specific_guidelines TEXT,
    redirect_url TEXT,
    -- JSON arrays of strings
    interview_modes TEXT NOT NULL,
    camera_access TEXT NOT NULL,
    logo_url TEXT,
    primary_color TEXT,
    secondary_color TEXT,
    text_color TEXT,
    -- JSON object or NULL
    screeners TEXT,
    interview_languages TEXT NOT NULL,
    interview_length INTEGER NOT NULL,
    max_interviews INTEGER,
    -- draft | active | paused | completed
    status TEXT NOT NULL DEFAULT 'draft',
    -- first transition into active; NULL while never published
    published_at TEXT,
    -- set by every state-changing UPDATE and read by the event triggers below:
    -- the outbox row's event_id and timestamp (a writer that leaves them unchanged
    -- gets a fresh UUID and the current time from SQLite instead)
    pending_event_id TEXT,
    status_changed_at TEXT,
    -- bumped by every PATCH (optimistic concurrency of read-merge-write)
    revision INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS projects_by_tenant ON projects (tenant_id, created_at);

-- The outbox: one row per event, written in the same statement-transaction as the
-- change that raises it. The webhook dispatcher fans rows out to subscriptions.
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY,   -- UUID v4; becomes X-Event-ID
    tenant_id TEXT NOT NULL,
    event_type TEXT NOT NULL,    -- project.published | project.completed | interview.finished
    payload TEXT NOT NULL,       -- the exact JSON body to POST (the contract's payload table; timestamps RFC 3339 UTC Z)
    created_at TEXT NOT NULL
);

CREATE INDEX IF NOT EXISTS events_by_tenant ON events (tenant_id, created_at);

-- The outbox: project.published on every transition into active (first
-- publication and resume), project.completed on the transition into completed
-- (POST .../complete, or the max_interviews count being reached). The event id
-- and time come from the UPDATE (pending_event_id, status_changed_at, made in
-- Rust); a writer that sets neither still gets a UUID v4 and the current time.
CREATE TRIGGER IF NOT EXISTS projects_emit_events
AFTER UPDATE OF status ON projects
WHEN NEW.status IN ('active', 'completed') AND OLD.status IS NOT NEW.status
BEGIN
    INSERT INTO events (event_id, tenant_id, event_type, payload, created_at)
    SELECT e.event_id, NEW.tenant_id, e.event_type,
           json_object('project_id', NEW.project_id, 'event_type', e.event_type, e.time_field, e.at),
           e.at
    FROM (SELECT
            CASE NEW.status WHEN 'active' THEN 'project.published' ELSE 'project.completed' END AS event_type,
            CASE NEW.status WHEN 'active' THEN 'published_at' ELSE 'completed_at' END AS time_field,
            CASE WHEN NEW.pending_event_id IS NOT NULL AND NEW.pending_event_id IS NOT OLD.pending_event_id
                 THEN NEW.pending_event_id
                 ELSE lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
                      substr(lower(hex(randomblob(2))), 2) || '-' || substr('89ab', 1 + abs(random()) % 4, 1) ||
                      substr(lower(hex(randomblob(2))), 2) || '-' || lower(hex(randomblob(6))) END AS event_id,
            CASE WHEN NEW.status_changed_at IS NOT NULL AND NEW.status_changed_at IS NOT OLD.status_changed_at
                 THEN NEW.status_changed_at
                 ELSE strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END AS at) AS e;
END;
