//! The members that package-level defined types declare, for editor navigation: the fields
//! of struct types, with the position of each field's name (an embedded field's: its type
//! name), and the method specs of interface types, with the position of the method's name.

use super::text::{named_children, pos, text, FieldExt};
use crate::Pos;
use docforge_syntax::GoSyntax;
use tree_sitter::{Node, Tree};

/// One field of a package-level defined struct type, or one method spec of a package-level
/// defined interface type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldDecl {
    /// The defined type's name.
    pub type_name: String,
    /// The field name; for an embedded field, its type name (`Mutex` for `*sync.Mutex`); the
    /// method name of a method spec.
    pub field: String,
    pub pos: Pos,
    /// A method spec of an interface (not a struct field).
    pub method: bool,
}

/// The fields of every package-level `type T struct { … }` and the method specs of every
/// package-level `type I interface { … }` of a file (generic types included; aliases and
/// types nested in other types are not defined types).
pub fn struct_fields(go: GoSyntax<'_>, tree: &Tree, source: &[u8]) -> Vec<FieldDecl> {
    let _ = go; // the tree was obtained through the gate; no query is needed
    let root = tree.root_node();
    let mut out = Vec::new();
    for decl in named_children(root).filter(|d| d.kind() == "type_declaration") {
        for spec in named_children(decl).filter(|s| s.kind() == "type_spec") {
            let (Some(name), Some(ty)) = (spec.field("name"), spec.field("type")) else {
                continue;
            };
            let type_name = text(name, source);
            if ty.kind() == "interface_type" {
                for m in named_children(ty).filter(|m| m.kind() == "method_elem") {
                    if let Some(n) = m.field("name") {
                        let field = text(n, source);
                        out.push(FieldDecl {
                            type_name: type_name.clone(),
                            field,
                            pos: pos(n),
                            method: true,
                        });
                    }
                }
                continue;
            }
            if ty.kind() != "struct_type" {
                continue;
            }
            for (field, n) in struct_members(ty, source) {
                out.push(FieldDecl { type_name: type_name.clone(), field, pos: pos(n), method: false });
            }
        }
    }
    out
}

/// The fields of a `struct_type` node in order: each name, an embedded field's type name.
fn struct_members<'t>(ty: Node<'t>, source: &[u8]) -> Vec<(String, Node<'t>)> {
    let mut out = Vec::new();
    let list = named_children(ty).find(|n| n.kind() == "field_declaration_list");
    for field in list.into_iter().flat_map(named_children).filter(|f| f.kind() == "field_declaration") {
        let mut cursor = field.walk();
        let names: Vec<Node<'_>> = field.fields("name", &mut cursor).collect();
        if names.is_empty() {
            if let Some(n) = field.field("type").and_then(embedded_name) {
                out.push((text(n, source), n));
            }
            continue;
        }
        out.extend(names.into_iter().map(|n| (text(n, source), n)));
    }
    out
}

/// A struct or interface type spelled in place (`[]struct{ name string }{…}`, `var cfg
/// struct{ … }`, a parameter's `interface{ Close() error }`): it has no name, so editors
/// find it by position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct InPlaceType {
    /// Where `struct` / `interface` is.
    pub at: Pos,
    /// The lines of the top-level declaration it is in.
    pub lines: (u32, u32),
    /// A struct: its fields in order (an embedded field by its type name); an interface: the
    /// methods it lists itself. With the position of each name.
    pub fields: Vec<(String, Pos)>,
    /// An interface type (not a struct type).
    pub interface: bool,
    /// An interface that also embeds other types (its method set is more than `fields`).
    pub embeds: bool,
    /// The name of the function-local type it is the type of (`type node struct { … }` in a
    /// body); `None` for a type without a name.
    pub local_name: Option<String>,
}

/// Every struct and interface type of a file that is not the type of a package-level
/// `type T struct`/`type I interface` declaration, in source order.
pub fn in_place_types(go: GoSyntax<'_>, tree: &Tree, source: &[u8]) -> Vec<InPlaceType> {
    let _ = go; // the tree was obtained through the gate; no query is needed
    let mut out = Vec::new();
    for decl in named_children(tree.root_node()) {
        let lines = (decl.start_position().row as u32 + 1, decl.end_position().row as u32 + 1);
        // Only subtrees that spell `struct` or `interface` are entered.
        let mut stack = vec![decl];
        while let Some(node) = stack.pop() {
            let bytes = &source[node.byte_range()];
            if memchr::memmem::find(bytes, b"struct").is_none()
                && memchr::memmem::find(bytes, b"interface").is_none()
            {
                continue;
            }
            let kind = node.kind();
            if kind == "struct_type" && !is_defined_type(node) {
                let fields = struct_members(node, source).into_iter().map(|(f, n)| (f, pos(n))).collect();
                let local_name = local_type_name(node, source);
                out.push(InPlaceType {
                    at: pos(node),
                    lines,
                    fields,
                    interface: false,
                    embeds: false,
                    local_name,
                });
            } else if kind == "interface_type" && !is_defined_type(node) {
                let mut fields = Vec::new();
                let mut embeds = false;
                for elem in named_children(node).filter(|e| e.kind() != "comment") {
                    match elem.field("name").filter(|_| elem.kind() == "method_elem") {
                        Some(n) => fields.push((text(n, source), pos(n))),
                        None => embeds = true,
                    }
                }
                let local_name = local_type_name(node, source);
                out.push(InPlaceType { at: pos(node), lines, fields, interface: true, embeds, local_name });
            }
            let children: Vec<Node<'_>> = named_children(node).collect();
            stack.extend(children.into_iter().rev());
        }
    }
    out.sort_by_key(|a| a.at);
    out
}

/// `T` when `node` is the type a (function-local) `type T struct { … }` declares.
fn local_type_name(node: Node<'_>, source: &[u8]) -> Option<String> {
    let spec = node.parent().filter(|p| p.kind() == "type_spec")?;
    spec.field("type").filter(|t| t.id() == node.id())?;
    spec.field("name").map(|n| text(n, source))
}

/// A package-level `type T struct { … }`'s (`type I interface { … }`'s) own type.
fn is_defined_type(node: Node<'_>) -> bool {
    let Some(spec) = node.parent().filter(|p| p.kind() == "type_spec") else { return false };
    spec.field("type").is_some_and(|t| t.id() == node.id())
        && spec.parent().and_then(|d| d.parent()).is_some_and(|r| r.kind() == "source_file")
}

/// The type name of an embedded field's type: `T`, `*T`, `pkg.T`, `T[A]`, `*pkg.T[A]`.
fn embedded_name(ty: Node<'_>) -> Option<Node<'_>> {
    match ty.kind() {
        "type_identifier" => Some(ty),
        "pointer_type" => named_children(ty).next().and_then(embedded_name),
        "qualified_type" => ty.field("name"),
        "generic_type" => ty.field("type").and_then(embedded_name),
        _ => None,
    }
}
