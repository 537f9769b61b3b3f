//! The directory walk of the `ids` example, shared with `tests/oracle_fixture.rs`.
//!
//! Every directory holding a `go.mod` starts a module (module path from its `module` line);
//! directories named `testdata` or starting with `_` or `.` are skipped; `_test.go` files
//! are skipped; each other `.go` file goes through `select_file` (default linux/amd64
//! context) and `extract_file`; IDs come from `package_symbol_id` per directory. Packages
//! `go list std cmd` leaves out (`go_list_excluded`: builtin, runtime/cgo without cgo,
//! vendored commands) are dropped.

use docforge_go::{
    extract_file, extract_sigs, go_list_excluded, import_path, package_symbol_id, package_symbols,
    parse_go_mod, select_file, BuildContext, FileFacts, FileSelection, ItemSigs, PackageFile,
};
use docforge_syntax::AstGate;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub struct Walk {
    pub root: PathBuf,
    pub ctx: BuildContext,
    pub ids: BTreeSet<String>,
    pub files: usize,
    pub bytes: usize,
    /// `--parse-only`: parse through the gate but extract nothing (the timing baseline).
    pub parse_only: bool,
    /// Keep every package's facts in `packages` (for `--calls`).
    pub keep: bool,
    /// `(import path, module path, facts of the selected files)` per package, when `keep`.
    pub packages: Vec<(String, String, Vec<FileFacts>)>,
    /// Extract signature summaries instead of facts (no IDs): `sig_packages` gets
    /// `(import path, module path, sigs of the selected files)` per package.
    pub sigs: bool,
    pub sig_packages: Vec<(String, String, Vec<ItemSigs>)>,
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap_or(p).to_string_lossy().replace('\\', "/")
}

impl Walk {
    pub fn dir(&mut self, gate: &AstGate, dir: &Path, module: Option<(String, String)>) {
        let module = match std::fs::read_to_string(dir.join("go.mod")) {
            Ok(text) => match parse_go_mod(&text) {
                Ok(m) => Some((m.module, rel(&self.root, dir))),
                Err(e) => {
                    eprintln!("{}: go.mod: {e}", dir.display());
                    module
                }
            },
            Err(_) => module,
        };
        let mut entries: Vec<_> = match std::fs::read_dir(dir) {
            Ok(rd) => rd.filter_map(|e| e.ok()).collect(),
            Err(_) => return,
        };
        entries.sort_by_key(|e| e.file_name());
        let pkg_dir = rel(&self.root, dir);
        let mut package: Vec<FileFacts> = Vec::new();
        let mut sigs: Vec<ItemSigs> = Vec::new();
        for e in &entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                if name == "testdata" || name.starts_with('_') || name.starts_with('.') {
                    continue;
                }
                self.dir(gate, &e.path(), module.clone());
            } else if ft.is_file() && name.ends_with(".go") && !name.ends_with("_test.go") {
                if module.is_none() {
                    continue;
                }
                let Ok(src) = std::fs::read(e.path()) else { continue };
                if select_file(&self.ctx, &name, &src) != FileSelection::Included {
                    continue;
                }
                self.files += 1;
                self.bytes += src.len();
                let go = gate.go().expect("AST allowed");
                if self.parse_only {
                    std::hint::black_box(go.parse(&src));
                    continue;
                }
                if self.sigs {
                    sigs.push(extract_sigs(go, &go.parse(&src), &src).items);
                    continue;
                }
                package.push(extract_file(go, &src));
            }
        }
        if let (Some((mod_path, mod_dir)), false) = (&module, sigs.is_empty()) {
            let ip = import_path(mod_path, mod_dir, &pkg_dir);
            if go_list_excluded(&self.ctx, &ip, sigs[0].package.as_deref()).is_none() {
                self.sig_packages.push((ip, mod_path.clone(), sigs));
            }
            return;
        }
        if let (Some((mod_path, mod_dir)), false) = (&module, package.is_empty()) {
            let ip = import_path(mod_path, mod_dir, &pkg_dir);
            if go_list_excluded(&self.ctx, &ip, package[0].package.as_deref()).is_some() {
                return;
            }
            let files: Vec<PackageFile<'_>> =
                package.iter().map(|facts| PackageFile { path: "", facts, test: false }).collect();
            let syms = package_symbols(&files);
            for facts in &package {
                for d in &facts.decls {
                    if let Some(id) = package_symbol_id(&ip, d, &syms) {
                        self.ids.insert(id);
                    }
                }
            }
            if self.keep {
                self.packages.push((ip, mod_path.clone(), package));
            }
        }
    }
}

/// The sorted symbol IDs of the tree at `root`.
#[allow(dead_code)] // used by tests/oracle_fixture.rs, not by the example's main
pub fn symbol_ids(gate: &AstGate, root: &Path) -> BTreeSet<String> {
    let mut w = Walk {
        root: root.to_path_buf(),
        ctx: BuildContext::default(),
        ids: BTreeSet::new(),
        files: 0,
        bytes: 0,
        parse_only: false,
        keep: false,
        packages: Vec::new(),
        sigs: false,
        sig_packages: Vec::new(),
    };
    w.dir(gate, root, None);
    w.ids
}
