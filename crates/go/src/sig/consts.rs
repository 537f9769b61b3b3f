//! Package-level vars and consts: declared types, constant expressions (with the implicit
//! repetition of const groups) and the shape of var initializers.

use super::extract::type_expr;
use super::{ConstExpr, FileSigs, TypeExpr, ValueInit, ValueKind, ValueSig};
use crate::extract::text::{named_children, normalized, pos, text, FieldExt};
use docforge_syntax::tree_sitter::Node;

/// A constant expression node as a [`ConstExpr`].
pub(super) fn const_expr(node: Node<'_>, src: &[u8]) -> ConstExpr {
    let field = |name: &str| node.field(name);
    let sub =
        |n: Option<Node<'_>>| Box::new(n.map_or(ConstExpr::Other(String::new()), |n| const_expr(n, src)));
    match node.kind() {
        "int_literal" => ConstExpr::Int(text(node, src)),
        "float_literal"
        | "imaginary_literal"
        | "rune_literal"
        | "interpreted_string_literal"
        | "raw_string_literal" => ConstExpr::Lit(text(node, src)),
        "identifier" | "iota" | "true" | "false" | "nil" => ConstExpr::Ident(text(node, src)),
        "selector_expression" => match (field("operand"), field("field")) {
            (Some(x), Some(sel)) if x.kind() == "identifier" => {
                ConstExpr::Qualified { pkg: text(x, src), name: text(sel, src) }
            }
            _ => ConstExpr::Other(normalized(node, src)),
        },
        "parenthesized_expression" => match named_children(node).find(|c| c.kind() != "comment") {
            Some(inner) => const_expr(inner, src),
            None => ConstExpr::Other(normalized(node, src)),
        },
        "unary_expression" => ConstExpr::Unary {
            op: field("operator").map(|o| text(o, src)).unwrap_or_default(),
            x: sub(field("operand")),
        },
        "binary_expression" => ConstExpr::Binary {
            op: field("operator").map(|o| text(o, src)).unwrap_or_default(),
            x: sub(field("left")),
            y: sub(field("right")),
        },
        "call_expression" => match (field("function"), field("arguments")) {
            (Some(f), Some(args)) => ConstExpr::Call {
                fun: normalized(f, src),
                args: named_children(args)
                    .filter(|a| a.kind() != "comment")
                    .map(|a| const_expr(a, src))
                    .collect(),
            },
            _ => ConstExpr::Other(normalized(node, src)),
        },
        "type_conversion_expression" => match (field("type"), field("operand")) {
            (Some(t), Some(x)) => ConstExpr::Call { fun: normalized(t, src), args: vec![const_expr(x, src)] },
            _ => ConstExpr::Other(normalized(node, src)),
        },
        _ => ConstExpr::Other(normalized(node, src)),
    }
}

/// The specs of a `var_declaration` / `const_declaration`: one [`ValueSig`] per name.
pub(super) fn value_specs(node: Node<'_>, src: &[u8], sigs: &mut FileSigs) {
    if node.kind() == "const_declaration" {
        // Implicit repetition: a spec without expressions repeats the previous type and list.
        let mut last: Option<(Option<TypeExpr>, Vec<ConstExpr>)> = None;
        let specs = named_children(node).filter(|s| s.kind() == "const_spec");
        for (iota, spec) in specs.enumerate() {
            if let Some(values) = spec.field("value") {
                let ty = spec.field("type").map(|t| type_expr(t, src));
                let exprs = named_children(values).filter(|v| v.kind() != "comment");
                last = Some((ty, exprs.map(|v| const_expr(v, src)).collect()));
            }
            let (ty, exprs) = last.clone().unwrap_or((None, Vec::new()));
            for (i, name) in spec_names(spec).enumerate() {
                let expr = exprs.get(i).cloned().unwrap_or(ConstExpr::Other(String::new()));
                let init = ValueInit::Const { expr, iota: iota as u32 };
                push(
                    sigs,
                    ValueSig { name: text(name, src), kind: ValueKind::Const, ty: ty.clone(), init },
                    name,
                );
            }
        }
        return;
    }
    for child in named_children(node) {
        match child.kind() {
            "var_spec" => var_spec(child, src, sigs),
            "var_spec_list" => {
                named_children(child).filter(|s| s.kind() == "var_spec").for_each(|s| var_spec(s, src, sigs))
            }
            _ => {}
        }
    }
}

fn spec_names<'t>(spec: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    let mut cursor = spec.walk();
    let names: Vec<Node<'t>> =
        spec.fields("name", &mut cursor).filter(|n| n.kind() == "identifier" && !n.is_missing()).collect();
    names.into_iter()
}

fn push(sigs: &mut FileSigs, value: ValueSig, name: Node<'_>) {
    sigs.items.values.push(value);
    sigs.positions.values.push(pos(name));
}

fn var_spec(spec: Node<'_>, src: &[u8], sigs: &mut FileSigs) {
    let ty = spec.field("type").map(|t| type_expr(t, src));
    let values: Vec<Node<'_>> = spec
        .field("value")
        .map(|v| named_children(v).filter(|c| c.kind() != "comment").collect())
        .unwrap_or_default();
    let names: Vec<Node<'_>> = spec_names(spec).collect();
    // Initializers inference types (an untyped var that is not `T{…}`), walked once per spec.
    let mut inferred: Option<Option<(crate::body::FuncBody, Vec<crate::body::ExprId>)>> = None;
    let mut inferred_init = |i: usize| {
        let walked = inferred.get_or_insert_with(|| {
            let list = spec.field("value")?;
            let (body, ids) = crate::body::var_init(spec, list, src);
            let fits = !body.truncated
                && body.syntax_error.is_none()
                && body.exprs.len() <= crate::body::MAX_INIT_EXPRS;
            fits.then(|| (body.without_positions(), ids))
        });
        let Some((body, ids)) = walked else { return ValueInit::Unknown };
        let (value, index) = match ids.len() {
            n if n == names.len() => (ids[i], None),
            1 => (ids[0], Some(i as u32)),
            _ => return ValueInit::Unknown,
        };
        ValueInit::Expr { body: Box::new(body.clone()), value, index }
    };
    for (i, name) in names.iter().enumerate() {
        let init = match values.get(i) {
            _ if values.is_empty() => ValueInit::None,
            Some(v) if values.len() == names.len() => init_shape(*v, src),
            _ => ValueInit::Unknown,
        };
        let init = match init {
            ValueInit::Unknown if ty.is_none() => inferred_init(i),
            init => init,
        };
        let value = ValueSig { name: text(*name, src), kind: ValueKind::Var, ty: ty.clone(), init };
        push(sigs, value, *name);
    }
}

/// `T{...}` and `&T{...}`; everything else is [`ValueInit::Unknown`].
fn init_shape(node: Node<'_>, src: &[u8]) -> ValueInit {
    let (address, lit) = match node.kind() {
        "unary_expression" if node.field("operator").is_some_and(|o| o.kind() == "&") => {
            match node.field("operand") {
                Some(x) => (true, x),
                None => return ValueInit::Unknown,
            }
        }
        _ => (false, node),
    };
    match (lit.kind(), lit.field("type")) {
        ("composite_literal", Some(_)) => match super::literal_type(lit, src) {
            Some(ty) => ValueInit::Composite { address, ty },
            None => ValueInit::Unknown,
        },
        _ => ValueInit::Unknown,
    }
}
