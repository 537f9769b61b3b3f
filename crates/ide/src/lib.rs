//! Editor features as plain data: what a name at a place denotes, where it is declared, what
//! refers to it, what implements or calls it, a file's outline, the sections of a hover and
//! the edits of a rename, over one [`Analysis`] snapshot.
//!
//! The model is rust-analyzer's `ide` crate: the navigation *policy* lives here (which edges
//! are references, which call edges only may be taken, what a rename may change and why it
//! refuses), and every front — the LSP today — only converts requests into these calls and
//! the answers into its protocol. No protocol type appears here.
//!
//! Places are project-relative `/`-separated paths with **0-based lines and 0-based UTF-8
//! byte columns** ([`FilePosition`], [`LineRange`]); a front converts the columns to its own
//! (UTF-16 code units for LSP) with the line's text: [`Ide::lines`] for project files, the
//! `line_text` of [`FileRef::External`] for declarations outside the project (the Go
//! installation, the module cache), which no front reads.
//!
//! Nothing here parses: every answer comes from facts the engine extracted. Every call reads
//! the snapshot and fails with [`Cancelled`] when a write to its host cancels it.

mod calls;
mod completion;
mod files;
mod hover;
mod nav;
mod refusal;
mod rename;
mod symbols;
mod target;

pub use calls::CallGroup;
pub use completion::{Completion, CompletionKind};
pub use docforge_db::{Analysis, Cancellable, Cancelled};
pub use files::Lines;
pub use hover::{HoverResult, HoverSection, HoverTitle, MemberOwner, PlaceLabel};
pub use refusal::RenameRefusal;
pub use rename::{PrepareRename, SourceChange, TextEdit};
pub use symbols::DocumentSymbol;
pub use target::{FilePosition, FileRange, FileRef, LineRange, NavigationTarget, TargetNode};

use std::rc::Rc;

/// The editor features over one snapshot, for one request: the file texts it reads are
/// split into lines once and kept until it is dropped (so it is not `Send`: a request is
/// answered on one thread).
pub struct Ide<'a> {
    analysis: &'a Analysis,
    files: files::Files,
}

impl<'a> Ide<'a> {
    pub fn new(analysis: &'a Analysis) -> Self {
        Ide { analysis, files: files::Files::default() }
    }

    pub fn analysis(&self) -> &'a Analysis {
        self.analysis
    }

    /// The lines of a project file as the engine sees it (the editor's buffer when open);
    /// `None` when the file is not loaded or unreadable.
    pub fn loaded(&self, path: &str) -> Cancellable<Option<Rc<Lines>>> {
        self.files.loaded(self.analysis, path)
    }

    /// [`Ide::loaded`], empty for a file that is not loaded (for converting columns).
    pub fn lines(&self, path: &str) -> Cancellable<Rc<Lines>> {
        Ok(self.loaded(path)?.unwrap_or_default())
    }
}
