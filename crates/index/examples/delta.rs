//! Informal measurement of a one-owner change: full publish vs. delta publish.
//!
//! ```sh
//! cargo run --release -p docforge-index --example delta -- [owners] [nodes] [edges] [big_rows]
//! ```
//! Defaults: 7000 owners holding 150000 nodes and 270000 edges; the changed owner has
//! 1000 rows (400 nodes, 600 edges). Each figure is the median of several runs.

use docforge_index::{Batch, Delta, FileRecord, Index, Owner};
use docforge_model::{Edge, Fragment, Location, Node};
use sha2::{Digest, Sha256};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn fragment(owner: usize, nodes: usize, edges: usize, total_nodes: usize, salt: &str) -> Fragment {
    let path = format!("pkg{owner}/file.go");
    let sym = |o: usize, i: usize| format!("go:example.com/p{o}::Sym{i}");
    let ns = (0..nodes)
        .map(|i| Node {
            id: sym(owner, i),
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
            Edge::new(sym(owner, i % nodes.max(1)), ["calls", "contains", "imports", "implements"][i % 4], {
                sym(target / 21, target % 21)
            })
            .at(Location::new(&path, i as u32 + 1, 5))
        })
        .collect();
    Fragment { nodes: ns, edges: es, ..Default::default() }
}

fn owner(key: String, fragment: Fragment) -> Owner {
    let digest: [u8; 32] = Sha256::digest(format!("{fragment:?}")).into();
    Owner { key, digest, fragment: Arc::new(fragment) }
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let arg = |i: usize, d: usize| *args.get(i).unwrap_or(&d);
    let (owners, nodes, edges, big_rows) = (arg(0, 7000), arg(1, 150_000), arg(2, 270_000), arg(3, 1000));
    let (npo, epo) = (nodes / owners, edges / owners);
    let (big_nodes, big_edges) = (big_rows * 2 / 5, big_rows - big_rows * 2 / 5);
    let big = owners / 2;
    let make = |o: usize, salt: &str| {
        let f = if o == big {
            fragment(o, big_nodes, big_edges, nodes, salt)
        } else {
            fragment(o, npo, epo, nodes, salt)
        };
        owner(format!("pkg:p{o}"), f)
    };
    let mut all: Vec<Owner> = (0..owners).map(|o| make(o, "")).collect();
    let files: Vec<FileRecord> = (0..owners)
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
        .collect();

    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path).expect("open");
    let batch =
        Batch { files, owners: all.clone(), source_fingerprint: "fp".into(), meta: Default::default() };
    let t = Instant::now();
    index.publish(batch.clone()).expect("publish");
    let stats = index.stats().expect("stats");
    println!(
        "stored: {} owners, {} nodes, {} edges (cold publish {:.2?}); changed owner: {} rows",
        stats.owners,
        stats.nodes,
        stats.edges,
        t.elapsed(),
        big_nodes + big_edges
    );

    const RUNS: usize = 15;
    let (mut full, mut delta, mut noop, mut small_delta) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for run in 0..RUNS {
        // Full publish of a one-owner change.
        all[big] = make(big, &format!(" full{run}"));
        let t = Instant::now();
        let r = index.publish(Batch { owners: all.clone(), ..batch.clone() }).expect("publish");
        full.push(t.elapsed());
        assert_eq!((r.owners_written, r.rows_written), (1, big_nodes + big_edges));
        let generation = r.generation;

        // The same kind of change as a delta.
        all[big] = make(big, &format!(" delta{run}"));
        let d = Delta {
            base_generation: generation,
            upsert_owners: vec![all[big].clone()],
            source_fingerprint: "fp".into(),
            ..Default::default()
        };
        let t = Instant::now();
        let r = index.publish_delta(d.clone()).expect("delta");
        delta.push(t.elapsed());
        assert_eq!((r.owners_written, r.rows_written), (1, big_nodes + big_edges));

        let t = Instant::now();
        let r = index.publish_delta(Delta { base_generation: r.generation, ..d.clone() }).expect("noop");
        noop.push(t.elapsed());
        assert!(r.is_noop());

        // A delta replacing a small owner: the fixed cost of a delta.
        let small = run * 2 + 1;
        all[small] = make(small, &format!(" small{run}"));
        let t = Instant::now();
        let r = index
            .publish_delta(Delta {
                base_generation: r.generation,
                upsert_owners: vec![all[small].clone()],
                ..d
            })
            .expect("small delta");
        small_delta.push(t.elapsed());
        assert_eq!(r.owners_written, 1);
    }
    let p = index.publication().expect("publication").expect("published");
    assert_eq!(p.graph_digest, docforge_index::graph_digest(&all), "delta kept the graph digest exact");

    // The one O(owners) part of a delta: the ordered key+digest scan behind the graph digest.
    let conn = rusqlite::Connection::open(&path).expect("raw open");
    let mut scans = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let mut stmt = conn.prepare_cached("SELECT key, digest FROM owners ORDER BY key").expect("prepare");
        let mut rows = stmt.query([]).expect("query");
        let mut h = Sha256::new();
        while let Some(row) = rows.next().expect("row") {
            h.update(row.get_ref(0).expect("key").as_bytes().expect("text"));
            h.update(row.get_ref(1).expect("digest").as_blob().expect("blob"));
        }
        std::hint::black_box(h.finalize());
        scans.push(t.elapsed());
    }
    println!("median of {RUNS} runs:");
    println!("  full publish, one owner changed:   {:.2?}", median(full));
    println!("  delta publish, one owner replaced: {:.2?}", median(delta));
    println!("  delta publish, {:>3} rows replaced: {:.2?}", npo + epo, median(small_delta));
    println!("  no-op delta:                       {:.2?}", median(noop));
    println!("  graph-digest scan of {} owners:  {:.2?}", stats.owners, median(scans));
}
