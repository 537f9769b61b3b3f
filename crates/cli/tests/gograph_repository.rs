//! gograph conformance, repository side: root re-anchoring and mismatch, symlink and
//! special-file refusal, fingerprint determinism with and without Git, bounded diagnostics,
//! exit codes, no writes and atomic builds (see gograph.rs for the other bullets).

mod common;

use common::*;
use serde_json::Value;
use std::fs;
use std::process::Command;

#[test]
fn repository_root_reanchoring_and_mismatch() {
    let dir = built();
    let b = exists("example.com/v/b::Help");
    let first = validate(dir.path(), &b);
    // Move the repository with its graph: the graph stores no root, paths are relative.
    let parent = tempfile::tempdir().unwrap();
    let moved = parent.path().join("elsewhere");
    fs::rename(dir.path(), &moved).unwrap();
    let v = validate(&moved, &b);
    is(&v, "pass", "predicate_passed");
    assert_eq!(v["repository"]["root"], fs::canonicalize(&moved).unwrap().display().to_string());
    assert_eq!(v["repository"]["source_fingerprint"], first["repository"]["source_fingerprint"]);
    assert_eq!(v["analysis"]["graph_fingerprint"], first["analysis"]["graph_fingerprint"]);
    // A workspace that reaches outside the explicit root.
    fs::write(moved.join("go.work"), "go 1.22\n\nuse (\n\t.\n\t../sibling\n)\n").unwrap();
    build(&moved, &[]);
    let v = validate(&moved, &b);
    is(&v, "cannot_evaluate", "repository_mismatch");
    assert_eq!(v["evaluation"]["diagnostics"][0]["code"], "source_outside_root");
    // A module whose go.mod replaces a dependency with a directory outside the root.
    fs::remove_file(moved.join("go.work")).unwrap();
    let go_mod = fs::read_to_string(moved.join("go.mod")).unwrap();
    fs::write(moved.join("go.mod"), format!("{go_mod}\nreplace example.com/dep => ../dep\n")).unwrap();
    build(&moved, &[]);
    let v = validate(&moved, &b);
    is(&v, "cannot_evaluate", "repository_mismatch");
    // Inside the root it is fine.
    fs::write(moved.join("go.mod"), format!("{go_mod}\nreplace example.com/dep => ./third_party/dep\n"))
        .unwrap();
    build(&moved, &[]);
    is(&validate(&moved, &b), "pass", "predicate_passed");
    fs::rename(&moved, dir.path()).unwrap();
}

#[test]
fn symlinked_and_special_graph_files_are_refused() {
    use std::os::unix::fs::symlink;
    let dir = built();
    let root = dir.path();
    let b = exists("example.com/v/b::Help");
    let outside = tempfile::tempdir().unwrap();
    let real = outside.path().join("graph.json");
    fs::rename(graph_path(root), &real).unwrap();
    symlink(&real, graph_path(root)).unwrap();
    let v = validate(root, &b);
    is(&v, "cannot_evaluate", "graph_invalid");
    assert!(v["evaluation"]["diagnostics"][0]["message"].as_str().unwrap().contains("symlink"), "{v}");
    // A symlink inside the root is refused too: only a regular file is trusted.
    fs::remove_file(graph_path(root)).unwrap();
    fs::copy(&real, root.join(".gograph/real.json")).unwrap();
    symlink("real.json", graph_path(root)).unwrap();
    is(&validate(root, &b), "cannot_evaluate", "graph_invalid");
    // A FIFO is never opened (the validation does not hang).
    fs::remove_file(graph_path(root)).unwrap();
    assert!(Command::new("mkfifo").arg(graph_path(root)).status().unwrap().success());
    let v = validate(root, &b);
    is(&v, "cannot_evaluate", "graph_invalid");
    assert!(v["evaluation"]["diagnostics"][0]["message"].as_str().unwrap().contains("special file"), "{v}");
    // A symlinked .gograph directory: validate refuses it, build refuses to write through it.
    fs::remove_dir_all(root.join(".gograph")).unwrap();
    symlink(outside.path(), root.join(".gograph")).unwrap();
    is(&validate(root, &b), "cannot_evaluate", "graph_invalid");
    let before = tree(outside.path());
    let out = gograph().arg("build").arg("--repo").arg(root).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    assert_eq!(tree(outside.path()), before, "nothing written outside the root");
    // Symlinked and special Go sources are refused by the walk and make the graph partial.
    fs::remove_file(root.join(".gograph")).unwrap();
    fs::write(outside.path().join("evil.go"), "package b\n\nfunc Evil() {}\n").unwrap();
    symlink(outside.path().join("evil.go"), root.join("b/evil.go")).unwrap();
    build(root, &[]);
    is(&validate(root, &exists("example.com/v/b::Evil")), "cannot_evaluate", "symbol_not_found");
}

