//! Discovery on real directories: ignore rules, excludes, symlinks, special files, limits.

use docforge_project::{discover, read_source, EntryStatus, FileKind, Project, ProjectError};
use std::fs;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

fn status(inv: &docforge_project::Inventory, rel: &str) -> Option<EntryStatus> {
    inv.entries.iter().find(|e| e.rel == rel).map(|e| e.status.clone())
}

#[test]
fn selection_rules() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "go.mod", "module example.com/m\n");
    write(root, "a.go", "package m\n");
    write(root, "sub/b.go", "package sub\n");
    write(root, "sub/testdata/c.go", "package x\n");
    write(root, "_hidden/d.go", "package d\n");
    write(root, "vendor/v/e.go", "package v\n");
    write(root, "ignored/f.go", "package f\n");
    write(root, ".gitignore", "ignored/\ndocs/private/\n");
    write(root, "ignored/g.md", "# G\n");
    write(root, "docs/private/p.md", "# P\n");
    write(root, "docs/a.md", "# A\n");
    write(root, "docs/n.toml", "title = \"n\"\n");
    write(root, "README.md", "# R\n");
    write(root, "notes.txt", "x");
    write(root, "docforge.toml", "schema_version = 1\n[sources]\ndocs = [\"docs/**/*.md\", \"docs/**/*.toml\"]\nexclude = [\"vendor/**\", \"**/testdata/**\"]\n");
    let project = Project::load(root).unwrap();
    let inv = discover(&project);
    assert!(inv.errors.is_empty(), "{:?}", inv.errors);
    let rels: Vec<_> = inv.entries.iter().map(|e| (e.rel.as_str(), e.kind)).collect();
    assert_eq!(
        rels,
        vec![
            ("_hidden/d.go", FileKind::Go),
            ("a.go", FileKind::Go),
            ("docs/a.md", FileKind::Markdown),
            ("docs/n.toml", FileKind::TomlNode),
            ("go.mod", FileKind::GoMod),
            ("ignored/f.go", FileKind::Go),
            ("sub/b.go", FileKind::Go),
            ("sub/testdata/c.go", FileKind::Go),
            ("vendor/v/e.go", FileKind::Go),
        ]
    );
    // The go command compiles what Git ignores: ignore files apply to documents only.
    assert_eq!(status(&inv, "ignored/f.go"), Some(EntryStatus::Selected));
    // A Go file the configuration excludes is recorded as such (the graph says it is partial).
    assert_eq!(status(&inv, "vendor/v/e.go"), Some(EntryStatus::Excluded("exclude_glob".into())));
    // A glob over a directory the go command ignores anyway takes nothing from the build.
    assert_eq!(status(&inv, "sub/testdata/c.go"), Some(EntryStatus::Excluded("go_ignored_dir".into())));
    assert_eq!(status(&inv, "_hidden/d.go"), Some(EntryStatus::Excluded("go_ignored_dir".into())));
    assert_eq!(status(&inv, "a.go"), Some(EntryStatus::Selected));
}

#[test]
fn defaults_without_config_take_every_markdown_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "README.md", "# R\n");
    write(dir.path(), "x/y.md", "# Y\n");
    let project = Project::load(dir.path()).unwrap();
    assert!(!project.config_present);
    let inv = discover(&project);
    let rels: Vec<_> = inv.entries.iter().map(|e| e.rel.as_str()).collect();
    assert_eq!(rels, ["README.md", "x/y.md"]);
}

