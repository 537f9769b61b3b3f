//! The fresh-source scan of a validation operation (made before and again after evaluation).
//!
//! The same inventory as the engine's [`docforge_db::go_inventory`] after a sync from disk,
//! computed by the same code without building an analysis database: the engine's walk
//! (`docforge_project::discover`), every Go-side file read through the confined reader
//! (`docforge_project::read_source`), the engine's classification
//! ([`GoInventory::add_loaded`]: `docforge_go::select_file` under the project's build context,
//! the engine's SHA-256) and modules ([`docforge_db::modules_of`]). Only Go-side files are read
//! (documents never enter the inventory); they are read, selected and hashed on several
//! threads. The first scan of an operation digests the full current bytes of every file; no
//! file identity or mtime is trusted for freshness against the graph.
//!
//! The recheck after evaluation skips what the first scan's [`ReadLog`] vouches for
//! ([`crate::readlog`]): the whole walk when nothing it depends on changed, otherwise the
//! reading of each `.go` file whose settled stamp is unchanged.

use crate::manifest::SelectionPolicy;
use crate::readlog::{Deps, Kept, Probe, ReadLog, Recheck};
use crate::validator::SourceState;
use docforge_db::{build_context, modules_of, sha256_hex, Content, GoInventory};
use docforge_go::{BuildContext, FileSelection};
use docforge_project::{
    discover_each_lazy, enclosing_go_files, Entry, EntryStatus, FileKind, Project, Seen, SourceReader,
    Surroundings,
};
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::Path;
use std::time::SystemTime;

/// Threads for reading and hashing (the machine's parallelism, at most 8).
pub fn scan_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
}

/// Scan the repository at `root`: load the project (its `docforge.toml` may have changed),
/// walk it, and read, select and hash every Go-side file on `threads` threads (reading starts
/// while the walk goes on).
pub fn scan_sources(root: &Path, threads: usize) -> Result<SourceState, String> {
    scan(root, threads, None, false, SystemTime::now())
}

/// The scan after evaluation: [`Recheck::Unchanged`] without a walk when `before` vouches for
/// everything the walk depends on, else a scan that keeps what `before` read of unchanged
/// `.go` files.
pub fn recheck_sources(root: &Path, threads: usize, before: &ReadLog) -> Result<Recheck, String> {
    let project = Project::load(root).map_err(|e| e.to_string())?;
    if before.walk_unchanged(&project, &SourceReader::new(&project.root), threads) {
        return Ok(Recheck::Unchanged);
    }
    scan(root, threads, Some(before), false, SystemTime::now()).map(|s| Recheck::Scanned(Box::new(s)))
}

/// The first scan of an operation, also gathering what its walk depends on (for
/// [`recheck_sources`]).
pub fn first_scan(root: &Path, threads: usize) -> Result<SourceState, String> {
    scan(root, threads, None, true, SystemTime::now())
}

