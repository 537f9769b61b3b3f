//! Expressions of the body walk: identifiers resolved to their binding, calls recorded
//! with the position of their `(`.

use super::{named_children, Binding, Walker};
use crate::body::{BinOp, CallIr, ElemStep, Expr, ExprId, LitKind, LiteralKey, UnOp};
use crate::extract::text::{bytes, pos, text, FieldExt};
use crate::sig::{func_sig, TypeExpr};
use docforge_syntax::tree_sitter::Node;

impl<'s> Walker<'s> {
    pub(super) fn expr(&mut self, node: Node<'_>) -> ExprId {
        if !self.deeper() {
            return self.push(Expr::Other);
        }
        let e = self.expr_inner(node);
        self.depth -= 1;
        e
    }

    fn expr_inner(&mut self, node: Node<'_>) -> ExprId {
        let field = |f: &str| node.field(f);
        let e = match node.kind() {
            "identifier" => {
                let name = bytes(node, self.src);
                match self.lookup(name) {
                    Some(Binding::Var(id)) => {
                        let local = &mut self.body.locals[id as usize];
                        local.captured |= local.depth < self.lits;
                        Expr::Local(id)
                    }
                    Some(Binding::Type(id)) => self.local_type(id, node),
                    Some(Binding::TypeParam) => Expr::Type(TypeExpr::Name(text(node, self.src))),
                    None => Expr::Global(text(node, self.src)),
                }
            }
            "true" | "false" | "nil" | "iota" => Expr::Global(node.kind().to_string()),
            "parenthesized_expression" => {
                return match named_children(node).next() {
                    Some(i) => self.expr(i),
                    None => self.push(Expr::Other),
                }
            }
            "selector_expression" => {
                let x = match field("operand") {
                    Some(o) => self.expr(o),
                    None => self.push(Expr::Other),
                };
                match field("field") {
                    Some(f) => Expr::Selector { x, sel: text(f, self.src), pos: pos(f) },
                    None => Expr::Other,
                }
            }
            "call_expression" => return self.call(node),
            "index_expression" => {
                let x = field("operand").map(|o| self.expr(o));
                let i = field("index").map(|o| self.expr(o));
                match (x, i) {
                    (Some(x), Some(i)) => Expr::Index { x, index: vec![i] },
                    _ => Expr::Other,
                }
            }
            "type_instantiation_expression" => {
                let mut kids = named_children(node);
                let x = kids.next().map(|t| self.expr_or_type(t));
                let index: Vec<ExprId> = kids.map(|t| self.expr_or_type(t)).collect();
                match x {
                    Some(x) => Expr::Index { x, index },
                    None => Expr::Other,
                }
            }
            "slice_expression" => {
                let x = field("operand").map(|o| self.expr(o));
                for f in ["start", "end", "capacity"] {
                    if let Some(c) = field(f) {
                        self.expr(c);
                    }
                }
                x.map_or(Expr::Other, |x| Expr::Slice { x })
            }
            "type_assertion_expression" => {
                let x = field("operand").map(|o| self.expr(o));
                match (x, field("type")) {
                    (Some(x), Some(t)) => Expr::TypeAssert { x, ty: self.ty(t) },
                    _ => Expr::Other,
                }
            }
            "type_conversion_expression" => {
                let x = field("operand").map(|o| self.expr(o));
                match (x, field("type")) {
                    (Some(x), Some(t)) => {
                        let ty = self.ty(t);
                        // `F[int](x)` / `pkg.F[int](x)` parse as conversions: a call site when
                        // the base names no type (decided by resolution).
                        if t.kind() == "generic_type" {
                            let fun = self.expr_or_type(t);
                            let args = vec![x];
                            return self.push_call(node, fun, args, false);
                        }
                        Expr::Conversion { ty, x }
                    }
                    _ => Expr::Other,
                }
            }
            "composite_literal" => {
                // `[...]T{…}` is an array of T (`sig::literal_type`).
                let ty = crate::sig::literal_type(node, self.src).map(|t| self.guard(t));
                if let Some(b) = field("body") {
                    self.literal_value(b, ty.clone().map(|ty| LitTy { ty, steps: Vec::new() }));
                }
                Expr::Composite(ty)
            }
            "literal_value" => {
                self.literal_value(node, None);
                Expr::Composite(None)
            }
            "func_literal" => {
                self.open();
                self.lits += 1;
                self.params(node);
                let sig = self.guard_sig(func_sig(node, self.src));
                if let Some(b) = field("body") {
                    self.func_block(b);
                }
                self.lits -= 1;
                self.close();
                Expr::FuncLit(Box::new(sig))
            }
            "unary_expression" => {
                let x = match field("operand") {
                    Some(o) => self.expr(o),
                    None => self.push(Expr::Other),
                };
                let op = match field("operator").map(|o| o.kind()) {
                    Some("&") => {
                        if let Some(o) = field("operand") {
                            self.mark_assigned(o);
                        }
                        UnOp::Addr
                    }
                    Some("*") => UnOp::Deref,
                    Some("<-") => UnOp::Recv,
                    Some("!") => UnOp::Not,
                    _ => UnOp::Arith,
                };
                Expr::Unary { op, x }
            }
            "binary_expression" => {
                let x = field("left").map(|o| self.expr(o));
                let y = field("right").map(|o| self.expr(o));
                let op = match field("operator").map(|o| o.kind()) {
                    Some("==" | "!=" | "<" | "<=" | ">" | ">=") => BinOp::Cmp,
                    Some("&&" | "||") => BinOp::Logic,
                    Some("<<" | ">>") => BinOp::Shift,
                    _ => BinOp::Arith,
                };
                match (x, y) {
                    (Some(x), Some(y)) => Expr::Binary { op, x, y },
                    _ => Expr::Other,
                }
            }
            "int_literal" => Expr::Lit(LitKind::Int),
            "float_literal" => Expr::Lit(LitKind::Float),
            "imaginary_literal" => Expr::Lit(LitKind::Imag),
            "rune_literal" => Expr::Lit(LitKind::Rune),
            "interpreted_string_literal" | "raw_string_literal" => Expr::Lit(LitKind::String),
            k if is_type_kind(k) => Expr::Type(self.ty(node)),
            _ => {
                // Unknown shape (or a syntax error): still visit the children for calls.
                for c in named_children(node) {
                    self.stmt_or_expr(c);
                }
                Expr::Other
            }
        };
        self.push(e)
    }

