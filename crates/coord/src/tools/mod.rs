//! The 18 tools of the coordination contract: their argument schemas (schemars, published by
//! `tools/list`), the role checks, and the two ways a tool runs — a mutation (one write
//! transaction: idempotency check, state change, event, idempotency record) or a query.

mod feed;
mod governance;
mod project;
mod review;
mod work;

use crate::args::Role;
use crate::auth::{Principal, SYSTEM_PRINCIPAL};
pub use crate::store::NewEvent as Emit;
use crate::store::{append_event, begin_write, now_rfc3339, EventActor, Store};
use rusqlite::{Connection, OptionalExtension, Transaction};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// A domain failure, returned as a tool result with `isError: true`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError {
    pub code: &'static str,
    pub message: String,
}

impl ToolError {
    pub fn invalid(message: impl Into<String>) -> Self {
        ToolError { code: "invalid_argument", message: message.into() }
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        ToolError { code: "forbidden", message: message.into() }
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        ToolError { code: "not_found", message: message.into() }
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        ToolError { code: "conflict", message: message.into() }
    }
    pub fn invalid_state(message: impl Into<String>) -> Self {
        ToolError { code: "invalid_state", message: message.into() }
    }
}

impl From<rusqlite::Error> for ToolError {
    fn from(e: rusqlite::Error) -> Self {
        ToolError { code: "internal", message: format!("storage error: {e}") }
    }
}

pub type ToolResult = Result<Value, ToolError>;

/// The acting identity inside one project: the SYSTEM credential or an active member.
#[derive(Debug, Clone)]
pub struct Actor {
    pub actor_id: String,
    /// `None` for SYSTEM.
    pub role: Option<Role>,
}

impl Actor {
    pub fn role_name(&self) -> &'static str {
        self.role.map_or("SYSTEM", Role::as_str)
    }

    /// Refuses unless the actor holds one of `roles` (SYSTEM holds none).
    pub fn require(&self, tool: &str, roles: &[Role]) -> Result<(), ToolError> {
        match self.role {
            Some(role) if roles.contains(&role) => Ok(()),
            _ => Err(ToolError::forbidden(format!(
                "{tool} is not allowed for role {} (allowed: {})",
                self.role_name(),
                roles.iter().map(|r| r.as_str()).collect::<Vec<_>>().join(", ")
            ))),
        }
    }
}

/// One mutation in progress: its transaction, its time and its actor.
pub struct Mutation<'a, 'c> {
    pub tx: &'a Transaction<'c>,
    pub now: String,
    pub principal: &'a Principal,
}

impl Mutation<'_, '_> {
    /// Appends the mutation's event, by `actor`, at the mutation's time.
    pub fn emit(&self, actor: &Actor, event: Emit<'_>) -> Result<String, ToolError> {
        let by = EventActor { actor_id: &actor.actor_id, actor_role: actor.role_name() };
        Ok(append_event(self.tx, by, event, &self.now)?)
    }
}

pub(crate) const MANAGERS: &[Role] = &[Role::Po, Role::Pm];
pub(crate) const BUILDERS: &[Role] = &[Role::Architect, Role::LeadEngineer, Role::Implementer];

/// The project must exist.
pub(crate) fn project_exists(conn: &Connection, project_id: &str) -> Result<(), ToolError> {
    let found = conn
        .query_row("SELECT 1 FROM projects WHERE project_id = ?1", [project_id], |_| Ok(()))
        .optional()?;
    found.ok_or_else(|| ToolError::not_found(format!("no project {project_id}")))
}

