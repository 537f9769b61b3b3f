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

/// `line:col target` of every use in `a/a.go`.
fn uses(h: &AnalysisHost) -> Vec<String> {
    let ms = h.analysis().go_uses_in("a/a.go").unwrap();
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
    assert_eq!(node.node.text, "func Println(a ...any) (n int, err error)");
    let method = h.analysis().go_external_node("go:strings::(*Builder).String").unwrap().unwrap();
    assert_eq!((method.line, method.column, method.doc.as_deref()), (5, 19, None));
    // The package: its documentation file's package clause.
    let pkg = h.analysis().go_external_node("go:fmt").unwrap().unwrap();
    assert_eq!((pkg.file.clone(), pkg.line, pkg.column), (src.join("fmt/doc.go"), 2, 1));
    assert_eq!(pkg.node.text, "package fmt");
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
    let (goroot, proj) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let g = goroot.path();
    fake_goroot(g);
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
    write(p, "go.mod", b"module example.com/m\n\ngo 1.22\n");
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
        let (e, line) = h.analysis().go_external_field(owner, f).unwrap().unwrap();
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
