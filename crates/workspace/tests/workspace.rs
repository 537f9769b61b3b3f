//! The binding as a specification: which precision and index a process gets, when the
//! published index is proven current, adopted or rebuilt, and what the receipt reader says.

use docforge_workspace::{Options, Precision, ReceiptState, Staleness, Workspace, WorkspaceError};
use std::fs;
use std::path::Path;

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(p, text).unwrap();
}

/// A small project: a Go module with an interface and its implementation, two documents.
fn project(config: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "docforge.toml", &format!("schema_version = 1\n{config}"));
    write(root, "go.mod", "module example.com/m\n\ngo 1.22\n");
    write(root, "m.go", "package m\n\ntype S interface{ Run() }\n\ntype T struct{}\n\nfunc (T) Run() { helper() }\n\nfunc helper() {}\n");
    write(root, "docs/a.md", "+++\nid = \"a\"\n+++\n# A\n\nSee [b](b.md).\n");
    write(root, "docs/b.md", "# B\n\nText.\n");
    dir
}

fn bind(root: &Path, opts: Options) -> Workspace {
    Workspace::bind(root, opts).unwrap()
}

/// What a binding resolves to: its precision and index file, or the error code.
type Resolved = Result<(Precision, &'static str), &'static str>;

#[test]
fn a_process_gets_the_declared_precision_or_less_never_more() {
    let cases: &[(&str, Options, Resolved)] = &[
        ("", Options::default(), Ok((Precision::Precise, "index.sqlite"))),
        (
            "[analysis]\nprecision = \"precise\"\n",
            Options::default(),
            Ok((Precision::Precise, "index.sqlite")),
        ),
        ("[analysis]\nprecision = \"ast\"\n", Options::default(), Ok((Precision::Ast, "index.sqlite"))),
        (
            "",
            Options { require_precise: true, ..Default::default() },
            Ok((Precision::Precise, "index.sqlite")),
        ),
        ("", Options { no_ast: true, ..Default::default() }, Ok((Precision::NoAst, "index.no-ast.sqlite"))),
        ("", Options { no_precise: true, ..Default::default() }, Ok((Precision::Ast, "index.ast.sqlite"))),
        (
            "[analysis]\nprecision = \"ast\"\n",
            Options { no_precise: true, ..Default::default() },
            Ok((Precision::Ast, "index.sqlite")),
        ),
        (
            "[analysis]\nprecision = \"ast\"\n",
            Options { no_ast: true, ..Default::default() },
            Ok((Precision::NoAst, "index.no-ast.sqlite")),
        ),
        (
            "[analysis]\nprecision = \"ast\"\n",
            Options { require_precise: true, ..Default::default() },
            Err("precision_not_declared"),
        ),
    ];
    for (config, opts, want) in cases {
        let dir = project(config);
        let got = Workspace::bind(dir.path(), opts.clone())
            .map(|w| (w.precision(), w.index_path().file_name().unwrap().to_str().unwrap().to_string()));
        match (got, want) {
            (Ok((p, file)), Ok((wp, wfile))) => {
                assert_eq!((p, file.as_str()), (*wp, *wfile), "{config:?} {opts:?}")
            }
            (Err(e), Err(code)) => assert_eq!(e.code(), *code, "{config:?} {opts:?}: {e}"),
            (got, want) => {
                panic!("{config:?} {opts:?}: got {got:?}, want {want:?}", got = got.map_err(|e| e.code()))
            }
        }
        assert!(!dir.path().join(".docforge").exists(), "binding writes nothing");
    }
}

#[test]
fn the_index_is_published_adopted_and_republished_only_when_the_sources_move() {
    let dir = project("");
    let root = dir.path();
    let mut first = bind(root, Options::default());
    let synced = first.ensure_current(false).unwrap();
    assert_eq!((synced.staleness, synced.generation.revision), (Staleness::Rebuilt, 1));
    assert_eq!(synced.generation.precision, "precise");
    assert!(synced.stats.publish.is_some());
    // Proven current again without a publication.
    let again = first.ensure_current(false).unwrap();
    assert_eq!((again.staleness, again.generation.clone()), (Staleness::Current, synced.generation.clone()));
    drop(first);

    // A new process adopts the published generation without analysing.
    let mut second = bind(root, Options::default());
    let adopted = second.ensure_current(true).unwrap();
    assert_eq!(adopted.staleness, Staleness::Current);
    assert!(adopted.stats.publish.is_none() && adopted.stats.files_read == 0);
    assert_eq!(adopted.generation, synced.generation);
    drop(second);

    // A file touched without a change in content: the next process records its new stamp
    // (a new generation of the same graph), and the one after that adopts it.
    let p = root.join("docs/b.md");
    let later = fs::metadata(&p).unwrap().modified().unwrap() + std::time::Duration::from_secs(5);
    fs::File::options().write(true).open(&p).unwrap().set_modified(later).unwrap();
    let mut third = bind(root, Options::default());
    let touched = third.ensure_current(true).unwrap();
    assert_eq!(touched.staleness, Staleness::Rebuilt);
    assert_eq!(touched.generation.graph_digest, synced.generation.graph_digest, "the same graph");
    assert!(touched.generation.revision > synced.generation.revision, "{touched:?}");
    drop(third);
    let mut fourth = bind(root, Options::default());
    assert!(fourth.ensure_current(true).unwrap().stats.publish.is_none(), "adopted, not re-analysed");
}

/// Two builds of one version may derive different graphs from the same files: a generation
/// published by code with another derivation fingerprint is not trusted by its stamps. The
/// next process analyses and republishes it; the one after adopts that.
#[test]
fn an_index_derived_by_other_code_is_rederived_not_adopted() {
    let dir = project("");
    let root = dir.path();
    let synced = bind(root, Options::default()).ensure_current(false).unwrap();
    let index = root.join(".docforge/index.sqlite");
    let derivation = |value: Option<&str>| {
        let db = rusqlite::Connection::open(&index).unwrap();
        if let Some(v) = value {
            db.execute("UPDATE meta SET value = ?1 WHERE key = 'derivation'", [v]).unwrap();
        }
        db.query_row("SELECT value FROM meta WHERE key = 'derivation'", [], |r| r.get::<_, String>(0))
            .unwrap()
    };
    assert_eq!(derivation(None), docforge_db::DERIVATION);
    derivation(Some("another build"));

    let mut second = bind(root, Options::default());
    let rederived = second.ensure_current(true).unwrap();
    assert_eq!(rederived.staleness, Staleness::Rebuilt);
    assert!(rederived.stats.publish.is_some() && rederived.stats.files_read > 0, "{:?}", rederived.stats);
    assert_eq!(rederived.generation.graph_digest, synced.generation.graph_digest, "the same graph");
    drop(second);
    assert_eq!(derivation(None), docforge_db::DERIVATION);
    let mut third = bind(root, Options::default());
    assert!(third.ensure_current(true).unwrap().stats.publish.is_none(), "adopted, not re-analysed");
}

/// A file the walk selects but the engine refuses to read (here too large for the limit; an
/// unreadable one the same) is recorded with its stamp: while that stands the index is
/// current, and a new process adopts it instead of analysing again. Grown smaller, it is read.
#[test]
fn a_refused_file_keeps_the_index_current_until_it_changes() {
    let dir = project("[limits]\nmax_file_bytes = 200\n");
    let root = dir.path();
    write(root, "docs/big.md", &format!("# Big\n\n{}\n", "word ".repeat(100)));
    let synced = bind(root, Options::default()).ensure_current(false).unwrap();
    assert_eq!(synced.staleness, Staleness::Rebuilt);
    let mut second = bind(root, Options::default());
    let adopted = second.ensure_current(true).unwrap();
    assert_eq!(adopted.staleness, Staleness::Current);
    assert!(adopted.stats.publish.is_none(), "adopted, not re-analysed: {:?}", adopted.stats);
    assert!(second.ensure_current(false).unwrap().stats.publish.is_none(), "and current after");
    drop(second);

    write(root, "docs/big.md", "# Big\n\nSmall now.\n");
    let mut third = bind(root, Options::default());
    let read = third.ensure_current(true).unwrap();
    assert_eq!(read.staleness, Staleness::Rebuilt, "the file changed: it is read");
    assert!(third.index().search("small", 5).unwrap().iter().any(|h| h.id == "docs/big"));
}

/// DocForge writes its state through no symlink: a `.docforge` that is a symlink (to a
/// directory elsewhere) is refused, and nothing is written where it points.
#[test]
fn a_symlinked_state_directory_is_refused_and_nothing_is_written_through_it() {
    let dir = project("");
    let root = dir.path();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), root.join(".docforge")).unwrap();
    let err = bind(root, Options::default()).ensure_current(false).unwrap_err();
    assert!(err.to_string().contains(".docforge: is a symlink"), "{err}");
    assert_eq!(fs::read_dir(elsewhere.path()).unwrap().count(), 0, "nothing written through it");
}

