//! Time as the service writes it: RFC 3339, UTC, milliseconds, `Z`.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub fn now() -> SystemTime {
    SystemTime::now()
}

pub fn unix_seconds(at: SystemTime) -> u64 {
    at.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_secs()
}

pub fn unix_millis(at: SystemTime) -> i64 {
    at.duration_since(UNIX_EPOCH).unwrap_or(Duration::ZERO).as_millis() as i64
}

/// `2026-11-21T13:45:12.345Z`
pub fn rfc3339(at: SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

pub fn rfc3339_now() -> String {
    rfc3339(now())
}

/// Parses an RFC 3339 timestamp with a `Z` or numeric offset.
pub fn parse_rfc3339(text: &str) -> Option<SystemTime> {
    humantime::parse_rfc3339(text).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_with_millis_and_z() {
        let at = UNIX_EPOCH + Duration::from_millis(1_795_268_712_345);
        assert_eq!(rfc3339(at), "2026-11-21T13:45:12.345Z");
        assert_eq!(unix_seconds(at), 1_795_268_712);
    }

    #[test]
    fn parses_what_it_formats() {
        let at = UNIX_EPOCH + Duration::from_millis(1_795_268_712_345);
        assert_eq!(parse_rfc3339(&rfc3339(at)), Some(at));
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}
