//! Rename of document IDs and headings: a plan of every edit (the name where it is declared
//! and every reference), or a refusal with the reason when any reference cannot be updated
//! safely. Nothing is written: a front applies the plan.

use crate::refusal::RenameRefusal;
use crate::target::{FilePosition, FileRange, LineRange};
use crate::Ide;
use docforge_db::{Cancellable, Cancelled, Span};
use docforge_model::Node;
use std::collections::BTreeMap;

/// What a rename at a position would change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrepareRename {
    /// The name's range at the position.
    pub range: FileRange,
    /// The current name: a heading's text, else the document ID.
    pub placeholder: String,
}

/// One replacement in a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub range: LineRange,
    pub new_text: String,
}

/// The edits of a rename, per project-relative path, each file's in the order planned (no
/// two overlap).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceChange {
    pub files: BTreeMap<String, Vec<TextEdit>>,
}

/// Why planning stopped.
enum Stop {
    Cancelled(Cancelled),
    Refused(RenameRefusal),
}

impl From<Cancelled> for Stop {
    fn from(c: Cancelled) -> Self {
        Stop::Cancelled(c)
    }
}

impl From<RenameRefusal> for Stop {
    fn from(r: RenameRefusal) -> Self {
        Stop::Refused(r)
    }
}

type Planned<T> = Result<T, Stop>;

/// The two layers a front sees: cancelled, else planned or refused.
fn split<T>(r: Planned<T>) -> Cancellable<Result<T, RenameRefusal>> {
    match r {
        Ok(t) => Ok(Ok(t)),
        Err(Stop::Refused(why)) => Ok(Err(why)),
        Err(Stop::Cancelled(c)) => Err(c),
    }
}

impl Ide<'_> {
    /// The name a rename at a position would change, or why it would be refused.
    pub fn prepare_rename(&self, pos: &FilePosition) -> Cancellable<Result<PrepareRename, RenameRefusal>> {
        split(self.prepare(pos))
    }

    /// Every edit renaming the document ID or heading at a position to `new_name` (trimmed),
    /// or why that cannot be done safely.
    pub fn rename(
        &self,
        pos: &FilePosition,
        new_name: &str,
    ) -> Cancellable<Result<SourceChange, RenameRefusal>> {
        split(self.plan(pos, new_name.trim()))
    }

    fn prepare(&self, pos: &FilePosition) -> Planned<PrepareRename> {
        let Some(m) = self.mention_at(pos)? else { return Err(RenameRefusal::NothingHere.into()) };
        let node = self.renamable(self.node_of(Some(&m))?)?;
        let placeholder = match node.kind.as_str() {
            "section" => node.title.clone(),
            _ => node.id.clone(),
        };
        Ok(PrepareRename { range: FileRange::of_span(&m.span), placeholder })
    }

    fn plan(&self, pos: &FilePosition, new: &str) -> Planned<SourceChange> {
        let node = self.renamable(self.node_at(pos)?)?;
        let mut plan = Plan { ide: self, change: SourceChange::default() };
        match node.kind.as_str() {
            "section" => plan.heading(&node, new)?,
            _ => plan.document(&node, new)?,
        }
        Ok(plan.change)
    }

    /// The node, when it is a document ID or heading that can be renamed.
    fn renamable(&self, node: Option<Node>) -> Planned<Node> {
        let Some(node) = node else { return Err(RenameRefusal::NothingHere.into()) };
        if !matches!(node.kind.as_str(), "document" | "toml_node" | "section") {
            return Err(RenameRefusal::NotRenamable { id: node.id, kind: node.kind }.into());
        }
        let facts = doc_path(&node).map(|p| self.analysis.doc_facts(p)).transpose()?.flatten();
        let Some(facts) = facts else { return Err(RenameRefusal::NotLoaded { id: node.id }.into()) };
        if node.kind != "section" && facts.id_from_path {
            return Err(RenameRefusal::IdFromPath { id: node.id, path: facts.path.clone() }.into());
        }
        let ide = self.analysis.ide()?;
        let doc_id = node.id.split('#').next().unwrap_or(&node.id);
        if ide.nodes().filter(|n| n.id == doc_id).count() > 1 {
            return Err(RenameRefusal::DuplicateId { id: doc_id.to_string() }.into());
        }
        Ok(node)
    }
}

fn doc_path(node: &Node) -> Option<&str> {
    node.location.as_ref().map(|l| l.path.as_str())
}

struct Plan<'a, 'b> {
    ide: &'a Ide<'b>,
    change: SourceChange,
}

impl Plan<'_, '_> {
    fn line(&self, path: &str, line: u32) -> Planned<String> {
        Ok(self.ide.line_text(path, line)?)
    }

    /// Replace the bytes `[start, end)` (1-based columns) of 1-based `line`.
    fn replace(&mut self, path: &str, line: u32, start: u32, end: u32, new: &str) {
        let range = LineRange::of_span(&Span { path: String::new(), line, start, end });
        let edit = TextEdit { range, new_text: new.to_string() };
        self.change.files.entry(path.to_string()).or_default().push(edit);
    }

