//! Byte spans and content hashes of documents, sections and TOML nodes: what each span holds
//! for every shape of input the parser accepts, shown as the bytes it slices out of the file.

use docforge_docs::{
    document_fragment, parse_markdown_bytes, parse_markdown_document, parse_toml_node_bytes, DocFacts,
    DocIndex,
};
use docforge_model::{ByteSpan, Node, NodeSpan};
use expect_test::{expect, Expect};
use sha2::{Digest, Sha256};
use std::fmt::Write;

fn sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// The graph nodes of one document, as the projection writes them.
fn nodes(facts: &DocFacts) -> Vec<Node> {
    let index = DocIndex::new(&[facts]);
    document_fragment(facts, &index, &|_| false).nodes
}

/// Check what holds for every span of every node of `file`, and render each span as the
/// bytes it slices out of the file.
fn render(file: &[u8], facts: &DocFacts) -> String {
    let slice = |s: ByteSpan| format!("{s} {:?}", String::from_utf8_lossy(&file[s.range()]));
    let mut out = String::new();
    let mut sections: Vec<(u8, ByteSpan)> = Vec::new();
    for node in nodes(facts) {
        let span =
            NodeSpan::from_attrs(&node.attrs).unwrap().unwrap_or_else(|| panic!("{} has no span", node.id));
        // The hash is of exactly the bytes the span slices out of the file.
        assert_eq!(sha256(&file[span.span.range()]), span.content_sha256, "{}", node.id);
        match node.kind.as_str() {
            "document" | "toml_node" => {
                assert_eq!(span.span, ByteSpan::new(0, file.len()), "{}: the whole file", node.id);
                assert!(span.heading.is_none());
                // Front matter and body tile the file after a BOM.
                let bom = if file.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
                if let Some(body) = span.body {
                    let first = span.front_matter.unwrap_or(body);
                    assert_eq!(first.start, bom, "{}", node.id);
                    assert_eq!(span.front_matter.map_or(body.start, |f| f.end), body.start, "{}", node.id);
                    assert_eq!(body.end, file.len(), "{}", node.id);
                }
                writeln!(out, "{} {} {}", node.kind, node.id, span.span).unwrap();
            }
            _ => {
                let (heading, body) = (span.heading.unwrap(), span.body.unwrap());
                assert!(span.front_matter.is_none());
                assert_eq!(heading.start, span.span.start, "{}: starts at its heading", node.id);
                // The heading is whole lines: it starts a line (or the file, after a BOM) and
                // ends with its line ending (or the file).
                let bom = if file.starts_with(b"\xef\xbb\xbf") { 3 } else { 0 };
                let ends_line = |at: usize| matches!(file[at - 1], b'\n' | b'\r');
                assert!(!heading.is_empty(), "{}", node.id);
                assert!(heading.start == bom || ends_line(heading.start), "{}: {heading}", node.id);
                assert!(heading.end == file.len() || ends_line(heading.end), "{}: {heading}", node.id);
                assert_eq!(heading.end, body.start, "{}: the body follows the heading", node.id);
                assert!(span.span.contains(body), "{}", node.id);
                let level: u8 = node.attrs["level"].parse().unwrap();
                // Sections nest: an earlier section either holds this one (a higher level)
                // or ended before it starts.
                for &(l, earlier) in &sections {
                    if l < level && earlier.end > span.span.start {
                        assert!(earlier.contains(span.span), "{} inside {earlier}", node.id);
                    } else {
                        assert!(earlier.end <= span.span.start, "{} after {earlier}", node.id);
                    }
                }
                sections.push((level, span.span));
                writeln!(out, "{} {}", node.id, slice(span.span)).unwrap();
            }
        }
        for (name, part) in
            [("front_matter", span.front_matter), ("heading", span.heading), ("body", span.body)]
        {
            if let Some(part) = part {
                assert!(span.span.contains(part), "{}: {name}", node.id);
                writeln!(out, "  {name} {}", slice(part)).unwrap();
            }
        }
    }
    for d in &facts.diagnostics {
        writeln!(out, "diagnostic {}", d.code).unwrap();
    }
    out
}

fn check(file: &[u8], want: Expect) {
    want.assert_eq(&render(file, &parse_markdown_bytes("d.md", file)));
    if let Ok(text) = std::str::from_utf8(file) {
        // The same facts from text and from bytes when the bytes are UTF-8.
        assert_eq!(parse_markdown_document("d.md", text), parse_markdown_bytes("d.md", file));
    }
}

