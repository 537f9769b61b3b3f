//! A walk's witness: taken on a real tree, it holds exactly while a walk would classify the
//! same files with the same stamps — for directories listed again (stamps too recent to vouch)
//! and for settled ones (stamps older than the racy window).

use docforge_project::{discover, witness, Project, SourceReader, RACY_WINDOW};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A small project: documents in two directories, a Go package, an ignore file.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "docforge.toml", "schema_version = 1\n[sources]\ndocs = [\"docs/**/*.md\"]\ngo = [\".\"]\n");
    write(root, "docs/a.md", "# A\n");
    write(root, "docs/guide/b.md", "# B\n");
    write(root, "docs/.gitignore", "drafts/\n");
    write(root, "go.mod", "module example.com/m\n\ngo 1.22\n");
    write(root, "m.go", "package m\n");
    dir
}

fn holds(root: &Path, w: &docforge_project::WalkWitness) -> bool {
    let project = Project::load(root).unwrap();
    w.holds(&project, &SourceReader::new(&project.root))
}

type Change = fn(&Path);

/// Each change, and whether the witness survives it: never when a walk's result would
/// change.
const CASES: &[(&str, Change, bool)] = &[
    ("untouched", |_| {}, true),
    ("a document edited", |r| write(r, "docs/a.md", "# A, longer\n"), false),
    ("a document added", |r| write(r, "docs/guide/c.md", "# C\n"), false),
    ("a document removed", |r| fs::remove_file(r.join("docs/guide/b.md")).unwrap(), false),
    ("a directory renamed", |r| fs::rename(r.join("docs/guide"), r.join("docs/howto")).unwrap(), false),
    ("a Go file edited", |r| write(r, "m.go", "package m // edited\n"), false),
    ("the ignore file edited", |r| write(r, "docs/.gitignore", "guide/\n"), false),
    ("an ignore file created", |r| write(r, "docs/guide/.ignore", "b.md\n"), false),
    ("the configuration edited", |r| write(r, "docforge.toml", "schema_version = 1\n"), false),
    // Conservative: a new entry that is no source still changes the directory's entries.
    ("a file that is no source added", |r| write(r, "docs/notes.txt", "plain text\n"), false),
    (
        "a document replaced by a symlink to itself",
        |r| {
            fs::rename(r.join("docs/a.md"), r.join("a.md")).unwrap();
            symlink(r.join("a.md"), r.join("docs/a.md")).unwrap();
        },
        false,
    ),
];

/// Just after the files were written no directory stamp vouches: each directory is listed
/// again and its entries compared.
#[test]
fn a_fresh_witness_lists_directories_again() {
    for (name, change, survives) in CASES {
        let dir = project();
        let project = Project::load(dir.path()).unwrap();
        let (inventory, w) = witness::take(&project);
        let w = w.unwrap_or_else(|| panic!("{name}: no witness"));
        assert_eq!(inventory.entries, discover(&project).entries, "{name}: the walk's own inventory");
        assert!(w.dirs.iter().all(|d| d.entries.is_some()), "{name}: fresh stamps cannot vouch");
        change(dir.path());
        assert_eq!(holds(dir.path(), &w), *survives, "{name}");
    }
}

/// A hidden file (an editor's swap file) does not change what a walk finds: a directory
/// listed again still holds.
#[test]
fn hidden_entries_do_not_matter_to_a_listed_directory() {
    let dir = project();
    let project = Project::load(dir.path()).unwrap();
    let w = witness::take(&project).1.unwrap();
    write(dir.path(), "docs/.a.md.swp", "swap");
    write(dir.path(), ".cache/x.md", "# not a source\n");
    assert!(holds(dir.path(), &w));
}

/// A file that is not a source turning into a directory of documents changes the entry's
/// type: the witness does not hold.
#[test]
fn an_entry_changing_type_is_seen() {
    let dir = project();
    write(dir.path(), "docs/notes", "plain text\n");
    let project = Project::load(dir.path()).unwrap();
    let w = witness::take(&project).1.unwrap();
    fs::remove_file(dir.path().join("docs/notes")).unwrap();
    write(dir.path(), "docs/notes/n.md", "# N\n");
    assert!(!holds(dir.path(), &w));
}

/// A symlink with a source-file name is classified through its target, which no stamp here
/// covers: no witness.
#[test]
fn a_symlinked_source_leaves_no_witness() {
    let dir = project();
    symlink(dir.path().join("docs/a.md"), dir.path().join("docs/link.md")).unwrap();
    let project = Project::load(dir.path()).unwrap();
    assert!(witness::take(&project).1.is_none());
}

