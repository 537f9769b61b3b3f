//! The gograph commands: each returns its exit code; errors are one line on stderr.

use crate::stdout::outln;
use crate::VERSION;
use docforge_validate::{
    self as v, build_snapshot, current_sources, publish_graph, read_graph, DiskRepository, GraphAccessError,
    Received, RepositoryAccess, Snapshot, SystemClock, Validator,
};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;

fn print(value: &Value) {
    outln!("{}", serde_json::to_string(value).expect("JSON values serialise"));
}

fn fail(message: impl std::fmt::Display) -> u8 {
    eprintln!("gograph: {message}");
    1
}

pub fn version(json: bool) -> u8 {
    if json {
        print(&json!({ "schema_version": "gograph.version.v1", "version": VERSION }));
    } else {
        outln!("gograph {VERSION}");
    }
    0
}

pub fn build(root: &Path, precise: bool, as_json: bool) -> u8 {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut built = match build_snapshot(root, precise, VERSION, &SystemClock, threads) {
        Ok(b) => b,
        Err(e) => return fail(e),
    };
    for w in &built.warnings {
        eprintln!("gograph: warning: {w}");
    }
    let root = built.host.project().root.clone();
    let (path, bytes) = match publish_graph(&root, &mut built.snapshot) {
        Ok(p) => p,
        Err(e) => return fail(e),
    };
    let s = &built.snapshot;
    if as_json {
        print(&json!({
            "schema_version": "gograph.build.v1",
            "repository": { "root": root.display().to_string(), "source_fingerprint": s.build.source_fingerprint },
            "graph": {
                "path": v::graph_rel(),
                "graph_fingerprint": v::sha256_hex(&bytes),
                "mode": s.build.mode, "precision": s.build.precision,
                "precision_reason": s.build.precision_reason,
                "completeness": s.build.completeness, "completeness_reasons": s.build.completeness_reasons,
                "nodes": s.nodes.len(), "edges": s.edges.len(), "files": s.build.files.len(),
            },
            "warnings": built.warnings,
        }));
    } else {
        outln!(
            "wrote {}: {} nodes, {} edges, {} Go files; precision {}, {}",
            path.display(),
            s.nodes.len(),
            s.edges.len(),
            s.build.files.len(),
            s.build.precision,
            s.build.completeness
        );
    }
    0
}

/// The canonical root and the decoded trusted snapshot with its bytes.
fn load(root: &Path) -> Result<(DiskRepository, Vec<u8>, Snapshot<'static>), String> {
    let repo = DiskRepository::open(root)?;
    let bytes = read_graph(repo.path()).map_err(|e| match e {
        GraphAccessError::Missing(m) | GraphAccessError::Unsafe(m) | GraphAccessError::Unreadable(m) => m,
    })?;
    let snap =
        Snapshot::decode(&bytes).map_err(|e| format!("{}: {}", e.reason.as_str(), e.message))?.into_owned();
    Ok((repo, bytes, snap))
}

pub fn stats(root: &Path, as_json: bool) -> u8 {
    let (repo, bytes, s) = match load(root) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let mut nodes_by_kind: BTreeMap<&str, usize> = BTreeMap::new();
    for n in &s.nodes {
        *nodes_by_kind.entry(n.kind.as_ref()).or_default() += 1;
    }
    let mut edges_by_relation: BTreeMap<&str, usize> = BTreeMap::new();
    for e in &s.edges {
        *edges_by_relation.entry(e.relation.as_ref()).or_default() += 1;
    }
    let parse_failures = s.diagnostics.iter().filter(|d| d.code == "go_syntax_error").count();
    let b = &s.build;
    if as_json {
        print(&json!({
            "schema_version": "gograph.stats.v1",
            "repository": { "root": repo.root() },
            "graph": {
                "path": v::graph_rel(),
                "graph_schema_version": s.schema_version,
                "source_policy_version": s.source_policy_version,
                "graph_fingerprint": v::sha256_hex(&bytes),
                "generator": s.generator,
                "generated_at": s.generated_at,
                "mode": b.mode, "precision": b.precision, "precision_reason": b.precision_reason,
                "completeness": b.completeness, "completeness_reasons": b.completeness_reasons,
                "parse_failures": parse_failures,
                "source_fingerprint": b.source_fingerprint,
                "build_context_fingerprint": b.build_context_fingerprint,
                "files": b.files.len(),
                "nodes": s.nodes.len(), "edges": s.edges.len(),
                "nodes_by_kind": nodes_by_kind, "edges_by_relation": edges_by_relation,
            },
        }));
    } else {
        outln!(
            "graph schema {} generated {}: {} nodes, {} edges; precision {}, {}, {} parse failures",
            s.schema_version,
            s.generated_at,
            s.nodes.len(),
            s.edges.len(),
            b.precision,
            b.completeness,
            parse_failures
        );
    }
    0
}

