//! `docforge-bench [CORPUS]`: measures the engine on a Go source tree (default: a copy of
//! `$(go env GOROOT)/src`) against a plain tree-sitter parse of the same files.
//!
//! Each phase that reports peak RSS runs in its own child process (`--phase NAME`), so the
//! figures do not mix. Prints a Markdown table and one JSON line per phase.
//!
//! `--phase render [DIR]` measures rendering a view instead, on the Markdown found on the
//! machine (see `render.rs`); `--phase relevance [CORPUS]` measures search (see
//! `relevance.rs`).

mod mcp;
mod precise;
mod proposals;
mod relevance;
mod render;
mod validate;

use docforge_db::{AnalysisHost, AstPolicy};
use docforge_index::Index;
use docforge_project::{discover, read_source, EntryStatus, FileKind, Project};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

pub(crate) const THREADS: usize = 2;

#[global_allocator]
static GLOBAL: docforge_syntax::alloc::GlobalAllocator = docforge_syntax::alloc::GlobalAllocator;
pub(crate) const EDIT_FILE: &str = "net/http/server.go";

fn main() {
    docforge_syntax::alloc::use_for_tree_sitter();
    let args: Vec<String> = std::env::args().collect();
    const USAGE: &str = "usage: docforge-bench [CORPUS] | docforge-bench --phase \
        cold|floor|engine|edits|precise|validate|mcp CORPUS | docforge-bench --phase render|proposals [DIR] | \
        docforge-bench --phase relevance [CORPUS]";
    let usage = |why: &str| -> ! {
        eprintln!("docforge-bench: {why}\n{USAGE}");
        std::process::exit(2)
    };
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!("{USAGE}");
        return;
    }
    if let Some(i) = args.iter().position(|a| a == "--phase") {
        if args.get(i + 1).is_some_and(|p| p == "relevance") {
            let corpus = match (args.get(i + 2), args.get(i + 3)) {
                (Some(d), None) if !Path::new(d).is_dir() => usage(&format!("{d} is not a directory")),
                (corpus, None) => corpus.map(Path::new),
                _ => usage("--phase relevance takes at most one corpus directory"),
            };
            println!("{}", relevance::relevance(corpus));
            return;
        }
        if args.get(i + 1).is_some_and(|p| p == "render" || p == "proposals") {
            // The Markdown under DIR is added to what the machine's package caches hold.
            let extra = match (args.get(i + 2), args.get(i + 3)) {
                (Some(d), None) if !Path::new(d).is_dir() => usage(&format!("{d} is not a directory")),
                (extra, None) => extra.map(Path::new),
                _ => usage("--phase render and --phase proposals take at most one directory"),
            };
            let out =
                if args[i + 1] == "render" { render::render(extra) } else { proposals::proposals(extra) };
            println!("{out}");
            return;
        }
        let (Some(phase), Some(corpus), None) = (args.get(i + 1), args.get(i + 2), args.get(i + 3)) else {
            usage("--phase takes a phase name and a corpus directory")
        };
        let corpus = PathBuf::from(corpus);
        if !corpus.is_dir() {
            usage(&format!("{} is not a directory", corpus.display()));
        }
        let out = match phase.as_str() {
            "cold" => cold(&corpus),
            "floor" => floor(&corpus),
            "engine" => engine(&corpus),
            "edits" => edits(&corpus),
            "precise" => precise::precise(&corpus),
            "validate" => validate::validate(&corpus),
            "mcp" => mcp::mcp(&corpus),
            other => usage(&format!("unknown phase {other}")),
        };
        println!("{out}");
        return;
    }
    if args.len() > 2 || args.get(1).is_some_and(|a| a.starts_with('-')) {
        usage("unexpected arguments");
    }
    let (corpus, copied) = match args.get(1) {
        Some(p) if !Path::new(p).is_dir() => usage(&format!("{p} is not a directory")),
        Some(p) => (PathBuf::from(p), false),
        None => (copy_goroot(), true),
    };
    let run = |phase: &str| run_phase(phase, &corpus);
    // The bar compares two phases measured seconds apart on a machine whose speed drifts:
    // the table shows the floor/engine pair of median ratio out of `pairs(5)`, and all of them.
    let cold_pairs: Vec<serde_json::Value> = (0..pairs(5)).map(|_| cold_pair(&corpus)).collect();
    let (ratios, median, best) = summarize(&cold_pairs);
    let (floor, engine) = (cold_pairs[median]["floor"].clone(), cold_pairs[median]["engine"].clone());
    let precise = run("precise");
    let validate = run("validate");
    if copied {
        // The copy (~220 MB with its index and snapshot) is the bench's own.
        let _ = std::fs::remove_dir_all(&corpus);
    }
    println!(
        "corpus: {} ({} Go files parsed by the floor, {:.1} MB)",
        corpus.display(),
        floor["files"],
        mb(&floor["bytes"])
    );
    println!();
    println!("| phase | wall | files/s | MB/s | peak RSS |");
    println!("| --- | ---: | ---: | ---: | ---: |");
    let row = |name: &str, ms: f64, files: f64, bytes: f64, rss: Option<f64>| {
        println!(
            "| {name} | {} | {:.0} | {:.1} | {} |",
            fmt_ms(ms),
            files / (ms / 1000.0),
            bytes / 1e6 / (ms / 1000.0),
            rss.map_or("-".into(), |r| format!("{:.0} MB", r / 1024.0))
        )
    };
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    row(
        "tree-sitter parse floor (2 threads)",
        f(&floor["ms"]),
        f(&floor["files"]),
        f(&floor["bytes"]),
        Some(f(&floor["peak_rss_kb"])),
    );
    row(
        "cold index (2 threads)",
        f(&engine["cold_ms"]),
        f(&engine["files"]),
        f(&engine["bytes"]),
        Some(f(&engine["peak_rss_kb"])),
    );
    println!("| warm re-sync, nothing changed | {} | | | |", fmt_ms(f(&engine["noop_ms"])));
    println!(
        "| disk re-sync after adding a function to {EDIT_FILE} | {} | | | |",
        fmt_ms(f(&engine["edit_disk_ms"]))
    );
    println!(
        "| first in-memory edit of that file (body), graph + publish | {} | | | |",
        fmt_ms(f(&engine["first_edit_memory_ms"]))
    );
    println!(
        "| next in-memory edits (body), graph + publish, p50 of 20 | {} | | | |",
        fmt_ms(f(&engine["edit_memory_ms"]))
    );
    row(
        "cold precise index (types, implements, calls + CHA, Logic)",
        f(&precise["cold_ms"]),
        f(&engine["files"]),
        f(&engine["bytes"]),
        Some(f(&precise["peak_rss_kb"])),
    );
    println!(
        "| precise: next in-memory edits (body), graph + publish, p50 of 20 | {} | | | |",
        fmt_ms(f(&precise["edit_memory_ms"]))
    );
    println!();
    println!(
        "cold index / parse floor = {:.2} (median of {} pairs, each measured back to back: {})",
        f(&engine["cold_ms"]) / f(&floor["ms"]),
        ratios.len(),
        shown(&ratios)
    );
    println!("fastest cold index / fastest parse floor of those pairs = {best:.2}");
    println!("cold precise index / cold index = {:.2}", f(&precise["cold_ms"]) / f(&engine["cold_ms"]));
    println!(
        "warm validate {} / hashing the {} selected Go files once {} = {:.2}",
        fmt_ms(f(&validate["validate_ms"])),
        validate["hashed_files"],
        fmt_ms(f(&validate["hash_ms"])),
        f(&validate["validate_ms"]) / f(&validate["hash_ms"])
    );
    println!("cold index breakdown: {}", engine["cold_breakdown"]);
    println!("in-memory edit breakdown (p50 sample): {}", engine["edit_memory_breakdown"]);
    println!(
        "{}",
        serde_json::json!({ "floor": floor, "engine": engine, "precise": precise, "validate": validate })
    );
}

