//! The Markdown/TOML projection: documents, sections, links, relations and claims.
//!
//! Pure data in, data out: no salsa, no file I/O. The work is split in two steps so that an
//! incremental database can re-run as little as possible:
//!
//! 1. [`parse_markdown_document`] / [`parse_toml_node`] turn one file into [`DocFacts`]. They
//!    only look at that file: links are recorded with their *unresolved* targets.
//! 2. [`DocIndex`] is built from the [`DocIndexEntry`] of every document (path, ID, section
//!    slugs — nothing that changes when prose changes), and [`document_fragment`] projects one
//!    document's facts to the graph, resolving its links against the index and a
//!    `known_node` callback for IDs the documents do not define (`go:` nodes, …).
//!
//! [`project`] does both steps for a whole set of documents.

mod anchors;
mod facts;
mod front_matter;
mod index;
mod lines;
mod links;
mod markdown;
mod project;
mod refdef;
mod slug;
mod spans;
mod text;
mod toml_node;

pub use facts::{
    Claim, DocFacts, Link, LinkKind, LinkTarget, Relation, Section, CLAIM_PREDICATES, DOCUMENT_KIND,
    SECTION_KIND, TOML_NODE_KIND,
};
pub use index::{DocIndex, DocIndexEntry, Resolution};
pub use markdown::{front_matter_claims, parse_markdown_bytes, parse_markdown_document};
pub use project::{document_fragment, project};
pub use slug::{slugify, Slugger};
pub use spans::content_sha256;
pub use toml_node::{parse_toml_node, parse_toml_node_bytes};

/// What a link destination written in the document at `doc_path` names: a document path
/// (resolved against the document's directory) with its fragment, a `go:` node, or nothing
/// the engine follows (`None`: external URLs, files that are no documents). As the parser
/// classifies inline, reference and autolink destinations.
pub fn link_target(destination: &str, doc_path: &str) -> Option<LinkTarget> {
    links::classify_destination(destination, doc_path)
}

/// The explicit `{#id}` ending a heading's text (`## Setup {#install}` → `install`): a name a
/// link fragment may use for the section, as the parser reads it.
pub fn heading_id(title: &str) -> Option<&str> {
    anchors::heading_id(title)
}

/// The ID a file gets when it declares none: its project-relative path without extension
/// (`docs/arch/auth.md` → `docs/arch/auth`).
pub fn id_from_path(path: &str) -> String {
    let file_start = path.rfind('/').map_or(0, |i| i + 1);
    match path[file_start..].rfind('.') {
        Some(dot) if dot > 0 => path[..file_start + dot].to_string(),
        _ => path.to_string(),
    }
}

/// The file name without directory and extension (`docs/arch/auth.md` → `auth`).
pub fn file_stem(path: &str) -> &str {
    let file = path.rsplit('/').next().unwrap_or(path);
    match file.rfind('.') {
        Some(dot) if dot > 0 => &file[..dot],
        _ => file,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ids_and_stems_from_paths() {
        let cases = [
            ("docs/arch/auth.md", "docs/arch/auth", "auth"),
            ("README.md", "README", "README"),
            ("docs/glossary.toml", "docs/glossary", "glossary"),
            ("docs/v1.2/notes.md", "docs/v1.2/notes", "notes"),
            ("docs/.hidden", "docs/.hidden", ".hidden"),
            ("noext", "noext", "noext"),
        ];
        for (path, id, stem) in cases {
            assert_eq!(super::id_from_path(path), id, "{path}");
            assert_eq!(super::file_stem(path), stem, "{path}");
        }
    }
}
