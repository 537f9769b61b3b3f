//! Embedding the DocForge MCP server in a project's own Rust program (an explicit project
//! integration): the same server, policy and application gate, with the project's own
//! canonical applier and its own `docforge_get_context` provider.
//!
//! ```sh
//! cargo run -p docforge-mcp --example embed -- --project-root /abs/project \
//!     [--proposal-writer ID] [--canonical-applier ID] [--read-only]
//! ```
//!
//! The applier here is the built-in serializer with one more rule (this project never deletes
//! a document by application); the project declares it by its name:
//!
//! ```toml
//! [application]
//! applier = "markdown-toml-no-deletes@1"
//! writer = "docs-applier"
//! content_roots = ["docs"]
//! ```
//!
//! The context provider gives a document and then its sections (its outline) instead of its
//! neighbours. With a provider of its own, the server answers `docforge_get_task_context`
//! with `task_context_unavailable`. `--read-only` builds the read surface alone.

use docforge_index::Index;
use docforge_mcp::{CapabilityMode, ContextLimits, ContextProvider, Integrations, Options};
use docforge_model::Node;
use docforge_proposals::apply::{CanonicalApplier, MarkdownToml};
use docforge_proposals::{Action, Change, Changeset, ProposalError};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// The document, then every section of it (up to the limit), in ID order.
struct OutlineFirst;

impl ContextProvider for OutlineFirst {
    fn context(&self, node: &Node, limits: &ContextLimits, graph: &Index) -> Result<Vec<Value>, String> {
        let entry = |n: &Node, via: Option<&str>| json!({ "type": "entry", "id": n.id, "kind": n.kind, "title": n.title, "via": via, "text": n.text });
        let mut stream = vec![entry(node, None)];
        let sections = graph
            .ids_with_prefix(&format!("{}#", node.id), limits.max_results + 1)
            .map_err(|e| e.to_string())?;
        for id in sections.iter().take(limits.max_results.saturating_sub(1)) {
            match graph.node_only(id).map_err(|e| e.to_string())? {
                Some(n) => stream.push(entry(&n, Some("section"))),
                None => stream.push(json!({ "type": "omission", "id": id, "reason": "unresolved_target" })),
            }
        }
        if sections.len() >= limits.max_results {
            // An omission needs only its reason (the server writes `id: null`).
            stream.push(json!({ "type": "omission", "reason": "result_limit" }));
        }
        Ok(stream)
    }
}

/// `markdown-toml@1`, and no deletion of a document.
struct NoDeletes;

impl CanonicalApplier for NoDeletes {
    fn name(&self) -> &str {
        "markdown-toml-no-deletes@1"
    }
    fn validate(
        &self,
        _project: &docforge_project::Project,
        changeset: &Changeset,
    ) -> Result<(), ProposalError> {
        match changeset.changes.iter().find(|c| c.action == Action::Delete) {
            Some(c) => Err(ProposalError::new(
                "path_not_allowed",
                format!("{}: this project never deletes a document by application", c.path),
            )),
            None => Ok(()),
        }
    }
    fn serialize(&self, change: &Change) -> Option<Vec<u8>> {
        MarkdownToml.serialize(change)
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut root = None;
    let (mut writer, mut applier, mut read_only) = (None, None, false);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--project-root" => root = args.next().map(PathBuf::from),
            "--proposal-writer" => writer = args.next(),
            "--canonical-applier" => applier = args.next(),
            "--read-only" => read_only = true,
            other => {
                eprintln!("embed: unexpected argument {other:?}");
                std::process::exit(2);
            }
        }
    }
    let Some(project_root) = root else {
        eprintln!("embed: --project-root DIR is required");
        std::process::exit(2);
    };
    let opts = Options {
        project_root,
        no_ast: false,
        diagnostics: false,
        mode: if read_only { CapabilityMode::Read } else { CapabilityMode::Proposal },
        proposal_writer: writer,
        canonical_applier: applier,
        application_bound: false,
        application_reason: None,
    };
    let integrations =
        Integrations { applier: Some(Arc::new(NoDeletes)), context: Some(Arc::new(OutlineFirst)) };
    if let Err(e) = docforge_mcp::run_with(opts, false, integrations) {
        eprintln!("embed: {e}");
        std::process::exit(1);
    }
}