/// Run one phase in a child process and parse the JSON line it prints.
fn run_phase(phase: &str, corpus: &Path) -> serde_json::Value {
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(&exe).args(["--phase", phase]).arg(corpus).output().expect("spawn phase");
    assert!(out.status.success(), "phase {phase} failed: {}", String::from_utf8_lossy(&out.stderr));
    let line = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(line.trim().lines().last().unwrap()).expect("phase prints JSON")
}

/// `--phase cold`: only the parse floor and the AST engine phase (cold index, no-change
/// re-sync, edits), each in its own process, and their ratio — the quick loop for work on
/// the cold index (the full run adds the precise and validation phases).
/// `DOCFORGE_BENCH_PAIRS=N` runs N floor/engine pairs back to back and also reports the
/// median of their ratios: on a machine whose speed drifts, a pair measured seconds apart
/// is the comparison the bar means, and one pair can be off by ±0.2.
fn cold(corpus: &Path) -> serde_json::Value {
    let mut results: Vec<serde_json::Value> = (0..pairs(1)).map(|_| cold_pair(corpus)).collect();
    if results.len() == 1 {
        return results.remove(0);
    }
    let (ratios, median, best) = summarize(&results);
    let median = ratio_of(&results[median]);
    eprintln!(
        "{} pairs: ratios {} | median {median:.2} | fastest cold index / fastest floor {best:.2}",
        ratios.len(),
        shown(&ratios)
    );
    serde_json::json!({ "pairs": results, "ratios": ratios, "median_ratio": median, "best_ratio": best })
}

