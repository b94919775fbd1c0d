//! The records on a libSQL server (sqld, Turso) reached by the component
//! itself, over outbound HTTP in Hrana ([`super::hrana`]), where the host
//! grants no SQLite (an edge platform) or no runtime-config file.
//!
//! Round trips are the cost here, so statements travel together wherever the
//! logic allows:
//! - outside a transaction, statements sent together ([`Remote::each`]) go in
//!   one pipeline, each committing on its own;
//! - a transaction's statements whose answers nobody waits for are queued and
//!   leave with the next one that needs an answer, or with the `COMMIT`: a
//!   transaction that only writes is one `batch` (`BEGIN IMMEDIATE`, its
//!   writes, `COMMIT`, each step run only if the one before succeeded, and a
//!   `ROLLBACK` when one did not) in one exchange, and holds sqld's writer
//!   only while sqld runs it, never across the network;
//! - a transaction that reads what it then decides on keeps a server stream
//!   (its `baton`) from its first answer to its `COMMIT`. sqld rolls such a
//!   transaction back after 5 s when another writer waits, and drops a stream
//!   idle for 10 s: a request that dies mid-way holds the writer up for at
//!   most that long (docs/deploy.md, "The records over HTTP").
//!
//! Every transaction but a migration writes a receipt row (`applied_batches`)
//! as its first statement. A batch whose answer did not come back may have
//! committed: it is sent again as it was, receipt included, and a receipt
//! already there says it had, so it never applies twice.

use super::checks::{self, StepKind, GUARD_CHECK};
use super::hrana::{self, Batch, Cond, Request, Response, Step, Stmt, StreamResult};
use super::lock_wait::LockWait;
use platform::outbound::{self, OutboundError};
use spin_sdk::sqlite::QueryResult;
use std::cell::RefCell;
use std::time::{Duration, Instant};

/// Where the records are, from the variables `database_url` and
/// `database_token`: `https://` always, plain `http://` only to a loopback
/// address (a sqld beside the runtime). The token is sent as a bearer
/// credential and appears in no log line and no error.
#[derive(Clone)]
pub struct Settings {
    pipeline_url: String,
    /// `host[:port]`, what log lines name.
    authority: String,
    authorization: Option<String>,
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the token.
        f.debug_struct("Settings").field("pipeline_url", &self.pipeline_url).finish_non_exhaustive()
    }
}

pub const URL_VARIABLE: &str = "database_url";
pub const TOKEN_VARIABLE: &str = "database_token";

impl Settings {
    /// `None` while `database_url` is unset: the records are Spin's own SQLite.
    pub fn from_variables() -> Option<Result<Settings, String>> {
        let url = platform::config::var(URL_VARIABLE)?;
        Some(Settings::parse(&url, platform::config::var(TOKEN_VARIABLE).as_deref()))
    }

