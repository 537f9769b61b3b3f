//! Call sites: one hand-written `TreeCursor` walk per declaration, tracking lexical scopes
//! so that a call through a locally bound name is marked `shadowed`.
//!
//! Scopes follow the Go spec closely enough for shadowing: function/closure parameters,
//! receivers and named results; blocks; `if`/`for`/`switch`/`select` headers and clauses;
//! `:=`, local `var`/`const` (in scope after the spec), local types (from the name on),
//! range variables and type-switch bindings.

use super::text::{bounded, bytes, field_id, kind_id, pos};
use super::MAX_CALLEE_LEN;
use crate::{CallSite, Callee};
use std::num::NonZeroU16;
use std::sync::OnceLock;
use tree_sitter::{Language, Node};

type FieldId = NonZeroU16;

const SCOPE: u8 = 1;
const SKIP: u8 = 2;
/// Nodes whose descendants bind no name outside the node (expressions, most statements,
/// scopes, and declarations that bind from their own fields): a call has an argument list,
/// so such a node without a `(` byte holds no call site and its children are not visited
/// (its own enter/exit bindings still happen).
const NEEDS_PAREN: u8 = 4;

/// Node kind ids the walk compares against (integer compares instead of string compares).
pub(crate) struct Kinds {
    call: u16,
    conversion: u16,
    generic_type: u16,
    qualified_type: u16,
    type_ident: u16,
    ident: u16,
    selector: u16,
    paren_expr: u16,
    index_expr: u16,
    type_inst: u16,
    /// Per kind id: [`SCOPE`] (opens a scope) and [`SKIP`] (no calls worth a visit inside:
    /// types, literals, comments).
    flags: Vec<u8>,
    f_function: FieldId,
    f_operand: FieldId,
    f_field: FieldId,
    f_type: FieldId,
    f_name: FieldId,
    f_package: FieldId,
    f_left: FieldId,
    f_alias: FieldId,
    param: u16,
    variadic_param: u16,
    type_param: u16,
    short_var: u16,
    var_spec: u16,
    const_spec: u16,
    type_spec: u16,
    type_alias: u16,
    range_clause: u16,
    receive: u16,
    type_switch: u16,
}

