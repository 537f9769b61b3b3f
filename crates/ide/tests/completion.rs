//! Completion on the shop fixture, called directly: node IDs inside a relation target, after
//! `go:` and after `[[`, relation names under `[relations]`, and nothing elsewhere.

mod support;

use docforge_ide::{Completion, CompletionKind, Ide};
use expect_test::expect;
use support::{pos, shop};

fn show(items: &[Completion]) -> Vec<String> {
    items
        .iter()
        .map(|c| {
            let kind = match &c.kind {
                CompletionKind::Node(k) => k.clone(),
                CompletionKind::Relation(class) => format!("relation {}", class.as_str()),
            };
            let r = c.replace;
            format!("{} ({kind}) {}:{}-{} -> {}", c.label, r.line, r.start, r.end, c.insert)
        })
        .collect()
}

#[test]
fn ids_and_relation_names_where_they_are_typed() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let at = |needle: &str, skip: u32| {
        let got = ide.completions(&pos(&a, "docs/arch/service.md", needle, skip)).unwrap();
        got.map_or("nothing completed here".to_string(), |items| show(&items).join("\n"))
    };
    // Inside the quoted target `arch.stor|age`: IDs starting with what is typed.
    expect![[r#"
        arch.storage (document) 9:15-23 -> arch.storage
        arch.storage#cache (section) 9:15-23 -> arch.storage#cache
        arch.storage#implementations (section) 9:15-23 -> arch.storage#implementations
        arch.storage#interfaces (section) 9:15-23 -> arch.storage#interfaces
        arch.storage#memory (section) 9:15-23 -> arch.storage#memory
        arch.storage#storage (section) 9:15-23 -> arch.storage#storage"#]]
    .assert_eq(&at("depends_on = [\"arch.stor", 23));
    // After `go:` only Go nodes.
    expect!["go:example.com/shop/service::OrderService (struct) 10:12-47 -> go:example.com/shop/service::OrderService"].assert_eq(&at("governs = [\"go:example.com/shop/service::Order", 47));
    // A relation name at the start of a line under `[relations]`: the typed `depends` replaced.
    expect![[r#"depends_on (relation dependency) 9:0-7 -> depends_on = [""]"#]]
        .assert_eq(&at("depends_on", 7));
    // A wiki link after `[[`.
    expect![[r#"
        guide.getting-started (document) 37:58-65 -> guide.getting-started
        guide.getting-started#further-reading (section) 37:58-65 -> guide.getting-started#further-reading
        guide.getting-started#getting-started (section) 37:58-65 -> guide.getting-started#getting-started
        guide.getting-started#wiring-a-hook (section) 37:58-65 -> guide.getting-started#wiring-a-hook"#]]
    .assert_eq(&at("[[guide.getting-started#wiring", 9));
    // Nothing outside those places: prose, a heading.
    expect!["nothing completed here"].assert_eq(&at("# Order service", 5));
}
