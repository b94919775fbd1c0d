//! `make bench`: load on the real components through the Spin-compatible host.
//! Prints requests per second and latency percentiles per scenario. Bounded in
//! requests and time; traffic goes to 127.0.0.1 only.

use e2e::{Authenticated, TestApp};
use reqwest::blocking::Client;
use serde_json::json;
use std::time::{Duration, Instant};

const THREADS: usize = 8;
const REQUESTS_PER_THREAD: usize = 200;

fn run(name: &str, call: impl Fn(&Client, usize) -> u16 + Sync) {
    let started = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..THREADS)
            .map(|thread| {
                let call = &call;
                scope.spawn(move || {
                    let client = Client::new();
                    (0..REQUESTS_PER_THREAD)
                        .map(|i| {
                            let start = Instant::now();
                            let status = call(&client, thread * REQUESTS_PER_THREAD + i);
                            assert!(status < 500, "{name}: status {status}");
                            start.elapsed()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let elapsed = started.elapsed();
    latencies.sort();
    let percentile = |p: f64| latencies[((latencies.len() as f64 * p) as usize).min(latencies.len() - 1)];
    println!(
        "{name:<28} {:>8.0} req/s   p50 {:>6.1} ms   p99 {:>6.1} ms   ({} requests, {THREADS} clients)",
        latencies.len() as f64 / elapsed.as_secs_f64(),
        percentile(0.50).as_secs_f64() * 1000.0,
        percentile(0.99).as_secs_f64() * 1000.0,
        latencies.len(),
    );
}

fn main() {
    let app = TestApp::start(&[]);
    let tenant = app.create_tenant();
    println!("benchmarks against {}", app.host.base_url());

    run("GET unknown route (404)", |client, _| {
        client.get(app.url("/v1/nothing")).send().unwrap().status().as_u16()
    });
    run("GET event-types (auth)", |client, _| {
        client.get(app.url("/v1/webhooks/event-types")).auth(&tenant).send().unwrap().status().as_u16()
    });
    let run_id = uuid::Uuid::new_v4().simple().to_string();
    run("POST tenants (write)", |client, i| {
        client
            .post(app.url("/v1/tenants"))
            .header("X-Api-Key", &app.partner_key)
            .header("X-Tenant-Id", e2e::PARTNER_TENANT_ID)
            .json(&json!({"organization_name": format!("Bench {run_id} {i}"), "contact_email": "b@bench.example"}))
            .send()
            .unwrap()
            .status()
            .as_u16()
    });
}
