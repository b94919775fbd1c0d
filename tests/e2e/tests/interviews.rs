//! Interviews for the tenant end to end (docs/interviews.md): the list and its
//! filters and pages, the two CSV exports read back with the `csv` crate, the
//! recordings with Range, and flagging. Every interview is made through the
//! session API, as an interviewee's page makes it.

use e2e::sessions::*;
use e2e::*;
use serde_json::{json, Value};

fn list(app: &TestApp, tenant: &TenantCredentials, query: &[(&str, &str)]) -> (StatusCode, Value) {
    json_of(app.get("/v1/interviews").query(query).auth(tenant).send().unwrap())
}

fn ids(body: &Value) -> Vec<String> {
    body["data"].as_array().unwrap().iter().map(|i| i["interview_id"].as_str().unwrap().to_string()).collect()
}

/// Starts a production session with this metadata (and identifier) and returns its id.
fn interview_with(app: &TestApp, project_id: &str, metadata: Value) -> Session {
    let mut body = start_body(project_id, "production");
    body["external_metadata"] = metadata;
    Session::start(app, &body)
}

#[test]
fn metadata_filters_combine_or_within_a_key_and_and_across_keys() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({}));
    let other_project = active_project(app, &tenant, json!({}));
    let pro_paris = interview_with(app, &project, json!({"plan": "pro", "city": "Paris"})).interview_id;
    let team_paris = interview_with(app, &project, json!({"plan": "team", "city": "Paris"})).interview_id;
    let free_paris = interview_with(app, &project, json!({"plan": "free", "city": "Paris"})).interview_id;
    let pro_sao = interview_with(app, &project, json!({"plan": "pro", "city": "São Paulo"})).interview_id;
    let odd = interview_with(app, &project, json!({"note": "a b&c=d [x]", "visits": "42"})).interview_id;
    let elsewhere = interview_with(app, &other_project, json!({"plan": "pro", "city": "Paris"})).interview_id;

    let (status, body) = list(app, &tenant, &[("project_id", &project)]);
    assert_eq!(status, 200);
    assert_eq!(ids(&body), vec![odd.clone(), pro_sao.clone(), free_paris.clone(), team_paris.clone(), pro_paris.clone()], "newest first");
    assert_eq!(body["data"][0].as_object().unwrap().keys().collect::<Vec<_>>(), vec!["interview_id", "project_id", "created_at"], "the contract's fields, in its order");
    assert!(body.get("next_cursor").is_none(), "without paging the answer is the contract's");

    let filtered = |query: &[(&str, &str)]| ids(&list(app, &tenant, query).1);
    // The same key twice: either value.
    assert_eq!(
        filtered(&[("project_id", &project), ("external_metadata[plan]", "pro"), ("external_metadata[plan]", "team")]),
        vec![pro_sao.clone(), team_paris.clone(), pro_paris.clone()]
    );
    // Different keys, and project_id: all of them.
    assert_eq!(
        filtered(&[("project_id", &project), ("external_metadata[plan]", "pro"), ("external_metadata[city]", "Paris")]),
        vec![pro_paris.clone()]
    );
    assert_eq!(
        filtered(&[("external_metadata[plan]", "pro"), ("external_metadata[city]", "Paris")]),
        vec![elsewhere.clone(), pro_paris.clone()],
        "without project_id, every project of the tenant"
    );
    assert_eq!(filtered(&[("external_metadata[city]", "São Paulo")]), vec![pro_sao.clone()]);
    assert_eq!(filtered(&[("external_metadata[note]", "a b&c=d [x]")]), vec![odd.clone()]);
    assert_eq!(filtered(&[("external_metadata[visits]", "42")]), vec![odd.clone()], "numbers match by their text");
    assert_eq!(filtered(&[("external_metadata[visits]", "42.0")]), Vec::<String>::new());
    assert_eq!(filtered(&[("external_metadata[plan]", "enterprise")]), Vec::<String>::new());
    // Raw brackets in the query string work as well as encoded ones.
    let (_, raw) = json_of(
        app.get(&format!("/v1/interviews?project_id={project}&external_metadata[plan]=free")).auth(&tenant).send().unwrap(),
    );
    assert_eq!(ids(&raw), vec![free_paris.clone()]);

    // Another tenant sees none of it, whatever it asks.
    let stranger = app.create_tenant();
    assert_eq!(ids(&list(app, &stranger, &[]).1), Vec::<String>::new());
    assert_eq!(ids(&list(app, &stranger, &[("project_id", &project)]).1), Vec::<String>::new());
    assert_eq!(ids(&list(app, &stranger, &[("external_metadata[plan]", "pro")]).1), Vec::<String>::new());
}

