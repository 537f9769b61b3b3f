//! Declarations: funcs, methods, type specs (structs, interfaces, others, aliases), vars, consts.

use super::text::{normalized, pos, text, FieldExt};
use crate::{Decl, DeclKind, Field, MethodSpec, Receiver};
use tree_sitter::Node;

fn decl(name: String, kind: DeclKind, node_pos: crate::Pos) -> Decl {
    Decl {
        name,
        kind,
        receiver: None,
        pos: node_pos,
        type_params: Vec::new(),
        fields: Vec::new(),
        embeds: Vec::new(),
        methods: Vec::new(),
        signature: None,
        doc: None,
    }
}

/// The doc comments of the children of one node (the file, or a group's specs), by the
/// child's start byte.
pub(crate) type Docs = std::collections::HashMap<usize, String>;

/// The doc comment of every child of `parent` that has one, as go/doc reads it: the comments
/// directly above it (no blank line between; a comment trailing code on its own line is not
/// one), without comment markers, directives (`//go:generate`, `//lint:ignore …`, `//export`)
/// left out. One pass over the children: tree-sitter finds a node's previous sibling by
/// walking from the first child, which a file or group of thousands of specs makes costly.
pub(crate) fn child_docs(parent: Node<'_>, src: &[u8]) -> Docs {
    let mut out = Docs::new();
    let mut run: Vec<Node<'_>> = Vec::new();
    let mut code_ends_on: Option<usize> = None;
    let mut cursor = parent.walk();
    for child in parent.children(&mut cursor) {
        if child.kind() == "comment" {
            let starts = child.start_position().row;
            if run.is_empty() && code_ends_on == Some(starts) {
                continue; // `x := 1 // note`: documents the code before it
            }
            if run.last().is_some_and(|c| c.end_position().row + 1 != starts) {
                run.clear();
            }
            run.push(child);
            continue;
        }
        if run.last().is_some_and(|c| c.end_position().row + 1 == child.start_position().row) {
            if let Some(doc) = comment_text(&run, src) {
                out.insert(child.start_byte(), doc);
            }
        }
        run.clear();
        code_ends_on = Some(child.end_position().row);
    }
    out
}

