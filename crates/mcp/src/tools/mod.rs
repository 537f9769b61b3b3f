//! The registered tools: one table ([`SPECS`]) is the single source of the names, argument
//! schemas, annotations and handlers; `tools/list`, `get_contract` and the parity test all
//! read it.

mod apply;
mod context;
mod diff;
mod graph;
mod pages;
mod project;
mod proposals;
mod render;
mod schemas;
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
    /// The bytes the result may take: the response limit less the envelope around it.
    pub budget: usize,
}

impl Call<'_> {
    /// The remediation of a result that needs `result_bytes` and does not fit: the
    /// `max_response_bytes` that holds it in this call's envelope.
    pub fn raise_limit(&self, result_bytes: usize) -> String {
        let envelope = (self.server.max_response_bytes as usize / 2).saturating_sub(self.budget);
        crate::reply::raise_limit(envelope + result_bytes)
    }
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
    /// The JSON Schema of the tool's `result`.
    pub result_schema: fn() -> Value,
    /// Whether it writes (below the changeset root): not read-only, not idempotent.
    pub mutates: bool,
}

macro_rules! spec {
    ($name:literal, $args:ty, $handler:path, result $result:ty, $desc:literal) => {
        spec!(@make $name, schema::<$args>, $handler, $result, $desc, true, false)
    };
    (status $name:literal, $args:ty, $handler:path, result $result:ty, $desc:literal) => {
        spec!(@make $name, schema::<$args>, $handler, $result, $desc, false, false)
    };
    (read $name:literal, $schema:expr, $handler:path, result $result:ty, $desc:literal) => {
        spec!(@make $name, $schema, $handler, $result, $desc, true, false)
    };
    (mutation $name:literal, $schema:expr, $handler:path, result $result:ty, $desc:literal) => {
        spec!(@make $name, $schema, $handler, $result, $desc, true, true)
    };
    (@make $name:literal, $schema:expr, $handler:path, $result:ty, $desc:literal, $syncs:literal, $mutates:literal) => {
        ToolSpec {
            name: $name,
            description: $desc,
            input_schema: $schema,
            handler: $handler,
            syncs: $syncs,
            result_schema: schemas::of::<$result>,
            mutates: $mutates,
        }
    };
}

/// The read surface, in its fixed order.
pub static SPECS: &[ToolSpec] = &[
    spec!("docforge_bootstrap", project::NoArgs, project::bootstrap, result schemas::Bootstrap,
        "Synchronise the index and return the fixed binding, effective policy, capabilities and the version-1 session contract. Call first."),
    spec!("docforge_sync", project::NoArgs, project::sync, result schemas::Sync,
        "Re-check the sources (full stat walk) and incrementally rebuild the derived index when stale. Never changes canonical sources."),
    spec!("docforge_project_info", project::NoArgs, project::project_info, result schemas::ProjectInfo,
        "Project identity, configuration (sources, limits) and index counts."),
    spec!("docforge_get_contract", project::NoArgs, project::get_contract, result schemas::Contract,
        "The server contract: registered and unregistered tools, policy, capabilities, limits, error codes, relation vocabulary."),
    spec!("docforge_get_node", graph::GetNodeArgs, graph::get_node, result schemas::GetNode,
        "One node by exact ID with attributes, bounded outgoing/incoming edges and diagnostics."),
    spec!("docforge_get_logic", graph::NodeArgs, graph::get_logic, result schemas::GetLogic,
        "The stored Logic projection (possible static control paths) of one function or method, by exact node ID."),
    spec!("docforge_search", graph::SearchArgs, graph::search, result schemas::Search,
        "Search node IDs, titles and whole texts (Go doc comments included) with plain words or a question: bm25 over the words joined by OR, stems, identifier parts (`serve http` finds ServeHTTP), the last word also a prefix, a node whose ID is the query first (`exact_id`), unexported Go symbols and tests ranked lower; each hit with a snippet of its text around the query's words. Paginated with an opaque cursor."),
    spec!("docforge_filter_nodes", graph::FilterArgs, graph::filter_nodes, result schemas::FilterNodes,
        "Nodes matching exact kind/family/status/authority/tag/path-prefix filters, ordered by ID, paginated."),
    spec!("docforge_backlinks", graph::BacklinkArgs, graph::backlinks, result schemas::Backlinks,
        "Incoming edges of a node: which documents and code link to, govern, document, call or import it."),
    spec!("docforge_dependencies", graph::TraverseArgs, graph::dependencies, result schemas::Traversal,
        "Bounded outgoing traversal: what a node depends on, with depth, result limit and an edge work budget."),
    spec!("docforge_impact", graph::TraverseArgs, graph::impact, result schemas::Traversal,
        "Bounded incoming traversal: what may be affected when a node changes."),
    spec!("docforge_get_context", context::ContextArgs, context::get_context, result schemas::GetContext,
        "A paged context stream for one node: the node and its neighbours first, explicit omission evidence second."),
    spec!("docforge_get_task_context", task::TaskArgs, task::get_task_context, result schemas::GetTaskContext,
        "Evidence for a task (change, implementation, failure, ownership, test, operation, release) from a derived version-1 plan, paged."),
    spec!("docforge_validate_project", project::NoArgs, project::validate_project, result schemas::ValidateProject,
        "Evaluate every [[claims]] entry of the project's documents (gograph.validation.v1 results)."),
    spec!(status "docforge_render_status", render::RenderStatusArgs, render::render_status, result render::RenderStatusResult,
        "Per declared view, the state of its rendered output: current/stale/missing/unverified/unsafe with the reason, from its publication receipt and file identities (never opens the index, renders or writes). deep=true renders in memory and compares every output's SHA-256."),
    spec!(status "docforge_get_generation_diff", diff::DiffArgs, diff::get_generation_diff, result schemas::GenerationDiff,
        "Pages of the latest version-1 transition receipt (what the last index publication changed). Never synchronises; states current/stale/missing/unsafe/unverified/unknown."),
];