/// With the change watcher on, what no event names is still seen: a symlink read through a
/// target that changed, a project root replaced by a copy, a write through a hard link
/// outside the project (found by a read of the node's bytes, after which the next call walks).
#[test]
fn the_watcher_hides_no_change() {
    let found = |ws: &mut Workspace, word: &str| {
        ws.ensure_current(false).unwrap();
        ws.index().search(word, 20).unwrap().into_iter().map(|h| h.id).collect::<Vec<_>>()
    };
    let watched = Options { watch: true, ..Default::default() };

    // A symlink inside the root, to a document that changes.
    let dir = project("");
    let root = dir.path();
    std::os::unix::fs::symlink("b.md", root.join("docs/alias.md")).unwrap();
    let mut ws = bind(root, watched.clone());
    assert!(found(&mut ws, "text").contains(&"docs/alias".to_string()));
    write(root, "docs/b.md", "# B\n\nzanzibar\n");
    let hits = found(&mut ws, "zanzibar");
    assert!(hits.contains(&"docs/b".to_string()) && hits.contains(&"docs/alias".to_string()), "{hits:?}");
    // A symlink to a file where no watch is (Git's directory): its change has no event.
    std::fs::create_dir(root.join(".git")).unwrap();
    write(root, ".git/notes.md", "# Notes\n\nfirst\n");
    std::os::unix::fs::symlink("../.git/notes.md", root.join("docs/notes.md")).unwrap();
    assert!(found(&mut ws, "first").contains(&"docs/notes".to_string()));
    write(root, ".git/notes.md", "# Notes\n\nsecond\n");
    assert!(found(&mut ws, "second").contains(&"docs/notes".to_string()), "seen without an event");
    drop(ws);

    // The root replaced by a copy: edits to the new tree are seen, call after call.
    let parent = tempfile::tempdir().unwrap();
    let root = parent.path().join("p");
    std::process::Command::new("cp").arg("-r").arg(dir.path()).arg(&root).status().unwrap();
    let mut ws = bind(&root, watched.clone());
    found(&mut ws, "zanzibar");
    std::fs::rename(&root, parent.path().join("old")).unwrap();
    std::process::Command::new("cp").arg("-r").arg(parent.path().join("old")).arg(&root).status().unwrap();
    for (i, word) in ["quokka", "numbat", "bilby"].iter().enumerate() {
        write(&root, "docs/b.md", &format!("# B\n\n{word}\n"));
        assert!(found(&mut ws, word).contains(&"docs/b".to_string()), "edit {i} after the copy");
    }
    drop(ws);

    // A write through a hard link outside the project.
    let mut ws = bind(&root, watched);
    found(&mut ws, "bilby");
    let outside = parent.path().join("link.md");
    std::fs::hard_link(root.join("docs/b.md"), &outside).unwrap();
    std::fs::write(&outside, "# B\n\nwombat\n").unwrap();
    let node = ws.index().node("docs/b").unwrap().unwrap().node;
    assert!(ws.node_source(&node).is_err(), "its bytes are not the index's");
    assert!(found(&mut ws, "wombat").contains(&"docs/b".to_string()), "the next call walked");
}

