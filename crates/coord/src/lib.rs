//! DocForge's coordination server: the coordination MCP contract
//! (docs/coordination.md) over stateless Streamable HTTP, on a
//! SQLite event log. A room of its own: it depends on no engine crate.
//!
//! - [`store`]: the database (WAL), its schema, the append-only event log.
//! - [`auth`]: bearer credentials, stored only as SHA-256 hashes.
//! - [`args`]: argument value types that validate and describe themselves (schemars).
//! - [`tools`]: the 18 tools, role rules, idempotent mutations.
//! - [`http`]: the JSON-RPC transport on axum.
//! - [`cli`]: `docforge coord serve` and `docforge coord token ...`.

pub mod args;
pub mod auth;
pub mod cli;
pub mod http;
pub mod store;
pub mod tools;

pub use cli::{run, CoordCommand, EXIT_HELP};
