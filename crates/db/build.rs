//! The derivation fingerprint (`DOCFORGE_DERIVATION`): a hash of everything that decides what
//! graph the engine derives from a project's files — the sources of the crates that read,
//! parse, extract and store it, the tree-sitter queries, and the locked dependency versions
//! (the grammars among them). An index published by a build with another fingerprint may
//! hold another graph for the same files, so a reader does not trust it by the files' stamps.
include!("../../build/fingerprint.rs");

fn main() {
    let here = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let inputs = [
        "../model",
        "../syntax",
        "../go",
        "../docs",
        "../project",
        "../index",
        ".",
        "../../queries",
        "../../Cargo.lock",
        "../../build/fingerprint.rs",
    ];
    println!("cargo:rustc-env=DOCFORGE_DERIVATION={}", fingerprint(&here, &inputs));
}
