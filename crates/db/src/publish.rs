//! Publishing the current graph as an index generation: a full batch the first time, then
//! only what changed since this host's last publication.

use crate::assemble::Chunk;
use crate::graph::{file_digest, source_fingerprint, Graph, OwnerFragment};
use crate::host::{AnalysisHost, Cancellable};
use crate::inputs::{Content, SourceFile, Workspace};
use crate::receipt::Edges;
use crate::Db;
use docforge_index::{Batch, Delta, FileRecord, Index, IndexError, Owner, PublishReport};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

/// The engine version recorded in every publication.
pub const ENGINE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// The fingerprint of the code that derives the graph (see `build.rs`), recorded in every
/// publication: two builds of one version may derive different graphs from the same files,
/// and a reader trusts a generation by its sources' stamps only when it was derived by code
/// with the same fingerprint.
pub const DERIVATION: &str = env!("DOCFORGE_DERIVATION");

#[derive(Debug)]
pub enum PublishError {
    Cancelled,
    Index(IndexError),
}

impl std::fmt::Display for PublishError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PublishError::Cancelled => f.write_str("publication cancelled by a newer change"),
            PublishError::Index(e) => e.fmt(f),
        }
    }
}
impl std::error::Error for PublishError {}

/// What a host last published into which index file: the chunks themselves, so the next
/// delta skips every directory whose chunk is the same `Arc`.
pub(crate) struct Published {
    path: PathBuf,
    generation: u64,
    chunks: HashMap<String, Arc<Chunk>>,
    extra: Vec<OwnerFragment>,
    skipped_files: Arc<Vec<Arc<FileRecord>>>,
    /// Node and edge digests of every published owner (for the receipt's hashes).
    hashes: crate::receipt::OwnerHashes,
    /// The generation's node and edge hashes (from `hashes`, computed once).
    side: (String, String),
    /// The cheap source identity the generation was derived from (the next receipt's `from`).
    source_identity: Option<String>,
}

fn all_hashes(snap: &Snapshot) -> crate::receipt::OwnerHashes {
    snap.graph.owners().map(|o| (o.key.clone(), o.hashes)).collect()
}

/// The index record of one loaded file (memoised: unchanged files yield the same `Arc`).
#[salsa::tracked(returns(ref))]
pub fn file_record(db: &dyn Db, ws: Workspace, file: SourceFile) -> Arc<FileRecord> {
    let stamp = file.stamp(db);
    let (size, sha256) = match file.content(db) {
        Content::Bytes(b) => (b.len() as u64, file_digest(db, file).clone().unwrap_or_default()),
        // Its size as it was when it could not be read: a refusal stands while the file's
        // stamp does (a permission fixed moves its ctime, a smaller file its size).
        Content::Unreadable { .. } => (stamp.size, String::new()),
    };
    let status = crate::graph::file_status(db, ws, file);
    Arc::new(FileRecord {
        path: file.rel(db).clone(),
        size,
        mtime_ns: stamp.mtime_ns,
        ctime_ns: stamp.ctime_ns,
        ino: stamp.ino,
        racy: file.racy(db),
        sha256,
        kind: file.kind(db).as_str().into(),
        status,
    })
}

struct Snapshot {
    graph: Arc<Graph>,
    skipped_files: Arc<Vec<Arc<FileRecord>>>,
    fingerprint: String,
    meta: BTreeMap<String, String>,
}

impl Snapshot {
    fn files(&self) -> impl Iterator<Item = &Arc<FileRecord>> {
        self.graph.chunks.iter().flat_map(|c| c.files.iter()).chain(self.skipped_files.iter())
    }
}

