//! The host that owns the database and applies changes, and the snapshots fronts read from.
//!
//! Like rust-analyzer's `AnalysisHost`/`Analysis`: writes go through [`AnalysisHost::apply_change`];
//! readers take an [`Analysis`] snapshot. A write cancels running reads, which then return
//! `Err(Cancelled)` instead of blocking the edit.

use crate::assemble::graph;
use crate::db::RootDatabase;
use crate::graph::Graph;
use crate::inputs::{Content, InventoryInfo, SourceFile, Workspace};
use docforge_go::BuildContext;
use docforge_project::{discover, read_source, EntryStatus, FileKind, FileStamp, Inventory, Project};
use docforge_syntax::{AstPolicy, GateCounters};
use salsa::{Cancelled, Durability, Setter};
use std::collections::BTreeMap;
use std::sync::atomic::AtomicUsize;
use std::sync::Arc;

pub type Cancellable<T> = Result<T, Cancelled>;

/// Work counters a long operation updates and a front may poll (e.g. for a progress bar).
#[derive(Debug, Default)]
pub struct Progress {
    pub done: AtomicUsize,
    pub total: AtomicUsize,
}

/// One file's new state.
#[derive(Clone, Debug)]
pub enum FileChange {
    Set { rel: String, kind: FileKind, content: Content },
    Remove { rel: String },
}

/// A batch of changes applied as one new revision.
#[derive(Clone, Debug, Default)]
pub struct Change {
    pub files: Vec<FileChange>,
    pub inventory: Option<InventoryInfo>,
    pub build: Option<BuildContext>,
}

/// See [`AnalysisHost::overlay_point`].
pub struct OverlayPoint {
    stamps: Vec<(String, Option<FileStamp>, bool)>,
    source_identity: Option<String>,
}

/// What a disk sync did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// Files read because they are new or their stamp changed (or, racy, their content did).
    pub read: usize,
    pub removed: usize,
    /// Files whose stamp vouched for them, and racy ones whose content was found unchanged.
    pub unchanged: usize,
    pub skipped: usize,
    pub scan_errors: usize,
}

impl SyncReport {
    pub fn changed(&self) -> bool {
        self.read > 0 || self.removed > 0
    }
}

pub struct AnalysisHost {
    db: RootDatabase,
    ws: Workspace,
    project: Project,
    files: BTreeMap<String, (SourceFile, Option<FileStamp>)>,
    /// Files whose stamp was racy when their content was read (a time within
    /// [`docforge_project::RACY_WINDOW`] of the read): an equal stamp does not vouch for
    /// their content, so a sync reads them again ([`AnalysisHost::recheck_racy`]).
    racy: std::collections::BTreeSet<String>,
    /// What this host last published, so the next publication can send only a delta.
    pub(crate) published: Option<crate::publish::Published>,
    /// The cheap identity of the inventory of the last disk sync; `None` once an editor
    /// change made the revision differ from the disk.
    pub(crate) source_identity: Option<String>,
}

/// SHA-256 over what a walk saw (paths, kinds, states, sizes, modification times, scanner
/// errors): the cheap identity of the sources, computed without reading a file.
pub fn cheap_identity(inv: &Inventory) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for e in &inv.entries {
        let s = e.stamp.unwrap_or_default();
        h.update(e.rel.as_bytes());
        h.update([0]);
        h.update(e.kind.as_str().as_bytes());
        h.update([0]);
        match &e.status {
            EntryStatus::Selected => h.update(b"selected"),
            other => h.update(other.label().as_bytes()),
        }
        h.update([0]);
        // Not the device: a remount may renumber it (Git leaves it out too).
        for field in [s.size, s.mtime_ns as u64, s.ctime_ns as u64, s.ino] {
            h.update(field.to_le_bytes());
        }
    }
    for (path, err) in &inv.errors {
        h.update(b"error\0");
        h.update(path.as_bytes());
        h.update([0]);
        h.update(err.as_bytes());
        h.update([0]);
    }
    hex::encode(h.finalize())
}

