//! The version-1 primary-graph transition receipt, written beside the index at each
//! publication that changed the generation: exact node/edge change counts, the hash of the
//! complete change collection, up to 1,000 retained items (1 MiB), and the identities it
//! binds (project, root, adapter, index schema and file, from/to source and graph). Logic is
//! never part of it. Readers verify it without opening SQLite (see `docforge_mcp`).

use docforge_model::Node;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
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
    /// SHA-256 over every owner's node digest (all core node fields), in owner-key order;
    /// `None` when the publisher could not know it (the from-side of another process's
    /// generation without a receipt).
    pub node_hash: Option<String>,
    /// The same over every owner's edge digest (triple, location, attributes).
    pub edge_hash: Option<String>,
    pub nodes: u64,
    pub edges: u64,
}

/// Per-owner digests of node content and of edge content.
pub(crate) type OwnerHashes = std::collections::HashMap<std::sync::Arc<str>, ([u8; 32], [u8; 32])>;

pub(crate) fn owner_hashes(f: &docforge_model::Fragment) -> ([u8; 32], [u8; 32]) {
    let mut nodes = Sha256::new();
    for n in &f.nodes {
        nodes.update(serde_json::to_vec(n).expect("node serialises"));
        nodes.update(b"\n");
    }
    let mut edges = Sha256::new();
    for e in &f.edges {
        edges.update(serde_json::to_vec(e).expect("edge serialises"));
        edges.update(b"\n");
    }
    (nodes.finalize().into(), edges.finalize().into())
}

/// The generation's node and edge hashes from its owners' digests.
pub(crate) fn side_hashes(h: &OwnerHashes) -> (String, String) {
    let mut keys: Vec<&std::sync::Arc<str>> = h.keys().collect();
    keys.sort_unstable();
    let (mut nodes, mut edges) = (Sha256::new(), Sha256::new());
    for k in keys {
        let (n, e) = &h[k];
        for (hasher, digest) in [(&mut nodes, n), (&mut edges, e)] {
            hasher.update(k.as_bytes());
            hasher.update([0]);
            hasher.update(digest);
        }
    }
    (hex::encode(nodes.finalize()), hex::encode(edges.finalize()))
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

/// The complete change collection, summarised: exact counts, the hash of every item in
/// canonical order, and the first items within the retention limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChangeSummary {
    pub counts: Counts,
    pub full_collection_hash: String,
    pub retained: Vec<Item>,
    pub retained_bytes: usize,
}

/// One change, borrowed: `(kind, change, a, b, c)` where a node is `(id, "", "")` and an
/// edge `(source, relation, target)`. Sorting these tuples is the canonical item order.
type Row<'a> = (&'static str, &'static str, &'a str, &'a str, &'a str);

