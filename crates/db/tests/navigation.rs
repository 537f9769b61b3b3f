//! Editor navigation through the host: identifier uses, method selectors, struct fields and
//! interface methods (defined types and types spelled in place), literal keys.

mod support;

use docforge_db::{AnalysisHost, AstPolicy};
use docforge_project::FileKind;
use support::{edit, host, small_project, write};

/// `path:line:from-to` of every recorded use of `id`.
fn spans(h: &AnalysisHost, id: &str) -> Vec<String> {
    let spans = h.analysis().go_use_spans(id).unwrap();
    spans.iter().map(|s| format!("{}:{}:{}-{}", s.path, s.line, s.start, s.end)).collect()
}

#[test]
fn identifier_uses_resolve_and_an_edit_reruns_only_its_file() {
    let dir = small_project();
    write(dir.path(), "a/a2.go", b"package a\n\nvar V = B\n\ntype T int\n\nfunc F(t T) T { return t }\n");
    write(dir.path(), "b/b2.go", b"package b\n\nimport \"example.com/m/a\"\n\nvar W a.T = a.T(a.V())\n");
    let mut h = host(dir.path(), AstPolicy::Allow);
    assert_eq!(spans(&h, "go:example.com/m/a::B"), ["a/a.go:3:23-24", "a/a2.go:3:9-10"]);
    assert_eq!(
        spans(&h, "go:example.com/m/a::T"),
        ["a/a2.go:7:10-11", "a/a2.go:7:13-14", "b/b2.go:5:9-10", "b/b2.go:5:15-16"]
    );
    assert_eq!(spans(&h, "go:example.com/m/a::A"), ["b/b.go:5:25-26"]);
    assert!(spans(&h, "go:example.com/m/a::(T).M").is_empty());
    // Definition side: the use under a position, as a mention of the symbol.
    let at = h.analysis().mention_at("b/b2.go", 5, 20).unwrap().unwrap();
    assert_eq!((at.target.as_str(), at.use_site), ("go:example.com/m/a::V", true));
    let all = |h: &AnalysisHost| {
        for rel in ["a/a.go", "a/a2.go", "b/b.go", "b/b2.go", "c/c.go"] {
            h.analysis().go_uses_in(rel).unwrap();
        }
    };
    // The first editor change of a file loaded from disk lowers its durability (its
    // dependents re-run once, see `steady_state_edit_does_not_revisit_other_directories`).
    edit(
        &mut h,
        "a/a.go",
        FileKind::Go,
        b"package a\n\nfunc A() int { return B() - 1 }\n\nfunc B() int { return 1 }\n",
    );
    all(&h);
    h.execution_log().enable(true);
    // A body edit: the package's declarations do not change.
    edit(
        &mut h,
        "a/a.go",
        FileKind::Go,
        b"package a\n\nfunc A() int { return B() + B() }\n\nfunc B() int { return 1 }\n",
    );
    all(&h);
    let log = h.execution_log().take();
    for query in ["go_uses(", "file_ident_uses("] {
        let runs: Vec<_> = log.iter().filter(|e| e.starts_with(query)).collect();
        assert_eq!(runs.len(), 1, "{query}: {log:#?}");
    }
    assert_eq!(spans(&h, "go:example.com/m/a::B"), ["a/a.go:3:23-24", "a/a.go:3:29-30", "a/a2.go:3:9-10"]);
}

#[test]
fn precise_method_selectors_are_uses_at_every_site() {
    let dir = small_project();
    let r = dir.path();
    write(
        r,
        "s/s.go",
        b"package s\n\ntype T struct{ n int }\n\nfunc (t *T) Inc() { t.n++ }\n\nfunc (T) Get() int { return 0 }\n\n\
func Use(t *T) int {\n\tt.Inc()\n\tt.Inc()\n\tf := t.Inc\n\tf()\n\t(t.Inc)()\n\treturn t.Get() + T.Get(*t)\n}\n",
    );
    let mut h = host(r, AstPolicy::Allow);
    // Syntax analysis resolves no method.
    assert!(spans(&h, "go:example.com/m/s::(*T).Inc").is_empty());
    h.set_precise(true);
    // Both calls (the graph keeps one edge at the first), the method value and the
    // parenthesised callee.
    let inc = ["s/s.go:10:4-7", "s/s.go:11:4-7", "s/s.go:12:9-12", "s/s.go:14:5-8"];
    assert_eq!(spans(&h, "go:example.com/m/s::(*T).Inc"), inc);
    // A method expression is a use of the method too.
    assert_eq!(spans(&h, "go:example.com/m/s::(T).Get"), ["s/s.go:15:11-14", "s/s.go:15:21-24"]);
    let at = h.analysis().mention_at("s/s.go", 11, 5).unwrap().unwrap();
    assert_eq!(at.target, "go:example.com/m/s::(*T).Inc");
}

