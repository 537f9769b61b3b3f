//! Helpers shared by the gograph conformance tests: fixture copies, running the binary,
//! checking the protocol of every validate run.
#![allow(dead_code)]

use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn gograph() -> Command {
    Command::new(env!("CARGO_BIN_EXE_gograph"))
}

pub fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/validate/mod");
    let ok =
        Command::new("cp").arg("-r").arg(format!("{}/.", src.display())).arg(dir.path()).status().unwrap();
    assert!(ok.success());
    dir
}

pub fn build(root: &Path, extra: &[&str]) -> Output {
    let out = gograph().arg("build").arg("--repo").arg(root).args(extra).output().unwrap();
    assert!(out.status.success(), "build: {}", String::from_utf8_lossy(&out.stderr));
    out
}

pub fn built() -> tempfile::TempDir {
    let dir = fixture();
    build(dir.path(), &[]);
    dir
}

pub fn binding(predicate: &str, subject: &str, object: Option<&str>, precision: &str) -> String {
    let kind = if predicate == "package_imports" { "package" } else { "symbol" };
    let r = |id: &str| format!(r#"{{"language":"go","kind":"{kind}","id":"{id}"}}"#);
    let object = object.map(|o| format!(r#","object":{}"#, r(o))).unwrap_or_default();
    format!(
        r#"{{"schema_version":"gograph.binding.v1","predicate":"{predicate}","subject":{}{object},"required_precision":"{precision}"}}"#,
        r(subject)
    )
}

pub fn exists(id: &str) -> String {
    binding("symbol_exists", id, None, "ast")
}

/// Run validate; check the protocol (one JSON document on stdout, nothing on stderr, the
/// exit code that matches the outcome) and return the document.
pub fn validate_raw(root: impl AsRef<OsStr>, binding: impl AsRef<OsStr>) -> Value {
    let out = gograph()
        .arg("validate")
        .arg("--repo")
        .arg(root)
        .arg("--binding-json")
        .arg(binding)
        .arg("--json")
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
    assert!(stdout.ends_with('\n') && stdout.trim_end().lines().count() == 1, "one document: {stdout:?}");
    assert!(out.stderr.is_empty(), "stderr: {}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_str(&stdout).expect("stdout is exactly one JSON document");
    let want = match doc["evaluation"]["outcome"].as_str().unwrap() {
        "pass" => 0,
        "fail" => 1,
        "cannot_evaluate" => 2,
        other => panic!("outcome {other}"),
    };
    assert_eq!(out.status.code(), Some(want), "{doc}");
    assert_eq!(doc["schema_version"], "gograph.validation.v1");
    doc
}

pub fn validate(root: &Path, binding: &str) -> Value {
    validate_raw(root, binding)
}

pub fn verdict(doc: &Value) -> (String, String) {
    let e = &doc["evaluation"];
    (e["outcome"].as_str().unwrap().to_string(), e["reason"].as_str().unwrap().to_string())
}

pub fn is(doc: &Value, outcome: &str, reason: &str) {
    assert_eq!(verdict(doc), (outcome.to_string(), reason.to_string()), "{doc:#}");
}

/// A change applied to a repository copy.
pub type Edit = Box<dyn Fn(&Path)>;

pub fn graph_path(root: &Path) -> PathBuf {
    root.join(".gograph/graph.json")
}

pub fn edit_graph(root: &Path, f: impl Fn(&mut Value)) {
    let mut v: Value = serde_json::from_slice(&fs::read(graph_path(root)).unwrap()).unwrap();
    f(&mut v);
    fs::write(graph_path(root), serde_json::to_vec(&v).unwrap()).unwrap();
}

pub fn tree(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let m = fs::symlink_metadata(&p).unwrap();
            if m.is_dir() {
                stack.push(p);
            } else if m.is_file() {
                out.push((p.clone(), fs::read(&p).unwrap()));
            } else {
                out.push((p, Vec::new()));
            }
        }
    }
    out.sort();
    out
}

pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}
