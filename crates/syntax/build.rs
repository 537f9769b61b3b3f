//! Embeds every `queries/<lang>/*.scm` file of the repository into the binary, so query
//! files stay the declared source of truth and are loaded at build time.
use std::{env, fs, path::PathBuf};

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap()).join("../../queries");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::new();
    for lang in ["go", "markdown"] {
        let dir = root.join(lang);
        println!("cargo:rerun-if-changed={}", dir.display());
        let mut names: Vec<_> = fs::read_dir(&dir)
            .map(|rd| rd.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        names.retain(|p: &PathBuf| p.extension().is_some_and(|e| e == "scm"));
        names.sort();
        out.push_str(&format!("pub(crate) const {}_QUERIES: &[(&str, &str)] = &[\n", lang.to_uppercase()));
        for p in names {
            println!("cargo:rerun-if-changed={}", p.display());
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            let abs = fs::canonicalize(&p).unwrap();
            out.push_str(&format!("    ({stem:?}, include_str!({:?})),\n", abs.display().to_string()));
        }
        out.push_str("];\n");
    }
    fs::write(PathBuf::from(env::var("OUT_DIR").unwrap()).join("queries.rs"), out).unwrap();
}
