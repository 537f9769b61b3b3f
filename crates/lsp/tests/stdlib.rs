//! Standard-library names through the server: `fmt.Printf` in the shop fixture goes to the
//! declaration in the Go installation the server was given (a miniature one here), hover
//! shows its signature, references list the project's uses; without an installation the
//! answers are empty, as before.

mod support;

use serde_json::{json, Value};
use support::{opts, Client};

fn fake_goroot(dir: &std::path::Path) {
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("src/runtime/runtime.go", "package runtime\n");
    write("src/sync/mutex.go", "package sync\n\ntype Mutex struct{ state int32 }\n\n// Lock locks m.\nfunc (m *Mutex) Lock() {}\n\nfunc (m *Mutex) Unlock() {}\n");
    write("src/net/url/url.go", "package url\n\ntype URL struct {\n\tScheme string\n\tPath   string\n}\n");
    write("src/fmt/doc.go", "// Package fmt formats.\npackage fmt\n");
    // A non-ASCII comment before the name: columns are converted like any file's.
    write(
        "src/fmt/print.go",
        "package fmt\n\n// Printf formats\n// and prints.\n/* é */ func Printf(format string, a ...any) (n int, err error) { return 0, nil }\n\nfunc Println(a ...any) (n int, err error) { return 0, nil }\n\ntype Stringer interface {\n\tString() string\n}\n",
    );
}

fn with_goroot(goroot: &std::path::Path) -> docforge_lsp::Options {
    docforge_lsp::Options { goroot: docforge_lsp::GoDir::At(goroot.to_path_buf()), ..opts() }
}

/// `uri-or-path:line:from-to` of a location, the GOROOT written as `$GOROOT`.
fn loc(c: &Client, goroot: &std::path::Path, v: &Value) -> String {
    let src = format!("file://{}", goroot.canonicalize().unwrap().display());
    c.loc(v).replace(&src, "$GOROOT")
}

#[test]
fn standard_library_names_go_to_the_installation() {
    let goroot = tempfile::tempdir().unwrap();
    fake_goroot(goroot.path());
    let mut c = Client::start(with_goroot(goroot.path()), json!({}));
    let at = c.pos("cmd/shop/main.go", "fmt.Printf(", 5);
    let def = c.ok("textDocument/definition", at.clone());
    // UTF-16 columns: `/* é */ ` is 8 characters (9 bytes).
    assert_eq!(loc(&c, goroot.path(), &def), "$GOROOT/src/fmt/print.go:5:13-19");
    let card = c.hover_card(at.clone());
    assert!(card.starts_with("**Printf** `go:fmt::Printf`\n\nkind: func"), "{card}");
    assert!(card.contains("```go\nfunc Printf(format string, a ...any) (n int, err error)\n```"), "{card}");
    // No documentation, as go/doc (and gopls) read it: the comment group above ends with
    // `/* é */` on the func's own line, so it is not the func's doc comment.
    assert!(card.contains("```\n\nstandard library: `") && !card.contains("Printf formats"), "{card}");
    assert!(card.ends_with("fmt/print.go`"), "{card}");
    let refs = c.ok("textDocument/references", json!({
        "textDocument": at["textDocument"], "position": at["position"], "context": {"includeDeclaration": true}
    }));
    let refs: Vec<String> = refs.as_array().unwrap().iter().map(|l| loc(&c, goroot.path(), l)).collect();
    assert_eq!(refs, ["$GOROOT/src/fmt/print.go:5:13-19", "cmd/shop/main.go:15:5-11"]);
    // `fmt.Println` is declared there too; `errors.New` is not (no such package there).
    let def = c.ok("textDocument/definition", c.pos("cmd/shop/main.go", "fmt.Println(", 5));
    assert_eq!(loc(&c, goroot.path(), &def), "$GOROOT/src/fmt/print.go:7:5-12");
    let def = c.ok("textDocument/definition", c.pos("service/service.go", "errors.New", 8));
    assert_eq!(def, Value::Null);
    c.shutdown();
}

