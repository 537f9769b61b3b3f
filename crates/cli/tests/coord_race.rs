//! Races through the whole stack (HTTP, axum, the store) against the real server: 32 clients
//! claiming one OPEN work package, and 32 concurrent retries of one mutation.

mod coord_server;
use coord_server::{project_with_pm, token, Server};
use serde_json::{json, Value};
use std::sync::Barrier;

const CLIENTS: usize = 32;

fn events_of_type(server: &Server, token: &str, event_type: &str) -> usize {
    let page = server.ok(token, "sync_since", json!({"project_id": "p", "limit": 500}));
    page["events"].as_array().unwrap().iter().filter(|e| e["event_type"] == event_type).count()
}

/// Runs `call(i)` on CLIENTS threads released together; returns the results in order.
fn race(call: impl Fn(usize) -> Value + Sync) -> Vec<Value> {
    let barrier = Barrier::new(CLIENTS);
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..CLIENTS)
            .map(|i| {
                let (barrier, call) = (&barrier, &call);
                s.spawn(move || {
                    barrier.wait();
                    call(i)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn thirty_two_clients_claim_one_open_work_package_over_http_and_one_wins() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("coord.db");
    let system = token(&db, &["system"]);
    let server = Server::start(&db, &[]);
    let pm = project_with_pm(&server, &system);
    let mut tokens = Vec::new();
    for i in 0..CLIENTS {
        let actor = format!("builder-{i}");
        let args = json!({"project_id": "p", "actor_id": actor, "role": "IMPLEMENTER", "idempotency_key": format!("r-{i}")});
        server.ok(&system, "register_actor", args);
        tokens.push(token(&db, &["create", "--actor", &actor]));
    }
    server.ok(
        &pm,
        "issue_work_package",
        json!({"project_id": "p", "work_package_id": "WP-1", "title": "t", "idempotency_key": "i"}),
    );
    let results = race(|i| {
        let args = json!({"project_id": "p", "work_package_id": "WP-1", "idempotency_key": "claim"});
        server.call(&tokens[i], "claim_work_package", args)
    });
    let winners: Vec<&Value> = results.iter().filter(|r| r["isError"] == false).collect();
    assert_eq!(winners.len(), 1, "exactly one claim succeeds");
    for loser in results.iter().filter(|r| r["isError"] == true) {
        assert_eq!(loser["structuredContent"]["error"]["code"], "conflict");
    }
    assert_eq!(events_of_type(&server, &pm, "work_package.claimed"), 1, "exactly one claim event");
}

#[test]
fn thirty_two_concurrent_retries_of_one_key_answer_the_same_bytes_and_write_one_event() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("coord.db");
    let system = token(&db, &["system"]);
    let server = Server::start(&db, &[]);
    let pm = project_with_pm(&server, &system);
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"name": "issue_work_package",
                      "arguments": {"project_id": "p", "work_package_id": "WP-1", "title": "t", "idempotency_key": "once"}}})
    .to_string();
    let auth = format!("Bearer {pm}");
    let bodies = race(|_| Value::String(server.post(&[("Authorization", &auth)], &body).body));
    assert!(bodies.iter().all(|b| b == &bodies[0]), "identical responses");
    let first: Value = serde_json::from_str(bodies[0].as_str().unwrap()).unwrap();
    assert_eq!(first["result"]["isError"], false, "{first}");
    assert_eq!(events_of_type(&server, &pm, "work_package.issued"), 1, "exactly one event");
}
