//! Hover: what the name at a place is, as typed sections a front renders. A node: its card
//! (title, kind and attributes, Go signature), the relations around it and, for a Go symbol,
//! the documents pointing at it; a declaration outside the project: its card, doc comment
//! and origin; a Go local name, struct field or interface method: what it is and its
//! declaring line.

use crate::target::{FilePosition, FileRange};
use crate::Ide;
use docforge_db::{Cancellable, ExternalNode, IdeIndex};
use docforge_model::{Edge, Node};
use std::collections::BTreeMap;

/// A hover: the range of the name it is about, and its sections in display order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HoverResult {
    pub range: FileRange,
    pub sections: Vec<HoverSection>,
}

/// One part of a hover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HoverSection {
    /// What the name is.
    Title(HoverTitle),
    /// A node's kind and the attributes worth showing, as `(label, value)` in display order.
    Kind { kind: String, attrs: Vec<(String, String)> },
    /// Go source: a declaration's signature, or the line declaring a name (trimmed).
    GoCode(String),
    /// The doc comment of a declaration outside the project.
    Documentation(String),
    /// Where it is declared: a project-relative path, or an absolute one outside the
    /// project; the 1-based line when the hover names one.
    Place { label: PlaceLabel, path: String, line: Option<u32> },
    /// The node's edges other than the tree's, counted per relation (sorted by relation).
    Relations { incoming: Vec<(String, usize)>, outgoing: Vec<(String, usize)> },
    /// The nodes outside Go code (documents, headings) with an edge to a Go symbol, as
    /// `(node ID, relation)`, sorted, each once; never empty.
    DocumentedBy(Vec<(String, String)>),
}

/// What a hover is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HoverTitle {
    /// A node (or a declaration outside the project).
    Node { title: String, id: String },
    /// A Go local name.
    Local { name: String },
    /// A struct field, or a method spec of an interface (`method`).
    Member { name: String, method: bool, owner: MemberOwner },
}

/// The type declaring a struct field or interface method.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MemberOwner {
    /// A named type: its ID without `go:` (`example.com/shop/catalog::Product`).
    Named(String),
    /// A type declared in a function body: its name.
    LocalType(String),
    /// A struct (interface) type spelled in place.
    Unnamed,
}

/// Whose is the place of a [`HoverSection::Place`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlaceLabel {
    /// Declared in the project.
    Declared,
    /// Outside the project: `standard library`, or `module <path>@<version>`.
    Origin(String),
}

/// The node attributes a hover shows, in order (the document kind only when it differs
/// from the node kind).
const CARD_ATTRS: [&str; 8] =
    ["family", "status", "authority", "kind", "tags", "package", "receiver", "calls_resolved"];

impl Ide<'_> {
    /// What the name at a position is; `None` when nothing is named there.
    pub fn hover(&self, pos: &FilePosition) -> Cancellable<Option<HoverResult>> {
        let Some(m) = self.denoting_mention_at(pos)? else { return self.go_name_hover(pos) };
        let range = FileRange::of_span(&m.span);
        let ide = self.analysis.ide()?;
        let Some(node) = ide.node(&m.target) else {
            let Some(ext) = self.analysis.go_external_node(&m.target)? else { return Ok(None) };
            return Ok(Some(HoverResult { range, sections: external_card(&ext) }));
        };
        let mut sections = card(node);
        sections.push(HoverSection::Relations {
            incoming: count(ide.incoming(&node.id)),
            outgoing: count(ide.outgoing(&node.id)),
        });
        if node.id.starts_with("go:") {
            let by = documented_by(&ide, &node.id);
            if !by.is_empty() {
                sections.push(HoverSection::DocumentedBy(by));
            }
        }
        Ok(Some(HoverResult { range, sections }))
    }

    /// A Go local name, struct field or interface method at a position: what it is, where
    /// it is declared and the declaring line.
    fn go_name_hover(&self, pos: &FilePosition) -> Cancellable<Option<HoverResult>> {
        let mut external = None;
        let (span, title, decl) = if let Some((at, decl)) = self.local_at(pos)? {
            let line = self.line_text(&decl.path, decl.line)?;
            let name = line.get(decl.start as usize - 1..decl.end as usize - 1).unwrap_or_default();
            (at, HoverTitle::Local { name: name.to_string() }, Some(decl))
        } else if let Some(f) = self.field_at(pos)? {
            let owner = if f.owner.starts_with("anon:") {
                match self.analysis.go_local_type_name(&f.owner)? {
                    Some(local) => MemberOwner::LocalType(local),
                    None => MemberOwner::Unnamed,
                }
            } else {
                MemberOwner::Named(f.owner.strip_prefix("go:").unwrap_or(&f.owner).to_string())
            };
            let decl = self.analysis.go_field_decl(&f.owner, &f.field)?;
            if decl.is_none() {
                // A field or method spec of a type outside the project.
                external = self.analysis.go_external_field(&f.owner, &f.field)?;
            }
            (f.span, HoverTitle::Member { name: f.field, method: f.method, owner }, decl)
        } else {
            return Ok(None);
        };
        let mut sections = vec![HoverSection::Title(title)];
        if let Some(d) = decl {
            let lines = self.lines(&d.path)?;
            if let Some(line) = lines.line(d.line) {
                sections.push(HoverSection::GoCode(line.trim().to_string()));
                sections.push(HoverSection::Place {
                    label: PlaceLabel::Declared,
                    path: d.path.clone(),
                    line: Some(d.line),
                });
            }
        }
        if let Some(e) = external {
            sections.push(HoverSection::GoCode(e.line_text.trim().to_string()));
            sections.push(HoverSection::Place {
                label: PlaceLabel::Origin(e.origin.clone()),
                path: e.file.display().to_string(),
                line: Some(e.line),
            });
        }
        Ok(Some(HoverResult { range: FileRange::of_span(&span), sections }))
    }
}

