//! Go graph rows: per-package symbol tables, import resolution (including GOROOT's
//! vendored packages), the package's own rows and one owner per file.

use crate::go_q::{go_facts, go_outline, is_test_file, GoPackage, PackageInfo};
use crate::graph::OwnerFragment;
use crate::inputs::{SourceFile, Workspace};
use crate::Db;
use docforge_go::{FileFacts, PackageFile, PackageSymbols};
use docforge_model::{Edge, Fragment};
use std::sync::Arc;

fn package_files<'a>(
    db: &'a dyn Db,
    ws: Workspace,
    info: &'a PackageInfo,
) -> Vec<(SourceFile, &'a Arc<FileFacts>)> {
    files_with(info, |f| go_facts(db, ws, f).as_ref())
}

/// The package's files with the facts `facts` gives for each (files without are left out).
fn files_with<'a>(
    info: &PackageInfo,
    facts: impl Fn(SourceFile) -> Option<&'a Arc<FileFacts>>,
) -> Vec<(SourceFile, &'a Arc<FileFacts>)> {
    info.files.iter().filter_map(|&f| facts(f).map(|x| (f, x))).collect()
}

fn as_package_files<'a>(
    db: &'a dyn Db,
    files: &'a [(SourceFile, &'a Arc<FileFacts>)],
) -> Vec<PackageFile<'a>> {
    files
        .iter()
        .map(|(f, facts)| PackageFile { path: f.rel(db), facts, test: is_test_file(f.rel(db)) })
        .collect()
}

/// The package-level symbol table. Equal after edits inside function bodies, so the
/// package's other files are not re-projected.
#[salsa::tracked(returns(ref))]
pub fn package_symbols(db: &dyn Db, pkg: GoPackage<'_>) -> Option<Arc<PackageSymbols>> {
    let info = pkg.info(db)?;
    // Read by every importer: from the files' outlines (see `go_q::go_outline`).
    let files = files_with(info, |f| go_outline(db, pkg.ws(db), f).as_ref().map(|o| o.facts()));
    Some(Arc::new(docforge_go::package_symbols(&as_package_files(db, &files))))
}

/// The package an import path written in `info`'s files denotes: the path itself when the
/// project has that package, or its vendored copy for GOROOT's `std` (`vendor/...`) and `cmd`
/// (`cmd/vendor/...`) modules, as the go command resolves them.
pub(crate) fn resolve_import<'db>(
    db: &'db dyn Db,
    ws: Workspace,
    info: &PackageInfo,
    path: &str,
) -> Option<GoPackage<'db>> {
    if let Some(p) = GoPackage::find(db, ws, path) {
        return Some(p);
    }
    let vendored = match info.module.as_deref() {
        Some("std") => format!("vendor/{path}"),
        Some("cmd") => format!("cmd/vendor/{path}"),
        _ => return None,
    };
    GoPackage::find(db, ws, &vendored)
}

/// What the import paths written in a package's files denote: the resolved import path and
/// that package's symbol table (`None` for packages outside the project). One table per
/// package keeps the dependency edges of each file's fragment few, so re-verifying the
/// dependents of an edited package stays cheap.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ImportTable(pub std::collections::BTreeMap<String, Option<(String, Arc<PackageSymbols>)>>);

#[salsa::tracked(returns(ref))]
pub fn package_imports(db: &dyn Db, pkg: GoPackage<'_>) -> Arc<ImportTable> {
    let mut table = ImportTable::default();
    let Some(info) = pkg.info(db) else { return Arc::new(table) };
    let ws = pkg.ws(db);
    for (_, facts) in package_files(db, pkg.ws(db), info) {
        for imp in &facts.imports {
            if table.0.contains_key(&imp.path) {
                continue;
            }
            let resolved = resolve_import(db, ws, info, &imp.path).and_then(|p| {
                let syms = package_symbols(db, p).clone()?;
                Some((p.import_path(db).clone(), syms))
            });
            table.0.insert(imp.path.clone(), resolved);
        }
    }
    Arc::new(table)
}

/// Rewrite `go:<path>` / `go:<path>::<symbol>` edge ends to the resolved (vendored) package.
fn rewrite_targets(fragment: &mut Fragment, resolve: &dyn Fn(&str) -> Option<String>) {
    for e in &mut fragment.edges {
        for end in [&mut e.source, &mut e.target] {
            let Some(rest) = end.strip_prefix("go:") else { continue };
            let (path, tail) = match rest.split_once("::") {
                Some((p, t)) => (p, Some(t)),
                None => (rest, None),
            };
            let Some(resolved) = resolve(path) else { continue };
            if resolved != path {
                *end = match tail {
                    Some(t) => format!("go:{resolved}::{t}"),
                    None => format!("go:{resolved}"),
                };
            }
        }
    }
}

