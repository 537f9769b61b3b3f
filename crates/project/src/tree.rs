//! Replacing a whole directory of derived files at once (a rendered site): the new tree is
//! written beside the old one and swapped in with one `rename`, so a reader sees the old
//! tree or the new one, never a mix, and a failure before the swap leaves the old tree as it
//! was.
//!
//! The tree is staged in a hidden sibling (`.NAME.stage-PID-N`), every file and directory
//! fsynced, then exchanged with the existing directory (`renameat2(RENAME_EXCHANGE)`; a new
//! directory is renamed into place with `RENAME_NOREPLACE`), the parent fsynced, and the old
//! tree removed. An existing directory is replaced only when it holds the owner's marker
//! file with the same bytes: a directory DocForge did not write is never replaced.
//! [`ProjectWriter::replace_tree_then`] runs a step between the swap and the removal of the
//! old tree (writing what describes the new tree) and swaps back when that step fails.

use crate::write::{create_synced, read_at, sweep_left_behind, what, ProjectWriter, WriteError, DIR_FLAGS};
use rustix::fd::OwnedFd;
use rustix::fs::{
    fsync, mkdirat, openat, renameat_with, statat, unlinkat, AtFlags, FileType, Mode, RenameFlags,
};
use rustix::io::Errno;

/// The file marking a directory as written by one owner (e.g. a view): its name inside the
/// tree and its exact bytes.
#[derive(Clone, Copy, Debug)]
pub struct Owner<'a> {
    pub file: &'a str,
    pub bytes: &'a [u8],
}

impl ProjectWriter {
    /// Replace the directory `rel` with exactly `files` (paths relative to it), plus the
    /// owner's marker. See the module documentation.
    pub fn replace_tree(
        &self,
        rel: &str,
        files: &[(String, Vec<u8>)],
        owner: Owner<'_>,
    ) -> Result<(), WriteError> {
        self.replace_tree_then(rel, files, owner, || Ok(()))
    }

    /// [`ProjectWriter::replace_tree`], running `then` once the new tree is in place and
    /// before the old one is removed (to write what describes the new tree, e.g. a receipt).
    /// When `then` fails, the old tree is swapped back (or the new one removed when there was
    /// none) and its error returned: the replacement is undone.
    pub fn replace_tree_then<T>(
        &self,
        rel: &str,
        files: &[(String, Vec<u8>)],
        owner: Owner<'_>,
        then: impl FnOnce() -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        self.replace_tree_then_failing_after(rel, files, owner, usize::MAX, then)
    }

    /// [`ProjectWriter::replace_tree_then`] that fails as an I/O error would after writing
    /// `budget` staged files (before the swap; `then` is not run).
    #[doc(hidden)]
    pub fn replace_tree_then_failing_after<T>(
        &self,
        rel: &str,
        files: &[(String, Vec<u8>)],
        owner: Owner<'_>,
        budget: usize,
        then: impl FnOnce() -> Result<T, WriteError>,
    ) -> Result<T, WriteError> {
        let parts = self.components(rel)?;
        let name = parts[parts.len() - 1];
        let parent = self.parent(rel, &parts, true)?;
        self.sweep_stages(&parent, name);
        let exists = self.check_replaceable(&parent, rel, name, owner)?;
        for (path, _) in files {
            self.components(path).map_err(|_| WriteError::InvalidPath { path: format!("{rel}/{path}") })?;
        }
        let stage = stage_name(name);
        mkdirat(&parent, stage.as_str(), Mode::from_raw_mode(0o755)).map_err(|e| self.io(rel, e))?;
        let staged = (|| -> std::io::Result<()> {
            let root = openat(&parent, stage.as_str(), DIR_FLAGS, Mode::empty())?;
            let all =
                files.iter().map(|(p, b)| (p.as_str(), b.as_slice())).chain([(owner.file, owner.bytes)]);
            let mut dirs: Vec<(String, OwnedFd)> = Vec::new();
            for (written, (path, bytes)) in all.enumerate() {
                if written >= budget {
                    return Err(std::io::Error::other("injected failure"));
                }
                let (dir, file) = match path.rsplit_once('/') {
                    Some((d, f)) => (d, f),
                    None => ("", path),
                };
                let at = if dir.is_empty() { &root } else { open_dirs(&root, dir, &mut dirs)? };
                create_synced(at, file, bytes, None)?;
            }
            for (_, d) in &dirs {
                fsync(d)?;
            }
            fsync(&root)?;
            Ok(())
        })();
        if let Err(e) = staged {
            remove_tree(&parent, &stage);
            return Err(self.io(rel, e));
        }
        let swap = if exists {
            renameat_with(&parent, stage.as_str(), &parent, name, RenameFlags::EXCHANGE)
        } else {
            renameat_with(&parent, stage.as_str(), &parent, name, RenameFlags::NOREPLACE)
        };
        if let Err(e) = swap {
            remove_tree(&parent, &stage);
            return Err(self.io(rel, e));
        }
        let _ = fsync(&parent);
        match then() {
            Ok(value) => {
                if exists {
                    // The stage name now holds the old tree.
                    remove_tree(&parent, &stage);
                }
                Ok(value)
            }
            Err(e) => {
                // Undo: the old tree back in place (the stage name then holds the new one), or
                // the new tree removed when there was none.
                if exists {
                    if renameat_with(&parent, stage.as_str(), &parent, name, RenameFlags::EXCHANGE).is_ok() {
                        let _ = fsync(&parent);
                        remove_tree(&parent, &stage);
                    }
                } else {
                    remove_tree(&parent, name);
                    let _ = fsync(&parent);
                }
                Err(e)
            }
        }
    }

