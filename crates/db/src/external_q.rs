//! Read-only Go source outside the project, for editor navigation only: the standard library
//! of a Go installation (`GOROOT`, [`AnalysisHost::set_goroot`]) and the modules the
//! project's `go.mod` files require, in the module cache
//! ([`AnalysisHost::set_module_cache`]). `pkg.Name` where `pkg` imports such a package is a
//! use of that declaration ([`crate::uses_q::file_ident_uses`]), and definition and hover
//! read the declaration from there ([`Analysis::go_external_node`]).
//!
//! With the semantic layer, navigation's type inference reads the signature summaries of
//! those packages too ([`crate::types_q::DbSigs::for_navigation`]): methods, struct fields and
//! interface methods of standard-library types navigate ([`Analysis::go_external_field`]).
//!
//! Never part of the graph, the index, a digest, validation, Logic or call resolution: what
//! a project publishes does not depend on which Go, if any, is installed. Only declarations
//! and signatures are read, never bodies.
//!
//! A package is read from disk the first time it is asked for and the installation is taken
//! as immutable from then on (a Go installation does not change under a running editor; a
//! new GOROOT is a new input). Only import paths whose first element has no dot name
//! standard-library packages; the package directory must lie inside `<GOROOT>/src` once
//! symlinks are resolved, and only regular `.go` files (not `_test.go`, selected by the
//! project's build context, at most [`MAX_EXTERNAL_FILE`] bytes) are read, through
//! `docforge_project::SourceReader` rooted at `<GOROOT>/src` (the project's own confinement).
//!
//! [`AnalysisHost::set_goroot`]: crate::AnalysisHost::set_goroot
//! [`AnalysisHost::set_module_cache`]: crate::AnalysisHost::set_module_cache

use crate::host::{Analysis, Cancellable};
use crate::inputs::Workspace;
use crate::Db;
use docforge_go::types::PackageSigs;
use docforge_go::{FieldDecl, FileFacts, FileSelection, PackageFile, PackageSymbols};
use docforge_model::Node;
use salsa::Cancelled;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Larger files of an installation are not read (the standard library's largest is ~1 MB).
pub const MAX_EXTERNAL_FILE: u64 = 8 << 20;

/// A package outside the project asked about by import path.
#[salsa::interned(debug)]
pub struct ExternalPkg {
    #[returns(copy)]
    pub ws: Workspace,
    #[returns(ref)]
    pub import_path: String,
}

/// The declarations of one package outside the project.
#[derive(Debug, PartialEq, Eq)]
pub struct ExternalPackage {
    pub symbols: Arc<PackageSymbols>,
    /// Signature summaries, for navigation's type inference (see [`crate::types_q::DbSigs`]).
    pub sigs: Arc<PackageSigs>,
    /// Struct fields and interface method specs of the package's defined types, with the
    /// file (relative to `src`) declaring each.
    fields: Vec<(String, FieldDecl)>,
    /// Declaration nodes as the graph would hold them (`go:<import path>::<name>`), their
    /// locations relative to `src`.
    nodes: HashMap<String, Node>,
    /// `<GOROOT>/src` or the module cache, resolved.
    src: PathBuf,
    /// Where the package is declared: the file holding its documentation (`doc.go`, else the
    /// first file) and the package clause's line and column there.
    clause: (String, u32, u32),
    /// Doc comments by node ID (the package's under `go:<import path>`).
    docs: HashMap<String, String>,
    /// `standard library`, or `module <path>@<version>`.
    origin: String,
    /// The text of every line a declaration, field or the package clause is on, by file and
    /// 1-based line (read once with the package, so answers read no file).
    line_texts: HashMap<(String, u32), String>,
}

impl ExternalPackage {
    fn line_text(&self, rel: &str, line: u32) -> String {
        self.line_texts.get(&(rel.to_string(), line)).cloned().unwrap_or_default()
    }
}

/// A declaration outside the project, for an editor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExternalNode {
    /// As the graph would hold it; `location.path` is relative to `<GOROOT>/src` or the
    /// module cache.
    pub node: Node,
    /// The declaring file, absolute.
    pub file: PathBuf,
    /// 1-based line and byte column of the declared name (the package clause for a package).
    pub line: u32,
    pub column: u32,
    /// Byte length of the name at that place.
    pub len: u32,
    /// The declaration's doc comment as go/doc reads it (also the end of the node's text).
    pub doc: Option<String>,
    /// `standard library`, or `module <path>@<version>` (module cache).
    pub origin: String,
    /// The text of the declaring line (a front converts columns with it; fronts do not read
    /// files).
    pub line_text: String,
}

