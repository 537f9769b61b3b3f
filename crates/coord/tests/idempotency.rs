//! Idempotency and concurrency: a replay answers the original response byte for byte and
//! writes nothing; other input under a used key is a `conflict`; racing clients produce
//! exactly one event. Assertions read the event table, not just the responses.

mod common;
use common::{actor, parse, World, SYSTEM};
use docforge_coord::store::Store;
use docforge_coord::tools;
use serde_json::json;
use std::sync::Barrier;

#[test]
fn a_retry_with_the_same_key_and_arguments_replays_the_original_response_byte_for_byte() {
    let w = World::new();
    w.project("p");
    let args =
        json!({"project_id": "p", "work_package_id": "WP-1", "title": "t", "idempotency_key": "issue-1"});
    let first = w.call(&actor("pm"), "issue_work_package", args.clone());
    let events = w.event_count();
    let second = w.call(&actor("pm"), "issue_work_package", args.clone());
    assert_eq!(first.raw, second.raw);
    assert_eq!(w.event_count(), events, "a replay writes no event");
    // Key order, whitespace and explicit nulls for absent optionals do not change the input.
    let reordered = json!({"idempotency_key": "issue-1", "description": null, "title": "t",
                           "work_package_id": "WP-1", "project_id": "p"});
    assert_eq!(w.call(&actor("pm"), "issue_work_package", reordered).raw, first.raw);
    // The record outlives the process: a new store over the same file replays it too.
    let reopened = Store::open(&w.db).unwrap();
    let raw = tools::call(&reopened, &actor("pm"), "issue_work_package", args).unwrap();
    assert_eq!(raw, first.raw);
    assert_eq!(w.count("p", "work_package.issued"), 1);
}

#[test]
fn reusing_a_key_with_other_input_is_a_conflict_and_writes_nothing() {
    let w = World::new();
    w.project("p");
    let args = json!({"project_id": "p", "work_package_id": "WP-1", "title": "t", "idempotency_key": "k"});
    w.call(&actor("pm"), "issue_work_package", args).ok();
    let other_args =
        json!({"project_id": "p", "work_package_id": "WP-2", "title": "t", "idempotency_key": "k"});
    let m = w.refuse(&actor("pm"), "issue_work_package", other_args, "conflict");
    assert!(m.contains("idempotency_key"), "{m}");
    let other_tool = json!({"project_id": "p", "target_role": "PO", "subject": "s", "idempotency_key": "k"});
    w.refuse(&actor("pm"), "raise_escalation", other_tool, "conflict");
    assert_eq!(w.count("p", "work_package.issued"), 1);
}

#[test]
fn keys_belong_to_their_principal() {
    let w = World::new();
    w.project("p");
    for who in ["po", "pm"] {
        let wp = format!("WP-{who}");
        let args = json!({"project_id": "p", "work_package_id": wp, "title": "t", "idempotency_key": "same"});
        w.call(&actor(who), "issue_work_package", args).ok();
    }
    assert_eq!(w.count("p", "work_package.issued"), 2);
}

#[test]
fn a_refused_mutation_does_not_use_up_its_key() {
    let w = World::new();
    w.project("p");
    w.issue("p", "WP-1");
    let args =
        json!({"project_id": "p", "work_package_id": "WP-1", "summary": "s", "idempotency_key": "submit"});
    w.call(&actor("impl"), "submit_result", args.clone()).err("forbidden"); // not claimed yet
    w.act(&actor("impl"), "claim_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})).ok();
    let done = w.call(&actor("impl"), "submit_result", args.clone()).ok();
    assert_eq!(done["state"], "SUBMITTED");
    assert_eq!(w.call(&actor("impl"), "submit_result", args).ok(), done);
}

#[test]
fn thirty_two_clients_racing_to_claim_one_open_work_package_one_wins_one_event() {
    let w = World::new();
    w.project("p");
    let builders: Vec<String> = (0..32).map(|i| format!("builder-{i}")).collect();
    for b in &builders {
        w.act(&SYSTEM, "register_actor", json!({"project_id": "p", "actor_id": b, "role": "IMPLEMENTER"}))
            .ok();
    }
    w.issue("p", "WP-1");
    let barrier = Barrier::new(builders.len());
    let outcomes: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = builders
            .iter()
            .map(|b| {
                let (db, barrier) = (&w.db, &barrier);
                s.spawn(move || {
                    // Each client has its own connection: atomicity is SQLite's, not a mutex's.
                    let store = Store::open(db).unwrap();
                    barrier.wait();
                    let args = json!({"project_id": "p", "work_package_id": "WP-1", "idempotency_key": format!("claim-{b}")});
                    parse(tools::call(&store, &actor(b), "claim_work_package", args).unwrap())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let winners: Vec<_> = outcomes.iter().filter(|o| !o.is_error).collect();
    assert_eq!(winners.len(), 1, "exactly one claim succeeds");
    assert!(outcomes.iter().filter(|o| o.is_error).all(|o| o.code() == Some("conflict")));
    assert_eq!(w.count("p", "work_package.claimed"), 1, "exactly one claim event");
    let wp =
        w.act(&actor("po"), "get_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})).ok();
    assert_eq!(wp["claimed_by"], winners[0].value["claimed_by"]);
}

#[test]
fn thirty_two_racing_retries_of_one_key_write_one_event_and_answer_identically() {
    let w = World::new();
    w.project("p");
    let args = json!({"project_id": "p", "work_package_id": "WP-1", "title": "t", "idempotency_key": "once"});
    let barrier = Barrier::new(32);
    let raws: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..32)
            .map(|_| {
                let (db, barrier, args) = (&w.db, &barrier, args.clone());
                s.spawn(move || {
                    let store = Store::open(db).unwrap();
                    barrier.wait();
                    tools::call(&store, &actor("pm"), "issue_work_package", args).unwrap()
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(!parse(raws[0].clone()).is_error, "{}", raws[0]);
    assert!(raws.iter().all(|r| r == &raws[0]), "every retry answers the same bytes");
    assert_eq!(w.count("p", "work_package.issued"), 1, "exactly one event");
    assert_eq!(w.idempotency_records() as usize, 1 + 8, "the project's 8 setup keys and this one");
}
