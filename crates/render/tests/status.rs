//! The render status, through the library: what the cheap status answers for each state of a
//! published view (table), that it never opens the index, and what the deep status compares.

mod common;

use common::{shop_copy, Indexed};
use docforge_project::Project;
use docforge_render::{deep_status, receipt_path, status, SourcesCheck, ViewStatus};
use docforge_workspace::ReceiptState;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

/// A copy of the shop with both views published.
fn published() -> (tempfile::TempDir, Indexed) {
    let dir = shop_copy();
    let ix = Indexed::new(dir.path());
    for view in ["architecture", "pages"] {
        ix.publish(&ix.view(view));
    }
    (dir, ix)
}

fn architecture_status(root: &Path) -> ViewStatus {
    let project = Project::load(root).unwrap();
    let view = project.config.views.iter().find(|v| v.id == "architecture").unwrap().clone();
    status(&project, &view)
}

fn append(path: &Path, text: &str) {
    let mut bytes = fs::read(path).unwrap();
    bytes.extend_from_slice(text.as_bytes());
    fs::write(path, bytes).unwrap();
}

/// Rewrite the architecture view's receipt as one written by code with the fingerprint `code` (`""`: a
/// build from before receipts recorded it), its hash made anew so that it verifies.
fn receipt_of_code(root: &Path, code: &str) {
    let path = receipt_path(root, "architecture");
    let mut receipt: docforge_render::RenderReceipt =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    assert_eq!(receipt.code, docforge_render::receipt::code_fingerprint());
    receipt.code = code.into();
    receipt.receipt_hash = docforge_db::receipt::canonical_hash(&mut receipt, |r| &mut r.receipt_hash);
    fs::write(&path, serde_json::to_vec(&receipt).unwrap()).unwrap();
}

/// Replace `path` by a new file (another inode) with the same bytes.
fn rewrite_as_new_file(path: &Path) {
    let bytes = fs::read(path).unwrap();
    let tmp = path.with_extension("tmp");
    fs::write(&tmp, bytes).unwrap();
    fs::rename(&tmp, path).unwrap();
}

fn flip_one_hex_digit(json: &str, key: &str) -> String {
    let at =
        json.find(&format!("\"{key}\":\"")).unwrap_or_else(|| panic!("{key} in the receipt")) + key.len() + 4;
    let digit = json.as_bytes()[at];
    let flipped = if digit == b'0' { '1' } else { '0' };
    format!("{}{flipped}{}", &json[..at], &json[at + 1..])
}

#[test]
fn no_receipt_is_unverified() {
    let dir = shop_copy();
    let _ix = Indexed::new(dir.path());
    let st = architecture_status(dir.path());
    assert_eq!(st.state, ReceiptState::Unverified, "{st:?}");
    assert!(st.reason.contains("never rendered"), "{}", st.reason);
    assert!(st.receipt.is_none());
}

type Change = fn(&Path);

