//! `docforge lsp`: the language server front (LSP 3.17 over stdio).
//!
//! It translates requests into engine queries and the answers into LSP; it never parses a
//! file. The main loop owns the [`AnalysisHost`] and applies edits; requests run on worker
//! threads against [`docforge_db::Analysis`] snapshots, so typing never waits for a read.
//! An edit cancels running reads (salsa cancellation): they answer `ContentModified`, or
//! `RequestCancelled` when the client cancelled them.

mod convert;
mod diagnostics;
mod handlers;
mod nav;
mod read;
mod rename;
mod server;

use docforge_db::{AnalysisHost, AstPolicy};
use docforge_project::Project;
use lsp_server::{Connection, Response};
use lsp_types::{
    CallHierarchyServerCapability, CodeLensOptions, CompletionOptions, HoverProviderCapability,
    ImplementationProviderCapability, InitializeParams, InitializeResult, OneOf, PositionEncodingKind,
    RenameOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextDocumentSyncOptions,
};
use std::path::PathBuf;

pub use convert::Encoding;

/// Environment variable that enables the test-only requests `docforge/debugPanic` (panics
/// in a handler) and `docforge/debugWaitForCancel` (runs until cancelled).
pub const TEST_HOOKS_ENV: &str = "DOCFORGE_LSP_TEST_HOOKS";

/// How the server analyses the project.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The project root; default: the client's first workspace folder, else its root URI,
    /// else the current directory.
    pub project_root: Option<PathBuf>,
    /// Never analyse Go code with an AST (documents only; Go files inventoried).
    pub no_ast: bool,
    /// Skip the Go semantic layer (no `implements`, no precise calls).
    pub no_precise: bool,
    /// Worker threads for requests and indexing (default: available cores, at least 2).
    pub threads: Option<usize>,
    /// Record salsa executions (for tests: `docforge/debugExecutions`).
    pub execution_log: bool,
    /// Enable the test-only requests (also enabled by [`TEST_HOOKS_ENV`]` = 1`).
    pub test_hooks: bool,
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
    let root = opts.project_root.clone().or_else(|| root_of(&params)).unwrap_or_else(|| PathBuf::from("."));
    let project = match Project::load(&root) {
        Ok(p) => p,
        Err(e) => {
            let msg = format!("cannot open project {}: {e}", root.display());
            let _ = connection.sender.send(Response::new_err(id, -32603, msg.clone()).into());
            return Err(msg);
        }
    };
    let encoding = negotiate_encoding(&params);
    let result = InitializeResult {
        capabilities: capabilities(encoding, !opts.no_ast, !opts.no_ast && !opts.no_precise),
        server_info: Some(ServerInfo {
            name: "docforge".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    let value = serde_json::to_value(result).expect("capabilities serialise");
    connection.initialize_finish(id, value).map_err(|e| format!("initialize: {e}"))?;
    let policy = if opts.no_ast { AstPolicy::Forbid } else { AstPolicy::Allow };
    let mut host = if opts.execution_log {
        AnalysisHost::with_execution_log(project, policy)
    } else {
        AnalysisHost::new(project, policy)
    };
    host.set_precise(!opts.no_ast && !opts.no_precise);
    // No LSP feature shows Logic: do not project it.
    host.set_logic(false);
    if opts.execution_log {
        host.execution_log().enable(true);
    }
    server::Server::new(connection, host, encoding, &params, &opts).run()
}

fn root_of(params: &InitializeParams) -> Option<PathBuf> {
    if let Some(folder) = params.workspace_folders.as_ref().and_then(|f| f.first()) {
        return convert::uri_path(&folder.uri);
    }
    #[allow(deprecated)]
    params.root_uri.as_ref().and_then(convert::uri_path)
}

/// UTF-8 when the client offers it (no conversion), else the protocol default UTF-16.
fn negotiate_encoding(params: &InitializeParams) -> Encoding {
    let offered = params.capabilities.general.as_ref().and_then(|g| g.position_encodings.as_ref());
    match offered {
        Some(list) if list.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
        _ => Encoding::Utf16,
    }
}

/// Only what works: Go-derived features are advertised only when Go code is analysed.
fn capabilities(encoding: Encoding, go: bool, precise: bool) -> ServerCapabilities {
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
        ..Default::default()
    }
}
