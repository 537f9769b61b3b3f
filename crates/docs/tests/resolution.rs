//! Cross-document resolution: edges, broken/ambiguous links, duplicate IDs, relations.

use docforge_docs::{document_fragment, parse_markdown_document, project, DocFacts, DocIndex};
use docforge_model::{Fragment, Severity};

fn docs(files: &[(&str, &str)]) -> Vec<DocFacts> {
    files.iter().map(|(p, t)| parse_markdown_document(p, t)).collect()
}

fn known_go(id: &str) -> bool {
    id == "go:m/p::T" || id == "file:main.go"
}

fn edges(f: &Fragment) -> Vec<String> {
    f.edges.iter().map(|e| format!("{} --{}--> {}", e.source, e.relation, e.target)).collect()
}

fn diags(f: &Fragment) -> Vec<String> {
    f.diagnostics
        .iter()
        .map(|d| {
            let l = d.location.clone().unwrap_or_default();
            format!(
                "{:?} {} {}:{}:{} on {}",
                d.severity,
                d.code,
                l.path,
                l.line,
                l.column,
                d.node.clone().unwrap_or_default()
            )
        })
        .collect()
}

/// Document `s` (`docs/s.md`) with `link` under its heading `# Own`, beside `docs/t.md`
/// holding `target`: its fragment and its edges other than `contains`, with `s#own` written `s`.
fn link_from_own_section(target: &str, link: &str) -> (Fragment, Vec<String>) {
    let source = format!("+++\nid = \"s\"\n+++\n# Own\n{link}\n");
    let all = docs(&[("docs/t.md", target), ("docs/s.md", &source)]);
    let index = DocIndex::new(&all.iter().collect::<Vec<_>>());
    let f = document_fragment(&all[1], &index, &known_go);
    let link_edges = edges(&f)
        .into_iter()
        .filter(|e| !e.contains("contains"))
        .map(|e| e.replace("s#own ", "s "))
        .collect();
    (f, link_edges)
}

const TARGET: &str = "+++\nid = \"t\"\n+++\n# Top\n## Part Two\n";

#[test]
fn links_resolve_or_are_reported() {
    struct Case {
        link: &'static str,
        edge: Option<&'static str>,
        diag: Option<&'static str>,
    }
    let cases = [
        Case { link: "[x](t.md)", edge: Some("s --relates_to--> t"), diag: None },
        Case { link: "[x](./t.md#part-two)", edge: Some("s --relates_to--> t#part-two"), diag: None },
        Case { link: "[x](t.md#Part%20Two)", edge: Some("s --relates_to--> t#part-two"), diag: None },
        Case { link: "[[t]]", edge: Some("s --relates_to--> t"), diag: None },
        Case { link: "[[t#top]]", edge: Some("s --relates_to--> t#top"), diag: None },
        Case { link: "[x](#own)", edge: Some("s --relates_to--> s#own"), diag: None },
        Case { link: "[x](go:m/p::T)", edge: Some("s --documents--> go:m/p::T"), diag: None },
        Case { link: "[[go:m/p::T]]", edge: Some("s --documents--> go:m/p::T"), diag: None },
        Case { link: "[[file:main.go]]", edge: Some("s --relates_to--> file:main.go"), diag: None },
        Case { link: "[x](missing.md)", edge: None, diag: Some("Error broken_link docs/s.md:5:1 on s") },
        Case { link: "[x](t.md#nope)", edge: None, diag: Some("Error broken_link docs/s.md:5:1 on s") },
        Case { link: "[[nobody]]", edge: None, diag: Some("Error broken_link docs/s.md:5:1 on s") },
        Case { link: "[[t#nope]]", edge: None, diag: Some("Error broken_link docs/s.md:5:1 on s") },
        Case { link: "[x](#nope)", edge: None, diag: Some("Error broken_link docs/s.md:5:1 on s") },
        Case { link: "[x](../../out.md)", edge: None, diag: Some("Error broken_link docs/s.md:5:1 on s") },
        Case {
            link: "[x](go:m/p::Nope)",
            edge: None,
            diag: Some("Warning unknown_go_target docs/s.md:5:1 on s"),
        },
        Case { link: "[x](other.toml)", edge: None, diag: None },
        Case { link: "[x](https://example.com/t.md)", edge: None, diag: None },
        Case { link: "`[[t]]`", edge: None, diag: None },
    ];
    for case in cases {
        let (f, link_edges) = link_from_own_section(TARGET, case.link);
        assert_eq!(
            link_edges,
            case.edge.map(|e| e.to_string()).into_iter().collect::<Vec<_>>(),
            "{}",
            case.link
        );
        let got: Vec<String> = diags(&f).into_iter().map(|d| d.replace("on s#own", "on s")).collect();
        assert_eq!(got, case.diag.map(|d| d.to_string()).into_iter().collect::<Vec<_>>(), "{}", case.link);
        if let Some(d) = f.diagnostics.first() {
            assert!(
                d.message.contains(
                    case.link
                        .trim_matches(['[', ']', '`'])
                        .split(['(', ')'])
                        .nth(1)
                        .unwrap_or(case.link.trim_matches(['[', ']']))
                ),
                "{}: {}",
                case.link,
                d.message
            );
        }
    }
}

