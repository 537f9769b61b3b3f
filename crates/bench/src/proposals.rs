//! The `proposals` phase: `register_changes` of a 5-operation changeset on a project of
//! 1,000 real Markdown documents (the render phase's corpus: the machine's crate sources, Go
//! module cache and an optional directory, the first 1,000 by path), warm — the binding has
//! published its index and answers from it, as the MCP server does between calls.
//!
//! Each repetition registers one changeset touching five other documents (a front-matter
//! field, a section's body, a relation added, a new document, a document moved), as the
//! MCP tool does it: the binding proven current, then `Proposals::register` (the store's
//! lock, projection, validation against the index, overlap with every stored changeset, the
//! durable write). The changeset is abandoned afterwards (not timed), so the store grows as
//! a real one does. The floor, measured in the same run: reading and parsing the five
//! touched files with the engine's Markdown parser. `DOCFORGE_BENCH_REPS` (default 21)
//! repetitions; `DOCFORGE_BENCH_KEEP=1` keeps the project.

use crate::render::{build_corpus_in, median, timed};
use crate::{fmt_ms, THREADS};
use docforge_proposals::{Operation, Proposals};
use docforge_workspace::{Options, Workspace};
use serde_json::json;
use std::path::Path;

const CONFIG: &str = r#"schema_version = 1

[project]
id = "bench-proposals"

[sources]
docs = ["docs/**/*.md"]
go = []

[application]
applier = "markdown-toml@1"
writer = "bench-applier"
content_roots = ["docs"]
"#;

const DOCUMENTS: usize = 1000;

