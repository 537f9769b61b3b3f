//! The main loop: owns the [`AnalysisHost`], applies edits, hands requests to workers.

use crate::convert::{self, Encoding};
use crate::handlers::{self, Failure};
use crate::Options;
use crossbeam::channel::{unbounded, Receiver, Sender};
use docforge_db::{Analysis, AnalysisHost, Change, Content, FileChange, Progress};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::{
    DidChangeTextDocumentParams, DidCloseTextDocumentParams, DidOpenTextDocumentParams, InitializeParams,
    NumberOrString,
};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

type Job = Box<dyn FnOnce() + Send>;

/// State the workers share with the main loop.
pub(crate) struct Shared {
    pub root: PathBuf,
    pub enc: Encoding,
    pub go: bool,
    /// The Go semantic layer runs (claims needing `precise` can pass).
    pub precise: bool,
    pub policy: docforge_validate::SelectionPolicy,
    pub threads: usize,
    pub test_hooks: bool,
    pub sender: Sender<Message>,
    /// The current revision's snapshot. Taken out (under the lock) while the host changes,
    /// so no idle clone delays a write.
    snapshot: Mutex<Option<Analysis>>,
    /// Bumped on every change; a diagnostics run publishes only if it is still current.
    pub generation: AtomicU64,
    pub diagnostics: crate::diagnostics::State,
    /// Work counters of the first index (for `$/progress`).
    pub progress: Arc<Progress>,
    pub indexed: AtomicBool,
    pub stopping: AtomicBool,
    /// Memory is to be trimmed (the first index is done) as soon as no request runs.
    pub trim_due: AtomicBool,
    /// Wakes the main loop when a trim may be due.
    pub wake: Sender<()>,
    /// Executions recorded by the engine, when enabled.
    pub log: Option<docforge_db::ExecutionLog>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub fn analysis(&self) -> Option<Analysis> {
        lock(&self.snapshot).clone()
    }
    pub fn send(&self, msg: impl Into<Message>) {
        let _ = self.sender.send(msg.into());
    }
    pub fn notify<N: note::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }
}

#[derive(Default)]
struct Pending {
    cancelled: AtomicBool,
    started: AtomicBool,
}

pub(crate) struct Server {
    conn: Connection,
    host: AnalysisHost,
    shared: Arc<Shared>,
    jobs: Option<Sender<Job>>,
    woken: Receiver<()>,
    workers: Vec<std::thread::JoinHandle<()>>,
    pending: Arc<Mutex<HashMap<RequestId, Arc<Pending>>>>,
    open: HashMap<String, String>,
    dirty: bool,
    shutdown: bool,
    work_done: bool,
    watch_dynamic: bool,
}

impl Server {
    pub fn new(
        conn: Connection,
        host: AnalysisHost,
        enc: Encoding,
        params: &InitializeParams,
        opts: &Options,
    ) -> Self {
        let threads = opts
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
            .max(2);
        let caps = &params.capabilities;
        let work_done = caps.window.as_ref().and_then(|w| w.work_done_progress).unwrap_or(false);
        let watch_dynamic = caps
            .workspace
            .as_ref()
            .and_then(|w| w.did_change_watched_files.as_ref())
            .and_then(|d| d.dynamic_registration)
            .unwrap_or(false);
        let (wake, woken) = unbounded::<()>();
        let shared = Arc::new(Shared {
            root: host.project().root.clone(),
            enc,
            go: !opts.no_ast,
            precise: !opts.no_ast && !opts.no_precise,
            policy: docforge_validate::SelectionPolicy::of(host.project()),
            threads,
            test_hooks: opts.test_hooks || std::env::var_os(crate::TEST_HOOKS_ENV).is_some_and(|v| v == "1"),
            sender: conn.sender.clone(),
            snapshot: Mutex::new(None),
            generation: AtomicU64::new(0),
            diagnostics: Default::default(),
            progress: Arc::new(Progress::default()),
            indexed: AtomicBool::new(false),
            stopping: AtomicBool::new(false),
            trim_due: AtomicBool::new(false),
            wake,
            log: opts.execution_log.then(|| host.execution_log().clone()),
        });
        let (tx, rx) = unbounded::<Job>();
        let workers = (0..threads).map(|_| spawn_worker(rx.clone())).collect();
        Server {
            conn,
            host,
            shared,
            jobs: Some(tx),
            woken,
            workers,
            pending: Default::default(),
            open: HashMap::new(),
            dirty: true,
            shutdown: false,
            work_done,
            watch_dynamic,
        }
    }

