//! The walk and resolution of the `calls` example, shared with `tests/calls_fixture.rs`.

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
pub struct Timing {
    pub parse: Duration,
    pub sigs: Duration,
    pub bodies: Duration,
    /// Today's `extract_tree` (declarations + syntax-only call sites) on the same trees.
    pub facts: Duration,
    pub files: usize,
    pub bytes: usize,
}

pub struct Walk {
    root: PathBuf,
    std_only: bool,
    ctx: BuildContext,
    pkgs: Vec<Pkg>,
    pub pkg_count: usize,
    pub t: Timing,
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

/// Resolution output: sorted lines (see the example's header) and a summary.
#[allow(dead_code)] // fields read by the example's main only
pub struct Report {
    pub lines: Vec<String>,
    pub walk: Walk,
    pub walked: Duration,
    pub indexed: Duration,
    pub resolved: Duration,
    pub sites: usize,
    pub calls: usize,
    pub unresolved: usize,
    pub funcs: usize,
    pub complete: usize,
    pub cha_unknown: usize,
    pub reasons: BTreeMap<&'static str, (usize, BTreeMap<String, usize>)>,
}

pub fn run(root: &Path, std_only: bool, time: bool) -> Report {
    let gate = AstGate::new(AstPolicy::Allow);
    let mut w = Walk {
        root: root.to_path_buf(),
        std_only,
        ctx: BuildContext::default(),
        pkgs: Vec::new(),
        t: Timing::default(),
        facts: time,
        pkg_count: 0,
    };
    let start = Instant::now();
    w.dir(&gate, root, None);
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
                                e.targets.clone()
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
    w.pkg_count = w.pkgs.len();
    Report {
        lines,
        walked,
        indexed,
        resolved,
        sites,
        calls,
        unresolved,
        funcs,
        complete,
        cha_unknown,
        reasons,
        walk: Walk { pkgs: Vec::new(), ..w },
    }
}
