//! Work packages: `issue_work_package`, `claim_work_package`, `submit_result`,
//! `get_work_package`.
//!
//! States: OPEN → (claim) CLAIMED → (submit_result) SUBMITTED → (close_gate ACCEPT) ACCEPTED;
//! a CHANGES_REQUESTED review sends SUBMITTED back to CLAIMED (same claimant, next revision);
//! close_gate REJECT ends any unaccepted work package as REJECTED.

use super::{keyed, member, tool, Emit, Mutation, Tool, ToolError, ToolResult, BUILDERS, MANAGERS};
use crate::args::{Body, Id, Title};
use crate::auth::Principal;
use rusqlite::{params, Connection, OptionalExtension};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool!(mutation "issue_work_package", "Issue an OPEN work package (PO, PM). Emits work_package.issued.", IssueWorkPackage, issue),
        tool!(mutation "claim_work_package", "Claim an OPEN work package (ARCHITECT, LEAD_ENGINEER, IMPLEMENTER); exactly one claim wins. Emits work_package.claimed.", WorkPackageRef, claim),
        tool!(mutation "submit_result", "Submit the result of a CLAIMED work package (its claimant only). Emits work_package.result_submitted.", SubmitResult, submit_result),
        tool!(query "get_work_package", "A work package with its results, reviews, links and gates (every active member).", GetWorkPackage, get_work_package),
    ]
}

/// The columns of a work package that rules look at.
pub(super) struct WorkPackage {
    pub state: String,
    pub claimed_by: Option<String>,
    pub revision: i64,
    pub issued_event_id: String,
    pub claimed_event_id: Option<String>,
}

pub(super) fn load(conn: &Connection, project_id: &str, wp_id: &str) -> Result<WorkPackage, ToolError> {
    conn.query_row(
        "SELECT state, claimed_by, revision, issued_event_id, claimed_event_id FROM work_packages
         WHERE project_id = ?1 AND work_package_id = ?2",
        [project_id, wp_id],
        |r| {
            Ok(WorkPackage {
                state: r.get(0)?,
                claimed_by: r.get(1)?,
                revision: r.get(2)?,
                issued_event_id: r.get(3)?,
                claimed_event_id: r.get(4)?,
            })
        },
    )
    .optional()?
    .ok_or_else(|| ToolError::not_found(format!("no work package {wp_id} in project {project_id}")))
}

/// The event ID of the latest result of a work package.
pub(super) fn latest_result_event(
    conn: &Connection,
    project_id: &str,
    wp_id: &str,
) -> Result<String, ToolError> {
    Ok(conn.query_row(
        "SELECT event_id FROM results WHERE project_id = ?1 AND work_package_id = ?2
         ORDER BY revision DESC LIMIT 1",
        [project_id, wp_id],
        |r| r.get(0),
    )?)
}

keyed!(IssueWorkPackage, WorkPackageRef, SubmitResult);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct IssueWorkPackage {
    pub project_id: Id,
    /// The new work package's ID, e.g. `WP-001`.
    pub work_package_id: Id,
    pub title: Title,
    pub description: Option<Body>,
    /// A stable key for this mutation: a retry with the same key and arguments replays the
    /// original response; the same key with other arguments is a `conflict`.
    pub idempotency_key: Id,
}

