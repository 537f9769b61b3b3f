//! `docforge validate` end to end: claims from documents through the validation core, the
//! table and the JSON array, exit codes 0/1/2, nothing written, and a plain Git pre-commit
//! hook that refuses a commit breaking a claim.

use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn docforge() -> &'static str {
    env!("CARGO_BIN_EXE_docforge")
}

fn copy(fixture: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures").join(fixture);
    let ok =
        Command::new("cp").arg("-r").arg(format!("{}/.", src.display())).arg(dir.path()).status().unwrap();
    assert!(ok.success());
    let _ = fs::remove_dir_all(dir.path().join(".docforge"));
    dir
}

fn run(root: &Path, json: bool) -> Output {
    let mut c = Command::new(docforge());
    c.arg("validate").arg("--project-root").arg(root);
    if json {
        c.arg("--json");
    }
    c.output().unwrap()
}

fn outcomes(out: &Output) -> Vec<(String, String)> {
    let docs: Value = serde_json::from_slice(&out.stdout).expect("one JSON array");
    docs.as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert_eq!(d["schema_version"], "gograph.validation.v1");
            let e = &d["evaluation"];
            (e["outcome"].as_str().unwrap().to_string(), e["reason"].as_str().unwrap().to_string())
        })
        .collect()
}

#[test]
fn claims_that_hold_pass_and_a_broken_claim_fails_by_name() {
    let dir = copy("validate/mod");
    let root = dir.path();
    let out = run(root, false);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stdout));
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.starts_with("CLAIM"), "{table}");
    assert!(table.contains("2 claims: 2 pass, 0 fail, 0 cannot_evaluate"), "{table}");
    assert!(!root.join(".gograph").exists() && !root.join(".docforge").exists(), "nothing is written");
    fs::write(root.join("b/b.go"), "package b\n\n// Helper helps.\nfunc Helper() string { return \"\" }\n")
        .unwrap();
    let out = run(root, false);
    assert_eq!(out.status.code(), Some(1));
    let table = String::from_utf8(out.stdout).unwrap();
    let failing = table.lines().find(|l| l.contains("fail") && l.contains("symbol_not_found")).unwrap();
    assert!(
        failing.contains("example.com/v/b::Help") && failing.contains("claims (docs/claims.md:"),
        "{table}"
    );
    let json = run(root, true);
    assert_eq!(json.status.code(), Some(1));
    assert_eq!(
        outcomes(&json),
        [("fail".into(), "symbol_not_found".into()), ("pass".into(), "predicate_passed".into())]
    );
}

#[test]
fn shop_claims_use_precise_implements_and_honest_call_gaps() {
    let dir = copy("shop");
    let out = run(dir.path(), true);
    assert_eq!(out.status.code(), Some(1), "the fixture's false implements claim fails");
    // Place also calls a function value (s.OnPlaced): a claim that it does not call
    // something would be cannot_evaluate, never fail (tested in crates/cli/tests/gograph.rs).
    let got = outcomes(&out);
    let want = [
        ("pass", "predicate_passed"),
        // (*OrderService).Place calls (*Set).Add statically (go/ssa + CHA agree).
        ("pass", "predicate_passed"),
        ("pass", "predicate_passed"),
        // cache::Snapshot implements storage::Reader (go/types agrees) ...
        ("pass", "predicate_passed"),
        // ... but not storage::Repository (it has no Put): an evaluated fail.
        ("fail", "relation_not_found"),
    ];
    assert_eq!(got, want.map(|(o, r)| (o.to_string(), r.to_string())));
    let missing =
        Command::new(docforge()).args(["validate", "--project-root", "/nonexistent/x"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(missing.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&missing.stderr).lines().count(), 1);
}

#[test]
fn a_git_pre_commit_hook_refuses_a_commit_that_breaks_a_claim() {
    let dir = copy("validate/mod");
    let root = dir.path();
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "user.email=t@example.com", "-c", "user.name=t"])
            .args(args)
            .output()
            .unwrap()
    };
    assert!(git(&["init", "-q"]).status.success());
    let bin = Path::new(docforge()).parent().unwrap().display().to_string();
    let hook = root.join(".git/hooks/pre-commit");
    fs::write(&hook, format!("#!/bin/sh\nexec \"{bin}/docforge\" validate --project-root \"$(git rev-parse --show-toplevel)\"\n"))
        .unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&hook, fs::Permissions::from_mode(0o755)).unwrap();
    git(&["add", "-A"]);
    let kept = git(&["commit", "-qm", "claims hold"]);
    assert!(kept.status.success(), "{}", String::from_utf8_lossy(&kept.stderr));
    fs::write(root.join("a/a.go"), "package a\n\nfunc Run() {}\n").unwrap();
    git(&["add", "-A"]);
    let refused = git(&["commit", "-qm", "drop the util import"]);
    assert!(!refused.status.success(), "the hook refuses the commit");
    // Git hands a hook's output to stderr.
    let said =
        String::from_utf8_lossy(&refused.stdout).into_owned() + &String::from_utf8_lossy(&refused.stderr);
    assert!(said.contains("package_imports example.com/v/a -> example.com/v/x/util"), "{said}");
    assert!(said.contains("relation_not_found"), "{said}");
    let log = git(&["log", "--oneline"]);
    assert_eq!(String::from_utf8_lossy(&log.stdout).lines().count(), 1, "only the first commit exists");
}
