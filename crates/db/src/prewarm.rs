//! The cold analysis on several threads: every file's digest and facts, then every
//! directory's graph chunk, so the following [`Analysis::graph`] only concatenates memoised
//! chunks.
//!
//! With precise analysis a parse also yields the file's body facts (and Logic), which are
//! large and read once (see [`crate::go_q::TakeOnce`]). Once every file is parsed, each
//! directory's files are turned into their call sites and Logic rows, which frees the bodies
//! before the class hierarchy and the fragments are built. (Test files get no body facts:
//! the semantic layer does not read them.)

use crate::calls_q::file_calls;
use crate::go_q::{dir_packages, go_parsed, go_selection, GoDir, GoPackage};
use crate::graph::file_digest;
use crate::host::{Analysis, Cancellable, Progress};
use crate::inputs::{SourceFile, Workspace};
use crate::Db;
use docforge_go::FileSelection;
use docforge_project::FileKind;
use salsa::Cancelled;
use std::sync::atomic::{AtomicUsize, Ordering};

impl Analysis {
    /// Compute the per-directory graph chunks (and with them digests, selection, Go facts,
    /// doc facts and fragments) on `threads` threads.
    pub fn prewarm(&self, threads: usize) -> Cancellable<()> {
        self.prewarm_with_progress(threads, &Progress::default())
    }

    /// [`Analysis::prewarm`], counting finished work items (files, then directories) into
    /// `progress` so a front can show a progress bar.
    pub fn prewarm_with_progress(&self, threads: usize, progress: &Progress) -> Cancellable<()> {
        let (db, ws) = self.parts();
        let dirs: Vec<String> =
            self.with(|db| crate::assemble::all_dirs(db, ws).keys().cloned().collect())?;
        let files: Vec<SourceFile> = self.with(|db| ws.files(db).clone())?;
        let precise = self.with(|db| ws.precise(db) && db.gate().go().is_ok())?;
        progress.total.store(files.len() + dirs.len(), Ordering::Relaxed);
        let threads = threads.max(1);
        // Work is handed out one item at a time (not in fixed stripes), so no thread idles
        // while another still has a tail of large files or directories.
        let (next_file, next_dir, next_chunk) =
            (AtomicUsize::new(0), AtomicUsize::new(0), AtomicUsize::new(0));
        let claim = |next: &AtomicUsize| next.fetch_add(1, Ordering::Relaxed);
        let results: Vec<Cancellable<()>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|_| {
                    let db = db.clone();
                    let (files, dirs) = (&files, &dirs);
                    let (next_file, next_dir, next_chunk) = (&next_file, &next_dir, &next_chunk);
                    scope.spawn(move || {
                        // These threads end with the analysis: their parse arenas may keep
                        // the pages of their largest parse until then.
                        docforge_syntax::alloc::hold_parse_arena();
                        Cancelled::catch(std::panic::AssertUnwindSafe(|| {
                            // Files first (parsing dominates and balances well), then, with
                            // precise analysis, every directory's call sites and Logic rows
                            // (their bodies leave the parses), then chunks (fragments need
                            // the facts of imported packages, which other threads may still
                            // be producing). No barrier between the steps: a thread that is
                            // ahead asks for what it needs, and salsa computes it once.
                            while let Some(file) = files.get(claim(next_file)) {
                                warm_file(&db, ws, *file);
                                progress.done.fetch_add(1, Ordering::Relaxed);
                            }
                            while let Some(dir) = dirs.get(claim(next_dir)).filter(|_| precise) {
                                consume_dir(&db, ws, dir);
                            }
                            while let Some(dir) = dirs.get(claim(next_chunk)) {
                                let _ = crate::assemble::dir_chunk(&db, GoDir::new(&db, ws, dir.clone()));
                                progress.done.fetch_add(1, Ordering::Relaxed);
                            }
                        }))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap_or(Ok(()))).collect()
        });
        results.into_iter().collect()
    }
}

/// One file's digest and facts (a selected Go file's parse, a document's facts).
fn warm_file(db: &dyn Db, ws: Workspace, file: SourceFile) {
    let _ = file_digest(db, file);
    match file.kind(db) {
        FileKind::Go => {
            if matches!(go_selection(db, ws, file), FileSelection::Included) {
                let _ = go_parsed(db, ws, file);
            }
        }
        FileKind::Markdown | FileKind::TomlNode => {
            let _ = crate::docs_q::doc_facts(db, file);
        }
        _ => {}
    }
}

/// Turn the body facts and Logic of one directory's parsed files into what is kept.
fn consume_dir(db: &dyn Db, ws: Workspace, dir: &str) {
    let d = GoDir::new(db, ws, dir.to_string());
    for p in &dir_packages(db, d).packages {
        let pkg = GoPackage::new(db, ws, dir.to_string(), p.import_path.clone());
        for &file in &p.files {
            let _ = file_calls(db, pkg, file);
            let _ = crate::go_graph::file_logic_rows(db, pkg, file);
        }
    }
}
