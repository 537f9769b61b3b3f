//! Type resolution and method sets as specifications.

mod support;

use docforge_go::types::{identical, Found, Tri, Type, TypeCtx};
use expect_test::expect;
use support::mem;

const P: &str = r#"package p

import (
	"example.com/q"
	qq "example.com/q"
	. "example.com/dot"
	"unsafe"
	"ext"
)

const N = 3
const (
	A0 = iota * 4
	A1
	A2
)

type Arr [A2 + N]byte
type Arr2 [q.Size]int
type Arr3 [len("abc")]int
type Arr4 [0x10_0 - 0o7]int
type Bad [unsafe.Sizeof(0)]int
type Chain = B1
type B1 = q.Alias
type Ptr = *q.T
type U unsafe.Pointer
type Dot = DotT
type Ext ext.Thing
type Str struct {
	a int
	B string `k:"v"`
	q.T
	*qq.T2
}
type Gen[T any] struct {
	x    T
	next *Gen[T]
}
type Inst = Gen[int]
type Iface interface {
	q.I
	M(...int) (a, b error)
	error
}
type Cons interface{ ~int; q.I }
type Basic func(rune, byte, any, uintptr, complex64)
type Missing NotDeclared
type Defined Str
"#;

const Q: &str = "package q\nconst Size = 1 << 4\ntype T struct{}\ntype T2 struct{}\ntype Alias = T\ntype I interface{ N() }\n";
const DOT: &str = "package dot\ntype DotT struct{}\n";

#[test]
fn resolution() {
    let m = mem(&[("example.com/p", &[P]), ("example.com/q", &[Q]), ("example.com/dot", &[DOT])]);
    let ctx = TypeCtx::new(&m);
    let names = [
        "Arr", "Arr2", "Arr3", "Arr4", "Bad", "Chain", "Ptr", "U", "Dot", "Ext", "Str", "Gen", "Inst",
        "Iface", "Cons", "Basic", "Missing", "Defined",
    ];
    let mut out = String::new();
    for name in names {
        let t = ctx.lookup_type("example.com/p", name);
        let under = match &t {
            Type::Named(n) => ctx.underlying(n).map_or_else(|u| format!("?{{{u}}}"), |u| u.to_string()),
            _ => "(alias)".to_string(),
        };
        out += &format!("{name}: {t} = {under}\n");
    }
    expect![[r#"
        Arr: example.com/p.Arr = [11]uint8
        Arr2: example.com/p.Arr2 = [16]int
        Arr3: example.com/p.Arr3 = [3]int
        Arr4: example.com/p.Arr4 = [249]int
        Bad: example.com/p.Bad = [?{unevaluated constant: Call { fun: "unsafe.Sizeof", args: [Int("0")] }}]int
        Chain: example.com/q.T = struct{}
        Ptr: *example.com/q.T = (alias)
        U: example.com/p.U = unsafe.Pointer
        Dot: example.com/dot.DotT = struct{}
        Ext: example.com/p.Ext = ?{external package: ext.Thing}
        Str: example.com/p.Str = struct{example.com/p.a int; B string "k:\"v\""; example.com/q.T; *example.com/q.T2}
        Gen: example.com/p.Gen = struct{example.com/p.x example.com/p::Gen#0; example.com/p.next *example.com/p.Gen[example.com/p::Gen#0]}
        Inst: example.com/p.Gen[int] = struct{example.com/p.x int; example.com/p.next *example.com/p.Gen[int]}
        Iface: example.com/p.Iface = interface{Error() string; M(...int) (error, error); N()}
        Cons: example.com/p.Cons = interface{N(); <type set>}
        Basic: example.com/p.Basic = func(int32, uint8, interface{}, uintptr, complex64)
        Missing: example.com/p.Missing = ?{unknown identifier: NotDeclared}
        Defined: example.com/p.Defined = struct{example.com/p.a int; B string "k:\"v\""; example.com/q.T; *example.com/q.T2}
    "#]]
    .assert_eq(&out);
}

#[test]
fn method_sets() {
    let src = r#"package p
type Base struct{}
func (Base) V() {}
func (*Base) P() {}
type E1 struct{ Base }
type E2 struct{ *Base }
type Amb struct{ E1; E2 }
type Sh struct{ V int; Base }
type Own struct{ Base }
func (Own) P() {}
type I interface{ V(); X(int) string }
type EI struct{ I; e int }
"#;
    let m = mem(&[("p", &[src])]);
    let ctx = TypeCtx::new(&m);
    let mut out = String::new();
    for name in ["Base", "E1", "E2", "Amb", "Sh", "Own", "EI"] {
        let set = ctx.method_set(&ctx.lookup_type("p", name));
        let entries: Vec<String> = set
            .entries
            .iter()
            .map(|(k, f)| match f {
                Found::Method(s) => {
                    let set = if s.in_value_set() { "value" } else { "pointer" };
                    format!("{k}{} d{} {set}", s.sig, s.depth)
                }
                Found::Blocked => format!("{k} blocked"),
                Found::Unknown(u) => format!("{k} ?{{{u}}}"),
            })
            .collect();
        out += &format!("{name}: {}\n", entries.join(", "));
    }
    expect![[r#"
        Base: P() d0 pointer, V() d0 value
        E1: Base blocked, P() d1 pointer, V() d1 value
        E2: Base blocked, P() d1 value, V() d1 value
        Amb: Base blocked, E1 blocked, E2 blocked, P blocked, V blocked
        Sh: Base blocked, P() d1 pointer, V blocked
        Own: Base blocked, P() d0 value, V() d1 value
        EI: I blocked, V() d1 value, X(int) string d1 value, p.e blocked
    "#]]
    .assert_eq(&out);
}

#[test]
fn identity_is_three_valued() {
    let src = "package p\nimport \"ext\"\ntype S1 struct{ X int `a` }\ntype S2 struct{ X int }\n\
               type F1 func(...int)\ntype F2 func([]int)\ntype E1 ext.A\ntype E2 ext.B\ntype C1 chan<- int\ntype C2 chan int\n";
    let m = mem(&[("p", &[src])]);
    let ctx = TypeCtx::new(&m);
    let under = |n: &str| match ctx.lookup_type("p", n) {
        Type::Named(n) => ctx.underlying(&n).unwrap(),
        t => t,
    };
    let tri = |a: &str, b: &str| match identical(&under(a), &under(b)) {
        Tri::Yes => "yes",
        Tri::No => "no",
        Tri::Unknown(_) => "unknown",
    };
    let cases = [
        ("S1", "S1", "yes"),
        ("S1", "S2", "no"),
        ("F1", "F2", "no"),
        ("E1", "E1", "yes"),
        ("E1", "E2", "unknown"),
        ("E1", "S1", "unknown"),
        ("C1", "C2", "no"),
    ];
    for (a, b, want) in cases {
        assert_eq!(tri(a, b), want, "{a} vs {b}");
    }
}
