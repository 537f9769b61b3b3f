//! Walking the project root and classifying what may be read.

use crate::config::{Config, ConfigError};
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::fs;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};

/// The largest `docforge.toml` read (16 MiB): a larger one is an error, not a long read.
const CONFIG_MAX_BYTES: u64 = 16 << 20;

/// A project bound to an explicit, canonical root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Project {
    /// Absolute, canonical project root.
    pub root: PathBuf,
    pub config: Config,
    /// Whether `docforge.toml` exists (otherwise defaults are in force).
    pub config_present: bool,
    /// `project.id`, or the root directory's name.
    pub id: String,
    /// The exact text of `docforge.toml` (empty without one), so a published index can
    /// record which configuration it was built under.
    pub config_text: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    #[error("project root {0} does not exist")]
    MissingRoot(String),
    #[error("project root {0} is not a directory")]
    NotADirectory(String),
    #[error("cannot read project root {path}: {message}")]
    Unreadable { path: String, message: String },
    #[error("invalid configuration: {0}")]
    Config(#[from] ConfigError),
}

impl Project {
    /// Bind to `root`: canonicalise it and read `docforge.toml` if present.
    pub fn load(root: &Path) -> Result<Project, ProjectError> {
        let shown = root.display().to_string();
        let meta = fs::metadata(root).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => ProjectError::MissingRoot(shown.clone()),
            _ => ProjectError::Unreadable { path: shown.clone(), message: e.to_string() },
        })?;
        if !meta.is_dir() {
            return Err(ProjectError::NotADirectory(shown));
        }
        let root = fs::canonicalize(root)
            .map_err(|e| ProjectError::Unreadable { path: shown, message: e.to_string() })?;
        let config_path = root.join(crate::CONFIG_FILE);
        let mut config_text = String::new();
        let (config, config_present) = match fs::symlink_metadata(&config_path) {
            Ok(m) if m.is_file() => {
                let cannot = |message: String| ConfigError {
                    path: config_path.display().to_string(),
                    key: None,
                    message: format!("cannot read: {message}"),
                };
                // Never blocking: a FIFO put in its place after the check above is refused.
                let bytes = crate::read_regular_file(&config_path, CONFIG_MAX_BYTES)
                    .map_err(|e| cannot(e.to_string()))?;
                let text = String::from_utf8(bytes).map_err(|_| cannot("not UTF-8".into()))?;
                let config = Config::parse(&config_path, &text)?;
                config_text = text;
                (config, true)
            }
            Ok(_) => {
                return Err(ConfigError {
                    path: config_path.display().to_string(),
                    key: None,
                    message: "is not a regular file (symlinks and special files are refused)".into(),
                }
                .into())
            }
            Err(_) => (Config::default(), false),
        };
        let id = config.project.id.clone().unwrap_or_else(|| {
            root.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "project".into())
        });
        Ok(Project { root, config, config_present, id, config_text })
    }

    /// What the walk would make of a document at `rel` if one were there: `Markdown` or
    /// `TomlNode` when it is a normal project-relative path (no empty, `.` or `..` component,
    /// nothing hidden), under no derived directory or `.git`, matched by `sources.docs`, not
    /// excluded by `sources.exclude` and not ignored by an ignore file; `None` otherwise.
    /// Symlinks and what is on disk are not looked at: that is the writer's and reader's work.
    pub fn document_kind(&self, rel: &str) -> Option<FileKind> {
        let parts: Vec<&str> = rel.split('/').collect();
        if rel.is_empty() || parts.iter().any(|c| c.is_empty() || c.starts_with('.') || c.contains('\\')) {
            return None;
        }
        let derived = self.config.derived_dirs();
        let mut dir = String::new();
        for part in &parts[..parts.len() - 1] {
            if !dir.is_empty() {
                dir.push('/');
            }
            dir.push_str(part);
            if derived.contains(&dir) {
                return None;
            }
        }
        let sel = Selection::new(&self.config);
        let kind = sel.kind(rel).filter(|k| matches!(k, FileKind::Markdown | FileKind::TomlNode))?;
        let mut dir = String::new();
        let mut ignores = crate::ignores::DocIgnores::default();
        let _ = ignores.enter(&self.root, "");
        for part in &parts[..parts.len() - 1] {
            if !dir.is_empty() {
                dir.push('/');
            }
            dir.push_str(part);
            if dir_excluded(&sel.exclude, &dir) || ignores.ignored(&self.root, &dir, true) {
                return None;
            }
            let _ = ignores.enter(&self.root, &dir);
        }
        (!sel.exclude.is_match(rel) && !ignores.ignored(&self.root, rel, false)).then_some(kind)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKind {
    Markdown,
    TomlNode,
    Go,
    GoMod,
    GoWork,
    /// `vendor/modules.txt`: what a vendored build selects.
    GoVendor,
}

impl FileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Markdown => "markdown",
            FileKind::TomlNode => "toml",
            FileKind::Go => "go",
            FileKind::GoMod => "gomod",
            FileKind::GoWork => "gowork",
            FileKind::GoVendor => "govendor",
        }
    }
    pub fn is_go_side(self) -> bool {
        matches!(self, FileKind::Go | FileKind::GoMod | FileKind::GoWork | FileKind::GoVendor)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EntryStatus {
    /// Safe to read and analyse.
    Selected,
    /// Deliberately outside the analysis (e.g. a Go `testdata` directory).
    Excluded(String),
    /// Refused for safety or limits; recorded, never opened.
    Refused(String),
}

impl EntryStatus {
    pub fn label(&self) -> String {
        match self {
            EntryStatus::Selected => "selected".into(),
            EntryStatus::Excluded(r) => format!("excluded:{r}"),
            EntryStatus::Refused(r) => format!("refused:{r}"),
        }
    }
}

/// Cheap file identity, used to skip unchanged files without reading them: size, times and
/// (device, inode). Every write, truncation, `utimensat` or replacement changes the
/// status-change time or the inode, and user space cannot set a `ctime` back, so an edit that
/// keeps the size and restores the modification time still changes the stamp (see
/// [`crate::stamp`] for stamps taken too soon after a write to vouch for it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileStamp {
    pub size: u64,
    pub mtime_ns: i64,
    pub dev: u64,
    pub ino: u64,
    /// Status-change time, nanoseconds since the epoch (0 in stamps recorded without it).
    #[serde(default)]
    pub ctime_ns: i64,
}

