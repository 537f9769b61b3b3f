//! A new index's first publication on two threads: the edge rows and their two indexes are
//! built in a side database while this connection writes everything else, then copied in.
//!
//! Only for a staged build file (`stage.rs`), whose tables are empty and which nobody reads
//! until it is put in place: there the generation may be committed in two transactions (all
//! but the edges, then the edges). If anything fails after the first, the build file is
//! started afresh, so a later publish never sees half a generation; the index path is not
//! touched either way.
//!
//! The side database is a private file beside the build file (`<build>-edges`, no journal,
//! no syncs, removed after the copy; an abandoned one goes with its build file). An
//! in-memory database (SQLite's `memdb` VFS) was as fast but added its whole size to the
//! peak RSS (+64 MB on the standard library, +127 MB for a precise index). Its table and
//! indexes are created from the build file's own schema text, and the copy is one `INSERT
//! INTO edges SELECT * FROM side.edges` into the empty table: SQLite's transfer optimisation
//! then appends the records
//! of the table and of each index in order, without re-sorting. Edge rids are assigned here
//! in owner order (1, 2, …), as the single-threaded write would, so the two paths store the
//! same rows.

use crate::error::{IndexError, SqlContext};
use crate::publish::{write, BULK_MIN_ROWS};
use crate::rows::insert_edges;
use crate::{Batch, Index, PublishReport};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};

/// Below this many edges the copy is not worth a second thread (on the standard library,
/// 273k edges: the side work is ~0.6 s of the ~1.3 s single-threaded publication).
pub(crate) const SIDE_MIN_EDGES: usize = 50_000;

/// Whether a first publication of `batch` writes its edges on a side thread.
pub(crate) fn worth_it(batch: &Batch, min_edges: usize) -> bool {
    let (edges, rows) = batch.owners.iter().fold((0, 0), |(edges, rows), o| {
        (edges + o.fragment.edges.len(), rows + crate::rows::fragment_rows(&o.fragment))
    });
    // The main write must be a bulk one: its secondary indexes are created after the
    // inserts, so the edge indexes exist (empty) when the edges are copied in.
    edges >= min_edges && rows >= BULK_MIN_ROWS
}

/// What the two-thread write did.
pub(crate) enum Outcome {
    /// Committed (`None`: there was nothing to write), not yet put in place.
    Done(Option<PublishReport>),
    /// The side database or the copy failed: the build file was started afresh, to be
    /// written on one thread instead.
    Retry,
}

/// Publish `batch` into the (staged, empty) build file of `index`, the edges on a second
/// thread, and put it in place. An error of the main write (including a hook's abort) is
/// returned as is, with nothing committed. `job` runs on the side thread once the edges are
/// written (see [`Index::publish_with`]); the build file is put in place meanwhile.
pub(crate) fn publish<T: Send>(
    index: &mut Index,
    batch: &Batch,
    job: impl FnOnce() -> T + Send,
) -> (Result<PublishReport, IndexError>, T) {
    run(index, batch, job, |index, outcome| match outcome {
        Err(e) => Err(e),
        Ok(Outcome::Done(Some(report))) => index.placed(report, batch),
        // Nothing to write (never for a new index), or on one thread after all.
        Ok(Outcome::Done(None) | Outcome::Retry) => index.publish_here(batch),
    })
}

