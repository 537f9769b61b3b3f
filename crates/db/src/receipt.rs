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
    let mut nodes = FieldHasher::new(b"docforge.receipt.nodes.v2\0");
    for node in &f.nodes {
        // Every field: a field added to `Node` does not compile here until it is hashed.
        let Node { id, kind, title, location, text, attrs } = node;
        for s in [id, kind, title] {
            nodes.str(s);
        }
        nodes.location(location);
        nodes.str(text);
        nodes.attrs(attrs);
    }
    let mut edges = FieldHasher::new(b"docforge.receipt.edges.v2\0");
    for edge in &f.edges {
        let docforge_model::Edge { source, relation, target, location, attrs } = edge;
        for s in [source, relation, target] {
            edges.str(s);
        }
        edges.location(location);
        edges.attrs(attrs);
    }
    (nodes.finish(), edges.finish())
}

/// SHA-256 over length-prefixed fields (little-endian lengths and numbers), buffered (a hash
/// update per field costs more than the hashing itself): a stable encoding, several times
/// cheaper than hashing each item's JSON.
struct FieldHasher {
    hash: Sha256,
    buf: Vec<u8>,
}

impl FieldHasher {
    fn new(domain: &[u8]) -> Self {
        let mut buf = Vec::with_capacity(1 << 16);
        buf.extend_from_slice(domain);
        FieldHasher { hash: Sha256::new(), buf }
    }

    fn bytes(&mut self, b: &[u8]) {
        if self.buf.len() + b.len() > 1 << 15 {
            self.hash.update(&self.buf);
            self.buf.clear();
        }
        self.buf.extend_from_slice(b);
    }

    fn str(&mut self, s: &str) {
        self.bytes(&(s.len() as u64).to_le_bytes());
        self.bytes(s.as_bytes());
    }

    fn location(&mut self, l: &Option<docforge_model::Location>) {
        match l {
            None => self.bytes(&[0]),
            Some(docforge_model::Location { path, line, column }) => {
                self.bytes(&[1]);
                self.str(path);
                self.bytes(&line.to_le_bytes());
                self.bytes(&column.to_le_bytes());
            }
        }
    }

    fn attrs(&mut self, attrs: &docforge_model::Attrs) {
        self.bytes(&(attrs.len() as u64).to_le_bytes());
        for (k, v) in attrs {
            self.str(k);
            self.str(v);
        }
    }

    fn finish(mut self) -> [u8; 32] {
        self.hash.update(&self.buf);
        self.hash.finalize().into()
    }
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
    /// (device, inode) of the receipt file itself, as written: a copy of it has another.
    #[serde(default)]
    pub receipt_file: (u64, u64),
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
        canonical_hash(&mut self.clone(), |r| &mut r.receipt_hash)
    }
}

/// The hash a receipt carries: SHA-256 of its canonical JSON with its own hash field (`slot`)
/// empty. The field is emptied for the hash and put back (nothing is copied).
pub fn canonical_hash<R: Serialize>(receipt: &mut R, slot: impl Fn(&mut R) -> &mut String) -> String {
    let kept = std::mem::take(slot(receipt));
    let hash = hex::encode(Sha256::digest(serde_json::to_vec(receipt).expect("receipt serialises")));
    *slot(receipt) = kept;
    hash
}

/// The contents one owner had before and has after (either may be absent).
pub(crate) struct OwnerPair<'a> {
    pub old_nodes: &'a [Node],
    pub old_edges: Edges<'a>,
    pub new_nodes: &'a [Node],
    pub new_edges: Edges<'a>,
}