    fn document(&mut self, node: &Node, new: &str) -> Planned<()> {
        let old = node.id.as_str();
        if new.is_empty() || new.contains(|c: char| c.is_whitespace() || "#[]|\"'".contains(c)) {
            return Err(RenameRefusal::InvalidId { name: new.to_string() }.into());
        }
        if new.starts_with("go:") || new.starts_with("file:") {
            return Err(RenameRefusal::ReservedPrefix { name: new.to_string() }.into());
        }
        let ide = self.ide.analysis.ide()?;
        if ide.node(new).is_some() {
            return Err(RenameRefusal::Taken { name: new.to_string() }.into());
        }
        let path = doc_path(node).unwrap_or_default().to_string();
        let facts = self.ide.analysis.doc_facts(&path)?.expect("checked by renamable");
        let l = &facts.id_location;
        let text = self.line(&path, l.line)?;
        let inner = l.column + 1;
        if !text.get(inner as usize - 1..).is_some_and(|t| t.starts_with(old)) {
            return Err(RenameRefusal::IdNotPlain { path }.into());
        }
        self.replace(&path, l.line, inner, inner + old.len() as u32, new);
        let targets: Vec<String> =
            std::iter::once(old.to_string()).chain(facts.sections.iter().map(|s| s.id.clone())).collect();
        for target in &targets {
            for e in ide.incoming(target).filter(|e| !e.is_tree()) {
                let Some(span) = self.ide.edge_span(e)? else { continue };
                let written = self.line(&span.path, span.line)?;
                let token = written.get(span.start as usize - 1..span.end as usize - 1).unwrap_or("");
                let at = if token.starts_with("[[") {
                    span.start + 2
                } else if token.starts_with(['"', '\'']) {
                    span.start + 1
                } else if token.starts_with('[') || token.starts_with('<') {
                    continue; // a Markdown link names a path, not the ID: unaffected
                } else {
                    return Err(unsafe_ref(&span, token));
                };
                let rest = written.get(at as usize - 1..).unwrap_or("");
                let follows = rest.get(old.len()..).and_then(|r| r.chars().next());
                if !rest.starts_with(old) || !matches!(follows, Some(']' | '#' | '|' | '"' | '\'')) {
                    return Err(unsafe_ref(&span, token));
                }
                self.replace(&span.path, span.line, at, at + old.len() as u32, new);
            }
        }
        Ok(())
    }

    fn heading(&mut self, node: &Node, new: &str) -> Planned<()> {
        let path = doc_path(node).unwrap_or_default().to_string();
        let facts = self.ide.analysis.doc_facts(&path)?.expect("checked by renamable");
        let Some(section) = facts.section(&node.id) else {
            return Err(RenameRefusal::HeadingNotLoaded.into());
        };
        if new.is_empty() || new.contains('\n') {
            return Err(RenameRefusal::InvalidHeading.into());
        }
        let slugify = docforge_docs::slugify;
        if section.slug != slugify(&section.title) {
            return Err(RenameRefusal::DeduplicatedAnchor { slug: section.slug.clone() }.into());
        }
        let new_slug = slugify(new);
        if facts
            .sections
            .iter()
            .any(|s| s.id != section.id && (s.slug == new_slug || slugify(&s.title) == new_slug))
        {
            return Err(RenameRefusal::AnchorTaken { path, slug: new_slug }.into());
        }
        let l = &section.location;
        let text = self.line(&path, l.line)?;
        let Some(at) = text.find(&section.title) else { return Err(RenameRefusal::HeadingMarkup.into()) };
        let start = at as u32 + 1;
        self.replace(&path, l.line, start, start + section.title.len() as u32, new);
        if new_slug == section.slug {
            return Ok(());
        }
        let ide = self.ide.analysis.ide()?;
        let old = format!("#{}", section.slug);
        for e in ide.incoming(&node.id).filter(|e| !e.is_tree()) {
            let Some(span) = self.ide.edge_span(e)? else { continue };
            let written = self.line(&span.path, span.line)?;
            let token = written.get(span.start as usize - 1..span.end as usize - 1).unwrap_or("");
            let found = token.match_indices(&old).find(|(i, _)| {
                matches!(token[i + old.len()..].chars().next(), Some(')' | ']' | '|' | '"' | '\'' | '>'))
            });
            let Some((i, _)) = found else { return Err(unsafe_ref(&span, token)) };
            let at = span.start + i as u32 + 1;
            self.replace(&span.path, span.line, at, at + section.slug.len() as u32, &new_slug);
        }
        Ok(())
    }
}

fn unsafe_ref(span: &Span, token: &str) -> Stop {
    let line = span.line.max(1) - 1;
    RenameRefusal::UnsafeReference { path: span.path.clone(), line, token: token.to_string() }.into()
}
