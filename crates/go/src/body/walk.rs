//! [`extract_bodies`]: one recursive walk over every function and method body of a file,
//! resolving identifiers to their lexical binding and building the IR of [`super`].

use super::{Expr, ExprId, FileBodies, FuncBody, Local, LocalDef};
use super::{MAX_DEPTH, MAX_EXPRS};
use crate::extract::text::{self, bytes, pos, text, FieldExt};
use crate::sig::{type_expr, TypeExpr};
use docforge_syntax::tree_sitter::{Node, Tree};
use docforge_syntax::GoSyntax;

#[path = "expr.rs"]
mod expr;
#[path = "local_types.rs"]
mod local_types;

/// The bodies of the functions and methods of one file, parallel to the file's
/// [`ItemSigs::funcs`](crate::ItemSigs::funcs) (`tree` must be the parse of `source`
/// obtained through the same gate). Never panics, whatever the bytes.
pub fn extract_bodies(go: GoSyntax<'_>, tree: &Tree, source: &[u8]) -> FileBodies {
    let _ = go; // the tree was obtained through the gate; no query is needed
    let root = tree.root_node();
    let mut out = FileBodies::default();
    for decl in text::named_children(root) {
        if !matches!(decl.kind(), "function_declaration" | "method_declaration") {
            continue;
        }
        if decl.field("name").filter(|n| !n.is_missing()).is_none() {
            continue;
        }
        out.funcs.push(func_body(decl, source));
    }
    out
}

/// The initializers of the package-level `var` specs of one file, one body without
/// parameters per spec that has values (for what their selectors and literal keys select;
/// not part of [`extract_bodies`], whose bodies are parallel to the file's functions). Each
/// is bounded like a function body.
pub fn extract_var_inits(go: GoSyntax<'_>, tree: &Tree, source: &[u8]) -> Vec<FuncBody> {
    let _ = go; // the tree was obtained through the gate; no query is needed
    let root = tree.root_node();
    let mut out = Vec::new();
    for decl in named_children(root).filter(|d| d.kind() == "var_declaration") {
        let specs: Vec<Node<'_>> = named_children(decl)
            .flat_map(|s| if s.kind() == "var_spec_list" { named_children(s).collect() } else { vec![s] })
            .filter(|s| s.kind() == "var_spec")
            .collect();
        for spec in specs {
            let Some(values) = spec.field("value") else { continue };
            out.push(var_init(spec, values, source).0);
        }
    }
    out
}

/// The initializer of one package-level `var` spec (`values`: its value list) as a body
/// without parameters, and the expression of each value, comments skipped.
pub(crate) fn var_init(spec: Node<'_>, values: Node<'_>, source: &[u8]) -> (FuncBody, Vec<ExprId>) {
    let name = spec.field("name").map(|n| text(n, source)).unwrap_or_default();
    let mut w = Walker::new(source, name, spec);
    let ids = named_children(values).filter(|v| v.kind() != "comment").map(|v| w.expr(v)).collect();
    w.body.calls.sort_by_key(|c| c.pos);
    (w.body, ids)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Binding {
    Var(u32),
    /// A local type: index into `Walker::local_types`.
    Type(u32),
    TypeParam,
}

struct Walker<'s> {
    src: &'s [u8],
    body: FuncBody,
    /// Bindings of the open scopes, innermost last; `marks` are scope starts.
    names: Vec<(&'s [u8], Binding)>,
    marks: Vec<usize>,
    depth: usize,
    /// Function-literal nesting depth.
    lits: u32,
    /// What each local type declaration spells ([`Binding::Type`]): its struct type or
    /// aliased type, [`TypeExpr::Invalid`] for other local types.
    local_types: Vec<TypeExpr>,
}

fn named_children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    text::named_children(node).filter(|c| c.kind() != "comment")
}