/// An owner's edges as the graph holds them or as the index stored their identities.
#[derive(Clone, Copy)]
pub(crate) enum Edges<'a> {
    Graph(&'a [docforge_model::Edge]),
    Stored(&'a [(String, String, String)]),
}

impl<'a> Edges<'a> {
    pub(crate) const NONE: Edges<'static> = Edges::Graph(&[]);

    fn len(self) -> usize {
        match self {
            Edges::Graph(e) => e.len(),
            Edges::Stored(e) => e.len(),
        }
    }

    fn push_to(self, out: &mut Vec<Triple<'a>>) {
        match self {
            Edges::Graph(e) => out.extend(e.iter().map(|e| (&*e.source, &*e.relation, &*e.target))),
            Edges::Stored(e) => out.extend(e.iter().map(|(s, r, t)| (&**s, &**r, &**t))),
        }
    }
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

type Triple<'a> = (&'a str, &'a str, &'a str);

/// The exact change collection across changed owners (a node moving between owners is
/// compared by ID, an edge by triple), without materialising more than the retained items.
///
/// Both sides are sorted and merged, once per kind of change, in the canonical item order
/// (`edge` before `node`; `added`, `changed`, `removed`): a cold publication compares
/// ~400k items, and neither hash tables nor a list of all rows are built.
pub(crate) fn changes(pairs: &[OwnerPair<'_>]) -> ChangeSummary {
    let old_nodes = last_by_id(pairs.iter().flat_map(|p| p.old_nodes));
    let new_nodes = last_by_id(pairs.iter().flat_map(|p| p.new_nodes));
    let old_edges = sorted_set(pairs.iter().map(|p| p.old_edges));
    let new_edges = sorted_set(pairs.iter().map(|p| p.new_edges));
    let mut out = Collector::new();
    let edges_added = out.pass(
        &old_edges,
        &new_edges,
        |e| *e,
        |o, n| match (o, n) {
            (None, Some(&(s, r, t))) => Some(("edge", "added", s, r, t)),
            _ => None,
        },
    );
    let edges_removed = out.pass(
        &old_edges,
        &new_edges,
        |e| *e,
        |o, n| match (o, n) {
            (Some(&(s, r, t)), None) => Some(("edge", "removed", s, r, t)),
            _ => None,
        },
    );
    fn id<'a>(n: &&'a Node) -> &'a str {
        &n.id
    }
    let nodes_added = out.pass(&old_nodes, &new_nodes, id, |o, n| match (o, n) {
        (None, Some(n)) => Some(("node", "added", &n.id, "", "")),
        _ => None,
    });
    let nodes_changed = out.pass(&old_nodes, &new_nodes, id, |o, n| match (o, n) {
        (Some(o), Some(n)) if o != n => Some(("node", "changed", &n.id, "", "")),
        _ => None,
    });
    let nodes_removed = out.pass(&old_nodes, &new_nodes, id, |o, n| match (o, n) {
        (Some(o), None) => Some(("node", "removed", &o.id, "", "")),
        _ => None,
    });
    let counts = Counts {
        nodes_added,
        nodes_removed,
        nodes_changed,
        edges_added,
        edges_removed,
        items_total: nodes_added + nodes_removed + nodes_changed + edges_added + edges_removed,
    };
    ChangeSummary {
        counts,
        full_collection_hash: out.hash.finish(),
        retained: out.retained,
        retained_bytes: out.retained_bytes,
    }
}

/// The nodes sorted by ID; of several with one ID the last wins (as in a map).
fn last_by_id<'a>(nodes: impl Iterator<Item = &'a Node>) -> Vec<&'a Node> {
    let nodes: Vec<&Node> = nodes.collect();
    // Sorted as (ID, position) pairs: a comparison reads the ID without going through the
    // node first.
    let mut keyed: Vec<(&str, usize)> = nodes.iter().enumerate().map(|(i, n)| (n.id.as_str(), i)).collect();
    keyed.sort_unstable_by(|a, b| a.0.cmp(b.0).then(b.1.cmp(&a.1))); // the last one first
    keyed.dedup_by(|later, first| later.0 == first.0);
    keyed.into_iter().map(|(_, i)| nodes[i]).collect()
}

fn sorted_set<'a>(lists: impl Iterator<Item = Edges<'a>> + Clone) -> Vec<Triple<'a>> {
    let mut v = Vec::with_capacity(lists.clone().map(Edges::len).sum());
    for list in lists {
        list.push_to(&mut v);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Hashes every row it is given and keeps the first ones within the retention limits.
struct Collector {
    hash: RowHasher,
    retained: Vec<Item>,
    retained_bytes: usize,
    retaining: bool,
}

impl Collector {
    fn new() -> Self {
        Collector { hash: RowHasher::new(), retained: Vec::new(), retained_bytes: 0, retaining: true }
    }

    /// Merge two sorted, duplicate-free lists by key and collect the row `row` makes of each
    /// pair (what each side has); returns how many rows it collected.
    fn pass<'a, T, K: Ord>(
        &mut self,
        old: &'a [T],
        new: &'a [T],
        key: impl Fn(&T) -> K,
        row: impl Fn(Option<&'a T>, Option<&'a T>) -> Option<Row<'a>>,
    ) -> u64 {
        let (mut i, mut j, mut n) = (0, 0, 0);
        while i < old.len() || j < new.len() {
            let (o, nw) = match (old.get(i), new.get(j)) {
                (Some(o), Some(nw)) => match key(o).cmp(&key(nw)) {
                    std::cmp::Ordering::Less => (Some(o), None),
                    std::cmp::Ordering::Greater => (None, Some(nw)),
                    std::cmp::Ordering::Equal => (Some(o), Some(nw)),
                },
                (o, nw) => (o, nw),
            };
            i += o.is_some() as usize;
            j += nw.is_some() as usize;
            if let Some(r) = row(o, nw) {
                self.push(r);
                n += 1;
            }
        }
        n
    }

    fn push(&mut self, r: Row<'_>) {
        self.hash.push(r);
        if self.retaining {
            let item = item(&r);
            let size = serde_json::to_vec(&item).expect("item serialises").len() + 1;
            if self.retained.len() == MAX_RETAINED_ITEMS || self.retained_bytes + size > MAX_RETAINED_BYTES {
                self.retaining = false;
            } else {
                self.retained_bytes += size;
                self.retained.push(item);
            }
        }
    }
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
    let mut h = RowHasher::new();
    rows.for_each(|r| h.push(r));
    h.finish()
}

