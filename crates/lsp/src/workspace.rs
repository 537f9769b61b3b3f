//! Edits and the workspace's shape: open buffers (`didOpen`/`didChange`/`didClose`), files
//! changed on disk (`didChangeWatchedFiles`) and workspace folders added or removed
//! (`didChangeWorkspaceFolders`). An edit goes to the folder that owns the file only, so it
//! never cancels or re-runs another folder's analysis.

use crate::convert;
use crate::roots::Root;
use crate::server::{lock, Buffer, Loaded, Server};
use docforge_db::{Change, Content, FileChange};
use lsp_server::Notification;
use lsp_types::notification::{self as note, Notification as _};
use lsp_types::{
    DidChangeTextDocumentParams, DidChangeWatchedFilesParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, WorkspaceFolder,
};
use std::collections::BTreeSet;
use std::path::PathBuf;

impl Server {
    pub(crate) fn on_notification(&mut self, n: Notification) {
        match n.method.as_str() {
            note::DidOpenTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidOpenTextDocumentParams>(n.params) else { return };
                let uri = p.text_document.uri;
                let key = uri.as_str().to_string();
                let owner = self.roots.route(&uri);
                self.open.insert(key.clone(), Buffer { uri, text: p.text_document.text });
                if let Some((i, rel)) = owner {
                    self.push_buffer(i, &rel, &key, true);
                }
            }
            note::DidChangeTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidChangeTextDocumentParams>(n.params) else { return };
                let key = p.text_document.uri.as_str();
                let Some(buffer) = self.open.get_mut(key) else { return };
                let text = &mut buffer.text;
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
                if let Some((i, rel)) = self.roots.route(&p.text_document.uri) {
                    self.push_buffer(i, &rel, key, false);
                }
            }
            note::DidCloseTextDocument::METHOD => {
                let Ok(p) = serde_json::from_value::<DidCloseTextDocumentParams>(n.params) else { return };
                if self.open.remove(p.text_document.uri.as_str()).is_some() {
                    if let Some((i, rel)) = self.roots.route(&p.text_document.uri) {
                        self.reload_file(i, &rel);
                    }
                }
            }
            note::DidChangeWatchedFiles::METHOD => {
                // Each folder holding a changed file re-syncs once (all of them when the
                // notification does not say which files changed).
                let changed: BTreeSet<usize> =
                    match serde_json::from_value::<DidChangeWatchedFilesParams>(n.params) {
                        Ok(p) => p
                            .changes
                            .iter()
                            .filter_map(|c| self.roots.route(&c.uri))
                            .map(|(i, _)| i)
                            .collect(),
                        Err(_) => (0..self.roots.list.len()).collect(),
                    };
                for i in changed {
                    self.reload_from_disk(i);
                }
            }
            // An explicit `--project-root` is the only folder served.
            note::DidChangeWorkspaceFolders::METHOD if self.opts.project_root.is_none() => {
                // Each folder on its own: Neovim 0.7 sends `[{}]` for the empty side.
                let folders = |side: &str| -> Vec<PathBuf> {
                    let list = n.params["event"][side].as_array().cloned().unwrap_or_default();
                    list.into_iter()
                        .filter_map(|f| serde_json::from_value::<WorkspaceFolder>(f).ok())
                        .filter_map(|f| convert::uri_path(&f.uri))
                        .collect()
                };
                self.folders_changed(folders("added"), folders("removed"));
            }
            _ => {}
        }
    }

    /// Send an open buffer (`key`: its URI) to folder `i` (files the project does not select
    /// are ignored; a file new on disk is picked up by a sync when it is opened, never per
    /// keystroke).
    fn push_buffer(&mut self, i: usize, rel: &str, key: &str, opened: bool) {
        let root = &mut self.roots.list[i];
        let kind = |r: &Root| r.folder.analysis().and_then(|a| a.file_kind(rel).ok().flatten());
        let mut known = kind(root);
        if known.is_none() && opened && root.folder.root.join(rel).is_file() {
            root.mutate(|host| {
                host.sync_from_disk();
            });
            known = kind(root);
        }
        let (Some(kind), Some(buffer)) = (known, self.open.get(key)) else { return };
        if opened {
            // Opening a file the engine already holds with these very bytes changes nothing:
            // no new revision, so the reads in flight go on, and the file keeps the
            // durability it was loaded with until it is edited (lowering it costs one
            // re-execution of what depends on it, up to seconds on a large precise workspace,
            // which a definition jump into another file would otherwise pay each time).
            let same = root.folder.analysis().and_then(|a| a.file_text(rel).ok().flatten());
            if same.is_some_and(|b| *b == *buffer.text.as_bytes()) {
                return;
            }
        }
        let content = Content::Bytes(buffer.text.clone().into_bytes().into());
        let change = Change {
            files: vec![FileChange::Set { rel: rel.to_string(), kind, content }],
            ..Default::default()
        };
        lock(&root.folder.diagnostics.edited).insert(rel.to_string());
        root.mutate(|host| host.apply_change(change));
    }

    /// A closed buffer: the engine goes back to the file on disk (one confined read; a
    /// file that is gone, or was never loaded, takes a full sync).
    fn reload_file(&mut self, i: usize, rel: &str) {
        let root = &mut self.roots.list[i];
        let kind = root.folder.analysis().and_then(|a| a.file_kind(rel).ok().flatten());
        let limit = root.host.project().config.limits.max_file_bytes;
        match (kind, docforge_project::read_source(&root.folder.root, rel, limit)) {
            (Some(kind), Ok(bytes)) => {
                let set =
                    FileChange::Set { rel: rel.to_string(), kind, content: Content::Bytes(bytes.into()) };
                root.mutate(|host| host.apply_change(Change { files: vec![set], ..Default::default() }));
            }
            _ => self.reload_from_disk(i),
        }
    }

    /// Edits made outside the editor: re-walk folder `i`, then put its open buffers back on
    /// top (the editor's text wins for open files).
    fn reload_from_disk(&mut self, i: usize) {
        self.roots.list[i].mutate(|host| {
            host.sync_from_disk();
        });
        self.adopt_buffers(i);
    }

    /// Apply the open buffers that folder `i` owns.
    fn adopt_buffers(&mut self, i: usize) {
        let mine: Vec<(String, String)> = self
            .open
            .values()
            .filter_map(|b| match self.roots.route(&b.uri) {
                Some((j, rel)) if j == i => Some((rel, b.text.clone())),
                _ => None,
            })
            .collect();
        let root = &mut self.roots.list[i];
        let kinds: Vec<_> = {
            let a = root.folder.analysis();
            mine.iter().map(|(rel, _)| a.as_ref().and_then(|a| a.file_kind(rel).ok().flatten())).collect()
        };
        let files: Vec<FileChange> = mine
            .into_iter()
            .zip(kinds)
            .filter_map(|((rel, text), kind)| {
                Some(FileChange::Set { rel, kind: kind?, content: Content::Bytes(text.into_bytes().into()) })
            })
            .collect();
        if !files.is_empty() {
            root.mutate(|host| host.apply_change(Change { files, ..Default::default() }));
        }
    }

    /// Removed folders are dropped now; added ones load on a thread of their own and join
    /// when their files are read ([`Server::install`]), then index like the first.
    fn folders_changed(&mut self, added: Vec<PathBuf>, removed: Vec<PathBuf>) {
        for path in removed {
            if self.loading.remove(&path) {
                continue;
            }
            if let Some(i) = self.roots.position(&path) {
                if self.roots.forget_name(i, &path) {
                    self.remove_folder(i);
                }
            }
        }
        for named in added {
            if let Some(i) = self.roots.position(&named) {
                // Served already (under another name, if this one is a symlink to it).
                let root = self.roots.list[i].folder.root.clone();
                self.roots.add_alias(&root, named);
                continue;
            }
            if !self.loading.insert(named.clone()) {
                continue;
            }
            let (tx, opts) = (self.loaded.0.clone(), self.opts.clone());
            std::thread::spawn(move || {
                let host = crate::roots::load(&named, &opts).map(|mut host| {
                    host.sync_from_disk();
                    host
                });
                let _ = tx.send(Loaded { named, host });
            });
        }
    }

    /// A folder whose files have been read joins the workspace (unless it was removed
    /// meanwhile or its project is served already).
    pub(crate) fn install(&mut self, loaded: Loaded) {
        if !self.loading.remove(&loaded.named) {
            return;
        }
        let host = match loaded.host {
            Ok(host) => host,
            Err(message) => return self.shared.warn(message),
        };
        if self.roots.list.iter().any(|r| r.folder.root == host.project().root) {
            // Another name of a folder served already (a symlink to it).
            return self.roots.add_alias(&host.project().root.clone(), loaded.named);
        }
        let mut root = self.new_root(loaded.named, host);
        root.dirty = true;
        let folder = root.folder.clone();
        let shared = self.shared.clone();
        self.roots.insert(root, |outer, rel| crate::diagnostics::clear(&shared, outer, Some(rel)));
        self.adopt_buffers(self.roots.list.len() - 1);
        self.start_progress(&folder);
    }

    /// Drop folder `i`: clear the diagnostics it published; its open buffers go to the
    /// folder that holds them now, if any.
    fn remove_folder(&mut self, i: usize) {
        let moved: Vec<String> = self
            .open
            .iter()
            .filter(|(_, b)| self.roots.route(&b.uri).is_some_and(|(j, _)| j == i))
            .map(|(key, _)| key.clone())
            .collect();
        let gone = self.roots.remove(i);
        crate::diagnostics::clear(&self.shared, &gone.folder, None);
        drop(gone);
        for key in moved {
            if let Some((j, rel)) = self.roots.route_str(&key) {
                self.push_buffer(j, &rel, &key, false);
            }
        }
    }
}
