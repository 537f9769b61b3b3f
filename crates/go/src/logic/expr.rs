//! Expressions: the calls and function literals an expression evaluates, in evaluation order
//! (one post-order `TreeCursor` walk that never enters function literals), and step texts.

use super::build::Builder;
use super::{StepKind, MAX_STEP_TEXT};
use crate::extract::text::{field_id, kind_id, pos};
use std::sync::OnceLock;
use tree_sitter::{Language, Node};

/// Node kind and field ids the walks compare against.
pub(super) struct Kinds {
    pub call: u16,
    pub func_literal: u16,
    pub conversion: u16,
    pub generic_type: u16,
    pub ident: u16,
    pub comment: u16,
    /// Per kind id: no calls worth a visit inside (literals, comments, types).
    skip: Vec<bool>,
    /// Per kind id: a type node, so a call through it is a conversion.
    type_kind: Vec<bool>,
    pub f: Fields,
}

/// Field ids (`child_by_field_id` skips the name lookup of `child_by_field_name`).
pub(super) struct Fields {
    pub alias: u16,
    pub alternative: u16,
    pub arguments: u16,
    pub body: u16,
    pub communication: u16,
    pub condition: u16,
    pub consequence: u16,
    pub function: u16,
    pub initializer: u16,
    pub label: u16,
    pub right: u16,
    pub ty: u16,
    pub update: u16,
    pub value: u16,
}

impl Kinds {
    pub(super) fn get(lang: tree_sitter::LanguageRef<'_>) -> &'static Kinds {
        static KINDS: OnceLock<Kinds> = OnceLock::new();
        KINDS.get_or_init(|| Kinds::new(&lang))
    }

    fn new(lang: &Language) -> Kinds {
        let id = |k: &str| kind_id(lang, k);
        let field = |f: &str| field_id(lang, f).get();
        let types = [
            "function_type",
            "struct_type",
            "interface_type",
            "qualified_type",
            "pointer_type",
            "map_type",
            "channel_type",
            "slice_type",
            "array_type",
            "parenthesized_type",
            "type_identifier",
        ];
        let others = [
            "interpreted_string_literal",
            "raw_string_literal",
            "int_literal",
            "float_literal",
            "imaginary_literal",
            "rune_literal",
            "comment",
            "field_identifier",
        ];
        let mut skip = vec![false; lang.node_kind_count()];
        let mut type_kind = vec![false; lang.node_kind_count()];
        for k in types {
            skip[usize::from(id(k))] = true;
            type_kind[usize::from(id(k))] = true;
        }
        for k in others {
            skip[usize::from(id(k))] = true;
        }
        Kinds {
            call: id("call_expression"),
            func_literal: id("func_literal"),
            conversion: id("type_conversion_expression"),
            generic_type: id("generic_type"),
            ident: id("identifier"),
            comment: id("comment"),
            skip,
            type_kind,
            f: Fields {
                alias: field("alias"),
                alternative: field("alternative"),
                arguments: field("arguments"),
                body: field("body"),
                communication: field("communication"),
                condition: field("condition"),
                consequence: field("consequence"),
                function: field("function"),
                initializer: field("initializer"),
                label: field("label"),
                right: field("right"),
                ty: field("type"),
                update: field("update"),
                value: field("value"),
            },
        }
    }

    fn skip(&self, kind: u16) -> bool {
        self.skip.get(usize::from(kind)).copied().unwrap_or(false)
    }

    fn is_type(&self, kind: u16) -> bool {
        self.type_kind.get(usize::from(kind)).copied().unwrap_or(false)
    }
}

/// Predeclared type names: a call through one of them is a conversion.
const PREDECLARED_TYPES: &[&[u8]] = &[
    b"any",
    b"bool",
    b"byte",
    b"comparable",
    b"complex64",
    b"complex128",
    b"error",
    b"float32",
    b"float64",
    b"int",
    b"int8",
    b"int16",
    b"int32",
    b"int64",
    b"rune",
    b"string",
    b"uint",
    b"uint8",
    b"uint16",
    b"uint32",
    b"uint64",
    b"uintptr",
];

impl<'s> Builder<'s> {
    /// Steps for the calls and function literals `node` evaluates, in evaluation order.
    pub(super) fn calls_in(&mut self, node: Node<'_>) {
        if self.truncated || !self.has_paren(node.start_byte(), node.end_byte()) {
            return;
        }
        let mut cursor = node.walk();
        'walk: loop {
            if self.truncated {
                return;
            }
            if self.enter(cursor.node()) && cursor.goto_first_child() {
                continue;
            }
            loop {
                self.leave(cursor.node());
                if cursor.goto_next_sibling() {
                    continue 'walk;
                }
                if !cursor.goto_parent() {
                    return;
                }
            }
        }
    }

