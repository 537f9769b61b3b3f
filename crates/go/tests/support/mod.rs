//! In-memory packages for the type tests.

use docforge_go::extract_sigs;
use docforge_go::types::{PackageSigs, SigSource};
use docforge_syntax::{AstGate, AstPolicy};
use std::collections::HashMap;
use std::sync::Arc;

/// Packages by import path; an import spec denotes the package of that path.
pub struct Mem(pub HashMap<String, Arc<PackageSigs>>);

impl SigSource for Mem {
    fn package(&self, path: &str) -> Option<Arc<PackageSigs>> {
        self.0.get(path).cloned()
    }
    fn resolve_import(&self, _from: &str, spec: &str) -> Option<String> {
        Some(spec.to_string())
    }
}

/// Packages from `(import path, [file sources])`.
pub fn mem(pkgs: &[(&str, &[&str])]) -> Mem {
    let gate = AstGate::new(AstPolicy::Allow);
    let go = gate.go().unwrap();
    let mut m = Mem(HashMap::new());
    for (path, files) in pkgs {
        let files = files
            .iter()
            .map(|src| Arc::new(extract_sigs(go, &go.parse(src.as_bytes()), src.as_bytes()).items));
        m.0.insert(path.to_string(), Arc::new(PackageSigs::new(*path, files.collect())));
    }
    m
}