/// The proposal surface, in its fixed order (registered in every mode but `read`).
pub static PROPOSAL_SPECS: &[ToolSpec] = &[
    spec!(mutation "docforge_create_changeset", schema::<proposals::CreateArgs>, proposals::create_changeset, result schemas::Mutation,
        "Create an empty draft changeset bound to the current base (source fingerprint + graph digest). Prefer docforge_register_changes."),
    spec!(mutation "docforge_register_changes", schema::<proposals::RegisterArgs>, proposals::register_changes, result schemas::Mutation,
        "Preferred entry point: create, populate, project, conflict-check and validate one complete changeset in one locked operation. Writes only below the changeset root; never changes canonical files."),
    spec!(read "docforge_list_changesets", schema::<proposals::ListArgs>, proposals::list_changesets, result schemas::ListChangesets,
        "Changesets by status (default: draft and ready; stale, applied and abandoned on request or with history=true), paginated."),
    spec!(read "docforge_get_changeset", schema::<proposals::PageArgs>, proposals::get_changeset, result schemas::ChangesetPage,
        "One changeset: status (stale when a touched source moved), base, touched nodes, events, and its operations in pages."),
    spec!(mutation "docforge_rebase_changeset", schema::<proposals::ChangesetArgs>, proposals::rebase_changeset, result schemas::Mutation,
        "Move a stale changeset to the current base when every touched node is unchanged and the same operations still validate; never merges prose (rebase_conflict)."),
    spec!(mutation "docforge_abandon_changeset", schema::<proposals::AbandonArgs>, proposals::abandon_changeset, result schemas::Mutation,
        "Abandon a changeset (kept, terminal) with an audit receipt saying who, when and why."),
    spec!(mutation "docforge_propose_node_create", proposals::node_create_schema, proposals::propose_node_create, result schemas::Mutation,
        "Add a node_create operation: a new Markdown document at a path inside the declared document sources."),
    spec!(mutation "docforge_propose_node_update", proposals::node_update_schema, proposals::propose_node_update, result schemas::Mutation,
        "Add a node_update operation: new title, body and/or front-matter fields. expected_content_hash is the node's attrs.content_sha256 (captured when omitted)."),
    spec!(mutation "docforge_propose_node_move", proposals::node_move_schema, proposals::propose_node_move, result schemas::Mutation,
        "Add a node_move operation: a document file to a new path; its ID stays."),
    spec!(mutation "docforge_propose_relationship_update", proposals::relationship_update_schema, proposals::propose_relationship_update, result schemas::Mutation,
        "Add a relationship_update operation: [relations] entries to add and remove, without touching the body."),
    spec!(mutation "docforge_propose_node_delete", proposals::node_delete_schema, proposals::propose_node_delete, result schemas::Mutation,
        "Add a node_delete operation: a document file, or a section (its heading and content)."),
    spec!(read "docforge_validate_changeset", schema::<proposals::PageArgs>, proposals::validate_changeset, result schemas::ChangesetPage,
        "Validate a changeset against the current graph (nothing written): paths, IDs, relations, links it would break, front matter, overlap; issues in pages."),
    spec!(read "docforge_get_changeset_diff", schema::<proposals::PageArgs>, proposals::get_changeset_diff, result schemas::ChangesetDiff,
        "The operations and the projected changes with unified diffs, in pages; a record too large for a page switches to canonical_json_chunk pages of the exact arrays."),
    spec!(mutation "docforge_preview_changeset", schema::<proposals::PreviewArgs>, proposals::preview_changeset, result schemas::Preview,
        "Render one declared view (by view ID) over the changeset's projected sources into one HTML file below the preview root. Changes no document, index or view output; needs no writer."),
];

