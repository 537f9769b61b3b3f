//! `.gograph/graph.index`: the records of `graph.json` in a binary form that is searched in
//! place, bound to that `graph.json` both ways: `graph.json` names the SHA-256 of the index's
//! bytes (`index_sha256`), and the index's header holds the SHA-256 of those `graph.json`
//! bytes with that one field's digits read as zeros.
//!
//! Strictly decoding the standard library's 41.6 MB `graph.json` took a validation 140 ms —
//! more than reading and hashing every Go file it checks — and freeing its records took 8 ms
//! more. `gograph build` therefore writes this index beside the graph (before it), and a
//! validation evaluates the index's records only when `graph.json` — the artifact whose
//! SHA-256 the result reports as `graph_fingerprint` — names this index's exact bytes: its
//! first bytes are `{"schema_version":…,"source_policy_version":…,"index_sha256":"<hex>"`,
//! that digest is the SHA-256 of the index read, and the index was written for exactly these
//! graph bytes. So neither file can be replaced or edited alone: a forged or foreign index
//! is ignored, and so is the genuine index beside an edited `graph.json` (whose own records
//! then decide). Making the two disagree takes forging both consistently, which is forging
//! `graph.json` (the artifact the fingerprint identifies) with extra steps. Every check a decoded
//! `graph.json` gets (version markers, digests, recorded fingerprints) is made on the
//! index's snapshot too, and the whole index is checked for consistency before it is used.
//! A missing, foreign, damaged or unnamed index is ignored and `graph.json` itself is
//! decoded, so the index can only make a validation faster, never change its result.
//!
//! Layout (integers little-endian u32 unless said): the magic `GGINDEX3`, the graph digest
//! (32 bytes), the body's length (u64) and CRC-32 (against damage), then the body:
//! - the snapshot without its records (and without `index_sha256`), as JSON (its length
//!   first);
//! - the string table: a count, each string's end offset, the length of their UTF-8 bytes
//!   and the bytes (each distinct string once);
//! - the attribute table: a count of pairs, then (key, value) string indices;
//! - the nodes: a count, then 7 words each — id, kind, location path (`u32::MAX`: no
//!   location), line, column, first attribute pair, attribute count — in ID order;
//! - the edges: a count, then 8 words each — source, relation, target, then as for nodes —
//!   in (source, relation, target) order.
//!
//! Records with equal keys keep the snapshot's order (the sorts are stable), so lookups
//! answer exactly as over the decoded snapshot.

use crate::records::{Attrs, SnapEdge, SnapLocation, SnapNode};
use crate::snapshot::{Snapshot, SnapshotError};
use std::borrow::Cow;
use std::collections::HashMap;

pub const INDEX_FILE: &str = "graph.index";
const MAGIC: &[u8; 8] = b"GGINDEX3";
const HEADER: usize = 8 + 32 + 8 + 4;
const NODE_WORDS: usize = 7;
const EDGE_WORDS: usize = 8;
/// Marks an absent location.
const NONE: u32 = u32::MAX;

/// Why an index was not used (the caller decodes `graph.json` instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexError(pub String);

fn bad(why: impl Into<String>) -> IndexError {
    IndexError(why.into())
}

/// The index of `snapshot`, for the `graph.json` whose [`graph_digest_for_index`] is
/// `graph_digest` (hex); that graph then names the index's SHA-256.
pub fn encode(snapshot: &Snapshot, graph_digest: &str) -> Vec<u8> {
    encode_records(snapshot, graph_digest, true)
}