/// What DocForge writes is never read back as a source: the state directory, the changeset
/// and preview roots and every view output are left out by name, hidden or not, Go files and
/// documents alike (a rendered page or a proposal must not become a node).
#[test]
fn derived_directories_are_never_sources() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "go.mod", "module example.com/m\n");
    write(root, "README.md", "# R\n");
    for derived in [".docforge/previews/p", "work/changesets/c1", "site/arch", "previews"] {
        write(root, &format!("{derived}/page.md"), "# Page\n");
        write(root, &format!("{derived}/x.go"), "package x\n");
    }
    write(
        root,
        "docforge.toml",
        "schema_version = 1\n[proposals]\nchangeset_root = \"work/changesets\"\npreview_root = \"previews\"\n\
         [[views]]\nid = \"arch\"\nrenderer = \"html-site@1\"\noutput = \"site/arch\"\n",
    );
    let project = Project::load(root).unwrap();
    let inv = discover(&project);
    let rels: Vec<_> = inv.entries.iter().map(|e| e.rel.as_str()).collect();
    assert_eq!(rels, ["README.md", "go.mod"]);
    // The same tree without the declarations: the (non-hidden) directories are sources again.
    fs::remove_file(root.join("docforge.toml")).unwrap();
    let inv = discover(&Project::load(root).unwrap());
    let rels: Vec<_> = inv.entries.iter().map(|e| e.rel.as_str()).collect();
    assert_eq!(
        rels,
        [
            "README.md",
            "go.mod",
            "previews/page.md",
            "previews/x.go",
            "site/arch/page.md",
            "site/arch/x.go",
            "work/changesets/c1/page.md",
            "work/changesets/c1/x.go"
        ]
    );
}

#[test]
fn symlinks_and_special_files_are_refused_and_recorded() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "# secret\n");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "ok.md", "# ok\n");
    std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("leak.md")).unwrap();
    std::os::unix::fs::symlink(root.join("ok.md"), root.join("inside.md")).unwrap();
    std::os::unix::fs::symlink(root.join("missing.md"), root.join("dangling.md")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("outdir")).unwrap();
    let fifo = root.join("pipe.md");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let project = Project::load(root).unwrap();
    let inv = discover(&project);
    assert_eq!(status(&inv, "leak.md"), Some(EntryStatus::Refused("symlink_outside_root".into())));
    assert_eq!(status(&inv, "dangling.md"), Some(EntryStatus::Refused("symlink_dangling".into())));
    assert_eq!(status(&inv, "pipe.md"), Some(EntryStatus::Refused("special_file".into())));
    assert_eq!(status(&inv, "inside.md"), Some(EntryStatus::Selected));
    assert_eq!(status(&inv, "ok.md"), Some(EntryStatus::Selected));
    // The symlinked directory is never followed.
    assert!(inv.entries.iter().all(|e| !e.rel.starts_with("outdir/")));
    // The reader refuses the same things at open time, and never blocks on the FIFO.
    let root = &project.root;
    assert_eq!(read_source(root, "leak.md", 1 << 20).unwrap_err().code(), "symlink_outside_root");
    assert_eq!(read_source(root, "pipe.md", 1 << 20).unwrap_err().code(), "special_file");
    assert_eq!(read_source(root, "ok.md", 1 << 20).unwrap(), b"# ok\n");
    // Symlinks that stay inside the root are read, relative or absolute; a path through a
    // symlinked directory, or a relative symlink, that leaves the root is refused.
    std::os::unix::fs::symlink("ok.md", root.join("relative.md")).unwrap();
    // Both temporary directories live in the same parent: `../<outside>/secret.md` leaves the root.
    let escape = format!("../{}/secret.md", outside.path().file_name().unwrap().to_str().unwrap());
    std::os::unix::fs::symlink(&escape, root.join("up.md")).unwrap();
    assert_eq!(read_source(root, "inside.md", 1 << 20).unwrap(), b"# ok\n");
    assert_eq!(read_source(root, "relative.md", 1 << 20).unwrap(), b"# ok\n");
    assert_eq!(read_source(root, "outdir/secret.md", 1 << 20).unwrap_err().code(), "symlink_outside_root");
    assert_eq!(read_source(root, "up.md", 1 << 20).unwrap_err().code(), "symlink_outside_root");
    assert_eq!(read_source(root, &escape, 1 << 20).unwrap_err().code(), "symlink_outside_root");
    assert_eq!(read_source(root, "dangling.md", 1 << 20).unwrap_err().code(), "unreadable");
}

