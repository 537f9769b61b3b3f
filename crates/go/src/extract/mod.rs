//! Extraction of [`FileFacts`] from Go source through the AST gate.
//!
//! Top-level declarations come from the `top_level` query (run with `max_start_depth =
//! Some(1)`, so the query cursor never descends into bodies); call sites come from one
//! hand-written `TreeCursor` walk per declaration (see [`calls`]).

mod calls;
mod decls;
mod fields;
pub(crate) mod params;
pub(crate) mod text;

pub use fields::{in_place_types, struct_fields, FieldDecl, InPlaceType};

use crate::{FileFacts, FileUses, Import, Pos};
use docforge_syntax::GoSyntax;
use text::{pos, text, unquote, FieldExt};
use tree_sitter::Node;

/// At most this many syntax-error positions are recorded per file.
pub const MAX_SYNTAX_ERRORS: usize = 16;
/// Callee text is cut to this many bytes.
pub const MAX_CALLEE_LEN: usize = 120;

/// Extract the facts of one Go file. Never panics, whatever the bytes.
pub fn extract_file(go: GoSyntax<'_>, source: &[u8]) -> FileFacts {
    extract_tree(go, &go.parse(source), source)
}

/// Extract the facts of one Go file from its tree (`tree` must be the parse of `source`,
/// e.g. an incremental reparse obtained through the same gate).
pub fn extract_tree(go: GoSyntax<'_>, tree: &docforge_syntax::tree_sitter::Tree, source: &[u8]) -> FileFacts {
    extract(go, tree, source, true)
}

/// [`extract_tree`] without call sites ([`FileFacts::calls`] stays empty): what precise
/// analysis needs of a non-test file, whose calls it resolves from the file's body facts
/// instead (the syntax-only call walk would be thrown away).
pub fn extract_declarations(
    go: GoSyntax<'_>,
    tree: &docforge_syntax::tree_sitter::Tree,
    source: &[u8],
) -> FileFacts {
    extract(go, tree, source, false)
}

fn extract(
    go: GoSyntax<'_>,
    tree: &docforge_syntax::tree_sitter::Tree,
    source: &[u8],
    calls: bool,
) -> FileFacts {
    let root = tree.root_node();
    let mut facts = FileFacts::default();
    let query = go.query("top_level").expect("queries/go/top_level.scm is embedded");
    let names = query.capture_names();
    let kinds = calls.then(|| calls::Kinds::get(root.language()));
    // Matches come in source order; each top-level declaration is handled inside the
    // callback (the captured nodes do not outlive it).
    let docs = top_level_docs(root, source);
    let run = go.run("top_level", root, source, Some(1), |_, m| {
        for cap in m.captures() {
            top_level(names[cap.index as usize], cap.node, source, kinds, &docs, &mut facts);
        }
    });
    // The query is embedded at build time; a missing query is a build defect, not input.
    run.expect("queries/go/top_level.scm is embedded");
    if root.has_error() {
        syntax_errors(root, &mut facts.syntax_errors);
    }
    facts
}

/// The identifier uses of one Go file ([`FileUses`]), from its tree (`tree` must be the parse
/// of `source`). A top-level declaration containing a syntax error contributes nothing: a
/// misread binding could make a local look like a package-level name.
pub fn extract_uses(go: GoSyntax<'_>, tree: &docforge_syntax::tree_sitter::Tree, source: &[u8]) -> FileUses {
    let _ = go; // the tree was obtained through the gate; no query is needed
    let root = tree.root_node();
    let kinds = calls::Kinds::get(root.language());
    let mut out = FileUses::default();
    let mut locals = Vec::new();
    let mut cursor = root.walk();
    for decl in root.named_children(&mut cursor) {
        let top = matches!(
            decl.kind(),
            "function_declaration"
                | "method_declaration"
                | "var_declaration"
                | "const_declaration"
                | "type_declaration"
        );
        if top && !decl.has_error() {
            calls::walk_uses(kinds, decl, source, &mut out.uses, &mut locals);
        }
    }
    let starts: Vec<usize> =
        std::iter::once(0).chain(memchr::memchr_iter(b'\n', source).map(|i| i + 1)).collect();
    let pos_of = |offset: usize| {
        let line = starts.partition_point(|&s| s <= offset) - 1;
        crate::Pos { line: line as u32 + 1, column: (offset - starts[line]) as u32 + 1 }
    };
    out.locals = locals
        .into_iter()
        .map(|(at, len, decl)| crate::LocalUse { pos: pos_of(at), len, decl: pos_of(decl) })
        .collect();
    out.locals.sort_by_key(|l| (l.pos.line, l.pos.column));
    out.locals.dedup();
    out
}

