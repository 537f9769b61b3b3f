//! The graph projection of a package: nodes, edges, call resolution, tests, diagnostics.

use docforge_go::{extract_file, package_fragment, package_symbols, FileFacts, PackageFile, PackageSymbols};
use docforge_syntax::{AstGate, AstPolicy};
use std::fmt::Write;
use std::sync::Arc;

fn facts(src: &str) -> FileFacts {
    let gate = AstGate::new(AstPolicy::Allow);
    extract_file(gate.go().unwrap(), src.as_bytes())
}

const LIB: &str = r#"package a

import (
	"strings"
	bee "example.com/m/b"
	. "example.com/m/dot"
	"example.com/m/unknown"
)

type Service struct{ name string }

func (s *Service) Validate(tok string) bool {
	if strings.HasPrefix(tok, "x") {
		return check(tok)
	}
	s.log()
	bee.Helper()
	bee.Kind(1)
	unknown.Do()
	Dotted()
	_ = len(tok) + int(3)
	_ = Service{}
	return Service(*s).ok()
}

func (s Service) ok() bool  { return true }
func (s *Service) log()     {}
func check(t string) bool   { return helperVar(t) }
var helperVar = func(string) bool { return check("") }

func shadow(check func(string) bool, strings int) {
	check("a")
	strings.HasPrefix()
}
"#;

const LIB_TEST: &str = r#"package a

import "testing"

func TestValidate(t *testing.T) {
	s := &Service{}
	s.Validate("x")
	check("y")
	t.Fatal()
}

func helper() { check("z") }
"#;

fn lookup(path: &str) -> Option<Arc<PackageSymbols>> {
    let mut s = PackageSymbols::default();
    match path {
        "strings" => {
            s.name = Some("strings".into());
            s.funcs.insert("HasPrefix".into());
        }
        "example.com/m/b" => {
            s.name = Some("b".into());
            s.funcs.insert("Helper".into());
            s.types.insert("Kind".into());
        }
        "example.com/m/dot" => {
            s.name = Some("dot".into());
            s.funcs.insert("Dotted".into());
        }
        _ => return None,
    }
    Some(Arc::new(s))
}

