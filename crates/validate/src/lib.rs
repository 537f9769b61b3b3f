//! The structural validation contract (docs/validation.md):
//! strict `gograph.binding.v1` requests, the trusted `.gograph/graph.json` snapshot, the
//! versioned source-fingerprint manifest, freshness checked before and after evaluation,
//! the four v1 predicates and the closed `gograph.validation.v1` result.
//!
//! Transport-neutral: no argument parsing, no printing. Fronts (`gograph`, `docforge
//! validate`) inject repository access ([`RepositoryAccess`]), a [`Clock`] and the version.

mod binding;
mod clock;
mod engine;
mod evaluate;
mod index;
mod manifest;
mod project;
mod readlog;
mod records;
mod report;
mod scan;
mod snapshot;
mod store;
mod validator;

pub use binding::{
    decode_binding, is_import_path, is_machine_local, is_symbol_id, Binding, BindingError, CanonicalBinding,
    Precision, Predicate, RefKind, Reference, BINDING_SCHEMA,
};
pub use clock::{rfc3339, FixedClock, SystemClock};
pub use docforge_project::RACY_WINDOW;
pub use engine::{
    build_snapshot, claim_binding_json, claim_request, current_sources, snapshot_of, Built, DiskRepository,
    PRECISE_UNAVAILABLE,
};
pub use evaluate::{evaluate, GraphView, Verdict};
pub use index::{graph_digest_for_index, named_index_at, GRAPH_HEAD_BYTES, INDEX_FILE};
pub use manifest::{
    build_context_fingerprint, build_section, differences, source_fingerprint, source_manifest,
    SelectionPolicy, SOURCE_MANIFEST_SCHEMA, SOURCE_POLICY_VERSION,
};
pub use project::{validate_project, ProjectValidation};
pub use readlog::{ReadLog, Recheck};
pub use report::{
    AnalysisInfo, Diagnostic, Evaluation, Evidence, Freshness, MatchedRelation, Outcome, Reason, Request,
    Resolved, SourceLocation, ValidationResult, MAX_DIAGNOSTICS, MAX_MESSAGE_BYTES, RESULT_SCHEMA,
};
pub use snapshot::{
    build_meta, Attrs, BuildMeta, FileRecord, ModuleRecord, SnapDiagnostic, SnapEdge, SnapLocation, SnapNode,
    Snapshot, SnapshotError, GRAPH_DIR, GRAPH_FILE, GRAPH_SCHEMA_VERSION,
};
pub use store::{
    graph_rel, hash_graph, publish_graph, read_graph, read_graph_index, write_graph, MAX_GRAPH_BYTES,
};
pub use validator::{Clock, GraphAccessError, GraphRead, Received, RepositoryAccess, SourceState, Validator};

pub use docforge_db::{DocClaim, GoInventory};

/// Lowercase hexadecimal SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    hex::encode(Sha256::digest(bytes))
}
