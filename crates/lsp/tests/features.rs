//! The request matrix on the shop fixture, as specifications: diagnostics, definition,
//! references, hover, symbols, completion, code lens, implementation, call hierarchy,
//! rename (applied and refused). Large answers are expect-test snapshots.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use std::path::Path;
use support::{opts, Client, ResponseExt};

fn locs(c: &Client, v: &Value) -> String {
    let list = v.as_array().cloned().unwrap_or_else(|| vec![v.clone()]);
    list.iter().map(|l| c.loc(l)).collect::<Vec<_>>().join("\n")
}

/// A workspace edit as sorted `path:line:from-to -> new text` lines.
fn edits(c: &Client, edit: &Value) -> Vec<String> {
    let mut got = Vec::new();
    for (uri, edits) in edit["changes"].as_object().unwrap() {
        for e in edits.as_array().unwrap() {
            let at = c.loc(&json!({"uri": uri, "range": e["range"]}));
            got.push(format!("{at} -> {}", e["newText"].as_str().unwrap()));
        }
    }
    got.sort();
    got
}

/// `rel `needle` -> definition` for each `(file, needle, characters after the needle's start)`.
fn definitions(c: &mut Client, cases: &[(&str, &str, u32)]) -> Vec<String> {
    let mut got = Vec::new();
    for &(rel, needle, skip) in cases {
        let def = c.ok("textDocument/definition", c.pos(rel, needle, skip));
        got.push(format!("{rel} `{needle}` -> {}", locs(c, &def)));
    }
    got
}

fn with(mut p: Value, key: &str, value: Value) -> Value {
    p[key] = value;
    p
}

