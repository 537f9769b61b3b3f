//! What a Rust program that embeds the MCP server as a library (an explicit project
//! integration) may supply: its own canonical applier and its own provider of
//! `docforge_get_context` streams. Everything else — policy, limits, pagination, the
//! application gate — stays the server's.

use docforge_index::Index;
use docforge_model::Node;
use docforge_proposals::apply::{CanonicalApplier, MarkdownToml};
use serde_json::Value;
use std::sync::Arc;

/// The bounds a context provider works within.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextLimits {
    /// The project's `max_results`: the most entries a stream should select.
    pub max_results: usize,
    /// The most edges of one direction worth reading.
    pub edge_budget: usize,
}

/// The three-argument provider contract of `docforge_get_context`: the focus node, the
/// limits and the graph (the published generation, read-only) give the whole stream — JSON
/// objects whose `type` is `entry` (with an `id`) or `omission` (with a `reason`) — after
/// which the server paginates it as it paginates its own. A server with a custom provider
/// answers `docforge_get_task_context` with `task_context_unavailable`, without synchronising.
pub trait ContextProvider: Send + Sync {
    fn context(&self, node: &Node, limits: &ContextLimits, graph: &Index) -> Result<Vec<Value>, String>;
}

/// A project integration's parts; the default is the built-in behaviour.
#[derive(Clone, Default)]
pub struct Integrations {
    /// The canonical applier (default: `markdown-toml@1`); `[application] applier` must name it.
    pub applier: Option<Arc<dyn CanonicalApplier>>,
    /// The provider of `docforge_get_context` streams (default: the node and its neighbours).
    pub context: Option<Arc<dyn ContextProvider>>,
}

impl Integrations {
    /// The applier in force.
    pub fn applier(&self) -> &dyn CanonicalApplier {
        match &self.applier {
            Some(a) => a.as_ref(),
            None => &MarkdownToml,
        }
    }
}
