//! The interviews dataset of `make bench`: rows written straight into the app's
//! SQLite file (`<state-dir>/sqlite_db.db`, Spin's `default` database) after the
//! app has created the schema, the tenant and its projects through the API.
//!
//! The rows are what the sessions component would have stored (docs/sessions.md):
//! production interviews, mostly completed, a transcript of 13 turns (a few KB),
//! five metadata keys per interview both as the interview's `external_metadata`
//! JSON (compact, keys sorted) and as `interview_metadata` rows. `created_ms`
//! increases; `created_at` is its RFC 3339 UTC form with milliseconds. The two
//! projects' interviews are interleaved in time, so every index holds both.
//!
//! Speed: one connection with `synchronous=OFF`, a large page cache and a
//! transaction per few thousand interviews. The counters the sessions' use
//! cases keep (`turn_count`, `response_count`, `interviewer_closed`,
//! `last_activity_ms`, the project's `completed_interviews`) are written directly.
//! Deterministic: the same sizes give the same metadata and texts (ids differ).

use rusqlite::{params, Connection};
use std::path::Path;
use std::time::{Duration, Instant};

/// The five metadata keys and their cardinalities.
pub const PLANS: [&str; 5] = ["free", "starter", "pro", "team", "enterprise"];
pub const COUNTRIES: [&str; 20] = [
    "US", "GB", "DE", "FR", "ES", "IT", "NL", "SE", "PL", "BR", "MX", "CA", "AU", "JP", "IN", "ZA", "NG", "KR", "AR", "IE",
];
pub const SOURCES: [&str; 10] = ["email", "web", "app", "sms", "partner", "ads", "social", "referral", "support", "event"];
pub const COHORTS: u64 = 100;

/// The filter the bench measures, and which interviews it must find.
pub const FILTER_COHORT: &str = "c17";
pub const FILTER_PLAN: &str = "pro";

/// What to generate: `large` interviews in one project, `small` in another, of one tenant.
pub struct Spec<'a> {
    pub tenant_id: &'a str,
    pub large_project: &'a str,
    pub large: usize,
    pub small_project: &'a str,
    pub small: usize,
}

/// What was generated, for the checks of the measurements.
#[derive(Debug, Default)]
pub struct Generated {
    /// Interviews of the large project whose cohort and plan are the filter's.
    pub filter_matches: usize,
    pub turns: usize,
    pub metadata_rows: usize,
    /// Characters of transcript text per interview, on average.
    pub transcript_chars: usize,
    pub elapsed: Duration,
    /// Of which flushing the file to disk.
    pub flush: Duration,
    /// Size of the database file after the final checkpoint.
    pub file_bytes: u64,
}

/// SplitMix64: a small deterministic generator, good enough for test data.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn hex(&mut self, bytes: usize) -> String {
        (0..bytes).map(|_| format!("{:02x}", self.below(256))).collect()
    }
}

const WORDS: [&str; 64] = [
    "checkout", "mobile", "payment", "shipping", "price", "discount", "account", "password", "delivery", "basket",
    "screen", "button", "slow", "confusing", "easy", "trust", "card", "address", "coupon", "review", "order",
    "return", "store", "app", "website", "phone", "laptop", "evening", "weekend", "family", "friend", "gift",
    "size", "colour", "brand", "fee", "tax", "form", "error", "page", "loading", "wifi", "travel", "work",
    "usually", "sometimes", "never", "always", "really", "quite", "because", "when", "then", "but", "and",
    "so", "I", "we", "it", "that", "the", "a", "my", "our",
];

/// A sentence-like text of about `chars` characters.
fn text(rng: &mut Rng, chars: usize) -> String {
    let mut out = String::with_capacity(chars + 16);
    let mut start = true;
    while out.len() < chars {
        let word = WORDS[rng.below(WORDS.len() as u64) as usize];
        if !out.is_empty() {
            out.push(' ');
        }
        if start {
            let mut letters = word.chars();
            if let Some(first) = letters.next() {
                out.extend(first.to_uppercase());
                out.push_str(letters.as_str());
            }
            start = false;
        } else {
            out.push_str(word);
        }
        if rng.below(9) == 0 {
            out.push(if rng.below(4) == 0 { '?' } else { '.' });
            start = true;
        }
    }
    if !out.ends_with(['.', '?']) {
        out.push('.');
    }
    out
}

