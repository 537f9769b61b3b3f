//! Print every `implements` pair of a directory tree, one `<T id> <I id> value|pointer` per
//! line, sorted — the Rust side of `tests/oracle/compare.sh --implements`.
//!
//! `cargo run --release -p docforge-go --example implements -- DIR [--time] [--goroot GOROOT]`
//! `cargo run --release -p docforge-go --example implements -- DIR --bench N`: in-memory
//! timing of the selected files: a plain parse through the gate vs parse + `extract_sigs`
//! (and `extract_sigs` alone, timed per file), alternating, N rounds, minimum of each.
//!
//! The walk and the import paths are the `ids` example's (`../ids/walk.rs`), extracting
//! signature summaries (`extract_sigs`) instead of facts. Imports resolve as the go command
//! does for these trees: a package of module `std` imports `x` from `vendor/x` and one of
//! module `cmd` from `cmd/vendor/x` when the tree has that package, else `x` itself.
//! Packages outside the tree are absent from the source — unless `--goroot DIR` is given:
//! then standard-library imports the tree lacks are loaded lazily from `DIR/src` (with
//! GOROOT vendoring) on first use, as the salsa layer would. Types of absent packages are
//! unresolved, and pairs depending on them are Unknown — counted on stderr with the top
//! reasons, never printed as pairs.

#[path = "../ids/walk.rs"]
mod walk;

use docforge_go::types::{implements, PackageSigs, SigSource, TypeCtx, Verdict};
use docforge_go::{extract_sigs, select_file, BuildContext, FileSelection};
use docforge_syntax::{AstGate, AstPolicy};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;
use walk::Walk;

/// The walked packages by import path, with their module paths; standard-library
/// packages from `goroot` on demand.
struct Tree {
    packages: HashMap<String, (String, Arc<PackageSigs>)>,
    goroot: Option<PathBuf>,
    lazy: RefCell<HashMap<String, Option<Arc<PackageSigs>>>>,
    gate: AstGate,
}

impl Tree {
    /// The selected non-test files of `GOROOT/src/<path>` as a package.
    fn load_std(&self, path: &str) -> Option<Arc<PackageSigs>> {
        let dir = self.goroot.as_ref()?.join("src").join(path);
        let mut entries: Vec<_> = std::fs::read_dir(&dir).ok()?.filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| e.file_name());
        let go = self.gate.go().expect("AST allowed");
        let ctx = BuildContext::default();
        let mut files = Vec::new();
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            if !name.ends_with(".go")
                || name.ends_with("_test.go")
                || !e.file_type().is_ok_and(|t| t.is_file())
            {
                continue;
            }
            let Ok(src) = std::fs::read(e.path()) else { continue };
            if select_file(&ctx, &name, &src) == FileSelection::Included {
                files.push(Arc::new(extract_sigs(go, &go.parse(&src), &src).items));
            }
        }
        (!files.is_empty()).then(|| Arc::new(PackageSigs::new(path, files)))
    }
}

impl SigSource for Tree {
    fn package(&self, import_path: &str) -> Option<Arc<PackageSigs>> {
        if let Some((_, p)) = self.packages.get(import_path) {
            return Some(p.clone());
        }
        if let Some(p) = self.lazy.borrow().get(import_path) {
            return p.clone();
        }
        let p = self.load_std(import_path);
        self.lazy.borrow_mut().insert(import_path.to_string(), p.clone());
        p
    }

    fn resolve_import(&self, from: &str, spec: &str) -> Option<String> {
        let vendored = match self.packages.get(from).map(|(m, _)| m.as_str()) {
            Some("std") => Some(format!("vendor/{spec}")),
            Some("cmd") => Some(format!("cmd/vendor/{spec}")),
            Some(_) => None,
            // A lazily loaded standard-library package.
            None => Some(format!("vendor/{spec}")).filter(|v| self.package(v).is_some()),
        };
        Some(vendored.filter(|v| self.package(v).is_some()).unwrap_or_else(|| spec.to_string()))
    }
}

