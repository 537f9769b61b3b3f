//! The commands: each loads the project, asks the engine or the index, and renders.

use crate::output::{self, print_json};
use crate::progress::Progress;
use crate::stdout::{out, outln};
use docforge_db::{published_summary, Summary, ENGINE_VERSION};
use docforge_index::Index;
use docforge_index::PublishReport;
use docforge_workspace::{Options, Precision, Workspace};
use serde_json::json;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Instant;

/// Bind the project at `root` for a one-shot command (`no_ast`: the no-AST binding's index).
fn bind(root: &Path, no_ast: bool) -> Result<Workspace, String> {
    Workspace::bind(root, Options { no_ast, ..Default::default() }).map_err(|e| e.to_string())
}

/// The published index for a read, and whether it was derived from the sources as they are
/// now (same engine, same `docforge.toml`, every file with its recorded size and mtime).
/// Reads never re-analyse: when the index is older, a note on stderr says so.
fn open_for_read(root: &Path, no_ast: bool) -> Result<(Index, bool), String> {
    read_published(&bind(root, no_ast)?, no_ast)
}

/// [`open_for_read`] through a bound workspace.
fn read_published(workspace: &Workspace, no_ast: bool) -> Result<(Index, bool), String> {
    let published = workspace.read_published().map_err(|e| match e {
        docforge_workspace::WorkspaceError::NoIndex { .. } if no_ast => {
            format!("{e} --no-ast (the no-AST index is kept apart from the project's)")
        }
        e => e.to_string(),
    })?;
    if !published.current {
        let command = if no_ast { "docforge index --no-ast" } else { "docforge index" };
        eprintln!(
            "docforge: note: the index is older than the sources (or than docforge.toml or this \
             docforge); run `{command}` to update it"
        );
    }
    Ok((published.index, published.current))
}

pub fn index(
    root: &Path,
    no_ast: bool,
    precise: bool,
    json: bool,
    threads: Option<usize>,
) -> Result<(), String> {
    let started = Instant::now();
    let options = Options { no_ast, require_precise: precise, threads, ..Default::default() };
    let mut workspace = Workspace::bind(root, options).map_err(|e| e.to_string())?;
    let progress = Progress::new(!json && std::io::stderr().is_terminal());
    // A process starts cold: when the published generation already matches the sources on
    // disk (cheap identity: sizes and mtimes), it is adopted instead of analysing everything.
    let counters = workspace.progress();
    let synced = progress.track(&counters, || workspace.ensure_current(true)).map_err(|e| e.to_string())?;
    progress.finish();
    if let Some(why) = &synced.stats.recreated {
        eprintln!("docforge: rebuilt the disposable index: {why}");
    }
    let meta = workspace.index().meta().map_err(|e| e.to_string())?;
    let summary = published_summary(&meta).ok_or("the published index has no summary")?;
    let report = Report {
        root: &workspace.project().root,
        path: workspace.index_path(),
        no_ast,
        declared: workspace.settings().declared.as_str(),
        generation: synced.generation.revision,
        read: synced.stats.files_read,
        unchanged: synced.stats.files_unchanged,
        publish: synced.stats.publish.as_ref(),
        up_to_date: synced.stats.publish.is_none(),
    };
    print_index_report(&report, &summary, started.elapsed(), json);
    workspace.exit_fast();
    Ok(())
}

struct Report<'a> {
    root: &'a Path,
    path: &'a Path,
    no_ast: bool,
    /// The project's declared precision (`[analysis] precision`).
    declared: &'static str,
    generation: u64,
    read: usize,
    unchanged: usize,
    publish: Option<&'a PublishReport>,
    up_to_date: bool,
}

