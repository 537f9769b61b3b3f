//! The version-1 DDL and the checks that refuse anything else.

use crate::error::{IndexError, SqlContext};
use crate::SCHEMA_VERSION;
use rusqlite::{Connection, OptionalExtension, TransactionBehavior};
use std::path::Path;

/// `PRAGMA application_id` of a DocForge index ("DFIX").
pub(crate) const APPLICATION_ID: i32 = 0x4446_4958;

/// Larger pages mean fewer b-tree splits during bulk writes of short rows. (16 and 32 KiB
/// pages published std ~0.2 s faster, 1.03 s against 1.25 s, but a precise index's peak RSS
/// rose 1.22 → 1.36 GB — the 64 MiB page cache fills with them; with a 16 MiB cache the peak
/// was back and the publication timing unclear — so the page size stays 8 KiB.)
pub(crate) const PAGE_SIZE: i64 = 8192;

pub(crate) const TABLES: &[&str] =
    &["meta", "owners", "nodes", "edges", "diagnostics", "logic", "files", "transition", "nodes_fts"];

/// Secondary indexes as `(name, CREATE statement)`. A bulk publish drops and recreates them.
pub(crate) const INDEXES: &[(&str, &str)] = &[
    ("nodes_by_id", "CREATE INDEX nodes_by_id ON nodes(id)"),
    ("edges_by_source", "CREATE INDEX edges_by_source ON edges(source)"),
    ("edges_by_target", "CREATE INDEX edges_by_target ON edges(target)"),
    ("diagnostics_by_node", "CREATE INDEX diagnostics_by_node ON diagnostics(node)"),
];

