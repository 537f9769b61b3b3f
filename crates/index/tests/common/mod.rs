//! Shared builders for the index integration tests.
#![allow(dead_code)]

use docforge_index::{Batch, FileRecord, Owner};
use docforge_model::{Diagnostic, Edge, Fragment, Location, Node};
use sha2::{Digest, Sha256};
use std::sync::Arc;

pub fn node(id: &str, kind: &str, title: &str, text: &str) -> Node {
    Node {
        id: id.to_string(),
        kind: kind.to_string(),
        title: title.to_string(),
        location: Some(Location::new("docs/a.md", 3, 1)),
        text: text.to_string(),
        attrs: Default::default(),
    }
}

/// An owner whose digest is derived from the fragment's contents.
pub fn owner(key: &str, fragment: Fragment) -> Owner {
    let digest: [u8; 32] = Sha256::digest(format!("{key}\0{fragment:?}")).into();
    Owner { key: key.to_string(), digest, fragment: Arc::new(fragment) }
}

/// A document owner: one document node, `sections` section nodes, `contains` edges, and one
/// diagnostic. `salt` changes the text (and so the digest).
pub fn doc_owner(name: &str, sections: usize, salt: &str) -> Owner {
    let doc = format!("doc.{name}");
    let mut nodes =
        vec![node(&doc, "document", &format!("Document {name}"), &format!("about {name} {salt}"))];
    let mut edges = Vec::new();
    for s in 0..sections {
        let id = format!("{doc}#s{s}");
        nodes.push(node(
            &id,
            "section",
            &format!("Section {s} of {name}"),
            &format!("section text {s} {salt}"),
        ));
        edges.push(Edge::new(&doc, "contains", &id).at(Location::new(
            format!("docs/{name}.md"),
            s as u32 + 2,
            1,
        )));
    }
    edges.push(Edge::new(&doc, "governs", "go:example.com/shop::Service"));
    let diagnostics = vec![Diagnostic::warning("broken_link", format!("link in {name} is broken"))
        .on(&doc)
        .at(Location::new(format!("docs/{name}.md"), 1, 1))];
    owner(&format!("file:docs/{name}.md"), Fragment { nodes, edges, diagnostics, logic: vec![] })
}

pub fn file(path: &str, kind: &str) -> FileRecord {
    FileRecord {
        path: path.to_string(),
        size: 42,
        mtime_ns: 1_700_000_000_123_456_789,
        ctime_ns: 1_700_000_000_123_456_789,
        ino: 1,
        racy: false,
        sha256: hex::encode(Sha256::digest(path.as_bytes())),
        kind: kind.to_string(),
        status: "indexed".to_string(),
    }
}

pub fn batch(owners: Vec<Owner>, fingerprint: &str) -> Batch {
    let files =
        owners.iter().filter_map(|o| o.key.strip_prefix("file:")).map(|p| file(p, "markdown")).collect();
    let meta = [("precision".to_string(), "ast".to_string()), ("project_id".to_string(), "shop".to_string())]
        .into_iter()
        .collect();
    Batch { files, owners, source_fingerprint: fingerprint.to_string(), meta }
}

/// `count` document owners named `d0..`, each with `sections` sections.
pub fn docs(count: usize, sections: usize) -> Vec<Owner> {
    (0..count).map(|i| doc_owner(&format!("d{i}"), sections, "")).collect()
}

/// rowids of every node/edge/diagnostic row of one owner, read with a raw connection.
pub fn owner_rowids(path: &std::path::Path, key: &str) -> Vec<(String, i64)> {
    let conn = rusqlite::Connection::open(path).expect("open raw");
    let mut out = Vec::new();
    for table in ["nodes", "edges", "diagnostics"] {
        let sql = format!(
            "SELECT t.rid FROM {table} t JOIN owners o ON o.id = t.owner WHERE o.key = ?1 ORDER BY t.rid"
        );
        let mut stmt = conn.prepare(&sql).expect("prepare");
        let rows = stmt.query_map([key], |r| r.get::<_, i64>(0)).expect("query");
        out.extend(rows.map(|r| (table.to_string(), r.expect("row"))));
    }
    out
}

/// Environment variable naming the index a child test process publishes to.
pub const CHILD_ENV: &str = "DOCFORGE_INDEX_KILL_CHILD_PATH";

/// The marker file a child writes (with the rows written so far) when it pauses mid-publish.
pub fn pause_marker(path: &std::path::Path) -> std::path::PathBuf {
    path.with_extension("paused")
}

/// Publish hook for a child process: at half the owners, write the marker and hang.
pub fn hang_halfway(path: &std::path::Path) -> docforge_index::PublishHook {
    let marker = pause_marker(path);
    Box::new(move |p| {
        if p.owners_written == p.owners_to_write / 2 {
            std::fs::write(&marker, p.rows_written.to_string()).map_err(|e| e.to_string())?;
            std::thread::sleep(std::time::Duration::from_secs(120));
        }
        Ok(())
    })
}

/// Run the ignored test `child` of this test binary against `path`, wait until it pauses
/// inside its publish, SIGKILL it, and return how many rows it had written.
pub fn kill_child_mid_publish(child: &str, path: &std::path::Path) -> usize {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let mut proc = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", child, "--ignored", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, path)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marker = pause_marker(path);
    let deadline = Instant::now() + Duration::from_secs(120);
    while !marker.exists() {
        if let Some(status) = proc.try_wait().unwrap() {
            panic!("child exited early: {status}");
        }
        assert!(Instant::now() < deadline, "child never reached the pause");
        std::thread::sleep(Duration::from_millis(20));
    }
    // The marker may be observed before its contents are written.
    let rows = loop {
        if let Ok(n) = std::fs::read_to_string(&marker).unwrap_or_default().parse() {
            break n;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    proc.kill().unwrap(); // SIGKILL on Unix
    proc.wait().unwrap();
    rows
}