/// [`hash_rows`] one row at a time, through the same buffered hash as the owner digests.
struct RowHasher(FieldHasher);

impl RowHasher {
    fn new() -> Self {
        RowHasher(FieldHasher::new(b"docforge.generation-diff.items.v1\0"))
    }

    fn push(&mut self, (kind, change, a, b, c): Row<'_>) {
        for part in [kind, change, a, b] {
            self.0.bytes(part.as_bytes());
            self.0.bytes(&[0]);
        }
        self.0.bytes(c.as_bytes());
        self.0.bytes(b"\n");
    }

    fn finish(self) -> String {
        hex::encode(self.0.finish())
    }
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
        receipt_file: (0, 0),
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
    r.receipt_hash = canonical_hash(&mut r, |r| &mut r.receipt_hash);
    r
}

/// Where the receipt of the index at `index_path` lives: `receipts/generation-diff.v1.json`
/// for the project's `index.sqlite`; the index of a restricted binding (`index.TAG.sqlite`)
/// has its own, `receipts/generation-diff.TAG.v1.json`.
pub fn receipt_path(index_path: &Path) -> PathBuf {
    index_path.parent().unwrap_or(Path::new(".")).join(RECEIPT_DIR).join(receipt_file(index_path))
}

fn receipt_file(index_path: &Path) -> String {
    let name = index_path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    match name.strip_prefix("index.").and_then(|r| r.strip_suffix(".sqlite")) {
        Some(tag) if !tag.is_empty() => format!("generation-diff.{tag}.v1.json"),
        _ => RECEIPT_FILE.to_string(),
    }
}

/// The receipt beside `index_path` when it parses and its hash verifies.
pub(crate) fn read_verified(index_path: &Path) -> Option<Receipt> {
    let path = receipt_path(index_path);
    let m = std::fs::symlink_metadata(&path).ok()?;
    if !m.file_type().is_file() || m.len() > MAX_RECEIPT_FILE_BYTES {
        return None;
    }
    let bytes = docforge_project::read_regular_file(&path, MAX_RECEIPT_FILE_BYTES).ok()?;
    let mut r: Receipt = serde_json::from_slice(&bytes).ok()?;
    (canonical_hash(&mut r, |r| &mut r.receipt_hash) == r.receipt_hash).then_some(r)
}

