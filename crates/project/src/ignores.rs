//! The ignore files (`.gitignore`, `.ignore`, Git's `info/exclude`) as they apply to
//! documents. Go-side files never consult them: the go command compiles a `.go` file whatever
//! Git ignores, so the Go selection follows the Go build.
//!
//! The rules are Git's, as the `ignore` crate's walker applies them without a Git repository
//! being required: per directory, `info/exclude` (where the directory holds a `.git`), then
//! `.gitignore`, then `.ignore`, later files and later lines taking precedence, deeper
//! directories over shallower ones; nothing inside an ignored directory is re-included.

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use ignore::Match;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// The largest ignore file read (16 MiB): a larger one is a scanner error.
const IGNORE_MAX_BYTES: u64 = 16 << 20;

#[derive(Default)]
pub(crate) struct DocIgnores {
    /// Per directory the walk entered (`""`: the root): its own rules, and whether it is
    /// ignored itself.
    dirs: HashMap<String, Dir>,
}

struct Dir {
    rules: Option<Gitignore>,
    ignored: bool,
}

fn parent(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(p, _)| p)
}

impl DocIgnores {
    /// Read the rules of directory `rel` (its parent entered before). Problems reading or
    /// parsing an ignore file are returned as (path, message): scanner errors.
    pub(crate) fn enter(&mut self, root: &Path, rel: &str) -> Vec<(String, String)> {
        let ignored = !rel.is_empty() && self.ignored(root, rel, true);
        let abs = if rel.is_empty() { root.to_path_buf() } else { root.join(rel) };
        let mut errors = Vec::new();
        let mut builder = GitignoreBuilder::new(&abs);
        let mut any = false;
        let files = git_exclude(&abs).into_iter().chain([abs.join(".gitignore"), abs.join(".ignore")]);
        for file in files {
            if std::fs::symlink_metadata(&file).is_err() {
                continue;
            }
            any = true;
            let shown = || file.strip_prefix(root).unwrap_or(&file).display().to_string();
            // Never blocking on a FIFO or device named like an ignore file.
            match crate::read_regular_file(&file, IGNORE_MAX_BYTES) {
                Ok(bytes) => {
                    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
                    // Line by line, as the ignore crate reads a file: a line that is not UTF-8
                    // or not a valid pattern is an error naming it, and is left out.
                    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
                        let line = line.strip_suffix(b"\r").unwrap_or(line);
                        let added =
                            std::str::from_utf8(line).map_err(|_| "not UTF-8".to_string()).and_then(|l| {
                                builder.add_line(Some(file.clone()), l).map(drop).map_err(|e| e.to_string())
                            });
                        if let Err(e) = added {
                            errors.push((shown(), format!("line {}: {e}", n + 1)));
                        }
                    }
                }
                Err(e) => errors.push((shown(), format!("cannot read: {e}"))),
            }
        }
        let rules = any.then(|| builder.build()).and_then(|r| match r {
            Ok(g) => Some(g),
            Err(e) => {
                errors.push((rel.to_string(), e.to_string()));
                None
            }
        });
        self.dirs.insert(rel.to_string(), Dir { rules, ignored });
        errors
    }

    /// Whether the ignore files exclude the entry `rel` (a directory when `is_dir`), whose
    /// directory was entered.
    pub(crate) fn ignored(&self, root: &Path, rel: &str, is_dir: bool) -> bool {
        let mut dir = parent(rel);
        if self.dirs.get(dir).is_some_and(|d| d.ignored) {
            return true;
        }
        let abs = root.join(rel);
        loop {
            if let Some(rules) = self.dirs.get(dir).and_then(|d| d.rules.as_ref()) {
                match rules.matched(&abs, is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
            if dir.is_empty() {
                return false;
            }
            dir = parent(dir);
        }
    }
}

/// Git's `info/exclude` for a directory holding a `.git` (a directory, or a worktree's
/// `gitdir:` file, whose exclude file lives in the common directory).
pub fn git_exclude(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git.join("info/exclude"));
    }
    let small =
        |p: &Path| crate::read_regular_file(p, 4096).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
    let text = small(&dot_git)?;
    let gitdir = dir.join(text.strip_prefix("gitdir:")?.trim());
    let common = match small(&gitdir.join("commondir")) {
        Some(c) => gitdir.join(c.trim()),
        None => gitdir,
    };
    Some(common.join("info/exclude"))
}
