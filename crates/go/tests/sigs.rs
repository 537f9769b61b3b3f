//! Signature summaries (`extract_sigs`): every declaration kind and type expression, const
//! groups, body independence, broken input.

use docforge_go::{extract_sigs, ConstExpr, FileSigs, FuncSig, InterfaceElem, TypeExpr, ValueInit};
use docforge_syntax::{AstGate, AstPolicy};
use expect_test::expect;

fn sigs(src: &str) -> FileSigs {
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    extract_sigs(go, &go.parse(src.as_bytes()), src.as_bytes())
}

fn cx(e: &ConstExpr) -> String {
    match e {
        ConstExpr::Int(s) | ConstExpr::Lit(s) | ConstExpr::Ident(s) => s.clone(),
        ConstExpr::Qualified { pkg, name } => format!("{pkg}.{name}"),
        ConstExpr::Unary { op, x } => format!("{op}{}", cx(x)),
        ConstExpr::Binary { op, x, y } => format!("({} {op} {})", cx(x), cx(y)),
        ConstExpr::Call { fun, args } => {
            format!("{fun}({})", args.iter().map(cx).collect::<Vec<_>>().join(", "))
        }
        ConstExpr::Other(s) => format!("?{{{s}}}"),
    }
}

fn sig(s: &FuncSig) -> String {
    let list = |ps: &[docforge_go::Param], variadic: bool| {
        let n = ps.len();
        let one = |(i, p): (usize, &docforge_go::Param)| {
            let dots = if variadic && i + 1 == n { "..." } else { "" };
            let name = p.name.as_deref().map_or(String::new(), |n| format!("{n} "));
            format!("{name}{dots}{}", ty(&p.ty))
        };
        ps.iter().enumerate().map(one).collect::<Vec<_>>().join(", ")
    };
    let results =
        if s.results.is_empty() { String::new() } else { format!(" ({})", list(&s.results, false)) };
    format!("({}){results}", list(&s.params, s.variadic))
}

fn ty(t: &TypeExpr) -> String {
    match t {
        TypeExpr::Name(n) => n.clone(),
        TypeExpr::Qualified { pkg, name } => format!("{pkg}.{name}"),
        TypeExpr::Pointer(x) => format!("*{}", ty(x)),
        TypeExpr::Slice(x) => format!("[]{}", ty(x)),
        TypeExpr::Array { len, elem } => format!("[{}]{}", cx(len), ty(elem)),
        TypeExpr::Map { key, value } => format!("map[{}]{}", ty(key), ty(value)),
        TypeExpr::Chan { dir, elem } => format!("{dir:?}chan {}", ty(elem)),
        TypeExpr::Func(s) => format!("func{}", sig(s)),
        TypeExpr::Struct(fields) => {
            let fs: Vec<String> = fields
                .iter()
                .map(|f| {
                    let tag = f.tag.as_deref().map_or(String::new(), |t| format!(" tag={t:?}"));
                    match f.embedded {
                        true => format!("^{}={}{tag}", f.name, ty(&f.ty)),
                        false => format!("{} {}{tag}", f.name, ty(&f.ty)),
                    }
                })
                .collect();
            format!("struct{{{}}}", fs.join("; "))
        }
        TypeExpr::Interface(elems) => {
            let es: Vec<String> = elems
                .iter()
                .map(|e| match e {
                    InterfaceElem::Method { name, sig: s } => format!("{name}{}", sig(s)),
                    InterfaceElem::Embed(t) => ty(t),
                    InterfaceElem::Union(terms) => terms
                        .iter()
                        .map(|t| format!("{}{}", if t.tilde { "~" } else { "" }, ty(&t.ty)))
                        .collect::<Vec<_>>()
                        .join(" | "),
                })
                .collect();
            format!("interface{{{}}}", es.join("; "))
        }
        TypeExpr::Generic { base, args } => {
            format!("{}[{}]", ty(base), args.iter().map(ty).collect::<Vec<_>>().join(", "))
        }
        TypeExpr::Invalid(s) => format!("!{{{s}}}"),
    }
}