/// Every package-level func/method declaration of `root`, in source order:
/// `each(index, decl, node)` where `index` is the declaration's index into
/// [`FileFacts::decls`] as [`extract_tree`] numbers it (the same query and the same decl
/// extractors, so the numbering cannot drift).
pub(crate) fn func_decls(
    go: GoSyntax<'_>,
    root: Node<'_>,
    source: &[u8],
    mut each: impl FnMut(u32, crate::Decl, Node<'_>),
) {
    let query = go.query("top_level").expect("queries/go/top_level.scm is embedded");
    let names = query.capture_names();
    let mut count = 0u32;
    let mut scratch = Vec::new();
    let run = go.run("top_level", root, source, Some(1), |_, m| {
        for cap in m.captures() {
            let node = cap.node;
            match names[cap.index as usize] {
                "var" | "const" => decls::value_specs(node, source, None, &mut scratch),
                "type" => decls::type_specs(node, source, None, &mut scratch),
                "func" | "method" => {
                    if let Some(decl) = decls::func(node, source, None) {
                        each(count, decl, node);
                        count += 1;
                    }
                }
                _ => {}
            }
            count += scratch.len() as u32;
            scratch.clear();
        }
    });
    run.expect("queries/go/top_level.scm is embedded");
}

/// The doc comments of the file's top-level declarations and of those inside a top-level
/// ERROR node (where the query also finds declarations), by start byte: one pass over each,
/// no `parent()` per declaration (tree-sitter finds a parent by scanning from the first child).
fn top_level_docs(root: Node<'_>, source: &[u8]) -> decls::Docs {
    let mut docs = decls::child_docs(root, source);
    let mut cursor = root.walk();
    for child in root.children(&mut cursor).filter(|c| c.is_error()) {
        for (at, doc) in decls::child_docs(child, source) {
            docs.entry(at).or_insert(doc);
        }
    }
    docs
}

/// One top-level declaration; its call sites too when `kinds` is given.
fn top_level(
    capture: &str,
    node: Node<'_>,
    source: &[u8],
    kinds: Option<&calls::Kinds>,
    docs: &decls::Docs,
    facts: &mut FileFacts,
) {
    match capture {
        "package" if facts.package.is_none() => {
            facts.package = Some(text(node, source));
            facts.package_doc = node.parent().and_then(|clause| docs.get(&clause.start_byte()).cloned());
        }
        "import" => imports(node, source, &mut facts.imports),
        "var" | "const" => {
            decls::value_specs(node, source, Some(docs), &mut facts.decls);
            // Calls in package-level initialisers have no caller. A call needs a `(` besides
            // the one that opens a group (`const (`): most constant blocks have none.
            if let Some(kinds) = kinds {
                let grouped = node.child(1).is_some_and(|c| c.kind() == "(");
                let parens = memchr::memchr_iter(b'(', text::bytes(node, source)).take(2).count();
                if parens > usize::from(grouped) {
                    calls::walk(kinds, node, source, None, &mut facts.calls);
                }
            }
        }
        "type" => decls::type_specs(node, source, Some(docs), &mut facts.decls),
        "func" | "method" => {
            if let Some(decl) = decls::func(node, source, Some(docs)) {
                let idx = facts.decls.len() as u32;
                facts.decls.push(decl);
                if let Some(kinds) = kinds {
                    calls::walk(kinds, node, source, Some(idx), &mut facts.calls);
                }
            }
        }
        _ => {}
    }
}

fn imports(node: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "import_spec" => import_spec(child, src, out),
            "import_spec_list" => {
                let mut c2 = child.walk();
                for spec in child.named_children(&mut c2) {
                    if spec.kind() == "import_spec" {
                        import_spec(spec, src, out);
                    }
                }
            }
            _ => {}
        }
    }
}

fn import_spec(spec: Node<'_>, src: &[u8], out: &mut Vec<Import>) {
    let Some(path) = spec.field("path") else { return };
    if path.is_missing() {
        return;
    }
    out.push(Import {
        path: unquote(path, src),
        name: spec.field("name").map(|n| text(n, src)),
        pos: pos(spec),
    });
}

/// Positions of the first `ERROR`/`MISSING` nodes, visiting only subtrees that contain errors.
fn syntax_errors(root: Node<'_>, out: &mut Vec<Pos>) {
    let mut cursor = root.walk();
    'walk: loop {
        let node = cursor.node();
        if out.len() >= MAX_SYNTAX_ERRORS {
            return;
        }
        if node.is_error() || node.is_missing() {
            out.push(pos(node));
        } else if node.has_error() && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}
