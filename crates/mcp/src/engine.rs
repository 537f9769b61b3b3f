//! The one project binding of the process and its synchronisation: every tool call first
//! proves the published index current by cheap source identity (a stat walk, skipped when
//! the change watcher proves nothing moved) and otherwise re-syncs the warm salsa database
//! and publishes the new generation atomically before reading.

use crate::reply::ToolError;
use crate::watch::Watcher;
use docforge_db::{cheap_identity, published_is_current, AnalysisHost, AstPolicy, ENGINE_VERSION};
use docforge_index::{Index, IndexError, Publication};
use docforge_project::{discover, Inventory, Project, STATE_DIR};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const INDEX_FILE: &str = "index.sqlite";

/// The identity of the generation a response was read from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Generation {
    /// The index generation number (the project revision).
    pub revision: u64,
    /// The source fingerprint the generation was derived from (content hashes).
    pub source_hash: String,
    /// SHA-256 over every owner key and digest of the generation.
    pub graph_digest: String,
    /// SHA-256 over the inventory's paths, kinds, states, sizes and modification times.
    #[serde(skip)]
    pub cheap_identity: String,
    #[serde(skip)]
    pub index_file: (u64, u64),
}

impl Generation {
    /// No generation: for status tools that never synchronise or open the index.
    pub fn unbound() -> Generation {
        Generation {
            revision: 0,
            source_hash: String::new(),
            graph_digest: String::new(),
            cheap_identity: String::new(),
            index_file: (0, 0),
        }
    }
}

/// What the synchronisation before a call did (the `staleness` of the response).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Staleness {
    /// Proven current without work.
    Current,
    /// Was missing, stale or invalid; rebuilt before answering.
    Rebuilt,
}

/// Counters of one synchronisation (diagnostics; no paths or IDs).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SyncStats {
    pub walked: bool,
    pub files_read: usize,
    pub files_removed: usize,
    pub owners_written: usize,
    pub walk_ms: f64,
    pub analysis_ms: f64,
    pub publish_ms: f64,
}

/// The immutable part of the binding.
pub struct Binding {
    pub project: Project,
    pub no_ast: bool,
    pub precise: bool,
    pub index_path: PathBuf,
    /// The process-start identity of the executable and `docforge.toml`.
    adapter_fingerprint: String,
}

pub struct Engine {
    pub binding: Binding,
    /// Work counters of a running analysis, polled by the server for progress notifications.
    pub progress: std::sync::Arc<docforge_db::Progress>,
    host: Option<AnalysisHost>,
    index: Option<Index>,
    /// The file identity the read connection was opened on.
    index_opened_on: Option<(u64, u64)>,
    /// The write connection and the file identity it was opened on.
    writer: Option<(Index, Option<(u64, u64)>)>,
    current: Option<Generation>,
    watcher: Option<Watcher>,
    /// A host being built in the background after a published index was adopted, so the
    /// first edit costs a delta, not a cold analysis.
    warming: Option<std::thread::JoinHandle<Option<AnalysisHost>>>,
    /// Set when a published generation was adopted: the warm-up starts after the response.
    warm_pending: Option<Inventory>,
    /// The inventory of the last walk (restamped for touched files).
    inventory: Option<Inventory>,
    /// Full index statistics, computed once per generation when a tool needs them.
    stats: Option<(u64, std::sync::Arc<docforge_index::Stats>)>,
}

fn stamp_of(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => {
            format!("{}:{}:{}:{}", m.dev(), m.ino(), m.size(), m.mtime_nsec() + m.mtime() * 1_000_000_000)
        }
        Err(_) => "missing".into(),
    }
}

fn adapter_fingerprint(root: &Path) -> String {
    let exe = std::env::current_exe().map(|p| stamp_of(&p)).unwrap_or_default();
    let config = std::fs::read(root.join(docforge_project::CONFIG_FILE)).unwrap_or_default();
    hex::encode(Sha256::digest(format!("{ENGINE_VERSION}\n{exe}\n{}", hex::encode(Sha256::digest(&config)))))
}

fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn index_err(e: IndexError) -> ToolError {
    ToolError::new("index_unavailable", format!("the derived index could not be used: {e}"))
}

impl Engine {
    pub fn new(project: Project, no_ast: bool, precise: bool) -> Engine {
        let index_path = project.root.join(STATE_DIR).join(INDEX_FILE);
        let adapter_fingerprint = adapter_fingerprint(&project.root);
        let watcher = Watcher::start(&project.root).ok();
        Engine {
            binding: Binding { project, no_ast, precise, index_path, adapter_fingerprint },
            progress: Default::default(),
            host: None,
            index: None,
            writer: None,
            index_opened_on: None,
            current: None,
            watcher,
            warming: None,
            warm_pending: None,
            inventory: None,
            stats: None,
        }
    }

