//! One page: the document's HTML between DocForge's frame — navigation and table of contents
//! (`html-site@1`), and the graph panel no static-site generator has: fields, relations both
//! ways, backlinks, claims with their last validation outcome, diagnostics.

use crate::graph::{grouped, DocGraph, Nodes};
use crate::html::{esc, fragment, relative};
use crate::markdown::{body_html_into, Body, LinkKind, LinkTo};
use crate::nav::{group_anchor, nav_html, Nav};
use crate::outline::Outline;
use crate::view::Doc;
use crate::{Claims, RenderError};
use docforge_docs::LinkTarget;
use docforge_index::Index;
use docforge_project::Renderer;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// What every page of one view shares.
pub struct Site<'a> {
    pub project_id: &'a str,
    pub view_id: &'a str,
    pub renderer: Renderer,
    /// The selected documents, by ID.
    pub docs: &'a BTreeMap<String, Doc>,
    /// The site navigation (`html-site@1`).
    pub nav: Nav<'a>,
    /// Every document as the engine resolves links against them.
    pub documents: docforge_docs::DocIndex,
}

pub const CSS_PATH: &str = "assets/docforge.css";
pub const CSS: &str = include_str!("../assets/docforge.css");

impl Site<'_> {
    fn href_to(&self, from: &Doc, id: &str) -> Option<String> {
        let (doc, slug) = id.split_once('#').map_or((id, None), |(d, s)| (d, Some(s)));
        let target = self.docs.get(doc)?;
        let mut href =
            if target.page == from.page { String::new() } else { relative(&from.page, &target.page) };
        if let Some(slug) = slug {
            href.push('#');
            href.push_str(&fragment(slug));
        }
        if href.is_empty() {
            href.push('#');
        }
        Some(href)
    }
}

/// A node as the graph panel and the text name it: a page link, a Go symbol with its place,
/// or an ID marked as not in the view.
fn node_ref(
    site: &Site<'_>,
    nodes: &mut Nodes,
    index: &Index,
    from: &Doc,
    id: &str,
) -> Result<String, RenderError> {
    // A document of the view is known without a read.
    let node = match site.docs.get(id) {
        Some(doc) => Some((doc.title.as_str(), None)),
        None => nodes.get(index, id)?.map(|n| (n.title.as_str(), n.location.as_ref())),
    };
    let title = node.map(|n| n.0).filter(|t| !t.is_empty()).unwrap_or(id);
    if let Some(href) = site.href_to(from, id) {
        return Ok(format!("<a href=\"{}\" title=\"{}\">{}</a>", esc(&href), esc(id), esc(title)));
    }
    if id.starts_with("go:") || id.starts_with("file:") {
        let place = node.and_then(|n| n.1).map(place_of);
        let place = place.map(|p| format!(" <small class=\"place\">{}</small>", esc(&p))).unwrap_or_default();
        return Ok(format!("<code class=\"go-symbol\" title=\"{}\">{}</code>{place}", esc(id), esc(title)));
    }
    Ok(format!("<span class=\"out-of-view\" title=\"{} is not in this view\">{}</span>", esc(id), esc(title)))
}

fn place_of(l: &docforge_model::Location) -> String {
    if l.line == 0 {
        l.path.clone()
    } else {
        format!("{}:{}", l.path, l.line)
    }
}

/// A page's start, to `<body>`: no script, a policy that allows none, the stylesheet at
/// `css` (relative to the page).
fn head(site: &Site<'_>, title: &str, css: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'self'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'\">\n\
         <meta name=\"generator\" content=\"docforge {} {}\">\n\
         <title>{} · {}</title>\n<link rel=\"icon\" href=\"data:,\">\n<link rel=\"stylesheet\" href=\"{}\">\n</head>\n<body>\n",
        site.renderer.as_str(),
        esc(site.view_id),
        esc(title),
        esc(site.view_id),
        esc(css)
    )
}

