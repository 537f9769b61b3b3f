//! Go queries: modules, file selection, per-file facts, packages and package fragments.

use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_go::{FileFacts, FileSelection};
use docforge_model::{Diagnostic, Location, Severity};
use docforge_project::{FileKind, Surroundings};
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

pub(crate) fn dir_of(rel: &str) -> &str {
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
    // Only module files' contents are read (and the other Go files' paths): an edit of any
    // other file does not re-execute this query.
    let files = ws.files(db);
    let module_files = files.iter().filter(|f| matches!(f.kind(db), FileKind::GoMod | FileKind::GoWork));
    let go_files = files.iter().filter(|f| f.kind(db) == FileKind::Go).map(|f| f.rel(db).as_str());
    modules_of(
        module_files.map(|&file| (file.rel(db).as_str(), file.kind(db), file.content(db))),
        go_files,
        &ws.inventory(db).surroundings,
    )
}

/// The modules of a set of loaded files (`go.mod`/`go.work` are read, the rest ignored): what
/// [`go_modules`] computes, for a scan that reads the files itself. `go_files` are the loaded
/// `.go` files' paths and `around` what the walk saw around them: every way the go command
/// would read a tree outside the root is an `*_outside_root` error — a `go.work` `use` or
/// `go.mod` directory `replace` that is absolute, climbs out with `..` or passes a symlink, a
/// `go.work` enclosing the root, a Go file whose module root lies outside the Go roots.
pub fn modules_of<'a>(
    files: impl IntoIterator<Item = (&'a str, FileKind, &'a Content)>,
    go_files: impl IntoIterator<Item = &'a str>,
    around: &Surroundings,
) -> Modules {
    let mut out = Modules::default();
    // Why a local path written in `base`'s go.mod/go.work reaches outside the analysed tree.
    let outside = |base: &str, path: &str| -> Option<String> {
        if path.starts_with('/') {
            return Some("an absolute path (machine-local; the analysis reads only the root)".into());
        }
        let Some(at) = normalized(&format!("{base}/{path}")) else {
            return Some("outside the project root".into());
        };
        around
            .links
            .iter()
            .find(|l| at == **l || at.starts_with(&format!("{l}/")))
            .map(|l| format!("reached through the symlink {l:?}, which the analysis does not follow"))
    };
    for (rel, kind, content) in files {
        if !matches!(kind, FileKind::GoMod | FileKind::GoWork) {
            continue;
        }
        let rel = rel.to_string();
        let Some(text) = text_of(content) else { continue };
        let loc = Location::new(rel.clone(), 1, 1);
        match kind {
            FileKind::GoMod => match docforge_go::parse_go_mod(&text) {
                Ok(m) => {
                    let base = dir_of(&rel);
                    for (r, why) in m.local_replaces.iter().filter_map(|r| Some((r, outside(base, r)?))) {
                        out.diagnostics.push(
                            Diagnostic::error(
                                "go_replace_outside_root",
                                format!("go.mod replaces a module with {r:?}: {why}"),
                            )
                            .at(loc.clone()),
                        );
                    }
                    out.modules.push(Module { dir: base.to_string(), path: m.module })
                }
                Err(e) => out.diagnostics.push(Diagnostic::error("go_mod_invalid", e).at(loc)),
            },
            _ => match docforge_go::parse_go_work(&text) {
                Ok(w) => {
                    let base = dir_of(&rel);
                    // Members inside the root are found through their own go.mod; only a
                    // member outside what the analysis reads needs saying.
                    for (u, why) in w.uses.iter().filter_map(|u| Some((u, outside(base, u)?))) {
                        out.diagnostics.push(
                            Diagnostic::error("go_work_outside_root", format!("go.work uses {u:?}: {why}"))
                                .at(loc.clone()),
                        );
                    }
                }
                Err(e) => out.diagnostics.push(Diagnostic::error("go_work_invalid", e).at(loc)),
            },
        }
    }
    out.modules
        .sort_by_key(|m| (if m.dir.is_empty() { 0 } else { m.dir.matches('/').count() + 1 }, m.dir.clone()));
    for e in around.enclosing.iter().filter(|e| e.ends_with("go.work")) {
        out.diagnostics.push(Diagnostic::error(
            "go_work_outside_root",
            format!("{e} encloses the Go sources: the go command builds them in that workspace, whose modules lie outside the analysed tree"),
        ));
    }
    if let Some(e) = around.enclosing.iter().find(|e| e.ends_with("go.mod")) {
        let mut loose = go_files.into_iter().map(dir_of).filter(|d| out.module_of(d).is_none());
        if let Some(dir) = loose.next() {
            let shown = if dir.is_empty() { "." } else { dir };
            out.diagnostics.push(Diagnostic::error(
                "go_module_outside_root",
                format!("{shown} has no go.mod of its own inside the Go roots: its module is the one of {e}, whose root lies outside them"),
            ));
        }
    }
    out
}