/// A scan for an operation that began at `began` (tests move it on to settle fresh files).
/// With `before` (an earlier scan of the same operation), a `.go` file whose settled stamp is
/// unchanged keeps the outcome `before` read. With `trace`, it also gathers what its walk
/// depends on ([`crate::readlog::WalkDeps`]).
fn scan(
    root: &Path,
    threads: usize,
    before: Option<&ReadLog>,
    trace: bool,
    began: SystemTime,
) -> Result<SourceState, String> {
    let project = Project::load(root).map_err(|e| e.to_string())?;
    let policy = SelectionPolicy::of(&project);
    let build = build_context(&project);
    let ctx = Ctx {
        limit: project.config.limits.max_file_bytes,
        reader: SourceReader::new(&project.root),
        build: &build,
        before,
        trace,
        began,
    };
    // Work goes out in batches (a wake-up per item cost more than many of the items).
    let (sender, queue) = crossbeam::channel::unbounded::<Vec<Work>>();
    let work = || {
        let mut w = Worker::new(&ctx);
        for batch in queue.iter() {
            for item in batch {
                match item {
                    Work::File(e) => w.file(e),
                    Work::Probe(p) => w.deps.probe(&ctx.reader, &p, began),
                }
            }
        }
        w
    };
    let (workers, skipped, errors, symlinked, links) = std::thread::scope(|s| {
        let helpers: Vec<_> = (1..threads.max(1)).map(|_| s.spawn(work)).collect();
        // Entries the engine would not load (their Go-side ones are recorded as skipped).
        let mut skipped = Vec::new();
        // A Go file excluded by its name is not read: the walk stats it (its size limit).
        let stat =
            |rel: &str, kind: FileKind| kind.is_go_side() && !GoInventory::needs_content(&build, rel, kind);
        let batch = RefCell::new(Vec::with_capacity(BATCH));
        let send = |w: Work| {
            let mut b = batch.borrow_mut();
            b.push(w);
            if b.len() == BATCH {
                sender
                    .send(std::mem::replace(&mut *b, Vec::with_capacity(BATCH)))
                    .expect("a scan worker is receiving");
            }
        };
        let mut symlinked = false;
        let mut links = Vec::new();
        let errors = discover_each_lazy(
            &project,
            stat,
            |e| {
                let sized = stat(&e.rel, e.kind);
                if trace && sized {
                    send(Work::Probe(Probe::File(e.rel.clone())));
                }
                if e.status != EntryStatus::Selected {
                    if trace && e.kind.is_go_side() && !sized && matches!(e.status, EntryStatus::Refused(_)) {
                        send(Work::Probe(Probe::Unvouchable));
                    }
                    skipped.push((e.rel, e.kind, e.status.label()));
                } else if e.kind.is_go_side() {
                    send(Work::File(e));
                }
            },
            |seen| match seen {
                Seen::Dir(rel) if trace => send(Work::Probe(Probe::Dir(rel.to_string()))),
                Seen::Dir(_) => {}
                Seen::Symlink(_) => symlinked = true,
                Seen::Link(rel) => links.push(rel.to_string()),
            },
        );
        sender.send(batch.take()).expect("a scan worker is receiving");
        drop(sender);
        let mut workers = vec![work()];
        for h in helpers {
            workers.push(h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)));
        }
        (workers, skipped, errors, symlinked, links)
    });
    let mut inventory = GoInventory { build: build.clone(), ..Default::default() };
    let mut metadata = Vec::new();
    let mut log = ReadLog { began: Some(began), ..Default::default() };
    let mut deps = Deps::default();
    for w in workers {
        log.files.extend(w.reads);
        log.read += w.count;
        deps.merge(w.deps);
        let part = w.part;
        inventory.files.extend(part.files);
        inventory.excluded.extend(part.excluded);
        inventory.metadata.extend(part.metadata);
        inventory.skipped.extend(part.skipped);
        metadata.extend(w.metadata);
    }
    // In path order, as the engine reads them (the modules' diagnostics keep that order).
    metadata.sort_by(|a, b| a.0.cmp(&b.0));
    let mut around = Surroundings { links, enclosing: enclosing_go_files(&project) };
    around.links.sort();
    // Every loaded .go file, as the engine loads them (selected or excluded by the build).
    let mut go_files: Vec<&str> = inventory
        .files
        .iter()
        .map(|(p, _)| p.as_str())
        .chain(inventory.excluded.iter().map(|(p, _)| p.as_str()))
        .collect();
    go_files.sort_unstable();
    let modules = modules_of(
        metadata.iter().map(|(rel, kind, content)| (rel.as_str(), *kind, content)),
        go_files,
        &around,
    );
    inventory.finish(&skipped, &errors, &modules);
    inventory.enclosing = around.enclosing;
    if trace && errors.is_empty() && !symlinked {
        log.walk = deps.finish(&project, began, &log.files);
    }
    Ok(SourceState { inventory, policy, reads: log })
}

/// Work items per batch.
const BATCH: usize = 32;

/// What every worker of one scan shares.
struct Ctx<'a> {
    limit: u64,
    reader: SourceReader<'a>,
    build: &'a BuildContext,
    before: Option<&'a ReadLog>,
    trace: bool,
    began: SystemTime,
}

