//! `implements` across the project boundary, for editor navigation: which of the project's
//! types implement an interface of a package outside the project (the standard library, a
//! required module), and which such interfaces a project type implements. Computed on
//! request through navigation's type source ([`DbSigs::for_navigation`]); never the graph's
//! `implements` edges, which stay inside the project.

use crate::external_q::{external, reads_external};
use crate::go_graph::package_imports;
use crate::go_q::GoPackage;
use crate::host::{Analysis, Cancellable};
use crate::types_q::{module_packages, DbSigs};
use crate::Db;
use docforge_go::types::{implements, ImplementsPair, TypeCtx, Verdict};
use salsa::Cancelled;
use std::collections::BTreeSet;

impl Analysis {
    /// For an interface of a package outside the project (`go:<import path>::I`): the
    /// project's types that implement it (or whose pointer does); for a project type: the
    /// interfaces of the packages outside the project that the project imports which it (or
    /// its pointer) implements. Definite answers only (an `implements_unknown` pair is left
    /// out), sorted; empty without the semantic layer or anything outside the project read.
    pub fn go_external_implements(&self, id: &str) -> Cancellable<Vec<String>> {
        let Some((ip, _)) = id.strip_prefix("go:").and_then(|r| r.split_once("::")) else {
            return Ok(Vec::new());
        };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            if !ws.precise(db) || db.gate().go().is_err() || !reads_external(db, ws) {
                return Vec::new();
            }
            let project = module_packages(db, ws);
            let of_project =
                |sym: &str| sym.rsplit_once("::").is_some_and(|(p, _)| project.iter().any(|q| q == p));
            let outside = GoPackage::find(db, ws, ip).is_none();
            let mut packages: BTreeSet<String> = BTreeSet::new();
            if outside {
                if external(db, ws, ip).is_none() {
                    return Vec::new();
                }
                packages.extend(project.iter().cloned());
                packages.insert(ip.to_string());
            } else {
                packages.insert(ip.to_string());
                for p in project.iter() {
                    let Some(pkg) = GoPackage::find(db, ws, p) else { continue };
                    for (spec, resolved) in &package_imports(db, pkg).0 {
                        if resolved.is_none() && external(db, ws, spec).is_some() {
                            packages.insert(spec.clone());
                        }
                    }
                }
            }
            let source = DbSigs::for_navigation(db, ws);
            let ctx = TypeCtx::new(&source);
            let list: Vec<&str> = packages.iter().map(String::as_str).collect();
            let sym = &id["go:".len()..];
            let definite = |p: &ImplementsPair| matches!(p.verdict, Verdict::Value | Verdict::Pointer);
            let mut out: Vec<String> = implements(&ctx, &list)
                .into_iter()
                .filter(definite)
                .filter_map(|p| match outside {
                    true => (p.iface == sym && of_project(&p.ty)).then(|| format!("go:{}", p.ty)),
                    false => (p.ty == sym && !of_project(&p.iface)).then(|| format!("go:{}", p.iface)),
                })
                .collect();
            out.sort();
            out.dedup();
            out
        }))
    }
}