/// The one active membership of `principal` in `project_id`.
pub(crate) fn member(conn: &Connection, principal: &Principal, project_id: &str) -> Result<Actor, ToolError> {
    project_exists(conn, project_id)?;
    let Principal::Actor(actor_id) = principal else {
        return Err(ToolError::forbidden(format!("SYSTEM is not a member of project {project_id}")));
    };
    let role: Option<String> = conn
        .query_row(
            "SELECT role FROM memberships WHERE project_id = ?1 AND actor_id = ?2 AND active = 1",
            [project_id, actor_id],
            |r| r.get(0),
        )
        .optional()?;
    match role.as_deref().and_then(Role::parse) {
        Some(role) => Ok(Actor { actor_id: actor_id.clone(), role: Some(role) }),
        None => {
            Err(ToolError::forbidden(format!("{actor_id} has no active membership in project {project_id}")))
        }
    }
}

/// SYSTEM itself, for the calls it may make outside any membership.
pub(crate) fn system_actor() -> Actor {
    Actor { actor_id: SYSTEM_PRINCIPAL.to_string(), role: None }
}

/// A tool: name, description, whether it mutates, argument schema, handler.
pub struct Tool {
    pub name: &'static str,
    pub description: &'static str,
    /// Reads only (no idempotency key, no event).
    pub read_only: bool,
    pub schema: fn() -> Value,
    pub run: fn(&Store, &Principal, Value) -> String,
}

/// Every tool, in the contract's order.
pub fn all() -> Vec<Tool> {
    let mut tools = Vec::new();
    tools.extend(project::tools());
    tools.extend(work::tools());
    tools.extend(review::tools());
    tools.extend(governance::tools());
    tools.extend(feed::tools());
    tools
}

/// The `tools/list` entries.
pub fn list() -> Value {
    let tools: Vec<Value> = all()
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "description": t.description,
                "inputSchema": (t.schema)(),
                // Mutations are idempotent per idempotency_key, and nothing is ever deleted.
                "annotations": {"readOnlyHint": t.read_only, "destructiveHint": false,
                                "idempotentHint": true, "openWorldHint": false},
            })
        })
        .collect();
    json!({ "tools": tools })
}

/// Runs a tool; `None` for an unknown name. The answer is a serialized `CallToolResult`.
pub fn call(store: &Store, principal: &Principal, name: &str, arguments: Value) -> Option<String> {
    all().into_iter().find(|t| t.name == name).map(|t| (t.run)(store, principal, arguments))
}

/// The input schema of an argument type: inlined, without `$schema`.
pub fn schema_of<A: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
    }
    schema
}

fn render(structured: &Value, is_error: bool) -> String {
    json!({
        "content": [{"type": "text", "text": structured.to_string()}],
        "structuredContent": structured,
        "isError": is_error,
    })
    .to_string()
}

pub fn ok_result(value: &Value) -> String {
    render(value, false)
}

pub fn error_result(e: &ToolError) -> String {
    render(&json!({"error": {"code": e.code, "message": e.message}}), true)
}

fn parse<A: DeserializeOwned>(arguments: Value) -> Result<A, ToolError> {
    if !arguments.is_object() {
        return Err(ToolError::invalid("arguments must be a JSON object"));
    }
    // The error names the offending field, e.g. `work_package_ids[1]: invalid ID "a b": ...`.
    serde_path_to_error::deserialize(arguments).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." { String::new() } else { format!("{path}: ") };
        ToolError::invalid(format!("invalid arguments: {at}{}", e.inner()))
    })
}

/// Sorted keys, no insignificant whitespace, top-level `null`s dropped (the same as absent),
/// and without `idempotency_key` itself.
pub fn canonical_arguments(arguments: &Value) -> String {
    fn write(v: &Value, out: &mut String) {
        match v {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                out.push('{');
                for (i, k) in keys.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    write(&map[k], out);
                }
                out.push('}');
            }
            Value::Array(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    write(item, out);
                }
                out.push(']');
            }
            scalar => out.push_str(&scalar.to_string()),
        }
    }
    let mut top = Map::new();
    if let Some(map) = arguments.as_object() {
        for (k, v) in map {
            if k != "idempotency_key" && !v.is_null() {
                top.insert(k.clone(), v.clone());
            }
        }
    }
    let mut out = String::new();
    write(&Value::Object(top), &mut out);
    out
}

