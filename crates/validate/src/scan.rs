//! The fresh-source scan of a validation operation (made before and again after evaluation).
//!
//! The same inventory as the engine's [`docforge_db::go_inventory`] after a sync from disk,
//! computed by the same code without building an analysis database: the engine's walk
//! (`docforge_project::discover`), every Go-side file read through the confined reader
//! (`docforge_project::read_source`), the engine's classification
//! ([`GoInventory::add_loaded`]: `docforge_go::select_file` under the project's build context,
//! the engine's SHA-256) and modules ([`docforge_db::modules_of`]). Only Go-side files are read
//! (documents never enter the inventory); they are read, selected and hashed on several
//! threads. Every digest is of the full current bytes; no file identity or mtime is trusted.

use crate::manifest::SelectionPolicy;
use crate::validator::SourceState;
use docforge_db::{build_context, modules_of, sha256_hex, Content, GoInventory};
use docforge_project::{discover_each_lazy, Entry, EntryStatus, FileKind, Project, SourceReader};
use std::path::Path;
use std::sync::{mpsc, Mutex};

/// Threads for reading and hashing (the machine's parallelism, at most 8).
pub fn scan_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
}

/// Scan the repository at `root`: load the project (its `docforge.toml` may have changed),
/// walk it, and read, select and hash every Go-side file on `threads` threads (reading starts
/// while the walk goes on).
pub fn scan_sources(root: &Path, threads: usize) -> Result<SourceState, String> {
    let project = Project::load(root).map_err(|e| e.to_string())?;
    let policy = SelectionPolicy::of(&project);
    let build = build_context(&project);
    let limit = project.config.limits.max_file_bytes;
    let (found, queue) = mpsc::channel::<Entry>();
    let queue = Mutex::new(queue);
    let reader = SourceReader::new(&project.root);
    let worker = || {
        let mut part = GoInventory { build: build.clone(), ..Default::default() };
        // go.mod / go.work as read, for the modules.
        let mut metadata = Vec::new();
        // One buffer for every file this worker reads (no allocation per file).
        let mut buffer = Vec::new();
        loop {
            let next = queue.lock().unwrap_or_else(|p| p.into_inner()).recv();
            let Ok(e) = next else { break };
            if !GoInventory::needs_content(&build, &e.rel, e.kind) {
                // Excluded by its name: classified without being read.
                part.add_loaded(e.rel, e.kind, Ok(&[]), |_| unreachable!(), |_| unreachable!());
                continue;
            }
            let read = reader.read_into(&e.rel, limit, &mut buffer);
            let content = match &read {
                Ok(()) => Ok(&buffer[..]),
                Err(err) => Err(err.code()),
            };
            part.add_loaded(
                e.rel.clone(),
                e.kind,
                content,
                |b| docforge_go::select_file(&build, &e.rel, b),
                sha256_hex,
            );
            if e.kind != FileKind::Go {
                let content = match read {
                    Ok(()) => Content::Bytes(buffer[..].into()),
                    Err(err) => {
                        Content::Unreadable { code: err.code().to_string(), message: err.to_string() }
                    }
                };
                metadata.push((e.rel, e.kind, content));
            }
        }
        (part, metadata)
    };
    let (parts, skipped, errors) = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads.max(1)).map(|_| s.spawn(worker)).collect();
        // Entries the engine would not load (their Go-side ones are recorded as skipped).
        let mut skipped = Vec::new();
        // A Go file excluded by its name is not read: the walk stats it (its size limit).
        let stat =
            |rel: &str, kind: FileKind| kind.is_go_side() && !GoInventory::needs_content(&build, rel, kind);
        let errors = discover_each_lazy(&project, stat, |e| {
            if e.status != EntryStatus::Selected {
                skipped.push((e.rel, e.kind, e.status.label()));
            } else if e.kind.is_go_side() {
                found.send(e).expect("a scan worker is receiving");
            }
        });
        drop(found);
        let mut parts = vec![worker()];
        for h in helpers {
            parts.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        (parts, skipped, errors)
    });
    let mut inventory = GoInventory { build, ..Default::default() };
    let mut metadata = Vec::new();
    for (part, meta) in parts {
        inventory.files.extend(part.files);
        inventory.excluded.extend(part.excluded);
        inventory.metadata.extend(part.metadata);
        inventory.skipped.extend(part.skipped);
        metadata.extend(meta);
    }
    // In path order, as the engine reads them (the modules' diagnostics keep that order).
    metadata.sort_by(|a, b| a.0.cmp(&b.0));
    let modules = modules_of(metadata.iter().map(|(rel, kind, content)| (rel.as_str(), *kind, content)));
    inventory.finish(&skipped, &errors, &modules);
    Ok(SourceState { inventory, policy })
}