/// Each change to a published view, the state the cheap status then answers and what its
/// reason says.
fn cases() -> &'static [(&'static str, Change, ReceiptState, &'static str)] {
    &[
        ("untouched", |_| {}, ReceiptState::Current, "are the ones the receipt binds"),
        (
            "an input document edited",
            |r| append(&r.join("docs/arch/storage.md"), "\nMore.\n"),
            ReceiptState::Stale,
            "docs/arch/storage.md changed since the render",
        ),
        (
            "a document outside the view edited",
            |r| append(&r.join("docs/guide/getting-started.md"), "\nMore.\n"),
            ReceiptState::Stale,
            "sources outside the view changed",
        ),
        (
            "a Go file edited",
            |r| append(&r.join("storage/storage.go"), "\n// more\n"),
            ReceiptState::Stale,
            "sources outside the view changed",
        ),
        (
            "a new document",
            |r| fs::write(r.join("docs/new.md"), "# New\n").unwrap(),
            ReceiptState::Stale,
            "sources outside the view changed",
        ),
        (
            "an output file deleted",
            |r| fs::remove_file(r.join("site/architecture/docs/arch/storage.html")).unwrap(),
            ReceiptState::Missing,
            "site/architecture/docs/arch/storage.html does not exist",
        ),
        (
            "the output directory deleted",
            |r| fs::remove_dir_all(r.join("site/architecture")).unwrap(),
            ReceiptState::Missing,
            "does not exist",
        ),
        (
            "an output file modified in place",
            |r| append(&r.join("site/architecture/index.html"), "<!-- edited -->"),
            ReceiptState::Stale,
            "site/architecture/index.html changed since the render",
        ),
        (
            "an output file replaced by the same bytes",
            |r| rewrite_as_new_file(&r.join("site/architecture/index.html")),
            ReceiptState::Stale,
            "site/architecture/index.html changed since the render",
        ),
        (
            "a file added to the output",
            |r| fs::write(r.join("site/architecture/docs/extra.html"), "<p>not rendered</p>").unwrap(),
            ReceiptState::Stale,
            "site/architecture/docs/extra.html is not a file of the render",
        ),
        (
            "a symlink added to the output",
            |r| symlink(r.join("docs/notes.md"), r.join("site/architecture/notes.md")).unwrap(),
            ReceiptState::Stale,
            "site/architecture/notes.md is not a file of the render",
        ),
        (
            "an empty directory added to the output",
            |r| fs::create_dir(r.join("site/architecture/empty")).unwrap(),
            ReceiptState::Current,
            "are the ones the receipt binds",
        ),
        (
            "an output file replaced by a symlink",
            |r| {
                let page = r.join("site/architecture/docs/arch/storage.html");
                fs::rename(&page, r.join("stolen.html")).unwrap();
                symlink(r.join("stolen.html"), &page).unwrap();
            },
            ReceiptState::Unsafe,
            "site/architecture/docs/arch/storage.html is a symlink",
        ),
        (
            "the output directory replaced by a symlink",
            |r| {
                fs::rename(r.join("site/architecture"), r.join("elsewhere")).unwrap();
                symlink(r.join("elsewhere"), r.join("site/architecture")).unwrap();
            },
            ReceiptState::Unsafe,
            "site/architecture is a symlink",
        ),
        (
            "an output subdirectory replaced by a symlink",
            |r| {
                fs::rename(r.join("site/architecture/docs"), r.join("elsewhere")).unwrap();
                symlink(r.join("elsewhere"), r.join("site/architecture/docs")).unwrap();
            },
            ReceiptState::Unsafe,
            "site/architecture/docs is a symlink",
        ),
        (
            "an input document replaced by a symlink",
            |r| {
                fs::rename(r.join("docs/arch/storage.md"), r.join("storage.md")).unwrap();
                symlink(r.join("storage.md"), r.join("docs/arch/storage.md")).unwrap();
            },
            ReceiptState::Unsafe,
            "docs/arch/storage.md is a symlink",
        ),
        (
            "one hex digit of an output hash changed in the receipt",
            |r| {
                let path = receipt_path(r, "architecture");
                let json = fs::read_to_string(&path).unwrap();
                fs::write(&path, flip_one_hex_digit(&json, "sha256")).unwrap();
            },
            ReceiptState::Unverified,
            "the receipt hash does not match its content",
        ),
        (
            "one hex digit of the receipt hash changed",
            |r| {
                let path = receipt_path(r, "architecture");
                let json = fs::read_to_string(&path).unwrap();
                fs::write(&path, flip_one_hex_digit(&json, "receipt_hash")).unwrap();
            },
            ReceiptState::Unverified,
            "the receipt hash does not match its content",
        ),
        (
            "a torn receipt",
            |r| {
                let path = receipt_path(r, "architecture");
                let bytes = fs::read(&path).unwrap();
                fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
            },
            ReceiptState::Unverified,
            "not a version-1 receipt",
        ),
        (
            "an empty receipt",
            |r| fs::write(receipt_path(r, "architecture"), b"").unwrap(),
            ReceiptState::Unverified,
            "not a version-1 receipt",
        ),
        (
            "the receipt of another view",
            |r| fs::copy(receipt_path(r, "pages"), receipt_path(r, "architecture")).map(drop).unwrap(),
            ReceiptState::Unverified,
            "another project, root or view",
        ),
        (
            "the receipt is a symlink",
            |r| {
                let path = receipt_path(r, "architecture");
                fs::rename(&path, r.join("receipt.json")).unwrap();
                symlink(r.join("receipt.json"), &path).unwrap();
            },
            ReceiptState::Unsafe,
            "symlink",
        ),
        (
            "the pages of another build of the same version",
            |r| receipt_of_code(r, "0123456789abcdef.0123456789abcdef"),
            ReceiptState::Stale,
            "written by another build of DocForge",
        ),
        (
            "the pages of a build from before builds were recorded",
            |r| receipt_of_code(r, ""),
            ReceiptState::Stale,
            "written by another build of DocForge",
        ),
        (
            "the view's declaration changed",
            |r| {
                let toml = fs::read_to_string(r.join("docforge.toml")).unwrap();
                let changed =
                    toml.replace("family = [\"architecture\"]", "family = [\"architecture\", \"guide\"]");
                assert_ne!(toml, changed);
                fs::write(r.join("docforge.toml"), changed).unwrap();
            },
            ReceiptState::Stale,
            "the view's declaration in docforge.toml changed",
        ),
        (
            "another view's declaration changed",
            |r| {
                let toml = fs::read_to_string(r.join("docforge.toml")).unwrap();
                let changed = toml.replace("output = \"site/pages\"", "output = \"site/all\"");
                assert_ne!(toml, changed);
                fs::write(r.join("docforge.toml"), changed).unwrap();
            },
            ReceiptState::Current,
            "are the ones the receipt binds",
        ),
    ]
}

