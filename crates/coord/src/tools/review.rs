//! Reviews and acceptance: `request_review`, `submit_review`, `close_gate`, `baseline_release`.

use super::work::{latest_result_event, load};
use super::{keyed, member, tool, Emit, Mutation, Tool, ToolError, ToolResult, MANAGERS};
use crate::args::{Body, Id, Role, Title};
use rusqlite::{params, OptionalExtension};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::BTreeSet;

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool!(mutation "request_review", "Ask an independent actor (neither the claimant nor the requester) to review the submitted result of a work package (PO, PM, PA, ARCHITECT, LEAD_ENGINEER, IMPLEMENTER). Emits review.requested.", RequestReview, request_review),
        tool!(mutation "submit_review", "Submit the verdict of a review assigned to you. CHANGES_REQUESTED sends the work package back to its claimant. Emits review.submitted.", SubmitReview, submit_review),
        tool!(mutation "close_gate", "Close a work package's gate (PO, PM). ACCEPT needs an APPROVED review of the current result by an actor who is neither the claimant nor the closer. Emits gate.closed.", CloseGate, close_gate),
        tool!(mutation "baseline_release", "Release a baseline over ACCEPTED work packages only (PO, PM). Emits baseline.released.", BaselineRelease, baseline_release),
    ]
}

const REQUESTERS: &[Role] =
    &[Role::Po, Role::Pm, Role::Pa, Role::Architect, Role::LeadEngineer, Role::Implementer];

keyed!(RequestReview, SubmitReview, CloseGate, BaselineRelease);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RequestReview {
    pub project_id: Id,
    pub work_package_id: Id,
    /// The reviewer: an active member who is neither the work package's claimant nor you.
    pub reviewer_id: Id,
    pub note: Option<Body>,
    /// A stable key for this mutation: a retry with the same key and arguments replays the
    /// original response; the same key with other arguments is a `conflict`.
    pub idempotency_key: Id,
}

