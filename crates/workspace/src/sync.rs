//! The binding and its synchronisation: every read first proves the published index current
//! by cheap source identity (a stat walk, skipped when the change watcher proves nothing
//! moved) and otherwise re-syncs the warm salsa database and publishes the new generation
//! atomically.

use crate::identity::{binding_stamp, file_identity, Generation, Staleness};
use crate::settings::{resolve, Options, Precision, Settings};
use crate::watch::Watcher;
use crate::WorkspaceError;
use docforge_db::{cheap_identity, published_is_current, published_sources_current, AnalysisHost};
use docforge_index::{Index, IndexError, PublishReport};
use docforge_project::{discover, Inventory, Project};
use serde::Serialize;
use std::path::Path;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Counters of one synchronisation (diagnostics; no paths or IDs).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SyncStats {
    /// The whole tree was walked (not only the files the watcher named).
    pub walked: bool,
    pub files_read: usize,
    pub files_unchanged: usize,
    pub files_removed: usize,
    pub owners_written: usize,
    pub walk_ms: f64,
    pub analysis_ms: f64,
    pub publish_ms: f64,
    /// What the publication wrote, when there was one.
    #[serde(skip)]
    pub publish: Option<PublishReport>,
    /// Why the index file was rebuilt from nothing (another schema, a damaged file).
    #[serde(skip)]
    pub recreated: Option<String>,
}

/// The outcome of [`Workspace::ensure_current`].
#[derive(Clone, Debug)]
pub struct Synced {
    pub generation: Generation,
    pub staleness: Staleness,
    pub stats: SyncStats,
}

/// What a long synchronisation is doing, for a progress display.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Scanning,
    Analysing,
    Publishing,
}

/// Progress a front may poll while [`Workspace::ensure_current`] runs on another thread.
#[derive(Debug, Default)]
pub struct SyncProgress {
    /// Files analysed out of the total, during [`Phase::Analysing`].
    pub analysis: docforge_db::Progress,
    phase: AtomicU8,
}

impl SyncProgress {
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            1 => Phase::Scanning,
            2 => Phase::Analysing,
            3 => Phase::Publishing,
            _ => Phase::Idle,
        }
    }

    fn set(&self, phase: Phase) {
        self.phase.store(phase as u8, Ordering::Relaxed);
    }
}

/// The published index opened for a read without synchronising.
pub struct Published {
    pub index: Index,
    /// Whether it was derived from the sources as they are now (same engine, same
    /// `docforge.toml`, every file with its recorded size and modification time).
    pub current: bool,
}

/// One project bound once: its settings, its warm analysis and its published index.
pub struct Workspace {
    project: Project,
    settings: Settings,
    threads: usize,
    execution_log: bool,
    /// [`binding_stamp`] when the binding was made.
    stamp: String,
    progress: Arc<SyncProgress>,
    host: Option<AnalysisHost>,
    index: Option<Index>,
    /// The file identity the read connection was opened on.
    index_opened_on: Option<(u64, u64)>,
    /// The index file's stamp (size, times, inode) as this binding left it after its last
    /// publication or adoption: any other write to the file (another process publishing, or
    /// the file overwritten in place) changes it, and nothing read before is trusted.
    index_stamp: Option<docforge_project::FileStamp>,
    /// After adopting a published generation (no host yet): its files recorded as racy, with
    /// their recorded SHA-256.
    adopted_racy: Vec<(String, String)>,
    /// The write connection and the file identity it was opened on.
    writer: Option<(Index, Option<(u64, u64)>)>,
    current: Option<Generation>,
    watcher: Option<Watcher>,
    /// A host being built in the background after a published index was adopted, so the
    /// first edit costs a delta, not a cold analysis.
    warming: Option<std::thread::JoinHandle<Option<AnalysisHost>>>,
    /// Set when a published generation was adopted: the warm-up starts when the front says.
    warm_pending: Option<Inventory>,
    /// The inventory of the last walk (restamped for touched files).
    inventory: Option<Inventory>,
    /// Full index statistics, computed once per generation when asked for.
    stats: Option<(u64, Arc<docforge_index::Stats>)>,
    /// A read found a source unlike the index although the watcher saw nothing (a write
    /// through a hard link outside the project, say): the next call walks the whole tree.
    pub(crate) walk_next: std::sync::atomic::AtomicBool,
    /// The highest generation this binding served: a new index file (the old one deleted or
    /// replaced) numbers its generations after it, so one revision never names two graphs.
    revision_floor: u64,
}

