//! [`extract_sigs`]: one pass over the top-level declarations (the `top_level` query with
//! `max_start_depth = Some(1)`); function bodies are never visited.

use super::consts::{const_expr, value_specs};
use super::{
    ChanDir, FieldExpr, FileSigs, FuncDeclSig, FuncSig, ImportSig, InterfaceElem, Param, ReceiverSig, Term,
    TypeDeclSig, TypeExpr, TypeParamSig,
};
use crate::extract::text::{children, named_children, normalized, pos, text, unquote, FieldExt};
use docforge_syntax::tree_sitter::{Node, Tree};
use docforge_syntax::GoSyntax;

/// The signature summary of one Go file (`tree` must be the parse of `source` obtained
/// through the same gate). Never panics, whatever the bytes.
pub fn extract_sigs(go: GoSyntax<'_>, tree: &Tree, source: &[u8]) -> FileSigs {
    let root = tree.root_node();
    let mut sigs = FileSigs::default();
    let query = go.query("top_level").expect("queries/go/top_level.scm is embedded");
    let names = query.capture_names();
    let run = go.run("top_level", root, source, Some(1), |_, m| {
        for cap in m.captures() {
            top_level(names[cap.index as usize], cap.node, source, &mut sigs);
        }
    });
    run.expect("queries/go/top_level.scm is embedded");
    sigs.items.has_syntax_errors = errors_outside_bodies(root, source);
    sigs
}

/// Whether a syntax error may have hidden or distorted a declaration: an `ERROR`/`MISSING`
/// node anywhere but inside the body of a top-level function whose signature parsed cleanly
/// and whose body is delimited as gofmt writes it. An error inside such a body leaves the
/// file's declarations as written (the function's own calls are marked incomplete instead,
/// see [`FuncBody::syntax_error`](crate::body::FuncBody::syntax_error)), so typing an
/// unfinished expression into a body does not make every type of the package incomplete.
pub(crate) fn errors_outside_bodies(root: Node<'_>, src: &[u8]) -> bool {
    if !root.has_error() {
        return false;
    }
    if root.is_error() || root.is_missing() {
        return true;
    }
    children(root).filter(|c| c.has_error()).any(|decl| {
        if !matches!(decl.kind(), "function_declaration" | "method_declaration") {
            return true;
        }
        let Some(body) = decl.field("body") else { return true };
        children(decl).any(|c| c.id() != body.id() && c.has_error()) || !gofmt_delimited(body, src)
    })
}

/// Whether a function body's extent is certainly its own: it ends with a real `}` at the
/// start of its line, and every line in between is blank or indented, so the parser cannot
/// have cut the body short or folded a following top-level declaration (which gofmt starts
/// at column 0) into it. Conservative: a raw string with unindented lines fails the test.
fn gofmt_delimited(body: Node<'_>, src: &[u8]) -> bool {
    let closed =
        body.child(body.child_count().saturating_sub(1)).is_some_and(|c| c.kind() == "}" && !c.is_missing());
    if !closed || body.start_position().row == body.end_position().row {
        return closed;
    }
    if body.end_position().column != 1 {
        return false;
    }
    // Without the closing `}` (alone at column 0): the lines after the `{` line.
    let Some(text) = src.get(body.start_byte()..body.end_byte() - 1) else { return false };
    let mut inner = text.split(|&b| b == b'\n').skip(1);
    inner.all(|l| matches!(l.first(), None | Some(b' ' | b'\t' | b'\r')) || is_label(l))
}

/// A line gofmt writes at column 0 inside a body: a label (`outer:`, maybe a comment after).
fn is_label(line: &[u8]) -> bool {
    let ident = line.iter().take_while(|&&b| b == b'_' || b.is_ascii_alphanumeric()).count();
    let rest = line[ident..].strip_prefix(b":").map(|r| r.trim_ascii());
    ident > 0 && !line[0].is_ascii_digit() && rest.is_some_and(|r| r.is_empty() || r.starts_with(b"//"))
}

