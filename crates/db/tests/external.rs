//! Standard-library navigation through a GOROOT the host is given: uses of `pkg.Name` for
//! packages the project does not hold, their declarations read from `<GOROOT>/src`, and what
//! never depends on it (the graph).

mod support;

use docforge_db::{AnalysisHost, AstPolicy};
use std::path::Path;
use support::{host, write};

/// A Go installation in miniature: `fmt` (doc.go, a file another GOOS builds, a test file, a
/// stray file of another package without build constraint), `strings`, and a package
/// directory that is a symlink out of `src`.
/// A fake installation (`fake_goroot`) and a project with a `go.mod` (module `example.com/m`).
fn goroot_and_project() -> (tempfile::TempDir, tempfile::TempDir) {
    let (goroot, proj) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fake_goroot(goroot.path());
    write(proj.path(), "go.mod", b"module example.com/m\n\ngo 1.22\n");
    (goroot, proj)
}

fn fake_goroot(dir: &Path) {
    write(dir, "src/runtime/runtime.go", b"package runtime\n");
    write(dir, "src/fmt/doc.go", b"// Package fmt formats.\npackage fmt\n");
    write(
        dir,
        "src/fmt/print.go",
        b"package fmt\n\n// Println prints.\n//go:noinline\nfunc Println(a ...any) (n int, err error) { return 0, nil }\n\ntype Stringer interface{ String() string }\n\nconst Flag = 1\n",
    );
    write(dir, "src/fmt/print_windows.go", b"package fmt\n\nfunc Windows() {}\n");
    write(dir, "src/fmt/print_test.go", b"package fmt\n\nfunc Tested() {}\n");
    write(dir, "src/fmt/gen.go", b"package main\n\nfunc main() {}\n");
    write(dir, "src/strings/builder.go", b"package strings\n\ntype Builder struct{ buf []byte }\n\nfunc (b *Builder) String() string { return \"\" }\n");
    write(dir, "outside/evil/evil.go", b"package evil\n\nfunc Evil() {}\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(dir.join("outside/evil"), dir.join("src/evil")).unwrap();
}

fn project(dir: &Path) {
    write(dir, "go.mod", b"module example.com/m\n\ngo 1.22\n");
    write(
        dir,
        "a/a.go",
        b"package a\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n\t\"evil\"\n)\n\nvar _ fmt.Stringer = (*strings.Builder)(nil)\n\nfunc A() {\n\tfmt.Println(fmt.Flag)\n\tfmt.Windows()\n\tfmt.Tested()\n\tevil.Evil()\n}\n",
    );
}

/// `line:col target` of every use in `a/a.go`, in source order.
fn uses(h: &AnalysisHost) -> Vec<String> {
    let mut ms = h.analysis().go_uses_in("a/a.go").unwrap();
    ms.sort_by_key(|m| (m.span.line, m.span.start));
    ms.iter().map(|m| format!("{}:{} {}", m.span.line, m.span.start, m.target)).collect()
}

#[test]
fn standard_library_names_navigate_to_goroot_declarations() {
    let (goroot, proj) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fake_goroot(goroot.path());
    project(proj.path());
    let mut h = host(proj.path(), AstPolicy::Allow);
    // Without a GOROOT nothing outside the project is read.
    assert_eq!(uses(&h), Vec::<String>::new());
    assert_eq!(h.analysis().go_external_node("go:fmt::Println").unwrap(), None);
    let digests = |h: &AnalysisHost| {
        let g = h.analysis().graph().unwrap();
        g.owners().map(|o| (o.key.to_string(), o.digest)).collect::<Vec<_>>()
    };
    let graph_before = digests(&h);

    h.set_goroot(Some(goroot.path()));
    // Declared in a selected non-test file of the package: a use. `Windows` (another GOOS),
    // `Tested` (a test file) and `evil.Evil` (a directory outside `src`) are not.
    assert_eq!(
        uses(&h),
        ["9:11 go:fmt::Stringer", "9:32 go:strings::Builder", "12:6 go:fmt::Println", "12:18 go:fmt::Flag",]
    );
    let src = goroot.path().join("src").canonicalize().unwrap();
    let node = h.analysis().go_external_node("go:fmt::Println").unwrap().unwrap();
    assert_eq!((node.file.clone(), node.line, node.column, node.len), (src.join("fmt/print.go"), 5, 6, 7));
    assert_eq!(node.node.kind, "func");
    // Its doc comment, without the directive; none for a declaration without one.
    assert_eq!(node.doc.as_deref(), Some("Println prints."));
    let flag = h.analysis().go_external_node("go:fmt::Flag").unwrap().unwrap();
    assert_eq!(flag.doc, None);
    assert_eq!(node.node.text, "func Println(a ...any) (n int, err error)\n\nPrintln prints.");
    let method = h.analysis().go_external_node("go:strings::(*Builder).String").unwrap().unwrap();
    assert_eq!((method.line, method.column, method.doc.as_deref()), (5, 19, None));
    // The package: its documentation file's package clause.
    let pkg = h.analysis().go_external_node("go:fmt").unwrap().unwrap();
    assert_eq!((pkg.file.clone(), pkg.line, pkg.column), (src.join("fmt/doc.go"), 2, 1));
    assert_eq!(pkg.node.text, "package fmt\n\nPackage fmt formats.");
    assert_eq!(pkg.doc.as_deref(), Some("Package fmt formats."));
    for missing in
        ["go:fmt::Windows", "go:fmt::Tested", "go:fmt::main", "go:evil::Evil", "go:evil", "go:nope::X"]
    {
        assert_eq!(h.analysis().go_external_node(missing).unwrap(), None, "{missing}");
    }
    // Not a standard-library path, and the project's own IDs: never read from GOROOT.
    assert_eq!(h.analysis().go_external_node("go:example.com/m/a::A").unwrap(), None);
    // References of a standard-library name: its uses in the project.
    let refs = h.analysis().go_use_spans("go:fmt::Println").unwrap();
    assert_eq!(
        refs.iter().map(|s| (s.path.as_str(), s.line, s.start)).collect::<Vec<_>>(),
        [("a/a.go", 12, 6)]
    );
    // The graph does not depend on the GOROOT.
    assert_eq!(digests(&h), graph_before);

    h.set_goroot(None);
    assert_eq!(uses(&h), Vec::<String>::new());
}

/// The project's own package shadows a standard-library path of the same name.
#[test]
fn a_project_package_wins_over_goroot() {
    let (goroot, proj) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fake_goroot(goroot.path());
    write(proj.path(), "go.mod", b"module fmt\n\ngo 1.22\n");
    write(proj.path(), "print.go", b"package fmt\n\nfunc Println() {}\n");
    write(proj.path(), "cmd/main.go", b"package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println() }\n");
    let mut h = host(proj.path(), AstPolicy::Allow);
    h.set_goroot(Some(goroot.path()));
    let ms = h.analysis().go_uses_in("cmd/main.go").unwrap();
    assert_eq!(ms.iter().map(|m| m.target.as_str()).collect::<Vec<_>>(), ["go:fmt::Println"]);
    // The project declares it: no external declaration is asked for.
    assert!(h.analysis().ide().unwrap().node("go:fmt::Println").is_some());
}

#[test]
fn no_goroot_is_read_under_the_no_ast_policy() {
    let (goroot, proj) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    fake_goroot(goroot.path());
    project(proj.path());
    let mut h = host(proj.path(), AstPolicy::Forbid);
    h.set_goroot(Some(goroot.path()));
    assert_eq!(h.analysis().go_external_node("go:fmt::Println").unwrap(), None);
    assert_eq!(h.gate_counters().parses, 0);
}

/// With the semantic layer, the types of standard-library packages are read too (for
/// navigation only): methods of their types, their struct fields (through another package
/// the first one imports) and the methods of their interfaces.
#[test]
fn methods_and_fields_of_standard_library_types_navigate() {
    let (goroot, proj) = goroot_and_project();
    let g = goroot.path();
    write(
        g,
        "src/strings/builder.go",
        b"package strings\n\ntype Builder struct{ buf []byte }\n\nfunc (b *Builder) String() string { return \"\" }\n\n// WriteString appends.\nfunc (b *Builder) WriteString(s string) (int, error) { return 0, nil }\n",
    );
    write(
        g,
        "src/net/url/url.go",
        b"package url\n\ntype URL struct {\n\tScheme string\n\tPath   string\n}\n",
    );
    write(
        g,
        "src/net/http/request.go",
        b"package http\n\nimport (\n\t\"net/url\"\n\n\t\"golang.org/x/text\"\n)\n\ntype Request struct {\n\tMethod string\n\tURL    *url.URL\n\tLang   text.Tag\n}\n",
    );
    // GOROOT's vendored copy of a package outside the standard library, which only the
    // standard library imports.
    write(g, "src/vendor/golang.org/x/text/tag.go", b"package text\n\ntype Tag struct{ Base string }\n");
    write(
        g,
        "src/io/io.go",
        b"package io\n\ntype Writer interface {\n\tWrite(p []byte) (n int, err error)\n}\n",
    );
    let p = proj.path();
    let src = "package a\n\nimport (\n\t\"io\"\n\t\"net/http\"\n\t\"strings\"\n)\n\nfunc A(r *http.Request, w io.Writer) string {\n\tvar b strings.Builder\n\tb.WriteString(r.URL.Path)\n\tw.Write(nil)\n\t_ = r.Lang.Base\n\treturn b.String()\n}\n";
    write(p, "a/a.go", src.as_bytes());
    let mut h = host(p, AstPolicy::Allow);
    h.set_precise(true);
    let digests = |h: &AnalysisHost| {
        let g = h.analysis().graph().unwrap();
        g.owners().map(|o| (o.key.to_string(), o.digest)).collect::<Vec<_>>()
    };
    let before = digests(&h);
    let field = |h: &AnalysisHost, line: u32, col: u32| {
        h.analysis()
            .go_field_at("a/a.go", line, col)
            .unwrap()
            .map(|f| format!("{} {} {}", f.owner, f.field, f.method))
    };
    // Without a GOROOT: nothing is known about these types.
    assert_eq!(field(&h, 11, 18), None);
    h.set_goroot(Some(g));
    let methods: Vec<String> = h
        .analysis()
        .go_uses_in("a/a.go")
        .unwrap()
        .into_iter()
        .filter(|m| m.target.contains('('))
        .map(|m| format!("{}:{} {}", m.span.line, m.span.start, m.target))
        .collect();
    assert_eq!(methods, ["11:4 go:strings::(*Builder).WriteString", "14:11 go:strings::(*Builder).String"]);
    let write_string = h.analysis().go_external_node("go:strings::(*Builder).WriteString").unwrap().unwrap();
    assert_eq!((write_string.line, write_string.doc.as_deref()), (8, Some("WriteString appends.")));
    // `r.URL` (a field of net/http's Request) and `.Path` (of net/url's URL, which net/http
    // imports); `w.Write` (a method of io's Writer interface).
    assert_eq!(field(&h, 11, 18).as_deref(), Some("go:net/http::Request URL false"));
    assert_eq!(field(&h, 11, 22).as_deref(), Some("go:net/url::URL Path false"));
    assert_eq!(field(&h, 12, 4).as_deref(), Some("go:io::Writer Write true"));
    assert_eq!(field(&h, 13, 13).as_deref(), Some("go:vendor/golang.org/x/text::Tag Base false"));
    let at = |owner: &str, f: &str| {
        let e = h.analysis().go_external_field(owner, f).unwrap().unwrap();
        let line = e.line_text.trim();
        let rel = e.file.strip_prefix(g.join("src").canonicalize().unwrap()).unwrap().display().to_string();
        format!("{rel}:{}:{} {line}", e.line, e.column)
    };
    assert_eq!(at("go:net/http::Request", "URL"), "net/http/request.go:11:2 URL    *url.URL");
    assert_eq!(
        at("go:vendor/golang.org/x/text::Tag", "Base"),
        "vendor/golang.org/x/text/tag.go:3:18 type Tag struct{ Base string }"
    );
    assert_eq!(at("go:net/url::URL", "Path"), "net/url/url.go:5:2 Path   string");
    assert_eq!(at("go:io::Writer", "Write"), "io/io.go:4:2 Write(p []byte) (n int, err error)");
    // References: the project's selectors of the field.
    let uses = h.analysis().go_field_uses("go:net/url::URL", "Path").unwrap();
    assert_eq!(uses.iter().map(|s| (s.line, s.start)).collect::<Vec<_>>(), [(11, 22)]);
    // The graph (call resolution included) does not depend on the GOROOT.
    assert_eq!(digests(&h), before);
}

/// Packages of the modules the project requires, read from a module cache: the version its
/// `go.mod` selects (case-escaped directories, `replace` to another module version), their
/// names, methods and fields (through a module they import); nothing for a module the
/// project does not require or replaces with a directory.
#[test]
fn required_modules_navigate_from_the_module_cache() {
    let (cache, proj) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let c = cache.path();
    write(
        c,
        "example.org/!lib@v1.2.0/lib.go",
        b"package lib\n\nimport \"example.org/dep\"\n\n// Client calls.\ntype Client struct {\n\tDep dep.Conf\n}\n\nfunc New() *Client { return nil }\n\nfunc (c *Client) Do() error { return nil }\n",
    );
    write(c, "example.org/!lib@v1.2.0/sub/sub.go", b"package sub\n\nfunc S() {}\n");
    write(c, "example.org/!lib@v1.1.0/lib.go", b"package lib\n\nfunc Old() {}\n");
    write(c, "example.org/dep@v0.3.0/dep.go", b"package dep\n\ntype Conf struct{ X int }\n");
    write(c, "example.org/new@v0.2.0/old.go", b"package old\n\nfunc O() {}\n");
    write(c, "example.org/local@v1.0.0/l.go", b"package local\n\nfunc L() {}\n");
    write(c, "example.org/unrequired@v1.0.0/u.go", b"package unrequired\n\nfunc U() {}\n");
    let p = proj.path();
    write(
        p,
        "go.mod",
        b"module example.com/m\n\ngo 1.22\n\nrequire (\n\texample.org/Lib v1.2.0\n\texample.org/dep v0.3.0 // indirect\n\texample.org/old v0.1.0\n\texample.org/local v1.0.0\n)\n\nreplace example.org/old => example.org/new v0.2.0\n\nreplace example.org/local => ./local\n",
    );
    write(
        p,
        "a/a.go",
        b"package a\n\nimport (\n\t\"example.org/Lib\"\n\t\"example.org/Lib/sub\"\n\t\"example.org/local\"\n\t\"example.org/old\"\n\t\"example.org/unrequired\"\n)\n\nfunc A() {\n\tc := lib.New()\n\t_ = c.Do()\n\t_ = c.Dep.X\n\tsub.S()\n\told.O()\n\tlocal.L()\n\tunrequired.U()\n}\n",
    );
    let mut h = host(p, AstPolicy::Allow);
    h.set_precise(true);
    h.set_module_cache(Some(c));
    assert_eq!(
        uses(&h),
        [
            "12:11 go:example.org/Lib::New",
            "13:8 go:example.org/Lib::(*Client).Do",
            "15:6 go:example.org/Lib/sub::S",
            "16:6 go:example.org/old::O",
        ]
    );
    let new = h.analysis().go_external_node("go:example.org/Lib::New").unwrap().unwrap();
    let cache_dir = c.canonicalize().unwrap();
    assert_eq!((new.file.clone(), new.line), (cache_dir.join("example.org/!lib@v1.2.0/lib.go"), 10));
    assert_eq!(new.origin, "module example.org/Lib@v1.2.0");
    let client = h.analysis().go_external_node("go:example.org/Lib::Client").unwrap().unwrap();
    assert_eq!(client.doc.as_deref(), Some("Client calls."));
    let old = h.analysis().go_external_node("go:example.org/old::O").unwrap().unwrap();
    assert_eq!(
        (old.file.clone(), old.origin.as_str()),
        (cache_dir.join("example.org/new@v0.2.0/old.go"), "module example.org/new@v0.2.0")
    );
    // A field of a type of another required module, reached through the first one.
    let f = h.analysis().go_field_at("a/a.go", 14, 12).unwrap().unwrap();
    assert_eq!((f.owner.as_str(), f.field.as_str()), ("go:example.org/dep::Conf", "X"));
    let decl = h.analysis().go_external_field(&f.owner, &f.field).unwrap().unwrap();
    assert_eq!(decl.file, cache_dir.join("example.org/dep@v0.3.0/dep.go"));
    // Not required, or replaced by a directory: not read.
    for id in ["go:example.org/unrequired::U", "go:example.org/local::L", "go:example.org/Lib::Old"] {
        assert_eq!(h.analysis().go_external_node(id).unwrap(), None, "{id}");
    }
    h.set_module_cache(None);
    assert_eq!(uses(&h), Vec::<String>::new());
}

/// `implements` across the boundary (navigation only): the project's types that implement
/// an installation's interface, and the installation's interfaces a project type implements
/// (among the packages the project imports); a method with another signature does not.
#[test]
fn implementations_cross_into_the_installation() {
    let (goroot, proj) = goroot_and_project();
    let g = goroot.path();
    write(
        g,
        "src/io/io.go",
        b"package io\n\ntype Writer interface {\n\tWrite(p []byte) (n int, err error)\n}\n\ntype Reader interface {\n\tRead(p []byte) (n int, err error)\n}\n",
    );
    let p = proj.path();
    write(
        p,
        "a/a.go",
        b"package a\n\nimport (\n\t\"fmt\"\n\t\"io\"\n)\n\nvar _ io.Writer = (*Buf)(nil)\nvar _ fmt.Stringer = Name(\"\")\n\ntype Buf struct{}\n\nfunc (b *Buf) Write(p []byte) (int, error) { return len(p), nil }\n\ntype Name string\n\nfunc (n Name) String() string { return string(n) }\n\ntype Bad struct{}\n\nfunc (Bad) Write(p []byte) int { return 0 }\n",
    );
    let mut h = host(p, AstPolicy::Allow);
    h.set_precise(true);
    let imps = |h: &AnalysisHost, id: &str| h.analysis().go_external_implements(id).unwrap();
    // Nothing outside the project is read without an installation.
    assert!(imps(&h, "go:io::Writer").is_empty());
    h.set_goroot(Some(g));
    assert_eq!(imps(&h, "go:io::Writer"), ["go:example.com/m/a::Buf"]);
    assert!(imps(&h, "go:io::Reader").is_empty());
    assert_eq!(imps(&h, "go:fmt::Stringer"), ["go:example.com/m/a::Name"]);
    assert_eq!(imps(&h, "go:example.com/m/a::Buf"), ["go:io::Writer"]);
    assert_eq!(imps(&h, "go:example.com/m/a::Name"), ["go:fmt::Stringer"]);
    assert!(imps(&h, "go:example.com/m/a::Bad").is_empty());
    // Without the semantic layer there are no types to compare.
    h.set_precise(false);
    assert!(imps(&h, "go:io::Writer").is_empty());
}

/// Predeclared names (`len`, `error`, `string`) are uses of the installation's `builtin`
/// package's declarations, unless a local or package-level declaration takes the name.
#[test]
fn predeclared_names_navigate_to_package_builtin() {
    let (goroot, proj) = goroot_and_project();
    let g = goroot.path();
    write(
        g,
        "src/builtin/builtin.go",
        b"// Package builtin documents.\npackage builtin\n\ntype Type int\n\ntype string string\n\ntype error interface {\n\tError() string\n}\n\n// The len built-in function returns the length of v.\nfunc len(v Type) int\n\nfunc cap(v Type) int\n",
    );
    let p = proj.path();
    write(
        p,
        "a/a.go",
        b"package a\n\nfunc cap() {}\n\nfunc A(s string) error {\n\t_ = len(s)\n\tcap()\n\t{\n\t\tlen := 1\n\t\t_ = len\n\t}\n\treturn nil\n}\n",
    );
    let mut h = host(p, AstPolicy::Allow);
    assert_eq!(uses(&h), ["7:2 go:example.com/m/a::cap"]);
    h.set_goroot(Some(g));
    assert_eq!(
        uses(&h),
        [
            "5:10 go:builtin::string",
            "5:18 go:builtin::error",
            "6:6 go:builtin::len",
            "7:2 go:example.com/m/a::cap"
        ]
    );
    let len = h.analysis().go_external_node("go:builtin::len").unwrap().unwrap();
    assert_eq!(
        (len.line, len.doc.as_deref()),
        (13, Some("The len built-in function returns the length of v."))
    );
}

/// What precise analysis adds to type nodes: a defined type declared from a type the
/// analysis does not hold (`type Element fmt.Stringer`) may be an interface, so its node says
/// its underlying type is unresolved, with the reason (no consumer may read "nothing
/// implements it" from the absence of edges); a defined type of an interface says it is one;
/// every interface says whether `implements` is derived for it (`methods`) or not (`empty`,
/// `constraint`). Other types are not marked; a GOROOT given for navigation changes nothing.
#[test]
fn a_type_declared_from_an_outside_type_is_marked_unresolved() {
    let (goroot, proj) = goroot_and_project();
    let p = proj.path();
    write(
        p,
        "a/a.go",
        b"package a\n\nimport \"fmt\"\n\ntype Element fmt.Stringer\n\ntype Celsius float64\n\n\
          type Reader interface{ Read() }\n\ntype Local Reader\n\ntype S struct{}\n\n\
          func (S) String() string { return \"\" }\n\ntype Any interface{}\n\n\
          type Number interface{ ~int | ~float64 }\n\ntype Outer interface{ fmt.Stringer }\n",
    );
    let mut h = host(p, AstPolicy::Allow);
    h.set_precise(true);
    let marked = |h: &AnalysisHost| {
        let g = h.analysis().graph().unwrap();
        let mut out: Vec<String> = g
            .nodes()
            .filter(|n| n.attrs.get("underlying").is_some() || n.attrs.get("interface_set").is_some())
            .map(|n| {
                let attr = |k: &str| n.attrs.get(k).cloned().unwrap_or_default();
                let (u, set, why) = (attr("underlying"), attr("interface_set"), attr("underlying_reason"));
                format!("{} {} [{u}] [{set}] {why}", n.id.trim_start_matches("go:example.com/m/a::"), n.kind)
            })
            .collect();
        out.sort();
        out
    };
    // (An interface embedding an outside one has an incomplete method set: `methods`,
    // with `implements_unknown` edges where it matters.)
    let want = [
        "Any interface [] [empty] ",
        "Element type [unresolved] [] external package: fmt.Stringer",
        "Local type [interface] [methods] ",
        "Number interface [] [constraint] ",
        "Outer interface [] [methods] ",
        "Reader interface [] [methods] ",
    ];
    assert_eq!(marked(&h), want);
    h.set_goroot(Some(goroot.path()));
    assert_eq!(marked(&h), want);
}
