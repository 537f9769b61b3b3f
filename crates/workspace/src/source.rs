//! A node's own bytes from its file, as the published generation describes them.

use docforge_model::{Node, NodeSpan};
use sha2::{Digest, Sha256};

/// The file holding a node no longer holds the bytes the index recorded for it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{path} changed since the index was published")]
pub struct SourceChanged {
    pub path: String,
}

impl crate::Workspace {
    /// A document's, section's or TOML node's own bytes, whole (the index keeps only a
    /// bounded summary of its text): read through the confined reader and checked against
    /// the node's `content_sha256`. `Ok(None)` for a node without a span (Go symbols, files).
    pub fn node_source(&self, node: &Node) -> Result<Option<Vec<u8>>, SourceChanged> {
        let Ok(Some(span)) = NodeSpan::from_attrs(&node.attrs) else { return Ok(None) };
        let Some(loc) = &node.location else { return Ok(None) };
        let project = self.project();
        // The index does not hold these bytes although the watcher may have seen nothing (a
        // write through a hard link outside the project): the next call walks the tree.
        let changed = || {
            self.walk_next.store(true, std::sync::atomic::Ordering::Relaxed);
            SourceChanged { path: loc.path.clone() }
        };
        let bytes =
            docforge_project::read_source(&project.root, &loc.path, project.config.limits.max_file_bytes)
                .map_err(|_| changed())?;
        let own = span.span.slice(&bytes).ok_or_else(changed)?;
        if <[u8; 32]>::from(Sha256::digest(own)) != span.content_sha256 {
            return Err(changed());
        }
        Ok(Some(own.to_vec()))
    }
}
