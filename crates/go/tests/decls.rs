//! Declarations and symbol IDs extracted through the AST gate.

use docforge_go::{extract_file, package_symbol_id, package_symbols, symbol_id, FileFacts, PackageFile};
use docforge_syntax::{AstGate, AstPolicy};
use std::fmt::Write;

fn facts(src: &str) -> FileFacts {
    let gate = AstGate::new(AstPolicy::Allow);
    extract_file(gate.go().unwrap(), src.as_bytes())
}

/// One line per decl: `ID kind @line:col [tparams] sig=... fields=... embeds=... methods=...`.
fn render(src: &str) -> String {
    let f = facts(src);
    let files = [PackageFile { path: "a.go", facts: &f, test: false }];
    let syms = package_symbols(&files);
    let mut out = String::new();
    for d in &f.decls {
        let id = package_symbol_id("example.com/p", d, &syms).unwrap_or_else(|| format!("<none:{}>", d.name));
        write!(out, "{id} {} @{}:{}", d.kind.as_str(), d.pos.line, d.pos.column).unwrap();
        if !d.type_params.is_empty() {
            write!(out, " [{}]", d.type_params.join(",")).unwrap();
        }
        if let Some(s) = &d.signature {
            write!(out, " sig={s}").unwrap();
        }
        if !d.fields.is_empty() {
            let fs: Vec<String> = d
                .fields
                .iter()
                .map(|f| format!("{}{}:{}", if f.embedded { "^" } else { "" }, f.name, f.type_text))
                .collect();
            write!(out, " fields={}", fs.join(";")).unwrap();
        }
        if !d.embeds.is_empty() {
            write!(out, " embeds={}", d.embeds.join(";")).unwrap();
        }
        if !d.methods.is_empty() {
            let ms: Vec<String> = d.methods.iter().map(|m| format!("{}{}", m.name, m.signature)).collect();
            write!(out, " methods={}", ms.join(";")).unwrap();
        }
        out.push('\n');
    }
    out
}