impl Workspace {
    /// Bind the project at `root` (canonicalised; `docforge.toml` read once).
    pub fn bind(root: &Path, opts: Options) -> Result<Workspace, WorkspaceError> {
        Workspace::from_project(Project::load(root)?, opts)
    }

    /// Bind an already loaded project.
    pub fn from_project(project: Project, opts: Options) -> Result<Workspace, WorkspaceError> {
        // Before anything else: a canonical application a killed process left is finished or
        // undone, so nothing reads a mix of old and new documents.
        docforge_project::recover_application(&project.root)
            .map_err(|e| WorkspaceError::Recovery(e.to_string()))?;
        let settings = resolve(&project, &opts)?;
        let derived = project.config.derived_dirs();
        let watcher = if opts.watch { Watcher::start(&project.root, &derived).ok() } else { None };
        let threads = opts
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
            .max(1);
        Ok(Workspace {
            stamp: binding_stamp(&project.root),
            project,
            settings,
            threads,
            execution_log: opts.execution_log,
            progress: Default::default(),
            host: None,
            index: None,
            index_opened_on: None,
            index_stamp: None,
            adopted_racy: Vec::new(),
            writer: None,
            current: None,
            watcher,
            warming: None,
            warm_pending: None,
            inventory: None,
            stats: None,
            walk_next: Default::default(),
            revision_floor: 0,
        })
    }

    pub fn project(&self) -> &Project {
        &self.project
    }

    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    pub fn precision(&self) -> Precision {
        self.settings.precision
    }

    /// The index this binding reads and publishes.
    pub fn index_path(&self) -> &Path {
        &self.settings.index_path
    }

    /// Progress of the running synchronisation (shared; poll it from another thread).
    pub fn progress(&self) -> Arc<SyncProgress> {
        self.progress.clone()
    }

    /// A new analysis host configured as this binding says (policy, precision).
    fn new_host(&self) -> AnalysisHost {
        new_host(&self.project, self.settings.precision, self.execution_log)
    }

    /// The binding's analysis host, created on first use (its files are not loaded by this
    /// call). For fronts that drive the analysis themselves (an editor's buffers).
    pub fn host_mut(&mut self) -> &mut AnalysisHost {
        self.warm();
        if self.host.is_none() {
            self.host = Some(self.new_host());
        }
        self.host.as_mut().expect("just set")
    }

    /// Hand the analysis host over to a front that keeps it for itself (an editor).
    pub fn into_host(mut self) -> AnalysisHost {
        self.host_mut();
        self.host.take().expect("created")
    }

    /// The read connection of the current generation (after [`Workspace::ensure_current`]).
    pub fn index(&self) -> &Index {
        self.index.as_ref().expect("ensure_current() succeeded before reads")
    }

    /// The signature of the generation last proven current, if any.
    pub fn generation(&self) -> Option<&Generation> {
        self.current.as_ref()
    }

    /// Open the published index for a read without synchronising (one-shot reads): whether it
    /// matches the sources is in [`Published::current`].
    pub fn read_published(&self) -> Result<Published, WorkspaceError> {
        let path = self.index_path();
        let index = match Index::open_read_only(path) {
            Err(IndexError::Missing { .. }) => {
                return Err(WorkspaceError::NoIndex { path: path.display().to_string() })
            }
            other => other?,
        };
        let inventory = discover(&self.project);
        let current = published_sources_current(&self.project, &inventory, &index).unwrap_or(false);
        Ok(Published { index, current })
    }

