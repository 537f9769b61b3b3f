//! One validation operation on a real repository (a tempdir copy of fixtures/validate/mod)
//! through the engine-backed repository access, with the clock and version injected: the
//! golden result document, a repository mutated during a deliberately blocked validation,
//! scanner errors, and no writes.

use docforge_validate::{
    build_snapshot, publish_graph, DiskRepository, FixedClock, GraphAccessError, Outcome, Reason, Received,
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
    let mut built =
        build_snapshot(root, false, "test-build", &FixedClock("2026-08-20T20:29:00Z".into()), 1).unwrap();
    publish_graph(&built.host.project().root.clone(), &mut built.snapshot).unwrap();
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

/// Validate `RUN_CALLS_HELP`, blocked between evaluation and the second freshness check
/// while `change` runs.
fn blocked_validation(repo: &DiskRepository, change: &dyn Fn()) -> docforge_validate::ValidationResult {
    let (paused_tx, paused_rx) = mpsc::channel::<()>();
    let (resume_tx, resume_rx) = mpsc::channel::<()>();
    let paused_tx = std::sync::Mutex::new(paused_tx);
    let resume_rx = std::sync::Mutex::new(resume_rx);
    let pause = move || {
        paused_tx.lock().unwrap().send(()).unwrap();
        resume_rx.lock().unwrap().recv().unwrap();
    };
    std::thread::scope(|s| {
        let worker = s.spawn(|| {
            let v = Validator { repo, clock: &FixedClock(CLOCK.into()), version: "t", pause: Some(&pause) };
            v.validate(RUN_CALLS_HELP.as_bytes())
        });
        paused_rx.recv().unwrap();
        change();
        resume_tx.send(()).unwrap();
        worker.join().unwrap()
    })
}

fn assert_stale(what: &str, result: &docforge_validate::ValidationResult, changed: (&str, &str)) {
    assert_eq!(
        (result.outcome(), result.evaluation.reason),
        (Outcome::CannotEvaluate, Reason::GraphStale),
        "{what}"
    );
    assert_eq!(serde_json::to_value(result.analysis.freshness).unwrap(), "stale", "{what}");
    assert!(result.evidence.matched_relations.is_empty() && result.evidence.resolved_subject.is_none());
    let codes: Vec<(&str, Option<&str>)> =
        result.evaluation.diagnostics.iter().map(|d| (d.code.as_str(), d.path.as_deref())).collect();
    assert_eq!(codes, [("source_changed_during_evaluation", None), (changed.0, Some(changed.1))], "{what}");
}

#[test]
fn repository_mutated_during_a_blocked_validation_is_graph_stale() {
    let dir = fixture();
    build(dir.path());
    let repo = DiskRepository::open(dir.path()).unwrap();
    let result = blocked_validation(&repo, &|| {
        std::fs::write(dir.path().join("b/b.go"), "package b\n\nfunc Help() string { return \"changed\" }\n")
            .unwrap()
    });
    assert_stale("a rewrite", &result, ("source_changed", "b/b.go"));

    // The same blocked validation without a change passes.
    let v = Validator { repo: &repo, clock: &FixedClock(CLOCK.into()), version: "t", pause: Some(&|| {}) };
    std::fs::write(dir.path().join("b/b.go"), std::fs::read(fixture().path().join("b/b.go")).unwrap())
        .unwrap();
    assert_eq!(v.validate(RUN_CALLS_HELP.as_bytes()).outcome(), Outcome::Pass);
}

/// The same once every file is settled (written longer than the racy window before the
/// validation began), so that the recheck takes an unchanged file's stamp instead of reading
/// it: every kind of change is still seen, the subtle ones included.
#[test]
fn settled_repositories_mutated_during_a_blocked_validation_are_graph_stale() {
    type Change = fn(&Path);
    let cases: [(&str, Change, (&str, &str)); 5] = [
        ("same-size rewrite", |r| rewrite(r, "b/b.go", "\"help\"", "\"pleh\""), ("source_changed", "b/b.go")),
        (
            "same-size rewrite, modification time put back",
            |r| {
                let path = r.join("b/b.go");
                let mtime = std::fs::metadata(&path).unwrap().modified().unwrap();
                rewrite(r, "b/b.go", "\"help\"", "\"pleh\"");
                std::fs::File::options().write(true).open(&path).unwrap().set_modified(mtime).unwrap();
            },
            ("source_changed", "b/b.go"),
        ),
        (
            "file added",
            |r| std::fs::write(r.join("a/new.go"), "package a\n").unwrap(),
            ("source_added", "a/new.go"),
        ),
        ("file removed", |r| std::fs::remove_file(r.join("c/c.go")).unwrap(), ("source_removed", "c/c.go")),
        (
            "file excluded by a new build constraint",
            |r| rewrite(r, "c/c.go", "package c", "//go:build ignore\n\npackage c"),
            ("source_changed", "c/c.go"),
        ),
    ];
    let dirs: Vec<_> = cases
        .iter()
        .map(|_| {
            let dir = fixture();
            build(dir.path());
            dir
        })
        .collect();
    std::thread::sleep(docforge_validate::RACY_WINDOW + std::time::Duration::from_millis(300));
    let first = DiskRepository::open(dirs[0].path()).unwrap();
    let v = Validator { repo: &first, clock: &FixedClock(CLOCK.into()), version: "t", pause: Some(&|| {}) };
    assert_eq!(v.validate(RUN_CALLS_HELP.as_bytes()).outcome(), Outcome::Pass, "unchanged and settled");
    for ((what, change, changed), dir) in cases.iter().zip(&dirs) {
        let repo = DiskRepository::open(dir.path()).unwrap();
        let result = blocked_validation(&repo, &|| change(dir.path()));
        assert_stale(what, &result, *changed);
    }
}

fn rewrite(root: &Path, rel: &str, from: &str, to: &str) {
    let path = root.join(rel);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{rel} has no {from:?}");
    std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
}

/// The index only makes a validation faster: with it, without it, and with an index left
/// over from another graph, every kind of answer is the same document.
#[test]
fn the_graph_index_never_changes_a_result() {
    let dir = fixture();
    build(dir.path());
    let repo = DiskRepository::open(dir.path()).unwrap();
    let binding = |predicate: &str, subject: &str, object: Option<&str>| {
        let kind = if predicate == "package_imports" { "package" } else { "symbol" };
        let object = object.map_or(String::new(), |o| {
            format!(r#","object":{{"language":"go","kind":"{kind}","id":"{o}"}}"#)
        });
        format!(
            r#"{{"schema_version":"gograph.binding.v1","predicate":"{predicate}","subject":{{"language":"go","kind":"{kind}","id":"{subject}"}}{object},"required_precision":"ast"}}"#
        )
    };
    let requests = [
        binding("symbol_exists", "example.com/v/a::(*Store).Get", None),
        binding("symbol_exists", "example.com/v/a::Missing", None),
        binding("package_imports", "example.com/v/a", Some("example.com/v/b")),
        binding("package_imports", "example.com/v/b", Some("example.com/v/a")),
        binding("type_implements", "example.com/v/c::Value", Some("example.com/v/c::Named")),
        binding("call_edge_exists", "example.com/v/a::Run", Some("example.com/v/b::Help")),
        binding("call_edge_exists", "example.com/v/a::Lookup", Some("example.com/v/c::(Value).Get")),
    ];
    let validate = || {
        let v = Validator { repo: &repo, clock: &FixedClock(CLOCK.into()), version: "t", pause: None };
        let received = requests.iter().map(|r| Received::from_bytes(r.as_bytes())).collect();
        serde_json::to_value(v.validate_all(received)).unwrap()
    };
    let index = dir.path().join(".gograph").join(docforge_validate::INDEX_FILE);
    assert!(index.is_file(), "gograph build writes the index");
    let with_index = validate();
    let outcomes: Vec<_> =
        with_index.as_array().unwrap().iter().map(|r| r["evaluation"]["outcome"].clone()).collect();
    assert!(outcomes.contains(&"pass".into()) && outcomes.contains(&"fail".into()), "{outcomes:?}");
    let stale_index = std::fs::read(&index).unwrap();
    std::fs::remove_file(&index).unwrap();
    assert_eq!(validate(), with_index, "without the index");
    // An index written for other graph bytes is ignored: the graph decides.
    let graph = dir.path().join(".gograph/graph.json");
    let bytes = std::fs::read(&graph).unwrap();
    let mut edited: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
    edited["edges"] = serde_json::json!([]);
    std::fs::write(&graph, serde_json::to_vec(&edited).unwrap()).unwrap();
    std::fs::write(&index, &stale_index).unwrap();
    let from_graph = validate();
    std::fs::remove_file(&index).unwrap();
    assert_eq!(from_graph, validate(), "with an index of other bytes");
    assert_ne!(from_graph, with_index, "the edited graph answers differently");
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
