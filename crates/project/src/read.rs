//! The one place that opens source files: confined, non-blocking, regular files only.

use crate::stamp::ReadStamp;
use std::fs;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Default per-file size cap (8 MiB): larger files are refused, recorded, never read.
pub const DEFAULT_MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ReadError {
    #[error("cannot read {path}: {message}")]
    Io { path: String, message: String },
    #[error("{path} is not a regular file; refused")]
    NotRegular { path: String },
    #[error("{path} is larger than {limit} bytes; refused")]
    TooLarge { path: String, limit: u64 },
    #[error("{path} resolves outside the project root; refused")]
    OutsideRoot { path: String },
}

impl ReadError {
    /// A stable reason code for inventories and diagnostics.
    pub fn code(&self) -> &'static str {
        match self {
            ReadError::Io { .. } => "unreadable",
            ReadError::NotRegular { .. } => "special_file",
            ReadError::TooLarge { .. } => "file_too_large",
            ReadError::OutsideRoot { .. } => "symlink_outside_root",
        }
    }
}

const O_NONBLOCK: i32 = 0o4000;

/// The bytes of the regular file at `path` (a symlink followed), at most `max` of them, read
/// without ever blocking: a FIFO, socket or device is refused (`InvalidInput`) instead of
/// waiting on it, as the source reader does. For the files DocForge reads besides sources:
/// `docforge.toml`, ignore files, Git's pointers, receipts.
pub fn read_regular_file(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = open_nonblocking(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket or device is never read)",
        ));
    }
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, format!("larger than {max} bytes")));
    }
    Ok(bytes)
}

/// A handle on the root for opening many files beneath it: the root directory is opened once
/// (`O_PATH`), not once per file.
pub struct SourceReader<'r> {
    pub(crate) root: &'r Path,
    pub(crate) dir: Option<rustix::fd::OwnedFd>,
}

