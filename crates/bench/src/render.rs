//! The `render` phase: a view of every Markdown document found on the machine (the crate
//! sources of the Cargo registry, the Go module cache, and the Markdown under an optional
//! directory), copied into one temporary project and indexed with the engine, then rendered.
//! Measured in the same run, interleaved so that all of them see the same machine load:
//!
//! - the floor: `comrak::markdown_to_html` of the same documents (already in memory) with the
//!   extensions the renderer turns on — what converting Markdown to HTML costs alone;
//! - `render_view`: the view's pages in memory (reading and checking the sources, their
//!   outline and graph panel from the index, comrak, the raw HTML sanitised, navigation);
//! - `publish`: the output tree written and swapped in, and the receipt;
//!
//! then the cheap status and the deep status of the published view. The corpus is left to
//! settle for the racy window (3 s) after it is copied, as a project's files are between
//! edits. Prints a Markdown table
//! and one JSON line.
//!
//! `DOCFORGE_BENCH_REPS` (default 5) repetitions of each (21 of the cheap status);
//! `DOCFORGE_BENCH_RENDER_LIMIT=N` keeps the first N documents by path (a smaller corpus for
//! profiling); `DOCFORGE_BENCH_RENDER_HASHES=FILE` writes the SHA-256 of every rendered
//! output to FILE (to prove a change leaves the output byte-identical);
//! `DOCFORGE_BENCH_KEEP=1` keeps the project.

use crate::{fmt_ms, ms, scratch_dir, THREADS};
use docforge_render::receipt::IndexStamp;
use docforge_render::Claims;
use docforge_workspace::{Options, ReceiptState, Workspace};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

/// The project's declaration: every document, one `html-site@1` view of all of them.
const CONFIG: &str = r#"schema_version = 1

[project]
id = "bench-render"

[sources]
docs = ["docs/**/*.md"]
go = []

[[views]]
id = "all"
renderer = "html-site@1"
output = "site/all"
"#;

/// Where Markdown was found: a label, the directory, and the prefix under `docs/` its files
/// are copied to (a file's path below the directory is kept, so relative links still work).
struct Source {
    label: String,
    dir: PathBuf,
    prefix: String,
}

fn sources(extra: Option<&Path>) -> Vec<Source> {
    let mut out = Vec::new();
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cargo")));
    // `registry/src/<index>/<crate>-<version>/`: `docs/<crate>-<version>/…`.
    if let Some(Ok(indexes)) = cargo_home.map(|c| std::fs::read_dir(c.join("registry/src"))) {
        for index in indexes.flatten() {
            out.push(Source { label: "crate sources".into(), dir: index.path(), prefix: String::new() });
        }
    }
    let gomodcache = Command::new("go")
        .args(["env", "GOMODCACHE"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .filter(|d| !d.is_empty());
    if let Some(dir) = gomodcache {
        out.push(Source { label: "Go module cache".into(), dir: dir.into(), prefix: "go-modules/".into() });
    }
    if let Some(dir) = extra {
        out.push(Source {
            label: dir.display().to_string(),
            dir: dir.to_path_buf(),
            prefix: "extra/".into(),
        });
    }
    out
}

/// Every regular `*.md` file below `dir` (no hidden entry, no symlink followed, not the Go
/// module cache's download cache), as paths relative to `dir`.
fn markdown_under(dir: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir.join(rel)) else { return };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if name.starts_with('.') || (rel.is_empty() && name == "cache") {
            continue;
        }
        let path = if rel.is_empty() { name.to_string() } else { format!("{rel}/{name}") };
        match e.file_type() {
            Ok(t) if t.is_dir() => markdown_under(dir, &path, out),
            Ok(t) if t.is_file() && name.ends_with(".md") => out.push(path),
            _ => {}
        }
    }
}

/// The temporary project with every Markdown file found; (root, files found by source label).
pub(crate) fn build_corpus(extra: Option<&Path>) -> (PathBuf, Vec<(String, usize)>) {
    build_corpus_in("docforge-bench-render", CONFIG, extra, None)
}

