//! Opening, refusing and recreating index files.

mod common;

use common::{batch, docs};
use docforge_index::{Index, IndexError, SCHEMA_VERSION};
use std::path::Path;

fn raw(path: &Path) -> rusqlite::Connection {
    rusqlite::Connection::open(path).expect("raw open")
}

#[test]
fn open_creates_the_parent_directory_and_the_first_publish_a_wal_index() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nested/.docforge/index.sqlite");
    let mut index = Index::open(&path).unwrap();
    assert!(path.parent().unwrap().is_dir());
    assert_eq!(index.publication().unwrap(), None, "nothing published yet");
    assert_eq!(index.stats().unwrap().generation, 0);
    index.publish(batch(docs(2, 1), "fp")).unwrap();
    drop(index);
    let conn = raw(&path);
    let mode: String = conn.query_row("PRAGMA journal_mode", [], |r| r.get(0)).unwrap();
    assert_eq!(mode, "wal");
    let version: String =
        conn.query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0)).unwrap();
    assert_eq!(version, SCHEMA_VERSION.to_string());
    // Reopening an existing index keeps it.
    drop(conn);
    Index::open(&path).unwrap().integrity_check().unwrap();
}

/// An index path that is a symlink is never opened through: both opens refuse it, and
/// recreating removes the link, never what it points to.
#[test]
fn a_symlinked_index_path_is_refused_and_recreated_without_touching_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("elsewhere.sqlite");
    Index::open(&target).unwrap().publish(batch(docs(1, 1), "fp")).unwrap();
    let before = std::fs::read(&target).unwrap();
    let path = dir.path().join(".docforge/index.sqlite");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::os::unix::fs::symlink(&target, &path).unwrap();
    for result in [Index::open(&path), Index::open_read_only(&path)] {
        let err = result.unwrap_err();
        assert!(matches!(err, IndexError::Corrupt { .. }), "{err:?}");
        assert!(err.to_string().contains("the index path is a symlink; refused"), "{err}");
    }
    let mut index = Index::recreate(&path).unwrap();
    index.publish(batch(docs(2, 1), "fp2")).unwrap();
    assert!(std::fs::symlink_metadata(&path).unwrap().file_type().is_file());
    assert_eq!(std::fs::read(&target).unwrap(), before, "the link's target is untouched");
}

#[test]
fn refuses_other_schema_versions_and_foreign_databases_without_touching_them() {
    let dir = tempfile::tempdir().unwrap();
    let cases: &[(&str, &str, &str)] = &[
        ("future", "UPDATE meta SET value = '99' WHERE key = 'schema_version'", "99"),
        ("older", "UPDATE meta SET value = '1' WHERE key = 'schema_version'", "1"),
        ("garbled", "UPDATE meta SET value = 'one' WHERE key = 'schema_version'", "one"),
        ("missing", "DELETE FROM meta WHERE key = 'schema_version'", "missing"),
    ];
    for (name, sql, found_want) in cases {
        let path = dir.path().join(format!("{name}.sqlite"));
        Index::open(&path).unwrap().publish(batch(docs(1, 1), "fp")).unwrap();
        raw(&path).execute(sql, []).unwrap();
        for result in [Index::open(&path), Index::open_read_only(&path)] {
            match result {
                Err(IndexError::SchemaMismatch { found, expected, path: p }) => {
                    assert_eq!(&found, found_want, "{name}");
                    assert_eq!(expected, SCHEMA_VERSION);
                    assert!(p.ends_with(format!("{name}.sqlite")), "{p:?}");
                }
                other => panic!("{name}: expected SchemaMismatch, got {other:?}"),
            }
        }
    }

    // A SQLite database that is not a DocForge index is refused and left as it was.
    let foreign = dir.path().join("foreign.sqlite");
    raw(&foreign)
        .execute_batch("CREATE TABLE people(name TEXT); INSERT INTO people VALUES ('ada');")
        .unwrap();
    let err = Index::open(&foreign).unwrap_err();
    assert!(matches!(err, IndexError::SchemaMismatch { .. }), "{err:?}");
    assert!(err.to_string().contains("foreign.sqlite"), "{err}");
    let n: i64 = raw(&foreign).query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0)).unwrap();
    assert_eq!(n, 1, "the foreign database gained no tables");
}

