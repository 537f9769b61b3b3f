//! Crash safety: the real server is killed with SIGKILL in the middle of a burst of mutations
//! from several clients. After a restart on the same database, every acknowledged mutation is
//! there exactly once (and replays its acknowledged response), no event lacks its state change
//! or the reverse, and the cursors are gap-free.

mod coord_server;
use coord_server::{project_with_pm, token, Server};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

const CLIENTS: usize = 4;
/// The server is killed once this many mutations have been acknowledged (not after a time).
const KILL_AFTER: usize = 120;

#[test]
fn sigkill_during_a_burst_loses_no_acknowledged_mutation_and_leaves_no_partial_event() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("coord.db");
    let system = token(&db, &["system"]);
    let mut server = Server::start(&db, &[]);
    let pm = project_with_pm(&server, &system);

    let acked: Mutex<Vec<(String, String)>> = Mutex::new(Vec::new()); // (work package, result bytes)
    let stop = AtomicBool::new(false);
    let url = server.url.clone();
    std::thread::scope(|s| {
        for client in 0..CLIENTS {
            let (url, pm, acked, stop) = (&url, &pm, &acked, &stop);
            s.spawn(move || {
                for i in 0.. {
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let wp = format!("WP-{client}-{i}");
                    let body = issue_body(&wp);
                    let auth = format!("Bearer {pm}");
                    let sent = Server::agent()
                        .post(url)
                        .header("Content-Type", "application/json")
                        .header("Authorization", &auth)
                        .send(body.as_bytes());
                    match sent {
                        Ok(response) => {
                            let reply = coord_server::reply(response);
                            if reply.status != 200 {
                                break;
                            }
                            let result = reply.json()["result"].clone();
                            assert_eq!(result["isError"], false, "{result}");
                            acked.lock().unwrap().push((wp, result.to_string()));
                        }
                        Err(_) => break, // the server is gone
                    }
                }
            });
        }
        loop {
            let n = acked.lock().unwrap().len();
            if n >= KILL_AFTER {
                server.kill();
                stop.store(true, Ordering::SeqCst);
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2)); // polling, not a timed assertion
        }
    });

    let server = Server::start(&db, &[]);
    let acked = acked.into_inner().unwrap();
    assert!(acked.len() >= KILL_AFTER);

    // Every acknowledged mutation is present, and a retry replays its acknowledged response.
    for (wp, result) in &acked {
        let state = server.ok(&pm, "get_work_package", json!({"project_id": "p", "work_package_id": wp}));
        assert_eq!(state["state"], "OPEN", "{wp}");
        let replay = server.call(
            &pm,
            "issue_work_package",
            serde_json::from_str::<Value>(&issue_body(wp)).unwrap()["params"]["arguments"].clone(),
        );
        assert_eq!(&replay.to_string(), result, "{wp}: the retry replays the acknowledged response");
    }

    // The log: gap-free cursors from 1, and each issued event has its work package (and back).
    let mut events = Vec::new();
    let mut cursor = 0;
    loop {
        let page = server.ok(&pm, "sync_since", json!({"project_id": "p", "cursor": cursor, "limit": 500}));
        events.extend(page["events"].as_array().unwrap().iter().cloned());
        cursor = page["next_cursor"].as_u64().unwrap();
        if page["has_more"] == false {
            break;
        }
    }
    let cursors: Vec<u64> = events.iter().map(|e| e["cursor"].as_u64().unwrap()).collect();
    assert_eq!(cursors, (1..=events.len() as u64).collect::<Vec<_>>(), "gap-free cursors");
    let issued: Vec<&str> = events
        .iter()
        .filter(|e| e["event_type"] == "work_package.issued")
        .map(|e| e["aggregate_id"].as_str().unwrap())
        .collect();
    let mut unique = issued.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), issued.len(), "each work package issued once");
    assert!(
        issued.len() >= acked.len() && issued.len() <= acked.len() + CLIENTS,
        "acknowledged, plus at most one in flight per client"
    );
    for wp in &issued {
        server.ok(&pm, "get_work_package", json!({"project_id": "p", "work_package_id": wp}));
    }
    // A work package without its event would be a partial write: probe the next unacknowledged ones.
    for client in 0..CLIENTS {
        let next =
            (0..).map(|i| format!("WP-{client}-{i}")).find(|wp| !issued.contains(&wp.as_str())).unwrap();
        let missing =
            server.call(&pm, "get_work_package", json!({"project_id": "p", "work_package_id": next}));
        assert_eq!(missing["structuredContent"]["error"]["code"], "not_found", "{next}");
    }
}

fn issue_body(wp: &str) -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "issue_work_package",
           "arguments": {"project_id": "p", "work_package_id": wp, "title": "burst", "idempotency_key": format!("issue-{wp}")}}})
    .to_string()
}
