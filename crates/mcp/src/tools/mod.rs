//! The registered tools: one table ([`SPECS`]) is the single source of the names, argument
//! schemas, annotations and handlers; `tools/list`, `get_contract` and the parity test all
//! read it.

mod context;
mod diff;
mod graph;
mod project;
mod render;
mod task;

use crate::cursor::{self, CursorV1};
use crate::reply::{Diagnostics, ToolError};
use crate::Server;
use docforge_db::ENGINE_VERSION;
use docforge_workspace::{Generation, Workspace};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// What a handler gets: the synchronised binding, the generation it reads, the server's
/// fixed policy and the request's diagnostics.
pub struct Call<'a> {
    pub engine: &'a mut Workspace,
    pub generation: Generation,
    pub server: &'a Server,
    pub diag: &'a mut Diagnostics,
    /// Envelope fields a non-synchronising tool states itself (revision, staleness, …).
    pub envelope: serde_json::Map<String, Value>,
}

pub type Handler = fn(&mut Call<'_>, Value) -> Result<Value, ToolError>;

pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: fn() -> Value,
    pub handler: Handler,
    /// Whether the call first proves the index current (re-syncing when stale). Status
    /// tools that must never repair say `false`.
    pub syncs: bool,
    /// The JSON Schema of the tool's `result`, when it has its own (else any object).
    pub result_schema: Option<fn() -> Value>,
}

macro_rules! spec {
    ($name:literal, $args:ty, $handler:path, $desc:literal) => {
        ToolSpec {
            name: $name,
            description: $desc,
            input_schema: schema::<$args>,
            handler: $handler,
            syncs: true,
            result_schema: None,
        }
    };
    (status $name:literal, $args:ty, $handler:path, $desc:literal) => {
        ToolSpec {
            name: $name,
            description: $desc,
            input_schema: schema::<$args>,
            handler: $handler,
            syncs: false,
            result_schema: None,
        }
    };
    (status $name:literal, $args:ty, $handler:path, $result:path, $desc:literal) => {
        ToolSpec {
            name: $name,
            description: $desc,
            input_schema: schema::<$args>,
            handler: $handler,
            syncs: false,
            result_schema: Some($result),
        }
    };
}

/// The read surface, in its fixed order.
pub static SPECS: &[ToolSpec] = &[
    spec!("docforge_bootstrap", project::NoArgs, project::bootstrap,
        "Synchronise the index and return the fixed binding, effective policy, capabilities and the version-1 session contract. Call first."),
    spec!("docforge_sync", project::NoArgs, project::sync,
        "Re-check the sources (full stat walk) and incrementally rebuild the derived index when stale. Never changes canonical sources."),
    spec!("docforge_project_info", project::NoArgs, project::project_info,
        "Project identity, configuration (sources, limits) and index counts."),
    spec!("docforge_get_contract", project::NoArgs, project::get_contract,
        "The server contract: registered and unregistered tools, policy, capabilities, limits, error codes, relation vocabulary."),
    spec!("docforge_get_node", graph::NodeArgs, graph::get_node,
        "One node by exact ID with attributes, bounded outgoing/incoming edges and diagnostics."),
    spec!("docforge_get_logic", graph::NodeArgs, graph::get_logic,
        "The stored Logic projection (possible static control paths) of one function or method, by exact node ID."),
    spec!("docforge_search", graph::SearchArgs, graph::search,
        "Lexical search over node IDs, titles and text (bm25), paginated with an opaque cursor."),
    spec!("docforge_filter_nodes", graph::FilterArgs, graph::filter_nodes,
        "Nodes matching exact kind/family/status/authority/tag/path-prefix filters, ordered by ID, paginated."),
    spec!("docforge_backlinks", graph::BacklinkArgs, graph::backlinks,
        "Incoming edges of a node: which documents and code link to, govern, document, call or import it."),
    spec!("docforge_dependencies", graph::TraverseArgs, graph::dependencies,
        "Bounded outgoing traversal: what a node depends on, with depth, result limit and an edge work budget."),
    spec!("docforge_impact", graph::TraverseArgs, graph::impact,
        "Bounded incoming traversal: what may be affected when a node changes."),
    spec!("docforge_get_context", context::ContextArgs, context::get_context,
        "A paged context stream for one node: the node and its neighbours first, explicit omission evidence second."),
    spec!("docforge_get_task_context", task::TaskArgs, task::get_task_context,
        "Evidence for a task (change, implementation, failure, ownership, test, operation, release) from a derived version-1 plan, paged."),
    spec!("docforge_validate_project", project::NoArgs, project::validate_project,
        "Evaluate every [[claims]] entry of the project's documents (gograph.validation.v1 results)."),
    spec!(status "docforge_render_status", render::RenderStatusArgs, render::render_status, render::result_schema,
        "Per declared view, the state of its rendered output: current/stale/missing/unverified/unsafe with the reason, from its publication receipt and file identities (never opens the index, renders or writes). deep=true renders in memory and compares every output's SHA-256."),
    spec!(status "docforge_get_generation_diff", diff::DiffArgs, diff::get_generation_diff,
        "Pages of the latest version-1 transition receipt (what the last index publication changed). Never synchronises; states current/stale/missing/unsafe/unverified/unknown."),
];

/// Contract tools this build does not register yet, with why (reported by `get_contract`).
pub static NOT_REGISTERED: &[(&str, &str)] = &[
    ("docforge_visualize", "the graph browser is not implemented in this build"),
    ("docforge_stop_visualization", "the graph browser is not implemented in this build"),
    ("docforge_visualization_status", "the graph browser is not implemented in this build"),
];

pub fn names() -> Vec<&'static str> {
    SPECS.iter().map(|s| s.name).collect()
}

pub fn find(name: &str) -> Option<&'static ToolSpec> {
    SPECS.iter().find(|s| s.name == name)
}

pub(crate) fn schema<T: JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).expect("schema serialises");
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.entry("properties").or_insert_with(|| json!({}));
    }
    v
}

/// Strict argument decoding: unknown fields and wrong types are `invalid_arguments`.
pub fn args<T: DeserializeOwned>(v: Value) -> Result<T, ToolError> {
    serde_json::from_value(v).map_err(|e| ToolError::invalid(format!("invalid arguments: {e}")))
}

/// A result limit: omitted means the project cap; above the cap is clamped (and said so).
pub fn limit(requested: Option<u32>, cap: u32) -> Result<(usize, bool), ToolError> {
    match requested {
        Some(0) => Err(ToolError::invalid("limit must be at least 1")),
        Some(n) if n > cap => Ok((cap as usize, true)),
        Some(n) => Ok((n as usize, false)),
        None => Ok((cap as usize, false)),
    }
}

impl Call<'_> {
    /// The cursor skeleton this call would issue or accept.
    pub fn cursor_for(&self, operation: &str, params: &Value, collection: &str) -> CursorV1 {
        CursorV1 {
            v: 1,
            project: self.server.project_id.clone(),
            adapter: ENGINE_VERSION.to_string(),
            generation: self.generation.graph_digest.clone(),
            operation: operation.to_string(),
            params: cursor::hash_json(params),
            collection: collection.to_string(),
            position: 0,
            after: String::new(),
        }
    }

    /// Decode an incoming cursor (or start at 0).
    pub fn position(&self, text: Option<&str>, expect: &CursorV1) -> Result<(u64, String), ToolError> {
        match text {
            None => Ok((0, String::new())),
            Some(t) => cursor::decode(t, expect),
        }
    }

    pub fn max_results(&self) -> u32 {
        self.server.max_results
    }
}