    /// A node in a position that may hold a type or an expression (type arguments).
    pub(super) fn expr_or_type(&mut self, node: Node<'_>) -> ExprId {
        match node.kind() {
            "generic_type" => {
                let base = node.field("type").map(|b| self.expr_or_type(b));
                let args: Vec<ExprId> = node
                    .field("type_arguments")
                    .map(|a| named_children(a).collect::<Vec<_>>())
                    .unwrap_or_default()
                    .into_iter()
                    .map(|a| self.expr_or_type(a))
                    .collect();
                match base {
                    Some(x) => self.push(Expr::Index { x, index: args }),
                    None => self.push(Expr::Other),
                }
            }
            "type_identifier" => {
                let name = bytes(node, self.src);
                let e = match self.lookup(name) {
                    Some(Binding::Var(id)) => Expr::Local(id),
                    Some(Binding::Type(id)) => self.local_type(id, node),
                    Some(Binding::TypeParam) => Expr::Type(TypeExpr::Name(text(node, self.src))),
                    None => Expr::Global(text(node, self.src)),
                };
                self.push(e)
            }
            "qualified_type" => {
                let pkg = node.field("package");
                let name = node.field("name");
                match (pkg, name) {
                    (Some(p), Some(n)) => {
                        let x = match self.lookup(bytes(p, self.src)) {
                            Some(Binding::Var(id)) => Expr::Local(id),
                            Some(_) => Expr::Other,
                            None => Expr::Global(text(p, self.src)),
                        };
                        let x = self.push(x);
                        self.push(Expr::Selector { x, sel: text(n, self.src), pos: pos(n) })
                    }
                    _ => self.push(Expr::Other),
                }
            }
            "type_elem" => match named_children(node).next() {
                Some(c) if node.named_child_count() == 1 => self.expr_or_type(c),
                _ => self.push(Expr::Type(self.ty(node))),
            },
            k if is_type_kind(k) => {
                let t = self.ty(node);
                self.push(Expr::Type(t))
            }
            _ => self.expr(node),
        }
    }

