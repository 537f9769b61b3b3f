//! Salsa inputs: one per source file, one for the workspace.

use docforge_go::BuildContext;
use docforge_project::FileKind;
use std::sync::Arc;

/// The content of a source file as the loader saw it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Content {
    Bytes(Arc<[u8]>),
    /// The file is selected but could not be read; `code` is a stable reason.
    Unreadable {
        code: String,
        message: String,
    },
}

#[salsa::input(debug)]
pub struct SourceFile {
    /// Project-relative path with `/` separators.
    #[returns(ref)]
    pub rel: String,
    #[returns(copy)]
    pub kind: FileKind,
    #[returns(ref)]
    pub content: Content,
    /// The file's stamp when the content was read (all zero for in-memory edits).
    #[returns(copy)]
    pub stamp: docforge_project::FileStamp,
    /// The stamp was racy when the content was read ([`docforge_project::FileStamp::settled_before`]):
    /// it does not vouch for the content (recorded in the index for a later process).
    #[returns(copy)]
    pub racy: bool,
    /// A Go file changed since it was loaded: its outline ([`docforge_go::outline_text`]),
    /// at MEDIUM like files loaded from disk; `None` before any change. What other
    /// packages read of the file comes from it ([`crate::go_q::go_outline`]), so an edit
    /// inside a function body — which lowers the content's durability — leaves what they
    /// read valid instead of re-running everything that imports the file.
    #[returns(ref)]
    #[default]
    pub outline: Option<Arc<[u8]>>,
    /// A document or TOML node file changed since it was loaded: its entry in the document
    /// index (IDs, path, section slugs), MEDIUM like the file as loaded; `None` before any
    /// change. Other documents read it ([`crate::docs_q::doc_index_entry`]), so prose edits —
    /// the first included — re-project no other document.
    #[returns(ref)]
    #[default]
    pub index_entry: Option<Arc<docforge_docs::DocIndexEntry>>,
}

/// What the walk saw besides the readable files: refused and excluded entries and scanner
/// errors. They make the graph `partial` and become file nodes/diagnostics.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct InventoryInfo {
    /// (path, kind, status label) of entries that were not loaded.
    pub skipped: Vec<(String, FileKind, String)>,
    /// (path, message) of scanner errors.
    pub scan_errors: Vec<(String, String)>,
    /// The symlinks and enclosing module files the walk saw around the Go files.
    pub surroundings: docforge_project::Surroundings,
}

#[salsa::input(debug)]
pub struct Workspace {
    /// The canonical absolute project root (used only for module-less pseudo import paths).
    #[returns(ref)]
    pub root: String,
    /// All loaded files, sorted by path.
    #[returns(ref)]
    pub files: Vec<SourceFile>,
    #[returns(ref)]
    pub build: BuildContext,
    #[returns(ref)]
    pub inventory: Arc<InventoryInfo>,
    /// Run the Go semantic layer (types, method sets, `implements`): `precise` facts.
    #[returns(copy)]
    pub precise: bool,
    /// Project each function's Logic when `precise` (off for hosts that never serve it,
    /// such as the language server: less work and memory per file).
    #[returns(copy)]
    pub logic: bool,
    /// A Go installation whose standard library editor navigation may read (see
    /// [`crate::external_q`]); never read by the graph, the index or validation.
    #[returns(ref)]
    pub goroot: Option<String>,
    /// A Go module cache (`$GOMODCACHE`) whose copies of the modules the project's `go.mod`
    /// files require editor navigation may read; likewise never read by the graph.
    #[returns(ref)]
    pub modcache: Option<String>,
}
