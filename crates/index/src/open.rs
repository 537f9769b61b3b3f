//! Opening, recreating and identifying an index file.

use crate::error::{IndexError, SqlContext};
use crate::stage::{self, Placed, Staged};
use crate::{schema, PublishHook};
use rusqlite::{Connection, OpenFlags};
use std::path::{Path, PathBuf};

/// An open index: one SQLite connection plus the path it was opened at.
pub struct Index {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
    pub(crate) read_only: bool,
    pub(crate) hook: Option<PublishHook>,
    /// `Some` while the index is a private build file that its first publish puts in place
    /// (see `stage.rs`); `conn` is then the build file's connection.
    pub(crate) staged: Option<Staged>,
    /// A staged build's first publish with at least this many edges writes them on a second
    /// thread (`split.rs`); tests lower it.
    pub(crate) side_min_edges: usize,
    /// A publication numbers its generation after this one at least ([`Index::number_after`]).
    pub(crate) generation_floor: u64,
}

impl std::fmt::Debug for Index {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Index").field("path", &self.path).field("read_only", &self.read_only).finish()
    }
}

impl Index {
    /// Close without the checkpoint SQLite runs when the last connection to a file closes:
    /// for a file replaced under the connection, whose log is not its own.
    pub fn close_without_checkpoint(self) {
        let _ = self.conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true);
        drop(self);
    }

    /// Open (creating the parent directory and the schema when needed) an index for writing.
    ///
    /// When nothing is at `path` yet, the index is built in a private file beside it and
    /// appears at `path` whole, at its first publish (see `stage.rs`); until then readers of
    /// `path` get [`IndexError::Missing`].
    ///
    /// Refuses a SQLite file with another schema ([`IndexError::SchemaMismatch`]) and a file that
    /// is not SQLite or is malformed ([`IndexError::Corrupt`]); never modifies such a file.
    pub fn open(path: &Path) -> Result<Index, IndexError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| IndexError::io(parent, e))?;
        }
        match std::fs::symlink_metadata(path) {
            Ok(m) if !m.file_type().is_file() => Err(not_regular(path, &m)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let path = canonical_absent(path);
                let (conn, staged) = stage::open_build(&path)?;
                Ok(Index::new(conn, path, false, Some(staged)))
            }
            _ => {
                let conn = open_existing(path)?;
                Ok(Index::new(conn, canonical(path), false, None))
            }
        }
    }

    fn new(conn: Connection, path: PathBuf, read_only: bool, staged: Option<Staged>) -> Index {
        Index {
            conn,
            path,
            read_only,
            hook: None,
            staged,
            side_min_edges: crate::split::SIDE_MIN_EDGES,
            generation_floor: 0,
        }
    }

    /// Replace a staged build file that holds part of a generation with a fresh one (best
    /// effort: if no new build file can be made, the next publish reports why).
    pub(crate) fn restart_build(&mut self) {
        let Some(staged) = self.staged.take() else { return };
        if self.take_conn().is_ok() {
            let _ = stage::remove_database_files(&staged.build);
        }
        match stage::open_build(&self.path) {
            Ok((conn, staged)) => {
                self.conn = conn;
                self.staged = Some(staged);
            }
            Err(_) => self.staged = Some(staged),
        }
    }

    /// After a committed write: put a staged index in place. `Ok(true)` when the generation
    /// just committed is now the index; `Ok(false)` when another index had appeared at the
    /// path, which this index now is, without that generation (the caller writes it again).
    pub(crate) fn place_if_staged(&mut self) -> Result<bool, IndexError> {
        let Some(staged) = self.staged.take() else { return Ok(true) };
        // `place` closes the build connection.
        let build = self.take_conn().ctx(&self.path)?;
        match stage::place(build, &staged, &self.path) {
            Ok((conn, placed)) => {
                self.conn = conn;
                Ok(matches!(placed, Placed::Placed))
            }
            Err(e) => {
                // The build file is gone; stay usable as a new, empty staged index.
                if let Ok((conn, staged)) = stage::open_build(&self.path) {
                    self.conn = conn;
                    self.staged = Some(staged);
                }
                Err(e)
            }
        }
    }

    /// Take the connection out, leaving an in-memory placeholder (to close or hand it on).
    fn take_conn(&mut self) -> rusqlite::Result<Connection> {
        Ok(std::mem::replace(&mut self.conn, Connection::open_in_memory()?))
    }

    /// Open an existing index for reading only. Never creates or writes the database.
    pub fn open_read_only(path: &Path) -> Result<Index, IndexError> {
        Index::open_reader(path, false)
    }

    /// Open an existing index to read without leaving anything beside it, for paths that
    /// must write nothing (render status). A WAL database normally gets `-wal` and `-shm`
    /// files from its first reader; when none is there — no connection has the index open —
    /// it is opened immutable, which creates none. When they are there another connection
    /// is live and owns them, and the index is opened as [`Index::open_read_only`] opens it.
    pub fn open_snapshot(path: &Path) -> Result<Index, IndexError> {
        Index::open_reader(path, true)
    }

    fn open_reader(path: &Path, snapshot: bool) -> Result<Index, IndexError> {
        match std::fs::symlink_metadata(path) {
            Ok(m) if !m.file_type().is_file() => return Err(not_regular(path, &m)),
            Ok(_) => {}
            Err(_) => return Err(IndexError::Missing { path: path.to_path_buf() }),
        }
        let mut wal = path.as_os_str().to_owned();
        wal.push("-wal");
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = if snapshot && !std::path::Path::new(&wal).exists() {
            Connection::open_with_flags(immutable_uri(path), flags | OpenFlags::SQLITE_OPEN_URI)
        } else {
            Connection::open_with_flags(path, flags)
        }
        .ctx(path)?;
        let path = canonical(path);
        schema::configure(&conn, &path, false)?;
        schema::check(&conn, &path)?;
        Ok(Index::new(conn, path, true, None))
    }

    /// Delete whatever is at `path` (database, WAL and shared-memory files) and create a fresh,
    /// empty index (built aside until its first publish, as by [`Index::open`]). The index is
    /// derived state: this is always safe.
    pub fn recreate(path: &Path) -> Result<Index, IndexError> {
        stage::remove_database_files(path)?;
        Index::open(path)
    }

    /// The path this index was opened at (canonicalized when possible).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Install (or remove) the hook called after every owner a publish writes.
    pub fn set_publish_hook(&mut self, hook: Option<PublishHook>) {
        self.hook = hook;
    }

    /// Run `PRAGMA integrity_check` and, on a writable index, the FTS5 integrity check against
    /// the `nodes` content; `Ok(())` when both are clean.
    pub fn integrity_check(&self) -> Result<(), IndexError> {
        let mut stmt = self.conn.prepare("PRAGMA integrity_check").ctx(&self.path)?;
        let lines: Vec<String> =
            stmt.query_map([], |r| r.get(0)).ctx(&self.path)?.collect::<Result<_, _>>().ctx(&self.path)?;
        if lines != ["ok"] {
            return Err(IndexError::Corrupt { path: self.path.clone(), detail: lines.join("; ") });
        }
        if !self.read_only {
            // Writes nothing; it is an INSERT only in FTS5's command syntax.
            self.conn
                .execute("INSERT INTO nodes_fts(nodes_fts, rank) VALUES ('integrity-check', 1)", [])
                .map_err(|e| IndexError::Corrupt {
                    path: self.path.clone(),
                    detail: format!("full-text index does not match nodes: {e}"),
                })?;
        }
        Ok(())
    }

    /// (device, inode) of the index file; `(0, 0)` where the platform has none.
    pub(crate) fn file_identity(&self) -> Result<(u64, u64), IndexError> {
        let md = std::fs::metadata(&self.path).map_err(|e| IndexError::io(&self.path, e))?;
        Ok(dev_inode(&md))
    }
}

