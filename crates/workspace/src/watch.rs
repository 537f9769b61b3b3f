//! A change detector that lets a tool call skip the stat walk when provably nothing moved.
//!
//! Linux inotify watches every directory under the root except the VCS directory and the
//! directories DocForge writes derived files into (`Config::derived_dirs`: the state
//! directory, changeset and preview roots, view outputs), which are never sources.
//! The kernel queues an event synchronously with each write, so draining the queue at the
//! start of a call sees every change completed before the call. Events on files name the
//! touched paths (the caller re-stats just those); a directory event, a queue overflow or any
//! doubt (a watch that could not be added) makes the next call walk the whole tree. The
//! watcher can only save work, never hide a change.

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask};
use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

pub struct Watcher {
    ino: Inotify,
    /// Absolute directories that are not sources.
    derived: Vec<PathBuf>,
    dirs: HashMap<WatchDescriptor, PathBuf>,
    /// Something may have changed since the last walk.
    dirty: bool,
    /// Files touched since the last rearm (meaningful only while `unknown` is false).
    touched: BTreeSet<PathBuf>,
    /// A change the touched set cannot describe (directories, overflow) happened.
    unknown: bool,
    /// A watch could not be added: the watcher proves nothing.
    broken: bool,
    /// The root directory's watch, and whether it is gone (the root removed or moved).
    root: Option<WatchDescriptor>,
    root_lost: bool,
    /// The root's path and the directory (device, inode) watched there: another directory
    /// at that path (a parent moved and a copy put back) is not the one watched.
    root_path: PathBuf,
    root_id: Option<(u64, u64)>,
    /// Watches on Git's `info` directories: their `exclude` file decides which documents
    /// are sources, though the VCS directory is otherwise not watched.
    git_info: std::collections::HashSet<WatchDescriptor>,
    buf: Vec<u8>,
}

fn mask() -> WatchMask {
    WatchMask::MODIFY
        | WatchMask::CLOSE_WRITE
        | WatchMask::ATTRIB
        | WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::DELETE_SELF
        | WatchMask::MOVE_SELF
        | WatchMask::DONT_FOLLOW
}

/// The (device, inode) of the directory at `path`.
fn dir_id(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// Whether `path` is not a source directory: a VCS or state directory, or a derived one.
fn skipped(derived: &[PathBuf], path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == ".git" || n == docforge_project::STATE_DIR)
        || derived.iter().any(|d| d == path)
}

impl Watcher {
    /// Watch `root` except `derived` (project-relative directories that are not sources).
    pub fn start(root: &Path, derived: &[String]) -> std::io::Result<Watcher> {
        let ino = Inotify::init()?;
        let mut w = Watcher {
            ino,
            derived: derived.iter().map(|d| root.join(d)).collect(),
            dirs: HashMap::new(),
            dirty: true,
            touched: BTreeSet::new(),
            unknown: true,
            broken: false,
            root: None,
            root_lost: false,
            root_path: root.to_path_buf(),
            root_id: dir_id(root),
            git_info: Default::default(),
            buf: vec![0; 64 * 1024],
        };
        w.watch_tree(root);
        w.root = w.dirs.iter().find(|(_, d)| d.as_path() == root).map(|(wd, _)| wd.clone());
        w.broken |= w.root.is_none();
        Ok(w)
    }

    /// The root directory was removed or moved since the watcher started: it watches a tree
    /// that is no longer the project (and proves nothing); a new one must be started.
    pub fn root_lost(&mut self) -> bool {
        self.quiet();
        self.root_lost || dir_id(&self.root_path) != self.root_id
    }

