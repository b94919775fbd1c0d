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
