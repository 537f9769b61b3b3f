//! File stamps: what tells, without reading a file again, that the bytes read earlier in the
//! same operation are still its content.
//!
//! A stamp is the file's device, inode, size, modification time and status-change time
//! (`ctime`). Every write, truncation, `utimensat` or replacement changes the `ctime` (or
//! the inode), and user space cannot set a `ctime`. Two stamps taken in one operation that
//! are equal therefore mean "unchanged" — unless the earlier stamp is *racy*: file systems
//! keep times at a granularity (a clock tick, one or two seconds on some), so a write in
//! the same tick as the modification that produced the earlier stamp can leave every field
//! equal. Like Git's racily clean index entries (and the Go command's file-hash cache), a
//! stamp is only trusted when both times lie [`RACY_WINDOW`] or more before the operation
//! began; any other file is read again.
//!
//! A directory's stamp stands for its list of entries the same way: creating, removing or
//! renaming an entry changes the directory's times.

use crate::read::SourceReader;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// How long before an operation began a file's times must lie for its stamp to be trusted
/// (longer than any file system's timestamp granularity: FAT's is two seconds).
pub const RACY_WINDOW: Duration = Duration::from_secs(3);

/// The identity and times of one regular file.
///
/// Serialised as `[dev, ino, size, mtime, ctime]` (times in nanoseconds since the epoch):
/// receipts hold thousands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(from = "StampFields", into = "StampFields")]
pub struct ReadStamp {
    dev: u64,
    ino: u64,
    size: u64,
    /// Nanoseconds since the epoch.
    mtime: i128,
    ctime: i128,
}

/// [`ReadStamp`] as serialised.
type StampFields = (u64, u64, u64, i128, i128);

impl From<StampFields> for ReadStamp {
    fn from((dev, ino, size, mtime, ctime): StampFields) -> Self {
        ReadStamp { dev, ino, size, mtime, ctime }
    }
}

impl From<ReadStamp> for StampFields {
    fn from(s: ReadStamp) -> Self {
        (s.dev, s.ino, s.size, s.mtime, s.ctime)
    }
}

pub(crate) fn nanos(sec: i64, nsec: i64) -> i128 {
    i128::from(sec) * 1_000_000_000 + i128::from(nsec)
}