pub fn build_context(project: &Project) -> BuildContext {
    let go = &project.config.go;
    BuildContext {
        goos: go.goos.clone(),
        goarch: go.goarch.clone(),
        cgo_enabled: go.cgo,
        build_tags: go.tags.clone(),
        ..BuildContext::default()
    }
}

impl AnalysisHost {
    pub fn new(project: Project, policy: AstPolicy) -> Self {
        Self::with_database(project, RootDatabase::new(policy))
    }

    /// A host whose database records query executions (see [`crate::ExecutionLog`]); for
    /// tests and diagnostics, since observing every salsa event has a cost.
    pub fn with_execution_log(project: Project, policy: AstPolicy) -> Self {
        Self::with_database(project, RootDatabase::with_execution_log(policy))
    }

    fn with_database(project: Project, db: RootDatabase) -> Self {
        let root = project.root.display().to_string();
        // Workspace-level inputs change rarely (a new file, a new build context): MEDIUM, so
        // that an edit (LOW) of one file is verified without revisiting every memo that
        // reads them (salsa's durability shortcut).
        let ws = Workspace::builder(
            root,
            Vec::new(),
            build_context(&project),
            Arc::new(InventoryInfo::default()),
            false,
            true,
            None,
            None,
        )
        .durability(Durability::MEDIUM)
        .new(&db);
        AnalysisHost {
            db,
            ws,
            project,
            files: BTreeMap::new(),
            racy: Default::default(),
            published: None,
            source_identity: None,
        }
    }

    /// Switch the Go semantic layer on or off (`precise` vs `ast` facts).
    pub fn set_precise(&mut self, on: bool) {
        if self.ws.precise(&self.db) != on {
            self.ws.set_precise(&mut self.db).with_durability(Durability::MEDIUM).to(on);
        }
    }

    /// Whether the Go semantic layer runs (`precise` facts).
    pub fn precise(&self) -> bool {
        self.ws.precise(&self.db)
    }

    /// Let editor navigation read the standard library of the Go installation at `goroot`
    /// (`None`: never read outside the project). See [`crate::external_q`].
    pub fn set_goroot(&mut self, goroot: Option<&std::path::Path>) {
        let goroot = goroot.map(|p| p.display().to_string());
        if *self.ws.goroot(&self.db) != goroot {
            self.ws.set_goroot(&mut self.db).with_durability(Durability::HIGH).to(goroot);
        }
    }

    /// Let editor navigation read the copies of required modules in the Go module cache at
    /// `dir` (`None`: never). See [`crate::external_q`].
    pub fn set_module_cache(&mut self, dir: Option<&std::path::Path>) {
        let dir = dir.map(|p| p.display().to_string());
        if *self.ws.modcache(&self.db) != dir {
            self.ws.set_modcache(&mut self.db).with_durability(Durability::HIGH).to(dir);
        }
    }

    /// Drop the per-file values salsa keeps only for the most recent files (parses, body
    /// facts, Logic) beyond their LRU bound. Salsa evicts when a revision starts, so a cold
    /// analysis keeps every file's values until the next change; a long-lived host calls this
    /// once its first analysis is done. No input changes: every memo stays valid.
    pub fn trim_memory(&mut self) {
        use salsa::Database as _;
        self.db.synthetic_write(Durability::LOW);
        // The evicted values were mostly allocated by the analysis's worker threads.
        docforge_syntax::alloc::release_free_memory();
    }

