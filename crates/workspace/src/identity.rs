//! Identities a binding proves currency by: the publication signature of a generation, the
//! (device, inode) of a file, and the stamp of what the binding was made from.

use docforge_index::Publication;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::path::Path;

/// The publication signature: which index generation an answer was read from. Responses,
/// receipts, renders and viewers bind to it; two signatures are equal only for the same
/// generation of the same index file derived from the same sources.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Generation {
    /// The index generation number (the project revision).
    pub revision: u64,
    /// The source fingerprint the generation was derived from (content hashes).
    pub source_hash: String,
    /// SHA-256 over every owner key and digest of the generation.
    pub graph_digest: String,
    /// What the generation holds: `precise`, `precise_fallback`, `ast` or `none`.
    pub precision: String,
    /// SHA-256 over the inventory's paths, kinds, states, sizes and modification times.
    #[serde(skip)]
    pub cheap_identity: String,
    /// (device, inode) of the index file.
    #[serde(skip)]
    pub index_file: (u64, u64),
}

impl Generation {
    /// No generation: what an answer that reads no index (a status) reports, with the
    /// precision the binding analyses at.
    pub fn unbound(precision: crate::Precision) -> Generation {
        Generation {
            revision: 0,
            source_hash: String::new(),
            graph_digest: String::new(),
            precision: precision.as_str().to_string(),
            cheap_identity: String::new(),
            index_file: (0, 0),
        }
    }

    pub(crate) fn of(p: &Publication, precision: String, identity: &str) -> Generation {
        Generation {
            revision: p.generation,
            source_hash: p.source_fingerprint.clone(),
            graph_digest: p.graph_digest.clone(),
            precision,
            cheap_identity: identity.to_string(),
            index_file: (p.dev, p.inode),
        }
    }
}

/// What the synchronisation before a read did.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Staleness {
    /// Proven current without work.
    Current,
    /// Was missing, stale or invalid; rebuilt before answering.
    Rebuilt,
}

impl Staleness {
    pub fn as_str(self) -> &'static str {
        match self {
            Staleness::Current => "current",
            Staleness::Rebuilt => "rebuilt",
        }
    }
}

/// (device, inode) of the file at `path`, following no symlink at the last component.
pub fn file_identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn stamp_of(path: &Path) -> String {
    use std::os::unix::fs::MetadataExt;
    match std::fs::metadata(path) {
        Ok(m) => {
            // Seconds and nanoseconds apart: any time fits (`s * 1e9` overflows after 2262).
            format!("{}:{}:{}:{}.{:09}", m.dev(), m.ino(), m.size(), m.mtime(), m.mtime_nsec())
        }
        Err(_) => "missing".into(),
    }
}

/// SHA-256 over the engine version, the running executable's stamp and `docforge.toml`'s
/// bytes: when it moves, what the binding was made from changed (a new build, a new
/// configuration) and a long-lived process must be restarted to bind again.
pub(crate) fn binding_stamp(root: &Path) -> String {
    let exe = std::env::current_exe().map(|p| stamp_of(&p)).unwrap_or_default();
    let config = docforge_project::read_regular_file(&root.join(docforge_project::CONFIG_FILE), 1 << 24)
        .unwrap_or_else(|e| e.to_string().into_bytes());
    let engine = docforge_db::ENGINE_VERSION;
    hex::encode(Sha256::digest(format!("{engine}\n{exe}\n{}", hex::encode(Sha256::digest(&config)))))
}
