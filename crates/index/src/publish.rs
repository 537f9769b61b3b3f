//! Incremental, atomic publication of one generation.

use crate::error::{IndexError, SqlContext};
use crate::schema::INDEXES;
use crate::{
    relation_class, Batch, FileRecord, Index, Owner, PublishProgress, PublishReport, RESERVED_META_KEYS,
};
use docforge_model::{Fragment, Location, Severity};
use rusqlite::{params, OptionalExtension, Transaction, TransactionBehavior};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

/// What is stored for one owner before the publish.
struct StoredOwner {
    id: i64,
    digest: Vec<u8>,
    ranges: Ranges,
}

/// The rid range `[lo, hi]` an owner occupies in nodes, edges and diagnostics.
#[derive(Clone, Copy, Debug, Default)]
struct Ranges {
    nodes: Option<(i64, i64)>,
    edges: Option<(i64, i64)>,
    diags: Option<(i64, i64)>,
}

fn range_at(r: &rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<(i64, i64)>> {
    Ok(r.get::<_, Option<i64>>(i)?.zip(r.get::<_, Option<i64>>(i + 1)?))
}

impl Index {
    /// Publish `batch` as the next generation. See the crate docs for the incremental and
    /// atomicity rules; a no-op publish returns the current generation and writes nothing.
    pub fn publish(&mut self, batch: Batch) -> Result<PublishReport, IndexError> {
        let path = self.path.clone();
        if self.read_only {
            return Err(IndexError::InvalidBatch { path, reason: "index was opened read-only".to_string() });
        }
        validate(&batch, &path)?;
        let mut hook = self.hook.take();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(&path)?;
        let result = write(&tx, &path, &batch, &mut hook);
        self.hook = hook;
        match result? {
            Some(report) => {
                tx.commit().ctx(&path)?;
                Ok(report)
            }
            // Nothing changed: roll back the (empty) transaction, keep the generation.
            None => {
                let generation = read_generation(&tx, &path)?;
                drop(tx);
                Ok(PublishReport { generation, owners_unchanged: batch.owners.len(), ..Default::default() })
            }
        }
    }
}

fn validate(batch: &Batch, path: &Path) -> Result<(), IndexError> {
    let invalid = |reason: String| IndexError::InvalidBatch { path: path.to_path_buf(), reason };
    let mut keys = HashSet::with_capacity(batch.owners.len());
    for owner in &batch.owners {
        if !keys.insert(owner.key.as_str()) {
            return Err(invalid(format!("owner `{}` appears twice", owner.key)));
        }
    }
    let mut files = HashSet::with_capacity(batch.files.len());
    for file in &batch.files {
        if !files.insert(file.path.as_str()) {
            return Err(invalid(format!("file `{}` appears twice", file.path)));
        }
        if file.size > i64::MAX as u64 {
            return Err(invalid(format!("file `{}` has an impossible size {}", file.path, file.size)));
        }
    }
    if let Some(key) = batch.meta.keys().find(|k| RESERVED_META_KEYS.contains(&k.as_str())) {
        return Err(invalid(format!("meta key `{key}` is reserved")));
    }
    Ok(())
}

pub(crate) fn read_generation(conn: &rusqlite::Connection, path: &Path) -> Result<u64, IndexError> {
    let raw: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'generation'", [], |r| r.get(0))
        .optional()
        .ctx(path)?;
    match raw {
        None => Ok(0),
        Some(v) => v.parse().map_err(|_| IndexError::Malformed {
            path: path.to_path_buf(),
            detail: format!("meta generation `{v}` is not a number"),
        }),
    }
}

fn read_meta(tx: &Transaction<'_>, path: &Path) -> Result<BTreeMap<String, String>, IndexError> {
    let mut stmt = tx.prepare_cached("SELECT key, value FROM meta").ctx(path)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).ctx(path)?;
    rows.collect::<Result<_, _>>().ctx(path)
}

