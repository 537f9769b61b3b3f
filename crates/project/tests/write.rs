//! The writer: confined, atomic, regular files only; a refused or failed write leaves every
//! byte where it was.

use docforge_project::{Durability, ProjectWriter, WriteError};
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

/// Every file under `dir` with its bytes (symlinks as their targets), sorted.
fn tree(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let rel = p.strip_prefix(dir).unwrap().display().to_string();
            let m = fs::symlink_metadata(&p).unwrap();
            if m.file_type().is_symlink() {
                out.push((rel, format!("-> {}", fs::read_link(&p).unwrap().display())));
            } else if m.is_dir() {
                out.push((format!("{rel}/"), String::new()));
                stack.push(p);
            } else if m.is_file() {
                out.push((rel, String::from_utf8_lossy(&fs::read(&p).unwrap()).into_owned()));
            } else {
                out.push((rel, "special".into()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn writes_replace_atomically_and_create_missing_directories() {
    let dir = tempfile::tempdir().unwrap();
    let w = ProjectWriter::new(dir.path());
    for durability in [Durability::Durable, Durability::Atomic] {
        w.write(".docforge/receipts/r.json", b"one", durability).unwrap();
        w.write(".docforge/receipts/r.json", b"two", durability).unwrap();
        assert_eq!(fs::read(dir.path().join(".docforge/receipts/r.json")).unwrap(), b"two");
    }
    // No temporary file is left beside the target.
    assert_eq!(
        tree(dir.path()),
        vec![
            (".docforge/".into(), String::new()),
            (".docforge/receipts/".into(), String::new()),
            (".docforge/receipts/r.json".into(), "two".into()),
        ]
    );
}

#[test]
fn refused_writes_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("victim"), "keep").unwrap();
    symlink(outside.path(), root.join("linked-dir")).unwrap();
    symlink(outside.path().join("victim"), root.join("linked-file")).unwrap();
    fs::create_dir(root.join("a-dir")).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(root.join("fifo")).status().unwrap().success());
    let (before, outside_before) = (tree(root), tree(outside.path()));
    let w = ProjectWriter::new(root);
    let cases: &[(&str, &str)] = &[
        ("linked-dir/victim", "linked-dir is a symlink; refused"),
        ("linked-dir/new/file", "linked-dir is a symlink; refused"),
        ("linked-file", "linked-file is a symlink; refused"),
        ("a-dir", "a-dir is a directory; refused"),
        ("fifo", "fifo is a special file; refused"),
        ("../escape", "not a project-relative path"),
        ("/etc/passwd", "not a project-relative path"),
        ("a-dir/./x", "not a project-relative path"),
        ("", "not a project-relative path"),
    ];
    for (rel, says) in cases {
        for durability in [Durability::Durable, Durability::Atomic] {
            let err = w.write(rel, b"evil", durability).unwrap_err();
            assert!(err.to_string().contains(says), "{rel}: {err}");
            assert!(
                matches!(err, WriteError::InvalidPath { .. } | WriteError::NotRegular { .. }),
                "{rel}: {err:?}"
            );
        }
        assert!(w.create_new(rel, b"evil").is_err(), "{rel}");
    }
    assert_eq!(tree(root), before, "nothing written in the root");
    assert_eq!(tree(outside.path()), outside_before, "nothing written outside");
}

#[test]
fn create_new_never_replaces() {
    let dir = tempfile::tempdir().unwrap();
    let w = ProjectWriter::new(dir.path());
    assert!(w.create_new("docforge.toml", b"first").unwrap());
    assert!(!w.create_new("docforge.toml", b"second").unwrap());
    assert_eq!(fs::read(dir.path().join("docforge.toml")).unwrap(), b"first");
    assert!(w.is_regular("docforge.toml"));
    assert!(!w.is_regular("missing"));
}

/// A writer killed at any point leaves the old bytes or the new ones, whole: the child below
/// (this test binary re-run) rewrites a 16 MiB file over and over, alternating its byte, and is
/// killed with SIGKILL at a different moment each round.
#[test]
fn a_writer_killed_mid_write_leaves_old_or_new_bytes_never_a_mix() {
    const SIZE: usize = 16 << 20;
    if let Ok(root) = std::env::var("DOCFORGE_WRITER_CHILD") {
        let w = ProjectWriter::new(Path::new(&root));
        for i in 0u64.. {
            let byte = if i % 2 == 0 { b'b' } else { b'a' };
            w.write("state.bin", &vec![byte; SIZE], Durability::Atomic).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let w = ProjectWriter::new(dir.path());
    w.write("state.bin", &vec![b'a'; SIZE], Durability::Durable).unwrap();
    for round in 0..8u64 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_writer_killed_mid_write_leaves_old_or_new_bytes_never_a_mix", "--nocapture"])
            .env("DOCFORGE_WRITER_CHILD", dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30 + 17 * round));
        child.kill().unwrap();
        child.wait().unwrap();
        let bytes = fs::read(dir.path().join("state.bin")).unwrap();
        assert_eq!(bytes.len(), SIZE, "round {round}: the target is whole");
        assert!(bytes.iter().all(|b| *b == bytes[0]), "round {round}: one write's bytes, not a mix");
    }
    // What a killed writer leaves is a hidden temporary beside the target, never the target.
    for e in fs::read_dir(dir.path()).unwrap() {
        let name = e.unwrap().file_name().into_string().unwrap();
        assert!(name == "state.bin" || (name.starts_with(".state.bin.") && name.ends_with(".tmp")), "{name}");
    }
    // Such temporaries of writers that no longer run are swept.
    w.sweep_temporaries("state.bin");
    assert_eq!(tree(dir.path()).into_iter().map(|(p, _)| p).collect::<Vec<_>>(), ["state.bin"]);
}

// ---- Multi-file transactions ----

use docforge_project::{Change, Recovery, TransactionError};

const JOURNAL: &str = ".docforge/transaction.json";

fn sha(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}

/// A project with two documents and the transaction that rewrites one, removes the other and
/// creates a third in a new directory.
fn project() -> (tempfile::TempDir, Vec<Change>) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("docs")).unwrap();
    fs::write(dir.path().join("docs/a.md"), "old a").unwrap();
    fs::write(dir.path().join("docs/b.md"), "old b").unwrap();
    let changes = vec![
        Change {
            path: "docs/a.md".into(),
            after: Some(b"new a".to_vec()),
            expect: Some(Some(sha(b"old a"))),
        },
        Change { path: "docs/b.md".into(), after: None, expect: None },
        Change { path: "docs/new/c.md".into(), after: Some(b"new c".to_vec()), expect: Some(None) },
    ];
    (dir, changes)
}

