//! The one error type of the index crate. Every variant names the index file it concerns.

use std::path::PathBuf;

/// Everything that can go wrong while opening, publishing to, or reading an index.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The file exists and is SQLite, but its schema is not the one this build writes.
    /// The index is disposable: `Index::recreate` deletes and rebuilds it.
    #[error("index {path}: schema version {found} is not supported (expected {expected}); run `docforge index` to rebuild it (the index is derived and disposable)")]
    SchemaMismatch { path: PathBuf, found: String, expected: u32 },

    /// The file is not a SQLite database, or SQLite reports it as malformed.
    #[error(
        "index {path}: not a valid index database ({detail}); run `docforge index` to rebuild it (the index is derived and disposable)"
    )]
    Corrupt { path: PathBuf, detail: String },

    /// A read-only open of an index that does not exist.
    #[error("index {path}: does not exist")]
    Missing { path: PathBuf },

    /// The batch handed to `publish` is malformed; nothing was written.
    #[error("index {path}: invalid batch: {reason}")]
    InvalidBatch { path: PathBuf, reason: String },

    /// A delta was based on another generation than the stored one (another writer published
    /// meanwhile); nothing was written. Fall back to a full `publish`.
    #[error("index {path}: delta is based on generation {expected} but generation {found} is current; publish the full batch")]
    GenerationMismatch { path: PathBuf, expected: u64, found: u64 },

    /// A publish was aborted part-way (a hook refused to continue); the previous generation
    /// is intact.
    #[error("index {path}: publish aborted: {reason}")]
    Aborted { path: PathBuf, reason: String },

    /// A stored row could not be decoded (e.g. malformed attrs JSON).
    #[error("index {path}: malformed stored row: {detail}")]
    Malformed { path: PathBuf, detail: String },

    /// Any other SQLite failure.
    #[error("index {path}: sqlite: {source}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    /// A filesystem failure around the index file (creating the directory, stat, delete).
    #[error("index {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl IndexError {
    /// Classify a SQLite error: "not a database" and "malformed" become `Corrupt`.
    pub(crate) fn sqlite(path: &std::path::Path, source: rusqlite::Error) -> IndexError {
        use rusqlite::ErrorCode;
        if let rusqlite::Error::SqliteFailure(err, _) = &source {
            if matches!(err.code, ErrorCode::NotADatabase | ErrorCode::DatabaseCorrupt) {
                return IndexError::Corrupt { path: path.to_path_buf(), detail: source.to_string() };
            }
        }
        IndexError::Sqlite { path: path.to_path_buf(), source }
    }

    pub(crate) fn io(path: &std::path::Path, source: std::io::Error) -> IndexError {
        IndexError::Io { path: path.to_path_buf(), source }
    }
}

/// Attach the index path to a rusqlite result.
pub(crate) trait SqlContext<T> {
    fn ctx(self, path: &std::path::Path) -> Result<T, IndexError>;
}

impl<T> SqlContext<T> for Result<T, rusqlite::Error> {
    fn ctx(self, path: &std::path::Path) -> Result<T, IndexError> {
        self.map_err(|e| IndexError::sqlite(path, e))
    }
}
