//! Declared views to HTML (`crates/render`): the fixed built-in renderer registry
//! (`html-page@1`, `html-site@1`), the pages with the graph on them, atomic publication into
//! each view's declared output with a version-1 publication receipt, and the fail-closed
//! render status.
//!
//! Engine side: it reads the published index (`crates/index`: a document's outline — its
//! section nodes, so heading anchors are the engine's slugs — and its graph) and the
//! documents' bytes through the confined reader, and writes only through the project writer.
//! No front; the CLI (`docforge render`) and the MCP front (`docforge_render_status`) call
//! it.

pub mod claims;
mod graph;
pub mod html;
mod markdown;
mod nav;
mod outline;
mod page;
mod preview;
mod publish;
pub mod receipt;
mod render;
mod sanitize;
mod status;
pub mod view;

pub use claims::{Claims, Outcome};
pub use markdown::{body_html, comrak_options, Body, LinkKind, LinkTo};
pub use preview::{preview_html, Touched};
pub use publish::{publish, publish_failing_after, Published, OUTPUT_MARKER};
pub use receipt::{receipt_path, RenderReceipt, RENDERER_VERSION};
pub use render::{project_reader, render_view, Rendered, SourceRead};
pub use sanitize::clean as sanitize_html;
pub use status::{deep_status, status, DeepStatus, SourcesCheck, ViewStatus};

/// Why a view could not be rendered or published. Nothing was written when it is returned
/// (the previous output and receipt are intact).
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Index(#[from] docforge_index::IndexError),
    #[error("cannot read {path}: {message}")]
    Source { path: String, message: String },
    #[error("{path} changed since the index was published (its bytes are not the ones the index holds); run `docforge render` again")]
    SourceChanged { path: String },
    #[error("{first} and {second} would both be {page}; leave one of them out of the view (select)")]
    PageConflict { page: String, first: String, second: String },
    #[error("{0}")]
    Write(#[from] docforge_project::WriteError),
}
