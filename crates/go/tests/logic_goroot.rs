//! Logic over every `.go` file of `$(go env GOROOT)/src` (tests and testdata included, so
//! deliberately broken files too): never a panic, always well-formed graphs, the decl
//! numbering of `extract_tree`; counts and the cost of the walk next to the parse.
//!
//! `cargo test --release -p docforge-go --test logic_goroot -- --ignored --nocapture`
//! (skipped when `go` is not installed).

mod goroot;

use docforge_go::{extract_logic, extract_tree, StepKind, MAX_LOGIC_STEPS, MAX_STEP_TEXT};
use docforge_syntax::{AstGate, AstPolicy};
use goroot::{go_files, goroot};
use std::path::PathBuf;
use std::time::{Duration, Instant};

#[test]
#[ignore = "walks GOROOT/src; run with --release -- --ignored --nocapture"]
fn logic_over_goroot() {
    let Some(root) = goroot() else {
        eprintln!("logic_over_goroot: `go` is not installed; skipped");
        return;
    };
    let mut paths = Vec::new();
    go_files(&root.join("src"), &mut paths);
    let files: Vec<(PathBuf, Vec<u8>)> =
        paths.into_iter().filter_map(|p| std::fs::read(&p).ok().map(|s| (p, s))).collect();
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let (mut parse, mut walk, mut facts_time) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let (mut functions, mut steps, mut edges, mut truncated, mut partial, mut bytes) = (0, 0, 0, 0, 0, 0);
    let mut largest = (0, String::new());
    for (path, src) in &files {
        bytes += src.len();
        let t = Instant::now();
        let tree = go.parse(src);
        parse += t.elapsed();
        let t = Instant::now();
        let logic = extract_logic(go, &tree, src);
        walk += t.elapsed();
        let t = Instant::now();
        let facts = extract_tree(go, &tree, src);
        facts_time += t.elapsed();
        for f in &logic {
            let decl = &facts.decls[f.decl as usize];
            assert_eq!((&decl.name, &decl.receiver), (&f.name, &f.receiver), "{}", path.display());
            let n = f.steps.len();
            assert!((2..=MAX_LOGIC_STEPS).contains(&n), "{}: {}", path.display(), f.name);
            assert_eq!((f.steps[0].kind, f.steps[n - 1].kind), (StepKind::Entry, StepKind::Exit));
            assert!(f.steps.iter().all(|s| s.text.len() <= MAX_STEP_TEXT));
            assert!(f.edges.iter().all(|e| (e.from as usize) < n && (e.to as usize) < n));
            functions += 1;
            steps += n;
            edges += f.edges.len();
            truncated += usize::from(f.truncated);
            partial += usize::from(f.partial);
            if n > largest.0 {
                largest = (n, format!("{} {}", path.display(), f.name));
            }
        }
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "{} files, {:.1} MB: {functions} functions, {steps} steps, {edges} edges, {truncated} truncated, \
         {partial} partial; largest {} steps ({})",
        files.len(),
        bytes as f64 / 1e6,
        largest.0,
        largest.1
    );
    println!(
        "parse {:.0} ms, logic walk {:.0} ms ({:.1}% of the parse), extract_tree {:.0} ms (one thread)",
        ms(parse),
        ms(walk),
        100.0 * walk.as_secs_f64() / parse.as_secs_f64(),
        ms(facts_time)
    );
}
