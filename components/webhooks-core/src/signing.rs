//! Request signatures and the retry schedule of webhook deliveries.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use hmac::{Hmac, Mac};
use sha2::Sha256;

/// `X-Service-Request-Signature`: base64(HMAC-SHA256(secret, timestamp_text + body_text)),
/// keyed with the workspace secret's UTF-8 bytes.
pub fn sign(secret: &str, timestamp: u64, body: &[u8]) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes keys of any length");
    mac.update(timestamp.to_string().as_bytes());
    mac.update(body);
    STANDARD.encode(mac.finalize().into_bytes())
}

/// Retries after the first attempt: each waits a uniformly random delay in
/// `[0, base]` (full jitter), with one base per retry (60 s then 120 s).
#[derive(Debug, Clone, PartialEq)]
pub struct RetrySchedule {
    /// Base of each retry, in milliseconds; its length is the number of retries.
    pub bases_ms: Vec<u64>,
}

impl Default for RetrySchedule {
    fn default() -> Self {
        RetrySchedule { bases_ms: vec![60_000, 120_000] }
    }
}

impl RetrySchedule {
    /// Parses `"60,120"` (seconds, decimals allowed); anything invalid gives the default.
    pub fn parse(text: &str) -> RetrySchedule {
        let bases: Option<Vec<u64>> = text
            .split(',')
            .map(|part| {
                part.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|s| s.is_finite() && *s >= 0.0)
                    .map(|s| (s * 1000.0).round() as u64)
            })
            .collect();
        match bases {
            Some(bases) if !bases.is_empty() => RetrySchedule { bases_ms: bases },
            _ => RetrySchedule::default(),
        }
    }

    pub fn retries(&self) -> usize {
        self.bases_ms.len()
    }

    /// The delay before the retry that follows the `failed_attempts`-th failed
    /// attempt of a round (1-based), given a uniformly random `random`;
    /// `None` when no retry is left.
    pub fn delay_after(&self, failed_attempts: u32, random: u64) -> Option<u64> {
        let base = *self.bases_ms.get((failed_attempts as usize).checked_sub(1)?)?;
        Some(full_jitter(base, random))
    }
}

/// A delay uniformly distributed in `[0, base]` (inclusive), from a uniform `random`.
pub fn full_jitter(base: u64, random: u64) -> u64 {
    if base == u64::MAX {
        return random;
    }
    random % (base + 1)
}

/// A uniformly random u64 from the host.
pub fn random_u64() -> u64 {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).expect("the host provides randomness");
    u64::from_le_bytes(bytes)
}

/// What happens to a delivery after an attempt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    /// HTTP 200: done.
    Delivered,
    /// Failed, retried after `delay_ms`.
    Retry { delay_ms: u64 },
    /// Failed and no retry left.
    Failed,
}

/// The delivery state machine: only HTTP 200 is success; otherwise the next
/// retry of the round, or `Failed` after the last one. `round_attempts` counts
/// the attempts of this round including the one just made.
pub fn after_attempt(status: Option<u16>, round_attempts: u32, schedule: &RetrySchedule, random: u64) -> Transition {
    if status == Some(200) {
        return Transition::Delivered;
    }
    match schedule.delay_after(round_attempts, random) {
        Some(delay_ms) => Transition::Retry { delay_ms },
        None => Transition::Failed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signature_is_base64_hmac_sha256_of_timestamp_then_body() {
        // Reference value computed independently:
        // python3 -c "import hmac,hashlib,base64;print(base64.b64encode(hmac.new(b'whsec_test',b'1700000000'+b'{\"a\":1}',hashlib.sha256).digest()).decode())"
        let signature = sign("whsec_test", 1_700_000_000, br#"{"a":1}"#);
        assert_eq!(signature, "BNopxFwKLBadjbZiNGAWnittPuG4VB2NF5bKWtdBpr0=");
        assert_eq!(signature.len(), 44);
        assert_eq!(sign("whsec_test", 1_700_000_000, br#"{"a":1}"#), signature);
        assert_ne!(sign("whsec_test", 1_700_000_001, br#"{"a":1}"#), signature);
        assert_ne!(sign("whsec_other", 1_700_000_000, br#"{"a":1}"#), signature);
        assert_ne!(sign("whsec_test", 1_700_000_000, br#"{"a":2}"#), signature);
    }

    #[test]
    fn rfc4231_test_case_2() {
        // HMAC-SHA256("Jefe", "what do ya want for nothing?"), split as timestamp-less body.
        let mut mac = Hmac::<Sha256>::new_from_slice(b"Jefe").unwrap();
        mac.update(b"what do ya want for nothing?");
        let expected = STANDARD.encode(mac.finalize().into_bytes());
        assert_eq!(
            format!("{:x}", hmac::digest::Output::<Sha256>::clone_from_slice(&STANDARD.decode(&expected).unwrap())),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
    }

    #[test]
    fn schedule_parses_seconds_and_falls_back() {
        assert_eq!(RetrySchedule::parse("60,120"), RetrySchedule::default());
        assert_eq!(RetrySchedule::parse(" 0.5 , 1 ").bases_ms, vec![500, 1000]);
        assert_eq!(RetrySchedule::parse("").bases_ms, vec![60_000, 120_000]);
        assert_eq!(RetrySchedule::parse("x,1").bases_ms, vec![60_000, 120_000]);
        assert_eq!(RetrySchedule::parse("-1").bases_ms, vec![60_000, 120_000]);
        assert_eq!(RetrySchedule::default().retries(), 2);
    }

    #[test]
    fn full_jitter_stays_within_zero_and_base() {
        assert_eq!(full_jitter(60_000, 0), 0);
        assert_eq!(full_jitter(60_000, 60_000), 60_000);
        assert_eq!(full_jitter(60_000, 60_001), 0);
        assert_eq!(full_jitter(0, 12345), 0);
        let schedule = RetrySchedule::default();
        let mut seen_low = false;
        let mut seen_high = false;
        for _ in 0..2000 {
            let first = schedule.delay_after(1, random_u64()).unwrap();
            let second = schedule.delay_after(2, random_u64()).unwrap();
            assert!(first <= 60_000);
            assert!(second <= 120_000);
            seen_low |= first < 30_000;
            seen_high |= second > 90_000;
        }
        assert!(seen_low && seen_high, "delays spread over the whole range");
    }

    #[test]
    fn two_retries_then_failed() {
        let schedule = RetrySchedule::default();
        assert_eq!(after_attempt(Some(200), 1, &schedule, 7), Transition::Delivered);
        assert_eq!(after_attempt(Some(200), 3, &schedule, 7), Transition::Delivered);
        assert_eq!(after_attempt(Some(500), 1, &schedule, 7), Transition::Retry { delay_ms: 7 });
        assert_eq!(after_attempt(None, 2, &schedule, 120_001), Transition::Retry { delay_ms: 120_001 % 120_001 });
        assert_eq!(after_attempt(Some(500), 2, &schedule, 100_000), Transition::Retry { delay_ms: 100_000 });
        assert_eq!(after_attempt(Some(500), 3, &schedule, 7), Transition::Failed);
        // Only exactly 200 is success: other 2xx and redirects are failed attempts.
        assert_eq!(after_attempt(Some(204), 3, &schedule, 7), Transition::Failed);
        assert_eq!(after_attempt(Some(301), 1, &schedule, 7), Transition::Retry { delay_ms: 7 });
        assert_eq!(after_attempt(Some(500), 0, &schedule, 7), Transition::Failed);
    }
}
