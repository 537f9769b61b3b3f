//! Decisions, escalations and links: `record_decision`, `raise_escalation`,
//! `resolve_escalation`, `link_commit`, `link_artifact`.

use super::work::load;
use super::{keyed, member, tool, Actor, Emit, Mutation, Tool, ToolError, ToolResult, MANAGERS};
use crate::args::{Body, CommitId, Id, Role, Sha256Hex, Text, Title};
use crate::store::new_id;
use rusqlite::{params, OptionalExtension};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool!(mutation "record_decision", "Record a decision: PRODUCT decisions by the PO only, other kinds by PO or PM; never PA. Emits decision.recorded.", RecordDecision, record_decision),
        tool!(mutation "raise_escalation", "Raise an escalation to the PO or the PM (every active member). Emits escalation.raised.", RaiseEscalation, raise_escalation),
        tool!(mutation "resolve_escalation", "Resolve an OPEN escalation (PO, PM; an escalation to the PO is resolved by a PO). Emits escalation.resolved.", ResolveEscalation, resolve_escalation),
        tool!(mutation "link_commit", "Link a Git commit (full hexadecimal object ID) to a work package (every active member). Emits commit.linked.", LinkCommit, link_commit),
        tool!(mutation "link_artifact", "Link an artifact (a URI, optionally with its SHA-256) to a work package (every active member). Emits artifact.linked.", LinkArtifact, link_artifact),
    ]
}

keyed!(RecordDecision, RaiseEscalation, ResolveEscalation, LinkCommit, LinkArtifact);

/// PRODUCT (what the product does): PO only. TECHNICAL (how it is built), PROCESS (how the
/// team works): PO or PM.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum DecisionKind {
    Product,
    Technical,
    Process,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordDecision {
    pub project_id: Id,
    pub kind: DecisionKind,
    pub title: Title,
    pub rationale: Option<Body>,
    /// The work package the decision is about, if any.
    pub work_package_id: Option<Id>,
    /// A stable key for this mutation: a retry with the same key and arguments replays the
    /// original response; the same key with other arguments is a `conflict`.
    pub idempotency_key: Id,
}

fn record_decision(m: &Mutation<'_, '_>, a: RecordDecision) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    match a.kind {
        DecisionKind::Product => actor.require("record_decision (kind PRODUCT)", &[Role::Po])?,
        _ => actor.require("record_decision", MANAGERS)?,
    }
    if let Some(wp) = &a.work_package_id {
        load(m.tx, &a.project_id, wp)?;
    }
    let decision_id = new_id("dec");
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "decision.recorded",
            aggregate_type: "decision",
            aggregate_id: &decision_id,
            correlation_id: a.work_package_id.as_deref(),
            causation_event_id: None,
            payload: json!({"kind": a.kind, "title": a.title, "rationale": a.rationale, "work_package_id": a.work_package_id}),
        },
    )?;
    m.tx.execute(
        "INSERT INTO decisions(decision_id, project_id, kind, title, rationale, work_package_id, decided_by,
           decided_at, event_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        params![
            decision_id,
            a.project_id,
            json!(a.kind).as_str(),
            a.title,
            a.rationale.as_deref(),
            a.work_package_id.as_deref(),
            actor.actor_id,
            m.now,
            event_id
        ],
    )?;
    Ok(json!({"project_id": a.project_id, "decision_id": decision_id, "kind": a.kind, "event_id": event_id}))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum EscalationTarget {
    PO,
    PM,
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RaiseEscalation {
    pub project_id: Id,
    /// Who must act: the PO or the PM.
    pub target_role: EscalationTarget,
    pub subject: Title,
    pub details: Option<Body>,
    pub work_package_id: Option<Id>,
    /// A stable key for this mutation (see record_decision).
    pub idempotency_key: Id,
}

fn raise_escalation(m: &Mutation<'_, '_>, a: RaiseEscalation) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    if let Some(wp) = &a.work_package_id {
        load(m.tx, &a.project_id, wp)?;
    }
    let escalation_id = new_id("esc");
    let target = json!(a.target_role);
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "escalation.raised",
            aggregate_type: "escalation",
            aggregate_id: &escalation_id,
            correlation_id: a.work_package_id.as_deref(),
            causation_event_id: None,
            payload: json!({"target_role": target, "subject": a.subject, "details": a.details,
                            "work_package_id": a.work_package_id}),
        },
    )?;
    m.tx.execute(
        "INSERT INTO escalations(escalation_id, project_id, target_role, subject, details, work_package_id, state,
           raised_by, raised_at, raised_event_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'OPEN', ?7, ?8, ?9)",
        params![escalation_id, a.project_id, target.as_str(), a.subject, a.details.as_deref(),
                a.work_package_id.as_deref(), actor.actor_id, m.now, event_id],
    )?;
    Ok(json!({"project_id": a.project_id, "escalation_id": escalation_id, "target_role": target,
              "state": "OPEN", "event_id": event_id}))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ResolveEscalation {
    pub project_id: Id,
    pub escalation_id: Id,
    pub resolution: Body,
    /// A stable key for this mutation (see record_decision).
    pub idempotency_key: Id,
}