/// Index records of the entries the walk refused or excluded.
#[salsa::tracked(returns(ref))]
pub fn skipped_file_records(db: &dyn Db, ws: Workspace) -> Arc<Vec<Arc<FileRecord>>> {
    let records = ws
        .inventory(db)
        .skipped
        .iter()
        .map(|(rel, kind, status)| {
            Arc::new(FileRecord {
                path: rel.clone(),
                size: 0,
                mtime_ns: 0,
                ctime_ns: 0,
                ino: 0,
                racy: false,
                sha256: String::new(),
                kind: kind.as_str().into(),
                status: status.clone(),
            })
        })
        .collect();
    Arc::new(records)
}

impl AnalysisHost {
    fn snapshot(&self) -> Cancellable<Snapshot> {
        let analysis = self.analysis();
        let graph = analysis.graph()?;
        let (db, ws) = analysis.parts();
        let (skipped_files, fingerprint) = salsa::Cancelled::catch(std::panic::AssertUnwindSafe(|| {
            (skipped_file_records(db, ws).clone(), source_fingerprint(db, ws).clone())
        }))?;
        let s = &graph.summary;
        let mut meta = BTreeMap::new();
        meta.insert("engine_version".into(), ENGINE_VERSION.into());
        meta.insert("derivation".into(), DERIVATION.into());
        meta.insert("project_id".into(), self.project().id.clone());
        meta.insert("ast_policy".into(), if s.precision.is_some() { "allow" } else { "no_ast" }.into());
        meta.insert("precision".into(), s.precision.map_or("none", |p| p.as_str()).into());
        meta.insert(
            "completeness".into(),
            if s.completeness.complete { "complete" } else { "partial" }.into(),
        );
        meta.insert("completeness_reasons".into(), s.completeness.reasons.join(", "));
        meta.insert("precision_reasons".into(), s.precision_reasons.join("\n"));
        meta.insert("config_sha256".into(), crate::sha256_hex(self.project().config_text.as_bytes()));
        for (key, value) in summary_counts(s) {
            meta.insert(format!("summary.{key}"), value.to_string());
        }
        Ok(Snapshot { graph, skipped_files, fingerprint, meta })
    }

    /// Forget what this host last published: the next publication is a full batch. For an
    /// index file another writer replaced or rewrote, whose generation number alone cannot
    /// tell that a delta would land on rows this host never wrote.
    pub fn forget_publication(&mut self) {
        self.published = None;
    }

