//! What the graph knows about a document, gathered from the published index: its fields, its
//! relations both ways, its backlinks and diagnostics, and the targets' titles and places.

use docforge_index::{EdgeRecord, Index, IndexError, NodeSummary, References};
use docforge_model::{Diagnostic, RelationClass};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The graph around one document: the references of the document and its sections.
pub struct DocGraph {
    /// Outgoing references of the document and its sections.
    pub outgoing: Vec<EdgeRecord>,
    /// Incoming references of the document and its sections from elsewhere.
    pub incoming: Vec<EdgeRecord>,
    pub diagnostics: Vec<Diagnostic>,
}

impl DocGraph {
    /// The graphs of the documents `ids` and their sections (the nodes `id#…`), by ID.
    pub fn load_each(index: &Index, ids: &[&str]) -> Result<HashMap<String, DocGraph>, IndexError> {
        let refs = index.references_within_each(ids)?;
        Ok(refs.into_iter().map(|(id, refs)| (id.clone(), DocGraph::of(&id, refs))).collect())
    }

    /// The graph of the document `id` from its references (and its sections').
    fn of(id: &str, refs: References) -> DocGraph {
        let own = |other: &str| other == id || other.strip_prefix(id).is_some_and(|r| r.starts_with('#'));
        let mut g = DocGraph {
            outgoing: refs.outgoing,
            // Edges between the document's own nodes are its structure, not references.
            incoming: refs.incoming.into_iter().filter(|e| !own(&e.source)).collect(),
            diagnostics: refs.diagnostics,
        };
        let key =
            |e: &EdgeRecord| (e.relation.clone(), e.other.clone(), e.source.clone(), e.location.clone());
        g.outgoing.sort_by_key(key);
        g.incoming.sort_by_key(key);
        g.diagnostics
            .sort_by(|a, b| (&a.location, &a.code, &a.message).cmp(&(&b.location, &b.code, &b.message)));
        g.diagnostics.dedup();
        g
    }

    /// Edges by the place they were stated (file line, column): how a link of the text is
    /// matched with what the engine resolved it to.
    pub fn by_place(&self) -> HashMap<(u32, u32), &EdgeRecord> {
        self.outgoing.iter().filter_map(|e| e.location.as_ref().map(|l| ((l.line, l.column), e))).collect()
    }
}

/// One category's relations: relation name → the other ends, each once.
pub type Category = (RelationClass, Vec<(String, Vec<String>)>);

/// Edges grouped for display: category (in the version-1 order, unclassified last) →
/// relation name → the other ends, each once.
pub fn grouped(edges: &[EdgeRecord]) -> Vec<Category> {
    let mut by: BTreeMap<(u8, String), BTreeSet<String>> = BTreeMap::new();
    for e in edges {
        by.entry((order(e.class), e.relation.clone())).or_default().insert(e.other.clone());
    }
    let mut out: Vec<Category> = Vec::new();
    for ((o, relation), others) in by {
        let class = CLASSES[o as usize];
        match out.last_mut() {
            Some((c, list)) if *c == class => list.push((relation, others.into_iter().collect())),
            _ => out.push((class, vec![(relation, others.into_iter().collect())])),
        }
    }
    out
}

const CLASSES: [RelationClass; 8] = [
    RelationClass::Structure,
    RelationClass::Implementation,
    RelationClass::Dependency,
    RelationClass::Execution,
    RelationClass::Data,
    RelationClass::Evidence,
    RelationClass::Context,
    RelationClass::Unclassified,
];

fn order(c: RelationClass) -> u8 {
    CLASSES.iter().position(|x| *x == c).unwrap_or(CLASSES.len() - 1) as u8
}

/// Titles and places of the nodes a render mentions, read once each (without their text).
#[derive(Default)]
pub struct Nodes {
    cache: HashMap<String, Option<NodeSummary>>,
}

impl Nodes {
    pub fn get(&mut self, index: &Index, id: &str) -> Result<Option<&NodeSummary>, IndexError> {
        if !self.cache.contains_key(id) {
            let node = index.node_summary(id)?;
            self.cache.insert(id.to_string(), node);
        }
        Ok(self.cache[id].as_ref())
    }
}
