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