    /// Whether precise analysis projects Logic (on by default).
    pub fn set_logic(&mut self, on: bool) {
        if self.ws.logic(&self.db) != on {
            self.ws.set_logic(&mut self.db).with_durability(Durability::MEDIUM).to(on);
        }
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    pub fn policy(&self) -> AstPolicy {
        use crate::Db;
        self.db.gate().policy()
    }

    pub fn gate_counters(&self) -> GateCounters {
        use crate::Db;
        self.db.gate().counters()
    }

    pub fn execution_log(&self) -> &crate::ExecutionLog {
        self.db.execution_log()
    }

    /// Apply a batch of changes as one revision (an editor's edits). Cancels outstanding
    /// [`Analysis`] reads. Edited files get LOW durability, like rust-analyzer's workspace
    /// files, so repeated edits of one file do not re-verify what depends only on others.
    pub fn apply_change(&mut self, change: Change) {
        self.source_identity = None;
        self.apply(change, &BTreeMap::new(), Durability::LOW, now_ns());
    }

    /// `began`: a time no later than the contents were read (what their stamps are judged
    /// against: [`FileStamp::settled_before`]).
    fn apply(
        &mut self,
        change: Change,
        stamps: &BTreeMap<String, FileStamp>,
        durability: Durability,
        began: i128,
    ) {
        let mut list_changed = false;
        // Outlines and index entries cost a parse here, on one thread, before the analysis
        // parses again: worth it for the few files an editor or a save changes, not for a
        // branch switch (whose files then read as they are, like files loaded from disk).
        let sets = change.files.iter().filter(|fc| matches!(fc, FileChange::Set { .. })).count();
        let outlines = sets <= MAX_OUTLINED_CHANGES;
        for fc in change.files {
            match fc {
                FileChange::Set { rel, kind, content } => {
                    let stamp = stamps.get(&rel).copied();
                    let recorded = stamp.unwrap_or_default();
                    let racy = stamp.is_some_and(|s| !s.settled_before(began));
                    if racy {
                        self.racy.insert(rel.clone());
                    } else {
                        self.racy.remove(&rel);
                    }
                    match self.files.get_mut(&rel) {
                        // Read again (a racy stamp, a touch): nothing but the stamp changed.
                        Some((file, old_stamp))
                            if file.kind(&self.db) == kind && *file.content(&self.db) == content =>
                        {
                            record_stamp(&mut self.db, *file, recorded, racy);
                            *old_stamp = stamp;
                        }
                        Some((file, old_stamp)) => {
                            if file.kind(&self.db) != kind {
                                file.set_kind(&mut self.db).to(kind);
                            }
                            // A file that changes after its first load is being edited (in an
                            // editor or on disk): LOW, so the next edits of it do not re-verify
                            // what depends only on files that never changed.
                            // What other files read of it is set apart, MEDIUM as files are
                            // loaded and only when it changes, so what reads only that keeps its
                            // durability and can be backdated (`SourceFile::outline`,
                            // `SourceFile::index_entry`).
                            let outline =
                                outlines.then(|| outline_of(&self.db, &rel, kind, &content)).flatten();
                            let is_doc = matches!(kind, FileKind::Markdown | FileKind::TomlNode);
                            let entry = (outlines && is_doc).then(|| {
                                let facts = crate::Db::prepared_docs(&self.db).prepare(&rel, kind, &content);
                                Arc::new(facts.index_entry())
                            });
                            file.set_content(&mut self.db).with_durability(Durability::LOW).to(content);
                            if *file.outline(&self.db) != outline {
                                file.set_outline(&mut self.db)
                                    .with_durability(Durability::MEDIUM)
                                    .to(outline);
                            }
                            if *file.index_entry(&self.db) != entry {
                                file.set_index_entry(&mut self.db)
                                    .with_durability(Durability::MEDIUM)
                                    .to(entry);
                            }
                            record_stamp(&mut self.db, *file, recorded, racy);
                            *old_stamp = stamp;
                        }
                        None => {
                            let file = SourceFile::builder(rel.clone(), kind, content, recorded, racy)
                                .durability(durability)
                                .new(&self.db);
                            self.files.insert(rel, (file, stamp));
                            list_changed = true;
                        }
                    }
                }
                FileChange::Remove { rel } => {
                    list_changed |= self.files.remove(&rel).is_some();
                    self.racy.remove(&rel);
                }
            }
        }
        if list_changed {
            let list: Vec<SourceFile> = self.files.values().map(|(f, _)| *f).collect();
            self.ws.set_files(&mut self.db).with_durability(Durability::MEDIUM).to(list);
        }
        if let Some(inv) = change.inventory {
            if **self.ws.inventory(&self.db) != inv {
                self.ws.set_inventory(&mut self.db).with_durability(Durability::MEDIUM).to(Arc::new(inv));
            }
        }
        if let Some(build) = change.build {
            if *self.ws.build(&self.db) != build {
                self.ws.set_build(&mut self.db).with_durability(Durability::MEDIUM).to(build);
            }
        }
    }

    /// Walk the project root and load what changed since the last sync: files whose cheap
    /// stamp (size, mtime, inode) is unchanged are not read again.
    pub fn sync_from_disk(&mut self) -> SyncReport {
        let inv = discover(&self.project);
        self.sync_from_inventory(&inv)
    }

    /// Re-read only `rels` (selected files of `inv` whose stamps changed), when the caller
    /// knows that nothing else in the inventory changed since the last sync (e.g. a file
    /// watcher named them). `identity` is [`cheap_identity`] of `inv`, which the caller has.
    /// Any path that is not a loaded, selected file falls back to a full inventory sync.
    pub fn sync_paths(&mut self, inv: &Inventory, identity: String, rels: &[String]) -> SyncReport {
        let began = now_ns();
        let limit = self.project.config.limits.max_file_bytes;
        let by_rel: std::collections::HashMap<&str, &docforge_project::Entry> =
            inv.entries.iter().map(|e| (e.rel.as_str(), e)).collect();
        let mut change = Change::default();
        let mut stamps = BTreeMap::new();
        let mut report = SyncReport { scan_errors: inv.errors.len(), ..Default::default() };
        for rel in rels {
            let entry = match by_rel.get(rel.as_str()) {
                Some(e) if e.status == EntryStatus::Selected && self.files.contains_key(rel) => *e,
                _ => return self.sync_from_inventory(inv),
            };
            if self.files.get(rel).and_then(|(_, s)| *s) == entry.stamp && self.vouched(rel) {
                report.unchanged += 1;
                continue;
            }
            let content = match read_source(&self.project.root, rel, limit) {
                Ok(bytes) => Content::Bytes(bytes.into()),
                Err(e) => Content::Unreadable { code: e.code().to_string(), message: e.to_string() },
            };
            if let Some(s) = entry.stamp {
                stamps.insert(rel.clone(), s);
            }
            report.read += 1;
            change.files.push(FileChange::Set { rel: rel.clone(), kind: entry.kind, content });
        }
        self.apply(change, &stamps, Durability::MEDIUM, began);
        self.source_identity = Some(identity);
        report
    }

    /// [`AnalysisHost::sync_from_disk`] with a walk the caller already made.
    pub fn sync_from_inventory(&mut self, inv: &Inventory) -> SyncReport {
        let began = now_ns();
        let mut report = SyncReport { scan_errors: inv.errors.len(), ..Default::default() };
        let mut change = Change::default();
        let mut stamps = BTreeMap::new();
        let mut info = InventoryInfo {
            skipped: Vec::new(),
            scan_errors: inv.errors.clone(),
            surroundings: inv.surroundings.clone(),
        };
        let mut seen = std::collections::BTreeSet::new();
        let limit = self.project.config.limits.max_file_bytes;
        let mut to_read = Vec::new();
        for entry in &inv.entries {
            if entry.status != EntryStatus::Selected {
                report.skipped += 1;
                info.skipped.push((entry.rel.clone(), entry.kind, entry.status.label()));
                continue;
            }
            seen.insert(entry.rel.clone());
            if let (Some((_, Some(old))), Some(new)) = (self.files.get(&entry.rel), entry.stamp) {
                if *old == new && self.vouched(&entry.rel) {
                    report.unchanged += 1;
                    continue;
                }
            }
            to_read.push(entry);
        }
        let contents = read_all(&self.project.root, &to_read, limit);
        for (entry, content) in to_read.into_iter().zip(contents) {
            if let Some(s) = entry.stamp {
                stamps.insert(entry.rel.clone(), s);
            }
            report.read += 1;
            change.files.push(FileChange::Set { rel: entry.rel.clone(), kind: entry.kind, content });
        }
        for rel in self.files.keys() {
            if !seen.contains(rel) {
                report.removed += 1;
                change.files.push(FileChange::Remove { rel: rel.clone() });
            }
        }
        change.inventory = Some(info);
        // Files as found on disk change rarely compared with files being edited.
        self.apply(change, &stamps, Durability::MEDIUM, began);
        self.source_identity = Some(cheap_identity(inv));
        report
    }

    /// Cancel every running [`Analysis`] read (they return `Err(Cancelled)`); blocks until
    /// they have unwound. Nothing changes (an editor's `$/cancelRequest`).
    pub fn request_cancellation(&mut self) {
        use salsa::Database;
        self.db.trigger_cancellation();
    }

    pub fn analysis(&self) -> Analysis {
        Analysis { db: self.db.clone(), ws: self.ws }
    }

    /// What [`AnalysisHost::end_overlay`] puts back after files were overlaid in memory: their
    /// stamps and racy marks as loaded from disk, and the disk sync's identity.
    pub fn overlay_point(&self, rels: &[String]) -> OverlayPoint {
        OverlayPoint {
            stamps: rels
                .iter()
                .map(|rel| {
                    let stamp = self.files.get(rel).and_then(|(_, s)| *s);
                    (rel.clone(), stamp, self.racy.contains(rel))
                })
                .collect(),
            source_identity: self.source_identity.clone(),
        }
    }

    /// After the overlaid files were loaded again from disk (`apply_change`, which knows no
    /// stamps): their stamps, racy marks and the sync identity as they were, so the host
    /// stands for the disk as before and nothing is republished for the overlay.
    pub fn end_overlay(&mut self, point: OverlayPoint) {
        for (rel, stamp, racy) in point.stamps {
            let Some((file, slot)) = self.files.get_mut(&rel) else { continue };
            let file = *file;
            *slot = stamp;
            record_stamp(&mut self.db, file, stamp.unwrap_or_default(), racy);
            if racy {
                self.racy.insert(rel);
            } else {
                self.racy.remove(&rel);
            }
        }
        self.source_identity = point.source_identity;
    }

    /// The input handle of a loaded file.
    pub fn file(&self, rel: &str) -> Option<SourceFile> {
        self.files.get(rel).map(|(f, _)| *f)
    }

    /// Whether an unchanged stamp of loaded file `rel` stands for its content: always, but for
    /// a racy one ([`AnalysisHost::racy`]), whose bytes are read and compared (trusted from
    /// then on once the stamp is settled).
    fn vouched(&mut self, rel: &str) -> bool {
        if !self.racy.contains(rel) {
            return true;
        }
        let Some(&(file, stamp)) = self.files.get(rel) else { return false };
        let now = now_ns();
        let limit = self.project.config.limits.max_file_bytes;
        let same = match (read_source(&self.project.root, rel, limit), file.content(&self.db)) {
            (Ok(bytes), Content::Bytes(loaded)) => *bytes == **loaded,
            (Err(e), Content::Unreadable { code, .. }) => e.code() == code,
            _ => false,
        };
        if same && stamp.is_some_and(|s| s.settled_before(now)) {
            self.racy.remove(rel);
            file.set_racy(&mut self.db).with_durability(Durability::LOW).to(false);
        }
        same
    }

    /// Read every file whose stamp was racy when loaded ([`AnalysisHost::racy`]) and compare
    /// its content with the loaded one: the paths whose content differs (or that cannot be
    /// read as they were). A file found unchanged whose stamp is settled by now is trusted
    /// from then on. Nothing is loaded: a caller that gets paths re-syncs them.
    pub fn recheck_racy(&mut self) -> Vec<String> {
        let racy: Vec<String> = self.racy.iter().cloned().collect();
        racy.into_iter().filter(|rel| !self.vouched(rel)).collect()
    }
}

/// Set a loaded file's stamp and racy mark where they changed. LOW like the content: a
/// setter keeps the field's MEDIUM durability otherwise, and every disk edit would then
/// re-verify the whole project (the shortcut never fires).
fn record_stamp(db: &mut RootDatabase, file: SourceFile, stamp: FileStamp, racy: bool) {
    if file.stamp(db) != stamp {
        file.set_stamp(db).with_durability(Durability::LOW).to(stamp);
    }
    if file.racy(db) != racy {
        file.set_racy(db).with_durability(Durability::LOW).to(racy);
    }
}

/// Now, in nanoseconds since the Unix epoch.
fn now_ns() -> i128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as i128)
}

