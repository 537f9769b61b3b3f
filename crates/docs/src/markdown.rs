//! One Markdown document → [`DocFacts`]: front matter, headings, links, summary text.

use crate::anchors::{assign, heading_id, html_anchors};
use crate::facts::{DocFacts, Link, LinkKind, Section, DOCUMENT_KIND};
use crate::front_matter::{self, Header, HeaderKind};
use crate::lines::LineIndex;
use crate::links::{classify_destination, normalize_label, scan_wiki_links};
use crate::refdef::missed_definitions;
use crate::slug::Slugger;
use crate::spans::{line_end, line_start, section_spans, Decoded, HeadingLines, Parts};
use crate::text::{inline_plain_text, Summary};
use docforge_model::{ByteSpan, Diagnostic, Location, Node, NodeSpan};
use docforge_syntax::{markdown_query, parse_markdown, MarkdownTree};
use std::collections::HashMap;
use tree_sitter::{Node as TsNode, Query, QueryCursor, QueryMatch, StreamingIterator};

/// Parse one Markdown document whose file holds exactly `text`. `path` is project-relative
/// with `/` separators. Never panics and never drops the file: broken front matter is a
/// diagnostic, and the document still becomes a node (with an ID from its path) with its
/// sections and links. The document and its sections record their byte spans in `text`
/// ([`DocFacts::span`], [`Section::span`]).
pub fn parse_markdown_document(path: &str, text: &str) -> DocFacts {
    parse(path, &Decoded::text(text))
}

/// [`parse_markdown_document`] of a file's bytes as read: a file that is not valid UTF-8 is
/// read with its invalid bytes replaced (as `String::from_utf8_lossy` does), and its spans
/// are still byte offsets into `bytes`.
pub fn parse_markdown_bytes(path: &str, bytes: &[u8]) -> DocFacts {
    parse(path, &Decoded::bytes(bytes))
}

/// The `[[claims]]` of a Markdown document's front matter, as [`parse_markdown_bytes`] reads
/// them, without parsing the body (no Markdown parse: for readers that have the rest of the
/// document's facts from the index).
pub fn front_matter_claims(path: &str, bytes: &[u8]) -> Vec<crate::Claim> {
    let decoded = Decoded::bytes(bytes);
    let text: &str = &decoded.text;
    let lines = LineIndex::new(path, text);
    match front_matter::find(text, &lines) {
        Ok(Some(f)) => {
            let toml = &text[f.content_start..f.content_end];
            front_matter::parse_header(toml, f.content_start, &lines, HeaderKind::FrontMatter).claims
        }
        _ => Vec::new(),
    }
}

fn parse(path: &str, decoded: &Decoded<'_>) -> DocFacts {
    let text: &str = &decoded.text;
    let lines = LineIndex::new(path, text);
    let mut diagnostics = Vec::new();
    let front = front_matter::find(text, &lines).unwrap_or_else(|d| {
        diagnostics.push(d);
        None
    });
    let header = match front {
        Some(f) => front_matter::parse_header(
            &text[f.content_start..f.content_end],
            f.content_start,
            &lines,
            HeaderKind::FrontMatter,
        ),
        None => Header::default(),
    };
    let bom = front_matter::bom_len(text);
    let blank_until = front.map_or(bom, |f| f.block_end);
    let body_text = blank_prefix(text, blank_until);
    let (id, id_from_path, id_location) = match header.id {
        Some((id, loc)) => (id, false, loc),
        None => (crate::id_from_path(path), true, Location::new(path, 1, 1)),
    };
    let body = scan_body(&body_text, path, &id, &lines, bom, decoded);
    // The BOM belongs to the whole file only: rewriting the front matter or the body keeps it.
    let parts = Parts {
        front_matter: front.map(|f| ByteSpan::new(bom, f.block_end)),
        body: Some(ByteSpan::new(blank_until, text.len())),
        heading: None,
    };
    let span = decoded.node_span(ByteSpan::new(0, text.len()), parts);
    let title = header
        .title
        .or_else(|| body.sections.first().map(|s| s.title.clone()))
        .unwrap_or_else(|| crate::file_stem(path).to_string());
    diagnostics.extend(header.diagnostics);
    own_diagnostics(&mut diagnostics, &id);
    DocFacts {
        path: path.to_string(),
        node: Node {
            id: id.clone(),
            kind: DOCUMENT_KIND.to_string(),
            title,
            location: Some(Location::new(path, 1, 1)),
            text: body.summary,
            attrs: header.attrs.into(),
        },
        id,
        id_from_path,
        id_location,
        span: Some(span),
        sections: body.sections,
        anchors: body.anchors,
        links: body.links,
        relations: header.relations,
        claims: header.claims,
        diagnostics,
    }
}