/// A relative path (`a/./b/../c`) as `a/c`; `None` when it climbs out of the root.
fn normalized(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for c in path.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            _ => parts.push(c),
        }
    }
    Some(parts.join("/"))
}

/// Build-context selection of one `.go` file (no AST: works under `--no-ast`).
#[salsa::tracked(returns(ref))]
pub fn go_selection(db: &dyn Db, ws: Workspace, file: SourceFile) -> FileSelection {
    // The outline keeps the header (build constraints, package clause) as it is.
    if let Some(outline) = file.outline(db) {
        return docforge_go::select_file(ws.build(db), file.rel(db), outline);
    }
    match file.content(db) {
        Content::Bytes(b) => docforge_go::select_file(ws.build(db), file.rel(db), b),
        Content::Unreadable { code, .. } => FileSelection::Excluded { reason: format!("unreadable: {code}") },
    }
}

/// Everything read from one parse of a selected Go file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParsedGo {
    pub facts: Arc<FileFacts>,
    /// The position-free signature summary (precise analysis, non-test files), shared with
    /// [`file_sigs`].
    pub sigs: Option<Arc<docforge_go::ItemSigs>>,
    /// Logic of each func/method (precise analysis with Logic only), handed to the file's
    /// Logic rows ([`take_logic`]).
    pub logic: Option<TakeOnce<Arc<Vec<docforge_go::FunctionLogic>>>>,
    /// Body facts for call resolution (precise analysis, non-test files), handed to the file's call
    /// resolution ([`take_bodies`]).
    pub bodies: Option<TakeOnce<Arc<docforge_go::body::FileBodies>>>,
}

/// A part of a memoised value that exactly one consumer query reads: the consumer takes it
/// out, so it is freed as soon as it has been turned into what is kept (call sites, Logic
/// rows) instead of living in the memo until salsa's LRU evicts the parse at the next
/// revision. A consumer that finds it taken (it re-ran while the parse stayed valid, or a
/// cancelled run took it) extracts it again from the file: the value is a function of the
/// file's bytes, so both paths give the same result. Equality compares the contents, so a
/// re-parse is never backdated against a parse whose part was taken (conservative).
pub struct TakeOnce<T>(std::sync::Mutex<Option<T>>);

impl<T> TakeOnce<T> {
    pub fn new(value: T) -> Self {
        TakeOnce(std::sync::Mutex::new(Some(value)))
    }
    fn lock(&self) -> std::sync::MutexGuard<'_, Option<T>> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
    /// The value, if no one took it yet.
    pub fn take(&self) -> Option<T> {
        self.lock().take()
    }
}

impl<T: Clone> Clone for TakeOnce<T> {
    fn clone(&self) -> Self {
        TakeOnce(std::sync::Mutex::new(self.lock().clone()))
    }
}

impl<T: PartialEq> PartialEq for TakeOnce<T> {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other) || *self.lock() == *other.lock()
    }
}

impl<T: Eq> Eq for TakeOnce<T> {}

impl<T: std::fmt::Debug> std::fmt::Debug for TakeOnce<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &*self.lock() {
            Some(v) => f.debug_tuple("TakeOnce").field(v).finish(),
            None => f.write_str("TakeOnce(<taken>)"),
        }
    }
}

