//! Reading and writing `.gograph/graph.json` under an explicit root: the directory and the
//! file must be a real directory and a regular file (never a symlink, never a special file);
//! reads go through the engine's confined non-blocking reader; writes go through the project
//! writer (a new temporary file in the same directory, fsync, rename, fsync of the directory).

use crate::index::INDEX_FILE;
use crate::snapshot::{Snapshot, GRAPH_DIR, GRAPH_FILE};
use crate::validator::GraphAccessError;
use docforge_project::ReadError;
use std::fs;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The largest snapshot that is read (the standard library's graph is far below).
pub const MAX_GRAPH_BYTES: u64 = 2 << 30;

pub fn graph_rel() -> String {
    format!("{GRAPH_DIR}/{GRAPH_FILE}")
}

fn kind_of(meta: &fs::Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_symlink() {
        "a symlink"
    } else if ft.is_dir() {
        "a directory"
    } else if ft.is_fifo() || ft.is_socket() || ft.is_block_device() || ft.is_char_device() {
        "a special file"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// The exact bytes of `<root>/.gograph/graph.json`; `root` must be canonical.
pub fn read_graph(root: &Path) -> Result<Vec<u8>, GraphAccessError> {
    let rel = check_graph(root)?;
    docforge_project::read_source(root, &rel, MAX_GRAPH_BYTES).map_err(|e| access_error(&rel, e))
}

/// The SHA-256 (hex) of the exact bytes of `.gograph/graph.json`, read in pieces (the graph
/// is not held in memory), with [`read_graph`]'s checks.
pub fn hash_graph(root: &Path) -> Result<String, GraphAccessError> {
    hash_graph_bound(root).map(|(sha, _)| sha)
}

/// What one read of `graph.json` says of the index beside it: the index digest the graph
/// names, and the graph digest an index must have been written for
/// ([`crate::index::graph_digest_for_index`]).
pub struct IndexBinding {
    pub named: String,
    pub graph_digest: String,
}

/// [`hash_graph`], and, when the graph names an index, the binding ([`IndexBinding`]) from
/// the same read (a second digest over the same bytes).
pub fn hash_graph_bound(root: &Path) -> Result<(String, Option<IndexBinding>), GraphAccessError> {
    use sha2::{Digest, Sha256};
    use std::io::Read;
    let rel = check_graph(root)?;
    let reader = docforge_project::SourceReader::new(root);
    let (file, _) = reader.open(&rel, MAX_GRAPH_BYTES).map_err(|e| access_error(&rel, e))?;
    let mut file = file.take(MAX_GRAPH_BYTES + 1);
    let (mut digest, mut total) = (Sha256::new(), 0u64);
    // The digest of the bytes with the index digest's 64 digits as zeros, once they are known
    // (all within the first piece read).
    let mut bound: Option<(Sha256, String)> = None;
    let mut buffer = vec![0u8; 1 << 20];
    loop {
        let n = match file.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(GraphAccessError::Unreadable(format!("{rel}: {e}"))),
        };
        digest.update(&buffer[..n]);
        if total == 0 {
            let head = &buffer[..n.min(crate::index::GRAPH_HEAD_BYTES)];
            if let Some(at) = crate::index::named_index_at(head) {
                let named = String::from_utf8_lossy(&head[at..at + 64]).into_owned();
                let mut zeroed = Sha256::new();
                zeroed.update(&buffer[..at]);
                zeroed.update([b'0'; 64]);
                zeroed.update(&buffer[at + 64..n]);
                bound = Some((zeroed, named));
            }
        } else if let Some((zeroed, _)) = bound.as_mut() {
            zeroed.update(&buffer[..n]);
        }
        total += n as u64;
    }
    if total > MAX_GRAPH_BYTES {
        return Err(access_error(&rel, ReadError::TooLarge { path: rel.clone(), limit: MAX_GRAPH_BYTES }));
    }
    let bound =
        bound.map(|(zeroed, named)| IndexBinding { named, graph_digest: hex::encode(zeroed.finalize()) });
    Ok((hex::encode(digest.finalize()), bound))
}

/// The bytes of `.gograph/graph.index` when it is a regular file under the root (anything
/// else, or nothing: `None`, and the graph itself is decoded).
pub fn read_graph_index(root: &Path) -> Option<Vec<u8>> {
    check_graph(root).ok()?;
    docforge_project::read_source(root, &format!("{GRAPH_DIR}/{INDEX_FILE}"), MAX_GRAPH_BYTES).ok()
}

fn access_error(rel: &str, e: ReadError) -> GraphAccessError {
    match e {
        ReadError::Io { message, .. } => GraphAccessError::Unreadable(format!("{rel}: {message}")),
        other => GraphAccessError::Unsafe(other.to_string()),
    }
}

/// `.gograph` must be a directory and `graph.json` a regular file, neither a symlink: the
/// graph's path relative to the root.
fn check_graph(root: &Path) -> Result<String, GraphAccessError> {
    let rel = graph_rel();
    let dir = root.join(GRAPH_DIR);
    match fs::symlink_metadata(&dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(GraphAccessError::Missing(format!("no {rel}; run `gograph build`")))
        }
        Err(e) => return Err(GraphAccessError::Unreadable(format!("{GRAPH_DIR}: {e}"))),
        Ok(m) if !m.file_type().is_dir() => {
            return Err(GraphAccessError::Unsafe(format!("{GRAPH_DIR} is {}; refused", kind_of(&m))))
        }
        Ok(_) => {}
    }
    match fs::symlink_metadata(dir.join(GRAPH_FILE)) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(GraphAccessError::Missing(format!("no {rel}; run `gograph build`")))
        }
        Err(e) => return Err(GraphAccessError::Unreadable(format!("{rel}: {e}"))),
        Ok(m) if !m.file_type().is_file() => {
            return Err(GraphAccessError::Unsafe(format!("{rel} is {}; refused, never opened", kind_of(&m))))
        }
        Ok(_) => {}
    }
    Ok(rel)
}

/// Publish `snapshot`: its index ([`crate::index`]) and then its `graph.json`, which names the
/// index's SHA-256 (`snapshot.index_sha256` is set to it), each replaced atomically. Returns
/// the graph's path and bytes.
pub fn publish_graph(root: &Path, snapshot: &mut Snapshot) -> Result<(PathBuf, Vec<u8>), String> {
    // The graph's bytes with the index digest still zeros: what the index is written for.
    snapshot.index_sha256 = Some("0".repeat(64));
    let mut bytes = snapshot.encode();
    let at = crate::index::named_index_at(&bytes[..crate::index::GRAPH_HEAD_BYTES.min(bytes.len())])
        .ok_or("the snapshot's first bytes do not name its index")?;
    let index = crate::index::encode(snapshot, &crate::index::graph_digest_for_index(&bytes, at));
    let named = crate::sha256_hex(&index);
    bytes[at..at + 64].copy_from_slice(named.as_bytes());
    snapshot.index_sha256 = Some(named);
    write_file(root, INDEX_FILE, &index)?;
    Ok((write_graph(root, &bytes)?, bytes))
}

/// Atomically replace `<root>/.gograph/graph.json` with `bytes`.
pub fn write_graph(root: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    write_file(root, GRAPH_FILE, bytes)
}

/// Atomically and durably replace `<root>/.gograph/<name>` with `bytes`, through the project
/// writer (never through a symlink, never over anything but a regular file).
fn write_file(root: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, String> {
    docforge_project::ProjectWriter::new(root)
        .write(&format!("{GRAPH_DIR}/{name}"), bytes, docforge_project::Durability::Durable)
        .map_err(|e| e.to_string())
}
