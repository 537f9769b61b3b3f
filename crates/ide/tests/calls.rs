//! Call hierarchy on the shop fixture: callers and callees with how each call was resolved,
//! and a CHA call site that the hierarchy shows but definition does not follow.

mod support;

use docforge_ide::{CallGroup, Ide};
use expect_test::expect;
use support::{pos, range, shop, target};

fn groups(gs: &[CallGroup]) -> String {
    let line = |g: &CallGroup| {
        let sites: Vec<String> = g.sites.iter().map(range).collect();
        format!("{} [{}] at {}", target(&g.target), g.classifications.join(", "), sites.join(", "))
    };
    gs.iter().map(line).collect::<Vec<_>>().join("\n")
}

#[test]
fn callers_and_callees_carry_their_classification_and_sites() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let root = ide.call_hierarchy(&pos(&a, "service/service.go", "Place(o", 0)).unwrap().unwrap();
    expect!["service/service.go:43:23-28 go:example.com/shop/service::(*OrderService).Place (method) in file:service/service.go"]
        .assert_eq(&target(&root));
    let id = &root.node.as_ref().unwrap().id;
    expect![[r#"
        service/set.go:14:17-20 go:example.com/shop/service::(*Set).Add (method) in file:service/set.go [resolved_static] at service/service.go:52:10-13
        service/set.go:22:16-19 go:example.com/shop/service::(Set).Has (method) in file:service/set.go [resolved_static] at service/service.go:44:13-16
        storage/memory/memory.go:25:15-18 go:example.com/shop/storage/memory::(*Repo).Get (method) in file:storage/memory/memory.go [cha_possible_target] at service/service.go:48:22-25"#]].assert_eq(&groups(&ide.outgoing_calls(id).unwrap()));
    expect!["cmd/shop/main.go:19:5-9 go:example.com/shop/cmd/shop::main (func) in file:cmd/shop/main.go [resolved_static] at cmd/shop/main.go:26:15-20"].assert_eq(&groups(&ide.incoming_calls(id).unwrap()));
    // Only functions and methods are hierarchy roots.
    for (path, needle, skip) in [
        ("storage/storage.go", "Repository interface", 0),
        ("docs/arch/service.md", "depends_on = [\"arch.storage", 16),
        ("service/service.go", "// Place checks", 5),
    ] {
        assert_eq!(ide.call_hierarchy(&pos(&a, path, needle, skip)).unwrap(), None, "{needle}");
    }
}

#[test]
fn a_cha_call_site_is_a_possible_target_not_what_the_name_denotes() {
    let host = shop();
    let a = host.analysis();
    let ide = Ide::new(&a);
    let at = pos(&a, "service/service.go", "s.repo.Get(it.ProductID)", 7);
    // The hierarchy root there is CHA's possible target (the edge stated at the call) …
    let root = ide.call_hierarchy(&at).unwrap().map(|t| target(&t));
    expect!["storage/memory/memory.go:25:15-18 go:example.com/shop/storage/memory::(*Repo).Get (method) in file:storage/memory/memory.go"].assert_eq(&root.unwrap_or_default());
    // … but definition and hover name the interface method the selector denotes.
    let def = ide.definition(&at).unwrap().map(|t| target(&t));
    expect!["storage/storage.go:15:1-4"].assert_eq(&def.unwrap_or_default());
    let hover = ide.hover(&at).unwrap().unwrap();
    assert!(
        matches!(
            &hover.sections[0],
            docforge_ide::HoverSection::Title(docforge_ide::HoverTitle::Member { method: true, .. })
        ),
        "{hover:?}"
    );
}
