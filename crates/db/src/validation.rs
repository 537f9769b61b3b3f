//! What structural validation needs from the engine: the Go source inventory (selected files
//! with their SHA-256 digests, build-excluded and refused Go-side files, module/workspace
//! metadata, scanner errors, the build context) and the documents' `[[claims]]`.
//!
//! Everything here reads memoised queries only (file digests and build selection, which do
//! not use tree-sitter and work under the no-AST policy; document facts for claims). The
//! validation crate turns the inventory into the versioned source-fingerprint manifest.

use crate::go_q::{go_modules, go_selection};
use crate::graph::file_digest;
use crate::host::{Analysis, Cancellable};
use crate::inputs::Content;
use docforge_go::{BuildContext, FileSelection};
use docforge_model::Location;
use docforge_project::FileKind;

/// The Go-side inputs of one revision, every list in lexical path order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoInventory {
    pub build: BuildContext,
    /// (project-relative module directory, module path), by directory.
    pub modules: Vec<(String, String)>,
    /// Build-selected `.go` files: (path, SHA-256 of the exact bytes).
    pub files: Vec<(String, String)>,
    /// `.go` files the build context excludes: (path, reason).
    pub excluded: Vec<(String, String)>,
    /// `go.mod` / `go.work`: (path, kind, SHA-256).
    pub metadata: Vec<(String, &'static str, String)>,
    /// Go-side entries that were not read or not analysed: (path, status label such as
    /// `refused:symlink_outside_root` or `excluded:go_ignored_dir`).
    pub skipped: Vec<(String, String)>,
    /// Scanner errors of the walk: (path, message). While any exist the inventory is not known.
    pub scan_errors: Vec<(String, String)>,
    /// Module/workspace problems that would widen the analysis beyond the root (a `go.work`
    /// `use` or a `go.mod` directory `replace` outside it): one message each.
    pub outside_root: Vec<String>,
    /// Other module metadata problems (`go_mod_invalid`, `go_work_invalid`): (code, path).
    pub metadata_errors: Vec<(String, String)>,
}

/// The Go source inventory of the snapshot.
pub fn go_inventory(analysis: &Analysis) -> Cancellable<GoInventory> {
    let (db, ws) = analysis.parts();
    salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
        let mut out = GoInventory { build: ws.build(db).clone(), ..Default::default() };
        for &file in ws.files(db) {
            let kind = file.kind(db);
            let rel = file.rel(db).clone();
            match (kind, file.content(db)) {
                (_, _) if !kind.is_go_side() => {}
                (_, Content::Unreadable { code, .. }) => out.skipped.push((rel, format!("refused:{code}"))),
                (FileKind::Go, Content::Bytes(_)) => match go_selection(db, ws, file) {
                    FileSelection::Included => {
                        out.files.push((rel, file_digest(db, file).clone().unwrap_or_default()))
                    }
                    FileSelection::Excluded { reason } => out.excluded.push((rel, reason.clone())),
                },
                (_, Content::Bytes(_)) => {
                    out.metadata.push((rel, kind.as_str(), file_digest(db, file).clone().unwrap_or_default()))
                }
            }
        }
        let inventory = ws.inventory(db);
        for (rel, kind, status) in &inventory.skipped {
            if kind.is_go_side() {
                out.skipped.push((rel.clone(), status.clone()));
            }
        }
        out.scan_errors = inventory.scan_errors.clone();
        let modules = go_modules(db, ws);
        out.modules = modules.modules.iter().map(|m| (m.dir.clone(), m.path.clone())).collect();
        for d in &modules.diagnostics {
            let path = d.location.as_ref().map(|l| l.path.clone()).unwrap_or_default();
            if d.code == "go_work_outside_root" || d.code == "go_replace_outside_root" {
                out.outside_root.push(format!("{path}: {}", d.message));
            } else {
                out.metadata_errors.push((d.code.clone(), path));
            }
        }
        for list in [&mut out.files, &mut out.excluded, &mut out.skipped, &mut out.scan_errors] {
            list.sort();
        }
        out.metadata.sort();
        out.modules.sort();
        out
    }))
}

/// One `[[claims]]` entry with the document that states it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocClaim {
    pub document: String,
    pub path: String,
    pub predicate: String,
    pub subject: String,
    pub object: Option<String>,
    pub required_precision: Option<String>,
    pub location: Location,
}

/// Every claim of every document, in document path order, then claim order.
pub fn doc_claims(analysis: &Analysis) -> Cancellable<Vec<DocClaim>> {
    let (db, ws) = analysis.parts();
    salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
        let mut out = Vec::new();
        for &file in ws.files(db) {
            if !matches!(file.kind(db), FileKind::Markdown | FileKind::TomlNode) {
                continue;
            }
            let facts = crate::docs_q::doc_facts(db, file);
            for c in &facts.claims {
                out.push(DocClaim {
                    document: facts.id.clone(),
                    path: facts.path.clone(),
                    predicate: c.predicate.clone(),
                    subject: c.subject.clone(),
                    object: c.object.clone(),
                    required_precision: c.required_precision.clone(),
                    location: c.location.clone(),
                });
            }
        }
        out
    }))
}
