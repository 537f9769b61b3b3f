//! The contract's role table, cell by cell: every tool (and every role-dependent variant of
//! one) called by SYSTEM and by each of the seven roles, in a project prepared so that the call
//! succeeds whenever the caller is allowed. Allowed cells succeed; every other cell is refused
//! with `forbidden` and writes no event.

mod common;
use common::{actor, World, CAST, SYSTEM};
use serde_json::{json, Value};

const ALL: &[&str] = &["PO", "PM", "PA", "ARCHITECT", "LEAD_ENGINEER", "IMPLEMENTER", "REVIEWER"];

/// (row, allowed callers) — written from the contract's table, independently of the server.
const TABLE: &[(&str, &[&str])] = &[
    ("create_project", &["SYSTEM"]),
    ("register_actor", &["SYSTEM", "PO", "PM"]),
    ("issue_work_package", &["PO", "PM"]),
    ("claim_work_package", &["ARCHITECT", "LEAD_ENGINEER", "IMPLEMENTER"]),
    // Only the claimant submits; only these roles can be claimants.
    ("submit_result", &["ARCHITECT", "LEAD_ENGINEER", "IMPLEMENTER"]),
    ("request_review", &["PO", "PM", "PA", "ARCHITECT", "LEAD_ENGINEER", "IMPLEMENTER"]),
    // The assigned reviewer, whatever its role.
    ("submit_review", ALL),
    ("record_decision:PRODUCT", &["PO"]),
    ("record_decision:TECHNICAL", &["PO", "PM"]),
    ("record_decision:PROCESS", &["PO", "PM"]),
    ("raise_escalation", ALL),
    ("resolve_escalation:PM", &["PO", "PM"]),
    ("resolve_escalation:PO", &["PO"]),
    ("link_commit", ALL),
    ("link_artifact", ALL),
    ("close_gate:ACCEPT", &["PO", "PM"]),
    ("close_gate:REJECT", &["PO", "PM"]),
    ("baseline_release", &["PO", "PM"]),
    ("sync_since", ALL),
    ("list_pending_actions", ALL),
    ("get_work_package", ALL),
    ("get_project", ALL),
];

const COMMIT: &str = "0123456789abcdef0123456789abcdef01234567";

/// Prepares project `p` for `row` with `caller` (an actor ID, or `None` for SYSTEM) and
/// returns the call to make.
fn prepare(w: &World, row: &str, p: &str, caller: Option<&str>) -> (String, Value) {
    let wp = "WP-1";
    w.project(p);
    let (tool, variant) = row.split_once(':').unwrap_or((row, ""));
    let args = match tool {
        "create_project" => json!({"project_id": format!("{p}.new"), "name": "new"}),
        "register_actor" => json!({"project_id": p, "actor_id": "newcomer", "role": "IMPLEMENTER"}),
        "issue_work_package" => json!({"project_id": p, "work_package_id": wp, "title": "t"}),
        "claim_work_package" | "link_commit" | "link_artifact" | "get_work_package" => {
            w.issue(p, wp);
            match tool {
                "link_commit" => json!({"project_id": p, "work_package_id": wp, "commit_id": COMMIT}),
                "link_artifact" => json!({"project_id": p, "work_package_id": wp, "uri": "docs/design.md"}),
                _ => json!({"project_id": p, "work_package_id": wp}),
            }
        }
        "submit_result" => {
            let builder = matches!(caller, Some("arch" | "lead" | "impl"));
            let claimant = if builder { caller.unwrap() } else { "impl" };
            w.issue(p, wp);
            w.act(&actor(claimant), "claim_work_package", json!({"project_id": p, "work_package_id": wp}))
                .ok();
            json!({"project_id": p, "work_package_id": wp, "summary": "s"})
        }
        "request_review" => {
            w.submitted(p, wp, "impl");
            json!({"project_id": p, "work_package_id": wp, "reviewer_id": "rev"})
        }
        "submit_review" => {
            let claimant = if caller == Some("impl") { "lead" } else { "impl" };
            let requester = if caller == Some("pm") { "po" } else { "pm" };
            w.submitted(p, wp, claimant);
            let review_id = w.review(p, wp, requester, caller.unwrap_or("rev"));
            json!({"project_id": p, "review_id": review_id, "verdict": "APPROVED"})
        }
        "record_decision" => json!({"project_id": p, "kind": variant, "title": "d"}),
        "raise_escalation" => json!({"project_id": p, "target_role": "PM", "subject": "blocked"}),
        "resolve_escalation" => {
            let e = w
                .act(
                    &actor("impl"),
                    "raise_escalation",
                    json!({"project_id": p, "target_role": variant, "subject": "s"}),
                )
                .ok();
            json!({"project_id": p, "escalation_id": e["escalation_id"], "resolution": "r"})
        }
        "close_gate" => {
            if variant == "ACCEPT" {
                w.approved(p, wp, "impl", "rev");
            } else {
                w.issue(p, wp);
            }
            json!({"project_id": p, "work_package_id": wp, "gate": variant})
        }
        "baseline_release" => {
            w.accepted(p, wp);
            json!({"project_id": p, "baseline_id": "v1", "title": "v1", "work_package_ids": [wp]})
        }
        "sync_since" | "list_pending_actions" | "get_project" => json!({"project_id": p}),
        other => panic!("no preparation for {other}"),
    };
    (tool.to_string(), args)
}