fn request_review(m: &Mutation<'_, '_>, a: RequestReview) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    actor.require("request_review", REQUESTERS)?;
    let wp = load(m.tx, &a.project_id, &a.work_package_id)?;
    if wp.state != "SUBMITTED" {
        return Err(ToolError::invalid_state(format!(
            "work package {} is {}; reviews are requested for a SUBMITTED result",
            a.work_package_id, wp.state
        )));
    }
    let reviewer_active: Option<String> =
        m.tx.query_row(
            "SELECT role FROM memberships WHERE project_id = ?1 AND actor_id = ?2 AND active = 1",
            [&*a.project_id, &*a.reviewer_id],
            |r| r.get(0),
        )
        .optional()?;
    if reviewer_active.is_none() {
        return Err(ToolError::invalid(format!(
            "reviewer {} has no active membership in project {}",
            a.reviewer_id, a.project_id
        )));
    }
    if wp.claimed_by.as_deref() == Some(&*a.reviewer_id) || actor.actor_id == a.reviewer_id.0 {
        return Err(ToolError::forbidden(format!(
            "reviewer {} is not independent: a reviewer is neither the claimant nor the requester",
            a.reviewer_id
        )));
    }
    let pending: Option<String> =
        m.tx.query_row(
            "SELECT review_id FROM reviews WHERE project_id = ?1 AND work_package_id = ?2 AND revision = ?3
               AND reviewer_id = ?4 AND state = 'REQUESTED'",
            params![a.project_id, a.work_package_id, wp.revision, a.reviewer_id],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(review_id) = pending {
        return Err(ToolError::conflict(format!(
            "{} already has review {review_id} of this result",
            a.reviewer_id
        )));
    }
    let review_id = crate::store::new_id("rev");
    let cause = latest_result_event(m.tx, &a.project_id, &a.work_package_id)?;
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "review.requested",
            aggregate_type: "review",
            aggregate_id: &review_id,
            correlation_id: Some(&a.work_package_id),
            causation_event_id: Some(&cause),
            payload: json!({"work_package_id": a.work_package_id, "revision": wp.revision,
                            "reviewer_id": a.reviewer_id, "note": a.note}),
        },
    )?;
    m.tx.execute(
        "INSERT INTO reviews(review_id, project_id, work_package_id, revision, requested_by, reviewer_id, state,
           comments, requested_at, requested_event_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'REQUESTED', NULL, ?7, ?8)",
        params![review_id, a.project_id, a.work_package_id, wp.revision, actor.actor_id, a.reviewer_id, m.now, event_id],
    )?;
    Ok(json!({
        "project_id": a.project_id, "review_id": review_id, "work_package_id": a.work_package_id,
        "revision": wp.revision, "reviewer_id": a.reviewer_id, "state": "REQUESTED", "event_id": event_id,
    }))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Verdict {
    Approved,
    ChangesRequested,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SubmitReview {
    pub project_id: Id,
    pub review_id: Id,
    pub verdict: Verdict,
    pub comments: Option<Body>,
    /// A stable key for this mutation (see request_review).
    pub idempotency_key: Id,
}

fn submit_review(m: &Mutation<'_, '_>, a: SubmitReview) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    let review: Option<(String, i64, String, String, String)> =
        m.tx.query_row(
            "SELECT work_package_id, revision, reviewer_id, state, requested_event_id FROM reviews
             WHERE project_id = ?1 AND review_id = ?2",
            [&*a.project_id, &*a.review_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .optional()?;
    let Some((wp_id, revision, reviewer_id, state, requested_event_id)) = review else {
        return Err(ToolError::not_found(format!("no review {} in project {}", a.review_id, a.project_id)));
    };
    if reviewer_id != actor.actor_id {
        return Err(ToolError::forbidden(format!("review {} is assigned to {reviewer_id}", a.review_id)));
    }
    if state != "REQUESTED" {
        return Err(ToolError::invalid_state(format!("review {} is {state} already", a.review_id)));
    }
    let wp = load(m.tx, &a.project_id, &wp_id)?;
    if wp.state != "SUBMITTED" || wp.revision != revision {
        return Err(ToolError::invalid_state(format!(
            "review {} is of revision {revision}; work package {wp_id} is {} at revision {}",
            a.review_id, wp.state, wp.revision
        )));
    }
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "review.submitted",
            aggregate_type: "review",
            aggregate_id: &a.review_id,
            correlation_id: Some(&wp_id),
            causation_event_id: Some(&requested_event_id),
            payload: json!({"work_package_id": wp_id, "revision": revision, "verdict": a.verdict, "comments": a.comments}),
        },
    )?;
    m.tx.execute(
        "UPDATE reviews SET state = 'SUBMITTED', verdict = ?2, comments = ?3, submitted_at = ?4, submitted_event_id = ?5
         WHERE review_id = ?1",
        params![a.review_id, json!(a.verdict).as_str(), a.comments.as_deref(), m.now, event_id],
    )?;
    let mut wp_state = "SUBMITTED";
    if a.verdict == Verdict::ChangesRequested {
        wp_state = "CLAIMED";
        m.tx.execute(
            "UPDATE work_packages SET state = 'CLAIMED' WHERE project_id = ?1 AND work_package_id = ?2",
            [&*a.project_id, &wp_id],
        )?;
    }
    Ok(json!({
        "project_id": a.project_id, "review_id": a.review_id, "work_package_id": wp_id, "revision": revision,
        "verdict": a.verdict, "state": "SUBMITTED", "work_package_state": wp_state, "event_id": event_id,
    }))
}

/// ACCEPT: SUBMITTED → ACCEPTED, needs an independent APPROVED review of the current
/// revision. REJECT: any state but ACCEPTED/REJECTED → REJECTED.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Gate {
    Accept,
    Reject,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CloseGate {
    pub project_id: Id,
    pub work_package_id: Id,
    pub gate: Gate,
    pub note: Option<Body>,
    /// A stable key for this mutation (see request_review).
    pub idempotency_key: Id,
}

