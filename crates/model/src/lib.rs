//! The DocForge knowledge graph as plain Rust data.
//!
//! Every other crate speaks these types: the Go and docs crates produce them, the salsa
//! database assembles them, the index stores them, and the fronts translate them into their
//! protocols. Nothing here knows about salsa, SQLite, tree-sitter or any protocol.

use serde::{Deserialize, Serialize};

mod attrs;
mod relation;
mod span;
pub use attrs::Attrs;
pub use relation::{classify_relation, is_tree_relation, RelationClass, RELATION_ALIASES_V1, TREE_RELATIONS};
pub use span::{ByteSpan, NodeSpan, SpanAttrError};

/// A 1-based source position inside a project-relative file.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Location {
    /// Project-relative path with `/` separators.
    pub path: String,
    /// 1-based line; 0 when unknown.
    pub line: u32,
    /// 1-based column in bytes; 0 when unknown.
    pub column: u32,
}

impl Location {
    pub fn new(path: impl Into<String>, line: u32, column: u32) -> Self {
        Location { path: path.into(), line, column }
    }
}

/// How a fact was established: `ast` from syntax, `precise` from the Go semantic layer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// From syntax alone.
    #[default]
    Ast,
    /// From DocForge's Go semantic layer.
    Precise,
    /// Precise analysis was requested but failed; AST evidence only.
    PreciseFallback,
}

impl Precision {
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Ast => "ast",
            Precision::Precise => "precise",
            Precision::PreciseFallback => "precise_fallback",
        }
    }
}

/// One node of the graph: a document, a section, a Go package, a Go symbol, a file, …
///
/// IDs: document IDs (`arch.auth`), sections (`arch.auth#token-rotation`), `go:<import path>`,
/// `go:<symbol id>`, `file:<path>`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Node {
    pub id: String,
    /// `document`, `section`, `toml_node`, `file`, `module`, `package`, `func`, `method`,
    /// `struct`, `interface`, `type`, `alias`, `var`, `const`.
    pub kind: String,
    /// Human title: heading text, document title, symbol name.
    pub title: String,
    /// Where the node is defined, when it has a place.
    pub location: Option<Location>,
    /// Text for lexical search (a summary, never whole source bodies).
    pub text: String,
    /// Flat string attributes (family, status, authority, tags joined by `,`, test=true, …).
    /// Documents, sections and TOML nodes carry their byte span and content hash here
    /// ([`NodeSpan`]).
    pub attrs: Attrs,
}

/// One edge. Identity is the exact `(source, relation, target)` triple.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Edge {
    pub source: String,
    /// The raw relation name (`contains`, `calls`, `governs`, or any project relation).
    pub relation: String,
    pub target: String,
    /// Where the edge was stated (a link, a call site, an import).
    pub location: Option<Location>,
    /// Flat string attributes (`classification` of a call edge, `receiver` of an
    /// `implements` edge, …). Not part of the edge's identity.
    #[serde(default, skip_serializing_if = "Attrs::is_empty")]
    pub attrs: Attrs,
}

impl Edge {
    pub fn new(source: impl Into<String>, relation: impl Into<String>, target: impl Into<String>) -> Self {
        Edge {
            source: source.into(),
            relation: relation.into(),
            target: target.into(),
            location: None,
            attrs: Attrs::new(),
        }
    }
    pub fn with_attr(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.attrs.insert(key.into(), value.into());
        self
    }
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }
    pub fn class(&self) -> RelationClass {
        classify_relation(&self.relation)
    }
    /// Whether this edge is one of the graph's tree (see [`is_tree_relation`]).
    pub fn is_tree(&self) -> bool {
        is_tree_relation(&self.relation)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Error,
    Warning,
    Info,
}

impl Severity {
    /// The name the index stores and every front shows: `error`, `warning`, `info`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "info",
        }
    }
}

/// A problem found while deriving the graph. Attached to a node and/or a place; never fatal.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable machine code, e.g. `broken_link`, `front_matter_invalid`, `go_syntax_error`.
    pub code: String,
    pub message: String,
    pub location: Option<Location>,
    /// The node the diagnostic belongs to, when there is one.
    pub node: Option<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, code: impl Into<String>, message: impl Into<String>) -> Self {
        Diagnostic { severity, code: code.into(), message: message.into(), location: None, node: None }
    }
    pub fn error(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, code, message)
    }
    pub fn warning(code: impl Into<String>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, code, message)
    }
    pub fn at(mut self, location: Location) -> Self {
        self.location = Some(location);
        self
    }
    pub fn on(mut self, node: impl Into<String>) -> Self {
        self.node = Some(node.into());
        self
    }
}

/// The nodes, edges and diagnostics one source file contributes to the graph, plus rows kept
/// beside it (Logic).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fragment {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    pub diagnostics: Vec<Diagnostic>,
    /// Logic projections of this owner's functions: stored beside the graph, never part of
    /// search or traversal.
    pub logic: Vec<LogicRow>,
}

/// The Logic projection (possible static control paths) of one function or method node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LogicRow {
    /// The owning node (`go:<symbol id>`).
    pub node: String,
    /// Step count (the projection's size, for budgets and stats).
    pub steps: u32,
    /// The projection as a JSON document (the Go crate's `FunctionLogic`).
    pub json: String,
}