fn func_body(decl: Node<'_>, src: &[u8]) -> FuncBody {
    let name = decl.field("name").map(|n| text(n, src)).unwrap_or_default();
    let mut w = Walker::new(src, name, decl);
    if let Some(tps) = decl.field("type_parameters") {
        for d in named_children(tps) {
            let mut c = d.walk();
            for n in d.fields("name", &mut c) {
                w.bind(n, Binding::TypeParam);
            }
        }
    }
    if let Some(recv) = decl.field("receiver") {
        for p in named_children(recv) {
            // Receiver type parameters (`func (l *List[T]) ...`).
            if let Some(ty) = p.field("type") {
                receiver_tparams(&mut w, ty);
            }
            let mut c = p.walk();
            let names: Vec<Node<'_>> = p.fields("name", &mut c).collect();
            for n in names {
                let id = w.local(LocalDef::Receiver);
                w.bind(n, Binding::Var(id));
            }
        }
    }
    w.params(decl);
    if let Some(body) = decl.field("body") {
        w.func_block(body);
    }
    // Calls are pushed after their operands: restore source order.
    w.body.calls.sort_by_key(|c| c.pos);
    w.body
}

/// The first `ERROR` or `MISSING` node under `node`, in source order.
fn first_error(node: Node<'_>) -> Option<Node<'_>> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    if !node.has_error() {
        return None;
    }
    text::children(node).find_map(first_error)
}

fn receiver_tparams<'s>(w: &mut Walker<'s>, mut ty: Node<'_>) {
    loop {
        match ty.kind() {
            "pointer_type" | "parenthesized_type" => match ty.named_child(0) {
                Some(t) => ty = t,
                None => return,
            },
            "generic_type" => {
                if let Some(args) = ty.field("type_arguments") {
                    for a in named_children(args) {
                        // `type_elem` wrapping a `type_identifier`
                        let n = if a.kind() == "type_elem" { a.named_child(0) } else { Some(a) };
                        if let Some(n) = n {
                            w.bind_bytes(bytes(n, w.src), Binding::TypeParam);
                        }
                    }
                }
                return;
            }
            _ => return,
        }
    }
}

impl<'s> Walker<'s> {
    /// A walker of the declaration `decl` (its first syntax error noted), its scope open.
    fn new(src: &'s [u8], name: String, decl: Node<'_>) -> Self {
        let body = FuncBody { name, syntax_error: first_error(decl).map(pos), ..FuncBody::default() };
        let mut w = Walker {
            src,
            body,
            names: Vec::new(),
            marks: Vec::new(),
            depth: 0,
            lits: 0,
            local_types: Vec::new(),
        };
        w.open();
        w
    }

    fn open(&mut self) {
        self.marks.push(self.names.len());
    }

    fn close(&mut self) {
        if let Some(m) = self.marks.pop() {
            self.names.truncate(m);
        }
    }

    fn local(&mut self, def: LocalDef) -> u32 {
        self.body.locals.push(Local { def, reassigned: false, captured: false, depth: self.lits });
        self.body.locals.len() as u32 - 1
    }

    fn bind(&mut self, name: Node<'_>, b: Binding) {
        let n = bytes(name, self.src);
        self.bind_bytes(n, b);
    }

    fn bind_bytes(&mut self, n: &'s [u8], b: Binding) {
        if n != b"_" && !n.is_empty() {
            self.names.push((n, b));
        }
    }

    fn lookup(&self, name: &[u8]) -> Option<Binding> {
        self.names.iter().rev().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }

    /// The binding of `name` in the innermost scope only.
    fn in_current_scope(&self, name: &[u8]) -> Option<Binding> {
        let start = self.marks.last().copied().unwrap_or(0);
        self.names[start..].iter().rev().find(|(n, _)| *n == name).map(|(_, b)| *b)
    }

    fn push(&mut self, e: Expr) -> ExprId {
        if self.body.exprs.len() >= MAX_EXPRS {
            self.body.truncated = true;
            return 0;
        }
        self.body.exprs.push(e);
        self.body.exprs.len() as u32 - 1
    }