/// [`encode`]; `sorted: false` keeps the snapshot's record order (tests of the checks).
fn encode_records(snapshot: &Snapshot, graph_digest: &str, sorted: bool) -> Vec<u8> {
    let head = Snapshot { nodes: Vec::new(), edges: Vec::new(), index_sha256: None, ..snapshot.clone() };
    let head = serde_json::to_vec(&head).expect("the snapshot serialises");
    let mut t = Tables::default();
    let mut nodes: Vec<&SnapNode> = snapshot.nodes.iter().collect();
    let mut edges: Vec<&SnapEdge> = snapshot.edges.iter().collect();
    if sorted {
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        edges.sort_by(|a, b| (&a.source, &a.relation, &a.target).cmp(&(&b.source, &b.relation, &b.target)));
    }
    let mut node_words = Vec::with_capacity(NODE_WORDS * nodes.len());
    for n in nodes {
        node_words.extend([t.id(&n.id), t.id(&n.kind)]);
        t.rest(&mut node_words, n.location.as_ref(), &n.attrs);
    }
    let mut edge_words = Vec::with_capacity(EDGE_WORDS * edges.len());
    for e in edges {
        edge_words.extend([t.id(&e.source), t.id(&e.relation), t.id(&e.target)]);
        t.rest(&mut edge_words, e.location.as_ref(), &e.attrs);
    }
    let mut body = Vec::new();
    put(&mut body, head.len());
    body.extend_from_slice(&head);
    put(&mut body, t.ends.len());
    t.ends.iter().for_each(|w| put(&mut body, *w));
    put(&mut body, t.blob.len());
    body.extend_from_slice(t.blob.as_bytes());
    put(&mut body, t.attrs.len() / 2);
    t.attrs.iter().for_each(|w| put(&mut body, *w));
    put(&mut body, node_words.len() / NODE_WORDS);
    node_words.iter().for_each(|w| put(&mut body, *w));
    put(&mut body, edge_words.len() / EDGE_WORDS);
    edge_words.iter().for_each(|w| put(&mut body, *w));
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&hex::decode(graph_digest).expect("a hex digest"));
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&body).to_le_bytes());
    out.extend_from_slice(&body);
    out
}

fn put(out: &mut Vec<u8>, n: impl TryInto<u32>) {
    let n: u32 = n.try_into().ok().expect("fewer than 2^32 items");
    out.extend_from_slice(&n.to_le_bytes());
}

/// The string and attribute tables being written.
#[derive(Default)]
struct Tables<'s> {
    ids: HashMap<&'s str, u32>,
    blob: String,
    /// The end offset of each string in `blob`.
    ends: Vec<u32>,
    /// Attribute pairs, flattened.
    attrs: Vec<u32>,
}

impl<'s> Tables<'s> {
    fn id(&mut self, s: &'s str) -> u32 {
        if let Some(id) = self.ids.get(s) {
            return *id;
        }
        let id = u32::try_from(self.ends.len()).ok().filter(|id| *id != NONE).expect("fewer strings");
        self.blob.push_str(s);
        self.ends.push(u32::try_from(self.blob.len()).expect("a string table under 4 GiB"));
        self.ids.insert(s, id);
        id
    }

    /// The location and attribute words of a record.
    fn rest(&mut self, out: &mut Vec<u32>, l: Option<&'s SnapLocation>, attrs: &'s Attrs) {
        match l {
            None => out.extend([NONE, 0, 0]),
            Some(l) => out.extend([self.id(&l.path), l.line, l.column]),
        }
        let first = u32::try_from(self.attrs.len() / 2).expect("fewer attributes");
        for (k, v) in attrs.iter() {
            let pair = [self.id(k), self.id(v)];
            self.attrs.extend(pair);
        }
        out.extend([first, u32::try_from(self.attrs.len() / 2).expect("fewer attributes") - first]);
    }
}

/// The index digest a `graph.json` names, read from its first bytes exactly as `gograph
/// build` writes them (`{"schema_version":"…","source_policy_version":N,"index_sha256":"<64
/// hex>"`); `None` for any other beginning (the graph is then decoded).
#[cfg(test)]
pub fn named_index(graph_head: &[u8]) -> Option<&str> {
    named_index_at(graph_head).map(|at| std::str::from_utf8(&graph_head[at..at + 64]).expect("hex digits"))
}

/// Where the 64 hex digits of [`named_index`] start in the graph's bytes.
pub fn named_index_at(graph_head: &[u8]) -> Option<usize> {
    let rest = graph_head.strip_prefix(b"{\"schema_version\":\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    let rest = rest[end..].strip_prefix(b"\",\"source_policy_version\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = rest[digits..].strip_prefix(b",\"index_sha256\":\"")?;
    let hex = rest.get(..64)?;
    let ok = digits > 0
        && rest.get(64) == Some(&b'"')
        && hex.iter().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    ok.then(|| graph_head.len() - rest.len())
}

/// The digest an index is written for: the SHA-256 of its `graph.json`'s bytes with the 64
/// hex digits naming the index (at `at`, [`named_index_at`]) read as `0`s — the graph's
/// exact bytes but for the one field that cannot name itself.
pub fn graph_digest_for_index(graph: &[u8], at: usize) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(&graph[..at]);
    h.update([b'0'; 64]);
    h.update(&graph[at + 64..]);
    hex::encode(h.finalize())
}

/// The graph digest ([`graph_digest_for_index`]) an index was written for, from its header.
pub fn graph_digest(index: &[u8]) -> Result<String, IndexError> {
    check_magic(index)?;
    Ok(hex::encode(&index[8..40]))
}