/// A binding's revisions only increase: after its index is deleted (or replaced by an older
/// one) the next publication is numbered after the highest it served, so one revision never
/// names two graphs for the same client.
#[test]
fn revisions_never_go_back_when_the_index_is_deleted() {
    let dir = project("");
    let root = dir.path();
    let mut ws = bind(root, Options::default());
    assert_eq!(ws.ensure_current(false).unwrap().generation.revision, 1);
    write(root, "docs/b.md", "# B\n\nOne edit.\n");
    assert_eq!(ws.ensure_current(false).unwrap().generation.revision, 2);
    fs::remove_dir_all(root.join(".docforge")).unwrap();
    write(root, "docs/b.md", "# B\n\nAnother edit.\n");
    let synced = ws.ensure_current(false).unwrap();
    assert_eq!((synced.staleness, synced.generation.revision), (Staleness::Rebuilt, 3));
    assert!(ws.index().search("another", 5).unwrap().iter().any(|h| h.id == "docs/b"));
}

/// A restricted process never writes the project's index: `--no-ast` binds an index of its
/// own, and the project's keeps its precision, inode and bytes.
#[test]
fn a_process_policy_never_rewrites_the_projects_index() {
    let dir = project("");
    let root = dir.path();
    let mut precise = bind(root, Options::default());
    precise.ensure_current(false).unwrap();
    drop(precise);
    let index = root.join(".docforge/index.sqlite");
    let before = (fs::read(&index).unwrap(), docforge_workspace::file_identity(&index));
    let mut no_ast = bind(root, Options { no_ast: true, ..Default::default() });
    let synced = no_ast.ensure_current(false).unwrap();
    assert_eq!(synced.generation.precision, "none");
    assert!(!no_ast.index().has_logic().unwrap());
    assert_eq!(no_ast.index_path(), root.join(".docforge/index.no-ast.sqlite"));
    drop(no_ast);
    assert_eq!((fs::read(&index).unwrap(), docforge_workspace::file_identity(&index)), before);
    let mut again = bind(root, Options::default());
    let adopted = again.ensure_current(true).unwrap();
    assert_eq!((adopted.staleness, adopted.generation.precision.as_str()), (Staleness::Current, "precise"));
    assert!(again.index().has_logic().unwrap());
}