fn documents(root: &Path) -> Vec<(String, String)> {
    tree(root).into_iter().filter(|(p, _)| p.ends_with(".md")).collect()
}

fn old() -> Vec<(String, String)> {
    vec![("docs/a.md".into(), "old a".into()), ("docs/b.md".into(), "old b".into())]
}

fn new() -> Vec<(String, String)> {
    vec![("docs/a.md".into(), "new a".into()), ("docs/new/c.md".into(), "new c".into())]
}

/// Nothing but the documents (and directories) is left: no journal, staged file or backup.
fn no_leftovers(root: &Path) {
    for (p, _) in tree(root) {
        assert!(p.ends_with('/') || (p.ends_with(".md") && !p.contains("/.")), "left over: {p}");
    }
}

#[test]
fn a_transaction_writes_every_file_or_none() {
    let (dir, changes) = project();
    let w = ProjectWriter::new(dir.path());
    w.commit(JOURNAL, &changes).unwrap();
    assert_eq!(documents(dir.path()), new());
    no_leftovers(dir.path());
    assert_eq!(w.recover(JOURNAL).unwrap(), Recovery::Clean);
}

#[test]
fn an_unexpected_target_refuses_the_whole_transaction() {
    let (dir, mut changes) = project();
    changes[2].expect = Some(Some(sha(b"something")));
    let w = ProjectWriter::new(dir.path());
    let err = w.commit(JOURNAL, &changes).unwrap_err();
    assert!(matches!(err, TransactionError::Changed { .. }), "{err:?}");
    assert!(
        err.to_string().starts_with("docs/new/c.md changed since it was read (expected sha256 "),
        "{err}"
    );
    assert_eq!(documents(dir.path()), old());
    no_leftovers(dir.path());
    // A duplicate target and a symlinked target are refused the same way.
    let mut twice = changes.clone();
    twice[2] = twice[0].clone();
    let err = w.commit(JOURNAL, &twice).unwrap_err();
    assert_eq!(err.to_string(), "docs/a.md appears twice in one transaction; refused");
    symlink("/etc", dir.path().join("docs/etc")).unwrap();
    let linked = [Change { path: "docs/etc/x.md".into(), after: Some(b"x".to_vec()), expect: None }];
    let err = w.commit(JOURNAL, &linked).unwrap_err();
    assert_eq!(
        err.to_string(),
        "docs/etc is a symlink; refused (only regular files and real directories are written)"
    );
    assert_eq!(documents(dir.path()), old());
}