#[test]
fn package_projection() {
    let lib = facts(LIB);
    let test = facts(LIB_TEST);
    let files = [
        PackageFile { path: "a/a.go", facts: &lib, test: false },
        PackageFile { path: "a/a_test.go", facts: &test, test: true },
    ];
    let syms = package_symbols(&files);
    assert_eq!(syms.name.as_deref(), Some("a"));
    assert_eq!(
        syms.funcs.iter().map(String::as_str).collect::<Vec<_>>(),
        ["TestValidate", "check", "helper", "shadow"]
    );
    let frag = package_fragment("example.com/m/a", &files, &lookup);
    let mut out = String::new();
    for n in &frag.nodes {
        let loc =
            n.location.as_ref().map_or(String::new(), |l| format!(" @{}:{}:{}", l.path, l.line, l.column));
        let attrs: Vec<String> = n.attrs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        writeln!(out, "node {} [{}] {:?}{loc} {{{}}} {:?}", n.id, n.kind, n.title, attrs.join(","), n.text)
            .unwrap();
    }
    for e in &frag.edges {
        let loc = e.location.as_ref().map_or(String::new(), |l| format!(" @{}:{}", l.line, l.column));
        writeln!(out, "edge {} -{}-> {}{loc}", e.source, e.relation, e.target).unwrap();
    }
    assert!(frag.diagnostics.is_empty(), "{:?}", frag.diagnostics);
    expect_test::expect![[r#"
        node go:example.com/m/a [package] "example.com/m/a" {name=a} "package a"
        node go:example.com/m/a::Service [struct] "Service" @a/a.go:10:6 {package=example.com/m/a} "type Service struct {\n\tname string\n}"
        node go:example.com/m/a::(*Service).Validate [method] "Validate" @a/a.go:12:19 {package=example.com/m/a,pointer_receiver=true,receiver=Service,unresolved_calls=3} "func (*Service) Validate(tok string) bool"
        node go:example.com/m/a::(Service).ok [method] "ok" @a/a.go:26:18 {package=example.com/m/a,pointer_receiver=false,receiver=Service,unresolved_calls=0} "func (Service) ok() bool"
        node go:example.com/m/a::(*Service).log [method] "log" @a/a.go:27:19 {package=example.com/m/a,pointer_receiver=true,receiver=Service,unresolved_calls=0} "func (*Service) log()"
        node go:example.com/m/a::check [func] "check" @a/a.go:28:6 {package=example.com/m/a,unresolved_calls=1} "func check(t string) bool"
        node go:example.com/m/a::helperVar [var] "helperVar" @a/a.go:29:5 {package=example.com/m/a} "var helperVar"
        node go:example.com/m/a::shadow [func] "shadow" @a/a.go:31:6 {package=example.com/m/a,unresolved_calls=2} "func shadow(check func(string) bool, strings int)"
        node go:example.com/m/a::TestValidate [func] "TestValidate" @a/a_test.go:5:6 {package=example.com/m/a,test=true,unresolved_calls=2} "func TestValidate(t *testing.T)"
        node go:example.com/m/a::helper [func] "helper" @a/a_test.go:12:6 {package=example.com/m/a,test=true,unresolved_calls=0} "func helper()"
        edge go:example.com/m/a -contains-> file:a/a.go
        edge go:example.com/m/a -imports-> go:strings @4:2
        edge go:example.com/m/a -imports-> go:example.com/m/b @5:2
        edge go:example.com/m/a -imports-> go:example.com/m/dot @6:2
        edge go:example.com/m/a -imports-> go:example.com/m/unknown @7:2
        edge go:example.com/m/a -contains-> file:a/a_test.go
        edge go:example.com/m/a -imports-> go:testing @3:8
        edge file:a/a.go -defines-> go:example.com/m/a::Service @10:6
        edge file:a/a.go -defines-> go:example.com/m/a::(*Service).Validate @12:19
        edge file:a/a.go -defines-> go:example.com/m/a::(Service).ok @26:18
        edge file:a/a.go -defines-> go:example.com/m/a::(*Service).log @27:19
        edge file:a/a.go -defines-> go:example.com/m/a::check @28:6
        edge file:a/a.go -defines-> go:example.com/m/a::helperVar @29:5
        edge file:a/a.go -defines-> go:example.com/m/a::shadow @31:6
        edge go:example.com/m/a::(*Service).Validate -calls-> go:strings::HasPrefix @13:5
        edge go:example.com/m/a::(*Service).Validate -calls-> go:example.com/m/a::check @14:10
        edge go:example.com/m/a::(*Service).Validate -calls-> go:example.com/m/b::Helper @17:2
        edge go:example.com/m/a::(*Service).Validate -calls-> go:example.com/m/dot::Dotted @20:2
        edge file:a/a_test.go -defines-> go:example.com/m/a::TestValidate @5:6
        edge file:a/a_test.go -defines-> go:example.com/m/a::helper @12:6
        edge go:example.com/m/a::TestValidate -calls-> go:example.com/m/a::check @8:2
        edge go:example.com/m/a::helper -calls-> go:example.com/m/a::check @12:17
        edge go:example.com/m/a::check -tested_by-> go:example.com/m/a::TestValidate
    "#]]
    .assert_eq(&out);
}

#[test]
fn syntax_errors_and_duplicates_become_diagnostics() {
    let one = facts("package a\nfunc F() { x( }\n");
    let two = facts("package a\nfunc F() {}\n");
    let files = [
        PackageFile { path: "one.go", facts: &one, test: false },
        PackageFile { path: "two.go", facts: &two, test: false },
    ];
    let frag = package_fragment("example.com/a", &files, &|_| None);
    let diags: Vec<String> = frag
        .diagnostics
        .iter()
        .map(|d| {
            let l = d.location.as_ref().unwrap();
            format!("{} {}:{}:{} on {}", d.code, l.path, l.line, l.column, d.node.as_deref().unwrap_or("-"))
        })
        .collect();
    assert_eq!(
        diags,
        [
            "go_syntax_error one.go:2:13 on file:one.go",
            "go_duplicate_symbol two.go:2:6 on go:example.com/a::F"
        ]
    );
    assert_eq!(frag.nodes.iter().filter(|n| n.id == "go:example.com/a::F").count(), 1);
}

#[test]
fn unsafe_functions_are_builtins() {
    let f = facts("package a\nimport \"unsafe\"\nfunc F(x int) uintptr { return unsafe.Sizeof(x) + unsafe.Alignof(x) }\n");
    let files = [PackageFile { path: "a.go", facts: &f, test: false }];
    let unsafe_syms = |path: &str| {
        (path == "unsafe").then(|| {
            let mut s = PackageSymbols { name: Some("unsafe".into()), ..Default::default() };
            s.funcs.extend(["Sizeof".to_string(), "Alignof".to_string()]);
            Arc::new(s)
        })
    };
    let frag = package_fragment("example.com/a", &files, &unsafe_syms);
    assert!(!frag.edges.iter().any(|e| e.relation == "calls"), "{:?}", frag.edges);
    let node = frag.nodes.iter().find(|n| n.id == "go:example.com/a::F").unwrap();
    assert_eq!(node.attrs.get("unresolved_calls").map(String::as_str), Some("0"));
}