    /// The elements of a composite literal of type `ty` (`None`: unknown). The literals
    /// nested in it with their type elided (`[]T{{f: v}}`, `map[K]*T{k: {f: v}}`) get the
    /// element type the outer type spells; when the outer type is a name (`Ts{{f: v}}`),
    /// the steps that take it apart once its underlying type is known.
    fn literal_value(&mut self, node: Node<'_>, ty: Option<LitTy>) {
        let literal_type = |e: &TypeExpr| match e {
            TypeExpr::Pointer(inner) => (**inner).clone(),
            e => e.clone(),
        };
        let spelled = |e: &TypeExpr| Some(LitTy { ty: literal_type(e), steps: Vec::new() });
        let step = |lt: &LitTy, s: ElemStep| {
            let mut steps = lt.steps.clone();
            steps.push(s);
            Some(LitTy { ty: lt.ty.clone(), steps })
        };
        let (key, elem) = match &ty {
            Some(lt) if lt.steps.is_empty() => match &lt.ty {
                TypeExpr::Slice(e) | TypeExpr::Array { elem: e, .. } => (None, spelled(e)),
                TypeExpr::Map { key, value } => (spelled(key), spelled(value)),
                TypeExpr::Name(_) | TypeExpr::Qualified { .. } | TypeExpr::Generic { .. } => {
                    (step(lt, ElemStep::Key), step(lt, ElemStep::Elem))
                }
                _ => (None, None),
            },
            Some(lt) => (step(lt, ElemStep::Key), step(lt, ElemStep::Elem)),
            None => (None, None),
        };
        for el in named_children(node) {
            match el.kind() {
                "keyed_element" => {
                    // The key may be a field name: walk it only when it holds a call.
                    for (i, c) in named_children(el).enumerate() {
                        let inner = if c.kind() == "literal_element" { c.named_child(0) } else { Some(c) };
                        let Some(inner) = inner else { continue };
                        if i == 0 && inner.kind() == "identifier" {
                            if let Some(lt) = &ty {
                                let key = LiteralKey {
                                    ty: lt.ty.clone(),
                                    steps: lt.steps.clone(),
                                    name: text(inner, self.src),
                                    pos: pos(inner),
                                };
                                self.body.keys.push(key);
                            }
                            continue;
                        }
                        self.element(inner, if i == 0 { key.clone() } else { elem.clone() });
                    }
                }
                "literal_element" => {
                    if let Some(c) = el.named_child(0) {
                        self.element(c, elem.clone());
                    }
                }
                _ => {
                    self.expr(el);
                }
            }
        }
    }

    /// One element (or key) of a composite literal whose element type is `elem`.
    fn element(&mut self, node: Node<'_>, elem: Option<LitTy>) {
        if node.kind() != "literal_value" || elem.is_none() {
            self.expr(node);
        } else if self.deeper() {
            self.literal_value(node, elem);
            self.depth -= 1;
        }
    }

    fn call(&mut self, node: Node<'_>) -> ExprId {
        let fun = match node.field("function") {
            Some(f) => self.expr(f),
            None => self.push(Expr::Other),
        };
        let fun = match node.field("type_arguments") {
            Some(ta) => {
                let index: Vec<ExprId> = named_children(ta)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .map(|t| self.expr_or_type(t))
                    .collect();
                self.push(Expr::Index { x: fun, index })
            }
            None => fun,
        };
        let mut args = Vec::new();
        let mut spread = false;
        if let Some(list) = node.field("arguments") {
            for a in named_children(list) {
                if a.kind() == "variadic_argument" {
                    spread = true;
                    if let Some(x) = a.named_child(0) {
                        args.push(self.expr(x));
                    }
                } else {
                    args.push(self.expr_or_type(a));
                }
            }
        }
        self.push_call(node, fun, args, spread)
    }

    fn push_call(&mut self, node: Node<'_>, fun: ExprId, args: Vec<ExprId>, spread: bool) -> ExprId {
        let at = node
            .field("arguments")
            .or_else(|| node.field("operand").and_then(|_| paren_of(node)))
            .map_or_else(|| pos(node), |a| pos(a));
        let id = self.push(Expr::Call { fun, args, spread });
        if !self.body.truncated {
            let e = node.end_position();
            let end = crate::Pos { line: e.row as u32 + 1, column: e.column as u32 + 1 };
            self.body.calls.push(CallIr { expr: id, pos: at, end });
        }
        id
    }
}

/// The `(` token of a conversion-shaped call.
fn paren_of(node: Node<'_>) -> Option<Node<'_>> {
    crate::extract::text::children(node).find(|c| c.kind() == "(")
}

pub(super) fn is_type_kind(kind: &str) -> bool {
    matches!(
        kind,
        "slice_type"
            | "array_type"
            | "implicit_length_array_type"
            | "map_type"
            | "channel_type"
            | "function_type"
            | "struct_type"
            | "interface_type"
            | "pointer_type"
            | "parenthesized_type"
            | "generic_type"
            | "qualified_type"
            | "type_identifier"
            | "negated_type"
    )
}

/// The type of a composite literal's elements as far as syntax knows it (see
/// [`LiteralKey::steps`]).
#[derive(Clone, Debug)]
struct LitTy {
    ty: TypeExpr,
    steps: Vec<ElemStep>,
}
