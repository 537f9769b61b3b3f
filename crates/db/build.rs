//! The derivation fingerprint (`DOCFORGE_DERIVATION`): a hash of everything that decides what
//! graph the engine derives from a project's files — the sources of the crates that read,
//! parse, extract and store it, the tree-sitter queries, and the locked dependency versions
//! (the grammars among them). An index published by a build with another fingerprint may
//! hold another graph for the same files, so a reader does not trust it by the files' stamps.
//!
//! Any change to those files moves it, comments included: the cost is one re-derivation the
//! first time a new build opens an existing index, never a stale answer.
use std::path::{Path, PathBuf};

/// Repository paths (relative to this crate) whose contents shape the derived graph.
const INPUTS: &[&str] = &[
    "../model",
    "../syntax",
    "../go",
    "../docs",
    "../project",
    "../index",
    ".",
    "../../queries",
    "../../Cargo.lock",
];

fn main() {
    let here = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let mut files = Vec::new();
    for input in INPUTS {
        let path = here.join(input);
        assert!(path.exists(), "derivation fingerprint: {} is missing", path.display());
        if path.is_file() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        collect(&path, input, &mut files);
    }
    files.sort();
    // FNV-1a over each file's name and bytes: a change detector, not a security boundary.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for b in bytes {
            h = (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3);
        }
    };
    for (name, path) in &files {
        feed(name.as_bytes());
        feed(&[0]);
        let bytes = std::fs::read(path)
            .unwrap_or_else(|e| panic!("derivation fingerprint: cannot read {}: {e}", path.display()));
        feed(&bytes);
        feed(&[0]);
    }
    println!("cargo:rustc-env=DOCFORGE_DERIVATION={h:016x}");
}

/// The files under `path` that a build reads: a crate's `src/`, `build.rs` and `Cargo.toml`,
/// a directory's Rust, TOML and query files, or the file itself.
fn collect(path: &Path, name: &str, out: &mut Vec<(String, PathBuf)>) {
    if path.is_file() {
        // Sources, manifests and queries only: an editor's swap file changes nothing built.
        let read = name.ends_with(".rs") || name.ends_with(".toml") || name.ends_with(".scm");
        if read || name.ends_with("Cargo.lock") {
            out.push((name.to_string(), path.to_path_buf()));
        }
        return;
    }
    // A fingerprint over less than the derivation's code would vouch for what it did not
    // see: a build outside this repository's layout fails here instead.
    let entries = std::fs::read_dir(path)
        .unwrap_or_else(|e| panic!("derivation fingerprint: cannot read {}: {e}", path.display()));
    let is_crate = path.join("Cargo.toml").is_file();
    if !is_crate {
        // A directory: cargo reruns this script when anything under it changes.
        println!("cargo:rerun-if-changed={}", path.display());
    }
    for entry in entries.flatten() {
        let child = entry.file_name().to_string_lossy().into_owned();
        if is_crate && !matches!(child.as_str(), "src" | "build.rs" | "Cargo.toml") {
            continue;
        }
        if is_crate && child != "src" {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
        collect(&entry.path(), &format!("{name}/{child}"), out);
    }
}