/// Title, kind and attributes of a node, with its Go signature when known.
fn card(node: &Node) -> Vec<HoverSection> {
    let mut attrs = Vec::new();
    for key in CARD_ATTRS {
        if let Some(v) = node.attrs.get(key).filter(|v| !(key == "kind" && **v == node.kind)) {
            let label = if key == "kind" { "document kind" } else { key };
            attrs.push((label.to_string(), v.clone()));
        }
    }
    let mut sections = vec![
        HoverSection::Title(HoverTitle::Node { title: node.title.clone(), id: node.id.clone() }),
        HoverSection::Kind { kind: node.kind.clone(), attrs },
    ];
    if node.id.starts_with("go:") && !node.text.is_empty() {
        let (code, doc) = docforge_db::declaration_and_doc(&node.text);
        sections.push(HoverSection::GoCode(code.to_string()));
        if let Some(doc) = doc.filter(|d| !d.is_empty()) {
            sections.push(HoverSection::Documentation(doc.to_string()));
        }
    }
    sections
}

/// A declaration outside the project: its card, doc comment and origin.
fn external_card(ext: &ExternalNode) -> Vec<HoverSection> {
    let mut sections = card(&ext.node);
    // The card shows the doc comment the node's text holds; a doc read apart is shown once.
    let shown = sections.iter().any(|s| matches!(s, HoverSection::Documentation(_)));
    if let (Some(doc), false) = (&ext.doc, shown) {
        sections.push(HoverSection::Documentation(doc.clone()));
    }
    sections.push(HoverSection::Place {
        label: PlaceLabel::Origin(ext.origin.clone()),
        path: ext.file.display().to_string(),
        line: None,
    });
    sections
}

/// Edges counted per relation, the tree's left out.
fn count<'a>(edges: impl Iterator<Item = &'a Edge>) -> Vec<(String, usize)> {
    let mut by: BTreeMap<&str, usize> = BTreeMap::new();
    for e in edges.filter(|e| !e.is_tree()) {
        *by.entry(e.relation.as_str()).or_default() += 1;
    }
    by.into_iter().map(|(r, n)| (r.to_string(), n)).collect()
}

/// The nodes outside Go code with an edge to `id`, with the relation.
fn documented_by(ide: &IdeIndex, id: &str) -> Vec<(String, String)> {
    let mut by: Vec<(String, String)> = ide
        .incoming(id)
        .filter(|e| !e.source.starts_with("go:") && !e.source.starts_with("file:"))
        .map(|e| (e.source.clone(), e.relation.clone()))
        .collect();
    by.sort();
    by.dedup();
    by
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_card_shows_the_document_kind_only_when_it_differs_and_code_only_for_go() {
        let mut doc =
            Node { id: "arch.x".into(), kind: "document".into(), title: "X".into(), ..Node::default() };
        doc.attrs.insert("kind".into(), "design".into());
        doc.attrs.insert("status".into(), "accepted".into());
        doc.attrs.insert("owner".into(), "me".into());
        doc.text = "summary".into();
        let attrs = |n: &Node| match &card(n)[1] {
            HoverSection::Kind { attrs, .. } => attrs.clone(),
            other => panic!("{other:?}"),
        };
        let pairs =
            |v: &[(&str, &str)]| v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect::<Vec<_>>();
        assert_eq!(attrs(&doc), pairs(&[("status", "accepted"), ("document kind", "design")]));
        assert_eq!(card(&doc).len(), 2, "a document's text is not code");
        doc.attrs.insert("kind".into(), "document".into());
        assert_eq!(attrs(&doc), pairs(&[("status", "accepted")]));
        let go =
            Node { id: "go:m::F".into(), kind: "func".into(), text: "func F()".into(), ..Node::default() };
        assert_eq!(card(&go)[2], HoverSection::GoCode("func F()".into()));
    }

    #[test]
    fn relation_counts_leave_the_tree_out() {
        let edges = [
            Edge::new("a", "contains", "b"),
            Edge::new("f", "defines", "b"),
            Edge::new("c", "governs", "b"),
            Edge::new("d", "documents", "b"),
            Edge::new("e", "documents", "b"),
            Edge::new("p", "owns", "b"),
        ];
        let got = count(edges.iter());
        assert_eq!(got, [("documents".to_string(), 2), ("governs".to_string(), 1), ("owns".to_string(), 1)]);
    }
}
