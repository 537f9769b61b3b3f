//! Document queries: per-file facts, the project-wide document index, per-file fragments.

use crate::go_graph::package_owners;
use crate::go_q::GoPackage;
use crate::graph::OwnerFragment;
use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_docs::{DocFacts, DocIndex, DocIndexEntry};
use docforge_project::FileKind;
use std::collections::HashSet;
use std::sync::Arc;

/// Facts of one Markdown document or TOML node file (lossy UTF-8; the file node carries the
/// `invalid_utf8` diagnostic).
#[salsa::tracked(returns(ref))]
pub fn doc_facts(db: &dyn Db, file: SourceFile) -> Arc<DocFacts> {
    Arc::new(parse_doc(file.rel(db), file.kind(db), file.content(db)))
}

/// The facts of a document or TOML node file with this content.
pub(crate) fn parse_doc(rel: &str, kind: FileKind, content: &Content) -> DocFacts {
    let text = match content {
        Content::Bytes(b) => String::from_utf8_lossy(b).into_owned(),
        Content::Unreadable { .. } => String::new(),
    };
    match kind {
        FileKind::TomlNode => docforge_docs::parse_toml_node(rel, &text),
        _ => docforge_docs::parse_markdown_document(rel, &text),
    }
}

/// What other documents read of one document: its entry in the [`DocIndex`]. From its facts
/// as loaded, or, once it changed, from the entry the host recorded
/// ([`SourceFile::index_entry`], set only when it differs, at MEDIUM like files loaded from
/// disk), so that even the first prose edit of a document re-projects no other.
#[salsa::tracked(returns(ref))]
pub fn doc_index_entry(db: &dyn Db, file: SourceFile) -> DocIndexEntry {
    match file.index_entry(db) {
        Some(entry) => (**entry).clone(),
        None => doc_facts(db, file).index_entry(),
    }
}

/// The index of every document: IDs, paths and section slugs. Prose edits leave it equal,
/// so other documents' fragments are not recomputed.
#[salsa::tracked(returns(ref))]
pub fn doc_index(db: &dyn Db, ws: Workspace) -> Arc<DocIndex> {
    let entries: Vec<_> = ws
        .files(db)
        .iter()
        .filter(|f| matches!(f.kind(db), FileKind::Markdown | FileKind::TomlNode))
        .map(|&f| doc_index_entry(db, f).clone())
        .collect();
    Arc::new(DocIndex::from_entries(entries))
}

/// IDs of the `go:` nodes one package defines.
#[salsa::tracked(returns(ref))]
pub fn package_node_ids(db: &dyn Db, pkg: GoPackage<'_>) -> Arc<HashSet<String>> {
    let ids = package_owners(db, pkg)
        .iter()
        .flat_map(|o| o.fragment.nodes.iter())
        .filter(|n| n.id.starts_with("go:"))
        .map(|n| n.id.clone())
        .collect();
    Arc::new(ids)
}

#[salsa::tracked(returns(ref))]
pub fn doc_fragment(db: &dyn Db, ws: Workspace, file: SourceFile) -> OwnerFragment {
    let facts = doc_facts(db, file);
    let index = doc_index(db, ws);
    let fragment = if db.gate().go().is_ok() {
        docforge_docs::document_fragment(facts, index, &|id: &str| {
            crate::go_graph::go_node_exists(db, ws, id)
        })
    } else {
        // Under --no-ast Go symbols are never extracted, so `go:` references cannot be
        // checked; they are kept as declared.
        docforge_docs::document_fragment(facts, index, &|id: &str| id.starts_with("go:"))
    };
    OwnerFragment::new(format!("doc:{}", file.rel(db)), fragment)
}