/// The exact change collection across changed owners (a node moving between owners is
/// compared by ID, an edge by triple), without materialising more than the retained items.
pub(crate) fn changes(pairs: &[OwnerPair<'_>]) -> ChangeSummary {
    use std::collections::{HashMap, HashSet};
    let mut old_nodes: HashMap<&str, &Node> = HashMap::new();
    let mut new_nodes: HashMap<&str, &Node> = HashMap::new();
    let mut old_edges = HashSet::new();
    let mut new_edges = HashSet::new();
    for p in pairs {
        old_nodes.extend(p.old_nodes.iter().map(|n| (n.id.as_str(), n)));
        new_nodes.extend(p.new_nodes.iter().map(|n| (n.id.as_str(), n)));
        old_edges.extend(p.old_edges.iter().copied());
        new_edges.extend(p.new_edges.iter().copied());
    }
    let mut rows: Vec<Row<'_>> = Vec::new();
    for (id, n) in &new_nodes {
        match old_nodes.get(id) {
            None => rows.push(("node", "added", id, "", "")),
            Some(o) if **o != **n => rows.push(("node", "changed", id, "", "")),
            Some(_) => {}
        }
    }
    rows.extend(
        old_nodes.keys().filter(|id| !new_nodes.contains_key(*id)).map(|id| ("node", "removed", *id, "", "")),
    );
    rows.extend(
        new_edges.iter().filter(|e| !old_edges.contains(*e)).map(|&(s, r, t)| ("edge", "added", s, r, t)),
    );
    rows.extend(
        old_edges.iter().filter(|e| !new_edges.contains(*e)).map(|&(s, r, t)| ("edge", "removed", s, r, t)),
    );
    rows.sort_unstable();
    let count =
        |kind: &str, change: &str| rows.iter().filter(|r| r.0 == kind && r.1 == change).count() as u64;
    let counts = Counts {
        nodes_added: count("node", "added"),
        nodes_removed: count("node", "removed"),
        nodes_changed: count("node", "changed"),
        edges_added: count("edge", "added"),
        edges_removed: count("edge", "removed"),
        items_total: rows.len() as u64,
    };
    let mut retained = Vec::new();
    let mut retained_bytes = 0usize;
    for r in &rows {
        let item = item(r);
        let size = serde_json::to_vec(&item).expect("item serialises").len() + 1;
        if retained.len() == MAX_RETAINED_ITEMS || retained_bytes + size > MAX_RETAINED_BYTES {
            break;
        }
        retained_bytes += size;
        retained.push(item);
    }
    ChangeSummary { counts, full_collection_hash: hash_rows(rows.iter().copied()), retained, retained_bytes }
}

fn item(r: &Row<'_>) -> Item {
    let some = |s: &str| Some(s.to_string());
    match r.0 {
        "node" => Item {
            kind: "node".into(),
            change: r.1.into(),
            id: some(r.2),
            source: None,
            relation: None,
            target: None,
        },
        _ => Item {
            kind: "edge".into(),
            change: r.1.into(),
            id: None,
            source: some(r.2),
            relation: some(r.3),
            target: some(r.4),
        },
    }
}

fn row(i: &Item) -> Row<'_> {
    let kind = if i.kind == "node" { "node" } else { "edge" };
    let change = match i.change.as_str() {
        "added" => "added",
        "removed" => "removed",
        _ => "changed",
    };
    fn s(o: &Option<String>) -> &str {
        o.as_deref().unwrap_or("")
    }
    match kind {
        "node" => (kind, change, s(&i.id), "", ""),
        _ => (kind, change, s(&i.source), s(&i.relation), s(&i.target)),
    }
}

/// SHA-256 over the rows in canonical order, one `kind NUL change NUL a NUL b NUL c LF` each.
fn hash_rows<'a>(rows: impl Iterator<Item = Row<'a>>) -> String {
    let mut h = Sha256::new();
    h.update(b"docforge.generation-diff.items.v1\0");
    for (kind, change, a, b, c) in rows {
        for part in [kind, change, a, b] {
            h.update(part.as_bytes());
            h.update([0u8]);
        }
        h.update(c.as_bytes());
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

pub(crate) fn build(header: Header, changes: ChangeSummary) -> Receipt {
    let ChangeSummary { counts, full_collection_hash, retained, retained_bytes: bytes } = changes;
    let omitted = counts.items_total - retained.len() as u64;
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
        retained_collection_hash: hash_rows(retained.iter().map(row)),
        retained: Retained {
            items: retained.len() as u64,
            bytes: bytes as u64,
            omitted,
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

/// The receipt beside `index_path` when it parses and its hash verifies.
pub(crate) fn read_verified(index_path: &Path) -> Option<Receipt> {
    let path = receipt_path(index_path);
    let m = std::fs::symlink_metadata(&path).ok()?;
    if !m.file_type().is_file() || m.len() > MAX_RECEIPT_FILE_BYTES {
        return None;
    }
    let r: Receipt = serde_json::from_slice(&std::fs::read(&path).ok()?).ok()?;
    (r.compute_hash() == r.receipt_hash).then_some(r)
}

/// Write atomically (temporary file, rename). Not fsynced, like the WAL commit it describes
/// (`synchronous = NORMAL`): after a crash a torn receipt fails its hash (`unverified`).
pub(crate) fn write(index_path: &Path, r: &Receipt) -> std::io::Result<()> {
    use std::io::Write;
    let path = receipt_path(index_path);
    let dir = path.parent().expect("receipt has a parent");
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(".{RECEIPT_FILE}.{}.tmp", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    f.write_all(&serde_json::to_vec(r).expect("receipt serialises"))?;
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
        let summary = changes(&pairs);
        let brief: Vec<String> = summary
            .retained
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
                node_hash: None,
                edge_hash: None,
                nodes: 3,
                edges: 2,
            },
        };
        let r = build(header, summary);
        assert_eq!((r.counts.nodes_added, r.counts.nodes_changed, r.counts.edges_removed), (1, 1, 1));
        assert_eq!(r.receipt_hash, r.compute_hash());
        assert_eq!(r.full_collection_hash, r.retained_collection_hash);
    }
}
