//! Completion while writing documents: node IDs after `[[`, after `go:` and inside a quoted
//! front-matter value (a relation target), and relation names at the start of a line under
//! `[relations]` in the front matter.

use crate::{FilePosition, Ide, LineRange};
use docforge_db::Cancellable;
use docforge_model::RelationClass;

/// At most this many node IDs are offered.
const MAX_NODES: usize = 200;

/// What a completion offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    /// A node ID; its node kind (`section`, `document`, `func`, …).
    Node(String),
    /// A relation name of the version-1 vocabulary, and its category.
    Relation(RelationClass),
}

/// One completion: `insert` replaces the text at `replace` (what was typed of it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: String,
    pub insert: String,
    pub replace: LineRange,
}

/// What is being typed: the ID prefix, where it starts (byte offset in the line) and whether
/// it names Go.
fn typed_id(before: &str) -> Option<(usize, &str, bool)> {
    if let Some(open) = before.rfind("[[") {
        if !before[open..].contains("]]") && !before[open..].contains(char::is_whitespace) {
            let typed = &before[open + 2..];
            return Some((open + 2, typed, typed.starts_with("go:")));
        }
    }
    if let Some(at) = before.rfind("go:") {
        let typed = &before[at..];
        if !typed.contains(|c: char| c.is_whitespace() || matches!(c, '"' | ')' | ']')) {
            return Some((at, typed, true));
        }
    }
    // A quoted front-matter value (a relation target).
    let quote = before.rfind('"')?;
    let typed = &before[quote + 1..];
    (before[..quote].matches('"').count().is_multiple_of(2) && before.contains(['[', '='])).then_some((
        quote + 1,
        typed,
        false,
    ))
}

impl Ide<'_> {
    /// What may be typed at `pos`, sorted by label (possibly nothing); `None` at a place
    /// where nothing is completed (see the module documentation).
    pub fn completions(&self, pos: &FilePosition) -> Cancellable<Option<Vec<Completion>>> {
        let Some(text) = self.loaded(&pos.path)? else { return Ok(None) };
        let lines: Vec<&str> = text.text().split('\n').collect();
        let Some(line) = lines.get(pos.line as usize) else { return Ok(None) };
        let mut col = (pos.column as usize).min(line.len());
        while !line.is_char_boundary(col) {
            col -= 1;
        }
        let before = &line[..col];
        let above = &lines[..pos.line as usize];
        let in_front_matter = above.iter().filter(|l| l.trim_end() == "+++").count() == 1;
        if in_front_matter && before.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return Ok(relation_keys(above, pos.line, before));
        }
        let Some((start, typed, go)) = typed_id(before) else { return Ok(None) };
        if !go && !before.contains("[[") && !in_front_matter {
            return Ok(None);
        }
        let replace = LineRange { line: pos.line, start: start as u32, end: col as u32 };
        let mut items: Vec<Completion> = self
            .analysis
            .ide()?
            .nodes()
            .filter(|n| n.id.starts_with(typed) && n.kind != "file" && n.id.starts_with("go:") == go)
            .take(MAX_NODES)
            .map(|n| Completion {
                label: n.id.clone(),
                kind: CompletionKind::Node(n.kind.clone()),
                detail: format!("{} — {}", n.kind, n.title),
                insert: n.id.clone(),
                replace,
            })
            .collect();
        items.sort_by(|a, b| a.label.cmp(&b.label));
        Ok(Some(items))
    }
}

/// Relation names of the version-1 vocabulary at the start of a line under `[relations]`.
fn relation_keys(above: &[&str], line: u32, typed: &str) -> Option<Vec<Completion>> {
    let table = above.iter().rev().map(|l| l.trim()).find(|l| l.starts_with('['));
    if table != Some("[relations]") {
        return None;
    }
    let replace = LineRange { line, start: 0, end: typed.len() as u32 };
    let items = docforge_model::RELATION_ALIASES_V1
        .iter()
        .filter(|(name, _)| name.starts_with(typed))
        .map(|(name, class)| Completion {
            label: name.to_string(),
            kind: CompletionKind::Relation(*class),
            detail: format!("relation ({})", class.as_str()),
            insert: format!("{name} = [\"\"]"),
            replace,
        })
        .collect();
    Some(items)
}