/// A crash after any durable step of a commit, then recovery: every old file or every new
/// one, and nothing left over.
#[test]
fn recovery_after_a_crash_at_any_step_leaves_all_old_or_all_new() {
    let (probe, changes) = project();
    // Steps: journal, backup a, staged a, backup b, staged c, committing, 3 placements,
    // the caller's verification, committed, clean-up.
    let total = 11;
    drop(probe);
    for steps in 0..=total {
        let (dir, _) = project();
        let w = ProjectWriter::new(dir.path());
        let err = w.commit_interrupted(JOURNAL, &changes, steps, &|| Ok(())).unwrap_err();
        assert!(matches!(err, TransactionError::Interrupted { .. }), "step {steps}: {err:?}");
        // A pending journal blocks the next transaction until it is recovered.
        if steps > 0 {
            let pending = w.commit(JOURNAL, &changes).unwrap_err();
            assert!(matches!(pending, TransactionError::Pending { .. }), "step {steps}: {pending:?}");
        }
        let recovery = w.recover(JOURNAL).unwrap();
        let expected = if steps < total { old() } else { new() };
        assert_eq!(documents(dir.path()), expected, "step {steps} ({recovery:?})");
        let outcome = match steps {
            0 => Recovery::Clean,
            1..=5 => Recovery::Discarded,
            6..=10 => Recovery::RolledBack,
            _ => Recovery::Completed,
        };
        assert_eq!(recovery, outcome, "step {steps}");
        no_leftovers(dir.path());
    }
    // One more step than the commit has: it completes.
    let (dir, _) = project();
    ProjectWriter::new(dir.path()).commit_interrupted(JOURNAL, &changes, total + 1, &|| Ok(())).unwrap();
    assert_eq!(documents(dir.path()), new());
}

/// A verification that fails once every file is placed rolls every file back.
#[test]
fn a_failed_verification_rolls_everything_back() {
    let (dir, changes) = project();
    let w = ProjectWriter::new(dir.path());
    let err = w.commit_verified(JOURNAL, &changes, &|| Err("not the approved bytes".into())).unwrap_err();
    assert_eq!(err.to_string(), "not the approved bytes; every file was rolled back");
    assert_eq!(documents(dir.path()), old());
    no_leftovers(dir.path());
}

/// A target the commit had not placed yet is not the commit's: an edit made to it meanwhile
/// is kept, and the placed ones go back.
#[test]
fn recovery_leaves_a_target_it_never_placed_to_whoever_wrote_it() {
    let (dir, changes) = project();
    let w = ProjectWriter::new(dir.path());
    w.commit_interrupted(JOURNAL, &changes, 7, &|| Ok(())).unwrap_err(); // a.md placed
    let second = changes.iter().find(|c| c.path != "docs/a.md" && c.after.is_some()).unwrap();
    fs::write(dir.path().join(&second.path), "edited by hand").unwrap();
    assert_eq!(w.recover(JOURNAL).unwrap(), Recovery::RolledBack);
    let mut expected = old();
    expected.push((second.path.clone(), "edited by hand".into()));
    expected.sort();
    assert_eq!(documents(dir.path()), expected);
    no_leftovers(dir.path());
}

/// Recovery never overwrites bytes it did not write: a target edited after the crash stops it
/// with the journal and backups kept.
#[test]
fn recovery_never_overwrites_a_file_edited_after_the_crash() {
    let (dir, changes) = project();
    let w = ProjectWriter::new(dir.path());
    w.commit_interrupted(JOURNAL, &changes, 7, &|| Ok(())).unwrap_err(); // a.md placed
    fs::write(dir.path().join("docs/a.md"), "edited by hand").unwrap();
    let err = w.recover(JOURNAL).unwrap_err();
    assert!(matches!(err, TransactionError::Unrecoverable { .. }), "{err:?}");
    assert_eq!(fs::read_to_string(dir.path().join("docs/a.md")).unwrap(), "edited by hand");
    assert!(dir.path().join(JOURNAL).is_file(), "the journal is kept");
}