/// The page of `doc` from its source bytes, its outline and its graph.
#[allow(clippy::too_many_arguments)]
pub fn page(
    site: &Site<'_>,
    index: &Index,
    nodes: &mut Nodes,
    doc: &Doc,
    bytes: &[u8],
    outline: &Outline,
    graph: &DocGraph,
    claims: &Claims,
) -> Result<String, RenderError> {
    // One buffer for the page: the document's HTML is written into it where it stands.
    let mut h = String::with_capacity(bytes.len() + bytes.len() / 2 + 8192);
    let css = relative(&doc.page, CSS_PATH);
    h.push_str(&head(site, &doc.title, &css));
    let site_mode = site.renderer == docforge_project::Renderer::HtmlSite1;
    if site_mode {
        let home = relative(&doc.page, "index.html");
        let _ = write!(
            h,
            "<header class=\"site\"><a href=\"{}\">{} · {}</a></header>\n<div class=\"layout\">\n",
            esc(&home),
            esc(site.project_id),
            esc(site.view_id)
        );
        h.push_str(&nav_html(site, doc));
    } else {
        h.push_str("<div class=\"layout single\">\n");
    }
    h.push_str("<main>\n");
    let _ = writeln!(
        h,
        "<p class=\"doc-id\"><code>{}</code> · {} · <span class=\"source\">{}</span></p>",
        esc(&doc.id),
        esc(doc.kind()),
        esc(&doc.path)
    );
    if site_mode || !outline.sections.is_empty() {
        h.push_str(&toc_html(outline));
    }
    h.push_str("<article class=\"document\">\n");
    content_html(site, index, nodes, doc, bytes, outline, graph, &mut h)?;
    h.push_str("</article>\n</main>\n");
    h.push_str(&panel_html(site, index, nodes, doc, outline, graph, claims)?);
    h.push_str("</div>\n</body>\n</html>\n");
    Ok(h)
}