fn issue(m: &Mutation<'_, '_>, a: IssueWorkPackage) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    actor.require("issue_work_package", MANAGERS)?;
    if load(m.tx, &a.project_id, &a.work_package_id).is_ok() {
        return Err(ToolError::conflict(format!("work package {} exists already", a.work_package_id)));
    }
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "work_package.issued",
            aggregate_type: "work_package",
            aggregate_id: &a.work_package_id,
            correlation_id: Some(&a.work_package_id),
            causation_event_id: None,
            payload: json!({"title": a.title, "description": a.description}),
        },
    )?;
    m.tx.execute(
        "INSERT INTO work_packages(project_id, work_package_id, title, description, state, issued_by,
           issued_at, issued_event_id) VALUES (?1, ?2, ?3, ?4, 'OPEN', ?5, ?6, ?7)",
        params![
            a.project_id,
            a.work_package_id,
            a.title,
            a.description.as_deref(),
            actor.actor_id,
            m.now,
            event_id
        ],
    )?;
    Ok(json!({
        "project_id": a.project_id, "work_package_id": a.work_package_id, "state": "OPEN", "event_id": event_id,
    }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkPackageRef {
    pub project_id: Id,
    pub work_package_id: Id,
    /// A stable key for this mutation (see issue_work_package).
    pub idempotency_key: Id,
}

fn claim(m: &Mutation<'_, '_>, a: WorkPackageRef) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    actor.require("claim_work_package", BUILDERS)?;
    let wp = load(m.tx, &a.project_id, &a.work_package_id)?;
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "work_package.claimed",
            aggregate_type: "work_package",
            aggregate_id: &a.work_package_id,
            correlation_id: Some(&a.work_package_id),
            causation_event_id: Some(&wp.issued_event_id),
            payload: json!({"claimed_by": actor.actor_id}),
        },
    )?;
    // The claim itself is conditional on OPEN: whatever ran before, only one claim can change
    // the row (a losing claim rolls back, its event with it).
    let changed = m.tx.execute(
        "UPDATE work_packages SET state = 'CLAIMED', claimed_by = ?3, claimed_at = ?4, claimed_event_id = ?5
         WHERE project_id = ?1 AND work_package_id = ?2 AND state = 'OPEN'",
        params![a.project_id, a.work_package_id, actor.actor_id, m.now, event_id],
    )?;
    if changed != 1 {
        let by = wp.claimed_by.map(|c| format!(" by {c}")).unwrap_or_default();
        return Err(ToolError::conflict(format!(
            "work package {} is {}{by}, not OPEN",
            a.work_package_id, wp.state
        )));
    }
    Ok(json!({
        "project_id": a.project_id, "work_package_id": a.work_package_id, "state": "CLAIMED",
        "claimed_by": actor.actor_id, "event_id": event_id,
    }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitResult {
    pub project_id: Id,
    pub work_package_id: Id,
    /// What was done, and where to look.
    pub summary: Body,
    /// A stable key for this mutation (see issue_work_package).
    pub idempotency_key: Id,
}

fn submit_result(m: &Mutation<'_, '_>, a: SubmitResult) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    let wp = load(m.tx, &a.project_id, &a.work_package_id)?;
    if wp.claimed_by.as_deref() != Some(actor.actor_id.as_str()) {
        return Err(ToolError::forbidden(format!(
            "only the claimant of {} may submit its result",
            a.work_package_id
        )));
    }
    if wp.state != "CLAIMED" {
        return Err(ToolError::invalid_state(format!(
            "work package {} is {}, not CLAIMED",
            a.work_package_id, wp.state
        )));
    }
    let revision = wp.revision + 1;
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "work_package.result_submitted",
            aggregate_type: "work_package",
            aggregate_id: &a.work_package_id,
            correlation_id: Some(&a.work_package_id),
            causation_event_id: wp.claimed_event_id.as_deref(),
            payload: json!({"revision": revision, "summary": a.summary}),
        },
    )?;
    m.tx.execute(
        "INSERT INTO results(project_id, work_package_id, revision, summary, submitted_by, submitted_at, event_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![a.project_id, a.work_package_id, revision, a.summary, actor.actor_id, m.now, event_id],
    )?;
    m.tx.execute(
        "UPDATE work_packages SET state = 'SUBMITTED', revision = ?3 WHERE project_id = ?1 AND work_package_id = ?2",
        params![a.project_id, a.work_package_id, revision],
    )?;
    Ok(json!({
        "project_id": a.project_id, "work_package_id": a.work_package_id, "state": "SUBMITTED",
        "revision": revision, "event_id": event_id,
    }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetWorkPackage {
    pub project_id: Id,
    pub work_package_id: Id,
}

/// Rows of one SQL query over a work package, each as a JSON object keyed by column name.
fn rows(conn: &Connection, sql: &str, project_id: &str, wp_id: &str) -> Result<Vec<Value>, ToolError> {
    let mut stmt = conn.prepare(sql)?;
    let names: Vec<String> = stmt.column_names().map(String::from).collect();
    let out = stmt
        .query_map([project_id, wp_id], |r| {
            let mut object = serde_json::Map::new();
            for (i, name) in names.iter().enumerate() {
                let value = match r.get_ref(i)? {
                    rusqlite::types::ValueRef::Null => Value::Null,
                    rusqlite::types::ValueRef::Integer(n) => json!(n),
                    rusqlite::types::ValueRef::Real(f) => json!(f),
                    rusqlite::types::ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
                    rusqlite::types::ValueRef::Blob(b) => json!(hex::encode(b)),
                };
                object.insert(name.clone(), value);
            }
            Ok(Value::Object(object))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(out)
}

fn get_work_package(conn: &Connection, principal: &Principal, a: GetWorkPackage) -> ToolResult {
    member(conn, principal, &a.project_id)?;
    load(conn, &a.project_id, &a.work_package_id)?;
    let (p, w) = (&*a.project_id, &*a.work_package_id);
    let mut wp = rows(
        conn,
        "SELECT project_id, work_package_id, title, description, state, issued_by, issued_at, claimed_by,
           claimed_at, revision FROM work_packages WHERE project_id = ?1 AND work_package_id = ?2",
        p,
        w,
    )?
    .remove(0);
    let parts = [
        ("results", "SELECT revision, summary, submitted_by, submitted_at, event_id FROM results
            WHERE project_id = ?1 AND work_package_id = ?2 ORDER BY revision"),
        ("reviews", "SELECT review_id, revision, requested_by, reviewer_id, state, verdict, comments,
            requested_at, submitted_at FROM reviews WHERE project_id = ?1 AND work_package_id = ?2
            ORDER BY requested_at, review_id"),
        ("links", "SELECT link_id, link_kind, target, repository, artifact_kind, sha256, linked_by, linked_at FROM links
            WHERE project_id = ?1 AND work_package_id = ?2 ORDER BY linked_at, link_id"),
        ("gates", "SELECT gate_id, gate, revision, approval_review_id, closed_by, closed_at FROM gates
            WHERE project_id = ?1 AND work_package_id = ?2 ORDER BY closed_at, gate_id"),
        ("decisions", "SELECT decision_id, kind, title, decided_by, decided_at FROM decisions
            WHERE project_id = ?1 AND work_package_id = ?2 ORDER BY decided_at, decision_id"),
    ];
    for (name, sql) in parts {
        wp[name] = Value::Array(rows(conn, sql, p, w)?);
    }
    Ok(wp)
}
