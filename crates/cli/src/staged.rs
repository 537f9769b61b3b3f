//! `docforge validate --staged`: the project as the Git index holds it (what `git commit`
//! records), copied out with Git plumbing into a private temporary directory. Git is run
//! directly, never through a shell; `GIT_INDEX_FILE` and the other variables Git sets for a
//! hook are honoured, so a hook sees the index of the commit being made.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The staged copy of a project: its root inside a temporary directory removed on drop.
pub struct Staged {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
}

fn git(cwd: &Path, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git")
        .current_dir(cwd)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("--staged needs git: {e}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(format!("git {}: {}", args[0], said.lines().next().unwrap_or("failed").trim()));
    }
    Ok(out.stdout)
}

/// Copy the staged content of `root` (a directory inside a Git work tree) out.
pub fn checkout(root: &Path) -> Result<Staged, String> {
    let prefix = String::from_utf8_lossy(&git(root, &["rev-parse", "--show-prefix"])?).trim().to_string();
    if !git(root, &["ls-files", "-z", "--unmerged", "--", "."])?.is_empty() {
        return Err(
            "the Git index has unmerged paths: resolve them before validating the staged content".into()
        );
    }
    let paths = git(root, &["ls-files", "-z", "--cached", "--", "."])?;
    let dir = tempfile::Builder::new()
        .prefix("docforge-staged-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let mut target = dir.path().as_os_str().to_os_string();
    target.push("/");
    let mut child = Command::new("git")
        .current_dir(root)
        .arg("checkout-index")
        .args(["-z", "--stdin", "-f"])
        .arg({
            let mut p = std::ffi::OsString::from("--prefix=");
            p.push(&target);
            p
        })
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("--staged needs git: {e}"))?;
    child.stdin.take().expect("piped").write_all(&paths).map_err(|e| format!("git checkout-index: {e}"))?;
    let out = child.wait_with_output().map_err(|e| format!("git checkout-index: {e}"))?;
    if !out.status.success() {
        let said = String::from_utf8_lossy(&out.stderr);
        return Err(format!("git checkout-index: {}", said.lines().next().unwrap_or("failed").trim()));
    }
    let root = dir.path().join(prefix.trim_end_matches('/'));
    std::fs::create_dir_all(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    Ok(Staged { _dir: dir, root })
}
