//! Struct fields and interface methods for editor navigation: the fields that package-level
//! defined struct types declare and the method specs of package-level defined interface
//! types (from the declaring file's tree, read with its identifier uses: [`go_uses`]), and,
//! with precise analysis, the selectors of function bodies that select them (type inference
//! over the file's body facts). Like identifier uses, computed on demand and kept out of the
//! graph. Both are "members": a declaring type's node ID and a name.

use crate::calls_q::semantic_file;
use crate::go_q::is_test_file;
use crate::go_q::GoPackage;
use crate::host::{Analysis, Cancellable};
use crate::ide::Span;
use crate::inputs::{Content, SourceFile};
use crate::tests_q::{test_package, TestSigs};
use crate::types_q::DbSigs;
use crate::uses_q::{for_files_mentioning, go_uses, package_of, span, UseSite};
use crate::Db;
use docforge_go::calls::AnonFieldSel;
use docforge_go::types::TypeCtx;
use docforge_go::{FieldDecl, InPlaceType};
use docforge_project::FileKind;
use salsa::Cancelled;
use std::collections::HashMap;
use std::sync::Arc;

/// A selector of a field or interface method: the site (its target is the declaring type's
/// node ID, `go:<import path>::T`) and the member's name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldUse {
    pub site: UseSite,
    pub field: Arc<str>,
    /// An interface method (not a field).
    pub method: bool,
}

/// What the selectors of one file select: fields (and composite-literal keys) and declared
/// methods.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SelectorUses {
    pub fields: Vec<FieldUse>,
    /// Each site's target is the method's node ID (`go:<import path>::(*T).M`).
    pub methods: Vec<UseSite>,
}

/// The field and method selectors (and literal keys) of the functions and package-level
/// variable initializers of one file of `pkg` whose operand type inference establishes
/// (precise analysis only; empty otherwise), in body order; a test file is type-checked
/// with its package's test build. The body facts are extracted again from the file's bytes
/// (the call resolution's copy is not taken).
#[salsa::tracked(returns(ref), lru = 256)]
pub fn file_selector_uses(db: &dyn Db, pkg: GoPackage<'_>, file: SourceFile) -> Arc<SelectorUses> {
    let ws = pkg.ws(db);
    let test = is_test_file(file.rel(db));
    let place = if test {
        // A test file: type-checked with its package's test build (`tests_q`).
        test_package(db, pkg)
            .as_ref()
            .and_then(|(_, files)| files.iter().position(|&f| f == file))
            .map(|index| (pkg.import_path(db).clone(), index))
    } else {
        semantic_file(db, pkg, file).map(|(info, index)| (info.import_path.clone(), index))
    };
    let Some((import_path, index)) = place else { return Arc::default() };
    let Content::Bytes(bytes) = file.content(db) else { return Arc::default() };
    let Ok(go) = db.gate().go() else { return Arc::default() };
    let tree = db.trees().parse_transient(go, file.rel(db), bytes);
    let bodies = docforge_go::body::extract_bodies(go, &tree, bytes);
    let inits = docforge_go::body::extract_var_inits(go, &tree, bytes);
    let resolve = |source: &dyn docforge_go::types::SigSource| {
        let ctx = TypeCtx::new(source);
        docforge_go::calls::resolve_file_selectors(&ctx, &import_path, index, &bodies, &inits)
    };
    let found =
        if test { resolve(&TestSigs::new(db, pkg)) } else { resolve(&DbSigs::for_navigation(db, ws)) };
    let mut shared: HashMap<String, Arc<str>> = HashMap::new();
    let mut intern = |s: String| shared.entry(s).or_insert_with_key(|k| Arc::from(k.as_str())).clone();
    let site = |pos: docforge_go::Pos, len: usize, target: Arc<str>| UseSite {
        line: pos.line,
        column: pos.column,
        len: len as u32,
        target,
    };
    let mut out = SelectorUses::default();
    for f in found.fields {
        let target = intern(format!("go:{}", f.owner));
        let (field, method) = (intern(f.field), f.method);
        out.fields.push(FieldUse { site: site(f.pos, field.len(), target), field, method });
    }
    for m in found.methods {
        let target = intern(format!("go:{}", m.callee));
        out.methods.push(site(m.pos, m.name.len(), target));
    }
    // Fields (methods) of struct (interface) types spelled in place: the declaration that
    // spells the type is looked for in this file's syntax only (see `anon_declarer`); without
    // exactly one, nothing is claimed.
    if !found.anon_fields.is_empty() {
        // From the tree at hand (the navigation syntax would parse the file again).
        let in_place = docforge_go::in_place_types(go, &tree, bytes);
        for a in found.anon_fields {
            let Some(s) = anon_declarer(&in_place, a.pos.line, &a) else { continue };
            let target = intern(anon_owner(file.rel(db), s.at));
            let (field, method) = (intern(a.field), a.method);
            out.fields.push(FieldUse { site: site(a.pos, field.len(), target), field, method });
        }
    }
    Arc::new(out)
}

