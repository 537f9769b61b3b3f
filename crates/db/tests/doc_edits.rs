//! A document an editor changes is parsed once per change: the host parses it for its index
//! entry and hands the facts on to `doc_facts`. (A test binary of its own: the Markdown parse
//! counter counts the whole process.)

mod support;

use docforge_db::{AstPolicy, Change, FileChange};
use docforge_project::FileKind;
use docforge_syntax::markdown_parses;
use support::{edit, host, set, small_project};

fn sections(h: &docforge_db::AnalysisHost) -> Vec<String> {
    let g = h.analysis().graph().unwrap();
    let mut ids: Vec<String> =
        g.nodes().filter(|n| n.id.starts_with("docs/y#")).map(|n| n.id.clone()).collect();
    ids.sort();
    ids
}

#[test]
fn an_edited_document_is_parsed_once_and_never_from_stale_facts() {
    let dir = small_project();
    let mut h = host(dir.path(), AstPolicy::Allow);
    assert_eq!(sections(&h), ["docs/y#y"]);

    // One change, then the graph: one parse (the host's), reused by the analysis.
    let before = markdown_parses();
    edit(&mut h, "docs/y.md", FileKind::Markdown, b"# Why\n\nPlain.\n");
    assert_eq!(sections(&h), ["docs/y#why"]);
    assert_eq!(markdown_parses(), before + 1);

    // Two changes before the analysis runs: the facts of the first are never used.
    let before = markdown_parses();
    edit(&mut h, "docs/y.md", FileKind::Markdown, b"# First\n\nPlain.\n");
    edit(&mut h, "docs/y.md", FileKind::Markdown, b"# Second\n\n## Third\n");
    assert_eq!(sections(&h), ["docs/y#second", "docs/y#third"]);
    assert_eq!(markdown_parses(), before + 2, "one parse per change, none by the analysis");

    // Facts prepared for a change the analysis never read, then a change too large for the
    // host to parse ahead (a branch switch): the analysis parses the new text.
    edit(&mut h, "docs/y.md", FileKind::Markdown, b"# Stale\n");
    let mut files: Vec<FileChange> =
        (0..20).map(|i| set(&format!("docs/n{i}.md"), FileKind::Markdown, b"# N\n")).collect();
    files.push(set("docs/y.md", FileKind::Markdown, b"# Fresh\n"));
    h.apply_change(Change { files, ..Default::default() });
    assert_eq!(sections(&h), ["docs/y#fresh"]);
}