    /// A type node as a [`TypeExpr`], made [`TypeExpr::Invalid`] when it mentions a locally
    /// bound name (a local type, or a variable shadowing a package name).
    fn ty(&self, node: Node<'_>) -> TypeExpr {
        let t = type_expr(node, self.src);
        self.guard(t)
    }

    /// Binds the parameters and named results of a function-like node.
    fn params(&mut self, node: Node<'_>) {
        for field in ["parameters", "result"] {
            let Some(list) = node.field(field) else { continue };
            if list.kind() != "parameter_list" {
                continue;
            }
            let mut pending = Vec::new();
            for g in crate::extract::params::param_groups(list) {
                let ty = match g.ty {
                    Some(t) => self.ty(t),
                    None => TypeExpr::Invalid(String::new()),
                };
                for n in g.names {
                    pending.push((n, LocalDef::Param { ty: ty.clone(), variadic: g.variadic }));
                }
            }
            // Parameter types are resolved outside the parameters' own scope.
            for (n, def) in pending {
                let id = self.local(def);
                self.bind(n, Binding::Var(id));
            }
        }
    }

    fn deeper(&mut self) -> bool {
        if self.depth >= MAX_DEPTH {
            self.body.truncated = true;
            return false;
        }
        self.depth += 1;
        true
    }

    /// A function body: its top-level declarations share the parameters' scope (so `x, err
    /// := f()` reuses a parameter `err`).
    fn func_block(&mut self, node: Node<'_>) {
        for s in named_children(node) {
            self.stmt(s);
        }
    }

    fn block(&mut self, node: Node<'_>) {
        self.open();
        for s in named_children(node) {
            self.stmt(s);
        }
        self.close();
    }

    fn stmt(&mut self, node: Node<'_>) {
        if !self.deeper() {
            return;
        }
        self.stmt_inner(node);
        self.depth -= 1;
    }

    fn stmt_inner(&mut self, node: Node<'_>) {
        let field = |f: &str| node.field(f);
        match node.kind() {
            "block" => self.block(node),
            "statement_list" => named_children(node).for_each(|s| self.stmt(s)),
            "short_var_declaration" => self.define(field("left"), field("right")),
            "assignment_statement" => {
                for side in [field("right"), field("left")].into_iter().flatten() {
                    for e in named_children(side) {
                        self.expr(e);
                        self.mark_assigned(e);
                    }
                }
            }
            "inc_statement" | "dec_statement" => {
                for e in named_children(node) {
                    self.expr(e);
                    self.mark_assigned(e);
                }
            }
            "var_declaration" | "const_declaration" => {
                for spec in named_children(node) {
                    match spec.kind() {
                        "var_spec_list" => named_children(spec).for_each(|s| self.value_spec(s)),
                        _ => self.value_spec(spec),
                    }
                }
            }
            "type_declaration" => {
                for spec in named_children(node) {
                    let Some(n) = spec.field("name") else { continue };
                    // In scope from its name on (a field may point at the type itself), as
                    // nothing until its struct type or aliased type is read.
                    let id = self.local_types.len() as u32;
                    self.local_types.push(TypeExpr::Invalid(format!("local name {}", text(n, self.src))));
                    self.bind(n, Binding::Type(id));
                    let spelled = spec.field("type").filter(|t| {
                        spec.kind() == "type_alias" || matches!(t.kind(), "struct_type" | "interface_type")
                    });
                    if let Some(t) = spelled {
                        self.local_types[id as usize] = self.ty(t);
                    }
                }
            }
            "if_statement" => {
                self.open();
                for f in ["initializer", "condition", "consequence", "alternative"] {
                    if let Some(c) = field(f) {
                        self.stmt_or_expr(c);
                    }
                }
                self.close();
            }
            "for_statement" => {
                self.open();
                for c in named_children(node) {
                    match c.kind() {
                        "for_clause" => {
                            for f in ["initializer", "condition", "update"] {
                                if let Some(x) = c.field(f) {
                                    self.stmt_or_expr(x);
                                }
                            }
                        }
                        "range_clause" => self.range(c),
                        "block" => self.block(c),
                        _ => self.stmt_or_expr(c),
                    }
                }
                self.close();
            }
            "expression_switch_statement" | "select_statement" => {
                self.open();
                for c in named_children(node) {
                    match c.kind() {
                        "expression_case" | "default_case" | "communication_case" => {
                            self.open();
                            named_children(c).for_each(|s| self.stmt_or_expr(s));
                            self.close();
                        }
                        _ => self.stmt_or_expr(c),
                    }
                }
                self.close();
            }
            "expression_list" => named_children(node).for_each(|e| {
                self.expr(e);
            }),
            "type_switch_statement" => self.type_switch(node),
            "receive_statement" => {
                let define = has_token(node, ":=");
                match (define, field("left")) {
                    (true, left) => self.define(left, field("right")),
                    (false, left) => {
                        if let Some(r) = field("right") {
                            self.expr(r);
                        }
                        if let Some(l) = left {
                            named_children(l).for_each(|e| {
                                self.expr(e);
                                self.mark_assigned(e);
                            });
                        }
                    }
                }
            }
            "labeled_statement" => {
                named_children(node).filter(|c| c.kind() != "label_name").for_each(|s| self.stmt(s))
            }
            "expression_statement"
            | "go_statement"
            | "defer_statement"
            | "return_statement"
            | "send_statement" => named_children(node).for_each(|e| self.stmt_or_expr(e)),
            "break_statement"
            | "continue_statement"
            | "goto_statement"
            | "fallthrough_statement"
            | "empty_statement"
            | "label_name" => {}
            _ => {
                self.expr(node);
            }
        }
    }

