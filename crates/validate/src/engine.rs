//! The engine side: repository access through `docforge_project` and `docforge_db` (the only
//! code that reads and parses project files), building a snapshot from the engine's graph,
//! and turning document claims into bindings.

use crate::manifest::SelectionPolicy;
use crate::readlog::{ReadLog, Recheck};
use crate::snapshot::{
    build_meta, Attrs, SnapDiagnostic, SnapEdge, SnapLocation, SnapNode, Snapshot, GRAPH_SCHEMA_VERSION,
};
use crate::validator::{Clock, GraphAccessError, GraphRead, RepositoryAccess, SourceState};
use docforge_db::{go_inventory, go_sites, Analysis, AnalysisHost, AstPolicy, DocClaim};
use docforge_model::Precision;
use docforge_project::Project;
use std::path::{Path, PathBuf};

/// The `precision_reason` when precise analysis was requested and the engine answered with
/// AST facts without naming a failure (a defect, reported rather than hidden).
pub const PRECISE_UNAVAILABLE: &str =
    "semantic_layer_unavailable: the engine did not run the Go semantic layer; AST evidence only";

/// A repository on disk, bound to an explicit canonical root.
pub struct DiskRepository {
    root: PathBuf,
    /// Evaluate this in-memory snapshot instead of `.gograph/graph.json` (`docforge validate`).
    graph: Option<Vec<u8>>,
}

impl DiskRepository {
    /// Bind to `root` (must be an existing directory; canonicalised).
    pub fn open(root: &Path) -> Result<Self, String> {
        let project = Project::load(root).map_err(|e| e.to_string())?;
        Ok(DiskRepository { root: project.root, graph: None })
    }

    /// The same repository, evaluated against an in-memory snapshot's bytes.
    pub fn with_graph(root: &Path, graph: Vec<u8>) -> Self {
        DiskRepository { root: root.to_path_buf(), graph: Some(graph) }
    }

    pub fn path(&self) -> &Path {
        &self.root
    }
}

impl RepositoryAccess for DiskRepository {
    fn root(&self) -> String {
        self.root.display().to_string()
    }
    fn read_graph(&self) -> Result<Vec<u8>, GraphAccessError> {
        match &self.graph {
            Some(bytes) => Ok(bytes.clone()),
            None => crate::store::read_graph(&self.root),
        }
    }
    fn read_graph_indexed(&self) -> Result<GraphRead, GraphAccessError> {
        if self.graph.is_none() {
            if let Some(index) = crate::store::read_graph_index(&self.root) {
                // Only the index the fingerprinted graph names, written for these very bytes.
                let (sha256, bound) = crate::store::hash_graph_bound(&self.root)?;
                let paired = bound.is_some_and(|b| {
                    b.named == crate::sha256_hex(&index)
                        && crate::index::graph_digest(&index).is_ok_and(|d| d == b.graph_digest)
                });
                if paired {
                    return Ok(GraphRead::Indexed { sha256, index });
                }
            }
        }
        self.read_graph().map(GraphRead::Bytes)
    }
    fn current_sources(&self) -> Result<SourceState, String> {
        crate::scan::first_scan(&self.root, crate::scan::scan_threads())
    }
    fn recheck_sources(&self, before: &ReadLog) -> Result<Recheck, String> {
        crate::scan::recheck_sources(&self.root, crate::scan::scan_threads(), before)
    }
}

/// A fresh scan: load the project (its `docforge.toml` may have changed), walk it and hash
/// every Go-side file ([`crate::scan`]: the engine's inventory without an analysis
/// database). No Go file is parsed (selection and hashing need no AST).
pub fn current_sources(root: &Path) -> Result<SourceState, String> {
    crate::scan::scan_sources(root, crate::scan::scan_threads())
}

/// What `gograph build` produced.
pub struct Built {
    pub host: AnalysisHost,
    pub snapshot: Snapshot<'static>,
    /// Visible warnings (precise fallback, partial analysis).
    pub warnings: Vec<String>,
}