/// One item for the workers: a Go-side entry to load, or a dependency of the walk to probe.
enum Work {
    File(Entry),
    Probe(Probe),
}

/// What one worker loaded.
struct Worker<'a> {
    ctx: &'a Ctx<'a>,
    part: GoInventory,
    /// go.mod / go.work as read, for the modules.
    metadata: Vec<(String, FileKind, Content)>,
    /// One buffer for every file this worker reads (no allocation per file).
    buffer: Vec<u8>,
    reads: HashMap<String, Kept>,
    /// Files read (not vouched for by a stamp).
    count: usize,
    deps: Deps,
}

impl<'a> Worker<'a> {
    fn new(ctx: &'a Ctx<'a>) -> Self {
        Worker {
            ctx,
            part: GoInventory { build: ctx.build.clone(), ..Default::default() },
            metadata: Vec::new(),
            buffer: Vec::new(),
            reads: HashMap::new(),
            count: 0,
            deps: Deps::default(),
        }
    }

    fn file(&mut self, e: Entry) {
        let ctx = self.ctx;
        if !GoInventory::needs_content(ctx.build, &e.rel, e.kind) {
            // Excluded by its name: classified without being read.
            self.part.add_loaded(e.rel, e.kind, Ok(&[]), |_| unreachable!(), |_| unreachable!());
            return;
        }
        if e.kind == FileKind::Go {
            if let Some(kept) = ctx.before.and_then(|b| b.unchanged(&ctx.reader, &e.rel)) {
                self.keep(e.rel, kept);
                return;
            }
        }
        self.count += 1;
        let read = ctx.reader.read_into_stamped(&e.rel, ctx.limit, &mut self.buffer);
        let buffer = &self.buffer[..];
        let content = match &read {
            Ok(_) => Ok(buffer),
            Err(err) => Err(err.code()),
        };
        match (e.kind, &read) {
            (_, Err(_)) if ctx.trace => self.deps.unvouchable(),
            (FileKind::Go, Ok(stamp)) => {
                let selection = docforge_go::select_file(ctx.build, &e.rel, buffer);
                let digest =
                    if selection == FileSelection::Included { sha256_hex(buffer) } else { String::new() };
                let stamp = *stamp;
                self.keep(e.rel, (stamp, selection, digest));
                return;
            }
            (_, Ok(stamp)) if ctx.trace => self.deps.read(e.rel.clone(), *stamp, ctx.began),
            _ => {}
        }
        self.part.add_loaded(
            e.rel.clone(),
            e.kind,
            content,
            |b| docforge_go::select_file(ctx.build, &e.rel, b),
            sha256_hex,
        );
        if e.kind != FileKind::Go {
            let content = match read {
                Ok(_) => Content::Bytes(buffer.into()),
                Err(err) => Content::Unreadable { code: err.code().to_string(), message: err.to_string() },
            };
            self.metadata.push((e.rel, e.kind, content));
        }
    }

    /// Add the `.go` file `rel` with its known selection and digest (its bytes are not
    /// looked at again), and log it.
    fn keep(&mut self, rel: String, kept: Kept) {
        let (selection, digest) = (kept.1.clone(), kept.2.clone());
        self.part.add_loaded(rel.clone(), FileKind::Go, Ok(&[]), |_| selection, |_| digest);
        self.reads.insert(rel, kept);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use docforge_db::{go_inventory, AnalysisHost, AstPolicy};
    use std::path::PathBuf;
    use std::time::Duration;

    fn engine(root: &Path) -> (GoInventory, SelectionPolicy) {
        let project = Project::load(root).unwrap();
        let policy = SelectionPolicy::of(&project);
        let mut host = AnalysisHost::new(project, AstPolicy::Forbid);
        host.sync_from_disk();
        (go_inventory(&host.analysis()).unwrap(), policy)
    }

    fn scanned(root: &Path, threads: usize, before: Option<&ReadLog>) -> (GoInventory, SelectionPolicy) {
        let s = rescan(root, threads, before).unwrap();
        (s.inventory, s.policy)
    }

    fn fixture(rel: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel).canonicalize().unwrap()
    }