impl FileStamp {
    /// The stamp of `m`. Times beyond what nanoseconds since the epoch hold in an `i64`
    /// (before 1677, after 2262: a file's mtime can be set to anything) saturate.
    pub fn of(m: &fs::Metadata) -> FileStamp {
        let ns = |secs: i64, nanos: i64| crate::stamp::nanos_i64(crate::stamp::nanos(secs, nanos));
        FileStamp {
            size: m.len(),
            mtime_ns: ns(m.mtime(), m.mtime_nsec()),
            dev: m.dev(),
            ino: m.ino(),
            ctime_ns: ns(m.ctime(), m.ctime_nsec()),
        }
    }

    /// Whether the status-change time lies [`crate::RACY_WINDOW`] or more before `nanos`
    /// (nanoseconds since the epoch, a time no later than the content was read): then a later
    /// write would have changed it, and equal stamps mean equal content. Otherwise the stamp
    /// is racy, as Git says: a write in the same clock tick can leave every field equal, and
    /// only the content can tell. (The modification time is the writer's to set, to the future
    /// or to 0; every write sets the `ctime` to the clock.)
    pub fn settled_before(&self, nanos: i128) -> bool {
        let cutoff = nanos - crate::RACY_WINDOW.as_nanos() as i128;
        self.ctime_ns > 0 && i128::from(self.ctime_ns) < cutoff
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Project-relative path with `/` separators.
    pub rel: String,
    pub kind: FileKind,
    pub status: EntryStatus,
    /// Identity of the file as seen by the walk (absent for refused entries).
    pub stamp: Option<FileStamp>,
}

/// The classified file list of one walk. `errors` are scanner errors: while any exist, the
/// inventory is not known to be complete.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inventory {
    pub entries: Vec<Entry>,
    pub errors: Vec<(String, String)>,
    /// The entries that are symlinks (read through their target), sorted: a write to the
    /// target changes them too, though no event names them.
    pub symlinks: Vec<String>,
    /// What around the walked files decides how the go command reads them.
    pub surroundings: Surroundings,
}

