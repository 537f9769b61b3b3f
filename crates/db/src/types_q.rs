//! The Go semantic layer as queries: per-package signature summaries, the [`SigSource`] the
//! type model reads packages through, and `implements` edges.
//!
//! Everything here reads only [`file_sigs`], which stays equal across edits inside function
//! bodies, so typing in a body re-runs none of it. Facts are for the non-test build (the
//! package's `_test.go` files and external test packages take no part), as `go/types`
//! reports them for `go build`.

use crate::go_q::{dir_packages, file_sigs, is_test_file, GoDir, GoPackage};
use crate::graph::OwnerFragment;
use crate::inputs::Workspace;
use crate::Db;
use docforge_go::types::{
    compute_named_info, implements, ImplementsPair, NamedInfo, PackageSigs, SigSource, TypeCtx, Unresolved,
    Verdict,
};
use docforge_model::{Edge, Fragment};
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

/// The signature summaries of a package's non-test files.
#[salsa::tracked(returns(ref))]
pub fn package_sigs(db: &dyn Db, pkg: GoPackage<'_>) -> Option<Arc<PackageSigs>> {
    let info = pkg.info(db)?;
    if info.xtest {
        return None;
    }
    let files = info
        .files
        .iter()
        .filter(|f| !is_test_file(f.rel(db)))
        .filter_map(|&f| file_sigs(db, pkg.ws(db), f).clone())
        .collect();
    Some(Arc::new(PackageSigs::new(info.import_path.clone(), files)))
}

/// Packages for the type model, read through salsa so that every lookup is a dependency.
///
/// Answers are remembered for the life of the value, which is one query's execution: salsa
/// records a dependency at the first read, and within one revision a second read would
/// answer the same.
pub struct DbSigs<'db> {
    pub db: &'db dyn Db,
    pub ws: Workspace,
    /// Whether defined types come from [`named_type_info`] (off inside that query itself).
    shared_types: bool,
    /// Editor navigation: packages the project does not hold come from the Go installation
    /// (see [`crate::external_q`]). Never for facts, edges or validation.
    external: bool,
    packages: RefCell<HashMap<String, Option<Arc<PackageSigs>>>>,
    imports: RefCell<HashMap<(String, String), Option<String>>>,
}

impl<'db> DbSigs<'db> {
    pub fn new(db: &'db dyn Db, ws: Workspace) -> DbSigs<'db> {
        DbSigs {
            db,
            ws,
            shared_types: true,
            external: false,
            packages: RefCell::default(),
            imports: RefCell::default(),
        }
    }

    /// The source editor navigation reads: with a GOROOT, standard-library packages the
    /// project does not hold are read from it (their types, methods and fields).
    pub fn for_navigation(db: &'db dyn Db, ws: Workspace) -> DbSigs<'db> {
        DbSigs { external: crate::external_q::reads_external(db, ws), ..DbSigs::new(db, ws) }
    }

    /// The standard-library package `ip` of the GOROOT (navigation only).
    fn external(&self, ip: &str) -> Option<Arc<crate::external_q::ExternalPackage>> {
        self.external.then(|| crate::external_q::external(self.db, self.ws, ip)).flatten()
    }
}

impl SigSource for DbSigs<'_> {
    fn package(&self, import_path: &str) -> Option<Arc<PackageSigs>> {
        if let Some(p) = self.packages.borrow().get(import_path) {
            return p.clone();
        }
        let p = match GoPackage::find(self.db, self.ws, import_path) {
            Some(p) => package_sigs(self.db, p).clone(),
            None => self.external(import_path).map(|e| e.sigs.clone()),
        };
        self.packages.borrow_mut().insert(import_path.to_string(), p.clone());
        p
    }

    fn resolve_import(&self, from_import_path: &str, spec: &str) -> Option<String> {
        let key = (from_import_path.to_string(), spec.to_string());
        if let Some(to) = self.imports.borrow().get(&key) {
            return to.clone();
        }
        let to = (|| {
            let Some(from) = GoPackage::find(self.db, self.ws, from_import_path) else {
                // A package read from outside the project: a standard-library one imports
                // GOROOT's vendored copies (`vendor/golang.org/x/…`) before anything else.
                let vendored = format!("vendor/{spec}");
                let mut candidates = vec![spec, vendored.as_str()];
                if crate::external_q::is_std_import_path(from_import_path) {
                    candidates.reverse();
                }
                return candidates.into_iter().find(|p| self.external(p).is_some()).map(str::to_string);
            };
            let info = from.info(self.db)?;
            match crate::go_graph::resolve_import(self.db, self.ws, info, spec) {
                Some(to) => Some(to.import_path(self.db).clone()),
                None => self.external(spec).map(|_| spec.to_string()),
            }
        })();
        self.imports.borrow_mut().insert(key, to.clone());
        to
    }

    fn named_info(&self, path: &str, name: &str) -> Option<Result<Arc<NamedInfo>, Unresolved>> {
        self.shared_types.then(|| {
            let key = GoTypeName::new(self.db, self.ws, path.to_string(), name.to_string(), self.external);
            named_type_info(self.db, key).clone()
        })
    }
}

/// A package-level defined type, by import path and name.
#[salsa::interned(debug)]
pub struct GoTypeName {
    #[returns(copy)]
    pub ws: Workspace,
    #[returns(ref)]
    pub path: String,
    #[returns(ref)]
    pub name: String,
    /// Computed for editor navigation (through the Go installation, [`DbSigs::for_navigation`]).
    #[returns(copy)]
    pub external: bool,
}

/// What a defined type is (underlying type, declared methods), shared by every file's type
/// context: without it each file's call resolution recomputed every type it touches. Reads
/// signature summaries only (through its own [`DbSigs`], whose types it computes itself, so
/// a declaration cycle such as `type A B; type B A` stays inside one execution).
#[salsa::tracked(returns(ref))]
pub fn named_type_info<'db>(db: &'db dyn Db, name: GoTypeName<'db>) -> Result<Arc<NamedInfo>, Unresolved> {
    let ws = name.ws(db);
    let source = DbSigs { shared_types: false, external: name.external(db), ..DbSigs::new(db, ws) };
    compute_named_info(&source, name.path(db), name.name(db))
}

