//! `docforge lsp`: the language server front (LSP 3.17 over stdio).
//!
//! It translates requests into calls of the editor features (`docforge_ide`) and their
//! plain-data answers into LSP; it never parses a file and holds no navigation policy. Each workspace folder is its own project with its own [`AnalysisHost`]
//! (`roots.rs`); the main loop owns the hosts and applies edits to the folder owning the
//! file; requests run on worker threads against [`docforge_db::Analysis`] snapshots, so
//! typing never waits for a read. An edit cancels running reads of its folder (salsa
//! cancellation): they answer `ContentModified`, or `RequestCancelled` when the client
//! cancelled them.

mod convert;
mod diagnostics;
mod handlers;
mod hover;
mod nav;
mod read;
mod rename;
mod roots;
mod server;
mod workspace;

use docforge_db::AnalysisHost;
use lsp_server::{Connection, Response};
use lsp_types::{
    CallHierarchyServerCapability, CodeLensOptions, CompletionOptions, HoverProviderCapability,
    ImplementationProviderCapability, InitializeParams, InitializeResult, OneOf, PositionEncodingKind,
    RenameOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions, WorkspaceFoldersServerCapabilities, WorkspaceServerCapabilities,
};
use std::path::PathBuf;

pub use convert::Encoding;

/// Environment variable that enables the test-only requests `docforge/debugPanic` (panics
/// in a handler) and `docforge/debugWaitForCancel` (runs until cancelled).
pub const TEST_HOOKS_ENV: &str = "DOCFORGE_LSP_TEST_HOOKS";

/// How the server analyses the project.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The one project root to serve (workspace folders are then ignored); default: every
    /// workspace folder of the client (added and removed as it says), else its root URI,
    /// else the current directory.
    pub project_root: Option<PathBuf>,
    /// Never analyse Go code with an AST (documents only; Go files inventoried).
    pub no_ast: bool,
    /// Skip the Go semantic layer (no `implements`, no precise calls).
    pub no_precise: bool,
    /// Where to read the standard library that editor navigation shows (definition, hover
    /// and references of `fmt.Println` & co.).
    pub goroot: GoDir,
    /// Where to read the modules the project requires, for the same (the Go module cache).
    pub gomodcache: GoDir,
    /// Worker threads for requests and indexing (default: available cores, at least 2).
    pub threads: Option<usize>,
    /// Record salsa executions (for tests: `docforge/debugExecutions`).
    pub execution_log: bool,
    /// Enable the test-only requests (also enabled by [`TEST_HOOKS_ENV`]` = 1`).
    pub test_hooks: bool,
}

/// A directory outside the project that navigation reads (never the graph): the Go
/// installation, or the module cache.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum GoDir {
    /// Found as the go command would find it, without running it (see
    /// [`docforge_db::find_goroot`], [`docforge_db::find_module_cache`]); none when not found.
    #[default]
    Discover,
    At(PathBuf),
    Off,
}

impl GoDir {
    /// As the Go installation to read, if any.
    pub fn goroot(&self) -> Option<PathBuf> {
        self.resolve(|| {
            let (goroot, path) = (std::env::var_os("GOROOT"), std::env::var_os("PATH"));
            docforge_db::find_goroot(goroot.as_deref(), path.as_deref())
        })
    }

    /// As the module cache to read, if any.
    pub fn module_cache(&self) -> Option<PathBuf> {
        self.resolve(|| {
            let var = std::env::var_os;
            let (cache, gopath, home) = (var("GOMODCACHE"), var("GOPATH"), var("HOME"));
            docforge_db::find_module_cache(cache.as_deref(), gopath.as_deref(), home.as_deref())
        })
    }

    fn resolve(&self, discover: impl FnOnce() -> Option<PathBuf>) -> Option<PathBuf> {
        match self {
            GoDir::Discover => discover(),
            GoDir::At(p) => Some(p.clone()),
            GoDir::Off => None,
        }
    }
}

/// Serve LSP over stdin/stdout until the client says `exit`.
pub fn run(opts: Options) -> Result<(), String> {
    let (connection, io_threads) = Connection::stdio();
    let result = serve(connection, opts);
    // The connection is dropped by `serve`, so the I/O threads can finish (pitfall 2).
    io_threads.join().map_err(|e| format!("lsp i/o: {e}"))?;
    result
}

/// Serve one client on `connection` (stdio, or in memory for tests).
pub fn serve(connection: Connection, opts: Options) -> Result<(), String> {
    let (id, params) = connection.initialize_start().map_err(|e| format!("initialize: {e}"))?;
    let params: InitializeParams = match serde_json::from_value(params) {
        Ok(p) => p,
        Err(e) => {
            let msg = format!("invalid initialize params: {e}");
            let _ = connection.sender.send(Response::new_err(id, -32602, msg.clone()).into());
            return Err(msg);
        }
    };
    // Every folder that can be served is (a bad one is reported once initialised); none at
    // all fails the initialisation.
    let mut hosts: Vec<(PathBuf, AnalysisHost)> = Vec::new();
    let mut aliases: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut failures = Vec::new();
    for path in roots::initial(&opts, &params) {
        match roots::load(&path, &opts) {
            Ok(host) if hosts.iter().any(|(_, h)| h.project().root == host.project().root) => {
                aliases.push((host.project().root.clone(), path));
            }
            Ok(host) => hosts.push((path, host)),
            Err(e) => failures.push(e),
        }
    }
    if hosts.is_empty() {
        let msg = failures.join("; ");
        let _ = connection.sender.send(Response::new_err(id, -32603, msg.clone()).into());
        return Err(msg);
    }
    let encoding = negotiate_encoding(&params);
    let multi = opts.project_root.is_none();
    let result = InitializeResult {
        capabilities: capabilities(encoding, !opts.no_ast, !opts.no_ast && !opts.no_precise, multi),
        server_info: Some(ServerInfo {
            name: "docforge".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    let value = serde_json::to_value(result).expect("capabilities serialise");
    connection.initialize_finish(id, value).map_err(|e| format!("initialize: {e}"))?;
    let mut server = server::Server::new(connection, hosts, encoding, &params, &opts);
    for (root, named) in aliases {
        server.roots.add_alias(&root, named);
    }
    for message in failures {
        server.shared.warn(message);
    }
    server.run()
}

/// UTF-8 when the client offers it (no conversion), else the protocol default UTF-16.
fn negotiate_encoding(params: &InitializeParams) -> Encoding {
    let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

/// Only what works: Go-derived features are advertised only when Go code is analysed;
/// workspace folders unless one `--project-root` is served.
fn capabilities(encoding: Encoding, go: bool, precise: bool, multi_root: bool) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(match encoding {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }),
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::INCREMENTAL),
            ..Default::default()
        })),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        workspace_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["[".into(), ":".into(), "\"".into()]),
            ..Default::default()
        }),
        code_lens_provider: go.then_some(CodeLensOptions { resolve_provider: Some(false) }),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: Default::default(),
        })),
        implementation_provider: precise.then_some(ImplementationProviderCapability::Simple(true)),
        call_hierarchy_provider: precise.then_some(CallHierarchyServerCapability::Simple(true)),
        workspace: multi_root.then_some(WorkspaceServerCapabilities {
            workspace_folders: Some(WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..Default::default()
    }
}
