//! Helpers for tests that need interviews: research projects made through the
//! projects API, and interviewee sessions driven through the session API (the
//! calls the interview page makes), plus read-only looks at the app's storage.

use crate::{json_of, Authenticated, StatusCode, TenantCredentials, TestApp};
use serde_json::{json, Value};
use std::time::Duration;

pub const RESEARCH_QUESTIONS: &str = "1. How did you choose your current daycare?\n\
     2. What mattered most to you in that decision?\n\
     3. What would you change about how you searched?";

/// A valid project body (typing only, three research questions), with `changes` merged in.
pub fn project_body(changes: Value) -> Value {
    let mut body = json!({
        "project_name": "Daycare study",
        "project_objective": "Understand how parents of toddlers choose a daycare.",
        "research_questions": RESEARCH_QUESTIONS,
        "success_criteria": "Three recurring decision factors, each with examples.",
        "recruiting_criteria": "Parents of children aged 1 to 3 who chose a daycare in the last year.",
        "interview_modes": ["typing"],
        "redirect_url": "https://panel.example.com/done",
    });
    for (key, value) in changes.as_object().unwrap() {
        body[key] = value.clone();
    }
    body
}

/// Creates a project and returns its id.
pub fn create_project(app: &TestApp, tenant: &TenantCredentials, body: &Value) -> String {
    let (status, created) = json_of(app.post("/v1/projects").auth(tenant).json(body).send().unwrap());
    assert_eq!(status, 201, "{created}");
    created["project_id"].as_str().unwrap().to_string()
}

