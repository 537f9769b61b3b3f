//! Identifier uses against go/types: every use the engine records on the fixtures is one
//! `types.Info.Uses` records for the same identifier and package-level object
//! (`tests/oracle/testdata/{shop,fixture}.uses`, regenerate with
//! `cd tests/oracle && CGO_ENABLED=0 go run . -uses -root ../../fixtures/shop > testdata/shop.uses`
//! and `-root testdata/fixture > testdata/fixture.uses`; `-uses -tests -root
//! ../../fixtures/shop > testdata/shop.tests.uses` for test files too).

mod oracle;

use docforge_db::{AnalysisHost, AstPolicy};
use docforge_project::Project;
use std::collections::BTreeSet;
use std::path::Path;

/// `path:line:column target` of every use recorded in the project's non-test Go files (with
/// `precise`, also the statically resolved method calls).
fn engine_uses(root: &Path, precise: bool, tests: bool, goroot: Option<&Path>) -> BTreeSet<String> {
    let mut h = AnalysisHost::new(Project::load(root).unwrap(), AstPolicy::Allow);
    h.sync_from_disk();
    h.set_precise(precise);
    h.set_goroot(goroot);
    // `DOCFORGE_USES_GOMODCACHE=DIR` with an oracle from `-uses -std -deps`: module
    // dependencies too.
    let cache = std::env::var_os("DOCFORGE_USES_GOMODCACHE").map(std::path::PathBuf::from);
    h.set_module_cache(cache.as_deref());
    let a = h.analysis();
    let mut out = BTreeSet::new();
    let files = if tests { oracle::go_files(&a) } else { oracle::non_test_go_files(&a) };
    for rel in files {
        for m in a.go_uses_in(&rel).unwrap() {
            let target = m.target.strip_prefix("go:").unwrap();
            out.insert(format!("{rel}:{}:{} {target}", m.span.line, m.span.start));
        }
    }
    out
}

fn check(root: &str, oracle: &str, precise: bool, min_recall: f64) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tests = oracle.ends_with(".tests.uses");
    // `*.std.uses` (`-uses -std`) lists the uses of standard-library names too: the engine
    // reads them from the machine's Go installation.
    let goroot = oracle.ends_with(".std.uses").then(machine_goroot);
    let (root, oracle) = (repo.join(root), repo.join("tests/oracle/testdata").join(oracle));
    compare(&root, &oracle, precise, min_recall, tests, goroot.as_deref());
}

fn machine_goroot() -> std::path::PathBuf {
    let (goroot, path) = (std::env::var_os("GOROOT"), std::env::var_os("PATH"));
    docforge_db::find_goroot(goroot.as_deref(), path.as_deref())
        .expect("this test reads the standard library of a Go installation: set GOROOT or put go on PATH")
}

fn compare(root: &Path, oracle: &Path, precise: bool, min_recall: f64, tests: bool, goroot: Option<&Path>) {
    oracle::assert_within("uses", &engine_uses(root, precise, tests, goroot), oracle, min_recall);
}

#[test]
fn shop_uses_agree_with_go_types() {
    // Syntax: every package-level use (66 of 75; the 9 others are method calls).
    check("fixtures/shop", "shop.uses", false, 66.0 / 75.0);
    // Precise: the method calls too.
    check("fixtures/shop", "shop.uses", true, 1.0);
}

/// Test files, type-checked as `go test` builds their package (`go run . -uses -tests`):
/// identifier uses by syntax, method selectors with the semantic layer.
#[test]
fn shop_uses_in_test_files_agree_with_go_types() {
    check("fixtures/shop", "shop.tests.uses", true, 1.0);
}

/// With the machine's GOROOT: the uses of standard-library names (`fmt.Printf`,
/// `errors.New`, `sync.Mutex`, …), of predeclared names (`len`, `error`) and, with the
/// semantic layer, of their types' methods (`mu.Lock()`) too (`go run . -uses -std`).
#[test]
fn shop_uses_of_standard_library_names_agree_with_go_types() {
    // Syntax: every use but the 15 method calls (9 of the shop's methods, 6 of sync.Mutex's);
    // predeclared names (`string`, `len`, `error`: 47) are uses of package builtin's.
    check("fixtures/shop", "shop.std.uses", false, 124.0 / 139.0);
    check("fixtures/shop", "shop.std.uses", true, 1.0);
}

#[test]
fn oracle_fixture_uses_agree_with_go_types() {
    check("tests/oracle/testdata/fixture", "fixture.uses", false, 1.0);
    check("tests/oracle/testdata/fixture", "fixture.uses", true, 1.0);
}

/// Any tree: `DOCFORGE_USES_ROOT=DIR DOCFORGE_USES_ORACLE=FILE [DOCFORGE_USES_PRECISE=1]
/// cargo test -p docforge-db
/// --test uses_oracle -- --ignored` (FILE from `go run . -uses -root DIR` in tests/oracle),
/// e.g. a copy of `$(go env GOROOT)/src/go` with a `module std` go.mod: no wrong use allowed,
/// the recall is reported (and asserted with `DOCFORGE_USES_MIN_RECALL`, which lists the
/// missed uses when it fails).
#[test]
#[ignore]
fn any_tree_uses_agree_with_go_types() {
    let root = std::env::var("DOCFORGE_USES_ROOT").expect("DOCFORGE_USES_ROOT");
    let oracle = std::env::var("DOCFORGE_USES_ORACLE").expect("DOCFORGE_USES_ORACLE");
    let min_recall = std::env::var("DOCFORGE_USES_MIN_RECALL").map_or(0.0, |r| r.parse().unwrap());
    let precise = std::env::var("DOCFORGE_USES_PRECISE").is_ok_and(|v| v == "1");
    // `DOCFORGE_USES_TESTS=1` with an oracle from `-uses -tests`: test files too.
    let tests = std::env::var_os("DOCFORGE_USES_TESTS").is_some();
    // `DOCFORGE_USES_GOROOT=DIR` with an oracle from `-uses -std`: standard-library names too.
    let goroot = std::env::var_os("DOCFORGE_USES_GOROOT").map(std::path::PathBuf::from);
    compare(Path::new(&root), Path::new(&oracle), precise, min_recall, tests, goroot.as_deref());
}