    fn watch_tree(&mut self, dir: &Path) {
        let mut stack = vec![dir.to_path_buf()];
        while let Some(d) = stack.pop() {
            match self.ino.watches().add(&d, mask()) {
                Ok(wd) => {
                    self.dirs.insert(wd, d.clone());
                }
                Err(_) => {
                    self.broken = true;
                    continue;
                }
            }
            let Ok(rd) = std::fs::read_dir(&d) else {
                self.broken = true;
                continue;
            };
            for entry in rd.flatten() {
                if entry.file_name() == ".git" {
                    // Only its `info/exclude` (a worktree's or submodule's, in the common
                    // directory its `gitdir:` file names) is a source of rules.
                    let info =
                        docforge_project::git_exclude(&d).and_then(|x| x.parent().map(Path::to_path_buf));
                    if let Some(Ok(wd)) = info.map(|i| self.ino.watches().add(i, mask())) {
                        self.git_info.insert(wd);
                    }
                    continue;
                }
                // Symlinked directories are not followed (the walk refuses or records them).
                if entry.file_type().is_ok_and(|t| t.is_dir()) && !skipped(&self.derived, &entry.path()) {
                    stack.push(entry.path());
                }
            }
        }
    }

    /// Drain the queue; true when nothing changed since the last [`Watcher::rearm`].
    pub fn quiet(&mut self) -> bool {
        let mut new_dirs = Vec::new();
        loop {
            let events = match self.ino.read_events(&mut self.buf) {
                Ok(events) => events,
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => break,
                Err(_) => {
                    self.broken = true;
                    break;
                }
            };
            let mut any = false;
            for ev in events {
                any = true;
                if self.git_info.contains(&ev.wd) {
                    if ev.name.is_some_and(|n| n == "exclude") {
                        // Which documents are sources may have changed: walk.
                        (self.dirty, self.unknown) = (true, true);
                    }
                    continue;
                }
                if Some(&ev.wd) == self.root.as_ref()
                    && ev.mask.intersects(EventMask::IGNORED | EventMask::DELETE_SELF | EventMask::MOVE_SELF)
                {
                    (self.root_lost, self.broken) = (true, true);
                }
                // The entries of the VCS directory and of derived directories (the state
                // directory is created by the first publication) are not sources.
                if let (Some(dir), Some(name)) = (self.dirs.get(&ev.wd), ev.name) {
                    if skipped(&self.derived, &dir.join(name)) {
                        continue;
                    }
                }
                if ev.mask.contains(EventMask::Q_OVERFLOW) {
                    self.broken = true;
                }
                self.dirty = true;
                match (ev.mask.contains(EventMask::ISDIR), self.dirs.get(&ev.wd), ev.name) {
                    (false, Some(dir), Some(name)) => {
                        self.touched.insert(dir.join(name));
                    }
                    _ => self.unknown = true,
                }
                if ev.mask.contains(EventMask::ISDIR)
                    && ev.mask.intersects(EventMask::CREATE | EventMask::MOVED_TO)
                {
                    if let (Some(parent), Some(name)) = (self.dirs.get(&ev.wd), ev.name) {
                        new_dirs.push(parent.join(name));
                    }
                }
                if ev.mask.intersects(EventMask::IGNORED | EventMask::DELETE_SELF | EventMask::MOVE_SELF) {
                    self.dirs.remove(&ev.wd);
                }
            }
            if !any {
                break;
            }
        }
        for d in new_dirs {
            self.watch_tree(&d);
        }
        !self.dirty && !self.broken
    }

    /// The files touched since the last rearm, when only files were touched (`None`: the
    /// change is not describable as a file list; walk).
    pub fn touched(&mut self) -> Option<&BTreeSet<PathBuf>> {
        self.quiet();
        (!self.unknown && !self.broken).then_some(&self.touched)
    }