#[test]
fn without_an_installation_standard_library_names_have_no_answers() {
    let mut c = Client::start(opts(), json!({}));
    let at = c.pos("cmd/shop/main.go", "fmt.Printf(", 5);
    assert_eq!(c.ok("textDocument/definition", at.clone()), Value::Null);
    assert_eq!(c.ok("textDocument/hover", at), Value::Null);
    c.shutdown();
}

/// With the semantic layer the types of the installation's packages are known too: a method
/// of a standard-library type (`r.mu.Lock()` on a `sync.Mutex` field) and a field of one
/// (`u.Path` of a `*url.URL`) go there, with hover and references.
#[test]
fn methods_and_fields_of_standard_library_types_go_to_the_installation() {
    let goroot = tempfile::tempdir().unwrap();
    fake_goroot(goroot.path());
    let mut c = Client::start(with_goroot(goroot.path()), json!({}));
    let memory = "storage/memory/memory.go";
    let at = c.pos(memory, "r.mu.Lock()", 5);
    let def = c.ok("textDocument/definition", at.clone());
    assert_eq!(loc(&c, goroot.path(), &def), "$GOROOT/src/sync/mutex.go:6:16-20");
    let card = c.hover_card(at.clone());
    assert!(
        card.starts_with(
            "**Lock** `go:sync::(*Mutex).Lock`\n\nkind: method · package: sync · receiver: Mutex"
        ),
        "{card}"
    );
    assert!(card.contains("Lock locks m."), "{card}");
    let refs = c.ok("textDocument/references", json!({
        "textDocument": at["textDocument"], "position": at["position"], "context": {"includeDeclaration": false}
    }));
    let refs: Vec<String> = refs.as_array().unwrap().iter().map(|l| loc(&c, goroot.path(), l)).collect();
    assert_eq!(
        refs,
        [
            "storage/memory/memory.go:26:6-10",
            "storage/memory/memory.go:37:6-10",
            "storage/memory/memory.go:45:6-10"
        ]
    );

    let rel = "storage/memory/link.go";
    std::fs::write(
        c.root.join(rel),
        "package memory\n\nimport \"net/url\"\n\nfunc path(u *url.URL) string { return u.Path }\n",
    )
    .unwrap();
    c.open(rel);
    let at = c.pos(rel, "u.Path", 2);
    let def = c.ok("textDocument/definition", at.clone());
    assert_eq!(loc(&c, goroot.path(), &def), "$GOROOT/src/net/url/url.go:5:1-5");
    let card = c.hover_card(at);
    assert!(card.starts_with("**field `Path` of `net/url::URL`**"), "{card}");
    assert!(card.contains("```go\nPath   string\n```\n\nstandard library: `"), "{card}");
    c.shutdown();
}

/// Implementation across the boundary: the project's types that implement an installation's
/// interface, and the installation's interfaces a project type implements.
#[test]
fn implementation_crosses_into_the_installation() {
    let goroot = tempfile::tempdir().unwrap();
    fake_goroot(goroot.path());
    let mut c = Client::start(with_goroot(goroot.path()), json!({}));
    let rel = "storage/memory/label.go";
    let text = "package memory\n\nimport \"fmt\"\n\nvar _ fmt.Stringer = label(\"\")\n\ntype label string\n\nfunc (l label) String() string { return string(l) }\n";
    std::fs::write(c.root.join(rel), text).unwrap();
    c.open(rel);
    let imps = c.ok("textDocument/implementation", c.pos(rel, "fmt.Stringer", 5));
    let got: Vec<String> = imps.as_array().unwrap().iter().map(|l| loc(&c, goroot.path(), l)).collect();
    assert_eq!(got, ["storage/memory/label.go:7:5-10"]);
    let imps = c.ok("textDocument/implementation", c.pos(rel, "type label", 5));
    let got: Vec<String> = imps.as_array().unwrap().iter().map(|l| loc(&c, goroot.path(), l)).collect();
    assert_eq!(got, ["$GOROOT/src/fmt/print.go:9:5-13"]);
    c.shutdown();
}