pub fn stale(root: &Path, as_json: bool) -> u8 {
    let (repo, bytes, snap) = match load(root) {
        Ok(x) => x,
        Err(e) => return fail(e),
    };
    let current = match current_sources(repo.path()) {
        Ok(c) => c,
        Err(e) => return fail(e),
    };
    let inv = &current.inventory;
    let scan_errors: Vec<Value> =
        inv.scan_errors.iter().map(|(path, _)| json!({ "code": "scan_error", "path": path })).collect();
    let fingerprint = scan_errors.is_empty().then(|| v::source_fingerprint(inv, &current.policy));
    let (freshness, code) = match &fingerprint {
        None => ("unknown", 1),
        Some(f) if *f == snap.build.source_fingerprint => ("current", 0),
        Some(_) => ("stale", 2),
    };
    let changes: Vec<Value> = if freshness == "stale" {
        v::differences(&snap.inventory(), inv, current.policy != snap.build.policy)
            .into_iter()
            .map(|(code, path)| {
                if path.is_empty() {
                    json!({ "code": code })
                } else {
                    json!({ "code": code, "path": path })
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    if as_json {
        print(&json!({
            "schema_version": "gograph.stale.v1",
            "repository": { "root": repo.root(), "source_fingerprint": fingerprint },
            "graph": { "graph_fingerprint": v::sha256_hex(&bytes), "source_fingerprint": snap.build.source_fingerprint },
            "freshness": freshness,
            "changes": changes,
            "diagnostics": scan_errors,
        }));
    } else {
        outln!("{freshness}");
    }
    if code == 1 {
        eprintln!("gograph: scanner errors while listing the repository; freshness is unknown");
    }
    code
}

/// A repository that could not be opened: only invalid requests are ever answered with it.
struct Unopened(String);

impl RepositoryAccess for Unopened {
    fn root(&self) -> String {
        self.0.clone()
    }
    fn read_graph(&self) -> Result<Vec<u8>, GraphAccessError> {
        Err(GraphAccessError::Missing("repository not opened".into()))
    }
    fn current_sources(&self) -> Result<v::SourceState, String> {
        Err("repository not opened".into())
    }
}

struct Invocation {
    repo: Option<OsString>,
    binding: Option<OsString>,
    json: bool,
    /// `--help`/`-h` in a flag's place (a flag's value is data, whatever it spells).
    help: bool,
    problem: Option<String>,
}

fn parse(args: Vec<OsString>) -> Invocation {
    let mut inv = Invocation { repo: None, binding: None, json: false, help: false, problem: None };
    let mut it = args.into_iter();
    let problem = |inv: &mut Invocation, p: String| {
        inv.problem.get_or_insert(p);
    };
    while let Some(arg) = it.next() {
        let text = arg.to_str().map(str::to_string);
        let (flag, inline) = match text.as_deref().and_then(|t| t.split_once('=')) {
            Some((f, val)) if f.starts_with("--") => (f.to_string(), Some(OsString::from(val))),
            _ => (text.clone().unwrap_or_default(), None),
        };
        match flag.as_str() {
            "--json" if inline.is_none() => {
                if inv.json {
                    problem(&mut inv, "--json given twice".into());
                }
                inv.json = true;
            }
            "--repo" | "--binding-json" => {
                let value = inline.or_else(|| it.next());
                let slot = if flag == "--repo" { &mut inv.repo } else { &mut inv.binding };
                match value {
                    None => problem(&mut inv, format!("{flag} needs a value")),
                    Some(_) if slot.is_some() => problem(&mut inv, format!("{flag} given twice")),
                    Some(v) => *slot = Some(v),
                }
            }
            "--help" | "-h" if inline.is_none() => {
                inv.help = true;
                problem(
                    &mut inv,
                    format!("unexpected argument {flag:?} (--json asks for a validation, not usage)"),
                );
            }
            _ => problem(&mut inv, format!("unexpected argument {:?}", arg.to_string_lossy())),
        }
    }
    if inv.repo.is_none() {
        problem(&mut inv, "--repo is required".into());
    }
    if inv.binding.is_none() {
        problem(&mut inv, "--binding-json is required".into());
    }
    inv
}

pub fn validate(args: Vec<OsString>) -> u8 {
    use std::os::unix::ffi::OsStrExt;
    let inv = parse(args);
    if inv.help && !inv.json {
        // Usage only for a person: with --json every invocation answers with one
        // gograph.validation.v1 document (exit 0 would read as a pass).
        outln!("Usage: gograph validate --repo PATH --binding-json JSON --json\n\n{}", crate::EXIT_HELP);
        return 0;
    }
    if !inv.json {
        eprintln!("gograph: validate requires --json (v1 has no human rendering)");
        return 2;
    }
    let bytes = inv.binding.as_ref().map(|b| b.as_bytes().to_vec()).unwrap_or_default();
    let repo_arg = inv.repo.as_ref().map(|r| r.to_string_lossy().into_owned()).unwrap_or_default();
    let answer = |repo: &dyn RepositoryAccess, received: Received| {
        let validator = Validator { repo, clock: &SystemClock, version: VERSION, pause: None };
        let result = validator.validate_all(vec![received]).pop().expect("one result");
        outln!("{}", result.to_json());
        result.exit_code()
    };
    if let Some(p) = inv.problem {
        return answer(&Unopened(repo_arg), Received::refused(&bytes, format!("invalid invocation: {p}")));
    }
    let repo = match DiskRepository::open(Path::new(inv.repo.as_deref().unwrap_or_default())) {
        Ok(r) => r,
        Err(e) => return answer(&Unopened(repo_arg), Received::refused(&bytes, format!("--repo: {e}"))),
    };
    answer(&repo, Received::from_bytes(&bytes))
}