/// Write the generation; `Ok(None)` when there is nothing to write.
fn write(
    tx: &Transaction<'_>,
    path: &Path,
    batch: &Batch,
    hook: &mut Option<crate::PublishHook>,
) -> Result<Option<PublishReport>, IndexError> {
    let meta = read_meta(tx, path)?;
    let generation: u64 = read_generation(tx, path)?;
    let stored = load_owners(tx, path)?;

    let mut to_write: Vec<&Owner> = Vec::new();
    let mut unchanged = 0usize;
    for owner in &batch.owners {
        match stored.get(&owner.key) {
            Some(s) if s.digest == owner.digest => unchanged += 1,
            _ => to_write.push(owner),
        }
    }
    let present: HashSet<&str> = batch.owners.iter().map(|o| o.key.as_str()).collect();
    let mut removed: Vec<(&String, &StoredOwner)> =
        stored.iter().filter(|(k, _)| !present.contains(k.as_str())).collect();
    removed.sort_by(|a, b| a.0.cmp(b.0));

    let (file_upserts, file_deletes) = diff_files(tx, path, &batch.files)?;
    let batch_meta_same =
        meta.iter().filter(|(k, _)| !RESERVED_META_KEYS.contains(&k.as_str())).eq(batch.meta.iter());
    let same_fingerprint = meta.get("source_fingerprint") == Some(&batch.source_fingerprint);
    if generation > 0
        && to_write.is_empty()
        && removed.is_empty()
        && file_upserts.is_empty()
        && file_deletes.is_empty()
        && batch_meta_same
        && same_fingerprint
    {
        return Ok(None);
    }

    let next = generation + 1;
    let mut report = PublishReport { generation: next, owners_unchanged: unchanged, ..Default::default() };
    tx.execute("DELETE FROM transition", []).ctx(path)?;

    let rows_to_write: usize = to_write.iter().map(|o| fragment_rows(&o.fragment)).sum();
    let bulk = rows_to_write >= BULK_MIN_ROWS && rows_to_write >= existing_rows(tx, path)? / 2;

    // Phase 1: delete what goes away, while the owner indexes still exist.
    for (key, owner) in &removed {
        delete_owner_rows(tx, path, owner, !bulk)?;
        tx.execute("DELETE FROM owners WHERE id = ?1", [owner.id]).ctx(path)?;
        record_transition(tx, path, key, "removed", Some(&owner.digest), None)?;
        report.owners_deleted += 1;
    }
    for owner in &to_write {
        if let Some(s) = stored.get(&owner.key) {
            delete_owner_rows(tx, path, s, !bulk)?;
        }
    }

    // Phase 2: insert. A bulk write drops the secondary indexes and the FTS index and builds
    // them once at the end, which is much cheaper than maintaining them row by row.
    if bulk {
        for (name, _) in INDEXES {
            tx.execute(&format!("DROP INDEX IF EXISTS {name}"), []).ctx(path)?;
        }
    }
    let mut progress =
        PublishProgress { generation: next, owners_to_write: to_write.len(), ..Default::default() };
    for owner in &to_write {
        let id = match stored.get(&owner.key) {
            Some(s) => {
                tx.prepare_cached("UPDATE owners SET digest = ?2, generation = ?3 WHERE id = ?1")
                    .ctx(path)?
                    .execute(params![s.id, &owner.digest[..], next as i64])
                    .ctx(path)?;
                record_transition(tx, path, &owner.key, "changed", Some(&s.digest), Some(&owner.digest))?;
                s.id
            }
            None => {
                tx.prepare_cached("INSERT INTO owners(key, digest, generation) VALUES (?1, ?2, ?3)")
                    .ctx(path)?
                    .execute(params![owner.key, &owner.digest[..], next as i64])
                    .ctx(path)?;
                record_transition(tx, path, &owner.key, "added", None, Some(&owner.digest))?;
                tx.last_insert_rowid()
            }
        };
        let ranges = insert_fragment(tx, path, id, &owner.fragment, !bulk)?;
        tx.prepare_cached(
            "UPDATE owners SET node_lo = ?2, node_hi = ?3, edge_lo = ?4, edge_hi = ?5, diag_lo = ?6, diag_hi = ?7 \
             WHERE id = ?1",
        )
        .ctx(path)?
        .execute(params![
            id,
            ranges.nodes.map(|r| r.0),
            ranges.nodes.map(|r| r.1),
            ranges.edges.map(|r| r.0),
            ranges.edges.map(|r| r.1),
            ranges.diags.map(|r| r.0),
            ranges.diags.map(|r| r.1),
        ])
        .ctx(path)?;
        report.rows_written += fragment_rows(&owner.fragment);
        report.owners_written += 1;
        progress.owners_written = report.owners_written;
        progress.rows_written = report.rows_written;
        if let Some(hook) = hook.as_mut() {
            hook(&progress).map_err(|reason| IndexError::Aborted { path: path.to_path_buf(), reason })?;
        }
    }
    if bulk {
        for (_, create) in INDEXES {
            tx.execute(create, []).ctx(path)?;
        }
        tx.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild')", []).ctx(path)?;
    }

    for file in &file_deletes {
        tx.prepare_cached("DELETE FROM files WHERE path = ?1").ctx(path)?.execute([file]).ctx(path)?;
    }
    for file in &file_upserts {
        tx.prepare_cached(
            "INSERT OR REPLACE INTO files(path, size, mtime_ns, sha256, kind, status) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )
        .ctx(path)?
        .execute(params![file.path, file.size as i64, file.mtime_ns, file.sha256, file.kind, file.status])
        .ctx(path)?;
    }
    report.files_written = file_upserts.len();
    report.files_deleted = file_deletes.len();

    write_meta(tx, path, batch, &meta, next)?;
    Ok(Some(report))
}

fn load_owners(tx: &Transaction<'_>, path: &Path) -> Result<HashMap<String, StoredOwner>, IndexError> {
    let mut stmt = tx
        .prepare_cached(
            "SELECT key, id, digest, node_lo, node_hi, edge_lo, edge_hi, diag_lo, diag_hi FROM owners",
        )
        .ctx(path)?;
    let rows = stmt
        .query_map([], |r| {
            let ranges = Ranges { nodes: range_at(r, 3)?, edges: range_at(r, 5)?, diags: range_at(r, 7)? };
            Ok((r.get::<_, String>(0)?, StoredOwner { id: r.get(1)?, digest: r.get(2)?, ranges }))
        })
        .ctx(path)?;
    rows.collect::<Result<_, _>>().ctx(path)
}

/// Files to insert/update and paths to delete.
fn diff_files<'b>(
    tx: &Transaction<'_>,
    path: &Path,
    files: &'b [FileRecord],
) -> Result<(Vec<&'b FileRecord>, Vec<String>), IndexError> {
    let mut stmt =
        tx.prepare_cached("SELECT path, size, mtime_ns, sha256, kind, status FROM files").ctx(path)?;
    let rows = stmt.query_map([], crate::query::file_from_row).ctx(path)?;
    let mut stored: HashMap<String, FileRecord> = HashMap::new();
    for row in rows {
        let file = row.ctx(path)?;
        stored.insert(file.path.clone(), file);
    }
    let upserts: Vec<&FileRecord> = files.iter().filter(|f| stored.get(&f.path) != Some(*f)).collect();
    let present: HashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let mut deletes: Vec<String> = stored.into_keys().filter(|p| !present.contains(p.as_str())).collect();
    deletes.sort();
    Ok((upserts, deletes))
}