#[test]
fn duplicate_ids_are_reported_on_both_files_and_make_links_ambiguous() {
    let dup = "+++\nid = \"same\"\n+++\n# H\n";
    let all = docs(&[
        ("docs/a.md", dup),
        ("docs/b.md", dup),
        (
            "docs/c.md",
            "+++\nid = \"c\"\n[relations]\ndepends_on = [\"same\"]\n+++\nSee [[same]] and [a](a.md).\n",
        ),
    ]);
    let refs: Vec<&DocFacts> = all.iter().collect();
    let index = DocIndex::new(&refs);
    assert_eq!(
        index.duplicate_ids().collect::<Vec<_>>(),
        [("same", &["docs/a.md".to_string(), "docs/b.md".to_string()][..])]
    );
    for doc in &all[..2] {
        let f = document_fragment(doc, &index, &known_go);
        assert_eq!(f.diagnostics.len(), 1);
        let d = &f.diagnostics[0];
        assert_eq!((d.code.as_str(), d.severity), ("duplicate_id", Severity::Error));
        assert!(d.message.contains("docs/a.md") && d.message.contains("docs/b.md"), "{}", d.message);
        assert_eq!(d.location.as_ref().unwrap().path, doc.path);
        assert_eq!(f.nodes[0].id, "same", "the file is not dropped");
    }
    let f = document_fragment(&all[2], &index, &known_go);
    assert_eq!(edges(&f), ["c --relates_to--> same"], "a path link is unambiguous");
    assert_eq!(
        diags(&f),
        ["Error ambiguous_link docs/c.md:6:5 on c", "Error ambiguous_link docs/c.md:4:15 on c"]
    );
}

#[test]
fn relations_become_edges_or_diagnostics() {
    let src = "+++\nid = \"s\"\n[relations]\ngoverns = [\"go:m/p::T\", \"go:m/p::Gone\"]\ndepends_on = [\"t\", \"t#part-two\", \"nope\", \"t#nope\"]\nsupersedes = \"t\"\nverifies = [\"file:main.go\"]\n+++\n";
    let all = docs(&[("docs/t.md", TARGET), ("docs/s.md", src)]);
    let refs: Vec<&DocFacts> = all.iter().collect();
    let f = document_fragment(&all[1], &DocIndex::new(&refs), &known_go);
    assert_eq!(
        edges(&f),
        [
            "s --depends_on--> t",
            "s --depends_on--> t#part-two",
            "s --governs--> go:m/p::T",
            "s --supersedes--> t",
            "s --verifies--> file:main.go"
        ]
    );
    assert_eq!(
        diags(&f),
        [
            "Error unknown_relation_target docs/s.md:5:34 on s",
            "Error unknown_relation_target docs/s.md:5:42 on s",
            "Warning unknown_relation_target docs/s.md:4:25 on s"
        ]
    );
}

#[test]
fn project_concatenates_document_fragments_and_dedupes_edges() {
    let all = docs(&[("docs/t.md", TARGET), ("docs/s.md", "# S\n[a](t.md) [b](t.md) [[t]]\n")]);
    let refs: Vec<&DocFacts> = all.iter().collect();
    let f = project(&refs, &known_go);
    assert_eq!(
        edges(&f),
        [
            "t --contains--> t#top",
            "t#top --contains--> t#part-two",
            "docs/s --contains--> docs/s#s",
            "docs/s#s --relates_to--> t"
        ]
    );
    let ids: Vec<&str> = f.nodes.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(ids, ["t", "t#top", "t#part-two", "docs/s", "docs/s#s"]);
    assert_eq!(
        f.edges[3].location.as_ref().map(|l| (l.line, l.column)),
        Some((2, 1)),
        "first occurrence kept"
    );
}

#[test]
fn index_ignores_prose_edits() {
    let a = parse_markdown_document("d.md", "# A\nsome text [x](y.md)\n");
    let b = parse_markdown_document("d.md", "# A\nother text entirely\n");
    assert_ne!(a, b);
    assert_eq!(a.index_entry(), b.index_entry());
    let c = parse_markdown_document("d.md", "# B\nsome text\n");
    assert_ne!(a.index_entry(), c.index_entry());
}

/// Fragments may name HTML anchors (`id` on any element, `name` on `<a>`) and explicit
/// `{#id}`s as well as heading slugs, with or without GitHub's `user-content-` prefix; an
/// anchor leads to its section (see `anchors.rs`), before the first heading to the document.
#[test]
fn fragments_resolve_to_anchors_too() {
    let target = "+++\nid = \"t\"\n+++\n<a name=\"doc-top\"></a>\n\nIntro.\n\n<a id='sec'></a>\n# Top\n\n\
                  Text <span id=\"inline-anchor\"></span> here.\n\n## Using the Tool {#command}\n\n\
                  <h3 id=\"formats\">\nFormats\n</h3>\n";
    let cases = [
        ("[x](t.md#doc-top)", Some("s --relates_to--> t")),
        ("[x](t.md#sec)", Some("s --relates_to--> t#top")),
        ("[x](t.md#inline-anchor)", Some("s --relates_to--> t#top")),
        ("[x](t.md#command)", Some("s --relates_to--> t#using-the-tool-command")),
        ("[x](t.md#using-the-tool-command)", Some("s --relates_to--> t#using-the-tool-command")),
        ("[x](t.md#formats)", Some("s --relates_to--> t#using-the-tool-command")),
        ("[x](t.md#user-content-top)", Some("s --relates_to--> t#top")),
        ("[x](t.md#user-content-formats)", Some("s --relates_to--> t#using-the-tool-command")),
        ("[[t#command]]", Some("s --relates_to--> t#using-the-tool-command")),
        ("[x](t.md#Formats)", None),
        ("[x](t.md#user-content-)", None),
        ("[x](t.md#nope)", None),
    ];
    for (link, edge) in cases {
        let (f, link_edges) = link_from_own_section(target, link);
        assert_eq!(link_edges, edge.map(|e| e.to_string()).into_iter().collect::<Vec<_>>(), "{link}");
        let broken = diags(&f).iter().any(|d| d.contains("broken_link"));
        assert_eq!(broken, edge.is_none(), "{link}: {:?}", diags(&f));
    }
}
