//! The event log: the contract's envelope, one primary event per mutation, increasing
//! gap-free cursors, `sync_since` paging (at most 500), an append-only table, and the
//! read tools (`get_project` with its roster, `get_work_package`).

mod common;
use common::{actor, World, SYSTEM};
use serde_json::{json, Value};

fn sync(w: &World, cursor: u64, limit: u64) -> Value {
    w.act(&actor("pa"), "sync_since", json!({"project_id": "p", "cursor": cursor, "limit": limit})).ok()
}

#[test]
fn a_workflow_writes_one_primary_event_per_mutation_in_the_contract_envelope() {
    let w = World::new();
    w.project("p");
    w.accepted("p", "WP-1");
    let commit = "0123456789abcdef0123456789abcdef01234567";
    w.act(
        &actor("impl"),
        "link_commit",
        json!({"project_id": "p", "work_package_id": "WP-1", "commit_id": commit}),
    )
    .ok();
    w.act(
        &actor("impl"),
        "link_artifact",
        json!({"project_id": "p", "work_package_id": "WP-1", "uri": "r.md"}),
    )
    .ok();
    w.act(&actor("po"), "record_decision", json!({"project_id": "p", "kind": "PRODUCT", "title": "t"})).ok();
    let e = w
        .act(
            &actor("lead"),
            "raise_escalation",
            json!({"project_id": "p", "target_role": "PM", "subject": "s"}),
        )
        .ok();
    w.act(
        &actor("pm"),
        "resolve_escalation",
        json!({"project_id": "p", "escalation_id": e["escalation_id"], "resolution": "r"}),
    )
    .ok();
    w.act(
        &actor("pm"),
        "baseline_release",
        json!({"project_id": "p", "baseline_id": "v1", "title": "v1", "work_package_ids": ["WP-1"]}),
    )
    .ok();

    let page = sync(&w, 0, 500);
    let events = page["events"].as_array().unwrap();
    let types: Vec<&str> = events.iter().map(|e| e["event_type"].as_str().unwrap()).collect();
    let mut expected = vec!["project.created"];
    expected.extend(["actor.registered"; 7]);
    expected.extend([
        "work_package.issued",
        "work_package.claimed",
        "work_package.result_submitted",
        "review.requested",
        "review.submitted",
        "gate.closed",
        "commit.linked",
        "artifact.linked",
        "decision.recorded",
        "escalation.raised",
        "escalation.resolved",
        "baseline.released",
    ]);
    assert_eq!(types, expected);

    let keys = [
        "cursor",
        "event_id",
        "project_id",
        "event_type",
        "actor_id",
        "actor_role",
        "aggregate_type",
        "aggregate_id",
        "correlation_id",
        "causation_event_id",
        "created_at",
        "payload",
    ];
    for e in events {
        let mut got: Vec<&str> = e.as_object().unwrap().keys().map(String::as_str).collect();
        got.sort();
        let mut want = keys.to_vec();
        want.sort();
        assert_eq!(got, want);
        assert!(e["event_id"].as_str().unwrap().starts_with("evt_"));
        assert_eq!(e["project_id"], "p");
        assert!(e["payload"].is_object());
        let t = e["created_at"].as_str().unwrap();
        assert!(t.len() == 24 && t.ends_with('Z') && &t[10..11] == "T" && &t[19..20] == ".", "{t}");
    }
    let created = &events[0];
    assert_eq!(
        (created["actor_id"].as_str(), created["actor_role"].as_str()),
        (Some("SYSTEM"), Some("SYSTEM"))
    );
    let review = events.iter().find(|e| e["event_type"] == "review.submitted").unwrap();
    assert_eq!(review["actor_role"], "REVIEWER");
    assert_eq!(review["aggregate_type"], "review");
    assert!(review["aggregate_id"].as_str().unwrap().starts_with("rev_"));
    assert_eq!(review["correlation_id"], "WP-1");
    let requested = events.iter().find(|e| e["event_type"] == "review.requested").unwrap();
    assert_eq!(review["causation_event_id"], requested["event_id"]);
    assert_eq!(page["has_more"], false);
    assert_eq!(page["next_cursor"], events.last().unwrap()["cursor"]);
}