#[test]
fn nested_sections_hold_their_subsections_and_bodies_stop_at_the_first() {
    check(
        b"intro\n\n# A\ntext a\n\n## B\ntext b\n### C\ntext c\n## D\n# E\ntext e\n",
        expect![[r####"
            document d 0..60
              body 0..60 "intro\n\n# A\ntext a\n\n## B\ntext b\n### C\ntext c\n## D\n# E\ntext e\n"
            d#a 7..49 "# A\ntext a\n\n## B\ntext b\n### C\ntext c\n## D\n"
              heading 7..11 "# A\n"
              body 11..19 "text a\n\n"
            d#b 19..44 "## B\ntext b\n### C\ntext c\n"
              heading 19..24 "## B\n"
              body 24..31 "text b\n"
            d#c 31..44 "### C\ntext c\n"
              heading 31..37 "### C\n"
              body 37..44 "text c\n"
            d#d 44..49 "## D\n"
              heading 44..49 "## D\n"
              body 49..49 ""
            d#e 49..60 "# E\ntext e\n"
              heading 49..53 "# E\n"
              body 53..60 "text e\n"
        "####]],
    );
}

#[test]
fn a_skipped_level_is_still_a_subsection() {
    check(
        b"# A\na\n### C\nc\n## B\nb\n",
        expect![[r####"
            document d 0..21
              body 0..21 "# A\na\n### C\nc\n## B\nb\n"
            d#a 0..21 "# A\na\n### C\nc\n## B\nb\n"
              heading 0..4 "# A\n"
              body 4..6 "a\n"
            d#c 6..14 "### C\nc\n"
              heading 6..12 "### C\n"
              body 12..14 "c\n"
            d#b 14..21 "## B\nb\n"
              heading 14..19 "## B\n"
              body 19..21 "b\n"
        "####]],
    );
}

#[test]
fn front_matter_is_its_own_part_of_the_document() {
    check(
        b"+++\nid = \"x\"\ntitle = \"T\"\n+++\n# A\ntext\n",
        expect![[r##"
            document x 0..38
              front_matter 0..29 "+++\nid = \"x\"\ntitle = \"T\"\n+++\n"
              body 29..38 "# A\ntext\n"
            x#a 29..38 "# A\ntext\n"
              heading 29..33 "# A\n"
              body 33..38 "text\n"
        "##]],
    );
}

#[test]
fn front_matter_variants_the_parser_accepts() {
    // Fences with trailing blanks, an empty block, a block closing at the end of the file.
    check(
        b"+++ \t\nid = \"x\"\n+++  \n\n# A\n",
        expect![[r##"
            document x 0..26
              front_matter 0..21 "+++ \t\nid = \"x\"\n+++  \n"
              body 21..26 "\n# A\n"
            x#a 22..26 "# A\n"
              heading 22..26 "# A\n"
              body 26..26 ""
        "##]],
    );
    check(
        b"+++\n+++\nbody\n",
        expect![[r#"
            document d 0..13
              front_matter 0..8 "+++\n+++\n"
              body 8..13 "body\n"
        "#]],
    );
    check(
        b"+++\nid = \"x\"\n+++",
        expect![[r#"
            document x 0..16
              front_matter 0..16 "+++\nid = \"x\"\n+++"
              body 16..16 ""
        "#]],
    );
}

#[test]
fn broken_front_matter() {
    // Not TOML: still a delimited block, so still a part.
    check(
        b"+++\nid = \n+++\n# A\n",
        expect![[r##"
            document d 0..18
              front_matter 0..14 "+++\nid = \n+++\n"
              body 14..18 "# A\n"
            d#a 14..18 "# A\n"
              heading 14..18 "# A\n"
              body 18..18 ""
            diagnostic front_matter_invalid
        "##]],
    );
    // Never closed: read as Markdown, so no front matter and the body is the whole file.
    check(
        b"+++\nid = \"x\"\n# A\n",
        expect![[r##"
            document d 0..17
              body 0..17 "+++\nid = \"x\"\n# A\n"
            d#a 13..17 "# A\n"
              heading 13..17 "# A\n"
              body 17..17 ""
            diagnostic front_matter_invalid
        "##]],
    );
}

#[test]
fn a_bom_belongs_to_the_file_only() {
    // Rewriting the front matter, the body or a section keeps the byte-order mark.
    check(
        b"\xef\xbb\xbf+++\nid = \"x\"\n+++\n# A\n",
        expect![[r##"
            document x 0..24
              front_matter 3..20 "+++\nid = \"x\"\n+++\n"
              body 20..24 "# A\n"
            x#a 20..24 "# A\n"
              heading 20..24 "# A\n"
              body 24..24 ""
        "##]],
    );
    check(
        b"\xef\xbb\xbf# A\ntext\n",
        expect![[r##"
            document d 0..12
              body 3..12 "# A\ntext\n"
            d#a 3..12 "# A\ntext\n"
              heading 3..7 "# A\n"
              body 7..12 "text\n"
        "##]],
    );
}

#[test]
fn crlf_line_endings_belong_to_their_lines() {
    check(
        b"+++\r\nid = \"x\"\r\n+++\r\n# A\r\ntext\r\n\r\n## B\r\nb\r\n",
        expect![[r###"
            document x 0..42
              front_matter 0..20 "+++\r\nid = \"x\"\r\n+++\r\n"
              body 20..42 "# A\r\ntext\r\n\r\n## B\r\nb\r\n"
            x#a 20..42 "# A\r\ntext\r\n\r\n## B\r\nb\r\n"
              heading 20..25 "# A\r\n"
              body 25..33 "text\r\n\r\n"
            x#b 33..42 "## B\r\nb\r\n"
              heading 33..39 "## B\r\n"
              body 39..42 "b\r\n"
        "###]],
    );
}

#[test]
fn a_lone_carriage_return_ends_a_line_too() {
    check(
        b"# A\rtext\r## B\rb\r\n## C\r",
        expect![[r###"
        document d 0..22
          body 0..22 "# A\rtext\r## B\rb\r\n## C\r"
        d#a 0..22 "# A\rtext\r## B\rb\r\n## C\r"
          heading 0..4 "# A\r"
          body 4..9 "text\r"
        d#b 9..17 "## B\rb\r\n"
          heading 9..14 "## B\r"
          body 14..17 "b\r\n"
        d#c 17..22 "## C\r"
          heading 17..22 "## C\r"
          body 22..22 ""
    "###]],
    );
}

#[test]
fn setext_headings_span_their_text_and_underline() {
    check(
        b"Title\n=====\n\ntext\n\nSub\nline two\n---\nbody\n",
        expect![[r#"
            document d 0..41
              body 0..41 "Title\n=====\n\ntext\n\nSub\nline two\n---\nbody\n"
            d#title 0..41 "Title\n=====\n\ntext\n\nSub\nline two\n---\nbody\n"
              heading 0..12 "Title\n=====\n"
              body 12..19 "\ntext\n\n"
            d#sub-line-two 19..41 "Sub\nline two\n---\nbody\n"
              heading 19..36 "Sub\nline two\n---\n"
              body 36..41 "body\n"
        "#]],
    );
}

#[test]
fn headings_in_code_are_not_sections() {
    check(
        b"# A\n```md\n# not a heading\n```\n\n    # indented code\n\n## B\n~~~\n# nor this\n~~~\n",
        expect![[r###"
            document d 0..76
              body 0..76 "# A\n```md\n# not a heading\n```\n\n    # indented code\n\n## B\n~~~\n# nor this\n~~~\n"
            d#a 0..76 "# A\n```md\n# not a heading\n```\n\n    # indented code\n\n## B\n~~~\n# nor this\n~~~\n"
              heading 0..4 "# A\n"
              body 4..52 "```md\n# not a heading\n```\n\n    # indented code\n\n"
            d#b 52..76 "## B\n~~~\n# nor this\n~~~\n"
              heading 52..57 "## B\n"
              body 57..76 "~~~\n# nor this\n~~~\n"
        "###]],
    );
}

#[test]
fn headings_in_quotes_and_lists_are_sections_from_the_start_of_their_line() {
    // The parser makes them sections (as for links and summaries), so their spans start at
    // the line's quote or list marker.
    check(
        b"# Top\n\n> # Quoted\n> text\n\n- ## Listed\n  item\n\n# After\n",
        expect![[r##"
            document d 0..54
              body 0..54 "# Top\n\n> # Quoted\n> text\n\n- ## Listed\n  item\n\n# After\n"
            d#top 0..7 "# Top\n\n"
              heading 0..6 "# Top\n"
              body 6..7 "\n"
            d#quoted 7..46 "> # Quoted\n> text\n\n- ## Listed\n  item\n\n"
              heading 7..18 "> # Quoted\n"
              body 18..26 "> text\n\n"
            d#listed 26..46 "- ## Listed\n  item\n\n"
              heading 26..38 "- ## Listed\n"
              body 38..46 "  item\n\n"
            d#after 46..54 "# After\n"
              heading 46..54 "# After\n"
              body 54..54 ""
        "##]],
    );
}

#[test]
fn without_a_trailing_newline_the_last_span_ends_at_the_end_of_the_file() {
    check(
        b"# A\ntext\n## B\nlast",
        expect![[r###"
            document d 0..18
              body 0..18 "# A\ntext\n## B\nlast"
            d#a 0..18 "# A\ntext\n## B\nlast"
              heading 0..4 "# A\n"
              body 4..9 "text\n"
            d#b 9..18 "## B\nlast"
              heading 9..14 "## B\n"
              body 14..18 "last"
        "###]],
    );
    // A file that is nothing but one heading line without a line ending is not a heading to
    // the Markdown grammar (it parses as an error node): no section, and the document still
    // spans the whole file.
    check(
        b"# Only",
        expect![[r##"
            document d 0..6
              body 0..6 "# Only"
        "##]],
    );
}

#[test]
fn duplicate_headings_get_their_own_spans() {
    check(
        b"# A\n## X\none\n## X\ntwo\n",
        expect![[r###"
            document d 0..22
              body 0..22 "# A\n## X\none\n## X\ntwo\n"
            d#a 0..22 "# A\n## X\none\n## X\ntwo\n"
              heading 0..4 "# A\n"
              body 4..4 ""
            d#x 4..13 "## X\none\n"
              heading 4..9 "## X\n"
              body 9..13 "one\n"
            d#x-1 13..22 "## X\ntwo\n"
              heading 13..18 "## X\n"
              body 18..22 "two\n"
        "###]],
    );
}

#[test]
fn empty_files_and_empty_headings() {
    check(
        b"",
        expect![[r#"
            document d 0..0
              body 0..0 ""
        "#]],
    );
    check(
        b"#\ntext\n",
        expect![[r##"
            document d 0..7
              body 0..7 "#\ntext\n"
            d#section 0..7 "#\ntext\n"
              heading 0..2 "#\n"
              body 2..7 "text\n"
        "##]],
    );
}

#[test]
fn invalid_utf8_keeps_offsets_and_hashes_of_the_bytes_on_disk() {
    // Each invalid sequence is read as one replacement character (3 bytes of text), yet the
    // spans are offsets into the file and the hashes are of its bytes.
    check(
        b"# A\n\xff\xfe text\n## B \xc3\n\xe2\x82\n# C\n",
        expect![[r###"
            document d 0..26
              body 0..26 "# A\n�� text\n## B �\n�\n# C\n"
            d#a 0..22 "# A\n�� text\n## B �\n�\n"
              heading 0..4 "# A\n"
              body 4..12 "�� text\n"
            d#b- 12..22 "## B �\n�\n"
              heading 12..19 "## B �\n"
              body 19..22 "�\n"
            d#c 22..26 "# C\n"
              heading 22..26 "# C\n"
              body 26..26 ""
        "###]],
    );
}

#[test]
fn toml_nodes_span_the_whole_file() {
    let cases: &[&[u8]] = &[
        b"id = \"g\"\ntitle = \"Glossary\"\n",
        b"\xef\xbb\xbfid = \"g\"\r\n",
        b"id = \n",
        b"text = \"\xff\"\n",
        b"",
    ];
    for file in cases {
        let facts = parse_toml_node_bytes("g.toml", file);
        let [node] = &nodes(&facts)[..] else { panic!("one node") };
        let span = NodeSpan::from_attrs(&node.attrs).unwrap().unwrap();
        assert_eq!(span.span, ByteSpan::new(0, file.len()), "{file:?}");
        assert_eq!(span.content_sha256, sha256(file), "{file:?}");
        assert_eq!((span.front_matter, span.heading, span.body), (None, None, None), "{file:?}");
    }
}

#[test]
fn front_matter_cannot_set_the_span_attributes() {
    let file =
        "+++\nspan = \"0..1\"\ncontent_sha256 = \"0\"\n\"span.body\" = \"x\"\nowner = \"me\"\n+++\n# A\n";
    let facts = parse_markdown_document("d.md", file);
    let doc = &nodes(&facts)[0];
    let span = NodeSpan::from_attrs(&doc.attrs).unwrap().unwrap();
    assert_eq!(span.span, ByteSpan::new(0, file.len()));
    assert_eq!(span.body, Some(ByteSpan::new(file.find("# A").unwrap(), file.len())));
    assert_eq!(doc.attrs["owner"], "me", "other unknown keys are kept");
    let reserved: Vec<&str> = facts
        .diagnostics
        .iter()
        .filter(|d| d.code == "front_matter_reserved_key")
        .map(|d| d.message.as_str())
        .collect();
    assert_eq!(reserved.len(), 3, "{reserved:#?}");
}

/// `(id, span, content_sha256)` of each section.
fn section_spans(text: &str) -> Vec<(String, ByteSpan, [u8; 32])> {
    parse_markdown_document("d.md", text)
        .sections
        .iter()
        .map(|s| (s.id.clone(), s.span.span, s.span.content_sha256))
        .collect()
}

#[test]
fn an_edit_in_one_section_moves_later_sections_but_keeps_their_hashes() {
    let before = section_spans("# A\none\n# B\ntwo\n# C\nthree\n");
    let after = section_spans("# A\none\n# B\ntwo, edited\n# C\nthree\n");
    let (a, b, c) = (&after[0], &after[1], &after[2]);
    assert_eq!(*a, before[0], "before the edit: unchanged");
    assert_eq!(b.1.start, before[1].1.start);
    assert_ne!(b.2, before[1].2, "the edited section has new bytes");
    assert_eq!(c.1.start, before[2].1.start + ", edited".len(), "after the edit: moved");
    assert_eq!(c.2, before[2].2, "same bytes, same hash");
}

#[test]
fn every_combination_of_tricky_lines_keeps_the_span_rules() {
    // Three pieces at a time out of lines that start, end or hide headings, in every order:
    // whatever the parser makes of them, every span hashes to its bytes, parts lie in their
    // node, front matter and body tile the file, and sections nest (the checks of `render`).
    let pieces: &[&[u8]] = &[
        b"# H\n",
        b"## H2\r\n",
        b"### H3\r",
        b"Setext\n===\n",
        b"---\n",
        b"+++\n",
        b"\xef\xbb\xbf",
        b"```\n# x\n",
        b"> # Q\n",
        b"- ## L\n",
        b"text \xff\n",
        b"    # code\n",
        b"#",
        b"\n",
    ];
    let mut files = 0;
    for a in pieces {
        for b in pieces {
            for c in pieces {
                let file = [*a, *b, *c].concat();
                render(&file, &parse_markdown_bytes("d.md", &file));
                files += 1;
            }
        }
    }
    assert_eq!(files, pieces.len().pow(3));
}

/// The front matter's claims alone are the claims of the whole parse.
#[test]
fn front_matter_claims_are_the_parses_claims() {
    let cases: &[&[u8]] = &[
        b"+++\nid = \"a\"\n[[claims]]\npredicate = \"symbol_exists\"\nsubject = \"m::T\"\n+++\n# A\n",
        b"\xef\xbb\xbf+++\r\n[[claims]]\r\npredicate = \"type_implements\"\r\nsubject = \"m::T\"\r\nobject = \"m::I\"\r\nbogus = 1\r\n+++\r\n# A\r\n",
        b"# No front matter\n\n[[claims]]\n",
        b"+++\nnot toml = = \n+++\n",
        b"+++\n[[claims]]\npredicate = \"symbol_exists\"\nsubject = \"m::\xff\"\n+++\n",
    ];
    for bytes in cases {
        let whole = docforge_docs::parse_markdown_bytes("docs/a.md", bytes).claims;
        assert_eq!(
            docforge_docs::front_matter_claims("docs/a.md", bytes),
            whole,
            "{:?}",
            String::from_utf8_lossy(bytes)
        );
    }
    assert_eq!(docforge_docs::parse_markdown_bytes("docs/a.md", cases[0]).claims.len(), 1);
}
