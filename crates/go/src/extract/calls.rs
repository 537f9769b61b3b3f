//! Call sites and identifier uses: one hand-written `TreeCursor` walk per declaration,
//! tracking lexical scopes so that a call through a locally bound name is marked `shadowed`,
//! and (in uses mode, [`walk_uses`]) so that only identifiers bound by no local declaration
//! are recorded as uses.
//!
//! Scopes follow the Go spec: function/closure parameters, receivers and named results (in
//! scope from the body on, so a parameter named like a type does not hide the type in the
//! signature); type parameters (from the name of the function or type on); blocks;
//! `if`/`for`/`switch`/`select` headers and clauses; `:=`, local `var`/`const` (in scope after
//! the spec), local types (from the name on), range variables and type-switch bindings (after
//! the guard).

use super::text::{bounded, bytes, field_id, kind_id, pos};
use super::MAX_CALLEE_LEN;
use crate::{CallSite, Callee, IdentUse};
use std::collections::HashSet;
use std::num::NonZeroU16;
use std::sync::OnceLock;
use tree_sitter::{Language, Node};

type FieldId = NonZeroU16;

const SCOPE: u8 = 1;
/// No calls worth a visit inside (types, literals, comments); calls mode only.
const SKIP: u8 = 2;
/// No identifier inside (literals, comments): skipped in both modes.
const LEAF: u8 = 8;
/// Nodes whose descendants bind no name outside the node (expressions, most statements,
/// scopes, and declarations that bind from their own fields): a call has an argument list,
/// so such a node without a `(` byte holds no call site and its children are not visited
/// (its own enter/exit bindings still happen).
const NEEDS_PAREN: u8 = 4;
/// Lists that open with their own `(` and hold only expressions or parameters (whose names a
/// function binds from its own fields, see `Walker::function`): without a further `(` there
/// is no call inside, so their children are not visited (calls mode only). About a third of
/// the nodes a walk would otherwise visit.
const INNER_PAREN: u8 = 16;
/// A named node kind (`Node::is_named` from the kind id, without a call into tree-sitter).
/// Ids the table does not hold (`ERROR`) count as named.
const NAMED: u8 = 32;

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
    /// Per kind id: [`SCOPE`] (opens a scope), [`SKIP`] (no calls worth a visit inside:
    /// types, literals, comments), [`LEAF`] (no identifier inside), [`NEEDS_PAREN`].
    flags: Vec<u8>,
    f_function: FieldId,
    f_operand: FieldId,
    f_field: FieldId,
    f_type: FieldId,
    f_name: FieldId,
    f_package: FieldId,
    f_left: FieldId,
    f_alias: FieldId,
    f_value: FieldId,
    f_parameters: FieldId,
    f_result: FieldId,
    f_receiver: FieldId,
    f_type_parameters: FieldId,
    f_type_arguments: FieldId,
    f_key: FieldId,
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
    func_decl: u16,
    method_decl: u16,
    func_lit: u16,
    keyed_element: u16,
    /// Composite-literal type kinds whose keys are expressions (not field names).
    keyed_by_value: [u16; 4],
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
        for k in ["argument_list", "parameter_list"] {
            flags[usize::from(id(k))] |= INNER_PAREN;
        }
        for k in &skip_kinds[..6] {
            flags[usize::from(id(k))] |= LEAF;
        }
        for (kind, f) in flags.iter_mut().enumerate() {
            if u16::try_from(kind).is_ok_and(|kind| lang.node_kind_is_named(kind)) {
                *f |= NAMED;
            }
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
            f_value: field("value"),
            f_parameters: field("parameters"),
            f_result: field("result"),
            f_receiver: field("receiver"),
            f_type_parameters: field("type_parameters"),
            f_type_arguments: field("type_arguments"),
            f_key: field("key"),
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
            func_decl: id("function_declaration"),
            method_decl: id("method_declaration"),
            func_lit: id("func_literal"),
            keyed_element: id("keyed_element"),
            keyed_by_value: [
                id("array_type"),
                id("implicit_length_array_type"),
                id("slice_type"),
                id("map_type"),
            ],
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
    /// Names bound once a node is left: `(node id, owner node id, names)` — a function's
    /// receiver, parameters and results after its signature, a type switch's binding after
    /// its guard. Entries still pending when their owner is left are dropped.
    after: Vec<(usize, usize, Vec<&'s [u8]>)>,
    /// Uses mode: identifier uses found so far (every node is visited, calls are not recorded).
    uses: Option<Vec<IdentUse>>,
    /// Uses mode: start bytes of identifiers that declare a name (or may be a field name), so
    /// are never uses.
    defs: HashSet<usize>,
    /// Uses mode: `(use start byte, length, declaration start byte)` of identifiers a local
    /// declaration binds.
    locals: Vec<(usize, u32, usize)>,
}

/// Walk `decl` (a top-level func/method/var/const declaration) and append its call sites.
pub(crate) fn walk(k: &Kinds, decl: Node<'_>, src: &[u8], caller: Option<u32>, out: &mut Vec<CallSite>) {
    let mut w = Walker::new(k, src, caller, false);
    w.run(decl, out);
}

/// Walk `decl` (any top-level declaration) and append the identifiers in it that no local
/// declaration binds, with the selector/qualified-type names whose package name no local
/// declaration binds: the candidates for uses of package-level or imported names.
pub(crate) fn walk_uses(
    k: &Kinds,
    decl: Node<'_>,
    src: &[u8],
    out: &mut Vec<IdentUse>,
    locals: &mut Vec<(usize, u32, usize)>,
) {
    let mut w = Walker::new(k, src, None, true);
    w.run(decl, &mut Vec::new());
    out.extend(w.uses.unwrap_or_default());
    locals.extend(w.locals);
}

impl<'k, 's> Walker<'k, 's> {
    fn new(k: &'k Kinds, src: &'s [u8], caller: Option<u32>, uses: bool) -> Self {
        Walker {
            k,
            src,
            names: Vec::new(),
            marks: Vec::new(),
            caller,
            after: Vec::new(),
            uses: uses.then(Vec::new),
            defs: HashSet::new(),
            locals: Vec::new(),
        }
    }

    /// Visit `decl`'s subtree: `enter` on the way down (children only when it says so),
    /// `exit` on the way up. Each node's kind is read once.
    fn run(&mut self, decl: Node<'_>, out: &mut Vec<CallSite>) {
        let mut cursor = decl.walk();
        'walk: loop {
            let node = cursor.node();
            let kind = node.kind_id();
            if self.enter(node, kind, out) && cursor.goto_first_child() {
                continue;
            }
            self.exit(node, kind);
            loop {
                if cursor.goto_next_sibling() {
                    continue 'walk;
                }
                if !cursor.goto_parent() {
                    return;
                }
                let parent = cursor.node();
                self.exit(parent, parent.kind_id());
            }
        }
    }

    /// The flags of a node kind ([`NAMED`] for ids beyond the table, such as `ERROR`).
    fn flags(&self, kind: u16) -> u8 {
        self.k.flags.get(usize::from(kind)).copied().unwrap_or(NAMED)
    }

    fn bind(&mut self, node: Node<'_>) {
        if node.kind_id() == self.k.ident || node.kind_id() == self.k.type_ident {
            let name = bytes(node, self.src);
            if name != b"_" {
                self.names.push(name);
            }
        }
    }

    /// The identifiers of `node`'s `field` children (expression lists flattened).
    fn field_names<'t>(&self, node: Node<'t>, field: FieldId) -> Vec<Node<'t>> {
        let mut cursor = node.walk();
        let mut out = Vec::new();
        for child in node.children_by_field_id(field, &mut cursor) {
            if child.kind() == "expression_list" {
                let mut c2 = child.walk();
                out.extend(child.named_children(&mut c2));
            } else {
                out.push(child);
            }
        }
        out
    }

    /// Mark declaring identifiers (uses mode only).
    fn declare(&mut self, nodes: &[Node<'_>]) {
        if self.uses.is_some() {
            self.defs.extend(nodes.iter().map(|n| n.start_byte()));
        }
    }

    fn bind_field(&mut self, node: Node<'_>, field: FieldId) {
        for n in self.field_names(node, field) {
            self.bind(n);
        }
    }

    fn shadowed(&self, name: &[u8]) -> bool {
        self.names.iter().rev().any(|n| *n == name)
    }

    /// The start byte of the innermost local declaration of `name` (every bound name is a
    /// slice of the source, taken at its declaring identifier).
    fn binding(&self, name: &[u8]) -> Option<usize> {
        let bound = self.names.iter().rev().find(|n| **n == name)?;
        Some(bound.as_ptr() as usize - self.src.as_ptr() as usize)
    }

    /// Declare and bind the type parameters of a function or type (`[T any, U T]`: all of
    /// them are in scope in every constraint).
    fn type_params(&mut self, list: Option<Node<'_>>) {
        let Some(list) = list else { return };
        let mut cursor = list.walk();
        let decls: Vec<Node<'_>> = list.named_children(&mut cursor).collect();
        for d in decls.into_iter().filter(|d| d.kind_id() == self.k.type_param) {
            let names = self.field_names(d, self.k.f_name);
            self.declare(&names);
            for n in names {
                self.bind(n);
            }
        }
    }

    /// A function or method declaration, or a function literal: its type parameters (and a
    /// generic receiver's) are bound now, its receiver, parameters and results once the
    /// signature is left.
    fn function(&mut self, node: Node<'_>) {
        let k = self.k;
        if node.kind_id() == k.func_decl {
            let name = node.child_by_field_id(k.f_name.get());
            self.declare(&name.into_iter().collect::<Vec<_>>());
        }
        self.type_params(node.child_by_field_id(k.f_type_parameters.get()));
        let receiver = node.child_by_field_id(k.f_receiver.get());
        if let Some(ty) =
            receiver.and_then(|r| r.named_child(0)).and_then(|p| p.child_by_field_id(k.f_type.get()))
        {
            self.receiver_type_params(ty);
        }
        let mut names = Vec::new();
        let lists = [
            receiver,
            node.child_by_field_id(k.f_parameters.get()),
            node.child_by_field_id(k.f_result.get()),
        ];
        for list in lists.into_iter().flatten() {
            for g in super::params::param_groups(list) {
                names.extend(g.names);
            }
        }
        // (A name tree-sitter read as a type is a `type_identifier`: `super::params`.)
        let is_name = |n: &Node<'_>| n.kind_id() == k.ident || n.kind_id() == k.type_ident;
        let names: Vec<&'s [u8]> = names.into_iter().filter(is_name).map(|n| bytes(n, self.src)).collect();
        let trigger = lists[2].or(lists[1]);
        match trigger {
            Some(t) => self.after.push((t.id(), node.id(), names)),
            None => self.names.extend(names.into_iter().filter(|n| *n != b"_")),
        }
    }

    /// The type parameters a generic receiver declares (`func (l *List[T]) ...`).
    fn receiver_type_params(&mut self, mut ty: Node<'_>) {
        while matches!(ty.kind(), "pointer_type" | "parenthesized_type") {
            match ty.named_child(0) {
                Some(t) => ty = t,
                None => return,
            }
        }
        if ty.kind_id() != self.k.generic_type {
            return;
        }
        let Some(args) = ty.child_by_field_id(self.k.f_type_arguments.get()) else { return };
        let mut cursor = args.walk();
        let args: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
        for a in args {
            let n = if a.kind() == "type_elem" { a.named_child(0) } else { Some(a) };
            if let Some(n) = n.filter(|n| n.kind_id() == self.k.type_ident) {
                self.declare(&[n]);
                self.bind(n);
            }
        }
    }

    /// Visit `node` (of kind `kind`) on the way down; returns whether to descend.
    fn enter(&mut self, node: Node<'_>, kind: u16, out: &mut Vec<CallSite>) -> bool {
        let k = self.k;
        let flags = self.flags(kind);
        debug_assert_eq!(flags & NAMED != 0, node.is_named(), "{}", node.kind());
        let uses = self.uses.is_some();
        if flags & NAMED == 0 || flags & LEAF != 0 || (!uses && flags & SKIP != 0) {
            return false;
        }
        if uses && node.is_error() {
            // Unsure what the tokens inside mean (callers skip declarations with errors).
            return false;
        }
        if flags & SCOPE != 0 {
            self.marks.push(self.names.len());
        }
        if kind == k.func_decl || kind == k.method_decl || kind == k.func_lit {
            self.function(node);
        } else if kind == k.param || kind == k.variadic_param || kind == k.type_param {
            let names = self.field_names(node, k.f_name);
            if names.is_empty() && kind == k.param && super::params::is_misread_name(node) {
                // A name tree-sitter read as a type (`super::params`): declared, not a use.
                let name: Vec<Node<'_>> = node.child_by_field_id(k.f_type.get()).into_iter().collect();
                self.declare(&name);
                return false;
            }
            self.declare(&names);
        } else if kind == k.type_spec || kind == k.type_alias {
            // A local type is in scope from its name on; the type parameters only inside
            // the spec (its own scope, popped in `exit`).
            let names = self.field_names(node, k.f_name);
            self.declare(&names);
            if !self.marks.is_empty() {
                for n in names {
                    self.bind(n);
                }
            }
            self.marks.push(self.names.len());
            self.type_params(node.child_by_field_id(k.f_type_parameters.get()));
        } else if kind == k.type_switch {
            let names = self.field_names(node, k.f_alias);
            self.declare(&names);
            let names = names.into_iter().filter(|n| n.kind_id() == k.ident).map(|n| bytes(n, self.src));
            let names: Vec<&'s [u8]> = names.collect();
            match node.child_by_field_id(k.f_value.get()) {
                Some(v) => self.after.push((v.id(), node.id(), names)),
                None => self.names.extend(names),
            }
        } else if uses {
            return self.enter_use(node);
        } else if kind == k.call {
            self.call(node, out);
            // Its own argument list opens with the first `(`: a call inside needs a second.
            return memchr::memchr_iter(b'(', bytes(node, self.src)).nth(1).is_some();
        } else if kind == k.ident {
            return false;
        } else if kind == k.conversion {
            self.generic_call(node, out);
        }
        if uses {
            return true;
        }
        // After the bindings above (and the scope mark, which `exit` pops either way).
        if flags & NEEDS_PAREN != 0 {
            return bytes(node, self.src).contains(&b'(');
        }
        flags & INNER_PAREN == 0 || bytes(node, self.src).get(1..).is_some_and(|b| b.contains(&b'('))
    }

    /// Uses mode, a node that binds nothing itself: record it if it is a use; whether to
    /// descend.
    fn enter_use(&mut self, node: Node<'_>) -> bool {
        let k = self.k;
        let kind = node.kind_id();
        if kind == k.short_var || kind == k.var_spec || kind == k.const_spec {
            let names = self.field_names(node, if kind == k.short_var { k.f_left } else { k.f_name });
            self.declare(&names);
        } else if (kind == k.range_clause || kind == k.receive) && has_define(node) {
            let names = self.field_names(node, k.f_left);
            self.declare(&names);
        } else if kind == k.ident || kind == k.type_ident {
            if !self.defs.contains(&node.start_byte()) {
                self.record(None, node);
            }
            return false;
        } else if kind == k.qualified_type {
            if let (Some(x), Some(name)) =
                (node.child_by_field_id(k.f_package.get()), node.child_by_field_id(k.f_name.get()))
            {
                self.record(Some(x), name);
            }
            return false;
        } else if kind == k.selector {
            if let (Some(x), Some(sel)) =
                (node.child_by_field_id(k.f_operand.get()), node.child_by_field_id(k.f_field.get()))
            {
                if x.kind_id() == k.ident {
                    self.record(Some(x), sel);
                }
            }
        } else if kind == k.keyed_element {
            self.keyed_element(node);
        }
        true
    }

    /// A bare identifier key of a composite literal is a field name unless the literal's
    /// type is written as an array, slice or map type (an elided or named type may be a
    /// struct): then it is not a use.
    fn keyed_element(&mut self, node: Node<'_>) {
        let k = self.k;
        let Some(key) = node.child_by_field_id(k.f_key.get()).and_then(|e| e.named_child(0)) else { return };
        if key.kind_id() != k.ident {
            return;
        }
        let literal = node.parent().and_then(|v| v.parent());
        let ty = literal.and_then(|l| l.child_by_field_id(k.f_type.get()));
        if !ty.is_some_and(|t| k.keyed_by_value.contains(&t.kind_id())) {
            self.declare(&[key]);
        }
    }

    /// Record `name` (qualified by the package name `x`) unless the root name is bound
    /// locally.
    fn record(&mut self, x: Option<Node<'_>>, name: Node<'_>) {
        let root = x.unwrap_or(name);
        let root_bytes = bytes(root, self.src);
        if root_bytes == b"_" || name.is_missing() || root.is_missing() {
            return;
        }
        if let Some(decl) = self.binding(root_bytes) {
            if self.uses.is_some() {
                self.locals.push((root.start_byte(), root_bytes.len() as u32, decl));
            }
            return;
        }
        let use_ = IdentUse { qualifier: x.map(|x| self.lossy(x)), name: self.lossy(name), pos: pos(name) };
        if let Some(uses) = self.uses.as_mut() {
            uses.push(use_);
        }
    }

    /// Leave `node` (of kind `kind`) on the way up.
    fn exit(&mut self, node: Node<'_>, kind: u16) {
        let k = self.k;
        let flags = self.flags(kind);
        if flags & NAMED == 0 {
            return;
        }
        let id = node.id();
        if let Some(i) = self.after.iter().rposition(|a| a.0 == id) {
            let (_, _, names) = self.after.remove(i);
            self.names.extend(names.into_iter().filter(|n| *n != b"_"));
        }
        while self.after.last().is_some_and(|a| a.1 == id) {
            self.after.pop();
        }
        if flags & SCOPE != 0 || kind == k.type_spec || kind == k.type_alias {
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
