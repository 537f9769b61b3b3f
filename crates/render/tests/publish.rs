//! Publication is all or nothing at the render level: once a view is published, a later
//! publication that fails — staging interrupted after any number of files, a replacement the
//! writer refuses, a receipt that cannot be written — leaves the previous output and its
//! receipt byte for byte as they were, and the view `current`.

mod common;

use common::{shop_copy, Indexed};
use docforge_render::{publish_failing_after, receipt_path, status, RenderError};
use docforge_workspace::ReceiptState;
use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

/// Every entry under `root` (the index files excepted): path → file bytes, symlink target or
/// `dir`.
fn tree(root: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if rel.starts_with(".docforge/index.") {
                continue;
            }
            let ft = e.file_type().unwrap();
            if ft.is_symlink() {
                out.insert(rel, format!("-> {}", fs::read_link(&path).unwrap().display()).into_bytes());
            } else if ft.is_dir() {
                out.insert(rel, b"dir".to_vec());
                walk(root, &path, out);
            } else {
                out.insert(rel, fs::read(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(root, root, &mut out);
    out
}

/// Fails naming the entries that were added, removed or changed.
fn assert_same_tree(before: &BTreeMap<String, Vec<u8>>, after: &BTreeMap<String, Vec<u8>>, what: &str) {
    let added: Vec<&String> = after.keys().filter(|k| !before.contains_key(*k)).collect();
    let removed: Vec<&String> = before.keys().filter(|k| !after.contains_key(*k)).collect();
    let changed: Vec<&String> =
        before.keys().filter(|k| after.get(*k).is_some_and(|v| v != &before[*k])).collect();
    assert!(
        added.is_empty() && removed.is_empty() && changed.is_empty(),
        "{what}: added {added:?}, removed {removed:?}, changed {changed:?}"
    );
}

/// A shop with the architecture view published, then a source edited and re-indexed so that
/// the next render differs from what is published.
fn published_then_edited() -> (tempfile::TempDir, Indexed, docforge_render::Rendered) {
    let dir = shop_copy();
    let mut ix = Indexed::new(dir.path());
    let view = ix.view("architecture");
    ix.publish(&view);
    let storage = dir.path().join("docs/arch/storage.md");
    let text = fs::read_to_string(&storage).unwrap();
    fs::write(&storage, text.replace("# Storage", "# Storage, revised")).unwrap();
    ix.synced = ix.workspace.ensure_current(true).unwrap();
    let next = ix.render(&view);
    (dir, ix, next)
}

fn architecture_state(ix: &Indexed) -> ReceiptState {
    status(ix.project(), &ix.view("architecture")).state
}

#[test]
fn staging_interrupted_after_any_file_changes_nothing() {
    let (dir, ix, next) = published_then_edited();
    let view = ix.view("architecture");
    let before = tree(dir.path());
    assert!(before.contains_key("site/architecture/.docforge-output"));
    // Every output file, then the marker: fail before each one.
    for budget in 0..=next.files.len() {
        let err = publish_failing_after(
            ix.project(),
            &view,
            &next,
            ix.stamp(),
            ix.synced.generation.cheap_identity.clone(),
            budget,
        )
        .expect_err("injected failure");
        assert!(matches!(err, RenderError::Write(_)), "{err}");
        assert!(err.to_string().contains("injected failure"), "{err}");
        assert_same_tree(&before, &tree(dir.path()), &format!("after a failure at file {budget}"));
    }
    // The sources changed, so the published view is stale — but it is the one published.
    assert_eq!(architecture_state(&ix), ReceiptState::Stale);
    // And the same publication without the injected failure goes through.
    ix.publish(&view);
    assert_ne!(tree(dir.path()), before);
    assert_eq!(architecture_state(&ix), ReceiptState::Current);
}

#[test]
fn a_refused_replacement_changes_nothing() {
    let (dir, ix, next) = published_then_edited();
    let view = ix.view("architecture");
    // The output directory now says another view wrote it.
    fs::write(dir.path().join("site/architecture/.docforge-output"), "docforge view pages\n").unwrap();
    let before = tree(dir.path());
    let err = docforge_render::publish(ix.project(), &view, &next, ix.stamp(), String::new())
        .expect_err("not ours");
    assert!(err.to_string().contains("site/architecture"), "{err}");
    assert!(err.to_string().contains(".docforge-output"), "{err}");
    assert_same_tree(&before, &tree(dir.path()), "after the refusal");
}

#[test]
fn a_receipt_that_cannot_be_written_leaves_the_previous_output() {
    let (dir, ix, next) = published_then_edited();
    let view = ix.view("architecture");
    // The receipt directory becomes a symlink: the writer refuses to write through it.
    let receipts = receipt_path(dir.path(), "architecture").parent().unwrap().to_path_buf();
    fs::rename(&receipts, dir.path().join("moved-receipts")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("moved-receipts"), &receipts).unwrap();
    let before = tree(dir.path());
    let err = docforge_render::publish(ix.project(), &view, &next, ix.stamp(), String::new())
        .expect_err("the receipt cannot be written");
    assert!(err.to_string().contains("symlink"), "{err}");
    assert_same_tree(&before, &tree(dir.path()), "the previous output is back in place");
}

#[test]
fn a_first_publication_that_fails_leaves_no_output() {
    let dir = shop_copy();
    let ix = Indexed::new(dir.path());
    let view = ix.view("architecture");
    let rendered = ix.render(&view);
    // The output's parent holds something of the user's (the writer creates missing parents
    // before staging, and leaves them).
    fs::create_dir(dir.path().join("site")).unwrap();
    fs::write(dir.path().join("site/README.md"), "not a source").unwrap();
    fs::create_dir_all(dir.path().join(".docforge/receipts")).unwrap();
    fs::create_dir(dir.path().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(dir.path().join("elsewhere"), dir.path().join(".docforge/receipts/render"))
        .unwrap();
    let before = tree(dir.path());
    for budget in [0, 1, rendered.files.len()] {
        publish_failing_after(ix.project(), &view, &rendered, ix.stamp(), String::new(), budget)
            .expect_err("injected failure");
        assert_same_tree(&before, &tree(dir.path()), &format!("budget {budget}"));
    }
    docforge_render::publish(ix.project(), &view, &rendered, ix.stamp(), String::new())
        .expect_err("the receipt cannot be written");
    assert_same_tree(&before, &tree(dir.path()), "no output without its receipt");
}

/// A document edited after the index was published cannot be rendered from it: the reader's
/// bytes are not those the index holds, the render fails naming the file, and since there is
/// nothing rendered, nothing can be published.
#[test]
fn a_source_edited_after_indexing_is_not_rendered() {
    let dir = shop_copy();
    let ix = Indexed::new(dir.path());
    let view = ix.view("architecture");
    ix.publish(&view);
    let before = tree(dir.path());
    let project = ix.project();
    let limit = project.config.limits.max_file_bytes;
    let edited = |rel: &str| {
        let mut bytes =
            docforge_project::read_source(&project.root, rel, limit).map_err(|e| e.to_string())?;
        if rel == "docs/arch/storage.md" {
            bytes.extend_from_slice(b"\nEdited after indexing.\n");
        }
        Ok(bytes)
    };
    let Err(err) =
        docforge_render::render_view(&project.id, ix.workspace.index(), &view, &edited, &common::claims())
    else {
        panic!("rendered from bytes that are not the indexed ones")
    };
    assert!(matches!(&err, RenderError::SourceChanged { path } if path == "docs/arch/storage.md"), "{err:?}");
    assert!(err.to_string().contains("docs/arch/storage.md changed since the index was published"), "{err}");
    // A reader that fails names the file too.
    let failing = |rel: &str| -> Result<Vec<u8>, String> { Err(format!("{rel} is gone")) };
    let Err(err) =
        docforge_render::render_view(&project.id, ix.workspace.index(), &view, &failing, &common::claims())
    else {
        panic!("rendered without sources")
    };
    assert_eq!(err.to_string(), "cannot read docs/arch/service.md: docs/arch/service.md is gone");
    assert_same_tree(&before, &tree(dir.path()), "rendering writes nothing");
    assert_eq!(architecture_state(&ix), ReceiptState::Current);
}