#[test]
fn each_state_of_a_published_view() {
    for (name, change, state, reason) in cases() {
        let (dir, ix) = published();
        assert_eq!(architecture_status(dir.path()).state, ReceiptState::Current, "{name}: before");
        drop(ix);
        change(dir.path());
        let st = architecture_status(dir.path());
        assert_eq!(st.state, *state, "{name}: {st:?}");
        assert!(st.reason.contains(reason), "{name}: reason {:?} does not say {reason:?}", st.reason);
        // The receipt is given whenever it verified (the verdict is then about what it binds).
        assert_eq!(st.receipt.is_some(), !name.contains("receipt"), "{name}: {st:?}");
    }
}

/// The same table for sources older than the racy window when the view was published: the
/// receipt's walk witness then stands for a walk of the project (an untouched project is
/// `current` without one), and every change is still seen.
#[test]
fn each_state_of_a_view_published_from_settled_sources() {
    let dirs: Vec<_> = cases().iter().map(|_| shop_copy()).collect();
    std::thread::sleep(docforge_project::RACY_WINDOW + std::time::Duration::from_millis(200));
    for ((name, change, state, reason), dir) in cases().iter().zip(&dirs) {
        let ix = Indexed::new(dir.path());
        for view in ["architecture", "pages"] {
            ix.publish(&ix.view(view));
        }
        drop(ix);
        let before = architecture_status(dir.path());
        assert_eq!(before.state, ReceiptState::Current, "{name}: before");
        assert_eq!(before.sources_checked, SourcesCheck::Witness, "{name}: before");
        change(dir.path());
        let st = architecture_status(dir.path());
        assert_eq!(st.state, *state, "{name}: {st:?}");
        assert!(st.reason.contains(reason), "{name}: reason {:?} does not say {reason:?}", st.reason);
    }
}

/// The project copied elsewhere: its receipts name another root and prove nothing there.
#[test]
fn a_receipt_of_another_root_is_unverified() {
    let (dir, ix) = published();
    drop(ix);
    let copy = tempfile::tempdir().unwrap();
    let ok = std::process::Command::new("cp")
        .arg("-a")
        .arg(format!("{}/.", dir.path().display()))
        .arg(copy.path())
        .status()
        .unwrap();
    assert!(ok.success());
    let st = architecture_status(copy.path());
    assert_eq!(st.state, ReceiptState::Unverified, "{st:?}");
    assert!(st.reason.contains("another project, root or view"), "{}", st.reason);
}

