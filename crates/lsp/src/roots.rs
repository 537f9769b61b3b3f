//! Workspace folders: each one is its own project with its own [`AnalysisHost`], snapshot,
//! diagnostics and first index. A file URI belongs to the deepest folder whose root
//! contains it; requests are routed there, workspace-wide ones go to every folder.

use crate::convert;
use crate::server::lock;
use crate::Options;
use docforge_db::{Analysis, AnalysisHost, Progress};
use lsp_types::{InitializeParams, Uri};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// What workers share about one folder.
pub(crate) struct Folder {
    /// The canonical project root.
    pub root: PathBuf,
    /// Tells this folder's `$/progress` apart from the others'.
    pub token: String,
    pub policy: docforge_validate::SelectionPolicy,
    /// The project's Go semantic layer runs (its declared precision is `precise` and the
    /// process does not restrict it): implementation, call hierarchy and precise claims.
    pub precise: bool,
    /// The current revision's snapshot. Taken out (under the lock) while the host changes,
    /// so no idle clone delays a write.
    snapshot: Mutex<Option<Analysis>>,
    /// Bumped on every change; a diagnostics run publishes only if it is still current.
    pub generation: AtomicU64,
    pub diagnostics: crate::diagnostics::State,
    /// Work counters of the first index (for `$/progress`).
    pub progress: Arc<Progress>,
    pub indexed: AtomicBool,
    /// Memory is to be trimmed (the first index is done) as soon as no request runs.
    pub trim_due: AtomicBool,
    /// The folder left the workspace: publish nothing more for it.
    pub removed: AtomicBool,
    /// Project-relative paths of deeper folders inside this one: their files' diagnostics
    /// are theirs.
    pub nested: Mutex<Vec<String>>,
    /// Executions recorded by the engine, when enabled.
    pub log: Option<docforge_db::ExecutionLog>,
}

impl Folder {
    pub fn analysis(&self) -> Option<Analysis> {
        lock(&self.snapshot).clone()
    }

    /// Whether the diagnostics of `rel` are this folder's (no deeper folder holds it).
    pub fn owns(&self, rel: &str) -> bool {
        !lock(&self.nested).iter().any(|n| under(rel, n))
    }
}

/// `rel` is `dir` or inside it (both project-relative, `/`-separated).
fn under(rel: &str, dir: &str) -> bool {
    rel.strip_prefix(dir).is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
}

/// One served folder, owned by the main loop.
pub(crate) struct Root {
    pub host: AnalysisHost,
    pub folder: Arc<Folder>,
    /// The folder's path as the client named it (a `didChangeWorkspaceFolders` removal
    /// names it the same way, even once the directory is gone).
    pub named: PathBuf,
    /// Other paths the client named this same folder by (a symlink to it): removing one of
    /// them forgets that name only, never the folder another name still holds.
    pub aliases: Vec<PathBuf>,
    /// Changed since its diagnostics were last scheduled.
    pub dirty: bool,
}

impl Root {
    pub fn new(named: PathBuf, host: AnalysisHost, token: String, log: bool) -> Root {
        let folder = Arc::new(Folder {
            root: host.project().root.clone(),
            token,
            policy: docforge_validate::SelectionPolicy::of(host.project()),
            precise: host.precise() && host.policy() == docforge_db::AstPolicy::Allow,
            snapshot: Mutex::new(Some(host.analysis())),
            generation: AtomicU64::new(0),
            diagnostics: Default::default(),
            progress: Arc::new(Progress::default()),
            indexed: AtomicBool::new(false),
            trim_due: AtomicBool::new(false),
            removed: AtomicBool::new(false),
            nested: Mutex::new(Vec::new()),
            log: log.then(|| host.execution_log().clone()),
        });
        Root { host, folder, named, aliases: Vec::new(), dirty: false }
    }

    /// Change the host: the shared snapshot is taken out first (a write waits for every
    /// clone to be dropped), running reads of this folder are cancelled, then the new
    /// snapshot is put back. Other folders are not touched.
    pub fn mutate(&mut self, f: impl FnOnce(&mut AnalysisHost)) {
        let folder = self.folder.clone();
        let mut slot = lock(&folder.snapshot);
        *slot = None;
        f(&mut self.host);
        *slot = Some(self.host.analysis());
        folder.generation.fetch_add(1, Ordering::SeqCst);
        self.dirty = true;
    }
}

/// A project bound and configured as the options say (its files are not read yet).
pub(crate) fn load(path: &Path, opts: &Options) -> Result<AnalysisHost, String> {
    // Bound like every front binds a project: the precision is the project's declaration,
    // restricted (never raised) by --no-ast / --no-precise. The editor keeps the analysis in
    // memory and never publishes an index.
    let options = docforge_workspace::Options {
        no_ast: opts.no_ast,
        no_precise: opts.no_precise,
        execution_log: opts.execution_log,
        ..Default::default()
    };
    let workspace = docforge_workspace::Workspace::bind(path, options)
        .map_err(|e| format!("cannot open project {}: {e}", path.display()))?;
    let mut host = workspace.into_host();
    // No LSP feature shows Logic: do not project it.
    host.set_logic(false);
    host.set_goroot(opts.goroot.goroot().as_deref());
    host.set_module_cache(opts.gomodcache.module_cache().as_deref());
    Ok(host)
}

