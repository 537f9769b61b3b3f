//! Print every package-level symbol ID of a directory tree, one per line, sorted — the Rust
//! side of the `tests/oracle` comparison with go/types.
//!
//! `cargo run --release -p docforge-go --example ids -- DIR [--time] [--parse-only] [--calls]`
//! `cargo run --release -p docforge-go --example ids -- DIR --bench 5` (timing; see [`bench`])
//!
//! Walk (as the integrator does): every directory holding a `go.mod` starts a module (module
//! path from its `module` line); directories named `testdata` or starting with `_` or `.`
//! are skipped; `_test.go` files are skipped; each other `.go` file goes through
//! `select_file` (default linux/amd64 context) and `extract_file`. Module `std` (GOROOT/src)
//! maps `vendor/x` to import path `vendor/x` and module `cmd` maps `cmd/vendor/x` to
//! `cmd/vendor/x`, exactly as `go list std cmd` names vendored packages. Files of a
//! directory whose package clause differs from the directory's main package (`package
//! main` generators excluded by tags never get here) are kept under the same import path;
//! `package documentation` files are dropped by `select_file`.

mod calls;
mod walk;

use docforge_go::{extract_file, select_file, BuildContext};
use docforge_syntax::{AstGate, AstPolicy};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Instant;
use walk::Walk;

/// Every `.go` file under `dir` (testdata included), read into memory.
fn all_go_files(dir: &Path, out: &mut Vec<(String, Vec<u8>)>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        match e.file_type() {
            Ok(ft) if ft.is_dir() => all_go_files(&e.path(), out),
            Ok(ft) if ft.is_file() && name.ends_with(".go") => {
                if let Ok(src) = std::fs::read(e.path()) {
                    out.push((name, src));
                }
            }
            _ => {}
        }
    }
}

/// `--bench N`: in-memory timing over every `.go` file under the root (tests and testdata
/// included): a plain parse through the gate vs `select_file` + `extract_file`, alternating,
/// N rounds, minimum of each reported.
fn bench(root: &Path, rounds: usize) {
    let mut files = Vec::new();
    all_go_files(root, &mut files);
    let bytes: usize = files.iter().map(|(_, s)| s.len()).sum();
    let gate = AstGate::new(AstPolicy::Allow);
    let ctx = BuildContext::default();
    let (mut parse, mut full) = (f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let t = Instant::now();
        for (_, src) in &files {
            std::hint::black_box(gate.go().expect("AST allowed").parse(src));
        }
        parse = parse.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut calls = 0;
        for (name, src) in &files {
            std::hint::black_box(select_file(&ctx, name, src));
            calls += extract_file(gate.go().expect("AST allowed"), src).calls.len();
        }
        full = full.min(t.elapsed().as_secs_f64());
        std::hint::black_box(calls);
    }
    println!(
        "{} files, {:.1} MB: parse {parse:.3}s, select+extract {full:.3}s, ratio {:.3}",
        files.len(),
        bytes as f64 / 1e6,
        full / parse
    );
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(i) = args.iter().position(|a| a == "--bench") {
        let rounds = args.get(i + 1).and_then(|n| n.parse().ok()).unwrap_or(3);
        let root = args.iter().find(|a| !a.starts_with("--") && a.parse::<usize>().is_err()).cloned();
        bench(Path::new(&root.unwrap_or_else(|| ".".into())), rounds);
        return;
    }
    let time = args.iter().any(|a| a == "--time");
    let parse_only = args.iter().any(|a| a == "--parse-only");
    let calls = args.iter().any(|a| a == "--calls");
    args.retain(|a| a != "--time" && a != "--parse-only" && a != "--calls");
    let root = PathBuf::from(args.first().cloned().unwrap_or_else(|| ".".into()));
    let gate = AstGate::new(AstPolicy::Allow);
    let mut w = Walk {
        root: root.clone(),
        ctx: BuildContext::default(),
        ids: BTreeSet::new(),
        files: 0,
        bytes: 0,
        parse_only,
        keep: calls,
        packages: Vec::new(),
        sigs: false,
        sig_packages: Vec::new(),
    };
    let start = Instant::now();
    w.dir(&gate, &root, None);
    let elapsed = start.elapsed();
    if time {
        eprintln!(
            "{} files, {} bytes, {} ids in {:.3}s",
            w.files,
            w.bytes,
            w.ids.len(),
            elapsed.as_secs_f64()
        );
        return;
    }
    let lines = if calls { calls::call_edges(&w.packages) } else { std::mem::take(&mut w.ids) };
    let mut out = String::new();
    for id in &lines {
        out.push_str(id);
        out.push('\n');
    }
    print!("{out}");
}