/// The document's own text as HTML, its links resolved as the engine resolved them, written
/// to `out`.
#[allow(clippy::too_many_arguments)]
fn content_html(
    site: &Site<'_>,
    index: &Index,
    nodes: &mut Nodes,
    doc: &Doc,
    bytes: &[u8],
    outline: &Outline,
    graph: &DocGraph,
    out: &mut String,
) -> Result<(), RenderError> {
    // The engine's positions: offsets into the file read as text, lines ended by LF only.
    let (file, start, slugs) = match &outline.toml_text {
        Some(text) => (std::borrow::Cow::Borrowed(text.as_str()), 0, HashMap::new()),
        None => {
            let file = String::from_utf8_lossy(bytes);
            let text_offset = |byte: usize| match &file {
                std::borrow::Cow::Borrowed(_) => byte,
                std::borrow::Cow::Owned(_) => String::from_utf8_lossy(&bytes[..byte.min(bytes.len())]).len(),
            };
            let start = outline.body.map_or(0, |b| text_offset(b.start));
            let slugs: HashMap<usize, String> = outline
                .sections
                .iter()
                .filter_map(|s| s.heading_start.map(|h| (text_offset(h), s.slug.clone())))
                .collect();
            (file, start, slugs)
        }
    };
    // Made at the first link (many documents have none).
    let lf_starts = std::cell::OnceCell::new();
    let place_at = |offset: usize| -> (u32, u32) {
        let lf_starts: &Vec<usize> = lf_starts.get_or_init(|| {
            std::iter::once(0).chain(memchr::memchr_iter(b'\n', file.as_bytes()).map(|i| i + 1)).collect()
        });
        let line = lf_starts.partition_point(|&s| s <= offset);
        (line as u32, (offset - lf_starts[line - 1] + 1) as u32)
    };
    let edges = graph.by_place();
    let problems: HashMap<(u32, u32), &str> = graph
        .diagnostics
        .iter()
        .filter(|d| LINK_PROBLEMS.contains(&d.code.as_str()))
        .filter_map(|d| d.location.as_ref().map(|l| ((l.line, l.column), d.message.as_str())))
        .collect();
    // Each link is resolved where the text has it: by the engine's edge at its place, a
    // problem the engine reported there, or — a later link of a section to a target an
    // earlier one names (the engine records one edge per section and target) — as the engine
    // resolves its destination. An index error stops the page.
    let mut failed: Option<RenderError> = None;
    let mut resolve = |offset: usize, url: &str, kind: LinkKind| -> LinkTo {
        let place = place_at(offset);
        let target = match (kind, edges.get(&place), problems.get(&place)) {
            (LinkKind::Image, _, _) => return plain(url),
            (_, Some(e), _) => Some(e.other.clone()),
            (_, None, Some(message)) => {
                return LinkTo::Inert { class: "broken-link", note: message.to_string() };
            }
            (LinkKind::Wiki, None, None) => {
                let (id, fragment) =
                    url.split_once('#').map_or((url, None), |(i, f)| (i, Some(f.to_string())));
                let link = LinkTarget::Id { id: id.to_string(), fragment };
                target_of(&site.documents, &link)
            }
            (LinkKind::Link, None, None) => match docforge_docs::link_target(url, &doc.path) {
                Some(link) => target_of(&site.documents, &link),
                None => return plain(url),
            },
        };
        match target {
            Some(id) if id.starts_with("go:") => match nodes.get(index, &id) {
                Ok(node) => LinkTo::Go { place: node.and_then(|n| n.location.as_ref()).map(place_of), id },
                Err(e) => {
                    failed.get_or_insert(e.into());
                    LinkTo::Inert { class: "broken-link", note: id }
                }
            },
            Some(id) => match site.href_to(doc, &id) {
                Some(href) => LinkTo::Href(href),
                None => LinkTo::Inert { class: "out-of-view", note: format!("{id} is not in this view") },
            },
            None => {
                LinkTo::Inert { class: "unpublished", note: format!("{url} is not published by this view") }
            }
        }
    };
    body_html_into(&Body { file: &file, start, slugs: &slugs }, &mut resolve, out);
    match failed {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// A link or image the graph knows nothing of: external URLs stay, a `#fragment` stays on the
/// page, anything else names a file the view does not publish.
fn plain(url: &str) -> LinkTo {
    let lower = url.to_ascii_lowercase();
    if ["http://", "https://", "mailto:"].iter().any(|s| lower.starts_with(s)) {
        return LinkTo::Href(url.to_string());
    }
    if let Some(frag) = url.strip_prefix('#') {
        return LinkTo::Href(format!("#{frag}"));
    }
    LinkTo::Inert { class: "unpublished", note: format!("{url} is not published by this view") }
}

/// The diagnostics the engine gives a link it could not resolve (at the link's place).
const LINK_PROBLEMS: [&str; 3] = ["broken_link", "ambiguous_link", "unknown_go_target"];

/// The node `link` names, resolved as the engine resolves it (for a link the engine found
/// without recording an edge at its place): `None` for a path that is no document. A
/// fragment that names no slug names the document.
fn target_of(documents: &docforge_docs::DocIndex, link: &LinkTarget) -> Option<String> {
    use docforge_docs::Resolution;
    let (resolution, document) = match link {
        LinkTarget::Go(id) => return Some(id.clone()),
        LinkTarget::Path { path, fragment } => (
            documents.resolve_path(path, fragment.as_deref()),
            documents.id_of_path(path).map(str::to_string),
        ),
        LinkTarget::Id { id, fragment } => (documents.resolve_id(id, fragment.as_deref()), Some(id.clone())),
    };
    match (resolution, document) {
        (Resolution::Found(id), _) => Some(id),
        (Resolution::NotADocument, _) => None,
        (_, document) => document,
    }
}

fn toc_html(outline: &Outline) -> String {
    if outline.sections.is_empty() {
        return String::new();
    }
    // Nested lists: a section's subsections are a list inside its item.
    let mut h = String::from("<nav class=\"toc\"><h2>Contents</h2>\n<ul>");
    let mut open: Vec<usize> = Vec::new();
    for s in &outline.sections {
        let depth = nesting(outline, s);
        while open.len() > depth {
            h.push_str("</li></ul>");
            open.pop();
        }
        if open.len() == depth {
            h.push_str("</li>\n");
        } else {
            // One level deeper (a section's depth is its parent's plus one).
            if !open.is_empty() {
                h.push_str("<ul>");
            }
            open.push(depth);
        }
        let _ = write!(h, "<li><a href=\"#{}\">{}</a>", esc(&fragment(&s.slug)), esc(&s.title));
    }
    while open.len() > 1 {
        h.push_str("</li></ul>");
        open.pop();
    }
    h.push_str("</li></ul>\n</nav>\n");
    h
}

/// 1 + the number of enclosing sections.
fn nesting(outline: &Outline, s: &crate::outline::OutlineSection) -> usize {
    let mut n = 1;
    let mut at = s.parent;
    while let Some(p) = at {
        n += 1;
        at = outline.sections[p].parent;
    }
    n
}

/// Attributes a page shows as the document's fields (its own spans and hashes are not
/// fields).
fn is_field(key: &str) -> bool {
    !(key == "span" || key.starts_with("span.") || key == "content_sha256")
}

fn panel_html(
    site: &Site<'_>,
    index: &Index,
    nodes: &mut Nodes,
    doc: &Doc,
    outline: &Outline,
    graph: &DocGraph,
    claims: &Claims,
) -> Result<String, RenderError> {
    let mut h = String::from("<aside class=\"graph\">\n");
    let fields: Vec<(&String, &String)> = doc.attrs.iter().filter(|(k, _)| is_field(k)).collect();
    if !fields.is_empty() {
        h.push_str("<section class=\"fields\"><h2>Fields</h2>\n<dl>\n");
        for (k, v) in fields {
            // Tags are stored joined by `,`.
            let shown = if k == "tags" { v.split(',').collect::<Vec<_>>().join(", ") } else { v.clone() };
            let _ = writeln!(h, "<dt>{}</dt><dd>{}</dd>", esc(k), esc(&shown));
        }
        h.push_str("</dl></section>\n");
    }
    for (title, class, edges) in
        [("Relations", "relations", &graph.outgoing), ("Referenced by", "referenced-by", &graph.incoming)]
    {
        if edges.is_empty() {
            continue;
        }
        let _ = writeln!(h, "<section class=\"{class}\"><h2>{title}</h2>");
        for (category, relations) in grouped(edges) {
            let _ = writeln!(h, "<h3 class=\"category\">{}</h3>\n<dl>", esc(category.as_str()));
            for (relation, others) in relations {
                let _ = write!(h, "<dt>{}</dt>", esc(&relation));
                for other in others {
                    let _ = write!(h, "<dd>{}</dd>", node_ref(site, nodes, index, doc, &other)?);
                }
                h.push('\n');
            }
            h.push_str("</dl>\n");
        }
        h.push_str("</section>\n");
    }
    // Backlinks: the documents whose text or relations point here, each once.
    let mut from_docs: Vec<String> = graph
        .incoming
        .iter()
        .map(|e| e.source.split('#').next().unwrap_or(&e.source).to_string())
        .filter(|d| *d != doc.id && !d.starts_with("go:") && !d.starts_with("file:"))
        .collect();
    from_docs.sort();
    from_docs.dedup();
    if !from_docs.is_empty() {
        h.push_str("<section class=\"backlinks\"><h2>Backlinks</h2>\n<ul>\n");
        for d in from_docs {
            let _ = writeln!(h, "<li>{}</li>", node_ref(site, nodes, index, doc, &d)?);
        }
        h.push_str("</ul></section>\n");
    }
    if !outline.claims.is_empty() {
        h.push_str("<section class=\"claims\"><h2>Claims</h2>\n<ul>\n");
        for (i, c) in outline.claims.iter().enumerate() {
            let outcome = claims.outcome(&doc.path, i, c);
            let object = c.object.as_ref().map(|o| format!(" <code>{}</code>", esc(o))).unwrap_or_default();
            let _ = writeln!(
                h,
                "<li class=\"claim {}\"><code>{}</code> <code>{}</code>{object}: <strong>{}</strong>{}</li>",
                esc(outcome.class()),
                esc(&c.predicate),
                esc(&c.subject),
                esc(outcome.label()),
                outcome.reason().map(|r| format!(" <small>({})</small>", esc(r))).unwrap_or_default()
            );
        }
        h.push_str("</ul></section>\n");
    }
    if !graph.diagnostics.is_empty() {
        h.push_str("<section class=\"diagnostics\"><h2>Diagnostics</h2>\n<ul>\n");
        for d in &graph.diagnostics {
            let at =
                d.location.as_ref().map(|l| format!(" <small class=\"place\">{}</small>", esc(&place_of(l))));
            let _ = writeln!(
                h,
                "<li class=\"{}\"><code>{}</code> {}{}</li>",
                d.severity.as_str(),
                esc(&d.code),
                esc(&d.message),
                at.unwrap_or_default()
            );
        }
        h.push_str("</ul></section>\n");
    }
    h.push_str("</aside>\n");
    Ok(h)
}

/// The site's index page (`html-site@1`): every document, by family and kind.
pub fn index_page(site: &Site<'_>) -> String {
    let mut h = head(site, site.project_id, CSS_PATH);
    let _ = write!(
        h,
        "<header class=\"site\"><a href=\"index.html\">{} · {}</a></header>\n<main class=\"index\">\n<h1>{}</h1>\n",
        esc(site.project_id),
        esc(site.view_id),
        esc(site.view_id),
    );
    let _ = writeln!(h, "<p>{} documents.</p>", site.docs.len());
    let mut family: Option<&str> = None;
    for (g, (fam, kind, docs)) in site.nav.groups.iter().enumerate() {
        if family != Some(fam.as_str()) {
            family = Some(fam);
            let _ = writeln!(h, "<h2>{}</h2>", esc(if fam.is_empty() { "(no family)" } else { fam }));
        }
        let _ = writeln!(h, "<h3 id=\"{}\">{}</h3>\n<ul>", group_anchor(g), esc(kind));
        for d in docs {
            let status = d.attr("status").map(|s| format!(" <small>{}</small>", esc(s))).unwrap_or_default();
            let _ = writeln!(
                h,
                "<li><a href=\"{}\">{}</a>{status}</li>",
                esc(&relative("index.html", &d.page)),
                esc(&d.title)
            );
        }
        h.push_str("</ul>\n");
    }
    h.push_str("</main>\n</body>\n</html>\n");
    h
}
