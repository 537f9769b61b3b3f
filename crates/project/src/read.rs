//! The one place that opens source files: confined, non-blocking, regular files only.

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

/// Read `rel` under the canonical `root`. Re-checks confinement and file type at open time
/// (the walk may be stale), opens non-blocking so a FIFO swapped in cannot hang the reader,
/// and reads at most `limit` bytes.
pub fn read_source(root: &Path, rel: &str, limit: u64) -> Result<Vec<u8>, ReadError> {
    let path = root.join(rel);
    let io = |e: std::io::Error| ReadError::Io { path: rel.to_string(), message: e.to_string() };
    let real = fs::canonicalize(&path).map_err(io)?;
    if !real.starts_with(root) {
        return Err(ReadError::OutsideRoot { path: rel.to_string() });
    }
    let file = fs::OpenOptions::new().read(true).custom_flags(O_NONBLOCK).open(&real).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular { path: rel.to_string() });
    }
    if meta.len() > limit {
        return Err(ReadError::TooLarge { path: rel.to_string(), limit });
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes).map_err(io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadError::TooLarge { path: rel.to_string(), limit });
    }
    Ok(bytes)
}