    /// Publish the current revision into `index`. After a first full publication, only the
    /// owners and files of directories whose chunk changed since this host's last
    /// publication are compared and sent; if another writer published in between, the index
    /// refuses the delta and a full batch is sent.
    pub fn publish(&mut self, index: &mut Index) -> Result<PublishReport, PublishError> {
        let snap = self.snapshot().map_err(|_| PublishError::Cancelled)?;
        let path = index.path().to_path_buf();
        let mut before = side_of(index, None).map_err(PublishError::Index)?;
        let mut published = self.published.take();
        let mut hashes = published.as_mut().map(|p| std::mem::take(&mut p.hashes)).unwrap_or_default();
        let have_hashes = !hashes.is_empty();
        if let Some(b) = before.as_mut() {
            match published.as_ref() {
                Some(p) if p.generation == b.generation && have_hashes => {
                    (b.node_hash, b.edge_hash) = (Some(p.side.0.clone()), Some(p.side.1.clone()));
                    b.source_identity = p.source_identity.clone();
                }
                // Another process published it: its receipt states the hashes, if it is ours.
                _ => {
                    if let Some(r) = crate::receipt::read_verified(&path) {
                        if r.to.generation == b.generation && r.to.graph_digest == b.graph_digest {
                            (b.node_hash, b.edge_hash) = (r.to.node_hash, r.to.edge_hash);
                            b.source_identity = r.to.source_identity;
                        }
                    }
                }
            }
        }
        let result = match published.as_ref().filter(|p| p.path == path && have_hashes) {
            Some(prev) => {
                let d = delta(prev, &snap);
                let items = items_from_memory(prev, &d);
                // Updated in place: a refused delta falls back to a full batch, which
                // recomputes every owner's digests anyway.
                for o in &d.upsert_owners {
                    hashes.insert(o.key.as_str().into(), crate::receipt::owner_hashes(&o.fragment));
                }
                for k in &d.remove_owners {
                    hashes.remove(k.as_str());
                }
                match index.publish_delta(d) {
                    Err(IndexError::GenerationMismatch { .. }) => publish_full(index, &snap),
                    other => other.map(|r| (r, (items, hashes))),
                }
            }
            None => publish_full(index, &snap),
        };
        let (report, (items, hashes)) = result.map_err(PublishError::Index)?;
        let side = crate::receipt::side_hashes(&hashes);
        if before.as_ref().map(|b| b.generation) != Some(report.generation) {
            let publication = index.publication().map_err(PublishError::Index)?;
            if let (Some(p), Some(mut to)) =
                (publication, side_of(index, self.source_identity.clone()).map_err(PublishError::Index)?)
            {
                (to.node_hash, to.edge_hash) = (Some(side.0.clone()), Some(side.1.clone()));
                let header = crate::receipt::Header {
                    project_id: self.project().id.clone(),
                    root: self.project().root.display().to_string(),
                    index_file: (p.dev, p.inode),
                    from: before,
                    to,
                };
                // The receipt is derived evidence: failing to write it leaves the reader's
                // status `missing`/`stale`, never a wrong `current`.
                if crate::receipt::write(&path, crate::receipt::build(header, items)).is_err() {
                    let _ = std::fs::remove_file(crate::receipt::receipt_path(&path));
                }
            }
        }
        self.published = Some(Published {
            path,
            generation: report.generation,
            chunks: snap.graph.chunks.iter().map(|c| (c.dir.clone(), c.clone())).collect(),
            extra: snap.graph.extra.clone(),
            skipped_files: snap.skipped_files.clone(),
            hashes,
            side,
            source_identity: self.source_identity.clone(),
        });
        Ok(report)
    }
}

impl AnalysisHost {
    /// Publish the current revision whole into `index` — a scratch index, such as the one a
    /// changeset preview renders from — without recording it as this host's publication
    /// (the next [`AnalysisHost::publish`] still sends its delta to the project's index) and
    /// without a transition receipt.
    pub fn publish_detached(&self, index: &mut Index) -> Result<PublishReport, PublishError> {
        let snap = self.snapshot().map_err(|_| PublishError::Cancelled)?;
        index.publish(full_batch(&snap)).map_err(PublishError::Index)
    }

    /// Treat the generation committed in `index` as this host's last publication when it
    /// holds exactly the current revision's graph (same owner digests and source
    /// fingerprint), so the next [`AnalysisHost::publish`] sends a delta instead of a full
    /// batch. Returns whether it adopted the generation; any doubt answers `false`.
    pub fn adopt_publication(&mut self, index: &Index) -> Result<bool, PublishError> {
        let Some(publication) = index.publication().map_err(PublishError::Index)? else { return Ok(false) };
        let snap = self.snapshot().map_err(|_| PublishError::Cancelled)?;
        let owners: Vec<Owner> = snap.graph.owners().map(owner).collect();
        if publication.source_fingerprint != snap.fingerprint
            || publication.graph_digest != docforge_index::graph_digest(&owners)
        {
            return Ok(false);
        }
        // The file records too (sizes and modification times are not part of the digests): a
        // file touched without a change in content must be recorded with its new stamp, or
        // the index would never again be proven current by stamps.
        let mut mine: Vec<&FileRecord> = snap.files().map(|f| &**f).collect();
        mine.sort_unstable_by(|a, b| a.path.cmp(&b.path));
        let stored = index.files().map_err(PublishError::Index)?;
        // Every field but `racy`: whether a stamp was racy when read is timing, not content
        // (either value is safe to keep; the next publication records this host's).
        let same = |s: &FileRecord, m: &FileRecord| *s == FileRecord { racy: s.racy, ..m.clone() };
        if stored.len() != mine.len() || stored.iter().zip(&mine).any(|(s, m)| !same(s, m)) {
            return Ok(false);
        }
        let hashes = all_hashes(&snap);
        self.published = Some(Published {
            path: index.path().to_path_buf(),
            generation: publication.generation,
            chunks: snap.graph.chunks.iter().map(|c| (c.dir.clone(), c.clone())).collect(),
            extra: snap.graph.extra.clone(),
            skipped_files: snap.skipped_files.clone(),
            side: crate::receipt::side_hashes(&hashes),
            hashes,
            source_identity: self.source_identity.clone(),
        });
        Ok(true)
    }
}