/// The corpus in a scratch project named `prefix` with `config`, at most `limit` documents
/// (the first by path; `DOCFORGE_BENCH_RENDER_LIMIT` otherwise).
pub(crate) fn build_corpus_in(
    prefix: &str,
    config: &str,
    extra: Option<&Path>,
    limit: Option<usize>,
) -> (PathBuf, Vec<(String, usize)>) {
    let root = scratch_dir(prefix);
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(root.join("docs")).unwrap();
    std::fs::write(root.join("docforge.toml"), config).unwrap();
    // (destination under docs/, source file)
    let mut files: Vec<(String, PathBuf, usize)> = Vec::new();
    let mut found: Vec<(String, usize)> = Vec::new();
    for (i, s) in sources(extra).iter().enumerate() {
        let mut rels = Vec::new();
        markdown_under(&s.dir, "", &mut rels);
        match found.iter_mut().find(|(l, _)| *l == s.label) {
            Some((_, n)) => *n += rels.len(),
            None => found.push((s.label.clone(), rels.len())),
        }
        files.extend(rels.into_iter().map(|r| (format!("{}{r}", s.prefix), s.dir.join(&r), i)));
    }
    files.sort();
    files.dedup_by(|a, b| a.0 == b.0);
    let limit =
        limit.or_else(|| std::env::var("DOCFORGE_BENCH_RENDER_LIMIT").ok().and_then(|v| v.parse().ok()));
    if let Some(limit) = limit {
        files.truncate(limit);
    }
    for (dest, src, _) in &files {
        let dest = root.join("docs").join(dest);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        // Read and written (not copied), so the copy is writable whatever the source's mode.
        if let Ok(bytes) = std::fs::read(src) {
            std::fs::write(&dest, bytes).unwrap();
        }
    }
    (root, found)
}

/// CPU time of the process so far, every thread, in milliseconds (nanosecond clock).
pub(crate) fn cpu_ms() -> f64 {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 * 1000.0 + t.tv_nsec as f64 / 1e6
}

/// Wall and CPU milliseconds of `f`, and its value.
pub(crate) fn timed<T>(f: impl FnOnce() -> T) -> (f64, f64, T) {
    let (c, t) = (cpu_ms(), Instant::now());
    let v = f();
    (ms(t.elapsed()), cpu_ms() - c, v)
}

pub(crate) fn median(v: &[f64]) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Each document's raw HTML (its HTML blocks and inline HTML, joined): what the renderer
/// sanitises.
fn raw_html(texts: &[String], options: &comrak::Options<'_>) -> Vec<String> {
    texts
        .iter()
        .map(|t| {
            let arena = comrak::Arena::new();
            let root = comrak::parse_document(&arena, t, options);
            let mut raw = String::new();
            for n in root.descendants() {
                match &n.data.borrow().value {
                    comrak::nodes::NodeValue::HtmlBlock(b) => raw.push_str(&b.literal),
                    comrak::nodes::NodeValue::HtmlInline(l) => raw.push_str(l),
                    _ => {}
                }
            }
            raw
        })
        .collect()
}

/// The floor: every document to HTML, plainly; the bytes of HTML. A function of its own, so a
/// profiler can count it apart (`valgrind --tool=callgrind
/// --toggle-collect='docforge_bench::render::floor_pass*'`).
#[inline(never)]
fn floor_pass(texts: &[String], options: &comrak::Options<'_>) -> usize {
    texts.iter().map(|t| comrak::markdown_to_html(t, options).len()).sum()
}

/// SHA-256 over every output's path and SHA-256, and the per-file list.
fn output_digest(files: &[(String, Vec<u8>)]) -> (String, String) {
    let mut all = Sha256::new();
    let mut list = String::new();
    for (path, bytes) in files {
        let h = hex::encode(Sha256::digest(bytes));
        all.update(format!("{h}  {path}\n"));
        list.push_str(&format!("{h}  {path}\n"));
    }
    (hex::encode(all.finalize()), list)
}