/// The package's own rows: its node, `contains` and `imports` edges.
#[salsa::tracked(returns(ref))]
pub fn package_fragment(db: &dyn Db, pkg: GoPackage<'_>) -> Option<OwnerFragment> {
    let ws = pkg.ws(db);
    let info = pkg.info(db)?;
    let own = package_symbols(db, pkg).clone()?;
    let files = package_files(db, pkg.ws(db), info);
    let mut fragment =
        docforge_go::package_node_fragment(&info.import_path, &as_package_files(db, &files), &own);
    rewrite_targets(&mut fragment, &|p| resolve_import(db, ws, info, p).map(|g| g.import_path(db).clone()));
    if let Some(node) = fragment.nodes.iter_mut().find(|n| n.id == format!("go:{}", info.import_path)) {
        node.attrs.insert("name".into(), info.name.clone());
        node.attrs.insert("dir".into(), info.dir.clone());
        match &info.module {
            Some(m) => {
                node.attrs.insert("module".into(), m.clone());
            }
            None => {
                node.attrs.insert("identity".into(), "unstable".into());
            }
        }
        if info.xtest {
            node.attrs.insert("test".into(), "true".into());
        }
    }
    Some(OwnerFragment::new(format!("pkg:{}", info.import_path), fragment))
}

/// One file's rows (symbols, `defines`, `calls`, `tested_by`, diagnostics). Re-executes
/// only when that file's facts, its package's symbol table or an imported package's symbol
/// table change.
#[salsa::tracked(returns(ref))]
pub fn go_file_fragment(db: &dyn Db, pkg: GoPackage<'_>, file: SourceFile) -> Option<OwnerFragment> {
    let info = pkg.info(db)?;
    let own = package_symbols(db, pkg).clone()?;
    let facts = go_facts(db, pkg.ws(db), file).as_ref()?;
    let rel = file.rel(db);
    let pf = PackageFile { path: rel, facts, test: is_test_file(rel) };
    let imports = package_imports(db, pkg);
    let lookup = |ip: &str| imports.0.get(ip).cloned().flatten().map(|(_, syms)| syms);
    let mut fragment = docforge_go::file_fragment(&info.import_path, &pf, &own, &lookup);
    rewrite_targets(&mut fragment, &|p| imports.0.get(p).cloned().flatten().map(|(ip, _)| ip));
    if pkg.ws(db).precise(db) {
        let nodes: std::collections::HashSet<&str> = fragment.nodes.iter().map(|n| n.id.as_str()).collect();
        let logic = file_logic_rows(db, pkg, file).iter().filter(|r| nodes.contains(r.node.as_str()));
        fragment.logic = logic.cloned().collect();
        if let Some(calls) = crate::calls_q::file_resolved(db, pkg, file) {
            precise_calls(&mut fragment, rel, calls);
        }
        if !is_test_file(rel) {
            underlying_facts(db, pkg.ws(db), &info.import_path, &mut fragment);
        }
    }
    Some(OwnerFragment::new(format!("gofile:{rel}"), fragment))
}

/// What precise analysis knows of a defined type's underlying type and syntax alone does
/// not, on its node:
/// - `underlying = unresolved` (with `underlying_reason`) when it cannot be resolved (`type E
///   fmt.Stringer` with `fmt` outside the project): it may be an interface, so no consumer
///   may read the absence of `implements` edges into it as "nothing implements it";
/// - `underlying = interface` for a type of kind `type` that is one (`type Local Reader`);
/// - `interface_set = empty | constraint | methods` for every interface: `implements` is
///   derived for `methods` only (every type implements an empty one; a constraint is
///   satisfied, not implemented).
fn underlying_facts(db: &dyn Db, ws: Workspace, import_path: &str, fragment: &mut Fragment) {
    let prefix = format!("go:{import_path}::");
    for node in fragment.nodes.iter_mut().filter(|n| n.kind == "type" || n.kind == "interface") {
        let Some(name) = node.id.strip_prefix(prefix.as_str()) else { continue };
        if node.attrs.get("generic").is_some_and(|g| g == "true") {
            continue; // the semantic layer derives nothing for generic types
        }
        let key = crate::types_q::GoTypeName::new(db, ws, import_path.to_string(), name.to_string(), false);
        let info = crate::types_q::named_type_info(db, key);
        let unresolved = match info {
            Ok(info) => info.unresolved_underlying(),
            Err(u) => Some(u),
        };
        if let Some(u) = unresolved {
            node.attrs.insert("underlying".into(), "unresolved".into());
            node.attrs.insert("underlying_reason".into(), u.to_string());
        } else if let Some(set) = info.as_ref().ok().and_then(|i| i.interface_set()) {
            if node.kind == "type" {
                node.attrs.insert("underlying".into(), "interface".into());
            }
            node.attrs.insert("interface_set".into(), set.into());
        }
    }
}

