//! Identifier uses of package-level Go names, for editor navigation (definition and
//! references of type names in signatures, `pkg.Name` selectors, same-package funcs, types,
//! vars and consts), and, with precise analysis, every statically resolved method call site.
//! Kept out of the graph: no edge, no index row, no digest change.
//!
//! Computed on demand, per file: [`go_uses`] parses the file again (the tree cache's tree
//! when it holds these bytes) and records the identifiers no local declaration binds;
//! [`file_ident_uses`] resolves them against the package's symbols and imports. An edit
//! re-runs only the edited file's queries (and, when its declarations change, its package's
//! resolutions).

use crate::go_graph::{package_imports, package_symbols};
use crate::go_q::{dir_of, go_facts, go_selection, GoDir, GoPackage};
use crate::host::{Analysis, Cancellable};
use crate::ide::{Mention, Span};
use crate::inputs::{Content, SourceFile, Workspace};
use crate::Db;
use docforge_go::{FileSelection, FileUses};
use docforge_project::FileKind;
use salsa::Cancelled;
use std::sync::Arc;

/// What navigation reads from one selected Go file's tree: its identifier uses, the fields
/// its package-level struct types declare and its struct types spelled in place (one parse
/// for all).
#[derive(Debug, PartialEq, Eq)]
pub struct NavSyntax {
    pub uses: FileUses,
    pub fields: Vec<docforge_go::FieldDecl>,
    pub in_place_types: Vec<docforge_go::InPlaceType>,
}

/// The navigation syntax of one selected Go file; `None` for other files and under the
/// no-AST policy. Only recent values are kept (the resolved uses are what readers keep).
#[salsa::tracked(returns(ref), lru = 256)]
pub fn go_uses(db: &dyn Db, ws: Workspace, file: SourceFile) -> Option<Arc<NavSyntax>> {
    if file.kind(db) != FileKind::Go || !matches!(go_selection(db, ws, file), FileSelection::Included) {
        return None;
    }
    let Content::Bytes(bytes) = file.content(db) else { return None };
    let go = db.gate().go().ok()?;
    let tree = db.trees().parse_transient(go, file.rel(db), bytes);
    let uses = docforge_go::extract_uses(go, &tree, bytes);
    let fields = docforge_go::struct_fields(go, &tree, bytes);
    let in_place_types = docforge_go::in_place_types(go, &tree, bytes);
    Some(Arc::new(NavSyntax { uses, fields, in_place_types }))
}

/// A use of a package-level symbol in one file.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct UseSite {
    pub line: u32,
    /// 1-based byte column of the name; the use spans `len` bytes.
    pub column: u32,
    pub len: u32,
    /// The node ID of the symbol (`go:<import path>::<name>`), shared by the file's uses of
    /// the same symbol.
    pub target: Arc<str>,
}

/// The resolved uses of one file of `pkg`, in source order.
#[salsa::tracked(returns(ref))]
pub fn file_ident_uses(db: &dyn Db, pkg: GoPackage<'_>, file: SourceFile) -> Arc<Vec<UseSite>> {
    let ws = pkg.ws(db);
    let (Some(info), Some(own), Some(facts), Some(uses)) = (
        pkg.info(db),
        package_symbols(db, pkg).clone(),
        go_facts(db, ws, file).clone(),
        go_uses(db, ws, file).clone(),
    ) else {
        return Arc::default();
    };
    let imports = package_imports(db, pkg);
    // A package of the project, else (with a GOROOT) a standard-library package.
    let lookup = |ip: &str| match imports.0.get(ip) {
        Some(Some((_, syms))) => Some(syms.clone()),
        _ => crate::external_q::external_symbols(db, ws, ip),
    };
    let mut resolved = docforge_go::resolve_uses(&info.import_path, &facts, &uses.uses, &own, &lookup);
    resolved.extend(builtin_uses(db, ws, &uses.uses, &own, &resolved));
    resolved.sort_by_key(|u| u.pos);
    let mut targets = Targets::default();
    let sites = resolved.into_iter().map(|u| {
        // The package an import path denotes (GOROOT's vendored copies included); a path the
        // project does not hold resolved through GOROOT.
        let path = match imports.0.get(&u.path) {
            Some(Some((path, _))) if u.path != info.import_path => path.clone(),
            _ => u.path,
        };
        let target = targets.get(format!("go:{path}::{}", u.name));
        UseSite { line: u.pos.line, column: u.pos.column, len: u.len, target }
    });
    Arc::new(sites.collect())
}