impl Drop for Index {
    fn drop(&mut self) {
        if let Some(staged) = self.staged.take() {
            // Never published: the build file was private and is discarded (closed first).
            drop(self.take_conn());
            let _ = stage::remove_database_files(&staged.build);
        }
    }
}

/// An index path holding a symlink, directory or special file: never opened through (the
/// index is rebuilt in its place by `Index::recreate`, which removes the entry, not what a
/// link points to).
fn not_regular(path: &Path, m: &std::fs::Metadata) -> IndexError {
    let what = if m.file_type().is_symlink() {
        "a symlink"
    } else if m.is_dir() {
        "a directory"
    } else {
        "a special file"
    };
    IndexError::Corrupt { path: path.to_path_buf(), detail: format!("the index path is {what}; refused") }
}

/// Open (creating when empty) the shared index database at `path`, checking its schema.
pub(crate) fn open_existing(path: &Path) -> Result<Connection, IndexError> {
    let flags =
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(path, flags).ctx(path)?;
    let path = canonical(path);
    schema::configure(&conn, &path, true)?;
    schema::ensure(&mut conn, &path)?;
    Ok(conn)
}

/// `file:PATH?mode=ro&immutable=1`, the path's `%`, `?` and `#` escaped.
fn immutable_uri(path: &Path) -> String {
    let mut uri = String::from("file:");
    for c in path.to_string_lossy().chars() {
        match c {
            '%' => uri.push_str("%25"),
            '?' => uri.push_str("%3f"),
            '#' => uri.push_str("%23"),
            c => uri.push(c),
        }
    }
    uri.push_str("?mode=ro&immutable=1");
    uri
}

fn canonical(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// `path` with its (existing) parent canonicalized.
fn canonical_absent(path: &Path) -> PathBuf {
    match (path.parent().filter(|p| !p.as_os_str().is_empty()), path.file_name()) {
        (Some(parent), Some(name)) => canonical(parent).join(name),
        _ => path.to_path_buf(),
    }
}

#[cfg(unix)]
fn dev_inode(md: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (md.dev(), md.ino())
}

#[cfg(not(unix))]
fn dev_inode(_md: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}