    pub fn parse(url: &str, token: Option<&str>) -> Result<Settings, String> {
        let url = url.trim();
        let parsed = url::Url::parse(url).map_err(|error| format!("{URL_VARIABLE} is not a URL ({error})"))?;
        let host = parsed.host().ok_or_else(|| format!("{URL_VARIABLE} has no host"))?;
        match parsed.scheme() {
            "https" => {}
            "http" if is_loopback(&host) => {}
            "http" => return Err(format!("{URL_VARIABLE} must be https:// (plain http:// only to a loopback address)")),
            "libsql" | "wss" | "ws" => {
                return Err(format!("{URL_VARIABLE} must be the database's https:// URL (Turso: libsql://x becomes https://x)"))
            }
            other => return Err(format!("{URL_VARIABLE} has the scheme {other}: use https://")),
        }
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(format!("{URL_VARIABLE} must not carry credentials: set {TOKEN_VARIABLE}"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() || !matches!(parsed.path(), "" | "/") {
            return Err(format!("{URL_VARIABLE} must be the server's address alone (scheme, host, port)"));
        }
        let authority = match parsed.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        };
        let authorization = match token.map(str::trim).filter(|token| !token.is_empty()) {
            None => None,
            Some(token) if token.bytes().all(|b| b.is_ascii_graphic()) => Some(format!("Bearer {token}")),
            Some(_) => return Err(format!("{TOKEN_VARIABLE} holds characters a token cannot have")),
        };
        Ok(Settings {
            pipeline_url: format!("{}://{authority}/v3/pipeline", parsed.scheme()),
            authority,
            authorization,
        })
    }
}

fn is_loopback(host: &url::Host<&str>) -> bool {
    match host {
        url::Host::Domain(name) => name.eq_ignore_ascii_case("localhost"),
        url::Host::Ipv4(ip) => ip.is_loopback(),
        url::Host::Ipv6(ip) => ip.is_loopback(),
    }
}

/// The database could not be reached, or did not answer in time.
#[derive(Debug)]
pub struct Unavailable {
    pub reason: String,
}

/// How a statement sent to the server ended: its rows, or the server's message.
pub type Outcome = Result<QueryResult, String>;

/// How a transaction's exchange failed.
#[derive(Debug)]
pub enum TxFailure {
    Unavailable(Unavailable),
    /// Its receipt is there already: an earlier try of this transaction committed.
    AppliedBefore,
}

impl From<Unavailable> for TxFailure {
    fn from(unavailable: Unavailable) -> Self {
        TxFailure::Unavailable(unavailable)
    }
}

/// How long one exchange may take, answer included. sqld makes a writer wait
/// for the write lock in a queue, for up to its 5 s transaction timeout when
/// the holder went away; this is longer, so that such a wait ends in the
/// writer's favour rather than in a 503.
const EXCHANGE_TIMEOUT: Duration = Duration::from_secs(6);
/// How long to wait for a connection: a server that cannot be reached is
/// given up on sooner than one that is busy.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);
/// The whole of what one request may spend on the database, resends included
/// (an edge platform ends a request after 30 s).
const REQUEST_BUDGET: Duration = Duration::from_secs(20);
/// Tries of an exchange that never reached the server (refused, no route).
const CONNECT_TRIES: u32 = 3;
/// Tries of an exchange whose answer was lost, where it may be sent again
/// (see [`Resend`]): a server that did not answer in time is not waited for
/// a third time.
const ANSWER_TRIES: u32 = 2;
/// The largest answer read (an export's page of interviews and their turns is
/// a few MiB of JSON).
const MAX_ANSWER: usize = 64 << 20;

/// Whether an exchange whose answer did not come back may go out again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Resend {
    /// It changes nothing (reads) or says whether it ran (a receipt).
    Always,
    /// Only when nothing of it reached the server.
    IfNotSent,
}

/// A transaction's server stream, once its first statements went out.
struct Stream {
    baton: String,
    url: String,
}

/// The transaction in progress on this connection.
struct OpenTx {
    /// What goes out first: `BEGIN IMMEDIATE` and the receipt, until sent.
    opening: Vec<Stmt>,
    /// Writes whose answers nobody waits for, and the checks of what it read
    /// before the lock, in the order the work made them, to go with the next
    /// statement that needs an answer.
    queued: Vec<(Stmt, StepKind)>,
    /// Reads go out before the lock is taken and are checked at the commit
    /// (see `checks`), as long as nothing needed an answer under the lock.
    optimistic: bool,
    stream: Option<Stream>,
    /// The receipt statement's index among the opening steps, if any.
    receipt_step: Option<usize>,
    /// Why it can only roll back: a statement sent without waiting for its
    /// answer failed (the first such failure).
    failed: Option<String>,
}

/// A connection to the records' server for one request.
pub struct Remote {
    settings: Settings,
    started: Instant,
    tx: RefCell<Option<OpenTx>>,
}

impl OpenTx {
    /// What goes out next, in order, with what each step is: the opening
    /// (until sent) and everything queued.
    fn take_chained(&mut self) -> (Vec<Stmt>, Vec<StepKind>) {
        let mut kinds = vec![StepKind::Plain; self.opening.len()];
        let mut chained = std::mem::take(&mut self.opening);
        for (stmt, kind) in self.queued.drain(..) {
            chained.push(stmt);
            kinds.push(kind);
        }
        (chained, kinds)
    }
}

impl Remote {
    pub fn new(settings: Settings) -> Remote {
        Remote { settings, started: Instant::now(), tx: RefCell::new(None) }
    }

