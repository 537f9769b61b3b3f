//! Markdown parsing (block + inline grammars). Documents are the canonical projection, so
//! this is not gated by the AST policy.

use std::cell::RefCell;
use std::sync::atomic::{AtomicUsize, Ordering};
use tree_sitter_md::MarkdownParser;
pub use tree_sitter_md::MarkdownTree;

thread_local! {
    static MD_PARSER: RefCell<MarkdownParser> = RefCell::new(MarkdownParser::default());
}

static PARSES: AtomicUsize = AtomicUsize::new(0);

/// Parse Markdown into a block tree with inline trees. Never fails on any input.
pub fn parse_markdown(text: &[u8]) -> MarkdownTree {
    PARSES.fetch_add(1, Ordering::Relaxed);
    MD_PARSER
        .with(|p| p.borrow_mut().parse(text, None))
        .expect("markdown parser has languages and no timeout")
}

/// Testing aid: how many Markdown documents this process parsed.
#[doc(hidden)]
pub fn markdown_parses() -> usize {
    PARSES.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    #[test]
    fn parses_headings() {
        let t = super::parse_markdown(b"# Title\n\nSome [link](x.md).\n");
        assert_eq!(t.block_tree().root_node().kind(), "document");
        assert!(!t.inline_trees().is_empty());
    }
}
