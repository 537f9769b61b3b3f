//! The changeset as stored and hashed: its base, operations, projected changes, validation
//! issues and lifecycle. Plain data, serialised as canonical JSON.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// The version of the stored changeset record and of its canonical hash input.
pub const SCHEMA_VERSION: u32 = 1;

/// The canonical base a changeset was projected from: the published generation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Base {
    pub revision: u64,
    /// The source fingerprint (content hashes of every source).
    pub source_hash: String,
    pub graph_digest: String,
}

/// One relation entry of `relationship_update`: `relation` = `target` in `[relations]`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelationRef {
    /// The relation name (a `[relations]` key: letters, digits, `_`).
    pub relation: String,
    /// The target node ID (`arch.storage`, `arch.storage#slug`, `go:…`).
    pub target: String,
}

/// `node_create`: a new Markdown document at `path`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeCreate {
    /// The new document's ID (written as front-matter `id`).
    pub node_id: String,
    /// Project-relative path of the new `.md` file, inside the declared document sources.
    pub path: String,
    /// Front-matter `kind` (also accepted inside `fields`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The document's title: its first heading (`# title`).
    pub title: String,
    /// The Markdown under the title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Front-matter fields: `kind`, `family`, `authority`, `status`, `tags` and other keys.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Map<String, Value>>,
    /// `[relations]`: relation name → target IDs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relations: Option<BTreeMap<String, Vec<String>>>,
}

/// `node_update`: new title, body and/or front-matter fields of an existing node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeUpdate {
    pub node_id: String,
    /// The node's `content_sha256` the change was written against (captured when omitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_content_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A document's Markdown after its front matter; a section's content under its heading.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// Front-matter fields to set (`null` removes a field). Documents and TOML nodes only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Map<String, Value>>,
}

/// `node_move`: a document (or TOML node) file to a new path, keeping its ID.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeMove {
    pub node_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_content_hash: Option<String>,
    pub new_path: String,
}

/// `node_delete`: a document or TOML node file, or a section (its heading and content).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NodeDelete {
    pub node_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_content_hash: Option<String>,
}

/// `relationship_update`: `[relations]` entries to add and remove; the body is not touched.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RelationshipUpdate {
    pub node_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected_content_hash: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub add: Option<Vec<RelationRef>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remove: Option<Vec<RelationRef>>,
}

/// One operation of a changeset, in the order given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Operation {
    NodeCreate(NodeCreate),
    NodeUpdate(NodeUpdate),
    NodeMove(NodeMove),
    NodeDelete(NodeDelete),
    RelationshipUpdate(RelationshipUpdate),
}

impl Operation {
    /// The names `op` takes.
    pub const NAMES: [&'static str; 5] =
        ["node_create", "node_update", "node_move", "node_delete", "relationship_update"];

    pub fn name(&self) -> &'static str {
        match self {
            Operation::NodeCreate(_) => "node_create",
            Operation::NodeUpdate(_) => "node_update",
            Operation::NodeMove(_) => "node_move",
            Operation::NodeDelete(_) => "node_delete",
            Operation::RelationshipUpdate(_) => "relationship_update",
        }
    }

    pub fn node_id(&self) -> &str {
        match self {
            Operation::NodeCreate(o) => &o.node_id,
            Operation::NodeUpdate(o) => &o.node_id,
            Operation::NodeMove(o) => &o.node_id,
            Operation::NodeDelete(o) => &o.node_id,
            Operation::RelationshipUpdate(o) => &o.node_id,
        }
    }

    /// The expected content hash of an operation on an existing node (`None` for a create).
    pub fn expected_hash(&self) -> Option<&Option<String>> {
        match self {
            Operation::NodeCreate(_) => None,
            Operation::NodeUpdate(o) => Some(&o.expected_content_hash),
            Operation::NodeMove(o) => Some(&o.expected_content_hash),
            Operation::NodeDelete(o) => Some(&o.expected_content_hash),
            Operation::RelationshipUpdate(o) => Some(&o.expected_content_hash),
        }
    }

    pub(crate) fn expected_hash_mut(&mut self) -> Option<&mut Option<String>> {
        match self {
            Operation::NodeCreate(_) => None,
            Operation::NodeUpdate(o) => Some(&mut o.expected_content_hash),
            Operation::NodeMove(o) => Some(&mut o.expected_content_hash),
            Operation::NodeDelete(o) => Some(&mut o.expected_content_hash),
            Operation::RelationshipUpdate(o) => Some(&mut o.expected_content_hash),
        }
    }

    /// Decode one operation object with its `op` field, refusing unknown fields (the error
    /// names the field); `index` is its place in the list, for the message.
    pub fn from_json(mut v: Value) -> Result<Operation, String> {
        let Some(obj) = v.as_object_mut() else { return Err("an operation must be an object".into()) };
        let op = match obj.remove("op") {
            Some(Value::String(s)) => s,
            Some(_) => return Err("`op` must be a string".into()),
            None => return Err(format!("missing `op` (one of {})", Self::NAMES.join(", "))),
        };
        Self::decode(&op, v)
    }

    /// Decode the fields of the operation `op` (without the `op` field).
    pub fn decode(op: &str, v: Value) -> Result<Operation, String> {
        fn de<T: serde::de::DeserializeOwned>(v: Value) -> Result<T, String> {
            serde_json::from_value(v).map_err(|e| e.to_string())
        }
        Ok(match op {
            "node_create" => Operation::NodeCreate(de(v)?),
            "node_update" => Operation::NodeUpdate(de(v)?),
            "node_move" => Operation::NodeMove(de(v)?),
            "node_delete" => Operation::NodeDelete(de(v)?),
            "relationship_update" => Operation::RelationshipUpdate(de(v)?),
            other => return Err(format!("unknown op `{other}` (one of {})", Self::NAMES.join(", "))),
        })
    }
}

