//! Go queries: modules, file selection, per-file facts, packages and package fragments.

use crate::graph::OwnerFragment;
use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_go::{FileFacts, FileSelection, PackageFile, PackageSymbols};
use docforge_model::{Diagnostic, Fragment, Location};
use docforge_project::FileKind;
use std::collections::BTreeMap;
use std::sync::Arc;

/// One Go module found under the project root.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Module {
    /// Project-relative directory of `go.mod` ("" for the root).
    pub dir: String,
    pub path: String,
}

/// Modules and the problems found reading `go.mod`/`go.work`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Modules {
    /// Sorted by directory, deepest last.
    pub modules: Vec<Module>,
    /// `go.work` `use` directories inside the root (project-relative).
    pub work_uses: Vec<String>,
    pub diagnostics: Vec<Diagnostic>,
}

impl Modules {
    /// The innermost module containing `dir`.
    pub fn module_of(&self, dir: &str) -> Option<&Module> {
        self.modules
            .iter()
            .rev()
            .find(|m| m.dir.is_empty() || dir == m.dir || dir.starts_with(&format!("{}/", m.dir)))
    }
}

fn dir_of(rel: &str) -> &str {
    rel.rfind('/').map_or("", |i| &rel[..i])
}

fn text_of(content: &Content) -> Option<std::borrow::Cow<'_, str>> {
    match content {
        Content::Bytes(b) => Some(String::from_utf8_lossy(b)),
        Content::Unreadable { .. } => None,
    }
}

#[salsa::tracked(returns(ref))]
pub fn go_modules(db: &dyn Db, ws: Workspace) -> Modules {
    let mut out = Modules::default();
    for &file in ws.files(db) {
        let kind = file.kind(db);
        if !matches!(kind, FileKind::GoMod | FileKind::GoWork) {
            continue;
        }
        let rel = file.rel(db).clone();
        let Some(text) = text_of(file.content(db)) else { continue };
        let loc = Location::new(rel.clone(), 1, 1);
        match kind {
            FileKind::GoMod => match docforge_go::parse_go_mod(&text) {
                Ok(m) => out.modules.push(Module { dir: dir_of(&rel).to_string(), path: m.module }),
                Err(e) => out.diagnostics.push(Diagnostic::error("go_mod_invalid", e).at(loc)),
            },
            _ => match docforge_go::parse_go_work(&text) {
                Ok(w) => {
                    let base = dir_of(&rel);
                    for u in w.uses {
                        let joined = normalize(&format!("{base}/{u}"));
                        match joined {
                            Some(d) => out.work_uses.push(d),
                            None => out.diagnostics.push(
                                Diagnostic::error(
                                    "go_work_outside_root",
                                    format!("go.work uses {u:?}, which is outside the project root"),
                                )
                                .at(loc.clone()),
                            ),
                        }
                    }
                }
                Err(e) => out.diagnostics.push(Diagnostic::error("go_work_invalid", e).at(loc)),
            },
        }
    }
    out.modules
        .sort_by_key(|m| (if m.dir.is_empty() { 0 } else { m.dir.matches('/').count() + 1 }, m.dir.clone()));
    out
}

/// Normalise `a/./b/../c` to `a/c`; `None` when it climbs out of the root.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            c => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

/// Build-context selection of one `.go` file (no AST: works under `--no-ast`).
#[salsa::tracked(returns(ref))]
pub fn go_selection(db: &dyn Db, ws: Workspace, file: SourceFile) -> FileSelection {
    match file.content(db) {
        Content::Bytes(b) => docforge_go::select_file(ws.build(db), file.rel(db), b),
        Content::Unreadable { code, .. } => FileSelection::Excluded { reason: format!("unreadable: {code}") },
    }
}

/// Facts of one selected Go file; `None` under the no-AST policy (the gate refuses).
#[salsa::tracked(returns(ref))]
pub fn go_facts(db: &dyn Db, file: SourceFile) -> Option<Arc<FileFacts>> {
    let Content::Bytes(bytes) = file.content(db) else { return None };
    let go = db.gate().go().ok()?;
    let tree = db.trees().parse(go, file.rel(db), bytes);
    Some(Arc::new(docforge_go::extract_tree(go, &tree, bytes)))
}

