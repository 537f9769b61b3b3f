//! Identifier uses: which identifiers are recorded as candidate uses of package-level names
//! (shadowing, declaring positions, field names), and their resolution to symbols.

use docforge_go::{extract_file, extract_uses, package_symbols, resolve_uses, PackageFile, PackageSymbols};
use docforge_syntax::{AstGate, AstPolicy};
use expect_test::{expect, Expect};
use std::collections::HashMap;
use std::sync::Arc;

/// One line per recorded use: `[qualifier.]name line:col`.
fn render(src: &str) -> String {
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let tree = go.parse(src.as_bytes());
    let uses = extract_uses(go, &tree, src.as_bytes());
    let mut out = String::new();
    for u in &uses.uses {
        let q = u.qualifier.as_ref().map(|q| format!("{q}.")).unwrap_or_default();
        out.push_str(&format!("{q}{} {}:{}\n", u.name, u.pos.line, u.pos.column));
    }
    out
}

#[test]
fn recorded_uses_respect_scopes_and_declaring_positions() {
    let cases: &[(&str, &str, Expect)] = &[
        (
            "a parameter named like a type hides it in the body only",
            "package p\ntype T int\nfunc F(T T) T { return T }\n",
            expect![[r#"
                int 2:8
                T 3:10
                T 3:13
            "#]],
        ),
        (
            "ten or more names of one type are names (tree-sitter reads the first ones as types)",
            "package p\nvar x, y int\nfunc F(x, y, a, b, c, d, e, f, g, h int) (int, int) {\n\treturn x, y\n}\n",
            expect![[r#"
                int 2:10
                int 3:37
                int 3:43
                int 3:48
            "#]],
        ),
        (
            "`:=` shadows a package func from the next statement on; `x := x` reads the outer x",
            "package p\nfunc G() {\n\tHelper()\n\tHelper := Helper\n\t_ = Helper\n}\n",
            expect![[r#"
                Helper 3:2
                Helper 4:12
            "#]],
        ),
        (
            "a block-scoped shadow ends with its block",
            "package p\nfunc H() {\n\t{\n\t\tvar Helper = 2\n\t\t_ = Helper\n\t}\n\tHelper()\n}\n",
            expect![[r#"
                Helper 7:2
            "#]],
        ),
        (
            "a type-switch binding is in scope in the clauses, not in its guard or after",
            "package p\nfunc S() {\n\tswitch v := v.(type) {\n\tcase T:\n\t\t_ = v\n\tdefault:\n\t\t_ = v\n\t}\n\t_ = v\n}\n",
            expect![[r#"
                v 3:14
                T 4:7
                v 9:6
            "#]],
        ),
        (
            "a receiver named like its type hides it in the body only",
            "package p\nfunc (Cfg *Cfg) Get() Cfg { return *Cfg }\n",
            expect![[r#"
                Cfg 2:12
                Cfg 2:23
            "#]],
        ),
        (
            "struct field names and selected fields are never uses; field types are",
            "package p\ntype S struct {\n\tT T\n\tName string\n\tEmbedded\n}\nfunc U(s S) { _ = s.T; _ = s.Name }\n",
            expect![[r#"
                T 3:4
                string 4:7
                Embedded 5:2
                S 7:10
            "#]],
        ),
        (
            "keys of struct (or unknown) literals are field names; of arrays, slices, maps expressions",
            "package p\nfunc K() {\n\t_ = S{T: V, Name: x}\n\t_ = &S{T: 1}\n\t_ = map[K]int{A: 1}\n\t_ = [...]string{B: \"b\"}\n\t_ = []S{{T: 1}}\n}\n",
            expect![[r#"
                S 3:6
                V 3:11
                x 3:20
                S 4:7
                K 5:10
                int 5:12
                A 5:16
                string 6:11
                B 6:18
                S 7:8
            "#]],
        ),
        (
            "labels are never uses",
            "package p\nconst L = 1\nfunc Lab() {\nL:\n\tfor {\n\t\tbreak L\n\t\tcontinue L\n\t\tgoto L\n\t}\n}\n",
            expect![[r#""#]],
        ),
        (
            "a local type hides a package name from its own name on",
            "package p\nfunc Loc() {\n\tt(1)\n\ttype t struct{ next *t }\n\t_ = t(1)\n}\n",
            expect![[r#"
                t 3:2
            "#]],
        ),
        (
            "type parameters (also a generic receiver's) are never uses of package names",
            "package p\ntype List[T any] struct{ next *List[T] }\nfunc (l *List[T]) Push(v T) {}\nfunc Map[T any, U interface{ ~[]T }](x T) U { var u U; return u }\n",
            expect![[r#"
                any 2:13
                List 2:32
                List 3:10
                any 4:12
            "#]],
        ),
        (
            "qualified names: package selectors and qualified types, unless the package name is shadowed",
            "package p\nimport \"fmt\"\nfunc Q(b fmt.Stringer) {\n\tfmt.Println(b)\n\tfmt := b\n\tfmt.String()\n}\n",
            expect![[r#"
                fmt.Stringer 3:14
                fmt.Println 4:6
                fmt 4:2
            "#]],
        ),
        (
            "function-literal parameters, range variables and local consts",
            "package p\nfunc R() {\n\tf := func(Helper int) { _ = Helper }\n\tfor Helper := range Helpers {\n\t\t_ = Helper\n\t}\n\tconst Helper = 1\n\t_ = Helper\n\t_ = f\n}\n",
            expect![[r#"
                int 3:19
                Helpers 4:22
            "#]],
        ),
        (
            "package-level var, const and type declarations: names declare, the rest is used",
            "package p\nvar X, Y T = Z, W\nconst C = iota\ntype A = B\n",
            expect![[r#"
                T 2:10
                Z 2:14
                W 2:17
                B 4:10
            "#]],
        ),
        (
            "a declaration with a syntax error contributes nothing",
            "package p\nfunc Bad() { x := ( }\nfunc Good() { Helper() }\n",
            expect![[r#"
                Helper 3:15
            "#]],
        ),
    ];
    for (what, src, want) in cases {
        let got = render(src);
        eprintln!("case: {what}");
        want.assert_eq(&got);
    }
}

fn syms(src: &str) -> PackageSymbols {
    let gate = AstGate::new(AstPolicy::Allow);
    let facts = extract_file(gate.go().unwrap(), src.as_bytes());
    package_symbols(&[PackageFile { path: "x.go", facts: &facts, test: false }])
}

#[test]
fn uses_resolve_to_package_level_and_imported_symbols_only() {
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let own = syms("package p\ntype T int\nfunc Helper() {}\nvar V = 1\nconst C = 2\nfunc (T) M() {}\n");
    let mut others: HashMap<String, Arc<PackageSymbols>> = HashMap::new();
    others.insert("example.com/q".into(), Arc::new(syms("package q\ntype Repo struct{}\nvar ErrX = 1\n")));
    others.insert("example.com/d".into(), Arc::new(syms("package d\nfunc Dotted() {}\nfunc rand() {}\n")));
    let lookup = |p: &str| others.get(p).cloned();
    let src = r#"package p

import (
	"fmt"
	"example.com/q"
	alias "example.com/q"
	. "example.com/d"
	. "example.com/unknown"
)

func Use(r q.Repo, t T) alias.Repo {
	Helper()
	_ = V + C
	_ = q.ErrX
	_ = q.Missing
	fmt.Println(t.M, T.M, len(r), Dotted, Unknown, rand)
	var V = 3
	_ = V
	return alias.Repo{}
}
"#;
    let facts = extract_file(go, src.as_bytes());
    let uses = extract_uses(go, &go.parse(src.as_bytes()), src.as_bytes());
    // A dot import brings exported names only (`rand` is d's unexported func).
    let got: Vec<String> = resolve_uses("example.com/p", &facts, &uses, &own, &lookup)
        .iter()
        .map(|u| format!("{}::{} {}:{}+{}", u.path, u.name, u.pos.line, u.pos.column, u.len))
        .collect();
    expect![[r#"
        [
            "example.com/q::Repo 11:14+4",
            "example.com/p::T 11:22+1",
            "example.com/q::Repo 11:31+4",
            "example.com/p::Helper 12:2+6",
            "example.com/p::V 13:6+1",
            "example.com/p::C 13:10+1",
            "example.com/q::ErrX 14:8+4",
            "example.com/p::T 16:19+1",
            "example.com/d::Dotted 16:32+6",
            "example.com/q::Repo 19:15+4",
        ]
    "#]]
    .assert_debug_eq(&got);
}

/// The known weakness of syntax call extraction is gone: a local type hides a package func
/// of the same name from the type's name on.
#[test]
fn a_local_type_shadows_later_calls() {
    let gate = AstGate::new(AstPolicy::Allow);
    let facts =
        extract_file(gate.go().unwrap(), b"package p\nfunc F() {\n\tt()\n\ttype t int\n\t_ = t(1)\n}\n");
    let shadowed: Vec<(u32, bool)> = facts.calls.iter().map(|c| (c.pos.line, c.shadowed)).collect();
    assert_eq!(shadowed, [(3, false), (5, true)]);
}

/// One line per local use: `name line:col -> declared line:col`.
fn render_locals(src: &str) -> String {
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let tree = go.parse(src.as_bytes());
    let uses = extract_uses(go, &tree, src.as_bytes());
    let lines: Vec<&str> = src.lines().collect();
    let mut out = String::new();
    for l in &uses.locals {
        let line = lines[l.pos.line as usize - 1];
        let name = &line[l.pos.column as usize - 1..][..l.len as usize];
        out.push_str(&format!(
            "{name} {}:{} -> {}:{}\n",
            l.pos.line, l.pos.column, l.decl.line, l.decl.column
        ));
    }
    out
}

#[test]
fn local_uses_point_at_the_innermost_declaration() {
    let cases: &[(&str, &str, Expect)] = &[
        (
            "parameters, receivers and results; a field selector's operand",
            "package p\ntype T struct{ n int }\nfunc (t *T) F(a int) (r int) {\n\tr = a + t.n\n\treturn r\n}\n",
            expect![[r#"
                r 4:2 -> 3:23
                a 4:6 -> 3:15
                t 4:10 -> 3:7
                r 5:9 -> 3:23
            "#]],
        ),
        (
            "a block shadow ends with its block; `x := x` reads the outer x",
            "package p\nfunc F(x int) int {\n\tif x > 0 {\n\t\tx := x + 1\n\t\t_ = x\n\t}\n\treturn x\n}\n",
            expect![[r#"
                x 3:5 -> 2:8
                x 4:8 -> 2:8
                x 5:7 -> 4:3
                x 7:9 -> 2:8
            "#]],
        ),
        (
            "range variables, closures, type switches; package-level names are not local",
            "package p\nvar G = 1\nfunc F(xs []int, v any) int {\n\tfor i, x := range xs {\n\t\tf := func(y int) int { return x + y + i + G }\n\t\t_ = f\n\t}\n\tswitch w := v.(type) {\n\tcase int:\n\t\treturn w\n\t}\n\treturn 0\n}\n",
            expect![[r#"
                xs 4:20 -> 3:8
                x 5:33 -> 4:9
                y 5:37 -> 5:13
                i 5:41 -> 4:6
                f 6:7 -> 5:3
                v 8:14 -> 3:18
                w 10:10 -> 8:9
            "#]],
        ),
    ];
    for (what, src, want) in cases {
        let got = render_locals(src);
        want.assert_eq(&got);
        assert!(!got.contains("G "), "{what}: a package-level name is not local");
    }
}

#[test]
fn struct_fields_and_interface_methods_are_listed_with_the_position_of_their_name() {
    let src = "package p\n\nimport \"sync\"\n\ntype (\n\tA struct {\n\t\tx, y int\n\t\t*sync.Mutex\n\t\tB\n\t\tG[int] `tag`\n\t}\n\tB struct{ z string }\n\tG[T any] struct{ v T }\n\tU B\n\tL = struct{ w int }\n)\n\nfunc f() {\n\ttype local struct{ q int }\n}\n\ntype I interface {\n\tM(x int) error\n\tJ\n\t~int | string\n}\n\ntype J interface{ n() }\n\ntype K[T any] interface{ Get() T }\n";
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let tree = go.parse(src.as_bytes());
    let got: Vec<String> = docforge_go::struct_fields(go, &tree, src.as_bytes())
        .iter()
        .map(|f| {
            let what = if f.method { " (method)" } else { "" };
            format!("{}.{}{what} {}:{}", f.type_name, f.field, f.pos.line, f.pos.column)
        })
        .collect();
    // `U B` declares no struct of its own, an alias is no defined type, and a local type is
    // not package-level; an embedded interface or a type term declares no method.
    expect![[r#"
        A.x 7:3
        A.y 7:6
        A.Mutex 8:9
        A.B 9:3
        A.G 10:3
        B.z 12:12
        G.v 13:19
        I.M (method) 23:2
        J.n (method) 28:19
        K.Get (method) 30:26"#]]
    .assert_eq(&got.join("\n"));
}