pub fn render(extra: Option<&Path>) -> serde_json::Value {
    let reps: usize =
        std::env::var("DOCFORGE_BENCH_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(5).max(1);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let load: Vec<&str> = load.split_whitespace().take(3).collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let (t_copy, _, (root, found)) = timed(|| build_corpus(extra));
    let found_total: usize = found.iter().map(|f| f.1).sum();
    // The files as a project holds them between edits: older than the window within which a
    // stamp cannot vouch for a file (the render receipt's walk witness then lets the cheap
    // status go without listing every directory again).
    std::thread::sleep(docforge_project::RACY_WINDOW + std::time::Duration::from_millis(100));

    let (index_ms, index_cpu_ms, (workspace, synced)) = timed(|| {
        let opts = Options { threads: Some(THREADS), ..Default::default() };
        let mut workspace = Workspace::bind(&root, opts).unwrap();
        let synced = workspace.ensure_current(true).unwrap();
        (workspace, synced)
    });
    let project = workspace.project().clone();
    let view = project.config.views[0].clone();
    let generation = synced.generation;
    let stamp = IndexStamp::of(&generation);
    let claims = Claims::none("no validation outcome is recorded (benchmark)");
    let read = docforge_render::project_reader(&project);

    // The documents the view renders, in memory for the floor.
    let first = docforge_render::render_view(&project.id, workspace.index(), &view, &read, &claims).unwrap();
    let texts: Vec<String> =
        first.inputs.iter().map(|i| String::from_utf8_lossy(&read(&i.path).unwrap()).into_owned()).collect();
    let docs = texts.len();
    let bytes: usize = texts.iter().map(String::len).sum();
    let (digest, list) = output_digest(&first.files);
    let output_bytes: usize = first.files.iter().map(|f| f.1.len()).sum();
    let output_files = first.files.len();
    if let Some(path) = std::env::var_os("DOCFORGE_BENCH_RENDER_HASHES") {
        std::fs::write(path, &list).unwrap();
    }
    let paths: Vec<String> = first.inputs.iter().map(|i| i.path.clone()).collect();
    drop(first);

    let options = docforge_render::comrak_options();
    let (mut floor, mut render, mut publish) = (Vec::new(), Vec::new(), Vec::new());
    let mut floor_html = 0;
    for _ in 0..reps {
        let (w, c, html) = timed(|| floor_pass(&texts, &options));
        floor.push((w, c));
        floor_html = html;
        let (w, c, rendered) = timed(|| {
            docforge_render::render_view(&project.id, workspace.index(), &view, &read, &claims).unwrap()
        });
        render.push((w, c));
        assert_eq!(output_digest(&rendered.files).0, digest, "every render gives the same files");
        let (w, c, _) = timed(|| {
            docforge_render::publish(
                &project,
                &view,
                &rendered,
                stamp.clone(),
                generation.cheap_identity.clone(),
            )
            .unwrap()
        });
        publish.push((w, c));
    }

    // What render_view spends on the same documents, each part alone, once: the sanitiser on
    // the documents' raw HTML; and for comparison the engine's parse of each document (which
    // pages do not run: their outline is the index's).
    let raw: Vec<Vec<u8>> = paths.iter().map(|p| read(p).unwrap()).collect();
    let (parse_ms, _, _) = timed(|| {
        paths
            .iter()
            .zip(&raw)
            .map(|(p, b)| docforge_docs::parse_markdown_bytes(p, b).sections.len())
            .sum::<usize>()
    });
    let raw_html = raw_html(&texts, &options);
    let with_raw = raw_html.iter().filter(|h| !h.is_empty()).count();
    let raw_bytes: usize = raw_html.iter().map(String::len).sum();
    let (sanitise_ms, _, _) =
        timed(|| raw_html.iter().map(|h| docforge_render::sanitize_html(h).len()).sum::<usize>());
    drop((raw, raw_html));

    // The published view: the cheap status (stats only) and the deep one (a render in
    // memory compared with the receipt and the disk).
    let mut status = Vec::new();
    let mut checked = None;
    for _ in 0..(4 * reps + 1) {
        let (w, c, st) = timed(|| docforge_render::status(&project, &view));
        assert_eq!(st.state, ReceiptState::Current, "{}", st.reason);
        status.push((w, c));
        checked = Some(st.sources_checked);
    }
    // How the sources were checked: through the receipt's walk witness, or by walking.
    let checked = format!("{:?}", checked.expect("at least one status")).to_lowercase();
    let mut deep = Vec::new();
    for _ in 0..reps.min(3) {
        let (w, c, d) =
            timed(|| docforge_render::deep_status(&project, &view, workspace.index(), &claims).unwrap());
        assert!(d.equivalent, "deep status differs: {:?}", &d.differing[..d.differing.len().min(5)]);
        deep.push((w, c));
    }
    drop(workspace);
    if std::env::var_os("DOCFORGE_BENCH_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&root);
    }

    let wall = |v: &[(f64, f64)]| median(&v.iter().map(|x| x.0).collect::<Vec<_>>());
    let cpu = |v: &[(f64, f64)]| median(&v.iter().map(|x| x.1).collect::<Vec<_>>());
    let ratios: Vec<f64> = render.iter().zip(&floor).map(|(r, f)| r.0 / f.0).collect();
    let cpu_ratios: Vec<f64> = render.iter().zip(&floor).map(|(r, f)| r.1 / f.1).collect();
    let (ratio, cpu_ratio) = (median(&ratios), median(&cpu_ratios));

    println!("machine: {cores} cores, load average {} at the start", load.join(" "));
    println!(
        "corpus: {found_total} Markdown files found ({}), copied to {} in {}; the view renders \
         {docs} documents ({:.1} MB of Markdown) into {} files ({:.1} MB)",
        found.iter().map(|(l, n)| format!("{n} in {l}")).collect::<Vec<_>>().join(", "),
        root.display(),
        fmt_ms(t_copy),
        bytes as f64 / 1e6,
        output_files,
        output_bytes as f64 / 1e6,
    );
    println!(
        "index (Workspace::ensure_current, {THREADS} threads): {} (CPU {})",
        fmt_ms(index_ms),
        fmt_ms(index_cpu_ms)
    );
    println!();
    println!("| measure (median of {reps}) | wall | CPU | documents/s | MB/s (Markdown) | goal |");
    println!("| --- | ---: | ---: | ---: | ---: | --- |");
    let row = |name: &str, v: &[(f64, f64)], goal: &str| {
        let (w, c) = (wall(v), cpu(v));
        println!(
            "| {name} | {} | {} | {:.0} | {:.1} | {goal} |",
            fmt_ms(w),
            fmt_ms(c),
            docs as f64 / (w / 1000.0),
            bytes as f64 / 1e6 / (w / 1000.0)
        );
    };
    row("floor: comrak markdown_to_html", &floor, "");
    row("render_view (pages, graph panel, sanitised)", &render, "");
    row("publish (tree + receipt)", &publish, "");
    println!(
        "| full render / floor | {ratio:.2} | {cpu_ratio:.2} | | | ≤ 2 ({}) |",
        if ratio <= 2.0 && cpu_ratio <= 2.0 { "met" } else { "not met" }
    );
    let (sw, sc) = (wall(&status), cpu(&status));
    // The goal is for a 1,000-document view: the measure scaled to 1,000 documents.
    let per_1000 = sw * 1000.0 / docs as f64;
    println!(
        "| cheap status (median of {}; sources by {checked}) | {} | {} | | | ≤ 5 ms per 1,000 documents: {} ({}) |",
        status.len(),
        fmt_ms(sw),
        fmt_ms(sc),
        fmt_ms(per_1000),
        if per_1000 <= 5.0 { "met" } else { "not met" }
    );
    println!(
        "| deep status (median of {}) | {} | {} | | | |",
        deep.len(),
        fmt_ms(wall(&deep)),
        fmt_ms(cpu(&deep))
    );
    println!();
    let shown = |v: &[f64]| v.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>().join(" ");
    println!("render / floor per repetition: wall {} | CPU {}", shown(&ratios), shown(&cpu_ratios));
    let render_ms = wall(&render);
    println!(
        "render_view's parts, alone on the same documents (once): the sanitiser on the raw HTML of the {with_raw} \
         documents that have some ({:.0} KB) {} ({:.2}× the floor). For comparison, the engine's document \
         parse (which pages do not run: their outline comes from the index) {} ({:.1}×)",
        raw_bytes as f64 / 1e3,
        fmt_ms(sanitise_ms),
        sanitise_ms / wall(&floor),
        fmt_ms(parse_ms),
        parse_ms / wall(&floor),
    );
    println!("output digest (SHA-256 over every output's path and SHA-256): {digest}");
    let samples = |v: &[(f64, f64)]| v.iter().map(|x| json!([x.0, x.1])).collect::<Vec<_>>();
    json!({
        "phase": "render",
        "cores": cores,
        "load_average": load.join(" "),
        "found": found.iter().map(|(l, n)| json!({ "source": l, "files": n })).collect::<Vec<_>>(),
        "documents": docs,
        "markdown_bytes": bytes,
        "output_files": output_files,
        "output_bytes": output_bytes,
        "floor_html_bytes": floor_html,
        "output_digest": digest,
        "index_ms": index_ms,
        "index_cpu_ms": index_cpu_ms,
        "floor_ms": wall(&floor), "floor_cpu_ms": cpu(&floor),
        "render_ms": render_ms, "render_cpu_ms": cpu(&render),
        "render_parts_ms": { "engine_parse": parse_ms, "sanitise_raw_html": sanitise_ms },
        "documents_with_raw_html": with_raw,
        "raw_html_bytes": raw_bytes,
        "publish_ms": wall(&publish), "publish_cpu_ms": cpu(&publish),
        "ratio": ratio, "cpu_ratio": cpu_ratio,
        "status_ms": sw, "status_cpu_ms": sc, "status_ms_per_1000_documents": per_1000, "status_sources_checked": checked,
        "deep_status_ms": wall(&deep), "deep_status_cpu_ms": cpu(&deep),
        "samples_ms": { "floor": samples(&floor), "render": samples(&render), "publish": samples(&publish),
                        "status": samples(&status), "deep_status": samples(&deep) },
    })
}