    /// Statements outside any transaction, in one exchange, each committing on
    /// its own: each one's outcome, in order. Sent again when its answer was
    /// lost only if none of them writes.
    pub fn each(&self, stmts: Vec<Stmt>) -> Result<Vec<Outcome>, Unavailable> {
        let resend = if stmts.iter().all(|stmt| !super::may_write(&stmt.sql)) { Resend::Always } else { Resend::IfNotSent };
        let count = stmts.len();
        let mut requests: Vec<Request> = stmts.into_iter().map(|stmt| Request::Execute { stmt }).collect();
        requests.push(Request::Close);
        let answer = self.exchange(&self.settings.pipeline_url, None, &requests, resend)?;
        let mut outcomes = Vec::with_capacity(count);
        for result in answer.results.into_iter().take(count) {
            outcomes.push(match result {
                StreamResult::Ok { response: Response::Execute { result } } => Ok(result.into_query_result()),
                StreamResult::Ok { response } => return Err(unexpected(&response)),
                StreamResult::Error { error } => Err(error.to_string()),
            });
        }
        if outcomes.len() < count {
            return Err(Unavailable { reason: "the server answered fewer results than it was sent".into() });
        }
        Ok(outcomes)
    }

    /// Starts a transaction; nothing goes out yet. `receipt`: the statement
    /// that records this transaction's id (see the module docs); `optimistic`:
    /// whether its reads may go out before the lock (see [`Remote::read_ahead`]).
    pub fn begin(&self, receipt: Option<Stmt>, optimistic: bool) {
        let mut opening = vec![Stmt::new("BEGIN IMMEDIATE", &[])];
        let receipt_step = receipt.map(|receipt| {
            opening.push(receipt);
            1
        });
        *self.tx.borrow_mut() =
            Some(OpenTx { opening, queued: Vec::new(), optimistic, stream: None, receipt_step, failed: None });
    }

    /// A statement of the transaction whose answer nobody waits for.
    pub fn queue(&self, stmt: Stmt) {
        self.queue_as(stmt, StepKind::Plain);
    }

    fn queue_as(&self, stmt: Stmt, kind: StepKind) {
        if let Some(tx) = self.tx.borrow_mut().as_mut() {
            tx.queued.push((stmt, kind));
        }
    }

    /// A write of the transaction that must change a row: queued with a step
    /// right after it that fails when it changed none ([`GUARD_CHECK`]).
    pub fn queue_guarded(&self, stmt: Stmt) {
        self.queue(stmt);
        self.queue_as(Stmt::new(GUARD_CHECK, &[]), StepKind::Guard);
    }

    /// Reads of a transaction that has not taken the lock yet: made now,
    /// outside it (one exchange, no lock), each with a check queued where it
    /// was made that it still holds when the transaction commits. `None` when
    /// the transaction reads under the lock instead (its stream has started,
    /// or a read cannot be checked so): the caller sends them with [`Remote::send`].
    pub fn read_ahead(&self, reads: &[Stmt]) -> Result<Option<Vec<Outcome>>, Unavailable> {
        if !self.tx.borrow().as_ref().is_some_and(|tx| tx.optimistic && tx.stream.is_none()) {
            return Ok(None);
        }
        let outcomes = self.each(reads.to_vec())?;
        let mut checks = Vec::new();
        for (read, outcome) in reads.iter().zip(&outcomes) {
            if let Ok(result) = outcome {
                match checks::read_check(read, result) {
                    Some(check) => checks.push(check),
                    None => {
                        // Read again, under the lock, from now on.
                        if let Some(tx) = self.tx.borrow_mut().as_mut() {
                            tx.optimistic = false;
                        }
                        return Ok(None);
                    }
                }
            }
        }
        for check in checks {
            self.queue_as(check, StepKind::ReadCheck);
        }
        Ok(Some(outcomes))
    }

