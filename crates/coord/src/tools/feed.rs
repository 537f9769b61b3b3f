//! Reading the log and the to-do list: `sync_since`, `list_pending_actions`.

use super::{member, tool, Tool, ToolError, ToolResult};
use crate::args::Id;
use crate::auth::Principal;
use crate::store::event_row;
use rusqlite::{params, Connection};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool!(query "sync_since", "Events of a project after a cursor, oldest first, at most 500 per call (every active member).", SyncSince, sync_since),
        tool!(query "list_pending_actions", "Your pending actions: reviews assigned to you and open escalations addressed to your role (every active member).", ListPendingActions, list_pending_actions),
    ]
}

pub const MAX_EVENTS: u32 = 500;
const DEFAULT_EVENTS: u32 = 100;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SyncSince {
    pub project_id: Id,
    /// Return events whose cursor is greater than this (0, the default, is the beginning).
    #[serde(default)]
    pub cursor: u64,
    /// At most this many events (1 to 500; default 100).
    #[schemars(range(min = 1, max = 500))]
    pub limit: Option<u32>,
}

fn sync_since(conn: &Connection, principal: &Principal, a: SyncSince) -> ToolResult {
    member(conn, principal, &a.project_id)?;
    let limit = a.limit.unwrap_or(DEFAULT_EVENTS);
    if !(1..=MAX_EVENTS).contains(&limit) {
        return Err(ToolError::invalid(format!("limit must be 1 to {MAX_EVENTS}, got {limit}")));
    }
    let cursor = i64::try_from(a.cursor).map_err(|_| ToolError::invalid("cursor out of range"))?;
    let mut stmt =
        conn.prepare("SELECT * FROM events WHERE project_id = ?1 AND cursor > ?2 ORDER BY cursor LIMIT ?3")?;
    // One more than asked tells whether more follow.
    let mut events = stmt
        .query_map(params![a.project_id, cursor, limit + 1], event_row)?
        .collect::<Result<Vec<Value>, _>>()?;
    let has_more = events.len() > limit as usize;
    events.truncate(limit as usize);
    let next_cursor = events.last().map_or(json!(a.cursor), |e| e["cursor"].clone());
    Ok(
        json!({"project_id": a.project_id, "events": events, "next_cursor": next_cursor, "has_more": has_more}),
    )
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListPendingActions {
    pub project_id: Id,
}

fn list_pending_actions(conn: &Connection, principal: &Principal, a: ListPendingActions) -> ToolResult {
    let actor = member(conn, principal, &a.project_id)?;
    let mut reviews = conn.prepare(
        "SELECT r.review_id, r.work_package_id, r.revision, r.requested_by, r.requested_at FROM reviews r
         JOIN work_packages w ON w.project_id = r.project_id AND w.work_package_id = r.work_package_id
         WHERE r.project_id = ?1 AND r.reviewer_id = ?2 AND r.state = 'REQUESTED'
           AND w.state = 'SUBMITTED' AND w.revision = r.revision
         ORDER BY r.requested_at, r.review_id",
    )?;
    let reviews = reviews
        .query_map([&*a.project_id, &actor.actor_id], |r| {
            Ok(json!({
                "action": "submit_review",
                "review_id": r.get::<_, String>(0)?,
                "work_package_id": r.get::<_, String>(1)?,
                "revision": r.get::<_, i64>(2)?,
                "requested_by": r.get::<_, String>(3)?,
                "requested_at": r.get::<_, String>(4)?,
            }))
        })?
        .collect::<Result<Vec<Value>, _>>()?;
    let mut escalations = conn.prepare(
        "SELECT escalation_id, subject, work_package_id, raised_by, raised_at FROM escalations
         WHERE project_id = ?1 AND target_role = ?2 AND state = 'OPEN' ORDER BY raised_at, escalation_id",
    )?;
    let escalations = escalations
        .query_map([&*a.project_id, actor.role_name()], |r| {
            Ok(json!({
                "action": "resolve_escalation",
                "escalation_id": r.get::<_, String>(0)?,
                "subject": r.get::<_, String>(1)?,
                "work_package_id": r.get::<_, Option<String>>(2)?,
                "raised_by": r.get::<_, String>(3)?,
                "raised_at": r.get::<_, String>(4)?,
            }))
        })?
        .collect::<Result<Vec<Value>, _>>()?;
    Ok(json!({
        "project_id": a.project_id, "actor_id": actor.actor_id, "role": actor.role_name(),
        "reviews": reviews, "escalations": escalations,
    }))
}