    /// Prove the index current or rebuild it; on success [`Workspace::index`] reads the
    /// generation the returned signature names. `force_walk` walks the whole tree even when
    /// the watcher saw nothing.
    pub fn ensure_current(&mut self, force_walk: bool) -> Result<Synced, WorkspaceError> {
        if binding_stamp(&self.project.root) != self.stamp {
            return Err(WorkspaceError::BindingChanged);
        }
        // The root directory is no longer the one watched (removed, moved, the project
        // replaced by a copy): its watches follow the old tree; watch the new one (the first
        // call walks).
        if self.watcher.as_mut().is_some_and(|w| w.root_lost()) {
            let derived = self.project.config.derived_dirs();
            self.watcher = Watcher::start(&self.project.root, &derived).ok();
        }
        // An application another process left unfinished (it was killed) is finished or
        // undone first; a live one is waited for (the recovery takes its lock).
        docforge_project::recover_application(&self.project.root)
            .map_err(|e| WorkspaceError::Recovery(e.to_string()))?;
        let force_walk = force_walk || self.walk_next.swap(false, std::sync::atomic::Ordering::Relaxed);
        let mut stats = SyncStats::default();
        let index_stamp = index_file_stamp(self.index_path());
        let index_id = index_stamp.map(|s| (s.dev, s.ino));
        if self.index_stamp.is_some() && index_stamp != self.index_stamp {
            // Written since this binding last did (another publisher, or the file replaced
            // in place): no generation, connection or delta base of before is trusted.
            self.forget_index();
        }
        // Another process may have published into the same file: then our generation is
        // not the one a read would see, and the call re-syncs (the delta is refused and a
        // full batch written).
        let same_generation = match (&self.index, &self.current) {
            (Some(i), Some(cur)) => {
                i.publication().ok().flatten().map(|p| p.generation) == Some(cur.revision)
            }
            _ => false,
        };
        if !same_generation {
            self.current = self.current.take().map(|mut g| {
                g.cheap_identity.clear();
                g
            });
        }
        if let (Some(cur), false) = (&self.current, force_walk) {
            let quiet = self.watcher.as_mut().is_some_and(|w| w.quiet())
                && !self.inventory.as_ref().is_some_and(|inv| inv.symlinks_moved(&self.project));
            if quiet
                && same_generation
                && !cur.cheap_identity.is_empty()
                && index_id == Some(cur.index_file)
                && self.index.is_some()
            {
                return Ok(Synced { generation: cur.clone(), staleness: Staleness::Current, stats });
            }
        }
        self.progress.set(Phase::Scanning);
        let walk = Instant::now();
        let previous = self.inventory.take();
        let restamped = match (&self.current, self.watcher.as_mut(), previous) {
            (Some(_), Some(w), Some(mut inv)) if !force_walk => match w.touched() {
                Some(paths) => inv.restamp(&self.project, paths).map(|rels| (inv, rels)),
                _ => None,
            },
            _ => None,
        };
        if let Some(w) = self.watcher.as_mut() {
            w.rearm();
        }
        let (inv, touched) = match restamped {
            Some((inv, rels)) => (inv, Some(rels)),
            None => {
                stats.walked = true;
                (discover(&self.project), None)
            }
        };
        stats.walk_ms = walk.elapsed().as_secs_f64() * 1e3;
        let result = self.after_walk(&inv, touched.as_deref(), index_id, stats);
        self.inventory = Some(inv);
        self.progress.set(Phase::Idle);
        result
    }

