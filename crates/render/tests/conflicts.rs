//! Two sources never share a page: a document whose page would be the site's own index, or two
//! documents whose pages would have the same path, make the render fail naming both — before
//! anything is written — instead of a publication failing halfway with an I/O error.

mod common;

use common::{shop_copy, write, Indexed};
use docforge_render::RenderError;

fn render_err(ix: &Indexed, view: &str) -> RenderError {
    let project = ix.project();
    let limit = project.config.limits.max_file_bytes;
    let read =
        |rel: &str| docforge_project::read_source(&project.root, rel, limit).map_err(|e| e.to_string());
    match docforge_render::render_view(
        &project.id,
        ix.workspace.index(),
        &ix.view(view),
        &read,
        &common::claims(),
    ) {
        Ok(r) => panic!("pages conflict expected, rendered {:?}", common::paths(&r)),
        Err(e) => e,
    }
}

#[test]
fn a_document_at_the_site_index_is_refused() {
    let dir = shop_copy();
    let root = dir.path();
    write(root, "index.md", "# Home\n\nStart with [storage](docs/arch/storage.md).\n");
    let toml = std::fs::read_to_string(root.join("docforge.toml")).unwrap();
    let toml = toml.replace("docs = [\"docs/**/*.md\"", "docs = [\"index.md\", \"docs/**/*.md\"");
    std::fs::write(root.join("docforge.toml"), format!(
        "{toml}\n[[views]]\nid = \"home\"\nrenderer = \"html-site@1\"\nselect = {{ paths = [\"index.md\", \"docs/arch/*\"] }}\noutput = \"site/home\"\n"
    ))
    .unwrap();
    let ix = Indexed::new(root);
    let err = render_err(&ix, "home");
    assert!(matches!(&err, RenderError::PageConflict { page, .. } if page == "index.html"), "{err:?}");
    assert_eq!(
        err.to_string(),
        "index.md and the site index would both be index.html; leave one of them out of the view (select)"
    );
    // One page per document is fine: html-page@1 has no index of its own.
    let pages = ix.render(&ix.view("pages"));
    assert!(pages.files.iter().any(|(p, _)| p == "index.html"));
}

#[test]
fn two_documents_at_one_page_are_refused() {
    let dir = shop_copy();
    let root = dir.path();
    // docs/glossary.toml is rendered to docs/glossary.toml.html, and so would this one be.
    write(root, "docs/glossary.toml.md", "# Not the glossary\n");
    let ix = Indexed::new(root);
    let err = render_err(&ix, "pages");
    assert!(
        matches!(&err, RenderError::PageConflict { page, .. } if page == "docs/glossary.toml.html"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "docs/glossary.toml and docs/glossary.toml.md would both be docs/glossary.toml.html; leave one of them out of the view (select)"
    );
    // The architecture view selects neither.
    ix.render(&ix.view("architecture"));
}
