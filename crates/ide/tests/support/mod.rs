//! What the `docforge_ide` tests share: the shop fixture analysed as the LSP analyses it
//! (precise, no Go installation), positions by needle, and compact renderings of answers.
#![allow(dead_code)] // each test binary uses some of these

use docforge_db::{Analysis, AnalysisHost, AstPolicy};
use docforge_ide::{FilePosition, FileRange, FileRef, NavigationTarget};
use docforge_project::Project;
use std::path::Path;

/// The shop fixture, read from disk (nothing is written).
pub fn shop() -> AnalysisHost {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shop");
    let mut host = AnalysisHost::new(Project::load(&root).unwrap(), AstPolicy::Allow);
    host.set_precise(true);
    host.set_logic(false);
    host.set_goroot(None);
    host.set_module_cache(None);
    host.sync_from_disk();
    host
}

/// The position `skip` bytes after the first occurrence of `needle` in `path`.
pub fn pos(a: &Analysis, path: &str, needle: &str, skip: u32) -> FilePosition {
    let text = a.file_text(path).unwrap().unwrap_or_else(|| panic!("{path} is not loaded"));
    let text = String::from_utf8(text.to_vec()).unwrap();
    for (i, line) in text.split('\n').enumerate() {
        if let Some(b) = line.find(needle) {
            return FilePosition { path: path.to_string(), line: i as u32, column: b as u32 + skip };
        }
    }
    panic!("`{needle}` not in {path}")
}

/// `path:line:start-end` with a 1-based line and 0-based byte columns (as the LSP tests
/// write locations); a file outside the project as `<ext>path`.
pub fn range(r: &FileRange) -> String {
    let file = match &r.file {
        FileRef::Project(p) => p.clone(),
        FileRef::External { path, .. } => format!("<ext>{}", path.display()),
    };
    format!("{file}:{}:{}-{}", r.range.line + 1, r.range.start, r.range.end)
}

/// The range, then the node there (`id (kind)`) and its container, when there are.
pub fn target(t: &NavigationTarget) -> String {
    let mut s = range(&t.range);
    if let Some(n) = &t.node {
        s.push_str(&format!(" {} ({})", n.id, n.kind));
    }
    if let Some(c) = &t.container {
        s.push_str(&format!(" in {c}"));
    }
    s
}