/// `text` with its first `end` bytes (BOM, front matter) turned into spaces, newlines kept, so
/// byte offsets and line numbers of the body stay those of the file.
fn blank_prefix(text: &str, end: usize) -> String {
    if end == 0 {
        return text.to_string();
    }
    let mut bytes = text.as_bytes().to_vec();
    for b in &mut bytes[..end] {
        if *b != b'\n' && *b != b'\r' {
            *b = b' ';
        }
    }
    // `end` is a char boundary (after a newline, or after the BOM), so this stays UTF-8.
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

struct Body {
    sections: Vec<Section>,
    anchors: Vec<String>,
    links: Vec<Link>,
    summary: String,
}

/// Run an embedded `queries/markdown/<name>.scm` query over `node`.
fn run_query<'t>(name: &str, node: TsNode<'t>, src: &str, mut each: impl FnMut(&Query, &QueryMatch<'_, 't>)) {
    let query = markdown_query(name).expect("queries/markdown/*.scm are embedded at build time");
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, node, src.as_bytes());
    while let Some(m) = matches.next() {
        each(query, m);
    }
}

/// The anchors of a raw HTML node, at their offsets in the document.
fn anchors_in(n: TsNode<'_>, src: &str) -> impl Iterator<Item = (usize, usize, String)> {
    let at = n.start_byte();
    html_anchors(node_text(n, src)).into_iter().map(move |(s, e, a)| (at + s, at + e, a))
}

fn capture<'t>(query: &Query, m: &QueryMatch<'_, 't>, name: &str) -> Option<TsNode<'t>> {
    let index = query.capture_index_for_name(name)?;
    m.captures().iter().find(|c| c.index == index).map(|c| c.node)
}

fn node_text<'s>(node: TsNode<'_>, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

struct Heading {
    start: usize,
    end: usize,
    /// An offset on the heading's last line (a setext heading's underline).
    last_line: usize,
    level: u8,
    title: String,
}

/// What one pass of `block.scm` over the block tree finds.
#[derive(Default)]
struct Blocks<'t> {
    /// Byte ranges of code blocks and raw HTML (no links inside).
    code: Vec<(usize, usize)>,
    /// Fenced and indented code blocks: their text is part of the node's text.
    code_blocks: Vec<TsNode<'t>>,
    headings: Vec<TsNode<'t>>,
    /// Nodes that own an inline tree, in document order.
    inlines: Vec<TsNode<'t>>,
    /// Link reference definitions by normalised label (the first one of a label wins).
    definitions: HashMap<String, String>,
    /// Byte ranges of definitions read from paragraph text (`crate::refdef`): no links.
    defined: Vec<(usize, usize)>,
    /// HTML anchors of raw HTML blocks: `(start, end, name)`.
    anchors: Vec<(usize, usize, String)>,
}