    fn stmt_or_expr(&mut self, node: Node<'_>) {
        if is_statement(node.kind()) {
            self.stmt(node);
        } else {
            self.expr(node);
        }
    }

    fn mark_assigned(&mut self, e: Node<'_>) {
        let mut e = e;
        while e.kind() == "parenthesized_expression" {
            match e.named_child(0) {
                Some(i) => e = i,
                None => return,
            }
        }
        if e.kind() == "identifier" {
            if let Some(Binding::Var(id)) = self.lookup(bytes(e, self.src)) {
                self.body.locals[id as usize].reassigned = true;
            }
        }
    }

    /// `left := right` (also in receive statements): right side first, then the new names.
    fn define(&mut self, left: Option<Node<'_>>, right: Option<Node<'_>>) {
        let rhs: Vec<ExprId> = match right {
            Some(r) if r.kind() == "expression_list" => named_children(r).map(|e| self.expr(e)).collect(),
            Some(r) => vec![self.expr(r)],
            None => Vec::new(),
        };
        let Some(left) = left else { return };
        let names: Vec<Node<'_>> = match left.kind() {
            "expression_list" => named_children(left).collect(),
            _ => vec![left],
        };
        let tuple = rhs.len() == 1 && names.len() > 1;
        for (i, n) in names.iter().enumerate() {
            if n.kind() != "identifier" {
                continue;
            }
            let name = bytes(*n, self.src);
            if let Some(Binding::Var(id)) = self.in_current_scope(name) {
                // Redeclaration: the existing variable is assigned, its type unchanged.
                self.body.locals[id as usize].reassigned = true;
                continue;
            }
            let def = match (tuple, rhs.get(i)) {
                (true, _) => LocalDef::Value { rhs: rhs[0], index: i as u32, tuple: true },
                (false, Some(&r)) => LocalDef::Value { rhs: r, index: 0, tuple: false },
                (false, None) => LocalDef::Unknown,
            };
            let id = self.local(def);
            self.bind(*n, Binding::Var(id));
        }
    }

    fn value_spec(&mut self, spec: Node<'_>) {
        if !matches!(spec.kind(), "var_spec" | "const_spec") {
            return;
        }
        let ty = spec.field("type").map(|t| self.ty(t));
        let rhs: Vec<ExprId> = match spec.field("value") {
            Some(v) => named_children(v).map(|e| self.expr(e)).collect(),
            None => Vec::new(),
        };
        let mut c = spec.walk();
        let names: Vec<Node<'_>> = spec.fields("name", &mut c).filter(|n| n.kind() == "identifier").collect();
        let tuple = rhs.len() == 1 && names.len() > 1;
        for (i, n) in names.iter().enumerate() {
            let def = match (&ty, tuple, rhs.get(i)) {
                (Some(t), _, _) => LocalDef::Typed(t.clone()),
                (None, true, _) => LocalDef::Value { rhs: rhs[0], index: i as u32, tuple: true },
                (None, false, Some(&r)) => LocalDef::Value { rhs: r, index: 0, tuple: false },
                (None, false, None) => LocalDef::Unknown,
            };
            let id = self.local(def);
            self.bind(*n, Binding::Var(id));
        }
    }

    fn range(&mut self, clause: Node<'_>) {
        let x = clause.field("right").map(|r| self.expr(r));
        let Some(left) = clause.field("left") else { return };
        if !has_token(clause, ":=") {
            named_children(left).for_each(|e| {
                self.expr(e);
                self.mark_assigned(e);
            });
            return;
        }
        for (i, n) in named_children(left).enumerate() {
            if n.kind() != "identifier" {
                continue;
            }
            let def = match x {
                Some(x) => LocalDef::Range { x, value: i == 1 },
                None => LocalDef::Unknown,
            };
            let id = self.local(def);
            self.bind(n, Binding::Var(id));
        }
    }

    fn type_switch(&mut self, node: Node<'_>) {
        self.open();
        if let Some(init) = node.field("initializer") {
            self.stmt(init);
        }
        let x = node.field("value").map(|v| self.expr(v));
        let alias: Vec<Node<'_>> = match node.field("alias") {
            Some(a) if a.kind() == "expression_list" => named_children(a).collect(),
            Some(a) => vec![a],
            None => Vec::new(),
        };
        for c in named_children(node) {
            if !matches!(c.kind(), "type_case" | "default_case") {
                continue;
            }
            self.open();
            let mut types = Vec::new();
            if c.kind() == "type_case" {
                let mut cur = c.walk();
                let tys: Vec<Node<'_>> = c.fields("type", &mut cur).filter(|t| t.is_named()).collect();
                for t in tys {
                    types.push(if t.kind() == "identifier" && bytes(t, self.src) == b"nil" {
                        None
                    } else {
                        Some(self.ty(t))
                    });
                }
            }
            for a in &alias {
                let def = match x {
                    Some(x) => LocalDef::Case { x, types: types.clone() },
                    None => LocalDef::Unknown,
                };
                let id = self.local(def);
                self.bind(*a, Binding::Var(id));
            }
            for s in named_children(c) {
                // the case's types are fields; statements follow
                if is_statement(s.kind()) {
                    self.stmt(s);
                }
            }
            self.close();
        }
        self.close();
    }
}

fn has_token(node: Node<'_>, tok: &str) -> bool {
    text::children(node).any(|c| c.kind() == tok)
}

fn is_statement(kind: &str) -> bool {
    kind.ends_with("_statement")
        || kind.ends_with("_declaration")
        || kind == "block"
        || kind == "statement_list"
}

#[cfg(test)]
mod tests {
    use super::*;
    use docforge_syntax::{AstGate, AstPolicy};

    #[test]
    fn every_func_gets_a_body_and_calls_are_positioned_at_the_paren() {
        let gate = AstGate::new(AstPolicy::Allow);
        let go = gate.go().unwrap();
        let src = b"package p\nfunc f() { g(1); x := h(); x.m() }\nfunc (t *T) n() {}\n";
        let bodies = extract_bodies(go, &go.parse(src), src);
        assert_eq!(bodies.funcs.len(), 2);
        let poss: Vec<(u32, u32)> =
            bodies.funcs[0].calls.iter().map(|c| (c.pos.line, c.pos.column)).collect();
        assert_eq!(poss, vec![(2, 13), (2, 24), (2, 31)]);
        assert!(bodies.funcs[1].calls.is_empty());
    }
}
