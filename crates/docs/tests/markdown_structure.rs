//! Headings, sections, links and odd inputs (CRLF, BOM, empty, huge).

use docforge_docs::{parse_markdown_document, DocFacts, LinkKind, LinkTarget};

fn section_summary(f: &DocFacts) -> Vec<(String, u8, Option<String>, u32)> {
    f.sections
        .iter()
        .map(|s| (s.id.clone(), s.level, s.parent.map(|p| f.sections[p].slug.clone()), s.location.line))
        .collect()
}

fn link_summary(f: &DocFacts) -> Vec<(String, LinkKind, String, u32, u32)> {
    f.links
        .iter()
        .map(|l| (l.source.clone(), l.kind, format!("{:?}", l.target), l.location.line, l.location.column))
        .collect()
}

#[test]
fn headings_become_nested_sections_with_github_slugs() {
    let text = "# Intro\n\n## Setup ##\n\n### Deep `code` *em*\n\nIntro\n=====\n\n## Setup\n\nSub\n---\n\n# Ünïcödé Straße!\n";
    let f = parse_markdown_document("d.md", text);
    let o = |s: &str| Some(s.to_string());
    assert_eq!(
        section_summary(&f),
        [
            ("d#intro".into(), 1, None, 1),
            ("d#setup".into(), 2, o("intro"), 3),
            ("d#deep-code-em".into(), 3, o("setup"), 5),
            ("d#intro-1".into(), 1, None, 7),
            ("d#setup-1".into(), 2, o("intro-1"), 10),
            ("d#sub".into(), 2, o("intro-1"), 12),
            ("d#ünïcödé-straße".into(), 1, None, 15),
        ]
    );
    assert_eq!(f.sections[2].title, "Deep code em");
    assert_eq!(f.node.title, "Intro", "title falls back to the first heading");
}

#[test]
fn titles_fall_back_to_the_file_stem() {
    assert_eq!(parse_markdown_document("docs/plain-notes.md", "just text\n").node.title, "plain-notes");
}

