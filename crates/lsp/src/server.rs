//! The main loop: owns the folders' [`AnalysisHost`]s, applies edits, hands requests to
//! workers. Buffers, watched files and workspace folders are handled in `workspace.rs`.

use crate::convert::Encoding;
use crate::handlers::{self, Failure};
use crate::roots::{Folder, Root, Roots, Target};
use crate::Options;
use crossbeam::channel::{unbounded, Receiver, Sender};
use docforge_db::AnalysisHost;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::{InitializeParams, NumberOrString};
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

type Job = Box<dyn FnOnce() + Send>;

/// State the workers share with the main loop (the same for every folder).
pub(crate) struct Shared {
    pub enc: Encoding,
    pub go: bool,
    /// The process does not restrict the Go semantic layer (each folder's project decides
    /// whether it runs: `Folder::precise`).
    pub precise: bool,
    pub threads: usize,
    pub test_hooks: bool,
    pub sender: Sender<Message>,
    pub stopping: AtomicBool,
    /// Some folder's memory is to be trimmed as soon as no request runs.
    pub trim_due: AtomicBool,
    /// Wakes the main loop when a trim may be due.
    pub wake: Sender<()>,
    /// Held by a folder's first index: folders index one after another, each with every
    /// thread, and the request workers stay free.
    pub indexing: Mutex<()>,
}

pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub fn send(&self, msg: impl Into<Message>) {
        let _ = self.sender.send(msg.into());
    }
    pub fn notify<N: note::Notification>(&self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }
    /// Tell the user something did not work (a folder that cannot be served).
    pub fn warn(&self, message: String) {
        let params = lsp_types::ShowMessageParams { typ: lsp_types::MessageType::WARNING, message };
        self.notify::<note::ShowMessage>(params);
    }
}

#[derive(Default)]
struct Pending {
    cancelled: AtomicBool,
    started: AtomicBool,
    /// The roots of the folders it reads (a cancellation cancels their reads only).
    roots: Vec<PathBuf>,
}

/// An open buffer, by URI (its folder is found again whenever folders change).
pub(crate) struct Buffer {
    pub uri: lsp_types::Uri,
    pub text: String,
}

/// A folder added by the client, loaded on its own thread.
pub(crate) struct Loaded {
    pub named: PathBuf,
    pub host: Result<AnalysisHost, String>,
}

pub(crate) struct Server {
    conn: Connection,
    pub(crate) shared: Arc<Shared>,
    pub(crate) roots: Roots,
    pub(crate) opts: Options,
    jobs: Option<Sender<Job>>,
    woken: Receiver<()>,
    pub(crate) loaded: (Sender<Loaded>, Receiver<Loaded>),
    /// Folders being loaded (a removal before the load ends drops the result).
    pub(crate) loading: HashSet<PathBuf>,
    workers: Vec<std::thread::JoinHandle<()>>,
    pending: Arc<Mutex<HashMap<RequestId, Arc<Pending>>>>,
    pub(crate) open: HashMap<String, Buffer>,
    shutdown: bool,
    work_done: bool,
    watch_dynamic: bool,
    /// Numbers the folders' progress tokens.
    tokens: AtomicUsize,
}

