//! The one place that writes files under a project root: confined, atomic, regular files only.
//!
//! A path is project-relative and is resolved one component at a time from the root with
//! `O_NOFOLLOW`: no component may be a symlink, `..`, `.` or empty, so a write can never land
//! outside the root or through a link, whatever the tree looks like when it happens. The new
//! bytes go to a fresh temporary file in the target's directory, which then replaces the
//! target by `rename` — a reader sees the old bytes or the new ones, never a mix. A target that
//! exists and is not a regular file (a symlink, a directory, a FIFO) is refused.

use rustix::fd::OwnedFd;
use rustix::fs::{
    fchmod, fstat, fsync, mkdirat, openat, renameat, statat, unlinkat, AtFlags, FileType, Mode, OFlags,
};
use rustix::io::Errno;
use std::io::Write;
use std::path::{Path, PathBuf};

/// How far a write must survive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Durability {
    /// The file and its directory are fsynced before the write returns: the new bytes survive
    /// a power loss.
    Durable,
    /// Atomic against readers and crashes of the process, not fsynced: after a power loss the
    /// file may be old, new or empty. For derived files that carry their own hash, so that a
    /// torn one is detected and rebuilt.
    Atomic,
}

/// A write that was refused or failed. Nothing was written (a temporary file that could not
/// be placed is removed).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error("{path}: not a project-relative path (empty, absolute, `.` or `..` components); refused")]
    InvalidPath { path: String },
    #[error("{path} is {what}; refused (only regular files and real directories are written)")]
    NotRegular { path: String, what: &'static str },
    #[error("cannot write {path}: {message}")]
    Io { path: String, message: String },
    #[error("{path} exists and was not written by DocForge (no {marker} marker); refused — remove it or choose another directory")]
    NotOwned { path: String, marker: String },
}

/// A handle on a root for writing beneath it.
pub struct ProjectWriter {
    pub(crate) root: PathBuf,
}

/// Opening a directory: never through a symlink.
pub(crate) const DIR_FLAGS: OFlags =
    OFlags::RDONLY.union(OFlags::DIRECTORY).union(OFlags::NOFOLLOW).union(OFlags::CLOEXEC);

pub(crate) fn what(ft: FileType) -> &'static str {
    match ft {
        FileType::Symlink => "a symlink",
        FileType::Directory => "a directory",
        FileType::RegularFile => "a regular file",
        _ => "a special file",
    }
}

impl ProjectWriter {
    pub fn new(root: &Path) -> Self {
        ProjectWriter { root: root.to_path_buf() }
    }