/// What the walk found around the Go files that a module layout depends on.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Surroundings {
    /// Symlinks under the Go roots that are not source files (a directory link, typically),
    /// sorted: the walk never follows them, so a `go.work` `use` or `go.mod` directory
    /// `replace` through one reaches a tree the analysis does not see.
    pub links: Vec<String>,
    /// `go.mod`/`go.work` files in directories enclosing a Go root but outside every Go root,
    /// spelt relative to the root (`../go.mod` above it, `go.mod` at it for a Go root below),
    /// sorted. A Go file with no module of its own inside the roots belongs to such a
    /// `go.mod`, and a `go.work` above puts the build in a workspace.
    pub enclosing: Vec<String>,
}

/// The `go.mod`/`go.work` files enclosing the project's Go roots from outside them
/// ([`Surroundings::enclosing`]): each directory from a Go root's parent up to the file
/// system root is checked (a `stat`, nothing is read).
pub fn enclosing_go_files(project: &Project) -> Vec<String> {
    let sel = Selection::new(&project.config);
    let mut out = std::collections::BTreeSet::new();
    for go_root in &sel.go_roots {
        // The directories enclosing the Go root, inner first: inside the project (their
        // relative path) while there are any, then above it (how many levels).
        let mut inside: Vec<String> = Vec::new();
        let mut r = go_root.as_str();
        while !r.is_empty() {
            r = r.rsplit_once('/').map_or("", |(p, _)| p);
            inside.push(r.to_string());
        }
        for dir in inside.iter().filter(|d| !sel.under_go_root(d)) {
            for name in ["go.mod", "go.work"] {
                let spelt = if dir.is_empty() { name.to_string() } else { format!("{dir}/{name}") };
                if fs::symlink_metadata(project.root.join(&spelt)).is_ok() {
                    out.insert(spelt);
                }
            }
        }
    }
    let mut above = project.root.clone();
    let mut up = 0;
    while above.pop() {
        up += 1;
        for name in ["go.mod", "go.work"] {
            if fs::symlink_metadata(above.join(name)).is_ok() {
                out.insert(format!("{}{name}", "../".repeat(up)));
            }
        }
    }
    out.into_iter().collect()
}

impl Inventory {
    /// Update the inventory for only `paths` (absolute; files) having changed, without a
    /// walk: each must be a selected entry that is still a regular file within the size
    /// limit, so a walk would classify every entry the same way. Returns the changed entries'
    /// relative paths; `None` (walk instead; the inventory is left as it was) in any other case.
    pub fn restamp(
        &mut self,
        project: &Project,
        paths: &std::collections::BTreeSet<PathBuf>,
    ) -> Option<Vec<String>> {
        if !self.errors.is_empty() {
            return None;
        }
        let at: std::collections::HashMap<&str, usize> =
            self.entries.iter().enumerate().map(|(i, e)| (e.rel.as_str(), i)).collect();
        let mut updates = Vec::with_capacity(paths.len());
        for p in paths {
            let &i = p.strip_prefix(&project.root).ok().and_then(|r| r.to_str()).and_then(|r| at.get(r))?;
            if self.entries[i].status != EntryStatus::Selected {
                return None;
            }
            let m = fs::symlink_metadata(p).ok()?;
            if !m.file_type().is_file() || m.len() > project.config.limits.max_file_bytes {
                return None;
            }
            updates.push((i, FileStamp::of(&m)));
        }
        // A symlink read through its target changes with it, and no event names it: each is
        // stat'ed through the link (anything but a regular file inside the root: walk).
        for rel in &self.symlinks {
            let Some(&i) = at.get(rel.as_str()) else { continue };
            if self.entries[i].status != EntryStatus::Selected {
                continue;
            }
            let stamp = symlink_stamp(project, rel)?;
            if self.entries[i].stamp != Some(stamp) {
                updates.push((i, stamp));
            }
        }
        let mut rels = Vec::with_capacity(updates.len());
        for (i, stamp) in updates {
            self.entries[i].stamp = Some(stamp);
            rels.push(self.entries[i].rel.clone());
        }
        Some(rels)
    }
}

