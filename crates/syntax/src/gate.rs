//! The AST-policy gate: the one object through which Go code analysis runs.

use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use tree_sitter::{Node, Parser, Query, QueryCursor, QueryMatch, StreamingIterator, Tree};

/// Whether Go code may be analysed with an AST (`--no-ast` selects `Forbid`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum AstPolicy {
    #[default]
    Allow,
    Forbid,
}

/// The gate refused: the process runs under the no-AST policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyRefused;

impl std::fmt::Display for PolicyRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Go AST analysis is forbidden by the no-AST policy (--no-ast)")
    }
}
impl std::error::Error for PolicyRefused {}

/// What passed through the gate, for tests and diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GateCounters {
    /// Go files parsed.
    pub parses: u64,
    /// Go query executions (one per `run` call).
    pub query_executions: u64,
    /// Requests the gate refused.
    pub refusals: u64,
}

/// The AST-policy gate. Share one per process (it is `Sync`); it counts what it lets through.
#[derive(Debug, Default)]
pub struct AstGate {
    policy: AstPolicy,
    parses: AtomicU64,
    query_executions: AtomicU64,
    refusals: AtomicU64,
}

impl AstGate {
    pub fn new(policy: AstPolicy) -> Self {
        AstGate { policy, ..Default::default() }
    }

    pub fn policy(&self) -> AstPolicy {
        self.policy
    }

    /// The capability to parse and query Go code, or a refusal under `--no-ast`.
    pub fn go(&self) -> Result<GoSyntax<'_>, PolicyRefused> {
        match self.policy {
            AstPolicy::Allow => Ok(GoSyntax { gate: self }),
            AstPolicy::Forbid => {
                self.refusals.fetch_add(1, Ordering::Relaxed);
                Err(PolicyRefused)
            }
        }
    }

    pub fn counters(&self) -> GateCounters {
        GateCounters {
            parses: self.parses.load(Ordering::Relaxed),
            query_executions: self.query_executions.load(Ordering::Relaxed),
            refusals: self.refusals.load(Ordering::Relaxed),
        }
    }
}

thread_local! {
    static GO_PARSER: RefCell<Parser> = RefCell::new({
        let mut p = Parser::new();
        p.set_language(&crate::queries::go_language()).expect("tree-sitter-go ABI is compatible");
        p
    });
}

/// Permission to analyse Go code, handed out by [`AstGate::go`].
#[derive(Clone, Copy, Debug)]
pub struct GoSyntax<'g> {
    gate: &'g AstGate,
}

impl<'g> GoSyntax<'g> {
    /// Parse Go source. Never fails: syntax errors become `ERROR`/`MISSING` nodes.
    pub fn parse(&self, source: &[u8]) -> Tree {
        self.gate.parses.fetch_add(1, Ordering::Relaxed);
        GO_PARSER.with(|p| p.borrow_mut().parse(source, None)).expect("parser has a language and no timeout")
    }

    /// Parse Go source for one look: hand the tree to `f`, then throw it away. With the
    /// allocator of [`crate::alloc::use_for_tree_sitter`] the parse allocates from this
    /// thread's arena and the tree is discarded in O(1) instead of freed node by node
    /// (`crate::arena`); otherwise it is an ordinary [`GoSyntax::parse`].
    ///
    /// # Safety
    /// `f` must not keep anything that refers into the tree past its return: no clone of the
    /// tree (a clone shares its nodes), no `Node`/cursor smuggled out through unsafe code.
    /// (What it returns may be anything that owns its data.)
    pub unsafe fn parse_once<R>(&self, source: &[u8], f: impl FnOnce(&Tree) -> R) -> R {
        if !crate::arena::begin() {
            return f(&self.parse(source));
        }
        self.gate.parses.fetch_add(1, Ordering::Relaxed);
        // Reset the arena however this ends; declared first, so it is dropped last.
        struct Window;
        impl Drop for Window {
            fn drop(&mut self) {
                // SAFETY: dropped after the parser and the tree (or after they were forgotten).
                unsafe { crate::arena::end() }
            }
        }
        let _window = Window;
        // A parser of its own: everything it allocates while parsing is in the window.
        let mut parser = Parser::new();
        parser.set_language(&crate::queries::go_language()).expect("tree-sitter-go ABI is compatible");
        let tree = parser.parse(source, None).expect("parser has a language and no timeout");
        crate::arena::pause();
        let out = f(&tree);
        if crate::arena::overflowed() {
            // Some blocks came from mimalloc: free them the usual way (arena blocks are skipped).
            drop(tree);
            drop(parser);
        } else {
            std::mem::forget(tree);
            std::mem::forget(parser);
        }
        out
    }