/// Import paths of every non-test package of the project, sorted.
#[salsa::tracked(returns(ref))]
pub fn module_packages(db: &dyn Db, ws: Workspace) -> Vec<String> {
    let mut out = Vec::new();
    for dir in crate::assemble::all_dirs(db, ws).keys() {
        for p in &dir_packages(db, GoDir::new(db, ws, dir.clone())).packages {
            if !p.xtest {
                out.push(p.import_path.clone());
            }
        }
    }
    out
}

/// At most this many per-package failures are listed (then a count of the rest).
const MAX_FAILURES_LISTED: usize = 16;

/// The packages the semantic layer failed for: signatures that could not be read completely
/// (syntax errors), so their types' facts are incomplete. Any makes precision
/// `precise_fallback`.
#[salsa::tracked(returns(ref))]
pub fn semantic_failures(db: &dyn Db, ws: Workspace) -> Vec<String> {
    let failed: Vec<String> = module_packages(db, ws)
        .iter()
        .filter(|ip| {
            GoPackage::find(db, ws, ip)
                .and_then(|p| package_sigs(db, p).clone())
                .is_some_and(|s| s.has_syntax_errors() || s.unreadable_receivers > 0)
        })
        .map(|ip| format!("{ip}: syntax errors; its type facts are incomplete"))
        .collect();
    let mut out: Vec<String> = failed.iter().take(MAX_FAILURES_LISTED).cloned().collect();
    if failed.len() > MAX_FAILURES_LISTED {
        out.push(format!("and {} more packages", failed.len() - MAX_FAILURES_LISTED));
    }
    out
}

/// Every `implements` pair of the project, grouped by the concrete type's package. Reads
/// signature summaries only.
#[salsa::tracked(returns(ref))]
pub fn module_implements(db: &dyn Db, ws: Workspace) -> Arc<BTreeMap<String, Vec<ImplementsPair>>> {
    let source = DbSigs::new(db, ws);
    let ctx = TypeCtx::new(&source);
    let packages: Vec<&str> = module_packages(db, ws).iter().map(String::as_str).collect();
    let mut by_package: BTreeMap<String, Vec<ImplementsPair>> = BTreeMap::new();
    for pair in implements(&ctx, &packages) {
        let pkg = pair.ty.split("::").next().unwrap_or_default().to_string();
        by_package.entry(pkg).or_default().push(pair);
    }
    Arc::new(by_package)
}

/// The package's `implements` rows: `implements` edges from its named concrete types
/// (attribute `receiver`: `value` when `T` implements, `pointer` when only `*T` does), and
/// `implements_unknown` edges (attribute `reason`) where the answer depends on something
/// the semantic layer could not resolve, so that no consumer reads absence as "no".
#[salsa::tracked(returns(ref))]
pub fn package_implements(db: &dyn Db, pkg: GoPackage<'_>) -> Option<OwnerFragment> {
    let ws = pkg.ws(db);
    if !ws.precise(db) || db.gate().go().is_err() {
        return None;
    }
    let pairs = module_implements(db, ws).get(pkg.import_path(db).as_str())?;
    let mut fragment = Fragment::default();
    for pair in pairs {
        let (source, target) = (format!("go:{}", pair.ty), format!("go:{}", pair.iface));
        fragment.edges.push(match &pair.verdict {
            Verdict::Value => Edge::new(source, "implements", target).with_attr("receiver", "value"),
            Verdict::Pointer => Edge::new(source, "implements", target).with_attr("receiver", "pointer"),
            Verdict::Unknown(u) => {
                Edge::new(source, "implements_unknown", target).with_attr("reason", u.to_string())
            }
        });
    }
    Some(OwnerFragment::new(format!("impl:{}", pkg.import_path(db)), fragment))
}
