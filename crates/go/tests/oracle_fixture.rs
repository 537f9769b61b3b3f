//! The `ids` walker on the oracle fixture equals the list go/types produced for it
//! (`tests/oracle/testdata/fixture.ids`, regenerate with
//! `cd tests/oracle && CGO_ENABLED=0 go run . -root testdata/fixture > testdata/fixture.ids`).
//! The fixture covers file-name suffixes, //go:build and +build, cgo, ignored and
//! `documentation` files, skipped directories, nested modules, generic receivers, methods
//! on aliases, grouped and blank declarations and `init`.

#[path = "../examples/ids/walk.rs"]
mod walk;

use docforge_syntax::{AstGate, AstPolicy};
use std::path::Path;

#[test]
fn fixture_matches_go_types() {
    let oracle = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/oracle");
    let want = std::fs::read_to_string(oracle.join("testdata/fixture.ids")).unwrap();
    let gate = AstGate::new(AstPolicy::Allow);
    let got = walk::symbol_ids(&gate, &oracle.join("testdata/fixture"));
    let got: Vec<&str> = got.iter().map(String::as_str).collect();
    let want: Vec<&str> = want.lines().collect();
    assert_eq!(got, want);
    assert!(
        got.contains(&"example.com/fx::(Token).String"),
        "method on an alias belongs to the aliased type"
    );
    for absent in
        ["::WinOnly", "::Cgo", "::Skipped", "::NotLinux", "::Future", "::Gen", "::Underscore", "::TestOnly"]
    {
        assert!(!got.iter().any(|id| id.ends_with(absent)), "{absent} must be excluded");
    }
}
