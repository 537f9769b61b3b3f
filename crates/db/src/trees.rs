//! A small bounded cache of recent Go parse trees, so an edited file is re-parsed
//! incrementally. The cache is an optimisation only: a reparse yields the same tree as a full
//! parse, so query results never depend on what is cached. Trees of the whole repository are
//! never kept.

use docforge_syntax::tree_sitter::Tree;
use docforge_syntax::GoSyntax;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

/// How many recent trees are kept.
pub const TREE_CACHE_CAPACITY: usize = 16;

/// A cached parse: file path, the bytes it parsed, the tree.
type Entry = (String, Arc<[u8]>, Tree);

#[derive(Default)]
pub struct TreeCache {
    entries: Mutex<VecDeque<Entry>>,
}

impl TreeCache {
    /// Parse `source` of `rel`, reusing the cached tree of its previous version when there is one.
    pub fn parse(&self, go: GoSyntax<'_>, rel: &str, source: &Arc<[u8]>) -> Tree {
        let previous = {
            let mut entries = self.entries.lock().unwrap();
            entries.iter().position(|(r, _, _)| r == rel).and_then(|i| entries.remove(i))
        };
        let tree = match &previous {
            Some((_, old, _)) if Arc::ptr_eq(old, source) || **old == **source => {
                previous.as_ref().unwrap().2.clone()
            }
            Some((_, old, old_tree)) => go.reparse(old_tree, old, source),
            None => go.parse(source),
        };
        let evicted = {
            let mut entries = self.entries.lock().unwrap();
            entries.push_front((rel.to_string(), source.clone(), tree.clone()));
            let keep = entries.len().min(TREE_CACHE_CAPACITY);
            entries.split_off(keep)
        };
        // Freeing a tree is not cheap; never do it while other threads wait for the lock.
        drop(evicted);
        tree
    }
}