/// The folders to serve at start: the explicit `--project-root` alone, else every workspace
/// folder, else the root URI, else the current directory.
pub(crate) fn initial(opts: &Options, params: &InitializeParams) -> Vec<PathBuf> {
    if let Some(root) = &opts.project_root {
        return vec![root.clone()];
    }
    let folders: Vec<PathBuf> =
        params.workspace_folders.iter().flatten().filter_map(|f| convert::uri_path(&f.uri)).collect();
    if !folders.is_empty() {
        return folders;
    }
    #[allow(deprecated)]
    let root = params.root_uri.as_ref().and_then(convert::uri_path);
    vec![root.unwrap_or_else(|| PathBuf::from("."))]
}

/// The served folders, in the order they were added.
#[derive(Default)]
pub(crate) struct Roots {
    pub list: Vec<Root>,
}

/// Where a request goes.
pub(crate) enum Target {
    /// These folders, answers merged (one folder: its answer as it is).
    Folders(Vec<Arc<Folder>>),
    /// No folder holds the document: the answer is `null`.
    Nowhere,
}

impl Roots {
    /// The folder holding a file URI (the deepest root when folders nest) and the path
    /// relative to it.
    pub fn route(&self, uri: &Uri) -> Option<(usize, String)> {
        let path = convert::uri_path(uri)?;
        let deepest = |path: &Path| {
            self.list
                .iter()
                .enumerate()
                .filter_map(|(i, r)| Some((i, convert::rel_under(&r.folder.root, path)?)))
                .max_by_key(|(i, _)| self.list[*i].folder.root.components().count())
        };
        deepest(&path).or_else(|| deepest(&path.canonicalize().ok()?))
    }

    pub fn route_str(&self, uri: &str) -> Option<(usize, String)> {
        self.route(&Uri::from_str(uri).ok()?)
    }

    /// The folder a client names (by its path as named, or its canonical root).
    pub fn position(&self, path: &Path) -> Option<usize> {
        let canonical = path.canonicalize().ok();
        self.list.iter().position(|r| r.named == path || Some(&r.folder.root) == canonical.as_ref())
    }

    /// Remember that the client also named the folder serving `project_root` `named`.
    pub fn add_alias(&mut self, project_root: &Path, named: PathBuf) {
        if let Some(r) = self.list.iter_mut().find(|r| r.folder.root == project_root) {
            if r.named != named && !r.aliases.contains(&named) {
                r.aliases.push(named);
            }
        }
    }

    /// Forget the name `path` the client removed of folder `i`; true when it was the
    /// folder's last name, so the folder goes too. A path that is none of its recorded names
    /// (the same directory spelled otherwise) counts as one of them.
    pub fn forget_name(&mut self, i: usize, path: &Path) -> bool {
        let r = &mut self.list[i];
        if let Some(k) = r.aliases.iter().position(|a| a == path) {
            r.aliases.remove(k);
            false
        } else if r.aliases.is_empty() {
            true
        } else if r.named == path {
            r.named = r.aliases.remove(0);
            false
        } else {
            r.aliases.pop();
            false
        }
    }

    /// Requests naming a document go to its folder; workspace-wide ones to every folder;
    /// the rest to the first folder.
    pub fn target(&self, method: &str, params: &Value) -> Target {
        let named = params["textDocument"]["uri"].as_str().or(params["item"]["uri"].as_str());
        if let Some(uri) = named {
            return match self.route_str(uri) {
                Some((i, _)) => Target::Folders(vec![self.list[i].folder.clone()]),
                None => Target::Nowhere,
            };
        }
        let all = matches!(method, "workspace/symbol" | "docforge/debugExecutions");
        let take = if all { self.list.len() } else { 1 };
        let folders: Vec<_> = self.list.iter().take(take).map(|r| r.folder.clone()).collect();
        if folders.is_empty() && !all {
            return Target::Nowhere;
        }
        Target::Folders(folders)
    }

    /// Add a folder, handing over to it the diagnostics of its files that an enclosing
    /// folder had published (they are cleared there).
    pub fn insert(&mut self, root: Root, clear: impl Fn(&Folder, &str)) {
        let inner = root.folder.root.clone();
        for outer in &self.list {
            if let Some(rel) = convert::rel_under(&outer.folder.root, &inner) {
                lock(&outer.folder.nested).push(rel.clone());
                clear(&outer.folder, &rel);
            }
            if let Some(rel) = convert::rel_under(&inner, &outer.folder.root) {
                lock(&root.folder.nested).push(rel);
            }
        }
        self.list.push(root);
    }

    /// Remove a folder: it publishes nothing more, its reads are cancelled, its host is
    /// dropped. The enclosing folders take its files back (marked dirty).
    pub fn remove(&mut self, i: usize) -> Root {
        let mut gone = self.list.remove(i);
        gone.folder.removed.store(true, Ordering::SeqCst);
        let inner = &gone.folder.root;
        for outer in &mut self.list {
            if let Some(rel) = convert::rel_under(&outer.folder.root, inner) {
                lock(&outer.folder.nested).retain(|n| *n != rel);
                outer.dirty = true;
            }
        }
        // Cancel running reads (a removed folder's requests answer `ContentModified`).
        gone.mutate(AnalysisHost::request_cancellation);
        *lock(&gone.folder.snapshot) = None;
        gone
    }
}
