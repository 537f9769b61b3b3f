//! Incremental, atomic publication of one generation.

use crate::error::{IndexError, SqlContext};
use crate::rows::{
    delete_owner_rows, fragment_rows, insert_fragment, record_transition, stored_from_row, EdgeRows,
    StoredOwner, STORED_COLUMNS,
};
use crate::schema::INDEXES;
use crate::{Batch, FileRecord, Index, Owner, PublishProgress, PublishReport, RESERVED_META_KEYS};
use rusqlite::{params, OptionalExtension, Transaction, TransactionBehavior};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

impl Index {
    /// Publish `batch` as the next generation. See the crate docs for the incremental and
    /// atomicity rules; a no-op publish returns the current generation and writes nothing.
    pub fn publish(&mut self, batch: Batch) -> Result<PublishReport, IndexError> {
        self.publish_with(batch, || ()).0
    }

    /// [`Index::publish`], running `job` on another thread meanwhile and returning its value
    /// too: for a new index whose edges are written on a second thread (`split.rs`), on that
    /// thread once the edges are written (two cores are then not shared by three threads),
    /// else on a thread of its own. `job` runs whether or not the publication succeeds.
    pub fn publish_with<T: Send>(
        &mut self,
        batch: Batch,
        job: impl FnOnce() -> T + Send,
    ) -> (Result<PublishReport, IndexError>, T) {
        let checked = match self.read_only {
            true => Err(IndexError::InvalidBatch {
                path: self.path.clone(),
                reason: "index was opened read-only".to_string(),
            }),
            false => validate(&batch, &self.path),
        };
        if let Err(e) = checked {
            return (Err(e), job());
        }
        if self.staged.is_some() && crate::split::worth_it(&batch, self.side_min_edges) {
            return crate::split::publish(self, &batch, job);
        }
        std::thread::scope(|s| {
            let job = s.spawn(job);
            let result = self.publish_here(&batch);
            (result, job.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        })
    }

    /// Number the next full publication's generation after `generation` at least (it is
    /// `max(stored, generation) + 1`): a binding that served generations of an index since
    /// deleted or replaced keeps its revisions increasing, so one number never names two
    /// graphs for its clients. A delta is numbered after its base, as always.
    pub fn number_after(&mut self, generation: u64) {
        self.generation_floor = generation;
    }

    /// Publish a validated batch in one transaction on this thread.
    pub(crate) fn publish_here(&mut self, batch: &Batch) -> Result<PublishReport, IndexError> {
        let path = self.path.clone();
        let floor = self.generation_floor;
        let mut hook = self.hook.take();
        let tx = self.conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(&path)?;
        let result = write(&tx, &path, batch, &mut hook, None, floor);
        self.hook = hook;
        match result? {
            Some(report) => {
                tx.commit().ctx(&path)?;
                self.placed(report, batch)
            }
            // Nothing changed: roll back the (empty) transaction, keep the generation.
            None => {
                let generation = read_generation(&tx, &path)?;
                drop(tx);
                Ok(PublishReport { generation, owners_unchanged: batch.owners.len(), ..Default::default() })
            }
        }
    }

    /// After `batch` was committed as `report`: put a staged index in place.
    pub(crate) fn placed(
        &mut self,
        report: PublishReport,
        batch: &Batch,
    ) -> Result<PublishReport, IndexError> {
        match self.place_if_staged()? {
            true => Ok(report),
            // Another index appeared at the path first: publish into that one.
            false => self.publish_here(batch),
        }
    }
}

fn validate(batch: &Batch, path: &Path) -> Result<(), IndexError> {
    let owners = batch.owners.iter().map(|o| o.key.as_str());
    validate_parts(path, owners, std::iter::empty(), &batch.files, std::iter::empty(), &batch.meta)
}

/// Refuse duplicate owner keys or file paths (across upserts and removals), impossible file
/// sizes and reserved meta keys.
pub(crate) fn validate_parts<'a>(
    path: &Path,
    owners: impl Iterator<Item = &'a str>,
    removed_owners: impl Iterator<Item = &'a str>,
    files: &'a [FileRecord],
    removed_files: impl Iterator<Item = &'a str>,
    meta: &BTreeMap<String, String>,
) -> Result<(), IndexError> {
    let invalid = |reason: String| IndexError::InvalidBatch { path: path.to_path_buf(), reason };
    let mut keys = HashSet::new();
    for key in owners.chain(removed_owners) {
        if !keys.insert(key) {
            return Err(invalid(format!("owner `{key}` appears twice")));
        }
    }
    let mut paths = HashSet::with_capacity(files.len());
    for file in files {
        if file.size > i64::MAX as u64 {
            return Err(invalid(format!("file `{}` has an impossible size {}", file.path, file.size)));
        }
    }
    for p in files.iter().map(|f| f.path.as_str()).chain(removed_files) {
        if !paths.insert(p) {
            return Err(invalid(format!("file `{p}` appears twice")));
        }
    }
    if let Some(key) = meta.keys().find(|k| RESERVED_META_KEYS.contains(&k.as_str())) {
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

pub(crate) fn read_meta(tx: &Transaction<'_>, path: &Path) -> Result<BTreeMap<String, String>, IndexError> {
    let mut stmt = tx.prepare_cached("SELECT key, value FROM meta").ctx(path)?;
    let rows = stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).ctx(path)?;
    rows.collect::<Result<_, _>>().ctx(path)
}

/// What a generation changes, computed before anything is written.
#[derive(Default)]
pub(crate) struct Plan<'b> {
    /// Owners to delete, sorted by key.
    pub(crate) removed: Vec<(String, StoredOwner)>,
    /// Owners to (re)write, with their stored row when they replace one.
    pub(crate) to_write: Vec<(&'b Owner, Option<StoredOwner>)>,
    pub(crate) unchanged: usize,
    pub(crate) file_upserts: Vec<&'b FileRecord>,
    /// Paths to delete, sorted; each one is stored.
    pub(crate) file_deletes: Vec<String>,
}

impl Plan<'_> {
    /// True when the plan would not change any owner or file row.
    pub(crate) fn touches_nothing(&self) -> bool {
        self.removed.is_empty()
            && self.to_write.is_empty()
            && self.file_upserts.is_empty()
            && self.file_deletes.is_empty()
    }
}