impl Server {
    pub fn new(
        conn: Connection,
        hosts: Vec<(PathBuf, AnalysisHost)>,
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
            enc,
            go: !opts.no_ast,
            precise: !opts.no_ast && !opts.no_precise,
            threads,
            test_hooks: opts.test_hooks || std::env::var_os(crate::TEST_HOOKS_ENV).is_some_and(|v| v == "1"),
            sender: conn.sender.clone(),
            stopping: AtomicBool::new(false),
            trim_due: AtomicBool::new(false),
            wake,
            indexing: Mutex::new(()),
        });
        let (tx, rx) = unbounded::<Job>();
        let workers = (0..threads).map(|_| spawn_worker(rx.clone())).collect();
        let mut server = Server {
            conn,
            shared,
            roots: Roots::default(),
            opts: opts.clone(),
            jobs: Some(tx),
            woken,
            loaded: unbounded(),
            loading: HashSet::new(),
            workers,
            pending: Default::default(),
            open: HashMap::new(),
            shutdown: false,
            work_done,
            watch_dynamic,
            tokens: AtomicUsize::new(0),
        };
        for (named, host) in hosts {
            let root = server.new_root(named, host);
            server.roots.insert(root, |_, _| {});
        }
        server
    }

    /// A served folder for a loaded host (its progress token numbered in order).
    pub(crate) fn new_root(&self, named: PathBuf, host: AnalysisHost) -> Root {
        let n = self.tokens.fetch_add(1, Ordering::SeqCst);
        let token = if n == 0 { "docforge/index".to_string() } else { format!("docforge/index/{n}") };
        Root::new(named, host, token, self.opts.execution_log)
    }

    pub fn run(mut self) -> Result<(), String> {
        self.register_watcher();
        // Each folder starts indexing as soon as it is read (the next one is read meanwhile).
        for i in 0..self.roots.list.len() {
            self.roots.list[i].mutate(|host| {
                host.sync_from_disk();
            });
            let folder = self.roots.list[i].folder.clone();
            self.start_progress(&folder);
            self.schedule_dirty();
        }
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
                recv(self.loaded.1) -> loaded => {
                    if let Ok(loaded) = loaded {
                        self.install(loaded);
                        self.schedule_dirty();
                    }
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
            self.schedule_dirty();
        }
        Ok(())
    }

    /// Once per folder, after its first index: let the engine drop what it kept only
    /// because the cold analysis ran in one revision (every file's parse values). A write
    /// cancels running reads, so it waits until no request runs (only this loop starts
    /// requests). Diagnostics are then re-verified, which touches no file.
    fn trim_after_index(&mut self) {
        if self.shared.trim_due.load(Ordering::SeqCst) && lock(&self.pending).is_empty() {
            self.shared.trim_due.store(false, Ordering::SeqCst);
            for root in &mut self.roots.list {
                if root.folder.trim_due.swap(false, Ordering::SeqCst) {
                    root.mutate(AnalysisHost::trim_memory);
                }
            }
            self.schedule_dirty();
        }
    }

    /// Handle one message; `Ok(true)` on `exit`.
    fn handle(&mut self, msg: Message) -> Result<bool, String> {
        match msg {
            Message::Request(req) => self.on_request(req),
            Message::Notification(n) if n.method == note::Exit::METHOD => return Ok(true),
            Message::Notification(n) if n.method == note::Cancel::METHOD => self.on_cancel(n),
            Message::Notification(n) => self.on_notification(n),
            Message::Response(_) => {}
        }
        Ok(false)
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
        if !handlers::supports(&self.shared, &req.method) {
            let message = format!("unsupported request {}", req.method);
            return self.shared.send(Response::new_err(req.id, ErrorCode::MethodNotFound as i32, message));
        }
        let folders = match self.roots.target(&req.method, &req.params) {
            Target::Folders(folders) => folders,
            // A document outside every folder: nothing to say about it.
            Target::Nowhere => return self.shared.send(Response::new_ok(req.id, ())),
        };
        let roots = folders.iter().map(|f| f.root.clone()).collect();
        let state = Arc::new(Pending { roots, ..Default::default() });
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
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                handlers::dispatch_all(&shared, &folders, &method, params)
            }));
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

    /// `$/cancelRequest`: a request not started yet answers `RequestCancelled`; a running
    /// one is cancelled through salsa, which cancels every running read of its folders
    /// (and only of those).
    fn on_cancel(&mut self, n: Notification) {
        let Ok(p) = serde_json::from_value::<lsp_types::CancelParams>(n.params) else { return };
        let id: RequestId = match p.id {
            NumberOrString::Number(i) => i.into(),
            NumberOrString::String(s) => s.into(),
        };
        let Some(state) = lock(&self.pending).get(&id).cloned() else { return };
        state.cancelled.store(true, Ordering::SeqCst);
        if state.started.load(Ordering::SeqCst) {
            for root in &mut self.roots.list {
                if state.roots.contains(&root.folder.root) {
                    // A diagnostics run may be cancelled with it: `mutate` marks it dirty.
                    root.mutate(AnalysisHost::request_cancellation);
                }
            }
        }
    }

    /// Schedule the diagnostics of every folder that changed.
    pub(crate) fn schedule_dirty(&mut self) {
        for root in &mut self.roots.list {
            if std::mem::take(&mut root.dirty) {
                schedule_diagnostics(&self.shared, &root.folder, self.jobs.as_ref());
            }
        }
    }

    /// File watching, when the client supports its dynamic registration.
    fn register_watcher(&self) {
        if !self.watch_dynamic {
            return;
        }
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

    /// `$/progress` for a folder's first index, when the client supports it.
    pub(crate) fn start_progress(&self, folder: &Arc<Folder>) {
        if !self.work_done {
            return;
        }
        let token = NumberOrString::String(folder.token.clone());
        let create = lsp_types::WorkDoneProgressCreateParams { token: token.clone() };
        self.shared.send(Request::new(
            format!("{}-create", folder.token).into(),
            "window/workDoneProgress/create".into(),
            create,
        ));
        let (shared, folder) = (self.shared.clone(), folder.clone());
        std::thread::spawn(move || crate::diagnostics::report_progress(&shared, &folder, token));
    }
}

/// Queue a diagnostics run for a folder unless one is already waiting (it will see the
/// latest revision). Before its first index is done the run indexes: it gets a thread of
/// its own, so the request workers stay free.
fn schedule_diagnostics(shared: &Arc<Shared>, folder: &Arc<Folder>, jobs: Option<&Sender<Job>>) {
    if folder.diagnostics.queued.swap(true, Ordering::SeqCst) {
        return;
    }
    let (shared, folder) = (shared.clone(), folder.clone());
    let indexed = folder.indexed.load(Ordering::SeqCst);
    let job: Job = Box::new(move || crate::diagnostics::publish(&shared, &folder));
    match jobs {
        Some(jobs) if indexed => {
            let _ = jobs.send(job);
        }
        Some(_) => {
            std::thread::spawn(job);
        }
        None => {}
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
