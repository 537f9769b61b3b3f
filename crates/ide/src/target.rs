//! Places and targets: positions a front asks about, ranges it shows, and where a node is
//! declared.

use crate::Ide;
use docforge_db::{Cancellable, ExternalNode, Span};
use docforge_model::{Edge, Node};
use std::path::PathBuf;

/// A place in a project file, as a front asks about it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct FilePosition {
    /// Project-relative, `/`-separated.
    pub path: String,
    /// 0-based line.
    pub line: u32,
    /// 0-based UTF-8 byte offset in the line (past the line's end reads as its end).
    pub column: u32,
}

/// Columns of one line: a 0-based line and 0-based UTF-8 byte columns `[start, end)`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineRange {
    pub line: u32,
    pub start: u32,
    pub end: u32,
}

impl LineRange {
    /// The range of an engine [`Span`] (1-based line and columns; an unknown 0 reads as 1).
    pub fn of_span(span: &Span) -> LineRange {
        LineRange { line: from_one(span.line), start: from_one(span.start), end: from_one(span.end) }
    }
}

/// A 1-based number as 0-based (0, "unknown", counts as the first).
fn from_one(n: u32) -> u32 {
    n.max(1) - 1
}

/// The file a range is in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileRef {
    /// A file of the project: its project-relative, `/`-separated path.
    Project(String),
    /// A declaration outside the project (the Go installation, the module cache): the file's
    /// absolute path and the text of the range's line, so a front can convert columns
    /// without reading the file.
    External { path: PathBuf, line_text: String },
}

/// A range in a file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileRange {
    pub file: FileRef,
    pub range: LineRange,
}

impl FileRange {
    /// The range of an engine span of a project file.
    pub fn of_span(span: &Span) -> FileRange {
        FileRange { file: FileRef::Project(span.path.clone()), range: LineRange::of_span(span) }
    }

    /// The declared name of a declaration outside the project.
    pub fn of_external(e: &ExternalNode) -> FileRange {
        let range =
            LineRange { line: from_one(e.line), start: from_one(e.column), end: from_one(e.column + e.len) };
        FileRange { file: FileRef::External { path: e.file.clone(), line_text: e.line_text.clone() }, range }
    }

    /// The project-relative path, for a file of the project.
    pub fn project_path(&self) -> Option<&str> {
        match &self.file {
            FileRef::Project(p) => Some(p),
            FileRef::External { .. } => None,
        }
    }
}

/// A node of the graph (or a declaration outside the project, as the graph would hold it).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TargetNode {
    pub id: String,
    /// `document`, `section`, `func`, `method`, `interface`, … ([`Node::kind`]).
    pub kind: String,
    pub title: String,
}

impl TargetNode {
    fn of(node: &Node) -> TargetNode {
        TargetNode { id: node.id.clone(), kind: node.kind.clone(), title: node.title.clone() }
    }
}

/// Somewhere a front can go: a declaration, with what is declared there.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct NavigationTarget {
    /// The declaring name, else the start of the node's place.
    pub range: FileRange,
    /// The node declared there; `None` for a Go local name, struct field or interface
    /// method, which are not nodes.
    pub node: Option<TargetNode>,
    /// The node holding it in the graph's tree (the document or heading of a section, the
    /// file of a Go declaration, the package of a file); `None` outside the project.
    pub container: Option<String>,
}

impl NavigationTarget {
    /// A declaration that is not a node.
    pub(crate) fn place(range: FileRange) -> NavigationTarget {
        NavigationTarget { range, node: None, container: None }
    }

    /// A declaration outside the project.
    pub(crate) fn external(e: &ExternalNode) -> NavigationTarget {
        NavigationTarget {
            range: FileRange::of_external(e),
            node: Some(TargetNode::of(&e.node)),
            container: None,
        }
    }
}

impl Ide<'_> {
    /// Where a node is declared: its declaration mention, else its location's start; a
    /// package, which has no single place, at its first file.
    pub(crate) fn decl_span(&self, node: &Node) -> Cancellable<Option<Span>> {
        let Some(loc) = &node.location else {
            let ide = self.analysis.ide()?;
            let file = ide
                .outgoing(&node.id)
                .filter(|e| e.relation == "contains")
                .find_map(|e| e.target.strip_prefix("file:"));
            return Ok(file.map(|path| Span { path: path.to_string(), line: 1, start: 1, end: 1 }));
        };
        if loc.line > 0 {
            let mentions = self.files.mentions(self.analysis, &loc.path)?;
            if let Some(m) = mentions.iter().find(|m| m.edge.is_none() && m.target == node.id) {
                return Ok(Some(m.span.clone()));
            }
        }
        let line = loc.line.max(1);
        let col = loc.column.max(1);
        Ok(Some(Span { path: loc.path.clone(), line, start: col, end: col }))
    }

    /// A node as a target: where it is declared ([`Ide::decl_span`]); `None` when it has no
    /// place.
    pub(crate) fn node_target(&self, node: &Node) -> Cancellable<Option<NavigationTarget>> {
        let Some(span) = self.decl_span(node)? else { return Ok(None) };
        let ide = self.analysis.ide()?;
        let container = ide.incoming(&node.id).find(|e| e.is_tree()).map(|e| e.source.clone());
        Ok(Some(NavigationTarget {
            range: FileRange::of_span(&span),
            node: Some(TargetNode::of(node)),
            container,
        }))
    }

    /// Where an edge is stated ([`docforge_db::edge_span_on_line`]), reading each file once.
    pub(crate) fn edge_span(&self, e: &Edge) -> Cancellable<Option<Span>> {
        let Some(loc) = e.location.as_ref().filter(|l| l.line > 0) else { return Ok(None) };
        let lines = self.lines(&loc.path)?;
        Ok(lines.line(loc.line).and_then(|l| docforge_db::edge_span_on_line(l, e)))
    }

    /// The text of 1-based `line` of a project file ("" when there is none).
    pub(crate) fn line_text(&self, path: &str, line: u32) -> Cancellable<String> {
        let lines = self.lines(path)?;
        Ok(lines.line(line).unwrap_or("").to_string())
    }
}
