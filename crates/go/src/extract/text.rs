//! Text helpers for extracted facts: positions, bounded and normalized source text.

use crate::Pos;
use tree_sitter::{Language, Node, TreeCursor};

/// The id of a named node kind of the Go grammar; a missing kind is a build defect.
pub(crate) fn kind_id(lang: &Language, kind: &str) -> u16 {
    let id = lang.id_for_node_kind(kind, true);
    assert!(id != 0, "tree-sitter-go has no node kind {kind}");
    id
}

/// The id of a field of the Go grammar; a missing field is a build defect.
pub(crate) fn field_id(lang: &Language, field: &str) -> std::num::NonZeroU16 {
    lang.field_id_for_name(field).unwrap_or_else(|| panic!("tree-sitter-go has no field {field}"))
}

/// Field access by name with the grammar's field ids looked up once: tree-sitter's
/// `child_by_field_name` compares the name with every field name of the grammar on each call
/// (~4% of a precise edit's time went to those comparisons).
pub(crate) trait FieldExt<'t> {
    /// The child in field `name` (`None` for a field the grammar does not have).
    fn field(&self, name: &str) -> Option<Node<'t>>;
    /// The children in field `name`.
    fn fields<'c>(
        &self,
        name: &str,
        cursor: &'c mut tree_sitter::TreeCursor<'t>,
    ) -> impl Iterator<Item = Node<'t>> + 'c;
}

impl<'t> FieldExt<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        self.child_by_field_id(field_of(self, name)?.get())
    }

    fn fields<'c>(
        &self,
        name: &str,
        cursor: &'c mut tree_sitter::TreeCursor<'t>,
    ) -> impl Iterator<Item = Node<'t>> + 'c {
        let id = field_of(self, name);
        let children = id.map(|id| self.children_by_field_id(id, cursor));
        children.into_iter().flatten()
    }
}

/// The id of field `name` of the grammar `node` belongs to (the Go grammar: one table).
fn field_of(node: &Node<'_>, name: &str) -> Option<std::num::NonZeroU16> {
    static FIELDS: std::sync::OnceLock<rustc_hash::FxHashMap<String, std::num::NonZeroU16>> =
        std::sync::OnceLock::new();
    let table = FIELDS.get_or_init(|| {
        let lang = node.language();
        (1..=lang.field_count() as u16)
            .filter_map(|id| Some((lang.field_name_for_id(id)?.to_string(), std::num::NonZeroU16::new(id)?)))
            .collect()
    });
    table.get(name).copied()
}

/// A node's children in order, stepped with one cursor: `node.child(i)` for every `i` costs
/// time quadratic in the number of children (each call walks from the first child), which
/// a long statement list or a file's top level makes noticeable.
pub(crate) struct Children<'t> {
    cursor: TreeCursor<'t>,
    started: bool,
    done: bool,
    named_only: bool,
}

impl<'t> Iterator for Children<'t> {
    type Item = Node<'t>;

    fn next(&mut self) -> Option<Node<'t>> {
        while !self.done {
            let moved = if self.started {
                self.cursor.goto_next_sibling()
            } else {
                self.started = true;
                self.cursor.goto_first_child()
            };
            if !moved {
                self.done = true;
                break;
            }
            let node = self.cursor.node();
            if !self.named_only || node.is_named() {
                return Some(node);
            }
        }
        None
    }
}