/// The same with real crashes: a child commits two-file transactions in a loop (each writes
/// one generation number into both files) and is killed with SIGKILL at a different moment
/// each round; after recovery both files hold the same generation.
#[test]
fn a_transaction_killed_at_random_recovers_to_one_generation() {
    if let Ok(root) = std::env::var("DOCFORGE_TXN_CHILD") {
        let w = ProjectWriter::new(Path::new(&root));
        for i in 1u64.. {
            let body = format!("{i}\n").repeat(200_000).into_bytes();
            let changes =
                ["x.md", "y.md"].map(|p| Change { path: p.into(), after: Some(body.clone()), expect: None });
            w.commit(JOURNAL, &changes).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let w = ProjectWriter::new(dir.path());
    let first = [("x.md", "0\n"), ("y.md", "0\n")].map(|(p, b)| Change {
        path: p.into(),
        after: Some(b.into()),
        expect: None,
    });
    w.commit(JOURNAL, &first).unwrap();
    for round in 0..8u64 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_transaction_killed_at_random_recovers_to_one_generation", "--nocapture"])
            .env("DOCFORGE_TXN_CHILD", dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(40 + 23 * round));
        child.kill().unwrap();
        child.wait().unwrap();
        w.recover(JOURNAL).unwrap();
        let x = fs::read_to_string(dir.path().join("x.md")).unwrap();
        let y = fs::read_to_string(dir.path().join("y.md")).unwrap();
        assert!(x == y, "round {round}: x and y from different generations");
        no_leftovers(dir.path());
    }
}

// ---- Replacing a directory of derived files ----

use docforge_project::Owner;

const OWNER: Owner<'static> = Owner { file: ".docforge-output", bytes: b"view site\n" };

fn site(generation: u32, pages: u32) -> Vec<(String, Vec<u8>)> {
    (0..pages)
        .map(|i| (format!("p/{i}.html"), format!("generation {generation} page {i}").into_bytes()))
        .collect()
}

#[test]
fn a_tree_is_replaced_whole_and_only_when_docforge_wrote_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let w = ProjectWriter::new(root);
    w.replace_tree("out/site", &site(1, 3), OWNER).unwrap();
    w.replace_tree("out/site", &[("index.html".into(), b"only".to_vec())], OWNER).unwrap();
    assert_eq!(
        tree(root),
        vec![
            ("out/".into(), String::new()),
            ("out/site/".into(), String::new()),
            ("out/site/.docforge-output".into(), "view site\n".into()),
            ("out/site/index.html".into(), "only".into()),
        ],
        "the old pages are gone and nothing is left beside the tree"
    );
    // Never over a directory without the same marker, a symlink or a file.
    fs::create_dir_all(root.join("mine/sub")).unwrap();
    fs::write(root.join("mine/sub/notes.md"), "keep").unwrap();
    fs::write(root.join("mine/.docforge-output"), "view other\n").unwrap();
    fs::write(root.join("afile"), "keep").unwrap();
    symlink(root.join("mine"), root.join("linked")).unwrap();
    fs::create_dir(root.join("plain")).unwrap();
    let before = tree(root);
    for (target, says) in [
        ("mine", "mine exists and was not written by DocForge (no .docforge-output marker); refused"),
        ("plain", "plain exists and was not written by DocForge"),
        ("linked", "linked is a symlink; refused"),
        ("afile", "afile is a regular file; refused"),
        ("linked/x", "linked is a symlink; refused"),
        ("../out", "not a project-relative path"),
    ] {
        let err = w.replace_tree(target, &site(2, 2), OWNER).unwrap_err();
        assert!(err.to_string().contains(says), "{target}: {err}");
    }
    let err = w.replace_tree("out/site", &[("../escape.html".into(), b"x".to_vec())], OWNER).unwrap_err();
    assert!(err.to_string().contains("out/site/../escape.html: not a project-relative path"), "{err}");
    assert_eq!(tree(root), before, "nothing changed");
}

#[test]
fn a_failure_while_staging_leaves_the_old_tree_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let w = ProjectWriter::new(dir.path());
    w.replace_tree("site", &site(1, 4), OWNER).unwrap();
    let before = tree(dir.path());
    for budget in 0..5 {
        let err =
            w.replace_tree_then_failing_after("site", &site(2, 4), OWNER, budget, || Ok(())).unwrap_err();
        assert!(err.to_string().contains("injected failure"), "{err}");
        assert_eq!(tree(dir.path()), before, "after {budget} staged files");
    }
}