fn top_level(capture: &str, node: Node<'_>, src: &[u8], sigs: &mut FileSigs) {
    match capture {
        "package" if sigs.items.package.is_none() => sigs.items.package = Some(text(node, src)),
        "import" => imports(node, src, sigs),
        "var" | "const" => value_specs(node, src, sigs),
        "type" => type_specs(node, src, sigs),
        "func" | "method" => func(node, src, sigs),
        _ => {}
    }
}

fn imports(node: Node<'_>, src: &[u8], sigs: &mut FileSigs) {
    let mut push = |spec: Node<'_>| {
        let Some(path) = spec.field("path").filter(|p| !p.is_missing()) else { return };
        let name = spec.field("name").map(|n| text(n, src));
        sigs.items.imports.push(ImportSig { path: unquote(path, src), name });
        sigs.positions.imports.push(pos(spec));
    };
    for child in named_children(node) {
        match child.kind() {
            "import_spec" => push(child),
            "import_spec_list" => {
                named_children(child).filter(|s| s.kind() == "import_spec").for_each(&mut push)
            }
            _ => {}
        }
    }
}

fn type_specs(node: Node<'_>, src: &[u8], sigs: &mut FileSigs) {
    for spec in named_children(node) {
        let alias = match spec.kind() {
            "type_spec" => false,
            "type_alias" => true,
            _ => continue,
        };
        let Some(name) = spec.field("name").filter(|n| !n.is_missing()) else { continue };
        let ty = match spec.field("type") {
            Some(t) => type_expr(t, src),
            None => TypeExpr::Invalid(String::new()),
        };
        let type_params = type_params(spec, src);
        sigs.items.types.push(TypeDeclSig { name: text(name, src), type_params, alias, ty });
        sigs.positions.types.push(pos(name));
    }
}

fn func(node: Node<'_>, src: &[u8], sigs: &mut FileSigs) {
    let Some(name) = node.field("name").filter(|n| !n.is_missing()) else { return };
    let receiver = if node.kind() == "method_declaration" {
        Some(
            node.field("receiver")
                .map_or(ReceiverSig { base: None, pointer: false, type_params: Vec::new() }, |r| {
                    receiver(r, src)
                }),
        )
    } else {
        None
    };
    let decl = FuncDeclSig {
        name: text(name, src),
        receiver,
        type_params: type_params(node, src),
        sig: func_sig(node, src),
    };
    sigs.items.funcs.push(decl);
    sigs.positions.funcs.push(pos(name));
}

/// The receiver's base type name, pointer-ness and type parameter names.
fn receiver(list: Node<'_>, src: &[u8]) -> ReceiverSig {
    let mut r = ReceiverSig { base: None, pointer: false, type_params: Vec::new() };
    let Some(param) = named_children(list).find(|n| n.kind() == "parameter_declaration") else { return r };
    let Some(mut ty) = param.field("type") else { return r };
    loop {
        match ty.kind() {
            "parenthesized_type" | "pointer_type" if ty.named_child_count() == 1 => {
                r.pointer |= ty.kind() == "pointer_type";
                ty = ty.named_child(0).expect("one named child");
            }
            "generic_type" => {
                if let Some(args) = ty.field("type_arguments") {
                    r.type_params = named_children(args).map(|a| normalized(a, src)).collect();
                }
                match ty.field("type") {
                    Some(t) => ty = t,
                    None => return r,
                }
            }
            "type_identifier" if !ty.is_missing() => {
                r.base = Some(text(ty, src));
                return r;
            }
            _ => return r,
        }
    }
}

fn type_params(node: Node<'_>, src: &[u8]) -> Vec<TypeParamSig> {
    let mut out = Vec::new();
    let Some(list) = node.field("type_parameters") else { return out };
    for decl in named_children(list).filter(|d| d.kind() == "type_parameter_declaration") {
        let constraint = match decl.field("type") {
            Some(c) => elem_type(c, src),
            None => TypeExpr::Invalid(String::new()),
        };
        let mut cursor = decl.walk();
        for name in decl.fields("name", &mut cursor) {
            out.push(TypeParamSig { name: text(name, src), constraint: constraint.clone() });
        }
    }
    out
}