impl Kinds {
    pub(crate) fn get(lang: tree_sitter::LanguageRef<'_>) -> &'static Kinds {
        static KINDS: OnceLock<Kinds> = OnceLock::new();
        KINDS.get_or_init(|| Kinds::new(&lang))
    }

    fn new(lang: &Language) -> Kinds {
        let id = |k: &str| kind_id(lang, k);
        let field = |f: &str| field_id(lang, f);
        let mut flags = vec![0u8; lang.node_kind_count()];
        let scope_kinds = [
            "block",
            "func_literal",
            "if_statement",
            "for_statement",
            "expression_switch_statement",
            "type_switch_statement",
            "expression_case",
            "default_case",
            "type_case",
            "communication_case",
            "function_declaration",
            "method_declaration",
        ];
        let skip_kinds = [
            "interpreted_string_literal",
            "raw_string_literal",
            "int_literal",
            "float_literal",
            "rune_literal",
            "comment",
            "function_type",
            "struct_type",
            "interface_type",
            "field_identifier",
            "type_identifier",
            "qualified_type",
            "pointer_type",
            "map_type",
            "channel_type",
            "slice_type",
        ];
        // Never a kind whose descendants bind names into an enclosing scope
        // (`var_declaration`, `const_declaration`, `type_declaration`, `labeled_statement`,
        // `parameter_list`, `statement_list`): those must be visited even without calls.
        // Scope kinds qualify too (what they bind stays inside them).
        let paren_kinds = [
            "short_var_declaration",
            "var_spec",
            "const_spec",
            "type_spec",
            "type_alias",
            "range_clause",
            "receive_statement",
            "parameter_declaration",
            "variadic_parameter_declaration",
            "type_parameter_declaration",
            "binary_expression",
            "unary_expression",
            "selector_expression",
            "index_expression",
            "slice_expression",
            "composite_literal",
            "literal_value",
            "keyed_element",
            "literal_element",
            "expression_list",
            "expression_statement",
            "assignment_statement",
            "inc_statement",
            "dec_statement",
            "send_statement",
            "return_statement",
        ];
        for k in scope_kinds {
            flags[usize::from(id(k))] |= SCOPE;
        }
        for k in scope_kinds.iter().chain(&paren_kinds) {
            flags[usize::from(id(k))] |= NEEDS_PAREN;
        }
        for k in skip_kinds {
            flags[usize::from(id(k))] |= SKIP;
        }
        Kinds {
            flags,
            f_function: field("function"),
            f_operand: field("operand"),
            f_field: field("field"),
            f_type: field("type"),
            f_name: field("name"),
            f_package: field("package"),
            f_left: field("left"),
            f_alias: field("alias"),
            call: id("call_expression"),
            conversion: id("type_conversion_expression"),
            generic_type: id("generic_type"),
            qualified_type: id("qualified_type"),
            type_ident: id("type_identifier"),
            ident: id("identifier"),
            selector: id("selector_expression"),
            paren_expr: id("parenthesized_expression"),
            index_expr: id("index_expression"),
            type_inst: id("type_instantiation_expression"),
            param: id("parameter_declaration"),
            variadic_param: id("variadic_parameter_declaration"),
            type_param: id("type_parameter_declaration"),
            short_var: id("short_var_declaration"),
            var_spec: id("var_spec"),
            const_spec: id("const_spec"),
            type_spec: id("type_spec"),
            type_alias: id("type_alias"),
            range_clause: id("range_clause"),
            receive: id("receive_statement"),
            type_switch: id("type_switch_statement"),
        }
    }
}

struct Walker<'k, 's> {
    k: &'k Kinds,
    src: &'s [u8],
    /// Names bound in the open scopes, innermost last; `marks` are scope starts.
    names: Vec<&'s [u8]>,
    marks: Vec<usize>,
    caller: Option<u32>,
}

/// Walk `decl` (a top-level func/method/var/const declaration) and append its call sites.
pub(crate) fn walk(k: &Kinds, decl: Node<'_>, src: &[u8], caller: Option<u32>, out: &mut Vec<CallSite>) {
    let mut w = Walker { k, src, names: Vec::new(), marks: Vec::new(), caller };
    let mut cursor = decl.walk();
    'walk: loop {
        let node = cursor.node();
        if w.enter(node, out) && cursor.goto_first_child() {
            continue;
        }
        loop {
            w.exit(cursor.node());
            if cursor.goto_next_sibling() {
                continue 'walk;
            }
            if !cursor.goto_parent() {
                return;
            }
        }
    }
}