#[test]
fn every_tool_is_allowed_exactly_for_the_roles_of_the_contract_table() {
    let w = World::new();
    let mut cells = 0;
    for (row, allowed) in TABLE {
        let callers = std::iter::once(("SYSTEM", None)).chain(CAST.iter().map(|(a, r)| (*r, Some(*a))));
        for (role, caller) in callers {
            let p = format!("{}.{role}", row.replace(':', "-"));
            let (tool, args) = prepare(&w, row, &p, caller);
            let before = w.event_count();
            let who = caller.map_or(SYSTEM, actor);
            let outcome = w.act(&who, &tool, args);
            if allowed.contains(&role) {
                assert!(!outcome.is_error, "{row} as {role} must be allowed: {}", outcome.raw);
            } else {
                assert_eq!(
                    outcome.code(),
                    Some("forbidden"),
                    "{row} as {role} must be forbidden: {}",
                    outcome.raw
                );
                assert_eq!(w.event_count(), before, "{row} as {role}: a refused call writes no event");
            }
            cells += 1;
        }
    }
    assert_eq!(cells, TABLE.len() * 8);
}

#[test]
fn the_table_covers_all_eighteen_tools() {
    let mut tools: Vec<&str> = TABLE.iter().map(|(row, _)| row.split(':').next().unwrap()).collect();
    tools.dedup();
    let listed = docforge_coord::tools::all();
    assert_eq!(listed.len(), 18);
    for tool in &listed {
        assert!(tools.contains(&tool.name), "{} is missing from the matrix", tool.name);
    }
}

#[test]
fn non_members_and_inactive_principals_are_forbidden_everywhere_project_scoped() {
    let w = World::new();
    w.project("p");
    w.issue("p", "WP-1");
    let stranger = actor("stranger");
    for (tool, args) in [
        ("issue_work_package", json!({"project_id": "p", "work_package_id": "WP-2", "title": "t"})),
        ("claim_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})),
        ("raise_escalation", json!({"project_id": "p", "target_role": "PM", "subject": "s"})),
        ("link_commit", json!({"project_id": "p", "work_package_id": "WP-1", "commit_id": COMMIT})),
        ("sync_since", json!({"project_id": "p"})),
        ("get_project", json!({"project_id": "p"})),
        ("get_work_package", json!({"project_id": "p", "work_package_id": "WP-1"})),
        ("list_pending_actions", json!({"project_id": "p"})),
    ] {
        let message = w.act(&stranger, tool, args).err("forbidden");
        assert!(message.contains("no active membership"), "{tool}: {message}");
    }
    // A member of one project is nobody in another.
    w.project("q");
    w.act(&SYSTEM, "register_actor", json!({"project_id": "q", "actor_id": "outsider", "role": "PM"})).ok();
    w.act(&actor("outsider"), "get_project", json!({"project_id": "p"})).err("forbidden");
    // Deactivated memberships (set by an operator in the database) no longer act.
    w.store
        .lock()
        .execute("UPDATE memberships SET active = 0 WHERE project_id = 'p' AND actor_id = 'pm'", [])
        .unwrap();
    w.act(&actor("pm"), "get_project", json!({"project_id": "p"})).err("forbidden");
    w.act(
        &actor("pm"),
        "issue_work_package",
        json!({"project_id": "p", "work_package_id": "WP-3", "title": "t"}),
    )
    .err("forbidden");
}