fn close_gate(m: &Mutation<'_, '_>, a: CloseGate) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    actor.require("close_gate", MANAGERS)?;
    let wp = load(m.tx, &a.project_id, &a.work_package_id)?;
    let (new_state, approval) = match a.gate {
        Gate::Accept => {
            if wp.state != "SUBMITTED" {
                return Err(ToolError::invalid_state(format!(
                    "work package {} is {}; ACCEPT closes a SUBMITTED result",
                    a.work_package_id, wp.state
                )));
            }
            let approval: Option<(String, String)> =
                m.tx.query_row(
                    "SELECT review_id, submitted_event_id FROM reviews
                     WHERE project_id = ?1 AND work_package_id = ?2 AND revision = ?3 AND state = 'SUBMITTED'
                       AND verdict = 'APPROVED' AND reviewer_id <> ?4 AND reviewer_id <> ?5
                     ORDER BY submitted_at, review_id LIMIT 1",
                    params![
                        a.project_id,
                        a.work_package_id,
                        wp.revision,
                        wp.claimed_by.as_deref().unwrap_or_default(),
                        actor.actor_id
                    ],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some(approval) = approval else {
                return Err(ToolError::invalid_state(format!(
                    "ACCEPT needs an independent approval: no APPROVED review of revision {} of {} by an actor \
                     other than its claimant and {}",
                    wp.revision, a.work_package_id, actor.actor_id
                )));
            };
            ("ACCEPTED", Some(approval))
        }
        Gate::Reject => {
            if matches!(wp.state.as_str(), "ACCEPTED" | "REJECTED") {
                return Err(ToolError::invalid_state(format!(
                    "work package {} is {} already",
                    a.work_package_id, wp.state
                )));
            }
            ("REJECTED", None)
        }
    };
    let gate_id = crate::store::new_id("gate");
    let (review_id, cause) = approval.unzip();
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "gate.closed",
            aggregate_type: "gate",
            aggregate_id: &gate_id,
            correlation_id: Some(&a.work_package_id),
            causation_event_id: cause.as_deref(),
            payload: json!({"work_package_id": a.work_package_id, "gate": a.gate, "revision": wp.revision,
                            "approval_review_id": review_id, "work_package_state": new_state, "note": a.note}),
        },
    )?;
    m.tx.execute(
        "INSERT INTO gates(gate_id, project_id, work_package_id, gate, revision, approval_review_id, closed_by,
           closed_at, event_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![gate_id, a.project_id, a.work_package_id, json!(a.gate).as_str(), wp.revision, review_id,
                actor.actor_id, m.now, event_id],
    )?;
    m.tx.execute(
        "UPDATE work_packages SET state = ?3 WHERE project_id = ?1 AND work_package_id = ?2",
        params![a.project_id, a.work_package_id, new_state],
    )?;
    Ok(json!({
        "project_id": a.project_id, "gate_id": gate_id, "work_package_id": a.work_package_id, "gate": a.gate,
        "work_package_state": new_state, "approval_review_id": review_id, "event_id": event_id,
    }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaselineRelease {
    pub project_id: Id,
    /// The new baseline's ID, e.g. `v1.0`.
    pub baseline_id: Id,
    pub title: Title,
    /// The work packages it includes: each ACCEPTED, no repeats.
    #[schemars(length(min = 1, max = 500))]
    pub work_package_ids: Vec<Id>,
    /// A stable key for this mutation (see request_review).
    pub idempotency_key: Id,
}

fn baseline_release(m: &Mutation<'_, '_>, a: BaselineRelease) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    actor.require("baseline_release", MANAGERS)?;
    if a.work_package_ids.is_empty() || a.work_package_ids.len() > 500 {
        return Err(ToolError::invalid("work_package_ids holds 1 to 500 work packages"));
    }
    let unique: BTreeSet<&str> = a.work_package_ids.iter().map(|w| w.0.as_str()).collect();
    if unique.len() != a.work_package_ids.len() {
        return Err(ToolError::invalid("work_package_ids repeats a work package"));
    }
    let exists: Option<i64> =
        m.tx.query_row(
            "SELECT 1 FROM baselines WHERE project_id = ?1 AND baseline_id = ?2",
            [&*a.project_id, &*a.baseline_id],
            |r| r.get(0),
        )
        .optional()?;
    if exists.is_some() {
        return Err(ToolError::conflict(format!("baseline {} exists already", a.baseline_id)));
    }
    let mut items = Vec::new();
    let mut not_accepted = Vec::new();
    for wp_id in &a.work_package_ids {
        let wp = load(m.tx, &a.project_id, wp_id)?;
        if wp.state == "ACCEPTED" {
            items.push((wp_id, wp.revision));
        } else {
            not_accepted.push(format!("{} ({})", wp_id, wp.state));
        }
    }
    if !not_accepted.is_empty() {
        return Err(ToolError::invalid_state(format!(
            "a baseline includes ACCEPTED work packages only; not accepted: {}",
            not_accepted.join(", ")
        )));
    }
    let included: Vec<_> =
        items.iter().map(|(id, rev)| json!({"work_package_id": id, "revision": rev})).collect();
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "baseline.released",
            aggregate_type: "baseline",
            aggregate_id: &a.baseline_id,
            correlation_id: None,
            causation_event_id: None,
            payload: json!({"title": a.title, "work_packages": included}),
        },
    )?;
    m.tx.execute(
        "INSERT INTO baselines(project_id, baseline_id, title, released_by, released_at, event_id)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![a.project_id, a.baseline_id, a.title, actor.actor_id, m.now, event_id],
    )?;
    for (wp_id, revision) in &items {
        m.tx.execute(
            "INSERT INTO baseline_items(project_id, baseline_id, work_package_id, revision) VALUES (?1, ?2, ?3, ?4)",
            params![a.project_id, a.baseline_id, *wp_id, revision],
        )?;
    }
    Ok(json!({
        "project_id": a.project_id, "baseline_id": a.baseline_id, "title": a.title,
        "work_packages": included, "event_id": event_id,
    }))
}