fn resolve_escalation(m: &Mutation<'_, '_>, a: ResolveEscalation) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    actor.require("resolve_escalation", MANAGERS)?;
    let row: Option<(String, String, String, Option<String>)> =
        m.tx.query_row(
            "SELECT target_role, state, raised_event_id, work_package_id FROM escalations
             WHERE project_id = ?1 AND escalation_id = ?2",
            [&*a.project_id, &*a.escalation_id],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )
        .optional()?;
    let Some((target, state, raised_event_id, wp)) = row else {
        return Err(ToolError::not_found(format!(
            "no escalation {} in project {}",
            a.escalation_id, a.project_id
        )));
    };
    if target == "PO" && actor.role != Some(Role::Po) {
        return Err(ToolError::forbidden("an escalation to the PO is resolved by a PO"));
    }
    if state != "OPEN" {
        return Err(ToolError::invalid_state(format!("escalation {} is {state} already", a.escalation_id)));
    }
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "escalation.resolved",
            aggregate_type: "escalation",
            aggregate_id: &a.escalation_id,
            correlation_id: wp.as_deref(),
            causation_event_id: Some(&raised_event_id),
            payload: json!({"resolution": a.resolution}),
        },
    )?;
    m.tx.execute(
        "UPDATE escalations SET state = 'RESOLVED', resolution = ?2, resolved_by = ?3, resolved_at = ?4
         WHERE escalation_id = ?1",
        params![a.escalation_id, a.resolution, actor.actor_id, m.now],
    )?;
    Ok(
        json!({"project_id": a.project_id, "escalation_id": a.escalation_id, "state": "RESOLVED", "event_id": event_id}),
    )
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkCommit {
    pub project_id: Id,
    pub work_package_id: Id,
    /// The full Git object ID: 40 (SHA-1) or 64 (SHA-256) hexadecimal digits.
    pub commit_id: CommitId,
    /// Where the commit lives (a remote URL or a name).
    pub repository: Option<Text<2048>>,
    /// A stable key for this mutation (see record_decision).
    pub idempotency_key: Id,
}

/// The columns of one link besides its project, work package and kind.
struct NewLink<'a> {
    kind: &'a str,
    target: &'a str,
    repository: Option<&'a str>,
    artifact_kind: Option<&'a str>,
    sha256: Option<&'a str>,
}

fn link(m: &Mutation<'_, '_>, actor: &Actor, project_id: &Id, wp_id: &Id, l: NewLink<'_>) -> ToolResult {
    load(m.tx, project_id, wp_id)?;
    let link_id = new_id("lnk");
    let payload: Value = json!({"work_package_id": wp_id, "target": l.target, "repository": l.repository,
                                "artifact_kind": l.artifact_kind, "sha256": l.sha256});
    let event_id = m.emit(
        actor,
        Emit {
            project_id,
            event_type: &format!("{}.linked", l.kind),
            aggregate_type: l.kind,
            aggregate_id: &link_id,
            correlation_id: Some(wp_id),
            causation_event_id: None,
            payload,
        },
    )?;
    m.tx.execute(
        "INSERT INTO links(link_id, project_id, work_package_id, link_kind, target, repository, artifact_kind, sha256,
           linked_by, linked_at, event_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        params![link_id, project_id, wp_id, l.kind, l.target, l.repository, l.artifact_kind, l.sha256,
                actor.actor_id, m.now, event_id],
    )?;
    Ok(json!({"project_id": project_id, "link_id": link_id, "work_package_id": wp_id, "kind": l.kind,
              "target": l.target, "event_id": event_id}))
}

fn link_commit(m: &Mutation<'_, '_>, a: LinkCommit) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    let l = NewLink {
        kind: "commit",
        target: &a.commit_id.0,
        repository: a.repository.as_deref(),
        artifact_kind: None,
        sha256: None,
    };
    link(m, &actor, &a.project_id, &a.work_package_id, l)
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LinkArtifact {
    pub project_id: Id,
    pub work_package_id: Id,
    /// Where the artifact is (a URL or a repository path).
    pub uri: Text<2048>,
    /// What it is, e.g. `design-note`, `test-report`.
    pub kind: Option<Title>,
    /// The artifact's SHA-256, 64 hexadecimal digits.
    pub sha256: Option<Sha256Hex>,
    /// A stable key for this mutation (see record_decision).
    pub idempotency_key: Id,
}

fn link_artifact(m: &Mutation<'_, '_>, a: LinkArtifact) -> ToolResult {
    let actor = member(m.tx, m.principal, &a.project_id)?;
    let l = NewLink {
        kind: "artifact",
        target: &a.uri,
        repository: None,
        artifact_kind: a.kind.as_deref(),
        sha256: a.sha256.as_ref().map(|s| s.0.as_str()),
    };
    link(m, &actor, &a.project_id, &a.work_package_id, l)
}