/// True for an import path that can only name a standard-library package: clean relative
/// segments, the first without a dot, not the cgo pseudo-package.
pub fn is_std_import_path(ip: &str) -> bool {
    let first = ip.split('/').next().unwrap_or("");
    ip != "C" && !first.contains('.') && docforge_go::is_import_path(ip)
}

/// Where the package `ip` outside the project is: `(base, directory relative to it, origin)`
/// — `<GOROOT>/src` and `ip` for a standard-library path, the module cache and
/// `<module>@<version>/<rest>` (case-escaped) for a package of a module the project's
/// `go.mod` files require. `None` without the installation or cache it needs.
fn external_place(db: &dyn Db, ws: Workspace, ip: &str) -> Option<(PathBuf, String, String)> {
    if is_std_import_path(ip) {
        let goroot = ws.goroot(db).as_deref()?;
        return Some((Path::new(goroot).join("src"), ip.to_string(), "standard library".to_string()));
    }
    let cache = ws.modcache(db).as_deref()?;
    if !is_module_import_path(ip) {
        return None;
    }
    let (module, version, rest) = required_module(db, ws, ip)?;
    let dir = format!("{}@{}{rest}", escape_path(&module), escape_path(&version));
    Some((PathBuf::from(cache), dir, format!("module {module}@{version}")))
}

/// An import path that can only name a package of a module: its first element has a dot.
fn is_module_import_path(ip: &str) -> bool {
    let first = ip.split('/').next().unwrap_or("");
    first.contains('.') && docforge_go::is_import_path(ip)
}