/// A `type_elem` / `type_constraint`: one plain type, or a union (also a single `~T`),
/// returned as an interface with one union element.
fn elem_type(node: Node<'_>, src: &[u8]) -> TypeExpr {
    let mut children = named_children(node).filter(|c| c.kind() != "comment");
    match (children.next(), children.next()) {
        (Some(only), None) if only.kind() != "negated_type" => type_expr(only, src),
        (Some(_), _) => TypeExpr::Interface(vec![InterfaceElem::Union(terms(node, src))]),
        (None, _) => TypeExpr::Invalid(text(node, src)),
    }
}

fn terms(node: Node<'_>, src: &[u8]) -> Vec<Term> {
    named_children(node)
        .filter(|c| c.kind() != "comment")
        .map(|c| match c.kind() {
            "negated_type" => Term { tilde: true, ty: first_type(c, src) },
            _ => Term { tilde: false, ty: type_expr(c, src) },
        })
        .collect()
}

fn first_type(node: Node<'_>, src: &[u8]) -> TypeExpr {
    match named_children(node).find(|c| c.kind() != "comment") {
        Some(c) => type_expr(c, src),
        None => TypeExpr::Invalid(text(node, src)),
    }
}

fn boxed(node: Option<Node<'_>>, src: &[u8]) -> Box<TypeExpr> {
    Box::new(node.map_or(TypeExpr::Invalid(String::new()), |n| type_expr(n, src)))
}

/// The type of a composite literal as written, with the length of `[...]T{…}` counted from
/// its elements (unknown when an element has an index key); `None` without a type.
pub(crate) fn literal_type(lit: Node<'_>, src: &[u8]) -> Option<TypeExpr> {
    let t = lit.field("type")?;
    if t.kind() != "implicit_length_array_type" {
        return Some(type_expr(t, src));
    }
    let elements: Vec<Node<'_>> = lit
        .field("body")
        .map(|b| named_children(b).filter(|e| e.kind() != "comment").collect())
        .unwrap_or_default();
    let len = if elements.iter().any(|e| e.kind() != "literal_element") {
        super::ConstExpr::Other("...".into())
    } else {
        super::ConstExpr::Int(elements.len().to_string())
    };
    Some(TypeExpr::Array { len, elem: boxed(t.field("element"), src) })
}

/// A type node as a [`TypeExpr`]; anything else is [`TypeExpr::Invalid`].
pub(crate) fn type_expr(node: Node<'_>, src: &[u8]) -> TypeExpr {
    if node.is_missing() || node.is_error() {
        return TypeExpr::Invalid(text(node, src));
    }
    let field = |name: &str| node.field(name);
    match node.kind() {
        "type_identifier" | "identifier" => TypeExpr::Name(text(node, src)),
        "qualified_type" => match (field("package"), field("name")) {
            (Some(p), Some(n)) if !n.is_missing() => {
                TypeExpr::Qualified { pkg: text(p, src), name: text(n, src) }
            }
            _ => TypeExpr::Invalid(text(node, src)),
        },
        "pointer_type" => TypeExpr::Pointer(Box::new(first_type(node, src))),
        "parenthesized_type" | "type_elem" => first_type(node, src),
        "slice_type" => TypeExpr::Slice(boxed(field("element"), src)),
        "array_type" => TypeExpr::Array {
            len: field("length").map_or(super::ConstExpr::Other(String::new()), |l| const_expr(l, src)),
            elem: boxed(field("element"), src),
        },
        "map_type" => TypeExpr::Map { key: boxed(field("key"), src), value: boxed(field("value"), src) },
        "channel_type" => TypeExpr::Chan { dir: chan_dir(node), elem: boxed(field("value"), src) },
        "function_type" => TypeExpr::Func(Box::new(func_sig(node, src))),
        "struct_type" => TypeExpr::Struct(struct_fields(node, src)),
        "interface_type" => TypeExpr::Interface(interface_elems(node, src)),
        "generic_type" => {
            let args = field("type_arguments")
                .map(|a| {
                    named_children(a).filter(|c| c.kind() != "comment").map(|c| elem_type(c, src)).collect()
                })
                .unwrap_or_default();
            TypeExpr::Generic { base: boxed(field("type"), src), args }
        }
        _ => TypeExpr::Invalid(normalized(node, src)),
    }
}