    pub(crate) fn components<'a>(&self, rel: &'a str) -> Result<Vec<&'a str>, WriteError> {
        let parts: Vec<&str> = rel.split('/').collect();
        if rel.is_empty() || parts.iter().any(|c| c.is_empty() || *c == "." || *c == "..") {
            return Err(WriteError::InvalidPath { path: rel.to_string() });
        }
        Ok(parts)
    }

    pub(crate) fn io(&self, rel: &str, e: impl std::fmt::Display) -> WriteError {
        WriteError::Io { path: rel.to_string(), message: e.to_string() }
    }

    /// The directory holding `rel`'s last component, opened without following a symlink at
    /// any step; missing directories are created when `create` says so.
    pub(crate) fn parent(&self, rel: &str, parts: &[&str], create: bool) -> Result<OwnedFd, WriteError> {
        let mut dir =
            openat(rustix::fs::CWD, &self.root, DIR_FLAGS, Mode::empty()).map_err(|e| self.io(rel, e))?;
        let mut walked = String::new();
        for part in &parts[..parts.len() - 1] {
            if !walked.is_empty() {
                walked.push('/');
            }
            walked.push_str(part);
            let next = match openat(&dir, *part, DIR_FLAGS, Mode::empty()) {
                Err(Errno::NOENT) if create => match mkdirat(&dir, *part, Mode::from_raw_mode(0o755)) {
                    Ok(()) | Err(Errno::EXIST) => openat(&dir, *part, DIR_FLAGS, Mode::empty()),
                    Err(e) => Err(e),
                },
                other => other,
            };
            dir = match next {
                Ok(fd) => fd,
                Err(Errno::LOOP | Errno::NOTDIR) => {
                    let ft = statat(&dir, *part, AtFlags::SYMLINK_NOFOLLOW)
                        .map(|s| FileType::from_raw_mode(s.st_mode))
                        .unwrap_or(FileType::Unknown);
                    return Err(WriteError::NotRegular { path: walked, what: what(ft) });
                }
                Err(e) => return Err(self.io(&walked, e)),
            };
        }
        Ok(dir)
    }

    /// Refuse an existing target that is not a regular file.
    pub(crate) fn check_target(&self, dir: &OwnedFd, rel: &str, name: &str) -> Result<bool, WriteError> {
        match statat(dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(st) => match FileType::from_raw_mode(st.st_mode) {
                FileType::RegularFile => Ok(true),
                ft => Err(WriteError::NotRegular { path: rel.to_string(), what: what(ft) }),
            },
            Err(Errno::NOENT) => Ok(false),
            Err(e) => Err(self.io(rel, e)),
        }
    }

    /// Atomically replace (or create) `rel` under the root with `bytes`. Returns the path.
    pub fn write(&self, rel: &str, bytes: &[u8], durability: Durability) -> Result<PathBuf, WriteError> {
        self.write_bound(rel, durability, |_| bytes.to_vec())
    }

    /// [`ProjectWriter::write`] of the bytes `make` gives for the (device, inode) the file
    /// will have once placed (the rename keeps it): for a file that states its own identity,
    /// so that a copy of it (a new inode) is told apart from it.
    pub fn write_bound(
        &self,
        rel: &str,
        durability: Durability,
        make: impl FnOnce((u64, u64)) -> Vec<u8>,
    ) -> Result<PathBuf, WriteError> {
        let parts = self.components(rel)?;
        let name = parts[parts.len() - 1];
        let dir = self.parent(rel, &parts, true)?;
        self.check_target(&dir, rel, name)?;
        let tmp = temporary_name(name);
        let file_flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        // A replaced file keeps its permissions (a new one: 0644 less the umask).
        let mode = mode_at(&dir, name);
        let fd = openat(&dir, tmp.as_str(), file_flags, Mode::from_raw_mode(0o644))
            .map_err(|e| self.io(rel, e))?;
        let placed = (|| -> std::io::Result<()> {
            if let Some(mode) = mode {
                fchmod(&fd, Mode::from_raw_mode(mode))?;
            }
            let mut file = std::fs::File::from(fd);
            let meta = file.metadata()?;
            file.write_all(&make((
                std::os::unix::fs::MetadataExt::dev(&meta),
                std::os::unix::fs::MetadataExt::ino(&meta),
            )))?;
            if durability == Durability::Durable {
                file.sync_all()?;
            }
            drop(file);
            // The target may have become something else meanwhile: check again right before.
            if let Ok(st) = statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
                if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
                    return Err(std::io::Error::other(format!(
                        "{rel} became {}",
                        what(FileType::from_raw_mode(st.st_mode))
                    )));
                }
            }
            renameat(&dir, tmp.as_str(), &dir, name)?;
            if durability == Durability::Durable {
                fsync(&dir)?;
            }
            Ok(())
        })();
        placed.map_err(|e| {
            let _ = unlinkat(&dir, tmp.as_str(), AtFlags::empty());
            self.io(rel, e)
        })?;
        Ok(self.root.join(rel))
    }

    /// Create `rel` with `bytes` only if nothing is there; `Ok(false)` when it exists (as a
    /// regular file: anything else is refused). Never replaces.
    pub fn create_new(&self, rel: &str, bytes: &[u8]) -> Result<bool, WriteError> {
        let parts = self.components(rel)?;
        let name = parts[parts.len() - 1];
        let dir = self.parent(rel, &parts, true)?;
        if self.check_target(&dir, rel, name)? {
            return Ok(false);
        }
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = match openat(&dir, name, flags, Mode::from_raw_mode(0o644)) {
            Ok(fd) => fd,
            Err(Errno::EXIST) => return self.check_target(&dir, rel, name).map(|_| false),
            Err(e) => return Err(self.io(rel, e)),
        };
        let mut file = std::fs::File::from(fd);
        let written = file.write_all(bytes).and_then(|()| file.sync_all()).and_then(|()| Ok(fsync(&dir)?));
        if let Err(e) = written {
            let _ = unlinkat(&dir, name, AtFlags::empty());
            return Err(self.io(rel, e));
        }
        Ok(true)
    }

    /// Give the regular file `from` the second name `to` in the same tree, never replacing
    /// anything at `to` (`Ok(false)` when something is there), and make the new entry durable.
    /// For files built aside by another writer (SQLite) that become a project file whole.
    pub fn link_new(&self, from: &str, to: &str) -> Result<bool, WriteError> {
        let (fparts, tparts) = (self.components(from)?, self.components(to)?);
        let fdir = self.parent(from, &fparts, false)?;
        let fname = fparts[fparts.len() - 1];
        if !self.check_target(&fdir, from, fname)? {
            return Err(self.io(from, "no such file"));
        }
        let tdir = self.parent(to, &tparts, true)?;
        let tname = tparts[tparts.len() - 1];
        match rustix::fs::linkat(&fdir, fname, &tdir, tname, AtFlags::empty()) {
            Ok(()) => {}
            Err(Errno::EXIST) => return Ok(false),
            Err(e) => return Err(self.io(to, e)),
        }
        // Best effort where a directory cannot be synced (the link itself is in place).
        let _ = fsync(&tdir);
        Ok(true)
    }

    /// Whether `rel` is a regular file now (through no symlink).
    pub fn is_regular(&self, rel: &str) -> bool {
        let Ok(parts) = self.components(rel) else { return false };
        let Ok(dir) = self.parent(rel, &parts, false) else { return false };
        let name = parts[parts.len() - 1];
        let flags = OFlags::PATH | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        openat(&dir, name, flags, Mode::empty())
            .and_then(|fd| fstat(&fd))
            .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::RegularFile)
    }
}