/// The identity of the committed generation for a receipt (`None` before the first).
fn side_of(
    index: &Index,
    source_identity: Option<String>,
) -> Result<Option<crate::receipt::Side>, IndexError> {
    let Some(p) = index.publication()? else { return Ok(None) };
    let meta = index.meta()?;
    let count = |k: &str| meta.get(&format!("summary.{k}")).and_then(|v| v.parse().ok()).unwrap_or(0);
    Ok(Some(crate::receipt::Side {
        generation: p.generation,
        source_fingerprint: p.source_fingerprint,
        source_identity,
        graph_digest: p.graph_digest,
        node_hash: None,
        edge_hash: None,
        nodes: count("nodes"),
        edges: count("edges"),
    }))
}

/// The changes a delta makes, from the fragments this host published last time.
fn items_from_memory(prev: &Published, d: &Delta) -> crate::receipt::ChangeSummary {
    let old: HashMap<&str, &Arc<docforge_model::Fragment>> = prev
        .chunks
        .values()
        .flat_map(|c| c.owners.iter())
        .chain(prev.extra.iter())
        .map(|o| (&*o.key, &o.fragment))
        .collect();
    let empty = docforge_model::Fragment::default();
    fn pair<'a>(
        o: &'a docforge_model::Fragment,
        n: &'a docforge_model::Fragment,
    ) -> crate::receipt::OwnerPair<'a> {
        crate::receipt::OwnerPair {
            old_nodes: &o.nodes,
            old_edges: Edges::Graph(&o.edges),
            new_nodes: &n.nodes,
            new_edges: Edges::Graph(&n.edges),
        }
    }
    let mut pairs: Vec<crate::receipt::OwnerPair<'_>> = d
        .upsert_owners
        .iter()
        .map(|o| pair(old.get(o.key.as_str()).map_or(&empty, |f| f), &o.fragment))
        .collect();
    pairs.extend(d.remove_owners.iter().map(|k| pair(old.get(k.as_str()).map_or(&empty, |f| f), &empty)));
    crate::receipt::changes(&pairs)
}

/// What a full batch replaces: the stored contents of owners that change or vanish, and
/// the new fragments of owners that change or appear.
struct Replaced<'a> {
    olds: Vec<docforge_index::OwnerContent>,
    news: Vec<&'a docforge_model::Fragment>,
}

fn replaced_by<'a>(index: &Index, snap: &'a Snapshot) -> Result<Replaced<'a>, IndexError> {
    let stored = index.owner_digests()?;
    let mut r = Replaced { olds: Vec::new(), news: Vec::new() };
    let mut seen = HashSet::new();
    for o in snap.graph.owners() {
        seen.insert(&*o.key);
        match stored.get(&*o.key) {
            Some(d) if *d == o.digest => {}
            Some(_) => {
                r.olds.push(index.owner_content(&o.key)?);
                r.news.push(&o.fragment);
            }
            None => r.news.push(&o.fragment),
        }
    }
    for key in stored.keys().filter(|k| !seen.contains(k.as_str())) {
        r.olds.push(index.owner_content(key)?);
    }
    Ok(r)
}

