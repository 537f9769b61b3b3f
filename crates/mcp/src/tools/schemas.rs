//! The `result` of every read tool as Rust types, from which each tool's `outputSchema` is
//! generated (schemars): what a client can rely on finding. Objects stay open (a field added
//! later does not break a client); what is listed is required unless it is an `Option`.
//! Clients validate every response against these (the SDK tests do, with every tool).

#![allow(dead_code)] // schema types: read by schemars, not constructed

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// The schema of `T`, inlined (no `$defs`: it stands inside the response envelope's schema).
pub fn of<T: JsonSchema>() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut v = serde_json::to_value(generator.into_root_schema_for::<T>()).expect("schema serialises");
    if let Some(o) = v.as_object_mut() {
        o.remove("$schema");
        o.remove("title");
    }
    super::plain_formats(&mut v);
    v
}

/// A field that is always present but may be `null` (schemars would let an `Option` field be
/// absent).
#[derive(Serialize, JsonSchema)]
#[serde(transparent)]
pub struct Nullable<T>(Option<T>);

#[derive(Serialize, JsonSchema)]
pub struct Location {
    pub path: String,
    pub line: u32,
    pub column: u32,
}

#[derive(Serialize, JsonSchema)]
pub struct Edge {
    pub relation: String,
    pub class: String,
}

#[derive(Serialize, JsonSchema)]
pub struct EdgeList {
    pub total: u64,
    pub truncated: bool,
    pub items: Vec<Edge>,
}

#[derive(Serialize, JsonSchema)]
pub struct Diagnostic {
    pub severity: String,
    pub code: String,
    pub message: String,
}

#[derive(Serialize, JsonSchema)]
pub struct NodeCard {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub attrs: serde_json::Map<String, Value>,
    pub location: Nullable<Location>,
    /// A page of the node's whole text.
    pub text: String,
    pub text_bytes: u64,
    pub text_offset: u64,
    /// More of the text follows this page (read on from `text_next_offset`).
    pub text_truncated: bool,
    pub text_next_offset: Nullable<u64>,
    pub content_hash: String,
}

#[derive(Serialize, JsonSchema)]
pub struct SourcePage {
    pub bytes: u64,
    pub offset: u64,
    pub text: String,
    pub truncated: bool,
    pub next_offset: Nullable<u64>,
}

#[derive(Serialize, JsonSchema)]
pub struct GetNode {
    pub node: NodeCard,
    pub owner: Nullable<String>,
    pub outgoing: EdgeList,
    pub incoming: EdgeList,
    pub diagnostics: Vec<Diagnostic>,
    /// Documents, sections and TOML nodes: their own bytes, in pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<SourcePage>,
}

