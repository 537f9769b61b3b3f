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
    assert!(!root.join(".gograph").exists(), "no snapshot is written");
    assert_eq!(state_files(root), [".docforge/receipts/claims.v1.json"], "only the outcomes are recorded");
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
    fs::write(
        &hook,
        format!("#!/bin/sh\nexec \"{bin}/docforge\" validate --staged --project-root \"$(git rev-parse --show-toplevel)\"\n"),
    )
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
    // What counts is what the commit records: a staged rename that breaks a claim is refused
    // even though the working tree still has the old code...
    git(&["checkout", "--", "."]);
    git(&["reset", "-q"]);
    let b = fs::read_to_string(root.join("b/b.go")).unwrap();
    fs::write(root.join("b/b.go"), b.replace("func Help()", "func Helper()")).unwrap();
    git(&["add", "b/b.go"]);
    fs::write(root.join("b/b.go"), &b).unwrap();
    let refused = git(&["commit", "-qm", "rename Help"]);
    assert!(!refused.status.success(), "the staged rename breaks the claim");
    let said =
        String::from_utf8_lossy(&refused.stderr).into_owned() + &String::from_utf8_lossy(&refused.stdout);
    assert!(said.contains("example.com/v/b::Help") && said.contains("symbol_not_found"), "{said}");
    // ... and a commit that keeps the claims is accepted while the working tree breaks them.
    git(&["reset", "-q"]);
    fs::write(root.join("docs/extra.md"), "# Extra\n").unwrap();
    git(&["add", "docs/extra.md"]);
    fs::write(root.join("b/b.go"), b.replace("func Help()", "func Helper()")).unwrap();
    let kept = git(&["commit", "-qm", "add a document"]);
    assert!(kept.status.success(), "{}", String::from_utf8_lossy(&kept.stderr));
    assert_eq!(
        fs::read_to_string(root.join("b/b.go")).unwrap(),
        b.replace("func Help()", "func Helper()"),
        "the working tree is untouched"
    );
    // Outside a Git work tree --staged is a clear error.
    let plain = copy("validate/mod");
    let out = Command::new(docforge())
        .args(["validate", "--staged", "--project-root"])
        .arg(plain.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("git rev-parse"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Writes `docs/claims.md` with `front_matter` and runs `docforge validate --json`.
fn with_front_matter(root: &Path, front_matter: &str) -> Output {
    fs::write(root.join("docs/claims.md"), format!("+++\nid = \"claims\"\n{front_matter}+++\n# Claims\n"))
        .unwrap();
    run(root, true)
}

#[test]
fn a_claim_the_strict_decoder_would_refuse_is_never_evaluated_leniently() {
    let dir = copy("validate/mod");
    let root = dir.path();
    let claim = |extra: &str| {
        format!("[[claims]]\npredicate = \"symbol_exists\"\nsubject = \"example.com/v/b::Help\"\n{extra}")
    };
    #[rustfmt::skip]
    let cases: Vec<(String, &str)> = vec![
        // A misspelt precision would otherwise run at the predicate's minimum and pass.
        (claim("requried_precision = \"precise\"\n"), "unknown claim key `requried_precision`"),
        (claim("repo = \"/elsewhere\"\n"), "unknown claim key `repo`"),
        (claim("language = \"go\"\n"), "unknown claim key `language`"),
        (claim("required_precision = true\n"), "`claims.required_precision` must be a string"),
        // Claims under another key, or in a shape that cannot be read, are reported, not skipped.
        ("[[claim]]\npredicate = \"symbol_exists\"\nsubject = \"example.com/v/b::Help\"\n".into(), "the front matter table `claim`"),
        ("[[Claims]]\npredicate = \"symbol_exists\"\nsubject = \"example.com/v/b::Help\"\n".into(), "the front matter table `Claims`"),
        ("[[checks]]\npredicate = \"symbol_exists\"\nsubject = \"example.com/v/b::Help\"\n".into(), "the front matter table `checks`"),
        ("claims = \"symbol_exists example.com/v/b::Help\"\n".into(), "`claims` given as string"),
        ("[[claims]\npredicate = \"symbol_exists\"\n".into(), "front matter that is not valid TOML"),
    ];
    let before = tree_of(root);
    for (front_matter, message) in cases {
        let out = with_front_matter(root, &front_matter);
        assert_eq!(out.status.code(), Some(2), "{front_matter}");
        assert_eq!(
            outcomes(&out),
            [("cannot_evaluate".to_string(), "invalid_request".to_string())],
            "{front_matter}"
        );
        let docs: Value = serde_json::from_slice(&out.stdout).unwrap();
        let said = docs[0]["evaluation"]["diagnostics"][0]["message"].as_str().unwrap();
        assert!(said.contains(message) && said.contains("docs/claims.md:"), "{front_matter}: {said}");
        // The table says how many documents had claims it could not read.
        let table = String::from_utf8(run(root, false).stdout).unwrap();
        if front_matter.starts_with("[[claims]]\npredicate") {
            assert!(table.contains("1 claims: 0 pass, 0 fail, 1 cannot_evaluate"), "{table}");
        } else {
            assert!(
                table.contains(
                    "1 document(s) with claims that cannot be read (not evaluated): docs/claims.md"
                ),
                "{table}"
            );
        }
    }
    // The well-formed claim passes; an unrelated table with no claim-like name or keys is
    // only an attribute.
    let out = with_front_matter(root, &format!("{}[owner]\nname = \"x\"\n", claim("")));
    assert_eq!(out.status.code(), Some(0));
    fs::write(
        root.join("docs/claims.md"),
        fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/validate/mod/docs/claims.md"))
            .unwrap(),
    )
    .unwrap();
    assert_eq!(tree_of(root), before, "nothing is written but the recorded outcomes");
    assert_eq!(state_files(root), [".docforge/receipts/claims.v1.json"]);
}

/// Every file under `.docforge/`, project-relative.
fn state_files(root: &Path) -> Vec<String> {
    let mut out: Vec<String> = walk(&root.join(".docforge"))
        .into_iter()
        .map(|(p, _)| Path::new(&p).strip_prefix(root).unwrap().display().to_string())
        .collect();
    out.sort();
    out
}

/// Every file of the project but DocForge's state directory (`docforge validate` records its
/// outcomes there), with its bytes.
fn tree_of(root: &Path) -> Vec<(String, Vec<u8>)> {
    walk(root).into_iter().filter(|(p, _)| !Path::new(p).starts_with(root.join(".docforge"))).collect()
}

fn walk(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.display().to_string(), fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}