/// The cheap status reads the receipt and stats files: with the index replaced by garbage it
/// still answers `current`, while the deep status, which needs the index, cannot.
#[test]
fn the_cheap_status_never_opens_the_index() {
    let (dir, ix) = published();
    let index_path = ix.workspace.index_path().to_path_buf();
    drop(ix);
    for suffix in ["-wal", "-shm"] {
        let _ = fs::remove_file(format!("{}{suffix}", index_path.display()));
    }
    fs::write(&index_path, b"this is not an SQLite database, not even close; garbage garbage garbage")
        .unwrap();
    let st = architecture_status(dir.path());
    assert_eq!(st.state, ReceiptState::Current, "{st:?}");
    let Err(err) = docforge_index::Index::open_read_only(&index_path) else {
        panic!("garbage opened as an index")
    };
    assert!(!err.to_string().is_empty());
}

#[test]
fn the_deep_status_compares_every_output() {
    let (dir, ix) = published();
    let project = ix.project().clone();
    for id in ["architecture", "pages"] {
        let view = ix.view(id);
        let deep = deep_status(&project, &view, ix.workspace.index(), &common::claims()).unwrap();
        assert!(deep.equivalent, "{id}: {:?}", deep.differing);
        assert!(deep.differing.is_empty());
    }
    let view = ix.view("architecture");
    append(&dir.path().join("site/architecture/docs/arch/service.html"), "<!-- edited -->");
    let deep = deep_status(&project, &view, ix.workspace.index(), &common::claims()).unwrap();
    assert!(!deep.equivalent);
    assert_eq!(deep.differing, ["docs/arch/service.html"]);
    // A file that is gone differs too; the other view is untouched.
    fs::remove_file(dir.path().join("site/architecture/index.html")).unwrap();
    let deep = deep_status(&project, &view, ix.workspace.index(), &common::claims()).unwrap();
    assert_eq!(deep.differing, ["docs/arch/service.html", "index.html"]);
    // And so does a file that is on disk only.
    fs::write(dir.path().join("site/architecture/docs/extra.html"), "<p>not rendered</p>").unwrap();
    let deep = deep_status(&project, &view, ix.workspace.index(), &common::claims()).unwrap();
    assert_eq!(deep.differing, ["docs/arch/service.html", "docs/extra.html", "index.html"]);
    let pages = deep_status(&project, &ix.view("pages"), ix.workspace.index(), &common::claims()).unwrap();
    assert!(pages.equivalent, "{:?}", pages.differing);
}

/// An output declared as `./site/architecture/` is the directory `site/architecture`: published
/// there, and current afterwards.
#[test]
fn an_output_spelled_with_dot_and_slash_is_its_directory() {
    let dir = shop_copy();
    let toml = fs::read_to_string(dir.path().join("docforge.toml")).unwrap();
    fs::write(
        dir.path().join("docforge.toml"),
        toml.replace("output = \"site/architecture\"", "output = \"./site//architecture/\""),
    )
    .unwrap();
    let ix = Indexed::new(dir.path());
    let view = ix.view("architecture");
    assert_eq!(view.output, "./site//architecture/");
    let published = ix.publish(&view);
    assert_eq!(published.receipt.view.output, "site/architecture");
    assert!(dir.path().join("site/architecture/docs/arch/storage.html").is_file());
    assert_eq!(architecture_status(dir.path()).state, ReceiptState::Current);
    let deep = deep_status(ix.project(), &view, ix.workspace.index(), &common::claims()).unwrap();
    assert!(deep.equivalent, "{:?}", deep.differing);
    // Published again over itself.
    ix.publish(&view);
    assert_eq!(architecture_status(dir.path()).state, ReceiptState::Current);
}
