//! Parameter lists as Go reads them. tree-sitter-go reads a long list of names sharing one
//! type, `(a, b, …, j T)` (about ten names or more), as unnamed parameters of the types `a`,
//! `b`, … followed by one named declaration. The names of a list are all present or all
//! absent, so in a list that has a named declaration, an unnamed one whose type is a bare
//! identifier is a name, of the type of the next named declaration.

use super::text::FieldExt;
use tree_sitter::Node;

/// One declaration of a parameter list: its names (none for unnamed parameters) and type.
#[derive(Debug)]
pub(crate) struct ParamGroup<'t> {
    pub names: Vec<Node<'t>>,
    pub ty: Option<Node<'t>>,
    pub variadic: bool,
}

/// The declarations of `list` (a `parameter_list`), names misread as types given back to
/// the declaration they belong to.
pub(crate) fn param_groups(list: Node<'_>) -> Vec<ParamGroup<'_>> {
    let mut groups: Vec<ParamGroup<'_>> = Vec::new();
    let mut cursor = list.walk();
    for p in list.named_children(&mut cursor) {
        let variadic = p.kind() == "variadic_parameter_declaration";
        if p.kind() != "parameter_declaration" && !variadic {
            continue;
        }
        let mut c = p.walk();
        let names: Vec<Node<'_>> = p.fields("name", &mut c).collect();
        groups.push(ParamGroup { names, ty: p.field("type"), variadic });
    }
    if !groups.iter().any(|g| !g.names.is_empty()) {
        return groups;
    }
    let mut out: Vec<ParamGroup<'_>> = Vec::with_capacity(groups.len());
    let mut pending: Vec<Node<'_>> = Vec::new();
    for mut g in groups {
        match g.ty {
            Some(ty) if g.names.is_empty() && ty.kind() == "type_identifier" => pending.push(ty),
            _ if !g.names.is_empty() => {
                pending.append(&mut g.names);
                g.names = std::mem::take(&mut pending);
                out.push(g);
            }
            _ => out.push(g),
        }
    }
    // Names with no named declaration after them stay what tree-sitter read (invalid Go).
    out.extend(pending.into_iter().map(|ty| ParamGroup { names: Vec::new(), ty: Some(ty), variadic: false }));
    out
}

/// Whether `decl` (a `parameter_declaration`) is a name [`param_groups`] gives back to a
/// later declaration of its list.
pub(crate) fn is_misread_name(decl: Node<'_>) -> bool {
    if decl.field("name").is_some() {
        return false;
    }
    let (Some(ty), Some(list)) = (decl.field("type"), decl.parent()) else { return false };
    param_groups(list).iter().any(|g| g.names.iter().any(|n| n.id() == ty.id()))
}