/// Of floor/engine `pairs` (at least one): their ratios in ascending order, the index of the
/// pair of median ratio, and the fastest cold index over the fastest floor (a busy host only
/// ever slows a run down, so each phase's best time is its least disturbed one).
fn summarize(pairs: &[serde_json::Value]) -> (Vec<f64>, usize, f64) {
    let mut order: Vec<usize> = (0..pairs.len()).collect();
    order.sort_by(|&a, &b| ratio_of(&pairs[a]).total_cmp(&ratio_of(&pairs[b])));
    let ratios = order.iter().map(|&i| ratio_of(&pairs[i])).collect();
    let fastest = |phase: &str, key: &str| {
        pairs.iter().filter_map(|p| p[phase][key].as_f64()).fold(f64::INFINITY, f64::min)
    };
    (ratios, order[order.len() / 2], fastest("engine", "cold_ms") / fastest("floor", "ms"))
}

fn shown(ratios: &[f64]) -> String {
    ratios.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>().join(" ")
}

/// `DOCFORGE_BENCH_PAIRS`, else `default` (at least one).
fn pairs(default: usize) -> usize {
    std::env::var("DOCFORGE_BENCH_PAIRS").ok().and_then(|v| v.parse().ok()).unwrap_or(default).max(1)
}

fn ratio_of(pair: &serde_json::Value) -> f64 {
    pair["ratio"].as_f64().unwrap_or(0.0)
}

fn cold_pair(corpus: &Path) -> serde_json::Value {
    let floor = run_phase("floor", corpus);
    let engine = run_phase("engine", corpus);
    let f = |v: &serde_json::Value| v.as_f64().unwrap_or(0.0);
    eprintln!(
        "floor {} | cold index {} ({}) | ratio {:.2} (CPU time {:.2}) | peak RSS {:.0} MB | \
         no-change re-sync {} | disk edit {} | in-memory body edit p50 {}",
        fmt_ms(f(&floor["ms"])),
        fmt_ms(f(&engine["cold_ms"])),
        engine["cold_breakdown"],
        f(&engine["cold_ms"]) / f(&floor["ms"]),
        f(&engine["cold_cpu_ms"]) / f(&floor["cpu_ms"]),
        f(&engine["peak_rss_kb"]) / 1024.0,
        fmt_ms(f(&engine["noop_ms"])),
        fmt_ms(f(&engine["edit_disk_ms"])),
        fmt_ms(f(&engine["edit_memory_ms"])),
    );
    serde_json::json!({ "floor": floor, "engine": engine, "ratio": f(&engine["cold_ms"]) / f(&floor["ms"]) })
}

fn fmt_ms(ms: f64) -> String {
    if ms >= 1000.0 {
        format!("{:.2} s", ms / 1000.0)
    } else {
        format!("{ms:.1} ms")
    }
}