/// `activate`, `deactivate` or `complete`.
pub fn act(app: &TestApp, tenant: &TenantCredentials, project_id: &str, action: &str) {
    let (status, body) = json_of(app.post(&format!("/v1/projects/{project_id}/{action}")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{action}: {body}");
}

/// A new active project of `tenant`.
pub fn active_project(app: &TestApp, tenant: &TenantCredentials, changes: Value) -> String {
    let id = create_project(app, tenant, &project_body(changes));
    act(app, tenant, &id, "activate");
    id
}

/// `POST /v1/sessions` with `body`.
pub fn start_raw(app: &TestApp, body: &Value) -> (StatusCode, Value) {
    json_of(app.post("/v1/sessions").json(body).send().unwrap())
}

/// A running session, as the page holds it.
#[derive(Debug, Clone)]
pub struct Session {
    pub interview_id: String,
    pub token: String,
    /// The last session body the API answered.
    pub body: Value,
}

impl Session {
    /// Starts a session (201 expected).
    pub fn start(app: &TestApp, body: &Value) -> Session {
        let (status, started) = start_raw(app, body);
        assert_eq!(status, 201, "{started}");
        Session {
            interview_id: started["interview_id"].as_str().unwrap().to_string(),
            token: started["session_token"].as_str().unwrap().to_string(),
            body: started,
        }
    }

    pub fn path(&self, rest: &str) -> String {
        format!("/v1/sessions/{}{rest}", self.interview_id)
    }

    /// `POST .../answers`, keeping the new session body on success.
    pub fn answer_raw(&mut self, app: &TestApp, text: &str) -> (StatusCode, Value) {
        let (status, body) =
            json_of(app.post(&self.path("/answers")).bearer_auth(&self.token).json(&json!({ "text": text })).send().unwrap());
        if status == 200 {
            self.body = body.clone();
        }
        (status, body)
    }

    /// Answers (200 expected) and returns the interviewer's reply.
    pub fn answer(&mut self, app: &TestApp, text: &str) -> String {
        let (status, body) = self.answer_raw(app, text);
        assert_eq!(status, 200, "{body}");
        self.last_message()
    }

    /// The interviewer's latest message.
    pub fn last_message(&self) -> String {
        let turns = self.body["turns"].as_array().unwrap();
        let last = turns.last().unwrap();
        assert_eq!(last["speaker"], "interviewer", "{last}");
        last["text"].as_str().unwrap().to_string()
    }

    pub fn get(&self, app: &TestApp) -> (StatusCode, Value) {
        json_of(app.get(&self.path("")).bearer_auth(&self.token).send().unwrap())
    }

    pub fn finish(&self, app: &TestApp, opt_in: bool) -> (StatusCode, Value) {
        json_of(
            app.post(&self.path("/finish"))
                .bearer_auth(&self.token)
                .json(&json!({ "opt_in_for_followup": opt_in }))
                .send()
                .unwrap(),
        )
    }

    /// Answers with a long answer until the interviewer closes, then finishes.
    pub fn complete(&mut self, app: &TestApp) -> Value {
        for _ in 0..30 {
            if self.body["interviewer_closed"] == true {
                break;
            }
            self.answer(app, "We compared three places and chose the one closest to work, mainly for the commute.");
        }
        let (status, finished) = self.finish(app, true);
        assert_eq!(status, 200, "{finished}");
        finished
    }
}

/// The start body for a project: what the page sends for a plain link.
pub fn start_body(project_id: &str, environment: &str) -> Value {
    json!({ "project_id": project_id, "environment": environment, "mode": "typing" })
}

/// The project's sandbox link as its tenant gets it (`GET .../url?environment=sandbox`):
/// the URL and the `sandbox_token` it carries.
pub fn sandbox_link(app: &TestApp, tenant: &TenantCredentials, project_id: &str) -> (String, String) {
    let (status, body) =
        json_of(app.get(&format!("/v1/projects/{project_id}/url?environment=sandbox")).auth(tenant).send().unwrap());
    assert_eq!(status, 200, "{body}");
    let url = body["url"].as_str().unwrap().to_string();
    let token = reqwest::Url::parse(&url)
        .unwrap()
        .query_pairs()
        .find(|(name, _)| name == "sandbox_token")
        .map(|(_, value)| value.into_owned())
        .unwrap_or_else(|| panic!("the sandbox link carries its token: {url}"));
    (url, token)
}

/// The start body of a sandbox session, as the page of the tenant's sandbox link sends it.
pub fn sandbox_start_body(app: &TestApp, tenant: &TenantCredentials, project_id: &str) -> Value {
    let (_, token) = sandbox_link(app, tenant, project_id);
    json!({ "project_id": project_id, "environment": "sandbox", "sandbox_token": token, "mode": "typing" })
}

/// Opens the app's SQLite file read-only (Spin's `default` database).
pub fn database(app: &TestApp) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open_with_flags(
        app.sqlite_path(),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn
}

/// Opens the app's key-value file read-only (Spin's `default` store).
pub fn key_value(app: &TestApp) -> rusqlite::Connection {
    let conn = rusqlite::Connection::open_with_flags(
        app.state_dir.join("sqlite_key_value.db"),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn
}

/// The outbox rows of an event type whose payload names `field` = `value`: (event_id, payload).
pub fn events(app: &TestApp, event_type: &str, field: &str, value: &str) -> Vec<(String, Value)> {
    let conn = database(app);
    let mut statement = conn
        .prepare(
            "SELECT event_id, payload FROM events WHERE event_type = ?1 AND json_extract(payload, '$.' || ?2) = ?3
             ORDER BY created_at, rowid",
        )
        .unwrap();
    statement
        .query_map((event_type, field, value), |row| {
            Ok((row.get::<_, String>(0)?, serde_json::from_str(&row.get::<_, String>(1)?).unwrap()))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// The `<script type="application/json" id="boot">` data of an interview page.
pub fn boot_data(html: &str) -> Value {
    let start = html.find("id=\"boot\"").expect("the page has its boot data");
    let open_end = start + html[start..].find('>').unwrap() + 1;
    let close = open_end + html[open_end..].find("</script>").unwrap();
    serde_json::from_str(&html[open_end..close]).expect("the boot data is JSON")
}
