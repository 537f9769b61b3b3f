//! Rename plans and refusals on the shop fixture, as plain data.

mod support;

use docforge_ide::{Ide, RenameRefusal, SourceChange};
use expect_test::expect;
use support::{pos, range, shop};

/// Every edit as `path:line:start-end -> new text`, in plan order per file.
fn edits(change: &SourceChange) -> String {
    let mut out = Vec::new();
    for (path, edits) in &change.files {
        for e in edits {
            let r = e.range;
            out.push(format!("{path}:{}:{}-{} -> {}", r.line + 1, r.start, r.end, e.new_text));
        }
    }
    out.join("\n")
}

#[test]
fn a_document_id_is_renamed_where_declared_and_wherever_it_is_spelled() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let at = pos(&a, "docs/arch/service.md", "depends_on = [\"arch.storage", 16);
    let prep = ide.prepare_rename(&at).unwrap().unwrap();
    assert_eq!(
        (range(&prep.range).as_str(), prep.placeholder.as_str()),
        ("docs/arch/service.md:10:14-28", "arch.storage")
    );
    let change = ide.rename(&at, "  arch.store ").unwrap().unwrap();
    expect![[r#"
        docs/arch/service.md:10:15-27 -> arch.store
        docs/arch/storage.md:2:6-18 -> arch.store
        docs/decisions/pointer-receivers.md:23:7-19 -> arch.store
        docs/glossary.toml:13:15-27 -> arch.store
        docs/guide/getting-started.md:10:31-43 -> arch.store"#]]
    .assert_eq(&edits(&change));
}

#[test]
fn a_heading_is_renamed_with_every_anchor_that_links_to_it() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let at = pos(&a, "docs/guide/getting-started.md", "## Wiring a hook", 4);
    let prep = ide.prepare_rename(&at).unwrap().unwrap();
    assert_eq!(prep.placeholder, "Wiring a hook");
    expect![[r#"
        docs/arch/service.md:38:80-93 -> hook-wiring
        docs/guide/getting-started.md:16:3-16 -> Hook wiring"#]]
    .assert_eq(&edits(&ide.rename(&at, "Hook wiring").unwrap().unwrap()));
    // The same anchor: only the heading's text changes.
    expect!["docs/guide/getting-started.md:16:3-16 -> Wiring a Hook"]
        .assert_eq(&edits(&ide.rename(&at, "Wiring a Hook").unwrap().unwrap()));
}

#[test]
fn renames_that_cannot_be_done_safely_are_refused_with_the_reason() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let storage = ("docs/arch/service.md", "depends_on = [\"arch.storage", 16);
    let heading = ("docs/guide/getting-started.md", "## Wiring a hook", 4);
    let cases = [
        (("docs/guide/getting-started.md", "[[docs/notes]]", 3), "notes"),
        (("service/service.go", "Place(o", 0), "Put"),
        (("service/service.go", "// Place checks", 5), "x"),
        (storage, "glossary"),
        (storage, "arch storage"),
        (storage, "go:arch.storage"),
        (storage, ""),
        (heading, "  "),
        (heading, "Further reading"),
    ];
    let mut got = Vec::new();
    for ((path, needle, skip), new) in cases {
        let r = ide.rename(&pos(&a, path, needle, skip), new).unwrap();
        let why = r.err().map_or("accepted".to_string(), |e| format!("{e:?}\n    {e}"));
        got.push(format!("{needle} -> {new:?}: {why}"));
    }
    expect![[r#"
        [[docs/notes]] -> "notes": IdFromPath { id: "docs/notes", path: "docs/notes.md" }
            `docs/notes` has no front-matter `id` (its ID comes from its path docs/notes.md); add `id = "…"` to rename it
        Place(o -> "Put": NotRenamable { id: "go:example.com/shop/service::(*OrderService).Place", kind: "method" }
            `go:example.com/shop/service::(*OrderService).Place` is a method: only document IDs and headings can be renamed
        // Place checks -> "x": NothingHere
            nothing to rename here: only document IDs and headings can be renamed
        depends_on = ["arch.storage -> "glossary": Taken { name: "glossary" }
            `glossary` already names a node
        depends_on = ["arch.storage -> "arch storage": InvalidId { name: "arch storage" }
            `arch storage` is not a valid document ID (no spaces, `#`, brackets, `|` or quotes)
        depends_on = ["arch.storage -> "go:arch.storage": ReservedPrefix { name: "go:arch.storage" }
            `go:arch.storage`: document IDs cannot use the `go:` or `file:` prefix
        depends_on = ["arch.storage -> "": InvalidId { name: "" }
            `` is not a valid document ID (no spaces, `#`, brackets, `|` or quotes)
        ## Wiring a hook -> "  ": InvalidHeading
            a heading needs a one-line, non-empty text
        ## Wiring a hook -> "Further reading": AnchorTaken { path: "docs/guide/getting-started.md", slug: "further-reading" }
            another heading of docs/guide/getting-started.md already has the anchor `#further-reading`"#]].assert_eq(&got.join("\n"));
    // Prepare refuses what rename refuses for the place alone.
    let go = pos(&a, "service/service.go", "Place(o", 0);
    assert!(matches!(ide.prepare_rename(&go).unwrap(), Err(RenameRefusal::NotRenamable { .. })));
}

/// The refusals that need a document written otherwise than the fixture's: an edited
/// buffer with a de-duplicated heading, a heading with inline markup and a wiki link that
/// does not spell the ID exactly.
#[test]
fn refusals_for_references_and_headings_that_cannot_be_updated_safely() {
    let mut host = shop();
    let text = "+++\nid = \"notes.edited\"\n+++\n# Notes\n\n## Todo\n\n## Todo \n\n## The `x` way\n\nSee [[arch.storage#interfaces ]] and [[arch.service#hooks|hooks]].\n";
    let file = docforge_db::FileChange::Set {
        rel: "docs/notes.md".into(),
        kind: docforge_project::FileKind::Markdown,
        content: docforge_db::Content::Bytes(text.as_bytes().to_vec().into()),
    };
    host.apply_change(docforge_db::Change { files: vec![file], ..Default::default() });
    let a = host.analysis();
    let ide = Ide::new(&a);
    let cases = [
        (("docs/notes.md", "## Todo ", 4), "Done"),
        (("docs/notes.md", "## The `x` way", 4), "The y way"),
        (("docs/arch/storage.md", "## Interfaces", 4), "Ports"),
        (("docs/arch/service.md", "## Hooks", 4), "Callbacks"),
    ];
    let mut got = Vec::new();
    for ((path, needle, skip), new) in cases {
        let r = ide.rename(&pos(&a, path, needle, skip), new).unwrap();
        got.push(format!(
            "{path} `{needle}` -> {new:?}: {}",
            r.map_or_else(|e| e.to_string(), |c| edits(&c))
        ));
    }
    expect![[r#"
        docs/notes.md `## Todo ` -> "Done": the heading's anchor `#todo-1` is de-duplicated (another heading has the same text); rename it by hand
        docs/notes.md `## The `x` way` -> "The y way": the heading text has inline markup; rename it by hand
        docs/arch/storage.md `## Interfaces` -> "Ports": rename refused: the reference `[[arch.storage#interfaces ]]` at docs/notes.md:12 does not spell the name exactly, so it cannot be updated safely
        docs/arch/service.md `## Hooks` -> "Callbacks": docs/arch/service.md:36:3-8 -> Callbacks
        docs/notes.md:12:52-57 -> callbacks"#]].assert_eq(&got.join("\n"));
}
