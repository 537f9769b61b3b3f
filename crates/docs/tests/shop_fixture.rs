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

#[test]
fn shop_dump() {
    let docs = shop_docs();
    let refs: Vec<&DocFacts> = docs.iter().collect();
    let frag = project(&refs, &|id| id.starts_with("go:example.com/shop"));
    for e in &frag.edges {
        println!("{} --{}--> {}", e.source, e.relation, e.target);
    }
    for d in &frag.diagnostics {
        println!("{:?} {} {} {:?}", d.severity, d.code, d.message, d.location);
    }
}
