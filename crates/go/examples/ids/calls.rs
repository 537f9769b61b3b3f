//! `--calls`: the syntax-resolved `calls` edges of every package, as `caller -> callee`
//! symbol IDs (no `go:` prefix), for comparison with the oracle's `-calls` list.
//!
//! GOROOT vendoring: std imports `golang.org/x/...` from `vendor/golang.org/x/...` (and cmd
//! from `cmd/vendor/golang.org/x/...`). The lookup here resolves such paths to the
//! vendored package, and the printed callee IDs are rewritten to the vendored import path
//! go/types reports. (Module-mode vendoring keeps the original import paths.)

use docforge_go::{package_fragment, package_symbols, FileFacts, PackageFile, PackageSymbols};
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

fn vendored(module: &str, path: &str) -> Option<String> {
    match module {
        "std" => Some(format!("vendor/{path}")),
        "cmd" => Some(format!("cmd/vendor/{path}")),
        _ => None,
    }
}

pub fn call_edges(packages: &[(String, String, Vec<FileFacts>)]) -> BTreeSet<String> {
    let mut symbols: HashMap<&str, Arc<PackageSymbols>> = HashMap::new();
    for (ip, _, facts) in packages {
        let files: Vec<PackageFile<'_>> =
            facts.iter().map(|facts| PackageFile { path: "", facts, test: false }).collect();
        symbols.insert(ip, Arc::new(package_symbols(&files)));
    }
    let mut out = BTreeSet::new();
    for (ip, module, facts) in packages {
        let resolve = |path: &str| -> Option<String> {
            if symbols.contains_key(path) {
                return Some(path.to_string());
            }
            vendored(module, path).filter(|v| symbols.contains_key(v.as_str()))
        };
        let lookup = |path: &str| resolve(path).and_then(|p| symbols.get(p.as_str()).cloned());
        let files: Vec<PackageFile<'_>> =
            facts.iter().map(|facts| PackageFile { path: "", facts, test: false }).collect();
        let frag = package_fragment(ip, &files, &lookup);
        for e in frag.edges.iter().filter(|e| e.relation == "calls") {
            let caller = e.source.trim_start_matches("go:");
            let callee = e.target.trim_start_matches("go:");
            let callee = match callee.split_once("::") {
                Some((path, name)) => {
                    format!("{}::{name}", resolve(path).unwrap_or_else(|| path.to_string()))
                }
                None => callee.to_string(),
            };
            out.insert(format!("{caller} -> {callee}"));
        }
    }
    out
}