pub fn proposals(extra: Option<&Path>) -> serde_json::Value {
    let reps: usize =
        std::env::var("DOCFORGE_BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(21).max(1);
    let (root, _) = build_corpus_in("docforge-bench-proposals", CONFIG, extra, Some(DOCUMENTS));
    std::thread::sleep(docforge_project::RACY_WINDOW + std::time::Duration::from_millis(100));
    let opts = Options { threads: Some(THREADS), watch: true, ..Default::default() };
    let mut ws = Workspace::bind(&root, opts).unwrap();
    let (index_ms, _, _) = timed(|| ws.ensure_current(true).unwrap());
    // Documents with a section and without an ID of their own are the ones we touch: their
    // (path, ID, first section ID).
    let all = ws.index().nodes_of_kinds(&["document"]).unwrap();
    let documents = all.len();
    let docs: Vec<(String, String, String)> = {
        let index = ws.index();
        let mut v: Vec<(String, String, String)> = all
            .into_iter()
            .filter_map(|n| {
                let path = n.location?.path;
                let section = index.ids_with_prefix(&format!("{}#", n.id), 1).ok()?.into_iter().next()?;
                Some((path, n.id, section))
            })
            .collect();
        v.sort();
        v
    };
    assert!(
        docs.len() >= 10 * reps,
        "the corpus has {} documents with a section; {reps} repetitions need {}",
        docs.len(),
        10 * reps
    );
    let mut register = Vec::new();
    let mut floor = Vec::new();
    let mut statuses = Vec::new();
    let mut errors = std::collections::BTreeMap::new();
    for r in 0..reps {
        let d = &docs[r * 5..r * 5 + 5];
        let ops = vec![
            json!({"op": "node_update", "node_id": d[0].1, "fields": {"status": format!("reviewed-{r}")}}),
            json!({"op": "node_update", "node_id": d[1].2, "body": format!("Rewritten in repetition {r}.")}),
            json!({"op": "relationship_update", "node_id": d[2].1, "add": [{"relation": "relates_to", "target": d[1].1}]}),
            json!({"op": "node_create", "node_id": format!("bench.new.{r}"), "path": format!("docs/bench-new/{r}.md"), "title": format!("New {r}"), "body": format!("See [[{}]].", d[3].1)}),
            json!({"op": "node_move", "node_id": d[4].1, "new_path": format!("docs/bench-moved/{r}.md")}),
        ];
        let ops: Vec<Operation> = ops.into_iter().map(|o| Operation::from_json(o).unwrap()).collect();
        let (fw, fc, _) = timed(|| {
            for (path, _, _) in d {
                let bytes = std::fs::read(root.join(path)).unwrap();
                std::hint::black_box(docforge_docs::parse_markdown_bytes(path, &bytes));
            }
        });
        floor.push((fw, fc));
        let (w, c, cs) = timed(|| {
            let g = ws.ensure_current(false).unwrap().generation;
            Proposals::of(&ws, &g, Some("bench"), std::time::SystemTime::now())
                .register("bench", None, ops)
                .unwrap()
        });
        register.push((w, c));
        statuses.push(cs.status);
        for i in cs.validation.iter().filter(|i| i.severity == docforge_proposals::Severity::Error) {
            *errors.entry(i.code.clone()).or_insert(0usize) += 1;
        }
        let g = ws.ensure_current(false).unwrap().generation;
        Proposals::of(&ws, &g, Some("bench"), std::time::SystemTime::now())
            .abandon(&cs.changeset_id, "bench")
            .unwrap();
    }
    // Application: a 5-file changeset (three fields, a section's body, a new document) on
    // other documents, applied with the index refresh, timed; registering it is not.
    let mut apply = Vec::new();
    let mut degraded = 0;
    let offset = reps * 5;
    for r in 0..reps {
        let Some(d) = docs.get(offset + r * 5..offset + r * 5 + 5) else { break };
        let ops = vec![
            json!({"op": "node_update", "node_id": d[0].1, "fields": {"status": format!("applied-{r}")}}),
            json!({"op": "node_update", "node_id": d[1].1, "fields": {"status": format!("applied-{r}")}}),
            json!({"op": "node_update", "node_id": d[2].1, "fields": {"status": format!("applied-{r}")}}),
            json!({"op": "node_update", "node_id": d[3].2, "body": format!("Applied in repetition {r}.")}),
            json!({"op": "node_create", "node_id": format!("bench.applied.{r}"), "path": format!("docs/bench-applied/{r}.md"), "title": format!("Applied {r}")}),
        ];
        let ops: Vec<Operation> = ops.into_iter().map(|o| Operation::from_json(o).unwrap()).collect();
        let g = ws.ensure_current(false).unwrap().generation;
        let cs = Proposals::of(&ws, &g, Some("bench"), std::time::SystemTime::now())
            .register("apply", None, ops)
            .unwrap();
        if cs.status != docforge_proposals::Status::Ready {
            continue;
        }
        let (w, c, a) = timed(|| {
            docforge_proposals::apply::apply(
                &mut ws,
                &docforge_proposals::apply::MarkdownToml,
                "bench-applier",
                &cs.changeset_id,
                &cs.changeset_sha256,
                std::time::SystemTime::now(),
            )
            .unwrap()
        });
        degraded += usize::from(a.refresh.state != "ok");
        apply.push((w, c));
    }
    drop(ws);
    if std::env::var_os("DOCFORGE_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&root);
    }
    let walls: Vec<f64> = register.iter().map(|x| x.0).collect();
    let cpus: Vec<f64> = register.iter().map(|x| x.1).collect();
    let mut sorted = walls.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let p90 = sorted[(sorted.len() * 9 / 10).min(sorted.len() - 1)];
    let (p50, cpu50) = (median(&walls), median(&cpus));
    let floor50 = median(&floor.iter().map(|x| x.0).collect::<Vec<_>>());
    let ready = statuses.iter().filter(|s| **s == docforge_proposals::Status::Ready).count();
    println!("corpus: {documents} documents indexed in {} ({THREADS} threads)", fmt_ms(index_ms));
    println!();
    println!("| measure ({reps} changesets of 5 operations) | p50 | p90 | CPU p50 | goal |");
    println!("| --- | ---: | ---: | ---: | --- |");
    println!(
        "| register_changes, warm | {} | {} | {} | ≤ 50 ms p50 ({}) |",
        fmt_ms(p50),
        fmt_ms(p90),
        fmt_ms(cpu50),
        if p50 <= 50.0 { "met" } else { "not met" }
    );
    println!("| floor: read and parse the 5 files | {} | | | |", fmt_ms(floor50));
    let apply_walls: Vec<f64> = apply.iter().map(|x| x.0).collect();
    let apply_cpu: Vec<f64> = apply.iter().map(|x| x.1).collect();
    let (apply50, apply_cpu50) =
        if apply.is_empty() { (f64::NAN, f64::NAN) } else { (median(&apply_walls), median(&apply_cpu)) };
    let mut sorted = apply_walls.clone();
    sorted.sort_by(|a, b| a.total_cmp(b));
    let apply90 =
        sorted.get((sorted.len() * 9 / 10).min(sorted.len().saturating_sub(1))).copied().unwrap_or(f64::NAN);
    println!(
        "| apply_changeset of 5 files with the index refresh, warm ({} changesets) | {} | {} | {} | ≤ 200 ms p50 ({}) |",
        apply.len(),
        fmt_ms(apply50),
        fmt_ms(apply90),
        fmt_ms(apply_cpu50),
        if apply50 <= 200.0 { "met" } else { "not met" }
    );
    println!("{ready} of {reps} changesets ready; errors found in the others: {errors:?}");
    json!({
        "phase": "proposals",
        "documents": documents,
        "reps": reps,
        "register_p50_ms": p50,
        "register_p90_ms": p90,
        "register_cpu_p50_ms": cpu50,
        "floor_p50_ms": floor50,
        "ready": ready,
        "apply_p50_ms": apply50,
        "apply_p90_ms": apply90,
        "apply_cpu_p50_ms": apply_cpu50,
        "applied": apply.len(),
        "apply_degraded": degraded,
        "errors": errors,
    })
}