/// Every child of `node` (named and anonymous), as `node.child(0..)` lists them.
pub(crate) fn children(node: Node<'_>) -> Children<'_> {
    Children { cursor: node.walk(), started: false, done: false, named_only: false }
}

/// The named children of `node` (comments included), as `node.named_child(0..)` lists them.
pub(crate) fn named_children(node: Node<'_>) -> Children<'_> {
    Children { cursor: node.walk(), started: false, done: false, named_only: true }
}

pub(crate) fn pos(node: Node<'_>) -> Pos {
    let p = node.start_position();
    Pos { line: p.row as u32 + 1, column: p.column as u32 + 1 }
}

pub(crate) fn bytes<'s>(node: Node<'_>, src: &'s [u8]) -> &'s [u8] {
    &src[node.byte_range()]
}

pub(crate) fn text(node: Node<'_>, src: &[u8]) -> String {
    String::from_utf8_lossy(bytes(node, src)).into_owned()
}

/// Source text cut to at most `max` bytes (on a character boundary, `…` appended when cut).
pub(crate) fn bounded(node: Node<'_>, src: &[u8], max: usize) -> String {
    let s = String::from_utf8_lossy(bytes(node, src));
    if s.len() <= max {
        return s.into_owned();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

/// Source text with comments removed and whitespace runs collapsed to one space; no space
/// after `(`/`[` or before `)`/`]`/`,`, and no trailing comma before a closing bracket.
pub(crate) fn normalized(node: Node<'_>, src: &[u8]) -> String {
    let s = bytes(node, src);
    let mut out: Vec<u8> = Vec::with_capacity(s.len());
    let mut i = 0;
    let mut pending_space = false;
    while i < s.len() {
        let c = s[i];
        if s[i..].starts_with(b"//") {
            i = s[i..].iter().position(|&b| b == b'\n').map_or(s.len(), |n| i + n);
            pending_space = true;
            continue;
        }
        if s[i..].starts_with(b"/*") {
            i = s[i + 2..].windows(2).position(|w| w == b"*/").map_or(s.len(), |n| i + 2 + n + 2);
            pending_space = true;
            continue;
        }
        if c.is_ascii_whitespace() {
            pending_space = true;
            i += 1;
            continue;
        }
        if matches!(c, b')' | b']') && out.last() == Some(&b',') {
            out.pop();
        }
        if pending_space
            && !out.is_empty()
            && !matches!(out.last(), Some(b'(') | Some(b'['))
            && !matches!(c, b')' | b']' | b',')
        {
            out.push(b' ');
        }
        pending_space = false;
        if matches!(c, b'"' | b'`' | b'\'') {
            // Copy literals (struct tags in inline struct types) verbatim.
            let end = s[i + 1..].iter().position(|&b| b == c).map_or(s.len(), |n| i + 1 + n + 1);
            out.extend_from_slice(&s[i..end]);
            i = end;
            continue;
        }
        out.push(c);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The value of a Go string literal node (interpreted or raw).
pub(crate) fn unquote(node: Node<'_>, src: &[u8]) -> String {
    let s = text(node, src);
    let inner = s.get(1..s.len().saturating_sub(1)).unwrap_or("");
    if s.starts_with('`') || !inner.contains('\\') {
        return inner.to_string();
    }
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some(e) => out.push(e),
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use docforge_syntax::{AstGate, AstPolicy};

    #[test]
    fn children_list_what_child_and_named_child_list_for_every_node() {
        let gate = AstGate::new(AstPolicy::Allow);
        let go = gate.go().unwrap();
        // Comments (extras), anonymous tokens, hidden supertypes, an ERROR and a MISSING node.
        let src = b"package p // c\n\nimport (\n\t\"fmt\" // f\n)\n\ntype T struct{ a, b int; *U }\n\n\
func (t *T) M(x int, ys ...string) (r int) {\n\t// c\n\tfor i := range ys { fmt.Println(i, x) }\n\t\
switch { case x > 1: r = 2 }\n\treturn (r)\n}\n\nfunc broken( { x := }\n";
        let tree = go.parse(src);
        let mut stack = vec![tree.root_node()];
        let mut nodes = 0;
        while let Some(node) = stack.pop() {
            nodes += 1;
            let all: Vec<Node<'_>> = (0..node.child_count()).filter_map(|i| node.child(i)).collect();
            let named: Vec<Node<'_>> =
                (0..node.named_child_count() as u32).filter_map(|i| node.named_child(i)).collect();
            assert_eq!(children(node).collect::<Vec<_>>(), all, "children of {}", node.kind());
            assert_eq!(named_children(node).collect::<Vec<_>>(), named, "named children of {}", node.kind());
            stack.extend(all);
        }
        assert!(nodes > 100, "{nodes}");
        assert!(tree.root_node().has_error());
    }
}