/// Unqualified uses of predeclared names (`len`, `error`, `string`) that nothing in the
/// package or a dot import declares, as uses of the installation's `builtin` package
/// (`go:builtin::len`), when an installation is read.
fn builtin_uses(
    db: &dyn Db,
    ws: Workspace,
    uses: &FileUses,
    own: &docforge_go::PackageSymbols,
    resolved: &[docforge_go::ResolvedUse],
) -> Vec<docforge_go::ResolvedUse> {
    let candidates: Vec<&docforge_go::IdentUse> = uses
        .uses
        .iter()
        .filter(|u| {
            u.qualifier.is_none()
                && docforge_go::PREDECLARED.contains(&u.name.as_str())
                && !own.declares(&u.name)
        })
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    if !crate::external_q::reads_external(db, ws) {
        return Vec::new();
    }
    // The project's own `builtin` package when it has one (GOROOT's tree), else the
    // installation's.
    let builtin = match GoPackage::find(db, ws, "builtin") {
        Some(p) => package_symbols(db, p).clone(),
        None => crate::external_q::external_symbols(db, ws, "builtin"),
    };
    let Some(builtin) = builtin else { return Vec::new() };
    let taken: std::collections::HashSet<docforge_go::Pos> = resolved.iter().map(|u| u.pos).collect();
    candidates
        .into_iter()
        .filter(|u| !taken.contains(&u.pos) && builtin.declares(&u.name))
        .map(|u| docforge_go::ResolvedUse {
            pos: u.pos,
            len: u.name.len() as u32,
            path: "builtin".to_string(),
            name: u.name.clone(),
        })
        .collect()
}

/// One shared string per distinct target of a file.
#[derive(Default)]
struct Targets(std::collections::HashMap<String, Arc<str>>);

impl Targets {
    fn get(&mut self, id: String) -> Arc<str> {
        self.0.entry(id).or_insert_with_key(|id| Arc::from(id.as_str())).clone()
    }
}

/// The uses of declared methods in one non-test file of `pkg` (precise analysis; empty
/// otherwise): every selector that type inference resolves to a method of a defined type —
/// called or not (`x.M()`, `f := x.M`, `(x.M)()`, `x.M[T]()`), own or promoted, and method
/// expressions `T.M` — at the method name ([`crate::fields_q::file_selector_uses`]). Not the
/// graph's `calls` edges, which keep the first site per caller and callee; interface method
/// calls are not listed (they stay CHA call edges).
pub fn file_method_uses<'db>(db: &'db dyn Db, pkg: GoPackage<'db>, file: SourceFile) -> &'db [UseSite] {
    &crate::fields_q::file_selector_uses(db, pkg, file).methods
}

/// The package (of the project's analysis) a Go file belongs to.
pub(crate) fn package_of<'db>(db: &'db dyn Db, ws: Workspace, file: SourceFile) -> Option<GoPackage<'db>> {
    let dir = dir_of(file.rel(db)).to_string();
    let pkgs = crate::go_q::dir_packages(db, GoDir::new(db, ws, dir.clone()));
    let info = pkgs.packages.iter().find(|p| p.files.contains(&file))?;
    Some(GoPackage::new(db, ws, dir, info.import_path.clone()))
}

pub(crate) fn span(path: &str, u: &UseSite) -> Span {
    Span { path: path.to_string(), line: u.line, start: u.column, end: u.column + u.len }
}

impl Analysis {
    /// The uses of package-level Go symbols in the file at `rel`, as mentions.
    pub fn go_uses_in(&self, rel: &str) -> Cancellable<Vec<Mention>> {
        let Some(file) = self.source(rel)? else { return Ok(Vec::new()) };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            if file.kind(db) != FileKind::Go {
                return Vec::new();
            }
            let Some(pkg) = package_of(db, ws, file) else { return Vec::new() };
            let methods = file_method_uses(db, pkg, file);
            (file_ident_uses(db, pkg, file).iter().chain(methods.iter()))
                .map(|u| Mention {
                    span: span(rel, u),
                    target: u.target.to_string(),
                    edge: None,
                    use_site: true,
                })
                .collect()
        }))
    }

    /// The local declaration (parameter, receiver, result, `:=`, local `var`/`const`/`type`,
    /// range or type-switch variable) that the Go identifier at `line:column` of `rel` refers
    /// to: the use's span and the declaring identifier's span (both the declaration's when the
    /// position is on the declaring identifier of a name that is used). `None` elsewhere.
    pub fn go_local_at(&self, rel: &str, line: u32, column: u32) -> Cancellable<Option<(Span, Span)>> {
        let locals = self.go_locals(rel)?;
        let on_use = locals.iter().find(|(u, _)| u.contains(line, column));
        // On the declaring identifier itself (it has at least one use).
        let on_decl =
            || locals.iter().find(|(_, d)| d.contains(line, column)).map(|(_, d)| (d.clone(), d.clone()));
        Ok(on_use.cloned().or_else(on_decl))
    }

    /// Every use in `rel` of the local declared at `decl` (sorted).
    pub fn go_local_uses(&self, rel: &str, decl: &Span) -> Cancellable<Vec<Span>> {
        Ok(self.go_locals(rel)?.into_iter().filter(|(_, d)| d == decl).map(|(u, _)| u).collect())
    }

    /// `(use, declaration)` spans of the local names used in the Go file `rel`.
    fn go_locals(&self, rel: &str) -> Cancellable<Vec<(Span, Span)>> {
        let Some(file) = self.source(rel)? else { return Ok(Vec::new()) };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let Some(uses) = go_uses(db, ws, file).clone() else { return Vec::new() };
            let at = |p: docforge_go::Pos, len: u32| Span {
                path: rel.to_string(),
                line: p.line,
                start: p.column,
                end: p.column + len,
            };
            uses.uses.locals.iter().map(|l| (at(l.pos, l.len), at(l.decl, l.len))).collect()
        }))
    }

    /// Every recorded use of the Go symbol `id`: a package-level symbol
    /// (`go:<import path>::<name>`), or a method (`go:<import path>::(*T).M`) at its statically
    /// resolved call sites (precise analysis; see [`file_method_uses`]) — in the files of its
    /// package and of the packages importing it that mention the name; sorted. Nothing for
    /// packages, fields or non-Go IDs.
    pub fn go_use_spans(&self, id: &str) -> Cancellable<Vec<Span>> {
        let Some((_, local)) = id.strip_prefix("go:").and_then(|r| r.split_once("::")) else {
            return Ok(Vec::new());
        };
        let name = symbol_name(local);
        if name.is_empty() || !name.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return Ok(Vec::new());
        }
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            symbol_use_spans(db, GoSymbol::new(db, ws, id.to_string())).as_ref().clone()
        }))
    }
}