#[test]
fn diagnostics_cover_links_relations_and_claims() {
    let mut c = Client::start(opts(), json!({}));
    let mut got = Vec::new();
    for rel in ["docs/guide/getting-started.md", "docs/arch/storage.md"] {
        for d in c.diagnostics(rel) {
            let r = &d["range"];
            got.push(format!(
                "{rel}:{}:{} {} {}: {}",
                r["start"]["line"].as_u64().unwrap() + 1,
                r["start"]["character"],
                d["severity"],
                d["code"].as_str().unwrap(),
                d["message"].as_str().unwrap().lines().next().unwrap()
            ));
        }
    }
    expect![[r#"
        docs/guide/getting-started.md:29:2 1 broken_link: broken link `../arch/deployment.md`: no document at `docs/arch/deployment.md`
        docs/guide/getting-started.md:30:2 1 broken_link: broken link `../arch/storage.md#transactions`: document `arch.storage` (docs/arch/storage.md) has no heading `#transactions`
        docs/arch/storage.md:25:0 1 relation_not_found: claim type_implements example.com/shop/cache::Snapshot -> example.com/shop/storage::Repository: fail (relation_not_found)"#]]
    .assert_eq(&got.join("\n"));

    // Fixing a link in the buffer clears that file's diagnostic (pushed after the change).
    c.open("docs/guide/getting-started.md");
    c.edit("docs/guide/getting-started.md", 2, [28, 15, 28, 36], "../arch/storage.md");
    // A run that started before the edit may still publish the old state first (the run
    // for the edit always publishes after it).
    let mut after = c.diagnostics("docs/guide/getting-started.md");
    for _ in 0..2 {
        if after.len() == 1 {
            break;
        }
        after = c.diagnostics("docs/guide/getting-started.md");
    }
    assert_eq!(after.len(), 1, "{after:#?}");
    assert!(after[0]["message"].as_str().unwrap().contains("#transactions"));
    c.shutdown();
}

#[test]
fn definition_follows_links_relations_wiki_ids_and_go_calls() {
    let mut c = Client::start(opts(), json!({}));
    let cases = [
        ("docs/arch/service.md", "[storage interfaces]", 2),
        ("docs/arch/service.md", "depends_on = [\"arch.storage", 16),
        ("docs/arch/service.md", "governs = [\"go:", 14),
        ("docs/arch/service.md", "[[guide.getting-started#wiring-a-hook]]", 4),
        ("docs/arch/service.md", "[`Place`](go:", 3),
        ("docs/notes.md", "[[glossary]]", 3),
        ("service/service.go", "s.placed.Add(", 10),
        ("cmd/shop/main.go", "svc.Place(", 5),
        ("service/service.go", "\"example.com/shop/storage\"", 3),
    ];
    let got = definitions(&mut c, &cases);
    expect![[r#"
        docs/arch/service.md `[storage interfaces]` -> docs/arch/storage.md:36:0-13
        docs/arch/service.md `depends_on = ["arch.storage` -> docs/arch/storage.md:2:5-19
        docs/arch/service.md `governs = ["go:` -> service/service.go:29:5-17
        docs/arch/service.md `[[guide.getting-started#wiring-a-hook]]` -> docs/guide/getting-started.md:16:0-16
        docs/arch/service.md `[`Place`](go:` -> service/service.go:43:23-28
        docs/notes.md `[[glossary]]` -> docs/glossary.toml:1:5-15
        service/service.go `s.placed.Add(` -> service/set.go:14:17-20
        cmd/shop/main.go `svc.Place(` -> service/service.go:43:23-28
        service/service.go `"example.com/shop/storage"` -> storage/storage.go:1:0-0"#]]
    .assert_eq(&got.join("\n"));
    c.shutdown();
}

#[test]
fn references_hover_and_symbols() {
    let mut c = Client::start(opts(), json!({}));
    let at_storage = c.pos("docs/arch/service.md", "depends_on = [\"arch.storage", 16);
    let refs = c.ok(
        "textDocument/references",
        with(at_storage.clone(), "context", json!({"includeDeclaration": false})),
    );
    expect![[r#"
        docs/arch/service.md:10:14-28
        docs/decisions/pointer-receivers.md:17:58-98
        docs/glossary.toml:13:14-28"#]]
    .assert_eq(&locs(&c, &refs));

    let hover = c.ok("textDocument/hover", at_storage);
    expect![[r#"
        **Storage** `arch.storage`

        kind: document · family: architecture · status: accepted · authority: normative · document kind: design · tags: storage,interfaces

        incoming: depends_on 1, relates_to 2  
        outgoing: governs 1, implemented_by 1"#]]
    .assert_eq(hover["contents"]["value"].as_str().unwrap());

    let go = c.ok("textDocument/hover", c.pos("storage/storage.go", "Repository interface", 0));
    expect![[r#"
        **Repository** `go:example.com/shop/storage::Repository`

        kind: interface · package: example.com/shop/storage

        ```go
        type Repository interface {
        	Reader
        	Writer
        	List() []catalog.Product
        }
        ```

        Repository is a full product store: it embeds Reader and Writer.

        incoming: documents 2, governs 1, implements 1  
        outgoing: none

        governed / documented by: `arch.storage#storage` (documents), `arch.storage` (governs), `decision.pointer-receivers#decision` (documents)"#]]
    .assert_eq(go["contents"]["value"].as_str().unwrap());

    let uri = c.uri("docs/arch/service.md");
    let syms = c.ok("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let outline: Vec<String> =
        syms[0]["children"].as_array().unwrap().iter().map(|s| s["name"].to_string()).collect();
    assert_eq!(syms[0]["name"], "Order service");
    assert_eq!(outline, ["\"Placing orders\"", "\"Hooks\"", "\"Promoted methods\""]);
    let uri = c.uri("service/set.go");
    let go_syms = c.ok("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}}));
    let names: Vec<&str> = go_syms.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"Set") && names.contains(&"Add"), "{names:?}");

    let ws = c.ok("workspace/symbol", json!({"query": "ordsvc"}));
    let ids: Vec<&str> =
        ws.as_array().unwrap().iter().map(|s| s["containerName"].as_str().unwrap()).collect();
    assert!(ids.contains(&"go:example.com/shop/service::OrderService"), "{ids:?}");
    c.shutdown();
}

#[test]
fn completion_offers_node_ids_after_wiki_brackets_and_go_prefixes_and_relation_keys() {
    let mut c = Client::start(opts(), json!({}));
    c.open("docs/notes.md");
    let line = "See [[arch.s and go:example.com/shop/storage::Re";
    c.edit("docs/notes.md", 2, [5, 0, 5, 0], &format!("{line}\n"));
    let uri = c.uri("docs/notes.md");
    let at = |ch: u32| json!({"textDocument": {"uri": uri}, "position": {"line": 5, "character": ch}});
    let wiki = c.ok("textDocument/completion", at(12));
    let labels: Vec<&str> = wiki.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"arch.service") && labels.contains(&"arch.storage#interfaces"), "{labels:?}");
    assert!(labels.iter().all(|l| l.starts_with("arch.s")));
    let go = c.ok("textDocument/completion", at(line.len() as u32));
    let labels: Vec<&str> = go.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["go:example.com/shop/storage::Reader", "go:example.com/shop/storage::Repository"]);

    // Relation keys at the start of a line under `[relations]`.
    c.open("docs/arch/service.md");
    c.edit("docs/arch/service.md", 2, [10, 0, 10, 0], "gov\n");
    let uri = c.uri("docs/arch/service.md");
    let keys = c.ok(
        "textDocument/completion",
        json!({"textDocument": {"uri": uri}, "position": {"line": 10, "character": 3}}),
    );
    let labels: Vec<&str> = keys.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["governs"]);
    c.shutdown();
}

#[test]
fn code_lens_shows_each_claim_outcome() {
    let mut c = Client::start(opts(), json!({}));
    let uri = c.uri("docs/arch/storage.md");
    let lenses = c.ok("textDocument/codeLens", json!({"textDocument": {"uri": uri}}));
    let titles: Vec<String> = lenses
        .as_array()
        .unwrap()
        .iter()
        .map(|l| format!("{}: {}", l["range"]["start"]["line"], l["command"]["title"].as_str().unwrap()))
        .collect();
    expect![[r#"
        12: claim symbol_exists example.com/shop/storage/memory::(*Repo).Get: pass (predicate_passed)
        17: claim type_implements example.com/shop/cache::Snapshot -> example.com/shop/storage::Reader: pass (predicate_passed)
        24: claim type_implements example.com/shop/cache::Snapshot -> example.com/shop/storage::Repository: fail (relation_not_found)"#]]
    .assert_eq(&titles.join("\n"));
    c.shutdown();
}

#[test]
fn implementation_and_call_hierarchy_label_static_and_cha_edges() {
    let mut c = Client::start(opts(), json!({}));
    let imp = c.ok("textDocument/implementation", c.pos("storage/storage.go", "Repository interface", 0));
    assert_eq!(locs(&c, &imp), "storage/memory/memory.go:14:5-9");
    let items = c.ok("textDocument/prepareCallHierarchy", c.pos("service/service.go", "Place(o", 0));
    let item = items[0].clone();
    assert_eq!(item["data"], "go:example.com/shop/service::(*OrderService).Place");
    let out = c.ok("callHierarchy/outgoingCalls", json!({"item": item}));
    let got: Vec<String> = out
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            format!(
                "{} [{}] from {}",
                o["to"]["data"],
                o["to"]["detail"].as_str().unwrap(),
                locs(
                    &c,
                    &o["fromRanges"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|r| json!({"uri": c.uri("service/service.go"), "range": r}))
                        .collect::<Value>()
                )
            )
        })
        .collect();
    expect![[r#"
        "go:example.com/shop/service::(*Set).Add" [calls: resolved_static] from service/service.go:52:10-13
        "go:example.com/shop/service::(Set).Has" [calls: resolved_static] from service/service.go:44:13-16
        "go:example.com/shop/storage/memory::(*Repo).Get" [calls: cha_possible_target] from service/service.go:48:22-25"#]]
    .assert_eq(&got.join("\n"));
    let inc = c.ok("callHierarchy/incomingCalls", json!({"item": item}));
    assert_eq!(inc[0]["from"]["data"], "go:example.com/shop/cmd/shop::main");
    c.shutdown();
}

/// Precision is the project's: a project declaring `ast` is analysed without the semantic
/// layer, and the requests only it answers say why instead of answering nothing.
#[test]
fn a_project_declaring_ast_refuses_what_needs_precise_analysis_and_says_why() {
    let declare_ast = |root: &Path| {
        let cfg = std::fs::read_to_string(root.join("docforge.toml")).unwrap();
        std::fs::write(root.join("docforge.toml"), cfg + "\n[analysis]\nprecision = \"ast\"\n").unwrap();
    };
    let mut c = Client::start_prepared(opts(), json!({}), declare_ast);
    for (method, at) in [
        ("textDocument/implementation", c.pos("storage/storage.go", "Repository interface", 0)),
        ("textDocument/prepareCallHierarchy", c.pos("service/service.go", "Place(o", 0)),
    ] {
        let r = c.request(method, at);
        let e = r.error().unwrap_or_else(|| panic!("{method}: {r:?}"));
        assert!(
            e.message.ends_with(
                "declares [analysis] precision = \"ast\" in docforge.toml: implementations and the call \
                 hierarchy need precise analysis"
            ),
            "{method}: {}",
            e.message
        );
    }
    // What syntax answers still works.
    let def = c.ok("textDocument/definition", c.pos("service/service.go", "NewSet[string]()", 0));
    assert_eq!(locs(&c, &def), "service/set.go:9:5-11");
    c.shutdown();
}

#[test]
fn rename_updates_every_reference_or_refuses_with_the_reason() {
    let mut c = Client::start(opts(), json!({}));
    let at = c.pos("docs/arch/service.md", "depends_on = [\"arch.storage", 16);
    let prep = c.ok("textDocument/prepareRename", at.clone());
    assert_eq!(prep["placeholder"], "arch.storage");
    let edit = c.ok("textDocument/rename", with(at, "newName", json!("arch.store")));
    let got = edits(&c, &edit);
    expect![[r#"
        docs/arch/service.md:10:15-27 -> arch.store
        docs/arch/storage.md:2:6-18 -> arch.store
        docs/decisions/pointer-receivers.md:23:7-19 -> arch.store
        docs/glossary.toml:13:15-27 -> arch.store
        docs/guide/getting-started.md:10:31-43 -> arch.store"#]]
    .assert_eq(&got.join("\n"));

    // A heading: its text and every `#slug` reference.
    let at = c.pos("docs/guide/getting-started.md", "## Wiring a hook", 4);
    let edit = c.ok("textDocument/rename", with(at, "newName", json!("Hook wiring")));
    let got = edits(&c, &edit);
    expect![[r#"
        docs/arch/service.md:38:80-93 -> hook-wiring
        docs/guide/getting-started.md:16:3-16 -> Hook wiring"#]]
    .assert_eq(&got.join("\n"));

    let refused = |c: &mut Client, p: Value, new: &str| {
        let r = c.request("textDocument/rename", with(p, "newName", json!(new)));
        r.error().map(|e| e.message).unwrap_or_else(|| "accepted".into())
    };
    let notes = c.pos("docs/guide/getting-started.md", "[[docs/notes]]", 3);
    let go = c.pos("service/service.go", "Place(o", 0);
    let taken = c.pos("docs/arch/service.md", "depends_on = [\"arch.storage", 16);
    let got =
        [refused(&mut c, notes, "notes"), refused(&mut c, go, "Put"), refused(&mut c, taken, "glossary")];
    expect![[r#"
        `docs/notes` has no front-matter `id` (its ID comes from its path docs/notes.md); add `id = "…"` to rename it
        `go:example.com/shop/service::(*OrderService).Place` is a method: only document IDs and headings can be renamed
        `glossary` already names a node"#]]
    .assert_eq(&got.join("\n"));
    c.shutdown();
}

#[test]
fn utf16_positions_are_converted_to_bytes() {
    let mut c = Client::start(opts(), json!({}));
    c.open("docs/notes.md");
    // "é𝄞 " is 3 UTF-16 units but 7 bytes before the link.
    c.edit("docs/notes.md", 2, [5, 0, 5, 0], "é𝄞 [[arch.service]]\n");
    let p = json!({"textDocument": {"uri": c.uri("docs/notes.md")}, "position": {"line": 5, "character": 6}});
    let def = c.ok("textDocument/definition", p);
    assert_eq!(c.loc(&def), "docs/arch/service.md:2:5-19");
    c.shutdown();
}

#[test]
fn go_identifier_uses_have_definition_and_references() {
    let mut c = Client::start(opts(), json!({}));
    // A type name in a signature, and a `pkg.Var` use.
    let cases = [
        ("service/service.go", "func New(repo storage.Repository", 22),
        ("cache/cache.go", "storage.ErrNotFound", 8),
        ("service/service.go", "return ErrDuplicate", 7),
        ("service/service.go", "Place(o catalog.Order", 16),
    ];
    let got = definitions(&mut c, &cases);
    expect![[r#"
        service/service.go `func New(repo storage.Repository` -> storage/storage.go:24:5-15
        cache/cache.go `storage.ErrNotFound` -> storage/storage.go:11:4-15
        service/service.go `return ErrDuplicate` -> service/service.go:13:4-16
        service/service.go `Place(o catalog.Order` -> catalog/catalog.go:18:5-10"#]]
    .assert_eq(&got.join("\n"));

    // References from a use and from the declaration agree; the declaration is included
    // when asked.
    let refs = |c: &mut Client, rel: &str, needle: &str, skip: u32, decl: bool| {
        let p = with(c.pos(rel, needle, skip), "context", json!({"includeDeclaration": decl}));
        let r = c.ok("textDocument/references", p);
        locs(c, &r)
    };
    let from_use = refs(&mut c, "service/service.go", "func New(repo storage.Repository", 22, false);
    let from_decl = refs(&mut c, "storage/storage.go", "Repository interface", 0, false);
    assert_eq!(from_use, from_decl);
    expect![[r#"
        docs/arch/storage.md:10:11-52
        docs/arch/storage.md:33:31-86
        docs/decisions/pointer-receivers.md:22:0-55
        service/service.go:31:18-28
        service/service.go:37:22-32
        storage/memory/memory.go:55:14-24"#]]
    .assert_eq(&from_use);
    let err = refs(&mut c, "storage/storage.go", "ErrNotFound =", 0, true);
    expect![[r#"
        storage/storage.go:11:4-15
        cache/cache.go:32:36-47
        storage/memory/memory.go:30:36-47
        storage/memory/memory_test.go:20:53-64"#]]
    .assert_eq(&err);
    // A same-package func: its call sites are listed once (use and call edge on one line).
    let new_set = refs(&mut c, "service/set.go", "func NewSet", 5, false);
    expect![[r#"
        service/service.go:38:70-76
        service/set_test.go:6:6-12"#]]
    .assert_eq(&new_set);
    // Methods (precise): every statically resolved call site, a promoted method included,
    // in test files too.
    let add = refs(&mut c, "service/set.go", "func (s *Set[T]) Add", 17, false);
    expect![[r#"
        service/service.go:52:10-13
        service/set_test.go:7:3-6"#]]
    .assert_eq(&add);
    let def = c.ok("textDocument/definition", c.pos("service/service.go", "s.Name()", 2));
    expect!["service/service.go:24:15-19"].assert_eq(&locs(&c, &def));
    c.shutdown();

    // The same with syntax-resolved calls (whose edges point at the call's start).
    let mut c = Client::start(docforge_lsp::Options { no_precise: true, ..opts() }, json!({}));
    assert_eq!(refs(&mut c, "service/set.go", "func NewSet", 5, false), new_set);
    assert_eq!(refs(&mut c, "storage/storage.go", "Repository interface", 0, false), from_decl);
    c.shutdown();
}

#[test]
fn go_local_names_have_definition_and_references() {
    let mut c = Client::start(opts(), json!({}));
    // A parameter, a range variable and a `:=` variable, used in the body.
    let cases = [
        ("cache/cache.go", "r.Get(id)", 0),
        ("cache/cache.go", "r.Get(id)", 6),
        ("cache/cache.go", "s.items[id] = p", 0),
        ("cache/cache.go", "s.items[id] = p", 14),
    ];
    let got = definitions(&mut c, &cases);
    expect![[r#"
        cache/cache.go `r.Get(id)` -> cache/cache.go:16:16-17
        cache/cache.go `r.Get(id)` -> cache/cache.go:18:8-10
        cache/cache.go `s.items[id] = p` -> cache/cache.go:17:1-2
        cache/cache.go `s.items[id] = p` -> cache/cache.go:19:2-3"#]]
    .assert_eq(&got.join("\n"));
    // References from a use and from the declaration, with the declaration.
    let refs = |c: &mut Client, needle: &str, skip: u32| {
        let p = c.pos("cache/cache.go", needle, skip);
        let r = c.ok("textDocument/references", with(p, "context", json!({"includeDeclaration": true})));
        locs(c, &r)
    };
    let from_use = refs(&mut c, "s.items[id] = p", 0);
    expect![[r#"
        cache/cache.go:17:1-2
        cache/cache.go:23:2-3
        cache/cache.go:25:8-9"#]]
    .assert_eq(&from_use);
    assert_eq!(from_use, refs(&mut c, "s := Snapshot{items", 0));
    // A name with no local declaration (a package) is not a local.
    let def = c.ok("textDocument/definition", c.pos("cache/cache.go", "len(ids)", 0));
    assert!(def.is_null(), "{def}");
    c.shutdown();
}

#[test]
fn go_struct_fields_have_definition_and_references() {
    let mut c = Client::start(opts(), json!({}));
    // Selectors of fields (precise type inference of the operand): a field of the receiver's
    // own type, a field of another package's type (through a parameter, and through an index
    // expression inside a function literal), and a different type's field of the same name.
    let cases = [
        ("cache/cache.go", "s.items[id] = p", 2),
        ("cache/cache.go", "p, ok := s.items[id]", 11),
        ("storage/memory/memory.go", "r.items[p.ID] = p", 10),
        ("storage/memory/memory.go", "return out[i].ID", 14),
        ("service/service.go", "s.placed.Has(o.ID)", 15),
    ];
    let got = definitions(&mut c, &cases);
    expect![[r#"
        cache/cache.go `s.items[id] = p` -> cache/cache.go:12:1-6
        cache/cache.go `p, ok := s.items[id]` -> cache/cache.go:12:1-6
        storage/memory/memory.go `r.items[p.ID] = p` -> catalog/catalog.go:6:1-3
        storage/memory/memory.go `return out[i].ID` -> catalog/catalog.go:6:1-3
        service/service.go `s.placed.Has(o.ID)` -> catalog/catalog.go:19:1-3"#]]
    .assert_eq(&got.join("\n"));
    // References from the declaration and from a use: the selectors of that type's field
    // only (`catalog.Order.ID` is another field).
    let refs = |c: &mut Client, rel: &str, needle: &str, skip: u32| {
        let p = c.pos(rel, needle, skip);
        let r = c.ok("textDocument/references", with(p, "context", json!({"includeDeclaration": true})));
        locs(c, &r)
    };
    let product_id = refs(&mut c, "catalog/catalog.go", "ID    string", 0);
    expect![[r#"
        catalog/catalog.go:6:1-3
        cmd/shop/main.go:21:36-38
        service/service_test.go:14:30-32
        storage/memory/memory.go:39:11-13
        storage/memory/memory.go:51:53-55
        storage/memory/memory.go:51:65-67
        storage/memory/memory_test.go:13:33-35"#]]
    .assert_eq(&product_id);
    assert_eq!(product_id, refs(&mut c, "storage/memory/memory.go", "r.items[p.ID] = p", 10));
    // Hover says what the name is and shows its declaring line.
    let hover = |c: &mut Client, rel: &str, needle: &str, skip: u32| {
        let h = c.ok("textDocument/hover", c.pos(rel, needle, skip));
        let value = h["contents"]["value"].as_str().unwrap_or("(none)").to_string();
        let r = &h["range"];
        let line = r["start"]["line"].as_u64().unwrap_or(0) + 1;
        format!("{value}\nrange {line}:{}-{}", r["start"]["character"], r["end"]["character"])
    };
    expect![[r#"
        **field `ID` of `example.com/shop/catalog::Product`**

        ```go
        ID    string
        ```

        declared at `catalog/catalog.go:6`
        range 39:11-13"#]]
    .assert_eq(&hover(&mut c, "storage/memory/memory.go", "r.items[p.ID] = p", 10));
    expect![[r#"
        **local `r`**

        ```go
        func FromReader(r storage.Reader, ids ...string) (Snapshot, error) {
        ```

        declared at `cache/cache.go:16`
        range 19:12-13"#]]
    .assert_eq(&hover(&mut c, "cache/cache.go", "r.Get(id)", 0));
    // Interface methods: a selector on a value of an interface type goes to the method spec
    // that declares it, through embedding (`Repository` embeds `Reader`); references list
    // every selector of that spec, from a use or from the spec itself.
    let got = definitions(
        &mut c,
        &[("cache/cache.go", "r.Get(id)", 2), ("service/service.go", "s.repo.Get(it.ProductID)", 7)],
    );
    expect![[r#"
        cache/cache.go `r.Get(id)` -> storage/storage.go:15:1-4
        service/service.go `s.repo.Get(it.ProductID)` -> storage/storage.go:15:1-4"#]]
    .assert_eq(&got.join("\n"));
    let get = refs(&mut c, "storage/storage.go", "Get(id string)", 0);
    expect![[r#"
        storage/storage.go:15:1-4
        cache/cache.go:19:14-17
        service/service.go:48:22-25"#]]
    .assert_eq(&get);
    assert_eq!(get, refs(&mut c, "service/service.go", "s.repo.Get(it.ProductID)", 7));
    expect![[r#"
        **method `Get` of interface `example.com/shop/storage::Reader`**

        ```go
        Get(id string) (catalog.Product, error)
        ```

        declared at `storage/storage.go:15`
        range 19:14-17"#]]
    .assert_eq(&hover(&mut c, "cache/cache.go", "r.Get(id)", 2));
    // In a test file (type-checked with its package's test build): a field selector, a
    // literal key, and a method of the package under test (`r := New()` is a `*Repo`).
    let got = definitions(
        &mut c,
        &[
            ("storage/memory/memory_test.go", "p.Name != ", 2),
            ("storage/memory/memory_test.go", "Price: 150}); err", 0),
            ("storage/memory/memory_test.go", "r.Get(\"p1\")", 2),
        ],
    );
    expect![[r#"
        storage/memory/memory_test.go `p.Name != ` -> catalog/catalog.go:7:1-5
        storage/memory/memory_test.go `Price: 150}); err` -> catalog/catalog.go:8:1-6
        storage/memory/memory_test.go `r.Get("p1")` -> storage/memory/memory.go:25:15-18"#]]
    .assert_eq(&got.join("\n"));
    let items = refs(&mut c, "cache/cache.go", "items map[string]", 0);
    expect![[r#"
        cache/cache.go:12:1-6
        cache/cache.go:17:15-20
        cache/cache.go:23:4-9
        cache/cache.go:30:12-17
        cache/cache.go:39:14-19"#]]
    .assert_eq(&items);
    c.shutdown();
}

/// Methods of a type parameter's value are its constraint's, and a package variable has
/// its initializer's type: definition and hover through the real server, on a buffer that
/// adds both to `storage/storage.go`.
#[test]
fn go_type_parameter_methods_and_initializer_typed_variables_navigate() {
    let mut c = Client::start(opts(), json!({}));
    let rel = "storage/storage.go";
    let path = c.root.join(rel);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(
        "\nfunc firstOf[R Repository](rs []R) { rs[0].Get(\"a\") }\n\
\nfunc pick() Reader { return nil }\n\
\nvar picked = pick()\n\
\nfunc usePicked() { picked.Get(\"b\") }\n",
    );
    std::fs::write(&path, &text).unwrap();
    c.open(rel);
    let got = definitions(&mut c, &[(rel, "rs[0].Get", 6), (rel, "picked.Get", 7), (rel, "picked.Get", 0)]);
    expect![[r#"
        storage/storage.go `rs[0].Get` -> storage/storage.go:15:1-4
        storage/storage.go `picked.Get` -> storage/storage.go:15:1-4
        storage/storage.go `picked.Get` -> storage/storage.go:34:4-10"#]]
    .assert_eq(&got.join("\n"));
    let h = c.ok("textDocument/hover", c.pos(rel, "rs[0].Get", 6));
    let value = h["contents"]["value"].as_str().unwrap_or("(none)");
    assert!(value.starts_with("**method `Get` of interface `example.com/shop/storage::Reader`**"), "{value}");
    c.shutdown();
}

/// Fields of a struct type spelled in place (a table-driven test's `[]struct{ … }`):
/// definition from a selector and from a literal key, hover and references; and a method of
/// an interface type spelled in place. Through the real server, on a test file written
/// after it started.
#[test]
fn fields_of_a_table_driven_test_navigate_to_the_table_type() {
    let mut c = Client::start(opts(), json!({}));
    let rel = "storage/memory/table_test.go";
    let text = "package memory\n\nimport \"testing\"\n\nfunc TestTable(t *testing.T) {\n\
\ttests := []struct {\n\t\tname string\n\t\tid   string\n\t}{\n\t\t{name: \"missing\", id: \"p9\"},\n\t}\n\
\tfor _, tt := range tests {\n\t\tt.Run(tt.name, func(t *testing.T) {\n\
\t\t\tif _, err := New().Get(tt.id); err == nil {\n\t\t\t\tt.Fatal(tt.name)\n\t\t\t}\n\t\t})\n\t}\n}\n\n\
func closeAll(cs []interface{ Close() error }) {\n\tfor _, c := range cs {\n\t\t_ = c.Close()\n\t}\n}\n";
    std::fs::write(c.root.join(rel), text).unwrap();
    c.open(rel);
    let got = definitions(
        &mut c,
        &[
            (rel, "tt.name, func", 3),
            (rel, "tt.id)", 3),
            (rel, "name: \"missing\"", 0),
            (rel, "c.Close()", 2),
        ],
    );
    expect![[r#"
        storage/memory/table_test.go `tt.name, func` -> storage/memory/table_test.go:7:2-6
        storage/memory/table_test.go `tt.id)` -> storage/memory/table_test.go:8:2-4
        storage/memory/table_test.go `name: "missing"` -> storage/memory/table_test.go:7:2-6
        storage/memory/table_test.go `c.Close()` -> storage/memory/table_test.go:21:30-35"#]]
    .assert_eq(&got.join("\n"));
    let h = c.ok("textDocument/hover", c.pos(rel, "tt.id)", 3));
    let value = h["contents"]["value"].as_str().unwrap_or("(none)");
    assert!(value.starts_with("**field `id` of an unnamed struct type**"), "{value}");
    let h = c.ok("textDocument/hover", c.pos(rel, "c.Close()", 2));
    let value = h["contents"]["value"].as_str().unwrap_or("(none)");
    assert!(value.starts_with("**method `Close` of an unnamed interface type**"), "{value}");
    let mut p = c.pos(rel, "name string", 0);
    p["context"] = json!({ "includeDeclaration": true });
    let found = c.ok("textDocument/references", p);
    expect![[r#"
        storage/memory/table_test.go:7:2-6
        storage/memory/table_test.go:10:3-7
        storage/memory/table_test.go:13:11-15
        storage/memory/table_test.go:15:15-19"#]]
    .assert_eq(&locs(&c, &found));
    c.shutdown();
}