/// The application tool: registered only with `--canonical-applier` matching the project's
/// `[application]` declaration.
pub static APPLICATION_SPECS: &[ToolSpec] = &[
    spec!(mutation "docforge_apply_changeset", schema::<apply::ApplyArgs>, apply::apply_changeset, result schemas::Applied,
        "Apply a ready changeset, by ID and exact SHA-256, to the documents as the declared applier: everything is re-checked against the current documents, the files are written all-or-nothing (crash-safe) and verified against the projection, an applied receipt is recorded, then the index and stale views are refreshed."),
];

/// Contract tools this build does not register yet, with why (reported by `get_contract`).
pub static NOT_REGISTERED: &[(&str, &str)] = &[
    ("docforge_visualize", "the graph browser is not implemented in this build"),
    ("docforge_stop_visualization", "the graph browser is not implemented in this build"),
    ("docforge_visualization_status", "the graph browser is not implemented in this build"),
];

/// The tools a process with these options registers, in order.
pub fn registered(opts: &crate::Options) -> Vec<&'static ToolSpec> {
    let proposals = if opts.proposal_surface() { PROPOSAL_SPECS } else { &[] };
    let application = if opts.application_bound { APPLICATION_SPECS } else { &[] };
    SPECS.iter().chain(proposals).chain(application).collect()
}

pub fn names(opts: &crate::Options) -> Vec<&'static str> {
    registered(opts).into_iter().map(|s| s.name).collect()
}

/// Why a tool of the contract is not registered by a process with these options (`None`:
/// it is registered, or it is no contract tool).
pub fn not_registered_reason(opts: &crate::Options, name: &str) -> Option<String> {
    if find(opts, name).is_some() {
        return None;
    }
    if let Some((_, why)) = NOT_REGISTERED.iter().find(|(n, _)| *n == name) {
        return Some(why.to_string());
    }
    if PROPOSAL_SPECS.iter().any(|s| s.name == name) {
        return Some("--capability-mode read registers no proposal tool".into());
    }
    if APPLICATION_SPECS.iter().any(|s| s.name == name) {
        return Some(opts.application_reason.clone().unwrap_or_else(|| {
            "canonical application is off: the server was started without --canonical-applier".into()
        }));
    }
    None
}

pub fn find(opts: &crate::Options, name: &str) -> Option<&'static ToolSpec> {
    registered(opts).into_iter().find(|s| s.name == name)
}

pub(crate) fn schema<T: JsonSchema>() -> Value {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).expect("schema serialises");
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
        o.entry("properties").or_insert_with(|| json!({}));
    }
    plain_formats(&mut v);
    v
}

/// Drop the number formats schemars writes (`uint32`, `int64`, `double`, …), which JSON
/// Schema does not define: validating clients (the TypeScript SDK's ajv) warn on each. The
/// `minimum` schemars writes beside them still bounds the value.
pub(crate) fn plain_formats(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let numeric = o.get("format").and_then(Value::as_str).is_some_and(|f| {
                matches!(f, "uint" | "int" | "double" | "float")
                    || f.strip_prefix("uint")
                        .or_else(|| f.strip_prefix("int"))
                        .is_some_and(|n| n.parse::<u32>().is_ok())
            });
            if numeric {
                o.remove("format");
            }
            o.values_mut().for_each(plain_formats);
        }
        Value::Array(a) => a.iter_mut().for_each(plain_formats),
        _ => {}
    }
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