/// Write atomically through the project writer (temporary file, rename), beneath the index's
/// directory and through no symlink. Not fsynced, like the WAL commit it describes
/// (`synchronous = NORMAL`): after a crash a torn receipt fails its hash (`unverified`).
/// Write `r` as the receipt of `index_path`, stating the (device, inode) the file gets.
pub(crate) fn write(index_path: &Path, mut r: Receipt) -> Result<(), docforge_project::WriteError> {
    let dir = index_path.parent().unwrap_or(Path::new("."));
    docforge_project::ProjectWriter::new(dir)
        .write_bound(
            &format!("{RECEIPT_DIR}/{}", receipt_file(index_path)),
            docforge_project::Durability::Atomic,
            |identity| {
                r.receipt_file = identity;
                r.receipt_hash = r.compute_hash();
                serde_json::to_vec(&r).expect("receipt serialises")
            },
        )
        .map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_index_file_has_its_own_receipt() {
        let cases = [
            ("/p/.docforge/index.sqlite", "/p/.docforge/receipts/generation-diff.v1.json"),
            ("/p/.docforge/index.no-ast.sqlite", "/p/.docforge/receipts/generation-diff.no-ast.v1.json"),
            ("/p/.docforge/index.ast.sqlite", "/p/.docforge/receipts/generation-diff.ast.v1.json"),
            ("/tmp/other.sqlite", "/tmp/receipts/generation-diff.v1.json"),
        ];
        for (index, receipt) in cases {
            assert_eq!(receipt_path(Path::new(index)), Path::new(receipt), "{index}");
        }
    }

    fn n(id: &str, text: &str) -> Node {
        Node { id: id.into(), kind: "k".into(), text: text.into(), ..Default::default() }
    }

    fn e(s: &str, r: &str, t: &str) -> docforge_model::Edge {
        docforge_model::Edge::new(s, r, t)
    }

    /// The definition `changes` implements: maps by node ID (the last wins) and sets of edge
    /// triples across all pairs, every row sorted into one list.
    fn changes_by_maps(pairs: &[OwnerPair<'_>]) -> ChangeSummary {
        use std::collections::{BTreeMap, BTreeSet};
        let (mut old_nodes, mut new_nodes) = (BTreeMap::new(), BTreeMap::new());
        let (mut old_edges, mut new_edges) = (BTreeSet::new(), BTreeSet::new());
        for p in pairs {
            old_nodes.extend(p.old_nodes.iter().map(|n| (n.id.as_str(), n)));
            new_nodes.extend(p.new_nodes.iter().map(|n| (n.id.as_str(), n)));
            for (list, set) in [(p.old_edges, &mut old_edges), (p.new_edges, &mut new_edges)] {
                let mut v = Vec::new();
                list.push_to(&mut v);
                set.extend(v);
            }
        }
        let mut rows: Vec<Row<'_>> = Vec::new();
        for (id, n) in &new_nodes {
            match old_nodes.get(id) {
                None => rows.push(("node", "added", id, "", "")),
                Some(o) if o != n => rows.push(("node", "changed", id, "", "")),
                Some(_) => {}
            }
        }
        rows.extend(
            old_nodes
                .keys()
                .filter(|id| !new_nodes.contains_key(*id))
                .map(|id| ("node", "removed", *id, "", "")),
        );
        rows.extend(new_edges.difference(&old_edges).map(|&(s, r, t)| ("edge", "added", s, r, t)));
        rows.extend(old_edges.difference(&new_edges).map(|&(s, r, t)| ("edge", "removed", s, r, t)));
        rows.sort_unstable();
        let count = |k: &str, c: &str| rows.iter().filter(|r| r.0 == k && r.1 == c).count() as u64;
        let mut retained = Vec::new();
        let mut retained_bytes = 0;
        for r in &rows {
            let item = item(r);
            let size = serde_json::to_vec(&item).unwrap().len() + 1;
            if retained.len() == MAX_RETAINED_ITEMS || retained_bytes + size > MAX_RETAINED_BYTES {
                break;
            }
            retained_bytes += size;
            retained.push(item);
        }
        ChangeSummary {
            counts: Counts {
                nodes_added: count("node", "added"),
                nodes_removed: count("node", "removed"),
                nodes_changed: count("node", "changed"),
                edges_added: count("edge", "added"),
                edges_removed: count("edge", "removed"),
                items_total: rows.len() as u64,
            },
            full_collection_hash: hash_rows(rows.iter().copied()),
            retained,
            retained_bytes,
        }
    }

    /// Owners with overlapping IDs and triples (nodes moving between owners, duplicates
    /// inside one owner, stored and graph edge lists), small and past the retention limits.
    #[test]
    fn merged_changes_equal_the_map_definition() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % m
        };
        for (owners, per_owner, ids) in [(1, 3, 4), (4, 8, 10), (30, 60, 500), (60, 120, 4000)] {
            type Stored = Vec<(String, String, String)>;
            let mut olds: Vec<(Vec<Node>, Stored)> = Vec::new();
            let mut news: Vec<(Vec<Node>, Vec<docforge_model::Edge>)> = Vec::new();
            for _ in 0..owners {
                let node =
                    |next: &mut dyn FnMut(u64) -> u64| n(&format!("id{}", next(ids)), &next(3).to_string());
                let old_nodes: Vec<Node> = (0..per_owner).map(|_| node(&mut next)).collect();
                let new_nodes: Vec<Node> = (0..per_owner).map(|_| node(&mut next)).collect();
                let triple = |next: &mut dyn FnMut(u64) -> u64| {
                    (
                        format!("id{}", next(ids)),
                        ["calls", "contains"][next(2) as usize].to_string(),
                        format!("id{}", next(ids)),
                    )
                };
                let old_edges: Vec<_> = (0..per_owner).map(|_| triple(&mut next)).collect();
                let new_edges: Vec<_> =
                    (0..per_owner).map(|_| triple(&mut next)).map(|(s, r, t)| e(&s, &r, &t)).collect();
                olds.push((old_nodes, old_edges));
                news.push((new_nodes, new_edges));
            }
            let pairs: Vec<OwnerPair<'_>> = olds
                .iter()
                .zip(&news)
                .map(|(o, nw)| OwnerPair {
                    old_nodes: &o.0,
                    old_edges: Edges::Stored(&o.1),
                    new_nodes: &nw.0,
                    new_edges: Edges::Graph(&nw.1),
                })
                .collect();
            let got = changes(&pairs);
            assert_eq!(got, changes_by_maps(&pairs), "{owners} owners × {per_owner}");
            assert!(got.counts.items_total > 0);
        }
    }

    #[test]
    fn node_and_edge_changes_are_exact() {
        let old = [n("a", "1"), n("b", "1"), n("c", "1")];
        let new = [n("a", "1"), n("b", "2"), n("d", "1")];
        let old_edges = [e("a", "calls", "b"), e("a", "calls", "c")];
        let new_edges = [e("a", "calls", "b"), e("a", "calls", "d")];
        let pairs = [OwnerPair {
            old_nodes: &old,
            old_edges: Edges::Graph(&old_edges),
            new_nodes: &new,
            new_edges: Edges::Graph(&new_edges),
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

    /// The per-owner node hash covers every node field and the edge hash every edge field;
    /// each is order-sensitive and unmoved by a change to the other kind.
    #[test]
    fn owner_hashes_cover_every_field() {
        use docforge_model::{Edge, Fragment, Location};
        let node = Node {
            id: "go:m::F".into(),
            kind: "func".into(),
            title: "F".into(),
            location: Some(Location::new("a.go", 3, 1)),
            text: "func F()".into(),
            attrs: Default::default(),
        };
        let edge = Edge::new("go:m::F", "calls", "go:m::G").at(Location::new("a.go", 4, 2));
        let base = Fragment {
            nodes: vec![node.clone(), n("go:m::G", "")],
            edges: vec![edge.clone(), e("a", "b", "c")],
            ..Default::default()
        };
        let (bn, be) = owner_hashes(&base);
        assert_eq!(owner_hashes(&base.clone()), (bn, be));
        type Change = Box<dyn Fn(&mut Fragment)>;
        let node_changes: Vec<(&str, Change)> = vec![
            ("id", Box::new(|f| f.nodes[0].id.push('x'))),
            ("kind", Box::new(|f| f.nodes[0].kind = "method".into())),
            ("title", Box::new(|f| f.nodes[0].title.push('x'))),
            ("location none", Box::new(|f| f.nodes[0].location = None)),
            ("location path", Box::new(|f| f.nodes[0].location = Some(Location::new("b.go", 3, 1)))),
            ("location line", Box::new(|f| f.nodes[0].location = Some(Location::new("a.go", 4, 1)))),
            ("location column", Box::new(|f| f.nodes[0].location = Some(Location::new("a.go", 3, 2)))),
            ("text", Box::new(|f| f.nodes[0].text.push('x'))),
            (
                "attrs",
                Box::new(|f| {
                    f.nodes[0].attrs.insert("k".into(), "v".into());
                }),
            ),
            (
                "field boundary",
                Box::new(|f| {
                    f.nodes[0].id = "go:m::".into();
                    f.nodes[0].kind = "Ffunc".into();
                }),
            ),
            ("order", Box::new(|f| f.nodes.swap(0, 1))),
        ];
        for (what, change) in &node_changes {
            let mut f = base.clone();
            change(&mut f);
            let (nn, ne) = owner_hashes(&f);
            assert!(nn != bn && ne == be, "node {what}");
        }
        let edge_changes: Vec<(&str, Change)> = vec![
            ("source", Box::new(|f| f.edges[0].source.push('x'))),
            ("relation", Box::new(|f| f.edges[0].relation = "uses".into())),
            ("target", Box::new(|f| f.edges[0].target.push('x'))),
            ("location", Box::new(|f| f.edges[0].location = None)),
            ("attrs", Box::new(|f| f.edges[0] = f.edges[0].clone().with_attr("via", "x"))),
            ("order", Box::new(|f| f.edges.swap(0, 1))),
        ];
        for (what, change) in &edge_changes {
            let mut f = base.clone();
            change(&mut f);
            let (nn, ne) = owner_hashes(&f);
            assert!(nn == bn && ne != be, "edge {what}");
        }
    }
}
