//! `.docforge/index.sqlite`: a disposable, atomically published generation of the graph.
//!
//! The salsa engine hands over the whole graph grouped by *owner* (the unit that contributed
//! the rows: `file:docs/a.md`, `pkg:net/http`, …), each with a caller-computed digest of its
//! [`Fragment`]. [`Index::publish`] is incremental: owners whose stored digest equals the new
//! one are not touched, changed owners are deleted and re-inserted, vanished owners are deleted.
//!
//! Every publish runs in one `IMMEDIATE` transaction on a WAL database, so a reader (another
//! connection, another process) sees either the previous generation or the new one, never a
//! mix; an error or a killed process leaves the previous generation intact. (A new index's
//! first generation is written into a private build file that nobody reads until it is
//! complete and put in place, there in two transactions when its edges are written on a
//! second thread: see `stage.rs` and `split.rs`.)
//!
//! [`Index::publish_delta`] applies only the changes since a known generation ([`Delta`]),
//! under the same transaction, no-op and identity rules; it refuses to apply a delta to any
//! other generation ([`IndexError::GenerationMismatch`]).
//!
//! A publish that changes nothing (same owner digests, same files, same source fingerprint,
//! same batch meta) writes nothing and returns the *current* generation: generations count
//! content transitions, not calls.
//!
//! Schema (version [`SCHEMA_VERSION`]):
//!
//! | table | contents |
//! | --- | --- |
//! | `meta(key, value)` | `schema_version`, `generation`, `source_fingerprint`, `published_at`, `graph_digest`, `previous_generation`, `previous_source_fingerprint`, and the batch meta |
//! | `owners(id, key, digest, generation, node_lo/hi, edge_lo/hi, diag_lo/hi)` | one row per owner; `generation` is when its rows were last written; an owner's rows occupy one rid range per table, so deleting an owner needs no owner index |
//! | `nodes(rid, owner, id, kind, title, path, line, col, attrs, text, keys, words)` | `attrs` is a JSON object; `text` whole; `keys`/`words`: for search only (see `fts::keys`: the ID without scheme, a Go symbol's package path reduced to its last element, a section's document title, and the identifier parts of ID and title / of the text) |
//! | `edges(rid, owner, source, relation, class, target, path, line, col)` | `class` from [`classify_relation`] |
//! | `diagnostics(rid, owner, severity, code, message, node, path, line, col)` | |
//! | `files(path, size, mtime_ns, ctime_ns, ino, racy, sha256, kind, status)` | the inventory |
//! | `transition(owner_key, change, old_digest, new_digest)` | owners added/changed/removed by the latest generation |
//! | `nodes_fts(title, text, keys, words)` | FTS5 (`porter unicode61`), external content over `nodes` |
//!
//! Secondary indexes: `nodes(id)`, `edges(source)`, `edges(target)`, `diagnostics(node)`. A
//! publish writing at least 20k rows and at least half the stored row count drops them and
//! the FTS index inside its transaction and rebuilds them after the inserts.

use docforge_model::{classify_relation, Diagnostic, Fragment, Location, Node, RelationClass};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

mod browse;
mod delta;
mod error;
mod fts;
mod open;
mod publish;
mod query;
mod rows;
mod schema;
mod search;
mod split;
mod stage;

pub use browse::{
    Direction, Neighbour, NodeBrief, NodeFilter, NodeSummary, OwnerContent, Reached, Traversal,
    TraverseLimits, Truncation,
};
pub use error::IndexError;
pub use fts::fts_query;
pub use open::Index;
pub use publish::graph_digest;
pub use search::{SearchQuery, SNIPPET_BYTES};

/// The schema this build reads and writes. Any other stored version is refused.
pub const SCHEMA_VERSION: u32 = 6;

/// Meta keys owned by the index itself; a batch may not set them.
pub const RESERVED_META_KEYS: &[&str] = &[
    "schema_version",
    "generation",
    "source_fingerprint",
    "published_at",
    "graph_digest",
    "previous_generation",
    "previous_source_fingerprint",
];

