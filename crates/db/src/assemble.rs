//! Assembling the graph from per-directory chunks, so that an edit re-runs one chunk and
//! the top-level query only concatenates.

use crate::go_graph::package_owners;
use crate::go_q::{dir_packages, go_modules, go_selection, GoDir, GoPackage};
use crate::graph::{
    file_fragment, go_meta_fragment, inventory_fragment, Completeness, Graph, OwnerFragment, Summary,
};
use crate::inputs::{SourceFile, Workspace};
use crate::Db;
use docforge_go::FileSelection;
use docforge_model::{Fragment, Precision, Severity};
use docforge_project::FileKind;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Every loaded file grouped by directory. Depends only on the file list.
#[salsa::tracked(returns(ref))]
pub fn all_dirs(db: &dyn Db, ws: Workspace) -> BTreeMap<String, Vec<SourceFile>> {
    let mut dirs: BTreeMap<String, Vec<SourceFile>> = BTreeMap::new();
    for &file in ws.files(db) {
        dirs.entry(crate::go_q::dir_of(file.rel(db)).to_string()).or_default().push(file);
    }
    dirs
}

/// Counts that add up across chunks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub files: usize,
    pub docs: usize,
    pub go_files: usize,
    pub go_files_selected: usize,
    pub go_files_excluded: usize,
    pub packages: usize,
    /// Error codes that make the Go analysis partial, with counts.
    pub go_errors: BTreeMap<String, usize>,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.files += o.files;
        self.docs += o.docs;
        self.go_files += o.go_files;
        self.go_files_selected += o.go_files_selected;
        self.go_files_excluded += o.go_files_excluded;
        self.packages += o.packages;
        for (k, n) in &o.go_errors {
            *self.go_errors.entry(k.clone()).or_default() += n;
        }
    }
    fn count_errors(&mut self, fragment: &Fragment) {
        for d in &fragment.diagnostics {
            if d.severity == Severity::Error {
                *self.go_errors.entry(d.code.clone()).or_default() += 1;
            }
        }
    }
}

/// The owners of one directory (file nodes, documents, the directory's Go packages) and
/// the index records of its files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    pub dir: String,
    pub owners: Vec<OwnerFragment>,
    pub files: Vec<Arc<docforge_index::FileRecord>>,
    pub counts: Counts,
}

/// One directory's chunk: its files' part and its Go packages' part, computed apart so that
/// an edit elsewhere which reaches every package (through project-wide semantic facts such as
/// `implements` or the class hierarchy) re-verifies the packages' part only, never the
/// per-file records of untouched directories.
#[salsa::tracked(returns(ref))]
pub fn dir_chunk(db: &dyn Db, d: GoDir<'_>) -> Arc<Chunk> {
    let files = dir_files_chunk(db, d);
    let (go_owners, go_counts) = &**dir_go_chunk(db, d);
    let mut chunk = (**files).clone();
    chunk.owners.extend(go_owners.iter().cloned());
    chunk.counts.add(go_counts);
    Arc::new(chunk)
}

/// The files of one directory: file nodes and records, documents, per-file counts.
#[salsa::tracked(returns(ref))]
fn dir_files_chunk(db: &dyn Db, d: GoDir<'_>) -> Arc<Chunk> {
    let ws = d.ws(db);
    let mut owners = Vec::new();
    let mut c = Counts::default();
    let files = all_dirs(db, ws).get(d.dir(db)).cloned().unwrap_or_default();
    let mut records = Vec::with_capacity(files.len());
    for file in files {
        let kind = file.kind(db);
        c.files += 1;
        records.push(crate::publish::file_record(db, ws, file).clone());
        let ff = file_fragment(db, ws, file);
        if kind == FileKind::Go {
            c.go_files += 1;
            match go_selection(db, ws, file) {
                FileSelection::Included => c.go_files_selected += 1,
                FileSelection::Excluded { reason } => {
                    c.go_files_excluded += 1;
                    if reason.starts_with("invalid build constraint") {
                        *c.go_errors.entry("go_build_constraint_invalid".into()).or_default() += 1;
                    }
                }
            }
        }
        if kind.is_go_side() {
            c.count_errors(&ff.fragment);
        }
        owners.push(ff.clone());
        if matches!(kind, FileKind::Markdown | FileKind::TomlNode) {
            c.docs += 1;
            owners.push(crate::docs_q::doc_fragment(db, ws, file).clone());
        }
    }
    Arc::new(Chunk { dir: d.dir(db).clone(), owners, files: records, counts: c })
}