impl ProjectWriter {
    /// Remove the temporary files that writers of `rel` killed before their rename left
    /// beside it (those of processes that no longer run; best effort, and only where `/proc`
    /// tells which processes run).
    pub fn sweep_temporaries(&self, rel: &str) {
        let Ok(parts) = self.components(rel) else { return };
        let name = parts[parts.len() - 1];
        let Ok(dir) = self.parent(rel, &parts, false) else { return };
        let prefix = format!(".{name}.");
        let pid = |file: &str| {
            let rest = file.strip_prefix(&prefix)?.strip_suffix(".tmp")?;
            rest.split('.').next()?.parse().ok()
        };
        sweep_left_behind(&dir, pid, |dir, file| {
            let _ = unlinkat(dir, file, AtFlags::empty());
        });
    }
}

/// `remove` every entry of `dir` whose name `pid` says a writer left behind, when that writer
/// no longer runs (best effort, and only where `/proc` tells which processes run).
pub(crate) fn sweep_left_behind(
    dir: &OwnedFd,
    pid: impl Fn(&str) -> Option<u32>,
    remove: impl Fn(&OwnedFd, &str),
) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(listing) = rustix::fs::Dir::read_from(dir) else { return };
    for entry in listing.flatten() {
        let file = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = pid(&file) else { continue };
        if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            remove(dir, &file);
        }
    }
}

/// The bytes of the regular file `name` in `dir` (`None`: nothing there).
pub(crate) fn read_at(dir: &OwnedFd, name: &str) -> std::io::Result<Option<Vec<u8>>> {
    Ok(read_with_mode_at(dir, name)?.map(|(bytes, _)| bytes))
}

/// [`read_at`], with the [`replacement_mode`] of the file read (from the same open file).
pub(crate) fn read_with_mode_at(dir: &OwnedFd, name: &str) -> std::io::Result<Option<(Vec<u8>, u32)>> {
    use std::io::Read;
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = match openat(dir, name, flags, Mode::empty()) {
        Ok(fd) => fd,
        Err(Errno::NOENT) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    let st_mode = fstat(&fd)?.st_mode;
    if FileType::from_raw_mode(st_mode) != FileType::RegularFile {
        return Err(std::io::Error::other(format!("{name} is not a regular file")));
    }
    let mut bytes = Vec::new();
    std::fs::File::from(fd).read_to_end(&mut bytes)?;
    Ok(Some((bytes, replacement_mode(st_mode))))
}

/// Create `name` in `dir` exclusively with `bytes`, fsynced; with the permission bits `mode`
/// when given (a file that will replace one keeps that one's), else 0644 less the umask.
pub(crate) fn create_synced(
    dir: &OwnedFd,
    name: &str,
    bytes: &[u8],
    mode: Option<u32>,
) -> std::io::Result<()> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = openat(dir, name, flags, Mode::from_raw_mode(0o644))?;
    if let Some(mode) = mode {
        fchmod(&fd, Mode::from_raw_mode(mode))?;
    }
    let mut file = std::fs::File::from(fd);
    file.write_all(bytes)?;
    file.sync_all()
}

