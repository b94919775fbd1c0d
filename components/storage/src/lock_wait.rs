//! Waiting for the write lock in steps that fit how long it is held
//! (docs/design-decisions.md, "Waiting for the write lock").
//!
//! SQLite's own busy handler, which Spin arms with a 5 s timeout, sleeps 1, 2,
//! 5, 10 ... 100 ms between tries, growing with every try: for a lock that an
//! upsert holds for microseconds, and a transaction for a few statements. Under
//! load a request that lost a few times slept 100 ms at a go while newer ones
//! took the lock, and the more requests in flight, the more sleep: on 16 cores
//! the service served fewer requests than on one. So every connection turns
//! SQLite's handler off (`PRAGMA busy_timeout = 0`: a statement that finds the
//! lock held fails at once) and waits here instead: a few tries right away
//! (each try is a hop to the runtime's thread and back, tens of microseconds,
//! about as long as an upsert holds the lock), then short sleeps that grow to
//! a few milliseconds (a transaction's length), never more, so that a request
//! that has waited is not starved by newer ones. Past [`BOUND`] the request
//! gives up with 503 and `Retry-After` rather than queue on.

use std::time::{Duration, Instant};

/// How long a statement waits for the write lock in all before its request is
/// answered 503 (`ApiError::StorageUnavailable`). Far above any wait measured
/// under load (64 writers on two cores: p99 under 0.2 s), far below a client's
/// patience.
pub const BOUND: Duration = Duration::from_secs(2);

/// What the 503 past the bound tells the client to wait, in seconds.
pub const RETRY_AFTER_SECONDS: u64 = 1;

/// The pause before each further try, in microseconds: the first tries come
/// right away; then the shortest sleep a runtime's timer gives (1 ms under
/// Spin, whose timers tick in milliseconds), growing to 4 ms and staying there.
const LOCAL_STEPS_US: [u64; 8] = [0, 0, 0, 1_000, 1_000, 2_000, 2_000, 4_000];

/// A libSQL server refuses a write that meets another (SQLITE_BUSY while it
/// checkpoints, SQLITE_INTERRUPT when it aborts a writer others queue behind)
/// instead of waiting: a network round trip per try, so the steps are longer.
const REMOTE_STEPS_US: [u64; 6] = [5_000, 10_000, 20_000, 40_000, 80_000, 160_000];

/// Whether a failure is a refusal caused by other requests, which a later try
/// gets past: SQLite's "database is locked" (SQLITE_BUSY); on sqld also
/// SQLITE_BUSY by name, SQLITE_INTERRUPT (sqld aborts a write that holds its
/// write lock while others queue for it: seen when several nodes migrate a new
/// database), and its 429 "Too many concurrent requests" (more requests wait
/// for a connection than `--max-concurrent-requests`, 128 by default: the
/// statement did not run), which Spin's libSQL client hands on as the
/// statement's error.
pub fn is_contention(message: &str) -> bool {
    ["database is locked", "database is busy", "SQLITE_BUSY", "SQLITE_INTERRUPT", "Too many concurrent requests"]
        .iter()
        .any(|needle| message.contains(needle))
}

/// One statement's wait for the lock, from its first refusal.
pub struct LockWait {
    steps: &'static [u64],
    started: Instant,
    tries: usize,
}

impl LockWait {
    /// For a local SQLite file.
    pub fn local() -> LockWait {
        LockWait { steps: &LOCAL_STEPS_US, started: Instant::now(), tries: 0 }
    }

    /// For a libSQL server.
    pub fn remote() -> LockWait {
        LockWait { steps: &REMOTE_STEPS_US, started: Instant::now(), tries: 0 }
    }

    /// After a refusal: pauses for the next step and answers `true` (try
    /// again), or answers `false` once the bound has passed.
    pub fn another_try(&mut self) -> bool {
        let step = self.steps[self.tries.min(self.steps.len() - 1)];
        if self.started.elapsed() + Duration::from_micros(step) > BOUND {
            return false;
        }
        self.tries += 1;
        if step > 0 {
            // A jitter of up to a quarter of the step, so waiters woken by
            // the same tick do not all try at once.
            let jitter = step / 4 * u64::from(uuid::Uuid::new_v4().as_bytes()[0]) / 255;
            std::thread::sleep(Duration::from_micros(step + jitter));
        }
        true
    }

    /// How many times the statement was tried again.
    pub fn tries(&self) -> usize {
        self.tries
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_tries_come_at_once_and_no_step_passes_four_milliseconds() {
        let mut wait = LockWait::local();
        let started = Instant::now();
        for _ in 0..3 {
            assert!(wait.another_try());
        }
        assert!(started.elapsed() < Duration::from_millis(1), "three tries right away");
        assert!(LOCAL_STEPS_US.iter().all(|&step| step <= 4_000));
    }

    #[test]
    fn the_wait_ends_at_its_bound() {
        let mut wait = LockWait { steps: &[400_000], started: Instant::now(), tries: 0 };
        let started = Instant::now();
        while wait.another_try() {}
        let waited = started.elapsed();
        assert!(waited <= BOUND + Duration::from_millis(100), "{waited:?}");
        assert!(waited >= BOUND - Duration::from_millis(500), "{waited:?}");
        assert_eq!(wait.tries(), 4);
    }

    #[test]
    fn contention_is_told_from_other_failures() {
        assert!(is_contention("Io(\"database is locked\")"));
        assert!(is_contention("SQLITE_BUSY: database is busy"));
        // As Spin 4.0.2's libSQL client words sqld's 429.
        assert!(is_contention("Io(\"Hrana: `api error: `{\\\"error\\\":\\\"Too many concurrent requests\\\"}``\")"));
        assert!(!is_contention("no such table: projects"));
        assert!(!is_contention("UNIQUE constraint failed: turns.interview_id, turns.seq"));
    }
}
