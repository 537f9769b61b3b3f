// Included by the build scripts that fingerprint code (`crates/db/build.rs`,
// `crates/render/build.rs`): a hash of the Rust, TOML and query files under `inputs`, for a
// stored result to say which code produced it. Any change to those files moves it, comments
// included: the cost is one recomputation the first time a new build reads an older result,
// never a stale answer.

/// FNV-1a over each file's name and bytes of `inputs` (paths relative to `here`: a crate's
/// `src/`, `build.rs` and `Cargo.toml`, a directory's files, or a file), telling cargo to run
/// the build script again when any of them changes. A missing input fails the build: a
/// fingerprint over less than the code would vouch for what it did not see.
fn fingerprint(here: &std::path::Path, inputs: &[&str]) -> String {
    let mut files = Vec::new();
    for input in inputs {
        let path = here.join(input);
        assert!(path.exists(), "code fingerprint: {} is missing", path.display());
        if path.is_file() {
            println!("cargo:rerun-if-changed={}", path.display());
        }
        collect(&path, input, &mut files);
    }
    files.sort();
    // A change detector, not a security boundary.
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
            .unwrap_or_else(|e| panic!("code fingerprint: cannot read {}: {e}", path.display()));
        feed(&bytes);
        feed(&[0]);
    }
    format!("{h:016x}")
}

fn collect(path: &std::path::Path, name: &str, out: &mut Vec<(String, std::path::PathBuf)>) {
    if path.is_file() {
        // Sources, manifests, queries and stylesheets: an editor's swap file changes nothing.
        let read = [".rs", ".toml", ".scm", ".css", "Cargo.lock"].iter().any(|e| name.ends_with(e));
        if read {
            out.push((name.to_string(), path.to_path_buf()));
        }
        return;
    }
    let entries = std::fs::read_dir(path)
        .unwrap_or_else(|e| panic!("code fingerprint: cannot read {}: {e}", path.display()));
    let is_crate = path.join("Cargo.toml").is_file();
    if !is_crate {
        // A directory: cargo runs the script again when anything under it changes.
        println!("cargo:rerun-if-changed={}", path.display());
    }
    for entry in entries.flatten() {
        let child = entry.file_name().to_string_lossy().into_owned();
        if is_crate && !matches!(child.as_str(), "src" | "assets" | "build.rs" | "Cargo.toml") {
            continue;
        }
        if is_crate && entry.path().is_file() {
            println!("cargo:rerun-if-changed={}", entry.path().display());
        }
        collect(&entry.path(), &format!("{name}/{child}"), out);
    }
}
