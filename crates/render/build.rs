//! The render fingerprint (`DOCFORGE_RENDER_CODE`): a hash of the code that turns an index
//! into pages (this crate, its stylesheet) and of the code whose claim outcomes pages show
//! (`crates/validate`, and `docforge validate`'s recording of them). With the engine's
//! derivation fingerprint it makes a receipt's `code`: a page or outcome recorded by other
//! code is not current, whatever its version says.
include!("../../build/fingerprint.rs");

fn main() {
    let here = std::path::PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let inputs = [".", "../validate", "../cli/src/validate.rs", "../../build/fingerprint.rs"];
    println!("cargo:rustc-env=DOCFORGE_RENDER_CODE={}", fingerprint(&here, &inputs));
}