/// The [`replacement_mode`] of the regular file `name` in `dir` (`None`: no regular file
/// there).
fn mode_at(dir: &OwnedFd, name: &str) -> Option<u32> {
    let st = statat(dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
    (FileType::from_raw_mode(st.st_mode) == FileType::RegularFile).then(|| replacement_mode(st.st_mode))
}

/// The permission bits a file replacing one of mode `st_mode` gets: its read, write and
/// execute bits (never set-user-ID, set-group-ID or sticky), and always the owner's read and
/// write, so that the writer can read back and replace what it wrote.
fn replacement_mode(st_mode: u32) -> u32 {
    (st_mode & 0o777) | 0o600
}

/// A name no other writer uses: hidden, in the target's directory, unique per process and call.
fn temporary_name(name: &str) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    format!(".{name}.{}.{n}.tmp", std::process::id())
}

/// An exclusive advisory lock held on a project file ([`ProjectWriter::lock`]); released when
/// dropped (or when the process dies: the kernel drops `flock` locks with the descriptor).
#[derive(Debug)]
pub struct FileLock {
    _fd: OwnedFd,
}

impl ProjectWriter {
    /// Take an exclusive `flock` on `rel` (created empty when missing, its directories too),
    /// waiting for another holder — in this process or another — to release it. Confined as
    /// every write: beneath the root, through no symlink, a regular file only.
    pub fn lock(&self, rel: &str) -> Result<FileLock, WriteError> {
        let parts = self.components(rel)?;
        let name = parts[parts.len() - 1];
        let dir = self.parent(rel, &parts, true)?;
        self.check_target(&dir, rel, name)?;
        let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = openat(&dir, name, flags, Mode::from_raw_mode(0o644)).map_err(|e| match e {
            Errno::LOOP => WriteError::NotRegular { path: rel.to_string(), what: "a symlink" },
            e => self.io(rel, e),
        })?;
        let st = fstat(&fd).map_err(|e| self.io(rel, e))?;
        if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
            return Err(WriteError::NotRegular {
                path: rel.to_string(),
                what: what(FileType::from_raw_mode(st.st_mode)),
            });
        }
        rustix::fs::flock(&fd, rustix::fs::FlockOperation::LockExclusive).map_err(|e| self.io(rel, e))?;
        Ok(FileLock { _fd: fd })
    }

    /// The names in the directory `rel` (through no symlink), sorted; empty when it does not
    /// exist. Only the names: nothing is opened.
    pub fn list_dir(&self, rel: &str) -> Result<Vec<String>, WriteError> {
        let parts = self.components(rel)?;
        let name = parts[parts.len() - 1];
        let parent = match self.parent(rel, &parts, false) {
            Ok(d) => d,
            Err(WriteError::Io { .. }) if !self.root.join(rel).exists() => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let dir = match openat(&parent, name, DIR_FLAGS, Mode::empty()) {
            Ok(d) => d,
            Err(Errno::NOENT) => return Ok(Vec::new()),
            Err(Errno::LOOP | Errno::NOTDIR) => {
                return Err(WriteError::NotRegular { path: rel.to_string(), what: "not a real directory" })
            }
            Err(e) => return Err(self.io(rel, e)),
        };
        let mut names = Vec::new();
        let entries = rustix::fs::Dir::read_from(&dir).map_err(|e| self.io(rel, e))?;
        for entry in entries {
            let entry = entry.map_err(|e| self.io(rel, e))?;
            let n = entry.file_name().to_string_lossy().into_owned();
            if n != "." && n != ".." {
                names.push(n);
            }
        }
        names.sort();
        Ok(names)
    }
}
