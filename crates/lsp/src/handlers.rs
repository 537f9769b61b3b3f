//! Request dispatch and the helpers every handler uses (paths, positions, spans).

use crate::convert;
use crate::roots::Folder;
use crate::server::Shared;
use docforge_db::{Analysis, Cancelled, ExternalNode, Mention, Span};
use docforge_model::Node;
use lsp_server::ErrorCode;
use lsp_types::{Location, Position, Range, Uri};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::cell::RefCell;
use std::collections::HashMap;
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

/// One request's view: the snapshot of one folder, the shared settings, and the file texts
/// it read.
pub(crate) struct Ctx<'a> {
    pub shared: &'a Shared,
    pub folder: &'a Folder,
    pub analysis: &'a Analysis,
    texts: RefCell<HashMap<String, Option<Rc<str>>>>,
    lines: RefCell<HashMap<String, Rc<convert::Lines>>>,
}

impl Ctx<'_> {
    pub fn rel(&self, uri: &Uri) -> Option<String> {
        convert::rel_path(&self.folder.root, uri)
    }
    pub fn uri(&self, rel: &str) -> Uri {
        convert::uri(&self.folder.root, rel)
    }
    pub fn text(&self, rel: &str) -> Result<Option<Rc<str>>, Failure> {
        if let Some(t) = self.texts.borrow().get(rel) {
            return Ok(t.clone());
        }
        let t = self.analysis.file_text(rel)?.map(|b| Rc::from(String::from_utf8_lossy(&b)));
        self.texts.borrow_mut().insert(rel.to_string(), t.clone());
        Ok(t)
    }
    /// 1-based line and byte column of an LSP position in a loaded file.
    pub fn byte_pos(&self, rel: &str, pos: Position) -> Result<Option<(u32, u32)>, Failure> {
        if self.text(rel)?.is_none() {
            return Ok(None);
        }
        let lines = self.lines_of(rel)?;
        let Some(line) = lines.get(pos.line as usize) else { return Ok(None) };
        Ok(Some((pos.line + 1, convert::column(line, pos.character, self.shared.enc))))
    }
    /// The lines of a loaded file (split once per request; empty for a file not loaded).
    pub fn lines_of(&self, rel: &str) -> Result<Rc<convert::Lines>, Failure> {
        if let Some(l) = self.lines.borrow().get(rel) {
            return Ok(l.clone());
        }
        let text = self.text(rel)?.map(|t| t.to_string()).unwrap_or_default();
        let lines = Rc::new(convert::Lines::new(text));
        self.lines.borrow_mut().insert(rel.to_string(), lines.clone());
        Ok(lines)
    }
    pub fn range(&self, span: &Span) -> Result<Range, Failure> {
        let lines = self.lines_of(&span.path)?;
        let text = lines.get(span.line.max(1) as usize - 1).unwrap_or("");
        Ok(self.range_on(text, span.line, span.start, span.end))
    }
    /// The range of 1-based byte columns `[start, end)` of 1-based `line`, whose text is `text`.
    fn range_on(&self, text: &str, line: u32, start: u32, end: u32) -> Range {
        let span = Span { path: String::new(), line: 1, start, end };
        let mut r = convert::range(&[text], &span, self.shared.enc);
        r.start.line = line.saturating_sub(1);
        r.end.line = r.start.line;
        r
    }
    /// Where an edge is stated (see [`Analysis::edge_span`]), reading each file once.
    pub fn edge_span(&self, e: &docforge_model::Edge) -> Result<Option<Span>, Failure> {
        let Some(loc) = e.location.as_ref().filter(|l| l.line > 0) else { return Ok(None) };
        let lines = self.lines_of(&loc.path)?;
        Ok(lines.get(loc.line as usize - 1).and_then(|l| docforge_db::edge_span_on_line(l, e)))
    }
    pub fn location(&self, span: &Span) -> Result<Location, Failure> {
        Ok(Location::new(self.uri(&span.path), self.range(span)?))
    }
    /// Where a declaration outside the project (Go installation, module cache) is; columns
    /// converted with the declaring line the engine read (a front reads no file).
    pub fn external_location(&self, e: &ExternalNode) -> Location {
        let range = self.range_on(&e.line_text, e.line, e.column, e.column + e.len);
        Location::new(convert::file_uri(&e.file), range)
    }
    /// The node mention under the cursor of a text document position.
    pub fn mention_at(&self, uri: &Uri, pos: Position) -> Result<Option<Mention>, Failure> {
        let Some(rel) = self.rel(uri) else { return Ok(None) };
        let Some((line, col)) = self.byte_pos(&rel, pos)? else { return Ok(None) };
        Ok(self.analysis.mention_at(&rel, line, col)?)
    }
    /// Where a node is declared: its declaration mention, else its location's start.
    pub fn decl_span(&self, node: &Node) -> Result<Option<Span>, Failure> {
        let Some(loc) = &node.location else {
            // A package has no single place: its first file.
            let ide = self.analysis.ide()?;
            let file = ide
                .outgoing(&node.id)
                .filter(|e| e.relation == "contains")
                .find_map(|e| e.target.strip_prefix("file:"));
            return Ok(file.map(|path| Span { path: path.to_string(), line: 1, start: 1, end: 1 }));
        };
        if loc.line > 0 {
            let decl = self
                .analysis
                .mentions(&loc.path)?
                .into_iter()
                .find(|m| m.edge.is_none() && m.target == node.id);
            if let Some(m) = decl {
                return Ok(Some(m.span));
            }
        }
        let line = loc.line.max(1);
        let col = loc.column.max(1);
        Ok(Some(Span { path: loc.path.clone(), line, start: col, end: col }))
    }
    pub fn decl_location(&self, node: &Node) -> Result<Option<Location>, Failure> {
        match self.decl_span(node)? {
            Some(span) => Ok(Some(self.location(&span)?)),
            None => Ok(None),
        }
    }
}

fn parse<P: DeserializeOwned>(params: Value) -> Result<P, Failure> {
    serde_json::from_value(params).map_err(|e| Failure::Error(ErrorCode::InvalidParams as i32, e.to_string()))
}

pub(crate) fn json<T: serde::Serialize>(value: T) -> Answer {
    Ok(serde_json::to_value(value).expect("LSP results serialise"))
}

/// Whether a request is served (Go-derived ones only when Go is analysed; the test hooks
/// only when enabled).
pub(crate) fn supports(shared: &Shared, method: &str) -> bool {
    match method {
        "textDocument/implementation"
        | "textDocument/prepareCallHierarchy"
        | "callHierarchy/incomingCalls"
        | "callHierarchy/outgoingCalls" => shared.precise,
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
    let ctx = Ctx { shared, folder, analysis, texts: RefCell::default(), lines: RefCell::default() };
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
        "textDocument/hover" => crate::read::hover(ctx, parse(params)?),
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