/// What a change does to one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Create,
    Modify,
    Delete,
}

/// One touched source file: its hash at the base and the exact bytes the serializer would
/// write (`after_text` when they are UTF-8, else `after_base64`; neither for a delete).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Change {
    pub path: String,
    pub action: Action,
    pub before_sha256: Option<String>,
    pub after_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_text: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after_base64: Option<String>,
}

impl Change {
    /// The bytes the serializer would write (`None` for a delete).
    pub fn after_bytes(&self) -> Option<Vec<u8>> {
        use base64::Engine as _;
        match (&self.after_text, &self.after_base64) {
            (Some(t), _) => Some(t.as_bytes().to_vec()),
            (None, Some(b)) => base64::engine::general_purpose::STANDARD.decode(b).ok(),
            (None, None) => None,
        }
    }
}

/// A node the changeset touches, with its content hash at the base (`None`: created).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TouchedNode {
    pub node_id: String,
    pub path: String,
    pub before_content_sha256: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
}

/// One validation finding. Errors keep the changeset a `draft`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Issue {
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// The operation (0-based index) it concerns, when one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operation: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

impl Issue {
    pub fn error(code: &str, message: impl Into<String>) -> Issue {
        Issue {
            code: code.into(),
            severity: Severity::Error,
            message: message.into(),
            operation: None,
            node_id: None,
            path: None,
        }
    }
    pub fn warning(code: &str, message: impl Into<String>) -> Issue {
        Issue { severity: Severity::Warning, ..Issue::error(code, message) }
    }
    pub fn op(mut self, i: Option<usize>) -> Issue {
        self.operation = i;
        self
    }
    pub fn node(mut self, id: impl Into<String>) -> Issue {
        self.node_id = Some(id.into());
        self
    }
    pub fn at(mut self, path: impl Into<String>) -> Issue {
        self.path = Some(path.into());
        self
    }
}

/// The lifecycle state. `stale` is also derived on read when the base moved under a touched
/// source; `applied` and `abandoned` are terminal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Draft,
    Ready,
    Stale,
    Applied,
    Abandoned,
}

impl Status {
    pub const ALL: [Status; 5] =
        [Status::Draft, Status::Ready, Status::Stale, Status::Applied, Status::Abandoned];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Draft => "draft",
            Status::Ready => "ready",
            Status::Stale => "stale",
            Status::Applied => "applied",
            Status::Abandoned => "abandoned",
        }
    }
    pub fn parse(s: &str) -> Option<Status> {
        Status::ALL.into_iter().find(|st| st.as_str() == s)
    }
    /// Open changesets take part in overlap detection.
    pub fn is_open(self) -> bool {
        matches!(self, Status::Draft | Status::Ready | Status::Stale)
    }
}

/// One lifecycle event, kept in the record (abandon also writes an audit receipt file).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Event {
    /// `created`, `operation_added`, `rebased`, `abandoned`.
    pub event: String,
    pub at: String,
    pub writer: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The changeset's hash after the event.
    pub changeset_sha256: String,
}

/// A stored changeset.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Changeset {
    pub schema_version: u32,
    pub changeset_id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The proposal writer that created it.
    pub writer: String,
    pub created_at: String,
    pub updated_at: String,
    /// The stored state (see [`Status`]; a read may find a draft or ready changeset stale).
    pub status: Status,
    pub base: Base,
    pub operations: Vec<Operation>,
    pub changes: Vec<Change>,
    pub touched_nodes: Vec<TouchedNode>,
    pub validation: Vec<Issue>,
    /// SHA-256 of the canonical JSON of `{schema_version, base, operations, changes}`.
    pub changeset_sha256: String,
    pub events: Vec<Event>,
}

impl Changeset {
    /// The hash the application gate requires: SHA-256 (hex) over the canonical JSON
    /// (sorted keys, no whitespace) of the schema version, base, operations and changes.
    pub fn compute_hash(&self) -> String {
        let v = serde_json::json!({
            "schema_version": self.schema_version,
            "base": self.base,
            "operations": self.operations,
            "changes": self.changes,
        });
        sha256_hex(canonical_json(&v).as_bytes())
    }

    pub fn has_errors(&self) -> bool {
        severity_counts(&self.validation).0 > 0
    }

    /// `ready` when there is something to apply and nothing is wrong with it.
    pub(crate) fn settle_status(&mut self) {
        self.status =
            if self.operations.is_empty() || self.has_errors() { Status::Draft } else { Status::Ready };
    }

    /// The touched source paths.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.changes.iter().map(|c| c.path.as_str())
    }
}

/// How many findings are errors, and how many warnings.
pub fn severity_counts(issues: &[Issue]) -> (usize, usize) {
    let errors = issues.iter().filter(|i| i.severity == Severity::Error).count();
    (errors, issues.len() - errors)
}

/// Canonical JSON: object keys sorted (serde_json's map is ordered), no whitespace.
pub fn canonical_json(v: &Value) -> String {
    fn sort(v: &Value) -> Value {
        match v {
            Value::Object(m) => {
                let sorted: BTreeMap<&String, Value> = m.iter().map(|(k, v)| (k, sort(v))).collect();
                Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), v)).collect())
            }
            Value::Array(a) => Value::Array(a.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(v).to_string()
}

pub use docforge_db::sha256_hex;
