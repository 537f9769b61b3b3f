//! Call resolution: one table row per inference rule. Each case is a set of small packages;
//! the rendering lists every call site of package `a` as
//! `caller @line:col -> target`, interface calls expanded with CHA over all packages.

use docforge_go::body::extract_bodies;
use docforge_go::calls::{resolve_file_calls, CallTarget, ChaIndex};
use docforge_go::extract_sigs;
use docforge_go::types::{PackageSigs, SigSource, TypeCtx};
use docforge_syntax::{AstGate, AstPolicy};
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;

struct Src(HashMap<String, Arc<PackageSigs>>);

impl SigSource for Src {
    fn package(&self, p: &str) -> Option<Arc<PackageSigs>> {
        self.0.get(p).cloned()
    }
    fn resolve_import(&self, _: &str, spec: &str) -> Option<String> {
        Some(spec.to_string())
    }
}

/// `pkgs`: (import path, file sources). Renders the call sites of the first package.
fn render(pkgs: &[(&str, &[&str])]) -> String {
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let mut map = HashMap::new();
    let mut bodies = Vec::new();
    for (ip, files) in pkgs {
        let mut sigs = Vec::new();
        for src in files.iter() {
            let tree = go.parse(src.as_bytes());
            sigs.push(Arc::new(extract_sigs(go, &tree, src.as_bytes()).items));
            if ip == &pkgs[0].0 {
                bodies.push(extract_bodies(go, &tree, src.as_bytes()));
            }
        }
        map.insert(ip.to_string(), Arc::new(PackageSigs::new(*ip, sigs)));
    }
    let src = Src(map);
    let ctx = TypeCtx::new(&src);
    let paths: Vec<&str> = pkgs.iter().map(|p| p.0).collect();
    let cha = ChaIndex::new(&ctx, &paths);
    let mut out = String::new();
    for (fi, b) in bodies.iter().enumerate() {
        for fc in resolve_file_calls(&ctx, pkgs[0].0, fi, b) {
            let caller = fc.caller.clone().unwrap_or_default();
            let caller = caller.rsplit("::").next().unwrap_or_default().to_string();
            for s in &fc.sites {
                let t = match &s.target {
                    CallTarget::Interface { method, iface } => {
                        let e = cha.targets(&ctx, iface, method);
                        let ts: Vec<String> = e
                            .targets
                            .iter()
                            .map(|t| format!("{}{}", t.callee, if t.synthetic { " (synthetic)" } else { "" }))
                            .collect();
                        format!("interface .{} -> [{}]", method.name, ts.join(", "))
                    }
                    CallTarget::Static { callee, kind } => format!("{callee} {kind:?}"),
                    CallTarget::Unresolved { reason, .. } => format!("UNRESOLVED {}", reason.as_str()),
                    other => other.to_string(),
                };
                writeln!(out, "{caller} @{}:{} {t}", s.pos.line, s.pos.column).unwrap();
            }
            if !fc.complete {
                writeln!(out, "{caller}: incomplete").unwrap();
            }
        }
    }
    out
}

const B: &str = r#"package b

type T struct{ Inner; n int; F func() }
type Inner struct{}
func (Inner) Hello() {}
func (t *T) Ptr() *T { return t }
func (t T) Val() (T, error) { return t, nil }
func New() *T { return nil }
func Pair() (*T, int) { return nil, 0 }
type Shape interface{ Area() int }
type Sq struct{}
func (Sq) Area() int { return 0 }
type Circ struct{}
func (*Circ) Area() int { return 0 }
type Named interface{ Shape; Name() string }
type Both struct{ Sq }
func (Both) Name() string { return "" }
"#;