impl<'r> SourceReader<'r> {
    /// `root` must be canonical.
    pub fn new(root: &'r Path) -> Self {
        use rustix::fs::{open, Mode, OFlags};
        let dir = open(root, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok();
        SourceReader { root, dir }
    }

    /// [`read_source`] through this handle.
    pub fn read_into_vec(&self, rel: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
        let mut bytes = Vec::new();
        self.read_into(rel, limit, &mut bytes)?;
        Ok(bytes)
    }

    /// [`read_source_into`] through this handle.
    pub fn read_into(&self, rel: &str, limit: u64, bytes: &mut Vec<u8>) -> Result<(), ReadError> {
        self.read_into_stamped(rel, limit, bytes).map(drop)
    }

    /// [`SourceReader::read_into`], also returning the open file's stamp taken before its
    /// bytes were read (a write during the read changes the file's current stamp).
    pub fn read_into_stamped(
        &self,
        rel: &str,
        limit: u64,
        bytes: &mut Vec<u8>,
    ) -> Result<ReadStamp, ReadError> {
        bytes.clear();
        let (file, stamp) = self.open(rel, limit)?;
        bytes.reserve(stamp.size() as usize);
        let io = |e: std::io::Error| ReadError::Io { path: rel.to_string(), message: e.to_string() };
        file.take(limit.saturating_add(1)).read_to_end(bytes).map_err(io)?;
        if bytes.len() as u64 > limit {
            return Err(ReadError::TooLarge { path: rel.to_string(), limit });
        }
        Ok(stamp)
    }

    /// Open `rel` for reading: confined to the root, non-blocking, a regular file of at most
    /// `limit` bytes when opened (a reader must still stop after `limit` bytes: it can grow).
    pub fn open(&self, rel: &str, limit: u64) -> Result<(fs::File, ReadStamp), ReadError> {
        let io = |e: std::io::Error| ReadError::Io { path: rel.to_string(), message: e.to_string() };
        let file = match self.open_beneath(rel).map_err(io)? {
            Some(file) => file,
            None => open_canonical(self.root, rel)?,
        };
        let meta = file.metadata().map_err(io)?;
        let Some(stamp) = ReadStamp::of(&meta) else {
            return Err(ReadError::NotRegular { path: rel.to_string() });
        };
        if meta.len() > limit {
            return Err(ReadError::TooLarge { path: rel.to_string(), limit });
        }
        Ok((file, stamp))
    }

    /// Open `rel` with `openat2(RESOLVE_BENEATH)` from the root: one system call that
    /// resolves the path, symlinks included, and fails if resolution would leave the root —
    /// race-free, and without the per-component `readlink` calls of canonicalisation. `None`
    /// when the kernel cannot answer that way (no `openat2`, or `EXDEV`: an escape or an
    /// absolute symlink), and then the canonical check decides.
    fn open_beneath(&self, rel: &str) -> std::io::Result<Option<fs::File>> {
        use rustix::fs::{openat2, Mode, OFlags, ResolveFlags};
        use rustix::io::Errno;
        let Some(dir) = &self.dir else { return Ok(None) };
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC;
        match openat2(dir, rel, flags, Mode::empty(), ResolveFlags::BENEATH) {
            Ok(fd) => Ok(Some(fs::File::from(fd))),
            Err(Errno::NOSYS | Errno::XDEV | Errno::PERM | Errno::INVAL) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }
}

/// The portable check: canonicalise, require the result under the root, then open it.
fn open_canonical(root: &Path, rel: &str) -> Result<fs::File, ReadError> {
    let io = |e: std::io::Error| ReadError::Io { path: rel.to_string(), message: e.to_string() };
    let real = fs::canonicalize(root.join(rel)).map_err(io)?;
    if !real.starts_with(root) {
        return Err(ReadError::OutsideRoot { path: rel.to_string() });
    }
    open_nonblocking(&real).map_err(io)
}

/// Open `path` for reading without blocking (a FIFO with no writer does not wait).
fn open_nonblocking(path: &Path) -> std::io::Result<fs::File> {
    fs::OpenOptions::new().read(true).custom_flags(O_NONBLOCK).open(path)
}

/// Read `rel` under the canonical `root`. Re-checks confinement and file type at open time
/// (the walk may be stale), opens non-blocking so a FIFO swapped in cannot hang the reader,
/// and reads at most `limit` bytes.
pub fn read_source(root: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
    let mut bytes = Vec::new();
    read_source_into(root, rel, limit, &mut bytes)?;
    Ok(bytes)
}

/// [`read_source`] into `bytes` (cleared first), so that a caller reading many files can
/// reuse one buffer. On an error `bytes` holds nothing meaningful.
pub fn read_source_into(root: &Path, rel: &str, limit: u64, bytes: &mut Vec<u8>) -> Result<(), ReadError> {
    SourceReader::new(root).read_into(rel, limit, bytes)
}

/// Why [`stat_beneath`] found no file (or directory) where it looked.
#[derive(Debug)]
pub enum NotBeneath {
    /// Nothing there, or nothing at some directory on the way.
    Missing,
    /// The component ending this prefix of the path is a symlink.
    Symlink(String),
    /// The component ending this prefix is not a directory (on the way) or not of the kind
    /// asked for (the last).
    WrongType(String),
    /// It could not be inspected.
    Io(std::io::Error),
}

/// The metadata of `rel` below `root` when every component on the way is a real directory
/// (never a symlink) and the last a regular file (a directory when `want_dir`), each inspected
/// with `lstat`. `known_dirs` holds directories already found real by the caller, which are
/// not inspected again; every directory found on the way is added.
pub fn stat_beneath(
    root: &Path,
    rel: &str,
    want_dir: bool,
    known_dirs: &mut std::collections::HashSet<std::path::PathBuf>,
) -> Result<fs::Metadata, NotBeneath> {
    let mut at = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let last = i + 1 == parts.len();
        if !last && known_dirs.contains(&at) {
            continue;
        }
        let m = match fs::symlink_metadata(&at) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(NotBeneath::Missing),
            Err(e) => return Err(NotBeneath::Io(e)),
        };
        if m.file_type().is_symlink() {
            return Err(NotBeneath::Symlink(parts[..=i].join("/")));
        }
        let dir_wanted = !last || want_dir;
        if dir_wanted && !m.is_dir() || !dir_wanted && !m.file_type().is_file() {
            return Err(NotBeneath::WrongType(parts[..=i].join("/")));
        }
        if last {
            return Ok(m);
        }
        known_dirs.insert(at.clone());
    }
    Err(NotBeneath::Missing)
}
