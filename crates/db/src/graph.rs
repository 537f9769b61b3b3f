//! Assembling the graph: file nodes, per-owner fragments, completeness.

use crate::digest::{fragment_digest, sha256_hex};
use crate::go_q::{go_modules, go_packages, go_selection, package_owners, GoPackage};
use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_go::FileSelection;
use docforge_model::{Diagnostic, Fragment, Location, Node, Precision, Severity};
use docforge_project::FileKind;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The rows one owner (a file, a package, …) contributes, with a digest of them, so the
/// index can skip owners that did not change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OwnerFragment {
    /// Cheap to clone: the graph query clones every owner on each revision.
    pub key: Arc<str>,
    pub digest: [u8; 32],
    pub fragment: Arc<Fragment>,
}

impl OwnerFragment {
    pub fn new(key: String, fragment: Fragment) -> Self {
        OwnerFragment { key: key.into(), digest: fragment_digest(&fragment), fragment: Arc::new(fragment) }
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
    pub completeness: Completeness,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// Owners in a stable order (files, then packages, then project-level owners).
    pub owners: Vec<OwnerFragment>,
    pub summary: Summary,
}

impl Graph {
    pub fn nodes(&self) -> impl Iterator<Item = &Node> {
        self.owners.iter().flat_map(|o| o.fragment.nodes.iter())
    }
    pub fn edges(&self) -> impl Iterator<Item = &docforge_model::Edge> {
        self.owners.iter().flat_map(|o| o.fragment.edges.iter())
    }
    pub fn diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.owners.iter().flat_map(|o| o.fragment.diagnostics.iter())
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
            let status = match (kind, kind == FileKind::Go) {
                (_, true) => match go_selection(db, ws, file) {
                    FileSelection::Included => "selected".to_string(),
                    FileSelection::Excluded { reason } => format!("excluded:{reason}"),
                },
                _ => "selected".to_string(),
            };
            node.attrs.insert("status".into(), status);
            if rel.ends_with("_test.go") {
                node.attrs.insert("test".into(), "true".into());
            }
            if matches!(kind, FileKind::Markdown | FileKind::TomlNode) && std::str::from_utf8(bytes).is_err()
            {
                fragment.diagnostics.push(
                    Diagnostic::error("invalid_utf8", "file is not valid UTF-8; invalid bytes were replaced")
                        .at(Location::new(rel.clone(), 1, 1))
                        .on(id.clone()),
                );
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

/// Module and package-placement diagnostics.
#[salsa::tracked(returns(ref))]
pub fn go_meta_fragment(db: &dyn Db, ws: Workspace) -> OwnerFragment {
    let mut fragment = Fragment::default();
    fragment.diagnostics.extend(go_modules(db, ws).diagnostics.iter().cloned());
    if db.gate().go().is_ok() {
        fragment.diagnostics.extend(go_packages(db, ws).diagnostics.iter().cloned());
    }
    OwnerFragment::new("go:meta".into(), fragment)
}

#[salsa::tracked(returns(ref))]
pub fn graph(db: &dyn Db, ws: Workspace) -> Arc<Graph> {
    let ast = db.gate().go().is_ok();
    let mut owners = Vec::new();
    let mut s = Summary { precision: ast.then_some(Precision::Ast), ..Default::default() };
    let mut go_errors: BTreeMap<String, usize> = BTreeMap::new();
    for &file in ws.files(db) {
        let kind = file.kind(db);
        s.files += 1;
        let ff = file_fragment(db, ws, file);
        if kind == FileKind::Go {
            s.go_files += 1;
            match go_selection(db, ws, file) {
                FileSelection::Included => s.go_files_selected += 1,
                FileSelection::Excluded { reason } => {
                    s.go_files_excluded += 1;
                    if reason.starts_with("invalid build constraint") {
                        *go_errors.entry("go_build_constraint_invalid".into()).or_default() += 1;
                    }
                }
            }
        }
        if kind.is_go_side() {
            count_errors(&ff.fragment, &mut go_errors);
        }
        owners.push(ff.clone());
        if matches!(kind, FileKind::Markdown | FileKind::TomlNode) {
            s.docs += 1;
            owners.push(crate::docs_q::doc_fragment(db, ws, file).clone());
        }
    }
    let meta = go_meta_fragment(db, ws);
    count_errors(&meta.fragment, &mut go_errors);
    owners.push(meta.clone());
    s.modules = go_modules(db, ws).modules.len();
    if ast {
        for ip in go_packages(db, ws).by_path.keys() {
            let owners_of = package_owners(db, GoPackage::new(db, ws, ip.clone()));
            if !owners_of.is_empty() {
                s.packages += 1;
            }
            for o in owners_of {
                count_errors(&o.fragment, &mut go_errors);
                owners.push(o);
            }
        }
    }
    let inv = inventory_fragment(db, ws);
    s.skipped = ws.inventory(db).skipped.len();
    for (_, kind, status) in &ws.inventory(db).skipped {
        if kind.is_go_side() && status.starts_with("refused:") {
            *go_errors.entry("go_file_refused".into()).or_default() += 1;
        }
    }
    if !ws.inventory(db).scan_errors.is_empty() {
        *go_errors.entry("scan_error".into()).or_default() += ws.inventory(db).scan_errors.len();
    }
    owners.push(inv.clone());
    for o in &owners {
        s.nodes += o.fragment.nodes.len();
        s.edges += o.fragment.edges.len();
        for d in &o.fragment.diagnostics {
            match d.severity {
                Severity::Error => s.errors += 1,
                Severity::Warning => s.warnings += 1,
                Severity::Info => {}
            }
        }
    }
    s.completeness = Completeness {
        complete: go_errors.is_empty(),
        reasons: go_errors.into_iter().map(|(k, n)| format!("{k} x{n}")).collect(),
    };
    Arc::new(Graph { owners, summary: s })
}

fn count_errors(fragment: &Fragment, into: &mut BTreeMap<String, usize>) {
    for d in &fragment.diagnostics {
        if d.severity == Severity::Error {
            *into.entry(d.code.clone()).or_default() += 1;
        }
    }
}

/// SHA-256 over a canonical manifest of every loaded and skipped source file (path, kind,
/// content digest or status) and the Go build context. Equal fingerprints mean the graph
/// derived from the sources is equal. (The validation contract's Go-only manifest is
/// defined separately.)
#[salsa::tracked(returns(ref))]
pub fn source_fingerprint(db: &dyn Db, ws: Workspace) -> String {
    let mut m = String::from("docforge.sources.v1\n");
    m.push_str(&ws.build(db).canonical());
    m.push('\n');
    for &file in ws.files(db) {
        let digest = file_digest(db, file).as_deref().unwrap_or("unreadable");
        m.push_str(&format!("{}\t{}\t{}\n", file.rel(db), file.kind(db).as_str(), digest));
    }
    for (rel, kind, status) in &ws.inventory(db).skipped {
        m.push_str(&format!("{rel}\t{}\t{status}\n", kind.as_str()));
    }
    for (rel, msg) in &ws.inventory(db).scan_errors {
        m.push_str(&format!("{rel}\tscan_error\t{msg}\n"));
    }
    sha256_hex(m.as_bytes())
}