#[test]
fn links_of_every_kind_are_recorded_with_their_source_section() {
    let text = "\
Before [a](a.md) any heading.

# One

Inline [b](sub/b.md#Part-Two), reference [c][cref], collapsed [cref][], shortcut [cref],
wiki [[arch.x]] and [[arch.y#sec|label]], go [g](go:m/p::T) and <go:m/p::U>,
self [s](#two), external [e](https://example.com/x.md) <https://x.org> [m](mailto:a@b),
image ![i](pic.md), source [src](../main.go), undefined [nope][missing].

## Two

| table | [t](t.md) |
|---|---|

[cref]: c.md
";
    let f = parse_markdown_document("docs/d.md", text);
    let p = |path: &str, frag: Option<&str>| {
        format!("{:?}", LinkTarget::Path { path: path.into(), fragment: frag.map(Into::into) })
    };
    let id = |i: &str, frag: Option<&str>| {
        format!("{:?}", LinkTarget::Id { id: i.into(), fragment: frag.map(Into::into) })
    };
    let go = |g: &str| format!("{:?}", LinkTarget::Go(g.into()));
    let want = vec![
        ("docs/d".to_string(), LinkKind::Inline, p("docs/a.md", None), 1, 8),
        ("docs/d#one".into(), LinkKind::Inline, p("docs/sub/b.md", Some("Part-Two")), 5, 8),
        ("docs/d#one".into(), LinkKind::Reference, p("docs/c.md", None), 5, 42),
        ("docs/d#one".into(), LinkKind::Reference, p("docs/c.md", None), 5, 63),
        ("docs/d#one".into(), LinkKind::Reference, p("docs/c.md", None), 5, 82),
        ("docs/d#one".into(), LinkKind::Wiki, id("arch.x", None), 6, 6),
        ("docs/d#one".into(), LinkKind::Wiki, id("arch.y", Some("sec")), 6, 21),
        ("docs/d#one".into(), LinkKind::Inline, go("go:m/p::T"), 6, 46),
        ("docs/d#one".into(), LinkKind::Autolink, go("go:m/p::U"), 6, 65),
        ("docs/d#one".into(), LinkKind::Inline, p("docs/d.md", Some("two")), 7, 6),
        ("docs/d#two".into(), LinkKind::Inline, p("docs/t.md", None), 12, 11),
    ];
    assert_eq!(link_summary(&f), want);
    assert_eq!(f.links[6].text, "label");
    assert_eq!(f.links[1].text, "b");
    assert_eq!(f.links[1].destination, "sub/b.md#Part-Two");
}

/// CommonMark: of several definitions of one label (compared case- and space-insensitively),
/// the first in the document wins, wherever the references are.
#[test]
fn the_first_definition_of_a_label_wins() {
    let text = "\
See [ref] and [y][REF].

[Ref]: first.md
[ref]: second.md

# Later

[ REF ]: third.md
Again [ref].
";
    let f = parse_markdown_document("d.md", text);
    let destinations: Vec<&str> = f.links.iter().map(|l| l.destination.as_str()).collect();
    assert_eq!(destinations, ["first.md", "first.md", "first.md"]);
}

/// tree-sitter-md reads `[x]` / `[X]` at the start of a line as a task-list checkbox, so its
/// block tree has no definition for them (nor for the definitions on the lines after): those
/// are read from the paragraph text, and the definitions themselves are not links.
#[test]
fn definitions_of_the_label_x_are_read_too() {
    let text = "\
# Refs

See [one][x], [two][bee], [three][X] and [x].

[x]: b.md
[bee]: c.md

Inline [x]: a link, not a definition.

[X]: d.md \"a second definition of the label: the first wins\"
Then [four][bee].

- [x] a task, and [five][x].
";
    let f = parse_markdown_document("docs/a.md", text);
    let p = |path: &str| format!("{:?}", LinkTarget::Path { path: path.into(), fragment: None });
    let refs = |line, column| ("docs/a#refs".to_string(), LinkKind::Reference, p("docs/b.md"), line, column);
    let want = vec![
        refs(3, 5),
        ("docs/a#refs".into(), LinkKind::Reference, p("docs/c.md"), 3, 15),
        refs(3, 27),
        refs(3, 42),
        refs(8, 8),
        ("docs/a#refs".into(), LinkKind::Reference, p("docs/c.md"), 11, 6),
        refs(13, 19),
    ];
    assert_eq!(link_summary(&f), want);
    let section = &f.sections[0].text;
    assert!(
        section.contains("Then four") && !section.contains("b.md") && !section.contains("c.md"),
        "{section}"
    );

    // After a definition tree-sitter-md read (any other label), an `[x]` line starts a paragraph.
    let f = parse_markdown_document("docs/a.md", "[y][z] [x]\n\n[z]: b.md\n[x]: c.md\n");
    let destinations: Vec<&str> = f.links.iter().map(|l| l.destination.as_str()).collect();
    assert_eq!(destinations, ["b.md", "c.md"]);
}

#[test]
fn code_never_produces_links() {
    let text = "\
# Code

`[[span]]` and `[x](a.md)` in spans.

```md
[[fenced]] [y](b.md)
```

    [[indented]] [z](c.md)

<div>
[[html]]
</div>

~~~
unclosed fence [[never]] [w](d.md)
";
    let f = parse_markdown_document("d.md", text);
    assert!(f.links.is_empty(), "{:#?}", f.links);
}

#[test]
fn crlf_bom_and_empty_inputs() {
    let crlf = "+++\r\nid = \"c\"\r\n+++\r\n# Title\r\n\r\nSee [[x]] and [y](y.md).\r\n## Next\r\n";
    let f = parse_markdown_document("d.md", crlf);
    assert_eq!(f.id, "c");
    assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
    assert_eq!(
        section_summary(&f),
        [("c#title".into(), 1, None, 4), ("c#next".into(), 2, Some("title".into()), 7)]
    );
    assert_eq!(f.sections[0].title, "Title");
    let lines: Vec<(u32, u32)> = f.links.iter().map(|l| (l.location.line, l.location.column)).collect();
    assert_eq!(lines, [(6, 5), (6, 15)]);

    let bom = "\u{feff}+++\nid = \"b\"\n+++\n# Heading\n";
    let f = parse_markdown_document("d.md", bom);
    assert_eq!((f.id.as_str(), f.sections.len()), ("b", 1));
    assert!(f.diagnostics.is_empty());

    let bom_no_front = "\u{feff}# Heading\ntext\n";
    let f = parse_markdown_document("d.md", bom_no_front);
    assert_eq!(f.sections[0].id, "d#heading");

    for text in ["", "\n", "+++", "+++\n", "+++\n+++", "\u{feff}", "\r\n\r\n", "[[", "]]]]", "# ", "#"] {
        let f = parse_markdown_document("e.md", text);
        assert_eq!(f.id, "e", "{text:?}");
        assert_eq!(f.node.kind, "document");
    }
    let f = parse_markdown_document("e.md", "+++\n+++");
    assert!(f.diagnostics.is_empty(), "empty front matter is fine: {:?}", f.diagnostics);
}

#[test]
fn node_text_is_whole_plain_text_with_code_blocks() {
    let mut text = String::from("+++\ntitle = \"T\"\n+++\n# A\n\nSome **bold** [link](x.md) `code`.\n\n");
    for i in 0..500 {
        text.push_str(&format!("Paragraph {i} with some words in it.\n\n"));
    }
    text.push_str("```go\nfunc LastWord() {}\n```\n\n    indented := true\n\n## B\n\nclosing words\n");
    let f = parse_markdown_document("d.md", &text);
    assert!(f.node.text.starts_with("A\nSome bold link code."), "{}", &f.node.text[..60]);
    let tail = "Paragraph 499 with some words in it.\nfunc LastWord() {}\nindented := true\nB\nclosing words";
    assert!(f.node.text.ends_with(tail), "{}", &f.node.text[f.node.text.len() - 120..]);
    assert!(f.sections[0].text.starts_with("Some bold link code.\nParagraph 0"));
    assert!(f.sections[0]
        .text
        .ends_with("Paragraph 499 with some words in it.\nfunc LastWord() {}\nindented := true"));
    assert_eq!(f.sections[1].text, "closing words", "a section's text leaves out its heading");
    assert!(!f.node.text.contains("title"), "front matter is not prose");
    let crlf = parse_markdown_document("c.md", "# A\r\n\r\n```\r\nx = 1\r\ny = 2\r\n```\r\n");
    assert_eq!(crlf.sections[0].text, "x = 1\ny = 2", "CRLF code reads as LF, like prose");
}

/// Informal throughput check (no timed assertion): a few MB of Markdown in one file.
#[test]
fn large_document_parses() {
    let mut text = String::new();
    for i in 0..1500 {
        text.push_str(&format!(
            "## Section {i}\n\nProse with a [link](other.md#s{i}), a [[wiki.{i}]] link, `code [[no]]` and \
             <go:example.com/p::T{i}>.\n\n```go\nfunc F{i}() {{}} // [[not]]\n```\n\n- item [x](x.md)\n- item two\n\n"
        ));
    }
    let start = std::time::Instant::now();
    let f = parse_markdown_document("docs/big.md", &text);
    let elapsed = start.elapsed();
    eprintln!(
        "large_document_parses: {} bytes, {} sections, {} links in {elapsed:?} ({:.1} MB/s)",
        text.len(),
        f.sections.len(),
        f.links.len(),
        text.len() as f64 / 1e6 / elapsed.as_secs_f64()
    );
    assert_eq!(f.sections.len(), 1500);
    assert_eq!(f.links.len(), 4 * 1500);
    assert_eq!(f.sections[1499].id, "docs/big#section-1499");
}

/// Inputs made of the characters the reference-definition and anchor readers look at (with
/// multi-byte ones among them) never make the parser panic.
#[test]
fn generated_markup_never_panics() {
    const PIECES: &[&str] = &[
        "[x]",
        "[X]:",
        "]:",
        "[",
        "]",
        ":",
        " ",
        "\t",
        "\n",
        "\r\n",
        "<",
        ">",
        "<a id=\"",
        "<a name='",
        "id=",
        "\"",
        "'",
        "(",
        ")",
        "\\",
        "#",
        "{#",
        "}",
        "# ",
        "## ",
        "é",
        "→",
        "x.md",
        "<h3 ",
        "</a>",
        "user-content-",
        "    ",
    ];
    let mut state = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..3000 {
        let mut doc = String::new();
        for _ in 0..(state % 40) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            doc.push_str(PIECES[(state % PIECES.len() as u64) as usize]);
        }
        let f = parse_markdown_document("docs/g.md", &doc);
        let lines = doc.split('\n').count() as u32;
        assert!(f.links.iter().all(|l| (1..=lines).contains(&l.location.line)), "{doc:?}");
        // Resolved against itself: its fragments name its own slugs and anchors.
        let index = docforge_docs::DocIndex::new(&[&f]);
        let _ = docforge_docs::document_fragment(&f, &index, &|_| false);
    }
}

/// A code block's text is its code: without the prefixes of the blocks around it (a quote's
/// `>`, however written; a list item's indentation), the indentation that marks an indented
/// block, or the fence's own indentation (up to its width, as CommonMark reads it). A `>`
/// that is code stays.
#[test]
fn code_blocks_inside_containers_are_their_code() {
    let cases: &[(&str, &str)] = &[
        ("> ```\n> a\n>   b\n> ```\n", "a\n  b"),
        ("- item\n\n  ```sh\n  run x\n    nested\n\n  last\n  ```\n", "item\nrun x\n  nested\n\nlast"),
        ("    x := 1\n      y := 2\n", "x := 1\n  y := 2"),
        (">     code\n>     more\n", "code\nmore"),
        ("  ```\n  a\n    b\n c\n  ```\n", "a\n  b\nc"),
        ("> - ```\n>   in\n>   both\n>   ```\n", "in\nboth"),
        ("```\n> not a quote\n```\n", "> not a quote"),
        ("1. step\n\n       indented code\n", "step\nindented code"),
        ("> ```\n>> x\n> ```\n", "> x"),
        (">>```\n> > code\n>>```\n", "code"),
        (">```\n> code\n>```\n", "code"),
        ("   > ```\n   > a\n   > ```\n", "a"),
        (">     code\n>       more\n", "code\n  more"),
        ("> ```\r\n> a\r\n>   b\r\n> ```\r\n", "a\n  b"),
    ];
    for (body, want) in cases {
        let f = parse_markdown_document("d.md", &format!("# T\n\n{body}"));
        assert_eq!(f.sections[0].text, *want, "{body:?}");
    }
}
