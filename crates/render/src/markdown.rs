//! One document's Markdown to HTML: comrak (CommonMark + GFM: tables, task lists, footnotes,
//! strikethrough, autolinks, wiki links), heading anchors that are exactly the engine's
//! section slugs, links rewritten by the caller, and the document's raw HTML sanitised so that
//! nothing a document contains can run in the rendered page.

use comrak::nodes::{Ast, AstNode, LineColumn, NodeValue};
use comrak::{Arena, Options};
use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

/// What a link of the document becomes on the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LinkTo {
    /// An ordinary link to this URL (another page of the view, an external site).
    Href(String),
    /// A Go symbol: its ID and where it is declared (`path:line`), not clickable.
    Go { id: String, place: Option<String> },
    /// Nothing clickable: the text is kept and marked with a class and a note (a document
    /// outside the view, a broken link, a file the view does not publish).
    Inert { class: &'static str, note: String },
}

/// The Markdown text of a document's body and where it sits in its file.
pub struct Body<'a> {
    /// The whole file as text (invalid UTF-8 replaced, as the engine reads it).
    pub file: &'a str,
    /// Where the Markdown starts in `file` (after the front matter).
    pub start: usize,
    /// The offset in `file` of the first line of each heading the engine made a section of →
    /// its slug.
    pub slugs: &'a HashMap<usize, String>,
}

/// What kind of link a [`Resolver`] is asked about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    /// `[text](destination)`, a reference link or an autolink.
    Link,
    /// `[[id]]` (its URL is the ID, with an optional `#fragment`).
    Wiki,
    /// `![alt](source)`.
    Image,
}

/// `resolve(offset in the file where the link or image starts, url, kind)` for each link and
/// image, in document order.
pub type Resolver<'r> = dyn FnMut(usize, &str, LinkKind) -> LinkTo + 'r;

/// Where each line of `text` starts as the Markdown parser counts lines: after LF, CRLF and a
/// lone CR.
fn line_starts(text: &str) -> Vec<usize> {
    let b = text.as_bytes();
    let mut starts = vec![0];
    for i in memchr::memchr2_iter(b'\n', b'\r', b) {
        if b[i] == b'\n' || b.get(i + 1) != Some(&b'\n') {
            starts.push(i + 1);
        }
    }
    starts
}

/// The comrak options pages are rendered with: the GFM extensions the renderer turns on, raw
/// HTML kept (benchmarks convert with the same ones).
pub fn comrak_options() -> Options<'static> {
    let mut o = Options::default();
    o.extension.strikethrough = true;
    o.extension.table = true;
    o.extension.autolink = true;
    o.extension.tasklist = true;
    o.extension.footnotes = true;
    o.extension.wikilinks_title_after_pipe = true;
    // Raw HTML is written as it stands once the sanitiser has replaced it by what is
    // harmless of it (see `sanitize::raw_html`).
    o.render.r#unsafe = true;
    o
}

/// Headings with the engine's slugs as their `id`: one slug (or none) per heading node, in the
/// order the formatter meets them (document order).
struct Headings {
    slugs: Vec<Option<String>>,
    next: std::sync::atomic::AtomicUsize,
}

impl comrak::adapters::HeadingAdapter for Headings {
    fn enter(
        &self,
        out: &mut dyn fmt::Write,
        heading: &comrak::adapters::HeadingMeta,
        _sourcepos: Option<comrak::nodes::Sourcepos>,
    ) -> fmt::Result {
        let at = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        match self.slugs.get(at).cloned().flatten() {
            Some(slug) => write!(out, "<h{} id=\"{}\">", heading.level, crate::html::esc(&slug)),
            None => write!(out, "<h{}>", heading.level),
        }
    }

    fn exit(&self, out: &mut dyn fmt::Write, heading: &comrak::adapters::HeadingMeta) -> fmt::Result {
        write!(out, "</h{}>", heading.level)
    }
}

fn raw<'a>(arena: &'a Arena<'a>, html: String) -> &'a AstNode<'a> {
    arena.alloc(AstNode::new(RefCell::new(Ast::new(
        NodeValue::HtmlInline(html),
        LineColumn { line: 0, column: 0 },
    ))))
}

