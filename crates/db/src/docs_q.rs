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
/// `invalid_utf8` diagnostic; spans are of the file's bytes).
#[salsa::tracked(returns(ref))]
pub fn doc_facts(db: &dyn Db, file: SourceFile) -> Arc<DocFacts> {
    let (rel, kind, content) = (file.rel(db), file.kind(db), file.content(db));
    if let Some(facts) = db.prepared_docs().take(rel, kind, content) {
        return facts;
    }
    Arc::new(parse_doc(rel, kind, content))
}

/// Facts of documents the host parsed while applying a change (for their index entries),
/// handed to [`doc_facts`] so the same content is not parsed again. Each entry is taken once,
/// and only for the very bytes it was computed from (the same allocation, the same kind), so
/// it is always what [`parse_doc`] would return. Bounded: entries of documents whose facts are
/// never asked for (a cancelled analysis) give way to newer ones.
#[derive(Default)]
pub struct PreparedDocs {
    entries: std::sync::Mutex<std::collections::VecDeque<Prepared>>,
}

struct Prepared {
    rel: String,
    kind: FileKind,
    bytes: Arc<[u8]>,
    facts: Arc<DocFacts>,
}

/// How many prepared documents are kept (an editor changes one at a time).
const PREPARED_DOCS: usize = 16;

impl PreparedDocs {
    /// The facts of `rel` with this `content`, computed now and kept for [`doc_facts`].
    pub(crate) fn prepare(&self, rel: &str, kind: FileKind, content: &Content) -> Arc<DocFacts> {
        let facts = Arc::new(parse_doc(rel, kind, content));
        if let Content::Bytes(bytes) = content {
            let mut entries = self.lock();
            entries.retain(|e| e.rel != rel);
            entries.push_front(Prepared {
                rel: rel.to_string(),
                kind,
                bytes: bytes.clone(),
                facts: facts.clone(),
            });
            entries.truncate(PREPARED_DOCS);
        }
        facts
    }

    fn take(&self, rel: &str, kind: FileKind, content: &Content) -> Option<Arc<DocFacts>> {
        let Content::Bytes(bytes) = content else { return None };
        let mut entries = self.lock();
        let i = entries.iter().position(|e| e.rel == rel)?;
        let e = entries.remove(i)?;
        (e.kind == kind && Arc::ptr_eq(&e.bytes, bytes)).then_some(e.facts)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, std::collections::VecDeque<Prepared>> {
        self.entries.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The facts of a document or TOML node file with this content. Spans and hashes are of the
/// bytes as read (also when they are not UTF-8); a file that could not be read has none.
pub(crate) fn parse_doc(rel: &str, kind: FileKind, content: &Content) -> DocFacts {
    let bytes: &[u8] = match content {
        Content::Bytes(b) => b,
        Content::Unreadable { .. } => &[],
    };
    let mut facts = match kind {
        FileKind::TomlNode => docforge_docs::parse_toml_node_bytes(rel, bytes),
        _ => docforge_docs::parse_markdown_bytes(rel, bytes),
    };
    if let Content::Unreadable { .. } = content {
        facts.span = None; // not the empty file it was read as
    }
    facts
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