fn chan_dir(node: Node<'_>) -> ChanDir {
    let first = node.child(0).map(|c| c.kind());
    let second = node.child(1).map(|c| c.kind());
    match (first, second) {
        (Some("<-"), _) => ChanDir::Recv,
        (_, Some("<-")) => ChanDir::Send,
        _ => ChanDir::Both,
    }
}

/// Parameters and results of a function-like node (`function_type`, declarations,
/// `method_elem`).
pub(crate) fn func_sig(node: Node<'_>, src: &[u8]) -> FuncSig {
    let mut sig = FuncSig::default();
    if let Some(params) = node.field("parameters") {
        sig.variadic = params_into(params, src, &mut sig.params);
    }
    match node.field("result") {
        Some(r) if r.kind() == "parameter_list" => {
            params_into(r, src, &mut sig.results);
        }
        Some(r) => sig.results.push(Param { name: None, ty: type_expr(r, src) }),
        None => {}
    }
    sig
}

/// Appends the parameters of a `parameter_list`; returns whether the last one is variadic.
fn params_into(list: Node<'_>, src: &[u8], out: &mut Vec<Param>) -> bool {
    let mut variadic = false;
    for g in crate::extract::params::param_groups(list) {
        let ty = match g.ty {
            Some(t) => type_expr(t, src),
            None => TypeExpr::Invalid(String::new()),
        };
        if g.names.is_empty() {
            out.push(Param { name: None, ty });
        } else {
            out.extend(g.names.iter().map(|n| Param { name: Some(text(*n, src)), ty: ty.clone() }));
        }
        variadic = g.variadic;
    }
    variadic
}

/// The name an embedded field gets: the type name without package, pointer or type args.
fn embedded_name(ty: &TypeExpr) -> String {
    match ty {
        TypeExpr::Name(n) | TypeExpr::Qualified { name: n, .. } => n.clone(),
        TypeExpr::Pointer(t) | TypeExpr::Generic { base: t, .. } => embedded_name(t),
        _ => String::new(),
    }
}

fn struct_fields(node: Node<'_>, src: &[u8]) -> Vec<FieldExpr> {
    let mut out = Vec::new();
    let Some(list) = named_children(node).find(|n| n.kind() == "field_declaration_list") else { return out };
    for field in named_children(list).filter(|f| f.kind() == "field_declaration") {
        let ty = match field.field("type") {
            Some(t) => type_expr(t, src),
            None => TypeExpr::Invalid(text(field, src)),
        };
        let tag = field.field("tag").map(|t| unquote(t, src));
        let mut cursor = field.walk();
        let names: Vec<String> = field.fields("name", &mut cursor).map(|n| text(n, src)).collect();
        if names.is_empty() {
            // Embedded: tree-sitter puts `*` before the type node.
            let star = field.child(0).is_some_and(|c| c.kind() == "*");
            let ty = if star { TypeExpr::Pointer(Box::new(ty)) } else { ty };
            out.push(FieldExpr { name: embedded_name(&ty), ty, embedded: true, tag });
        } else {
            for name in names {
                out.push(FieldExpr { name, ty: ty.clone(), embedded: false, tag: tag.clone() });
            }
        }
    }
    out
}

fn interface_elems(node: Node<'_>, src: &[u8]) -> Vec<InterfaceElem> {
    let mut out = Vec::new();
    for elem in named_children(node) {
        match elem.kind() {
            "method_elem" => {
                if let Some(name) = elem.field("name").filter(|n| !n.is_missing()) {
                    out.push(InterfaceElem::Method { name: text(name, src), sig: func_sig(elem, src) });
                }
            }
            "type_elem" => match elem_type(elem, src) {
                TypeExpr::Interface(mut u) if matches!(u.as_slice(), [InterfaceElem::Union(_)]) => {
                    out.push(u.pop().expect("one element"))
                }
                t => out.push(InterfaceElem::Embed(t)),
            },
            _ => {}
        }
    }
    out
}
