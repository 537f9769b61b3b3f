//! Assembling the graph: file nodes, per-owner fragments, completeness.

use crate::digest::{fragment_digest, sha256_hex};
use crate::go_q::{go_modules, go_selection};
use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_go::FileSelection;
use docforge_model::{Diagnostic, Fragment, Location, Node, Precision};
use docforge_project::FileKind;
use sha2::{Digest, Sha256};
use std::sync::Arc;

/// The rows one owner (a file, a package, …) contributes, with a digest of them, so the
/// index can skip owners that did not change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerFragment {
    /// Cheap to clone: the graph query clones every owner on each revision.
    pub key: Arc<str>,
    /// Of the whole fragment: its node and edge digests (`hashes`) and its diagnostics and
    /// Logic rows.
    pub digest: [u8; 32],
    /// The receipt's digests of the fragment's nodes and of its edges
    /// ([`crate::receipt::owner_hashes`]), computed once here, where the fragment is made
    /// (on the analysis threads), instead of again at each publication.
    pub(crate) hashes: ([u8; 32], [u8; 32]),
    pub fragment: Arc<Fragment>,
}

impl OwnerFragment {
    pub fn new(key: String, fragment: Fragment) -> Self {
        let hashes = crate::receipt::owner_hashes(&fragment);
        let rest = fragment_digest(&(&fragment.diagnostics, &fragment.logic));
        let mut h = Sha256::new();
        h.update(b"docforge.owner.v2\0");
        for part in [&hashes.0, &hashes.1, &rest] {
            h.update(part);
        }
        OwnerFragment { key: key.into(), digest: h.finalize().into(), hashes, fragment: Arc::new(fragment) }
    }
}

/// Whether the Go analysis covered every selected input without failures.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Completeness {
    pub complete: bool,
    /// Stable codes with a count, e.g. `go_syntax_error x3`; empty when complete.
    pub reasons: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Summary {
    pub files: usize,
    pub docs: usize,
    pub go_files: usize,
    pub go_files_selected: usize,
    pub go_files_excluded: usize,
    pub modules: usize,
    pub packages: usize,
    pub nodes: usize,
    pub edges: usize,
    pub errors: usize,
    pub warnings: usize,
    pub skipped: usize,
    /// `None` under the no-AST policy: Go code was inventoried, not analysed.
    pub precision: Option<Precision>,
    /// Why precision is `precise_fallback`: the packages the semantic layer failed for.
    pub precision_reasons: Vec<String>,
    pub completeness: Completeness,
}

/// The graph of one revision: per-directory chunks (shared with the memoised queries, so
/// an unchanged directory is the same `Arc` across revisions) plus project-level owners.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    pub chunks: Vec<Arc<crate::assemble::Chunk>>,
    /// Module diagnostics and the inventory of refused/excluded files.
    pub extra: Vec<OwnerFragment>,
    pub summary: Summary,
}

impl Graph {
    /// Every owner in a stable order (directories in path order, then project-level owners).
    pub fn owners(&self) -> impl Iterator<Item = &OwnerFragment> {
        self.chunks.iter().flat_map(|c| c.owners.iter()).chain(self.extra.iter())
    }
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.owners().flat_map(|o| o.fragment.nodes.iter())
    }
    pub fn edges(&self) -> impl Iterator<Item = &docforge_model::Edge> {
        self.owners().flat_map(|o| o.fragment.edges.iter())
    }
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.owners().flat_map(|o| o.fragment.diagnostics.iter())
    }
}

/// SHA-256 of a file's bytes.
#[salsa::tracked(returns(ref))]
pub fn file_digest(db: &dyn Db, file: SourceFile) -> Option<String> {
    match file.content(db) {
        Content::Bytes(b) => Some(sha256_hex(b)),
        Content::Unreadable { .. } => None,
    }
}

/// `selected`, `excluded:<reason>` (Go build constraints) or `refused:<code>` (unreadable).
pub(crate) fn file_status(db: &dyn Db, ws: Workspace, file: SourceFile) -> String {
    match (file.content(db), file.kind(db)) {
        (Content::Unreadable { code, .. }, _) => format!("refused:{code}"),
        (Content::Bytes(_), FileKind::Go) => match go_selection(db, ws, file) {
            FileSelection::Included => "selected".to_string(),
            FileSelection::Excluded { reason } => format!("excluded:{reason}"),
        },
        (Content::Bytes(_), _) => "selected".to_string(),
    }
}

