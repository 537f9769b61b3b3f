//! What the tests of the `docforge` binary on fixtures/shop share: a fresh copy of the
//! fixture, running the binary on it, and reading what it answers.

#![allow(dead_code)] // each test binary uses some of these

use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

pub fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_docforge")
}

/// A copy of fixtures/shop without derived state (no index, no rendered views).
pub fn shop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shop");
    let status =
        Command::new("cp").arg("-r").arg(format!("{}/.", src.display())).arg(dir.path()).status().unwrap();
    assert!(status.success());
    for derived in [".docforge", "site"] {
        let _ = std::fs::remove_dir_all(dir.path().join(derived));
    }
    dir
}

/// `docforge --project-root ROOT ARGS…`.
pub fn run(root: &Path, args: &[&str]) -> Output {
    Command::new(bin()).arg("--project-root").arg(root).args(args).output().unwrap()
}

/// The one JSON document a successful command printed.
pub fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "exit {:?}, stderr {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("stdout is one JSON document")
}

/// Exit `code`, exactly one line on stderr (returned as printed), nothing on stdout.
pub fn one_line_error(out: &Output, code: i32) -> String {
    assert_eq!(out.status.code(), Some(code), "stderr {}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8(out.stderr.clone()).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "one line on stderr: {err:?}");
    assert!(out.stdout.is_empty(), "nothing on stdout: {:?}", String::from_utf8_lossy(&out.stdout));
    err
}