/// Below this many rows a publish always maintains indexes row by row.
const BULK_MIN_ROWS: usize = 20_000;

fn fragment_rows(f: &Fragment) -> usize {
    f.nodes.len() + f.edges.len() + f.diagnostics.len()
}

fn existing_rows(tx: &Transaction<'_>, path: &Path) -> Result<usize, IndexError> {
    let n: i64 = tx
        .query_row("SELECT (SELECT count(*) FROM nodes) + (SELECT count(*) FROM edges)", [], |r| r.get(0))
        .ctx(path)?;
    Ok(n.max(0) as usize)
}

/// Delete one owner's rows by their rid ranges; `fts` false skips the FTS deletes (a bulk
/// publish rebuilds the FTS index).
fn delete_owner_rows(
    tx: &Transaction<'_>,
    path: &Path,
    owner: &StoredOwner,
    fts: bool,
) -> Result<(), IndexError> {
    let ranges = owner.ranges;
    let mut steps: Vec<(&str, Option<(i64, i64)>)> = Vec::with_capacity(4);
    if fts {
        // External-content FTS: remove the exact indexed values before the content rows go.
        steps.push((
            "INSERT INTO nodes_fts(nodes_fts, rowid, id, title, text) \
             SELECT 'delete', rid, id, title, text FROM nodes WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1",
            ranges.nodes,
        ));
    }
    steps.push(("DELETE FROM nodes WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1", ranges.nodes));
    steps.push(("DELETE FROM edges WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1", ranges.edges));
    steps.push(("DELETE FROM diagnostics WHERE rid BETWEEN ?2 AND ?3 AND owner = ?1", ranges.diags));
    for (sql, range) in steps {
        if let Some((lo, hi)) = range {
            tx.prepare_cached(sql).ctx(path)?.execute(params![owner.id, lo, hi]).ctx(path)?;
        }
    }
    Ok(())
}

fn record_transition(
    tx: &Transaction<'_>,
    path: &Path,
    key: &str,
    change: &str,
    old: Option<&[u8]>,
    new: Option<&[u8; 32]>,
) -> Result<(), IndexError> {
    tx.prepare_cached(
        "INSERT INTO transition(owner_key, change, old_digest, new_digest) VALUES (?1, ?2, ?3, ?4)",
    )
    .ctx(path)?
    .execute(params![key, change, old, new.map(|d| &d[..])])
    .ctx(path)?;
    Ok(())
}

