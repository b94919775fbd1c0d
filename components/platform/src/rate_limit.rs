//! Fixed one-minute windows per client IP. The arithmetic lives here; the
//! counters are the request's first SQLite statement (see `Gatekeeper::admit`).

use crate::error::ApiError;

pub const WINDOW_SECONDS: u64 = 60;

/// The counter of one limit (`all`, or a route's extra limit variable) for one client.
pub fn bucket(limit: &str, client: &str) -> String {
    format!("{limit}:{client}")
}

/// The window a request at `now` (UNIX seconds) falls into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    pub start: u64,
}

impl Window {
    pub fn containing(now: u64) -> Window {
        Window { start: now - now % WINDOW_SECONDS }
    }

    pub fn end(self) -> u64 {
        self.start + WINDOW_SECONDS
    }

    /// Seconds until the window ends, at least 1 (what `Retry-After` says).
    pub fn retry_after(self, now: u64) -> u64 {
        self.end().saturating_sub(now).max(1)
    }
}

/// Decides a request given how many requests (this one included) the window has seen.
pub fn decide(count: u64, limit: u64, window: Window, now: u64) -> Result<(), ApiError> {
    if count > limit {
        Err(ApiError::RateLimited { retry_after: window.retry_after(now) })
    } else {
        Ok(())
    }
}

/// One limit a request counts against: its counter and how many requests a
/// window allows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limit {
    pub bucket: String,
    pub per_window: u64,
}

/// A request's limits, in the window it falls into: what its count is checked
/// against, whether counted before its work or with its first write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Quota {
    pub limits: Vec<Limit>,
    pub window: Window,
    /// When the request came (UNIX seconds): `Retry-After` counts from it.
    pub now: u64,
}

impl Quota {
    pub fn buckets(&self) -> impl Iterator<Item = &str> {
        self.limits.iter().map(|limit| limit.bucket.as_str())
    }

    /// The request, counted: `counts` are its buckets' counts with it
    /// included, in the order of [`Quota::limits`].
    pub fn decide(&self, counts: &[u64]) -> Result<(), ApiError> {
        self.limits.iter().zip(counts).try_for_each(|(limit, &count)| decide(count, limit.per_window, self.window, self.now))
    }

    /// The request before it is counted: `counts` are its buckets' counts so
    /// far. A bucket at its limit already refuses it, and nothing needs
    /// writing then: within the window, a count past its limit changes nothing.
    pub fn decide_before_counting(&self, counts: &[u64]) -> Result<(), ApiError> {
        let with_this_one: Vec<u64> = counts.iter().map(|count| count.saturating_add(1)).collect();
        self.decide(&with_this_one)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_aligned_minutes() {
        assert_eq!(Window::containing(120), Window { start: 120 });
        assert_eq!(Window::containing(179), Window { start: 120 });
        assert_eq!(Window::containing(180), Window { start: 180 });
        assert_eq!(Window::containing(179).end(), 180);
    }

    #[test]
    fn retry_after_counts_down_to_the_window_end() {
        let window = Window::containing(125);
        assert_eq!(window.retry_after(125), 55);
        assert_eq!(window.retry_after(179), 1);
        // Never 0, even at (or past) the boundary.
        assert_eq!(window.retry_after(180), 1);
    }

    #[test]
    fn a_quota_refuses_at_its_first_bucket_past_the_limit() {
        let quota = Quota {
            limits: vec![
                Limit { bucket: bucket("all", "1.2.3.4"), per_window: 50 },
                Limit { bucket: bucket("create", "1.2.3.4"), per_window: 10 },
            ],
            window: Window::containing(100),
            now: 100,
        };
        assert!(quota.decide(&[50, 10]).is_ok());
        assert!(matches!(quota.decide(&[50, 11]), Err(ApiError::RateLimited { retry_after: 20 })));
        assert!(matches!(quota.decide(&[51, 1]), Err(ApiError::RateLimited { .. })));
        // Before counting: the 50th request so far leaves room for none more.
        assert!(quota.decide_before_counting(&[49, 9]).is_ok());
        assert!(quota.decide_before_counting(&[50, 0]).is_err());
        assert!(quota.decide_before_counting(&[0, 10]).is_err());
        assert_eq!(quota.buckets().collect::<Vec<_>>(), ["all:1.2.3.4", "create:1.2.3.4"]);
    }

    #[test]
    fn the_limit_itself_is_allowed() {
        let window = Window::containing(100);
        assert!(decide(50, 50, window, 100).is_ok());
        match decide(51, 50, window, 100) {
            Err(ApiError::RateLimited { retry_after }) => assert_eq!(retry_after, 20),
            other => panic!("expected 429, got {other:?}"),
        }
    }
}