    pub fn run(mut self) -> Result<(), String> {
        self.mutate(|host| {
            host.sync_from_disk();
        });
        self.start_progress();
        self.schedule_diagnostics();
        self.dirty = false;
        let result = self.main_loop();
        self.shared.stopping.store(true, Ordering::SeqCst);
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
        result
    }

    fn main_loop(&mut self) -> Result<(), String> {
        let exit = |s: &Self| if s.shutdown { Ok(()) } else { Err("exit without shutdown".to_string()) };
        loop {
            let msg = crossbeam::channel::select! {
                recv(self.conn.receiver) -> msg => match msg {
                    Ok(msg) => msg,
                    Err(_) => break,
                },
                recv(self.woken) -> _ => {
                    self.trim_after_index();
                    continue;
                }
            };
            if self.handle(msg)? {
                return exit(self);
            }
            while let Ok(msg) = self.conn.receiver.try_recv() {
                if self.handle(msg)? {
                    return exit(self);
                }
            }
            if std::mem::take(&mut self.dirty) {
                self.schedule_diagnostics();
            }
        }
        Ok(())
    }

    /// Once, after the first index: let the engine drop what it kept only because the cold
    /// analysis ran in one revision (every file's parse values). A write cancels running
    /// reads, so it waits until no request runs (only this loop starts requests). Diagnostics
    /// are then re-verified, which touches no file.
    fn trim_after_index(&mut self) {
        if self.shared.trim_due.load(Ordering::SeqCst) && lock(&self.pending).is_empty() {
            self.shared.trim_due.store(false, Ordering::SeqCst);
            self.mutate(AnalysisHost::trim_memory);
            self.schedule_diagnostics();
            self.dirty = false;
        }
    }

    /// Handle one message; `Ok(true)` on `exit`.
    fn handle(&mut self, msg: Message) -> Result<bool, String> {
        match msg {
            Message::Request(req) => self.on_request(req),
            Message::Notification(n) if n.method == note::Exit::METHOD => return Ok(true),
            Message::Notification(n) => self.on_notification(n),
            Message::Response(_) => {}
        }
        Ok(false)
    }

    /// Change the host: the shared snapshot is taken out first (a write waits for every
    /// clone to be dropped), running reads are cancelled, then the new snapshot is put back.
    fn mutate(&mut self, f: impl FnOnce(&mut AnalysisHost)) {
        let shared = self.shared.clone();
        let mut slot = lock(&shared.snapshot);
        *slot = None;
        f(&mut self.host);
        *slot = Some(self.host.analysis());
        self.shared.generation.fetch_add(1, Ordering::SeqCst);
        self.dirty = true;
    }

    fn spawn(&self, job: Job) {
        if let Some(jobs) = &self.jobs {
            let _ = jobs.send(job);
        }
    }

