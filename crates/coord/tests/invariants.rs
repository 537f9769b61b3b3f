//! Every invariant of the coordination contract and every error path, each refusal shown to
//! write nothing (no event, no idempotency record).

mod common;
use common::{actor, World, SYSTEM};
use serde_json::{json, Value};

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

#[test]
fn a_pm_cannot_appoint_a_po_but_a_po_and_system_can() {
    let w = World::new();
    w.project("p");
    let args = |a: &str| json!({"project_id": "p", "actor_id": a, "role": "PO"});
    let message = w.refuse(&actor("pm"), "register_actor", args("po2"), "forbidden");
    assert!(message.contains("PM cannot appoint a PO"), "{message}");
    w.act(&actor("po"), "register_actor", args("po2")).ok();
    w.act(&SYSTEM, "register_actor", args("po3")).ok();
    w.act(&actor("pm"), "register_actor", json!({"project_id": "p", "actor_id": "pm2", "role": "PM"})).ok();
}

#[test]
fn one_membership_per_actor_and_project_and_system_is_reserved() {
    let w = World::new();
    w.project("p");
    for (project, actor_id, role, code) in [
        ("p", "impl", "PM", "conflict"),
        ("p", "SYSTEM", "PM", "invalid_argument"),
        ("nope", "x", "PM", "not_found"),
        ("p", "x", "KING", "invalid_argument"),
    ] {
        let args = json!({"project_id": project, "actor_id": actor_id, "role": role});
        w.refuse(&SYSTEM, "register_actor", args, code);
    }
}

#[test]
fn projects_are_unique_and_project_scoped_calls_need_an_existing_project() {
    let w = World::new();
    w.project("p");
    w.refuse(&SYSTEM, "create_project", json!({"project_id": "p", "name": "again"}), "conflict");
    w.refuse(
        &actor("pm"),
        "issue_work_package",
        json!({"project_id": "q", "work_package_id": "W", "title": "t"}),
        "not_found",
    );
    w.act(&actor("pm"), "get_project", json!({"project_id": "q"})).err("not_found");
}