    /// Statements of the transaction whose answers are needed now, sent with
    /// everything queued before them, on the transaction's stream. With
    /// `stop_at_failure`, a failed statement skips the ones after it; without
    /// it, each runs whatever the others did (a migration's steps). A failed
    /// statement leaves the transaction open, as SQLite does, for the caller
    /// to decide on; a queued one that failed spoils it (it can only roll back).
    pub fn send(&self, stmts: Vec<Stmt>, stop_at_failure: bool) -> Result<Vec<Outcome>, TxFailure> {
        let mut guard = self.tx.borrow_mut();
        let tx = guard.as_mut().expect("a transaction's statements are sent inside one");
        let own = stmts.len();
        if let Some(failed) = &tx.failed {
            return Ok(vec![Err(failed.clone()); own]);
        }
        tx.optimistic = false;
        let (chained, mut kinds) = tx.take_chained();
        let receipt_step = tx.receipt_step.take();
        let first_own = chained.len();
        kinds.extend(std::iter::repeat_n(StepKind::Plain, own));
        let mut steps = chain(chained);
        if stop_at_failure {
            steps = chain_more(steps, stmts);
        } else {
            // Each runs on its own, but only inside the transaction.
            let condition = first_own.checked_sub(1).map(|step| Cond::Ok { step });
            steps.extend(stmts.into_iter().map(|stmt| Step { condition: condition.clone(), stmt }));
        }
        let (url, baton) = match &tx.stream {
            Some(stream) => (stream.url.clone(), Some(stream.baton.clone())),
            None => (self.settings.pipeline_url.clone(), None),
        };
        let requests = [Request::Batch { batch: Batch { steps } }];
        // A stream's requests are never sent twice: the stream moves on with each.
        let answer = self.exchange(&url, baton.as_deref(), &requests, Resend::IfNotSent)?;
        match answer.baton {
            Some(next) => {
                let url = answer.base_url.map_or(url, |base| format!("{}/v3/pipeline", base.trim_end_matches('/')));
                tx.stream = Some(Stream { baton: next, url });
            }
            None => tx.stream = None,
        }
        let (mut results, errors) = batch_result(answer.results)?;
        if receipt_step.is_some_and(|step| receipt_taken(&errors, step)) {
            return Err(TxFailure::AppliedBefore);
        }
        // A failure before the statements asked for is theirs to report.
        if let Some(failed) = (0..first_own).find_map(|index| step_outcome(&mut results, &errors, &kinds, index).err()) {
            tx.failed = Some(failed.clone());
            return Ok(vec![Err(failed); own]);
        }
        Ok((first_own..first_own + own).map(|index| step_outcome(&mut results, &errors, &kinds, index)).collect())
    }

    /// Commits: whatever is still queued, then `COMMIT`, in one exchange, and
    /// closes the stream. A transaction that never needed an answer goes out
    /// whole here, as one batch; when its answer is lost it is sent again as
    /// it was (its receipt tells whether the first one committed).
    pub fn commit(&self) -> Result<Result<(), String>, TxFailure> {
        let mut tx = self.tx.borrow_mut().take().expect("a commit ends a transaction");
        if let Some(failed) = tx.failed.take() {
            *self.tx.borrow_mut() = Some(tx);
            self.rollback();
            return Ok(Err(failed));
        }
        let (mut chained, mut kinds) = tx.take_chained();
        chained.push(Stmt::new("COMMIT", &[]));
        kinds.extend([StepKind::Plain, StepKind::Plain]);
        let commit = chained.len() - 1;
        let mut steps = chain(chained);
        steps.push(Step { condition: Some(Cond::failed(commit)), stmt: Stmt::new("ROLLBACK", &[]) });
        let requests = [Request::Batch { batch: Batch { steps } }, Request::Close];
        let answer = match &tx.stream {
            Some(stream) => self.exchange(&stream.url, Some(&stream.baton), &requests, Resend::IfNotSent)?,
            None => {
                let resend = if tx.receipt_step.is_some() { Resend::Always } else { Resend::IfNotSent };
                self.exchange(&self.settings.pipeline_url, None, &requests, resend)?
            }
        };
        let (mut results, errors) = batch_result(answer.results)?;
        if tx.receipt_step.is_some_and(|step| receipt_taken(&errors, step)) {
            return Err(TxFailure::AppliedBefore);
        }
        if results.get(commit).is_some_and(Option::is_some) {
            return Ok(Ok(()));
        }
        let failed = (0..=commit)
            .find_map(|index| step_outcome(&mut results, &errors, &kinds, index).err().filter(|_| errors.get(index).is_some_and(Option::is_some)));
        Ok(Err(failed.unwrap_or_else(|| "the transaction did not commit".to_string())))
    }