/// The module cache's case encoding: every upper-case letter becomes `!` and its lower case.
fn escape_path(p: &str) -> String {
    let mut out = String::with_capacity(p.len());
    for c in p.chars() {
        if c.is_ascii_uppercase() {
            out.push('!');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The `go.mod` files of the project, parsed (those that parse).
#[salsa::tracked(returns(ref))]
fn module_requirements(db: &dyn Db, ws: Workspace) -> Arc<Vec<docforge_go::GoMod>> {
    let mut out = Vec::new();
    for f in ws.files(db).iter().filter(|f| f.kind(db) == docforge_project::FileKind::GoMod) {
        if let crate::inputs::Content::Bytes(b) = f.content(db) {
            if let Ok(m) = docforge_go::parse_go_mod(&String::from_utf8_lossy(b)) {
                out.push(m);
            }
        }
    }
    Arc::new(out)
}

/// The required module (of the project's `go.mod` files, the first that requires it) that
/// holds `ip`, the longest module path that is a prefix of it: `(module, version, rest)`,
/// `rest` empty or `/sub/dir`, through `replace` directives to other module versions.
fn required_module(db: &dyn Db, ws: Workspace, ip: &str) -> Option<(String, String, String)> {
    let mods = module_requirements(db, ws);
    let mut best: Option<(&str, &docforge_go::GoMod)> = None;
    for m in mods.iter() {
        for (path, _) in &m.requires {
            let holds = ip == path || ip.strip_prefix(path.as_str()).is_some_and(|r| r.starts_with('/'));
            if holds && best.is_none_or(|(b, _)| path.len() > b.len()) {
                best = Some((path, m));
            }
        }
    }
    let (path, m) = best?;
    let (module, version) = m.selected(path)?;
    Some((module, version, ip[path.len()..].to_string()))
}

/// The package `ip` outside the project: a standard-library package of the workspace's
/// GOROOT, or a package of a required module in the module cache (`None` without them, under
/// the no-AST policy, or when there is no such package).
#[salsa::tracked(returns(ref))]
pub fn external_package(db: &dyn Db, pkg: ExternalPkg<'_>) -> Option<Arc<ExternalPackage>> {
    let ws = pkg.ws(db);
    let ip = pkg.import_path(db);
    let (base, reldir, origin) = external_place(db, ws, ip)?;
    let go = db.gate().go().ok()?;
    let src = base.canonicalize().ok()?;
    let dir = src.join(&reldir).canonicalize().ok()?;
    if !dir.starts_with(&src) || dir == src {
        return None;
    }
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .ok()?
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|n| n.ends_with(".go") && !n.ends_with("_test.go"))
        .collect();
    names.sort();
    let mut files: Vec<(String, FileFacts, (u32, u32))> = Vec::new();
    // Per file: its bytes, for the declarations' doc comments.
    let mut sources: HashMap<String, Vec<u8>> = HashMap::new();
    let mut sigs: HashMap<String, Arc<docforge_go::ItemSigs>> = HashMap::new();
    let mut fields: Vec<(String, FieldDecl)> = Vec::new();
    // Read as project files are: confined to `<GOROOT>/src`, regular files only, bounded.
    let reader = docforge_project::SourceReader::new(&src);
    for name in names {
        let rel = format!("{reldir}/{name}");
        let Ok(bytes) = reader.read_into_vec(&rel, MAX_EXTERNAL_FILE) else { continue };
        if !matches!(docforge_go::select_file(ws.build(db), &name, &bytes), FileSelection::Included) {
            continue;
        }
        // SAFETY: the closure returns owned facts and keeps nothing of the tree.
        let (facts, clause, file_sigs, file_fields) = unsafe {
            go.parse_once(&bytes, |tree| {
                (
                    docforge_go::extract_declarations(go, tree, &bytes),
                    package_clause(tree),
                    docforge_go::extract_sigs(go, tree, &bytes).items,
                    docforge_go::struct_fields(go, tree, &bytes),
                )
            })
        };
        files.push((rel.clone(), facts, clause));
        sigs.insert(rel.clone(), Arc::new(file_sigs));
        fields.extend(file_fields.into_iter().map(|d| (rel.clone(), d)));
        sources.insert(rel, bytes);
    }
    // A directory's non-test files form one package; a stray file of another package (a
    // generator left without a build constraint) is not part of it.
    let name = majority_package(&files)?;
    files.retain(|(_, f, _)| f.package.as_deref() == Some(name.as_str()));
    fields.retain(|(rel, _)| files.iter().any(|(r, ..)| r == rel));
    let sigs =
        Arc::new(PackageSigs::new(ip.clone(), files.iter().filter_map(|(r, ..)| sigs.remove(r)).collect()));
    let pfiles: Vec<PackageFile<'_>> =
        files.iter().map(|(path, facts, _)| PackageFile { path, facts, test: false }).collect();
    let symbols = Arc::new(docforge_go::package_symbols(&pfiles));
    let fragment = docforge_go::package_fragment(ip, &pfiles, &|_| None);
    let doc_file = files.iter().find(|(p, ..)| p.ends_with("/doc.go")).or(files.first())?;
    let clause = (doc_file.0.clone(), doc_file.2 .0, doc_file.2 .1);
    let lines: HashMap<&str, Vec<&[u8]>> =
        sources.iter().map(|(rel, b)| (rel.as_str(), b.split(|&c| c == b'\n').collect())).collect();
    // Doc comments as go/doc reads them: what follows a node's declaration in its text.
    let docs: HashMap<String, String> = fragment
        .nodes
        .iter()
        .filter_map(|n| Some((n.id.clone(), docforge_go::declaration_and_doc(&n.text).1?.to_string())))
        .collect();
    let mut line_texts = HashMap::new();
    let mut keep_line = |path: &str, line: u32| {
        let text = lines.get(path).and_then(|l| l.get((line as usize).checked_sub(1)?));
        let text = text.map(|t| String::from_utf8_lossy(t).trim_end_matches('\r').to_string());
        line_texts.insert((path.to_string(), line), text.unwrap_or_default());
    };
    keep_line(&clause.0, clause.1);
    for loc in fragment.nodes.iter().filter_map(|n| n.location.as_ref()) {
        keep_line(&loc.path, loc.line);
    }
    for (rel, d) in &fields {
        keep_line(rel, d.pos.line);
    }
    let nodes = fragment.nodes.into_iter().map(|n| (n.id.clone(), n)).collect();
    Some(Arc::new(ExternalPackage { symbols, sigs, fields, nodes, src, clause, docs, origin, line_texts }))
}

/// 1-based line and byte column of the `package` keyword (1:1 when there is none).
fn package_clause(tree: &docforge_syntax::tree_sitter::Tree) -> (u32, u32) {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let clause = root.named_children(&mut cursor).find(|n| n.kind() == "package_clause");
    clause.map_or((1, 1), |n| (n.start_position().row as u32 + 1, n.start_position().column as u32 + 1))
}

fn majority_package(files: &[(String, FileFacts, (u32, u32))]) -> Option<String> {
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for name in files.iter().filter_map(|(_, f, _)| f.package.as_deref()) {
        *counts.entry(name).or_default() += 1;
    }
    // Most files; of equal counts the smallest name (deterministic).
    counts.into_iter().max_by(|a, b| a.1.cmp(&b.1).then(b.0.cmp(a.0))).map(|(n, _)| n.to_string())
}

/// Whether the workspace reads anything outside the project (a GOROOT or a module cache).
pub(crate) fn reads_external(db: &dyn Db, ws: Workspace) -> bool {
    ws.goroot(db).is_some() || ws.modcache(db).is_some()
}

/// The package `ip` outside the project (see [`external_package`]), when there is one.
pub(crate) fn external(db: &dyn Db, ws: Workspace, ip: &str) -> Option<Arc<ExternalPackage>> {
    if !reads_external(db, ws) || !docforge_go::is_import_path(ip) {
        return None;
    }
    external_package(db, ExternalPkg::new(db, ws, ip.to_string())).clone()
}

/// The symbols of the package `ip` outside the project (see [`external_package`]).
pub(crate) fn external_symbols(db: &dyn Db, ws: Workspace, ip: &str) -> Option<Arc<PackageSymbols>> {
    external(db, ws, ip).map(|p| p.symbols.clone())
}

impl Analysis {
    /// The declaration of field (or interface method spec) `field` of the type `owner`
    /// (`go:<import path>::T`) of a package outside the project: where its name is (the
    /// node is the owner's; `line_text` is the declaring line).
    pub fn go_external_field(&self, owner: &str, field: &str) -> Cancellable<Option<ExternalNode>> {
        let Some((ip, type_name)) = owner.strip_prefix("go:").and_then(|r| r.split_once("::")) else {
            return Ok(None);
        };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let pkg = external(db, ws, ip)?;
            let (rel, d) = pkg.fields.iter().find(|(_, d)| d.type_name == type_name && d.field == field)?;
            let file = pkg.src.join(rel);
            let line_text = pkg.line_text(rel, d.pos.line);
            let node = pkg.nodes.get(owner)?.clone();
            let place = ExternalNode {
                node,
                file,
                line: d.pos.line,
                column: d.pos.column,
                len: field.len() as u32,
                doc: None,
                origin: pkg.origin.clone(),
                line_text,
            };
            Some(place)
        }))
    }

    /// The declaration outside the project that `id` names (`go:<import path>::<name>`, or
    /// `go:<import path>` for the package; a method `go:<import path>::(*T).M`), read from the
    /// Go installation or module cache the host was given; `None` without them, for IDs of
    /// the project and for names they do not declare.
    pub fn go_external_node(&self, id: &str) -> Cancellable<Option<ExternalNode>> {
        let Some(rest) = id.strip_prefix("go:") else { return Ok(None) };
        let ip = rest.split_once("::").map_or(rest, |(ip, _)| ip);
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let pkg = external(db, ws, ip)?;
            if !rest.contains("::") {
                let (path, line, column) = pkg.clause.clone();
                let doc = pkg.docs.get(id).cloned();
                // As a project package's: its clause, then its doc comment.
                let clause = format!("package {}", pkg.symbols.name.as_deref().unwrap_or(""));
                let node = Node {
                    id: id.to_string(),
                    kind: "package".into(),
                    title: ip.to_string(),
                    location: None,
                    text: doc.as_ref().map_or(clause.clone(), |d| format!("{clause}\n\n{d}")),
                    attrs: Default::default(),
                };
                let (file, origin, line_text) =
                    (pkg.src.join(&path), pkg.origin.clone(), pkg.line_text(&path, line));
                return Some(ExternalNode { node, file, line, column, len: 7, doc, origin, line_text });
            }
            let node = pkg.nodes.get(id)?.clone();
            let loc = node.location.clone()?;
            let len = node.title.len() as u32;
            let doc = pkg.docs.get(id).cloned();
            Some(ExternalNode {
                file: pkg.src.join(&loc.path),
                line: loc.line,
                column: loc.column,
                len,
                line_text: pkg.line_text(&loc.path, loc.line),
                node,
                doc,
                origin: pkg.origin.clone(),
            })
        }))
    }
}