#[cfg(test)]
mod tests {
    use super::*;
    use docforge_db::{go_inventory, AnalysisHost, AstPolicy};
    use std::path::PathBuf;

    fn engine(root: &Path) -> SourceState {
        let project = Project::load(root).unwrap();
        let policy = SelectionPolicy::of(&project);
        let mut host = AnalysisHost::new(project, AstPolicy::Forbid);
        host.sync_from_disk();
        SourceState { inventory: go_inventory(&host.analysis()).unwrap(), policy }
    }

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel).canonicalize().unwrap()
    }

    fn assert_same(root: &Path) {
        let expected = engine(root);
        assert!(!expected.inventory.files.is_empty(), "{}: no Go files", root.display());
        for threads in [1, 2, 3] {
            assert_eq!(
                scan_sources(root, threads).unwrap(),
                expected,
                "{} on {threads} threads",
                root.display()
            );
        }
    }

    #[test]
    fn the_scan_selects_and_hashes_exactly_what_the_engine_does() {
        assert_same(&fixture("fixtures/shop"));
        assert_same(&fixture("fixtures/validate/mod"));
    }

    #[test]
    fn refusals_exclusions_and_modules_match_the_engine() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.go"), "package x\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let write = |rel: &str, text: &str| {
            let p = root.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        write("go.mod", "module example.com/m\n\nreplace example.com/o => ../o\n");
        write("go.work", "go 1.22\n\nuse .\n");
        write("a.go", "package m\n");
        write("a_windows.go", "package m\n");
        write("tagged.go", "//go:build ignore\n\npackage m\n");
        write("bad.go", "//go:build (\n\npackage m\n");
        write("cgo.go", "package m\n\nimport \"C\"\n");
        write("sub/go.mod", "not a go.mod\n");
        write("sub/b.go", "package sub\n");
        write("sub2/go.mod", "module example.com/s\n\nreplace example.com/p => /elsewhere\n");
        write("sub2/go.work", "go 1.22\n\nuse ../..\n");
        write("testdata/t.go", "package t\n");
        // Larger than the limit: refused by the walk (stat'ed although not read) and by the read.
        write("docforge.toml", "schema_version = 1\n[limits]\nmax_file_bytes = 200\n");
        write("big_windows.go", &format!("package m\n\n// {}\n", "x".repeat(300)));
        write("big.go", &format!("package m\n\n// {}\n", "x".repeat(300)));
        write("README.md", "# m\n");
        symlink(outside.path().join("x.go"), root.join("evil.go")).unwrap();
        symlink(root.join("a.go"), root.join("alias.go")).unwrap();
        symlink(root.join("missing.go"), root.join("dangling.go")).unwrap();
        let fifo = root.join("pipe.go");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let expected = engine(&root);
        let inv = &expected.inventory;
        assert!(!inv.excluded.is_empty() && !inv.skipped.is_empty() && !inv.outside_root.is_empty());
        assert!(!inv.metadata_errors.is_empty() && inv.metadata.len() == 5, "{inv:?}");
        assert!(inv.outside_root.len() >= 3, "{:?}", inv.outside_root);
        for big in ["big.go", "big_windows.go"] {
            let refused = (big.to_string(), "refused:file_too_large".to_string());
            assert!(inv.skipped.contains(&refused), "{big}: {:?}", inv.skipped);
        }
        let by_name =
            |rel: &str| inv.excluded.iter().any(|(p, r)| p == rel && r.contains("file name suffix"));
        assert!(by_name("a_windows.go"), "{:?}", inv.excluded);
        for threads in [1, 2] {
            assert_eq!(scan_sources(&root, threads).unwrap(), expected, "{threads} threads");
        }
    }
}