    /// The decision once the inventory is known: still current, adopt the published
    /// generation (a cold process), or re-sync and publish.
    fn after_walk(
        &mut self,
        inv: &Inventory,
        touched: Option<&[String]>,
        index_id: Option<(u64, u64)>,
        mut stats: SyncStats,
    ) -> Result<Synced, WorkspaceError> {
        let identity = cheap_identity(inv);
        if let Some(cur) = &self.current {
            if cur.cheap_identity == identity && index_id == Some(cur.index_file) && self.index.is_some() {
                // Equal stamps vouch for every file but those whose stamp was racy when read:
                // their content is compared, and only a changed one is loaded again.
                let changed = match self.host.as_mut() {
                    Some(h) => h.recheck_racy(),
                    None => self.changed_adopted_racy(),
                };
                if changed.is_empty() {
                    return Ok(Synced { generation: cur.clone(), staleness: Staleness::Current, stats });
                }
                let touched = self.host.is_some().then_some(changed);
                self.rebuild(inv, touched.as_deref(), identity, &mut stats)?;
                let generation = self.current.clone().expect("rebuilt");
                return Ok(Synced { generation, staleness: Staleness::Rebuilt, stats });
            }
        }
        if self.host.is_none() && self.current.is_none() {
            if let Some(generation) = self.adopt_published(inv, &identity)? {
                stats.files_unchanged = inv.entries.len();
                return Ok(Synced { generation, staleness: Staleness::Current, stats });
            }
        }
        self.rebuild(inv, touched, identity, &mut stats)?;
        let generation = self.current.clone().expect("rebuilt");
        Ok(Synced { generation, staleness: Staleness::Rebuilt, stats })
    }

    /// A process starts cold: when the published generation already matches the sources
    /// (same engine, policy, precision, configuration, inventory stamps), read it without
    /// analysing.
    fn adopt_published(
        &mut self,
        inv: &Inventory,
        identity: &str,
    ) -> Result<Option<Generation>, WorkspaceError> {
        let path = self.settings.index_path.clone();
        if !path.is_file() || state_dirs_are_real(&self.project.root, &path).is_err() {
            return Ok(None);
        }
        let Ok(index) = Index::open_read_only(&path) else { return Ok(None) };
        let precision = self.settings.precision;
        let current =
            published_is_current(&self.project, inv, precision.policy(), precision.semantic(), &index);
        if !current.unwrap_or(false) {
            return Ok(None);
        }
        if precision == Precision::NoAst && index.has_logic()? {
            // Never read from an index that holds Logic under --no-ast; it is rebuilt.
            return Ok(None);
        }
        let Some(publication) = index.publication()? else { return Ok(None) };
        let generation = Generation::of(&publication, precision_of(&index), identity);
        // Files the publisher read with racy stamps: checked by content until a host of ours
        // has read them (see `changed_adopted_racy`).
        self.adopted_racy =
            index.files()?.into_iter().filter(|f| f.racy).map(|f| (f.path, f.sha256)).collect();
        self.index_opened_on = file_identity(&path);
        self.index = Some(index);
        self.index_stamp = index_file_stamp(&path);
        self.serve(generation.clone());
        self.warm_pending = Some(inv.clone());
        Ok(Some(generation))
    }

    /// Start the warm-up deferred by adopting a published generation: the analysis of its
    /// inventory is built on another thread, so the first change costs a delta. Long-lived
    /// fronts call this after answering the call that adopted it.
    pub fn start_deferred_warm(&mut self) {
        let Some(inv) = self.warm_pending.take() else { return };
        let mut host = self.new_host();
        let path = self.settings.index_path.clone();
        let threads = self.threads;
        self.warming = Some(std::thread::spawn(move || {
            host.sync_from_inventory(&inv);
            host.analysis().prewarm(threads).ok()?;
            if let Ok(index) = Index::open_read_only(&path) {
                let _ = host.adopt_publication(&index);
            }
            Some(host)
        }));
    }

    /// Wait for the background warm-up, if any; whether a warm host is available.
    fn warm(&mut self) -> bool {
        if let Some(h) = self.warming.take() {
            if let Ok(Some(host)) = h.join() {
                if self.host.is_none() {
                    self.host = Some(host);
                }
            }
        }
        self.host.is_some()
    }