/// The step run between the swap and the removal of the old tree sees the new tree in place;
/// when it fails, the replacement is undone: the old tree is back byte for byte (or, when
/// there was none, no tree is left), and its error is returned.
#[test]
fn a_failing_step_after_the_swap_puts_the_old_tree_back() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let w = ProjectWriter::new(root);
    let failing = || WriteError::Io { path: "receipt".into(), message: "cannot be written".into() };
    // No tree yet: a failing step leaves none.
    fs::create_dir(root.join("out")).unwrap();
    let before = tree(root);
    let err = w
        .replace_tree_then("out/site", &site(1, 3), OWNER, || -> Result<(), _> {
            assert_eq!(fs::read_to_string(root.join("out/site/p/2.html")).unwrap(), "generation 1 page 2");
            Err(failing())
        })
        .unwrap_err();
    assert!(err.to_string().contains("cannot be written"), "{err}");
    assert_eq!(tree(root), before, "no tree is left");
    // A tree: a failing step puts it back; a succeeding one keeps the new one and its value.
    let n = w.replace_tree_then("out/site", &site(1, 3), OWNER, || Ok(3)).unwrap();
    assert_eq!(n, 3);
    let before = tree(root);
    let err = w
        .replace_tree_then("out/site", &site(2, 5), OWNER, || -> Result<(), _> {
            assert_eq!(fs::read_to_string(root.join("out/site/p/4.html")).unwrap(), "generation 2 page 4");
            Err(failing())
        })
        .unwrap_err();
    assert!(err.to_string().contains("cannot be written"), "{err}");
    assert_eq!(tree(root), before, "the old tree is back, nothing beside it");
    // A failure while staging never runs the step.
    let err = w
        .replace_tree_then_failing_after("out/site", &site(2, 5), OWNER, 2, || -> Result<(), _> {
            panic!("the step runs only once the new tree is in place")
        })
        .unwrap_err();
    assert!(err.to_string().contains("injected failure"), "{err}");
    assert_eq!(tree(root), before);
}