/// Nanoseconds since the epoch as a walk's [`crate::FileStamp`] keeps them: an `i64`, times
/// before 1677 or after 2262 (a file's mtime can be set to anything) saturated, the same way
/// wherever a stamp is made.
pub(crate) fn nanos_i64(n: i128) -> i64 {
    n.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

impl ReadStamp {
    /// The stamp of an open regular file's metadata (`None` for anything else).
    pub fn of(meta: &fs::Metadata) -> Option<ReadStamp> {
        meta.is_file().then(|| ReadStamp::of_any(meta))
    }

    fn of_any(meta: &fs::Metadata) -> ReadStamp {
        ReadStamp {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime: nanos(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// The size in bytes when stamped.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Whether both times lie strictly before `nanos` (nanoseconds since the epoch) as the
    /// same file system keeps times: a change after a file stamped at `nanos` was written
    /// then gives a later time, so this stamp, unchanged, still stands for its content (Git's
    /// rule for racily clean entries, with the time of a file written after the stamp).
    pub fn before(&self, nanos: i128) -> bool {
        self.mtime < nanos && self.ctime < nanos
    }

    /// The device this was stamped on.
    pub fn dev(&self) -> u64 {
        self.dev
    }

    /// The walk's identity of the same file.
    pub fn file_stamp(&self) -> crate::FileStamp {
        crate::FileStamp {
            size: self.size,
            mtime_ns: nanos_i64(self.mtime),
            dev: self.dev,
            ino: self.ino,
            ctime_ns: nanos_i64(self.ctime),
        }
    }

    /// Whether this stamp can vouch for the content read with it in an operation that
    /// began at `began`: both times are positive and at least [`RACY_WINDOW`] older.
    pub fn settled_before(&self, began: SystemTime) -> bool {
        let Ok(began) = began.duration_since(UNIX_EPOCH) else { return false };
        let cutoff = began.saturating_sub(RACY_WINDOW).as_nanos() as i128;
        self.mtime > 0 && self.ctime > 0 && self.mtime < cutoff && self.ctime < cutoff
    }
}

/// What is at a path now (a final symlink not followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PathState {
    /// Nothing (`ENOENT`).
    Absent,
    File(ReadStamp),
    Dir(ReadStamp),
    /// A symlink, a special file, or a path that cannot be examined.
    Other,
}

impl SourceReader<'_> {
    /// The current stamp of the regular file `rel`. `None` when it cannot be had or `rel` is
    /// not a regular file: the caller then reads the file.
    pub fn stamp(&self, rel: &str) -> Option<ReadStamp> {
        match self.path_state(rel) {
            PathState::File(s) => Some(s),
            _ => None,
        }
    }

    /// What is at `rel` (`""`: the root) now, asking network file systems for fresh
    /// attributes (`AT_STATX_FORCE_SYNC`). The path is not confined here — a stamp only ever
    /// confirms an inode examined (confined) before.
    pub fn path_state(&self, rel: &str) -> PathState {
        use rustix::fs::{makedev, statx, AtFlags, FileType, StatxFlags};
        let Some(dir) = &self.dir else {
            return match fs::symlink_metadata(self.root.join(rel)) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => PathState::Absent,
                Err(_) => PathState::Other,
                Ok(m) if m.is_dir() => PathState::Dir(ReadStamp::of_any(&m)),
                Ok(m) => ReadStamp::of(&m).map_or(PathState::Other, PathState::File),
            };
        };
        let want =
            StatxFlags::TYPE | StatxFlags::INO | StatxFlags::SIZE | StatxFlags::MTIME | StatxFlags::CTIME;
        let mut flags = AtFlags::SYMLINK_NOFOLLOW | AtFlags::STATX_FORCE_SYNC;
        if rel.is_empty() {
            flags |= AtFlags::EMPTY_PATH;
        }
        let s = match statx(dir, rel, flags, want) {
            Ok(s) => s,
            Err(rustix::io::Errno::NOENT) => return PathState::Absent,
            Err(_) => return PathState::Other,
        };
        if !StatxFlags::from_bits_truncate(s.stx_mask).contains(want) {
            return PathState::Other;
        }
        let stamp = ReadStamp {
            dev: makedev(s.stx_dev_major, s.stx_dev_minor),
            ino: s.stx_ino,
            size: s.stx_size,
            mtime: nanos(s.stx_mtime.tv_sec, i64::from(s.stx_mtime.tv_nsec)),
            ctime: nanos(s.stx_ctime.tv_sec, i64::from(s.stx_ctime.tv_nsec)),
        };
        match FileType::from_raw_mode(u32::from(s.stx_mode)) {
            FileType::RegularFile => PathState::File(stamp),
            FileType::Directory => PathState::Dir(stamp),
            _ => PathState::Other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn a_stamp_taken_on_the_open_file_equals_one_taken_by_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join("a.go"), "package a\n").unwrap();
        let reader = SourceReader::new(&root);
        let mut bytes = Vec::new();
        let read = reader.read_into_stamped("a.go", 1 << 20, &mut bytes).unwrap();
        assert_eq!(Some(read), reader.stamp("a.go"));
        assert_eq!(bytes, b"package a\n");
    }

    #[test]
    fn writes_replacements_and_touches_change_the_stamp() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let path = root.join("a.go");
        fs::write(&path, "package a\n").unwrap();
        let reader = SourceReader::new(&root);
        let mut last = reader.stamp("a.go").unwrap();
        let changes: [(&str, &dyn Fn()); 4] = [
            ("same-size overwrite", &|| fs::write(&path, "package b\n").unwrap()),
            ("append", &|| {
                fs::OpenOptions::new().append(true).open(&path).unwrap().write_all(b"//\n").unwrap()
            }),
            ("replace by rename", &|| {
                fs::write(root.join("tmp"), "package a\n").unwrap();
                fs::rename(root.join("tmp"), &path).unwrap();
            }),
            ("mtime set back", &|| {
                let f = fs::File::options().write(true).open(&path).unwrap();
                f.set_modified(UNIX_EPOCH + Duration::from_secs(1)).unwrap();
            }),
        ];
        for (what, change) in changes {
            // Let the file system's clock move on, as it does between two real events.
            std::thread::sleep(Duration::from_millis(20));
            change();
            let now = reader.stamp("a.go").unwrap();
            assert_ne!(now, last, "{what} left the stamp equal");
            last = now;
        }
        fs::remove_file(&path).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", &path).unwrap();
        assert_eq!(reader.stamp("a.go"), None, "a symlink has no stamp");
        assert_eq!(reader.stamp("missing.go"), None);
    }

    #[test]
    fn only_stamps_older_than_the_racy_window_are_settled() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        fs::write(root.join("a.go"), "package a\n").unwrap();
        let reader = SourceReader::new(&root);
        let fresh = reader.stamp("a.go").unwrap();
        let now = SystemTime::now();
        assert!(!fresh.settled_before(now), "a file written just now is racy");
        assert!(fresh.settled_before(now + RACY_WINDOW + Duration::from_secs(1)));
        let f = fs::File::options().write(true).open(root.join("a.go")).unwrap();
        f.set_modified(now + Duration::from_secs(3600)).unwrap();
        let future = reader.stamp("a.go").unwrap();
        assert!(!future.settled_before(now + RACY_WINDOW + Duration::from_secs(1)), "a future mtime is racy");
    }
}
