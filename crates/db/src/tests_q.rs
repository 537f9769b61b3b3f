//! Packages as their tests see them, for editor navigation in `_test.go` files (precise
//! analysis only). The semantic layer proper reads the non-test build (what `go/types`
//! reports for `go build`, and what call resolution, `implements` and validation use); here,
//! on demand, a package's in-package test files are type-checked together with its non-test
//! files, and an external test package (`package x_test`) sees `x` with `x`'s in-package
//! test files, as `go test` builds them.

use crate::go_q::{file_sigs, is_test_file, GoPackage};
use crate::inputs::{Content, SourceFile};
use crate::types_q::DbSigs;
use crate::Db;
use docforge_go::types::{PackageSigs, SigSource};
use docforge_go::ItemSigs;
use std::sync::Arc;

/// The signature summary of a test file (its parse keeps none). Memoised per file.
#[salsa::tracked(returns(ref), lru = 256)]
pub fn test_file_sigs(db: &dyn Db, file: SourceFile) -> Option<Arc<ItemSigs>> {
    let Content::Bytes(bytes) = file.content(db) else { return None };
    let go = db.gate().go().ok()?;
    let tree = db.trees().parse_transient(go, file.rel(db), bytes);
    Some(Arc::new(docforge_go::extract_sigs(go, &tree, bytes).items))
}

/// The test build of `pkg` and its files in summary order: the non-test and in-package test
/// files of a package, or the files of an external test package.
#[salsa::tracked(returns(ref))]
pub fn test_package(db: &dyn Db, pkg: GoPackage<'_>) -> Option<(Arc<PackageSigs>, Vec<SourceFile>)> {
    let ws = pkg.ws(db);
    if !ws.precise(db) {
        return None;
    }
    let info = pkg.info(db)?;
    let mut files = Vec::with_capacity(info.files.len());
    let mut sigs = Vec::with_capacity(info.files.len());
    for &f in &info.files {
        let s = if is_test_file(f.rel(db)) { test_file_sigs(db, f) } else { file_sigs(db, ws, f) };
        if let Some(s) = s.clone() {
            files.push(f);
            sigs.push(s);
        }
    }
    Some((Arc::new(PackageSigs::new(info.import_path.clone(), sigs)), files))
}

/// Packages for type-checking the test files of `pkg`: `pkg` (and, for an external test
/// package, the package it tests) as the test build has them, every other package as the
/// non-test build does.
pub struct TestSigs<'db> {
    pub inner: DbSigs<'db>,
    pub pkg: GoPackage<'db>,
    pub under_test: Option<GoPackage<'db>>,
}

impl<'db> TestSigs<'db> {
    pub fn new(db: &'db dyn Db, pkg: GoPackage<'db>) -> TestSigs<'db> {
        let ws = pkg.ws(db);
        let under_test = pkg
            .info(db)
            .filter(|i| i.xtest)
            .and_then(|i| i.import_path.strip_suffix("_test"))
            .and_then(|base| GoPackage::find(db, ws, base));
        TestSigs { inner: DbSigs::for_navigation(db, ws), pkg, under_test }
    }
}

impl SigSource for TestSigs<'_> {
    fn package(&self, import_path: &str) -> Option<Arc<PackageSigs>> {
        let db = self.inner.db;
        let test_build = [Some(self.pkg), self.under_test]
            .into_iter()
            .flatten()
            .find(|p| p.import_path(db) == import_path);
        match test_build {
            Some(p) => test_package(db, p).as_ref().map(|(s, _)| s.clone()),
            None => self.inner.package(import_path),
        }
    }

    fn resolve_import(&self, from_import_path: &str, spec: &str) -> Option<String> {
        self.inner.resolve_import(from_import_path, spec)
    }
}
