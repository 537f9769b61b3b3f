//! Request dispatch and the conversions every handler uses (paths, positions, ranges).

use crate::convert;
use crate::roots::Folder;
use crate::server::Shared;
use docforge_db::{Analysis, Cancelled};
use docforge_ide::{FilePosition, FileRange, FileRef, Ide, LineRange, Lines};
use lsp_server::ErrorCode;
use lsp_types::{Location, Position, Range, Uri};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::rc::Rc;
use std::sync::Arc;

/// Why a request has no result.
pub(crate) enum Failure {
    /// The snapshot was cancelled (an edit, or `$/cancelRequest`).
    Cancelled,
    Error(i32, String),
}

impl From<Cancelled> for Failure {
    fn from(_: Cancelled) -> Self {
        Failure::Cancelled
    }
}

pub(crate) type Answer = Result<Value, Failure>;

pub(crate) fn refuse(message: impl Into<String>) -> Failure {
    Failure::Error(ErrorCode::InvalidRequest as i32, message.into())
}

/// One request's view: the snapshot of one folder, the shared settings, and the editor
/// features over the snapshot (which keep the file texts the request read).
pub(crate) struct Ctx<'a> {
    pub shared: &'a Shared,
    pub folder: &'a Folder,
    pub analysis: &'a Analysis,
    pub ide: Ide<'a>,
}

impl Ctx<'_> {
    pub fn rel(&self, uri: &Uri) -> Option<String> {
        convert::rel_path(&self.folder.root, uri)
    }
    pub fn uri(&self, rel: &str) -> Uri {
        convert::uri(&self.folder.root, rel)
    }
    /// The lines of a loaded file (split once per request; empty for a file not loaded).
    pub fn lines_of(&self, rel: &str) -> Result<Rc<Lines>, Failure> {
        Ok(self.ide.lines(rel)?)
    }
    /// The engine position of an LSP position in a text document of this folder. A position
    /// on no line of the file is passed on as it is (the engine answers nothing there).
    pub fn position(&self, uri: &Uri, pos: Position) -> Result<Option<FilePosition>, Failure> {
        let Some(path) = self.rel(uri) else { return Ok(None) };
        let lines = self.lines_of(&path)?;
        let column = lines
            .get(pos.line as usize)
            .map_or(pos.character, |l| convert::column(l, pos.character, self.shared.enc) - 1);
        Ok(Some(FilePosition { path, line: pos.line, column }))
    }
    /// The LSP range of a range in a project file.
    pub fn line_range(&self, path: &str, r: &LineRange) -> Result<Range, Failure> {
        let lines = self.lines_of(path)?;
        Ok(convert::line_range(lines.get(r.line as usize).unwrap_or(""), r, self.shared.enc))
    }
    /// The LSP range of a range; a declaration outside the project is converted with the
    /// declaring line the engine read (a front reads no file).
    pub fn range(&self, r: &FileRange) -> Result<Range, Failure> {
        match &r.file {
            FileRef::Project(path) => self.line_range(path, &r.range),
            FileRef::External { line_text, .. } => {
                Ok(convert::line_range(line_text, &r.range, self.shared.enc))
            }
        }
    }
    pub fn location(&self, r: &FileRange) -> Result<Location, Failure> {
        let uri = match &r.file {
            FileRef::Project(path) => self.uri(path),
            FileRef::External { path, .. } => convert::file_uri(path),
        };
        Ok(Location::new(uri, self.range(r)?))
    }
}

fn parse<P: DeserializeOwned>(params: Value) -> Result<P, Failure> {
    serde_json::from_value(params).map_err(|e| Failure::Error(ErrorCode::InvalidParams as i32, e.to_string()))
}

pub(crate) fn json<T: serde::Serialize>(value: T) -> Answer {
    Ok(serde_json::to_value(value).expect("LSP results serialise"))
}

/// The requests only the Go semantic layer answers.
fn needs_precise(method: &str) -> bool {
    matches!(
        method,
        "textDocument/implementation"
            | "textDocument/prepareCallHierarchy"
            | "callHierarchy/incomingCalls"
            | "callHierarchy/outgoingCalls"
    )
}