    /// Whether `name` in `parent` exists (a directory holding the owner's marker); an error
    /// for anything else there.
    fn check_replaceable(
        &self,
        parent: &OwnedFd,
        rel: &str,
        name: &str,
        owner: Owner<'_>,
    ) -> Result<bool, WriteError> {
        let st = match statat(parent, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => st,
            Err(Errno::NOENT) => return Ok(false),
            Err(e) => return Err(self.io(rel, e)),
        };
        let ft = FileType::from_raw_mode(st.st_mode);
        if ft != FileType::Directory {
            return Err(WriteError::NotRegular { path: rel.to_string(), what: what(ft) });
        }
        let dir = openat(parent, name, DIR_FLAGS, Mode::empty()).map_err(|e| self.io(rel, e))?;
        match read_at(&dir, owner.file) {
            Ok(Some(bytes)) if bytes == owner.bytes => Ok(true),
            _ => Err(WriteError::NotOwned { path: rel.to_string(), marker: owner.file.to_string() }),
        }
    }

    /// Remove stages of `name` that writers which no longer run left in `parent`.
    fn sweep_stages(&self, parent: &OwnedFd, name: &str) {
        let prefix = format!(".{name}.stage-");
        let pid = |file: &str| file.strip_prefix(&prefix)?.split('-').next()?.parse().ok();
        sweep_left_behind(parent, pid, remove_tree);
    }
}

/// Open (creating) the directories of `dir` (`a/b/c`) below `root`, caching each.
fn open_dirs<'d>(
    root: &OwnedFd,
    dir: &str,
    cache: &'d mut Vec<(String, OwnedFd)>,
) -> std::io::Result<&'d OwnedFd> {
    let mut walked = String::new();
    for part in dir.split('/') {
        let parent_path = walked.clone();
        if !walked.is_empty() {
            walked.push('/');
        }
        walked.push_str(part);
        if cache.iter().any(|(p, _)| *p == walked) {
            continue;
        }
        let fd = {
            let parent = if parent_path.is_empty() {
                root
            } else {
                &cache.iter().find(|(p, _)| *p == parent_path).expect("parent opened first").1
            };
            match mkdirat(parent, part, Mode::from_raw_mode(0o755)) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
            openat(parent, part, DIR_FLAGS, Mode::empty())?
        };
        cache.push((walked.clone(), fd));
    }
    Ok(&cache.iter().find(|(p, _)| *p == walked).expect("opened").1)
}

/// Remove `name` in `dir` and everything below it, following no symlink (best effort).
fn remove_tree(dir: &OwnedFd, name: &str) {
    if unlinkat(dir, name, AtFlags::empty()).is_ok() {
        return;
    }
    if let Ok(sub) = openat(dir, name, DIR_FLAGS, Mode::empty()) {
        let names: Vec<String> = match rustix::fs::Dir::read_from(&sub) {
            Ok(listing) => listing
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != "." && n != "..")
                .collect(),
            Err(_) => Vec::new(),
        };
        for n in names {
            remove_tree(&sub, &n);
        }
    }
    let _ = unlinkat(dir, name, AtFlags::REMOVEDIR);
}

fn stage_name(name: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(".{name}.stage-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed))
}