#[test]
fn malformed_filters_are_400_and_bad_additive_parameters_422() {
    let app = shared_app();
    let tenant = app.create_tenant();
    for query in [
        vec![("project_id", "not-a-uuid")],
        vec![("external_metadata", "x")],
        vec![("external_metadata[]", "x")],
        vec![("external_metadata[a][b]", "x")],
        vec![("external_metadata[a", "x")],
    ] {
        let (status, body) = list(app, &tenant, &query);
        assert_eq!(status, 400, "{query:?}");
        assert_detail_error(&body, "invalid_parameter");
    }
    let long_key = format!("external_metadata[{}]", "k".repeat(129));
    assert_eq!(list(app, &tenant, &[(long_key.as_str(), "x")]).0, 400);
    for (name, value, kind) in [
        ("limit", "0", "greater_than_equal"),
        ("limit", "1001", "less_than_equal"),
        ("limit", "ten", "int_parsing"),
        ("cursor", "not-a-cursor", "value_error"),
        ("created_after", "yesterday", "datetime_parsing"),
        ("environment", "staging", "enum"),
    ] {
        let (status, body) = list(app, &tenant, &[(name, value)]);
        assert_eq!(status, 422, "{name}={value}");
        assert_eq!(body["detail"][0]["loc"], json!(["query", name]));
        assert_eq!(body["detail"][0]["type"], kind);
    }
    let (status, _) = json_of(app.get("/v1/interviews").send().unwrap());
    assert_eq!(status, 401);
}

#[test]
fn pages_neither_skip_nor_repeat_while_interviews_arrive() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({}));
    let mut first: Vec<String> = (0..5).map(|_| interview_with(app, &project, json!({})).interview_id).collect();
    first.reverse();

    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut query = vec![("project_id", project.clone()), ("limit", "2".to_string())];
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor.clone()));
        }
        let query: Vec<(&str, &str)> = query.iter().map(|(n, v)| (*n, v.as_str())).collect();
        let (status, page) = list(app, &tenant, &query);
        assert_eq!(status, 200, "{page}");
        seen.extend(ids(&page));
        // New interviews arrive between pages: they are newer than the cursor.
        interview_with(app, &project, json!({}));
        match page["next_cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, first, "every interview of the first moment, once, in order");

    // created_after / created_before, and sandbox interviews only when asked for.
    let all = ids(&list(app, &tenant, &[("project_id", &project)]).1);
    let (_, newest) = list(app, &tenant, &[("project_id", &project), ("limit", "1")]);
    let newest_at = newest["data"][0]["created_at"].as_str().unwrap().to_string();
    assert_eq!(ids(&list(app, &tenant, &[("project_id", &project), ("created_before", &newest_at)]).1), all[1..].to_vec());
    assert_eq!(ids(&list(app, &tenant, &[("project_id", &project), ("created_after", &newest_at)]).1), Vec::<String>::new());
    let sandbox = Session::start(app, &sandbox_start_body(app, &tenant, &project)).interview_id;
    assert!(!ids(&list(app, &tenant, &[("project_id", &project)]).1).contains(&sandbox));
    assert_eq!(ids(&list(app, &tenant, &[("project_id", &project), ("environment", "sandbox")]).1), vec![sandbox]);
}

