//! Projection of one document's facts to graph nodes, edges and diagnostics.

use crate::facts::{DocFacts, Link, LinkTarget, SECTION_KIND};
use crate::index::{DocIndex, Resolution};
use docforge_model::{Attrs, Diagnostic, Edge, Fragment, Node};
use std::collections::{BTreeMap, HashSet};

/// Relation of a link to another document or heading.
pub const LINK_RELATION: &str = "relates_to";
/// Relation of a link to a `go:` node.
pub const GO_LINK_RELATION: &str = "documents";

/// Resolve the links of all documents against each other (and `known_node` for `go:` and
/// other non-document IDs) and project them to the graph: the concatenation of
/// [`document_fragment`] for every document.
pub fn project(docs: &[&DocFacts], known_node: &dyn Fn(&str) -> bool) -> Fragment {
    let index = DocIndex::new(docs);
    let mut out = Fragment::default();
    for doc in docs {
        let f = document_fragment(doc, &index, known_node);
        out.nodes.extend(f.nodes);
        out.edges.extend(f.edges);
        out.diagnostics.extend(f.diagnostics);
    }
    out
}

/// Project one document: its node, its section nodes, `contains` edges, resolved link edges
/// (`relates_to` to documents/headings, `documents` to `go:` nodes), `[relations]` edges, and
/// every diagnostic about it (its own, `duplicate_id`, and unresolved targets). Edges are
/// unique by `(source, relation, target)`; the first occurrence's location is kept.
///
/// `known_node` answers for IDs the documents do not define; it is called with full node IDs
/// (`go:example.com/shop/storage::Repository`, `file:…`).
pub fn document_fragment(facts: &DocFacts, index: &DocIndex, known_node: &dyn Fn(&str) -> bool) -> Fragment {
    let mut p = Projector { facts, index, known_node, out: Fragment::default(), seen: HashSet::new() };
    let mut node = facts.node.clone();
    if let Some(span) = &facts.span {
        span.write_to(&mut node.attrs);
    }
    p.out.nodes.push(node);
    p.out.diagnostics.extend(facts.diagnostics.iter().cloned());
    p.out.diagnostics.extend(index.duplicate_diagnostic(&facts.path));
    p.sections();
    for link in &facts.links {
        p.link(link);
    }
    p.relations();
    p.out
}

struct Projector<'a> {
    facts: &'a DocFacts,
    index: &'a DocIndex,
    known_node: &'a dyn Fn(&str) -> bool,
    out: Fragment,
    seen: HashSet<(String, String, String)>,
}

impl Projector<'_> {
    fn edge(&mut self, edge: Edge) {
        let key = (edge.source.clone(), edge.relation.clone(), edge.target.clone());
        if self.seen.insert(key) {
            self.out.edges.push(edge);
        }
    }

    fn sections(&mut self) {
        for section in &self.facts.sections {
            let mut attrs = BTreeMap::new();
            attrs.insert("level".to_string(), section.level.to_string());
            attrs.insert("document".to_string(), self.facts.id.clone());
            let mut attrs: Attrs = attrs.into();
            section.span.write_to(&mut attrs);
            self.out.nodes.push(Node {
                id: section.id.clone(),
                kind: SECTION_KIND.to_string(),
                title: section.title.clone(),
                location: Some(section.location.clone()),
                text: section.text.clone(),
                attrs,
            });
            let parent = section.parent.map_or(&self.facts.id, |i| &self.facts.sections[i].id);
            let edge = Edge::new(parent.clone(), "contains", section.id.clone()).at(section.location.clone());
            self.edge(edge);
        }
    }

    fn link(&mut self, link: &Link) {
        let (relation, resolution) = match &link.target {
            LinkTarget::Go(id) => {
                if (self.known_node)(id) {
                    (GO_LINK_RELATION, Resolution::Found(id.clone()))
                } else {
                    let message = format!("link target `{id}` is not a known Go node");
                    self.diag(Diagnostic::warning("unknown_go_target", message), link);
                    return;
                }
            }
            LinkTarget::Path { path, fragment } => {
                (LINK_RELATION, self.index.resolve_path(path, fragment.as_deref()))
            }
            LinkTarget::Id { id, fragment } => {
                let r = self.index.resolve_id(id, fragment.as_deref());
                match r {
                    Resolution::Missing(_) if fragment.is_none() && (self.known_node)(id) => {
                        (LINK_RELATION, Resolution::Found(id.clone()))
                    }
                    r => (LINK_RELATION, r),
                }
            }
        };
        match resolution {
            Resolution::Found(target) => {
                let edge = Edge::new(link.source.clone(), relation, target).at(link.location.clone());
                self.edge(edge);
            }
            Resolution::Missing(why) => {
                let message = format!("broken link `{}`: {why}", link.destination);
                self.diag(Diagnostic::error("broken_link", message), link);
            }
            Resolution::Ambiguous(paths) => {
                let message = format!(
                    "ambiguous link `{}`: the ID is declared by {}",
                    link.destination,
                    paths.join(", ")
                );
                self.diag(Diagnostic::error("ambiguous_link", message), link);
            }
            Resolution::NotADocument => {}
        }
    }

    fn diag(&mut self, d: Diagnostic, link: &Link) {
        self.out.diagnostics.push(d.at(link.location.clone()).on(link.source.clone()));
    }

    fn relations(&mut self) {
        let doc = self.facts.id.clone();
        for rel in &self.facts.relations {
            let resolution = if rel.target.starts_with("go:") {
                if (self.known_node)(&rel.target) {
                    Resolution::Found(rel.target.clone())
                } else {
                    Resolution::Missing("not a known Go node".to_string())
                }
            } else {
                match self.index.resolve_node_id(&rel.target) {
                    Resolution::Missing(_) if (self.known_node)(&rel.target) => {
                        Resolution::Found(rel.target.clone())
                    }
                    r => r,
                }
            };
            let diag = match resolution {
                Resolution::Found(target) => {
                    let edge = Edge::new(doc.clone(), rel.name.clone(), target).at(rel.location.clone());
                    self.edge(edge);
                    continue;
                }
                Resolution::Missing(why) => {
                    let message = format!("`{}` target `{}`: {why}", rel.name, rel.target);
                    // Go nodes may be missing only because Go analysis is off or incomplete.
                    if rel.target.starts_with("go:") {
                        Diagnostic::warning("unknown_relation_target", message)
                    } else {
                        Diagnostic::error("unknown_relation_target", message)
                    }
                }
                Resolution::Ambiguous(paths) => {
                    let message =
                        format!("`{}` target `{}` is declared by {}", rel.name, rel.target, paths.join(", "));
                    Diagnostic::error("ambiguous_link", message)
                }
                Resolution::NotADocument => continue,
            };
            self.out.diagnostics.push(diag.at(rel.location.clone()).on(doc.clone()));
        }
    }
}
