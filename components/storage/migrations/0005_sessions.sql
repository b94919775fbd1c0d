-- Interviewee sessions: interviews, their turns, their external metadata (a
-- key/value table for indexed filters) and their recordings.
-- Every statement is idempotent: components may run migrations concurrently.
-- Every write of the sessions area is ONE statement; the triggers below do the
-- effects on other tables inside that statement's transaction.

-- Production interviews completed (and not flagged), kept by the triggers below:
-- reaching max_interviews completes the project.
ALTER TABLE projects ADD COLUMN completed_interviews INTEGER NOT NULL DEFAULT 0;

CREATE TABLE IF NOT EXISTS interviews (
    interview_id TEXT PRIMARY KEY,
    tenant_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    -- the project's type when the interview started: contextual_interview | survey
    project_type TEXT NOT NULL,
    -- production | sandbox
    environment TEXT NOT NULL,
    -- SHA-256 (hex) of the session's bearer token
    session_token_hash TEXT NOT NULL,
    identifier TEXT NOT NULL,
    country_code TEXT NOT NULL,
    -- MOBILE | DESKTOP
    device_type TEXT NOT NULL,
    language TEXT NOT NULL,
    -- typing | talking
    mode TEXT NOT NULL,
    -- compact JSON object of strings, keys sorted
    external_metadata TEXT NOT NULL,
    -- in_progress | completed | left (ended by the interviewee early) | timed_out
    state TEXT NOT NULL DEFAULT 'in_progress',
    -- the interviewer has closed the conversation
    interviewer_closed INTEGER NOT NULL DEFAULT 0,
    -- the interviewee's answers (screener answers are not counted)
    response_count INTEGER NOT NULL DEFAULT 0,
    -- the next turn's seq
    turn_count INTEGER NOT NULL DEFAULT 0,
    -- surveys: blocks that take an answer, and how many are answered
    answerable_blocks INTEGER NOT NULL DEFAULT 0,
    answered_blocks INTEGER NOT NULL DEFAULT 0,
    opt_in_for_followup INTEGER NOT NULL DEFAULT 0,
    summary TEXT,
    flag_reason TEXT,
    flagged_at TEXT,
    created_at TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    last_activity_ms INTEGER NOT NULL,
    -- completion time (the contract's ended_at): set only when the interview is completed
    ended_at TEXT,
    -- when the session stopped, for whatever reason
    closed_at TEXT,
    -- set by the UPDATE that ends the interview: the interview.finished event's id
    finished_event_id TEXT,
    -- The contract's derived status, defined once, here
    interview_status TEXT GENERATED ALWAYS AS (
        CASE
            WHEN state = 'completed' THEN 'COMPLETED'
            WHEN project_type = 'survey' THEN
                CASE WHEN answerable_blocks > 0 AND answered_blocks * 3 >= answerable_blocks
                     THEN 'PARTIAL' ELSE 'INITIATED' END
            WHEN response_count >= 4 THEN 'PARTIAL'
            ELSE 'INITIATED'
        END) VIRTUAL
);

-- Newest-first lists and oldest-first exports run on these; the id breaks ties,
-- so a page cursor (created_ms, interview_id) is exact.
CREATE INDEX IF NOT EXISTS interviews_by_project ON interviews (tenant_id, project_id, environment, created_ms, interview_id);
CREATE INDEX IF NOT EXISTS interviews_by_tenant ON interviews (tenant_id, environment, created_ms, interview_id);
CREATE INDEX IF NOT EXISTS interviews_in_progress ON interviews (last_activity_ms) WHERE state = 'in_progress';

-- One row per message, in order. kind: opening | question | probe | wrap_up |
-- block | follow_up | closing (interviewer) or answer | skip (interviewee);
-- question_index: the research question (or survey block) the turn belongs to;
-- source: builtin | model | interviewee; answer: a survey block's answer as JSON
-- (the choices, the rating or the text), only on the turn that answers a block.
CREATE TABLE IF NOT EXISTS interview_turns (
    interview_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    speaker TEXT NOT NULL,
    kind TEXT NOT NULL,
    question_index INTEGER,
    source TEXT NOT NULL,
    text TEXT NOT NULL,
    answer TEXT,
    created_at TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (interview_id, seq)
) WITHOUT ROWID;

-- External metadata as rows, for filters that run on an index:
-- (tenant, key, value) finds the interviews newest first.
CREATE TABLE IF NOT EXISTS interview_metadata (
    tenant_id TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    interview_id TEXT NOT NULL,
    PRIMARY KEY (tenant_id, key, value, created_ms, interview_id)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS interview_metadata_by_interview ON interview_metadata (interview_id, key, value);

-- A recording per interview and kind (audio | video). Its bytes are key-value
-- chunks; recording_chunks says where each one is and at which byte offset it
-- starts (Range requests). A chunk row is written after its bytes are stored.
CREATE TABLE IF NOT EXISTS recordings (
    interview_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    tenant_id TEXT NOT NULL,
    content_type TEXT NOT NULL,
    size INTEGER NOT NULL,
    chunk_count INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (interview_id, kind)
) WITHOUT ROWID;

CREATE TABLE IF NOT EXISTS recording_chunks (
    interview_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    idx INTEGER NOT NULL,
    tenant_id TEXT NOT NULL,
    content_type TEXT NOT NULL,
    blob_key TEXT NOT NULL,
    size INTEGER NOT NULL,
    byte_offset INTEGER NOT NULL,
    created_at TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    PRIMARY KEY (interview_id, kind, idx)
) WITHOUT ROWID;

-- Starting an interview: ONE insert into this view creates the interview, its
-- metadata rows and the interviewer's first turns (`opening`: a JSON array of
-- {kind, question_index, source, text}), after re-checking the project
-- in the same transaction (the caller checked it first for a friendly answer;
-- this closes the race with a concurrent pause or completion).
CREATE VIEW IF NOT EXISTS interview_starts AS
SELECT interview_id, tenant_id, project_id, project_type, environment, session_token_hash, identifier,
       country_code, device_type, language, mode, external_metadata, answerable_blocks, created_at, created_ms,
       NULL AS opening
FROM interviews;

CREATE TRIGGER IF NOT EXISTS interview_starts_insert INSTEAD OF INSERT ON interview_starts
BEGIN
    SELECT RAISE(ABORT, 'project_not_found')
    WHERE NOT EXISTS (SELECT 1 FROM projects WHERE project_id = NEW.project_id AND tenant_id = NEW.tenant_id);
    SELECT RAISE(ABORT, 'project_completed')
    WHERE EXISTS (SELECT 1 FROM projects WHERE project_id = NEW.project_id AND (status = 'completed'
        OR (NEW.environment = 'production' AND max_interviews IS NOT NULL AND completed_interviews >= max_interviews)));
    SELECT RAISE(ABORT, 'project_not_active')
    WHERE NEW.environment = 'production'
      AND NOT EXISTS (SELECT 1 FROM projects WHERE project_id = NEW.project_id AND status = 'active');
    INSERT INTO interviews (interview_id, tenant_id, project_id, project_type, environment, session_token_hash,
        identifier, country_code, device_type, language, mode, external_metadata, answerable_blocks,
        created_at, created_ms, last_activity_ms)
    VALUES (NEW.interview_id, NEW.tenant_id, NEW.project_id, NEW.project_type, NEW.environment,
        NEW.session_token_hash, NEW.identifier, NEW.country_code, NEW.device_type, NEW.language, NEW.mode,
        NEW.external_metadata, NEW.answerable_blocks, NEW.created_at, NEW.created_ms, NEW.created_ms);
    INSERT INTO interview_metadata (tenant_id, key, value, created_ms, interview_id)
    SELECT NEW.tenant_id, m.key, m.value, NEW.created_ms, NEW.interview_id FROM json_each(NEW.external_metadata) AS m;
    INSERT INTO interview_turns (interview_id, seq, speaker, kind, question_index, source, text, created_at, created_ms)
    SELECT NEW.interview_id, t.key, 'interviewer', json_extract(t.value, '$.kind'),
           json_extract(t.value, '$.question_index'), json_extract(t.value, '$.source'),
           json_extract(t.value, '$.text'), NEW.created_at, NEW.created_ms
    FROM json_each(NEW.opening) AS t;
END;

-- Turns are only added to a running conversation (not after the interviewer
-- closed it), in order; a second answer to the same message collides on the key.
CREATE TRIGGER IF NOT EXISTS interview_turns_only_while_open BEFORE INSERT ON interview_turns
WHEN NEW.seq > 0
BEGIN
    SELECT RAISE(ABORT, 'session_closed')
    WHERE NOT EXISTS (SELECT 1 FROM interviews
                      WHERE interview_id = NEW.interview_id AND state = 'in_progress' AND interviewer_closed = 0);
END;

CREATE TRIGGER IF NOT EXISTS interview_turns_count AFTER INSERT ON interview_turns
BEGIN
    UPDATE interviews
    SET turn_count = MAX(turn_count, NEW.seq + 1),
        response_count = response_count + (NEW.speaker = 'interviewee' AND NEW.kind = 'answer'),
        answered_blocks = answered_blocks + (NEW.answer IS NOT NULL),
        interviewer_closed = MAX(interviewer_closed, NEW.kind = 'closing'),
        last_activity_ms = MAX(last_activity_ms, NEW.created_ms)
    WHERE interview_id = NEW.interview_id;
END;

-- interview.finished, exactly once: when the interview leaves in_progress, in the
-- statement that ends it. interviewee_id is the identifier; interview_status and
-- environment are additive fields.
CREATE TRIGGER IF NOT EXISTS interviews_emit_finished AFTER UPDATE OF state ON interviews
WHEN OLD.state = 'in_progress' AND NEW.state <> 'in_progress'
BEGIN
    INSERT INTO events (event_id, tenant_id, event_type, payload, created_at)
    VALUES (NEW.finished_event_id, NEW.tenant_id, 'interview.finished',
        json_object('project_id', NEW.project_id, 'event_type', 'interview.finished',
                    'interview_id', NEW.interview_id, 'interviewee_id', NEW.identifier,
                    'finished_at', NEW.closed_at, 'interview_status', NEW.interview_status,
                    'environment', NEW.environment),
        NEW.closed_at);
END;

-- A completed production interview counts toward max_interviews; reaching it
-- completes the project (whose own trigger then raises project.completed).
CREATE TRIGGER IF NOT EXISTS interviews_count_completed AFTER UPDATE OF state ON interviews
WHEN NEW.state = 'completed' AND OLD.state <> 'completed' AND NEW.environment = 'production' AND NEW.flagged_at IS NULL
BEGIN
    UPDATE projects SET completed_interviews = completed_interviews + 1 WHERE project_id = NEW.project_id;
    UPDATE projects SET status = 'completed', status_changed_at = NEW.closed_at, updated_at = NEW.closed_at
    WHERE project_id = NEW.project_id AND status IN ('active', 'paused')
      AND max_interviews IS NOT NULL AND completed_interviews >= max_interviews;
END;

-- A flagged interview does not count toward max_interviews (a project it
-- completed stays completed).
CREATE TRIGGER IF NOT EXISTS interviews_flag_uncounts AFTER UPDATE OF flagged_at ON interviews
WHEN OLD.flagged_at IS NULL AND NEW.flagged_at IS NOT NULL AND NEW.state = 'completed' AND NEW.environment = 'production'
BEGIN
    UPDATE projects SET completed_interviews = MAX(completed_interviews - 1, 0) WHERE project_id = NEW.project_id;
END;

-- Recording chunks arrive in order while the interview runs.
CREATE TRIGGER IF NOT EXISTS recording_chunks_in_order BEFORE INSERT ON recording_chunks
BEGIN
    SELECT RAISE(ABORT, 'session_closed')
    WHERE NOT EXISTS (SELECT 1 FROM interviews WHERE interview_id = NEW.interview_id AND state = 'in_progress');
    SELECT RAISE(ABORT, 'chunk_out_of_order')
    WHERE NEW.idx <> COALESCE((SELECT chunk_count FROM recordings
                               WHERE interview_id = NEW.interview_id AND kind = NEW.kind), 0);
END;

CREATE TRIGGER IF NOT EXISTS recording_chunks_total AFTER INSERT ON recording_chunks
BEGIN
    INSERT INTO recordings (interview_id, kind, tenant_id, content_type, size, chunk_count, created_at, updated_at)
    VALUES (NEW.interview_id, NEW.kind, NEW.tenant_id, NEW.content_type, NEW.size, 1, NEW.created_at, NEW.created_at)
    ON CONFLICT (interview_id, kind) DO UPDATE
    SET size = size + excluded.size, chunk_count = chunk_count + 1, updated_at = excluded.updated_at;
    UPDATE interviews SET last_activity_ms = MAX(last_activity_ms, NEW.created_ms)
    WHERE interview_id = NEW.interview_id;
END;