/// One Go package: a directory's selected files with one package name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct PackageInfo {
    pub import_path: String,
    pub dir: String,
    pub name: String,
    /// Module path, or `None` for the unstable pseudo import path of a module-less directory.
    pub module: Option<String>,
    /// `package foo_test` external test package.
    pub xtest: bool,
    pub files: Vec<SourceFile>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Packages {
    pub by_path: BTreeMap<String, PackageInfo>,
    /// Selected Go files whose package could not be placed (no package clause, mixed names).
    pub diagnostics: Vec<Diagnostic>,
}

fn is_test_file(rel: &str) -> bool {
    rel.ends_with("_test.go")
}

/// Group selected Go files into packages. Empty under the no-AST policy.
#[salsa::tracked(returns(ref))]
pub fn go_packages(db: &dyn Db, ws: Workspace) -> Packages {
    let root = ws.root(db);
    let modules = go_modules(db, ws);
    let mut out = Packages::default();
    // dir -> package name -> files
    let mut groups: BTreeMap<(String, String), Vec<SourceFile>> = BTreeMap::new();
    for &file in ws.files(db) {
        if file.kind(db) != FileKind::Go {
            continue;
        }
        if !matches!(go_selection(db, ws, file), FileSelection::Included) {
            continue;
        }
        let Some(facts) = go_facts(db, file) else { continue };
        let rel = file.rel(db);
        let Some(name) = facts.package.clone() else {
            out.diagnostics.push(
                Diagnostic::error("go_no_package_clause", "Go file has no package clause").at(Location::new(
                    rel.clone(),
                    1,
                    1,
                )),
            );
            continue;
        };
        groups.entry((dir_of(rel).to_string(), name)).or_default().push(file);
    }
    // A directory holds one package plus optionally its external test package.
    let mut by_dir: BTreeMap<String, Vec<(String, Vec<SourceFile>)>> = BTreeMap::new();
    for ((dir, name), files) in groups {
        by_dir.entry(dir).or_default().push((name, files));
    }
    for (dir, pkgs) in by_dir {
        let module = modules.module_of(&dir);
        let base_ip = match module {
            Some(m) => docforge_go::import_path(&m.path, &m.dir, &dir),
            None => pseudo_import_path(root, &dir),
        };
        let main_name = primary_name(db, &pkgs);
        for (name, files) in pkgs {
            let xtest =
                name.ends_with("_test") && name != main_name && files.iter().all(|f| is_test_file(f.rel(db)));
            if !xtest && name != main_name {
                for f in &files {
                    out.diagnostics.push(
                        Diagnostic::error(
                            "go_multiple_packages",
                            format!("directory {dir:?} mixes package {name} with package {main_name}; file left out"),
                        )
                        .at(Location::new(f.rel(db).clone(), 1, 1)),
                    );
                }
                continue;
            }
            let import_path = if xtest { format!("{base_ip}_test") } else { base_ip.clone() };
            let in_goroot = module.is_some_and(|m| m.path == "std" || m.path == "cmd");
            if let Some(why) = in_goroot
                .then(|| docforge_go::go_list_excluded(ws.build(db), &import_path, Some(&name)))
                .flatten()
            {
                let at = Location::new(files[0].rel(db).clone(), 1, 1);
                out.diagnostics.push(
                    docforge_model::Diagnostic::new(
                        docforge_model::Severity::Info,
                        "go_package_not_listed",
                        format!("package {import_path} left out as `go list` does: {why}"),
                    )
                    .at(at),
                );
                continue;
            }
            out.by_path.insert(
                import_path.clone(),
                PackageInfo {
                    import_path,
                    dir: dir.clone(),
                    name,
                    module: module.map(|m| m.path.clone()),
                    xtest,
                    files,
                },
            );
        }
    }
    out
}

/// The package name of a directory: the one most non-test files use (ties: lexical).
fn primary_name(db: &dyn Db, pkgs: &[(String, Vec<SourceFile>)]) -> String {
    pkgs.iter()
        .max_by_key(|(name, files)| {
            let non_test = files.iter().filter(|f| !is_test_file(f.rel(db))).count();
            (non_test, files.len(), std::cmp::Reverse(name.clone()))
        })
        .map(|(n, _)| n.clone())
        .unwrap_or_default()
}