/// The two-thread write, then `then` on this thread while `job` may still run.
fn run<T: Send, R>(
    index: &mut Index,
    batch: &Batch,
    job: impl FnOnce() -> T + Send,
    then: impl FnOnce(&mut Index, Result<Outcome, IndexError>) -> R,
) -> (R, T) {
    let path = index.path.clone();
    let schema = match edge_schema(&index.conn, &path) {
        Ok(schema) => schema,
        Err(e) => return (then(index, Err(e)), job()),
    };
    // Each owner's edge rid range, in batch order (the order the main write takes them in,
    // the table being empty).
    let mut next = 1i64;
    let ranges: Vec<Option<(i64, i64)>> = batch
        .owners
        .iter()
        .map(|o| {
            let n = o.fragment.edges.len() as i64;
            let range = (n > 0).then(|| (next, next + n - 1));
            next += n;
            range
        })
        .collect();
    let Some(staged) = index.staged.as_ref() else {
        return (then(index, Ok(Outcome::Retry)), job());
    };
    let mut side_path = staged.build.clone().into_os_string();
    side_path.push("-edges");
    let side_path = std::path::PathBuf::from(side_path);
    let cancel = AtomicBool::new(false);
    let floor = index.generation_floor;
    let mut hook = index.hook.take();
    std::thread::scope(|s| {
        // The side database is handed over as soon as it is written; the job runs after.
        let (tx_side, rx_side) = std::sync::mpsc::sync_channel(1);
        let (side_, schema_, ranges_, cancel_, path_) = (&side_path, &schema, &ranges, &cancel, &path);
        let job = s.spawn(move || {
            let _ = tx_side.send(write_side(side_, schema_, batch, ranges_, cancel_, path_));
            job()
        });
        let main = (|| {
            let tx = index.conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(&path)?;
            // The side database's rows name owners 1, 2, … and take edge rids 1, 2, … in batch
            // order: what the write assigns into empty tables.
            let empty: bool = tx
                .query_row(
                    "SELECT NOT EXISTS (SELECT 1 FROM owners) AND NOT EXISTS (SELECT 1 FROM edges)",
                    [],
                    |r| r.get(0),
                )
                .ctx(&path)?;
            if !empty {
                return Err(IndexError::Corrupt {
                    path: path.clone(),
                    detail: "a new index's build file already holds owners or edges".to_string(),
                });
            }
            let report = write(&tx, &path, batch, &mut hook, Some(&ranges), floor)?;
            if report.is_some() {
                tx.commit().ctx(&path)?;
            }
            Ok(report)
        })();
        if main.is_err() {
            cancel.store(true, Ordering::Relaxed);
        }
        // A side thread that panicked sends nothing: its panic is resumed at the join.
        let side = rx_side.recv().ok();
        let outcome = match (main, side) {
            (Err(e), _) => Err(e),
            (Ok(None), _) => Ok(Outcome::Done(None)),
            (Ok(Some(report)), side) => {
                match side.map(|s| s.and_then(|s| copy_in(&index.conn, &side_path, s, &path))) {
                    Some(Ok(())) => Ok(Outcome::Done(Some(report))),
                    _ => {
                        // The first transaction is committed: start the build file afresh.
                        index.restart_build();
                        Ok(Outcome::Retry)
                    }
                }
            }
        };
        let _ = crate::stage::remove_database_files(&side_path);
        index.hook = hook;
        let result = then(index, outcome);
        (result, job.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
    })
}

/// The `CREATE` statements of the build file's `edges` table and of its indexes.
fn edge_schema(conn: &Connection, path: &Path) -> Result<Vec<String>, IndexError> {
    let mut stmt = conn
        .prepare("SELECT sql FROM sqlite_schema WHERE tbl_name = 'edges' AND sql IS NOT NULL ORDER BY type DESC, name")
        .ctx(path)?;
    let rows = stmt.query_map([], |r| r.get::<_, String>(0)).ctx(path)?;
    rows.collect::<Result<Vec<_>, _>>().ctx(path)
}

/// Build the side database: the edges of every owner at their rid range, then the indexes.
fn write_side(
    side: &Path,
    schema: &[String],
    batch: &Batch,
    ranges: &[Option<(i64, i64)>],
    cancel: &AtomicBool,
    path: &Path,
) -> Result<Connection, IndexError> {
    crate::stage::remove_database_files(side)?;
    let flags =
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let mut conn = Connection::open_with_flags(side, flags).ctx(side)?;
    // No rollback journal and no syncs: on any failure the side database is dropped whole.
    conn.pragma_update(None, "page_size", crate::schema::PAGE_SIZE).ctx(path)?;
    conn.pragma_update(None, "journal_mode", "OFF").ctx(path)?;
    conn.pragma_update(None, "synchronous", "OFF").ctx(path)?;
    let (table, indexes) = schema.split_first().expect("the edges table is in the schema");
    conn.execute(table, []).ctx(path)?;
    let tx = conn.transaction().ctx(path)?;
    for (owner_id, (owner, range)) in batch.owners.iter().zip(ranges).enumerate() {
        if cancel.load(Ordering::Relaxed) {
            return Err(IndexError::Aborted { path: path.to_path_buf(), reason: "cancelled".to_string() });
        }
        // Owner ids of a new index are 1, 2, … in batch order, as the main write assigns them.
        let got = insert_edges(&tx, path, owner_id as i64 + 1, &owner.fragment, range.map(|r| r.0))?;
        debug_assert_eq!(got, *range);
    }
    for create in indexes {
        tx.execute(create, []).ctx(path)?;
    }
    tx.commit().ctx(path)?;
    Ok(conn)
}

/// Copy the side database's edges (with their index entries) into the empty `edges` table.
fn copy_in(conn: &Connection, side_path: &Path, side: Connection, path: &Path) -> Result<(), IndexError> {
    #[cfg(test)]
    if FAIL_COPY.get() {
        return Err(IndexError::Aborted { path: path.to_path_buf(), reason: "injected copy failure".into() });
    }
    drop(side);
    let side_path = side_path.to_str().ok_or_else(|| IndexError::Corrupt {
        path: path.to_path_buf(),
        detail: format!("the side database's path is not UTF-8: {}", side_path.display()),
    })?;
    conn.execute("ATTACH DATABASE ?1 AS side", [side_path]).ctx(path)?;
    let copied = conn
        .execute_batch("BEGIN IMMEDIATE; INSERT INTO main.edges SELECT * FROM side.edges; COMMIT;")
        .ctx(path);
    if copied.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    let detached = conn.execute_batch("DETACH DATABASE side").ctx(path);
    copied.and(detached)
}

#[cfg(test)]
thread_local! {
    /// Make the copy fail (on the publishing thread).
    static FAIL_COPY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FileRecord, Owner};
    use docforge_model::{Diagnostic, Edge, Fragment, Location, Node};
    use std::sync::Arc;

    /// Owner `i` of a batch: nodes with and without attributes, edges with locations and
    /// attributes (none for every seventh owner), a diagnostic for every fifth.
    fn owner(i: usize, salt: &str) -> Owner {
        let id = |n: usize| format!("go:m/p{i}::F{n}");
        let nodes = (0..3)
            .map(|n| {
                let mut node = Node {
                    id: id(n),
                    kind: "func".into(),
                    title: format!("F{n}"),
                    location: Some(Location::new(format!("p{i}/a.go"), n as u32 + 1, 1)),
                    text: format!("func F{n}() {salt}"),
                    attrs: Default::default(),
                };
                if n == 1 {
                    node.attrs.insert("package".into(), format!("p{i}"));
                }
                node
            })
            .collect();
        let edges = if i.is_multiple_of(7) {
            Vec::new()
        } else {
            (0..120)
                .map(|n| {
                    let e = Edge::new(id(n % 3), "calls", format!("go:m/q::G{}{salt}", (n * 31 + i) % 97));
                    match n % 3 {
                        0 => e.at(Location::new(format!("p{i}/a.go"), n as u32 + 10, 2)),
                        1 => e.with_attr("via", "interface"),
                        _ => e,
                    }
                })
                .collect()
        };
        let diagnostics = if i.is_multiple_of(5) {
            vec![Diagnostic::warning("w", format!("in {i}")).on(id(0))]
        } else {
            vec![]
        };
        let fragment = Fragment { nodes, edges, diagnostics, logic: vec![] };
        // Distinct per owner and salt.
        let mut digest = [0u8; 32];
        digest[..8].copy_from_slice(&(i as u64).to_le_bytes());
        digest[8..8 + salt.len()].copy_from_slice(salt.as_bytes());
        Owner { key: format!("pkg:p{i}"), digest, fragment: Arc::new(fragment) }
    }

    fn batch(owners: impl Iterator<Item = Owner>, fp: &str) -> Batch {
        let owners: Vec<Owner> = owners.collect();
        let files = owners
            .iter()
            .map(|o| FileRecord {
                path: format!("{}/a.go", &o.key[4..]),
                size: 1,
                mtime_ns: 2,
                ctime_ns: 2,
                ino: 1,
                racy: false,
                sha256: "00".repeat(32),
                kind: "go".into(),
                status: "indexed".into(),
            })
            .collect();
        Batch { files, owners, source_fingerprint: fp.into(), meta: Default::default() }
    }

    /// Every row of every table but the publication time, as text.
    fn dump(index: &Index) -> String {
        let mut out = String::new();
        for (table, order) in [
            ("owners", "id"),
            ("nodes", "rid"),
            ("edges", "rid"),
            ("diagnostics", "rid"),
            ("files", "path"),
            ("transition", "owner_key"),
            ("meta", "key"),
        ] {
            let sql = format!("SELECT * FROM {table} ORDER BY {order}");
            let mut stmt = index.conn.prepare(&sql).unwrap();
            let n = stmt.column_count();
            let mut rows = stmt.query([]).unwrap();
            while let Some(r) = rows.next().unwrap() {
                let cells: Vec<String> = (0..n).map(|c| cell(r.get_ref(c).unwrap())).collect();
                if table == "meta" && cells[0].contains("published_at") {
                    continue;
                }
                out.push_str(&format!("{table}: {}\n", cells.join(" | ")));
            }
        }
        out
    }

    fn cell(v: rusqlite::types::ValueRef<'_>) -> String {
        use rusqlite::types::ValueRef;
        match v {
            ValueRef::Null => "NULL".into(),
            ValueRef::Integer(i) => i.to_string(),
            ValueRef::Real(f) => f.to_string(),
            ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned(),
            ValueRef::Blob(b) => b.iter().map(|x| format!("{x:02x}")).collect(),
        }
    }

    fn new_index(dir: &Path, side_min_edges: usize) -> Index {
        let mut index = Index::open(&dir.join("index.sqlite")).unwrap();
        index.side_min_edges = side_min_edges;
        index
    }

    #[test]
    fn a_new_index_with_its_edges_written_aside_holds_the_same_rows() {
        let (a, b) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let mut aside = new_index(a.path(), 1);
        let mut inline = new_index(b.path(), usize::MAX);
        let first = batch((0..300).map(|i| owner(i, "")), "fp1");
        assert!(worth_it(&first, 1) && !worth_it(&first, usize::MAX));
        let (r1, r2) = (aside.publish(first.clone()).unwrap(), inline.publish(first).unwrap());
        assert_eq!((r1.generation, r1.rows_written), (r2.generation, r2.rows_written));
        assert!(aside.staged.is_none() && a.path().join("index.sqlite").is_file());
        // Neither the build file nor the side database is left.
        for entry in std::fs::read_dir(a.path()).unwrap() {
            let name = entry.unwrap().file_name().into_string().unwrap();
            assert!(name.starts_with("index.sqlite"), "{name}");
        }
        let before = dump(&aside);
        assert!(before.contains("\nedges: 30000 | "), "the edges are there");
        assert_eq!(before, dump(&inline));
        aside.integrity_check().unwrap();

        // Incremental publishes delete by the stored rid ranges: they must be right.
        let second = batch(
            (0..320).filter(|i| i % 11 != 3).map(|i| owner(i, if i % 4 == 0 { "x" } else { "" })),
            "fp2",
        );
        aside.publish(second.clone()).unwrap();
        inline.publish(second).unwrap();
        assert_eq!(dump(&aside), dump(&inline));
        aside.integrity_check().unwrap();
        let salted = (0..320).filter(|i| i % 11 != 3 && i % 4 == 0).count();
        assert_eq!(aside.search("x", 1000).unwrap().len(), 3 * salted);
    }

    #[test]
    fn a_new_index_numbers_its_first_generation_after_the_floor_on_either_path() {
        for side_min_edges in [1, usize::MAX] {
            let dir = tempfile::tempdir().unwrap();
            let mut index = new_index(dir.path(), side_min_edges);
            index.number_after(7);
            let first = batch((0..300).map(|i| owner(i, "")), "fp1");
            assert_eq!(index.publish(first).unwrap().generation, 8, "{side_min_edges}");
            assert_eq!(index.publication().unwrap().unwrap().generation, 8);
            let second = batch((0..300).map(|i| owner(i, "y")), "fp2");
            assert_eq!(index.publish(second).unwrap().generation, 9, "then one by one");
        }
    }

    #[test]
    fn a_publish_aborted_on_the_main_thread_writes_nothing_and_the_next_one_succeeds() {
        let dir = tempfile::tempdir().unwrap();
        let mut index = new_index(dir.path(), 1);
        index.set_publish_hook(Some(Box::new(|p| {
            if p.owners_written == 50 {
                Err("stop".into())
            } else {
                Ok(())
            }
        })));
        let first = batch((0..300).map(|i| owner(i, "")), "fp1");
        let err = index.publish(first.clone()).unwrap_err();
        assert!(matches!(err, IndexError::Aborted { ref reason, .. } if reason == "stop"), "{err:?}");
        assert!(!dir.path().join("index.sqlite").exists());
        index.set_publish_hook(None);
        assert_eq!(index.publish(first).unwrap().generation, 1);
        assert_eq!(index.stats().unwrap().edges, 300 * 120 - 43 * 120);
    }

    #[test]
    fn a_copy_failing_after_the_first_commit_starts_afresh_on_one_thread() {
        let first = batch((0..300).map(|i| owner(i, "")), "fp1");
        let dir = tempfile::tempdir().unwrap();
        let mut index = new_index(dir.path(), 1);
        FAIL_COPY.set(true);
        let outcome = run(&mut index, &first, || (), |_, outcome| outcome).0.unwrap();
        FAIL_COPY.set(false);
        assert!(matches!(outcome, Outcome::Retry));
        // Nothing at the index path; one build file, a fresh one without rows.
        assert!(!dir.path().join("index.sqlite").exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
        let owners: i64 = index.conn.query_row("SELECT count(*) FROM owners", [], |r| r.get(0)).unwrap();
        assert_eq!(owners, 0);

        // Through `Index::publish`, the retry is on one thread and publishes the same rows.
        FAIL_COPY.set(true);
        let report = index.publish(first.clone());
        FAIL_COPY.set(false);
        assert_eq!(report.unwrap().generation, 1);
        let reference = tempfile::tempdir().unwrap();
        let mut inline = new_index(reference.path(), usize::MAX);
        inline.publish(first).unwrap();
        assert_eq!(dump(&index), dump(&inline));
        // No build file is left beside the index (its open connection has WAL files).
        let names: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| !n.starts_with("index.sqlite"))
            .collect();
        assert!(names.is_empty(), "{names:?}");
    }

    /// `publish_with` returns the job's value however the publication goes, and runs it on
    /// another thread when it publishes.
    #[test]
    fn the_job_beside_a_publication_always_runs() {
        let here = std::thread::current().id();
        let elsewhere = || std::thread::current().id() != here;
        let first = batch((0..300).map(|i| owner(i, "")), "fp1");
        for side_min_edges in [1, usize::MAX] {
            let dir = tempfile::tempdir().unwrap();
            let mut index = new_index(dir.path(), side_min_edges);
            let (report, ran_elsewhere) = index.publish_with(first.clone(), elsewhere);
            assert_eq!((report.unwrap().generation, ran_elsewhere), (1, true), "{side_min_edges}");

            let dir = tempfile::tempdir().unwrap();
            let mut index = new_index(dir.path(), side_min_edges);
            index.set_publish_hook(Some(Box::new(|_| Err("stop".into()))));
            let (report, ran_elsewhere) = index.publish_with(first.clone(), elsewhere);
            assert!(matches!(report, Err(IndexError::Aborted { .. })) && ran_elsewhere);
        }
        let mut invalid = first.clone();
        invalid.owners.push(invalid.owners[0].clone());
        let dir = tempfile::tempdir().unwrap();
        let (report, value) = new_index(dir.path(), 1).publish_with(invalid, || 7);
        assert!(matches!(report, Err(IndexError::InvalidBatch { .. })) && value == 7);
    }
}
