//! The Go files of a directory tree, and the installed Go's `GOROOT`, for tests that read
//! real Go code.

use std::path::{Path, PathBuf};

/// `$(go env GOROOT)` when `go` is installed and has a `src` directory.
pub fn goroot() -> Option<PathBuf> {
    let out = std::process::Command::new("go").args(["env", "GOROOT"]).output().ok()?;
    let root = String::from_utf8(out.stdout).ok()?;
    Some(PathBuf::from(root.trim())).filter(|r| out.status.success() && r.join("src").is_dir())
}

/// Every `.go` file under `dir`, in path order.
pub fn go_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        match e.file_type() {
            Ok(t) if t.is_dir() => go_files(&e.path(), out),
            Ok(t) if t.is_file() && e.file_name().to_string_lossy().ends_with(".go") => out.push(e.path()),
            _ => {}
        }
    }
}
