//! Shared by the go/types oracle tests: the files compared and the comparison itself.

use docforge_db::Analysis;
use std::collections::BTreeSet;
use std::path::Path;

/// The project's non-test Go files (the oracle type-checks packages without their tests).
pub fn non_test_go_files(a: &Analysis) -> BTreeSet<String> {
    let ide = a.ide().unwrap();
    ide.nodes()
        .filter_map(|n| n.id.strip_prefix("file:"))
        .filter(|p| p.ends_with(".go") && !p.ends_with("_test.go"))
        .map(str::to_string)
        .collect()
}

/// Every Go file of the project, test files included.
#[allow(dead_code)]
pub fn go_files(a: &Analysis) -> BTreeSet<String> {
    let ide = a.ide().unwrap();
    ide.nodes()
        .filter_map(|n| n.id.strip_prefix("file:"))
        .filter(|p| p.ends_with(".go"))
        .map(str::to_string)
        .collect()
}

/// Every line of `got` must be a line of the oracle file (no wrong answer), and at least
/// `min_recall` of the oracle's lines must be in `got`; the recall is printed.
pub fn assert_within(what: &str, got: &BTreeSet<String>, oracle: &Path, min_recall: f64) {
    let want: BTreeSet<String> =
        std::fs::read_to_string(oracle).unwrap().lines().map(str::to_string).collect();
    let wrong: Vec<&String> = got.difference(&want).collect();
    assert!(wrong.is_empty(), "{what} go/types does not record: {wrong:#?}");
    let missed: Vec<&String> = want.difference(got).collect();
    let recall = got.len() as f64 / want.len() as f64;
    eprintln!("{} {what} recorded, {} by go/types (recall {recall:.3})", got.len(), want.len());
    assert!(recall >= min_recall, "recall {recall:.2}; missed: {missed:#?}");
}