    fn assert_same(root: &Path) {
        let expected = engine(root);
        assert!(!expected.0.files.is_empty(), "{}: no Go files", root.display());
        for threads in [1, 2, 3] {
            assert_eq!(scanned(root, threads, None), expected, "{} on {threads} threads", root.display());
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
        let write = |rel: &str, text: &str| put(&root, rel, text);
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
        let inv = &expected.0;
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
            assert_eq!(scanned(&root, threads, None), expected, "{threads} threads");
        }
    }

    /// A tree whose first scan is treated as having begun well after every file was written
    /// (so that every stamp is settled), and a change of each kind after it.
    #[test]
    fn a_recheck_reads_again_exactly_the_files_it_cannot_vouch_for() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let write = |rel: &str, text: &str| put(&root, rel, text);
        write("go.mod", "module example.com/m\n");
        for f in ["a", "b", "c", "d", "e", "f"] {
            write(&format!("{f}.go"), "package m\n");
        }
        write("skip_windows.go", "package m\n");
        write("ignored.go", "//go:build ignore\n\npackage m\n");
        write("sub/s.go", "package sub\n");
        let first = scan(&root, 2, None, false, later()).unwrap();
        // go.mod, 6 + ignored.go + sub/s.go (skip_windows.go is excluded by its name).
        assert_eq!(first.reads.read, 9);
        assert_eq!(first.reads.settled(), 8, "every .go file read has a settled stamp");
        let again = rescan(&root, 2, Some(&first.reads)).unwrap();
        assert_eq!(
            (again.inventory.clone(), again.reads.read),
            (first.inventory.clone(), 1),
            "only go.mod is read"
        );