    fn rebuild(
        &mut self,
        inv: &Inventory,
        touched: Option<&[String]>,
        identity: String,
        stats: &mut SyncStats,
    ) -> Result<(), WorkspaceError> {
        // Before any analysis: the state is never written through a symlink.
        state_dirs_are_real(&self.project.root, &self.settings.index_path)?;
        let analysis = Instant::now();
        self.warm_pending = None;
        self.adopted_racy.clear();
        // Until this publication succeeds, the generation read before does not stand for the
        // sources (the host may be ahead of it): nothing proves it current by its identity.
        if let Some(cur) = self.current.as_mut() {
            cur.cheap_identity.clear();
        }
        let fresh = !self.warm();
        if fresh {
            self.host = Some(self.new_host());
        }
        let no_ast = self.settings.precision == Precision::NoAst;
        let host = self.host.as_mut().expect("created above");
        // Only the files the watcher named changed: re-read just those.
        let report = match touched {
            Some(rels) if !fresh => host.sync_paths(inv, identity.clone(), rels),
            _ => host.sync_from_inventory(inv),
        };
        stats.files_read = report.read;
        stats.files_unchanged = report.unchanged;
        stats.files_removed = report.removed;
        self.progress.set(Phase::Analysing);
        if fresh {
            self.progress.analysis.done.store(0, Ordering::Relaxed);
            host.analysis()
                .prewarm_with_progress(self.threads, &self.progress.analysis)
                .map_err(|_| WorkspaceError::Cancelled)?;
        }
        let graph = host.analysis().graph().map_err(|_| WorkspaceError::Cancelled)?;
        if no_ast && graph.owners().any(|o| !o.fragment.logic.is_empty()) {
            return Err(WorkspaceError::PolicyForbidsLogic(
                "the analysis produced a Logic projection under --no-ast; nothing was published",
            ));
        }
        drop(graph);
        stats.analysis_ms = analysis.elapsed().as_secs_f64() * 1e3;
        self.progress.set(Phase::Publishing);
        let publish = Instant::now();
        let path = self.settings.index_path.clone();
        let on_disk = file_identity(&path);
        let reuse = match self.writer.take() {
            Some((w, id)) if on_disk.is_some() && id == on_disk => Some(w),
            // Its file was replaced: its log is not the new file's.
            Some((w, _)) => {
                w.close_without_checkpoint();
                None
            }
            None => None,
        };
        let mut writer = match reuse {
            Some(w) => w,
            None => match Index::open(&path) {
                Ok(i) => i,
                Err(e @ (IndexError::SchemaMismatch { .. } | IndexError::Corrupt { .. })) => {
                    stats.recreated = Some(e.to_string());
                    self.stats = None;
                    Index::recreate(&path)?
                }
                Err(e) => return Err(e.into()),
            },
        };
        let host = self.host.as_mut().expect("created above");
        if fresh {
            // A generation another process published from the same sources is adopted.
            let _ = host.adopt_publication(&writer);
        }
        writer.number_after(self.revision_floor);
        let report = match host.publish(&mut writer) {
            // A file found corrupt only now (overwritten under the connections): built anew.
            Err(docforge_db::PublishError::Index(e @ IndexError::Corrupt { .. })) => {
                stats.recreated = Some(e.to_string());
                self.stats = None;
                drop(writer);
                writer = Index::recreate(&path)?;
                writer.number_after(self.revision_floor);
                host.forget_publication();
                host.publish(&mut writer)
            }
            other => other,
        }
        .map_err(|e| match e {
            docforge_db::PublishError::Cancelled => WorkspaceError::Cancelled,
            docforge_db::PublishError::Index(e) => e.into(),
        })?;
        stats.owners_written = report.owners_written + report.owners_deleted;
        stats.publish = Some(report);
        let on_disk = file_identity(&path);
        self.writer = Some((writer, on_disk));
        stats.publish_ms = publish.elapsed().as_secs_f64() * 1e3;
        // The read connection sees the new commit (WAL); reopen only for another file.
        let index = match self.index.take().filter(|_| self.index_opened_on == on_disk) {
            Some(i) => i,
            None => {
                self.index_opened_on = on_disk;
                Index::open_read_only(&path)?
            }
        };
        if no_ast && index.has_logic()? {
            self.current = None;
            return Err(WorkspaceError::PolicyForbidsLogic(
                "the index holds a Logic projection under --no-ast; it is not read",
            ));
        }
        let publication = index.publication()?.ok_or_else(|| {
            WorkspaceError::Index(IndexError::Malformed {
                path: path.clone(),
                detail: "no committed generation after publishing".into(),
            })
        })?;
        self.serve(Generation::of(&publication, precision_of(&index), &identity));
        self.index = Some(index);
        self.index_stamp = index_file_stamp(&path);
        Ok(())
    }