/// The struct (interface) type spelled in place that a selection of a field (method) of an
/// unnamed type at `line` refers to: the one with exactly these field names (method names;
/// for an interface that embeds others, the ones it lists itself, the selected one among
/// them) in the same top-level declaration, else the only such one in the file. Identical
/// unnamed types are one type in Go, so several candidates leave the answer open.
fn anon_declarer<'a>(structs: &'a [InPlaceType], line: u32, sel: &AnonFieldSel) -> Option<&'a InPlaceType> {
    let names = &sel.names;
    let same = |s: &&InPlaceType| {
        if s.interface != sel.method {
            return false;
        }
        if !s.interface {
            return s.fields.len() == names.len() && s.fields.iter().zip(names).all(|(f, n)| f.0 == *n);
        }
        let own = |n: &str| s.fields.iter().any(|f| f.0 == n);
        let listed = s.fields.iter().all(|f| names.contains(&f.0));
        listed && own(&sel.field) && (s.embeds || s.fields.len() == names.len())
    };
    let candidates: Vec<&InPlaceType> = structs.iter().filter(same).collect();
    let within: Vec<&InPlaceType> =
        candidates.iter().copied().filter(|s| s.lines.0 <= line && line <= s.lines.1).collect();
    match (within.as_slice(), candidates.as_slice()) {
        ([one], _) => Some(one),
        ([], [one]) => Some(one),
        _ => None,
    }
}

/// The owner ID of a struct (interface) type spelled in place: `anon:<file>:<line>:<column>`
/// of its `struct` (`interface`) keyword (not a graph node).
fn anon_owner(rel: &str, at: docforge_go::Pos) -> String {
    format!("{ANON}{rel}:{}:{}", at.line, at.column)
}

const ANON: &str = "anon:";

/// The file and position of an [`anon_owner`] ID.
fn parse_anon(owner: &str) -> Option<(&str, u32, u32)> {
    let rest = owner.strip_prefix(ANON)?;
    let (rest, column) = rest.rsplit_once(':')?;
    let (rel, line) = rest.rsplit_once(':')?;
    Some((rel, line.parse().ok()?, column.parse().ok()?))
}

/// A struct field or interface method under the cursor: where (the selector's or the
/// declaration's name), the declaring type's node ID and the member's name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldRef {
    pub span: Span,
    /// `go:<import path>::T`.
    pub owner: String,
    pub field: String,
    /// A method spec of the interface `owner` (not a field).
    pub method: bool,
}

