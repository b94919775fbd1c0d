-- The synthesis written by a language model (docs/synthesis.md, "With a
-- model"): written by the maintenance run, never in a request. One per
-- project: its questions, findings and themes, each theme with the interviews
-- assigned to it and its checked quotes (JSON). Deleted when one of its
-- interviews is erased, and when a run fails (the built-in synthesis answers then).
CREATE TABLE IF NOT EXISTS model_syntheses (
    project_id TEXT PRIMARY KEY,
    generated_at TEXT NOT NULL,
    body TEXT NOT NULL
) WITHOUT ROWID;

-- Projects whose model synthesis is due: an interview ended (or was erased)
-- since the last run. A run leases its project; it leaves the queue when a
-- run finishes and nothing was queued meanwhile. `erased_ms`: the last
-- erasure in the project, after which a run that read the interviews before
-- it stores nothing.
CREATE TABLE IF NOT EXISTS synthesis_queue (
    project_id TEXT PRIMARY KEY,
    queued_ms INTEGER NOT NULL,
    erased_ms INTEGER NOT NULL DEFAULT 0,
    leased_until_ms INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