/// One parse of a selected Go file, read while the tree is at hand: facts and, for precise
/// analysis, signature summaries, body facts and Logic. `None` under the no-AST policy (the gate
/// refuses). Only the most recently used parses keep their value; body facts and Logic leave
/// it as soon as their one consumer has read them, so a whole repository's are never held.
#[salsa::tracked(returns(ref), lru = 256)]
pub fn go_parsed(db: &dyn Db, ws: Workspace, file: SourceFile) -> Option<ParsedGo> {
    let Content::Bytes(bytes) = file.content(db) else { return None };
    let go = db.gate().go().ok()?;
    let precise = ws.precise(db);
    // The semantic layer reads the non-test files only (test files keep syntax resolution).
    let semantic = precise && !is_test_file(file.rel(db));
    let logic = precise && ws.logic(db);
    let extract = |tree: &docforge_syntax::tree_sitter::Tree| ParsedGo {
        // A semantic file's calls are resolved from its body facts; its syntax-only call
        // sites would be replaced (see `go_graph::precise_calls`), so they are not walked.
        facts: Arc::new(if semantic {
            docforge_go::extract_declarations(go, tree, bytes)
        } else {
            docforge_go::extract_tree(go, tree, bytes)
        }),
        sigs: semantic.then(|| Arc::new(docforge_go::extract_sigs(go, tree, bytes).items)),
        logic: logic.then(|| TakeOnce::new(Arc::new(docforge_go::extract_logic(go, tree, bytes)))),
        bodies: semantic.then(|| TakeOnce::new(Arc::new(docforge_go::body::extract_bodies(go, tree, bytes)))),
    };
    Some(if db.trees().first_parse(file.rel(db)) {
        // SAFETY: the extractors only read the tree (none clones it) and return facts that
        // own their data.
        unsafe { go.parse_once(bytes, extract) }
    } else {
        extract(&db.trees().parse(go, file.rel(db), bytes))
    })
}

/// Facts of one selected Go file; `None` under the no-AST policy.
#[salsa::tracked(returns(ref))]
pub fn go_facts(db: &dyn Db, ws: Workspace, file: SourceFile) -> Option<Arc<FileFacts>> {
    go_parsed(db, ws, file).as_ref().map(|p| p.facts.clone())
}

/// What other packages read of one selected Go file: its package clause, imports,
/// declarations and (precise analysis, non-test files) signature summary. Not where they
/// are, and not the call sites or syntax errors: only the file's own package reads those
/// (through [`go_facts`]), and equality ignores them.
#[derive(Clone, Debug)]
pub struct Outline {
    facts: Arc<FileFacts>,
    sigs: Option<Arc<docforge_go::ItemSigs>>,
}

impl Outline {
    /// The file's facts, for their package clause, import paths and declarations only: the
    /// positions may be those of the outline text, whose bodies are left out, and the call
    /// sites are there or not, depending on where the outline came from.
    pub fn facts(&self) -> &Arc<FileFacts> {
        &self.facts
    }
}

impl PartialEq for Outline {
    fn eq(&self, other: &Self) -> bool {
        let (a, b) = (&*self.facts, &*other.facts);
        a.package == b.package
            && a.imports.len() == b.imports.len()
            && a.imports.iter().zip(&b.imports).all(|(x, y)| x.path == y.path && x.name == y.name)
            && a.decls.len() == b.decls.len()
            && a.decls.iter().zip(&b.decls).all(|(x, y)| same_decl(x, y))
            && self.sigs == other.sigs
    }
}

impl Eq for Outline {}

/// Equal but for where it is.
fn same_decl(x: &docforge_go::Decl, y: &docforge_go::Decl) -> bool {
    x.name == y.name
        && x.kind == y.kind
        && x.receiver == y.receiver
        && x.type_params == y.type_params
        && x.fields == y.fields
        && x.embeds == y.embeds
        && x.methods == y.methods
        && x.signature == y.signature
}

/// The [`Outline`] of one selected Go file: from its parse as loaded, or, once it changed,
/// from a parse of its outline text (MEDIUM, like files loaded from disk), so an edit
/// inside a function body changes nothing any other package depends on, and re-runs none of
/// it (see [`SourceFile::outline`]).
#[salsa::tracked(returns(ref))]
pub fn go_outline(db: &dyn Db, ws: Workspace, file: SourceFile) -> Option<Outline> {
    let Some(text) = file.outline(db) else {
        return go_parsed(db, ws, file)
            .as_ref()
            .map(|p| Outline { facts: p.facts.clone(), sigs: p.sigs.clone() });
    };
    let go = db.gate().go().ok()?;
    let semantic = ws.precise(db) && !is_test_file(file.rel(db));
    // SAFETY: the closure returns owned facts and keeps nothing of the tree.
    Some(unsafe {
        go.parse_once(text, |tree| Outline {
            facts: Arc::new(docforge_go::extract_declarations(go, tree, text)),
            sigs: semantic.then(|| Arc::new(docforge_go::extract_sigs(go, tree, text).items)),
        })
    })
}