    /// Visit `node` on the way down; returns whether to descend.
    fn enter(&mut self, node: Node<'_>) -> bool {
        let kind = node.kind_id();
        if !node.is_named() || self.k.skip(kind) {
            return false;
        }
        if kind == self.k.func_literal {
            let text = self.callee_text(node);
            self.step(StepKind::Closure, text, pos(node));
            return false;
        }
        self.has_paren(node.start_byte(), node.end_byte())
    }

    /// Whether `src[start..end]` holds a `(`. Every call, conversion and function literal
    /// has one, so a subtree without one needs no visit; a byte scan is far cheaper than a
    /// tree walk. Queries come in source order but for a `for` post statement, so the first
    /// `(` at or after the last scan start is kept.
    fn has_paren(&mut self, start: usize, end: usize) -> bool {
        if start < self.paren_from || start > self.paren_at {
            self.paren_from = start;
            let found = self.src.get(start..).and_then(|s| s.iter().position(|&c| c == b'('));
            self.paren_at = found.map_or(usize::MAX, |i| start + i);
        }
        self.paren_at < end
    }

    fn leave(&mut self, node: Node<'_>) {
        let kind = node.kind_id();
        if kind == self.k.call {
            self.call(node);
        } else if kind == self.k.conversion {
            // `F[int](x)`: a generic function call or a conversion to a generic type; syntax
            // cannot tell, so it is a call (as for call sites). Other conversions make no step.
            let ty = node.child_by_field_id(self.k.f.ty);
            if let Some(ty) = ty.filter(|t| t.kind_id() == self.k.generic_type) {
                let text = self.text(ty);
                self.step(StepKind::Call, text, pos(node));
            }
        }
    }

    fn call(&mut self, node: Node<'_>) {
        let Some(func) = node.child_by_field_id(self.k.f.function) else { return };
        let kind = func.kind_id();
        if self.k.is_type(kind) {
            return;
        }
        if kind == self.k.ident {
            let name = &self.src[func.byte_range()];
            if name == b"panic" {
                let text = node
                    .child_by_field_id(self.k.f.arguments)
                    .map(|args| self.inner_text(args))
                    .unwrap_or_default();
                self.step(StepKind::Panic, text, pos(node));
                self.end_path();
                return;
            }
            if PREDECLARED_TYPES.contains(&name) {
                return;
            }
        }
        let text = self.callee_text(func);
        self.step(StepKind::Call, text, pos(node));
    }

    /// Steps for what a `go`/`defer` statement evaluates on the spot (the callee expression
    /// and the arguments, not the call), then the `go`/`defer` step itself.
    pub(super) fn go_defer(&mut self, kind: StepKind, stmt: Node<'_>) {
        let mut cursor = stmt.walk();
        let Some(expr) = stmt.named_children(&mut cursor).find(|n| n.kind_id() != self.k.comment) else {
            return;
        };
        let text = match expr.child_by_field_id(self.k.f.function) {
            Some(func) if expr.kind_id() == self.k.call => {
                self.calls_in(func);
                if let Some(args) = expr.child_by_field_id(self.k.f.arguments) {
                    self.calls_in(args);
                }
                self.callee_text(func)
            }
            _ => {
                self.calls_in(expr);
                self.text(expr)
            }
        };
        self.step(kind, text, pos(stmt));
    }

