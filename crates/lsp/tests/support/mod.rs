//! A minimal LSP client driving `docforge_lsp::serve` over an in-memory connection, on a
//! fresh copy of `fixtures/shop`.
#![allow(dead_code)]

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::Duration;

pub struct Client {
    conn: Option<Connection>,
    server: Option<JoinHandle<Result<(), String>>>,
    next: i32,
    /// Notifications received so far and not yet taken.
    pub notes: Vec<Notification>,
    pub init: Value,
    pub root: PathBuf,
    _dir: tempfile::TempDir,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

pub fn fixture() -> PathBuf {
    fixture_named("shop")
}

pub fn fixture_named(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(name)
}

pub fn opts() -> docforge_lsp::Options {
    // Hermetic: the machine's Go installation and module cache are not read (tests that
    // want one give it).
    let (goroot, gomodcache) = (docforge_lsp::GoDir::Off, docforge_lsp::GoDir::Off);
    docforge_lsp::Options { test_hooks: true, threads: Some(2), goroot, gomodcache, ..Default::default() }
}

impl Client {
    /// Start a server on a copy of the shop fixture and complete the handshake.
    pub fn start(opts: docforge_lsp::Options, capabilities: Value) -> Client {
        Client::start_prepared(opts, capabilities, |_| {})
    }

    /// [`Client::start`] after `prepare` changed the copy (its root is given).
    pub fn start_prepared(
        opts: docforge_lsp::Options,
        capabilities: Value,
        prepare: impl FnOnce(&Path),
    ) -> Client {
        let dir = tempfile::tempdir().unwrap();
        copy_dir(&fixture(), &dir.path().join("shop"));
        let root = dir.path().join("shop").canonicalize().unwrap();
        prepare(&root);
        let mut c = Client::launch(opts, dir, root);
        let root_uri = c.uri("");
        let init = json!({"processId": null, "rootUri": root_uri.trim_end_matches('/'), "capabilities": capabilities});
        c.initialize(init);
        c
    }

    /// Start a server on copies of `fixtures` (each in a directory of its name) with the
    /// workspace `folders` (paths relative to the copies' parent, which is [`Client::root`]).
    pub fn start_workspace(
        opts: docforge_lsp::Options,
        capabilities: Value,
        fixtures: &[&str],
        folders: &[&str],
    ) -> Client {
        Client::start_rooted(opts, capabilities, fixtures, folders, None)
    }

    /// [`Client::start_workspace`], with `--project-root` set to `project_root` (relative to
    /// the copies' parent) when given.
    pub fn start_rooted(
        mut opts: docforge_lsp::Options,
        capabilities: Value,
        fixtures: &[&str],
        folders: &[&str],
        project_root: Option<&str>,
    ) -> Client {
        let dir = tempfile::tempdir().unwrap();
        for name in fixtures {
            copy_dir(&fixture_named(name), &dir.path().join(name));
        }
        let root = dir.path().canonicalize().unwrap();
        if let Some(explicit) = project_root {
            opts.project_root = Some(root.join(explicit));
        }
        let mut c = Client::launch(opts, dir, root);
        let folders: Vec<Value> = folders.iter().map(|f| c.folder(f)).collect();
        c.initialize(json!({
            "processId": null,
            "rootUri": folders[0]["uri"],
            "workspaceFolders": folders,
            "capabilities": capabilities,
        }));
        c
    }

    fn launch(opts: docforge_lsp::Options, dir: tempfile::TempDir, root: PathBuf) -> Client {
        let (server, conn) = Connection::memory();
        let handle = std::thread::spawn(move || docforge_lsp::serve(server, opts));
        Client {
            conn: Some(conn),
            server: Some(handle),
            next: 0,
            notes: Vec::new(),
            init: Value::Null,
            root,
            _dir: dir,
        }
    }

    fn initialize(&mut self, params: Value) {
        let init = self.request("initialize", params);
        self.init = init.result().expect("initialize succeeds");
        self.notify("initialized", json!({}));
    }

    /// A `WorkspaceFolder` for a directory relative to [`Client::root`].
    pub fn folder(&self, rel: &str) -> Value {
        json!({"uri": self.uri(rel).trim_end_matches('/'), "name": rel})
    }

    pub fn conn(&self) -> &Connection {
        self.conn.as_ref().unwrap()
    }

    pub fn uri(&self, rel: &str) -> String {
        format!("file://{}/{rel}", self.root.display())
    }

    pub fn notify(&self, method: &str, params: Value) {
        self.conn().sender.send(Notification::new(method.into(), params).into()).unwrap();
    }

    /// Send a request and return its id without waiting.
    pub fn send(&mut self, method: &str, params: Value) -> RequestId {
        self.next += 1;
        let id: RequestId = self.next.into();
        self.conn().sender.send(Request::new(id.clone(), method.into(), params).into()).unwrap();
        id
    }

    pub fn response(&mut self, id: RequestId) -> Response {
        loop {
            match self.recv() {
                Message::Response(r) if r.id == id => return r,
                Message::Response(_) => {}
                Message::Notification(n) => self.notes.push(n),
                Message::Request(r) => self.answer(r),
            }
        }
    }

    fn recv(&self) -> Message {
        self.conn().receiver.recv_timeout(Duration::from_secs(60)).expect("the server answers within 60 s")
    }