impl Inventory {
    /// Whether a selected symlink's target changed since the walk (or is no longer a regular
    /// file inside the root): a target where no watch is (`.git`, a derived directory) moves
    /// without an event.
    pub fn symlinks_moved(&self, project: &Project) -> bool {
        // Entries are sorted by path (as `discover` leaves them).
        self.symlinks.iter().any(|rel| {
            let at = self.entries.binary_search_by(|e| e.rel.as_str().cmp(rel));
            at.is_ok_and(|i| {
                let e = &self.entries[i];
                e.status == EntryStatus::Selected && symlink_stamp(project, rel) != e.stamp
            })
        })
    }
}

/// The stamp of the regular file inside the root that the symlink `rel` leads to, within
/// the size limit.
fn symlink_stamp(project: &Project, rel: &str) -> Option<FileStamp> {
    let target = fs::canonicalize(project.root.join(rel)).ok()?;
    let m = fs::metadata(&target).ok().filter(|m| target.starts_with(&project.root) && m.is_file())?;
    (m.len() <= project.config.limits.max_file_bytes).then(|| FileStamp::of(&m))
}

struct Selection {
    docs: GlobSet,
    exclude: GlobSet,
    go_roots: Vec<String>,
    max_file_bytes: u64,
}

fn globset(globs: &[String]) -> GlobSet {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        // Globs were validated when the configuration was parsed.
        if let Ok(glob) = Glob::new(g) {
            b.add(glob);
        }
    }
    b.build().unwrap_or_else(|_| GlobSet::empty())
}

impl Selection {
    fn new(config: &Config) -> Selection {
        let go_roots = config
            .sources
            .go
            .iter()
            .map(|d| d.trim_start_matches("./").trim_end_matches('/').to_string())
            .map(|d| if d == "." { String::new() } else { d })
            .collect();
        Selection {
            docs: globset(&config.sources.docs),
            exclude: globset(&config.sources.exclude),
            go_roots,
            max_file_bytes: config.limits.max_file_bytes,
        }
    }

    fn under_go_root(&self, rel: &str) -> bool {
        self.go_roots.iter().any(|r| r.is_empty() || rel == r || rel.starts_with(&format!("{r}/")))
    }

    /// Whether the directory `rel` is a Go root, under one, or above one: the walk must go in.
    fn on_go_path(&self, rel: &str) -> bool {
        self.under_go_root(rel) || self.go_roots.iter().any(|r| r.starts_with(&format!("{rel}/")))
    }

    fn kind(&self, rel: &str) -> Option<FileKind> {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if rel == crate::CONFIG_FILE {
            return None;
        }
        if name.ends_with(".md") && self.docs.is_match(rel) {
            return Some(FileKind::Markdown);
        }
        if name.ends_with(".toml") && self.docs.is_match(rel) {
            return Some(FileKind::TomlNode);
        }
        if !self.under_go_root(rel) {
            return None;
        }
        match name {
            "go.mod" => Some(FileKind::GoMod),
            "go.work" => Some(FileKind::GoWork),
            "modules.txt" if rel == "vendor/modules.txt" || rel.ends_with("/vendor/modules.txt") => {
                Some(FileKind::GoVendor)
            }
            _ if name.ends_with(".go") => Some(FileKind::Go),
            _ => None,
        }
    }
}

