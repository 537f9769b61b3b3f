//! Precise call resolution as queries: per-file resolution of every call site against the
//! package's types, interface calls expanded with class-hierarchy analysis over the whole
//! project.
//!
//! A body edit re-runs only the edited file's resolution: [`module_cha`] and the type
//! context read signature summaries only, which stay equal across body edits.

use crate::go_q::{is_test_file, take_bodies, GoPackage};
use crate::inputs::{SourceFile, Workspace};
use crate::types_q::{module_packages, package_sigs, DbSigs};
use crate::Db;
use docforge_go::calls::{resolve_file_calls, CallTarget, ChaIndex, StaticKind};
use docforge_go::types::TypeCtx;
use docforge_go::Pos;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The class hierarchy of the project: its named concrete types and their method sets.
/// Not comparable, so dependents re-run whenever it does — which is only when a
/// signature somewhere changes.
#[salsa::tracked(returns(ref), no_eq)]
pub fn module_cha(db: &dyn Db, ws: Workspace) -> Arc<ChaIndex> {
    let source = DbSigs::new(db, ws);
    let ctx = TypeCtx::new(&source);
    let packages: Vec<&str> = module_packages(db, ws).iter().map(String::as_str).collect();
    Arc::new(ChaIndex::new(&ctx, &packages))
}

/// How a call edge was established (the validation contract's classification).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Classification {
    /// A static call resolved through the call's operand types.
    ResolvedStatic,
    /// A possible target of an interface call (CHA).
    ChaPossibleTarget,
    /// Only reached through a compiler-generated wrapper (method expressions, promoted or
    /// value methods through `*T` in CHA).
    Synthetic,
}

impl Classification {
    pub fn as_str(self) -> &'static str {
        match self {
            Classification::ResolvedStatic => "resolved_static",
            Classification::ChaPossibleTarget => "cha_possible_target",
            Classification::Synthetic => "synthetic",
        }
    }
}

/// One call site: its classification and position.
pub type Site = (Classification, Pos);

/// The resolved calls of one function or method.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ResolvedFunc {
    /// The caller's symbol ID (no `go:`).
    pub caller: String,
    /// One per callee: the strongest classification and its first call site, then every
    /// other site (with its own classification), for evidence that names each.
    pub edges: BTreeMap<String, (Classification, Pos, Vec<Site>)>,
    /// Call sites outside the static call model, by reason.
    pub unresolved: BTreeMap<String, u32>,
    /// The sites whose callee is undefined ([`docforge_go::calls::Reason::Undefined`]: the
    /// code does not type-check), with what is undefined.
    pub undefined: Vec<(Pos, String)>,
}

impl ResolvedFunc {
    pub fn complete(&self) -> bool {
        self.unresolved.is_empty()
    }
    pub fn unresolved_count(&self) -> u32 {
        self.unresolved.values().sum()
    }
    fn edge(&mut self, callee: String, class: Classification, pos: Pos) {
        use std::collections::btree_map::Entry;
        match self.edges.entry(callee) {
            Entry::Vacant(v) => {
                v.insert((class, pos, Vec::new()));
            }
            Entry::Occupied(mut o) => {
                let e = o.get_mut();
                if class < e.0 {
                    e.2.push((e.0, e.1));
                    (e.0, e.1) = (class, pos);
                } else if (class, pos) != (e.0, e.1) {
                    e.2.push((class, pos));
                }
            }
        }
    }
}

/// The call sites of one function before CHA: static edges, interface calls to expand, and
/// the sites outside the static call model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FuncSites {
    /// The caller and its static edges and unresolved sites.
    pub statics: ResolvedFunc,
    /// `(interface type, method, call position)` of each interface call.
    pub interface_calls: Vec<(docforge_go::types::Type, docforge_go::types::Key, Pos)>,
}