fn scan_blocks<'t>(root: TsNode<'t>, src: &str) -> Blocks<'t> {
    let mut b = Blocks::default();
    run_query("block", root, src, |query, m| {
        if let Some(n) = capture(query, m, "code") {
            b.code.push((n.start_byte(), n.end_byte()));
            b.code_blocks.push(n);
        } else if let Some(n) = capture(query, m, "html") {
            b.code.push((n.start_byte(), n.end_byte()));
            b.anchors.extend(anchors_in(n, src));
        } else if let Some(n) = capture(query, m, "heading") {
            b.headings.push(n);
        } else if let Some(n) = capture(query, m, "inline") {
            let text = node_text(n, src);
            let missed =
                n.parent().filter(|p| p.kind() == "paragraph").and_then(|_| missed_definitions(text));
            if let Some(lead) = missed {
                for (label, destination) in lead.definitions {
                    b.definitions.entry(normalize_label(label)).or_insert_with(|| destination.to_string());
                }
                b.defined.push((n.start_byte(), n.start_byte() + lead.consumed));
                if text[lead.consumed..].trim().is_empty() {
                    return; // definitions only, like a `link_reference_definition` block
                }
            }
            b.inlines.push(n);
        } else if let (Some(label), Some(dest)) =
            (capture(query, m, "label"), capture(query, m, "destination"))
        {
            b.definitions
                .entry(normalize_label(node_text(label, src)))
                .or_insert_with(|| node_text(dest, src).to_string());
        }
    });
    b.inlines.sort_by_key(|n| n.start_byte());
    b
}

fn headings(tree: &MarkdownTree, nodes: &[TsNode<'_>], src: &str) -> Vec<Heading> {
    let mut out = Vec::with_capacity(nodes.len());
    for &node in nodes {
        let mut level = 1u8;
        let mut last_line = node.start_byte();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            let kind = child.kind();
            if let Some(n) = kind.strip_prefix("atx_h").and_then(|k| k.strip_suffix("_marker")) {
                level = n.parse().unwrap_or(1);
            } else if let Some(n) = kind.strip_prefix("setext_h").and_then(|k| k.strip_suffix("_underline")) {
                level = n.parse().unwrap_or(1);
                last_line = child.start_byte();
            }
        }
        let content = node.child_by_field_name("heading_content").map(|c| {
            if c.kind() == "paragraph" {
                let mut cursor = c.walk();
                let inline = c.named_children(&mut cursor).find(|n| n.kind() == "inline");
                inline.unwrap_or(c)
            } else {
                c
            }
        });
        let title = content.map_or(String::new(), |c| match tree.inline_tree(&c) {
            Some(inline) => inline_plain_text(inline.root_node(), src),
            None => crate::text::collapse_whitespace(node_text(c, src)),
        });
        let title = if node.kind() == "atx_heading" { strip_closing_hashes(title) } else { title };
        out.push(Heading { start: node.start_byte(), end: node.end_byte(), last_line, level, title });
    }
    out.sort_by_key(|h| h.start);
    out
}

/// `Title ##` → `Title` (the optional ATX closing sequence).
fn strip_closing_hashes(title: String) -> String {
    let stripped = title.trim_end_matches('#');
    if stripped.len() == title.len() || !(stripped.is_empty() || stripped.ends_with(' ')) {
        return title;
    }
    stripped.trim_end().to_string()
}

fn build_sections(heads: &[Heading], doc_id: &str, lines: &LineIndex<'_>) -> Vec<Section> {
    let mut slugger = Slugger::default();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut sections = Vec::with_capacity(heads.len());
    for (i, h) in heads.iter().enumerate() {
        while stack.last().is_some_and(|&(level, _)| level >= h.level) {
            stack.pop();
        }
        let slug = slugger.slug(&h.title);
        sections.push(Section {
            id: format!("{doc_id}#{slug}"),
            slug,
            title: h.title.clone(),
            level: h.level,
            parent: stack.last().map(|&(_, idx)| idx),
            location: lines.location(h.start),
            text: String::new(),
            anchors: Vec::new(),
            span: NodeSpan::default(),
        });
        stack.push((h.level, i));
    }
    sections
}

/// Index of the section containing byte `offset`, if it lies after the first heading.
fn section_at(heads: &[Heading], offset: usize) -> Option<usize> {
    heads.partition_point(|h| h.start <= offset).checked_sub(1)
}