/// The name a symbol's uses spell: the method name of `(*T).M`, else the local name.
fn symbol_name(local: &str) -> &str {
    if local.starts_with('(') {
        local.rsplit_once(").").map_or("", |(_, m)| m)
    } else {
        local
    }
}

/// A Go symbol ID asked about by an editor (`go:<import path>::<local>`).
#[salsa::interned(debug)]
pub struct GoSymbol {
    #[returns(copy)]
    pub ws: Workspace,
    #[returns(ref)]
    pub id: String,
}

/// Every recorded use of one symbol (see [`Analysis::go_use_spans`]), memoised per revision:
/// asking again without an edit answers from the memo, and after an edit only the edited
/// files' uses are resolved again.
#[salsa::tracked(returns(ref), lru = 128)]
fn symbol_use_spans(db: &dyn Db, sym: GoSymbol<'_>) -> Arc<Vec<Span>> {
    let (ws, id) = (sym.ws(db), sym.id(db).as_str());
    let Some((ip, local)) = id.strip_prefix("go:").and_then(|r| r.split_once("::")) else {
        return Arc::default();
    };
    let (method, name) = (local.starts_with('('), symbol_name(local));
    let mut out = Vec::new();
    for_files_mentioning(db, ws, ip, name, method, |pkg, file| {
        let rel = file.rel(db);
        let uses =
            if method { file_method_uses(db, pkg, file) } else { file_ident_uses(db, pkg, file).as_slice() };
        out.extend(uses.iter().filter(|u| &*u.target == id).map(|u| span(rel, u)));
    });
    out.sort();
    Arc::new(out)
}

/// Call `f` with every file whose bytes contain `name`, of the package `ip` and of the
/// packages importing it — directly (the only ones that can name what `ip` declares), or
/// with `transitive` also indirectly (a method or field of a type of `ip` can be selected on
/// a value obtained through another package, without importing `ip`; for a package outside
/// the project, every package of the project).
pub(crate) fn for_files_mentioning<'db>(
    db: &'db dyn Db,
    ws: Workspace,
    ip: &str,
    name: &str,
    transitive: bool,
    mut f: impl FnMut(GoPackage<'db>, SourceFile),
) {
    if transitive && GoPackage::find(db, ws, ip).is_none() {
        // A package outside the project (the standard library): its types reach the
        // project's packages through other packages outside it, which the graph does not
        // follow, so every package of the project is a candidate.
        for dir in crate::assemble::all_dirs(db, ws).keys() {
            for p in &crate::go_q::dir_packages(db, GoDir::new(db, ws, dir.clone())).packages {
                let pkg = GoPackage::new(db, ws, dir.clone(), p.import_path.clone());
                for &file in &p.files {
                    let Content::Bytes(bytes) = file.content(db) else { continue };
                    if memchr::memmem::find(bytes, name.as_bytes()).is_some() {
                        f(pkg, file);
                    }
                }
            }
        }
        return;
    }
    let ide = crate::ide::ide_index(db, ws);
    let mut packages: Vec<String> = vec![ip.to_string()];
    let mut seen: std::collections::HashSet<String> = packages.iter().cloned().collect();
    let mut next = 0;
    while next < packages.len() && (transitive || next == 0) {
        let package = format!("go:{}", packages[next]);
        next += 1;
        for e in ide.incoming(&package).filter(|e| e.relation == "imports") {
            if let Some(importer) = e.source.strip_prefix("go:") {
                if seen.insert(importer.to_string()) {
                    packages.push(importer.to_string());
                }
            }
        }
    }
    packages.sort_unstable();
    for ip in &packages {
        let Some(pkg) = GoPackage::find(db, ws, ip) else { continue };
        let Some(info) = pkg.info(db) else { continue };
        for &file in &info.files {
            let Content::Bytes(bytes) = file.content(db) else { continue };
            if memchr::memmem::find(bytes, name.as_bytes()).is_some() {
                f(pkg, file);
            }
        }
    }
}