#[test]
fn two_key_filters_run_on_indexes() {
    use records::store::list::{list_statement, Driver};
    use interviews_core::ListQuery;
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({}));
    for i in 0..6 {
        let plan = ["pro", "team"][i % 2];
        let region = if i < 3 { "eu" } else { "us" };
        interview_with(app, &project, json!({"plan": plan, "cohort": format!("c{}", i % 3), "region": region}));
    }
    let conn = database(app);
    let params = |values: Vec<storage::SqlValue>| -> Vec<rusqlite::types::Value> {
        values
            .into_iter()
            .map(|value| match value {
                storage::SqlValue::Integer(n) => rusqlite::types::Value::Integer(n),
                storage::SqlValue::Real(x) => rusqlite::types::Value::Real(x),
                storage::SqlValue::Text(t) => rusqlite::types::Value::Text(t),
                storage::SqlValue::Blob(b) => rusqlite::types::Value::Blob(b),
                storage::SqlValue::Null => rusqlite::types::Value::Null,
            })
            .collect()
    };
    // (interview_id, created_ms) of the statement's rows, in order.
    let run = |query: &ListQuery, driver: Driver| -> Vec<(String, i64)> {
        let (sql, values) = list_statement(platform::ids::TenantId::parse(&tenant.tenant_id).unwrap(), query, driver);
        let params = params(values);
        conn.prepare(&sql)
            .unwrap()
            .query_map(rusqlite::params_from_iter(params.iter()), |row| Ok((row.get(0)?, row.get(3)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let query_of = |pairs: &[(&str, &str)]| {
        let pairs: Vec<(String, String)> = pairs.iter().map(|(n, v)| (n.to_string(), v.to_string())).collect();
        ListQuery::parse(&pairs).unwrap()
    };
    let two_keys = vec![
        ("project_id", project.as_str()),
        ("external_metadata[plan]", "pro"),
        ("external_metadata[plan]", "team"),
        ("external_metadata[cohort]", "c1"),
    ];
    let mut three_keys = two_keys.clone();
    three_keys.push(("external_metadata[region]", "us"));
    for (filters, keys, found) in [(two_keys, 2, 2), (three_keys, 3, 1)] {
        let query = query_of(&[filters.as_slice(), &[("limit", "50")]].concat());
        let drivers: Vec<Driver> = std::iter::once(Driver::Interviews).chain((0..keys).map(Driver::Metadata)).collect();
        let mut first_found: Option<Vec<(String, i64)>> = None;
        for driver in drivers {
            let (sql, values) = list_statement(platform::ids::TenantId::parse(&tenant.tenant_id).unwrap(), &query, driver);
            let params = params(values);
            let plan: Vec<String> = conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap()
                .query_map(rusqlite::params_from_iter(params.iter()), |row| row.get::<_, String>(3))
                .unwrap()
                .map(Result::unwrap)
                .collect();
            assert!(
                !plan.iter().any(|step| step.starts_with("SCAN i") || step.starts_with("SCAN interviews")),
                "{driver:?} scans the interviews table: {plan:?}"
            );
            assert!(plan.iter().any(|step| step.contains("USING")), "{driver:?}: {plan:?}");
            // The other keys are seeks into each key's own rows at the driving
            // row's time (pages the neighbouring seeks share), never lookups by
            // interview id; with a key driving, before its interview row is read.
            let lookups: Vec<usize> = (0..plan.len())
                .filter(|&n| plan[n].starts_with("SEARCH m USING PRIMARY KEY (tenant_id=? AND key=? AND value=? AND created_ms=?)"))
                .collect();
            assert!(!plan.iter().any(|step| step.contains("interview_metadata_by_interview")), "{driver:?}: {plan:?}");
            if let Driver::Metadata(_) = driver {
                let interview = plan.iter().position(|step| step.starts_with("SEARCH i ")).expect("the interview lookup");
                assert_eq!(lookups.len(), keys - 1, "{driver:?}: {plan:?}");
                assert!(lookups.iter().all(|&n| n < interview), "{driver:?} reads the interview first: {plan:?}");
            } else {
                assert_eq!(lookups.len(), keys, "{driver:?}: {plan:?}");
            }
            let rows = run(&query, driver);
            assert_eq!(rows.len(), found, "{driver:?}: {rows:?}");
            match &first_found {
                None => first_found = Some(rows.clone()),
                Some(first) => assert_eq!(&rows, first, "{driver:?}: every driver finds the same interviews, in the same order"),
            }
            // Pages of one, each after the last one's cursor: the same interviews.
            let mut paged = Vec::new();
            let mut cursor: Option<String> = None;
            loop {
                let mut pairs = filters.clone();
                pairs.push(("limit", "1"));
                let page = match &cursor {
                    Some(cursor) => query_of(&[pairs.as_slice(), &[("cursor", cursor.as_str())]].concat()),
                    None => query_of(&pairs),
                };
                let read = run(&page, driver);
                let Some((id, created_ms)) = read.first().cloned() else { break };
                paged.push((id.clone(), created_ms));
                if read.len() < 2 {
                    break;
                }
                cursor = Some(platform::paging::Cursor { key: created_ms.to_string(), id }.encode());
            }
            assert_eq!(paged, rows, "{driver:?}: pages of one");
        }
    }
}

fn export(app: &TestApp, tenant: &TenantCredentials, project: &str, kind: &str) -> reqwest::blocking::Response {
    app.get(&format!("/v1/projects/{project}/{kind}-export")).auth(tenant).send().unwrap()
}

fn read_csv(text: &str) -> Vec<Vec<String>> {
    csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(text.as_bytes())
        .records()
        .map(|record| record.unwrap().iter().map(str::to_string).collect())
        .collect()
}

#[test]
fn exports_hold_every_cell_the_sessions_recorded() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({}));

    // A completed interview with awkward answers, a mobile one still running, a
    // sandbox one (left out), and an identifier a spreadsheet would run.
    let mut completed = Session::start(
        app,
        &json!({"project_id": project, "mode": "typing", "identifier": "=HYPERLINK(\"http://x\")", "country_code": "fr",
                "external_metadata": {"plan": "pro", "quote": "say \"hi\""}}),
    );
    completed.answer(app, "We compared prices, locations, and \"vibes\".\nThen we chose the closest one to work.");
    completed.answer(app, "-Mostly the staff: friendly, patient, and they send photos every afternoon.");
    completed.complete(app);
    let (status, running) = json_of(
        app.post("/v1/sessions")
            .header("user-agent", "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Mobile/15E148")
            .json(&json!({"project_id": project, "identifier": "ben@example.com"}))
            .send()
            .unwrap(),
    );
    assert_eq!(status, 201);
    let running_id = running["interview_id"].as_str().unwrap().to_string();
    Session::start(app, &sandbox_start_body(app, &tenant, &project));

    let response = export(app, &tenant, &project, "interviews");
    assert_eq!(response.status(), 200);
    assert_eq!(response.headers()["content-type"], "text/csv; charset=utf-8");
    assert_eq!(
        response.headers()["content-disposition"],
        format!("attachment; filename=\"interviews-export-{project}.csv\"").as_str()
    );
    let text = response.text().unwrap();
    assert!(text.starts_with(
        "interview_id,identifier,country_code,interview_status,opt_in_for_followup,created_at,ended_at,project_type,device_type,external_metadata,transcription,interview_summary\r\n"
    ));
    let rows = read_csv(&text);
    assert_eq!(rows.len(), 3, "the header and the two production interviews");

    // Every cell against what the session API and the list recorded.
    let (_, listed) = list(app, &tenant, &[("project_id", &project)]);
    let created_at = |id: &str| {
        listed["data"].as_array().unwrap().iter().find(|i| i["interview_id"] == id).unwrap()["created_at"].as_str().unwrap().to_string()
    };
    let (_, session) = completed.get(app);
    let transcript: Vec<String> = session["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let text = t["text"].as_str().unwrap().replace('\n', " ");
            match t["speaker"].as_str().unwrap() {
                "interviewer" => format!("Interviewer: [{}, {}] {text}", t["kind"].as_str().unwrap(), t["written_by"].as_str().unwrap()),
                _ => format!("Interviewee: {text}"),
            }
        })
        .collect();
    let (summary, ended_at): (String, String) = database(app)
        .query_row("SELECT summary, ended_at FROM interviews WHERE interview_id = ?", [&completed.interview_id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    let first = &rows[1];
    assert_eq!(first[0], completed.interview_id);
    assert_eq!(first[1], "'=HYPERLINK(\"http://x\")", "the CSV-injection guard");
    assert_eq!(first[2..10], [
        "FR".to_string(), "COMPLETED".into(), "true".into(), created_at(&completed.interview_id), ended_at,
        "INTERVIEW".into(), "DESKTOP".into(), r#"{"plan":"pro","quote":"say \"hi\""}"#.into(),
    ]);
    assert_eq!(first[10], transcript.join("\n"));
    assert!(first[10].contains("Interviewee: -Mostly the staff"), "only a cell's first character is guarded");
    assert_eq!(first[11], summary);
    let second = &rows[2];
    assert_eq!(second[..10], [
        running_id.clone(), "ben@example.com".into(), "".into(), "INITIATED".into(), "false".into(), created_at(&running_id),
        "".into(), "INTERVIEW".into(), "MOBILE".into(), "{}".into(),
    ]);
    assert!(second[10].starts_with("Interviewer: [opening, builtin] Hello"));
    assert_eq!(second[11], "", "no summary before the interview ends");

    // The interviewees export: the same rows without transcript and summary.
    let response = export(app, &tenant, &project, "interviewees");
    assert_eq!(response.status(), 200);
    let interviewees = read_csv(&response.text().unwrap());
    assert_eq!(interviewees[0], rows[0][..10].to_vec());
    assert_eq!(interviewees[1], rows[1][..10].to_vec());
    assert_eq!(interviewees[2], rows[2][..10].to_vec());
}

#[test]
fn exports_are_204_when_empty_and_404_for_other_projects() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let empty = active_project(app, &tenant, json!({}));
    Session::start(app, &sandbox_start_body(app, &tenant, &empty));
    for kind in ["interviews", "interviewees"] {
        let response = export(app, &tenant, &empty, kind);
        assert_eq!(response.status(), 204, "{kind}: sandbox interviews are not exported");
        assert!(response.bytes().unwrap().is_empty());
        let stranger = app.create_tenant();
        let (status, body) = json_of(export(app, &stranger, &empty, kind));
        assert_eq!(status, 404);
        assert_detail_error(&body, "not_found");
        assert_eq!(export(app, &tenant, &uuid::Uuid::new_v4().to_string(), kind).status(), 404);
        assert_eq!(export(app, &tenant, "nope", kind).status(), 422);
    }
    // The projects component keeps every other route under /v1/projects/{id}.
    let (status, _) = json_of(app.get(&format!("/v1/projects/{empty}")).auth(&tenant).send().unwrap());
    assert_eq!(status, 200);
}

#[test]
fn recordings_download_whole_or_by_range() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({"interview_modes": ["talking"]}));
    let session = Session::start(app, &json!({"project_id": project, "mode": "talking"}));
    let recording: Vec<u8> = (0..2500u32).map(|i| (i % 251) as u8).collect();
    for (index, piece) in recording.chunks(1000).enumerate() {
        let (status, _) = json_of(
            app.request("PUT", &session.path(&format!("/recordings/audio/{index}")))
                .bearer_auth(&session.token)
                .header("content-type", "audio/webm;codecs=opus")
                .body(piece.to_vec())
                .send()
                .unwrap(),
        );
        assert_eq!(status, 200);
    }
    let get = |path: &str, range: Option<&str>| {
        let mut request = app.get(&format!("/v1/interviews/{}/{path}", session.interview_id)).auth(&tenant);
        if let Some(range) = range {
            request = request.header("range", range);
        }
        request.send().unwrap()
    };
    let response = app.get("/v1/interviews/not-an-interview/audio-export").auth(&tenant).send().unwrap();
    assert_eq!(response.status(), 404, "an id that is no UUID names no interview");
    let response = get("audio-export", None);
    assert_eq!(response.status(), 200);
    let header = |r: &reqwest::blocking::Response, name: &str| r.headers()[name].to_str().unwrap().to_string();
    assert_eq!(header(&response, "content-type"), "audio/webm;codecs=opus");
    assert_eq!(header(&response, "accept-ranges"), "bytes");
    assert_eq!(header(&response, "content-disposition"), format!("attachment; filename=\"{}-audio.webm\"", session.interview_id));
    assert_eq!(response.bytes().unwrap().to_vec(), recording);

    for (range, start, end) in [("bytes=0-9", 0, 9), ("bytes=-10", 2490, 2499), ("bytes=995-1004", 995, 1004), ("bytes=2000-", 2000, 2499)] {
        let response = get("audio-export", Some(range));
        assert_eq!(response.status(), 206, "{range}");
        assert_eq!(header(&response, "content-range"), format!("bytes {start}-{end}/2500"));
        assert_eq!(response.bytes().unwrap().to_vec(), recording[start..=end].to_vec(), "{range}");
    }
    let response = get("audio-export", Some("bytes=2500-"));
    assert_eq!(response.status(), 416);
    assert_eq!(header(&response, "content-range"), "bytes */2500");
    assert_eq!(get("audio-export", Some("bytes=0-1,5-6")).status(), 200, "several ranges: the whole recording");

    let (status, body) = json_of(get("video-export", None));
    assert_eq!(status, 404, "no video was recorded");
    assert_detail_error(&body, "not_found");
    let stranger = app.create_tenant();
    let response = app.get(&format!("/v1/interviews/{}/audio-export", session.interview_id)).auth(&stranger).send().unwrap();
    assert_eq!(response.status(), 404);
    assert_eq!(app.get(&format!("/v1/interviews/{}/audio-export", uuid::Uuid::new_v4())).auth(&tenant).send().unwrap().status(), 404);
}

