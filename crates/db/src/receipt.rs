//! The version-1 primary-graph transition receipt, written beside the index at each
//! publication that changed the generation: exact node/edge change counts, the hash of the
//! complete change collection, up to 1,000 retained items (1 MiB), and the identities it
//! binds (project, root, adapter, index schema and file, from/to source and graph). Logic is
//! never part of it. Readers verify it without opening SQLite (see `docforge_mcp`).

use docforge_model::Node;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

pub const RECEIPT_DIR: &str = "receipts";
pub const RECEIPT_FILE: &str = "generation-diff.v1.json";
pub const MAX_RETAINED_ITEMS: usize = 1_000;
pub const MAX_RETAINED_BYTES: usize = 1 << 20;
/// Readers refuse a larger receipt file as `unverified`.
pub const MAX_RECEIPT_FILE_BYTES: u64 = 2 << 20;

/// One end of the transition.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Side {
    pub generation: u64,
    pub source_fingerprint: String,
    /// The cheap (stat-only) identity of the inventory, when the revision came from disk.
    pub source_identity: Option<String>,
    pub graph_digest: String,
    pub nodes: u64,
    pub edges: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    pub nodes_added: u64,
    pub nodes_removed: u64,
    pub nodes_changed: u64,
    pub edges_added: u64,
    pub edges_removed: u64,
    pub items_total: u64,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Retained {
    pub items: u64,
    pub bytes: u64,
    /// Items permanently left out by the publication limits.
    pub omitted: u64,
    pub limit_items: u64,
    pub limit_bytes: u64,
}

/// One change. Nodes are compared on every core field; an edge's identity is its
/// `(source, relation, target)` triple.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    #[serde(rename = "type")]
    pub kind: String,
    pub change: String,
    pub id: Option<String>,
    pub source: Option<String>,
    pub relation: Option<String>,
    pub target: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Receipt {
    pub receipt_schema_version: u32,
    pub receipt_kind: String,
    pub project_id: String,
    pub root: String,
    pub adapter_version: String,
    pub index_schema_version: u32,
    pub index_file: (u64, u64),
    pub from: Option<Side>,
    pub to: Side,
    pub counts: Counts,
    pub full_collection_hash: String,
    pub retained_collection_hash: String,
    pub retained: Retained,
    pub items: Vec<Item>,
    /// SHA-256 of the canonical receipt with this field empty.
    pub receipt_hash: String,
}

impl Receipt {
    pub fn compute_hash(&self) -> String {
        let mut copy = self.clone();
        copy.receipt_hash = String::new();
        hex::encode(Sha256::digest(serde_json::to_vec(&copy).expect("receipt serialises")))
    }
}

