//! gograph against what Go itself says: each case here is true (or false) under `go/types`
//! and the go command for a module the test writes, and each once came back as an invented
//! `fail`. The Go toolchain checks every module compiles (`go vet`) and, for imports, what
//! `go list` reports, so the expectation is the toolchain's, not ours.

mod common;

use common::*;
use serde_json::Value;
use std::fs;
use std::path::Path;
use std::process::Command;

/// A module `example.com/t` with `files` (path, text) in a fresh directory.
fn module(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "go.mod", "module example.com/t\n\ngo 1.22\n");
    for (path, text) in files {
        write(dir.path(), path, text);
    }
    dir
}

fn write(root: &Path, path: &str, text: &str) {
    let p = root.join(path);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// `go` in `dir`, offline; its stdout when it succeeds.
fn go(dir: &Path, args: &[&str]) -> Result<String, String> {
    let out = Command::new("go")
        .args(args)
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("GOPROXY", "off")
        .env("GOWORK", "off")
        .output()
        .expect("the Go toolchain runs the test suite");
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

fn compiles(dir: &Path) {
    if let Err(e) = go(dir, &["vet", "./..."]) {
        panic!("the test module must be valid Go: {e}");
    }
}

fn sym(predicate: &str, subject: &str, object: &str) -> String {
    binding(predicate, subject, Some(object), "precise")
}

fn codes(v: &Value) -> Vec<String> {
    v["evaluation"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].as_str().unwrap().into())
        .collect()
}

const SERVER: &str = r#"package srv

import (
	"fmt"
	"net/http"
	"strings"
)

// H is an http.Handler.
type H struct{}

func (H) ServeHTTP(w http.ResponseWriter, r *http.Request) { fmt.Fprint(w, strings.ToUpper("x")) }

func init() {}

// Use prints.
func Use() { fmt.Println("a") }
"#;

const SERVER_TEST: &str = r#"package srv

import (
	"fmt"
	"net/http/httptest"
	"testing"
)

func TestServe(t *testing.T) {
	rec := httptest.NewRecorder()
	H{}.ServeHTTP(rec, nil)
	fmt.Println(rec.Body)
}
"#;

#[test]
fn ids_outside_the_analysed_source_are_never_a_fail() {
    let dir = module(&[("srv/srv.go", SERVER)]);
    compiles(dir.path());
    build(dir.path(), &["--precise"]);
    let root = dir.path();
    let h = "example.com/t/srv::H";
    let serve = "example.com/t/srv::(H).ServeHTTP";
    #[rustfmt::skip]
    let cases = [
        // H implements net/http.Handler (go vet compiles `var _ http.Handler = H{}` alike).
        sym("type_implements", h, "net/http::Handler"),
        exists("fmt::Println"),
        binding("package_imports", "net/http", Some("fmt"), "ast"),
        sym("call_edge_exists", serve, "strings::ToUpper"),
    ];
    for b in cases {
        let v = validate(root, &b);
        is(&v, "cannot_evaluate", "repository_mismatch");
        assert_eq!(codes(&v), ["outside_repository"], "{v}");
    }
    // Inside the module's path but no such package: not established either.
    is(&validate(root, &exists("example.com/t/gone::F")), "cannot_evaluate", "symbol_not_found");
    // An in-repository absence on a complete graph is still a fail.
    is(&validate(root, &exists("example.com/t/srv::Gone")), "fail", "symbol_not_found");
}

#[test]
fn init_functions_are_declared_symbols() {
    let dir = module(&[("srv/srv.go", SERVER), ("plain/plain.go", "package plain\n\nfunc F() {}\n")]);
    compiles(dir.path());
    build(dir.path(), &[]);
    let v = validate(dir.path(), &exists("example.com/t/srv::init"));
    is(&v, "pass", "predicate_passed");
    assert_eq!(v["evidence"]["resolved_subject"]["locations"][0]["path"], "srv/srv.go");
    is(&validate(dir.path(), &exists("example.com/t/plain::init")), "fail", "symbol_not_found");
    // Several init functions share the one ID.
    write(dir.path(), "srv/more.go", "package srv\n\nfunc init() {}\n");
    compiles(dir.path());
    build(dir.path(), &[]);
    is(&validate(dir.path(), &exists("example.com/t/srv::init")), "cannot_evaluate", "symbol_ambiguous");
}

#[test]
fn package_imports_follow_go_list_imports_and_name_every_site() {
    let dir = module(&[("srv/srv.go", SERVER), ("srv/srv_test.go", SERVER_TEST)]);
    compiles(dir.path());
    let listed = go(dir.path(), &["list", "-f", "{{join .Imports \" \"}}", "./srv"]).unwrap();
    assert_eq!(listed.trim(), "fmt net/http strings", "go list's Imports leave test files out");
    build(dir.path(), &[]);
    let imports = |object: &str| binding("package_imports", "example.com/t/srv", Some(object), "ast");
    // Only the test file imports httptest: not the package's import.
    let v = validate(dir.path(), &imports("net/http/httptest"));
    is(&v, "fail", "relation_not_found");
    assert_eq!(codes(&v), ["test_import_only"]);
    assert_eq!(v["evidence"]["matched_relations"][0]["classification"], "test_import");
    // fmt is imported by both files: evidence names each site under its classification.
    let v = validate(dir.path(), &imports("fmt"));
    is(&v, "pass", "predicate_passed");
    let m = v["evidence"]["matched_relations"].as_array().unwrap();
    let sites: Vec<(String, String, u64)> = m
        .iter()
        .flat_map(|r| {
            r["locations"].as_array().unwrap().iter().map(|l| {
                (
                    r["classification"].as_str().unwrap().to_string(),
                    l["path"].as_str().unwrap().to_string(),
                    l["line"].as_u64().unwrap(),
                )
            })
        })
        .collect();
    assert_eq!(
        sites,
        [
            ("direct_import".into(), "srv/srv.go".into(), 4),
            ("test_import".into(), "srv/srv_test.go".into(), 4)
        ]
    );
}

/// The `.go` files `go list` compiles for the package in `dir` (relative to the module).
fn go_files(root: &Path, dir: &str) -> String {
    go(root, &["list", "-f", "{{join .GoFiles \" \"}}", &format!("./{dir}")]).unwrap().trim().to_string()
}

#[test]
fn go_files_ignore_files_drop_are_still_selected() {
    let dir = module(&[
        ("gen/gen.go", "package gen\n\n// Generated is generated.\nfunc Generated() {}\n"),
        ("gen/doc.go", "// Package gen is generated.\npackage gen\n"),
        ("local/local.go", "package local\n\nfunc Local() {}\n"),
        ("docs/guide.md", "# Guide\n"),
        (".gitignore", "gen/gen.go\ndocs/\n"),
        ("local/.ignore", "local.go\n"),
    ]);
    let root = dir.path();
    assert!(Command::new("git").args(["init", "-q"]).current_dir(root).status().unwrap().success());
    write(root, ".git/info/exclude", "excluded/\n");
    write(root, "excluded/x.go", "package excluded\n\nfunc X() {}\n");
    compiles(root);
    assert_eq!(go_files(root, "gen"), "doc.go gen.go", "the go command compiles the ignored file");
    build(root, &[]);
    for id in ["example.com/t/gen::Generated", "example.com/t/local::Local", "example.com/t/excluded::X"] {
        is(&validate(root, &exists(id)), "pass", "predicate_passed");
    }
    // An edit of a file Git ignores changes the snapshot's sources.
    write(root, "gen/gen.go", "package gen\n\nfunc Renamed() {}\n");
    is(&validate(root, &exists("example.com/t/gen::Generated")), "cannot_evaluate", "graph_stale");
    build(root, &[]);
    is(&validate(root, &exists("example.com/t/gen::Generated")), "fail", "symbol_not_found");
}

#[test]
fn go_files_the_configuration_excludes_make_the_graph_partial() {
    let dir = module(&[
        ("gen/gen.go", "package gen\n\nfunc Generated() {}\n"),
        ("gen/more.go", "package gen\n\nfunc More() {}\n"),
        ("docforge.toml", "schema_version = 1\n[sources]\nexclude = [\"gen/more.go\"]\n"),
    ]);
    let root = dir.path();
    compiles(root);
    assert_eq!(go_files(root, "gen"), "gen.go more.go");
    let out = build(root, &[]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("go_file_excluded_by_config"), "a visible warning");
    // More is declared in a file the analysis leaves out: not a fail.
    let v = validate(root, &exists("example.com/t/gen::More"));
    is(&v, "cannot_evaluate", "symbol_not_found");
    assert_eq!(v["analysis"]["completeness"], "partial");
    is(&validate(root, &exists("example.com/t/gen::Generated")), "pass", "predicate_passed");
    let graph: Value = serde_json::from_slice(&fs::read(graph_path(root)).unwrap()).unwrap();
    assert_eq!(graph["build"]["skipped"][0]["path"], "gen/more.go");
    assert_eq!(graph["build"]["skipped"][0]["reason"], "excluded:exclude_glob");
}

#[test]
fn a_root_inside_a_module_is_a_repository_mismatch() {
    let dir = module(&[("sub/sub.go", "package sub\n\nfunc F() {}\n"), ("top.go", "package t\n")]);
    compiles(dir.path());
    let sub = dir.path().join("sub");
    let out = build(&sub, &[]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("partial"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for id in ["example.com/t/sub::F", "example.com/t/sub::Missing"] {
        let v = validate(&sub, &exists(id));
        is(&v, "cannot_evaluate", "repository_mismatch");
        assert_eq!(codes(&v), ["source_outside_root"], "{v}");
        let message = v["evaluation"]["diagnostics"][0]["message"].as_str().unwrap();
        assert!(message.contains("../go.mod"), "{message}");
    }
    // Go roots below a module's go.mod: the same.
    let root = dir.path();
    write(root, "docforge.toml", "schema_version = 1\n[sources]\ngo = [\"sub\"]\n");
    build(root, &[]);
    is(&validate(root, &exists("example.com/t/sub::F")), "cannot_evaluate", "repository_mismatch");
    // A module of its own inside the root is fine.
    write(&sub, "go.mod", "module example.com/s\n\ngo 1.22\n");
    build(&sub, &[]);
    is(&validate(&sub, &exists("example.com/s::F")), "pass", "predicate_passed");
}

#[test]
fn go_work_uses_that_reach_outside_are_refused_in_every_spelling() {
    use std::os::unix::fs::symlink;
    let dir = module(&[("a/a.go", "package a\n\nfunc A() {}\n")]);
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "go.mod", "module example.com/out\n\ngo 1.22\n");
    write(outside.path(), "o.go", "package out\n\nfunc O() {}\n");
    symlink(outside.path(), root.join("link")).unwrap();
    let abs = outside.path().display().to_string();
    for u in [abs.as_str(), "../elsewhere", "./link", "link/../link", "./a/../../x"] {
        write(root, "go.work", &format!("go 1.22\n\nuse (\n\t.\n\t{u}\n)\n"));
        build(root, &[]);
        let v = validate(root, &exists("example.com/t/a::A"));
        is(&v, "cannot_evaluate", "repository_mismatch");
        assert_eq!(codes(&v), ["source_outside_root"], "{u}: {v}");
    }
    // The same spellings in a go.mod directory replace.
    fs::remove_file(root.join("go.work")).unwrap();
    for r in [abs.as_str(), "./link"] {
        write(
            root,
            "go.mod",
            &format!("module example.com/t\n\ngo 1.22\n\nreplace example.com/out => {r}\n"),
        );
        build(root, &[]);
        is(&validate(root, &exists("example.com/t/a::A")), "cannot_evaluate", "repository_mismatch");
    }
    write(root, "go.mod", "module example.com/t\n\ngo 1.22\n");
    build(root, &[]);
    is(&validate(root, &exists("example.com/t/a::A")), "pass", "predicate_passed");
}

#[test]
fn packages_that_do_not_type_check_are_partial() {
    let cases: [(&str, &str); 3] = [
        ("duplicate declaration", "package p\n\nfunc F() {}\n\nfunc F() {}\n"),
        ("undefined method", "package p\n\ntype T struct{}\n\nfunc F() { T{}.Missing() }\n"),
        ("method on an undefined type", "package p\n\nfunc F() {}\n\nfunc (u *Undefined) M() {}\n"),
    ];
    for (what, source) in cases {
        let dir = module(&[("p/p.go", source)]);
        let root = dir.path();
        assert!(go(root, &["vet", "./..."]).is_err(), "{what}: go/types rejects it");
        build(root, &["--precise"]);
        let v = validate(root, &exists("example.com/t/p::Gone"));
        assert_eq!(v["analysis"]["completeness"], "partial", "{what}");
        is(&v, "cannot_evaluate", "symbol_not_found");
        let none_call = sym("call_edge_exists", "example.com/t/p::F", "example.com/t/p::F");
        assert_eq!(verdict(&validate(root, &none_call)).0, "cannot_evaluate", "{what}");
    }
}

#[test]
fn vendoring_metadata_is_part_of_the_source_fingerprint() {
    let dir = module(&[
        ("a/a.go", "package a\n\nfunc A() {}\n"),
        ("vendor/modules.txt", "# example.com/dep v1.0.0\n"),
    ]);
    let root = dir.path();
    build(root, &[]);
    let graph: Value = serde_json::from_slice(&fs::read(graph_path(root)).unwrap()).unwrap();
    let kinds: Vec<&str> =
        graph["build"]["metadata"].as_array().unwrap().iter().map(|m| m["path"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["go.mod", "vendor/modules.txt"]);
    is(&validate(root, &exists("example.com/t/a::A")), "pass", "predicate_passed");
    write(root, "vendor/modules.txt", "# example.com/dep v1.1.0\n");
    let v = validate(root, &exists("example.com/t/a::A"));
    is(&v, "cannot_evaluate", "graph_stale");
    assert!(codes(&v).contains(&"source_changed".to_string()), "{v}");
}

#[test]
fn a_side_file_never_changes_what_the_fingerprinted_graph_says() {
    let dir = module(&[("srv/srv.go", SERVER)]);
    let root = dir.path();
    let idx = root.join(".gograph/graph.index");
    build(root, &["--precise"]);
    let precise_index = fs::read(&idx).unwrap();
    build(root, &[]);
    let ast_graph = fs::read(graph_path(root)).unwrap();
    let calls = sym("call_edge_exists", "example.com/t/srv::Use", "example.com/t/srv::Use");
    let ast = validate(root, &calls);
    is(&ast, "cannot_evaluate", "precision_insufficient");
    // A precise index forged beside the ast graph, its header claiming that graph's bytes:
    // the graph did not name it, so it is not read.
    let at = docforge_validate::named_index_at(&ast_graph[..docforge_validate::GRAPH_HEAD_BYTES]).unwrap();
    let claimed = docforge_validate::graph_digest_for_index(&ast_graph, at);
    let mut forged_index = precise_index.clone();
    forged_index[8..40].copy_from_slice(&hex_bytes(&claimed));
    fs::write(&idx, &forged_index).unwrap();
    let forged = validate(root, &calls);
    is(&forged, "cannot_evaluate", "precision_insufficient");
    assert_eq!(forged["analysis"]["precision"], "ast");
    assert_eq!(forged["analysis"]["graph_fingerprint"], ast["analysis"]["graph_fingerprint"]);
    // The graph's own index beside a graph edited in place (its first bytes kept): the index
    // was written for other bytes, so the edited graph's own records decide.
    build(root, &[]);
    let text = String::from_utf8(fs::read(graph_path(root)).unwrap()).unwrap();
    let import = r#"{"source":"example.com/t/srv","relation":"imports","target":"fmt""#;
    assert!(text.contains(import));
    fs::write(
        graph_path(root),
        text.replacen(import, r#"{"source":"example.com/t/srv","relation":"imports","target":"fmu""#, 1),
    )
    .unwrap();
    let fmt = binding("package_imports", "example.com/t/srv", Some("fmt"), "ast");
    let with_index = validate(root, &fmt);
    fs::remove_file(&idx).unwrap();
    assert_eq!(verdict(&with_index), verdict(&validate(root, &fmt)), "the same answer without the index");
    is(&with_index, "fail", "relation_not_found");
}

fn hex_bytes(hex: &str) -> Vec<u8> {
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn call_evidence_names_every_site() {
    let source = "package p\n\ntype I interface{ M() }\n\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc G() {}\n\nfunc F(i I) {\n\tG()\n\ti.M()\n\tG()\n\tT{}.M()\n}\n";
    let dir = module(&[("p/p.go", source)]);
    compiles(dir.path());
    build(dir.path(), &["--precise"]);
    let sites = |object: &str| {
        let v = validate(dir.path(), &sym("call_edge_exists", "example.com/t/p::F", object));
        is(&v, "pass", "predicate_passed");
        v["evidence"]["matched_relations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                let lines: Vec<u64> =
                    m["locations"].as_array().unwrap().iter().map(|l| l["line"].as_u64().unwrap()).collect();
                (m["classification"].as_str().unwrap().to_string(), lines)
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(sites("example.com/t/p::G"), [("resolved_static".to_string(), vec![12, 14])]);
    assert_eq!(
        sites("example.com/t/p::(T).M"),
        [("cha_possible_target".to_string(), vec![13]), ("resolved_static".to_string(), vec![15])]
    );
}