/// A directory is excluded when it or everything under it matches `exclude`.
fn dir_excluded(exclude: &GlobSet, rel: &str) -> bool {
    exclude.is_match(rel) || exclude.is_match(format!("{rel}/_"))
}

/// The status reason of a Go-side file an `exclude` glob of `docforge.toml` covers.
pub const EXCLUDED_BY_CONFIG: &str = "exclude_glob";

/// Directories the go command ignores: `testdata`, and names starting with `_` or `.`.
fn go_ignored_dir(rel: &str) -> bool {
    let dirs: Vec<&str> = rel.split('/').collect();
    dirs[..dirs.len().saturating_sub(1)]
        .iter()
        .any(|d| *d == "testdata" || d.starts_with('_') || d.starts_with('.'))
}

/// Walk the project and classify every candidate source file. Never follows a symlink;
/// never opens a special file.
pub fn discover(project: &Project) -> Inventory {
    let mut entries = Vec::new();
    let mut links = Vec::new();
    let mut symlinks = Vec::new();
    let errors = walk(project, None, |e| entries.push(e), &mut |seen| match seen {
        Seen::Link(rel) => links.push(rel.to_string()),
        Seen::Symlink(rel) => symlinks.push(rel.to_string()),
        _ => {}
    });
    entries.sort_by(|a, b| a.rel.cmp(&b.rel));
    links.sort();
    symlinks.sort();
    Inventory {
        entries,
        errors,
        symlinks,
        surroundings: Surroundings { links, enclosing: enclosing_go_files(project) },
    }
}

/// The walk of [`discover`], handing each classified entry to `found` as soon as it is
/// classified (in walk order, not sorted), so that a caller can read files while the walk goes
/// on. Returns the scanner errors.
pub fn discover_each(project: &Project, found: impl FnMut(Entry)) -> Vec<(String, String)> {
    walk(project, None, found, &mut |_| {})
}

/// [`discover_each`] for a caller that opens the files it loads through the confined reader
/// (which checks the file type and the size limit on the open file): a file the walk reports
/// as a regular file is stat'ed only when `stat(rel, kind)` says the caller will not read it;
/// otherwise it is handed over as `Selected` with no stamp, and a too-large one is refused by
/// the reader (`file_too_large`, the same code). Symlinks and special files are classified
/// exactly as [`discover_each`] does.
///
/// Entries come in no particular order (the caller orders what it collects).
///
/// `seen` is told of every directory the walk lists and of every symlink with a source-file
/// name (classified through its target), so that a caller can tell later whether the walk's
/// result could have changed.
pub fn discover_each_lazy(
    project: &Project,
    stat: impl Fn(&str, FileKind) -> bool,
    found: impl FnMut(Entry),
    mut seen: impl FnMut(Seen),
) -> Vec<(String, String)> {
    walk(project, Some(&stat), found, &mut seen)
}