/// Files older than the racy window: their directories' stamps vouch for their entries (none
/// is recorded), and any change to those entries changes the stamp, so the witness does not
/// hold — a settled directory is never listed.
#[test]
fn a_settled_witness_trusts_directory_stamps() {
    let dirs: Vec<_> = CASES.iter().map(|_| project()).collect();
    std::thread::sleep(RACY_WINDOW + std::time::Duration::from_millis(200));
    for ((name, change, survives), dir) in CASES.iter().zip(&dirs) {
        let project = Project::load(dir.path()).unwrap();
        let w = witness::take(&project).1.unwrap_or_else(|| panic!("{name}: no witness"));
        // The root holds the state directory: its entries are kept (see the next test).
        let listed: Vec<_> = w.dirs.iter().filter(|d| d.entries.is_some()).map(|d| d.path.as_str()).collect();
        assert_eq!(listed, [""], "{name}: settled stamps vouch");
        change(dir.path());
        assert_eq!(holds(dir.path(), &w), *survives, "{name}");
    }
    // Conservative: in a settled directory even a hidden file's creation changes the stamp.
    let dir = &dirs[0];
    let project = Project::load(dir.path()).unwrap();
    let w = witness::take(&project).1.unwrap();
    write(dir.path(), "docs/.a.md.swp", "swap");
    assert!(!holds(dir.path(), &w));
}

/// DocForge's own writes beside sources (a view's output appearing in a settled directory)
/// leave the witness holding; anything else appearing there does not.
#[test]
fn derived_directories_are_not_entries() {
    let dir = project();
    let view = "\n[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"site/a\"\n";
    let toml = fs::read_to_string(dir.path().join("docforge.toml")).unwrap();
    write(dir.path(), "docforge.toml", &format!("{toml}{view}"));
    write(dir.path(), "site/readme.txt", "rendered views live here\n");
    std::thread::sleep(RACY_WINDOW + std::time::Duration::from_millis(200));
    let project = Project::load(dir.path()).unwrap();
    let w = witness::take(&project).1.unwrap();
    let site = w.dirs.iter().find(|d| d.path == "site").unwrap();
    assert!(site.entries.is_some(), "a directory holding a view's output keeps its entries");
    write(dir.path(), "site/a/index.html", "<p>rendered</p>");
    write(dir.path(), ".docforge/receipts/x.json", "{}");
    assert!(holds(dir.path(), &w), "the output and the state directory appeared");
    write(dir.path(), "site/b.md", "# not derived\n");
    assert!(!holds(dir.path(), &w));
}

/// Ignore rules read through a symlink (a `.gitignore` linked from elsewhere, a linked
/// `.git/info`) depend on a target no stamp here covers: no witness.
#[test]
fn ignore_rules_read_through_a_symlink_leave_no_witness() {
    let linked_ignore = project();
    let root = linked_ignore.path();
    write(root, "rules/docs-ignore", "drafts/\n");
    fs::remove_file(root.join("docs/.gitignore")).unwrap();
    symlink(root.join("rules/docs-ignore"), root.join("docs/.gitignore")).unwrap();
    assert!(witness::take(&Project::load(root).unwrap()).1.is_none(), "a linked .gitignore");

    let linked_info = project();
    let root = linked_info.path();
    write(root, "elsewhere/exclude", "guide/\n");
    fs::create_dir_all(root.join(".git")).unwrap();
    symlink(root.join("elsewhere"), root.join(".git/info")).unwrap();
    assert!(witness::take(&Project::load(root).unwrap()).1.is_none(), "a linked .git/info");

    // A real `.git/info/exclude` is witnessed, and editing it is seen.
    let real = project();
    let root = real.path();
    write(root, ".git/info/exclude", "\n");
    let w = witness::take(&Project::load(root).unwrap()).1.unwrap();
    write(root, ".git/info/exclude", "guide/\n");
    assert!(!holds(root, &w));
}

/// A file where a view's output directory is declared is a source like any other.
#[test]
fn a_file_at_a_derived_path_is_an_entry() {
    let dir = project();
    let view = "\n[[views]]\nid = \"gen\"\nrenderer = \"html-page@1\"\noutput = \"gen.go\"\n";
    let toml = fs::read_to_string(dir.path().join("docforge.toml")).unwrap();
    write(dir.path(), "docforge.toml", &format!("{toml}{view}"));
    write(dir.path(), "gen.go/index.html", "<p>rendered</p>");
    let project = Project::load(dir.path()).unwrap();
    let w = witness::take(&project).1.unwrap();
    fs::remove_dir_all(dir.path().join("gen.go")).unwrap();
    write(dir.path(), "gen.go", "package m\n");
    assert!(!holds(dir.path(), &w));
}

/// A witness is plain data: it survives a JSON round trip (receipts hold it).
#[test]
fn a_witness_round_trips_through_json() {
    let dir = project();
    let project = Project::load(dir.path()).unwrap();
    let w = witness::take(&project).1.unwrap();
    let json = serde_json::to_string(&w).unwrap();
    let back: docforge_project::WalkWitness = serde_json::from_str(&json).unwrap();
    assert_eq!(back, w);
    assert!(holds(dir.path(), &back));
}