fn print_index_report(r: &Report<'_>, s: &Summary, elapsed: std::time::Duration, json: bool) {
    let (written, deleted, unchanged_owners, rows, files_written) = r.publish.map_or((0, 0, 0, 0, 0), |p| {
        (p.owners_written, p.owners_deleted, p.owners_unchanged, p.rows_written, p.files_written)
    });
    if json {
        print_json(&json!({
            "schema_version": "docforge.index.v1",
            "project_root": r.root.display().to_string(),
            "index_path": r.path.display().to_string(),
            "generation": r.generation,
            "up_to_date": r.up_to_date,
            "ast_policy": if r.no_ast { "no_ast" } else { "allow" },
            "precision": s.precision.map(|p| p.as_str()),
            "precision_declared": r.declared,
            "completeness": if s.completeness.complete { "complete" } else { "partial" },
            "completeness_reasons": s.completeness.reasons,
            "files": { "total": s.files, "docs": s.docs, "go": s.go_files, "go_selected": s.go_files_selected,
                       "go_excluded": s.go_files_excluded, "skipped": s.skipped, "read": r.read, "unchanged": r.unchanged },
            "modules": s.modules,
            "packages": s.packages,
            "nodes": s.nodes,
            "edges": s.edges,
            "diagnostics": { "errors": s.errors, "warnings": s.warnings },
            "publication": { "owners_written": written, "owners_deleted": deleted,
                             "owners_unchanged": unchanged_owners, "rows_written": rows,
                             "files_written": files_written },
            "elapsed_ms": elapsed.as_millis() as u64,
        }));
        return;
    }
    let state = match (s.precision, s.completeness.complete) {
        (None, _) => "Go not analysed (--no-ast)".to_string(),
        (Some(p), true) => format!("precision {}, complete", p.as_str()),
        (Some(p), false) => {
            format!("precision {}, partial: {}", p.as_str(), s.completeness.reasons.join(", "))
        }
    };
    let publication = if r.up_to_date {
        format!("generation {} is up to date (no file changed)", r.generation)
    } else {
        format!("generation {} ({} of {} owners written)", r.generation, written, written + unchanged_owners)
    };
    outln!(
        "indexed {} files ({} docs, {} Go: {} selected) -> {} nodes, {} edges, {} errors, {} warnings; {state}; {publication} in {:.2}s",
        s.files,
        s.docs,
        s.go_files,
        s.go_files_selected,
        s.nodes,
        s.edges,
        s.errors,
        s.warnings,
        elapsed.as_secs_f64()
    );
}

pub fn stats(root: &Path, no_ast: bool, json: bool) -> Result<(), String> {
    let (index, current) = open_for_read(root, no_ast)?;
    let stats = index.stats().map_err(|e| e.to_string())?;
    let publication = index.publication().map_err(|e| e.to_string())?;
    let mut value = output::stats_json(&stats, publication.as_ref());
    value["index_current"] = current.into();
    if json {
        print_json(&value);
    } else {
        outln!(
            "generation {}: {} nodes, {} edges, {} owners; precision {}, {}",
            stats.generation,
            stats.nodes,
            stats.edges,
            stats.owners,
            stats.meta.get("precision").map_or("unknown", String::as_str),
            stats.meta.get("completeness").map_or("unknown", String::as_str)
        );
    }
    Ok(())
}

pub fn search(root: &Path, no_ast: bool, query: &str, limit: usize, json: bool) -> Result<(), String> {
    let (index, current) = open_for_read(root, no_ast)?;
    let planned = index.search_query(query).map_err(|e| e.to_string())?;
    let hits = index.search_with(&planned, limit).map_err(|e| e.to_string())?;
    if json {
        let snippets = index.snippets_with(&planned, &hits).map_err(|e| e.to_string())?;
        print_json(&json!({
            "schema_version": "docforge.search.v1",
            "query": query,
            "limit": limit,
            "count": hits.len(),
            "index_current": current,
            "results": hits.iter().zip(&snippets).map(|(h, s)| output::hit_json(h, s)).collect::<Vec<_>>(),
        }));
    } else if hits.is_empty() {
        eprintln!("docforge: no node matches {query:?} (no word of it, or of its stems and identifier parts, is in a node's ID, title or text)");
    } else {
        for h in &hits {
            let place = h.location.as_ref().map(|l| format!("{}:{}", l.path, l.line)).unwrap_or_default();
            outln!("{}\t{}\t{}\t{}", h.id, h.kind, h.title, place);
        }
    }
    Ok(())
}

/// Edges shown per direction by `docforge node` without `--all`.
const NODE_EDGES_SHOWN: usize = 20;

pub fn node(root: &Path, no_ast: bool, id: &str, all: bool, json: bool) -> Result<(), String> {
    let (index, current) = open_for_read(root, no_ast)?;
    let Some(record) = index.node(id).map_err(|e| e.to_string())? else {
        return Err(not_found(&index, id));
    };
    if json {
        let mut value = output::node_json(&record);
        value["index_current"] = current.into();
        print_json(&value);
        return Ok(());
    }
    let node = &record.node;
    outln!("{} ({}) {}", node.id, node.kind, node.title);
    if let Some(l) = &node.location {
        outln!("  at {}", place(l));
    }
    for (key, value) in &node.attrs {
        outln!("  {key} = {value}");
    }
    let shown = |n: usize| if all { n } else { n.min(NODE_EDGES_SHOWN) };
    for (label, edges, arrow) in [("outgoing", &record.outgoing, "->"), ("incoming", &record.incoming, "<-")]
    {
        if edges.is_empty() {
            continue;
        }
        outln!("  {label} ({}):", edges.len());
        for e in &edges[..shown(edges.len())] {
            let at = e.location.as_ref().map(|l| format!("  ({})", place(l))).unwrap_or_default();
            outln!("    {arrow} {} {}{at}", e.relation, e.other);
        }
        if shown(edges.len()) < edges.len() {
            outln!("    ... {} more (`docforge node --all {}`)", edges.len() - shown(edges.len()), node.id);
        }
    }
    if !record.diagnostics.is_empty() {
        outln!("  diagnostics ({}):", record.diagnostics.len());
        for d in &record.diagnostics {
            let at = d.location.as_ref().map(|l| format!(" ({})", place(l))).unwrap_or_default();
            outln!("    {} {}: {}{at}", d.severity.as_str(), d.code, d.message);
        }
    }
    Ok(())
}

