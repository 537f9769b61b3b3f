//! `create_project`, `register_actor`, `get_project`.

use super::{
    keyed, member, project_exists, system_actor, tool, Emit, Mutation, Tool, ToolError, ToolResult, MANAGERS,
};
use crate::args::{Body, Id, Role, Title};
use crate::auth::Principal;
use rusqlite::{params, Connection, OptionalExtension};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{json, Value};

pub(super) fn tools() -> Vec<Tool> {
    vec![
        tool!(mutation "create_project", "Create a project (SYSTEM credential only). Emits project.created.", CreateProject, create_project),
        tool!(mutation "register_actor", "Give an actor a role in a project (SYSTEM, PO or PM; a PM cannot appoint a PO). Emits actor.registered.", RegisterActor, register_actor),
        tool!(query "get_project", "A project with its actor-role roster (every active member).", GetProject, get_project),
    ]
}

keyed!(CreateProject, RegisterActor);

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateProject {
    /// The new project's ID.
    pub project_id: Id,
    pub name: Title,
    pub description: Option<Body>,
    /// A stable key for this mutation: a retry with the same key and arguments replays the
    /// original response; the same key with other arguments is a `conflict`.
    pub idempotency_key: Id,
}

fn create_project(m: &Mutation<'_, '_>, a: CreateProject) -> ToolResult {
    if m.principal != &Principal::System {
        return Err(ToolError::forbidden("create_project is allowed for the SYSTEM credential only"));
    }
    if project_exists(m.tx, &a.project_id).is_ok() {
        return Err(ToolError::conflict(format!("project {} exists already", a.project_id)));
    }
    let payload = json!({"name": a.name, "description": a.description});
    // The project row refers to its creation event, so the event is appended first.
    let event_id = m.emit(
        &system_actor(),
        Emit {
            project_id: &a.project_id,
            event_type: "project.created",
            aggregate_type: "project",
            aggregate_id: &a.project_id,
            correlation_id: None,
            causation_event_id: None,
            payload: payload.clone(),
        },
    )?;
    m.tx.execute(
        "INSERT INTO projects(project_id, name, description, created_at, created_event_id)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![a.project_id, a.name, a.description.as_deref(), m.now, event_id],
    )?;
    Ok(
        json!({"project_id": a.project_id, "name": a.name, "description": a.description, "event_id": event_id}),
    )
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RegisterActor {
    pub project_id: Id,
    /// The actor (the principal of an actor token).
    pub actor_id: Id,
    pub role: Role,
    pub display_name: Option<Title>,
    /// A stable key for this mutation (see create_project).
    pub idempotency_key: Id,
}

fn register_actor(m: &Mutation<'_, '_>, a: RegisterActor) -> ToolResult {
    let actor = match m.principal {
        Principal::System => {
            project_exists(m.tx, &a.project_id)?;
            system_actor()
        }
        Principal::Actor(_) => {
            let actor = member(m.tx, m.principal, &a.project_id)?;
            actor.require("register_actor", MANAGERS)?;
            if actor.role == Some(Role::Pm) && a.role == Role::Po {
                return Err(ToolError::forbidden("a PM cannot appoint a PO"));
            }
            actor
        }
    };
    if a.actor_id.eq_ignore_ascii_case(crate::auth::SYSTEM_PRINCIPAL) {
        return Err(ToolError::invalid("the actor ID SYSTEM is reserved"));
    }
    let existing: Option<String> =
        m.tx.query_row(
            "SELECT role FROM memberships WHERE project_id = ?1 AND actor_id = ?2",
            [&*a.project_id, &*a.actor_id],
            |r| r.get(0),
        )
        .optional()?;
    if let Some(role) = existing {
        return Err(ToolError::conflict(format!(
            "{} is already a member of project {} (role {role})",
            a.actor_id, a.project_id
        )));
    }
    m.tx.execute(
        "INSERT INTO memberships(project_id, actor_id, role, display_name, active, registered_by, registered_at)
         VALUES (?1, ?2, ?3, ?4, 1, ?5, ?6)",
        params![a.project_id, a.actor_id, a.role.as_str(), a.display_name.as_deref(), actor.actor_id, m.now],
    )?;
    let event_id = m.emit(
        &actor,
        Emit {
            project_id: &a.project_id,
            event_type: "actor.registered",
            aggregate_type: "actor",
            aggregate_id: &a.actor_id,
            correlation_id: None,
            causation_event_id: None,
            payload: json!({"role": a.role, "display_name": a.display_name}),
        },
    )?;
    Ok(json!({
        "project_id": a.project_id, "actor_id": a.actor_id, "role": a.role,
        "display_name": a.display_name, "active": true, "event_id": event_id,
    }))
}

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GetProject {
    pub project_id: Id,
}

fn get_project(conn: &Connection, principal: &Principal, a: GetProject) -> ToolResult {
    member(conn, principal, &a.project_id)?;
    let (name, description, created_at): (String, Option<String>, String) = conn.query_row(
        "SELECT name, description, created_at FROM projects WHERE project_id = ?1",
        [&*a.project_id],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )?;
    let mut stmt = conn.prepare(
        "SELECT actor_id, role, display_name, active, registered_by, registered_at FROM memberships
         WHERE project_id = ?1 ORDER BY actor_id",
    )?;
    let roster = stmt
        .query_map([&*a.project_id], |r| {
            Ok(json!({
                "actor_id": r.get::<_, String>(0)?,
                "role": r.get::<_, String>(1)?,
                "display_name": r.get::<_, Option<String>>(2)?,
                "active": r.get::<_, bool>(3)?,
                "registered_by": r.get::<_, String>(4)?,
                "registered_at": r.get::<_, String>(5)?,
            }))
        })?
        .collect::<Result<Vec<Value>, _>>()?;
    Ok(json!({
        "project_id": a.project_id, "name": name, "description": description,
        "created_at": created_at, "roster": roster,
    }))
}