fn loc(location: &Option<Location>) -> (Option<&str>, Option<u32>, Option<u32>) {
    match location {
        Some(l) => (Some(l.path.as_str()), Some(l.line), Some(l.column)),
        None => (None, None, None),
    }
}

pub(crate) fn severity_str(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "info",
    }
}

/// Insert one owner's rows; returns how many.
fn insert_fragment(
    tx: &Transaction<'_>,
    path: &Path,
    owner: i64,
    fragment: &Fragment,
    fts: bool,
) -> Result<Ranges, IndexError> {
    let mut ranges = Ranges::default();
    let extend = |range: &mut Option<(i64, i64)>, rid: i64| {
        *range = Some(range.map_or((rid, rid), |(lo, _)| (lo, rid)));
    };
    let mut node_stmt = tx
        .prepare_cached(
            "INSERT INTO nodes(owner, id, kind, title, path, line, col, text, attrs) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .ctx(path)?;
    let mut fts_stmt = tx
        .prepare_cached("INSERT INTO nodes_fts(rowid, id, title, text) VALUES (?1, ?2, ?3, ?4)")
        .ctx(path)?;
    for node in &fragment.nodes {
        let (p, line, col) = loc(&node.location);
        let attrs = if node.attrs.is_empty() {
            None
        } else {
            Some(serde_json::to_string(&node.attrs).map_err(|e| IndexError::InvalidBatch {
                path: path.to_path_buf(),
                reason: format!("attrs of node `{}`: {e}", node.id),
            })?)
        };
        let rid = node_stmt
            .insert(params![owner, node.id, node.kind, node.title, p, line, col, node.text, attrs])
            .ctx(path)?;
        extend(&mut ranges.nodes, rid);
        if fts {
            fts_stmt.execute(params![rid, node.id, node.title, node.text]).ctx(path)?;
        }
    }
    let mut edge_stmt = tx
        .prepare_cached(
            "INSERT INTO edges(owner, source, relation, class, target, path, line, col) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .ctx(path)?;
    for edge in &fragment.edges {
        let (p, line, col) = loc(&edge.location);
        let class = relation_class(&edge.relation).as_str();
        let rid = edge_stmt
            .insert(params![owner, edge.source, edge.relation, class, edge.target, p, line, col])
            .ctx(path)?;
        extend(&mut ranges.edges, rid);
    }
    let mut diag_stmt = tx
        .prepare_cached(
            "INSERT INTO diagnostics(owner, severity, code, message, node, path, line, col) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )
        .ctx(path)?;
    for d in &fragment.diagnostics {
        let (p, line, col) = loc(&d.location);
        let rid = diag_stmt
            .insert(params![owner, severity_str(d.severity), d.code, d.message, d.node, p, line, col])
            .ctx(path)?;
        extend(&mut ranges.diags, rid);
    }
    Ok(ranges)
}

/// SHA-256 over every owner key and digest, in key order: the content identity of a generation.
pub fn graph_digest(owners: &[Owner]) -> String {
    let mut sorted: Vec<&Owner> = owners.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    let mut h = Sha256::new();
    h.update(b"docforge-index-graph-v1\0");
    for o in sorted {
        h.update((o.key.len() as u64).to_le_bytes());
        h.update(o.key.as_bytes());
        h.update(o.digest);
    }
    hex::encode(h.finalize())
}

fn write_meta(
    tx: &Transaction<'_>,
    path: &Path,
    batch: &Batch,
    old: &BTreeMap<String, String>,
    next: u64,
) -> Result<(), IndexError> {
    let mut set = tx.prepare_cached("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)").ctx(path)?;
    for key in old.keys().filter(|k| !RESERVED_META_KEYS.contains(&k.as_str())) {
        tx.prepare_cached("DELETE FROM meta WHERE key = ?1").ctx(path)?.execute([key]).ctx(path)?;
    }
    for (k, v) in &batch.meta {
        set.execute([k, v]).ctx(path)?;
    }
    let prev_gen = old.get("generation").cloned().unwrap_or_else(|| "0".to_string());
    let prev_fp = old.get("source_fingerprint").cloned().unwrap_or_default();
    set.execute(["previous_generation", &prev_gen]).ctx(path)?;
    set.execute(["previous_source_fingerprint", &prev_fp]).ctx(path)?;
    set.execute(["generation", &next.to_string()]).ctx(path)?;
    set.execute(["source_fingerprint", &batch.source_fingerprint]).ctx(path)?;
    set.execute(["graph_digest", &graph_digest(&batch.owners)]).ctx(path)?;
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('published_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        [],
    )
    .ctx(path)?;
    Ok(())
}
