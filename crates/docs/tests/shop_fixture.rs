//! The `fixtures/shop` documents projected end to end.

use docforge_docs::{parse_markdown_document, parse_toml_node, project, DocFacts};
use std::path::{Path, PathBuf};

fn shop_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shop")
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            walk(&p, out);
        } else {
            out.push(p);
        }
    }
}

fn shop_docs() -> Vec<DocFacts> {
    let root = shop_root();
    let mut files = Vec::new();
    walk(&root.join("docs"), &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&root).unwrap().to_string_lossy().replace('\\', "/");
            let text = std::fs::read_to_string(f).unwrap();
            if rel.ends_with(".toml") {
                parse_toml_node(&rel, &text)
            } else {
                parse_markdown_document(&rel, &text)
            }
        })
        .collect()
}

fn known_shop_node(id: &str) -> bool {
    [
        "go:example.com/shop/storage::Repository",
        "go:example.com/shop/storage::Reader",
        "go:example.com/shop/storage/memory::Repo",
        "go:example.com/shop/service::OrderService",
        "go:example.com/shop/service::(*OrderService).Place",
        "go:example.com/shop/cmd/shop::logOrder",
    ]
    .contains(&id)
}

#[test]
fn shop_docs_project_as_documented_in_the_fixture_readme() {
    let docs = shop_docs();
    let refs: Vec<&DocFacts> = docs.iter().collect();
    let ids: Vec<&str> = docs.iter().map(|d| d.id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "arch.service",
            "arch.storage",
            "decision.pointer-receivers",
            "decision.value-receivers",
            "glossary",
            "guide.getting-started",
            "docs/notes"
        ]
    );
    for d in &docs {
        assert!(d.diagnostics.is_empty(), "{}: {:?}", d.path, d.diagnostics);
    }
    let frag = project(&refs, &known_shop_node);
    let diags: Vec<(String, String, u32)> = frag
        .diagnostics
        .iter()
        .map(|d| {
            let l = d.location.clone().unwrap();
            (d.code.clone(), l.path, l.line)
        })
        .collect();
    let broken = |line| ("broken_link".to_string(), "docs/guide/getting-started.md".to_string(), line);
    assert_eq!(diags, [broken(29), broken(30)], "exactly the two deliberate broken links");

    let edge = |s: &str, r: &str, t: &str| {
        frag.edges.iter().any(|e| e.source == s && e.relation == r && e.target == t)
    };
    let must = [
        ("arch.storage", "governs", "go:example.com/shop/storage::Repository"),
        ("arch.service", "depends_on", "arch.storage"),
        ("decision.pointer-receivers", "supersedes", "decision.value-receivers"),
        ("glossary", "relates_to", "arch.storage"),
        ("arch.storage#interfaces", "documents", "go:example.com/shop/storage::Reader"),
        ("arch.service#placing-orders", "documents", "go:example.com/shop/service::(*OrderService).Place"),
        ("arch.service#hooks", "relates_to", "guide.getting-started#wiring-a-hook"),
        ("arch.storage#memory", "relates_to", "decision.pointer-receivers#decision"),
        ("guide.getting-started#further-reading", "relates_to", "docs/notes"),
        ("arch.storage#storage", "contains", "arch.storage#interfaces"),
        ("arch.storage#implementations", "contains", "arch.storage#cache"),
    ];
    for (s, r, t) in must {
        assert!(edge(s, r, t), "missing {s} --{r}--> {t}");
    }
    assert!(!frag.edges.iter().any(|e| e.target.contains("not-a-link")), "code produced a link");

    let claims: Vec<(&str, &str, &str)> = docs
        .iter()
        .flat_map(|d| d.claims.iter())
        .map(|c| (c.predicate.as_str(), c.subject.as_str(), c.object.as_deref().unwrap_or("")))
        .collect();
    assert_eq!(
        claims,
        [
            ("package_imports", "example.com/shop/service", "example.com/shop/storage"),
            (
                "call_edge_exists",
                "example.com/shop/service::(*OrderService).Place",
                "example.com/shop/service::(*Set).Add"
            ),
            ("symbol_exists", "example.com/shop/storage/memory::(*Repo).Get", ""),
            ("type_implements", "example.com/shop/cache::Snapshot", "example.com/shop/storage::Reader"),
            ("type_implements", "example.com/shop/cache::Snapshot", "example.com/shop/storage::Repository"),
        ]
    );
}
