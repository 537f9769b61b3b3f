//! Why a rename is refused.

use std::fmt;

/// A rename that cannot be done safely, with the reason (its `Display` is the message a
/// front shows).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenameRefusal {
    /// No document ID or heading at the position.
    NothingHere,
    /// The node there is not a document, TOML node or heading.
    NotRenamable { id: String, kind: String },
    /// The node's document has no facts (not loaded).
    NotLoaded { id: String },
    /// The document's ID comes from its path: there is no `id` to change.
    IdFromPath { id: String, path: String },
    /// Several files declare the document's ID.
    DuplicateId { id: String },
    /// The new name is not a valid document ID.
    InvalidId { name: String },
    /// The new name uses a prefix reserved for Go symbols and files.
    ReservedPrefix { name: String },
    /// The new name already names a node.
    Taken { name: String },
    /// The front-matter `id` is not written as a plain string.
    IdNotPlain { path: String },
    /// The heading has no facts.
    HeadingNotLoaded,
    /// The new heading text is empty or has several lines.
    InvalidHeading,
    /// The heading's anchor is de-duplicated (another heading has the same text).
    DeduplicatedAnchor { slug: String },
    /// Another heading of the document already has the new anchor.
    AnchorTaken { path: String, slug: String },
    /// The heading text has inline markup.
    HeadingMarkup,
    /// A reference does not spell the name exactly. `line` is 0-based.
    UnsafeReference { path: String, line: u32, token: String },
}

impl fmt::Display for RenameRefusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use RenameRefusal::*;
        match self {
            NothingHere => write!(f, "nothing to rename here: only document IDs and headings can be renamed"),
            NotRenamable { id, kind } => {
                write!(f, "`{id}` is a {kind}: only document IDs and headings can be renamed")
            }
            NotLoaded { id } => write!(f, "the document of `{id}` is not loaded"),
            IdFromPath { id, path } => write!(
                f,
                "`{id}` has no front-matter `id` (its ID comes from its path {path}); add `id = \"…\"` to rename it"
            ),
            DuplicateId { id } => write!(f, "`{id}` is declared by several files; fix the duplicate ID first"),
            InvalidId { name } => {
                write!(f, "`{name}` is not a valid document ID (no spaces, `#`, brackets, `|` or quotes)")
            }
            ReservedPrefix { name } => {
                write!(f, "`{name}`: document IDs cannot use the `go:` or `file:` prefix")
            }
            Taken { name } => write!(f, "`{name}` already names a node"),
            IdNotPlain { path } => {
                write!(f, "the `id` of {path} is not written as a plain string; rename it by hand")
            }
            HeadingNotLoaded => write!(f, "the heading is not loaded"),
            InvalidHeading => write!(f, "a heading needs a one-line, non-empty text"),
            DeduplicatedAnchor { slug } => write!(
                f,
                "the heading's anchor `#{slug}` is de-duplicated (another heading has the same text); rename it by hand"
            ),
            AnchorTaken { path, slug } => {
                write!(f, "another heading of {path} already has the anchor `#{slug}`")
            }
            HeadingMarkup => write!(f, "the heading text has inline markup; rename it by hand"),
            UnsafeReference { path, line, token } => write!(
                f,
                "rename refused: the reference `{token}` at {path}:{} does not spell the name exactly, so it cannot be updated safely",
                line + 1
            ),
        }
    }
}

impl std::error::Error for RenameRefusal {}