/// Precise call resolution of one non-test file of `pkg`, before CHA expansion; `None` when
/// precise analysis is off, or for test files (their calls keep syntax resolution). It reads
/// the file's body facts and the signatures of its package and imports only — not the
/// project-wide class hierarchy — so after an edit elsewhere it is verified without
/// revisiting the edited package's dependents.
#[salsa::tracked(returns(ref))]
pub fn file_calls(db: &dyn Db, pkg: GoPackage<'_>, file: SourceFile) -> Option<Arc<Vec<FuncSites>>> {
    let mut out = Vec::new();
    for f in resolve_calls(db, pkg, file)? {
        let Some(caller) = f.caller else { continue };
        let statics = ResolvedFunc {
            caller,
            edges: BTreeMap::new(),
            unresolved: BTreeMap::new(),
            undefined: Vec::new(),
        };
        let mut sites = FuncSites { statics, interface_calls: Vec::new() };
        for site in f.sites {
            match site.target {
                CallTarget::Static { callee, kind } => {
                    let class = match kind {
                        StaticKind::MethodExpr => Classification::Synthetic,
                        _ => Classification::ResolvedStatic,
                    };
                    sites.statics.edge(callee, class, site.pos);
                }
                CallTarget::Interface { iface, method } => {
                    sites.interface_calls.push((iface, method, site.pos))
                }
                CallTarget::Unresolved { reason, detail } => {
                    *sites.statics.unresolved.entry(reason.as_str().into()).or_default() += 1;
                    if reason == docforge_go::calls::Reason::Undefined {
                        sites.statics.undefined.push((site.pos, detail));
                    }
                }
                CallTarget::Builtin(_)
                | CallTarget::Conversion
                | CallTarget::NotEvaluated
                | CallTarget::Closure => {}
            }
        }
        out.push(sites);
    }
    Some(Arc::new(out))
}

/// Every call site of every function of one non-test file of `pkg`, classified (precise
/// analysis only; `None` as for [`file_calls`]). Untracked: called by tracked queries.
pub(crate) fn resolve_calls(
    db: &dyn Db,
    pkg: GoPackage<'_>,
    file: SourceFile,
) -> Option<Vec<docforge_go::calls::FuncCalls>> {
    let ws = pkg.ws(db);
    let (info, index) = semantic_file(db, pkg, file)?;
    let bodies = take_bodies(db, ws, file)?;
    let source = DbSigs::new(db, ws);
    let ctx = TypeCtx::new(&source);
    Some(resolve_file_calls(&ctx, &info.import_path, index, &bodies))
}

/// The package of a non-test file of `pkg` and the file's index among the signature
/// summaries of [`package_sigs`]; `None` without precise analysis, for test files (they get
/// no semantic facts) and when the package has no summaries.
pub(crate) fn semantic_file<'db>(
    db: &'db dyn Db,
    pkg: GoPackage<'db>,
    file: SourceFile,
) -> Option<(&'db crate::go_q::PackageInfo, usize)> {
    if !pkg.ws(db).precise(db) || is_test_file(file.rel(db)) {
        return None;
    }
    let info = pkg.info(db)?;
    package_sigs(db, pkg).as_ref()?;
    let index = info.files.iter().filter(|f| !is_test_file(f.rel(db))).position(|&f| f == file)?;
    Some((info, index))
}

/// The resolved calls of one non-test file of `pkg`, interface calls expanded with CHA over
/// the project. Per file, so that typing in a body re-expands only the edited file's
/// interface calls and re-projects only its fragment; after a signature change anywhere
/// every file's expansion re-runs (expansions are shared through [`ChaIndex`]'s memo).
#[salsa::tracked(returns(ref))]
pub fn file_resolved(db: &dyn Db, pkg: GoPackage<'_>, file: SourceFile) -> Option<Arc<Vec<ResolvedFunc>>> {
    let ws = pkg.ws(db);
    let funcs = file_calls(db, pkg, file).clone()?;
    let source = DbSigs::new(db, ws);
    let ctx = TypeCtx::new(&source);
    let mut cha = None;
    let mut resolved = Vec::with_capacity(funcs.len());
    for f in funcs.iter() {
        let mut r = f.statics.clone();
        for (iface, method, pos) in &f.interface_calls {
            let cha: &ChaIndex = cha.get_or_insert_with(|| module_cha(db, ws).clone());
            let expansion = cha.targets(&ctx, iface, method);
            if !expansion.unknown.is_empty() {
                // Some type may implement the interface unseen: the target set is not
                // known to be complete.
                *r.unresolved.entry("cha_incomplete".into()).or_default() += 1;
            }
            for t in &expansion.targets {
                let class =
                    if t.synthetic { Classification::Synthetic } else { Classification::ChaPossibleTarget };
                r.edge(t.callee.clone(), class, *pos);
            }
        }
        resolved.push(r);
    }
    Some(Arc::new(resolved))
}