/// The change collection of a full batch.
fn items_replaced(r: &Replaced<'_>) -> crate::receipt::ChangeSummary {
    let mut pairs: Vec<crate::receipt::OwnerPair<'_>> = r
        .olds
        .iter()
        .map(|c| crate::receipt::OwnerPair {
            old_nodes: &c.nodes,
            old_edges: Edges::Stored(&c.edges),
            new_nodes: &[],
            new_edges: Edges::NONE,
        })
        .collect();
    pairs.extend(r.news.iter().map(|f| crate::receipt::OwnerPair {
        old_nodes: &[],
        old_edges: Edges::NONE,
        new_nodes: &f.nodes,
        new_edges: Edges::Graph(&f.edges),
    }));
    crate::receipt::changes(&pairs)
}

/// Publish a full batch while another thread computes its change collection and owner
/// digests (the SQLite transaction is single-threaded, so the receipt costs no wall time on
/// a second core).
type FullReceipt = (crate::receipt::ChangeSummary, crate::receipt::OwnerHashes);

fn publish_full(index: &mut Index, snap: &Snapshot) -> Result<(PublishReport, FullReceipt), IndexError> {
    let replaced = replaced_by(index, snap)?;
    // The receipt's items are computed beside the publication, on a thread the index
    // schedules where a core is free.
    let (report, items) =
        index.publish_with(full_batch(snap), || (items_replaced(&replaced), all_hashes(snap)));
    Ok((report?, items))
}

fn full_batch(snap: &Snapshot) -> Batch {
    Batch {
        files: snap.files().map(|f| (**f).clone()).collect(),
        owners: snap.graph.owners().map(owner).collect(),
        source_fingerprint: snap.fingerprint.clone(),
        meta: snap.meta.clone(),
    }
}

fn owner(o: &OwnerFragment) -> Owner {
    Owner { key: o.key.to_string(), digest: o.digest, fragment: o.fragment.clone() }
}

/// Compare two owner lists (old may be empty) and two file lists, adding the differences.
fn diff_owners(d: &mut Delta, old: &[OwnerFragment], new: &[OwnerFragment]) {
    let before: HashMap<&str, &[u8; 32]> = old.iter().map(|o| (&*o.key, &o.digest)).collect();
    let after: HashSet<&str> = new.iter().map(|o| &*o.key).collect();
    for o in new {
        if before.get(&*o.key) != Some(&&o.digest) {
            d.upsert_owners.push(owner(o));
        }
    }
    d.remove_owners.extend(old.iter().filter(|o| !after.contains(&*o.key)).map(|o| o.key.to_string()));
}

fn diff_files(d: &mut Delta, old: &[Arc<FileRecord>], new: &[Arc<FileRecord>]) {
    let before: HashMap<&str, &Arc<FileRecord>> = old.iter().map(|f| (f.path.as_str(), f)).collect();
    let after: HashSet<&str> = new.iter().map(|f| f.path.as_str()).collect();
    for f in new {
        match before.get(f.path.as_str()) {
            Some(&old) if Arc::ptr_eq(old, f) || **old == **f => {}
            _ => d.upsert_files.push((**f).clone()),
        }
    }
    d.remove_files.extend(old.iter().filter(|f| !after.contains(f.path.as_str())).map(|f| f.path.clone()));
}