/// The text of a run of comments: markers and directives left out, blank lines around trimmed.
fn comment_text(comments: &[Node<'_>], src: &[u8]) -> Option<String> {
    let mut lines: Vec<String> = Vec::new();
    for c in comments {
        let raw = String::from_utf8_lossy(&src[c.byte_range()]);
        if let Some(line) = raw.strip_prefix("//") {
            if !is_directive(line) {
                lines.push(line.strip_prefix(' ').unwrap_or(line).trim_end().to_string());
            }
        } else {
            let body = raw.trim_start_matches("/*").trim_end_matches("*/");
            lines.extend(body.lines().map(|l| l.trim_end().to_string()));
        }
    }
    while lines.first().is_some_and(|l| l.trim().is_empty()) {
        lines.remove(0);
    }
    while lines.last().is_some_and(|l| l.trim().is_empty()) {
        lines.pop();
    }
    (!lines.is_empty()).then(|| lines.join("\n"))
}

/// `//go:generate …`, `//lint:ignore …`, `//line …`, `//export …`, `//extern …`: tool
/// directives, which go/doc leaves out of doc comments.
fn is_directive(line: &str) -> bool {
    if ["line ", "extern ", "export "].iter().any(|p| line.starts_with(p)) {
        return true;
    }
    let Some((word, rest)) = line.split_once(':') else { return false };
    !word.is_empty()
        && word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && rest.bytes().next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
}

/// `(params) results` of a function-like node, normalized.
fn signature(node: Node<'_>, src: &[u8]) -> Option<String> {
    let params = node.field("parameters")?;
    let mut sig = normalized(params, src);
    if let Some(result) = node.field("result") {
        sig.push(' ');
        sig.push_str(&normalized(result, src));
    }
    Some(sig)
}

fn type_params(node: Node<'_>, src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let Some(list) = node.field("type_parameters") else { return out };
    let mut cursor = list.walk();
    for tp in list.named_children(&mut cursor) {
        let mut c2 = tp.walk();
        for name in tp.fields("name", &mut c2) {
            out.push(text(name, src));
        }
    }
    out
}

/// A `function_declaration` or `method_declaration`; its doc from `docs` (its parent's).
pub(super) fn func(node: Node<'_>, src: &[u8], docs: Option<&Docs>) -> Option<Decl> {
    let name = node.field("name")?;
    if name.is_missing() {
        return None;
    }
    let method = node.kind() == "method_declaration";
    let kind = if method { DeclKind::Method } else { DeclKind::Func };
    let mut d = decl(text(name, src), kind, pos(name));
    d.signature = signature(node, src);
    d.doc = docs.and_then(|d| d.get(&node.start_byte()).cloned());
    if method {
        let (receiver, tparams) = receiver(node.field("receiver")?, src)?;
        d.receiver = Some(receiver);
        d.type_params = tparams;
    } else {
        d.type_params = type_params(node, src);
    }
    Some(d)
}

/// The receiver's base type name, pointer-ness and type parameter names.
fn receiver(list: Node<'_>, src: &[u8]) -> Option<(Receiver, Vec<String>)> {
    let mut cursor = list.walk();
    let param = list.named_children(&mut cursor).find(|n| n.kind() == "parameter_declaration")?;
    let mut ty = param.field("type")?;
    let mut pointer = false;
    let mut tparams = Vec::new();
    loop {
        match ty.kind() {
            "parenthesized_type" => ty = ty.named_child(0)?,
            "pointer_type" if !pointer => {
                pointer = true;
                ty = ty.named_child(0)?;
            }
            "generic_type" => {
                if let Some(args) = ty.field("type_arguments") {
                    let mut c2 = args.walk();
                    tparams = args.named_children(&mut c2).map(|a| normalized(a, src)).collect();
                }
                ty = ty.field("type")?;
            }
            "qualified_type" => ty = ty.field("name")?,
            "type_identifier" => break,
            _ => return None,
        }
    }
    Some((Receiver { type_name: text(ty, src), pointer }, tparams))
}

/// The doc of `spec` (a child of the node whose children's docs `inner` holds): its own, else
/// its group's.
fn spec_doc(spec: Node<'_>, inner: Option<&Docs>, group: Option<&String>) -> Option<String> {
    inner.and_then(|d| d.get(&spec.start_byte())).or(group).cloned()
}

/// The specs of a `var_declaration` / `const_declaration`: one decl per name. With `docs`
/// (the declaration's parent's), each gets its doc comment.
pub(super) fn value_specs(node: Node<'_>, src: &[u8], docs: Option<&Docs>, out: &mut Vec<Decl>) {
    let kind = if node.kind() == "const_declaration" { DeclKind::Const } else { DeclKind::Var };
    let group = docs.and_then(|d| d.get(&node.start_byte()));
    let inner = docs.map(|_| child_docs(node, src));
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        match child.kind() {
            "var_spec" | "const_spec" => {
                value_spec(child, kind, src, spec_doc(child, inner.as_ref(), group), out)
            }
            "var_spec_list" => {
                let in_list = docs.map(|_| child_docs(child, src));
                let mut c2 = child.walk();
                for spec in child.named_children(&mut c2) {
                    if spec.kind() == "var_spec" {
                        value_spec(spec, kind, src, spec_doc(spec, in_list.as_ref(), group), out);
                    }
                }
            }
            _ => {}
        }
    }
}

/// One value spec's decls, each with `doc`.
fn value_spec(spec: Node<'_>, kind: DeclKind, src: &[u8], doc: Option<String>, out: &mut Vec<Decl>) {
    let ty = spec.field("type").map(|t| normalized(t, src));
    let mut cursor = spec.walk();
    for name in spec.fields("name", &mut cursor) {
        if name.kind() == "identifier" && !name.is_missing() {
            let mut d = decl(text(name, src), kind, pos(name));
            d.signature = ty.clone();
            d.doc = doc.clone();
            out.push(d);
        }
    }
}