/// Whether `dir` is a Go installation (it holds `src/runtime`).
pub fn is_goroot(dir: &Path) -> bool {
    dir.join("src").join("runtime").is_dir()
}

/// Where the Go installation is, without running `go`: `$GOROOT` when it is set, else the
/// installation the first `go` on `$PATH` belongs to (its symlinks resolved: `…/bin/go` →
/// `…`); only a directory holding `src/runtime` counts. `None` when neither gives one.
pub fn find_goroot(
    goroot_var: Option<&std::ffi::OsStr>,
    path_var: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    if let Some(root) = goroot_var.filter(|v| !v.is_empty()).map(PathBuf::from) {
        return is_goroot(&root).then_some(root);
    }
    for dir in std::env::split_paths(path_var?) {
        let go = dir.join("go");
        if !go.is_file() {
            continue;
        }
        let real = go.canonicalize().ok()?;
        let root = real.parent()?.parent()?.to_path_buf();
        return is_goroot(&root).then_some(root);
    }
    None
}

/// Where the Go module cache is, without running `go`: `$GOMODCACHE`, else `pkg/mod` of the
/// first `$GOPATH` entry, else `$HOME/go/pkg/mod`; only an existing directory counts.
pub fn find_module_cache(
    gomodcache: Option<&std::ffi::OsStr>,
    gopath: Option<&std::ffi::OsStr>,
    home: Option<&std::ffi::OsStr>,
) -> Option<PathBuf> {
    let dir = if let Some(d) = gomodcache.filter(|v| !v.is_empty()) {
        PathBuf::from(d)
    } else if let Some(first) = gopath.filter(|v| !v.is_empty()).and_then(|p| std::env::split_paths(p).next())
    {
        first.join("pkg").join("mod")
    } else {
        PathBuf::from(home.filter(|v| !v.is_empty())?).join("go").join("pkg").join("mod")
    };
    dir.is_dir().then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_clean_paths_without_a_dotted_first_element_are_standard() {
        let cases = [
            ("fmt", true),
            ("net/http", true),
            ("math/rand/v2", true),
            ("golang.org/x/net", false),
            ("example.com/m", false),
            ("C", false),
            ("", false),
            ("../etc", false),
            ("fmt/../../etc", false),
            ("/etc", false),
            ("fmt//x", false),
            ("a/./b", false),
            ("-x", false),
            ("a b", false),
        ];
        for (ip, want) in cases {
            assert_eq!(is_std_import_path(ip), want, "{ip}");
        }
    }

    #[test]
    fn the_module_cache_comes_from_gomodcache_else_gopath_else_home() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("gp"));
        std::fs::create_dir_all(&a).unwrap();
        std::fs::create_dir_all(b.join("pkg/mod")).unwrap();
        std::fs::create_dir_all(dir.path().join("go/pkg/mod")).unwrap();
        let gopath = std::env::join_paths([b.clone(), dir.path().join("x")]).unwrap();
        let home = dir.path().as_os_str();
        assert_eq!(find_module_cache(Some(a.as_os_str()), Some(&gopath), Some(home)), Some(a));
        assert_eq!(find_module_cache(None, Some(&gopath), Some(home)), Some(b.join("pkg/mod")));
        assert_eq!(find_module_cache(None, None, Some(home)), Some(dir.path().join("go/pkg/mod")));
        assert_eq!(find_module_cache(Some(dir.path().join("none").as_os_str()), None, Some(home)), None);
        assert_eq!(find_module_cache(None, None, None), None);
    }

    #[test]
    fn module_paths_escape_upper_case() {
        assert_eq!(escape_path("github.com/BurntSushi/toml"), "github.com/!burnt!sushi/toml");
        assert_eq!(escape_path("v1.2.3-RC"), "v1.2.3-!r!c");
    }

    #[test]
    fn goroot_comes_from_the_variable_else_from_the_go_on_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("go");
        std::fs::create_dir_all(root.join("src/runtime")).unwrap();
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::write(root.join("bin/go"), "").unwrap();
        let bin = dir.path().join("usr-bin");
        std::fs::create_dir_all(&bin).unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("bin/go"), bin.join("go")).unwrap();
        let path = std::env::join_paths([dir.path().join("nothing"), bin.clone()]).unwrap();
        let root = root.canonicalize().unwrap();
        assert_eq!(find_goroot(None, Some(&path)), Some(root.clone()));
        assert_eq!(find_goroot(Some(root.as_os_str()), None), Some(root.clone()));
        // A GOROOT that is not an installation is not replaced by the one on PATH.
        assert_eq!(find_goroot(Some(dir.path().as_os_str()), Some(&path)), None);
        assert_eq!(find_goroot(None, None), None);
        assert_eq!(find_goroot(Some("".as_ref()), Some(&path)), Some(root));
    }
}