/// The contents one owner had before and has after (either may be absent).
pub(crate) struct OwnerPair<'a> {
    pub old_nodes: &'a [Node],
    pub old_edges: Vec<(&'a str, &'a str, &'a str)>,
    pub new_nodes: &'a [Node],
    pub new_edges: Vec<(&'a str, &'a str, &'a str)>,
}

/// The exact change collection across changed owners (a node moving between owners is
/// compared by ID, an edge by triple).
pub(crate) fn changes(pairs: &[OwnerPair<'_>]) -> Vec<Item> {
    let mut old_nodes: BTreeMap<&str, &Node> = BTreeMap::new();
    let mut new_nodes: BTreeMap<&str, &Node> = BTreeMap::new();
    let mut old_edges = BTreeSet::new();
    let mut new_edges = BTreeSet::new();
    for p in pairs {
        old_nodes.extend(p.old_nodes.iter().map(|n| (n.id.as_str(), n)));
        new_nodes.extend(p.new_nodes.iter().map(|n| (n.id.as_str(), n)));
        old_edges.extend(p.old_edges.iter().copied());
        new_edges.extend(p.new_edges.iter().copied());
    }
    let node = |change: &str, id: &str| Item {
        kind: "node".into(),
        change: change.into(),
        id: Some(id.into()),
        source: None,
        relation: None,
        target: None,
    };
    let mut items = Vec::new();
    for (id, n) in &new_nodes {
        match old_nodes.get(id) {
            None => items.push(node("added", id)),
            Some(o) if *o != *n => items.push(node("changed", id)),
            Some(_) => {}
        }
    }
    items.extend(old_nodes.keys().filter(|id| !new_nodes.contains_key(*id)).map(|id| node("removed", id)));
    let edge = |change: &str, (s, r, t): &(&str, &str, &str)| Item {
        kind: "edge".into(),
        change: change.into(),
        id: None,
        source: Some(s.to_string()),
        relation: Some(r.to_string()),
        target: Some(t.to_string()),
    };
    items.extend(new_edges.difference(&old_edges).map(|e| edge("added", e)));
    items.extend(old_edges.difference(&new_edges).map(|e| edge("removed", e)));
    items.sort();
    items
}

fn collection_hash(items: &[Item]) -> String {
    let mut h = Sha256::new();
    h.update(b"docforge.generation-diff.items.v1\0");
    for i in items {
        h.update(serde_json::to_vec(i).expect("item serialises"));
        h.update(b"\n");
    }
    hex::encode(h.finalize())
}

/// Everything but the items and hashes, filled by the publisher.
pub(crate) struct Header {
    pub project_id: String,
    pub root: String,
    pub index_file: (u64, u64),
    pub from: Option<Side>,
    pub to: Side,
}

pub(crate) fn build(header: Header, items: Vec<Item>) -> Receipt {
    let count = |kind: &str, change: &str| {
        items.iter().filter(|i| i.kind == kind && i.change == change).count() as u64
    };
    let counts = Counts {
        nodes_added: count("node", "added"),
        nodes_removed: count("node", "removed"),
        nodes_changed: count("node", "changed"),
        edges_added: count("edge", "added"),
        edges_removed: count("edge", "removed"),
        items_total: items.len() as u64,
    };
    let full_collection_hash = collection_hash(&items);
    let mut retained = Vec::new();
    let mut bytes = 0usize;
    for i in &items {
        let size = serde_json::to_vec(i).expect("item serialises").len() + 1;
        if retained.len() == MAX_RETAINED_ITEMS || bytes + size > MAX_RETAINED_BYTES {
            break;
        }
        bytes += size;
        retained.push(i.clone());
    }
    let mut r = Receipt {
        receipt_schema_version: 1,
        receipt_kind: "primary_graph_transition".into(),
        project_id: header.project_id,
        root: header.root,
        adapter_version: crate::ENGINE_VERSION.into(),
        index_schema_version: docforge_index::SCHEMA_VERSION,
        index_file: header.index_file,
        from: header.from,
        to: header.to,
        counts,
        full_collection_hash,
        retained_collection_hash: collection_hash(&retained),
        retained: Retained {
            items: retained.len() as u64,
            bytes: bytes as u64,
            omitted: (items.len() - retained.len()) as u64,
            limit_items: MAX_RETAINED_ITEMS as u64,
            limit_bytes: MAX_RETAINED_BYTES as u64,
        },
        items: retained,
        receipt_hash: String::new(),
    };
    r.receipt_hash = r.compute_hash();
    r
}

/// Where the receipt of the index at `index_path` lives.
pub fn receipt_path(index_path: &Path) -> PathBuf {
    index_path.parent().unwrap_or(Path::new(".")).join(RECEIPT_DIR).join(RECEIPT_FILE)
}

/// Write atomically (temporary file, fsync, rename).
pub(crate) fn write(index_path: &Path, r: &Receipt) -> std::io::Result<()> {
    use std::io::Write;
    let path = receipt_path(index_path);
    let dir = path.parent().expect("receipt has a parent");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{RECEIPT_FILE}.{}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&serde_json::to_vec(r).expect("receipt serialises"))?;
    f.sync_all()?;
    std::fs::rename(&tmp, &path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(id: &str, text: &str) -> Node {
        Node { id: id.into(), kind: "k".into(), text: text.into(), ..Default::default() }
    }

    #[test]
    fn node_and_edge_changes_are_exact() {
        let old = [n("a", "1"), n("b", "1"), n("c", "1")];
        let new = [n("a", "1"), n("b", "2"), n("d", "1")];
        let pairs = [OwnerPair {
            old_nodes: &old,
            old_edges: vec![("a", "calls", "b"), ("a", "calls", "c")],
            new_nodes: &new,
            new_edges: vec![("a", "calls", "b"), ("a", "calls", "d")],
        }];
        let items = changes(&pairs);
        let brief: Vec<String> = items
            .iter()
            .map(|i| format!("{} {} {}", i.kind, i.change, i.id.clone().or(i.target.clone()).unwrap()))
            .collect();
        assert_eq!(
            brief,
            ["edge added d", "edge removed c", "node added d", "node changed b", "node removed c"]
        );
        let header = Header {
            project_id: "p".into(),
            root: "/r".into(),
            index_file: (1, 2),
            from: None,
            to: Side {
                generation: 1,
                source_fingerprint: "f".into(),
                source_identity: None,
                graph_digest: "g".into(),
                nodes: 3,
                edges: 2,
            },
        };
        let r = build(header, items);
        assert_eq!((r.counts.nodes_added, r.counts.nodes_changed, r.counts.edges_removed), (1, 1, 1));
        assert_eq!(r.receipt_hash, r.compute_hash());
        assert_eq!(r.full_collection_hash, r.retained_collection_hash);
    }
}
