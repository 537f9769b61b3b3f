//! The members that package-level defined types declare, for editor navigation: the fields
//! of struct types, with the position of each field's name (an embedded field's: its type
//! name), and the method specs of interface types, with the position of the method's name.

use super::text::{pos, text, FieldExt};
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
    for decl in named(root).filter(|d| d.kind() == "type_declaration") {
        for spec in named(decl).filter(|s| s.kind() == "type_spec") {
            let (Some(name), Some(ty)) = (spec.field("name"), spec.field("type")) else {
                continue;
            };
            let type_name = text(name, source);
            if ty.kind() == "interface_type" {
                for m in named(ty).filter(|m| m.kind() == "method_elem") {
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
            let list = named(ty).find(|n| n.kind() == "field_declaration_list");
            for field in list.into_iter().flat_map(named).filter(|f| f.kind() == "field_declaration") {
                let mut cursor = field.walk();
                let names: Vec<Node<'_>> = field.fields("name", &mut cursor).collect();
                if names.is_empty() {
                    if let Some(n) = field.field("type").and_then(embedded_name) {
                        out.push(FieldDecl {
                            type_name: type_name.clone(),
                            field: text(n, source),
                            pos: pos(n),
                            method: false,
                        });
                    }
                    continue;
                }
                for n in names {
                    let field = text(n, source);
                    out.push(FieldDecl { type_name: type_name.clone(), field, pos: pos(n), method: false });
                }
            }
        }
    }
    out
}

fn named(node: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    super::text::named_children(node)
}

/// The type name of an embedded field's type: `T`, `*T`, `pkg.T`, `T[A]`, `*pkg.T[A]`.
fn embedded_name(ty: Node<'_>) -> Option<Node<'_>> {
    match ty.kind() {
        "type_identifier" => Some(ty),
        "pointer_type" => named(ty).next().and_then(embedded_name),
        "qualified_type" => ty.field("name"),
        "generic_type" => ty.field("type").and_then(embedded_name),
        _ => None,
    }
}