/// Whether a request is served (Go-derived ones only when Go is analysed — precise ones when
/// the process does not restrict the semantic layer; a folder whose project declares `ast`
/// refuses them —; the test hooks only when enabled).
pub(crate) fn supports(shared: &Shared, method: &str) -> bool {
    match method {
        m if needs_precise(m) => shared.precise,
        "textDocument/codeLens" => shared.go,
        "docforge/debugPanic" | "docforge/debugWaitForCancel" | "docforge/debugExecutions" => {
            shared.test_hooks
        }
        "textDocument/definition"
        | "textDocument/references"
        | "textDocument/documentSymbol"
        | "workspace/symbol"
        | "textDocument/hover"
        | "textDocument/completion"
        | "textDocument/prepareRename"
        | "textDocument/rename" => true,
        _ => false,
    }
}

/// Answer from each folder's current snapshot, one folder after the other; several
/// folders' answers (lists) are concatenated.
pub(crate) fn dispatch_all(shared: &Shared, folders: &[Arc<Folder>], method: &str, params: Value) -> Answer {
    if let [folder] = folders {
        let analysis = folder.analysis().ok_or(Failure::Cancelled)?;
        return dispatch(shared, folder, &analysis, method, params);
    }
    let mut merged = Vec::new();
    for folder in folders {
        let analysis = folder.analysis().ok_or(Failure::Cancelled)?;
        match dispatch(shared, folder, &analysis, method, params.clone())? {
            Value::Array(items) => merged.extend(items),
            Value::Null => {}
            other => merged.push(other),
        }
    }
    Ok(Value::Array(merged))
}

/// One request against one folder's snapshot (the method is [`supports`]ed).
fn dispatch(shared: &Shared, folder: &Folder, analysis: &Analysis, method: &str, params: Value) -> Answer {
    if needs_precise(method) && !folder.precise {
        return Err(refuse(format!(
            "{} declares [analysis] precision = \"ast\" in docforge.toml: implementations and the call \
             hierarchy need precise analysis",
            folder.root.display()
        )));
    }
    let ctx = Ctx { shared, folder, analysis, ide: Ide::new(analysis) };
    let ctx = &ctx;
    match method {
        "textDocument/definition" => crate::nav::definition(ctx, parse(params)?),
        "textDocument/references" => crate::nav::references(ctx, parse(params)?),
        "textDocument/implementation" => crate::nav::implementation(ctx, parse(params)?),
        "textDocument/documentSymbol" => crate::nav::document_symbols(ctx, parse(params)?),
        "workspace/symbol" => crate::nav::workspace_symbols(ctx, parse(params)?),
        "textDocument/prepareCallHierarchy" => crate::nav::prepare_call_hierarchy(ctx, parse(params)?),
        "callHierarchy/incomingCalls" => crate::nav::incoming_calls(ctx, parse(params)?),
        "callHierarchy/outgoingCalls" => crate::nav::outgoing_calls(ctx, parse(params)?),
        "textDocument/hover" => crate::hover::hover(ctx, parse(params)?),
        "textDocument/completion" => crate::read::completion(ctx, parse(params)?),
        "textDocument/codeLens" => crate::read::code_lens(ctx, parse(params)?),
        "textDocument/prepareRename" => crate::rename::prepare(ctx, parse(params)?),
        "textDocument/rename" => crate::rename::rename(ctx, parse(params)?),
        "docforge/debugPanic" => panic!("docforge/debugPanic: deliberate panic in a handler"),
        "docforge/debugWaitForCancel" => {
            let started = lsp_types::LogMessageParams {
                typ: lsp_types::MessageType::LOG,
                message: "docforge/debugWaitForCancel: running".into(),
            };
            shared.notify::<lsp_types::notification::LogMessage>(started);
            analysis.wait_for_cancellation(std::time::Duration::from_secs(20))?;
            json("not cancelled")
        }
        "docforge/debugExecutions" => json(folder.log.as_ref().map(|l| l.take()).unwrap_or_default()),
        _ => Err(Failure::Error(ErrorCode::MethodNotFound as i32, format!("unsupported request {method}"))),
    }
}