#[test]
fn flagged_interviews_stop_counting_toward_max_interviews() {
    let app = shared_app();
    let tenant = app.create_tenant();
    let project = active_project(app, &tenant, json!({"max_interviews": 2}));
    let mut first = Session::start(app, &start_body(&project, "production"));
    first.complete(app);

    let flag = |id: &str, body: Value| json_of(app.post(&format!("/v1/interviews/{id}/flag")).auth(&tenant).json(&body).send().unwrap());
    assert_eq!(flag(&first.interview_id, json!({"reason": "Answers copied from a website"})), (StatusCode::OK, json!({"status": "flagged"})));
    assert_eq!(flag(&first.interview_id, json!({"reason": "Again"})).0, 200, "flagging twice is harmless");
    let (status, body) = flag(&first.interview_id, json!({}));
    assert_eq!(status, 422);
    assert_eq!(body["detail"][0]["loc"], json!(["body", "reason"]));
    let (status, body) = flag(&uuid::Uuid::new_v4().to_string(), json!({"reason": "x"}));
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
    // An id that is no UUID names no interview either: the same 404, not a 422.
    let (status, body) = flag("not-an-interview", json!({"reason": "x"}));
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
    let stranger = app.create_tenant();
    let (status, _) = json_of(
        app.post(&format!("/v1/interviews/{}/flag", first.interview_id)).auth(&stranger).json(&json!({"reason": "x"})).send().unwrap(),
    );
    assert_eq!(status, 404);

    // The flagged interview no longer counts: two more completions reach the limit.
    Session::start(app, &start_body(&project, "production")).complete(app);
    let status_of = || json_of(app.get(&format!("/v1/projects/{project}")).auth(&tenant).send().unwrap()).1["status"].clone();
    assert_eq!(status_of(), "active");
    Session::start(app, &start_body(&project, "production")).complete(app);
    assert_eq!(status_of(), "completed");
    let (reason, flagged_at): (String, Option<String>) = database(app)
        .query_row("SELECT flag_reason, flagged_at FROM interviews WHERE interview_id = ?", [&first.interview_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap();
    assert_eq!(reason, "Again");
    assert!(flagged_at.is_some());
}