/// Replace the syntax-resolved `calls` edges of a file by the precise ones: each edge carries
/// its `classification`, each function `unresolved_calls` and `calls_resolved` (whether every
/// call site was resolved within the static call model: what a negative answer needs).
fn precise_calls(fragment: &mut Fragment, rel: &str, calls: &[crate::calls_q::ResolvedFunc]) {
    fragment.edges.retain(|e| e.relation != "calls");
    let index: std::collections::HashMap<String, usize> =
        fragment.nodes.iter().enumerate().map(|(i, n)| (n.id.clone(), i)).collect();
    // A function the semantic layer could not read (a method whose receiver has syntax
    // errors) has no resolved calls and no count of unresolved ones: both are unknown.
    let mut covered = vec![false; fragment.nodes.len()];
    for f in calls {
        let caller = format!("go:{}", f.caller);
        let Some(&i) = index.get(&caller) else { continue };
        covered[i] = true;
        let attrs = &mut fragment.nodes[i].attrs;
        attrs.insert("unresolved_calls".into(), f.unresolved_count().to_string());
        attrs.insert("calls_resolved".into(), f.complete().to_string());
        for (pos, what) in &f.undefined {
            // go/types would reject the package: negative answers about it are not established.
            let message = format!("{what}: undefined (the package does not type-check)");
            fragment.diagnostics.push(
                docforge_model::Diagnostic::error("go_type_error", message)
                    .at(docforge_model::Location::new(rel, pos.line, pos.column))
                    .on(&caller),
            );
        }
        for (callee, (class, pos, _)) in &f.edges {
            fragment.edges.push(
                Edge::new(&caller, "calls", format!("go:{callee}"))
                    .at(docforge_model::Location::new(rel, pos.line, pos.column))
                    .with_attr("classification", class.as_str()),
            );
        }
    }
    for (node, _) in fragment.nodes.iter_mut().zip(covered).filter(|(_, c)| !c) {
        node.attrs.remove("unresolved_calls");
    }
}

/// The Logic rows of a file's functions, keyed by their nodes (a duplicate declaration has no
/// node of its own, so no row). Its own query: it reads only the file and its own package's
/// symbols, so a change in an imported package (which re-projects this file's fragment) does
/// not re-read the file's Logic (whose value may have been evicted).
#[salsa::tracked(returns(ref))]
pub fn file_logic_rows(
    db: &dyn Db,
    pkg: GoPackage<'_>,
    file: SourceFile,
) -> Arc<Vec<docforge_model::LogicRow>> {
    let ws = pkg.ws(db);
    let (Some(info), Some(own), Some(facts), Some(logic)) = (
        pkg.info(db),
        package_symbols(db, pkg).clone(),
        go_facts(db, ws, file).clone(),
        crate::go_q::take_logic(db, ws, file),
    ) else {
        return Arc::default();
    };
    let mut seen = std::collections::HashSet::new();
    let rows = logic
        .iter()
        .filter_map(|f| {
            let decl = facts.decls.get(f.decl as usize)?;
            let node = format!("go:{}", docforge_go::package_symbol_id(&info.import_path, decl, &own)?);
            // The same rule as the file's nodes: the first declaration of an ID in the
            // package owns it; duplicates get no node and no Logic.
            let local = node.strip_prefix("go:")?.strip_prefix(info.import_path.as_str())?;
            let first_elsewhere =
                own.duplicated_in_files.get(local).is_some_and(|first| first != file.rel(db));
            (!first_elsewhere && seen.insert(node.clone())).then(|| docforge_model::LogicRow {
                steps: f.steps.len() as u32,
                json: serde_json::to_string(f).expect("Logic is plain data"),
                node,
            })
        })
        .collect();
    Arc::new(rows)
}

/// Every owner of one package: the package's own rows, then one per file (with its precise
/// calls), then its `implements` rows.
#[salsa::tracked(returns(ref))]
pub fn package_owners(db: &dyn Db, pkg: GoPackage<'_>) -> Vec<OwnerFragment> {
    let Some(head) = package_fragment(db, pkg) else { return Vec::new() };
    let mut out = vec![head.clone()];
    if let Some(info) = pkg.info(db) {
        out.extend(info.files.iter().filter_map(|&f| go_file_fragment(db, pkg, f).clone()));
    }
    out.extend(crate::types_q::package_implements(db, pkg).clone());
    out
}

/// Whether `go:<import path>` or `go:<import path>::<symbol>` names a node. Reads only the
/// referenced package, so a Go edit elsewhere does not touch the asking document.
pub fn go_node_exists(db: &dyn Db, ws: Workspace, id: &str) -> bool {
    let Some(rest) = id.strip_prefix("go:") else { return false };
    let ip = rest.split("::").next().unwrap_or(rest);
    let Some(pkg) = GoPackage::find(db, ws, ip) else { return false };
    crate::docs_q::package_node_ids(db, pkg).contains(id)
}