/// `floor`: where the file's content starts (after a BOM); no span starts before it.
/// `decoded` maps the sections' spans in `src` (text offsets) back to the file's bytes.
fn scan_body(
    src: &str,
    path: &str,
    doc_id: &str,
    lines: &LineIndex<'_>,
    floor: usize,
    decoded: &Decoded<'_>,
) -> Body {
    let tree = parse_markdown(src.as_bytes());
    let Blocks {
        code: mut excluded,
        code_blocks,
        headings: heading_nodes,
        inlines,
        definitions,
        defined,
        mut anchors,
    } = scan_blocks(tree.block_tree().root_node(), src);
    let in_definition = |offset: usize| defined.iter().any(|&(from, to)| (from..to).contains(&offset));
    excluded.extend_from_slice(&defined);

    let heads = headings(&tree, &heading_nodes, src);
    let mut sections = build_sections(&heads, doc_id, lines);
    let source_of =
        |offset: usize| section_at(&heads, offset).map_or(doc_id.to_string(), |i| sections[i].id.clone());

    let mut raw_links: Vec<(usize, Link)> = Vec::new();
    // The node texts: every block's plain text (prose, table cells, headings; code blocks as
    // written), whole, in document order. A section's text leaves out its own heading.
    let mut pieces: Vec<(usize, bool, String)> = Vec::with_capacity(inlines.len() + code_blocks.len());
    for block in &inlines {
        let Some(inline_tree) = tree.inline_tree(block) else { continue };
        let inline_root = inline_tree.root_node();
        run_query("inline", inline_root, src, |query, m| {
            if let Some(n) = capture(query, m, "code") {
                excluded.push((n.start_byte(), n.end_byte()));
            } else if let Some(n) = capture(query, m, "html") {
                anchors.extend(anchors_in(n, src));
            } else if let Some((offset, mut link)) = inline_link(query, m, src, path, &definitions) {
                if in_definition(offset) {
                    return;
                }
                link.location = lines.location(offset);
                raw_links.push((offset, link));
            }
        });
        let start = block.start_byte();
        let in_heading = section_at(&heads, start).is_some_and(|i| start < heads[i].end);
        pieces.push((start, in_heading, inline_plain_text(inline_root, src)));
    }
    for block in &code_blocks {
        pieces.push((block.start_byte(), false, code_text(*block, src)));
    }
    pieces.sort_by_key(|p| p.0);
    let mut doc_summary = Summary::default();
    let mut section_summaries: Vec<Summary> = (0..sections.len()).map(|_| Summary::default()).collect();
    for (start, in_heading, piece) in &pieces {
        doc_summary.push(piece);
        if let Some(i) = section_at(&heads, *start).filter(|_| !in_heading) {
            section_summaries[i].push(piece);
        }
    }

    for wiki in scan_wiki_links(src, path, &excluded) {
        let link = Link {
            source: String::new(),
            kind: LinkKind::Wiki,
            text: wiki.label,
            destination: wiki.inner,
            target: wiki.target,
            location: lines.location(wiki.start),
        };
        raw_links.push((wiki.start, link));
    }
    raw_links.sort_by_key(|(offset, _)| *offset);
    let links = raw_links
        .into_iter()
        .map(|(offset, mut link)| {
            link.source = source_of(offset);
            link
        })
        .collect();
    for (section, summary) in sections.iter_mut().zip(section_summaries) {
        section.text = summary.into_string();
    }
    anchors.sort_by_key(|a| a.0);
    let ranges: Vec<(usize, usize)> = heads.iter().map(|h| (h.start, h.end)).collect();
    let (doc_anchors, section_anchors) = assign(anchors, &ranges, src);
    for ((section, head), mut more) in sections.iter_mut().zip(&heads).zip(section_anchors) {
        section.anchors.extend(heading_id(&head.title).map(str::to_string));
        section.anchors.append(&mut more);
    }
    let heading_lines: Vec<HeadingLines> = heads
        .iter()
        .map(|h| HeadingLines {
            level: h.level,
            lines: ByteSpan::new(line_start(src, h.start).max(floor), line_end(src, h.last_line)),
        })
        .collect();
    for (section, (span, parts)) in sections.iter_mut().zip(section_spans(&heading_lines, src.len())) {
        section.span = decoded.node_span(span, parts);
    }
    Body { sections, anchors: doc_anchors, links, summary: doc_summary.into_string() }
}