impl<'s> Walker<'_, 's> {
    fn bind(&mut self, node: Node<'_>) {
        if node.kind_id() == self.k.ident {
            let name = bytes(node, self.src);
            if name != b"_" {
                self.names.push(name);
            }
        }
    }

    fn bind_field(&mut self, node: Node<'_>, field: FieldId) {
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children_by_field_id(field, &mut cursor).collect();
        for child in children {
            if child.kind() == "expression_list" {
                let mut c2 = child.walk();
                let list: Vec<Node<'_>> = child.named_children(&mut c2).collect();
                for n in list {
                    self.bind(n);
                }
            } else {
                self.bind(child);
            }
        }
    }

    fn shadowed(&self, name: &[u8]) -> bool {
        self.names.iter().rev().any(|n| *n == name)
    }

    /// Visit `node` on the way down; returns whether to descend.
    fn enter(&mut self, node: Node<'_>, out: &mut Vec<CallSite>) -> bool {
        let k = self.k;
        let kind = node.kind_id();
        let flags = k.flags.get(usize::from(kind)).copied().unwrap_or(0);
        if !node.is_named() || flags & SKIP != 0 {
            return false;
        }
        if flags & SCOPE != 0 {
            self.marks.push(self.names.len());
        }
        if kind == k.call {
            self.call(node, out);
        } else if kind == k.conversion {
            self.generic_call(node, out);
        } else if kind == k.param
            || kind == k.variadic_param
            || kind == k.type_param
            || ((kind == k.type_spec || kind == k.type_alias) && !self.marks.is_empty())
        {
            self.bind_field(node, k.f_name);
        } else if kind == k.type_switch {
            self.bind_field(node, k.f_alias);
        }
        // After the bindings above (and the scope mark, which `exit` pops either way).
        flags & NEEDS_PAREN == 0 || bytes(node, self.src).contains(&b'(')
    }

    /// Leave `node` on the way up.
    fn exit(&mut self, node: Node<'_>) {
        let k = self.k;
        let kind = node.kind_id();
        if !node.is_named() {
            return;
        }
        if k.flags.get(usize::from(kind)).is_some_and(|f| f & SCOPE != 0) {
            if let Some(mark) = self.marks.pop() {
                self.names.truncate(mark);
            }
        } else if kind == k.short_var {
            self.bind_field(node, k.f_left);
        } else if (kind == k.var_spec || kind == k.const_spec) && !self.marks.is_empty() {
            self.bind_field(node, k.f_name);
        } else if (kind == k.range_clause || kind == k.receive) && has_define(node) {
            self.bind_field(node, k.f_left);
        }
    }

    /// `F[int](x)` / `pkg.F[int](x)` parse as conversions to a generic type; syntax cannot
    /// tell a generic function call from a generic type conversion, so record them as call
    /// sites (resolution keeps only those naming package-level funcs). Other conversions
    /// (`[]byte(s)`, `T(x)` parse as calls) are left as they are.
    fn generic_call(&mut self, node: Node<'_>, out: &mut Vec<CallSite>) {
        let k = self.k;
        let Some(ty) = node.child_by_field_id(k.f_type.get()) else { return };
        if ty.kind_id() != k.generic_type {
            return;
        }
        let Some(base) = ty.child_by_field_id(k.f_type.get()) else { return };
        let (shape, root) = if base.kind_id() == k.type_ident {
            (Callee::Ident(self.lossy(base)), Some(base))
        } else if base.kind_id() == k.qualified_type {
            match (base.child_by_field_id(k.f_package.get()), base.child_by_field_id(k.f_name.get())) {
                (Some(x), Some(sel)) => {
                    (Callee::Selector { x: self.lossy(x), sel: self.lossy(sel) }, Some(x))
                }
                _ => return,
            }
        } else {
            return;
        };
        self.push(node, ty, shape, root, out);
    }

    fn lossy(&self, node: Node<'_>) -> String {
        String::from_utf8_lossy(bytes(node, self.src)).into_owned()
    }

    fn push(
        &self,
        call: Node<'_>,
        func: Node<'_>,
        shape: Callee,
        root: Option<Node<'_>>,
        out: &mut Vec<CallSite>,
    ) {
        let shadowed = root.is_some_and(|r| self.shadowed(bytes(r, self.src)));
        out.push(CallSite {
            caller: self.caller,
            callee: bounded(func, self.src, MAX_CALLEE_LEN),
            shape,
            shadowed,
            pos: pos(call),
        });
    }

    fn call(&mut self, node: Node<'_>, out: &mut Vec<CallSite>) {
        let k = self.k;
        let Some(func) = node.child_by_field_id(k.f_function.get()) else { return };
        let mut f = func;
        // Unwrap `(f)`, `f[T]`, `pkg.F[T]`. An index into a slice of funcs (`fs[0]()`) gets the
        // same shape; resolution only accepts names that are package-level funcs, which
        // cannot be indexed, so such a call stays unresolved.
        loop {
            let kind = f.kind_id();
            let inner = if kind == k.paren_expr {
                f.named_child(0)
            } else if kind == k.index_expr {
                f.child_by_field_id(k.f_operand.get())
            } else if kind == k.type_inst {
                f.child_by_field_id(k.f_type.get())
            } else {
                None
            };
            match inner {
                Some(i) => f = i,
                None => break,
            }
        }
        let (shape, root) = if f.kind_id() == k.ident {
            (Callee::Ident(self.lossy(f)), Some(f))
        } else if f.kind_id() == k.selector {
            match (f.child_by_field_id(k.f_operand.get()), f.child_by_field_id(k.f_field.get())) {
                (Some(x), Some(sel)) if x.kind_id() == k.ident => {
                    (Callee::Selector { x: self.lossy(x), sel: self.lossy(sel) }, Some(x))
                }
                _ => (Callee::Other, None),
            }
        } else {
            (Callee::Other, None)
        };
        self.push(node, func, shape, root, out);
    }
}

/// Whether a range clause / receive statement declares with `:=`.
fn has_define(node: Node<'_>) -> bool {
    let mut cursor = node.walk();
    let found = node.children(&mut cursor).any(|c| c.kind() == ":=");
    found
}