/// `<temp>/<prefix>-<pid>` for this process, after removing every `docforge-bench…-<pid>`
/// directory of a process that no longer runs (a bench killed before its cleanup leaves its
/// copy of the tree or its index behind; a directory of a running process, such as the
/// parent's copy its phase processes read, is kept).
pub(crate) fn scratch_dir(prefix: &str) -> PathBuf {
    let temp = std::env::temp_dir();
    let procfs = Path::new("/proc/self").exists();
    if let (true, Ok(entries)) = (procfs, std::fs::read_dir(&temp)) {
        for e in entries.flatten() {
            let name = e.file_name();
            let Some(name) = name.to_str().filter(|n| n.starts_with("docforge-bench-")) else { continue };
            let pid = name.rsplit('-').next().and_then(|p| p.parse::<u32>().ok());
            if pid.is_some_and(|pid| !Path::new(&format!("/proc/{pid}")).exists()) {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    }
    temp.join(format!("{prefix}-{}", std::process::id()))
}

fn mb(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or(0.0) / 1e6
}

fn copy_goroot() -> PathBuf {
    let out = Command::new("go")
        .args(["env", "GOROOT"])
        .output()
        .expect("go env GOROOT (or pass a corpus directory)");
    let goroot = String::from_utf8(out.stdout).unwrap().trim().to_string();
    let dest = scratch_dir("docforge-bench");
    let status =
        Command::new("cp").arg("-rL").arg(Path::new(&goroot).join("src")).arg(&dest).status().unwrap();
    assert!(status.success(), "copying {goroot}/src failed");
    dest
}

pub(crate) fn peak_rss_kb() -> u64 {
    status_kb("VmHWM:")
}

/// Resident memory now.
pub(crate) fn rss_kb() -> u64 {
    status_kb("VmRSS:")
}

fn status_kb(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|n| n.parse().ok())
        .unwrap_or(0)
}

/// Read and parse every selected Go file with plain tree-sitter on two threads.
/// The files the engine parses: selected by the walk and by the Go build context; and the
/// canonical root.
pub(crate) fn selected_go_files(corpus: &Path) -> (Vec<String>, PathBuf) {
    let project = Project::load(corpus).unwrap();
    let inv = discover(&project);
    let ctx = docforge_go::BuildContext::default();
    let files = inv
        .entries
        .iter()
        .filter(|e| e.kind == FileKind::Go && e.status == EntryStatus::Selected)
        .filter(|e| {
            let src = read_source(&project.root, &e.rel, 1 << 40).unwrap();
            docforge_go::select_file(&ctx, &e.rel, &src) == docforge_go::FileSelection::Included
        })
        .map(|e| e.rel.clone())
        .collect();
    (files, project.root)
}

fn floor(corpus: &Path) -> serde_json::Value {
    let (files, root) = selected_go_files(corpus);
    // Selection is not part of the floor's time: only reading and parsing is.
    let cpu0 = validate::cpu_ms();
    let start = Instant::now();
    let results: Vec<(usize, usize)> = std::thread::scope(|s| {
        (0..THREADS)
            .map(|t| {
                let files = &files;
                let root = &root;
                s.spawn(move || {
                    let mut parser = tree_sitter::Parser::new();
                    parser.set_language(&tree_sitter_go::LANGUAGE.into()).unwrap();
                    let (mut n, mut bytes) = (0, 0);
                    for rel in files.iter().skip(t).step_by(THREADS) {
                        let src = read_source(root, rel, 1 << 40).unwrap();
                        let tree = parser.parse(&src, None).unwrap();
                        std::hint::black_box(tree.root_node().child_count());
                        n += 1;
                        bytes += src.len();
                    }
                    (n, bytes)
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect()
    });
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    let (n, bytes) = results.iter().fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
    let cpu = validate::cpu_ms() - cpu0;
    serde_json::json!({ "ms": ms, "cpu_ms": cpu, "files": n, "bytes": bytes, "peak_rss_kb": peak_rss_kb() })
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Cold index, no-change re-sync, one-file edit on disk, one in-memory edit.
fn engine(corpus: &Path) -> serde_json::Value {
    let index_dir = scratch_dir("docforge-bench-index");
    let _ = std::fs::remove_dir_all(&index_dir);
    let index_path = index_dir.join("index.sqlite");
    let cpu0 = validate::cpu_ms();
    let t0 = Instant::now();
    let project = Project::load(corpus).unwrap();
    let log = std::env::var_os("DOCFORGE_BENCH_LOG").is_some();
    let mut host = if log {
        AnalysisHost::with_execution_log(project, AstPolicy::Allow)
    } else {
        AnalysisHost::new(project, AstPolicy::Allow)
    };
    let sync = host.sync_from_disk();
    let t_sync = t0.elapsed();
    host.analysis().prewarm(THREADS).unwrap();
    let t_prewarm = t0.elapsed();
    let graph = host.analysis().graph().unwrap();
    let t_graph = t0.elapsed();
    let mut index = Index::recreate(&index_path).unwrap();
    let report = host.publish(&mut index).unwrap();
    let cold = t0.elapsed();
    let cold_cpu_ms = validate::cpu_ms() - cpu0;
    let go_bytes: usize = graph.summary.go_files_selected;
    let bytes: u64 = index
        .files()
        .unwrap()
        .iter()
        .filter(|f| f.kind == "go" && f.status == "selected")
        .map(|f| f.size)
        .sum();
    let rss_after_cold = peak_rss_kb();
    // The content identity of what was published (equal across changes that must not
    // change the graph).
    let graph_digest = index.publication().unwrap().map(|p| p.graph_digest);

    let t = Instant::now();
    let noop_sync = host.sync_from_disk();
    let _ = host.analysis().graph().unwrap();
    let noop = host.publish(&mut index).unwrap();
    let noop_ms = ms(t.elapsed());
    assert_eq!(noop_sync.read, 0);
    assert!(noop.is_noop(), "{noop:?}");

    let edit_path = host.project().root.join(EDIT_FILE);
    let original = std::fs::read_to_string(&edit_path).unwrap();
    // On disk: add a package-level function (the package's symbol table changes).
    let text = edit_text(&original, 0, false);
    std::fs::write(&edit_path, &text).unwrap();
    let t = Instant::now();
    host.execution_log().enable(log);
    let edit_sync = host.sync_from_disk();
    let _ = host.analysis().graph().unwrap();
    let edit = host.publish(&mut index).unwrap();
    let edit_disk_ms = ms(t.elapsed());
    host.execution_log().enable(false);
    if log {
        eprintln!("disk edit: {:#?}", count_by_query(host.execution_log().take()));
    }
    assert_eq!(edit_sync.read, 1);

    // In memory, as an editor sends it: keystrokes inside a function body, each followed by
    // graph + publish. The first edit of a file also re-verifies what depended on its
    // on-disk version (MEDIUM durability); later edits of the same file are the steady state.
    // Each edit types into the body of the original file's last function (the first one
    // also drops the function the disk edit added).
    let mut samples = Vec::new();
    let mut breakdown = Vec::new();
    let mut edit2 = None;
    for i in 1..=21 {
        let text = edit_text(&original, i, true);
        let t = Instant::now();
        host.apply_change(docforge_db::Change {
            files: vec![docforge_db::FileChange::Set {
                rel: EDIT_FILE.into(),
                kind: FileKind::Go,
                content: docforge_db::Content::Bytes(text.clone().into_bytes().into()),
            }],
            ..Default::default()
        });
        let e_apply = t.elapsed();
        let _ = host.analysis().graph().unwrap();
        let e_graph = t.elapsed();
        edit2 = Some(host.publish(&mut index).unwrap());
        let total = ms(t.elapsed());
        samples.push(total);
        breakdown.push((ms(e_apply), ms(e_graph - e_apply), total - ms(e_graph)));
    }
    let edit2 = edit2.unwrap();
    let first_edit_ms = samples[0];
    let mut steady: Vec<usize> = (1..samples.len()).collect();
    steady.sort_by(|&a, &b| samples[a].partial_cmp(&samples[b]).unwrap());
    let median = steady[steady.len() / 2];
    let edit_memory_ms = samples[median];
    let (ap, gr, pu) = breakdown[median];
    let edit_memory_breakdown = serde_json::json!({ "apply_ms": ap, "graph_ms": gr, "publish_ms": pu });
    let _ = std::fs::remove_dir_all(&index_dir);
    std::fs::write(&edit_path, original).unwrap();
    serde_json::json!({
        "cold_ms": ms(cold),
        "cold_cpu_ms": cold_cpu_ms,
        "cold_breakdown": {
            "discover_read_ms": ms(t_sync), "analyse_ms": ms(t_prewarm - t_sync),
            "graph_ms": ms(t_graph - t_prewarm), "publish_ms": ms(cold - t_graph),
        },
        "files": go_bytes,
        "files_read": sync.read,
        "bytes": bytes,
        "nodes": graph.summary.nodes,
        "edges": graph.summary.edges,
        "rows_written": report.rows_written,
        "graph_digest": graph_digest,
        "peak_rss_kb": rss_after_cold,
        "noop_ms": noop_ms,
        "edit_disk_ms": edit_disk_ms,
        "edit_disk_owners_written": edit.owners_written,
        "edit_memory_ms": edit_memory_ms,
        "first_edit_memory_ms": first_edit_ms,
        "edit_memory_owners_written": edit2.owners_written,
        "edit_memory_rows_written": edit2.rows_written,
        "edit_memory_breakdown": edit_memory_breakdown,
        "peak_rss_kb_end": peak_rss_kb(),
    })
}

/// Salsa executions and validations by query name.
fn count_by_query(log: Vec<String>) -> std::collections::BTreeMap<String, usize> {
    let mut by_query = std::collections::BTreeMap::new();
    for e in log {
        *by_query.entry(e.split('(').next().unwrap_or("").to_string()).or_default() += 1;
    }
    by_query
}

/// `line` typed at the start of the body of the first top-level function in the second half
/// of the file (so the declarations after it move, and it has calls); `None` when there is
/// no such body.
fn type_in_body(text: &str, line: &str) -> Option<String> {
    let half = text.len() / 2;
    let func = half + text[half..].find("\nfunc ")?;
    // After the `{` ending its signature line.
    let at = func + text[func..].find("{\n")? + 2;
    Some(format!("{}{line}{}", &text[..at], &text[at..]))
}

/// One edit of `net/http/server.go`: typing inside a function body (`body`), or adding a
/// package-level function (which changes the package's symbol table).
pub(crate) fn edit_text(text: &str, i: usize, body: bool) -> String {
    body.then(|| type_in_body(text, &format!("\t_ = {i}\n")))
        .flatten()
        .unwrap_or_else(|| format!("{text}\nfunc docforgeEdit{i}() {{}}\n"))
}

/// Profiling edits as an editor makes them, in the same function as [`edit_text`]: `mid`
/// types a statement, `syntax` an unfinished expression (`x := (`), `comment` a line of
/// the function's doc comment; every other edit restores the original text.
fn edit_mid(text: &str, i: usize, mode: &str) -> String {
    if i % 2 == 1 {
        return text.to_string();
    }
    if mode == "comment" {
        let half = text.len() / 2;
        let func = half + text[half..].find("\nfunc ").expect("a function in the second half") + 1;
        return format!("{}// Edited {i}.\n{}", &text[..func], &text[func..]);
    }
    let line = if mode == "syntax" { format!("\tx{i} := (\n") } else { format!("\t_ = {i}\n") };
    type_in_body(text, &line).expect("the edited file has a function body in its second half")
}

/// Profiling aid (`DOCFORGE_BENCH_LOG=1` counts salsa executions/validations of the middle
/// edit, or of edit `DOCFORGE_BENCH_LOG_ROUND`; `DOCFORGE_BENCH_PRECISE=1` runs the semantic layer): a cold index, then in-memory
/// edits of one file (`DOCFORGE_BENCH_EDIT=decl` adds functions instead of typing in a body,
/// `mid`/`syntax`/`comment` see [`edit_mid`]),
/// timing the graph query.
fn edits(corpus: &Path) -> serde_json::Value {
    let mode = std::env::var("DOCFORGE_BENCH_EDIT").unwrap_or_default();
    let body_edit = mode != "decl";
    let project = Project::load(corpus).unwrap();
    let mut host = if std::env::var_os("DOCFORGE_BENCH_LOG").is_some() {
        AnalysisHost::with_execution_log(project, AstPolicy::Allow)
    } else {
        AnalysisHost::new(project, AstPolicy::Allow)
    };
    host.set_precise(std::env::var_os("DOCFORGE_BENCH_PRECISE").is_some());
    host.set_logic(std::env::var_os("DOCFORGE_BENCH_NO_LOGIC").is_none());
    // Profiling aid (`DOCFORGE_BENCH_STAGES=1`): live memory (RSS after returning free
    // pages) after each stage of the first analysis, as the LSP runs it.
    let stages = std::env::var_os("DOCFORGE_BENCH_STAGES").is_some();
    let stage = |name: &str| {
        if stages {
            docforge_syntax::alloc::release_free_memory();
            eprintln!("stage {name}: {} MB", rss_kb() / 1024);
        }
    };
    host.sync_from_disk();
    stage("sync");
    host.analysis().prewarm(THREADS).unwrap();
    stage("prewarm");
    host.analysis().graph().unwrap();
    stage("graph");
    if stages {
        host.analysis().ide().unwrap();
        stage("ide");
        host.trim_memory();
        stage("trim");
    }
    let edit_file = std::env::var("DOCFORGE_BENCH_FILE").unwrap_or_else(|_| EDIT_FILE.to_string());
    let text = std::fs::read_to_string(host.project().root.join(&edit_file)).unwrap();
    let index_dir = scratch_dir("docforge-bench-edits");
    let mut index = std::env::var_os("DOCFORGE_BENCH_PUBLISH").map(|_| {
        let mut index = Index::recreate(&index_dir.join("index.sqlite")).unwrap();
        host.publish(&mut index).unwrap();
        index
    });
    if std::env::var_os("DOCFORGE_BENCH_SIZES").is_some() {
        // Profiling aid: what the graph holds (edges by relation, string bytes).
        let g = host.analysis().graph().unwrap();
        let mut by_rel: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
        for e in g.edges() {
            let bytes = e.source.len()
                + e.target.len()
                + e.relation.len()
                + e.attrs.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>()
                + e.location.as_ref().map_or(0, |l| l.path.len());
            let entry = by_rel.entry(e.relation.as_str()).or_default();
            entry.0 += 1;
            entry.1 += bytes;
        }
        let nodes = g.nodes().count();
        let node_bytes: usize = g
            .nodes()
            .map(|n| n.id.len() + n.attrs.iter().map(|(k, v)| k.len() + v.len()).sum::<usize>())
            .sum();
        let with_attrs = g.nodes().filter(|n| !n.attrs.is_empty()).count()
            + g.edges().filter(|e| !e.attrs.is_empty()).count();
        eprintln!("nodes {nodes} ({node_bytes} string bytes); edges by relation (count, string bytes): {by_rel:?}; nodes and edges with attributes: {with_attrs}");
    }
    eprintln!("READY");
    let rss_ready = rss_kb();
    let mut graph_ms = Vec::new();
    let rounds: usize = std::env::var("DOCFORGE_BENCH_EDITS").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
    // Which edit `DOCFORGE_BENCH_LOG` logs (0: the file's first change since it was loaded).
    let log_round: usize =
        std::env::var("DOCFORGE_BENCH_LOG_ROUND").ok().and_then(|v| v.parse().ok()).unwrap_or(rounds / 2);
    for i in 0..rounds {
        let edited = match mode.as_str() {
            "mid" | "syntax" | "comment" => edit_mid(&text, i, &mode),
            _ => edit_text(&text, i, body_edit),
        };
        host.apply_change(docforge_db::Change {
            files: vec![docforge_db::FileChange::Set {
                rel: edit_file.clone(),
                kind: FileKind::Go,
                content: docforge_db::Content::Bytes(edited.into_bytes().into()),
            }],
            ..Default::default()
        });
        let profile = i == log_round && std::env::var_os("DOCFORGE_BENCH_LOG").is_some();
        host.execution_log().enable(profile);
        let t = Instant::now();
        host.analysis().graph().unwrap();
        if let Some(index) = index.as_mut() {
            host.publish(index).unwrap();
        }
        graph_ms.push(ms(t.elapsed()));
        host.execution_log().enable(false);
        if profile {
            eprintln!("{:#?}", count_by_query(host.execution_log().take()));
        }
    }
    let _ = std::fs::remove_dir_all(&index_dir);
    let first_ms = graph_ms[0];
    graph_ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    serde_json::json!({
        "first_edit_ms": first_ms,
        "graph_p50_ms": graph_ms[graph_ms.len() / 2],
        "rss_after_index_mb": rss_ready / 1024,
        "rss_after_edits_mb": rss_kb() / 1024,
    })
}
