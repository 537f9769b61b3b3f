//! Document and workspace symbols on the shop fixture.

mod support;

use docforge_ide::{DocumentSymbol, Ide};
use expect_test::expect;
use support::{shop, target};

fn outline(symbols: &[DocumentSymbol], depth: usize, out: &mut Vec<String>) {
    for s in symbols {
        let r = s.range;
        out.push(format!(
            "{}{} {} ({}) {}:{}-{}",
            "  ".repeat(depth),
            s.name,
            s.node,
            s.kind,
            r.line + 1,
            r.start,
            r.end
        ));
        outline(&s.children, depth + 1, out);
    }
}

#[test]
fn outlines_nest_headings_and_list_go_declarations() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let cases = ["docs/arch/storage.md", "docs/glossary.toml", "service/set.go", "go.mod", "docs/absent.md"];
    let mut got = Vec::new();
    for path in cases {
        got.push(format!("{path}:"));
        outline(&ide.document_symbols(path).unwrap(), 1, &mut got);
    }
    expect![[r#"
        docs/arch/storage.md:
          Storage arch.storage#storage (section) 31:0-9
            Interfaces arch.storage#interfaces (section) 36:0-13
            Implementations arch.storage#implementations (section) 41:0-18
              Memory arch.storage#memory (section) 43:0-10
              Cache arch.storage#cache (section) 48:0-9
        docs/glossary.toml:
        service/set.go:
          Set go:example.com/shop/service::Set (struct) 4:5-8
          NewSet go:example.com/shop/service::NewSet (func) 9:5-11
          Add go:example.com/shop/service::(*Set).Add (method) 14:17-20
          Has go:example.com/shop/service::(Set).Has (method) 22:16-19
          Len go:example.com/shop/service::(Set).Len (method) 28:16-19
        go.mod:
        docs/absent.md:"#]]
    .assert_eq(&got.join("\n"));
}

#[test]
fn workspace_symbols_match_fuzzily_with_their_declaration_and_container() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let cases = ["ordsvc", "wiring", "glossary", "zzqx"];
    let mut got = Vec::new();
    for query in cases {
        let found = ide.workspace_symbols(query).unwrap();
        got.push(format!("{query}: {}", found.len()));
        got.extend(found.iter().take(4).map(|t| format!("  {}", target(t))));
    }
    expect![[r#"
        ordsvc: 5
          docs/arch/service.md:2:5-19 arch.service (document)
          docs/arch/service.md:25:0-15 arch.service#order-service (section) in arch.service
          service/service.go:29:5-17 go:example.com/shop/service::OrderService (struct) in file:service/service.go
          service/service.go:43:23-28 go:example.com/shop/service::(*OrderService).Place (method) in file:service/service.go
        wiring: 1
          docs/guide/getting-started.md:16:0-16 guide.getting-started#wiring-a-hook (section) in guide.getting-started#getting-started
        glossary: 9
          docs/glossary.toml:1:5-15 glossary (toml_node)
          storage/memory/memory.go:1:0-0 go:example.com/shop/storage/memory (package)
          storage/memory/memory.go:20:5-8 go:example.com/shop/storage/memory::New (func) in file:storage/memory/memory.go
          storage/storage.go:24:5-15 go:example.com/shop/storage::Repository (interface) in file:storage/storage.go
        zzqx: 0"#]].assert_eq(&got.join("\n"));
}