    /// Ends the transaction without committing: a stream that was started is
    /// rolled back and closed; a transaction that sent nothing has nothing to undo.
    pub fn rollback(&self) {
        let Some(tx) = self.tx.borrow_mut().take() else { return };
        if let Some(stream) = tx.stream {
            let requests = [Request::Execute { stmt: Stmt::new("ROLLBACK", &[]) }, Request::Close];
            if let Err(unavailable) = self.exchange(&stream.url, Some(&stream.baton), &requests, Resend::IfNotSent) {
                // The server rolls it back itself when it drops the stream.
                eprintln!("records: rolling back: {}", unavailable.reason);
            }
        }
    }

    /// Forgets the transaction after a failed exchange: the server rolls back
    /// a stream it closed, or drops it when it idles.
    pub fn abandon(&self) {
        self.tx.borrow_mut().take();
    }

    /// One pipeline, sent again after a short pause as `resend` allows, within
    /// the request's budget.
    fn exchange(&self, url: &str, baton: Option<&str>, requests: &[Request], resend: Resend) -> Result<hrana::PipelineAnswer, Unavailable> {
        let body = hrana::encode(baton, requests);
        let mut headers = vec![("content-type", "application/json")];
        if let Some(authorization) = &self.settings.authorization {
            headers.push(("authorization", authorization.as_str()));
        }
        let (mut connects, mut answers) = (0, 0);
        // From the first refusal for too many requests at once.
        let mut crowded: Option<LockWait> = None;
        loop {
            let left = REQUEST_BUDGET.saturating_sub(self.started.elapsed());
            if left.is_zero() {
                return Err(self.unavailable("the request's time for the database is spent".into()));
            }
            let timeout = EXCHANGE_TIMEOUT.min(left);
            let sent = outbound::send_within("POST", url, &headers, &body, CONNECT_TIMEOUT.min(timeout), timeout, MAX_ANSWER);
            let (reason, not_sent) = match sent {
                Ok(response) if response.status == 200 => match hrana::parse_answer(&response.body) {
                    Ok(answer) => return Ok(answer),
                    Err(reason) => (reason, false),
                },
                // sqld's "Too many concurrent requests": more requests wait
                // for one of its connections than it lets wait, so this one
                // did not run. Waited out like a write that met another.
                Ok(response) if response.status == 429 => {
                    if crowded.get_or_insert_with(LockWait::remote).another_try() {
                        continue;
                    }
                    return Err(self.unavailable("too many requests at once for the server, for longer than the wait's bound".into()));
                }
                Ok(response) if matches!(response.status, 401 | 403) => {
                    return Err(self.unavailable(format!("the server refused the credentials ({}): check {TOKEN_VARIABLE}", response.status)))
                }
                Ok(response) => {
                    let said = String::from_utf8_lossy(&response.body[..response.body.len().min(200)]).into_owned();
                    // A 4xx is an answer to this request: it did not run (a stream the server closed).
                    (format!("HTTP {}: {said}", response.status), response.status < 500)
                }
                Err(OutboundError::Unreachable(reason)) => (format!("unreachable: {reason}"), true),
                Err(error) => (error.to_string(), false),
            };
            let may_resend = if not_sent {
                connects += 1;
                baton.is_none() && connects < CONNECT_TRIES
            } else {
                answers += 1;
                resend == Resend::Always && answers < ANSWER_TRIES
            };
            if !may_resend {
                return Err(self.unavailable(reason));
            }
            std::thread::sleep(Duration::from_millis(50 << (2 * (connects + answers - 1))));
        }
    }

    /// Logs why the database is out of reach (its address, never its token).
    fn unavailable(&self, reason: String) -> Unavailable {
        eprintln!("records: the database at {} is unavailable: {reason}", self.settings.authority);
        Unavailable { reason }
    }
}

/// Steps that each run only if the one before succeeded.
fn chain(stmts: Vec<Stmt>) -> Vec<Step> {
    chain_more(Vec::new(), stmts)
}

fn chain_more(mut steps: Vec<Step>, stmts: Vec<Stmt>) -> Vec<Step> {
    for stmt in stmts {
        let condition = steps.len().checked_sub(1).map(|step| Cond::Ok { step });
        steps.push(Step { condition, stmt });
    }
    steps
}