/// Analyse `root` and build the trusted snapshot (not written).
pub fn build_snapshot(
    root: &Path,
    precise: bool,
    version: &str,
    clock: &dyn Clock,
    threads: usize,
) -> Result<Built, String> {
    let project = Project::load(root).map_err(|e| e.to_string())?;
    let policy = SelectionPolicy::of(&project);
    let mut host = AnalysisHost::new(project, AstPolicy::Allow);
    host.set_precise(precise);
    host.sync_from_disk();
    let analysis = host.analysis();
    analysis.prewarm(threads).map_err(|_| "analysis cancelled".to_string())?;
    let (snapshot, warnings) = snapshot_of(&analysis, &policy, precise, version, clock)?;
    drop(analysis);
    Ok(Built { host, snapshot, warnings })
}

/// The trusted snapshot of one engine revision (an editor's buffers included), with its
/// visible warnings. `precise` says whether the semantic layer was requested.
pub fn snapshot_of(
    analysis: &Analysis,
    policy: &SelectionPolicy,
    precise: bool,
    version: &str,
    clock: &dyn Clock,
) -> Result<(Snapshot<'static>, Vec<String>), String> {
    let graph = analysis.graph().map_err(|_| "analysis cancelled".to_string())?;
    let inventory = go_inventory(analysis).map_err(|_| "analysis cancelled".to_string())?;
    let mut meta = build_meta(&inventory, policy);
    let mut warnings = Vec::new();
    let s = &graph.summary;
    meta.mode = if precise { "precise" } else { "ast" }.into();
    meta.precision = match (s.precision, precise) {
        (Some(Precision::Precise), true) => "precise".into(),
        (Some(Precision::PreciseFallback), true) | (Some(Precision::Ast), true) => {
            let reason = match s.precision_reasons.as_slice() {
                [] => PRECISE_UNAVAILABLE.to_string(),
                reasons => format!("semantic_layer_failed: {}", reasons.join("; ")),
            };
            warnings.push(format!("precise analysis failed; precision is precise_fallback ({reason})"));
            meta.precision_reason = Some(reason);
            "precise_fallback".into()
        }
        (Some(_), false) => "ast".into(),
        (None, _) => return Err("Go code was not analysed (no-AST policy)".into()),
    };
    meta.completeness = if s.completeness.complete { "complete" } else { "partial" }.into();
    meta.completeness_reasons = s.completeness.reasons.clone();
    if !s.completeness.complete {
        warnings.push(format!("the graph is partial: {}", s.completeness.reasons.join(", ")));
    }
    let sites = go_sites(analysis).map_err(|_| "analysis cancelled".to_string())?;
    let bare = |id: &str| id.strip_prefix("go:").map(str::to_string);
    let mut nodes: Vec<SnapNode> = graph
        .nodes()
        .filter_map(|n| {
            Some(SnapNode {
                id: bare(&n.id)?.into(),
                kind: n.kind.clone().into(),
                location: n.location.as_ref().map(SnapLocation::of),
                attrs: kept(n.attrs.to_map(), NODE_ATTRS),
            })
        })
        .collect();
    // `func init` has no package-level identity (no graph node), but a package declares it:
    // one record per declaration, so several are `symbol_ambiguous`, one is found.
    nodes.extend(sites.inits.iter().map(|(package, at)| SnapNode {
        id: format!("{package}::init").into(),
        kind: "func".into(),
        location: Some(SnapLocation::of(at)),
        attrs: [("init", "true")].into_iter().collect(),
    }));
    nodes.sort_by(|a, b| (&a.id, &a.kind).cmp(&(&b.id, &b.kind)));
    // Imports: one record per import declaration (the graph keeps one edge per imported
    // path), classified, so evidence names every site and test files never satisfy it.
    let imports = sites.imports.iter().map(|i| SnapEdge {
        source: i.package.clone().into(),
        relation: "imports".into(),
        target: i.target.clone().into(),
        location: Some(SnapLocation::of(&i.location)),
        attrs: [("classification", if i.test { "test_import" } else { "direct_import" })]
            .into_iter()
            .collect(),
    });
    let more_calls = sites.more_calls.iter().map(|(caller, callee, class, at)| SnapEdge {
        source: caller.clone().into(),
        relation: "calls".into(),
        target: callee.clone().into(),
        location: Some(SnapLocation::of(at)),
        attrs: [("classification", *class)].into_iter().collect(),
    });
    let mut edges: Vec<SnapEdge> = graph
        .edges()
        .filter(|e| matches!(e.relation.as_str(), "calls" | "implements" | "implements_unknown"))
        .filter_map(|e| {
            Some(SnapEdge {
                source: bare(&e.source)?.into(),
                relation: e.relation.clone().into(),
                target: bare(&e.target)?.into(),
                location: e.location.as_ref().map(SnapLocation::of),
                attrs: kept(e.attrs.to_map(), EDGE_ATTRS),
            })
        })
        .chain(imports)
        .chain(more_calls)
        .collect();
    edges.sort_by(|a, b| {
        (&a.source, &a.relation, &a.target, &a.location).cmp(&(
            &b.source,
            &b.relation,
            &b.target,
            &b.location,
        ))
    });
    let mut diagnostics: Vec<SnapDiagnostic> = graph
        .diagnostics()
        .filter(|d| d.code.starts_with("go_"))
        .map(|d| SnapDiagnostic {
            code: d.code.clone(),
            path: d.location.as_ref().map(|l| l.path.clone()),
            symbol_id: d.node.as_deref().and_then(bare),
        })
        .collect();
    diagnostics.sort_by(|a, b| (&a.code, &a.path, &a.symbol_id).cmp(&(&b.code, &b.path, &b.symbol_id)));
    diagnostics.dedup();
    let snapshot = Snapshot {
        schema_version: GRAPH_SCHEMA_VERSION.into(),
        source_policy_version: crate::manifest::SOURCE_POLICY_VERSION,
        index_sha256: None,
        generator: version.to_string(),
        generated_at: clock.now(),
        build: meta,
        nodes,
        edges,
        diagnostics,
    };
    Ok((snapshot, warnings))
}

