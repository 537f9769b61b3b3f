//! What structural validation needs from the engine: the Go source inventory (selected files
//! with their SHA-256 digests, build-excluded and refused Go-side files, module/workspace
//! metadata, scanner errors, the build context) and the documents' `[[claims]]`.
//!
//! Everything here reads memoised queries only (file digests and build selection, which do
//! not use tree-sitter and work under the no-AST policy; document facts for claims). The
//! validation crate turns the inventory into the versioned source-fingerprint manifest.

use crate::go_q::{go_modules, go_selection, Modules};
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
    /// `use` or a `go.mod` directory `replace` outside it or through a symlink, a `go.work`
    /// above it, a Go file whose module root is above the Go roots): one message each.
    pub outside_root: Vec<String>,
    /// `go.mod`/`go.work` files enclosing the Go roots from outside them, relative spellings.
    pub enclosing: Vec<String>,
    /// Other module metadata problems (`go_mod_invalid`, `go_work_invalid`): (code, path).
    pub metadata_errors: Vec<(String, String)>,
}

/// The Go source inventory of the snapshot.
pub fn go_inventory(analysis: &Analysis) -> Cancellable<GoInventory> {
    let (db, ws) = analysis.parts();
    salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
        let mut out = GoInventory { build: ws.build(db).clone(), ..Default::default() };
        for &file in ws.files(db) {
            let content = match file.content(db) {
                Content::Bytes(b) => Ok(&b[..]),
                Content::Unreadable { code, .. } => Err(code.as_str()),
            };
            out.add_loaded(
                file.rel(db).clone(),
                file.kind(db),
                content,
                |_| go_selection(db, ws, file).clone(),
                |_| file_digest(db, file).clone().unwrap_or_default(),
            );
        }
        let inventory = ws.inventory(db);
        out.finish(&inventory.skipped, &inventory.scan_errors, go_modules(db, ws));
        out.enclosing = inventory.surroundings.enclosing.clone();
        out
    }))
}

impl GoInventory {
    /// Classify one loaded file of the walk (as [`go_inventory`] does, and a scan that reads
    /// the files itself): a `.go` file that its name excludes under `self.build`
    /// ([`docforge_go::excluded_by_name`]) is excluded whatever its content (a scan need not
    /// read it: see [`GoInventory::needs_content`]); another `.go` file is selected (with its
    /// digest) or excluded by `select`, `go.mod`/`go.work` are metadata (with their digest),
    /// an unreadable Go-side file is skipped; other kinds are ignored. `content` is the bytes
    /// or the read error's code; `select` and `digest` get the bytes.
    pub fn add_loaded(
        &mut self,
        rel: String,
        kind: FileKind,
        content: Result<&[u8], &str>,
        select: impl FnOnce(&[u8]) -> FileSelection,
        digest: impl FnOnce(&[u8]) -> String,
    ) {
        if kind == FileKind::Go {
            if let Some(reason) = docforge_go::excluded_by_name(&self.build, &rel) {
                self.excluded.push((rel, reason));
                return;
            }
        }
        match (kind, content) {
            (_, _) if !kind.is_go_side() => {}
            (_, Err(code)) => self.skipped.push((rel, format!("refused:{code}"))),
            (FileKind::Go, Ok(b)) => match select(b) {
                FileSelection::Included => self.files.push((rel, digest(b))),
                FileSelection::Excluded { reason } => self.excluded.push((rel, reason)),
            },
            (_, Ok(b)) => self.metadata.push((rel, kind.as_str(), digest(b))),
        }
    }

    /// Whether [`GoInventory::add_loaded`] looks at this file's content under `build` (a
    /// Go-side file that its name does not exclude).
    pub fn needs_content(build: &BuildContext, rel: &str, kind: FileKind) -> bool {
        kind.is_go_side() && (kind != FileKind::Go || !docforge_go::is_excluded_by_name(build, rel))
    }