        // Let the file system's clock move on, as between two real events.
        std::thread::sleep(Duration::from_millis(20));
        write("a.go", "package n\n"); // same size, new bytes
        write("b.go", "//go:build ignore\n\npackage m\n"); // now excluded
        std::fs::remove_file(root.join("c.go")).unwrap();
        write("g.go", "package m\n"); // added
        write("ignored.go", "package m\n"); // now selected
        std::fs::rename(root.join("e.go"), root.join("e2.go")).unwrap();
        write("tmp", "package m\n");
        std::fs::rename(root.join("tmp"), root.join("f.go")).unwrap(); // replaced, same bytes
        let recheck = rescan(&root, 2, Some(&first.reads)).unwrap();
        assert_eq!((recheck.inventory.clone(), recheck.policy.clone()), engine(&root));
        // go.mod, a, b, g, ignored, e2 and f are read; d and sub/s are vouched for.
        assert_eq!(recheck.reads.read, 7);
        assert_ne!(recheck.inventory, first.inventory);
    }

    #[test]
    fn a_recheck_trusts_no_stamp_of_a_file_written_near_the_scan() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("go.mod"), "module example.com/m\n").unwrap();
        for f in ["a", "b", "c"] {
            std::fs::write(root.join(format!("{f}.go")), "package m\n").unwrap();
        }
        let first = rescan(&root, 1, None).unwrap();
        assert_eq!(first.reads.settled(), 0, "files written just now are racy");
        let recheck = rescan(&root, 1, Some(&first.reads)).unwrap();
        assert_eq!((recheck.inventory, recheck.reads.read), (first.inventory, 4), "everything is read again");
    }

    /// A scan without tracing, after `before` when given.
    fn rescan(root: &Path, threads: usize, before: Option<&ReadLog>) -> Result<SourceState, String> {
        scan(root, threads, before, false, SystemTime::now())
    }

    /// Write `text` to `rel` under `root`, creating directories.
    fn put(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    /// A time after which every file written now is settled.
    fn later() -> SystemTime {
        SystemTime::now() + docforge_project::RACY_WINDOW + Duration::from_secs(1)
    }

    /// A tree with a module, Go files in two directories, a name-excluded file, an ignore
    /// file and a `.git` directory.
    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for (rel, text) in [
            ("go.mod", "module example.com/m\n"),
            ("a.go", "package m\n"),
            ("b.go", "package m\n"),
            ("skip_windows.go", "package m\n"),
            ("sub/s.go", "package sub\n"),
            ("sub/.gitignore", "gen.go\n"),
            ("README.md", "# m\n"),
            (".git/info/keep", ""),
        ] {
            put(root, rel, text);
        }
        dir
    }

    #[test]
    fn a_recheck_skips_the_walk_only_while_nothing_the_walk_depends_on_changed() {
        type Change = fn(&Path);
        fn write(root: &Path, rel: &str, text: &str) {
            std::fs::write(root.join(rel), text).unwrap()
        }
        let cases: [(&str, Change); 13] = [
            ("a same-size rewrite", |r| write(r, "a.go", "package n\n")),
            ("a file added in a subdirectory", |r| write(r, "sub/t.go", "package sub\n")),
            ("a file the ignore file names, added", |r| write(r, "sub/gen.go", "package sub\n")),
            ("a document added", |r| write(r, "NOTES.md", "# n\n")),
            ("a file removed", |r| std::fs::remove_file(r.join("b.go")).unwrap()),
            ("an ignore file rewritten", |r| write(r, "sub/.gitignore", "s.go\n")),
            ("an ignore file created", |r| write(r, ".ignore", "a.go\n")),
            ("git's exclude file created", |r| write(r, ".git/info/exclude", "a.go\n")),
            ("the configuration changed", |r| {
                write(r, "docforge.toml", "schema_version = 1\n[sources]\nexclude = [\"b.go\"]\n")
            }),
            ("a name-excluded file grown", |r| write(r, "skip_windows.go", &"/".repeat(1 << 20))),
            ("go.mod rewritten", |r| write(r, "go.mod", "module example.com/n\n")),
            ("a directory renamed", |r| std::fs::rename(r.join("sub"), r.join("sub2")).unwrap()),
            ("a file made a symlink", |r| {
                std::fs::remove_file(r.join("b.go")).unwrap();
                std::os::unix::fs::symlink(r.join("a.go"), r.join("b.go")).unwrap();
            }),
        ];
        let unchanged = tree();
        let trees: Vec<_> = cases.iter().map(|_| tree()).collect();
        let first_of = |root: &Path| scan(root, 2, None, true, later()).unwrap();
        let first = first_of(unchanged.path());
        assert!(first.reads.walk_vouched(), "a settled tree with a .git directory is vouched for");
        let recheck = recheck_sources(unchanged.path(), 2, &first.reads).unwrap();
        assert_eq!(recheck, Recheck::Unchanged);
        let firsts: Vec<_> = trees.iter().map(|t| first_of(t.path())).collect();
        // Let the file system's clock move on, as between two real events.
        std::thread::sleep(Duration::from_millis(20));
        for (((what, change), dir), first) in cases.iter().zip(&trees).zip(&firsts) {
            let root = dir.path().canonicalize().unwrap();
            change(&root);
            let Recheck::Scanned(now) = recheck_sources(&root, 2, &first.reads).unwrap() else {
                panic!("{what}: taken as unchanged")
            };
            assert_eq!((now.inventory.clone(), now.policy.clone()), engine(&root), "{what}");
        }
    }

    #[test]
    fn symlinks_and_git_files_leave_the_walk_to_be_redone() {
        let linked = tree();
        std::os::unix::fs::symlink(linked.path().join("a.go"), linked.path().join("c.go")).unwrap();
        let worktree = tree();
        std::fs::remove_dir_all(worktree.path().join(".git")).unwrap();
        std::fs::write(worktree.path().join(".git"), "gitdir: /elsewhere/.git/worktrees/w\n").unwrap();
        for dir in [&linked, &worktree] {
            let first = scan(dir.path(), 1, None, true, later()).unwrap();
            assert!(!first.reads.walk_vouched());
            assert!(matches!(recheck_sources(dir.path(), 1, &first.reads).unwrap(), Recheck::Scanned(_)));
        }
    }
}