/// Replace `node` by raw `open`, its children, raw `close`.
fn wrap<'a>(arena: &'a Arena<'a>, node: &'a AstNode<'a>, open: String, close: String) {
    node.insert_before(raw(arena, open));
    let children: Vec<_> = node.children().collect();
    for child in children {
        child.detach();
        node.insert_before(child);
    }
    node.insert_before(raw(arena, close));
    node.detach();
}

/// The HTML of `body`, its links and images rewritten by `resolve`, its raw HTML sanitised.
///
/// Everything but the document's raw HTML is written by comrak from the Markdown, and safe by
/// construction: text and attribute values escaped, every link and image URL replaced by what
/// `resolve` makes of it (a page of the view, a `#fragment`, an http(s) or mailto URL, or
/// nothing clickable), heading `id`s the engine's slugs. Only the raw HTML goes through the
/// sanitiser.
pub fn body_html(body: &Body<'_>, resolve: &mut Resolver<'_>) -> String {
    let mut html = String::with_capacity(body.file.len() + body.file.len() / 4);
    body_html_into(body, resolve, &mut html);
    html
}

/// [`body_html`], written to the end of `html`.
pub fn body_html_into(body: &Body<'_>, resolve: &mut Resolver<'_>, html: &mut String) {
    let arena = Arena::new();
    let options = comrak_options();
    let text = &body.file[body.start..];
    let root = comrak::parse_document(&arena, text, &options);
    // Positions in the file: each line's offset, and a (line, column) of the parser's there.
    let lines: Vec<usize> = line_starts(text).into_iter().map(|l| l + body.start).collect();
    let at = |p: LineColumn| {
        lines.get(p.line.saturating_sub(1)).map_or(body.file.len(), |l| l + p.column.saturating_sub(1))
    };
    // One walk: the links and images, each heading's slug, the raw HTML.
    let mut links: Vec<&AstNode<'_>> = Vec::new();
    let mut slugs = Vec::new();
    let mut raw = Vec::new();
    for node in root.descendants() {
        let ast = node.data.borrow();
        match ast.value {
            NodeValue::Link(_) | NodeValue::Image(_) | NodeValue::WikiLink(_) => links.push(node),
            NodeValue::Heading(_) => {
                let line = lines.get(ast.sourcepos.start.line.saturating_sub(1));
                slugs.push(line.and_then(|l| body.slugs.get(l)).cloned());
            }
            NodeValue::HtmlBlock(_) | NodeValue::HtmlInline(_) => raw.push(node),
            _ => {}
        }
    }
    // The document's own raw HTML, before DocForge adds any.
    crate::sanitize::raw_html(raw, text);
    for node in links {
        let (offset, url, kind) = {
            let ast = node.data.borrow();
            let offset = at(ast.sourcepos.start);
            match &ast.value {
                NodeValue::Link(l) => (offset, l.url.clone(), LinkKind::Link),
                NodeValue::Image(l) => (offset, l.url.clone(), LinkKind::Image),
                NodeValue::WikiLink(w) => (offset, w.url.clone(), LinkKind::Wiki),
                _ => unreachable!("collected"),
            }
        };
        let image = kind == LinkKind::Image;
        match resolve(offset, &url, kind) {
            LinkTo::Href(href) => match &mut node.data.borrow_mut().value {
                NodeValue::Link(l) | NodeValue::Image(l) => l.url = href,
                NodeValue::WikiLink(w) => w.url = href,
                _ => {}
            },
            LinkTo::Go { id, place } => {
                let where_ =
                    place.map(|p| format!(" <small class=\"place\">{}</small>", crate::html::esc(&p)));
                let open = format!("<span class=\"go-symbol\" title=\"{}\">", crate::html::esc(&id));
                let close = format!("{}</span>", where_.unwrap_or_default());
                wrap(&arena, node, open, close);
            }
            LinkTo::Inert { class, note } => {
                let kind = if image { "image " } else { "" };
                let open = format!("<span class=\"{kind}{class}\" title=\"{}\">", crate::html::esc(&note));
                wrap(&arena, node, open, "</span>".to_string());
            }
        }
    }
    let headings = Headings { slugs, next: Default::default() };
    let mut plugins = comrak::options::Plugins::default();
    plugins.render.heading_adapter = Some(&headings);
    comrak::format_html_with_plugins(root, &options, html, &plugins).expect("writing to a String");
}
