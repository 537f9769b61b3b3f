//! Print the precise call resolution of a directory tree — the Rust side of
//! `tests/oracle/compare.sh --cha`.
//!
//! `cargo run --release -p docforge-go --example calls -- DIR [--std-only] [--time]`
//!
//! The walk and import paths are the `ids` example's (module roots from `go.mod`, `testdata`,
//! `_*`, `.*` and `_test.go` skipped, `select_file` with linux/amd64, `go_list_excluded`);
//! `--std-only` skips `DIR/cmd`. Each file is parsed once; `extract_sigs` and
//! `extract_bodies` read the same tree. One line per resolved edge, sorted:
//!
//! `<file>:<line>:<col>\t<caller>\t<callee>\tstatic|cha\tsynthetic|-`
//!
//! and one per call site without an edge:
//!
//! `<file>:<line>:<col>\t<caller>\t-\tresolved|unresolved\t<class or reason: detail>`
//!
//! `--time` prints timings and the reason summary to stderr.

use docforge_go::body::{extract_bodies, FileBodies};
use docforge_go::calls::{resolve_file_calls, CallTarget, ChaIndex, StaticKind};
use docforge_go::types::{PackageSigs, SigSource, TypeCtx};
use docforge_go::{extract_sigs, extract_tree, go_list_excluded, import_path, parse_go_mod, select_file};
use docforge_go::{BuildContext, FileSelection, ItemSigs};
use docforge_syntax::{AstGate, AstPolicy};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Pkg {
    ip: String,
    module: String,
    files: Vec<(String, ItemSigs, FileBodies)>,
}

#[derive(Default)]
struct Timing {
    parse: Duration,
    sigs: Duration,
    bodies: Duration,
    /// Today's `extract_tree` (declarations + syntax-only call sites) on the same trees.
    facts: Duration,
    files: usize,
    bytes: usize,
}

struct Walk {
    root: PathBuf,
    std_only: bool,
    ctx: BuildContext,
    pkgs: Vec<Pkg>,
    t: Timing,
    facts: bool,
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

impl Walk {
    fn dir(&mut self, gate: &AstGate, dir: &Path, module: Option<(String, String)>) {
        let module = match std::fs::read_to_string(dir.join("go.mod")) {
            Ok(text) => parse_go_mod(&text).ok().map(|m| (m.module, rel(&self.root, dir))).or(module),
            Err(_) => module,
        };
        let Ok(rd) = std::fs::read_dir(dir) else { return };
        let mut entries: Vec<_> = rd.filter_map(|e| e.ok()).collect();
        entries.sort_by_key(|e| e.file_name());
        let mut files = Vec::new();
        for e in &entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                let skip = name == "testdata" || name.starts_with('_') || name.starts_with('.');
                if skip || (self.std_only && dir == self.root && name == "cmd") {
                    continue;
                }
                self.dir(gate, &e.path(), module.clone());
            } else if ft.is_file() && name.ends_with(".go") && !name.ends_with("_test.go") && module.is_some()
            {
                let Ok(src) = std::fs::read(e.path()) else { continue };
                if select_file(&self.ctx, &name, &src) != FileSelection::Included {
                    continue;
                }
                self.t.files += 1;
                self.t.bytes += src.len();
                let go = gate.go().expect("AST allowed");
                let t = Instant::now();
                let tree = go.parse(&src);
                self.t.parse += t.elapsed();
                let t = Instant::now();
                let sigs = extract_sigs(go, &tree, &src).items;
                self.t.sigs += t.elapsed();
                let t = Instant::now();
                let bodies = extract_bodies(go, &tree, &src);
                self.t.bodies += t.elapsed();
                if self.facts {
                    let t = Instant::now();
                    std::hint::black_box(extract_tree(go, &tree, &src));
                    self.t.facts += t.elapsed();
                }
                files.push((rel(&self.root, &e.path()), sigs, bodies));
            }
        }
        if let (Some((mod_path, mod_dir)), false) = (&module, files.is_empty()) {
            let ip = import_path(mod_path, mod_dir, &rel(&self.root, dir));
            if go_list_excluded(&self.ctx, &ip, files[0].1.package.as_deref()).is_none() {
                self.pkgs.push(Pkg { ip, module: mod_path.clone(), files });
            }
        }
    }
}

struct Tree {
    packages: HashMap<String, (String, Arc<PackageSigs>)>,
}

impl SigSource for Tree {
    fn package(&self, import_path: &str) -> Option<Arc<PackageSigs>> {
        self.packages.get(import_path).map(|(_, p)| p.clone())
    }