/// A writer killed at any moment leaves the old tree or the new one whole (every page of one
/// generation), and the next replacement sweeps what the killed one staged.
#[test]
fn a_tree_writer_killed_at_random_leaves_one_whole_generation() {
    if let Ok(root) = std::env::var("DOCFORGE_TREE_CHILD") {
        let w = ProjectWriter::new(Path::new(&root));
        for g in 2u32.. {
            w.replace_tree("site", &site(g, 200), OWNER).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let w = ProjectWriter::new(dir.path());
    w.replace_tree("site", &site(1, 200), OWNER).unwrap();
    for round in 0..8u64 {
        let mut child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", "a_tree_writer_killed_at_random_leaves_one_whole_generation", "--nocapture"])
            .env("DOCFORGE_TREE_CHILD", dir.path())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(std::time::Duration::from_millis(30 + 19 * round));
        child.kill().unwrap();
        child.wait().unwrap();
        let pages: Vec<String> = (0..200)
            .map(|i| fs::read_to_string(dir.path().join(format!("site/p/{i}.html"))).unwrap())
            .collect();
        let generation = pages[0].split(' ').nth(1).unwrap().to_string();
        assert!(
            pages.iter().enumerate().all(|(i, p)| *p == format!("generation {generation} page {i}")),
            "round {round}: pages of one generation"
        );
    }
    w.replace_tree("site", &site(99, 1), OWNER).unwrap();
    let names: Vec<String> =
        fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
    assert_eq!(names, ["site"], "stages of killed writers are swept");
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

fn set_mode(path: &Path, m: u32) {
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(path, fs::Permissions::from_mode(m)).unwrap();
}

/// A file that is replaced keeps its permissions, in a single write and in a transaction
/// (committed, rolled back, or recovered after a crash at any step); a new file is 0644 less
/// the umask.
#[test]
fn replaced_files_keep_their_permissions() {
    let dir = tempfile::tempdir().unwrap();
    let w = ProjectWriter::new(dir.path());
    for m in [0o600, 0o755, 0o640] {
        let p = dir.path().join("secret.md");
        fs::write(&p, "old").unwrap();
        set_mode(&p, m);
        w.write("secret.md", b"new", Durability::Durable).unwrap();
        assert_eq!((fs::read_to_string(&p).unwrap().as_str(), mode(&p)), ("new", m), "{m:o}");
    }
    w.write("fresh.md", b"x", Durability::Durable).unwrap();
    assert_eq!(mode(&dir.path().join("fresh.md")) & 0o644, mode(&dir.path().join("fresh.md")));
    // Never set-user-ID (or set-group-ID, or sticky); always readable and writable by the
    // writer, which reads back what it wrote.
    for (before, after) in [(0o4755, 0o755), (0o2640, 0o640), (0o1644, 0o644), (0o064, 0o664), (0o444, 0o644)]
    {
        let p = dir.path().join("odd.md");
        let _ = fs::remove_file(&p);
        fs::write(&p, "old").unwrap();
        set_mode(&p, before);
        w.write("odd.md", b"new", Durability::Durable).unwrap();
        assert_eq!(mode(&p), after, "{before:o}");
    }

    // A transaction: the rewritten file keeps 0600, committed or rolled back.
    let (dir, changes) = project();
    let a = dir.path().join("docs/a.md");
    set_mode(&a, 0o600);
    let w = ProjectWriter::new(dir.path());
    w.commit_verified(JOURNAL, &changes, &|| Err("no".into())).unwrap_err();
    assert_eq!((documents(dir.path()), mode(&a)), (old(), 0o600));
    w.commit(JOURNAL, &changes).unwrap();
    assert_eq!((documents(dir.path()), mode(&a)), (new(), 0o600));
    assert_eq!(mode(&dir.path().join("docs/new/c.md")) & 0o644, mode(&dir.path().join("docs/new/c.md")));
    // Recovered after a crash at every step: old or new bytes, the mode kept.
    for steps in 0..=11 {
        let (dir, changes) = project();
        let a = dir.path().join("docs/a.md");
        set_mode(&a, 0o600);
        let w = ProjectWriter::new(dir.path());
        w.commit_interrupted(JOURNAL, &changes, steps, &|| Ok(())).unwrap_err();
        w.recover(JOURNAL).unwrap();
        assert_eq!(mode(&a), 0o600, "step {steps}");
    }
}

/// A transaction undone (a failed verification, a crash before it completed) takes away the
/// directories it created for new files; one completed keeps them; a directory another
/// writer put a file in meanwhile stays.
#[test]
fn an_undone_transaction_leaves_no_directory_it_created() {
    let new_dir = |root: &Path| root.join("docs/new").exists();
    let (dir, changes) = project();
    let w = ProjectWriter::new(dir.path());
    w.commit_verified(JOURNAL, &changes, &|| Err("no".into())).unwrap_err();
    assert_eq!(documents(dir.path()), old());
    assert!(!new_dir(dir.path()) && dir.path().join("docs").is_dir());
    for steps in 0..=11 {
        let (dir, changes) = project();
        let w = ProjectWriter::new(dir.path());
        w.commit_interrupted(JOURNAL, &changes, steps, &|| Ok(())).unwrap_err();
        let recovery = w.recover(JOURNAL).unwrap();
        assert_eq!(new_dir(dir.path()), recovery == Recovery::Completed, "step {steps} ({recovery:?})");
    }
    // Deeper: every level created goes; a level holding another writer's file stays.
    let (dir, _) = project();
    let w = ProjectWriter::new(dir.path());
    let deep = [Change { path: "docs/x/y/z.md".into(), after: Some(b"z".to_vec()), expect: Some(None) }];
    w.commit_verified(JOURNAL, &deep, &|| Err("no".into())).unwrap_err();
    assert!(!dir.path().join("docs/x").exists());
    let other = std::cell::Cell::new(false);
    w.commit_verified(JOURNAL, &deep, &|| {
        fs::write(dir.path().join("docs/x/mine.md"), "kept").unwrap();
        other.set(true);
        Err("no".into())
    })
    .unwrap_err();
    assert!(other.get());
    assert_eq!(fs::read_to_string(dir.path().join("docs/x/mine.md")).unwrap(), "kept");
    assert!(!dir.path().join("docs/x/y").exists());
    // Removing a file that is not there creates no directory.
    let gone = [Change { path: "docs/gone/x.md".into(), after: None, expect: None }];
    w.commit(JOURNAL, &gone).unwrap();
    assert!(!dir.path().join("docs/gone").exists());
}
