//! What one document file says, before anything is resolved against other files.

use docforge_model::{Diagnostic, Location, Node, NodeSpan};

/// `Node::kind` of a Markdown document.
pub const DOCUMENT_KIND: &str = "document";
/// `Node::kind` of a heading.
pub const SECTION_KIND: &str = "section";
/// `Node::kind` of a TOML node file.
pub const TOML_NODE_KIND: &str = "toml_node";

/// The closed v1 claim predicate set of the validation contract.
pub const CLAIM_PREDICATES: &[&str] =
    &["symbol_exists", "package_imports", "call_edge_exists", "type_implements"];

/// Everything one Markdown or TOML node file contributes, with links still unresolved.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DocFacts {
    /// Project-relative path with `/` separators.
    pub path: String,
    /// The effective node ID (front-matter `id`, or derived from the path).
    pub id: String,
    /// True when the file declares no (valid) `id` and the ID comes from its path.
    pub id_from_path: bool,
    /// Where the ID is stated (the `id` value, or line 1 when derived from the path).
    pub id_location: Location,
    /// The document node: kind `document` or `toml_node`, title, summary text, attributes.
    /// Attribute keys are the front-matter keys: `kind`, `family`, `authority`, `status`,
    /// `tags` (joined by `,`) and every unknown key (kept, rendered as text); the projection
    /// adds the [`span`](Self::span) attributes.
    pub node: Node,
    /// Where the node's bytes are in its file: the whole file, with a Markdown document's
    /// front matter (`+++` block) and body (everything after it) as parts — a leading BOM
    /// belongs to neither. `None` only when the file's bytes are unknown (it could not be
    /// read).
    pub span: Option<NodeSpan>,
    /// Headings in document order.
    pub sections: Vec<Section>,
    /// HTML anchors before the first heading: fragment names that lead to the document.
    pub anchors: Vec<String>,
    /// Links to documents, headings, wiki IDs and `go:` nodes (external URLs are not kept).
    pub links: Vec<Link>,
    /// Front-matter `[relations]`, one entry per target.
    pub relations: Vec<Relation>,
    /// Front-matter `[[claims]]`, kept even when they are malformed (with a diagnostic).
    pub claims: Vec<Claim>,
    /// Problems found in this file alone (front matter, claims, relation names).
    pub diagnostics: Vec<Diagnostic>,
}

/// One heading: a section node `<doc id>#<slug>`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Section {
    /// `<doc id>#<slug>`.
    pub id: String,
    /// GitHub-style, de-duplicated slug.
    pub slug: String,
    /// Heading text without markup.
    pub title: String,
    /// 1–6.
    pub level: u8,
    /// Index (into [`DocFacts::sections`]) of the enclosing heading, if any.
    pub parent: Option<usize>,
    pub location: Location,
    /// Bounded plain-text summary of the prose under this heading (up to the next heading).
    pub text: String,
    /// Other fragment names that lead here: HTML `id`/`name` anchors and an explicit `{#id}`
    /// (see `crate::anchors`).
    pub anchors: Vec<String>,
    /// Where the section's bytes are in its file: from the start of its heading's first line
    /// to just before the next heading of the same or a higher level (or the end of the
    /// file), subsections included; its parts are the heading's lines (line ending included)
    /// and the body, from after the heading to the first subsection or the section's end.
    pub span: NodeSpan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LinkKind {
    /// `[text](destination)`
    Inline,
    /// `[text][label]`, `[text][]`, `[label]` with a `[label]: destination` definition.
    Reference,
    /// `<scheme:...>`
    Autolink,
    /// `[[node-id]]`, `[[node-id#slug]]`, `[[node-id|label]]`
    Wiki,
}

/// What a link points at, as written (not yet resolved).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LinkTarget {
    /// A project-relative document path (already resolved against the linking document's
    /// directory) and an optional heading fragment. A link to `#frag` names its own document.
    Path { path: String, fragment: Option<String> },
    /// A node ID (wiki link) and an optional heading fragment.
    Id { id: String, fragment: Option<String> },
    /// A `go:` node ID, exactly as written (including the `go:` prefix).
    Go(String),
}

/// One link occurrence.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Link {
    /// The node the link belongs to: the enclosing section, or the document before the first
    /// heading.
    pub source: String,
    pub kind: LinkKind,
    /// The link text (plain) or the wiki label.
    pub text: String,
    /// The raw destination as written.
    pub destination: String,
    pub target: LinkTarget,
    pub location: Location,
}

/// One `[relations]` entry: document --name--> target.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Relation {
    /// Raw relation name (classified elsewhere by `docforge_model::classify_relation`).
    pub name: String,
    /// Target node ID as written (`arch.storage`, `arch.storage#slug`, `go:…`).
    pub target: String,
    pub location: Location,
}

/// One structural claim (`[[claims]]`), checked later by `docforge validate`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Claim {
    /// One of [`CLAIM_PREDICATES`] when valid; kept as written otherwise.
    pub predicate: String,
    /// Bare Gograph ID (no `go:` prefix); empty when missing (with a diagnostic).
    pub subject: String,
    pub object: Option<String>,
    /// `ast` or `precise` when valid; kept as written otherwise.
    pub required_precision: Option<String>,
    pub location: Location,
    /// What makes the entry invalid before its values are checked: keys that are not claim
    /// fields, values of the wrong type, or a claims-like table under another key (`[[claim]]`)
    /// or front matter that is not TOML, whose entries cannot be read. A claim with problems
    /// is never evaluated (`invalid_request`).
    pub problems: Vec<String>,
}

impl DocFacts {
    /// The section with this ID, if the document has it.
    pub fn section(&self, id: &str) -> Option<&Section> {
        self.sections.iter().find(|s| s.id == id)
    }
}