#[test]
fn non_sqlite_and_truncated_files_are_corrupt_not_panics() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.sqlite");
    let mut index = Index::open(&good).unwrap();
    index.publish(batch(docs(20, 5), "fp")).unwrap();
    drop(index);
    let bytes = std::fs::read(&good).unwrap();

    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("text", b"this is not a database, just some text that is long enough".repeat(100)),
        ("zeros-header", {
            let mut b = bytes.clone();
            b[..100].fill(0);
            b
        }),
    ];
    for (name, content) in cases {
        let path = dir.path().join(format!("{name}.sqlite"));
        std::fs::write(&path, &content).unwrap();
        for result in [Index::open(&path), Index::open_read_only(&path)] {
            let err = result.unwrap_err();
            assert!(matches!(err, IndexError::Corrupt { .. }), "{name}: {err:?}");
            assert!(err.to_string().contains(&format!("{name}.sqlite")), "{err}");
        }
        assert_eq!(std::fs::read(&path).unwrap(), content, "{name}: file left untouched");
        // The index is disposable: recreate replaces it with an empty, working one.
        let mut index = Index::recreate(&path).unwrap();
        assert_eq!(index.publication().unwrap(), None);
        assert_eq!(index.publish(batch(docs(2, 1), "fp")).unwrap().generation, 1);
        index.integrity_check().unwrap();
    }
}

#[test]
fn read_only_open_never_creates_and_never_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("absent/index.sqlite");
    let err = Index::open_read_only(&path).unwrap_err();
    assert!(matches!(err, IndexError::Missing { .. }), "{err:?}");
    assert!(!path.exists() && !path.parent().unwrap().exists());

    let path = dir.path().join("index.sqlite");
    Index::open(&path).unwrap().publish(batch(docs(3, 2), "fp1")).unwrap();
    let mut ro = Index::open_read_only(&path).unwrap();
    assert_eq!(ro.publication().unwrap().unwrap().generation, 1);
    let err = ro.publish(batch(docs(1, 1), "fp2")).unwrap_err();
    assert!(matches!(err, IndexError::InvalidBatch { .. }), "{err:?}");
    assert_eq!(ro.publication().unwrap().unwrap().source_fingerprint, "fp1");
}

/// A snapshot read leaves nothing beside an index no connection has open, and reads the same
/// generation as an ordinary read.
#[test]
fn a_snapshot_read_creates_no_side_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("idx #1?%.sqlite");
    Index::open(&path).unwrap().publish(batch(docs(3, 1), "fp")).unwrap();
    let names = || {
        let mut n: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        n.sort();
        n
    };
    assert_eq!(names(), ["idx #1?%.sqlite"]);
    let before = std::fs::read(&path).unwrap();
    let snapshot = Index::open_snapshot(&path).unwrap();
    let ordinary_publication = snapshot.publication().unwrap().unwrap();
    assert_eq!(snapshot.stats().unwrap().generation, ordinary_publication.generation);
    drop(snapshot);
    assert_eq!(names(), ["idx #1?%.sqlite"], "no -wal or -shm left");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    // While another connection has it open, the snapshot reads through the live side files.
    let reader = Index::open_read_only(&path).unwrap();
    assert!(names().len() > 1, "{:?}", names());
    assert_eq!(
        Index::open_snapshot(&path).unwrap().publication().unwrap().unwrap().generation,
        ordinary_publication.generation
    );
    drop(reader);
    assert!(matches!(Index::open_snapshot(&dir.path().join("missing")), Err(IndexError::Missing { .. })));
}
