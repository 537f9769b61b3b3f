//! Definition, references and implementation on the shop fixture, called directly: which
//! edges are references (not the tree's), which call edges denote (not CHA's possible
//! targets), and what answers nothing.

mod support;

use docforge_ide::{FilePosition, Ide};
use expect_test::expect;
use support::{pos, range, shop, target};

#[test]
fn definition_of_links_relations_ids_go_names_locals_and_fields() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let cases = [
        ("docs/arch/service.md", "[storage interfaces]", 2),
        ("docs/arch/service.md", "depends_on = [\"arch.storage", 16),
        ("docs/arch/service.md", "governs = [\"go:", 14),
        ("docs/arch/service.md", "[[guide.getting-started#wiring-a-hook]]", 4),
        ("docs/notes.md", "[[glossary]]", 3),
        ("cmd/shop/main.go", "svc.Place(", 5),
        ("service/service.go", "\"example.com/shop/storage\"", 3),
        ("service/service.go", "return ErrDuplicate", 7),
        // A local name, a field selector, an interface method through a CHA call site.
        ("cache/cache.go", "r.Get(id)", 0),
        ("service/service.go", "s.placed.Has(o.ID)", 15),
        ("service/service.go", "s.repo.Get(it.ProductID)", 7),
        // Nothing is named in a comment, nor on a blank line.
        ("service/service.go", "// Place checks", 5),
    ];
    let got: Vec<String> = cases
        .iter()
        .map(|&(path, needle, skip)| {
            let def = ide.definition(&pos(&a, path, needle, skip)).unwrap();
            format!("{path} `{needle}` -> {}", def.as_ref().map_or("none".into(), target))
        })
        .collect();
    expect![[r#"
        docs/arch/service.md `[storage interfaces]` -> docs/arch/storage.md:36:0-13 arch.storage#interfaces (section) in arch.storage#storage
        docs/arch/service.md `depends_on = ["arch.storage` -> docs/arch/storage.md:2:5-19 arch.storage (document)
        docs/arch/service.md `governs = ["go:` -> service/service.go:29:5-17 go:example.com/shop/service::OrderService (struct) in file:service/service.go
        docs/arch/service.md `[[guide.getting-started#wiring-a-hook]]` -> docs/guide/getting-started.md:16:0-16 guide.getting-started#wiring-a-hook (section) in guide.getting-started#getting-started
        docs/notes.md `[[glossary]]` -> docs/glossary.toml:1:5-15 glossary (toml_node)
        cmd/shop/main.go `svc.Place(` -> service/service.go:43:23-28 go:example.com/shop/service::(*OrderService).Place (method) in file:service/service.go
        service/service.go `"example.com/shop/storage"` -> storage/storage.go:1:0-0 go:example.com/shop/storage (package)
        service/service.go `return ErrDuplicate` -> service/service.go:13:4-16 go:example.com/shop/service::ErrDuplicate (var) in file:service/service.go
        cache/cache.go `r.Get(id)` -> cache/cache.go:16:16-17
        service/service.go `s.placed.Has(o.ID)` -> catalog/catalog.go:19:1-3
        service/service.go `s.repo.Get(it.ProductID)` -> storage/storage.go:15:1-4
        service/service.go `// Place checks` -> none"#]].assert_eq(&got.join("\n"));
}

#[test]
fn references_leave_the_tree_out_and_list_each_place_once() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let cases = [
        // A document: relation targets and wiki links, not a Markdown link (`[x](path)` is
        // the path's), declaration first when asked.
        ("docs/arch/service.md", "depends_on = [\"arch.storage", 16, true),
        // A heading: the links to it, never the `contains` edge stated at the heading.
        ("docs/guide/getting-started.md", "## Wiring a hook", 4, false),
        // A Go interface: documents and identifier uses, never its `defines` edge.
        ("storage/storage.go", "Repository interface", 0, false),
        // A func called in its own package: the call edge and the use on one line are one.
        ("service/set.go", "func NewSet", 5, false),
        // A local name: its uses in the file.
        ("cache/cache.go", "s := Snapshot{items", 0, true),
        // An interface method spec: every selector of it.
        ("storage/storage.go", "Get(id string)", 0, true),
        ("service/service.go", "// Place checks", 5, true),
    ];
    let got: Vec<String> = cases
        .iter()
        .map(|&(path, needle, skip, decl)| {
            let refs = ide.references(&pos(&a, path, needle, skip), decl).unwrap();
            let list = refs.map_or("none".into(), |r| r.iter().map(range).collect::<Vec<_>>().join(", "));
            format!("{path} `{needle}` -> {list}")
        })
        .collect();
    expect![[r#"
        docs/arch/service.md `depends_on = ["arch.storage` -> docs/arch/storage.md:2:5-19, docs/arch/service.md:10:14-28, docs/decisions/pointer-receivers.md:17:58-98, docs/glossary.toml:13:14-28
        docs/guide/getting-started.md `## Wiring a hook` -> docs/arch/service.md:38:56-95
        storage/storage.go `Repository interface` -> docs/arch/storage.md:10:11-52, docs/arch/storage.md:33:31-86, docs/decisions/pointer-receivers.md:22:0-55, service/service.go:31:18-28, service/service.go:37:22-32, storage/memory/memory.go:55:14-24
        service/set.go `func NewSet` -> service/service.go:38:70-76, service/set_test.go:6:6-12
        cache/cache.go `s := Snapshot{items` -> cache/cache.go:17:1-2, cache/cache.go:23:2-3, cache/cache.go:25:8-9
        storage/storage.go `Get(id string)` -> storage/storage.go:15:1-4, cache/cache.go:19:14-17, service/service.go:48:22-25
        service/service.go `// Place checks` -> none"#]].assert_eq(&got.join("\n"));
}

#[test]
fn references_to_a_node_are_sorted_and_exclude_structure() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    // The section is contained by its document at its own heading: not a reference.
    let got: Vec<String> = ide.references_to("arch.storage#interfaces").unwrap().iter().map(range).collect();
    expect!["docs/arch/service.md:27:38-81"].assert_eq(&got.join("\n"));
    let refs = ide.references_to("go:example.com/shop/storage::ErrNotFound").unwrap();
    let mut sorted = refs.clone();
    sorted.sort();
    sorted.dedup();
    assert_eq!(refs, sorted);
    assert!(!refs.is_empty());
}

#[test]
fn implementation_goes_both_ways_between_interfaces_and_types() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let cases = [
        ("storage/storage.go", "Repository interface", 0),
        ("storage/storage.go", "Reader interface", 0),
        ("storage/memory/memory.go", "type Repo struct", 5),
        ("cache/cache.go", "type Snapshot", 5),
        ("docs/arch/service.md", "depends_on = [\"arch.storage", 16),
        ("service/service.go", "// Place checks", 5),
    ];
    let got: Vec<String> = cases
        .iter()
        .map(|&(path, needle, skip)| {
            let imps = ide.implementations(&pos(&a, path, needle, skip)).unwrap();
            let list = match imps {
                None => "none".to_string(),
                Some(t) if t.is_empty() => "[]".to_string(),
                Some(t) => t.iter().map(target).collect::<Vec<_>>().join(", "),
            };
            format!("{path} `{needle}` -> {list}")
        })
        .collect();
    expect![[r#"
        storage/storage.go `Repository interface` -> storage/memory/memory.go:14:5-9 go:example.com/shop/storage/memory::Repo (struct) in file:storage/memory/memory.go
        storage/storage.go `Reader interface` -> cache/cache.go:11:5-13 go:example.com/shop/cache::Snapshot (struct) in file:cache/cache.go, storage/memory/memory.go:14:5-9 go:example.com/shop/storage/memory::Repo (struct) in file:storage/memory/memory.go
        storage/memory/memory.go `type Repo struct` -> storage/storage.go:14:5-11 go:example.com/shop/storage::Reader (interface) in file:storage/storage.go, storage/storage.go:24:5-15 go:example.com/shop/storage::Repository (interface) in file:storage/storage.go, storage/storage.go:19:5-11 go:example.com/shop/storage::Writer (interface) in file:storage/storage.go
        cache/cache.go `type Snapshot` -> storage/storage.go:14:5-11 go:example.com/shop/storage::Reader (interface) in file:storage/storage.go
        docs/arch/service.md `depends_on = ["arch.storage` -> []
        service/service.go `// Place checks` -> none"#]].assert_eq(&got.join("\n"));
}

#[test]
fn positions_outside_a_loaded_line_answer_nothing_and_columns_clamp() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let at = |path: &str, line: u32, column: u32| FilePosition { path: path.into(), line, column };
    assert_eq!(ide.definition(&at("docs/missing.md", 0, 0)).unwrap(), None);
    assert_eq!(ide.definition(&at("docs/notes.md", 10_000, 0)).unwrap(), None);
    assert_eq!(ide.references(&at("docs/notes.md", 10_000, 0), true).unwrap(), None);
    assert_eq!(ide.hover(&at("docs/notes.md", 10_000, 0)).unwrap(), None);
    // A column past the end of a line is its end: `return ErrDuplicate` ends with the name,
    // whose span includes its end.
    let ret = pos(&a, "service/service.go", "return ErrDuplicate", 0);
    let def = ide.definition(&at(&ret.path, ret.line, 10_000)).unwrap().map(|t| target(&t));
    expect!["service/service.go:13:4-16 go:example.com/shop/service::ErrDuplicate (var) in file:service/service.go"].assert_eq(&def.unwrap_or_default());
}