    /// Complete an inventory whose loaded files were added: the walk's Go-side entries that
    /// were not loaded, its scanner errors, the modules and their problems; every list sorted.
    pub fn finish(
        &mut self,
        skipped: &[(String, FileKind, String)],
        scan_errors: &[(String, String)],
        modules: &Modules,
    ) {
        for (rel, kind, status) in skipped {
            if kind.is_go_side() {
                self.skipped.push((rel.clone(), status.clone()));
            }
        }
        self.scan_errors = scan_errors.to_vec();
        self.modules = modules.modules.iter().map(|m| (m.dir.clone(), m.path.clone())).collect();
        for d in &modules.diagnostics {
            let path = d.location.as_ref().map(|l| l.path.clone()).unwrap_or_default();
            if matches!(
                d.code.as_str(),
                "go_work_outside_root" | "go_replace_outside_root" | "go_module_outside_root"
            ) {
                self.outside_root.push(format!("{path}: {}", d.message));
            } else {
                self.metadata_errors.push((d.code.clone(), path));
            }
        }
        for list in [&mut self.files, &mut self.excluded, &mut self.skipped, &mut self.scan_errors] {
            list.sort();
        }
        self.metadata.sort();
        self.modules.sort();
    }
}

/// What validation reads of the Go declarations beyond the graph's rows: every import site
/// (the graph has one `imports` edge per imported path) and every `func init` (which has no
/// package-level identity, so no node).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GoSites {
    pub imports: Vec<ImportSite>,
    /// `(package import path, location)` of each `func init` declaration.
    pub inits: Vec<(String, Location)>,
    /// The precise call sites the graph's `calls` edges do not locate (an edge sits at the
    /// first site of its strongest classification): `(caller, callee, classification,
    /// location)`, bare IDs.
    pub more_calls: Vec<(String, String, &'static str, Location)>,
}

/// One import declaration: `package` imports `target` (resolved as the graph resolves it:
/// GOROOT's vendored copies included) at `location`, in a `_test.go` file when `test`.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct ImportSite {
    pub package: String,
    pub target: String,
    pub location: Location,
    pub test: bool,
}

/// The import sites and `init` functions of every package, in package then file order.
pub fn go_sites(analysis: &Analysis) -> Cancellable<GoSites> {
    use crate::go_q::{dir_packages, is_test_file, GoDir};
    let (db, ws) = analysis.parts();
    salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
        let mut out = GoSites::default();
        for dir in crate::assemble::all_dirs(db, ws).keys() {
            for info in &dir_packages(db, GoDir::new(db, ws, dir.clone())).packages {
                let mut resolved = std::collections::HashMap::new();
                for &file in &info.files {
                    let Some(facts) = crate::go_q::go_facts(db, ws, file).as_ref() else { continue };
                    let rel = file.rel(db);
                    let test = is_test_file(rel);
                    for imp in &facts.imports {
                        let target = resolved
                            .entry(imp.path.clone())
                            .or_insert_with(|| {
                                crate::go_graph::resolve_import(db, ws, info, &imp.path)
                                    .map_or_else(|| imp.path.clone(), |p| p.import_path(db).clone())
                            })
                            .clone();
                        out.imports.push(ImportSite {
                            package: info.import_path.clone(),
                            target,
                            location: Location::new(rel, imp.pos.line, imp.pos.column),
                            test,
                        });
                    }
                    for d in &facts.decls {
                        if d.kind == docforge_go::DeclKind::Func && d.name == "init" && d.receiver.is_none() {
                            out.inits.push((
                                info.import_path.clone(),
                                Location::new(rel, d.pos.line, d.pos.column),
                            ));
                        }
                    }
                    if test || !ws.precise(db) {
                        continue;
                    }
                    let pkg = crate::go_q::GoPackage::new(db, ws, info.dir.clone(), info.import_path.clone());
                    for f in crate::calls_q::file_resolved(db, pkg, file).iter().flat_map(|r| r.iter()) {
                        for (callee, (_, _, more)) in &f.edges {
                            for (class, pos) in more {
                                let at = Location::new(rel, pos.line, pos.column);
                                out.more_calls.push((f.caller.clone(), callee.clone(), class.as_str(), at));
                            }
                        }
                    }
                }
            }
        }
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
    /// Why the entry is invalid before its values are read (unknown keys, wrong types, a
    /// claims-like table under another key); such a claim is never evaluated.
    pub problems: Vec<String>,
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
                    problems: c.problems.clone(),
                });
            }
        }
        out
    }))
}