#[derive(Serialize, JsonSchema)]
pub struct GetLogic {
    pub node_id: String,
    pub steps: u64,
    pub logic: serde_json::Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct SearchItem {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub path: Nullable<String>,
    /// A short excerpt of the node's text around the query's words (else its start), white
    /// space collapsed, at most 300 bytes and a closing `…`; empty when the node has no text.
    pub snippet: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exact_id: Option<bool>,
}

#[derive(Serialize, JsonSchema)]
pub struct Search {
    pub items: Vec<SearchItem>,
    pub returned: u64,
    pub truncated: bool,
    pub limit_clamped: bool,
    pub next_cursor: Nullable<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct FilterItem {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub attrs: serde_json::Map<String, Value>,
    pub path: Nullable<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct FilterNodes {
    pub items: Vec<FilterItem>,
    pub returned: u64,
    pub truncated: bool,
    pub limit_clamped: bool,
    pub next_cursor: Nullable<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct Backlink {
    pub source: String,
    pub relation: String,
    pub class: String,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Truncation {
    ResultLimit,
    EdgeBudget,
}

#[derive(Serialize, JsonSchema)]
pub struct Backlinks {
    pub node_id: String,
    pub items: Vec<Backlink>,
    pub returned: u64,
    pub truncated: bool,
    pub truncation: Nullable<Truncation>,
    pub limit_clamped: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct Via {
    pub from: String,
    pub relation: String,
    pub class: String,
}

#[derive(Serialize, JsonSchema)]
pub struct Reached {
    pub id: String,
    pub depth: u32,
    pub via: Via,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Outgoing,
    Incoming,
}

/// `docforge_dependencies` and `docforge_impact`.
#[derive(Serialize, JsonSchema)]
pub struct Traversal {
    pub node_id: String,
    pub direction: Direction,
    pub items: Vec<Reached>,
    pub returned: u64,
    pub truncated: bool,
    pub truncation: Nullable<Truncation>,
    pub edges_examined: u64,
    pub edge_budget: u64,
    pub limit_clamped: bool,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ItemType {
    Entry,
    Omission,
    Evidence,
}

/// One item of a context or task-context stream: an entry (or evidence) with its `id`, or an
/// omission with its `reason`; the rest of its fields depend on its type.
#[derive(Serialize, JsonSchema)]
pub struct StreamItem {
    #[serde(rename = "type")]
    pub kind: ItemType,
    pub id: Nullable<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct ContextPage {
    pub returned: u64,
    pub total: u64,
    pub selected_entries: u64,
    pub omissions: u64,
    pub has_more: bool,
    pub next_cursor: Nullable<String>,
    pub collection_hash: String,
    pub limit_clamped: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct GetContext {
    pub node_id: String,
    pub items: Vec<StreamItem>,
    pub page: ContextPage,
}

#[derive(Serialize, JsonSchema)]
pub struct TaskPage {
    pub returned: u64,
    pub total: u64,
    pub evidence_items: u64,
    pub has_more: bool,
    pub next_cursor: Nullable<String>,
    pub limit_clamped: bool,
}

#[derive(Serialize, JsonSchema)]
pub struct GetTaskContext {
    pub task: String,
    pub request_hash: String,
    pub plan_hash: String,
    pub collection_hash: String,
    pub capsule_hash: String,
    pub plan: serde_json::Map<String, Value>,
    pub evidence_gaps: Vec<serde_json::Map<String, Value>>,
    pub items: Vec<StreamItem>,
    pub page: TaskPage,
}

#[derive(Serialize, JsonSchema)]
pub struct Sync {
    pub synchronized: bool,
    pub revision: u64,
    pub index: serde_json::Map<String, Value>,
}

#[derive(Serialize, JsonSchema)]
pub struct ProjectInfo {
    pub project_id: String,
    pub project_root: String,
    pub config_present: bool,
    pub descriptor: serde_json::Map<String, Value>,
    pub index: serde_json::Map<String, Value>,
}

/// `docforge_bootstrap`: in full, or compact (what a small response limit leaves, listed in
/// `omitted_fields`).
#[derive(Serialize, JsonSchema)]
pub struct Bootstrap {
    pub binding: serde_json::Map<String, Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effective_policy: Option<serde_json::Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<serde_json::Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_contract: Option<serde_json::Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted_fields: Option<Vec<String>>,
}

/// `docforge_get_contract`: in full, or compact.
#[derive(Serialize, JsonSchema)]
pub struct Contract {
    pub contract: String,
    pub contract_version: u32,
    pub adapter_version: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub registered_tools: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted_fields: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
pub struct ClaimResult {
    pub predicate: String,
    pub subject: String,
    pub outcome: String,
    pub reason: String,
}

#[derive(Serialize, JsonSchema)]
pub struct ValidateProject {
    pub claims: u64,
    pub outcomes: std::collections::BTreeMap<String, u64>,
    /// Failing claims first, then those that cannot be evaluated, then passing ones.
    pub items: Vec<ClaimResult>,
    pub returned: u64,
    pub truncated: bool,
    /// `result_limit` (max_results) or `response_limit` (the response size), when truncated.
    pub truncation: Nullable<String>,
    pub warnings: Vec<Value>,
}

/// A receipt state: one of [`docforge_workspace::ReceiptState::ALL`].
fn receipt_state(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let states: Vec<&str> = docforge_workspace::ReceiptState::ALL.iter().map(|s| s.as_str()).collect();
    schemars::Schema::try_from(serde_json::json!({ "type": "string", "enum": states })).expect("an object")
}

/// `docforge_get_generation_diff`: a page when `current`, else the state and why.
#[derive(Serialize, JsonSchema)]
pub struct GenerationDiff {
    pub page_schema_version: u32,
    #[schemars(schema_with = "receipt_state")]
    pub receipt_state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub receipt_header: Option<serde_json::Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub items: Option<Vec<serde_json::Map<String, Value>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pagination: Option<serde_json::Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page_hash: Option<String>,
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    /// `Option` fields without `skip_serializing_if` are present, possibly `null` (required);
    /// with it, they may be absent.
    #[test]
    fn nullable_fields_are_required_and_skipped_ones_optional() {
        let s = super::of::<super::Search>();
        let required = s["required"].as_array().unwrap();
        assert!(required.contains(&json!("next_cursor")), "{s}");
        let item = &s["properties"]["items"]["items"];
        let required = item["required"].as_array().unwrap();
        assert!(required.contains(&json!("path")) && !required.contains(&json!("exact_id")), "{item}");
    }
}

// ---- proposal tools ----

/// What every changeset mutation answers, whole or as its compact receipt (a committed
/// mutation is never answered with a failure): the outcome, and which changeset, at which
/// hash, in which status.
#[derive(Serialize, JsonSchema)]
pub struct Mutation {
    pub outcome: String,
    pub changeset_id: String,
    pub changeset_sha256: String,
    pub status: String,
    /// `true` for the compact receipt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact: Option<bool>,
}

/// `docforge_preview_changeset`: `preview` whole, else its compact receipt.
#[derive(Serialize, JsonSchema)]
pub struct Preview {
    pub outcome: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preview: Option<serde_json::Map<String, Value>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact: Option<bool>,
}

#[derive(Serialize, JsonSchema)]
pub struct ListChangesets {
    pub items: Vec<serde_json::Map<String, Value>>,
    pub total: u64,
    pub returned: u64,
    pub limit_clamped: bool,
    pub next_cursor: Nullable<String>,
    /// Records that cannot be read (no status can be given them): each changeset's ID and why.
    pub unreadable: Vec<UnreadableChangeset>,
}

#[derive(Serialize, JsonSchema)]
pub struct UnreadableChangeset {
    pub changeset_id: String,
    pub message: String,
}

/// A paged read of one changeset (`docforge_get_changeset`, `docforge_validate_changeset`).
#[derive(Serialize, JsonSchema)]
pub struct ChangesetPage {
    pub changeset_id: String,
    pub status: String,
    pub total: u64,
    pub returned: u64,
    pub limit_clamped: bool,
    pub next_cursor: Nullable<String>,
}

#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DiffMode {
    Records,
    CanonicalJsonChunk,
}

/// `docforge_get_changeset_diff`: pages of records, or of canonical JSON chunks.
#[derive(Serialize, JsonSchema)]
pub struct ChangesetDiff {
    pub changeset_id: String,
    pub changeset_sha256: String,
    pub status: String,
    pub mode: DiffMode,
    pub next_cursor: Nullable<String>,
}

/// `docforge_apply_changeset`: the applied receipt whole, else compact.
#[derive(Serialize, JsonSchema)]
pub struct Applied {
    pub outcome: String,
    pub changeset_id: String,
    pub changeset_sha256: String,
    pub receipt_path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact: Option<bool>,
}