/// A FIFO where DocForge reads a file of its own (an ignore file, Git's pointer, the
/// configuration) is refused, never waited on: the walk finishes with a scanner error, the
/// configuration is an error.
#[test]
fn a_fifo_in_place_of_an_ignore_file_or_the_configuration_never_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    write(&root, "docs/a.md", "# a\n");
    for fifo in [".gitignore", "docs/.ignore", ".git"] {
        assert!(std::process::Command::new("mkfifo").arg(root.join(fifo)).status().unwrap().success());
    }
    let (tx, rx) = std::sync::mpsc::channel();
    let walked = root.clone();
    std::thread::spawn(move || {
        let project = Project::load(&walked).unwrap();
        tx.send(discover(&project)).unwrap();
    });
    // Generous: a walk of one file; a blocked open never returns at all.
    let inv = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the walk returned");
    assert_eq!(status(&inv, "docs/a.md"), Some(EntryStatus::Selected));
    let errors: Vec<&str> = inv.errors.iter().map(|(p, _)| p.as_str()).collect();
    assert!(errors.contains(&".gitignore") && errors.contains(&"docs/.ignore"), "{:?}", inv.errors);
    assert!(inv.errors.iter().all(|(_, m)| m.contains("not a regular file")), "{:?}", inv.errors);

    assert!(std::process::Command::new("mkfifo").arg(root.join("docforge.toml")).status().unwrap().success());
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || tx.send(Project::load(&root).map(|_| ()).map_err(|e| e.to_string())).unwrap());
    let err = rx.recv_timeout(std::time::Duration::from_secs(60)).expect("the load returned").unwrap_err();
    assert!(err.contains("is not a regular file"), "{err}");
}

/// An ignore file is read line by line: a line that is not UTF-8 is an error naming it and is
/// left out; the other lines still apply.
#[test]
fn an_ignore_file_line_that_is_not_utf8_is_an_error_and_the_rest_applies() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "keep.md", "# keep\n");
    write(root, "drafts/d.md", "# draft\n");
    fs::write(root.join(".gitignore"), b"\xef\xbb\xbf# rules\r\nbad\xff\ndrafts/\r\n").unwrap();
    let inv = discover(&Project::load(root).unwrap());
    assert_eq!(status(&inv, "keep.md"), Some(EntryStatus::Selected));
    assert_eq!(status(&inv, "drafts/d.md"), None, "the valid rule applies (CRLF, after a BOM)");
    assert_eq!(inv.errors, [(".gitignore".to_string(), "line 2: not UTF-8".to_string())]);
}

#[test]
fn oversized_files_are_refused_without_reading() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "docforge.toml", "schema_version = 1\n[limits]\nmax_file_bytes = 10\n");
    write(dir.path(), "big.md", "# 0123456789\n");
    let project = Project::load(dir.path()).unwrap();
    let inv = discover(&project);
    assert_eq!(status(&inv, "big.md"), Some(EntryStatus::Refused("file_too_large".into())));
    assert_eq!(read_source(&project.root, "big.md", 10).unwrap_err().code(), "file_too_large");
}

#[test]
fn missing_root_and_bad_config_are_clear_errors() {
    let err = Project::load(Path::new("/definitely/not/here")).unwrap_err();
    assert!(matches!(err, ProjectError::MissingRoot(_)), "{err}");
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "file", "");
    assert!(matches!(Project::load(&dir.path().join("file")).unwrap_err(), ProjectError::NotADirectory(_)));
    write(dir.path(), "docforge.toml", "schema_version = 1\nbogus = true\n");
    let err = Project::load(dir.path()).unwrap_err();
    assert!(err.to_string().contains("bogus"), "{err}");
}

#[test]
fn root_is_canonical() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("p")).unwrap();
    let p = Project::load(&dir.path().join("p/../p")).unwrap();
    assert!(p.root.is_absolute());
    assert_eq!(p.root, fs::canonicalize(dir.path().join("p")).unwrap());
    assert_eq!(p.id, "p");
}