#[test]
fn only_an_open_work_package_can_be_claimed_and_only_once() {
    let w = World::new();
    w.project("p");
    w.issue("p", "WP-1");
    w.refuse(
        &actor("pm"),
        "issue_work_package",
        json!({"project_id": "p", "work_package_id": "WP-1", "title": "t"}),
        "conflict",
    );
    w.act(&actor("impl"), "claim_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})).ok();
    let message = w.refuse(
        &actor("arch"),
        "claim_work_package",
        json!({"project_id": "p", "work_package_id": "WP-1"}),
        "conflict",
    );
    assert!(message.contains("CLAIMED by impl"), "{message}");
    w.refuse(
        &actor("arch"),
        "claim_work_package",
        json!({"project_id": "p", "work_package_id": "WP-9"}),
        "not_found",
    );
    assert_eq!(w.count("p", "work_package.claimed"), 1);
}

#[test]
fn only_the_claimant_submits_and_only_while_claimed() {
    let w = World::new();
    w.project("p");
    w.issue("p", "WP-1");
    let submit = json!({"project_id": "p", "work_package_id": "WP-1", "summary": "s"});
    w.refuse(&actor("impl"), "submit_result", submit.clone(), "forbidden"); // nobody claimed it
    w.act(&actor("impl"), "claim_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})).ok();
    w.refuse(&actor("lead"), "submit_result", submit.clone(), "forbidden");
    w.refuse(&actor("pm"), "submit_result", submit.clone(), "forbidden");
    let v = w.act(&actor("impl"), "submit_result", submit.clone()).ok();
    assert_eq!((v["state"].as_str(), v["revision"].as_i64()), (Some("SUBMITTED"), Some(1)));
    w.refuse(&actor("impl"), "submit_result", submit, "invalid_state");
}

#[test]
fn reviewers_are_independent_members_and_reviews_need_a_submitted_result() {
    let w = World::new();
    w.project("p");
    w.issue("p", "WP-1");
    let req = |reviewer: &str| json!({"project_id": "p", "work_package_id": "WP-1", "reviewer_id": reviewer});
    w.refuse(&actor("pm"), "request_review", req("rev"), "invalid_state"); // OPEN
    w.claim_and_submit("p", "WP-1", "impl");
    let m = w.refuse(&actor("pm"), "request_review", req("impl"), "forbidden");
    assert!(m.contains("not independent"), "{m}");
    w.refuse(&actor("pm"), "request_review", req("pm"), "forbidden");
    w.refuse(&actor("pm"), "request_review", req("nobody"), "invalid_argument");
    w.act(&actor("pm"), "request_review", req("rev")).ok();
    w.refuse(&actor("po"), "request_review", req("rev"), "conflict"); // already pending
}

#[test]
fn only_the_assigned_reviewer_submits_once_and_changes_send_the_work_back() {
    let w = World::new();
    w.project("p");
    w.submitted("p", "WP-1", "impl");
    let review = w.review("p", "WP-1", "pm", "rev");
    let other = w.review("p", "WP-1", "pm", "arch");
    let verdict = |v: &str| json!({"project_id": "p", "review_id": review, "verdict": v});
    w.refuse(&actor("arch"), "submit_review", verdict("APPROVED"), "forbidden");
    w.refuse(&actor("rev"), "submit_review", verdict("MAYBE"), "invalid_argument");
    w.refuse(
        &actor("rev"),
        "submit_review",
        json!({"project_id": "p", "review_id": "rev_x", "verdict": "APPROVED"}),
        "not_found",
    );
    let v = w.act(&actor("rev"), "submit_review", verdict("CHANGES_REQUESTED")).ok();
    assert_eq!(v["work_package_state"], "CLAIMED");
    w.refuse(&actor("rev"), "submit_review", verdict("APPROVED"), "invalid_state");
    // The claimant reworks: revision 2. A review still pending for revision 1 is stale.
    w.submitted_again("p", "WP-1");
    assert_eq!(w.review_of_revision("p", "WP-1", 2), 0, "no review of revision 2 yet");
    let stale = json!({"project_id": "p", "review_id": other, "verdict": "APPROVED"});
    let m = w.refuse(&actor("arch"), "submit_review", stale, "invalid_state");
    assert!(m.contains("revision 1"), "{m}");
    let wp =
        w.act(&actor("po"), "get_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})).ok();
    assert_eq!((wp["state"].as_str(), wp["revision"].as_i64()), (Some("SUBMITTED"), Some(2)));
    assert_eq!(wp["results"].as_array().unwrap().len(), 2);
}

#[test]
fn decisions_by_kind_and_role_and_never_by_a_pa() {
    let w = World::new();
    w.project("p");
    for kind in ["PRODUCT", "TECHNICAL", "PROCESS"] {
        let m = w.refuse(
            &actor("pa"),
            "record_decision",
            json!({"project_id": "p", "kind": kind, "title": "t"}),
            "forbidden",
        );
        assert!(m.contains("PA"), "{m}");
    }
    w.refuse(
        &actor("pm"),
        "record_decision",
        json!({"project_id": "p", "kind": "PRODUCT", "title": "t"}),
        "forbidden",
    );
    w.refuse(
        &actor("po"),
        "record_decision",
        json!({"project_id": "p", "kind": "WHIM", "title": "t"}),
        "invalid_argument",
    );
    w.refuse(
        &actor("po"),
        "record_decision",
        json!({"project_id": "p", "kind": "PRODUCT", "title": "t", "work_package_id": "WP-9"}),
        "not_found",
    );
    w.act(&actor("po"), "record_decision", json!({"project_id": "p", "kind": "PRODUCT", "title": "t"})).ok();
    assert_eq!(w.count("p", "decision.recorded"), 1);
}

#[test]
fn accept_needs_an_independent_approval_of_the_current_result() {
    let w = World::new();
    w.project("p");
    let accept = json!({"project_id": "p", "work_package_id": "WP-1", "gate": "ACCEPT"});
    w.issue("p", "WP-1");
    w.refuse(&actor("po"), "close_gate", accept.clone(), "invalid_state"); // OPEN
    w.claim_and_submit("p", "WP-1", "impl");
    let m = w.refuse(&actor("po"), "close_gate", accept.clone(), "invalid_state"); // no review
    assert!(m.contains("independent approval"), "{m}");
    // An approval by the closer itself is not independent.
    let review = w.review("p", "WP-1", "po", "pm");
    w.act(
        &actor("pm"),
        "submit_review",
        json!({"project_id": "p", "review_id": review, "verdict": "APPROVED"}),
    )
    .ok();
    w.refuse(&actor("pm"), "close_gate", accept.clone(), "invalid_state");
    // ... but it is for another closer.
    let v = w.act(&actor("po"), "close_gate", accept.clone()).ok();
    assert_eq!(v["work_package_state"], "ACCEPTED");
    assert_eq!(v["approval_review_id"], json!(review));
    w.refuse(&actor("po"), "close_gate", accept, "invalid_state"); // ACCEPTED already
    w.refuse(
        &actor("po"),
        "close_gate",
        json!({"project_id": "p", "work_package_id": "WP-1", "gate": "REJECT"}),
        "invalid_state",
    );
    // The causation chain: the gate was caused by the approving review.
    let events = w.act(&actor("po"), "sync_since", json!({"project_id": "p", "limit": 500})).ok();
    let events = events["events"].as_array().unwrap();
    let gate = events.iter().find(|e| e["event_type"] == "gate.closed").unwrap();
    let approval = events.iter().rfind(|e| e["event_type"] == "review.submitted").unwrap();
    assert_eq!(gate["causation_event_id"], approval["event_id"]);
    assert_eq!(gate["correlation_id"], "WP-1");
}

#[test]
fn an_approval_of_an_earlier_revision_does_not_accept_a_later_one() {
    let w = World::new();
    w.project("p");
    w.approved("p", "WP-1", "impl", "rev");
    // Another reviewer asks for changes; the claimant resubmits revision 2.
    let second = w.review("p", "WP-1", "pm", "arch");
    w.act(
        &actor("arch"),
        "submit_review",
        json!({"project_id": "p", "review_id": second, "verdict": "CHANGES_REQUESTED"}),
    )
    .ok();
    w.submitted_again("p", "WP-1");
    w.refuse(
        &actor("po"),
        "close_gate",
        json!({"project_id": "p", "work_package_id": "WP-1", "gate": "ACCEPT"}),
        "invalid_state",
    );
    let reject = w
        .act(
            &actor("po"),
            "close_gate",
            json!({"project_id": "p", "work_package_id": "WP-1", "gate": "REJECT"}),
        )
        .ok();
    assert_eq!(reject["work_package_state"], "REJECTED");
}

#[test]
fn baselines_include_accepted_work_packages_only() {
    let w = World::new();
    w.project("p");
    w.accepted("p", "WP-1");
    w.submitted("p", "WP-2", "impl");
    let baseline =
        |ids: Value| json!({"project_id": "p", "baseline_id": "v1", "title": "v1", "work_package_ids": ids});
    let m = w.refuse(&actor("po"), "baseline_release", baseline(json!(["WP-1", "WP-2"])), "invalid_state");
    assert!(m.contains("WP-2 (SUBMITTED)"), "{m}");
    w.refuse(&actor("po"), "baseline_release", baseline(json!(["WP-1", "WP-9"])), "not_found");
    w.refuse(&actor("po"), "baseline_release", baseline(json!([])), "invalid_argument");
    w.refuse(&actor("po"), "baseline_release", baseline(json!(["WP-1", "WP-1"])), "invalid_argument");
    let m = w.refuse(&actor("po"), "baseline_release", baseline(json!(["WP-1", "a b"])), "invalid_argument");
    assert!(m.contains("work_package_ids[1]: invalid ID \"a b\""), "the message names the field: {m}");
    let v = w.act(&actor("po"), "baseline_release", baseline(json!(["WP-1"]))).ok();
    assert_eq!(v["work_packages"], json!([{"work_package_id": "WP-1", "revision": 1}]));
    w.refuse(&actor("pm"), "baseline_release", baseline(json!(["WP-1"])), "conflict");
}

#[test]
fn commit_ids_are_full_hexadecimal_object_ids() {
    let w = World::new();
    w.project("p");
    w.issue("p", "WP-1");
    let link = |c: &str| json!({"project_id": "p", "work_package_id": "WP-1", "commit_id": c});
    for bad in
        ["abc123", &COMMIT[..39], &format!("{COMMIT}0"), &COMMIT.replace('a', "g"), "", &"a".repeat(63)]
    {
        w.refuse(&actor("impl"), "link_commit", link(bad), "invalid_argument");
    }
    let v = w.act(&actor("impl"), "link_commit", link(&COMMIT.to_uppercase())).ok();
    assert_eq!(v["target"], COMMIT, "kept in lower case");
    w.act(&actor("pa"), "link_commit", link(&"f".repeat(64))).ok();
    w.refuse(
        &actor("impl"),
        "link_commit",
        json!({"project_id": "p", "work_package_id": "WP-9", "commit_id": COMMIT}),
        "not_found",
    );
    let art = json!({"project_id": "p", "work_package_id": "WP-1", "uri": "r.txt", "sha256": "xyz"});
    w.refuse(&actor("impl"), "link_artifact", art, "invalid_argument");
}

#[test]
fn ids_use_letters_digits_and_dot_underscore_colon_slash_dash_up_to_128() {
    let w = World::new();
    for bad in ["a b", "a#b", "ü", "", &"x".repeat(129), "a\nb"] {
        w.refuse(&SYSTEM, "create_project", json!({"project_id": bad, "name": "n"}), "invalid_argument");
        w.refuse(
            &SYSTEM,
            "create_project",
            json!({"project_id": "ok", "name": "n", "idempotency_key": bad}),
            "invalid_argument",
        );
    }
    for good in ["a.b_c:d/e-F9", &"x".repeat(128)] {
        w.act(&SYSTEM, "create_project", json!({"project_id": good, "name": "n"})).ok();
    }
}

#[test]
fn malformed_arguments_are_invalid_argument_tool_errors() {
    let w = World::new();
    w.project("p");
    let who = actor("pm");
    // (`call`, unlike `act`/`refuse`, adds no key.)
    let no_key = json!({"project_id": "p", "work_package_id": "W", "title": "t"});
    let m = w.call(&who, "issue_work_package", no_key).err("invalid_argument");
    assert!(m.contains("idempotency_key"), "{m}");
    w.refuse(
        &who,
        "issue_work_package",
        json!({"project_id": "p", "work_package_id": "W", "title": "t", "colour": "red"}),
        "invalid_argument",
    );
    w.refuse(
        &who,
        "issue_work_package",
        json!({"project_id": "p", "work_package_id": "W", "title": 7}),
        "invalid_argument",
    );
    w.refuse(
        &who,
        "issue_work_package",
        json!({"project_id": "p", "work_package_id": "W", "title": "  "}),
        "invalid_argument",
    );
    w.refuse(
        &who,
        "issue_work_package",
        json!({"project_id": "p", "work_package_id": "W", "title": "t".repeat(201)}),
        "invalid_argument",
    );
    w.call(&who, "get_project", json!(["p"])).err("invalid_argument");
}

#[test]
fn escalations_are_resolved_once_by_the_role_they_address() {
    let w = World::new();
    w.project("p");
    let raise = |target: &str| {
        w.act(
            &actor("impl"),
            "raise_escalation",
            json!({"project_id": "p", "target_role": target, "subject": "s"}),
        )
        .ok()["escalation_id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (to_po, to_pm) = (raise("PO"), raise("PM"));
    w.refuse(
        &actor("impl"),
        "raise_escalation",
        json!({"project_id": "p", "target_role": "ARCHITECT", "subject": "s"}),
        "invalid_argument",
    );
    let resolve = |id: &str| json!({"project_id": "p", "escalation_id": id, "resolution": "r"});
    w.refuse(&actor("pm"), "resolve_escalation", resolve(&to_po), "forbidden");
    w.refuse(&actor("pm"), "resolve_escalation", resolve("esc_none"), "not_found");
    w.act(&actor("pm"), "resolve_escalation", resolve(&to_pm)).ok();
    w.refuse(&actor("po"), "resolve_escalation", resolve(&to_pm), "invalid_state");
    w.act(&actor("po"), "resolve_escalation", resolve(&to_po)).ok();
    assert_eq!(w.count("p", "escalation.resolved"), 2);
}

#[test]
fn pending_actions_are_filtered_by_actor_and_role() {
    let w = World::new();
    w.project("p");
    w.submitted("p", "WP-1", "impl");
    let review = w.review("p", "WP-1", "pm", "rev");
    w.review("p", "WP-1", "pm", "arch");
    for target in ["PO", "PM", "PM"] {
        w.act(
            &actor("lead"),
            "raise_escalation",
            json!({"project_id": "p", "target_role": target, "subject": "s"}),
        )
        .ok();
    }
    let pending = |who: &str| w.act(&actor(who), "list_pending_actions", json!({"project_id": "p"})).ok();
    let counts =
        |v: &Value| (v["reviews"].as_array().unwrap().len(), v["escalations"].as_array().unwrap().len());
    assert_eq!(counts(&pending("rev")), (1, 0));
    assert_eq!(pending("rev")["reviews"][0]["review_id"], json!(review));
    assert_eq!(counts(&pending("arch")), (1, 0));
    assert_eq!(counts(&pending("po")), (0, 1));
    assert_eq!(counts(&pending("pm")), (0, 2));
    assert_eq!(counts(&pending("impl")), (0, 0));
    assert_eq!(counts(&pending("pa")), (0, 0));
    // Once the work goes back to its claimant, the other pending review is no longer actionable.
    w.act(
        &actor("rev"),
        "submit_review",
        json!({"project_id": "p", "review_id": review, "verdict": "CHANGES_REQUESTED"}),
    )
    .ok();
    assert_eq!(counts(&pending("rev")), (0, 0));
    assert_eq!(counts(&pending("arch")), (0, 0));
}

trait Rework {
    fn submitted_again(&self, p: &str, wp: &str);
    fn review_of_revision(&self, p: &str, wp: &str, revision: i64) -> i64;
}
impl Rework for World {
    /// The claimant (impl) submits the next revision.
    fn submitted_again(&self, p: &str, wp: &str) {
        self.act(
            &actor("impl"),
            "submit_result",
            json!({"project_id": p, "work_package_id": wp, "summary": "again"}),
        )
        .ok();
    }
    fn review_of_revision(&self, p: &str, wp: &str, revision: i64) -> i64 {
        self.store
            .lock()
            .query_row(
                "SELECT count(*) FROM reviews WHERE project_id = ?1 AND work_package_id = ?2 AND revision = ?3",
                rusqlite::params![p, wp, revision],
                |r| r.get(0),
            )
            .unwrap()
    }
}
