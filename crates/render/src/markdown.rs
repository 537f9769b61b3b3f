//! One document's Markdown to HTML: comrak (CommonMark + GFM: tables, task lists, footnotes,
//! strikethrough, autolinks, wiki links), heading anchors that are exactly the engine's
//! section slugs, links rewritten by the caller, and the result sanitised so that nothing a
//! document contains can run in the rendered page.

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
    pub text: &'a str,
    /// The file line of the text's first line (1-based).
    pub first_line: u32,
    /// File line of each heading the engine made a section of → its slug.
    pub slugs: &'a HashMap<u32, String>,
}

/// `resolve(file line, column, url)` for each link and image.
pub type Resolver<'r> = dyn Fn(u32, u32, &str) -> LinkTo + 'r;

fn options() -> Options<'static> {
    let mut o = Options::default();
    o.extension.strikethrough = true;
    o.extension.table = true;
    o.extension.autolink = true;
    o.extension.tasklist = true;
    o.extension.footnotes = true;
    o.extension.wikilinks_title_after_pipe = true;
    // Raw HTML is passed to the sanitiser, which keeps what is harmless.
    o.render.r#unsafe = true;
    // Heading positions reach the heading adapter only with source positions on; the
    // sanitiser drops the `data-sourcepos` attributes again.
    o.render.sourcepos = true;
    o
}

/// Headings with the engine's slugs as their `id` (marked as DocForge's, see `sanitize.rs`).
struct Headings<'a> {
    first_line: u32,
    slugs: &'a HashMap<u32, String>,
    mark: &'a str,
}

impl comrak::adapters::HeadingAdapter for Headings<'_> {
    fn enter(
        &self,
        out: &mut dyn fmt::Write,
        heading: &comrak::adapters::HeadingMeta,
        sourcepos: Option<comrak::nodes::Sourcepos>,
    ) -> fmt::Result {
        let line = sourcepos.map(|s| s.start.line as u32 + self.first_line - 1);
        match line.and_then(|l| self.slugs.get(&l)) {
            Some(slug) => write!(out, "<h{} id=\"{}{}\">", heading.level, self.mark, crate::html::esc(slug)),
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

/// What DocForge writes into a document's HTML is marked with a string the document cannot
/// contain (it is derived from a hash of the text), so the sanitiser tells it from the
/// document's own raw HTML; the mark is removed there.
fn mark(text: &str) -> String {
    use sha2::{Digest, Sha256};
    format!("docforge{}", &hex::encode(Sha256::digest(text.as_bytes()))[..32])
}

/// The sanitised HTML of `body`, its links and images rewritten by `resolve`.
pub fn body_html(body: &Body<'_>, resolve: &Resolver<'_>) -> String {
    let arena = Arena::new();
    let options = options();
    let root = comrak::parse_document(&arena, body.text, &options);
    let mark = mark(body.text);
    // Footnotes' ids and links are made of their names.
    for node in root.descendants() {
        match &mut node.data.borrow_mut().value {
            NodeValue::FootnoteReference(r) => r.name.insert_str(0, &mark),
            NodeValue::FootnoteDefinition(d) => d.name.insert_str(0, &mark),
            _ => {}
        }
    }
    let links: Vec<&AstNode<'_>> = root
        .descendants()
        .filter(|n| {
            matches!(n.data.borrow().value, NodeValue::Link(_) | NodeValue::Image(_) | NodeValue::WikiLink(_))
        })
        .collect();
    for node in links {
        let (line, column, url, image) = {
            let ast = node.data.borrow();
            let start = ast.sourcepos.start;
            let line = start.line as u32 + body.first_line - 1;
            match &ast.value {
                NodeValue::Link(l) => (line, start.column as u32, l.url.clone(), false),
                NodeValue::Image(l) => (line, start.column as u32, l.url.clone(), true),
                NodeValue::WikiLink(w) => (line, start.column as u32, w.url.clone(), false),
                _ => unreachable!("filtered"),
            }
        };
        match resolve(line, column, &url) {
            LinkTo::Href(href) => {
                // A relative URL is DocForge's (a page of the view): marked, so the sanitiser
                // keeps it.
                let href = if crate::sanitize::is_absolute(&href) { href } else { format!("{mark}{href}") };
                match &mut node.data.borrow_mut().value {
                    NodeValue::Link(l) | NodeValue::Image(l) => l.url = href,
                    NodeValue::WikiLink(w) => w.url = href,
                    _ => {}
                }
            }
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
    let headings = Headings { first_line: body.first_line, slugs: body.slugs, mark: &mark };
    let mut plugins = comrak::options::Plugins::default();
    plugins.render.heading_adapter = Some(&headings);
    let mut html = String::new();
    comrak::format_html_with_plugins(root, &options, &mut html, &plugins).expect("writing to a String");
    crate::sanitize::clean_marked(&html, Some(&mark))
}