#[test]
fn a_changed_configuration_stales_a_long_lived_binding() {
    let dir = project("");
    let root = dir.path();
    let mut w = bind(root, Options::default());
    w.ensure_current(false).unwrap();
    write(root, "docforge.toml", "schema_version = 1\n[analysis]\nprecision = \"ast\"\n");
    let err = w.ensure_current(false).unwrap_err();
    assert!(matches!(err, WorkspaceError::BindingChanged), "{err}");
    assert_eq!(err.code(), "adapter_restart_required");
}

/// With the watcher on, writes into derived directories (a view's output, the state
/// directory) are not source changes: the index is proven current without a walk.
#[test]
fn writes_into_derived_directories_are_not_changes() {
    let dir = project("[[views]]\nid = \"site\"\nrenderer = \"html-site@1\"\noutput = \"site/out\"\n");
    let root = dir.path();
    fs::create_dir_all(root.join("site/out")).unwrap();
    let mut w = bind(root, Options { watch: true, ..Default::default() });
    w.ensure_current(false).unwrap();
    write(root, "site/out/page.md", "# A rendered page\n");
    write(root, ".docforge/previews/p/x.md", "# A preview\n");
    let quiet = w.ensure_current(false).unwrap();
    assert_eq!(quiet.staleness, Staleness::Current);
    assert!(!quiet.stats.walked, "proven by the watcher alone");
    write(root, "docs/b.md", "# B\n\nNew text.\n");
    let edited = w.ensure_current(false).unwrap();
    assert_eq!((edited.staleness, edited.stats.files_read), (Staleness::Rebuilt, 1));
    assert!(!edited.stats.walked, "only the touched file was re-stamped");
}

/// The transition receipt through the one fail-closed reader: each state, with nothing
/// repaired or written by reading.
#[test]
fn the_generation_receipt_is_read_fail_closed() {
    let dir = project("");
    let root = dir.path();
    let mut w = bind(root, Options::default());
    assert_eq!(w.generation_receipt().state, ReceiptState::Missing);
    w.ensure_current(false).unwrap();
    let status = w.generation_receipt();
    assert_eq!(status.state, ReceiptState::Current, "{}", status.reason);
    let receipt = status.receipt.unwrap();
    assert_eq!(receipt.to.generation, 1);

    write(root, "docs/b.md", "# B\n\nChanged.\n");
    assert_eq!(w.generation_receipt().state, ReceiptState::Stale);
    let path = root.join(".docforge/receipts/generation-diff.v1.json");
    let bytes = fs::read(&path).unwrap();

    // Tampered content fails its hash; a torn file does not parse.
    let tampered =
        String::from_utf8(bytes.clone()).unwrap().replacen("\"generation\":1", "\"generation\":7", 1);
    assert_ne!(tampered.as_bytes(), &bytes[..]);
    fs::write(&path, tampered).unwrap();
    assert_eq!(w.generation_receipt().state, ReceiptState::Unverified);
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    assert_eq!(w.generation_receipt().state, ReceiptState::Unverified);

    // Through a symlink: never read.
    let elsewhere = root.join("elsewhere.json");
    fs::write(&elsewhere, &bytes).unwrap();
    fs::remove_file(&path).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &path).unwrap();
    let status = w.generation_receipt();
    assert_eq!(status.state, ReceiptState::Unsafe, "{}", status.reason);
    fs::remove_file(&path).unwrap();
    let receipts = root.join(".docforge/receipts");
    fs::rename(&receipts, root.join("moved")).unwrap();
    std::os::unix::fs::symlink(root.join("moved"), &receipts).unwrap();
    assert_eq!(w.generation_receipt().state, ReceiptState::Unsafe);
}
