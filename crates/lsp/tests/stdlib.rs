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
    write("src/fmt/doc.go", "// Package fmt formats.\npackage fmt\n");
    // A non-ASCII comment before the name: columns are converted like any file's.
    write(
        "src/fmt/print.go",
        "package fmt\n\n// Printf formats\n// and prints.\n/* é */ func Printf(format string, a ...any) (n int, err error) { return 0, nil }\n\nfunc Println(a ...any) (n int, err error) { return 0, nil }\n",
    );
}

fn with_goroot(goroot: &std::path::Path) -> docforge_lsp::Options {
    docforge_lsp::Options { goroot: docforge_lsp::GoRoot::At(goroot.to_path_buf()), ..opts() }
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
    let hover = c.ok("textDocument/hover", at.clone());
    let card = hover["contents"]["value"].as_str().unwrap();
    assert!(card.starts_with("**Printf** `go:fmt::Printf`\n\nkind: func"), "{card}");
    assert!(card.contains("```go\nfunc Printf(format string, a ...any) (n int, err error)\n```"), "{card}");
    assert!(card.contains("```\n\nPrintf formats\nand prints.\n\nstandard library: `"), "{card}");
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