fn bench(root: &Path, rounds: usize) {
    let mut files = Vec::new();
    selected_files(&BuildContext::default(), root, &mut files);
    let bytes: usize = files.iter().map(Vec::len).sum();
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().expect("AST allowed");
    let (mut parse, mut sigs, mut extract_only) = (f64::MAX, f64::MAX, f64::MAX);
    for _ in 0..rounds {
        let t = Instant::now();
        for src in &files {
            std::hint::black_box(go.parse(src));
        }
        parse = parse.min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut extract = std::time::Duration::ZERO;
        for src in &files {
            let tree = go.parse(src);
            let e = Instant::now();
            std::hint::black_box(extract_sigs(go, &tree, src));
            extract += e.elapsed();
        }
        sigs = sigs.min(t.elapsed().as_secs_f64());
        extract_only = extract_only.min(extract.as_secs_f64());
    }
    println!(
        "{} files, {:.1} MB: parse {parse:.3}s, parse+extract_sigs {sigs:.3}s (extract_sigs alone {extract_only:.3}s), \
         ratio {:.3}",
        files.len(),
        bytes as f64 / 1e6,
        sigs / parse
    );
}

/// The non-test `.go` files `select_file` includes, outside `testdata`, `_*` and `.*`.
fn selected_files(ctx: &BuildContext, dir: &Path, out: &mut Vec<Vec<u8>>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().into_owned();
        match e.file_type() {
            Ok(ft) if ft.is_dir() && name != "testdata" && !name.starts_with(['_', '.']) => {
                selected_files(ctx, &e.path(), out)
            }
            Ok(ft) if ft.is_file() && name.ends_with(".go") && !name.ends_with("_test.go") => {
                if let Ok(src) = std::fs::read(e.path()) {
                    if select_file(ctx, &name, &src) == FileSelection::Included {
                        out.push(src);
                    }
                }
            }
            _ => {}
        }
    }
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
    args.retain(|a| a != "--time");
    let goroot = args.iter().position(|a| a == "--goroot").map(|i| {
        let dir = args.get(i + 1).cloned().unwrap_or_default();
        args.drain(i..(i + 2).min(args.len()));
        PathBuf::from(dir)
    });
    let root = PathBuf::from(args.first().cloned().unwrap_or_else(|| ".".into()));
    let gate = AstGate::new(AstPolicy::Allow);
    let mut w = Walk {
        root: root.clone(),
        ctx: BuildContext::default(),
        ids: BTreeSet::new(),
        files: 0,
        bytes: 0,
        parse_only: false,
        keep: false,
        packages: Vec::new(),
        sigs: true,
        sig_packages: Vec::new(),
    };
    let start = Instant::now();
    w.dir(&gate, &root, None);
    let walked = start.elapsed();
    let mut tree = Tree { packages: HashMap::new(), goroot, lazy: RefCell::default(), gate };
    let mut paths = Vec::new();
    for (ip, module, files) in w.sig_packages {
        let sigs = PackageSigs::new(ip.clone(), files.into_iter().map(Arc::new).collect());
        tree.packages.insert(ip.clone(), (module, Arc::new(sigs)));
        paths.push(ip);
    }
    let t = Instant::now();
    let ctx = TypeCtx::new(&tree);
    let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    let pairs = implements(&ctx, &paths);
    let resolved = t.elapsed();
    let mut out = String::new();
    let mut reasons: BTreeMap<&'static str, (usize, String)> = BTreeMap::new();
    let mut unknown = 0;
    for p in &pairs {
        let verdict = match &p.verdict {
            Verdict::Value => "value",
            Verdict::Pointer => "pointer",
            Verdict::Unknown(u) => {
                unknown += 1;
                let e = reasons.entry(u.kind()).or_insert((0, u.to_string()));
                e.0 += 1;
                continue;
            }
        };
        out.push_str(&format!("{} {} {verdict}\n", p.ty, p.iface));
    }
    print!("{out}");
    let mut top: Vec<_> = reasons.into_iter().collect();
    top.sort_by_key(|b| std::cmp::Reverse(b.1 .0));
    eprintln!("unknown pairs: {unknown}");
    for (kind, (n, example)) in top.iter().take(8) {
        eprintln!("  {n:>7} {kind} (e.g. {example})");
    }
    if time {
        eprintln!(
            "{} packages, {} files, {} bytes: walk+parse+sigs {:.3}s, implements {:.3}s",
            paths.len(),
            w.files,
            w.bytes,
            walked.as_secs_f64(),
            resolved.as_secs_f64()
        );
    }
}