/// One inventoried source file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FileRecord {
    /// Project-relative path with `/` separators.
    pub path: String,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch.
    pub mtime_ns: i64,
    /// Status-change time in nanoseconds since the Unix epoch.
    pub ctime_ns: i64,
    /// The file's inode.
    pub ino: u64,
    /// The stamp was racy when the content was read (see `docforge_project::FileStamp`): an
    /// equal stamp later does not vouch for the content, only its SHA-256 does.
    pub racy: bool,
    /// Lowercase hex SHA-256 of the file's bytes.
    pub sha256: String,
    /// `go`, `markdown`, `toml`, `gomod`, `other`.
    pub kind: String,
    /// `indexed`, `excluded:<reason>`, `refused:<reason>`.
    pub status: String,
}

/// The rows one unit contributed, with the caller's digest of them.
#[derive(Clone, Debug)]
pub struct Owner {
    pub key: String,
    pub digest: [u8; 32],
    pub fragment: Arc<Fragment>,
}

/// Everything one publication stores. Pass *all* owners every time; unchanged ones are cheap.
#[derive(Clone, Debug, Default)]
pub struct Batch {
    pub files: Vec<FileRecord>,
    pub owners: Vec<Owner>,
    pub source_fingerprint: String,
    /// `precision`, `completeness`, `ast_policy`, `project_id`, `engine_version`, …
    /// Keys in [`RESERVED_META_KEYS`] are refused.
    pub meta: BTreeMap<String, String>,
}

/// The changes since the generation `base_generation`, for [`Index::publish_delta`]: a
/// publish that costs O(changes) instead of O(all owners + all files).
///
/// The end state is the stored generation with these owners and files replaced or removed;
/// it must equal what a full [`Batch`] of that end state would publish. A key may appear at
/// most once across `upsert_owners` and `remove_owners` (likewise for file paths).
#[derive(Clone, Debug, Default)]
pub struct Delta {
    /// The generation the caller's knowledge is based on (the generation its last
    /// `publish`/`publish_delta` returned). Any other stored generation is refused with
    /// [`IndexError::GenerationMismatch`]; the caller then falls back to a full publish.
    pub base_generation: u64,
    /// New or changed owners (their rows are replaced). One whose digest equals the stored
    /// digest is skipped and counted as unchanged.
    pub upsert_owners: Vec<Owner>,
    /// Owner keys to delete; a key that is not stored is ignored.
    pub remove_owners: Vec<String>,
    /// New or changed file records; one equal to the stored record is skipped.
    pub upsert_files: Vec<FileRecord>,
    /// Paths to delete from the inventory; a path that is not stored is ignored.
    pub remove_files: Vec<String>,
    pub source_fingerprint: String,
    /// The full batch meta (replaces the stored batch meta, same rules as [`Batch::meta`]).
    pub meta: BTreeMap<String, String>,
}

/// What a publish did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PublishReport {
    /// The generation now current (unchanged when the publish was a no-op).
    pub generation: u64,
    pub owners_written: usize,
    pub owners_deleted: usize,
    /// Owners whose digest matched the stored one (for a delta: skipped upserts only).
    pub owners_unchanged: usize,
    /// Nodes + edges + diagnostics inserted.
    pub rows_written: usize,
    /// File records inserted or updated.
    pub files_written: usize,
    /// File records removed because they left the inventory.
    pub files_deleted: usize,
}

impl PublishReport {
    /// True when the publish found nothing to change and wrote nothing.
    pub fn is_noop(&self) -> bool {
        self.owners_written == 0
            && self.owners_deleted == 0
            && self.files_written == 0
            && self.files_deleted == 0
            && self.rows_written == 0
    }
}