    fn on_request(&mut self, req: Request) {
        if self.shutdown {
            let r = Response::new_err(
                req.id,
                ErrorCode::InvalidRequest as i32,
                "the server is shutting down".into(),
            );
            return self.shared.send(r);
        }
        if req.method == "shutdown" {
            self.shutdown = true;
            return self.shared.send(Response::new_ok(req.id, ()));
        }
        let state = Arc::new(Pending::default());
        lock(&self.pending).insert(req.id.clone(), state.clone());
        let (shared, pending) = (self.shared.clone(), self.pending.clone());
        self.spawn(Box::new(move || {
            let Request { id, method, params } = req;
            let respond = |r: Response| {
                let mut running = lock(&pending);
                if running.remove(&r.id).is_some() {
                    shared.send(r);
                }
                if running.is_empty() && shared.trim_due.load(Ordering::SeqCst) {
                    let _ = shared.wake.send(());
                }
            };
            if state.cancelled.load(Ordering::SeqCst) {
                return respond(cancelled(id, true));
            }
            state.started.store(true, Ordering::SeqCst);
            let Some(analysis) = shared.analysis() else {
                return respond(cancelled(id, false));
            };
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                handlers::dispatch(&shared, &analysis, &method, params)
            }));
            drop(analysis);
            let was_cancelled = state.cancelled.load(Ordering::SeqCst);
            respond(match outcome {
                Ok(Ok(value)) => Response::new_ok(id, value),
                Ok(Err(Failure::Cancelled)) => cancelled(id, was_cancelled),
                Ok(Err(Failure::Error(code, message))) => Response::new_err(id, code, message),
                Err(payload) if payload.is::<docforge_db::Cancelled>() => cancelled(id, was_cancelled),
                Err(payload) => {
                    let what = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "panic".into());
                    let message = format!("internal error in {method}: {what}");
                    Response::new_err(id, ErrorCode::InternalError as i32, message)
                }
            })
        }));
    }

    fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            note::Cancel::METHOD => {
                let Ok(p) = serde_json::from_value::<lsp_types::CancelParams>(n.params) else { return };
                let id: RequestId = match p.id {
                    NumberOrString::Number(i) => i.into(),
                    NumberOrString::String(s) => s.into(),
                };
                let state = lock(&self.pending).get(&id).cloned();
                if let Some(state) = state {
                    state.cancelled.store(true, Ordering::SeqCst);
                    if state.started.load(Ordering::SeqCst) {
                        // Salsa cancellation: running reads unwind with `Cancelled`.
                        let shared = self.shared.clone();
                        let mut slot = lock(&shared.snapshot);
                        *slot = None;
                        self.host.request_cancellation();
                        *slot = Some(self.host.analysis());
                        // A diagnostics run may have been cancelled with it.
                        self.dirty = true;
                    }
                }
            }
            note::DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else { return };
                if let Some(rel) = convert::rel_path(&self.shared.root, &p.text_document.uri) {
                    self.open.insert(rel.clone(), p.text_document.text);
                    self.push_buffer(&rel, true);
                }
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else { return };
                let Some(rel) = convert::rel_path(&self.shared.root, &p.text_document.uri) else { return };
                let Some(text) = self.open.get_mut(&rel) else { return };
                for c in p.content_changes {
                    match c.range {
                        Some(r) => {
                            let start = convert::offset(text, r.start, self.shared.enc);
                            let end = convert::offset(text, r.end, self.shared.enc).max(start);
                            text.replace_range(start..end, &c.text);
                        }
                        None => *text = c.text,
                    }
                }
                self.push_buffer(&rel, false);
            }
            note::DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else { return };
                if let Some(rel) = convert::rel_path(&self.shared.root, &p.text_document.uri) {
                    if self.open.remove(&rel).is_some() {
                        self.reload_file(&rel);
                    }
                }
            }
            note::DidChangeWatchedFiles::METHOD => self.reload_from_disk(),
            _ => {}
        }
    }

    /// Send an open buffer to the engine (files the project does not select are ignored;
    /// a file new on disk is picked up by a sync when it is opened, never per keystroke).
    fn push_buffer(&mut self, rel: &str, opened: bool) {
        let kind = |s: &Self| s.shared.analysis().and_then(|a| a.file_kind(rel).ok().flatten());
        let mut known = kind(self);
        if known.is_none() && opened && self.shared.root.join(rel).is_file() {
            self.mutate(|host| {
                host.sync_from_disk();
            });
            known = kind(self);
        }
        let (Some(kind), Some(text)) = (known, self.open.get(rel)) else { return };
        let content = Content::Bytes(text.clone().into_bytes().into());
        let change = Change {
            files: vec![FileChange::Set { rel: rel.to_string(), kind, content }],
            ..Default::default()
        };
        lock(&self.shared.diagnostics.edited).insert(rel.to_string());
        self.mutate(|host| host.apply_change(change));
    }

    /// A closed buffer: the engine goes back to the file on disk (one confined read; a
    /// file that is gone, or was never loaded, takes a full sync).
    fn reload_file(&mut self, rel: &str) {
        let kind = self.shared.analysis().and_then(|a| a.file_kind(rel).ok().flatten());
        let limit = self.host.project().config.limits.max_file_bytes;
        match (kind, docforge_project::read_source(&self.shared.root, rel, limit)) {
            (Some(kind), Ok(bytes)) => {
                let set =
                    FileChange::Set { rel: rel.to_string(), kind, content: Content::Bytes(bytes.into()) };
                self.mutate(|host| host.apply_change(Change { files: vec![set], ..Default::default() }));
            }
            _ => self.reload_from_disk(),
        }
    }

    /// Edits made outside the editor: re-walk the project, then put the open buffers back
    /// on top (the editor's text wins for open files).
    fn reload_from_disk(&mut self) {
        let open: Vec<(String, String)> = self.open.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
        self.mutate(|host| {
            host.sync_from_disk();
        });
        let kinds: Vec<_> = {
            let a = self.shared.analysis();
            open.iter().map(|(rel, _)| a.as_ref().and_then(|a| a.file_kind(rel).ok().flatten())).collect()
        };
        let files: Vec<FileChange> = open
            .into_iter()
            .zip(kinds)
            .filter_map(|((rel, text), kind)| {
                Some(FileChange::Set { rel, kind: kind?, content: Content::Bytes(text.into_bytes().into()) })
            })
            .collect();
        if !files.is_empty() {
            self.mutate(|host| host.apply_change(Change { files, ..Default::default() }));
        }
    }

    fn schedule_diagnostics(&self) {
        let shared = self.shared.clone();
        let generation = shared.generation.load(Ordering::SeqCst);
        self.spawn(Box::new(move || crate::diagnostics::publish(&shared, generation)));
    }

    /// `$/progress` for the first index, and file watching, when the client supports them.
    fn start_progress(&mut self) {
        if self.watch_dynamic {
            let reg = lsp_types::Registration {
                id: "docforge-watch".into(),
                method: note::DidChangeWatchedFiles::METHOD.into(),
                register_options: Some(serde_json::json!({"watchers": [{"globPattern": "**/*"}]})),
            };
            let params = lsp_types::RegistrationParams { registrations: vec![reg] };
            self.shared.send(Request::new(
                "docforge-register".to_string().into(),
                "client/registerCapability".into(),
                params,
            ));
        }
        if !self.work_done {
            return;
        }
        let token = NumberOrString::String("docforge/index".into());
        let create = lsp_types::WorkDoneProgressCreateParams { token: token.clone() };
        self.shared.send(Request::new(
            "docforge-progress".to_string().into(),
            "window/workDoneProgress/create".into(),
            create,
        ));
        let shared = self.shared.clone();
        std::thread::spawn(move || crate::diagnostics::report_progress(&shared, token));
    }
}

fn cancelled(id: RequestId, by_client: bool) -> Response {
    if by_client {
        Response::new_err(id, ErrorCode::RequestCanceled as i32, "request cancelled".into())
    } else {
        Response::new_err(
            id,
            ErrorCode::ContentModified as i32,
            "content modified; the request was cancelled".into(),
        )
    }
}

fn spawn_worker(rx: Receiver<Job>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        for job in rx {
            // A panicking job (outside a request's own guard) must not kill the worker.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job));
        }
    })
}