/// The specs of a `type_declaration`. With `docs` (the declaration's parent's), each gets its
/// doc comment.
pub(super) fn type_specs(node: Node<'_>, src: &[u8], docs: Option<&Docs>, out: &mut Vec<Decl>) {
    let group = docs.and_then(|d| d.get(&node.start_byte()));
    let inner = docs.map(|_| child_docs(node, src));
    let mut cursor = node.walk();
    for spec in node.named_children(&mut cursor) {
        let alias = match spec.kind() {
            "type_spec" => false,
            "type_alias" => true,
            _ => continue,
        };
        let Some(name) = spec.field("name") else { continue };
        if name.is_missing() {
            continue;
        }
        let ty = spec.field("type");
        let kind = match (alias, ty.map(|t| t.kind())) {
            (true, _) => DeclKind::Alias,
            (false, Some("struct_type")) => DeclKind::Struct,
            (false, Some("interface_type")) => DeclKind::Interface,
            _ => DeclKind::Type,
        };
        let mut d = decl(text(name, src), kind, pos(name));
        d.doc = spec_doc(spec, inner.as_ref(), group);
        d.type_params = type_params(spec, src);
        if let Some(ty) = ty {
            match kind {
                DeclKind::Struct => struct_fields(ty, src, &mut d),
                DeclKind::Interface => interface_elems(ty, src, &mut d),
                _ => d.signature = Some(normalized(ty, src)),
            }
        }
        out.push(d);
    }
}

/// The name an embedded field gets: the type name without package, pointer or type args.
fn embedded_name(mut ty: Node<'_>, src: &[u8]) -> String {
    loop {
        match ty.kind() {
            "pointer_type" | "parenthesized_type" => match ty.named_child(0) {
                Some(t) => ty = t,
                None => break,
            },
            "generic_type" => match ty.field("type") {
                Some(t) => ty = t,
                None => break,
            },
            "qualified_type" => match ty.field("name") {
                Some(t) => ty = t,
                None => break,
            },
            _ => break,
        }
    }
    text(ty, src)
}

fn struct_fields(ty: Node<'_>, src: &[u8], d: &mut Decl) {
    let mut cursor = ty.walk();
    let Some(list) = ty.named_children(&mut cursor).find(|n| n.kind() == "field_declaration_list") else {
        return;
    };
    let mut c2 = list.walk();
    for field in list.named_children(&mut c2) {
        if field.kind() != "field_declaration" {
            continue;
        }
        let Some(fty) = field.field("type") else { continue };
        let type_text = normalized(fty, src);
        let mut c3 = field.walk();
        let names: Vec<String> = field.fields("name", &mut c3).map(|n| text(n, src)).collect();
        if names.is_empty() {
            // Embedded: `T`, `*T`, `pkg.T`, `T[int]`. tree-sitter puts `*` before the type node.
            let star = field.child(0).is_some_and(|c| c.kind() == "*");
            let embed = if star { format!("*{type_text}") } else { type_text.clone() };
            d.fields.push(Field { name: embedded_name(fty, src), type_text: embed.clone(), embedded: true });
            d.embeds.push(embed);
        } else {
            for name in names {
                d.fields.push(Field { name, type_text: type_text.clone(), embedded: false });
            }
        }
    }
}

fn interface_elems(ty: Node<'_>, src: &[u8], d: &mut Decl) {
    let mut cursor = ty.walk();
    for elem in ty.named_children(&mut cursor) {
        match elem.kind() {
            "method_elem" => {
                if let Some(name) = elem.field("name") {
                    let signature = signature(elem, src).unwrap_or_default();
                    d.methods.push(MethodSpec { name: text(name, src), signature });
                }
            }
            "type_elem" => d.embeds.push(normalized(elem, src)),
            _ => {}
        }
    }
}
