//! The project binding: one project root bound once, and everything that keeps its published
//! index current.
//!
//! A [`Workspace`] resolves the process's options against the project's declared precision
//! ([`settings`]), owns the warm [`AnalysisHost`], proves the published index current by cheap
//! source identity (a stat walk, skipped when the change [`watch`]er proves nothing moved) or
//! re-syncs and publishes a new generation atomically ([`Workspace::ensure_current`]), adopts a
//! generation another process published from the same sources and warms up in the background,
//! and names what it holds by a typed publication signature ([`Generation`]). Receipts about
//! derived state are read through one fail-closed reader ([`receipts`]).
//!
//! Fronts (the CLI, the MCP and LSP servers) bind a project only through this crate; it
//! depends on no front and speaks plain Rust data.

mod error;
mod generation_receipt;
mod identity;
pub mod receipts;
pub mod settings;
mod source;
mod sync;
mod watch;

pub use docforge_db::{AnalysisHost, Progress};
pub use error::WorkspaceError;
pub use identity::{file_identity, Generation, Staleness};
pub use receipts::{HashBound, ReceiptState, ReceiptStatus};
pub use settings::{Options, Precision, Settings, INDEX_FILE};
pub use source::SourceChanged;
pub use sync::{Phase, Published, SyncProgress, SyncStats, Synced, Workspace};