#[test]
fn a_symbols_uses_are_answered_from_the_memo_until_an_edit() {
    let dir = small_project();
    let mut h = host(dir.path(), AstPolicy::Allow);
    h.execution_log().enable(true);
    assert_eq!(spans(&h, "go:example.com/m/a::A"), ["b/b.go:5:25-26"]);
    let ran = h.execution_log().take();
    assert_eq!(ran.iter().filter(|e| e.starts_with("symbol_use_spans(")).count(), 1, "{ran:#?}");
    assert_eq!(spans(&h, "go:example.com/m/a::A"), ["b/b.go:5:25-26"]);
    assert_eq!(h.execution_log().take(), Vec::<String>::new(), "asked again without an edit");
    // An edit adding a use: the answer follows it.
    let b = b"package b\n\nimport \"example.com/m/a\"\n\nfunc C() int { return a.A() }\n\nvar f = a.A\n";
    edit(&mut h, "b/b.go", FileKind::Go, b);
    assert_eq!(spans(&h, "go:example.com/m/a::A"), ["b/b.go:5:25-26", "b/b.go:7:11-12"]);
}

#[test]
fn keys_of_literals_with_elided_types_and_in_var_initializers_are_field_uses() {
    let dir = small_project();
    let r = dir.path();
    write(
        r,
        "s/s.go",
        b"package s\n\ntype T struct{ f, g int }\n\nfunc Use() int {\n\tts := []T{{f: 1}, {g: 2}}\n\
\tm := map[string]*T{\"a\": {f: 3}}\n\tk := map[T]bool{{g: 4}: true}\n\treturn ts[0].f + m[\"a\"].g + len(k)\n}\nvar table = []T{{f: 5}}\nvar fixed = [...]T{{g: 6}}\n",
    );
    let mut h = host(r, AstPolicy::Allow);
    h.set_precise(true);
    let a = h.analysis();
    let got: Vec<String> = a
        .go_fields_in("s/s.go")
        .unwrap()
        .iter()
        .map(|f| format!("{}:{} {}.{}", f.span.line, f.span.start, f.owner, f.field))
        .collect();
    let want = [
        "6:13 go:example.com/m/s::T.f",
        "6:21 go:example.com/m/s::T.g",
        "7:27 go:example.com/m/s::T.f",
        "8:19 go:example.com/m/s::T.g",
        "9:15 go:example.com/m/s::T.f",
        "9:26 go:example.com/m/s::T.g",
        // A package-level variable's initializer.
        "11:18 go:example.com/m/s::T.f",
        "12:21 go:example.com/m/s::T.g",
    ];
    assert_eq!(got, want);
}

/// A body or initializer beyond the expression bound (`body::MAX_EXPRS`, like the 89,000-line
/// `opcodeTable` of cmd/compile's `opGen.go`) keeps its literal keys, which syntax types, and
/// still never attributes a key of a local type declared past the bound to the package's.
#[test]
fn literal_keys_of_a_truncated_body_are_still_field_uses() {
    let dir = small_project();
    let r = dir.path();
    let elems = "{f: v + v, g: v}, ".repeat(30_000);
    let src = format!(
        "package s\n\ntype T struct{{ f, g int }}\n\nfunc Big() int {{\n\tts := []T{{{elems}}}\n\
\ttype T struct{{ f int }}\n\t_ = T{{f: 3}}\n\treturn len(ts)\n}}\n\nvar table = []T{{{elems}}}\n\nvar v = 1\n"
    );
    write(r, "s/s.go", src.as_bytes());
    let mut h = host(r, AstPolicy::Allow);
    h.set_precise(true);
    let a = h.analysis();
    let fields = a.go_fields_in("s/s.go").unwrap();
    let on_line = |line: u32| fields.iter().filter(|f| f.span.line == line).count();
    assert_eq!(on_line(6), 60_000, "the function's literal");
    assert_eq!(on_line(8), 0, "the local type's key");
    assert_eq!(on_line(12), 60_000, "the initializer");
    assert!(fields.iter().all(|f| f.owner == "go:example.com/m/s::T"));
    assert_eq!(fields.len(), 120_000);
}

