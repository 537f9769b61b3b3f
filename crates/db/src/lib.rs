//! The salsa database: source files as inputs, facts and the graph as tracked queries, and an
//! [`AnalysisHost`] that applies changes and hands out [`Analysis`] snapshots to the fronts.
//!
//! Layering: `project` finds and reads files, `go`/`docs` turn one file into facts and facts
//! into graph fragments, this crate wires them into incremental queries. No front parses files.

mod assemble;
mod calls_q;
mod db;
mod digest;
mod docs_q;
mod external_impl;
mod external_q;
mod fields_q;
mod go_graph;
mod go_q;
mod graph;
mod host;
mod ide;
mod inputs;
mod prewarm;
mod publish;
pub mod receipt;
mod tests_q;
mod trees;
mod types_q;
mod uses_q;
mod validation;

pub use db::{Db, ExecutionLog, RootDatabase};
pub use digest::{fragment_digest, sha256_hex};
/// How a Go node's text holds its declaration and doc comment (for fronts, which read no Go).
pub use docforge_go::declaration_and_doc;
pub use external_q::{
    find_goroot, find_module_cache, is_goroot, is_std_import_path, ExternalNode, MAX_EXTERNAL_FILE,
};
pub use fields_q::{FieldRef, FieldUse, SelectorUses};
pub use go_q::{modules_of, Module, Modules};
pub use graph::{Completeness, Graph, OwnerFragment, Summary};
pub use host::{
    build_context, cheap_identity, Analysis, AnalysisHost, Cancellable, Change, FileChange, OverlayPoint,
    Progress, SyncReport,
};
pub use ide::{edge_span_on_line, extent, IdeIndex, Mention, Span};
pub use inputs::{Content, InventoryInfo, SourceFile, Workspace};
pub use publish::{
    holds, published_is_current, published_sources_current, published_summary, PublishError, DERIVATION,
    ENGINE_VERSION,
};
pub use salsa::Cancelled;
pub use uses_q::UseSite;
pub use validation::{doc_claims, go_inventory, go_sites, DocClaim, GoInventory, GoSites, ImportSite};

pub use docforge_syntax::alloc::release_free_memory;
pub use docforge_syntax::{AstGate, AstPolicy, GateCounters};
