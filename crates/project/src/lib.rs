//! Project discovery: the explicit project root, `docforge.toml`, and the safe selection of
//! source files (ignore rules, excludes, symlink and special-file refusal, size limits).
//!
//! This crate lists and classifies files; it reads only `docforge.toml`. Reading source
//! content is the loader's job (see [`read_source`]), so the rules for what may be opened
//! live in one place.

mod config;
mod discover;
mod ignores;
mod read;
mod stamp;

pub use config::{Config, ConfigError, GoConfig, Limits, ProjectSection, Proposals, Sources, View};
pub use discover::{
    discover, discover_each, discover_each_lazy, enclosing_go_files, Entry, EntryStatus, FileKind, FileStamp,
    Inventory, Project, ProjectError, Seen, Surroundings, EXCLUDED_BY_CONFIG,
};
pub use read::{read_source, read_source_into, ReadError, SourceReader, DEFAULT_MAX_FILE_BYTES};
pub use stamp::{PathState, ReadStamp, RACY_WINDOW};

/// The index directory inside the project root.
pub const STATE_DIR: &str = ".docforge";
/// The configuration file name at the project root.
pub const CONFIG_FILE: &str = "docforge.toml";