    /// Re-parse `new_source` reusing `old_tree` (the parse of `old_source`): the edit is the
    /// differing middle between their common prefix and suffix. The result equals a full
    /// parse of `new_source`; unchanged subtrees are reused, so a small edit costs far less.
    pub fn reparse(&self, old_tree: &Tree, old_source: &[u8], new_source: &[u8]) -> Tree {
        self.gate.parses.fetch_add(1, Ordering::Relaxed);
        let mut tree = old_tree.clone();
        tree.edit(&input_edit(old_source, new_source));
        GO_PARSER
            .with(|p| p.borrow_mut().parse(new_source, Some(&tree)))
            .expect("parser has a language and no timeout")
    }

    /// A compiled `queries/go/<name>.scm` query.
    pub fn query(&self, name: &str) -> Result<&'static Query, crate::QueryError> {
        crate::queries::go_query(name)
    }

    /// Run `queries/go/<name>.scm` over `node`, calling `each` for every match.
    /// `max_start_depth` limits where matches may start (e.g. `Some(1)` for top-level only).
    pub fn run(
        &self,
        name: &str,
        node: Node<'_>,
        source: &[u8],
        max_start_depth: Option<u32>,
        mut each: impl FnMut(&Query, &QueryMatch<'_, '_>),
    ) -> Result<(), crate::QueryError> {
        let query = self.query(name)?;
        self.gate.query_executions.fetch_add(1, Ordering::Relaxed);
        let mut cursor = QueryCursor::new();
        cursor.set_max_start_depth(max_start_depth);
        let mut matches = cursor.matches(query, node, source);
        while let Some(m) = matches.next() {
            each(query, m);
        }
        Ok(())
    }
}

/// The single edit turning `old` into `new`: replace the bytes between their common prefix
/// and common suffix.
fn input_edit(old: &[u8], new: &[u8]) -> tree_sitter::InputEdit {
    let prefix = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let max_suffix = old.len().min(new.len()) - prefix;
    let suffix = old.iter().rev().zip(new.iter().rev()).take(max_suffix).take_while(|(a, b)| a == b).count();
    let (old_end, new_end) = (old.len() - suffix, new.len() - suffix);
    tree_sitter::InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_at(old, prefix),
        old_end_position: point_at(old, old_end),
        new_end_position: point_at(new, new_end),
    }
}

fn point_at(text: &[u8], byte: usize) -> tree_sitter::Point {
    let before = &text[..byte];
    let row = before.iter().filter(|&&b| b == b'\n').count();
    let column = byte - before.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    tree_sitter::Point { row, column }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbid_refuses_and_counts() {
        let gate = AstGate::new(AstPolicy::Forbid);
        assert_eq!(gate.go().unwrap_err(), PolicyRefused);
        assert_eq!(gate.counters(), GateCounters { parses: 0, query_executions: 0, refusals: 1 });
    }

    #[test]
    fn reparse_equals_a_full_parse() {
        let gate = AstGate::new(AstPolicy::Allow);
        let go = gate.go().unwrap();
        let cases: &[(&str, &str)] = &[
            ("package p\nfunc F() {}\n", "package p\nfunc F() { G() }\nfunc G() {}\n"),
            ("package p\n\nfunc A() {}\n", "package p\n"),
            ("package p\n", "package q\n// é\nfunc X() {}\n"),
            ("package p\nfunc F() {}\n", "package p\nfunc F() {}\n"),
            ("", "package p\n"),
        ];
        for (old, new) in cases {
            let old_tree = go.parse(old.as_bytes());
            let re = go.reparse(&old_tree, old.as_bytes(), new.as_bytes());
            let full = go.parse(new.as_bytes());
            assert_eq!(re.root_node().to_sexp(), full.root_node().to_sexp(), "{old:?} -> {new:?}");
        }
    }

    #[test]
    fn allow_parses_and_counts() {
        let gate = AstGate::new(AstPolicy::Allow);
        let go = gate.go().unwrap();
        let tree = go.parse(b"package p\nfunc F() {}\n");
        assert_eq!(tree.root_node().kind(), "source_file");
        assert!(!tree.root_node().has_error());
        assert_eq!(gate.counters().parses, 1);
    }
}