#[test]
fn cursors_increase_without_gaps_and_sync_pages_through_them() {
    let w = World::new();
    w.project("p");
    w.project("other");
    for i in 0..5 {
        w.issue("p", &format!("WP-{i}"));
    }
    let all = sync(&w, 0, 500)["events"].as_array().unwrap().clone();
    assert_eq!(all.len(), 8 + 5, "only project p's events");
    let cursors: Vec<i64> = all.iter().map(|e| e["cursor"].as_i64().unwrap()).collect();
    assert!(cursors.windows(2).all(|c| c[0] < c[1]), "{cursors:?}");
    // The log as a whole (both projects) is gap-free.
    let table: Vec<i64> = w.events("p").into_iter().chain(w.events("other")).map(|(c, _)| c).collect();
    let mut sorted = table.clone();
    sorted.sort();
    assert_eq!(sorted, (1..=table.len() as i64).collect::<Vec<_>>());

    let mut seen = Vec::new();
    let mut cursor = 0;
    loop {
        let page = sync(&w, cursor, 4);
        let events = page["events"].as_array().unwrap();
        assert!(events.len() <= 4);
        seen.extend(events.iter().cloned());
        cursor = page["next_cursor"].as_u64().unwrap();
        if page["has_more"] == false {
            break;
        }
    }
    assert_eq!(seen, all);
    let tail = sync(&w, cursor, 10);
    assert_eq!((tail["events"].as_array().unwrap().len(), tail["next_cursor"].as_u64()), (0, Some(cursor)));
}

#[test]
fn sync_since_returns_at_most_500_events() {
    let w = World::new();
    w.project("p");
    for limit in [0, 501, 100000] {
        w.act(&actor("pa"), "sync_since", json!({"project_id": "p", "limit": limit})).err("invalid_argument");
    }
    w.act(&actor("pa"), "sync_since", json!({"project_id": "p", "cursor": -1})).err("invalid_argument");
    for i in 0..520 {
        w.act(
            &actor("lead"),
            "raise_escalation",
            json!({"project_id": "p", "target_role": "PM", "subject": format!("s{i}")}),
        )
        .ok();
    }
    let page = sync(&w, 0, 500);
    assert_eq!(page["events"].as_array().unwrap().len(), 500);
    assert_eq!(page["has_more"], true);
    let default = w.act(&actor("pa"), "sync_since", json!({"project_id": "p"})).ok();
    assert_eq!(default["events"].as_array().unwrap().len(), 100, "the default page");
}

#[test]
fn the_event_table_is_append_only() {
    let w = World::new();
    w.project("p");
    let conn = w.store.lock();
    let update = conn.execute("UPDATE events SET event_type = 'x'", []);
    let delete = conn.execute("DELETE FROM events", []);
    assert!(update.unwrap_err().to_string().contains("append-only"));
    assert!(delete.unwrap_err().to_string().contains("append-only"));
}

#[test]
fn get_project_lists_the_roster_and_get_work_package_the_history() {
    let w = World::new();
    w.project("p");
    w.act(
        &SYSTEM,
        "register_actor",
        json!({"project_id": "p", "actor_id": "zed", "role": "ARCHITECT", "display_name": "Zed"}),
    )
    .ok();
    let project = w.act(&actor("rev"), "get_project", json!({"project_id": "p"})).ok();
    let roster: Vec<(String, String)> = project["roster"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["actor_id"].as_str().unwrap().into(), m["role"].as_str().unwrap().into()))
        .collect();
    assert_eq!(roster.len(), 8);
    assert!(roster.contains(&("zed".into(), "ARCHITECT".into())));
    assert!(roster.contains(&("po".into(), "PO".into())));
    w.accepted("p", "WP-1");
    w.act(
        &actor("impl"),
        "link_artifact",
        json!({"project_id": "p", "work_package_id": "WP-1", "uri": "r.md"}),
    )
    .ok();
    let wp =
        w.act(&actor("pa"), "get_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})).ok();
    assert_eq!((wp["state"].as_str(), wp["claimed_by"].as_str()), (Some("ACCEPTED"), Some("impl")));
    for (part, n) in [("results", 1), ("reviews", 1), ("links", 1), ("gates", 1), ("decisions", 0)] {
        assert_eq!(wp[part].as_array().unwrap().len(), n, "{part}");
    }
    assert_eq!(wp["reviews"][0]["verdict"], "APPROVED");
    w.act(&actor("pa"), "get_work_package", json!({"project_id": "p", "work_package_id": "WP-2"}))
        .err("not_found");
}