fn delta(prev: &Published, snap: &Snapshot) -> Delta {
    let mut d = Delta {
        base_generation: prev.generation,
        source_fingerprint: snap.fingerprint.clone(),
        meta: snap.meta.clone(),
        ..Default::default()
    };
    let mut seen = HashSet::with_capacity(snap.graph.chunks.len());
    for chunk in &snap.graph.chunks {
        seen.insert(chunk.dir.as_str());
        match prev.chunks.get(&chunk.dir) {
            Some(old) if Arc::ptr_eq(old, chunk) => {}
            Some(old) => {
                diff_owners(&mut d, &old.owners, &chunk.owners);
                diff_files(&mut d, &old.files, &chunk.files);
            }
            None => {
                diff_owners(&mut d, &[], &chunk.owners);
                diff_files(&mut d, &[], &chunk.files);
            }
        }
    }
    for (dir, old) in &prev.chunks {
        if !seen.contains(dir.as_str()) {
            diff_owners(&mut d, &old.owners, &[]);
            diff_files(&mut d, &old.files, &[]);
        }
    }
    diff_owners(&mut d, &prev.extra, &snap.graph.extra);
    if !Arc::ptr_eq(&prev.skipped_files, &snap.skipped_files) {
        diff_files(&mut d, &prev.skipped_files, &snap.skipped_files);
    }
    // An owner or file that moved between directories is both removed and upserted: keep
    // the upsert only (the index refuses a key in both lists).
    let upserted: HashSet<String> = d.upsert_owners.iter().map(|o| o.key.clone()).collect();
    d.remove_owners.retain(|k| !upserted.contains(k));
    let upserted: HashSet<String> = d.upsert_files.iter().map(|f| f.path.clone()).collect();
    d.remove_files.retain(|p| !upserted.contains(p));
    d
}

