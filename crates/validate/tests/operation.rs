//! One validation operation on a real repository (a tempdir copy of fixtures/validate/mod)
//! through the engine-backed repository access, with the clock and version injected: the
//! golden result document, a repository mutated during a deliberately blocked validation,
//! scanner errors, and no writes.

use docforge_validate::{
    build_snapshot, write_graph, DiskRepository, FixedClock, GraphAccessError, Outcome, Reason,
    RepositoryAccess, SourceState, Validator,
};
use std::path::Path;
use std::process::Command;
use std::sync::mpsc;

fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/validate/mod");
    let ok =
        Command::new("cp").arg("-r").arg(format!("{}/.", src.display())).arg(dir.path()).status().unwrap();
    assert!(ok.success());
    dir
}

const CLOCK: &str = "2026-08-20T20:30:00Z";

fn build(root: &Path) {
    let built =
        build_snapshot(root, false, "test-build", &FixedClock("2026-08-20T20:29:00Z".into()), 1).unwrap();
    write_graph(&built.host.project().root, &built.snapshot.encode()).unwrap();
}

const RUN_CALLS_HELP: &str = r#"{"schema_version":"gograph.binding.v1","predicate":"package_imports","subject":{"language":"go","kind":"package","id":"example.com/v/a"},"object":{"language":"go","kind":"package","id":"example.com/v/b"},"required_precision":"ast"}"#;

fn tree(root: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn golden_result_document() {
    let dir = fixture();
    build(dir.path());
    let repo = DiskRepository::open(dir.path()).unwrap();
    let before = tree(dir.path());
    let v = Validator { repo: &repo, clock: &FixedClock(CLOCK.into()), version: "test-build", pause: None };
    let result = v.validate(RUN_CALLS_HELP.as_bytes());
    assert_eq!(tree(dir.path()), before, "validation writes nothing");
    let text = serde_json::to_string_pretty(&result).unwrap().replace(&repo.root(), "<root>");
    expect_test::expect_file!["golden/package_imports_pass.json"].assert_eq(&text);
    assert_eq!(result.exit_code(), 0);
}

#[test]
fn repository_mutated_during_a_blocked_validation_is_graph_stale() {
    let dir = fixture();
    build(dir.path());
    let repo = DiskRepository::open(dir.path()).unwrap();
    let (paused_tx, paused_rx) = mpsc::channel::<()>();
    let (resume_tx, resume_rx) = mpsc::channel::<()>();
    let paused_tx = std::sync::Mutex::new(paused_tx);
    let resume_rx = std::sync::Mutex::new(resume_rx);
    let pause = move || {
        paused_tx.lock().unwrap().send(()).unwrap();
        resume_rx.lock().unwrap().recv().unwrap();
    };
    let result = std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let v = Validator {
                repo: &repo,
                clock: &FixedClock(CLOCK.into()),
                version: "t",
                pause: Some(&pause),
            };
            v.validate(RUN_CALLS_HELP.as_bytes())
        });
        paused_rx.recv().unwrap();
        // The validation is blocked between evaluation and the second freshness check.
        std::fs::write(dir.path().join("b/b.go"), "package b\n\nfunc Help() string { return \"changed\" }\n")
            .unwrap();
        resume_tx.send(()).unwrap();
        worker.join().unwrap()
    });
    assert_eq!((result.outcome(), result.evaluation.reason), (Outcome::CannotEvaluate, Reason::GraphStale));
    assert_eq!(serde_json::to_value(result.analysis.freshness).unwrap(), "stale");
    assert!(result.evidence.matched_relations.is_empty() && result.evidence.resolved_subject.is_none());
    let codes: Vec<(&str, Option<&str>)> =
        result.evaluation.diagnostics.iter().map(|d| (d.code.as_str(), d.path.as_deref())).collect();
    assert_eq!(codes, [("source_changed_during_evaluation", None), ("source_changed", Some("b/b.go"))]);

    // The same blocked validation without a change passes.
    let v = Validator { repo: &repo, clock: &FixedClock(CLOCK.into()), version: "t", pause: Some(&|| {}) };
    std::fs::write(dir.path().join("b/b.go"), std::fs::read(fixture().path().join("b/b.go")).unwrap())
        .unwrap();
    assert_eq!(v.validate(RUN_CALLS_HELP.as_bytes()).outcome(), Outcome::Pass);
}

/// A repository whose walk reports a scanner error (an unreadable directory, say).
struct ScanError(DiskRepository);

impl RepositoryAccess for ScanError {
    fn root(&self) -> String {
        self.0.root()
    }
    fn read_graph(&self) -> Result<Vec<u8>, GraphAccessError> {
        self.0.read_graph()
    }
    fn current_sources(&self) -> Result<SourceState, String> {
        let mut s = self.0.current_sources()?;
        s.inventory.scan_errors.push(("secret".into(), "Permission denied (os error 13)".into()));
        Ok(s)
    }
}

#[test]
fn scanner_errors_make_freshness_unknown_never_current() {
    let dir = fixture();
    build(dir.path());
    let repo = ScanError(DiskRepository::open(dir.path()).unwrap());
    let v = Validator { repo: &repo, clock: &FixedClock(CLOCK.into()), version: "t", pause: None };
    let r = v.validate(RUN_CALLS_HELP.as_bytes());
    assert_eq!((r.outcome(), r.evaluation.reason), (Outcome::CannotEvaluate, Reason::AnalysisIncomplete));
    assert_eq!(serde_json::to_value(r.analysis.freshness).unwrap(), "unknown");
    assert_eq!(r.repository.source_fingerprint, None, "omitted: it cannot be computed");
    let d = &r.evaluation.diagnostics[0];
    assert_eq!((d.code.as_str(), d.path.as_deref()), ("scan_error", Some("secret")));
    assert!(!d.message.contains("os error"), "no raw system output: {}", d.message);
}

#[test]
fn source_manifest_of_the_fixture_golden() {
    let dir = fixture();
    let s = docforge_validate::current_sources(dir.path()).unwrap();
    let manifest = docforge_validate::source_manifest(&s.inventory, &s.policy);
    expect_test::expect_file!["golden/mod_manifest.txt"].assert_eq(&manifest);
    assert!(!manifest.contains(&dir.path().display().to_string()), "no absolute directory spelling");
}