impl Analysis {
    /// The struct field or interface method at `line:column` of the Go file `rel`: a
    /// selector that selects it (precise analysis), or its name in the declaring
    /// `type T struct { … }` / `type I interface { … }`.
    pub fn go_field_at(&self, rel: &str, line: u32, column: u32) -> Cancellable<Option<FieldRef>> {
        let Some(file) = self.source(rel)? else { return Ok(None) };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            if file.kind(db) != FileKind::Go {
                return None;
            }
            let pkg = package_of(db, ws, file)?;
            let uses = file_selector_uses(db, pkg, file);
            if let Some(u) = uses.fields.iter().find(|u| span(rel, &u.site).contains(line, column)) {
                return Some(field_ref(rel, u));
            }
            let syntax = go_uses(db, ws, file).clone()?;
            for s in &syntax.in_place_types {
                for (field, at) in &s.fields {
                    let span = name_span(rel, field, *at);
                    if span.contains(line, column) {
                        let (owner, field) = (anon_owner(rel, s.at), field.clone());
                        return Some(FieldRef { span, owner, field, method: s.interface });
                    }
                }
            }
            let ip = &pkg.info(db)?.import_path;
            syntax.fields.iter().map(|d| (decl_span(rel, d), d)).find(|(s, _)| s.contains(line, column)).map(
                |(span, d)| FieldRef {
                    span,
                    owner: format!("go:{ip}::{}", d.type_name),
                    field: d.field.clone(),
                    method: d.method,
                },
            )
        }))
    }

    /// Every field selector, composite-literal key and interface method selector recorded in
    /// the Go file `rel` (precise analysis), in source order.
    pub fn go_fields_in(&self, rel: &str) -> Cancellable<Vec<FieldRef>> {
        let Some(file) = self.source(rel)? else { return Ok(Vec::new()) };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let Some(pkg) = package_of(db, ws, file) else { return Vec::new() };
            let uses = file_selector_uses(db, pkg, file);
            uses.fields
                .iter()
                .filter(|u| !u.site.target.starts_with(ANON))
                .map(|u| field_ref(rel, u))
                .collect()
        }))
    }

    /// The name of the function-local type that a type spelled in place (an `anon:` owner)
    /// is the type of (`type node struct { … }` in a body); `None` for an unnamed one.
    pub fn go_local_type_name(&self, owner: &str) -> Cancellable<Option<String>> {
        let Some((rel, line, column)) = parse_anon(owner) else { return Ok(None) };
        let Some(file) = self.source(rel)? else { return Ok(None) };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let syntax = go_uses(db, ws, file).clone()?;
            let s = syntax.in_place_types.iter().find(|s| (s.at.line, s.at.column) == (line, column))?;
            s.local_name.clone()
        }))
    }

    /// Where the field (or interface method) `field` of the defined type `owner`
    /// (`go:<import path>::T`) is declared.
    pub fn go_field_decl(&self, owner: &str, field: &str) -> Cancellable<Option<Span>> {
        if let Some((rel, line, column)) = parse_anon(owner) {
            let Some(file) = self.source(rel)? else { return Ok(None) };
            let (db, ws) = self.parts();
            return Cancelled::catch(std::panic::AssertUnwindSafe(|| {
                let syntax = go_uses(db, ws, file).clone()?;
                let s = syntax.in_place_types.iter().find(|s| (s.at.line, s.at.column) == (line, column))?;
                let (name, at) = s.fields.iter().find(|(f, _)| f == field)?;
                Some(name_span(rel, name, *at))
            }));
        }
        let Some(type_name) = owner.rsplit_once("::").map(|(_, t)| t) else { return Ok(None) };
        let ide = self.ide()?;
        let Some(path) = ide.node(owner).and_then(|n| n.location.as_ref()).map(|l| l.path.clone()) else {
            return Ok(None);
        };
        let Some(file) = self.source(&path)? else { return Ok(None) };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let syntax = go_uses(db, ws, file).clone()?;
            let d = syntax.fields.iter().find(|d| d.type_name == type_name && d.field == field)?;
            Some(decl_span(&path, d))
        }))
    }

    /// Every selector of the field (or interface method) `field` of `owner` (precise
    /// analysis), in the files of
    /// the owner's package and of the packages importing it, directly or not; sorted.
    pub fn go_field_uses(&self, owner: &str, field: &str) -> Cancellable<Vec<Span>> {
        if let Some((rel, _, _)) = parse_anon(owner) {
            // Selections are matched to a type spelled in place within that type's file only
            // (a package-level variable's type selected from another file is not found).
            let Some(file) = self.source(rel)? else { return Ok(Vec::new()) };
            let (db, ws) = self.parts();
            return Cancelled::catch(std::panic::AssertUnwindSafe(|| {
                let Some(pkg) = package_of(db, ws, file) else { return Vec::new() };
                let uses = file_selector_uses(db, pkg, file);
                let mine = uses.fields.iter().filter(|u| &*u.site.target == owner && &*u.field == field);
                let mut out: Vec<Span> = mine.map(|u| span(rel, &u.site)).collect();
                out.sort();
                out
            }));
        }
        let Some((ip, _)) = owner.strip_prefix("go:").and_then(|r| r.split_once("::")) else {
            return Ok(Vec::new());
        };
        let (db, ws) = self.parts();
        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            let mut out = Vec::new();
            for_files_mentioning(db, ws, ip, field, true, |pkg, file| {
                let rel = file.rel(db);
                let uses = file_selector_uses(db, pkg, file);
                let mine = uses.fields.iter().filter(|u| &*u.site.target == owner && &*u.field == field);
                out.extend(mine.map(|u| span(rel, &u.site)));
            });
            out.sort();
            out
        }))
    }
}

fn field_ref(rel: &str, u: &FieldUse) -> FieldRef {
    FieldRef {
        span: span(rel, &u.site),
        owner: u.site.target.to_string(),
        field: u.field.to_string(),
        method: u.method,
    }
}

fn name_span(path: &str, name: &str, at: docforge_go::Pos) -> Span {
    Span { path: path.to_string(), line: at.line, start: at.column, end: at.column + name.len() as u32 }
}

fn decl_span(path: &str, d: &FieldDecl) -> Span {
    Span {
        path: path.to_string(),
        line: d.pos.line,
        start: d.pos.column,
        end: d.pos.column + d.field.len() as u32,
    }
}