/// The `file:<path>` node of a loaded file, with its digest and read problems.
#[salsa::tracked(returns(ref))]
pub fn file_fragment(db: &dyn Db, ws: Workspace, file: SourceFile) -> OwnerFragment {
    let rel = file.rel(db).clone();
    let kind = file.kind(db);
    let id = format!("file:{rel}");
    let mut node = Node { id: id.clone(), kind: "file".into(), title: rel.clone(), ..Default::default() };
    node.location = Some(Location::new(rel.clone(), 0, 0));
    node.attrs.insert("file_kind".into(), kind.as_str().into());
    let mut fragment = Fragment::default();
    match file.content(db) {
        Content::Bytes(bytes) => {
            node.attrs.insert("size".into(), bytes.len().to_string());
            if let Some(d) = file_digest(db, file) {
                node.attrs.insert("sha256".into(), d.clone());
            }
            node.attrs.insert("status".into(), file_status(db, ws, file));
            if rel.ends_with("_test.go") {
                node.attrs.insert("test".into(), "true".into());
            }
            if let Err(e) = std::str::from_utf8(bytes) {
                // Where the first invalid byte is: its line (1-based) and byte column.
                let valid = &bytes[..e.valid_up_to()];
                let line = 1 + valid.iter().filter(|&&b| b == b'\n').count() as u32;
                let column = 1 + valid.iter().rev().take_while(|&&b| b != b'\n').count() as u32;
                let message = match kind {
                    FileKind::Markdown | FileKind::TomlNode => {
                        Some("file is not valid UTF-8; invalid bytes were replaced")
                    }
                    // The Go specification requires UTF-8: the go command refuses the file.
                    FileKind::Go => {
                        Some("Go source is not valid UTF-8; the go command refuses to compile it")
                    }
                    _ => None,
                };
                if let Some(message) = message {
                    fragment.diagnostics.push(
                        Diagnostic::error("invalid_utf8", message)
                            .at(Location::new(rel.clone(), line, column))
                            .on(id.clone()),
                    );
                }
            }
        }
        Content::Unreadable { code, message } => {
            node.attrs.insert("status".into(), format!("refused:{code}"));
            fragment.diagnostics.push(
                Diagnostic::error(code.clone(), message.clone())
                    .at(Location::new(rel.clone(), 0, 0))
                    .on(id.clone()),
            );
        }
    }
    fragment.nodes.push(node);
    OwnerFragment::new(id, fragment)
}

/// File nodes and diagnostics for entries the walk refused, and scanner errors.
#[salsa::tracked(returns(ref))]
pub fn inventory_fragment(db: &dyn Db, ws: Workspace) -> OwnerFragment {
    let inv = ws.inventory(db);
    let mut fragment = Fragment::default();
    for (rel, kind, status) in &inv.skipped {
        let id = format!("file:{rel}");
        let mut node = Node { id: id.clone(), kind: "file".into(), title: rel.clone(), ..Default::default() };
        node.location = Some(Location::new(rel.clone(), 0, 0));
        node.attrs.insert("file_kind".into(), kind.as_str().into());
        node.attrs.insert("status".into(), status.clone());
        if let Some(code) = status.strip_prefix("refused:") {
            let d = Diagnostic::error(code, format!("{rel}: {}", refusal_message(code)));
            fragment.diagnostics.push(d.at(Location::new(rel.clone(), 0, 0)).on(id));
        }
        fragment.nodes.push(node);
    }
    for (rel, message) in &inv.scan_errors {
        fragment.diagnostics.push(Diagnostic::error("scan_error", message.clone()).at(Location::new(
            rel.clone(),
            0,
            0,
        )));
    }
    OwnerFragment::new("inventory".into(), fragment)
}

fn refusal_message(code: &str) -> &'static str {
    match code {
        "symlink_outside_root" => "symlink leaves the project root; refused, not followed",
        "symlink_dangling" => "dangling symlink; refused",
        "symlink_not_regular" => "symlink to a directory or special file; refused, not followed",
        "special_file" => "special file (FIFO, socket or device); refused, never opened",
        "file_too_large" => "file is larger than limits.max_file_bytes; refused, not read",
        "unreadable" => "file cannot be read",
        _ => "refused",
    }
}

