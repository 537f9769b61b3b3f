//! Print every package-level Go symbol ID the engine derives for a directory tree, one per
//! line, sorted, tests excluded — the engine side of the `tests/oracle` comparison.
//!
//! `cargo run --release -p docforge-db --example symbol_ids -- DIR [--calls|--implements]`
//!
//! With `--calls`: the syntax-resolved `calls` edges between package-level functions and
//! methods, as `caller -> callee` (no `go:` prefix), tests excluded.
//! With `--cha`: the precise layer's `calls` edges as `<caller>\t<callee>\t<classification>`
//! and one `<caller>\t-\tcomplete` line per function whose call sites were all resolved
//! (what `call_edge_exists` needs for a negative answer); see tests/oracle/engine_cha.py.
//! With `--implements`: the precise layer's `implements` edges as `<T id> <I id> value|pointer`
//! (the oracle's `-implements` format); the count of `implements_unknown` edges on stderr,
//! and their `<T id> <I id>` pairs in the file `DOCFORGE_IMPLEMENTS_UNKNOWN` names, if set (with
//! `* <id>` for each type that may be an interface: its underlying type is unresolved).
//!
//! This goes through the real pipeline (`project::discover`, `AnalysisHost`, the tracked
//! queries, `graph`), so what it prints is exactly what `docforge index` publishes.

use docforge_db::{AnalysisHost, AstPolicy};
use docforge_project::Project;
use std::collections::BTreeSet;

const SYMBOL_KINDS: &[&str] = &["func", "method", "struct", "interface", "type", "alias", "var", "const"];

fn main() {
    let dir = std::env::args().nth(1).expect("usage: symbol_ids DIR [--calls]");
    let calls = std::env::args().any(|a| a == "--calls");
    let implements = std::env::args().any(|a| a == "--implements");
    let cha = std::env::args().any(|a| a == "--cha");
    let project = Project::load(std::path::Path::new(&dir)).unwrap_or_else(|e| panic!("{e}"));
    let mut host = AnalysisHost::new(project, AstPolicy::Allow);
    host.set_precise(implements || cha);
    host.sync_from_disk();
    host.analysis().prewarm(2).expect("no concurrent writer");
    let graph = host.analysis().graph().expect("no concurrent writer");
    let test_packages: BTreeSet<&str> = graph
        .nodes()
        .filter(|n| n.kind == "package" && n.attrs.get("test").is_some_and(|t| t == "true"))
        .filter_map(|n| n.id.strip_prefix("go:"))
        .collect();
    let mut ids = BTreeSet::new();
    for n in graph.nodes() {
        if !SYMBOL_KINDS.contains(&n.kind.as_str()) || n.attrs.get("test").is_some_and(|t| t == "true") {
            continue;
        }
        let Some(id) = n.id.strip_prefix("go:") else { continue };
        let package = id.split("::").next().unwrap_or(id);
        if test_packages.contains(package) {
            continue;
        }
        ids.insert(id.to_string());
    }
    if calls {
        let edges: BTreeSet<String> = graph
            .edges()
            .filter(|e| e.relation == "calls")
            .filter_map(|e| Some((e.source.strip_prefix("go:")?, e.target.strip_prefix("go:")?)))
            .filter(|(caller, _)| ids.contains(*caller))
            .map(|(caller, callee)| format!("{caller} -> {callee}"))
            .collect();
        ids = edges;
    }
    if cha {
        let mut lines: BTreeSet<String> = graph
            .edges()
            .filter(|e| e.relation == "calls")
            .filter_map(|e| {
                let (s, t) = (e.source.strip_prefix("go:")?, e.target.strip_prefix("go:")?);
                let class = e.attrs.get("classification")?;
                ids.contains(s).then(|| format!("{s}\t{t}\t{class}"))
            })
            .collect();
        for n in graph.nodes() {
            let Some(id) = n.id.strip_prefix("go:") else { continue };
            if ids.contains(id) && n.attrs.get("calls_resolved").is_some_and(|c| c == "true") {
                lines.insert(format!("{id}\t-\tcomplete"));
            }
        }
        ids = lines;
    }
    if implements {
        let mut unknown: Vec<String> = graph
            .edges()
            .filter(|e| e.relation == "implements_unknown")
            .filter_map(|e| {
                Some(format!("{} {}", e.source.strip_prefix("go:")?, e.target.strip_prefix("go:")?))
            })
            .collect();
        // `* <id>`: a type that may be an interface (its underlying type is unresolved), so
        // any pair naming it as the interface is unknown.
        unknown.extend(
            graph
                .nodes()
                .filter(|n| n.attrs.get("underlying").is_some_and(|u| u == "unresolved"))
                .filter_map(|n| Some(format!("* {}", n.id.strip_prefix("go:")?))),
        );
        eprintln!("implements_unknown edges: {}", unknown.len());
        if let Some(path) = std::env::var_os("DOCFORGE_IMPLEMENTS_UNKNOWN") {
            std::fs::write(path, unknown.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
        }
        ids = graph
            .edges()
            .filter(|e| e.relation == "implements")
            .filter_map(|e| {
                let receiver = e.attrs.get("receiver")?;
                Some(format!(
                    "{} {} {receiver}",
                    e.source.strip_prefix("go:")?,
                    e.target.strip_prefix("go:")?
                ))
            })
            .collect();
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for id in ids {
        use std::io::Write;
        writeln!(out, "{id}").unwrap();
    }
}
