//! The MCP front over stdio (`docforge mcp`): bounded, generation-bound reads of the graph.
//!
//! The process binds once to an explicit project root. Every tool call first proves the
//! derived index current (cheap source identity) or re-syncs the warm salsa database and
//! publishes a new generation atomically, then reads that generation. Protocol types stay in
//! this crate; the engine speaks plain Rust data.

mod cursor;
mod integrations;
mod policy;
mod reply;
mod server;
pub mod tools;
mod wire;

pub use docforge_workspace::{Generation, Staleness, Workspace};
pub use integrations::{ContextLimits, ContextProvider, Integrations};
pub use policy::{check_application, check_startup, CapabilityMode, Options, StartupError};
pub use reply::ToolError;

use std::sync::Mutex;

/// The process-wide state shared by every request.
pub struct Server {
    pub opts: Options,
    pub project_id: String,
    pub root: String,
    pub max_results: u32,
    pub max_response_bytes: u64,
    /// The binding's synchronisation progress (shared, so it can be read while it works).
    pub progress: std::sync::Arc<docforge_workspace::SyncProgress>,
    pub engine: Mutex<Workspace>,
    /// The precision the binding analyses at (fixed for the process).
    pub precision: &'static str,
    /// What the program embedding the server supplied (applier, context provider).
    pub integrations: Integrations,
    /// The last `canonical_json_chunk` payload built (changeset hash, payload, its SHA-256):
    /// the pages of one oversized diff are cut from it instead of rebuilding it per page.
    pub chunk_payload: Mutex<Option<(String, std::sync::Arc<String>, String)>>,
}

impl Server {
    /// Validate the options and bind the project. Opens no socket and writes nothing.
    /// `precise` is `--precise`: refused when the project declares `ast`.
    pub fn bind(opts: Options, precise: bool) -> Result<Server, StartupError> {
        Server::bind_with(opts, precise, Integrations::default())
    }

    /// [`Server::bind`] with a project integration's applier and context provider.
    pub fn bind_with(
        mut opts: Options,
        precise: bool,
        integrations: Integrations,
    ) -> Result<Server, StartupError> {
        check_startup(&opts)?;
        let project = docforge_project::Project::load(&opts.project_root)
            .map_err(|e| StartupError { code: "project_unavailable", message: e.to_string() })?;
        check_application(&mut opts, &project, integrations.applier().name())?;
        let options = docforge_workspace::Options {
            no_ast: opts.no_ast,
            require_precise: precise,
            watch: true,
            ..Default::default()
        };
        let workspace = Workspace::from_project(project, options)
            .map_err(|e| StartupError { code: e.code(), message: e.to_string() })?;
        let project = workspace.project();
        let limits = &project.config.limits;
        Ok(Server {
            precision: workspace.precision().as_str(),
            progress: workspace.progress(),
            project_id: project.id.clone(),
            root: project.root.display().to_string(),
            max_results: limits.max_results,
            max_response_bytes: limits.max_response_bytes,
            engine: Mutex::new(workspace),
            chunk_payload: Mutex::new(None),
            integrations,
            opts,
        })
    }
}

/// Serve MCP on stdin/stdout until the client closes the stream.
pub fn run(opts: Options, precise: bool) -> Result<(), String> {
    run_with(opts, precise, Integrations::default())
}

/// [`run`] for a program that embeds the server with its own applier and context provider
/// (see `examples/embed.rs`).
pub fn run_with(opts: Options, precise: bool, integrations: Integrations) -> Result<(), String> {
    let server = Server::bind_with(opts, precise, integrations).map_err(|e| e.to_string())?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the runtime: {e}"))?;
    rt.block_on(server::serve_stdio(server))
}