#[test]
fn every_decl_kind() {
    let src = r#"package p

import "sync"

func F(a, b int, opts ...string) (n int, err error) { return 0, nil }
func init() {}
func init() {}
func _() {}
func Map[K comparable, V any](m map[K]V) []K { return nil }

type S struct {
	sync.Mutex
	*Embedded
	a, b int
	Tagged string `json:"t"`
	G[int]
}
type I interface {
	io.Reader
	Read(p []byte) (n int, err error)
	~int | ~string
}
type N int
type Fn func(int) error
type A = S
type GA[T any] = List[T]
type List[T any] struct{ head *T }

func (s *S) Ptr()              {}
func (s S) Val() int           { return 0 }
func (S) NoName()              {}
func (l *List[T]) Push(v T)    {}
func (l List[T]) Len() int     { return 0 }
func (r (*S)) Paren()          {}
func ((S)) Paren2()            {}
func (a A) ViaAlias()          {}
func (s *S) _()                {}
"#;
    expect_test::expect![[r#"
        example.com/p::F func @5:6 sig=(a, b int, opts ...string) (n int, err error)
        <none:init> func @6:6 sig=()
        <none:init> func @7:6 sig=()
        <none:_> func @8:6 sig=()
        example.com/p::Map func @9:6 [K,V] sig=(m map[K]V) []K
        example.com/p::S struct @11:6 fields=^Mutex:sync.Mutex;^Embedded:*Embedded;a:int;b:int;Tagged:string;^G:G[int] embeds=sync.Mutex;*Embedded;G[int]
        example.com/p::I interface @18:6 embeds=io.Reader;~int | ~string methods=Read(p []byte) (n int, err error)
        example.com/p::N type @23:6 sig=int
        example.com/p::Fn type @24:6 sig=func(int) error
        example.com/p::A alias @25:6 sig=S
        example.com/p::GA alias @26:6 [T] sig=List[T]
        example.com/p::List struct @27:6 [T] fields=head:*T
        example.com/p::(*S).Ptr method @29:13 sig=()
        example.com/p::(S).Val method @30:12 sig=() int
        example.com/p::(S).NoName method @31:10 sig=()
        example.com/p::(*List).Push method @32:19 [T] sig=(v T)
        example.com/p::(List).Len method @33:18 [T] sig=() int
        example.com/p::(*S).Paren method @34:15 sig=()
        example.com/p::(S).Paren2 method @35:12 sig=()
        example.com/p::(S).ViaAlias method @36:12 sig=()
        <none:_> method @37:13 sig=()
    "#]]
    .assert_eq(&render(src));
}

#[test]
fn grouped_decls() {
    let src = r#"package p

var (
	a, b = 1, 2
	c    int
	_    = b
)

const (
	X = iota
	Y
	_
	Z
)

const one, two = 1, 2

type (
	T1 struct{}
	T2 = T1
	T3 interface{ M() }
)

var x, y, z = f()
"#;
    expect_test::expect![[r#"
        example.com/p::a var @4:2
        example.com/p::b var @4:5
        example.com/p::c var @5:2 sig=int
        <none:_> var @6:2
        example.com/p::X const @10:2
        example.com/p::Y const @11:2
        <none:_> const @12:2
        example.com/p::Z const @13:2
        example.com/p::one const @16:7
        example.com/p::two const @16:12
        example.com/p::T1 struct @19:2
        example.com/p::T2 alias @20:2 sig=T1
        example.com/p::T3 interface @21:2 methods=M()
        example.com/p::x var @24:5
        example.com/p::y var @24:8
        example.com/p::z var @24:11
    "#]]
    .assert_eq(&render(src));
}

#[test]
fn symbol_id_without_package_context() {
    let f = facts("package p\ntype T = U\ntype U int\nfunc (t T) M() {}\nfunc (u *U) N() {}\n");
    let ids: Vec<_> = f.decls.iter().map(|d| symbol_id("std/x", d)).collect();
    assert_eq!(
        ids,
        vec![
            Some("std/x::T".to_string()),
            Some("std/x::U".to_string()),
            Some("std/x::(T).M".to_string()), // without package context the alias stays
            Some("std/x::(*U).N".to_string()),
        ]
    );
}

#[test]
fn imports_and_package() {
    let f = facts("package main\n\nimport (\n\t\"fmt\"\n\tstr \"strings\"\n\t. \"math\"\n\t_ \"embed\"\n)\nimport `os`\n");
    assert_eq!(f.package.as_deref(), Some("main"));
    let got: Vec<String> = f
        .imports
        .iter()
        .map(|i| format!("{}={} @{}:{}", i.name.as_deref().unwrap_or("-"), i.path, i.pos.line, i.pos.column))
        .collect();
    assert_eq!(got, ["-=fmt @4:2", "str=strings @5:2", ".=math @6:2", "_=embed @7:2", "-=os @9:8"]);
    assert!(f.syntax_errors.is_empty());
}

#[test]
fn local_declarations_are_not_package_level() {
    let f = facts("package p\nfunc F() {\n\ttype local struct{}\n\tvar v int\n\tconst c = 1\n\t_ = func() { var w int; _ = w }\n}\n");
    let names: Vec<&str> = f.decls.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["F"]);
}

#[test]
fn declarations_only_extraction_is_the_full_extraction_without_call_sites() {
    // Precise analysis extracts non-test files without the syntax-only call walk; everything
    // else (package, imports, declarations, syntax errors) must be what the full walk gives.
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures");
    let mut files: Vec<std::path::PathBuf> = walk(&root);
    files.sort();
    assert!(files.len() > 10, "{files:?}");
    let broken = b"package p\n\nvar v = f(\n\nfunc g() { h( }\n\nconst (\n\tA = iota\n)\n".to_vec();
    let mut with_calls = 0;
    for src in files.iter().map(|f| std::fs::read(f).unwrap()).chain([broken]) {
        let tree = go.parse(&src);
        let full = docforge_go::extract_tree(go, &tree, &src);
        let decls = docforge_go::extract_declarations(go, &tree, &src);
        with_calls += usize::from(!full.calls.is_empty());
        assert!(decls.calls.is_empty());
        assert_eq!(decls, FileFacts { calls: Vec::new(), ..full });
    }
    assert!(with_calls > 5, "{with_calls}");
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else if p.extension().is_some_and(|x| x == "go") {
            out.push(p);
        }
    }
    out
}

/// Doc comments as go/doc reads them: the comments directly above a declaration or spec (a
/// spec without its own takes its group's), markers and directives left out, never a comment
/// separated by a blank line or trailing code.
#[test]
fn doc_comments_are_read_as_go_doc_reads_them() {
    let src = r#"// Copyright notice, not documentation.

// Package p does things.
//
// Second paragraph.
package p

// Handler serves requests.
//go:generate stringer -type=Handler
type Handler struct{}

/*
ServeHTTP answers one request.
*/
func (h *Handler) ServeHTTP() {}

// Modes of operation.
const (
	// Fast is quick.
	Fast = iota
	Slow // trailing: not Slow's doc
)

var x = 1 // trailing

func NoDoc() {}

// Detached by a blank line.

func AlsoNoDoc() {}

type (
	// Inner is documented inside the group.
	Inner int
)

var y = 1 // about y
func AfterTrailing() {}
"#;
    let f = facts(src);
    assert_eq!(f.package_doc.as_deref(), Some("Package p does things.\n\nSecond paragraph."));
    let docs: Vec<String> = f.decls.iter().map(|d| format!("{}: {:?}", d.name, d.doc)).collect();
    expect_test::expect![[r#"
        [
            "Handler: Some(\"Handler serves requests.\")",
            "ServeHTTP: Some(\"ServeHTTP answers one request.\")",
            "Fast: Some(\"Fast is quick.\")",
            "Slow: Some(\"Modes of operation.\")",
            "x: None",
            "NoDoc: None",
            "AlsoNoDoc: None",
            "Inner: Some(\"Inner is documented inside the group.\")",
            "y: None",
            "AfterTrailing: None",
        ]
    "#]]
    .assert_debug_eq(&docs);
}
