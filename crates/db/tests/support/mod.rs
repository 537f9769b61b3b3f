//! What the engine tests share: a small project on disk and a host with an execution log.

#![allow(dead_code)] // each test binary uses some of these

use docforge_db::{AnalysisHost, AstPolicy, Change, Content, FileChange};
use docforge_project::{FileKind, Project};
use std::fs;
use std::path::Path;

pub fn write(root: &Path, rel: &str, text: &[u8]) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

pub fn small_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "go.mod", b"module example.com/m\n\ngo 1.22\n");
    write(r, "a/a.go", b"package a\n\nfunc A() int { return B() }\n\nfunc B() int { return 1 }\n");
    write(r, "b/b.go", b"package b\n\nimport \"example.com/m/a\"\n\nfunc C() int { return a.A() }\n");
    write(r, "c/c.go", b"package c\n\nfunc D() {}\n");
    write(r, "docs/x.md", b"+++\nid = \"x\"\n+++\n# X\n\nSee [y](y.md) and [A](go:example.com/m/a::A).\n");
    write(r, "docs/y.md", b"# Y\n\nPlain.\n");
    dir
}

/// Set a file to `text` (as an editor or a watcher sends it), for a [`Change`].
pub fn set(rel: &str, kind: FileKind, text: &[u8]) -> FileChange {
    FileChange::Set { rel: rel.into(), kind, content: Content::Bytes(text.to_vec().into()) }
}

/// An editor change of one file, as one revision.
pub fn edit(h: &mut AnalysisHost, rel: &str, kind: FileKind, text: &[u8]) {
    h.apply_change(Change { files: vec![set(rel, kind, text)], ..Default::default() });
}

pub fn host(root: &Path, policy: AstPolicy) -> AnalysisHost {
    let mut h = AnalysisHost::with_execution_log(Project::load(root).unwrap(), policy);
    h.sync_from_disk();
    h
}

/// The queries the host ran since the log was last taken (validations left out).
pub fn executed(h: &AnalysisHost) -> Vec<String> {
    h.execution_log().take().into_iter().filter(|e| !e.starts_with("validated ")).collect()
}

/// Every owner's fragment (nodes, edges, Logic rows, diagnostics), for whole-graph equality.
pub fn owners(h: &AnalysisHost) -> Vec<(String, String)> {
    let g = h.analysis().graph().unwrap();
    g.owners().map(|o| (o.key.to_string(), format!("{:?}", o.fragment))).collect()
}
