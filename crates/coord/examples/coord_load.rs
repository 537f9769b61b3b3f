//! A bounded load run on loopback: the real `docforge coord serve` on a fresh database, N
//! clients each sending M `issue_work_package` mutations (unique idempotency keys) over plain
//! HTTP, one request at a time per client. Prints mutations/s and p50/p99/max latency, then
//! checks that the log holds exactly one event per acknowledged mutation.
//!
//!   cargo build --release -p docforge-cli --bin docforge -p docforge-coord --example coord_load
//!   target/release/examples/coord_load target/release/docforge [CLIENTS] [PER_CLIENT]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn main() {
    let mut args = std::env::args().skip(1);
    let bin = args.next().expect("usage: coord_load DOCFORGE_BIN [CLIENTS] [PER_CLIENT]");
    let clients: usize = args.next().map_or(8, |a| a.parse().expect("CLIENTS"));
    let per_client: usize = args.next().map_or(250, |a| a.parse().expect("PER_CLIENT"));
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("coord.db");
    let token = |args: &[&str]| {
        let out =
            Command::new(&bin).args(["coord", "token"]).args(args).arg("--db").arg(&db).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let system = token(&["system"]);
    let pm = token(&["create", "--actor", "pm"]);
    let mut server = Command::new(&bin)
        .args(["coord", "serve", "--listen", "127.0.0.1:0", "--db"])
        .arg(&db)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().strip_prefix("listening ").expect("the listening line").to_string();

    call(
        &url,
        &system,
        "create_project",
        json!({"project_id": "load", "name": "load", "idempotency_key": "p"}),
    );
    let member = json!({"project_id": "load", "actor_id": "pm", "role": "PM", "idempotency_key": "pm"});
    call(&url, &system, "register_actor", member);

    let started = Instant::now();
    let mut latencies: Vec<Duration> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|c| {
                let (url, pm) = (&url, &pm);
                s.spawn(move || {
                    (0..per_client)
                        .map(|i| {
                            let wp = format!("WP-{c}-{i}");
                            let args = json!({"project_id": "load", "work_package_id": wp, "title": "load",
                                              "idempotency_key": format!("k-{wp}")});
                            let t = Instant::now();
                            call(url, pm, "issue_work_package", args);
                            t.elapsed()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let wall = started.elapsed();
    latencies.sort();
    let pct =
        |p: f64| latencies[((latencies.len() as f64 * p).ceil() as usize).clamp(1, latencies.len()) - 1];
    let n = latencies.len();
    let log = call(&url, &pm, "sync_since", json!({"project_id": "load", "limit": 1}));
    let _ = server.kill();
    let _ = server.wait();
    assert_eq!(log["events"][0]["event_type"], "project.created");
    println!(
        "{n} mutations, {clients} clients: {:.0} mutations/s; latency p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        n as f64 / wall.as_secs_f64(),
        pct(0.50).as_secs_f64() * 1e3,
        pct(0.99).as_secs_f64() * 1e3,
        latencies[n - 1].as_secs_f64() * 1e3,
    );
    let count = count_events(&db);
    assert_eq!(count, n + 2, "one event per mutation (plus project.created, actor.registered)");
}

/// A tools/call that must succeed; its structured content.
fn call(url: &str, token: &str, tool: &str, arguments: Value) -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": arguments}});
    let mut response = ureq::post(url)
        .header("Content-Type", "application/json")
        .header("Authorization", &format!("Bearer {token}"))
        .send(body.to_string().as_bytes())
        .expect("an HTTP 200 response");
    let reply: Value = serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap();
    let result = &reply["result"];
    assert_eq!(result["isError"], false, "{reply}");
    result["structuredContent"].clone()
}

fn count_events(db: &std::path::Path) -> usize {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("SELECT count(*) FROM events", [], |r| r.get::<_, i64>(0)).unwrap() as usize
}
