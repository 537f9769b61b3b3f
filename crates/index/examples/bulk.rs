//! Informal throughput measurement of a cold publish and an incremental one.
//!
//! ```sh
//! cargo run --release -p docforge-index --example bulk -- [nodes] [edges] [owners]
//! ```
//! Defaults: 150000 nodes, 400000 edges over 3000 owners, in a temporary directory.

use docforge_index::{Batch, FileRecord, Index, Owner};
use docforge_model::{Edge, Fragment, Location, Node};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::Instant;

fn fragment(owner: usize, nodes: usize, edges: usize, total_nodes: usize, salt: &str) -> Fragment {
    let path = format!("pkg{owner}/file.go");
    let ns = (0..nodes)
        .map(|i| Node {
            id: format!("go:example.com/p{owner}::Sym{i}"),
            kind: if i == 0 { "package".into() } else { "func".into() },
            title: format!("Sym{i} handler{salt}"),
            location: Some(Location::new(&path, i as u32 + 1, 1)),
            text: format!("func Sym{i} validates token rotation for owner {owner} {salt}"),
            attrs: [("test".to_string(), (i % 7 == 0).to_string())].into_iter().collect(),
        })
        .collect();
    let es = (0..edges)
        .map(|i| {
            let target = (owner * 31 + i * 17) % total_nodes.max(1);
            Edge::new(
                format!("go:example.com/p{owner}::Sym{}", i % nodes.max(1)),
                ["calls", "contains", "imports", "implements"][i % 4],
                format!("go:example.com/p{}::Sym{}", target / nodes.max(1), target % nodes.max(1)),
            )
            .at(Location::new(&path, i as u32 + 1, 5))
        })
        .collect();
    Fragment { nodes: ns, edges: es, ..Default::default() }
}

fn owner(key: String, fragment: Fragment) -> Owner {
    let digest: [u8; 32] = Sha256::digest(format!("{fragment:?}")).into();
    Owner { key, digest, fragment: Arc::new(fragment) }
}

/// CPU time this process has spent on a CPU (Linux `/proc/self/schedstat`), to report a figure
/// that does not depend on how busy a shared machine is.
fn cpu_secs() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (nodes, edges, owners) =
        (*args.first().unwrap_or(&150_000), *args.get(1).unwrap_or(&400_000), *args.get(2).unwrap_or(&3000));
    let (npo, epo) = (nodes / owners, edges / owners);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(".docforge/index.sqlite");

    let t = Instant::now();
    let mut all: Vec<Owner> =
        (0..owners).map(|o| owner(format!("pkg:p{o}"), fragment(o, npo, epo, nodes, ""))).collect();
    let files = (0..owners)
        .map(|o| FileRecord {
            path: format!("pkg{o}/file.go"),
            size: 1000,
            mtime_ns: 1,
            ctime_ns: 1,
            ino: 1,
            racy: false,
            sha256: "0".repeat(64),
            kind: "go".into(),
            status: "indexed".into(),
        })
        .collect::<Vec<_>>();
    println!("generated {} owners in {:.2?}", owners, t.elapsed());

    let mut index = Index::open(&path).expect("open");
    let batch =
        Batch { files, owners: all.clone(), source_fingerprint: "a".repeat(64), meta: Default::default() };
    let cpu0 = cpu_secs();
    let t = Instant::now();
    let inserted = Arc::new(std::sync::Mutex::new(None));
    let mark = inserted.clone();
    index.set_publish_hook(Some(Box::new(move |p| {
        if p.owners_written == p.owners_to_write {
            *mark.lock().expect("lock") = Some(t.elapsed());
        }
        Ok(())
    })));
    let report = index.publish(batch.clone()).expect("publish");
    let secs = t.elapsed().as_secs_f64();
    let cpu = cpu_secs().zip(cpu0).map(|(b, a)| b - a);
    index.set_publish_hook(None);
    let inserted = inserted.lock().expect("lock").unwrap_or_default();
    println!("  row inserts done after {inserted:.2?}; index + FTS build + commit took the rest");
    println!(
        "cold publish: {} rows in {:.3}s = {:.0} rows/s (generation {})",
        report.rows_written,
        secs,
        report.rows_written as f64 / secs,
        report.generation
    );
    if let Some(cpu) = cpu {
        println!("  on-CPU time {cpu:.3}s = {:.0} rows per CPU-second", report.rows_written as f64 / cpu);
    }

    all[owners / 2] =
        owner(format!("pkg:p{}", owners / 2), fragment(owners / 2, npo, epo, nodes, " changed"));
    let t = Instant::now();
    let report = index.publish(Batch { owners: all.clone(), ..batch.clone() }).expect("publish");
    println!(
        "one-owner incremental publish: {} owners written, {} rows, {:.2?}",
        report.owners_written,
        report.rows_written,
        t.elapsed()
    );

    let t = Instant::now();
    let report = index.publish(Batch { owners: all, ..batch }).expect("publish");
    println!(
        "no-op publish: generation {} noop={} in {:.2?}",
        report.generation,
        report.is_noop(),
        t.elapsed()
    );

    let t = Instant::now();
    let hits = index.search("token rotation", 20).expect("search");
    println!("search: {} hits in {:.2?}", hits.len(), t.elapsed());
    let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
    println!("database size: {:.1} MiB", size as f64 / (1024.0 * 1024.0));
}
