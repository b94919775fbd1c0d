-- Domain rules in Rust: the schema is plain tables and indexes. What the
-- triggers and the view of migrations 2 to 5 did (events with state changes,
-- their fan-out into deliveries, the attempt log, subscription health,
-- interview starts, turn counting, interview ends, max_interviews, flags,
-- recording totals) is done by the areas' use cases, each inside one
-- transaction (db::Db::transaction). Stored rows stay as they were.
DROP TRIGGER IF EXISTS projects_emit_events;
DROP TRIGGER IF EXISTS webhook_events_fan_out;
DROP TRIGGER IF EXISTS webhook_deliveries_log_attempt;
DROP TRIGGER IF EXISTS webhook_deliveries_subscription_health;
DROP TRIGGER IF EXISTS webhook_subscriptions_cancel_deliveries;
DROP TRIGGER IF EXISTS interview_starts_insert;
DROP TRIGGER IF EXISTS interview_turns_only_while_open;
DROP TRIGGER IF EXISTS interview_turns_count;
DROP TRIGGER IF EXISTS interviews_emit_finished;
DROP TRIGGER IF EXISTS interviews_count_completed;
DROP TRIGGER IF EXISTS interviews_flag_uncounts;
DROP TRIGGER IF EXISTS recording_chunks_in_order;
DROP TRIGGER IF EXISTS recording_chunks_total;
DROP VIEW IF EXISTS interview_starts;
-- The contract's interview_status is computed in Rust (sessions::InterviewStatus::of);
-- a virtual column stores nothing, so dropping it rewrites no row.
ALTER TABLE interviews DROP COLUMN interview_status;
-- Columns that only passed an event's id and time to a trigger. (A project
-- table is small: dropping them rewrites few rows.)
ALTER TABLE projects DROP COLUMN pending_event_id;
ALTER TABLE projects DROP COLUMN status_changed_at;
