//! A small bounded cache of recent Go parse trees, so an edited file is re-parsed
//! incrementally. The cache is an optimisation only: a reparse yields the same tree as a full
//! parse, so query results never depend on what is cached. Trees of the whole repository are
//! never kept: a file's tree enters the cache only when the file is parsed a second time (it
//! is being edited), so a cold index parses and frees each tree while it is still hot in the
//! CPU cache instead of churning the cache with trees that will never be reused.

use docforge_syntax::tree_sitter::Tree;
use docforge_syntax::GoSyntax;
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, Mutex};

/// How many recent trees are kept.
pub const TREE_CACHE_CAPACITY: usize = 16;

/// A cached parse: file path, the bytes it parsed, the tree.
type Entry = (String, Arc<[u8]>, Tree);

#[derive(Default)]
pub struct TreeCache {
    entries: Mutex<VecDeque<Entry>>,
    /// Paths parsed at least once.
    seen: Mutex<HashSet<String>>,
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
            None => {
                let tree = go.parse(source);
                if self.seen.lock().unwrap().insert(rel.to_string()) {
                    return tree;
                }
                tree
            }
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

    /// Whether `rel` has never been parsed through the cache (and count it as parsed now): its
    /// tree would not be kept, so the caller may parse it once and throw the tree away
    /// ([`GoSyntax::parse_once`]). The next [`TreeCache::parse`] of it keeps its tree.
    pub fn first_parse(&self, rel: &str) -> bool {
        let cached = self.entries.lock().unwrap().iter().any(|(r, _, _)| r == rel);
        !cached && self.seen.lock().unwrap().insert(rel.to_string())
    }

    /// Parse `source` of `rel` for an on-demand reader (editor navigation) without touching
    /// the cache: the cached tree when it is of these very bytes, else a full parse that is
    /// not kept (so reading many files never evicts the trees of files being edited).
    pub fn parse_transient(&self, go: GoSyntax<'_>, rel: &str, source: &Arc<[u8]>) -> Tree {
        let cached = {
            let entries = self.entries.lock().unwrap();
            entries.iter().find(|(r, old, _)| r == rel && **old == **source).map(|(_, _, t)| t.clone())
        };
        cached.unwrap_or_else(|| go.parse(source))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docforge_syntax::{AstGate, AstPolicy};

    fn cached(cache: &TreeCache) -> Vec<String> {
        cache.entries.lock().unwrap().iter().map(|(rel, _, _)| rel.clone()).collect()
    }

    #[test]
    fn a_tree_is_kept_only_once_its_file_is_parsed_again() {
        let gate = AstGate::new(AstPolicy::Allow);
        let go = gate.go().unwrap();
        let cache = TreeCache::default();
        let v1: Arc<[u8]> = Arc::from(&b"package a\n\nfunc A() {}\n"[..]);
        let v2: Arc<[u8]> = Arc::from(&b"package a\n\nfunc A() { A() }\n"[..]);
        cache.parse(go, "a.go", &v1);
        cache.parse(go, "b.go", &v1);
        assert!(cached(&cache).is_empty(), "a cold parse keeps no tree");
        let tree = cache.parse(go, "a.go", &v2);
        assert_eq!(cached(&cache), ["a.go"], "the edited file is kept for the next edit");
        assert_eq!(tree.root_node().to_sexp(), go.parse(&v2).root_node().to_sexp());
        let again = cache.parse(go, "a.go", &v1);
        assert_eq!(again.root_node().to_sexp(), go.parse(&v1).root_node().to_sexp());
        assert_eq!(cached(&cache), ["a.go"]);
    }
}