type StepResults = (Vec<Option<hrana::StmtResult>>, Vec<Option<hrana::ServerError>>);

/// The step results of the one batch a transaction's exchange carries.
fn batch_result(results: Vec<StreamResult>) -> Result<StepResults, Unavailable> {
    match results.into_iter().next() {
        Some(StreamResult::Ok { response: Response::Batch { result } }) => Ok((result.step_results, result.step_errors)),
        Some(StreamResult::Ok { response }) => Err(unexpected(&response)),
        Some(StreamResult::Error { error }) => Err(Unavailable { reason: format!("the server refused the batch: {error}") }),
        None => Err(Unavailable { reason: "the server answered no result".into() }),
    }
}

fn unexpected(response: &Response) -> Unavailable {
    Unavailable { reason: format!("the server answered {response:?} where a result was due") }
}

/// A step's rows, or why it has none: its error (what a check's failure
/// means: `checks`), or the failure that skipped it.
fn step_outcome(results: &mut [Option<hrana::StmtResult>], errors: &[Option<hrana::ServerError>], kinds: &[StepKind], index: usize) -> Outcome {
    match (results.get_mut(index).and_then(Option::take), errors.get(index)) {
        (Some(result), _) => Ok(result.into_query_result()),
        (None, Some(Some(error))) => Err(kinds.get(index).copied().unwrap_or(StepKind::Plain).failure(error.to_string())),
        (None, _) => Err("not run: an earlier statement of the transaction failed".to_string()),
    }
}


/// Whether the receipt step failed on the receipt's primary key.
fn receipt_taken(errors: &[Option<hrana::ServerError>], step: usize) -> bool {
    errors.get(step).is_some_and(|error| error.as_ref().is_some_and(|error| is_receipt_taken(&error.message)))
}

/// The receipt of a transaction that committed before (its primary key).
fn is_receipt_taken(message: &str) -> bool {
    message.contains("UNIQUE") && message.contains("applied_batches")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn https_always_plain_http_only_to_loopback() {
        for url in ["https://db-acme.turso.io", "https://db.example.com:8443/", "http://127.0.0.1:8080", "http://localhost:8080", "http://[::1]:9"] {
            assert!(Settings::parse(url, None).is_ok(), "{url}");
        }
        let settings = Settings::parse(" https://db-acme.turso.io/ ", Some("tok.en")).unwrap();
        assert_eq!(settings.pipeline_url, "https://db-acme.turso.io/v3/pipeline");
        assert_eq!(settings.authorization.as_deref(), Some("Bearer tok.en"));
        assert_eq!(Settings::parse("http://127.0.0.2:8080", Some(" ")).unwrap().authorization, None);
        for url in [
            "http://db.example.com",
            "http://10.0.0.1:8080",
            "libsql://db-acme.turso.io",
            "ftp://db.example.com",
            "https://user:secret@db.example.com",
            "https://db.example.com/prefix",
            "https://db.example.com/?authToken=x",
            "db.example.com",
        ] {
            let refused = Settings::parse(url, None).unwrap_err();
            assert!(!refused.contains("secret"), "{refused}");
        }
    }

    #[test]
    fn the_token_is_in_no_message() {
        let refused = Settings::parse("https://db.example.com", Some("sec ret")).unwrap_err();
        assert!(!refused.contains("sec"), "{refused}");
        let settings = Settings::parse("https://db.example.com", Some("secret-token")).unwrap();
        assert!(!format!("{settings:?}").contains("secret-token"));
    }

    #[test]
    fn steps_run_only_after_the_one_before_succeeded() {
        let steps = chain(vec![Stmt::new("BEGIN IMMEDIATE", &[]), Stmt::new("INSERT", &[]), Stmt::new("COMMIT", &[])]);
        let conditions: Vec<Option<Cond>> = steps.into_iter().map(|step| step.condition).collect();
        assert_eq!(conditions, vec![None, Some(Cond::Ok { step: 0 }), Some(Cond::Ok { step: 1 })]);
        assert!(is_receipt_taken("SQLite error: UNIQUE constraint failed: applied_batches.batch_id"));
        assert!(!is_receipt_taken("UNIQUE constraint failed: turns.interview_id, turns.seq"));
    }
}
