//! Call sites: shapes, callers (closures included), shadowing, broken input.

use docforge_go::{extract_file, Callee, FileFacts};
use docforge_syntax::{AstGate, AstPolicy};
use std::fmt::Write;

fn facts(src: &[u8]) -> FileFacts {
    let gate = AstGate::new(AstPolicy::Allow);
    extract_file(gate.go().unwrap(), src)
}

/// One line per call: `caller-name callee shape [shadowed] @line:col`.
fn render(src: &str) -> String {
    let f = facts(src.as_bytes());
    let mut out = String::new();
    for c in &f.calls {
        let caller = c.caller.map_or("<pkg>".to_string(), |i| f.decls[i as usize].name.clone());
        let shape = match &c.shape {
            Callee::Ident(n) => format!("ident({n})"),
            Callee::Selector { x, sel } => format!("sel({x}.{sel})"),
            Callee::Other => "other".to_string(),
        };
        let sh = if c.shadowed { " shadowed" } else { "" };
        writeln!(out, "{caller}: {} {shape}{sh} @{}:{}", c.callee, c.pos.line, c.pos.column).unwrap();
    }
    out
}

#[test]
fn shapes_and_callers() {
    let src = r#"package p

import "fmt"

var initial = compute(fmt.Sprint(1))

func compute(s string) int { return len(s) }

func (t *T) Run() {
	t.helper()
	fmt.Println("x")
	compute("a")
	go func() {
		defer cleanup()
		inner := func() { compute("nested") }
		inner()
	}()
	(compute)("p")
	Map[int](nil)
	fmt.Sprintf[0]()
	t.fs[0]()
	get()()
	[]byte("x")
	pkg.Gen[int, string](1)
	a.b.c()
}
"#;
    expect_test::expect![[r#"
        <pkg>: compute ident(compute) @5:15
        <pkg>: fmt.Sprint sel(fmt.Sprint) @5:23
        compute: len ident(len) @7:37
        Run: t.helper sel(t.helper) shadowed @10:2
        Run: fmt.Println sel(fmt.Println) @11:2
        Run: compute ident(compute) @12:2
        Run: func() {
        		defer cleanup()
        		inner := func() { compute("nested") }
        		inner()
        	} other @13:5
        Run: cleanup ident(cleanup) @14:9
        Run: compute ident(compute) @15:21
        Run: inner ident(inner) shadowed @16:3
        Run: (compute) ident(compute) @18:2
        Run: Map[int] ident(Map) @19:2
        Run: fmt.Sprintf[0] sel(fmt.Sprintf) @20:2
        Run: t.fs[0] sel(t.fs) shadowed @21:2
        Run: get() other @22:2
        Run: get ident(get) @22:2
        Run: pkg.Gen[int, string] sel(pkg.Gen) @24:2
        Run: a.b.c other @25:2
    "#]]
    .assert_eq(&render(src));
}

#[test]
fn shadowing_scopes() {
    let src = r#"package p

import "strings"

func F(f func(), strings int) {
	f()
	g()
	g := func() {}
	g()
	if g := 1; g > 0 {
		h()
	}
	for i, h := range xs {
		h()
		_ = i
	}
	h()
	switch v := x.(type) {
	case int:
		v()
	}
	v()
	{
		var k = 1
		k()
	}
	k()
	select {
	case m := <-ch:
		m()
	}
	m()
}

func G() {
	strings.ToUpper("x")
	func(strings string) { strings.ToUpper() }("")
	strings.ToLower("y")
	n := n()
	n()
}

func H[T any](x T) { T(x); x() }
"#;
    expect_test::expect![[r#"
        F: f ident(f) shadowed @6:2
        F: g ident(g) @7:2
        F: g ident(g) shadowed @9:2
        F: h ident(h) @11:3
        F: h ident(h) shadowed @14:3
        F: h ident(h) @17:2
        F: v ident(v) shadowed @20:3
        F: v ident(v) @22:2
        F: k ident(k) shadowed @25:3
        F: k ident(k) @27:2
        F: m ident(m) shadowed @30:3
        F: m ident(m) @32:2
        G: strings.ToUpper sel(strings.ToUpper) @36:2
        G: func(strings string) { strings.ToUpper() } other @37:2
        G: strings.ToUpper sel(strings.ToUpper) shadowed @37:25
        G: strings.ToLower sel(strings.ToLower) @38:2
        G: n ident(n) @39:7
        G: n ident(n) shadowed @40:2
        H: T ident(T) shadowed @43:22
        H: x ident(x) shadowed @43:28
    "#]]
    .assert_eq(&render(src));
}

/// Nodes without a `(` are not descended into: their own bindings still count, bindings
/// inside a call-free scope do not leak.
#[test]
fn call_free_nodes_still_bind() {
    let src = r#"package p

func F(f int) {
	f()
	{
		g := 1
		_ = g
	}
	g()
	var x, y = 1, 2
	x()
	for i := range xs {
		i()
	}
	i()
	if e := 1; e > 0 {
		return
	}
	e()
}
"#;
    expect_test::expect![[r#"
        F: f ident(f) shadowed @4:2
        F: g ident(g) @9:2
        F: x ident(x) shadowed @11:2
        F: i ident(i) shadowed @13:3
        F: i ident(i) @15:2
        F: e ident(e) @19:2
    "#]]
    .assert_eq(&render(src));
}

/// Argument and parameter lists are only entered when a `(` follows their own, and a call
/// only when a second `(` follows its own: every nested call is still found, and a `(` in a
/// string only costs a visit.
#[test]
fn calls_nested_in_arguments_parameters_and_callees() {
    let src = r#"package p

func F(a [unsafe.Sizeof(x)]byte, cb func(int) error) (r [len("ab")]int) {
	f(g(x), "(", h())
	f("(")
	k(x)(y)
	m(T{A: n()}, []int{o()})
	p(func(v int) { q(v) })
	s.t(u.v(), 1)()
	w()
	z(
		y(),
	)
}
"#;
    expect_test::expect![[r#"
        F: unsafe.Sizeof sel(unsafe.Sizeof) @3:11
        F: len ident(len) @3:58
        F: f ident(f) @4:2
        F: g ident(g) @4:4
        F: h ident(h) @4:15
        F: f ident(f) @5:2
        F: k(x) other @6:2
        F: k ident(k) @6:2
        F: m ident(m) @7:2
        F: n ident(n) @7:9
        F: o ident(o) @7:21
        F: p ident(p) @8:2
        F: q ident(q) @8:18
        F: s.t(u.v(), 1) other @9:2
        F: s.t sel(s.t) @9:2
        F: u.v sel(u.v) @9:6
        F: w ident(w) @10:2
        F: z ident(z) @11:2
        F: y ident(y) @12:3
    "#]]
    .assert_eq(&render(src));
}

/// A package-level `var`/`const` is walked only when it has a `(` besides a group's own.
#[test]
fn package_level_initialisers_with_and_without_calls() {
    let src = r#"package p

const (
	A = iota // (not a call)
	B = uint8(2)
)

var (
	x int
	y = f()
)

var z = g()

var w, v int

const C = len("(")
"#;
    expect_test::expect![[r#"
        <pkg>: uint8 ident(uint8) @5:6
        <pkg>: f ident(f) @10:6
        <pkg>: g ident(g) @13:9
        <pkg>: len ident(len) @17:11
    "#]]
    .assert_eq(&render(src));
}

#[test]
fn syntax_errors_are_recorded_not_fatal() {
    let f = facts(b"package p\n\nfunc F() { call( }\n\nfunc G() { ok() }\n");
    assert_eq!(f.syntax_errors, [docforge_go::Pos { line: 3, column: 16 }]);
    assert_eq!(f.package.as_deref(), Some("p"));
    let names: Vec<&str> = f.decls.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["F", "G"]);
    assert!(f.calls.iter().any(|c| c.callee == "ok" && c.caller == Some(1)));
    // A badly broken file still yields its package clause and no panic.
    let f = facts(b"package p\n\nfunc F( {\n\tcall(\n}\n\nfunc G() { ok() }\n");
    assert!(!f.syntax_errors.is_empty());
    assert_eq!(f.package.as_deref(), Some("p"));
    let clean = facts(b"package p\nfunc F() {}\n");
    assert!(clean.syntax_errors.is_empty());
}

#[test]
fn many_errors_are_bounded() {
    let src = "package p\n".to_string() + &"func F() { x := }\n".repeat(200);
    let f = facts(src.as_bytes());
    assert_eq!(f.syntax_errors.len(), docforge_go::MAX_SYNTAX_ERRORS);
}

#[test]
fn invalid_utf8_never_panics() {
    let inputs: [&[u8]; 6] = [
        b"package p\nfunc \xff\xfe() { \xc3( }\n",
        b"\xff\xff\xff",
        b"package \xe2\x82\nimport \"\xff\"\nfunc F() { g\xff() }\n",
        b"",
        b"package p\nfunc (\xff *T\xfe) M() {}\ntype \xff struct{ \xfe int }\n",
        b"package p\nvar x = \"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\"()\n",
    ];
    for src in inputs {
        let f = facts(src);
        for c in &f.calls {
            assert!(c.callee.len() <= docforge_go::MAX_CALLEE_LEN + "…".len());
        }
    }
    let f = facts(b"package p\nfunc F() { g\xff() }\n");
    assert_eq!(f.decls.len(), 1);
}
