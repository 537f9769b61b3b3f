//! A file's outline (function bodies and comments left out) must give exactly the
//! declarations and signatures of the file itself, wherever they are: other packages read
//! them from the outline of a file being edited and from the file itself otherwise.
//!
//! Checked on every `.go` file of the repository's fixtures, and of a few packages of
//! `$(go env GOROOT)/src` when `go` is installed (all of it with
//! `cargo test --release -p docforge-go --test outline -- --ignored`).

mod goroot;

use docforge_go::{extract_declarations, extract_sigs, outline_text, Decl, FileFacts, ItemSigs};
use docforge_syntax::{AstGate, AstPolicy};
use goroot::{go_files, goroot};
use std::path::{Path, PathBuf};

/// What other packages read, without positions and doc comments (an outline leaves comments
/// out; a file's own nodes take their docs from the file itself).
#[derive(Debug, PartialEq)]
struct Seen {
    package: Option<String>,
    imports: Vec<(String, Option<String>)>,
    decls: Vec<Decl>,
    sigs: ItemSigs,
}

fn seen(facts: FileFacts, sigs: ItemSigs) -> Seen {
    let decls = facts.decls.into_iter().map(|d| Decl { pos: Default::default(), doc: None, ..d }).collect();
    Seen {
        package: facts.package,
        imports: facts.imports.into_iter().map(|i| (i.path, i.name)).collect(),
        decls,
        sigs,
    }
}

/// `Err` with the difference when the outline of `src` reads differently; `Ok(false)` when
/// the file has no outline (an error outside its bodies).
fn check(src: &[u8]) -> Result<bool, String> {
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let tree = go.parse(src);
    let Some(outline) = outline_text(&tree, src) else { return Ok(false) };
    let whole = seen(extract_declarations(go, &tree, src), extract_sigs(go, &tree, src).items);
    let o_tree = go.parse(&outline);
    let part = seen(extract_declarations(go, &o_tree, &outline), extract_sigs(go, &o_tree, &outline).items);
    if whole == part {
        Ok(true)
    } else {
        Err(format!("whole: {whole:#?}\noutline: {part:#?}\n{}", String::from_utf8_lossy(&outline)))
    }
}

/// Check every file; returns (checked, without an outline).
fn check_all(paths: &[PathBuf]) -> (usize, usize) {
    let (mut checked, mut none) = (0, 0);
    for path in paths {
        let src = std::fs::read(path).unwrap();
        match check(&src) {
            Ok(true) => checked += 1,
            Ok(false) => none += 1,
            Err(diff) => panic!("{}: {diff}", path.display()),
        }
    }
    (checked, none)
}

#[test]
fn outlines_read_like_their_files_in_the_fixtures() {
    let mut paths = Vec::new();
    go_files(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures"), &mut paths);
    let (checked, _) = check_all(&paths);
    assert!(checked >= 15, "{checked} fixture files checked");
}

#[test]
fn outlines_read_like_their_files_in_some_standard_packages() {
    let Some(root) = goroot() else {
        eprintln!("`go` is not installed; skipped");
        return;
    };
    let mut paths = Vec::new();
    for pkg in ["fmt", "net/http", "go/types", "reflect", "encoding/json", "sync"] {
        go_files(&root.join("src").join(pkg), &mut paths);
    }
    let (checked, none) = check_all(&paths);
    assert!(checked > 300 && none < checked / 50, "{checked} checked, {none} without an outline");
}

#[test]
#[ignore = "walks GOROOT/src; run with --release -- --ignored"]
fn outlines_read_like_their_files_in_all_of_goroot() {
    let Some(root) = goroot() else { return };
    let mut paths = Vec::new();
    go_files(&root.join("src"), &mut paths);
    let (checked, none) = check_all(&paths);
    eprintln!("{checked} files checked, {none} without an outline");
}
