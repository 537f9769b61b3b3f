//! Hover sections on the shop fixture, as plain data: a document, a Go symbol with the
//! documents pointing at it, a local name, struct fields and interface methods.

mod support;

use docforge_ide::{HoverSection, Ide};
use expect_test::expect;
use support::{pos, range, shop};

/// One line per section, in `Debug` form.
fn sections(s: &[HoverSection]) -> String {
    s.iter().map(|s| format!("{s:?}")).collect::<Vec<_>>().join("\n")
}

#[test]
fn hovers_are_typed_sections() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let cases = [
        ("docs/arch/service.md", "depends_on = [\"arch.storage", 16),
        ("storage/storage.go", "Repository interface", 0),
        ("cache/cache.go", "r.Get(id)", 0),
        ("storage/memory/memory.go", "r.items[p.ID] = p", 10),
        ("cache/cache.go", "r.Get(id)", 2),
        ("service/service.go", "// Place checks", 5),
    ];
    let mut got = Vec::new();
    for (path, needle, skip) in cases {
        let hover = ide.hover(&pos(&a, path, needle, skip)).unwrap();
        got.push(format!("{path} `{needle}`:"));
        match hover {
            Some(h) => {
                got.push(format!("at {}", range(&h.range)));
                got.push(sections(&h.sections));
            }
            None => got.push("none".into()),
        }
    }
    expect![[r#"
        docs/arch/service.md `depends_on = ["arch.storage`:
        at docs/arch/service.md:10:14-28
        Title(Node { title: "Storage", id: "arch.storage" })
        Kind { kind: "document", attrs: [("family", "architecture"), ("status", "accepted"), ("authority", "normative"), ("document kind", "design"), ("tags", "storage,interfaces")] }
        Relations { incoming: [("depends_on", 1), ("relates_to", 2)], outgoing: [("governs", 1), ("implemented_by", 1)] }
        storage/storage.go `Repository interface`:
        at storage/storage.go:24:5-15
        Title(Node { title: "Repository", id: "go:example.com/shop/storage::Repository" })
        Kind { kind: "interface", attrs: [("package", "example.com/shop/storage")] }
        GoCode("type Repository interface {\n\tReader\n\tWriter\n\tList() []catalog.Product\n}")
        Documentation("Repository is a full product store: it embeds Reader and Writer.")
        Relations { incoming: [("documents", 2), ("governs", 1), ("implements", 1)], outgoing: [] }
        DocumentedBy([("arch.storage", "governs"), ("arch.storage#storage", "documents"), ("decision.pointer-receivers#decision", "documents")])
        cache/cache.go `r.Get(id)`:
        at cache/cache.go:19:12-13
        Title(Local { name: "r" })
        GoCode("func FromReader(r storage.Reader, ids ...string) (Snapshot, error) {")
        Place { label: Declared, path: "cache/cache.go", line: Some(16) }
        storage/memory/memory.go `r.items[p.ID] = p`:
        at storage/memory/memory.go:39:11-13
        Title(Member { name: "ID", method: false, owner: Named("example.com/shop/catalog::Product") })
        GoCode("ID    string")
        Place { label: Declared, path: "catalog/catalog.go", line: Some(6) }
        cache/cache.go `r.Get(id)`:
        at cache/cache.go:19:14-17
        Title(Member { name: "Get", method: true, owner: Named("example.com/shop/storage::Reader") })
        GoCode("Get(id string) (catalog.Product, error)")
        Place { label: Declared, path: "storage/storage.go", line: Some(15) }
        service/service.go `// Place checks`:
        none"#]].assert_eq(&got.join("\n"));
}