fn place(l: &docforge_model::Location) -> String {
    match (l.line, l.column) {
        (0, _) => l.path.clone(),
        (line, 0) => format!("{}:{line}", l.path),
        (line, column) => format!("{}:{line}:{column}", l.path),
    }
}

/// "No node with ID …", with the closest IDs the index holds: IDs equal but for case, then
/// search hits for the ID's words, ranked by edit distance.
fn not_found(index: &Index, id: &str) -> String {
    let suggestions = index.closest_ids(id, 3).unwrap_or_default();
    let mut message = format!("no node with ID {id:?} (IDs are exact and case-sensitive)");
    if suggestions.is_empty() {
        message.push_str("; try `docforge search WORDS`");
    } else {
        let list: Vec<String> = suggestions.iter().map(|s| format!("{s:?}")).collect();
        message.push_str(&format!("; closest: {}", list.join(", ")));
    }
    message
}

pub fn diagnostics(
    root: &Path,
    no_ast: bool,
    severity_filter: Option<&str>,
    codes: &[String],
    json: bool,
) -> Result<(), String> {
    let (index, current) = open_for_read(root, no_ast)?;
    let all = index.diagnostics().map_err(|e| e.to_string())?;
    let selected: Vec<_> = all
        .iter()
        .filter(|d| severity_filter.is_none_or(|s| d.severity.as_str() == s))
        .filter(|d| codes.is_empty() || codes.contains(&d.code))
        .collect();
    if json {
        print_json(&json!({
            "schema_version": "docforge.diagnostics.v1",
            "index_current": current,
            "count": selected.len(),
            "diagnostics": selected.iter().map(|d| output::diagnostic_json(d)).collect::<Vec<_>>(),
        }));
        return Ok(());
    }
    for d in &selected {
        let at = d.location.as_ref().map(place).unwrap_or_else(|| "-".into());
        let node = d.node.as_deref().map(|n| format!(" [{n}]")).unwrap_or_default();
        outln!("{at}: {} {}: {}{node}", d.severity.as_str(), d.code, d.message);
    }
    if selected.is_empty() {
        eprintln!("docforge: no diagnostics{}", if all.is_empty() { "" } else { " match the filters" });
    }
    Ok(())
}

pub fn logic(root: &Path, id: &str, json: bool) -> Result<(), String> {
    let workspace = bind(root, false)?;
    let declared_ast = workspace.precision() != Precision::Precise;
    let (index, current) = read_published(&workspace, false)?;
    let Some(record) = index.logic(id).map_err(|e| e.to_string())? else {
        let why = match index.node(id).map_err(|e| e.to_string())? {
            None => return Err(format!("no Logic: {}", not_found(&index, id))),
            Some(r) if !matches!(r.node.kind.as_str(), "func" | "method") => {
                "Logic exists for Go funcs and methods only"
            }
            Some(_) if declared_ast => {
                "Logic is extracted by precise analysis, and docforge.toml declares [analysis] precision = \"ast\""
            }
            Some(_) => "Logic is extracted by precise analysis (`docforge index`; never under --no-ast)",
        };
        return Err(format!("no Logic for {id:?}: {why}"));
    };
    let logic: docforge_go::FunctionLogic = serde_json::from_str(&record.json)
        .map_err(|e| format!("the index holds a malformed Logic projection for {id:?}: {e}"))?;
    if json {
        print_json(&json!({
            "schema_version": "docforge.logic.v1",
            "index_current": current,
            "node": record.node,
            "owner": record.owner,
            "logic": logic,
        }));
    } else {
        out!("{}", logic.render());
    }
    Ok(())
}

pub fn version(json: bool) -> Result<(), String> {
    let build = env!("DOCFORGE_BUILD_ID");
    if json {
        print_json(
            &json!({ "schema_version": "docforge.version.v1", "version": ENGINE_VERSION, "build": build }),
        );
    } else {
        outln!("docforge {ENGINE_VERSION} ({build})");
    }
    Ok(())
}