/// Module diagnostics (`go.mod`/`go.work`).
#[salsa::tracked(returns(ref))]
pub fn go_meta_fragment(db: &dyn Db, ws: Workspace) -> OwnerFragment {
    let mut fragment = Fragment::default();
    fragment.diagnostics.extend(go_modules(db, ws).diagnostics.iter().cloned());
    OwnerFragment::new("go:meta".into(), fragment)
}

/// SHA-256 over the manifest lines (`path<TAB>kind<TAB>sha256`) of one directory's files.
#[salsa::tracked(returns(ref))]
pub fn dir_fingerprint(db: &dyn Db, d: crate::go_q::GoDir<'_>) -> String {
    let mut m = String::new();
    for &file in crate::assemble::all_dirs(db, d.ws(db)).get(d.dir(db)).map(Vec::as_slice).unwrap_or_default()
    {
        let digest = file_digest(db, file).as_deref().unwrap_or("unreadable");
        m.push_str(&format!("{}\t{}\t{}\n", file.rel(db), file.kind(db).as_str(), digest));
    }
    sha256_hex(m.as_bytes())
}

/// SHA-256 over a canonical manifest of every loaded and skipped source file and the Go
/// build context: per directory (in path order) its name and [`dir_fingerprint`], then the
/// skipped entries and scanner errors. Equal fingerprints mean equal sources. (The
/// validation contract's Go-only manifest is defined separately.)
#[salsa::tracked(returns(ref))]
pub fn source_fingerprint(db: &dyn Db, ws: Workspace) -> String {
    let mut m = String::from("docforge.sources.v1\n");
    m.push_str(&ws.build(db).canonical());
    m.push('\n');
    for dir in crate::assemble::all_dirs(db, ws).keys() {
        let fp = dir_fingerprint(db, crate::go_q::GoDir::new(db, ws, dir.clone()));
        m.push_str(&format!("dir\t{dir}\t{fp}\n"));
    }
    for (rel, kind, status) in &ws.inventory(db).skipped {
        m.push_str(&format!("{rel}\t{}\t{status}\n", kind.as_str()));
    }
    for (rel, msg) in &ws.inventory(db).scan_errors {
        m.push_str(&format!("{rel}\tscan_error\t{msg}\n"));
    }
    sha256_hex(m.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::OwnerFragment;
    use docforge_model::{Diagnostic, Edge, Fragment, LogicRow, Node};

    /// The owner digest the index compares moves with every part of the fragment (nodes and
    /// edges through the receipt's digests, which `receipt` tests field by field), and the
    /// receipt's digests are the ones `owner_hashes` computes.
    #[test]
    fn owner_digest_covers_the_whole_fragment() {
        let base = Fragment {
            nodes: vec![Node {
                id: "go:m::F".into(),
                kind: "func".into(),
                title: "F".into(),
                location: None,
                text: String::new(),
                attrs: Default::default(),
            }],
            edges: vec![Edge::new("go:m::F", "calls", "go:m::G")],
            diagnostics: vec![Diagnostic::error("go_syntax_error", "x")],
            logic: vec![LogicRow { node: "go:m::F".into(), steps: 1, json: "{}".into() }],
        };
        let digest = |f: &Fragment| OwnerFragment::new("k".into(), f.clone()).digest;
        let owner = OwnerFragment::new("k".into(), base.clone());
        assert_eq!(owner.hashes, crate::receipt::owner_hashes(&base));
        assert_eq!(digest(&base), owner.digest);
        type Change = fn(&mut Fragment);
        let changes: [(&str, Change); 6] = [
            ("node", |f| f.nodes[0].text.push('x')),
            ("edge", |f| f.edges[0].target.push('x')),
            ("diagnostic", |f| f.diagnostics[0].message.push('x')),
            ("logic", |f| f.logic[0].steps = 2),
            ("no diagnostics", |f| f.diagnostics.clear()),
            ("no logic", |f| f.logic.clear()),
        ];
        for (what, change) in changes {
            let mut f = base.clone();
            change(&mut f);
            assert_ne!(digest(&f), owner.digest, "{what}");
        }
    }
}