#[test]
fn local_inference_rules() {
    let a = r#"package a

import (
	"b"
	. "b"
	bb "b"
)

func F(p *b.T, ps []b.T, m map[string]*b.T, ch chan b.T) {
	p.Ptr()                      // parameter
	var v b.T
	v.Val()                      // var with type
	x := b.T{}
	x.Ptr()                      // composite literal
	y := &b.T{}
	y.Val()                      // &T{}
	z := b.New()
	z.Ptr().Val()                // function result, method result
	w, n := b.Pair()
	w.Ptr()                      // multi-value
	_ = n
	ps[0].Val()                  // index of slice
	m["k"].Ptr()                 // index of map
	for _, e := range ps {
		e.Val()                  // range value
	}
	for k, e := range m {
		e.Ptr()
		_ = k
	}
	(<-ch).Val()                 // receive
	New().Ptr()                  // dot import
	bb.New()                     // aliased import
	p.Hello()                    // promoted method
	b.T.Val(v)                   // method expression
	(*b.T).Ptr(p)
	c := (*b.T)(p)
	c.Ptr()                      // conversion
	var s b.Shape = b.Sq{}
	if q, ok := s.(b.Sq); ok {
		q.Area()                 // type assertion
	}
	switch t := s.(type) {
	case *b.Circ:
		t.Area()                 // type switch, one type
	case b.Sq, nil:
		t.Area()                 // several types: the guard's interface
	}
	func() { p.Ptr() }()         // closure capturing a parameter
	g := func(t *b.T) { t.Val() }
	g(p)                         // closure through a local
	p.F()                        // field of func type
	h := p.Ptr
	h()                          // method value
	len(ps)
	_ = string(rune(1))
}
"#;
    expect_test::expect![[r#"
        F @10:7 b::(*T).Ptr Method
        F @12:7 b::(T).Val Method
        F @14:7 b::(*T).Ptr Method
        F @16:7 b::(T).Val Method
        F @17:12 b::New Func
        F @18:7 b::(*T).Ptr Method
        F @18:13 b::(T).Val Method
        F @19:16 b::Pair Func
        F @20:7 b::(*T).Ptr Method
        F @22:11 b::(T).Val Method
        F @23:12 b::(*T).Ptr Method
        F @25:8 b::(T).Val Method
        F @28:8 b::(*T).Ptr Method
        F @31:12 b::(T).Val Method
        F @32:5 b::New Func
        F @32:11 b::(*T).Ptr Method
        F @33:8 b::New Func
        F @34:9 b::(Inner).Hello Promoted
        F @35:9 b::(T).Val MethodExpr
        F @36:12 b::(*T).Ptr MethodExpr
        F @37:13 conversion
        F @38:7 b::(*T).Ptr Method
        F @41:9 b::(Sq).Area Method
        F @45:9 b::(*Circ).Area Method
        F @47:9 interface .Area -> [b::(*Circ).Area, b::(Sq).Area]
        F @49:16 b::(*T).Ptr Method
        F @49:20 closure
        F @50:27 b::(T).Val Method
        F @51:3 closure
        F @52:5 UNRESOLVED function_value
        F @54:3 UNRESOLVED method_value
        F @55:5 builtin len
        F @56:12 conversion
        F @56:17 conversion
        F: incomplete
    "#]]
    .assert_eq(&render(&[("a", &[a]), ("b", &[B])]));
}

#[test]
fn interface_calls_expand_to_every_implementation() {
    let a = r#"package a

import "b"

type Loud struct{ b.Sq }         // promoted Area: synthetic edge
type Ptr struct{}
func (*Ptr) Area() int { return 1 } // only *Ptr implements
type Val struct{}
func (Val) Area() int { return 2 }
func (Val) Name() string { return "" }
type Holder struct{ b.Shape }    // embedded interface: forwarding

func F(s b.Shape, n b.Named, h Holder, e error) {
	s.Area()
	n.Area()                    // method of an embedded interface
	n.Name()
	h.Area()                    // call through an embedded interface field
	e.Error()                   // no implementation in these packages
}
"#;
    expect_test::expect![[r#"
        F @14:8 interface .Area -> [a::(*Ptr).Area, a::(Val).Area, b::(*Circ).Area, b::(Sq).Area]
        F @15:8 interface .Area -> [a::(Val).Area, b::(Sq).Area (synthetic)]
        F @16:8 interface .Name -> [a::(Val).Name, b::(Both).Name]
        F @17:8 interface .Area -> [a::(*Ptr).Area, a::(Val).Area, b::(*Circ).Area, b::(Sq).Area]
        F @18:9 interface .Error -> []
    "#]]
    .assert_eq(&render(&[("a", &[a]), ("b", &[B])]));
}

#[test]
fn shadowing_and_redeclaration() {
    let a = r#"package a

import "b"

func New() int { return 0 }

func F(err error) {
	b := struct{ New func() }{}
	b.New()                       // a local shadows the package name
	New := func() {}
	New()                         // a local closure shadows the package func
	var s b2 = nil
	_ = s
	x, err := G()                 // err is reused: still error, not *E
	err.Error()
	_ = x
	{
		x, err := H()             // new scope: a new err of type *E
		err.Error()
		_ = x
	}
}

type b2 = *E
type E struct{}
func (*E) Error() string { return "" }
func G() (int, *E) { return 0, nil }
func H() (int, *E) { return 0, nil }
"#;
    expect_test::expect![[r#"
        F @9:7 UNRESOLVED function_value
        F @11:5 closure
        F @14:13 a::G Func
        F @15:11 interface .Error -> [a::(*E).Error]
        F @18:14 a::H Func
        F @19:12 a::(*E).Error Method
        F: incomplete
    "#]]
    .assert_eq(&render(&[("a", &[a]), ("b", &[B])]));
}

/// A function-local struct type, interface type or alias stands for what it spells (local
/// types declare no methods, so a value selects the same fields and promoted methods):
/// calls through its embedded fields resolve, a conversion to it is no call; other local
/// types stay unknown (a conversion to `num` included), and a field pointing at the type itself is
/// unknown on its own.
#[test]
fn local_types_stand_for_what_they_spell() {
    let a = r#"package a

type E struct{}
func (*E) M() {}

func F(x any) {
	type node struct {
		*E
		next *node
	}
	type alias = node
	type closer interface{ M() }
	type num int
	var n node
	n.M()
	var al alias
	al.M()
	_ = node(n)
	n.next.M()
	var c closer = &E{}
	c.M()
	_ = num(1)
}
"#;
    expect_test::expect![[r#"
        F @15:5 a::(*E).M Promoted
        F @17:6 a::(*E).M Promoted
        F @18:10 conversion
        F @19:10 UNRESOLVED unknown_type
        F @21:5 interface .M -> [a::(*E).M]
        F @22:9 UNRESOLVED local_type
        F: incomplete
    "#]]
    .assert_eq(&render(&[("a", &[a])]));
}

#[test]
fn generics_resolve_at_declaration_identity() {
    let a = r#"package a

type List[T any] struct{ head *node[T] }
type node[T any] struct{ v T; next *node[T] }
func (l *List[T]) Push(v T) { l.head = &node[T]{v: v} }
func (l *List[T]) Len() int { return l.each() }
func (l *List[T]) each() int { return 0 }
func (n *node[T]) Val() T { return n.v }
func Map[S, D any](s []S, f func(S) D) []D { return nil }
func Id[T any](v T) T { return v }
type Stringer interface{ String() string }
func Show[T Stringer](v T) string { return v.String() }

func F(l *List[int]) {
	l.Push(1)
	l.head.Val()
	Map[int, string](nil, nil)
	Map([]int{}, func(int) string { return "" })
	Id[*List[int]](l).Len()         // explicit instantiation: result known
	Id(l).Len()                      // inferred: result unknown
	var m List[string]
	m.Push("x")
}
"#;
    expect_test::expect![[r#"
        (*List).Len @6:44 a::(*List).each Method
        Show @12:52 UNRESOLVED type_param
        Show: incomplete
        F @15:8 a::(*List).Push Method
        F @16:12 a::(*node).Val Method
        F @17:18 a::Map Func
        F @18:5 a::Map Func
        F @19:16 a::Id Func
        F @19:23 a::(*List).Len Method
        F @20:4 a::Id Func
        F @20:11 UNRESOLVED type_param
        F @22:8 a::(*List).Push Method
        F: incomplete
    "#]]
    .assert_eq(&render(&[("a", &[a])]));
}

/// A package-level variable without a declared type has its initializer's type, inferred
/// as for `x := expr` (calls, results of a multi-value call, other variables of this or
/// another package, conversions, `&x`, method results); a generic result, a comma-ok form,
/// a function value and an initialization cycle stay unknown. `[...]T{…}` is an array of T
/// (its length counted from the elements, unknown with index keys).
#[test]
fn package_variables_are_typed_by_their_initializers() {
    let a = r#"package a

import "b"

var (
	fromCall     = b.New()
	first, count = b.Pair()
	copied       = fromCall
	other        = b.Default
	converted    = (*b.T)(nil)
	addr         = &value
	value        = b.T{}
	method       = fromCall.Ptr()
	gen          = Id(fromCall)
	m            = map[string]*b.T{}
	got, ok      = m["k"]
	fn           = func() *b.T { return nil }
	cyc1         = cyc2
	cyc2         = cyc1
	arr          = [...]b.T{{}, {}}
)

func Id[X any](x X) X { return x }

func F() {
	fromCall.Ptr()
	first.Ptr()
	copied.Ptr()
	other.Val()
	converted.Ptr()
	addr.Val()
	method.Val()
	gen.Ptr()
	got.Ptr()
	fn()
	cyc1.Ptr()
	arr[1].Val()
	keyed := [...]*b.T{2: nil}
	keyed[0].Ptr()
	for _, t := range [...]b.T{{}} {
		t.Val()
	}
	var three [3]b.T = arr
	three[0].Val()
}
"#;
    let b = format!("{B}var Default = New()\n");
    expect_test::expect![[r#"
        F @26:14 b::(*T).Ptr Method
        F @27:11 b::(*T).Ptr Method
        F @28:12 b::(*T).Ptr Method
        F @29:11 b::(T).Val Method
        F @30:15 b::(*T).Ptr Method
        F @31:10 b::(T).Val Method
        F @32:12 b::(T).Val Method
        F @33:9 UNRESOLVED package_var_type
        F @34:9 UNRESOLVED package_var_type
        F @35:4 UNRESOLVED function_value
        F @36:10 UNRESOLVED package_var_type
        F @37:12 b::(T).Val Method
        F @39:14 b::(*T).Ptr Method
        F @41:8 b::(T).Val Method
        F @44:14 b::(T).Val Method
        F: incomplete
    "#]]
    .assert_eq(&render(&[("a", &[a]), ("b", &[&b])]));
}

/// A constant declared without a type has its expression's: a conversion `T(1)`, an
/// operation with a typed operand, another constant (of this or another package); an
/// untyped one has no methods.
#[test]
fn constants_are_typed_by_their_expressions() {
    let a = r#"package a

import "b"

const (
	viaOther = b.KB
	local    = b.Kind(7)
	sum      = local + 1
	plain    = 1 << 3
	word     = "x" + "y"
)

func F() {
	b.KA.String()
	b.KB.String()
	b.KC.String()
	viaOther.String()
	local.String()
	sum.String()
	plain.String()
	w := word
	w.String()
}
"#;
    let b = r#"package b

type Kind int
func (Kind) String() string { return "" }
const KA Kind = 1
const KB = KA + 1
const KC = Kind(3)
"#;
    expect_test::expect![[r#"
        F @14:13 b::(Kind).String Method
        F @15:13 b::(Kind).String Method
        F @16:13 b::(Kind).String Method
        F @17:17 b::(Kind).String Method
        F @18:14 b::(Kind).String Method
        F @19:12 b::(Kind).String Method
        F @20:14 UNRESOLVED unknown_type
        F @22:10 UNRESOLVED undefined
        F: incomplete
    "#]]
    .assert_eq(&render(&[("a", &[a]), ("b", &[b])]));
}