/// 1-based line and byte column of the `nth` occurrence of `needle` in `src`, plus `skip`
/// bytes (to point inside the match).
fn at(src: &str, needle: &str, nth: usize, skip: usize) -> (u32, u32) {
    let start = src.match_indices(needle).nth(nth).unwrap_or_else(|| panic!("{needle} #{nth}")).0 + skip;
    let line = src[..start].matches('\n').count() as u32 + 1;
    let column = (start - src[..start].rfind('\n').map_or(0, |i| i + 1)) as u32 + 1;
    (line, column)
}

#[test]
fn fields_of_struct_types_spelled_in_place_navigate_to_their_declaration() {
    // Table-driven tests select fields of `[]struct{ … }` element types. The type has no
    // name: its declaration is the one in the same function with these field names (else
    // the file's only one); two identical candidates leave the answer open.
    let dir = small_project();
    let r = dir.path();
    let test = "package s\n\nimport \"testing\"\n\nfunc TestA(t *testing.T) {\n\ttests := []struct {\n\
\t\tname string\n\t\twant int\n\t}{\n\t\t{name: \"a\", want: 1},\n\t}\n\tfor _, tt := range tests {\n\
\t\t_ = tt.name\n\t\t_ = tt.want\n\t}\n}\n\nfunc TestB(t *testing.T) {\n\tcases := []struct {\n\
\t\tname string\n\t\twant int\n\t}{{name: \"b\"}}\n\tfor _, c := range cases {\n\t\t_ = c.want\n\t}\n}\n";
    let code = "package s\n\nvar cfg struct{ Port int }\n\nfunc Port() int { return cfg.Port }\n\n\
func Twice() int {\n\ta := struct{ x int }{1}\n\tb := struct{ x int }{2}\n\treturn a.x + b.x\n}\n";
    write(r, "s/s_test.go", test.as_bytes());
    write(r, "s/s.go", code.as_bytes());
    let mut h = host(r, AstPolicy::Allow);
    h.set_precise(true);
    let a = h.analysis();
    let field_at = |rel: &str, (line, col): (u32, u32)| a.go_field_at(rel, line, col).unwrap();
    let decl_of = |rel: &str, pos: (u32, u32)| {
        let f = field_at(rel, pos).unwrap_or_else(|| panic!("no field at {pos:?}"));
        let d = a.go_field_decl(&f.owner, &f.field).unwrap().expect("a declaration");
        (f.owner, (d.line, d.start))
    };
    let t = "s/s_test.go";
    let (owner_a, name_a) = decl_of(t, at(test, "tt.name", 0, 3));
    assert_eq!(name_a, at(test, "name string", 0, 0));
    assert_eq!(owner_a, format!("anon:{t}:{}:{}", at(test, "struct", 0, 0).0, at(test, "struct", 0, 0).1));
    assert_eq!(decl_of(t, at(test, "tt.want", 0, 3)).1, at(test, "want int", 0, 0));
    // A literal key, and the declaration itself, are the same field.
    assert_eq!(decl_of(t, at(test, "name: \"a\"", 0, 0)), (owner_a.clone(), name_a));
    assert_eq!(decl_of(t, name_a), (owner_a.clone(), name_a));
    // The other test's identical table is its own.
    let (owner_b, want_b) = decl_of(t, at(test, "c.want", 0, 2));
    assert_ne!(owner_b, owner_a);
    assert_eq!(want_b, at(test, "want int", 1, 0));
    // Uses of TestA's `name`: its key and its selector, in its file only.
    let uses: Vec<(u32, u32)> =
        a.go_field_uses(&owner_a, "name").unwrap().iter().map(|s| (s.line, s.start)).collect();
    assert_eq!(uses, [at(test, "name: \"a\"", 0, 0), at(test, "tt.name", 0, 3)]);
    // A package-level variable's struct type, selected in another function.
    assert_eq!(decl_of("s/s.go", at(code, "cfg.Port", 0, 4)).1, at(code, "Port int", 0, 0));
    // Two identical candidates in one function: no answer rather than a guess.
    assert_eq!(field_at("s/s.go", at(code, "a.x", 0, 2)), None);
    // Fields of struct types spelled in place are not listed as fields of defined types.
    assert!(a.go_fields_in(t).unwrap().is_empty());
}