    /// The files of an adopted generation recorded as racy whose content is no longer the one
    /// recorded (or cannot be read).
    fn changed_adopted_racy(&self) -> Vec<String> {
        self.adopted_racy
            .iter()
            .filter(|(rel, sha256)| !docforge_db::holds(&self.project, rel, sha256))
            .map(|(rel, _)| rel.clone())
            .collect()
    }

    /// Drop everything read from or written to the index file before: the generation, both
    /// connections (closed without a checkpoint: their log must not be copied into a file
    /// that is no longer theirs), the statistics, and the host's delta base (its next
    /// publication is full).
    /// The generation calls read from now on (the highest served is remembered: see
    /// `revision_floor`).
    fn serve(&mut self, generation: Generation) {
        self.revision_floor = self.revision_floor.max(generation.revision);
        self.current = Some(generation);
    }

    fn forget_index(&mut self) {
        self.current = None;
        if let Some(index) = self.index.take() {
            index.close_without_checkpoint();
        }
        self.index_opened_on = None;
        if let Some((writer, _)) = self.writer.take() {
            writer.close_without_checkpoint();
        }
        self.stats = None;
        self.index_stamp = None;
        if let Some(host) = self.host.as_mut() {
            host.forget_publication();
        }
    }

    /// Run `f` over the analysis host with `overlay` (project-relative path → bytes, `None`:
    /// removed) applied as unsaved edits, then put those files back as they are on disk. The
    /// published index, the binding's generation and every file are left as they were: what
    /// a changeset preview analyses is never published to the project. A host is loaded
    /// from the last inventory first when the binding has none yet.
    pub fn with_overlay<R>(
        &mut self,
        overlay: &[(String, Option<Vec<u8>>)],
        f: impl FnOnce(&AnalysisHost) -> R,
    ) -> Result<R, WorkspaceError> {
        use docforge_db::{Change, Content, FileChange};
        if !self.warm() {
            let inv = match self.inventory.clone().or_else(|| self.warm_pending.clone()) {
                Some(inv) => inv,
                None => discover(&self.project),
            };
            let mut host = self.new_host();
            host.sync_from_inventory(&inv);
            self.host = Some(host);
            self.warm_pending = None;
        }
        let kind = |rel: &str| self.project.document_kind(rel);
        let mut edits = Vec::with_capacity(overlay.len());
        let mut restore = Vec::with_capacity(overlay.len());
        let reader = docforge_project::SourceReader::new(&self.project.root);
        let limit = self.project.config.limits.max_file_bytes;
        for (rel, bytes) in overlay {
            let Some(kind) = kind(rel) else {
                return Err(WorkspaceError::Overlay(format!("{rel} is not a document path of this project")));
            };
            edits.push(match bytes {
                Some(b) => {
                    FileChange::Set { rel: rel.clone(), kind, content: Content::Bytes(b.as_slice().into()) }
                }
                None => FileChange::Remove { rel: rel.clone() },
            });
            let on_disk = self.project.root.join(rel);
            restore.push(match std::fs::symlink_metadata(&on_disk) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => FileChange::Remove { rel: rel.clone() },
                _ => match reader.read_into_vec(rel, limit) {
                    Ok(b) => FileChange::Set { rel: rel.clone(), kind, content: Content::Bytes(b.into()) },
                    Err(e) => FileChange::Set {
                        rel: rel.clone(),
                        kind,
                        content: Content::Unreadable { code: e.code().into(), message: e.to_string() },
                    },
                },
            });
        }
        let host = self.host.as_mut().expect("loaded above");
        let rels: Vec<String> = overlay.iter().map(|(rel, _)| rel.clone()).collect();
        let point = host.overlay_point(&rels);
        host.apply_change(Change { files: edits, ..Default::default() });
        let out = f(host);
        host.apply_change(Change { files: restore, ..Default::default() });
        // The files as read from disk again, with the stamps they were loaded with: a file
        // that changed meanwhile has another stamp now, which the next call sees.
        host.end_overlay(point);
        Ok(out)
    }

    /// Full statistics of the current generation (table counts), cached per generation.
    pub fn stats(&mut self) -> Result<Arc<docforge_index::Stats>, WorkspaceError> {
        let revision = self.current.as_ref().map_or(0, |g| g.revision);
        if let Some((r, s)) = &self.stats {
            if *r == revision {
                return Ok(s.clone());
            }
        }
        let s = Arc::new(self.index().stats()?);
        self.stats = Some((revision, s.clone()));
        Ok(s)
    }

    /// End a one-shot process's binding: the index connections close normally (SQLite
    /// checkpoints and removes its log), and the analysis's memory is left to the operating
    /// system instead of being freed fact by fact (~0.2 s on the standard library).
    pub fn exit_fast(mut self) {
        self.index = None;
        self.writer = None;
        if let Some(h) = self.warming.take() {
            std::mem::forget(h);
        }
        if let Some(host) = self.host.take() {
            std::mem::forget(host);
        }
    }
}

