//! Project discovery: the explicit project root, `docforge.toml`, and the safe selection of
//! source files (ignore rules, excludes, symlink and special-file refusal, size limits).
//!
//! This crate lists and classifies files; it reads only `docforge.toml`. Reading source
//! content is the loader's job (see [`read_source`]), so the rules for what may be opened
//! live in one place. It is also the one writer of project files ([`ProjectWriter`]):
//! confined beneath the root through no symlink, atomic per file, and all-or-nothing across
//! files ([`ProjectWriter::commit`], journaled and recovered after a crash).

mod config;
mod discover;
mod ignores;
pub use ignores::git_exclude;
mod read;
mod stamp;
mod transaction;
mod tree;
mod views;
pub mod witness;
mod write;

pub use config::{
    AnalysisSection, Application, Config, ConfigError, GoConfig, Limits, PrecisionSetting, ProjectSection,
    Proposals, Sources,
};
pub use discover::{
    discover, discover_each, discover_each_lazy, enclosing_go_files, Entry, EntryStatus, FileKind, FileStamp,
    Inventory, Project, ProjectError, Seen, Surroundings, EXCLUDED_BY_CONFIG,
};
pub use read::{
    read_regular_file, read_source, read_source_into, stat_beneath, NotBeneath, ReadError, SourceReader,
    DEFAULT_MAX_FILE_BYTES,
};
pub use stamp::{PathState, ReadStamp, RACY_WINDOW};
pub use transaction::{Change, Recovery, TransactionError, JOURNAL_VERSION};
pub use tree::Owner;
pub use views::{Renderer, Select, View};
pub use witness::{ignore_witnesses, WalkWitness};
pub use write::{Durability, FileLock, ProjectWriter, WriteError};

/// The index directory inside the project root.
pub const STATE_DIR: &str = ".docforge";

/// The journal of a canonical application in progress (`ProjectWriter::commit`): every
/// binding recovers it before anything else.
pub const APPLICATION_JOURNAL: &str = ".docforge/application/journal.json";

/// The lock an application holds from its checks to its last write (and a recovery takes).
pub const APPLICATION_LOCK: &str = ".docforge/application/lock";

/// Finish or undo a canonical application a killed process left (its journal), under the
/// application lock, so a live application is waited for rather than undone. Nothing is
/// written when there is no journal.
pub fn recover_application(root: &std::path::Path) -> Result<Recovery, TransactionError> {
    if std::fs::symlink_metadata(root.join(APPLICATION_JOURNAL)).is_err() {
        return Ok(Recovery::Clean);
    }
    let writer = ProjectWriter::new(root);
    let _lock = writer.lock(APPLICATION_LOCK)?;
    writer.recover(APPLICATION_JOURNAL)
}
/// The configuration file name at the project root.
pub const CONFIG_FILE: &str = "docforge.toml";