/// RFC 3339 UTC with milliseconds, as the app writes it: `2026-11-21T13:45:12.345Z`.
pub fn rfc3339_millis(ms: i64) -> String {
    let (days, rest) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let (h, m, s, milli) = (rest / 3_600_000, rest / 60_000 % 60, rest / 1000 % 60, rest % 1000);
    format!("{year:04}-{month:02}-{day:02}T{h:02}:{m:02}:{s:02}.{milli:03}Z")
}

/// One turn of the script: speaker, kind, question index.
const SCRIPT: [(&str, &str, Option<i64>); 13] = [
    ("interviewer", "opening", None),
    ("interviewee", "answer", None),
    ("interviewer", "question", Some(0)),
    ("interviewee", "answer", Some(0)),
    ("interviewer", "probe", Some(0)),
    ("interviewee", "answer", Some(0)),
    ("interviewer", "question", Some(1)),
    ("interviewee", "answer", Some(1)),
    ("interviewer", "probe", Some(1)),
    ("interviewee", "answer", Some(1)),
    ("interviewer", "wrap_up", None),
    ("interviewee", "answer", None),
    ("interviewer", "closing", None),
];

/// Interviews per transaction.
const BATCH: usize = 5_000;

/// Writes the dataset into the app's database file. The app must have created
/// the schema, the tenant and both projects.
pub fn generate(db_path: &Path, spec: &Spec) -> rusqlite::Result<Generated> {
    let started = Instant::now();
    let mut conn = Connection::open(db_path)?;
    conn.busy_timeout(Duration::from_secs(30))?;
    conn.pragma_update(None, "synchronous", "OFF")?;
    conn.pragma_update(None, "cache_size", -1_048_576)?; // 1 GiB
    conn.pragma_update(None, "temp_store", "MEMORY")?;

    let total = spec.large + spec.small;
    let mut rng = Rng(0x1D7E_2B1E_5EED_0010);
    let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
    // About 30 s between interviews, the newest ten minutes ago.
    let mut created_ms = now_ms - 600_000 - total as i64 * 30_000;
    let mut generated = Generated::default();
    let mut transcript_chars = 0usize;
    let mut done = 0usize;
    let mut small_done = 0usize;
    while done < total {
        let tx = conn.transaction()?;
        {
            let mut interview = tx.prepare_cached(
                "INSERT INTO interviews (interview_id, tenant_id, project_id, project_type, environment,
                     session_token_hash, identifier, country_code, device_type, language, mode, external_metadata,
                     state, interviewer_closed, response_count, turn_count, answerable_blocks, answered_blocks,
                     opt_in_for_followup, summary, created_at, created_ms, last_activity_ms, ended_at, closed_at,
                     finished_event_id)
                 VALUES (?, ?, ?, 'contextual_interview', 'production', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0, ?, ?,
                         ?, ?, ?, ?, ?, ?)",
            )?;
            let mut turn = tx.prepare_cached(
                "INSERT INTO interview_turns (interview_id, seq, speaker, kind, question_index, source, text, created_at, created_ms)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )?;
            let mut metadata = tx.prepare_cached(
                "INSERT INTO interview_metadata (tenant_id, key, value, created_ms, interview_id) VALUES (?, ?, ?, ?, ?)",
            )?;
            for _ in 0..BATCH.min(total - done) {
                let n = done;
                done += 1;
                created_ms += 20_000 + rng.below(20_000) as i64;
                // Spread the small project's interviews evenly among the large one's.
                let small = (done * spec.small) / total > small_done;
                let project_id = if small {
                    small_done += 1;
                    spec.small_project
                } else {
                    spec.large_project
                };
                let interview_id = uuid::Uuid::new_v4().to_string();
                let user_id = format!("u{n:07}");
                let cohort = format!("c{}", rng.below(COHORTS));
                let plan = rng.pick(&PLANS);
                let country = rng.pick(&COUNTRIES);
                let source = rng.pick(&SOURCES);
                if !small && cohort == FILTER_COHORT && plan == FILTER_PLAN {
                    generated.filter_matches += 1;
                }
                // Keys sorted, compact: what ExternalMetadata::to_json writes.
                let pairs = [("cohort", cohort.as_str()), ("country", country), ("plan", plan), ("source", source), ("user_id", &user_id)];
                let external_metadata =
                    serde_json::to_string(&pairs.iter().map(|(k, v)| (*k, *v)).collect::<std::collections::BTreeMap<_, _>>())
                        .unwrap();
                // The newest 1 % are still running; one in twenty others was left early.
                let (state, turns) = if n >= total - total / 100 {
                    ("in_progress", 6)
                } else if rng.below(20) == 0 {
                    ("left", 4)
                } else {
                    ("completed", SCRIPT.len())
                };
                let created_at = rfc3339_millis(created_ms);
                let mut last_ms = created_ms;
                let mut responses = 0;
                for (seq, (speaker, kind, question)) in SCRIPT.iter().take(turns).enumerate() {
                    let at_ms = created_ms + seq as i64 * 45_000;
                    last_ms = at_ms;
                    let (source, chars) =
                        if *speaker == "interviewer" { ("builtin", 90 + rng.below(80)) } else { ("interviewee", 200 + rng.below(300)) };
                    let body = text(&mut rng, chars as usize);
                    transcript_chars += body.len();
                    if *speaker == "interviewee" {
                        responses += 1;
                    }
                    turn.execute(params![interview_id, seq as i64, speaker, kind, question, source, body, rfc3339_millis(at_ms), at_ms])?;
                    generated.turns += 1;
                }
                let ended = state != "in_progress";
                let closed_at = ended.then(|| rfc3339_millis(last_ms + 5_000));
                let ended_at = if state == "completed" { closed_at.clone() } else { None };
                let summary = (state == "completed").then(|| text(&mut rng, 240));
                interview.execute(params![
                    interview_id,
                    spec.tenant_id,
                    project_id,
                    rng.hex(32),
                    format!("{user_id}@example.com"),
                    country,
                    if rng.below(3) == 0 { "DESKTOP" } else { "MOBILE" },
                    "en",
                    if rng.below(4) == 0 { "talking" } else { "typing" },
                    external_metadata,
                    state,
                    i64::from(state == "completed"),
                    responses,
                    turns as i64,
                    i64::from(rng.below(3) == 0),
                    summary,
                    created_at,
                    created_ms,
                    if ended { last_ms + 5_000 } else { last_ms },
                    ended_at,
                    closed_at,
                    ended.then(|| uuid::Uuid::new_v4().to_string()),
                ])?;
                for (key, value) in pairs {
                    metadata.execute(params![spec.tenant_id, key, value, created_ms, interview_id])?;
                    generated.metadata_rows += 1;
                }
            }
        }
        tx.commit()?;
    }
    // What ending an interview counts: completed production interviews per project.
    conn.execute(
        "UPDATE projects SET completed_interviews =
             (SELECT COUNT(*) FROM interviews i WHERE i.project_id = projects.project_id
              AND i.environment = 'production' AND i.state = 'completed' AND i.flagged_at IS NULL)
         WHERE project_id IN (?, ?)",
        params![spec.large_project, spec.small_project],
    )?;
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
    drop(conn);
    // synchronous=OFF left the file to the kernel's write-back: flush it now, or
    // the first requests' checkpoints (an fsync of this file) would wait for
    // hundreds of MiB to reach the disk and the list timings would show that.
    let flushing = Instant::now();
    std::fs::File::open(db_path).and_then(|f| f.sync_all()).expect("flushing the database file");
    generated.flush = flushing.elapsed();
    generated.transcript_chars = transcript_chars / total.max(1);
    generated.elapsed = started.elapsed();
    generated.file_bytes = std::fs::metadata(db_path).map_or(0, |m| m.len());
    Ok(generated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339_utc_with_millis() {
        assert_eq!(rfc3339_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339_millis(1_795_787_112_345), "2026-11-27T13:45:12.345Z");
        assert_eq!(rfc3339_millis(951_782_400_000), "2000-02-29T00:00:00.000Z");
    }
}