/// A code block's text, its code as CommonMark reads it: a fenced block's content without
/// its fences (and without the trailing newline), an indented block's lines; without the
/// prefixes of the blocks around it (a quote's `>`, a list item's indentation: the parser's
/// `block_continuation` of each line) and the indentation of the block's own (an indented
/// block's four columns, up to a fence's own indentation); CRLF line ends read as LF, as in
/// prose.
fn code_text(block: TsNode<'_>, src: &str) -> String {
    let fenced = block.kind() == "fenced_code_block";
    let mut cursor = block.walk();
    let content = if fenced {
        block.named_children(&mut cursor).find(|c| c.kind() == "code_fence_content")
    } else {
        Some(block)
    };
    let Some(content) = content else { return String::new() };
    // The content without each line's continuation (the first line's prefix is before it;
    // an indented block's continuation holds its four columns too).
    let mut text = String::with_capacity(content.byte_range().len());
    let mut at = content.start_byte();
    let mut stack = vec![content];
    let mut prefixes = Vec::new();
    while let Some(node) = stack.pop() {
        let mut c = node.walk();
        for child in node.children(&mut c) {
            match child.kind() {
                "block_continuation" => prefixes.push(child.byte_range()),
                _ => stack.push(child),
            }
        }
    }
    prefixes.sort_by_key(|r| r.start);
    for prefix in prefixes {
        text.push_str(src.get(at..prefix.start).unwrap_or(""));
        at = at.max(prefix.end);
    }
    text.push_str(src.get(at..content.end_byte()).unwrap_or(""));
    let text = text.replace("\r\n", "\n");
    let own = if fenced { src[block.start_byte()..].bytes().take_while(|&b| b == b' ').count() } else { 4 };
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        // A fence's indentation on every line; an indented block's on the first only.
        out.push_str(if fenced || i == 0 { strip_columns(line, own) } else { line });
    }
    out.truncate(out.trim_end().len());
    out
}

/// `line` without up to `width` columns of leading white space (a tab reaching the next
/// multiple of four).
fn strip_columns(line: &str, width: usize) -> &str {
    let mut col = 0;
    let mut at = 0;
    for b in line.bytes() {
        if col >= width {
            break;
        }
        match b {
            b' ' => col += 1,
            b'\t' => col = (col / 4 + 1) * 4,
            _ => break,
        }
        at += 1;
    }
    &line[at..]
}

/// One link match of `inline.scm` → a link with its byte offset (source/location filled
/// in by the caller), or `None` for external links and undefined references.
fn inline_link(
    query: &Query,
    m: &QueryMatch<'_, '_>,
    src: &str,
    path: &str,
    definitions: &HashMap<String, String>,
) -> Option<(usize, Link)> {
    let text_of = |name: &str| capture(query, m, name).map(|n| inline_plain_text(n, src)).unwrap_or_default();
    let (node, kind, destination) = if let Some(n) = capture(query, m, "inline_link") {
        (n, LinkKind::Inline, node_text(capture(query, m, "destination")?, src).to_string())
    } else if let Some(n) = capture(query, m, "reference_link") {
        let label = match capture(query, m, "label") {
            Some(l) if !normalize_label(node_text(l, src)).is_empty() => node_text(l, src),
            _ => node_text(capture(query, m, "text")?, src),
        };
        (n, LinkKind::Reference, definitions.get(&normalize_label(label))?.clone())
    } else {
        let n = capture(query, m, "autolink")?;
        (n, LinkKind::Autolink, node_text(n, src).to_string())
    };
    let target = classify_destination(&destination, path)?;
    let text = if kind == LinkKind::Autolink {
        destination.trim_start_matches('<').trim_end_matches('>').to_string()
    } else {
        text_of("text")
    };
    let link = Link { source: String::new(), kind, text, destination, target, location: Location::default() };
    Some((node.start_byte(), link))
}

/// Attach the document ID to diagnostics that have no node yet.
pub(crate) fn own_diagnostics(diagnostics: &mut [Diagnostic], id: &str) {
    for d in diagnostics {
        if d.node.is_none() {
            d.node = Some(id.to_string());
        }
    }
}