/// Go's own spelling for a directory outside any module: machine-local and unstable.
fn pseudo_import_path(root: &str, dir: &str) -> String {
    if dir.is_empty() {
        format!("_{root}")
    } else {
        format!("_{root}/{dir}")
    }
}

#[salsa::interned(debug)]
pub struct GoPackage {
    #[returns(copy)]
    pub ws: Workspace,
    #[returns(ref)]
    pub import_path: String,
}

fn package_files<'a>(db: &'a dyn Db, info: &'a PackageInfo) -> Vec<(SourceFile, &'a Arc<FileFacts>)> {
    info.files.iter().filter_map(|&f| go_facts(db, f).as_ref().map(|facts| (f, facts))).collect()
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

#[salsa::tracked(returns(ref))]
pub fn package_symbols(db: &dyn Db, pkg: GoPackage<'_>) -> Option<Arc<PackageSymbols>> {
    let packages = go_packages(db, pkg.ws(db));
    let info = packages.by_path.get(pkg.import_path(db))?;
    let files = package_files(db, info);
    Some(Arc::new(docforge_go::package_symbols(&as_package_files(db, &files))))
}

/// The package an import path written in `info`'s files denotes: the path itself when it is
/// a package of the project, or its vendored copy for GOROOT's `std` (`vendor/...`) and `cmd`
/// (`cmd/vendor/...`) modules, as the go command resolves them.
fn resolve_import(packages: &Packages, info: &PackageInfo, path: &str) -> Option<String> {
    if packages.by_path.contains_key(path) {
        return Some(path.to_string());
    }
    let vendored = match info.module.as_deref() {
        Some("std") => format!("vendor/{path}"),
        Some("cmd") => format!("cmd/vendor/{path}"),
        _ => return None,
    };
    packages.by_path.contains_key(&vendored).then_some(vendored)
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
            if let Some(resolved) = resolve(path).filter(|r| r != path) {
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
    let packages = go_packages(db, ws);
    let info = packages.by_path.get(pkg.import_path(db))?;
    let own = package_symbols(db, pkg).clone()?;
    let files = package_files(db, info);
    let mut fragment =
        docforge_go::package_node_fragment(&info.import_path, &as_package_files(db, &files), &own);
    rewrite_targets(&mut fragment, &|p| resolve_import(packages, info, p));
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
/// only when that file's facts or the package's symbol table change.
#[salsa::tracked(returns(ref))]
pub fn go_file_fragment(db: &dyn Db, pkg: GoPackage<'_>, file: SourceFile) -> Option<OwnerFragment> {
    let ws = pkg.ws(db);
    let packages = go_packages(db, ws);
    let info = packages.by_path.get(pkg.import_path(db))?;
    let own = package_symbols(db, pkg).clone()?;
    let facts = go_facts(db, file).as_ref()?;
    let rel = file.rel(db);
    let pf = PackageFile { path: rel, facts, test: is_test_file(rel) };
    let resolve = |p: &str| resolve_import(packages, info, p);
    let lookup = |ip: &str| -> Option<Arc<PackageSymbols>> {
        let resolved = resolve(ip)?;
        package_symbols(db, GoPackage::new(db, ws, resolved)).clone()
    };
    let mut fragment = docforge_go::file_fragment(&info.import_path, &pf, &own, &lookup);
    rewrite_targets(&mut fragment, &resolve);
    Some(OwnerFragment::new(format!("gofile:{rel}"), fragment))
}

/// Every owner of one package: the package's own rows, then one per file.
pub fn package_owners(db: &dyn Db, pkg: GoPackage<'_>) -> Vec<OwnerFragment> {
    let Some(head) = package_fragment(db, pkg) else { return Vec::new() };
    let mut out = vec![head.clone()];
    if let Some(info) = go_packages(db, pkg.ws(db)).by_path.get(pkg.import_path(db)) {
        out.extend(info.files.iter().filter_map(|&f| go_file_fragment(db, pkg, f).clone()));
    }
    out
}
