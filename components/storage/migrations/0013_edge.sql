-- The edge (issue 37): records on a libSQL server over HTTP, maintenance
-- started by a scheduler that sends no credentials.

-- Records on a libSQL server over HTTP (db/remote.rs): every transaction
-- writes its receipt here as its first statement, so that a transaction whose
-- answer was lost on the network, sent again, finds out that it committed the
-- first time instead of applying twice. Only the remote backend writes them;
-- the maintenance run deletes receipts older than an hour (a retry comes within
-- seconds).
CREATE TABLE IF NOT EXISTS applied_batches (
    batch_id TEXT PRIMARY KEY,
    applied_ms INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS applied_batches_by_time ON applied_batches (applied_ms);

-- When the last maintenance run started through GET /v1/maintenance/tick
-- (maintenance.rs, run_if_due): one row, which one caller at a time wins.
CREATE TABLE IF NOT EXISTS maintenance_runs (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    started_ms INTEGER NOT NULL
);

-- The size of a file's chunks in the key-value store, as it was written
-- (blob_chunk_bytes: an edge platform's store takes values of at most 1 MB):
-- files written before with 1 MiB chunks stay readable.
ALTER TABLE files ADD COLUMN chunk_bytes INTEGER NOT NULL DEFAULT 1048576;