/// How many first bytes of `graph.json` [`named_index`] may need.
pub const GRAPH_HEAD_BYTES: usize = 256;

fn check_magic(index: &[u8]) -> Result<(), IndexError> {
    if index.len() < HEADER || &index[..8] != MAGIC {
        return Err(bad("not a graph index of this version"));
    }
    Ok(())
}

/// Open an index: its snapshot without records, and its checked records. `Err(IndexError)`:
/// not usable (ignore it); `Ok(Err(SnapshotError))`: the snapshot it holds fails the checks
/// a decoded `graph.json` gets (reported as such).
pub fn decode(index: &[u8]) -> Result<Result<(Snapshot<'_>, IndexRecords<'_>), SnapshotError>, IndexError> {
    check_magic(index)?;
    let len = u64::from_le_bytes(index[40..48].try_into().expect("8 bytes"));
    let crc = u32::from_le_bytes(index[48..52].try_into().expect("4 bytes"));
    let body = &index[HEADER..];
    if body.len() as u64 != len {
        return Err(bad(format!("the index body has {} bytes, its header says {len}", body.len())));
    }
    if crc32fast::hash(body) != crc {
        return Err(bad("the index body is damaged (CRC mismatch)"));
    }
    let mut r = Cursor(body);
    let head = r.bytes(1)?;
    let snap: Snapshot = serde_json::from_slice(head).map_err(|e| bad(format!("index head: {e}")))?;
    if !snap.nodes.is_empty() || !snap.edges.is_empty() {
        return Err(bad("index head has records"));
    }
    let ends = r.words(1)?;
    let blob = std::str::from_utf8(r.bytes(1)?).map_err(|_| bad("the string table is not UTF-8"))?;
    let records = IndexRecords {
        ends,
        blob,
        attrs: r.words(2)?,
        nodes: r.words(NODE_WORDS)?,
        edges: r.words(EDGE_WORDS)?,
    };
    if !r.0.is_empty() {
        return Err(bad("trailing bytes after the index records"));
    }
    records.check()?;
    Ok(snap.checked().map(|snap| (snap, records)))
}

/// Reads the body's sections.
struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], IndexError> {
        if self.0.len() < n {
            return Err(bad("the index ends inside a table"));
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }
    /// A count, then that many items of `size` bytes.
    fn bytes(&mut self, size: usize) -> Result<&'a [u8], IndexError> {
        let n = u32::from_le_bytes(self.take(4)?.try_into().expect("4 bytes")) as usize;
        self.take(n.checked_mul(size).ok_or_else(|| bad("a table is too large"))?)
    }
    /// A count, then that many items of `words` words.
    fn words(&mut self, words: usize) -> Result<&'a [u8], IndexError> {
        self.bytes(4 * words)
    }
}

fn word(table: &[u8], i: usize) -> u32 {
    u32::from_le_bytes(table[4 * i..4 * i + 4].try_into().expect("4 bytes"))
}

/// The records of an index, searched in place. Built only by [`decode`], which checks every
/// string index, attribute range and order first (so no access can fail).
#[derive(Clone, Copy, Debug)]
pub struct IndexRecords<'a> {
    ends: &'a [u8],
    blob: &'a str,
    attrs: &'a [u8],
    nodes: &'a [u8],
    edges: &'a [u8],
}