    fn policy(&self) -> AstPolicy {
        if self.binding.no_ast {
            AstPolicy::Forbid
        } else {
            AstPolicy::Allow
        }
    }

    /// The read connection of the current generation (after [`Engine::sync`]).
    pub fn index(&self) -> &Index {
        self.index.as_ref().expect("sync() succeeded before reads")
    }

    /// Prove the index current or rebuild it; on success the index is readable and
    /// [`Engine::generation`] names what it holds.
    pub fn sync(&mut self, force_walk: bool) -> Result<(Generation, Staleness, SyncStats), ToolError> {
        if adapter_fingerprint(&self.binding.project.root) != self.binding.adapter_fingerprint {
            return Err(ToolError::new(
                "adapter_restart_required",
                "the docforge executable or docforge.toml changed since this server started; the \
                 binding is stale and cannot be synchronised in this process",
            )
            .remediation("restart_project_server"));
        }
        let mut stats = SyncStats::default();
        let index_id = file_identity(&self.binding.index_path);
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
            let quiet = self.watcher.as_mut().is_some_and(|w| w.quiet());
            if quiet && same_generation && index_id == Some(cur.index_file) && self.index.is_some() {
                return Ok((cur.clone(), Staleness::Current, stats));
            }
        }
        let walk = Instant::now();
        let previous = self.inventory.take();
        let restamped = match (&self.current, self.watcher.as_mut(), previous) {
            (Some(_), Some(w), Some(mut inv)) if !force_walk => match w.touched() {
                Some(paths) => inv.restamp(&self.binding.project, paths).map(|rels| (inv, rels)),
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
                (discover(&self.binding.project), None)
            }
        };
        stats.walk_ms = walk.elapsed().as_secs_f64() * 1e3;
        let result = self.after_walk(&inv, touched.as_deref(), index_id, stats);
        self.inventory = Some(inv);
        result
    }

    /// The decision once the inventory is known: still current, adopt the published
    /// generation (cold process), or re-sync and publish.
    fn after_walk(
        &mut self,
        inv: &Inventory,
        touched: Option<&[String]>,
        index_id: Option<(u64, u64)>,
        mut stats: SyncStats,
    ) -> Result<(Generation, Staleness, SyncStats), ToolError> {
        let identity = cheap_identity(inv);
        if let Some(cur) = &self.current {
            if cur.cheap_identity == identity && index_id == Some(cur.index_file) && self.index.is_some() {
                return Ok((cur.clone(), Staleness::Current, stats));
            }
        }
        if self.host.is_none() && self.current.is_none() {
            if let Some(generation) = self.adopt_published(inv, &identity)? {
                return Ok((generation, Staleness::Current, stats));
            }
        }
        self.rebuild(inv, touched, identity, &mut stats)?;
        Ok((self.current.clone().expect("rebuilt"), Staleness::Rebuilt, stats))
    }

    /// A process starts cold: when the published generation already matches the sources
    /// (same engine, policy, configuration, inventory stamps), read it without analysing.
    fn adopt_published(&mut self, inv: &Inventory, identity: &str) -> Result<Option<Generation>, ToolError> {
        let path = &self.binding.index_path;
        if !path.is_file() {
            return Ok(None);
        }
        let Ok(index) = Index::open_read_only(path) else { return Ok(None) };
        let project = &self.binding.project;
        if !published_is_current(project, inv, self.policy(), self.binding.precise, &index).unwrap_or(false) {
            return Ok(None);
        }
        if self.binding.no_ast && index.has_logic().map_err(index_err)? {
            // Never read from an index that holds Logic under --no-ast; it is rebuilt.
            return Ok(None);
        }
        let Some(publication) = index.publication().map_err(index_err)? else { return Ok(None) };
        let generation = generation_of(&publication, identity);
        self.index_opened_on = file_identity(path);
        self.index = Some(index);
        self.current = Some(generation.clone());
        self.warm_pending = Some(inv.clone());
        Ok(Some(generation))
    }

    /// Build the analysis of the adopted generation's inventory on another thread and mark
    /// the published generation as its own (when it matches), ready for delta publication.
    fn warm_in_background(&self, inv: Inventory) -> std::thread::JoinHandle<Option<AnalysisHost>> {
        let (project, policy, precise) = (self.binding.project.clone(), self.policy(), self.binding.precise);
        let path = self.binding.index_path.clone();
        std::thread::spawn(move || {
            let mut host = AnalysisHost::new(project, policy);
            host.set_precise(precise);
            host.sync_from_inventory(&inv);
            let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
            host.analysis().prewarm(threads).ok()?;
            if let Ok(index) = Index::open_read_only(&path) {
                let _ = host.adopt_publication(&index);
            }
            Some(host)
        })
    }

    /// Start the deferred warm-up (after the response that adopted a generation is built, so
    /// it does not compete with that call).
    pub fn start_deferred_warm(&mut self) {
        if let Some(inv) = self.warm_pending.take() {
            self.warming = Some(self.warm_in_background(inv));
        }
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
    ) -> Result<(), ToolError> {
        let analysis = Instant::now();
        self.warm_pending = None;
        self.warm();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let fresh = self.host.is_none();
        let policy = self.policy();
        let host = self.host.get_or_insert_with(|| {
            let mut h = AnalysisHost::new(self.binding.project.clone(), policy);
            h.set_precise(self.binding.precise);
            h
        });
        // Only the files the watcher named changed: re-read just those.
        let report = match touched {
            Some(rels) if !fresh => host.sync_paths(inv, identity.clone(), rels),
            _ => host.sync_from_inventory(inv),
        };
        stats.files_read = report.read;
        stats.files_removed = report.removed;
        if fresh {
            use std::sync::atomic::Ordering;
            self.progress.done.store(0, Ordering::Relaxed);
            host.analysis().prewarm_with_progress(threads, &self.progress).map_err(|_| cancelled())?;
        }
        let graph = host.analysis().graph().map_err(|_| cancelled())?;
        if self.binding.no_ast && graph.owners().any(|o| !o.fragment.logic.is_empty()) {
            return Err(ToolError::new(
                "adapter_policy_forbids_logic",
                "the analysis produced a Logic projection under --no-ast; nothing was published",
            ));
        }
        stats.analysis_ms = analysis.elapsed().as_secs_f64() * 1e3;
        let publish = Instant::now();
        let path = self.binding.index_path.clone();
        let on_disk = file_identity(&path);
        let mut writer = match self.writer.take().filter(|w| on_disk.is_some() && w.1 == on_disk) {
            Some((w, _)) => w,
            None => match Index::open(&path) {
                Ok(i) => i,
                Err(IndexError::SchemaMismatch { .. } | IndexError::Corrupt { .. }) => {
                    Index::recreate(&path).map_err(index_err)?
                }
                Err(e) => return Err(index_err(e)),
            },
        };
        if fresh {
            // A generation another process published from the same sources is adopted.
            let _ = host.adopt_publication(&writer);
        }
        let report = host.publish(&mut writer).map_err(|e| match e {
            docforge_db::PublishError::Cancelled => cancelled(),
            docforge_db::PublishError::Index(e) => index_err(e),
        })?;
        stats.owners_written = report.owners_written + report.owners_deleted;
        let on_disk = file_identity(&path);
        self.writer = Some((writer, on_disk));
        stats.publish_ms = publish.elapsed().as_secs_f64() * 1e3;
        // The read connection sees the new commit (WAL); reopen only for another file.
        let index = match self.index.take().filter(|_| self.index_opened_on == on_disk) {
            Some(i) => i,
            None => {
                self.index_opened_on = on_disk;
                Index::open_read_only(&path).map_err(index_err)?
            }
        };
        if self.binding.no_ast && index.has_logic().map_err(index_err)? {
            self.index = None;
            self.current = None;
            return Err(ToolError::new(
                "adapter_policy_forbids_logic",
                "the index holds a Logic projection under --no-ast; it is not read",
            ));
        }
        let publication = index.publication().map_err(index_err)?.ok_or_else(|| {
            ToolError::new("index_unavailable", "the index has no committed generation after publishing")
        })?;
        self.current = Some(generation_of(&publication, &identity));
        self.index = Some(index);
        Ok(())
    }

    /// Full statistics of the current generation (table counts), cached per generation.
    pub fn stats(&mut self) -> Result<std::sync::Arc<docforge_index::Stats>, ToolError> {
        let revision = self.current.as_ref().map_or(0, |g| g.revision);
        if let Some((r, s)) = &self.stats {
            if *r == revision {
                return Ok(s.clone());
            }
        }
        let s = std::sync::Arc::new(self.index().stats().map_err(index_err)?);
        self.stats = Some((revision, s.clone()));
        Ok(s)
    }
}

fn cancelled() -> ToolError {
    ToolError::new("sync_cancelled", "synchronisation was interrupted; retry the call")
}

fn generation_of(p: &Publication, identity: &str) -> Generation {
    Generation {
        revision: p.generation,
        source_hash: p.source_fingerprint.clone(),
        graph_digest: p.graph_digest.clone(),
        cheap_identity: identity.to_string(),
        index_file: (p.dev, p.inode),
    }
}