/// True when a publish of `plan` with this fingerprint and batch meta would change nothing.
pub(crate) fn is_noop(
    plan: &Plan<'_>,
    generation: u64,
    stored_meta: &BTreeMap<String, String>,
    fingerprint: &str,
    meta: &BTreeMap<String, String>,
) -> bool {
    let batch_meta_same =
        stored_meta.iter().filter(|(k, _)| !RESERVED_META_KEYS.contains(&k.as_str())).eq(meta.iter());
    let same_fingerprint = stored_meta.get("source_fingerprint").map(String::as_str) == Some(fingerprint);
    generation > 0 && plan.touches_nothing() && batch_meta_same && same_fingerprint
}

/// Write the generation; `Ok(None)` when there is nothing to write. `side_edges`: see
/// [`apply`].
pub(crate) fn write(
    tx: &Transaction<'_>,
    path: &Path,
    batch: &Batch,
    hook: &mut Option<crate::PublishHook>,
    side_edges: Option<&[Option<(i64, i64)>]>,
    floor: u64,
) -> Result<Option<PublishReport>, IndexError> {
    let meta = read_meta(tx, path)?;
    let generation: u64 = read_generation(tx, path)?;
    let mut stored = load_owners(tx, path)?;

    let mut plan = Plan::default();
    for owner in &batch.owners {
        match stored.remove(&owner.key) {
            Some(s) if s.digest == owner.digest => plan.unchanged += 1,
            s => plan.to_write.push((owner, s)),
        }
    }
    // What is left in `stored` is not in the batch any more.
    plan.removed = stored.into_iter().collect();
    plan.removed.sort_by(|a, b| a.0.cmp(&b.0));
    (plan.file_upserts, plan.file_deletes) = diff_files(tx, path, &batch.files)?;
    if is_noop(&plan, generation, &meta, &batch.source_fingerprint, &batch.meta) {
        return Ok(None);
    }
    let next = generation.max(floor) + 1;
    let report = apply(tx, path, &plan, next, hook, side_edges)?;
    let digest = graph_digest(&batch.owners);
    write_meta(tx, path, &batch.source_fingerprint, &batch.meta, &meta, next, &digest)?;
    Ok(Some(report))
}