    /// A callee's text; for a function literal, its signature.
    fn callee_text(&self, func: Node<'_>) -> String {
        if func.kind_id() == self.k.func_literal {
            let end = func.child_by_field_id(self.k.f.body).map_or(func.end_byte(), |b| b.start_byte());
            return short(self.src, func.start_byte(), end);
        }
        self.text(func)
    }

    pub(super) fn text(&self, node: Node<'_>) -> String {
        short(self.src, node.start_byte(), node.end_byte())
    }

    /// The text inside a bracketing node (`(…)`), without the brackets.
    fn inner_text(&self, node: Node<'_>) -> String {
        let (start, end) = (node.start_byte(), node.end_byte());
        short(self.src, (start + 1).min(end), end.saturating_sub(1).max(start))
    }
}

/// `src[start..end]` with comments removed and whitespace runs collapsed to one space (string
/// literals kept, line breaks in raw strings as spaces), cut to [`MAX_STEP_TEXT`] bytes on a
/// character boundary (`…` included). Reads no further than it writes, plus skipped blanks.
pub(super) fn short(src: &[u8], start: usize, end: usize) -> String {
    let s = src.get(start..end.min(src.len())).unwrap_or_default();
    let mut out: Vec<u8> = Vec::with_capacity(s.len().min(MAX_STEP_TEXT + 4));
    let (mut i, mut space, mut quote) = (0, false, 0u8);
    while i < s.len() && out.len() <= MAX_STEP_TEXT {
        let c = s[i];
        if quote != 0 {
            out.push(if c.is_ascii_whitespace() { b' ' } else { c });
            if c == b'\\' && quote != b'`' && i + 1 < s.len() {
                out.push(s[i + 1]);
                i += 2;
                continue;
            }
            if c == quote {
                quote = 0;
            }
            i += 1;
            continue;
        }
        if s[i..].starts_with(b"//") {
            i = s[i..].iter().position(|&b| b == b'\n').map_or(s.len(), |n| i + n);
            space = true;
            continue;
        }
        if s[i..].starts_with(b"/*") {
            i = s[i + 2..].windows(2).position(|w| w == b"*/").map_or(s.len(), |n| i + 2 + n + 2);
            space = true;
            continue;
        }
        if c.is_ascii_whitespace() {
            space = true;
            i += 1;
            continue;
        }
        if space && !out.is_empty() {
            out.push(b' ');
        }
        space = false;
        if matches!(c, b'"' | b'`' | b'\'') {
            quote = c;
        }
        out.push(c);
        i += 1;
    }
    let text = String::from_utf8_lossy(&out);
    if text.len() <= MAX_STEP_TEXT {
        return text.into_owned();
    }
    let mut cut = MAX_STEP_TEXT - '…'.len_utf8();
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}…", &text[..cut])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_collapses_blanks_and_comments_but_not_literals() {
        let src = b"a &&\n\t// why\n\tb(\"x  //y\") /* c */ || `r\n s`";
        assert_eq!(short(src, 0, src.len()), "a && b(\"x  //y\") || `r  s`");
    }

    #[test]
    fn short_is_bounded_on_a_char_boundary() {
        let long = "é".repeat(200);
        let text = short(long.as_bytes(), 0, long.len());
        assert!(text.len() <= MAX_STEP_TEXT, "{}", text.len());
        assert!(text.ends_with('…'));
        let bad = [0xffu8; 300];
        assert!(short(&bad, 0, bad.len()).len() <= MAX_STEP_TEXT);
        assert_eq!(short(b"abc", 2, 99), "c");
        assert_eq!(short(b"abc", 5, 9), "");
    }
}