/// Read `entries` (in order) through the confined reader; a cold load reads on two threads
/// (the read and the copy into shared bytes), a few changed files on this one.
fn read_all(root: &std::path::Path, entries: &[&docforge_project::Entry], limit: u64) -> Vec<Content> {
    let reader = docforge_project::SourceReader::new(root);
    let read = |entry: &docforge_project::Entry| match reader.read_into_vec(&entry.rel, limit) {
        Ok(bytes) => Content::Bytes(bytes.into()),
        Err(e) => Content::Unreadable { code: e.code().to_string(), message: e.to_string() },
    };
    if entries.len() < 256 {
        return entries.iter().map(|e| read(e)).collect();
    }
    let (first, second) = entries.split_at(entries.len() / 2);
    std::thread::scope(|scope| {
        let tail = scope.spawn(|| second.iter().map(|e| read(e)).collect::<Vec<_>>());
        let mut contents: Vec<Content> = first.iter().map(|e| read(e)).collect();
        contents.extend(tail.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        contents
    })
}

/// A read-only snapshot. Every method returns `Err(Cancelled)` if the host applies a change
/// while it runs.
#[derive(Clone)]
pub struct Analysis {
    db: RootDatabase,
    ws: Workspace,
}

impl Analysis {
    pub(crate) fn with<T>(&self, f: impl FnOnce(&RootDatabase) -> T) -> Cancellable<T> {
        let db = &self.db;
        Cancelled::catch(std::panic::AssertUnwindSafe(|| f(db)))
    }

    pub(crate) fn parts(&self) -> (&RootDatabase, Workspace) {
        (&self.db, self.ws)
    }

    pub fn graph(&self) -> Cancellable<Arc<Graph>> {
        let ws = self.ws;
        Cancelled::catch(std::panic::AssertUnwindSafe(|| graph(&self.db, ws).clone()))
    }
}

/// Above this many changed files in one change, none gets an outline or index entry (see
/// `AnalysisHost::apply`).
const MAX_OUTLINED_CHANGES: usize = 16;

/// The outline text of a Go file's new content (`None` for other files, unreadable
/// content, or under the no-AST policy). Parsed through the tree cache, so the file's
/// own parse that follows reuses the tree.
fn outline_of(db: &dyn crate::Db, rel: &str, kind: FileKind, content: &Content) -> Option<Arc<[u8]>> {
    let Content::Bytes(bytes) = content else { return None };
    if kind != FileKind::Go || db.gate().policy() != docforge_syntax::AstPolicy::Allow {
        return None;
    }
    let go = db.gate().go().ok()?;
    let tree = db.trees().parse(go, rel, bytes);
    Some(docforge_go::outline_text(&tree, bytes).map_or_else(|| bytes.clone(), Arc::from))
}
