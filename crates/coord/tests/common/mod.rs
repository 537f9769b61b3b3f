//! A coordination store in a temporary directory, driven through the same tool entry point
//! the HTTP transport uses (`tools::call`), plus direct reads of the event table.
#![allow(dead_code)]

use docforge_coord::auth::Principal;
use docforge_coord::store::Store;
use docforge_coord::tools;
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

pub struct World {
    _dir: tempfile::TempDir,
    pub db: PathBuf,
    pub store: Store,
    keys: AtomicU64,
}

/// One tool result: the raw serialized `CallToolResult` and its parts.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub raw: String,
    pub is_error: bool,
    pub value: Value,
}

impl Outcome {
    pub fn code(&self) -> Option<&str> {
        self.value["error"]["code"].as_str()
    }
    #[track_caller]
    pub fn ok(self) -> Value {
        assert!(!self.is_error, "expected success, got {}", self.raw);
        self.value
    }
    #[track_caller]
    pub fn err(self, code: &str) -> String {
        assert!(self.is_error, "expected {code}, got success {}", self.raw);
        assert_eq!(self.code(), Some(code), "{}", self.raw);
        self.value["error"]["message"].as_str().unwrap_or_default().to_string()
    }
}

pub fn actor(id: &str) -> Principal {
    Principal::Actor(id.to_string())
}

pub const SYSTEM: Principal = Principal::System;

/// The standard cast of a project: one actor per role.
pub const CAST: [(&str, &str); 7] = [
    ("po", "PO"),
    ("pm", "PM"),
    ("pa", "PA"),
    ("arch", "ARCHITECT"),
    ("lead", "LEAD_ENGINEER"),
    ("impl", "IMPLEMENTER"),
    ("rev", "REVIEWER"),
];

/// The actor of the standard cast who holds `role`.
pub fn cast(role: &str) -> Principal {
    actor(CAST.iter().find(|(_, r)| *r == role).map(|(a, _)| *a).expect("a role of the cast"))
}

pub fn parse(raw: String) -> Outcome {
    let v: Value = serde_json::from_str(&raw).expect("a CallToolResult is JSON");
    let is_error = v["isError"].as_bool().expect("isError is a boolean");
    let text: Value = serde_json::from_str(v["content"][0]["text"].as_str().expect("one text content"))
        .expect("the text content is JSON");
    assert_eq!(text, v["structuredContent"], "text and structuredContent agree");
    Outcome { raw, is_error, value: v["structuredContent"].clone() }
}

impl World {
    pub fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("coord.db");
        let store = Store::open(&db).unwrap();
        World { _dir: dir, db, store, keys: AtomicU64::new(0) }
    }

    /// Calls a tool exactly as given.
    pub fn call(&self, who: &Principal, tool: &str, args: Value) -> Outcome {
        parse(tools::call(&self.store, who, tool, args).unwrap_or_else(|| panic!("unknown tool {tool}")))
    }

    /// Calls a tool, adding a fresh idempotency key to a mutation that has none.
    pub fn act(&self, who: &Principal, tool: &str, mut args: Value) -> Outcome {
        if is_mutation(tool) && args.get("idempotency_key").is_none() {
            let n = self.keys.fetch_add(1, Ordering::SeqCst);
            args["idempotency_key"] = json!(format!("key-{n}"));
        }
        self.call(who, tool, args)
    }

    /// A project with the standard cast registered by SYSTEM.
    pub fn project(&self, project_id: &str) {
        self.act(&SYSTEM, "create_project", json!({"project_id": project_id, "name": project_id})).ok();
        for (actor_id, role) in CAST {
            self.act(
                &SYSTEM,
                "register_actor",
                json!({"project_id": project_id, "actor_id": actor_id, "role": role}),
            )
            .ok();
        }
    }

    /// Issues an OPEN work package (as the PM).
    pub fn issue(&self, p: &str, wp: &str) {
        self.act(
            &actor("pm"),
            "issue_work_package",
            json!({"project_id": p, "work_package_id": wp, "title": wp}),
        )
        .ok();
    }

    /// Issues, claims (as `claimant`) and submits a result.
    pub fn submitted(&self, p: &str, wp: &str, claimant: &str) {
        self.issue(p, wp);
        self.claim_and_submit(p, wp, claimant);
    }

    /// Claims an OPEN work package (as `claimant`) and submits a result.
    pub fn claim_and_submit(&self, p: &str, wp: &str, claimant: &str) {
        let who = actor(claimant);
        self.act(&who, "claim_work_package", json!({"project_id": p, "work_package_id": wp})).ok();
        self.act(&who, "submit_result", json!({"project_id": p, "work_package_id": wp, "summary": "done"}))
            .ok();
    }

    /// Requests a review of the submitted result (as `requester`); returns its ID.
    pub fn review(&self, p: &str, wp: &str, requester: &str, reviewer: &str) -> String {
        let v = self
            .act(
                &actor(requester),
                "request_review",
                json!({"project_id": p, "work_package_id": wp, "reviewer_id": reviewer}),
            )
            .ok();
        v["review_id"].as_str().unwrap().to_string()
    }

    /// A submitted result approved by `reviewer` (requested by the PM).
    pub fn approved(&self, p: &str, wp: &str, claimant: &str, reviewer: &str) {
        self.submitted(p, wp, claimant);
        let review_id = self.review(p, wp, "pm", reviewer);
        self.act(
            &actor(reviewer),
            "submit_review",
            json!({"project_id": p, "review_id": review_id, "verdict": "APPROVED"}),
        )
        .ok();
    }

    /// An ACCEPTED work package (claimed by impl, approved by rev, accepted by the PO).
    pub fn accepted(&self, p: &str, wp: &str) {
        self.approved(p, wp, "impl", "rev");
        self.act(
            &actor("po"),
            "close_gate",
            json!({"project_id": p, "work_package_id": wp, "gate": "ACCEPT"}),
        )
        .ok();
    }

    /// `(cursor, event_type)` of every event of a project, read from the event table.
    pub fn events(&self, project_id: &str) -> Vec<(i64, String)> {
        let conn = self.store.lock();
        let mut stmt = conn
            .prepare("SELECT cursor, event_type FROM events WHERE project_id = ?1 ORDER BY cursor")
            .unwrap();
        stmt.query_map([project_id], |r| Ok((r.get(0)?, r.get(1)?))).unwrap().map(Result::unwrap).collect()
    }

    pub fn event_count(&self) -> i64 {
        self.store.lock().query_row("SELECT count(*) FROM events", [], |r| r.get(0)).unwrap()
    }

    /// The number of events of a type in a project.
    pub fn count(&self, project_id: &str, event_type: &str) -> usize {
        self.events(project_id).iter().filter(|(_, t)| t == event_type).count()
    }
}

pub fn is_mutation(tool: &str) -> bool {
    !matches!(tool, "sync_since" | "list_pending_actions" | "get_work_package" | "get_project")
}

impl World {
    pub fn idempotency_records(&self) -> i64 {
        self.store.lock().query_row("SELECT count(*) FROM idempotency", [], |r| r.get(0)).unwrap()
    }

    /// Asserts that the call fails with `code` and writes nothing: no event, no idempotency
    /// record. Returns the error message.
    #[track_caller]
    pub fn refuse(&self, who: &Principal, tool: &str, args: Value, code: &str) -> String {
        let (events, keys) = (self.event_count(), self.idempotency_records());
        let message = self.act(who, tool, args).err(code);
        assert_eq!(self.event_count(), events, "{tool}: a refused call writes no event");
        assert_eq!(self.idempotency_records(), keys, "{tool}: a refused call records no key");
        message
    }
}