const DDL: &str = r#"
CREATE TABLE meta(
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE owners(
    id         INTEGER PRIMARY KEY,
    key        TEXT NOT NULL UNIQUE,
    digest     BLOB NOT NULL,
    generation INTEGER NOT NULL,
    -- An owner's rows are inserted consecutively, so each table holds them in one rid range
    -- [lo, hi]; deleting by range needs no owner index. NULL when the owner has no such rows.
    node_lo INTEGER, node_hi INTEGER,
    edge_lo INTEGER, edge_hi INTEGER,
    diag_lo INTEGER, diag_hi INTEGER,
    logic_lo INTEGER, logic_hi INTEGER
);

CREATE TABLE nodes(
    rid   INTEGER PRIMARY KEY,
    owner INTEGER NOT NULL,
    id    TEXT NOT NULL,
    kind  TEXT NOT NULL,
    title TEXT NOT NULL,
    path  TEXT,
    line  INTEGER,
    col   INTEGER,
    -- Before `text`: a scan that reads a node's attributes does not walk its text.
    attrs TEXT,
    text  TEXT NOT NULL,
    -- Search only (see `fts::keys`; a section's also holds its document's title): the ID
    -- without its scheme (a Go symbol's package path reduced to its last element) and the
    -- identifier parts of the ID and title; the identifier parts of `text`.
    keys  TEXT NOT NULL,
    words TEXT NOT NULL
);

CREATE TABLE edges(
    rid      INTEGER PRIMARY KEY,
    owner    INTEGER NOT NULL,
    source   TEXT NOT NULL,
    relation TEXT NOT NULL,
    class    TEXT NOT NULL,
    target   TEXT NOT NULL,
    path     TEXT,
    line     INTEGER,
    col      INTEGER,
    attrs    TEXT
);

CREATE TABLE diagnostics(
    rid      INTEGER PRIMARY KEY,
    owner    INTEGER NOT NULL,
    severity TEXT NOT NULL,
    code     TEXT NOT NULL,
    message  TEXT NOT NULL,
    node     TEXT,
    path     TEXT,
    line     INTEGER,
    col      INTEGER
);

-- Logic projections, beside the graph: never in nodes/edges/FTS.
CREATE TABLE logic(
    rid   INTEGER PRIMARY KEY,
    owner INTEGER NOT NULL,
    node  TEXT NOT NULL,
    steps INTEGER NOT NULL,
    body  TEXT NOT NULL
);

CREATE TABLE files(
    path     TEXT PRIMARY KEY NOT NULL,
    size     INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    ino      INTEGER NOT NULL,
    racy     INTEGER NOT NULL,
    sha256   TEXT NOT NULL,
    kind     TEXT NOT NULL,
    status   TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE transition(
    owner_key  TEXT PRIMARY KEY NOT NULL,
    change     TEXT NOT NULL CHECK (change IN ('added', 'changed', 'removed')),
    old_digest BLOB,
    new_digest BLOB
) WITHOUT ROWID;

CREATE VIRTUAL TABLE nodes_fts USING fts5(
    title, text, keys, words,
    content = 'nodes', content_rowid = 'rid',
    tokenize = 'porter unicode61 remove_diacritics 2'
);
"#;

/// Connection settings shared by writers and readers.
pub(crate) fn configure(conn: &Connection, path: &Path, writable: bool) -> Result<(), IndexError> {
    conn.busy_timeout(std::time::Duration::from_secs(10)).ctx(path)?;
    // A cached statement keeps its plan when new values are bound (the bundled SQLite would
    // otherwise prepare a statement again for each new binding its statistics could plan
    // differently: most of the cost of reading many nodes one by one).
    conn.set_db_config(rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG, true).ctx(path)?;
    if writable {
        conn.pragma_update(None, "synchronous", "NORMAL").ctx(path)?;
    }
    conn.pragma_update(None, "cache_size", -65536).ctx(path)?;
    conn.pragma_update(None, "temp_store", "MEMORY").ctx(path)?;
    Ok(())
}

/// Create the schema in an empty database, or check the one that is there.
pub(crate) fn ensure(conn: &mut Connection, path: &Path) -> Result<(), IndexError> {
    if object_count(conn, path)? > 0 {
        return check(conn, path);
    }
    create(conn, path, "WAL")
}

/// Create the schema in an empty database with the given journal mode (`WAL` for a shared
/// index; a private build file uses `MEMORY`). Another process may create the schema while
/// this one waits for the lock; then the schema is checked instead.
pub(crate) fn create(conn: &mut Connection, path: &Path, journal_mode: &str) -> Result<(), IndexError> {
    // Page size only takes effect on an empty file, before WAL is switched on.
    conn.pragma_update(None, "page_size", PAGE_SIZE).ctx(path)?;
    // The journal mode must be set outside a transaction; WAL is persistent in the file.
    let mode: String =
        conn.query_row(&format!("PRAGMA journal_mode={journal_mode}"), [], |r| r.get(0)).ctx(path)?;
    if !mode.eq_ignore_ascii_case(journal_mode) {
        return Err(IndexError::Corrupt {
            path: path.to_path_buf(),
            detail: format!("cannot switch to {journal_mode} journal mode (got {mode})"),
        });
    }
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate).ctx(path)?;
    if object_count(&tx, path)? > 0 {
        drop(tx);
        return check(conn, path);
    }
    tx.execute_batch(DDL).ctx(path)?;
    for (_, create) in INDEXES {
        tx.execute(create, []).ctx(path)?;
    }
    tx.pragma_update(None, "application_id", APPLICATION_ID).ctx(path)?;
    tx.execute(
        "INSERT INTO meta(key, value) VALUES ('schema_version', ?1), ('generation', '0')",
        [SCHEMA_VERSION.to_string()],
    )
    .ctx(path)?;
    tx.commit().ctx(path)
}

fn object_count(conn: &Connection, path: &Path) -> Result<i64, IndexError> {
    conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| r.get(0)).ctx(path)
}

/// Refuse a database that is not a version-[`SCHEMA_VERSION`] DocForge index.
pub(crate) fn check(conn: &Connection, path: &Path) -> Result<(), IndexError> {
    let mismatch = |found: String| IndexError::SchemaMismatch {
        path: path.to_path_buf(),
        found,
        expected: SCHEMA_VERSION,
    };
    let app_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0)).ctx(path)?;
    let has_meta: bool = conn
        .query_row("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'meta'", [], |r| {
            r.get::<_, i64>(0)
        })
        .ctx(path)?
        > 0;
    if app_id != APPLICATION_ID || !has_meta {
        return Err(mismatch("none (not a DocForge index)".to_string()));
    }
    let found: Option<String> = conn
        .query_row("SELECT value FROM meta WHERE key = 'schema_version'", [], |r| r.get(0))
        .optional()
        .ctx(path)?;
    match found {
        Some(v) if v == SCHEMA_VERSION.to_string() => {}
        Some(v) => return Err(mismatch(v)),
        None => return Err(mismatch("missing".to_string())),
    }
    for table in TABLES {
        let n: i64 = conn
            .query_row(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .ctx(path)?;
        if n == 0 {
            return Err(IndexError::Corrupt {
                path: path.to_path_buf(),
                detail: format!("schema version {SCHEMA_VERSION} but table `{table}` is missing"),
            });
        }
    }
    Ok(())
}