/// Progress inside a running publish, handed to a [`PublishHook`] after each written owner.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PublishProgress {
    /// The generation being written (not yet visible to readers).
    pub generation: u64,
    pub owners_written: usize,
    pub owners_to_write: usize,
    pub rows_written: usize,
}

/// Called inside the publish transaction after every written owner. Returning `Err` aborts the
/// publish (it rolls back and returns [`IndexError::Aborted`]); use it for progress reporting
/// and cancellation.
pub type PublishHook = Box<dyn FnMut(&PublishProgress) -> Result<(), String> + Send>;

/// The identity of the committed generation: which file, which inode, which generation of
/// which source snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Publication {
    /// The index file (absolute when it could be canonicalized).
    pub path: PathBuf,
    pub dev: u64,
    pub inode: u64,
    pub generation: u64,
    pub source_fingerprint: String,
    pub schema_version: u32,
    /// RFC 3339 UTC with milliseconds, e.g. `2025-01-31T12:00:00.123Z`.
    pub published_at: String,
    /// SHA-256 (hex) over every owner key and digest of the generation, in key order.
    pub graph_digest: String,
}

/// Aggregate counts of the current generation.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub generation: u64,
    pub owners: u64,
    pub nodes: u64,
    pub edges: u64,
    /// Functions with a stored Logic projection.
    pub logic: u64,
    pub nodes_by_kind: BTreeMap<String, u64>,
    pub edges_by_relation: BTreeMap<String, u64>,
    pub edges_by_class: BTreeMap<String, u64>,
    pub files_by_kind: BTreeMap<String, u64>,
    pub files_by_status: BTreeMap<String, u64>,
    pub diagnostics_by_severity: BTreeMap<String, u64>,
    /// The whole meta table (reserved keys and batch meta).
    pub meta: BTreeMap<String, String>,
}

/// The stored Logic projection of one function or method node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogicRecord {
    pub node: String,
    pub steps: u32,
    /// The projection as a JSON document.
    pub json: String,
    pub owner: String,
}

/// One lexical search result, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchHit {
    pub id: String,
    pub kind: String,
    pub title: String,
    pub location: Option<Location>,
    /// FTS5 bm25 rank times the node's prior (unexported Go symbols and tests rank lower):
    /// lower (more negative) is better; 0 for an exact ID match that no word of the query
    /// matched.
    pub rank: f64,
    /// The node's ID is exactly the query: listed first, whatever its rank.
    pub exact_id: bool,
    /// The node's row (one of an ID's rows when several owners declare it): what
    /// [`Index::snippets`] reads.
    pub(crate) row: i64,
}

/// How one owner changed in the latest generation (see [`Index::last_transition`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerChange {
    pub key: String,
    /// `added`, `changed` or `removed`.
    pub change: String,
    /// Hex digest before the generation (`None` when added).
    pub old_digest: Option<String>,
    /// Hex digest after the generation (`None` when removed).
    pub new_digest: Option<String>,
}

/// One edge seen from a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EdgeRecord {
    pub source: String,
    pub relation: String,
    pub class: RelationClass,
    pub target: String,
    /// The end that is not the node asked about (target for outgoing, source for incoming).
    pub other: String,
    pub location: Option<Location>,
    pub attrs: docforge_model::Attrs,
    pub owner: String,
}

/// A node with its neighbourhood and diagnostics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRecord {
    pub node: Node,
    /// The owner that contributed this node row.
    pub owner: String,
    pub outgoing: Vec<EdgeRecord>,
    pub incoming: Vec<EdgeRecord>,
    pub diagnostics: Vec<Diagnostic>,
}

/// The references and diagnostics of a node and the nodes inside it
/// ([`Index::references_within`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct References {
    pub outgoing: Vec<EdgeRecord>,
    pub incoming: Vec<EdgeRecord>,
    pub diagnostics: Vec<Diagnostic>,
}

pub(crate) fn relation_class(relation: &str) -> RelationClass {
    classify_relation(relation)
}