fn summary_counts(s: &crate::Summary) -> [(&'static str, usize); 13] {
    [
        ("files", s.files),
        ("docs", s.docs),
        ("go_files", s.go_files),
        ("go_files_selected", s.go_files_selected),
        ("go_files_excluded", s.go_files_excluded),
        ("modules", s.modules),
        ("packages", s.packages),
        ("nodes", s.nodes),
        ("edges", s.edges),
        ("errors", s.errors),
        ("warnings", s.warnings),
        ("skipped", s.skipped),
        ("complete", s.completeness.complete as usize),
    ]
}

/// Whether a published precision answers a request: a `precise` request is answered by a
/// precise analysis even when it fell back for some packages (the sources decide that, and
/// they are compared separately).
fn precision_satisfies(published: Option<&str>, wanted: &str) -> bool {
    match (published, wanted) {
        (Some("precise_fallback"), "precise") => true,
        (Some(p), w) => p == w,
        (None, _) => false,
    }
}

/// The summary a publication recorded, so a later process can report it without analysing.
pub fn published_summary(meta: &BTreeMap<String, String>) -> Option<crate::Summary> {
    let n = |k: &str| meta.get(&format!("summary.{k}")).and_then(|v| v.parse::<usize>().ok());
    let precision = match meta.get("precision")?.as_str() {
        "ast" => Some(docforge_model::Precision::Ast),
        "precise" => Some(docforge_model::Precision::Precise),
        "precise_fallback" => Some(docforge_model::Precision::PreciseFallback),
        _ => None,
    };
    let reasons = meta
        .get("completeness_reasons")
        .map_or(Vec::new(), |r| r.split(", ").filter(|s| !s.is_empty()).map(String::from).collect());
    Some(crate::Summary {
        files: n("files")?,
        docs: n("docs")?,
        go_files: n("go_files")?,
        go_files_selected: n("go_files_selected")?,
        go_files_excluded: n("go_files_excluded")?,
        modules: n("modules")?,
        packages: n("packages")?,
        nodes: n("nodes")?,
        edges: n("edges")?,
        errors: n("errors")?,
        warnings: n("warnings")?,
        skipped: n("skipped")?,
        precision,
        precision_reasons: meta
            .get("precision_reasons")
            .map_or(Vec::new(), |r| r.lines().filter(|s| !s.is_empty()).map(String::from).collect()),
        completeness: crate::Completeness { complete: n("complete")? == 1, reasons },
    })
}

/// Whether `index` already holds the graph of the sources on disk, judged without reading
/// any source: same engine version and derivation, AST policy and `docforge.toml`, the same
/// inventory (paths,
/// kinds, refusals) and every loaded file with the same size and modification time — the
/// cheap identity `make` and `git status` use. Any doubt answers `false`.
pub fn published_is_current(
    project: &docforge_project::Project,
    inventory: &docforge_project::Inventory,
    policy: docforge_syntax::AstPolicy,
    precise: bool,
    index: &Index,
) -> Result<bool, IndexError> {
    let Some(publication) = index.publication()? else { return Ok(false) };
    let meta = index.meta()?;
    let allow = policy == docforge_syntax::AstPolicy::Allow;
    let precision = match (allow, precise) {
        (false, _) => "none",
        (true, false) => "ast",
        (true, true) => "precise",
    };
    let policy = if allow { "allow" } else { "no_ast" };
    if publication.generation == 0
        || meta.get("ast_policy").map(String::as_str) != Some(policy)
        || !precision_satisfies(meta.get("precision").map(String::as_str), precision)
        || published_summary(&meta).is_none()
    {
        return Ok(false);
    }
    published_sources_current(project, inventory, index)
}

/// Whether the source `rel` of `project` holds, as read now, the bytes whose SHA-256 is
/// `sha256` (a file whose stamp cannot vouch for it: see `FileRecord::racy`).
pub fn holds(project: &docforge_project::Project, rel: &str, sha256: &str) -> bool {
    docforge_project::read_source(&project.root, rel, project.config.limits.max_file_bytes)
        .is_ok_and(|bytes| crate::sha256_hex(&bytes) == sha256)
}

/// Whether reading the source `rel` of `project` now fails with the refusal `code` it was
/// recorded with.
fn refused_again(project: &docforge_project::Project, rel: &str, code: &str) -> bool {
    let limit = project.config.limits.max_file_bytes;
    docforge_project::read_source(&project.root, rel, limit).is_err_and(|e| e.code() == code)
}

/// Whether the published generation was derived from exactly the sources `inventory` saw
/// (same engine version and [`DERIVATION`], same `docforge.toml`, every file with the size,
/// times and inode recorded), whatever its policy and precision: the cheap identity a read
/// checks before trusting the index. A file recorded as racy (its stamp was within [`docforge_project::RACY_WINDOW`] of
/// when the publisher read it: a write in the same clock tick can leave it equal) is read and
/// compared with the recorded SHA-256, as Git does with racily clean entries.
pub fn published_sources_current(
    project: &docforge_project::Project,
    inventory: &docforge_project::Inventory,
    index: &Index,
) -> Result<bool, IndexError> {
    let meta = index.meta()?;
    let config = crate::sha256_hex(project.config_text.as_bytes());
    if meta.get("engine_version").map(String::as_str) != Some(ENGINE_VERSION)
        || meta.get("derivation").map(String::as_str) != Some(DERIVATION)
        || meta.get("config_sha256") != Some(&config)
        || !inventory.errors.is_empty()
    {
        return Ok(false);
    }
    let stored: HashMap<String, FileRecord> =
        index.files()?.into_iter().map(|f| (f.path.clone(), f)).collect();
    if stored.len() != inventory.entries.len() {
        return Ok(false);
    }
    for e in &inventory.entries {
        let Some(record) = stored.get(&e.rel) else { return Ok(false) };
        let same = match (&e.status, e.stamp) {
            (docforge_project::EntryStatus::Selected, Some(stamp)) => {
                record.kind == e.kind.as_str()
                    && record.size == stamp.size
                    && record.mtime_ns == stamp.mtime_ns
                    && record.ctime_ns == stamp.ctime_ns
                    && record.ino == stamp.ino
                    && match record.status.strip_prefix("refused:") {
                        // No content to compare: tried again, it must fail the same way (a
                        // passing I/O error, or a reader allowed what the publisher was not,
                        // reads it now).
                        Some(code) => refused_again(project, &e.rel, code),
                        None => !record.racy || holds(project, &e.rel, &record.sha256),
                    }
            }
            (docforge_project::EntryStatus::Selected, None) => false,
            (status, _) => record.status == status.label(),
        };
        if !same {
            return Ok(false);
        }
    }
    Ok(true)
}