/// The position-free signature summary of one selected non-test Go file (precise analysis
/// only; `None` for test files, which the semantic layer does not read): equal across edits
/// inside function bodies, so nothing that depends only on signatures re-runs.
#[salsa::tracked(returns(ref))]
pub fn file_sigs(db: &dyn Db, ws: Workspace, file: SourceFile) -> Option<Arc<docforge_go::ItemSigs>> {
    go_outline(db, ws, file).as_ref().and_then(|o| o.sigs.clone())
}

/// Take a part of the file's parse out of its memo, or extract it again from the file's
/// bytes when it was taken already (see [`TakeOnce`]). `None` when the parse has no such
/// part (precise analysis or Logic off, no-AST policy).
fn take_part<T>(
    db: &dyn Db,
    ws: Workspace,
    file: SourceFile,
    part: impl Fn(&ParsedGo) -> Option<&TakeOnce<T>>,
    extract: impl Fn(docforge_syntax::GoSyntax<'_>, &docforge_syntax::tree_sitter::Tree, &[u8]) -> T,
) -> Option<T> {
    let slot = part(go_parsed(db, ws, file).as_ref()?)?;
    slot.take().or_else(|| {
        let Content::Bytes(bytes) = file.content(db) else { return None };
        let go = db.gate().go().ok()?;
        // Not into the tree cache: this file is not being edited, and its tree would push
        // out the tree of one that is.
        let tree = db.trees().parse_transient(go, file.rel(db), bytes);
        Some(extract(go, &tree, bytes))
    })
}

/// The body facts of one selected Go file (precise analysis only), for its one reader, the
/// file's call resolution.
pub(crate) fn take_bodies(
    db: &dyn Db,
    ws: Workspace,
    file: SourceFile,
) -> Option<Arc<docforge_go::body::FileBodies>> {
    take_part(
        db,
        ws,
        file,
        |p| p.bodies.as_ref(),
        |go, tree, bytes| Arc::new(docforge_go::body::extract_bodies(go, tree, bytes)),
    )
}

/// The Logic of one selected Go file's functions (precise analysis with Logic only), for its
/// one reader, the file's Logic rows.
pub(crate) fn take_logic(
    db: &dyn Db,
    ws: Workspace,
    file: SourceFile,
) -> Option<Arc<Vec<docforge_go::FunctionLogic>>> {
    take_part(
        db,
        ws,
        file,
        |p| p.logic.as_ref(),
        |go, tree, bytes| Arc::new(docforge_go::extract_logic(go, tree, bytes)),
    )
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

pub(crate) fn is_test_file(rel: &str) -> bool {
    rel.ends_with("_test.go")
}

#[salsa::interned(debug)]
pub struct GoDir {
    #[returns(copy)]
    pub ws: Workspace,
    #[returns(ref)]
    pub dir: String,
}

/// The packages of one directory (its package and optionally its external test package),
/// and the problems placing its files. Reads only that directory's files, so an edit
/// elsewhere never re-runs or re-verifies it through file contents.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DirPackages {
    pub packages: Vec<PackageInfo>,
    pub diagnostics: Vec<Diagnostic>,
}

#[salsa::tracked(returns(ref))]
pub fn dir_packages(db: &dyn Db, d: GoDir<'_>) -> DirPackages {
    let ws = d.ws(db);
    let dir = d.dir(db).clone();
    let mut out = DirPackages::default();
    if db.gate().go().is_err() {
        return out;
    }
    let Some(files) = crate::assemble::all_dirs(db, ws).get(&dir) else { return out };
    let mut by_name: BTreeMap<String, Vec<SourceFile>> = BTreeMap::new();
    for &file in files {
        if file.kind(db) != FileKind::Go || !matches!(go_selection(db, ws, file), FileSelection::Included) {
            continue;
        }
        let Some(outline) = go_outline(db, ws, file) else { continue };
        match outline.facts().package.clone() {
            Some(name) => by_name.entry(name).or_default().push(file),
            None => {
                out.diagnostics.push(
                    Diagnostic::error("go_no_package_clause", "Go file has no package clause")
                        .at(Location::new(file.rel(db).clone(), 1, 1)),
                )
            }
        }
    }
    if by_name.is_empty() {
        return out;
    }
    let modules = go_modules(db, ws);
    let module = modules.module_of(&dir);
    let base_ip = match module {
        Some(m) => docforge_go::import_path(&m.path, &m.dir, &dir),
        None => pseudo_import_path(ws.root(db), &dir),
    };
    let groups: Vec<(String, Vec<SourceFile>)> = by_name.into_iter().collect();
    let main_name = primary_name(db, &groups);
    let only_group = groups.len() == 1;
    for (name, files) in groups {
        // As go/build has it: test files of a `package x_test` are the external test package
        // of x, also in a directory that has no other package (its tests only).
        let xtest = name.ends_with("_test")
            && (name != main_name || only_group)
            && files.iter().all(|f| is_test_file(f.rel(db)));
        if !xtest && name != main_name {
            for f in &files {
                out.diagnostics.push(
                    Diagnostic::error(
                        "go_multiple_packages",
                        format!(
                            "directory {dir:?} mixes package {name} with package {main_name}; file left out"
                        ),
                    )
                    .at(Location::new(f.rel(db).clone(), 1, 1)),
                );
            }
            continue;
        }
        let import_path = if xtest { format!("{base_ip}_test") } else { base_ip.clone() };
        let in_goroot = module.is_some_and(|m| m.path == "std" || m.path == "cmd");
        let not_listed =
            in_goroot.then(|| docforge_go::go_list_excluded(ws.build(db), &import_path, Some(&name)));
        if let Some(why) = not_listed.flatten() {
            out.diagnostics.push(
                Diagnostic::new(
                    Severity::Info,
                    "go_package_not_listed",
                    format!("package {import_path} left out as `go list` does: {why}"),
                )
                .at(Location::new(files[0].rel(db).clone(), 1, 1)),
            );
            continue;
        }
        out.packages.push(PackageInfo {
            import_path,
            dir: dir.clone(),
            name,
            module: module.map(|m| m.path.clone()),
            xtest,
            files,
        });
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

/// The directory that would hold the package with import path `ip`, by the module layout.
fn dir_of_import_path(db: &dyn Db, ws: Workspace, ip: &str) -> Option<String> {
    if let Some(rest) = ip.strip_prefix('_').and_then(|r| r.strip_prefix(ws.root(db).as_str())) {
        return Some(rest.trim_start_matches('/').to_string());
    }
    let modules = go_modules(db, ws);
    let best = modules
        .modules
        .iter()
        .filter_map(|m| {
            let rest = if m.path == "std" {
                Some(ip)
            } else if ip == m.path {
                Some("")
            } else {
                ip.strip_prefix(&format!("{}/", m.path))
            }?;
            let prefix_len = if m.path == "std" { 0 } else { m.path.len() + 1 };
            Some((prefix_len, m, rest))
        })
        .max_by_key(|(len, _, _)| *len)?;
    let (_, m, rest) = best;
    Some(match (m.dir.is_empty(), rest.is_empty()) {
        (true, _) => rest.to_string(),
        (false, true) => m.dir.clone(),
        (false, false) => format!("{}/{rest}", m.dir),
    })
}

#[salsa::interned(debug)]
pub struct GoPackage {
    #[returns(copy)]
    pub ws: Workspace,
    #[returns(ref)]
    pub dir: String,
    #[returns(ref)]
    pub import_path: String,
}

impl<'db> GoPackage<'db> {
    /// The package with import path `ip`, if the project has it.
    pub fn find(db: &'db dyn Db, ws: Workspace, ip: &str) -> Option<GoPackage<'db>> {
        // An external test package `x_test` lives in the directory of `x`.
        let candidates = std::iter::once(ip).chain(ip.strip_suffix("_test"));
        candidates.filter_map(|c| dir_of_import_path(db, ws, c)).find_map(|dir| {
            let pkgs = dir_packages(db, GoDir::new(db, ws, dir.clone()));
            pkgs.packages
                .iter()
                .any(|p| p.import_path == ip)
                .then(|| GoPackage::new(db, ws, dir, ip.to_string()))
        })
    }

    pub fn info(self, db: &'db dyn Db) -> Option<&'db PackageInfo> {
        let pkgs = dir_packages(db, GoDir::new(db, self.ws(db), self.dir(db).clone()));
        pkgs.packages.iter().find(|p| &p.import_path == self.import_path(db))
    }
}
