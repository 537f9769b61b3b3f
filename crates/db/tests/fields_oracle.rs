//! Struct field uses against go/types: every field selector and composite-literal key the
//! engine records (precise analysis) on the fixtures is one `types.Info.Uses` records for the
//! same identifier and the field of the same package-level named type
//! (`tests/oracle/testdata/{shop,fixture}.fields`, regenerate with
//! `cd tests/oracle && CGO_ENABLED=0 go run . -fields -root ../../fixtures/shop >
//! testdata/shop.fields`, `-root testdata/fixture > testdata/fixture.fields`,
//! `-root testdata/members > testdata/members.fields` and `-fields -tests -root
//! ../../fixtures/shop > testdata/shop.tests.fields`). Interface methods count as members
//! too: a selector of one names the interface whose declaration spells the method. Test files
//! are compared only with an oracle made with `-tests`.

mod oracle;

use docforge_db::{AnalysisHost, AstPolicy};
use docforge_project::Project;
use std::collections::BTreeSet;
use std::path::Path;

/// `path:line:column <import path>::<type>.<field>` of every recorded field use (in test
/// files too with `tests`).
fn engine_fields(root: &Path, precise: bool, tests: bool, goroot: Option<&Path>) -> BTreeSet<String> {
    let mut h = AnalysisHost::new(Project::load(root).unwrap(), AstPolicy::Allow);
    h.sync_from_disk();
    h.set_precise(precise);
    h.set_goroot(goroot);
    // `DOCFORGE_FIELDS_GOMODCACHE=DIR` with an oracle from `-fields -std -deps`: members of
    // module dependencies' types too.
    let cache = std::env::var_os("DOCFORGE_FIELDS_GOMODCACHE").map(std::path::PathBuf::from);
    h.set_module_cache(cache.as_deref());
    let a = h.analysis();
    let files = if tests { oracle::go_files(&a) } else { oracle::non_test_go_files(&a) };
    let mut out = BTreeSet::new();
    for rel in files {
        for f in a.go_fields_in(&rel).unwrap() {
            let owner = f.owner.strip_prefix("go:").unwrap();
            out.insert(format!("{rel}:{}:{} {owner}.{}", f.span.line, f.span.start, f.field));
        }
    }
    out
}

fn compare(root: &Path, oracle: &Path, min_recall: f64, tests: bool, goroot: Option<&Path>) {
    oracle::assert_within("field uses", &engine_fields(root, true, tests, goroot), oracle, min_recall);
}

fn check(root: &str, oracle: &str, min_recall: f64) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let tests = oracle.ends_with(".tests.fields");
    compare(&repo.join(root), &repo.join("tests/oracle/testdata").join(oracle), min_recall, tests, None);
}

#[test]
fn shop_field_uses_agree_with_go_types() {
    check("fixtures/shop", "shop.fields", 1.0);
    // Without precise analysis no field use is recorded (types decide what a selector is).
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shop");
    assert!(engine_fields(&root, false, true, None).is_empty());
}

/// Test files are type-checked as `go test` builds their package: in-package test files with
/// the package's other files, an external test package importing that build
/// (`go run . -fields -tests`).
#[test]
fn shop_field_uses_in_test_files_agree_with_go_types() {
    check("fixtures/shop", "shop.tests.fields", 1.0);
}

/// Interface method selectors: through embedding (the first embedded interface that has the
/// method spells it), a defined type over an interface, an interface embedded in a struct, a
/// generic interface, an unexported method, a method value. `x.Close` on an interface that
/// embeds `io.Closer` first is io's (not recorded), and since `io` is not loaded, `X`'s
/// method set is unknown: its `Read` is the one go/types use the engine misses. Also keys of
/// literals whose type is elided and follows from a named slice, array or map type
/// (`Ps{{a: 1}}` for `type Ps []P`; `literals.go`): all 9. And methods of values whose type
/// is a type parameter, which are its constraint's (through embedding, a generic constraint,
/// a constraint literal embedding a named interface; `typeparams.go`): all 7; a method the
/// constraint literal lists itself is declared by no package-level type.
#[test]
fn interface_method_and_elided_literal_uses_agree_with_go_types() {
    check("tests/oracle/testdata/members", "members.fields", 26.0 / 27.0);
}

#[test]
fn oracle_fixture_field_uses_agree_with_go_types() {
    check("tests/oracle/testdata/fixture", "fixture.fields", 0.0);
}

/// Any tree: `DOCFORGE_FIELDS_ROOT=DIR DOCFORGE_FIELDS_ORACLE=FILE cargo test -p docforge-db
/// --test fields_oracle -- --ignored` (FILE from `go run . -fields -root DIR` in
/// tests/oracle): no wrong use allowed; the recall is reported (and asserted with
/// `DOCFORGE_FIELDS_MIN_RECALL`).
#[test]
#[ignore]
fn any_tree_field_uses_agree_with_go_types() {
    let root = std::env::var("DOCFORGE_FIELDS_ROOT").expect("DOCFORGE_FIELDS_ROOT");
    let oracle = std::env::var("DOCFORGE_FIELDS_ORACLE").expect("DOCFORGE_FIELDS_ORACLE");
    let min_recall = std::env::var("DOCFORGE_FIELDS_MIN_RECALL").map_or(0.0, |r| r.parse().unwrap());
    // `DOCFORGE_FIELDS_TESTS=1` with an oracle from `-fields -tests`: test files too.
    let tests = std::env::var_os("DOCFORGE_FIELDS_TESTS").is_some();
    // `DOCFORGE_FIELDS_GOROOT=DIR` with an oracle from `-fields -std`: members of
    // standard-library types too.
    let goroot = std::env::var_os("DOCFORGE_FIELDS_GOROOT").map(std::path::PathBuf::from);
    compare(Path::new(&root), Path::new(&oracle), min_recall, tests, goroot.as_deref());
}
