//! The graph projection of one Go package.

use crate::symbols::{is_test_func, BUILTINS};
use crate::{package_symbol_id, Callee, Decl, DeclKind, FileFacts, PackageSymbols};
use docforge_model::{Diagnostic, Edge, Fragment, Location, Node};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

/// One selected file of a package.
#[derive(Clone, Copy, Debug)]
pub struct PackageFile<'a> {
    /// Project-relative path (`/` separators).
    pub path: &'a str,
    pub facts: &'a FileFacts,
    /// A `_test.go` file.
    pub test: bool,
}

/// A Go node's text: its declaration line, then (after a blank line) its doc comment.
pub(crate) fn with_doc(line: String, doc: Option<&str>) -> String {
    match doc {
        Some(doc) => format!("{line}\n\n{doc}"),
        None => line,
    }
}

/// A Go node's text ([`with_doc`]) read back: its declaration and its doc comment. The
/// declaration holds no blank line (it is normalised).
pub fn declaration_and_doc(text: &str) -> (&str, Option<&str>) {
    match text.split_once("\n\n") {
        Some((declaration, doc)) => (declaration, Some(doc)),
        None => (text, None),
    }
}

/// The package's doc comment: the first one in file order, a non-test file's first (as go/doc
/// reads a package; `doc.go` is one file among them).
fn package_doc<'a>(files: &'a [PackageFile<'_>]) -> Option<&'a str> {
    let of =
        |test: bool| files.iter().filter(|f| f.test == test).find_map(|f| f.facts.package_doc.as_deref());
    of(false).or_else(|| of(true))
}

/// `head { line; … }` over several lines (gofmt's layout, one tab), or `head {}`.
fn block(head: String, lines: impl Iterator<Item = String>) -> String {
    let mut out = head;
    out.push_str(" {");
    let mut any = false;
    for line in lines {
        out.push_str("\n\t");
        out.push_str(&line);
        any = true;
    }
    out.push_str(if any { "\n}" } else { "}" });
    out
}

/// The declaration as gopls' hover shows it: a func's signature, a struct's fields, an
/// interface's methods and embedded types (field and method comments left out).
fn signature_line(d: &Decl) -> String {
    let sig = d.signature.as_deref().unwrap_or("");
    let tp = if d.type_params.is_empty() { String::new() } else { format!("[{}]", d.type_params.join(", ")) };
    match d.kind {
        DeclKind::Func => format!("func {}{tp}{sig}", d.name),
        DeclKind::Method => {
            let r = d.receiver.as_ref();
            let star = if r.is_some_and(|r| r.pointer) { "*" } else { "" };
            let t = r.map_or("", |r| r.type_name.as_str());
            format!("func ({star}{t}{tp}) {}{sig}", d.name)
        }
        DeclKind::Struct => {
            let fields = d.fields.iter().map(|f| {
                if f.embedded {
                    f.type_text.clone()
                } else {
                    format!("{} {}", f.name, f.type_text)
                }
            });
            block(format!("type {}{tp} struct", d.name), fields)
        }
        DeclKind::Interface => {
            let methods = d.methods.iter().map(|m| format!("{}{}", m.name, m.signature));
            block(format!("type {}{tp} interface", d.name), d.embeds.iter().cloned().chain(methods))
        }
        DeclKind::Alias => format!("type {}{tp} = {sig}", d.name),
        DeclKind::Type => format!("type {}{tp} {sig}", d.name),
        DeclKind::Var | DeclKind::Const => {
            let kw = if d.kind == DeclKind::Var { "var" } else { "const" };
            if sig.is_empty() {
                format!("{kw} {}", d.name)
            } else {
                format!("{kw} {} {sig}", d.name)
            }
        }
    }
}

/// The graph fragment of one package (all of `files` must share one package clause; the
/// external test package `foo_test` of directory `foo` is a separate package with import
/// path `<ip>_test`, so callers split files by package name and call this once for each).
///
/// It is [`package_node_fragment`] followed by [`file_fragment`] of every file; an
/// incremental caller computes those parts separately so that an edit re-projects one file.
///
/// Nodes: the package (`go:<ip>`) and its symbols (`go:<symbol id>`); file nodes are not
/// produced here (the project inventory owns them). Edges: `file:<path> defines symbol`,
/// `package contains file:<path>`, `package imports go:<path>` (one per imported path, at its
/// first import outside `_test.go` files, else at its first with `test_only = true`), `calls` for syntax-resolved calls (one per caller/callee pair, at the first
/// call site) and `callee tested_by TestXxx/BenchmarkXxx/FuzzXxx/ExampleXxx` for test files.
/// Every func/method node carries `unresolved_calls`: call sites syntax could not resolve
/// (method calls, calls of function values, calls into unknown packages); builtins
/// (including `unsafe.Sizeof` & co.) and conversions are not counted. A symbol declared twice keeps its first declaration and the
/// second gets a `go_duplicate_symbol` error; a method on a type the package does not declare
/// gets a `go_type_error` (both are compile errors: the graph is then partial).
pub fn package_fragment(
    import_path: &str,
    files: &[PackageFile<'_>],
    lookup: &dyn Fn(&str) -> Option<Arc<PackageSymbols>>,
) -> Fragment {
    let own = crate::package_symbols(files);
    let mut frag = package_node_fragment(import_path, files, &own);
    for file in files {
        let f = file_fragment(import_path, file, &own, lookup);
        frag.nodes.extend(f.nodes);
        frag.edges.extend(f.edges);
        frag.diagnostics.extend(f.diagnostics);
    }
    frag
}

/// The package's own rows: its node, `contains` edges to its files and `imports` edges (one
/// per imported path, at its first import in file order outside `_test.go` files; a path
/// only test files import has its first import and `test_only = true`).
pub fn package_node_fragment(import_path: &str, files: &[PackageFile<'_>], own: &PackageSymbols) -> Fragment {
    let pkg_id = format!("go:{import_path}");
    let mut frag = Fragment::default();
    let mut pkg = Node {
        id: pkg_id.clone(),
        kind: "package".into(),
        title: import_path.to_string(),
        location: None,
        text: with_doc(format!("package {}", own.name.as_deref().unwrap_or("")), package_doc(files)),
        attrs: Default::default(),
    };
    if let Some(name) = &own.name {
        pkg.attrs.insert("name".into(), name.clone());
    }
    frag.nodes.push(pkg);
    // Imported path -> its edge: at the first import outside test files, else at the first.
    let mut imported: HashMap<&str, usize> = HashMap::new();
    for file in files {
        frag.edges.push(Edge::new(&pkg_id, "contains", format!("file:{}", file.path)));
        for imp in &file.facts.imports {
            let at = Location::new(file.path, imp.pos.line, imp.pos.column);
            match imported.get(imp.path.as_str()) {
                None => {
                    imported.insert(&imp.path, frag.edges.len());
                    let mut edge = Edge::new(&pkg_id, "imports", format!("go:{}", imp.path)).at(at);
                    if file.test {
                        edge = edge.with_attr("test_only", "true");
                    }
                    frag.edges.push(edge);
                }
                Some(&i) if !file.test && frag.edges[i].attrs.get("test_only").is_some() => {
                    let e = &mut frag.edges[i];
                    e.attrs.remove("test_only");
                    e.location = Some(at);
                }
                Some(_) => {}
            }
        }
    }
    frag
}

/// One file's rows: its symbols, `defines` edges, syntax-resolved `calls` and `tested_by`
/// edges from its functions, and its syntax-error and duplicate-symbol diagnostics. `own` is
/// [`crate::package_symbols`] of the whole package.
pub fn file_fragment(
    import_path: &str,
    file: &PackageFile<'_>,
    own: &PackageSymbols,
    lookup: &dyn Fn(&str) -> Option<Arc<PackageSymbols>>,
) -> Fragment {
    let mut frag = Fragment::default();
    let mut seen_ids: HashMap<String, usize> = HashMap::new();
    // (caller node, callee package, callee name) of the `calls` edges made so far.
    let mut call_edges: HashSet<(usize, &str, &str)> = HashSet::new();
    let mut tested: BTreeSet<(String, String)> = BTreeSet::new();
    let mut imports = FileImports::new(file.facts, lookup);
    let file_id = format!("file:{}", file.path);
    let loc = |p: crate::Pos| Location::new(file.path, p.line, p.column);
    for p in &file.facts.syntax_errors {
        frag.diagnostics.push(
            Diagnostic::error("go_syntax_error", format!("syntax error in {}", file.path))
                .at(loc(*p))
                .on(&file_id),
        );
    }
    // Symbol nodes, remembering each decl's node index (None: no identity or duplicate).
    let mut node_of: Vec<Option<usize>> = Vec::with_capacity(file.facts.decls.len());
    for d in &file.facts.decls {
        let Some(sid) = package_symbol_id(import_path, d, own) else {
            node_of.push(None);
            continue;
        };
        let id = format!("go:{sid}");
        let local = sid.strip_prefix(import_path).unwrap_or(&sid);
        let first_elsewhere = own.duplicated_in_files.get(local).is_some_and(|first| first != file.path);
        if seen_ids.contains_key(&id) || first_elsewhere {
            frag.diagnostics.push(
                // A compile error ("redeclared in this block"): the package does not type-check.
                Diagnostic::error("go_duplicate_symbol", format!("{sid} is declared more than once"))
                    .at(loc(d.pos))
                    .on(&id),
            );
            node_of.push(None);
            continue;
        }
        if let Some(r) = d.receiver.as_ref().filter(|r| !own.types.contains(own.receiver_base(&r.type_name)))
        {
            // `func (u *Undefined) M()`: go/types rejects the package.
            let message = format!("{sid}: the receiver type {} is not declared in the package", r.type_name);
            frag.diagnostics.push(Diagnostic::error("go_type_error", message).at(loc(d.pos)).on(&id));
        }
        let mut attrs = BTreeMap::new();
        attrs.insert("package".to_string(), import_path.to_string());
        if file.test {
            attrs.insert("test".into(), "true".into());
        }
        if let Some(r) = &d.receiver {
            attrs.insert("receiver".into(), own.receiver_base(&r.type_name).to_string());
            attrs.insert("pointer_receiver".into(), r.pointer.to_string());
        }
        if matches!(d.kind, DeclKind::Func | DeclKind::Method) {
            attrs.insert("unresolved_calls".into(), "0".into());
        }
        if !d.type_params.is_empty() {
            // Generic (for a method: declared on a generic type).
            attrs.insert("generic".into(), "true".into());
        }
        seen_ids.insert(id.clone(), frag.nodes.len());
        node_of.push(Some(frag.nodes.len()));
        frag.edges.push(Edge::new(&file_id, "defines", &id).at(loc(d.pos)));
        frag.nodes.push(Node {
            id,
            kind: d.kind.as_str().into(),
            title: d.name.clone(),
            location: Some(loc(d.pos)),
            text: with_doc(signature_line(d), d.doc.as_deref()),
            attrs: attrs.into(),
        });
    }
    let mut unresolved: BTreeMap<usize, u32> = BTreeMap::new();
    for call in &file.facts.calls {
        let Some(node_idx) = call.caller.and_then(|c| node_of.get(c as usize).copied().flatten()) else {
            continue;
        };
        // `Ok((package path, name))`: a call of that package-level func; `Err`: unresolved.
        let target: Option<Result<(&str, &str), ()>> = match &call.shape {
            Callee::Ident(name) if !call.shadowed => {
                if own.funcs.contains(name) {
                    Some(Ok((import_path, name)))
                } else if own.declares(name) {
                    // A conversion or a call of a package-level function value.
                    (!own.types.contains(name)).then_some(Err(()))
                } else if let Some(path) = imports.dot_import_of(name, |s| s.funcs.contains(name)) {
                    Some(Ok((path, name)))
                } else if BUILTINS.contains(&name.as_str()) {
                    None
                } else {
                    Some(Err(()))
                }
            }
            Callee::Selector { x, sel } if !call.shadowed && !own.declares(x) => {
                match imports.import_of(x) {
                    // unsafe.Sizeof & co. are builtins, whatever unsafe.go declares.
                    Some(("unsafe", _)) => None,
                    Some((path, Some(syms))) if syms.funcs.contains(sel) => Some(Ok((path, sel.as_str()))),
                    Some((_, Some(syms))) if syms.types.contains(sel) => None,
                    _ => Some(Err(())),
                }
            }
            _ => Some(Err(())),
        };
        match target {
            Some(Ok((path, name))) => {
                let caller_decl = &file.facts.decls[call.caller.unwrap_or_default() as usize];
                let tests =
                    file.test && caller_decl.kind == DeclKind::Func && is_test_func(&caller_decl.name);
                let first = call_edges.insert((node_idx, path, name));
                if first || tests {
                    let caller_id = &frag.nodes[node_idx].id;
                    let target = format!("go:{path}::{name}");
                    if tests {
                        tested.insert((target.clone(), caller_id.clone()));
                    }
                    if first {
                        frag.edges.push(Edge::new(caller_id, "calls", target).at(loc(call.pos)));
                    }
                }
            }
            Some(Err(())) => *unresolved.entry(node_idx).or_default() += 1,
            None => {}
        }
    }
    for (idx, n) in unresolved {
        frag.nodes[idx].attrs.insert("unresolved_calls".into(), n.to_string());
    }
    for (callee, caller) in tested {
        frag.edges.push(Edge::new(callee, "tested_by", caller));
    }
    frag
}

/// The import a file-scope name refers to (its path), with the package's symbols if known.
pub(crate) type ImportOf<'f> = Option<(&'f str, Option<Arc<PackageSymbols>>)>;

/// One file's imports, resolved by the names the file uses them through: each imported
/// package's symbols are looked up once, and each name's import is found once (a file calls
/// and uses a few imports many times).
pub(crate) struct FileImports<'f, 'l> {
    facts: &'f FileFacts,
    lookup: &'l dyn Fn(&str) -> Option<Arc<PackageSymbols>>,
    symbols: HashMap<&'f str, Option<Arc<PackageSymbols>>>,
    by_name: HashMap<String, ImportOf<'f>>,
}

impl<'f, 'l> FileImports<'f, 'l> {
    pub(crate) fn new(facts: &'f FileFacts, lookup: &'l dyn Fn(&str) -> Option<Arc<PackageSymbols>>) -> Self {
        FileImports { facts, lookup, symbols: HashMap::new(), by_name: HashMap::new() }
    }

    fn symbols_of(&mut self, path: &'f str) -> Option<Arc<PackageSymbols>> {
        let lookup = self.lookup;
        self.symbols.entry(path).or_insert_with(|| lookup(path)).clone()
    }

    /// The import that file-scope name `x` refers to, with its symbols if known.
    pub(crate) fn import_of(&mut self, x: &str) -> ImportOf<'f> {
        if let Some(found) = self.by_name.get(x) {
            return found.clone();
        }
        let facts = self.facts;
        let found = facts.imports.iter().find_map(|imp| {
            let matches = match imp.name.as_deref() {
                Some(alias) => alias == x,
                None => match self.symbols_of(&imp.path).as_ref().and_then(|s| s.name.as_deref()) {
                    Some(name) => name == x,
                    None => imp.path.rsplit('/').next() == Some(x),
                },
            };
            matches.then(|| (imp.path.as_str(), self.symbols_of(&imp.path)))
        });
        self.by_name.insert(x.to_string(), found.clone());
        found
    }

    /// The dot-imported package whose symbols satisfy `declares`, if any (packages outside
    /// the project never do).
    pub(crate) fn dot_import_of(
        &mut self,
        name: &str,
        declares: impl Fn(&PackageSymbols) -> bool,
    ) -> Option<&'f str> {
        // A dot import brings only the package's exported names into the file.
        if !name.chars().next().is_some_and(char::is_uppercase) {
            return None;
        }
        let facts = self.facts;
        facts
            .imports
            .iter()
            .filter(|i| i.name.as_deref() == Some("."))
            .find_map(|imp| self.symbols_of(&imp.path).filter(|s| declares(s)).map(|_| imp.path.as_str()))
    }
}
