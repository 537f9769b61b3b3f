//! Call hierarchy: a function's callers and callees from the graph's `calls` edges, each
//! with its call sites and how the calls were resolved.

use crate::target::{FilePosition, FileRange, NavigationTarget};
use crate::Ide;
use docforge_db::Cancellable;
use docforge_model::Edge;
use std::collections::BTreeMap;

/// One caller or callee of a function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallGroup {
    /// The caller or callee (always a node).
    pub target: NavigationTarget,
    /// How its calls were resolved: the `classification` of each call edge
    /// (`resolved_static`, `cha_possible_target`, …; `unclassified` for an edge without
    /// one), sorted, each once.
    pub classifications: Vec<String>,
    /// The call sites, in the caller's file.
    pub sites: Vec<FileRange>,
}

impl Ide<'_> {
    /// The function or method at a position, as the root of a call hierarchy (`None` for
    /// anything else, or one without a place).
    pub fn call_hierarchy(&self, pos: &FilePosition) -> Cancellable<Option<NavigationTarget>> {
        let Some(node) = self.node_at(pos)? else { return Ok(None) };
        if !matches!(node.kind.as_str(), "func" | "method") {
            return Ok(None);
        }
        self.node_target(&node)
    }

    /// The callers of node `id`, by caller ID.
    pub fn incoming_calls(&self, id: &str) -> Cancellable<Vec<CallGroup>> {
        let ide = self.analysis.ide()?;
        self.call_groups(grouped(ide.incoming(id), |e| &e.source))
    }

    /// The callees of node `id`, by callee ID.
    pub fn outgoing_calls(&self, id: &str) -> Cancellable<Vec<CallGroup>> {
        let ide = self.analysis.ide()?;
        self.call_groups(grouped(ide.outgoing(id), |e| &e.target))
    }

    fn call_groups(&self, by: BTreeMap<String, Vec<&Edge>>) -> Cancellable<Vec<CallGroup>> {
        let ide = self.analysis.ide()?;
        let mut out = Vec::new();
        for (other, edges) in by {
            let Some(node) = ide.node(&other) else { continue };
            let Some(target) = self.node_target(node)? else { continue };
            let mut sites = Vec::new();
            for e in &edges {
                sites.extend(self.edge_span(e)?.map(|s| FileRange::of_span(&s)));
            }
            out.push(CallGroup { target, classifications: classifications(&edges), sites });
        }
        Ok(out)
    }
}

/// `calls` edges grouped by the node on the other end.
fn grouped<'a>(
    edges: impl Iterator<Item = &'a Edge>,
    other: impl Fn(&Edge) -> &str,
) -> BTreeMap<String, Vec<&'a Edge>> {
    let mut by: BTreeMap<String, Vec<&Edge>> = BTreeMap::new();
    for e in edges.filter(|e| e.relation == "calls") {
        by.entry(other(e).to_string()).or_default().push(e);
    }
    by
}

fn classifications(edges: &[&Edge]) -> Vec<String> {
    let mut l: Vec<String> = edges
        .iter()
        .map(|e| e.attrs.get("classification").map_or("unclassified", String::as_str).to_string())
        .collect();
    l.sort();
    l.dedup();
    l
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifications_are_sorted_unique_and_name_a_missing_one() {
        let call = |to: &str, class: Option<&str>| {
            let e = Edge::new("go:m::F", "calls", to);
            match class {
                Some(c) => e.with_attr("classification", c),
                None => e,
            }
        };
        let edges = [
            call("go:m::G", Some("resolved_static")),
            call("go:m::G", Some("cha_possible_target")),
            call("go:m::G", None),
            call("go:m::G", Some("resolved_static")),
        ];
        let refs: Vec<&Edge> = edges.iter().collect();
        assert_eq!(classifications(&refs), ["cha_possible_target", "resolved_static", "unclassified"]);
        let other = [Edge::new("go:m::F", "documents", "go:m::G"), call("go:m::H", None)];
        let by = grouped(other.iter(), |e| &e.target);
        assert_eq!(by.keys().collect::<Vec<_>>(), ["go:m::H"]);
    }
}
