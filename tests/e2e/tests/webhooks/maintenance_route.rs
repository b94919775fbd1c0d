//! The maintenance route: the same run for schedulers that call URLs.

use super::*;

const MAINTENANCE_TOKEN: &str = "mt-0123456789abcdef";

#[test]
fn the_maintenance_route_is_off_until_a_token_is_set() {
    let app = TestApp::start(&[("maintenance_token", "")]);
    let (status, body) = app.run_maintenance(Some("anything"));
    assert_eq!(status, 404);
    assert_detail_error(&body, "not_found");
}

#[test]
fn the_maintenance_route_takes_its_token_and_drains_real_deliveries() {
    // The API budget is exactly what this test spends (7 calls).
    let app = insecure_app(&[("maintenance_token", MAINTENANCE_TOKEN), ("rate_limit_per_minute", "7")]);
    let receiver = Receiver::start(Vec::new());
    wait_for_fresh_window(15);
    for token in [None, Some("wrong"), Some(&MAINTENANCE_TOKEN[..10])] {
        let (status, body) = app.run_maintenance(token);
        assert_eq!(status, 401, "{token:?}");
        assert_detail_error(&body, "unauthorized");
    }
    let (tenant, secret, _) = subscribed_tenant(&app, &receiver.url("/hook"));
    publish_project(&app, &tenant);
    let (status, report) = app.run_maintenance(Some(MAINTENANCE_TOKEN));
    assert_eq!(status, 200, "{report}");
    assert_eq!(
        report,
        json!({
            "ended_interviews": 0,
            "erased_interviews": 0,
            "assessed_interviews": 0,
            "embedded_answers": 0,
            "syntheses_written": 0,
            "deliveries": {"attempted": 1, "delivered": 1, "retrying": 0, "failed": 0}
        })
    );
    let received = receiver.wait_for(1, Duration::from_secs(5));
    let timestamp = received[0].header("x-service-request-timestamp");
    assert_eq!(received[0].header("x-service-request-signature"), signature(&secret, timestamp, &received[0].body));
    assert_eq!(deliveries(&app, &tenant, "")[0]["status"], "delivered");
    // A budget of its own: the API's is spent, the route still answers.
    let (status, report) = app.run_maintenance(Some(MAINTENANCE_TOKEN));
    assert_eq!((status.as_u16(), report["deliveries"]["attempted"].as_u64()), (200, Some(0)), "{report}");
    let (status, _) = get_json(&app, &tenant, "/v1/webhooks/event-types");
    assert_eq!(status, 429, "the API budget is spent");
}

#[test]
fn the_route_and_the_cron_run_at_once_send_each_attempt_once() {
    let app = insecure_app(&[
        ("maintenance_token", MAINTENANCE_TOKEN),
        ("webhook_timeout_seconds", "2"),
        ("webhook_retry_base_seconds", "30,30"),
    ]);
    let receiver = Receiver::start(vec![Answer::Hang(Duration::from_secs(5)), Answer::Hang(Duration::from_secs(5))]);
    let (first, _, _) = subscribed_tenant(&app, &receiver.url("/hook"));
    let (second, _, _) = subscribed_tenant(&app, &receiver.url("/hook"));
    publish_project(&app, &first);
    publish_project(&app, &second);
    let attempted = thread::scope(|scope| {
        let routes: Vec<_> = (0..2).map(|_| scope.spawn(|| app.run_maintenance(Some(MAINTENANCE_TOKEN)))).collect();
        let crons: Vec<_> = (0..2).map(|_| scope.spawn(|| dispatch(&app))).collect();
        for cron in crons {
            cron.join().unwrap();
        }
        routes.into_iter().map(|r| r.join().unwrap().1["deliveries"]["attempted"].as_u64().unwrap()).sum::<u64>()
    });
    thread::sleep(Duration::from_millis(300));
    assert_eq!(receiver.requests().len(), 2, "each delivery was sent by exactly one run");
    assert!(attempted <= 2, "the routes leased at most what exists: {attempted}");
    for tenant in [&first, &second] {
        let log = deliveries(&app, tenant, "");
        assert_eq!(log[0]["attempt_count"], 1, "{log:?}");
    }
}

#[test]
fn a_delivery_never_attempted_is_due_since_it_was_made() {
    let app = insecure_app(&[]);
    let receiver = Receiver::start(Vec::new());
    let (tenant, _, _) = subscribed_tenant(&app, &receiver.url("/hook"));
    publish_project(&app, &tenant);
    let log = deliveries(&app, &tenant, "");
    assert_eq!(log[0]["status"], "pending");
    assert_eq!(log[0]["attempt_count"], 0);
    assert_eq!(log[0]["next_attempt_at"], log[0]["created_at"], "not the UNIX epoch: {}", log[0]);
}