fn render(src: &str) -> String {
    let f = sigs(src);
    let i = &f.items;
    let p = &f.positions;
    let mut out = format!("package {:?} errors={}\n", i.package, i.has_syntax_errors);
    for (imp, pos) in i.imports.iter().zip(&p.imports) {
        out += &format!("import {:?} {:?} @{}\n", imp.name, imp.path, pos.line);
    }
    let tps = |tp: &[docforge_go::TypeParamSig]| -> String {
        let v: Vec<String> = tp.iter().map(|t| format!("{} {}", t.name, ty(&t.constraint))).collect();
        if v.is_empty() {
            String::new()
        } else {
            format!("[{}]", v.join(", "))
        }
    };
    for (t, pos) in i.types.iter().zip(&p.types) {
        let eq = if t.alias { "= " } else { "" };
        out += &format!("type {}{} {eq}{} @{}\n", t.name, tps(&t.type_params), ty(&t.ty), pos.line);
    }
    for (d, pos) in i.funcs.iter().zip(&p.funcs) {
        let recv = d.receiver.as_ref().map_or(String::new(), |r| {
            let star = if r.pointer { "*" } else { "" };
            let base = r.base.as_deref().unwrap_or("?");
            let params = if r.type_params.is_empty() {
                String::new()
            } else {
                format!("[{}]", r.type_params.join(", "))
            };
            format!("({star}{base}{params}) ")
        });
        out += &format!("func {recv}{}{}{} @{}\n", d.name, tps(&d.type_params), sig(&d.sig), pos.line);
    }
    for (v, pos) in i.values.iter().zip(&p.values) {
        let t = v.ty.as_ref().map_or(String::new(), |t| format!(" {}", ty(t)));
        let init = match &v.init {
            ValueInit::None => String::new(),
            ValueInit::Const { expr, iota } => format!(" = {} (iota {iota})", cx(expr)),
            ValueInit::Composite { address, ty: t } => {
                format!(" = {}{}{{}}", if *address { "&" } else { "" }, ty(t))
            }
            ValueInit::Expr { body, value, index } => {
                let which = index.map_or(String::new(), |i| format!(" result {i}"));
                format!(" = <expr {value} of {}{which}>", body.exprs.len())
            }
            ValueInit::Unknown => " = <unknown>".to_string(),
        };
        out += &format!("{:?} {}{t}{init} @{}\n", v.kind, v.name, pos.line);
    }
    out
}

