//! Tree-sitter grammars, the query files of `queries/`, and the AST-policy gate.
//!
//! Go *code* analysis is only reachable through [`AstGate`]: parsing Go source and running a
//! `queries/go/*.scm` query both need a [`GoSyntax`] capability that the gate hands out only
//! when the policy allows AST analysis. Under `--no-ast` the gate refuses, so no code path can
//! extract Go symbols, calls or Logic. Markdown is the canonical projection of documents, not
//! code analysis, and is never gated.

pub mod alloc;
mod arena;
mod gate;
mod markdown;
mod queries;

pub use gate::{AstGate, AstPolicy, GateCounters, GoSyntax, PolicyRefused};
pub use markdown::{markdown_parses, parse_markdown, MarkdownTree};
pub use queries::{go_query_names, markdown_query, QueryError};
pub use tree_sitter;