/// Write `plan` as generation `next` (everything but the meta rows). With `side_edges`
/// (the rid range of each owner's edges, in `plan.to_write` order), the edge rows are not
/// written here: they are copied in from a side database afterwards (`split.rs`).
pub(crate) fn apply(
    tx: &Transaction<'_>,
    path: &Path,
    plan: &Plan<'_>,
    next: u64,
    hook: &mut Option<crate::PublishHook>,
    side_edges: Option<&[Option<(i64, i64)>]>,
) -> Result<PublishReport, IndexError> {
    let mut report =
        PublishReport { generation: next, owners_unchanged: plan.unchanged, ..Default::default() };
    tx.execute("DELETE FROM transition", []).ctx(path)?;

    let rows_to_write: usize = plan.to_write.iter().map(|(o, _)| fragment_rows(&o.fragment)).sum();
    let bulk = rows_to_write >= BULK_MIN_ROWS && rows_to_write >= existing_rows(tx, path)? / 2;

    // Phase 1: delete what goes away, while the owner indexes still exist.
    for (key, owner) in &plan.removed {
        delete_owner_rows(tx, path, owner, !bulk)?;
        tx.prepare_cached("DELETE FROM owners WHERE id = ?1").ctx(path)?.execute([owner.id]).ctx(path)?;
        record_transition(tx, path, key, "removed", Some(&owner.digest), None)?;
        report.owners_deleted += 1;
    }
    for (_, stored) in &plan.to_write {
        if let Some(s) = stored {
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
        PublishProgress { generation: next, owners_to_write: plan.to_write.len(), ..Default::default() };
    // A new owner's row goes in after its rows, with the ranges: its id is the next one,
    // as SQLite would assign it (the largest so far plus one).
    let mut next_id: i64 =
        tx.query_row("SELECT coalesce(max(id), 0) + 1 FROM owners", [], |r| r.get(0)).ctx(path)?;
    for (i, (owner, stored)) in plan.to_write.iter().enumerate() {
        let id = stored.as_ref().map_or(next_id, |s| s.id);
        let edges = side_edges.map_or(EdgeRows::Here, |r| EdgeRows::Elsewhere(r[i]));
        let ranges = insert_fragment(tx, path, id, &owner.fragment, !bulk, edges)?;
        let r = |range: Option<(i64, i64)>| (range.map(|r| r.0), range.map(|r| r.1));
        let (n, e, d, l) = (r(ranges.nodes), r(ranges.edges), r(ranges.diags), r(ranges.logic));
        let sql = match stored {
            Some(_) => {
                "UPDATE owners SET digest = ?3, generation = ?4, node_lo = ?5, node_hi = ?6, \
                 edge_lo = ?7, edge_hi = ?8, diag_lo = ?9, diag_hi = ?10, logic_lo = ?11, logic_hi = ?12 \
                 WHERE id = ?1"
            }
            None => {
                next_id += 1;
                "INSERT INTO owners(id, key, digest, generation, node_lo, node_hi, edge_lo, edge_hi, \
                 diag_lo, diag_hi, logic_lo, logic_hi) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)"
            }
        };
        tx.prepare_cached(sql)
            .ctx(path)?
            .execute(params![
                id,
                owner.key,
                &owner.digest[..],
                next as i64,
                n.0,
                n.1,
                e.0,
                e.1,
                d.0,
                d.1,
                l.0,
                l.1
            ])
            .ctx(path)?;
        match stored {
            Some(s) => {
                record_transition(tx, path, &owner.key, "changed", Some(&s.digest), Some(&owner.digest))?
            }
            None => record_transition(tx, path, &owner.key, "added", None, Some(&owner.digest))?,
        }
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
        // One FTS segment instead of one per MiB of pending terms (FTS5's `hashsize`), then
        // the default again for the small writes that follow.
        let hashsize = "INSERT INTO nodes_fts(nodes_fts, rank) VALUES ('hashsize', ?1)";
        tx.execute(hashsize, [BULK_FTS_HASH_BYTES]).ctx(path)?;
        tx.execute("INSERT INTO nodes_fts(nodes_fts) VALUES ('rebuild')", []).ctx(path)?;
        tx.execute(hashsize, [FTS_HASH_BYTES]).ctx(path)?;
    }

    for file in &plan.file_deletes {
        tx.prepare_cached("DELETE FROM files WHERE path = ?1").ctx(path)?.execute([file]).ctx(path)?;
    }
    for file in &plan.file_upserts {
        tx.prepare_cached(
            "INSERT OR REPLACE INTO files(path, size, mtime_ns, ctime_ns, ino, racy, sha256, kind, status) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )
        .ctx(path)?
        .execute(params![
            file.path,
            file.size as i64,
            file.mtime_ns,
            file.ctime_ns,
            file.ino as i64,
            file.racy,
            file.sha256,
            file.kind,
            file.status
        ])
        .ctx(path)?;
    }
    report.files_written = plan.file_upserts.len();
    report.files_deleted = plan.file_deletes.len();
    Ok(report)
}

fn load_owners(tx: &Transaction<'_>, path: &Path) -> Result<HashMap<String, StoredOwner>, IndexError> {
    let mut stmt = tx.prepare_cached(&format!("SELECT {STORED_COLUMNS} FROM owners")).ctx(path)?;
    let rows = stmt.query_map([], stored_from_row).ctx(path)?;
    rows.collect::<Result<_, _>>().ctx(path)
}

/// Files to insert/update and paths to delete.
fn diff_files<'b>(
    tx: &Transaction<'_>,
    path: &Path,
    files: &'b [FileRecord],
) -> Result<(Vec<&'b FileRecord>, Vec<String>), IndexError> {
    let mut stmt = tx
        .prepare_cached("SELECT path, size, mtime_ns, ctime_ns, ino, racy, sha256, kind, status FROM files")
        .ctx(path)?;
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
pub(crate) const BULK_MIN_ROWS: usize = 20_000;

/// FTS5's default `hashsize`: pending terms are flushed to a new segment beyond it.
const FTS_HASH_BYTES: i64 = 1 << 20;
/// `hashsize` of a bulk rebuild. The standard library's 134k nodes (6.6 MB of full-text
/// index) are then flushed once instead of in seven segments that are merged again: the
/// rebuild took 0.23-0.32 s instead of 0.31-0.40 s, for 12 MB more peak RSS.
const BULK_FTS_HASH_BYTES: i64 = 32 << 20;

fn existing_rows(tx: &Transaction<'_>, path: &Path) -> Result<usize, IndexError> {
    let n: i64 = tx
        .query_row("SELECT (SELECT count(*) FROM nodes) + (SELECT count(*) FROM edges)", [], |r| r.get(0))
        .ctx(path)?;
    Ok(n.max(0) as usize)
}

/// SHA-256 over every owner key and digest, in key order: the content identity of a generation.
pub fn graph_digest(owners: &[Owner]) -> String {
    let mut sorted: Vec<&Owner> = owners.iter().collect();
    sorted.sort_by(|a, b| a.key.cmp(&b.key));
    let mut h = GraphHasher::new();
    for o in sorted {
        h.push(&o.key, &o.digest);
    }
    h.finish()
}

/// The streaming form of [`graph_digest`]: push owners in key order (byte-wise, as Rust's
/// `str` ordering and SQLite's `BINARY` collation agree).
pub(crate) struct GraphHasher(Sha256);

impl GraphHasher {
    pub(crate) fn new() -> GraphHasher {
        let mut h = Sha256::new();
        h.update(b"docforge-index-graph-v1\0");
        GraphHasher(h)
    }

    pub(crate) fn push(&mut self, key: &str, digest: &[u8]) {
        self.0.update((key.len() as u64).to_le_bytes());
        self.0.update(key.as_bytes());
        self.0.update(digest);
    }

    pub(crate) fn finish(self) -> String {
        hex::encode(self.0.finalize())
    }
}

pub(crate) fn write_meta(
    tx: &Transaction<'_>,
    path: &Path,
    fingerprint: &str,
    meta: &BTreeMap<String, String>,
    old: &BTreeMap<String, String>,
    next: u64,
    digest: &str,
) -> Result<(), IndexError> {
    let mut set = tx.prepare_cached("INSERT OR REPLACE INTO meta(key, value) VALUES (?1, ?2)").ctx(path)?;
    for key in old.keys().filter(|k| !RESERVED_META_KEYS.contains(&k.as_str())) {
        tx.prepare_cached("DELETE FROM meta WHERE key = ?1").ctx(path)?.execute([key]).ctx(path)?;
    }
    for (k, v) in meta {
        set.execute([k, v]).ctx(path)?;
    }
    let prev_gen = old.get("generation").cloned().unwrap_or_else(|| "0".to_string());
    let prev_fp = old.get("source_fingerprint").cloned().unwrap_or_default();
    set.execute(["previous_generation", &prev_gen]).ctx(path)?;
    set.execute(["previous_source_fingerprint", &prev_fp]).ctx(path)?;
    set.execute(["generation", &next.to_string()]).ctx(path)?;
    set.execute(["source_fingerprint", fingerprint]).ctx(path)?;
    set.execute(["graph_digest", digest]).ctx(path)?;
    tx.execute(
        "INSERT OR REPLACE INTO meta(key, value) VALUES ('published_at', strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))",
        [],
    )
    .ctx(path)?;
    Ok(())
}
