//! The MCP front over stdio (`docforge mcp`): bounded, generation-bound reads of the graph.
//!
//! The process binds once to an explicit project root. Every tool call first proves the
//! derived index current (cheap source identity) or re-syncs the warm salsa database and
//! publishes a new generation atomically, then reads that generation. Protocol types stay in
//! this crate; the engine speaks plain Rust data.

mod cursor;
mod engine;
mod policy;
mod reply;
mod server;
pub mod tools;
mod watch;

pub use engine::{Engine, Generation, Staleness};
pub use policy::{check_startup, CapabilityMode, Options, StartupError};
pub use reply::ToolError;

use docforge_project::Project;
use std::sync::Mutex;

/// The process-wide state shared by every request.
pub struct Server {
    pub opts: Options,
    pub project_id: String,
    pub root: String,
    pub max_results: u32,
    pub max_response_bytes: u64,
    pub precise: bool,
    /// The engine's analysis counters (shared, so progress can be read while it works).
    pub progress: std::sync::Arc<docforge_db::Progress>,
    pub engine: Mutex<Engine>,
}

impl Server {
    /// Validate the options and bind the project. Opens no socket and writes nothing.
    pub fn bind(opts: Options, precise: bool) -> Result<Server, StartupError> {
        check_startup(&opts)?;
        let project = Project::load(&opts.project_root)
            .map_err(|e| StartupError { code: "project_unavailable", message: e.to_string() })?;
        let limits = &project.config.limits;
        let engine = Engine::new(project.clone(), opts.no_ast, precise && !opts.no_ast);
        Ok(Server {
            progress: engine.progress.clone(),
            project_id: project.id.clone(),
            root: project.root.display().to_string(),
            max_results: limits.max_results,
            max_response_bytes: limits.max_response_bytes,
            precise: precise && !opts.no_ast,
            engine: Mutex::new(engine),
            opts,
        })
    }
}

/// Serve MCP on stdin/stdout until the client closes the stream.
pub fn run(opts: Options, precise: bool) -> Result<(), String> {
    let server = Server::bind(opts, precise).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(server::serve_stdio(server))
}
