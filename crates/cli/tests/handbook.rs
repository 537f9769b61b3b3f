//! The handbook (`docs/`, README.md, ARCHITECTURE.md) is a DocForge project and agrees with
//! the binary: indexing it gives no diagnostic, every page has its front matter, and the
//! command-line reference lists exactly the commands and options `--help` shows.

use serde_json::Value;
use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_docforge")
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = Command::new(bin()).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The handbook's files as the repository's `docforge.toml` selects them, copied with it into
/// a fresh directory (so that the index is written there, not into the source tree).
fn handbook_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = repo();
    let mut files = vec![PathBuf::from("docforge.toml"), "README.md".into(), "ARCHITECTURE.md".into()];
    for page in fs::read_dir(repo.join("docs")).unwrap() {
        files.push(Path::new("docs").join(page.unwrap().file_name()));
    }
    for editor in fs::read_dir(repo.join("editors")).unwrap() {
        let readme = Path::new("editors").join(editor.unwrap().file_name()).join("README.md");
        if repo.join(&readme).is_file() {
            files.push(readme);
        }
    }
    for rel in files {
        let to = dir.path().join(&rel);
        fs::create_dir_all(to.parent().unwrap()).unwrap();
        fs::copy(repo.join(&rel), &to).unwrap();
    }
    dir
}

fn json(root: &Path, args: &[&str]) -> Value {
    let out = Command::new(bin()).arg("--project-root").arg(root).args(args).output().unwrap();
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_handbook_indexes_without_a_broken_link_or_an_unknown_relation_target() {
    let dir = handbook_copy();
    let report = json(dir.path(), &["index", "--json"]);
    assert!(report["files"]["docs"].as_u64().unwrap() >= 12, "{report}");
    let diagnostics = json(dir.path(), &["diagnostics", "--json"]);
    let listed: Vec<String> = diagnostics["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| format!("{} {}: {}", d["location"]["path"], d["code"], d["message"]))
        .collect();
    assert_eq!(listed, Vec::<String>::new(), "the handbook has no diagnostic");
}

#[test]
fn every_handbook_page_has_its_front_matter() {
    let dir = handbook_copy();
    json(dir.path(), &["index", "--json"]);
    for page in fs::read_dir(dir.path().join("docs")).unwrap() {
        let name = page.unwrap().file_name().into_string().unwrap();
        let id = name.strip_suffix(".md").unwrap_or_else(|| panic!("docs/ holds Markdown only: {name}"));
        let node = json(dir.path(), &["node", id, "--json"]);
        let attrs = &node["node"]["attrs"];
        assert_eq!(node["node"]["location"]["path"], format!("docs/{name}"), "the page declares id {id:?}");
        assert_eq!(attrs["family"], "handbook", "{name}: {attrs}");
        assert!(
            matches!(attrs["kind"].as_str(), Some("guide" | "reference")),
            "{name}: kind is guide or reference: {attrs}"
        );
    }
}

/// The subcommand names of a `--help` page's `Commands:` list (without `help`).
fn commands_of(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(String::from)
        .collect()
}

/// The long options a `--help` page lists, without `--help` and `--project-root`.
fn options_of(help: &str) -> BTreeSet<String> {
    help.lines()
        .skip_while(|l| *l != "Options:")
        .filter_map(|l| l.trim_start().split([' ', ',']).find(|w| w.starts_with("--")).map(String::from))
        .filter(|o| o != "--help" && o != "--project-root")
        .collect()
}

/// The text of the reference page's section `## \`docforge NAME\``.
fn section<'a>(page: &'a str, name: &str) -> &'a str {
    let heading = format!("## `docforge {name}`\n");
    let start = page.find(&heading).unwrap_or_else(|| panic!("docs/cli.md has no section {heading:?}"));
    let rest = &page[start + heading.len()..];
    &rest[..rest.find("\n## ").unwrap_or(rest.len())]
}

#[test]
fn the_cli_reference_lists_every_command_and_option_of_the_help() {
    let page = fs::read_to_string(repo().join("docs/cli.md")).unwrap();
    let commands = commands_of(&stdout(&["--help"]));
    let table: Vec<String> = section_table(&page);
    assert_eq!(table, commands, "the command table of docs/cli.md is `docforge --help`'s list, in its order");
    for command in &commands {
        let help = stdout(&[command, "--help"]);
        let mut options = options_of(&help);
        // A command with subcommands: their options count for it.
        for sub in commands_of(&help) {
            let sub_help = stdout(&[command, &sub, "--help"]);
            options.extend(options_of(&sub_help));
            for leaf in commands_of(&sub_help) {
                options.extend(options_of(&stdout(&[command, &sub, &leaf, "--help"])));
            }
        }
        let text = section(&page, command);
        for option in options {
            assert!(
                text.contains(&format!("`{option}")),
                "docs/cli.md's `docforge {command}` omits {option}"
            );
        }
        assert!(help.contains("Exit codes:"), "`docforge {command} --help` states its exit codes");
    }
}

/// The commands of the `## Commands` table: rows "| `docforge NAME` | … |".
fn section_table(page: &str) -> Vec<String> {
    let start = page.find("## Commands\n").expect("docs/cli.md has a Commands section");
    page[start..]
        .lines()
        .skip(1)
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .filter_map(|l| l.strip_prefix("| `docforge ")?.split('`').next().map(String::from))
        .collect()
}

#[test]
fn the_readme_names_only_commands_that_exist() {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let commands: BTreeSet<String> = commands_of(&stdout(&["--help"])).into_iter().collect();
    let mut named = BTreeSet::new();
    for (i, _) in readme.match_indices("docforge ") {
        let before = readme[..i].chars().next_back();
        if !matches!(before, Some('`' | ' ' | '/' | '\n' | '(' | '"')) {
            continue;
        }
        let word: String = readme[i + "docforge ".len()..]
            .chars()
            .take_while(|c| c.is_ascii_lowercase() || *c == '-')
            .collect();
        // Prose says "DocForge"; lower-case `docforge WORD` is a command line.
        named.insert(word);
    }
    named.retain(|w| !w.is_empty() && !w.starts_with('-'));
    let unknown: Vec<&String> = named.iter().filter(|w| !commands.contains(*w)).collect();
    assert!(unknown.is_empty(), "README.md names commands `docforge --help` does not list: {unknown:?}");
}