/// What a lazy walk reports besides its entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Seen<'a> {
    /// A directory whose entries the walk listed (`""`: the root).
    Dir(&'a str),
    /// A symlink with a source-file name.
    Symlink(&'a str),
    /// Another symlink under a Go root ([`Surroundings::links`]; never followed).
    Link(&'a str),
}

/// Which regular files a lazy walk stats.
type StatFilter<'a> = dyn Fn(&str, FileKind) -> bool + 'a;

/// `lazy`: which regular files are stat'ed (`None`: all).
pub(crate) fn walk(
    project: &Project,
    lazy: Option<&StatFilter>,
    mut found: impl FnMut(Entry),
    seen: &mut dyn FnMut(Seen),
) -> Vec<(String, String)> {
    let sel = Selection::new(&project.config);
    let root = &project.root;
    let mut errors = Vec::new();
    let mut ignores = crate::ignores::DocIgnores::default();
    // Directories an `exclude` glob covers (walked only on the way to Go files).
    let mut excluded_dirs: std::collections::HashSet<String> = Default::default();
    let mut builder = ignore::WalkBuilder::new(root);
    if lazy.is_none() {
        // In name order, for readers that take entries as they come. A lazy walk's caller
        // orders what it collects (and sorting by name costs a tenth of the walk).
        builder.sort_by_file_name(|a, b| a.cmp(b));
    }
    // Ignore files are applied here, to documents only (`ignores.rs`): the go command compiles
    // Go files whatever Git ignores. Hidden entries are skipped for both, as the go command
    // skips them.
    let walker = builder
        .hidden(true)
        .git_ignore(false)
        .git_exclude(false)
        .git_global(false)
        .require_git(false)
        .parents(false)
        .ignore(false)
        .follow_links(false)
        .filter_entry({
            let exclude = sel.exclude.clone();
            let root = root.clone();
            let go_roots = Selection::new(&project.config);
            // What DocForge itself writes (and the VCS's own directory) is never a source,
            // hidden or not.
            let derived = project.config.derived_dirs();
            move |e| {
                if e.depth() == 0 || !e.file_type().is_some_and(|t| t.is_dir()) {
                    return true;
                }
                let rel = rel_path(&root, e.path());
                if rel == ".git" || derived.contains(&rel) {
                    return false;
                }
                go_roots.on_go_path(&rel) || !dir_excluded(&exclude, &rel)
            }
        })
        .build();
    for result in walker {
        let entry = match result {
            Ok(e) => e,
            Err(e) => {
                let path = error_path(&e).map(|p| rel_path(root, &p)).unwrap_or_default();
                errors.push((path, e.to_string()));
                continue;
            }
        };
        if entry.depth() == 0 {
            errors.extend(ignores.enter(root, ""));
            seen(Seen::Dir(""));
            continue;
        }
        let rel = rel_path(root, entry.path());
        let Some(ft) = entry.file_type() else { continue };
        if ft.is_dir() {
            errors.extend(ignores.enter(root, &rel));
            let parent = rel.rsplit_once('/').map_or("", |(p, _)| p);
            if excluded_dirs.contains(parent) || dir_excluded(&sel.exclude, &rel) {
                excluded_dirs.insert(rel.clone());
            }
            seen(Seen::Dir(&rel));
            continue;
        }
        let Some(kind) = sel.kind(&rel) else {
            if ft.is_symlink() && sel.under_go_root(&rel) {
                seen(Seen::Link(&rel));
            }
            continue;
        };
        let parent = rel.rsplit_once('/').map_or("", |(p, _)| p);
        let by_config = sel.exclude.is_match(&rel) || excluded_dirs.contains(parent);
        if !kind.is_go_side() && (by_config || ignores.ignored(root, &rel, false)) {
            continue;
        }
        if by_config && !go_ignored_dir(&rel) {
            // The Go build compiles it; the configuration leaves it out: recorded, so the
            // graph says what it does not cover.
            found(Entry { rel, kind, status: EntryStatus::Excluded(EXCLUDED_BY_CONFIG.into()), stamp: None });
            continue;
        }
        if ft.is_symlink() {
            seen(Seen::Symlink(&rel));
        }
        if ft.is_file() && lazy.is_some_and(|stat| !stat(&rel, kind)) {
            found(Entry { status: go_dir_status(&rel, kind), rel, kind, stamp: None });
        } else {
            found(classify(root, &sel, rel, kind, entry.path()));
        }
    }
    errors
}

fn classify(root: &Path, sel: &Selection, rel: String, kind: FileKind, path: &Path) -> Entry {
    let refused =
        |rel: String, why: &str| Entry { rel, kind, status: EntryStatus::Refused(why.into()), stamp: None };
    let meta = match fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(_) => return refused(rel, "unreadable"),
    };
    let ft = meta.file_type();
    let meta = if ft.is_symlink() {
        match fs::canonicalize(path) {
            Err(_) => return refused(rel, "symlink_dangling"),
            Ok(target) if !target.starts_with(root) => return refused(rel, "symlink_outside_root"),
            Ok(target) => match fs::metadata(&target) {
                Ok(m) if m.is_file() => m,
                Ok(_) => return refused(rel, "symlink_not_regular"),
                Err(_) => return refused(rel, "symlink_dangling"),
            },
        }
    } else if ft.is_fifo() || ft.is_socket() || ft.is_block_device() || ft.is_char_device() {
        return refused(rel, "special_file");
    } else if !ft.is_file() {
        return refused(rel, "not_regular");
    } else {
        meta
    };
    if meta.len() > sel.max_file_bytes {
        return Entry {
            rel,
            kind,
            status: EntryStatus::Refused("file_too_large".into()),
            stamp: Some(FileStamp::of(&meta)),
        };
    }
    Entry { status: go_dir_status(&rel, kind), rel, kind, stamp: Some(FileStamp::of(&meta)) }
}

/// A loadable file's status: Go-side files in directories the go command ignores are excluded.
fn go_dir_status(rel: &str, kind: FileKind) -> EntryStatus {
    if kind.is_go_side() && go_ignored_dir(rel) {
        EntryStatus::Excluded("go_ignored_dir".into())
    } else {
        EntryStatus::Selected
    }
}

fn error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => error_path(err),
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

fn rel_path(root: &Path, path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    // The walker joins names to the root, so the path is normally the root's bytes, a slash
    // and a clean relative path: UTF-8 names separated by single slashes, none of them `.`
    // (what the general case below makes of it, without parsing components).
    let (r, p) = (root.as_os_str().as_bytes(), path.as_os_str().as_bytes());
    if let Some(rest) = p.strip_prefix(r).and_then(|rest| rest.strip_prefix(b"/")) {
        if let Ok(s) = std::str::from_utf8(rest) {
            if s.split('/').all(|c| !c.is_empty() && c != ".") {
                return s.to_string();
            }
        }
    }
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/")
}

#[cfg(test)]
mod tests {
    use super::rel_path;
    use std::path::Path;

    #[test]
    fn relative_paths_are_slash_separated_names_under_the_root() {
        let cases = [
            ("/r", "/r/a/b.go", "a/b.go"),
            ("/r", "/r/a", "a"),
            ("/r", "/r", ""),
            ("/r", "/r/./a//b.go", "a/b.go"),
            ("/", "/a/b.go", "a/b.go"),
            ("/r", "/r/a\u{e9}/b.go", "a\u{e9}/b.go"),
        ];
        for (root, path, want) in cases {
            let got = rel_path(Path::new(root), Path::new(path));
            // What the general case (components) makes of it.
            let general = Path::new(path).strip_prefix(root).unwrap();
            let general: Vec<_> = general.components().map(|c| c.as_os_str().to_string_lossy()).collect();
            assert_eq!((got.as_str(), general.join("/").as_str()), (want, want), "{root} {path}");
        }
    }

    /// A modification time past 2262 (nanoseconds no longer fit an `i64`) saturates instead
    /// of overflowing; a time within range is exact.
    #[test]
    fn far_future_times_saturate() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let file = std::fs::File::create(&path).unwrap();
        let year_2300 = std::time::UNIX_EPOCH + std::time::Duration::from_secs(10_413_792_000);
        file.set_modified(year_2300).unwrap();
        let stamp = super::FileStamp::of(&std::fs::metadata(&path).unwrap());
        assert_eq!(stamp.mtime_ns, i64::MAX);
        // A stamp taken when reading agrees with the walk's.
        let read = crate::ReadStamp::of(&std::fs::metadata(&path).unwrap()).unwrap();
        assert_eq!(read.file_stamp(), stamp);
        let year_2100 = std::time::UNIX_EPOCH + std::time::Duration::new(4_102_444_800, 5);
        file.set_modified(year_2100).unwrap();
        let stamp = super::FileStamp::of(&std::fs::metadata(&path).unwrap());
        assert_eq!(stamp.mtime_ns, 4_102_444_800_000_000_005);
    }
}