    fn resolve_import(&self, from: &str, spec: &str) -> Option<String> {
        let vendored = match self.packages.get(from).map(|(m, _)| m.as_str()) {
            Some("std") => Some(format!("vendor/{spec}")),
            Some("cmd") => Some(format!("cmd/vendor/{spec}")),
            _ => None,
        };
        Some(vendored.filter(|v| self.packages.contains_key(v)).unwrap_or_else(|| spec.to_string()))
    }
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |args: &mut Vec<String>, f: &str| {
        let on = args.iter().any(|a| a == f);
        args.retain(|a| a != f);
        on
    };
    let time = flag(&mut args, "--time");
    let std_only = flag(&mut args, "--std-only");
    let root = PathBuf::from(args.first().cloned().unwrap_or_else(|| ".".into()));
    let gate = AstGate::new(AstPolicy::Allow);
    let mut w = Walk {
        root: root.clone(),
        std_only,
        ctx: BuildContext::default(),
        pkgs: Vec::new(),
        t: Timing::default(),
        facts: time,
    };
    let start = Instant::now();
    w.dir(&gate, &root, None);
    let walked = start.elapsed();
    let t = Instant::now();
    let mut tree = Tree { packages: HashMap::new() };
    for p in &w.pkgs {
        let files = p.files.iter().map(|(_, s, _)| Arc::new(s.clone())).collect();
        tree.packages
            .insert(p.ip.clone(), (p.module.clone(), Arc::new(PackageSigs::new(p.ip.clone(), files))));
    }
    let ctx = TypeCtx::new(&tree);
    let paths: Vec<&str> = w.pkgs.iter().map(|p| p.ip.as_str()).collect();
    let cha = ChaIndex::new(&ctx, &paths);
    let indexed = t.elapsed();
    let t = Instant::now();
    let mut lines = Vec::new();
    let mut reasons: BTreeMap<&'static str, (usize, BTreeMap<String, usize>)> = BTreeMap::new();
    let (mut sites, mut unresolved, mut calls, mut funcs, mut complete) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut expansions: HashMap<String, Vec<docforge_go::calls::ChaTarget>> = HashMap::new();
    let mut cha_unknown = 0usize;
    for p in &w.pkgs {
        for (fi, (file, _, bodies)) in p.files.iter().enumerate() {
            for fc in resolve_file_calls(&ctx, &p.ip, fi, bodies) {
                funcs += 1;
                complete += usize::from(fc.complete);
                let caller = fc.caller.clone().unwrap_or_else(|| "?".into());
                for s in &fc.sites {
                    sites += 1;
                    let at = format!("{file}:{}:{}", s.pos.line, s.pos.column);
                    if s.target.is_call() {
                        calls += 1;
                    }
                    match &s.target {
                        CallTarget::Static { callee, kind } => {
                            let syn = if *kind == StaticKind::MethodExpr { "synthetic" } else { "-" };
                            lines.push(format!("{at}\t{caller}\t{callee}\tstatic\t{syn}"));
                        }
                        CallTarget::Interface { iface, method } => {
                            let key = format!("{iface:?}/{method}");
                            let targets = expansions.entry(key).or_insert_with(|| {
                                let e = cha.targets(&ctx, iface, method);
                                if !e.unknown.is_empty() {
                                    cha_unknown += 1;
                                }
                                e.targets
                            });
                            if targets.is_empty() {
                                lines.push(format!("{at}\t{caller}\t-\tresolved\tinterface without targets"));
                            }
                            for c in targets.iter() {
                                let syn = if c.synthetic { "synthetic" } else { "-" };
                                lines.push(format!("{at}\t{caller}\t{}\tcha\t{syn}", c.callee));
                            }
                        }
                        CallTarget::Unresolved { reason, detail } => {
                            unresolved += 1;
                            let e = reasons.entry(reason.as_str()).or_default();
                            e.0 += 1;
                            let d: String = detail.chars().take(60).collect();
                            *e.1.entry(d).or_default() += 1;
                            lines.push(format!(
                                "{at}\t{caller}\t-\tunresolved\t{}: {detail}",
                                reason.as_str()
                            ));
                        }
                        other => lines.push(format!("{at}\t{caller}\t-\tresolved\t{other}")),
                    }
                }
            }
        }
    }
    let resolved = t.elapsed();
    lines.sort();
    let mut out = lines.join("\n");
    out.push('\n');
    print!("{out}");
    if time {
        let s = |d: Duration| d.as_secs_f64();
        eprintln!(
            "{} packages, {} files, {} bytes; {funcs} funcs ({complete} complete), {sites} sites, {calls} calls, \
             {unresolved} unresolved ({:.2}% of calls); {cha_unknown} interface expansions with unknown types",
            w.pkgs.len(),
            w.t.files,
            w.t.bytes,
            100.0 * unresolved as f64 / calls.max(1) as f64
        );
        eprintln!(
            "walk {:.3}s = parse {:.3}s + sigs {:.3}s + bodies {:.3}s + today's extract_tree {:.3}s (+ io); \
             index (PackageSigs, CHA) {:.3}s; resolve+expand {:.3}s",
            s(walked),
            s(w.t.parse),
            s(w.t.sigs),
            s(w.t.bodies),
            s(w.t.facts),
            s(indexed),
            s(resolved)
        );
        let mut top: Vec<_> = reasons.into_iter().collect();
        top.sort_by_key(|b| std::cmp::Reverse(b.1 .0));
        for (r, (n, details)) in &top {
            let mut d: Vec<_> = details.iter().collect();
            d.sort_by_key(|b| std::cmp::Reverse(*b.1));
            let ex: Vec<String> = d.iter().take(4).map(|(k, v)| format!("{k} ×{v}")).collect();
            eprintln!("  {n:>7} {r}  e.g. {}", ex.join("; "));
        }
    }
}