#[test]
fn every_declaration_and_type_form() {
    let src = r#"package p

import (
	"io"
	m "math"
	. "strings"
	_ "embed"
)

type A func(a, b int, c ...string) (x int, err error)
type B func(int, string) error
type C chan<- int
type D <-chan (int)
type E chan *io.Reader
type F interface {
	~int | string
	io.Reader
	M(x int) []T
	comparable
}
type G struct {
	*io.PipeReader
	List[int]
	a, b int `json:"a"`
	c map[string][N + 2]byte "tag"
}
type H[K comparable, V ~int | ~string] map[K]V
type I = L[int, string]
type J [m.MaxInt8 << 1]struct{}

func (r *Recv[T, _]) Method(fn func() int) {}
func Generic[T any](xs ...T) (T, bool) { var z T; return z, false }
func (Plain) Value() {}

const (
	X, Y = iota, 2
	Z, W
	K int64 = 1 << 10
	L2
)
var v1, v2 = 1, &S{}
var v3 T
var v4, v5 = f()
var v6 = []int{1}
"#;
    expect![[r#"
        package Some("p") errors=false
        import None "io" @4
        import Some("m") "math" @5
        import Some(".") "strings" @6
        import Some("_") "embed" @7
        type A func(a int, b int, c ...string) (x int, err error) @10
        type B func(int, string) (error) @11
        type C Sendchan int @12
        type D Recvchan int @13
        type E Bothchan *io.Reader @14
        type F interface{~int | string; io.Reader; M(x int) ([]T); comparable} @15
        type G struct{^PipeReader=*io.PipeReader; ^List=List[int]; a int tag="json:\"a\""; b int tag="json:\"a\""; c map[string][(N + 2)]byte tag="tag"} @21
        type H[K comparable, V interface{~int | ~string}] map[K]V @27
        type I = L[int, string] @28
        type J [(m.MaxInt8 << 1)]struct{} @29
        func (*Recv[T, _]) Method(fn func() (int)) @31
        func Generic[T any](xs ...T) (T, bool) @32
        func (Plain) Value() @33
        Const X = iota (iota 0) @36
        Const Y = 2 (iota 0) @36
        Const Z = iota (iota 1) @37
        Const W = 2 (iota 1) @37
        Const K int64 = (1 << 10) (iota 2) @38
        Const L2 int64 = (1 << 10) (iota 3) @39
        Var v1 = <expr 0 of 3> @41
        Var v2 = &S{} @41
        Var v3 T @42
        Var v4 = <expr 1 of 2 result 0> @43
        Var v5 = <expr 1 of 2 result 1> @43
        Var v6 = []int{} @44
    "#]]
    .assert_eq(&render(src));
}

#[test]
fn bodies_do_not_change_items() {
    let before = "package p\n\nfunc F() int { return 1 }\n\ntype T struct{ X int }\n\nfunc (T) M() {}\n";
    let after = "package p\n\nfunc F() int {\n\tx := 2\n\tif x > 1 {\n\t\treturn x\n\t}\n\treturn 1\n}\n\ntype T struct{ X int }\n\nfunc (T) M() { F() }\n";
    let (b, a) = (sigs(before), sigs(after));
    assert_eq!(b.items, a.items);
    assert_ne!(b.positions, a.positions, "positions moved; they live apart from the items");
    let changed = sigs(&after.replace("func (T) M()", "func (*T) M()"));
    assert_ne!(changed.items, a.items, "a receiver change is a signature change");
}

/// A variable typed by its initializer keeps the initializer in its signature, without
/// positions: code moving leaves the items equal, a changed initializer does not.
#[test]
fn moving_a_typed_initializer_does_not_change_items() {
    let before = "package p\n\nvar v = New(1).M(x.Y)\n";
    let after = "package p\n\n// moved\n\nvar v = New(\n\t1,\n).M(x.Y)\n";
    let (b, a) = (sigs(before), sigs(after));
    assert!(matches!(b.items.values[0].init, ValueInit::Expr { .. }));
    assert_eq!(b.items, a.items);
    assert_ne!(b.positions, a.positions);
    assert_ne!(sigs(&after.replace("M(", "N(")).items, a.items, "another method is another type");
}

#[test]
fn broken_input_never_panics() {
    let src =
        "package p\nimport \"io\"\ntype T[K comparable] struct{ a, b [N]map[K]*io.Reader `t`; io.Writer }\n\
               func (t *T[K]) M(x ...func(int) (a, b chan<- int)) (r interface{ ~int | M() }) { return }\n\
               const ( A = iota << 2; B )\nvar v = &T[int]{}\n";
    for end in 0..=src.len() {
        let f = sigs(&src[..end]);
        let lens = (f.items.imports.len(), f.items.types.len(), f.items.funcs.len(), f.items.values.len());
        let p = &f.positions;
        assert_eq!(lens, (p.imports.len(), p.types.len(), p.funcs.len(), p.values.len()), "prefix {end}");
    }
    let garbage: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let f = extract_sigs(go, &go.parse(&garbage), &garbage);
    assert!(f.items.has_syntax_errors);
}

/// A syntax error inside a body leaves the declarations trusted (`has_syntax_errors` false)
/// only when they are exactly those of the file without the error; anything else (an error
/// that ends the body early, swallows a following declaration, or sits outside a body) makes
/// the whole file's summary untrusted.
#[test]
fn syntax_errors_inside_bodies_leave_declarations_trusted() {
    let base = "package p\n\ntype T struct{}\n\nfunc (T) A() {\n\tprintln(1)\nouter:\n\tfor {\n\t\tbreak outer\n\t}\n}\n\n\
func B() int {\n\treturn 2\n}\n\nfunc (*T) C() {}\n";
    let clean = sigs(base);
    assert!(!clean.items.has_syntax_errors);
    let at = base.find("func (T) A() {\n").unwrap() + "func (T) A() {\n".len();
    // (inserted into A's body, whether the file must be flagged, when that is certain)
    let cases: &[(&str, Option<bool>)] = &[
        ("\tx := (\n", Some(false)),
        ("\tfoo(1,\n", Some(false)),
        ("\ty := []int{1, +}\n", Some(false)),
        ("\tif x {\n", Some(true)),
        ("\t}\n", Some(true)),
        ("\tz := `raw\n", Some(true)),
        ("\ts := \"open\n", None),
        ("\tfunc\n", None),
        ("\tx.\n", None),
        ("\tgo\n", None),
        ("}\nfunc D( {\n", Some(true)),
    ];
    for (text, must_flag) in cases {
        let src = format!("{}{text}{}", &base[..at], &base[at..]);
        let f = sigs(&src);
        let mut items = f.items.clone();
        let flagged = std::mem::take(&mut items.has_syntax_errors);
        assert!(flagged || items == clean.items, "{text:?}: declarations changed but trusted");
        if let Some(must_flag) = must_flag {
            assert_eq!(flagged, *must_flag, "{text:?}");
        }
    }
    // Errors outside bodies always count, and so does a broken signature.
    for src in [
        format!("{base}type U struct {{\n"),
        base.replace("func B() int {", "func B( int {"),
        format!("{base}var = 3\n"),
    ] {
        assert!(sigs(&src).items.has_syntax_errors, "{src}");
    }
}