impl<'a> IndexRecords<'a> {
    fn string(&self, id: u32) -> &'a str {
        let id = id as usize;
        let start = if id == 0 { 0 } else { word(self.ends, id - 1) as usize };
        &self.blob[start..word(self.ends, id) as usize]
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len() / (4 * NODE_WORDS)
    }

    pub fn edge_count(&self) -> usize {
        self.edges.len() / (4 * EDGE_WORDS)
    }

    pub fn node_id(&self, i: usize) -> &'a str {
        self.string(word(self.nodes, NODE_WORDS * i))
    }

    pub fn edge_key(&self, i: usize) -> (&'a str, &'a str, &'a str) {
        let w = |k| self.string(word(self.edges, EDGE_WORDS * i + k));
        (w(0), w(1), w(2))
    }

    pub fn node(&self, i: usize) -> SnapNode<'a> {
        let w = |k| word(self.nodes, NODE_WORDS * i + k);
        let (location, attrs) = self.rest([w(2), w(3), w(4), w(5), w(6)]);
        SnapNode {
            id: Cow::Borrowed(self.string(w(0))),
            kind: Cow::Borrowed(self.string(w(1))),
            location,
            attrs,
        }
    }

    pub fn edge(&self, i: usize) -> SnapEdge<'a> {
        let w = |k| word(self.edges, EDGE_WORDS * i + k);
        let (location, attrs) = self.rest([w(3), w(4), w(5), w(6), w(7)]);
        let (source, relation, target) = self.edge_key(i);
        SnapEdge {
            source: Cow::Borrowed(source),
            relation: Cow::Borrowed(relation),
            target: Cow::Borrowed(target),
            location,
            attrs,
        }
    }

    /// A record's location and attributes from its last five words.
    fn rest(&self, [path, line, column, first, count]: [u32; 5]) -> (Option<SnapLocation<'a>>, Attrs<'a>) {
        let location =
            (path != NONE).then(|| SnapLocation { path: Cow::Borrowed(self.string(path)), line, column });
        let pairs = (first..first + count)
            .map(|p| {
                let (k, v) = (word(self.attrs, 2 * p as usize), word(self.attrs, 2 * p as usize + 1));
                (Cow::Borrowed(self.string(k)), Cow::Borrowed(self.string(v)))
            })
            .collect();
        (location, Attrs::from_sorted(pairs).expect("checked when the index was opened"))
    }

    /// Every string boundary, string index and attribute range in bounds, attribute keys
    /// ascending, records in key order.
    fn check(&self) -> Result<(), IndexError> {
        let strings = self.ends.len() / 4;
        let mut start = 0;
        for i in 0..strings {
            let end = word(self.ends, i) as usize;
            if end < start || end > self.blob.len() || !self.blob.is_char_boundary(end) {
                return Err(bad("a string table offset is out of place"));
            }
            start = end;
        }
        if start != self.blob.len() {
            return Err(bad("the string table has unreferenced bytes"));
        }
        let string = |id: u32| {
            ((id as usize) < strings)
                .then_some(())
                .ok_or_else(|| bad(format!("string {id} is not in the table")))
        };
        let pairs = self.attrs.len() / 8;
        for i in 0..2 * pairs {
            string(word(self.attrs, i))?;
        }
        let record = |table: &[u8], words: usize, i: usize, keys: usize| -> Result<(), IndexError> {
            let w = |k| word(table, words * i + k);
            for k in 0..keys {
                string(w(k))?;
            }
            if w(keys) != NONE {
                string(w(keys))?;
            }
            let (first, count) = (w(words - 2) as usize, w(words - 1) as usize);
            if first.checked_add(count).is_none_or(|end| end > pairs) {
                return Err(bad("an attribute range is out of the table"));
            }
            let key = |p: usize| self.string(word(self.attrs, 2 * p));
            if (first + 1..first + count).any(|p| key(p - 1) >= key(p)) {
                return Err(bad("attribute keys are not unique and ascending"));
            }
            Ok(())
        };
        for i in 0..self.node_count() {
            record(self.nodes, NODE_WORDS, i, 2)?;
        }
        for i in 0..self.edge_count() {
            record(self.edges, EDGE_WORDS, i, 3)?;
        }
        let nodes_sorted = (1..self.node_count()).all(|i| self.node_id(i - 1) <= self.node_id(i));
        let edges_sorted = (1..self.edge_count()).all(|i| self.edge_key(i - 1) <= self.edge_key(i));
        if !nodes_sorted || !edges_sorted {
            return Err(bad("the index records are out of order"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_graph_names_its_index_only_in_the_form_gograph_build_writes() {
        let mut snap = sample();
        let index = encode(&snap, &"0".repeat(64));
        let sha = crate::sha256_hex(&index);
        snap.index_sha256 = Some(sha.clone());
        let json = snap.encode();
        assert_eq!(named_index(&json[..GRAPH_HEAD_BYTES.min(json.len())]), Some(sha.as_str()));
        let text = String::from_utf8(json.clone()).unwrap();
        let other_forms = [
            text.replacen("{", "{ ", 1),
            text.replacen(&sha, &sha.to_uppercase(), 1),
            text.replacen(&sha, &sha[..63], 1),
            text.replacen("\"index_sha256\"", "\"index_sha\"", 1),
            serde_json::to_string_pretty(&serde_json::from_str::<serde_json::Value>(&text).unwrap()).unwrap(),
        ];
        for form in other_forms {
            assert_eq!(named_index(form.as_bytes()), None, "{}", &form[..80]);
        }
        snap.index_sha256 = None;
        assert_eq!(named_index(&snap.encode()), None, "a graph without an index names none");
    }

    /// The sample snapshot with records of every shape: strings that JSON escapes, locations,
    /// attributes, records without either.
    fn sample() -> Snapshot<'static> {
        let mut snap = crate::snapshot::tests::sample();
        let loc = |path: &str, line| Some(SnapLocation { path: path.to_string().into(), line, column: 2 });
        // Out of key order, as a snapshot may be; two records with one key.
        snap.nodes = vec![
            SnapNode {
                id: "example.com/m::T".into(),
                kind: "struct".into(),
                location: loc("dir \"q\"/a\\b\u{e9}.go", 3),
                attrs: [("generic", "true"), ("package", "example.com/m")].into_iter().collect(),
            },
            SnapNode {
                id: "example.com/m".into(),
                kind: "package".into(),
                location: None,
                attrs: Attrs::default(),
            },
        ];
        let call = |line| SnapEdge {
            source: "example.com/m::F".into(),
            relation: "calls".into(),
            target: "example.com/m::(*T).M".into(),
            location: loc("a.go", line),
            attrs: [("classification", "resolved_static")].into_iter().collect(),
        };
        snap.edges = vec![call(9), call(4)];
        snap
    }

    fn records(r: &IndexRecords<'static>) -> (Vec<SnapNode<'static>>, Vec<SnapEdge<'static>>) {
        ((0..r.node_count()).map(|i| r.node(i)).collect(), (0..r.edge_count()).map(|i| r.edge(i)).collect())
    }

    #[test]
    fn an_index_holds_exactly_the_records_graph_json_decodes_to_in_key_order() {
        let snap = sample();
        let json = snap.encode();
        let index: &'static [u8] = encode(&snap, &"1".repeat(64)).leak();
        assert_eq!(graph_digest(index).unwrap(), "1".repeat(64));
        let (head, from_index) = decode(index).unwrap().unwrap();
        let mut decoded = Snapshot::decode(&json).unwrap();
        let (mut nodes, mut edges) = (std::mem::take(&mut decoded.nodes), std::mem::take(&mut decoded.edges));
        assert_eq!(head, decoded);
        // Stable sorts: records with equal keys keep the snapshot's order.
        nodes.sort_by(|a, b| a.id.cmp(&b.id));
        edges.sort_by(|a, b| (&a.source, &a.relation, &a.target).cmp(&(&b.source, &b.relation, &b.target)));
        assert_eq!(records(&from_index), (nodes, edges));
        assert!(from_index.node(0).id < from_index.node(1).id, "the sample's nodes are not in ID order");
    }

    #[test]
    fn a_damaged_foreign_or_inconsistent_index_is_refused() {
        let snap = sample();
        let index = encode(&snap, &"1".repeat(64));
        let mut flipped = index.clone();
        let last = flipped.len() - 1;
        flipped[last] ^= 1;
        let mut foreign = index.clone();
        foreign[7] = b'1';
        let cases: [(&str, &[u8]); 4] = [
            ("a flipped bit", &flipped),
            ("truncated", &index[..index.len() - 3]),
            ("another format version", &foreign),
            ("empty", b""),
        ];
        for (what, bytes) in cases {
            assert!(decode(bytes).is_err(), "{what} was accepted");
        }
        // Intact (the CRC recomputed) but inconsistent.
        let recrc = |mut bytes: Vec<u8>| {
            let crc = crc32fast::hash(&bytes[HEADER..]);
            bytes[48..52].copy_from_slice(&crc.to_le_bytes());
            bytes
        };
        // The last edge's source names a string that is not in the table.
        let mut dangling = index.clone();
        let at = dangling.len() - 4 * EDGE_WORDS;
        dangling[at..at + 4].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        assert!(decode(&recrc(dangling)).unwrap_err().0.contains("not in the table"));
        // The last edge's attributes run past the attribute table.
        let mut overrun = index.clone();
        let at = overrun.len() - 4;
        overrun[at..].copy_from_slice(&9u32.to_le_bytes());
        assert!(decode(&recrc(overrun)).unwrap_err().0.contains("attribute range"));
        // Records out of key order (written unsorted).
        let unsorted = encode_records(&snap, &"1".repeat(64), false);
        assert!(decode(&unsorted).unwrap_err().0.contains("out of order"));
    }

    #[test]
    fn the_index_snapshot_gets_the_checks_of_graph_json() {
        let mut snap = sample();
        snap.build.source_fingerprint = "0".repeat(64);
        let index = encode(&snap, &"1".repeat(64));
        let err = decode(&index).unwrap().map(drop).unwrap_err();
        assert_eq!(err.code, "source_fingerprint_inconsistent");
    }
}
