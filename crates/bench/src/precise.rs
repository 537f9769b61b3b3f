//! The `precise` phase: a cold index with the Go semantic layer (types, implements, call
//! resolution with CHA, Logic), then in-memory body edits of one file re-derived and
//! published.

use crate::{edit_text, ms, peak_rss_kb, EDIT_FILE, THREADS};
use docforge_db::{AnalysisHost, AstPolicy, Change, Content, FileChange};
use docforge_index::Index;
use docforge_project::{FileKind, Project};
use std::path::Path;
use std::time::Instant;

pub fn precise(corpus: &Path) -> serde_json::Value {
    let index_dir = crate::scratch_dir("docforge-bench-precise");
    let _ = std::fs::remove_dir_all(&index_dir);
    let t0 = Instant::now();
    let mut host = AnalysisHost::new(Project::load(corpus).unwrap(), AstPolicy::Allow);
    host.set_precise(true);
    host.sync_from_disk();
    host.analysis().prewarm(THREADS).unwrap();
    let graph = host.analysis().graph().unwrap();
    let mut index = Index::recreate(&index_dir.join("index.sqlite")).unwrap();
    host.publish(&mut index).unwrap();
    let cold = t0.elapsed();
    let rss = peak_rss_kb();
    // The content identity of the precise graph (equal across changes that must not change it).
    let graph_digest = index.publication().unwrap().map(|p| p.graph_digest);
    let stats = index.stats().unwrap();
    let count = |rel: &str| stats.edges_by_relation.get(rel).copied().unwrap_or(0);

    let text = std::fs::read_to_string(host.project().root.join(EDIT_FILE)).unwrap();
    let mut edit_ms = Vec::new();
    for i in 0..21 {
        let content = Content::Bytes(edit_text(&text, i, true).into_bytes().into());
        host.apply_change(Change {
            files: vec![FileChange::Set { rel: EDIT_FILE.into(), kind: FileKind::Go, content }],
            ..Default::default()
        });
        let t = Instant::now();
        host.analysis().graph().unwrap();
        host.publish(&mut index).unwrap();
        if i > 0 {
            edit_ms.push(ms(t.elapsed()));
        }
    }
    edit_ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let _ = std::fs::remove_dir_all(&index_dir);
    serde_json::json!({
        "cold_ms": ms(cold),
        "peak_rss_kb": rss,
        "graph_digest": graph_digest,
        "precision": graph.summary.precision.map(|p| p.as_str()),
        "implements": count("implements"),
        "calls": count("calls"),
        "logic": stats.logic,
        "edit_memory_ms": edit_ms[edit_ms.len() / 2],
    })
}