    /// Called right before a walk or re-stat: changes from now on are reported next time.
    pub fn rearm(&mut self) {
        self.quiet();
        self.dirty = false;
        self.unknown = false;
        self.touched.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_a_new_directory_and_a_file_in_it_are_all_seen() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.md"), "# a").unwrap();
        let derived = [".docforge".to_string(), "site/out".to_string()];
        let mut w = Watcher::start(dir.path(), &derived).unwrap();
        assert!(!w.quiet(), "a new watcher proves nothing until the first walk");
        w.rearm();
        assert!(w.quiet());
        std::fs::write(dir.path().join("a.md"), "# b").unwrap();
        assert!(!w.quiet(), "a write is seen");
        assert_eq!(w.touched().unwrap().iter().collect::<Vec<_>>(), [&dir.path().join("a.md")]);
        w.rearm();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert!(!w.quiet());
        assert!(w.touched().is_none(), "a new directory needs a walk");
        w.rearm();
        std::fs::write(dir.path().join("sub/b.md"), "# b").unwrap();
        assert!(!w.quiet(), "a file in a directory created after start is seen");
        w.rearm();
        std::fs::create_dir_all(dir.path().join(".docforge")).unwrap();
        w.rearm();
        std::fs::write(dir.path().join(".docforge/index.sqlite"), "x").unwrap();
        assert!(w.quiet(), "the state directory is not watched");
        std::fs::create_dir(dir.path().join("site")).unwrap();
        assert!(!w.quiet(), "a new directory is a change");
        w.rearm();
        std::fs::create_dir_all(dir.path().join("site/out/pages")).unwrap();
        std::fs::write(dir.path().join("site/out/pages/index.md"), "# rendered").unwrap();
        assert!(w.quiet(), "a derived directory (a view output) is not watched");
        std::fs::write(dir.path().join("site/notes.md"), "# a source beside it").unwrap();
        assert!(!w.quiet(), "its parent still is");
    }

    #[test]
    fn gits_exclude_file_is_watched_and_the_rest_of_git_is_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git/info")).unwrap();
        std::fs::create_dir_all(dir.path().join(".git/objects")).unwrap();
        let mut w = Watcher::start(dir.path(), &[]).unwrap();
        w.rearm();
        std::fs::write(dir.path().join(".git/objects/x"), "x").unwrap();
        std::fs::write(dir.path().join(".git/info/other"), "x").unwrap();
        assert!(w.quiet(), "Git's own files are not sources");
        std::fs::write(dir.path().join(".git/info/exclude"), "docs/\n").unwrap();
        assert!(!w.quiet(), "its exclude file decides which documents are sources");
        assert!(w.touched().is_none(), "a change of rules needs a walk");

        // A worktree's `.git` file names its Git directory: the exclude file there is watched.
        let worktree = tempfile::tempdir().unwrap();
        let gitdir = tempfile::tempdir().unwrap();
        std::fs::create_dir(gitdir.path().join("info")).unwrap();
        std::fs::write(worktree.path().join(".git"), format!("gitdir: {}\n", gitdir.path().display()))
            .unwrap();
        let mut w = Watcher::start(worktree.path(), &[]).unwrap();
        w.rearm();
        std::fs::write(gitdir.path().join("info/exclude"), "docs/\n").unwrap();
        assert!(!w.quiet() && w.touched().is_none(), "a worktree's exclude file is watched");
    }

    #[test]
    fn a_removed_or_moved_root_is_lost() {
        for how in ["remove", "move", "move its parent"] {
            let parent = tempfile::tempdir().unwrap();
            let root = parent.path().join("in/project");
            std::fs::create_dir_all(&root).unwrap();
            let mut w = Watcher::start(&root, &[]).unwrap();
            w.rearm();
            assert!(w.quiet() && !w.root_lost());
            match how {
                "remove" => std::fs::remove_dir(&root).unwrap(),
                "move" => std::fs::rename(&root, parent.path().join("moved")).unwrap(),
                _ => std::fs::rename(parent.path().join("in"), parent.path().join("out")).unwrap(),
            }
            std::fs::create_dir_all(&root).unwrap();
            assert!(w.root_lost(), "{how}: it watches a tree that is no longer the project");
        }
    }
}