/// The Go packages of one directory: their owners and counts.
#[salsa::tracked(returns(ref))]
fn dir_go_chunk(db: &dyn Db, d: GoDir<'_>) -> Arc<(Vec<OwnerFragment>, Counts)> {
    let ws = d.ws(db);
    let mut owners = Vec::new();
    let mut c = Counts::default();
    if db.gate().go().is_ok() {
        let dp = dir_packages(db, d);
        if !dp.diagnostics.is_empty() {
            let fragment = Fragment { diagnostics: dp.diagnostics.clone(), ..Default::default() };
            c.count_errors(&fragment);
            owners.push(OwnerFragment::new(format!("godir:{}", d.dir(db)), fragment));
        }
        for p in &dp.packages {
            let pkg = GoPackage::new(db, ws, d.dir(db).clone(), p.import_path.clone());
            let of = package_owners(db, pkg);
            if !of.is_empty() {
                c.packages += 1;
            }
            for o in of {
                c.count_errors(&o.fragment);
                owners.push(o.clone());
            }
        }
    }
    Arc::new((owners, c))
}

#[salsa::tracked(returns(ref))]
pub fn graph(db: &dyn Db, ws: Workspace) -> Arc<Graph> {
    let ast = db.gate().go().is_ok();
    let mut chunks = Vec::new();
    let mut c = Counts::default();
    for dir in all_dirs(db, ws).keys() {
        let chunk = dir_chunk(db, GoDir::new(db, ws, dir.clone()));
        c.add(&chunk.counts);
        chunks.push(chunk.clone());
    }
    let meta = go_meta_fragment(db, ws);
    c.count_errors(&meta.fragment);
    let inventory = ws.inventory(db);
    for (_, kind, status) in &inventory.skipped {
        if kind.is_go_side() && status.starts_with("refused:") {
            *c.go_errors.entry("go_file_refused".into()).or_default() += 1;
        }
        if kind.is_go_side() && status == &format!("excluded:{}", docforge_project::EXCLUDED_BY_CONFIG) {
            // The go command compiles it: what the graph lacks of it is not absence.
            *c.go_errors.entry("go_file_excluded_by_config".into()).or_default() += 1;
        }
    }
    if !inventory.scan_errors.is_empty() {
        *c.go_errors.entry("scan_error".into()).or_default() += inventory.scan_errors.len();
    }
    let extra = vec![meta.clone(), inventory_fragment(db, ws).clone()];
    let mut s = Summary {
        files: c.files,
        docs: c.docs,
        go_files: c.go_files,
        go_files_selected: c.go_files_selected,
        go_files_excluded: c.go_files_excluded,
        modules: go_modules(db, ws).modules.len(),
        packages: c.packages,
        skipped: inventory.skipped.len(),
        precision: ast.then_some(Precision::Ast),
        ..Default::default()
    };
    for o in chunks.iter().flat_map(|c| c.owners.iter()).chain(extra.iter()) {
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
    if ast && ws.precise(db) {
        let failures = crate::types_q::semantic_failures(db, ws);
        s.precision = Some(if failures.is_empty() { Precision::Precise } else { Precision::PreciseFallback });
        s.precision_reasons = failures.clone();
    }
    s.completeness = Completeness {
        complete: c.go_errors.is_empty(),
        reasons: c.go_errors.into_iter().map(|(k, n)| format!("{k} x{n}")).collect(),
    };
    Arc::new(Graph { chunks, extra, summary: s })
}
