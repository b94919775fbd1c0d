-- Webhooks: workspace secrets, double opt-in subscriptions, one delivery per
-- (subscription, event) fanned out from the event outbox, and the attempt log.
-- Every statement is idempotent: components may run migrations concurrently.

-- The event outbox. Migration 2 (projects) creates it with exactly this shape;
-- repeated here so that the fan-out trigger below always has its table.
CREATE TABLE IF NOT EXISTS events (
    event_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    payload TEXT NOT NULL,
    created_at TEXT NOT NULL
);

-- The HMAC key of a workspace (= tenant). Kept in clear text: it must be usable
-- to sign. One active secret per workspace (partial unique index).
CREATE TABLE IF NOT EXISTS webhook_secrets (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    secret TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL
);

CREATE UNIQUE INDEX IF NOT EXISTS webhook_secrets_one_active ON webhook_secrets (tenant_id) WHERE active = 1;

-- status: pending (not confirmed yet) | confirmed | failing (latest delivery failed).
-- The hook secret is single-use and expires; only its SHA-256 is stored.
CREATE TABLE IF NOT EXISTS webhook_subscriptions (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    target_url TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    hook_secret_hash TEXT NOT NULL,
    hook_secret_expires_at INTEGER NOT NULL,
    hook_secret_used INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    confirmed_at TEXT
);

CREATE INDEX IF NOT EXISTS webhook_subscriptions_by_tenant ON webhook_subscriptions (tenant_id, event_type);

-- One row per (subscription, event). status: pending | delivered | failed | cancelled.
-- attempt_count counts every attempt ever made (numbering of the attempt log);
-- round_attempts counts the attempts since the delivery was (re)queued, which the
-- retry schedule uses. next_attempt_at and leased_at are UNIX milliseconds.
-- A dispatcher run leases rows (leased_at, lease_owner) before sending; a lease
-- older than the configured lease length is free again, so a crash between
-- sending and recording leads to a resend, never to a lost event.
CREATE TABLE IF NOT EXISTS webhook_deliveries (
    id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    subscription_id TEXT NOT NULL,
    event_id TEXT NOT NULL,
    event_type TEXT NOT NULL,
    status TEXT NOT NULL DEFAULT 'pending',
    attempt_count INTEGER NOT NULL DEFAULT 0,
    round_attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER NOT NULL DEFAULT 0,
    leased_at INTEGER,
    lease_owner TEXT,
    last_attempt_at TEXT,
    last_status_code INTEGER,
    last_error TEXT,
    last_duration_ms INTEGER,
    last_target_url TEXT,
    last_timestamp INTEGER,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    UNIQUE (subscription_id, event_id)
);

CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (status, next_attempt_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_tenant ON webhook_deliveries (tenant_id, created_at);
CREATE INDEX IF NOT EXISTS webhook_deliveries_by_lease ON webhook_deliveries (lease_owner);

-- Every attempt, successful or not.
CREATE TABLE IF NOT EXISTS webhook_delivery_attempts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    attempt INTEGER NOT NULL,
    attempted_at TEXT NOT NULL,
    x_timestamp INTEGER,
    target_url TEXT NOT NULL,
    status_code INTEGER,
    error TEXT,
    duration_ms INTEGER,
    success INTEGER NOT NULL
);

CREATE INDEX IF NOT EXISTS webhook_delivery_attempts_by_delivery ON webhook_delivery_attempts (delivery_id, attempt);

-- Fan-out: one delivery per subscription of the event's tenant and type that is
-- confirmed at this moment (an event raised before confirmation is never sent).
-- Runs inside the transaction of the statement that wrote the event.
CREATE TRIGGER IF NOT EXISTS webhook_events_fan_out AFTER INSERT ON events
BEGIN
    INSERT OR IGNORE INTO webhook_deliveries
        (id, tenant_id, subscription_id, event_id, event_type, status, next_attempt_at, created_at, updated_at)
    SELECT
        lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4'
            || substr(lower(hex(randomblob(2))), 2) || '-'
            || substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-'
            || lower(hex(randomblob(6))),
        NEW.tenant_id, s.id, NEW.event_id, NEW.event_type, 'pending', 0, NEW.created_at, NEW.created_at
    FROM webhook_subscriptions s
    WHERE s.tenant_id = NEW.tenant_id
      AND s.event_type = NEW.event_type
      AND s.status IN ('confirmed', 'failing');
END;

-- The attempt log entry of each recorded attempt, written with the delivery's update.
CREATE TRIGGER IF NOT EXISTS webhook_deliveries_log_attempt AFTER UPDATE OF attempt_count ON webhook_deliveries
WHEN NEW.attempt_count > OLD.attempt_count
BEGIN
    INSERT INTO webhook_delivery_attempts
        (delivery_id, tenant_id, attempt, attempted_at, x_timestamp, target_url, status_code, error, duration_ms, success)
    VALUES
        (NEW.id, NEW.tenant_id, NEW.attempt_count, NEW.last_attempt_at, NEW.last_timestamp, NEW.last_target_url,
         NEW.last_status_code, NEW.last_error, NEW.last_duration_ms, NEW.status = 'delivered');
END;

-- A subscription is failing while its latest finished delivery failed.
CREATE TRIGGER IF NOT EXISTS webhook_deliveries_subscription_health AFTER UPDATE OF status ON webhook_deliveries
WHEN NEW.status IN ('delivered', 'failed') AND OLD.status <> NEW.status
BEGIN
    UPDATE webhook_subscriptions
    SET status = CASE NEW.status WHEN 'failed' THEN 'failing' ELSE 'confirmed' END
    WHERE id = NEW.subscription_id AND status IN ('confirmed', 'failing');
END;

-- Deleting a subscription stops its deliveries; the log stays.
CREATE TRIGGER IF NOT EXISTS webhook_subscriptions_cancel_deliveries AFTER DELETE ON webhook_subscriptions
BEGIN
    UPDATE webhook_deliveries
    SET status = 'cancelled', lease_owner = NULL, leased_at = NULL, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    WHERE subscription_id = OLD.id AND status = 'pending';
END;