#[test]
fn fingerprints_are_deterministic_and_independent_of_git() {
    let dir = built();
    let root = dir.path();
    let b = exists("example.com/v/b::Help");
    let first = validate(root, &b);
    let graph = fs::read(graph_path(root)).unwrap();
    assert_eq!(
        first["analysis"]["graph_fingerprint"].as_str().unwrap(),
        docforge_validate::sha256_hex(&graph)
    );
    build(root, &[]);
    let second = validate(root, &b);
    assert_eq!(second["repository"]["source_fingerprint"], first["repository"]["source_fingerprint"]);
    assert_eq!(
        second["analysis"]["build_context_fingerprint"],
        first["analysis"]["build_context_fingerprint"]
    );
    // Operation without Git (no repository, no git on PATH) and with a dirty Git worktree.
    let no_git = gograph()
        .env("PATH", "/nonexistent")
        .arg("validate")
        .arg("--repo")
        .arg(root)
        .args(["--binding-json", &b, "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&no_git.stdout).unwrap();
    is(&v, "pass", "predicate_passed");
    let git = |args: &[&str]| {
        let ok = Command::new("git").arg("-C").arg(root).args(args).output().unwrap();
        assert!(ok.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&ok.stderr));
    };
    git(&["init", "-q"]);
    git(&["-c", "user.email=t@example.com", "-c", "user.name=t", "add", "-A"]);
    git(&["-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-qm", "fixture"]);
    let committed = validate(root, &b);
    assert_eq!(
        committed["repository"]["source_fingerprint"], first["repository"]["source_fingerprint"],
        "Git does not enter the fingerprint"
    );
    fs::write(root.join("notes.md"), "dirty but not Go\n").unwrap();
    is(&validate(root, &b), "pass", "predicate_passed");
    fs::write(root.join("b/b.go"), "package b\n\nfunc Help() string { return \"dirty\" }\n").unwrap();
    is(&validate(root, &b), "cannot_evaluate", "graph_stale");
}

#[test]
fn diagnostics_are_bounded_and_stdout_is_only_json() {
    let dir = built();
    for i in 0..40 {
        fs::write(dir.path().join(format!("b/extra_{i:02}_{}.go", "x".repeat(200))), "package b\n").unwrap();
    }
    let v = validate(dir.path(), &exists("example.com/v/b::Help"));
    is(&v, "cannot_evaluate", "graph_stale");
    let diags = v["evaluation"]["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 16);
    assert_eq!(diags[15]["code"], "diagnostics_truncated");
    assert!(diags.iter().all(|d| d["message"].as_str().unwrap().len() <= 512));
    let text = serde_json::to_string(&v).unwrap();
    assert!(!text.contains("package b"), "no source bodies");
}

#[test]
fn exit_codes_match_outcomes() {
    let dir = built();
    let root = dir.path();
    let table = [
        (exists("example.com/v/b::Help"), 0),
        (exists("example.com/v/b::Nope"), 1),
        (exists("Help"), 2),
        (binding("call_edge_exists", "example.com/v/a::Run", Some("example.com/v/b::Help"), "precise"), 2),
    ];
    for (b, code) in table {
        let out = gograph()
            .arg("validate")
            .arg("--repo")
            .arg(root)
            .args(["--binding-json", &b, "--json"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{b}");
    }
    // stats/stale without a graph: one line on stderr, exit 1.
    let empty = fixture();
    for cmd in ["stats", "stale"] {
        let out = gograph().arg(cmd).arg("--repo").arg(empty.path()).arg("--json").output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{cmd}");
        assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    }
    let out = gograph().args(["validate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "no --json: invalid invocation");
    let out = gograph().args(["frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn validate_writes_nothing_and_build_is_atomic() {
    let dir = built();
    let root = dir.path();
    let before = tree(root);
    for b in [exists("example.com/v/b::Help"), exists("example.com/v/b::Nope"), "{".to_string()] {
        validate(root, &b);
    }
    assert_eq!(tree(root), before, "validate neither builds nor writes");
    let missing = fixture();
    let before = tree(missing.path());
    is(&validate(missing.path(), &exists("example.com/v/b::Help")), "cannot_evaluate", "graph_missing");
    assert_eq!(tree(missing.path()), before, "a missing graph is not built");
    build(root, &[]);
    let mut names: Vec<String> = fs::read_dir(root.join(".gograph"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["graph.index", "graph.json"], "no temporary file is left behind");
}