/// The node attributes evaluation reads. The graph's others (`package`, `receiver`,
/// `pointer_receiver`, `test`, `dir`, …) are display facts derivable from the ID or the
/// location; every validation reads, hashes and decodes the whole snapshot, so they are left
/// out of it (a fifth of the standard library's snapshot).
const NODE_ATTRS: &[&str] = &[
    "calls_resolved",
    "generic",
    "init",
    "interface_set",
    "underlying",
    "underlying_reason",
    "unresolved_calls",
];
/// The edge attributes evaluation reads.
const EDGE_ATTRS: &[&str] = &["classification", "reason", "receiver"];

fn kept(mut attrs: std::collections::BTreeMap<String, String>, keep: &[&str]) -> Attrs<'static> {
    attrs.retain(|k, _| keep.contains(&k.as_str()));
    attrs.into()
}

/// The request a claim stands for: its binding document ([`claim_binding_json`]), refused as
/// `invalid_request` when the claim has problems beyond its values (an unknown key such as a
/// misspelt `required_precision`, a value of the wrong type, claims that cannot be read).
pub fn claim_request(claim: &DocClaim) -> crate::Received {
    let bytes = claim_binding_json(claim);
    if claim.problems.is_empty() {
        crate::Received::from_bytes(&bytes)
    } else {
        let at = format!("{}:{}", claim.location.path, claim.location.line);
        crate::Received::refused(&bytes, format!("invalid claim at {at}: {}", claim.problems.join("; ")))
    }
}

/// The binding document a claim stands for: reference kinds follow the predicate; a claim
/// without `required_precision` requires the predicate's minimum. The result is decoded by
/// the same strict decoder as `gograph validate` input.
pub fn claim_binding_json(claim: &DocClaim) -> Vec<u8> {
    use serde_json::json;
    let kind = if claim.predicate == "package_imports" { "package" } else { "symbol" };
    let precision =
        claim.required_precision.clone().unwrap_or_else(|| {
            match crate::binding::Predicate::parse(&claim.predicate).map(|p| p.minimum_precision()) {
                Some(crate::binding::Precision::Precise) => "precise".into(),
                _ => "ast".into(),
            }
        });
    let mut doc = serde_json::Map::new();
    doc.insert("schema_version".into(), json!(crate::binding::BINDING_SCHEMA));
    doc.insert("predicate".into(), json!(claim.predicate));
    doc.insert("subject".into(), json!({"language": "go", "kind": kind, "id": claim.subject}));
    if let Some(o) = &claim.object {
        doc.insert("object".into(), json!({"language": "go", "kind": kind, "id": o}));
    }
    doc.insert("required_precision".into(), json!(precision));
    serde_json::to_vec(&doc).expect("claims serialise")
}