    fn answer(&self, r: Request) {
        self.conn().sender.send(Response::new_ok(r.id, Value::Null).into()).unwrap();
    }

    pub fn request(&mut self, method: &str, params: Value) -> Response {
        let id = self.send(method, params);
        self.response(id)
    }

    /// The result of a request that must succeed.
    pub fn ok(&mut self, method: &str, params: Value) -> Value {
        let r = self.request(method, params);
        match r.error() {
            Some(e) => panic!("{method} failed: {} {}", e.code, e.message),
            None => r.result().unwrap_or(Value::Null),
        }
    }

    /// The Markdown of the hover card at `at`, which must have one.
    pub fn hover_card(&mut self, at: Value) -> String {
        let hover = self.ok("textDocument/hover", at);
        hover["contents"]["value"].as_str().expect("a hover card").to_string()
    }

    /// Wait for a notification matching `pred` (taking it and everything before it).
    pub fn wait_note(&mut self, pred: impl Fn(&Notification) -> bool) -> Notification {
        match self.notes.iter().position(&pred) {
            Some(i) => self.notes.drain(..=i).next_back().unwrap(),
            None => self.receive_note(pred),
        }
    }

    /// Take the first notification matching `pred`, leaving the others (in order).
    pub fn take_note(&mut self, pred: impl Fn(&Notification) -> bool) -> Notification {
        match self.notes.iter().position(&pred) {
            Some(i) => self.notes.remove(i),
            None => self.receive_note(pred),
        }
    }

    /// Receive until a notification matches `pred`, keeping the others.
    fn receive_note(&mut self, pred: impl Fn(&Notification) -> bool) -> Notification {
        loop {
            match self.recv() {
                Message::Notification(n) if pred(&n) => return n,
                Message::Notification(n) => self.notes.push(n),
                Message::Request(r) => self.answer(r),
                Message::Response(_) => {}
            }
        }
    }

    /// The oldest diagnostics publication for `rel` not taken yet (every publication for a
    /// file is seen, in order, whatever else arrives between them).
    pub fn take_diagnostics(&mut self, rel: &str) -> Vec<Value> {
        let uri = self.uri(rel);
        diagnostics_of(self.take_note(|n| publishes(n, &uri)))
    }

    /// The next diagnostics published for `rel`.
    pub fn diagnostics(&mut self, rel: &str) -> Vec<Value> {
        let uri = self.uri(rel);
        diagnostics_of(self.wait_note(|n| publishes(n, &uri)))
    }

    pub fn open(&mut self, rel: &str) -> String {
        let text = std::fs::read_to_string(self.root.join(rel)).unwrap();
        let lang = if rel.ends_with(".go") { "go" } else { "markdown" };
        let uri = self.uri(rel);
        self.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": uri, "languageId": lang, "version": 1, "text": text}}),
        );
        text
    }

    /// Replace one range of an open document (LSP positions).
    pub fn edit(&mut self, rel: &str, version: i32, range: [u32; 4], text: &str) {
        let uri = self.uri(rel);
        let [l0, c0, l1, c1] = range;
        self.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{
                "range": {"start": {"line": l0, "character": c0}, "end": {"line": l1, "character": c1}},
                "text": text}]}),
        );
    }

    /// Position of the first occurrence of `needle` in a file (LSP, UTF-16), plus `skip`
    /// characters.
    pub fn pos(&self, rel: &str, needle: &str, skip: u32) -> Value {
        let text = std::fs::read_to_string(self.root.join(rel)).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some(b) = line.find(needle) {
                let ch = line[..b].encode_utf16().count() as u32 + skip;
                return json!({"textDocument": {"uri": self.uri(rel)}, "position": {"line": i, "character": ch}});
            }
        }
        panic!("`{needle}` not in {rel}")
    }

    /// Compact `path:line:col-col` of an LSP location (relative to the root).
    pub fn loc(&self, v: &Value) -> String {
        let uri = v["uri"].as_str().or(v["targetUri"].as_str()).unwrap_or("");
        let r = if v["range"].is_object() { &v["range"] } else { &v["targetSelectionRange"] };
        let path = uri.strip_prefix(&self.uri("")).unwrap_or(uri);
        format!(
            "{path}:{}:{}-{}",
            r["start"]["line"].as_u64().unwrap() + 1,
            r["start"]["character"],
            r["end"]["character"]
        )
    }

    /// `shutdown` then `exit`; the server thread must return `Ok`.
    pub fn shutdown(mut self) {
        let r = self.request("shutdown", Value::Null);
        assert!(r.error().is_none(), "shutdown answers null");
        self.notify("exit", Value::Null);
        drop(self.conn.take());
        let result = self.server.take().unwrap().join().expect("server thread does not panic");
        assert_eq!(result, Ok(()));
    }
}

fn publishes(n: &Notification, uri: &str) -> bool {
    n.method == "textDocument/publishDiagnostics" && n.params["uri"] == uri
}

fn diagnostics_of(n: Notification) -> Vec<Value> {
    n.params["diagnostics"].as_array().cloned().unwrap_or_default()
}

pub trait ResponseExt {
    fn error(&self) -> Option<lsp_server::ResponseError>;
    fn result(&self) -> Option<Value>;
}

impl ResponseExt for Response {
    fn error(&self) -> Option<lsp_server::ResponseError> {
        self.response_result.clone().err()
    }
    fn result(&self) -> Option<Value> {
        self.response_result.clone().ok()
    }
}