/// A new analysis host for `project` at `precision`.
fn new_host(project: &Project, precision: Precision, execution_log: bool) -> AnalysisHost {
    let mut host = if execution_log {
        AnalysisHost::with_execution_log(project.clone(), precision.policy())
    } else {
        AnalysisHost::new(project.clone(), precision.policy())
    };
    host.set_precise(precision.semantic());
    if execution_log {
        host.execution_log().enable(true);
    }
    host
}

/// The precision a generation recorded (`none` when it analysed no Go code).
fn precision_of(index: &Index) -> String {
    index.meta().ok().and_then(|m| m.get("precision").cloned()).unwrap_or_else(|| "unknown".into())
}

/// The stamp of the index file (`None`: there is none).
fn index_file_stamp(path: &Path) -> Option<docforge_project::FileStamp> {
    std::fs::symlink_metadata(path).ok().map(|m| docforge_project::FileStamp::of(&m))
}

/// Every directory between the project root and the index file is a real directory, or
/// absent (then created as one): DocForge writes its state through no symlink, and a
/// symlinked `.docforge` would put the index and its receipts outside the project.
fn state_dirs_are_real(root: &Path, index: &Path) -> Result<(), WorkspaceError> {
    let Some(rel) = index.parent().and_then(|d| d.strip_prefix(root).ok()).and_then(Path::to_str) else {
        return Ok(());
    };
    match docforge_project::stat_beneath(root, rel, true, &mut Default::default()) {
        Err(docforge_project::NotBeneath::Symlink(link)) => {
            let why = "is a symlink: DocForge writes its state through no symlink (remove it)";
            Err(IndexError::Io { path: root.join(link), source: std::io::Error::other(why) }.into())
        }
        // Absent directories are created as real ones; anything else the open reports.
        _ => Ok(()),
    }
}
