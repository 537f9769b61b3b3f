//! Text helpers for extracted facts: positions, bounded and normalized source text.

use crate::Pos;
use tree_sitter::{Language, Node};

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
