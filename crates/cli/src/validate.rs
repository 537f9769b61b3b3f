//! `docforge validate`: every `[[claims]]` entry of the project's documents through the same
//! evaluator as `gograph validate`, against a fresh in-memory snapshot of the sources (no
//! prior `gograph build` needed; nothing is written, but for finishing or undoing a canonical
//! application a killed process left). The snapshot is fingerprinted when it
//! is built and the sources are checked again before and after evaluation, so a change
//! during the run yields `cannot_evaluate`/`graph_stale`, never a mixed result. With
//! `--staged`, the project is the Git index's content ([`crate::staged`]).

use crate::stdout::outln;
use docforge_validate::{validate_project, Outcome, ProjectValidation, ValidationResult};
use std::path::Path;

/// Exit code: 0 all pass, 1 any fail, 2 any cannot_evaluate and none fails (also when the
/// project cannot be analysed at all).
pub fn validate(root: &Path, json: bool, staged: bool) -> u8 {
    match run(root, json, staged) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("docforge: {e}");
            2
        }
    }
}

fn run(root: &Path, json: bool, staged: bool) -> Result<u8, String> {
    // Never a half-applied tree: a canonical application a killed process left is finished or
    // undone first (the only write this command can make, and only then).
    if !staged {
        docforge_project::recover_application(root)
            .map_err(|e| format!("a pending canonical application cannot be recovered: {e}"))?;
    }
    let version = env!("DOCFORGE_BUILD_ID");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let ProjectValidation { claims, results, warnings, go_sources } = if staged {
        let shown =
            std::fs::canonicalize(root).map_err(|e| format!("project root {}: {e}", root.display()))?;
        let copy = crate::staged::checkout(&shown)?;
        if !json {
            eprintln!("docforge: validating the content staged in the Git index");
        }
        let mut v = validate_project(&copy.root, version, threads)?;
        // The results describe the project (its staged content), not the temporary copy.
        for r in &mut v.results {
            r.repository.root = shown.display().to_string();
        }
        v
    } else {
        validate_project(root, version, threads)?
    };
    if !staged {
        // The working tree's outcomes are recorded for rendered pages (never the staged
        // content, which the pages do not show). Failing to record changes no outcome.
        if let Err(e) = record(root, &claims, &results, &go_sources) {
            eprintln!("docforge: warning: the outcomes could not be recorded for rendered pages: {e}");
        }
    }
    if json {
        let docs: Vec<&ValidationResult> = results.iter().collect();
        outln!("{}", serde_json::to_string(&docs).expect("results serialise"));
    } else if claims.is_empty() {
        outln!("no claims found");
    } else {
        for w in &warnings {
            eprintln!("docforge: warning: {w}");
        }
        print_table(&claims, &results);
    }
    let any = |o: Outcome| results.iter().any(|r| r.outcome() == o);
    Ok(if any(Outcome::Fail) {
        1
    } else if any(Outcome::CannotEvaluate) {
        2
    } else {
        0
    })
}

/// Record the outcomes in `.docforge/receipts/claims.v1.json` (see `docforge_render::claims`).
fn record(
    root: &Path,
    claims: &[docforge_db::DocClaim],
    results: &[ValidationResult],
    go_sources: &[(String, String)],
) -> Result<(), String> {
    let project = docforge_project::Project::load(root).map_err(|e| e.to_string())?;
    let outcomes = results.iter().map(|r| (r.outcome().as_str(), r.evaluation.reason.as_str()));
    docforge_render::claims::record(&project, go_sources, claims, outcomes).map_err(|e| e.to_string())
}

fn print_table(claims: &[docforge_db::DocClaim], results: &[ValidationResult]) {
    let rows: Vec<[String; 4]> = claims
        .iter()
        .zip(results)
        .map(|(c, r)| {
            let claim = match &c.object {
                _ if c.predicate.is_empty() && c.subject.is_empty() => {
                    "(claims that cannot be read)".to_string()
                }
                Some(o) => format!("{} {} -> {}", c.predicate, c.subject, o),
                None => format!("{} {}", c.predicate, c.subject),
            };
            let doc = format!("{} ({}:{})", c.document, c.location.path, c.location.line);
            [claim, doc, r.outcome().as_str().to_string(), r.evaluation.reason.as_str().to_string()]
        })
        .collect();
    let header = ["CLAIM", "DOCUMENT", "OUTCOME", "REASON"].map(String::from);
    let width = |i: usize| rows.iter().chain([&header]).map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    for (row, result) in std::iter::once((&header, None)).chain(rows.iter().zip(results.iter().map(Some))) {
        outln!("{:w0$}  {:w1$}  {:w2$}  {}", row[0], row[1], row[2], row[3]);
        if let Some(r) = result.filter(|r| r.outcome() != Outcome::Pass) {
            for d in &r.evaluation.diagnostics {
                outln!("    {}: {}", d.code, d.message);
            }
        }
    }
    let count = |o: Outcome| results.iter().filter(|r| r.outcome() == o).count();
    outln!(
        "{} claims: {} pass, {} fail, {} cannot_evaluate",
        results.len(),
        count(Outcome::Pass),
        count(Outcome::Fail),
        count(Outcome::CannotEvaluate)
    );
    let mut skipped: Vec<&str> = claims
        .iter()
        .filter(|c| c.predicate.is_empty() && c.subject.is_empty() && !c.problems.is_empty())
        .map(|c| c.path.as_str())
        .collect();
    skipped.dedup();
    if !skipped.is_empty() {
        outln!(
            "{} document(s) with claims that cannot be read (not evaluated): {}",
            skipped.len(),
            skipped.join(", ")
        );
    }
}