/// The arguments of a mutation carry its idempotency key.
pub trait Keyed {
    fn idempotency_key(&self) -> &str;
}

/// Implements [`Keyed`] for argument structs with an `idempotency_key: Id` field.
macro_rules! keyed {
    ($($t:ty),* $(,)?) => {
        $(impl $crate::tools::Keyed for $t {
            fn idempotency_key(&self) -> &str {
                &self.idempotency_key
            }
        })*
    };
}
pub(crate) use keyed;

/// Runs a mutation exactly once per (principal, idempotency key). A replay with the same
/// operation and canonical arguments answers the stored response byte for byte; any other
/// reuse of the key is a `conflict`. A failed mutation writes nothing, not even its key.
pub fn mutate<A: DeserializeOwned + Keyed>(
    tool: &str,
    store: &Store,
    principal: &Principal,
    arguments: Value,
    body: fn(&Mutation<'_, '_>, A) -> ToolResult,
) -> String {
    let args: A = match parse(arguments.clone()) {
        Ok(a) => a,
        Err(e) => return error_result(&e),
    };
    let key = args.idempotency_key().to_string();
    let digest = hex::encode(Sha256::digest(canonical_arguments(&arguments).as_bytes()));
    let scope = principal.key();
    let mut conn = store.lock();
    let outcome = (|| -> Result<String, ToolError> {
        let tx = begin_write(&mut conn)?;
        let earlier: Option<(String, String, String)> = tx
            .query_row(
                "SELECT operation, arguments_sha256, response FROM idempotency
                 WHERE principal = ?1 AND idempotency_key = ?2",
                [&scope, &key],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?;
        if let Some((operation, earlier_digest, response)) = earlier {
            return if operation == tool && earlier_digest == digest {
                Ok(response)
            } else {
                Err(ToolError::conflict(format!(
                    "idempotency_key {key:?} was already used for {operation} with different arguments"
                )))
            };
        }
        let m = Mutation { tx: &tx, now: now_rfc3339(), principal };
        let response = ok_result(&body(&m, args)?);
        tx.execute(
            "INSERT INTO idempotency(principal, idempotency_key, operation, arguments_sha256, response, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            rusqlite::params![scope, key, tool, digest, response, m.now],
        )?;
        tx.commit()?;
        Ok(response)
    })();
    outcome.unwrap_or_else(|e| error_result(&e))
}

/// Runs a read-only tool inside one read transaction (a consistent snapshot).
pub fn query<A: DeserializeOwned>(
    store: &Store,
    principal: &Principal,
    arguments: Value,
    body: fn(&Connection, &Principal, A) -> ToolResult,
) -> String {
    let outcome = parse(arguments).and_then(|args| {
        let mut conn = store.lock();
        let tx = conn.transaction()?;
        let value = body(&tx, principal, args)?;
        tx.commit()?;
        Ok(value)
    });
    match outcome {
        Ok(value) => ok_result(&value),
        Err(e) => error_result(&e),
    }
}

/// Declares a tool: `tool!(name, "description", Args, mutation_fn)` or with `query`.
macro_rules! tool {
    (mutation $name:literal, $description:literal, $args:ty, $body:path) => {
        $crate::tools::Tool {
            name: $name,
            description: $description,
            read_only: false,
            schema: $crate::tools::schema_of::<$args>,
            run: |store, principal, arguments| {
                $crate::tools::mutate::<$args>($name, store, principal, arguments, $body)
            },
        }
    };
    (query $name:literal, $description:literal, $args:ty, $body:path) => {
        $crate::tools::Tool {
            name: $name,
            description: $description,
            read_only: true,
            schema: $crate::tools::schema_of::<$args>,
            run: |store, principal, arguments| {
                $crate::tools::query::<$args>(store, principal, arguments, $body)
            },
        }
    };
}
pub(crate) use tool;
