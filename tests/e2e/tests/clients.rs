//! A generated client against the running service: the Python client that
//! openapi-python-client writes from the document the service serves
//! (GET /v1/openapi.json, as an API user would generate it) drives the whole
//! workflow (tests/clients/workflow.py) through its typed functions; this test
//! checks what it printed and what the service stored.
//! (`make clients` also checks the TypeScript types, with tsc.)

use e2e::*;
use serde_json::Value;
use std::process::Command;

#[test]
fn the_generated_python_client_runs_the_whole_workflow() {
    let app = TestApp::start(&[]);
    let root = workspace_root();
    let out = tempfile::tempdir().unwrap();
    let client_dir = out.path().join("python");

    let generated = Command::new(root.join("scripts/clients.sh"))
        .arg("python")
        .arg(app.url("/v1/openapi.json"))
        .arg(&client_dir)
        .output()
        .unwrap();
    assert!(
        generated.status.success(),
        "generating the Python client failed:\n{}{}",
        String::from_utf8_lossy(&generated.stdout),
        String::from_utf8_lossy(&generated.stderr)
    );

    let run = Command::new(root.join("target/fuzz-venv/bin/python"))
        .arg(root.join("tests/clients/workflow.py"))
        .env("PYTHONPATH", &client_dir)
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .env("IRS_BASE_URL", app.url(""))
        .env("IRS_PARTNER_KEY", &app.partner_key)
        .env("IRS_PARTNER_TENANT_ID", PARTNER_TENANT_ID)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(run.status.success(), "the workflow failed:\n{stdout}{}", String::from_utf8_lossy(&run.stderr));
    let facts: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default()).expect("the facts, as JSON");

    // The projects: four created, the patch read back through the client.
    let projects = facts["projects"].as_object().unwrap();
    assert_eq!(projects.len(), 4, "{facts}");
    let project_id = facts["projects"]["interview"].as_str().unwrap();
    assert_eq!(facts["read"]["project_name"], "Daycare choices (pilot)");
    assert_eq!(facts["read"]["secondary_color"], "#222222");
    assert_eq!(facts["read"]["camera_access"], "not_allowed", "the default, from the smallest create body");
    assert_eq!(facts["read"]["status"], "draft");
    assert_eq!(facts["read"]["survey_blocks"], serde_json::json!(["OpenQuestionBlock", "ChoiceBlock", "RatingBlock"]));
    // Two pages of three: every project once, newest first.
    let pages: Vec<Vec<String>> = serde_json::from_value(facts["pages"].clone()).unwrap();
    assert_eq!((pages[0].len(), pages[1].len()), (3, 1), "{facts}");
    let listed: std::collections::BTreeSet<&String> = pages.iter().flatten().collect();
    let made: std::collections::BTreeSet<String> =
        projects.values().map(|id| id.as_str().unwrap().to_string()).collect();
    assert_eq!(listed, made.iter().collect());
    assert_eq!(pages[1][0], project_id, "the first project created is the last listed");

    // Published, with both links.
    assert_eq!(facts["status"], "active");
    let production = facts["urls"]["production"].as_str().unwrap();
    assert_eq!(production, app.url(&format!("/i/{project_id}")));
    assert!(facts["urls"]["sandbox"].as_str().unwrap().starts_with(&format!("{production}?env=sandbox&sandbox_token=")), "{facts}");

    // The session: a question, the answer and the next message, a recorded chunk, the end.
    let session = &facts["session"];
    let interview_id = session["interview_id"].as_str().unwrap();
    assert!(
        session["first_question"].as_str().unwrap().contains("How did you choose your current daycare?"),
        "{session}"
    );
    assert_eq!(session["turns_after_answer"], 3);
    assert_eq!(session["speakers"], serde_json::json!(["interviewer", "interviewee", "interviewer"]));
    assert_eq!(session["recording"], serde_json::json!({"kind": "audio", "chunks": 1, "size": 64}));
    assert_eq!((&session["finished"], &session["interview_status"]), (&"left".into(), &"INITIATED".into()));

    // The metadata filter: the interview under its plan, none under another.
    assert_eq!(facts["listed"]["pro"], serde_json::json!([interview_id]));
    assert_eq!(facts["listed"]["free"], serde_json::json!([]));
    // Both exports (the header and the one interview), and the recording's bytes.
    for (name, last_column) in [("interviews", "interview_summary"), ("interviewees", "external_metadata")] {
        let export = &facts["exports"][name];
        assert_eq!(export["content_type"], "text/csv; charset=utf-8");
        assert!(export["header"].as_str().unwrap().starts_with("interview_id,identifier,"), "{export}");
        assert!(export["header"].as_str().unwrap().ends_with(last_column), "{export}");
        assert_eq!(export["rows"], 1);
    }
    assert_eq!(facts["audio"], serde_json::json!({"content_type": "audio/webm", "same_bytes": true}));

    // Webhooks: the secret, and a subscription confirmed.
    assert_eq!(facts["webhooks"]["secret_prefix"], "whsec_");
    assert_eq!(facts["webhooks"]["confirmed"], "confirmed");
    assert_eq!(facts["webhooks"]["read_status"], "confirmed");

    // What the service stored, read over plain HTTP with the tenant's key.
    let headers = |request: reqwest::blocking::RequestBuilder| {
        request
            .header("X-Api-Key", facts["api_key"].as_str().unwrap())
            .header("X-Tenant-Id", facts["tenant_id"].as_str().unwrap())
    };
    let (status, project) = json_of(headers(app.get(&format!("/v1/projects/{project_id}"))).send().unwrap());
    assert_eq!(status, 200);
    assert_eq!((&project["project_name"], &project["status"]), (&"Daycare choices (pilot)".into(), &"active".into()));
    let (status, survey) = json_of(
        headers(app.get(&format!("/v1/projects/{}", facts["projects"]["generated_survey"].as_str().unwrap())))
            .send()
            .unwrap(),
    );
    assert_eq!(status, 200);
    assert_eq!(survey["project_type"], "survey");
    assert_eq!(survey["survey_blocks"][2]["scale"], "0-10");
    let (status, subscription) = json_of(
        headers(
            app.get(&format!("/v1/webhooks/subscriptions/{}", facts["webhooks"]["subscription_id"].as_str().unwrap())),
        )
        .send()
        .unwrap(),
    );
    assert_eq!((status.as_u16(), &subscription["status"]), (200, &"confirmed".into()));
}