#[test]
fn methods_of_interface_types_spelled_in_place_navigate_to_their_declaration() {
    // `c interface{ Close() error }`: the method spec the selector's interface lists itself,
    // found like a struct type spelled in place; an interface that embeds another lists
    // only its own methods, so a promoted one (`x.Name()`) is not claimed for it.
    let dir = small_project();
    let r = dir.path();
    let code = "package s\n\ntype Named interface{ Name() string }\n\n\
func Shut(c interface{ Close() error }) error { return c.Close() }\n\n\
func Both(x interface {\n\tNamed\n\tStop()\n}) string {\n\tx.Stop()\n\treturn x.Name()\n}\n\n\
var closer interface{ Close() error }\n\nfunc UseCloser() error { return closer.Close() }\n";
    write(r, "s/s.go", code.as_bytes());
    let mut h = host(r, AstPolicy::Allow);
    h.set_precise(true);
    let a = h.analysis();
    let field_at = |(line, col): (u32, u32)| a.go_field_at("s/s.go", line, col).unwrap();
    let decl_of = |pos: (u32, u32)| {
        let f = field_at(pos).unwrap_or_else(|| panic!("no method at {pos:?}"));
        assert!(f.method, "{f:?}");
        let d = a.go_field_decl(&f.owner, &f.field).unwrap().expect("a declaration");
        (f.owner, (d.line, d.start))
    };
    let (owner, close) = decl_of(at(code, "c.Close()", 0, 2));
    assert_eq!(close, at(code, "Close() error }) error", 0, 0));
    let (both, stop) = decl_of(at(code, "x.Stop()", 0, 2));
    assert_eq!(stop, at(code, "Stop()\n}", 0, 0));
    assert_eq!(decl_of(stop), (both.clone(), stop), "the declaration is the same method");
    let uses: Vec<(u32, u32)> =
        a.go_field_uses(&both, "Stop").unwrap().iter().map(|s| (s.line, s.start)).collect();
    assert_eq!(uses, [at(code, "x.Stop()", 0, 2)]);
    assert_ne!(owner, both);
    // Promoted from the embedded `Named`: not a method this literal lists.
    assert_eq!(field_at(at(code, "x.Name()", 0, 2)), None);
    // Two identical literals and neither in this function: no answer.
    assert_eq!(field_at(at(code, "closer.Close()", 0, 7)), None);
}

/// A function-local defined type stands for the struct it spells: its fields navigate to the
/// local declaration (named in hover), and a package-level type's field reached through it
/// (`n.block.Preds`) to that type's declaration.
#[test]
fn fields_of_function_local_types_navigate() {
    let dir = small_project();
    let r = dir.path();
    let code = "package s\n\ntype Block struct{ Preds []*Block }\n\nfunc Walk(b *Block) int {\n\
\ttype node struct {\n\t\tblock *Block\n\t\tnext  *node\n\t}\n\tn := node{block: b}\n\
\treturn len(n.block.Preds)\n}\n";
    write(r, "s/s.go", code.as_bytes());
    let mut h = host(r, AstPolicy::Allow);
    h.set_precise(true);
    let a = h.analysis();
    let field = |pos: (u32, u32)| a.go_field_at("s/s.go", pos.0, pos.1).unwrap().expect("a field");
    let block = field(at(code, "n.block", 0, 2));
    let decl = a.go_field_decl(&block.owner, &block.field).unwrap().unwrap();
    assert_eq!((decl.line, decl.start), at(code, "block *Block", 0, 0));
    assert_eq!(a.go_local_type_name(&block.owner).unwrap().as_deref(), Some("node"));
    // The literal key is the same field.
    assert_eq!(field(at(code, "block: b", 0, 0)).owner, block.owner);
    let preds = field(at(code, ".Preds", 0, 1));
    assert_eq!((preds.owner.as_str(), preds.field.as_str()), ("go:example.com/m/s::Block", "Preds"));
    // An unnamed struct type has no local name.
    let unnamed = "package s\n\nvar cfg struct{ Port int }\n\nfunc Port() int { return cfg.Port }\n";
    write(r, "s/t.go", unnamed.as_bytes());
    let mut h = host(r, AstPolicy::Allow);
    h.set_precise(true);
    let a = h.analysis();
    let port = a
        .go_field_at("s/t.go", at(unnamed, "cfg.Port", 0, 4).0, at(unnamed, "cfg.Port", 0, 4).1)
        .unwrap()
        .unwrap();
    assert_eq!(a.go_local_type_name(&port.owner).unwrap(), None);
}
