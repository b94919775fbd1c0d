//! Fixed one-minute windows per client IP. The arithmetic lives here; the
//! counters are the request's first SQLite statement (see `Db::admit`).

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
    fn the_limit_itself_is_allowed() {
        let window = Window::containing(100);
        assert!(decide(50, 50, window, 100).is_ok());
        match decide(51, 50, window, 100) {
            Err(ApiError::RateLimited { retry_after }) => assert_eq!(retry_after, 20),
            other => panic!("expected 429, got {other:?}"),
        }
    }
}
