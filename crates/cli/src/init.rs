//! `docforge init`: a commented `docforge.toml` with the defaults, and ignore entries for the
//! derived state. Never overwrites: an existing `docforge.toml` is left as it is.

use crate::stdout::outln;
use std::path::Path;

/// The configuration `init` writes: every key with its default, commented where it is
/// optional, so that the file parses and means exactly what no file would mean.
pub const TEMPLATE: &str = r#"# DocForge project configuration. Every key but schema_version is optional; the values
# shown (commented out) are the defaults. Unknown keys are errors naming the key.
schema_version = 1

[project]
# id = "my-project"           # default: the name of the project root directory

[sources]
# docs = ["**/*.md"]          # globs of the documents (Markdown, TOML node files)
# go = ["."]                  # directories holding Go modules (go.mod, go.work)
# exclude = []                # globs never selected (an excluded Go file makes the graph partial)

[limits]
# max_results = 200           # the cap on results of MCP collection tools
# max_response_bytes = 262144 # the size limit of one MCP response
# max_file_bytes = 8388608    # larger files are refused (recorded, never read)

[analysis]
# precision = "precise"       # "precise": types, method sets, implements, calls with CHA,
#                             # Logic; "ast": Go facts from syntax alone (faster). Every command
#                             # builds the index at this precision.

[go]
# goos = "linux"              # the build context Go files are selected for
# goarch = "amd64"
# cgo = false                 # false: files importing "C" are excluded
# tags = []                   # extra build tags
"#;

/// What `.gitignore` must hold: the index and receipts, and `gograph build`'s snapshot. Both
/// are derived from the sources and rebuilt on demand.
const IGNORED: [&str; 2] = [".docforge/", ".gograph/"];

pub fn init(root: &Path) -> Result<(), String> {
    if !root.is_dir() {
        return Err(format!("project root {} does not exist or is not a directory", root.display()));
    }
    // Both files are written by the project writer: beneath the root, through no symlink.
    let writer = docforge_project::ProjectWriter::new(root);
    // Read what is refused before anything is written.
    let ignore = root.join(".gitignore");
    let existing = match std::fs::symlink_metadata(&ignore) {
        Ok(m) if !m.is_file() => return Err(format!("{} is not a regular file; refused", ignore.display())),
        Ok(_) => docforge_project::read_regular_file(&ignore, 1 << 24)
            .map_err(|e| format!("{}: {e}", ignore.display()))
            .and_then(|b| {
                String::from_utf8(b)
                    .map_err(|_| format!("{} is not UTF-8; refused (nothing written)", ignore.display()))
            })?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(e) => return Err(format!("{}: {e}", ignore.display())),
    };
    let config = root.join(docforge_project::CONFIG_FILE);
    let created = writer
        .create_new(docforge_project::CONFIG_FILE, TEMPLATE.as_bytes())
        .map_err(|e| format!("{}: {e}", config.display()))?;
    if created {
        outln!("wrote {}", config.display());
    } else {
        outln!("kept {} (it exists; nothing changed)", config.display());
    }
    let present = |entry: &str| {
        let bare = entry.trim_end_matches('/');
        existing.lines().map(str::trim).any(|l| {
            let l = l.trim_start_matches('/').trim_end_matches('/');
            l == bare
        })
    };
    let missing: Vec<&str> = IGNORED.into_iter().filter(|e| !present(e)).collect();
    if missing.is_empty() {
        outln!("kept {} (it ignores {} already)", ignore.display(), IGNORED.join(" and "));
        return Ok(());
    }
    let mut text = existing.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str("# DocForge: derived state, rebuilt by `docforge index` and `gograph build`\n");
    for entry in &missing {
        text.push_str(entry);
        text.push('\n');
    }
    writer
        .write(".gitignore", text.as_bytes(), docforge_project::Durability::Durable)
        .map_err(|e| format!("{}: {e}", ignore.display()))?;
    outln!("added {} to {}", missing.join(" and "), ignore.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_template_parses_and_means_the_defaults() {
        let parsed = docforge_project::Config::parse(Path::new("docforge.toml"), TEMPLATE)
            .expect("the template is valid");
        assert_eq!(parsed, docforge_project::Config::default());
    }
}
