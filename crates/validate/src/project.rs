//! Every `[[claims]]` entry of a project's documents through the one evaluator, against a
//! fresh in-memory snapshot of the sources (nothing is written). Shared by `docforge
//! validate`, the MCP `docforge_validate_project` tool and the LSP's claim diagnostics.

use crate::{build_snapshot, claim_request, DiskRepository, SystemClock, ValidationResult, Validator};
use docforge_db::{doc_claims, DocClaim};
use std::path::Path;

/// The claims found and their results, in the same order.
pub struct ProjectValidation {
    pub claims: Vec<DocClaim>,
    pub results: Vec<ValidationResult>,
    /// Warnings of the snapshot build (e.g. precise semantics unavailable for a package).
    pub warnings: Vec<String>,
    /// The Go side the claims were evaluated against: every selected Go file and module file
    /// with its SHA-256, in path order (what an outcome is bound to when it is recorded).
    pub go_sources: Vec<(String, String)>,
}

/// Analyse the project once to read its claims, again with precise semantics when a claim
/// needs them, then evaluate every claim. The snapshot is fingerprinted when it is built and
/// the sources are checked before and after evaluation, so a change during the run yields
/// `cannot_evaluate`/`graph_stale`, never a mixed result.
pub fn validate_project(root: &Path, version: &str, threads: usize) -> Result<ProjectValidation, String> {
    let probe = build_snapshot(root, false, version, &SystemClock, threads)?;
    let claims = doc_claims(&probe.host.analysis()).map_err(|_| "analysis cancelled".to_string())?;
    let wants_precise = claims.iter().any(|c| {
        c.required_precision.as_deref() == Some("precise")
            || matches!(c.predicate.as_str(), "call_edge_exists" | "type_implements")
    });
    let built =
        if wants_precise { build_snapshot(root, true, version, &SystemClock, threads)? } else { probe };
    let repo = DiskRepository::with_graph(&built.host.project().root, built.snapshot.encode());
    let validator = Validator { repo: &repo, clock: &SystemClock, version, pause: None };
    let results = validator.validate_all(claims.iter().map(claim_request).collect());
    let build = &built.snapshot.build;
    let mut go_sources: Vec<(String, String)> = build
        .files
        .iter()
        .map(|f| (f.path.clone(), f.sha256.clone()))
        .chain(build.metadata.iter().map(|m| (m.path.clone(), m.sha256.clone())))
        .collect();
    go_sources.sort();
    Ok(ProjectValidation { claims, results, warnings: built.warnings.clone(), go_sources })
}
