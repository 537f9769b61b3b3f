//! The site navigation of `html-site@1` pages: the selected documents by family and kind.
//!
//! A page's size must not grow with the site's: a site of at most [`NAV_ALL`] documents lists
//! every one of them on every page; a larger one lists every family and kind (each a link to
//! its list on the site's index page, with its count), and of the current page's own kind the
//! [`NAV_WINDOW`] documents around it.

use crate::html::{encode_path, esc, relative, relative_encoded_into};
use crate::page::Site;
use crate::view::Doc;
use std::collections::HashMap;
use std::fmt::Write;
use std::rc::Rc;

/// The largest site whose pages list every document.
pub const NAV_ALL: usize = 100;
/// How many documents of its kind a page of a larger site lists, itself among them.
pub const NAV_WINDOW: usize = 40;

/// The navigation: groups of documents (family, kind, documents in order), and where each
/// document is in them.
pub struct Nav<'a> {
    pub groups: Vec<(String, String, Vec<&'a Doc>)>,
    /// Document ID → (group, position in it).
    at: HashMap<String, (usize, usize)>,
    /// Each group's documents' pages, encoded as URL paths, and titles, escaped (in the
    /// groups' order).
    links: Vec<Vec<(String, String)>>,
    /// The navigation's pieces for pages of one directory (its links are relative to it):
    /// made once per directory, not once per page.
    cache: std::cell::RefCell<HashMap<String, Rc<Vec<Piece>>>>,
}

/// A piece of the navigation: markup, one document's item (`<li>…</li>`), or where a larger
/// site's group lists the documents around the current page when it is one of them.
enum Piece {
    Markup(String),
    Item { id: String, li: String },
    Window(usize),
}

/// The anchor of a group's list on the site's index page.
pub fn group_anchor(group: usize) -> String {
    format!("group-{}", group + 1)
}

impl<'a> Nav<'a> {
    pub fn new(groups: Vec<(String, String, Vec<&'a Doc>)>) -> Nav<'a> {
        let mut at = HashMap::new();
        let mut links = Vec::with_capacity(groups.len());
        for (g, (_, _, docs)) in groups.iter().enumerate() {
            for (i, d) in docs.iter().enumerate() {
                at.insert(d.id.clone(), (g, i));
            }
            links.push(docs.iter().map(|d| (encode_path(&d.page), esc(&d.title))).collect());
        }
        Nav { groups, at, links, cache: Default::default() }
    }

    fn documents(&self) -> usize {
        self.at.len()
    }
}

/// The navigation of `current`'s page.
pub fn nav_html(site: &Site<'_>, current: &Doc) -> String {
    let dir = current.page.rsplit_once('/').map_or("", |(d, _)| d).to_string();
    let pieces =
        site.nav.cache.borrow_mut().entry(dir).or_insert_with(|| Rc::new(pieces(site, current))).clone();
    let mut h = String::new();
    for piece in pieces.iter() {
        match piece {
            Piece::Markup(m) => h.push_str(m),
            Piece::Item { id, li } if *id == current.id => {
                h.push_str("<li class=\"current\">");
                h.push_str(&li["<li>".len()..]);
            }
            Piece::Item { li, .. } => h.push_str(li),
            Piece::Window(g) => window(site, *g, current, &mut h),
        }
    }
    h
}

/// The item of the `i`th document of group `g` on a page at `from` (encoded, see
/// `encode_path`), `current` marked.
fn item(nav: &Nav<'_>, from: &str, (g, i): (usize, usize), current: bool, h: &mut String) {
    let (page, title) = &nav.links[g][i];
    h.push_str(if current { "<li class=\"current\"><a href=\"" } else { "<li><a href=\"" });
    // An encoded path needs no escaping in an attribute.
    relative_encoded_into(from, page, h);
    h.push_str("\">");
    h.push_str(title);
    h.push_str("</a></li>\n");
}

/// The navigation as seen from a page in `from`'s directory: every document (a small site),
/// or every group with the place where the current page's group lists its documents.
fn pieces(site: &Site<'_>, from: &Doc) -> Vec<Piece> {
    let all = site.nav.documents() <= NAV_ALL;
    let index = relative(&from.page, "index.html");
    let from_page = encode_path(&from.page);
    let mut out = vec![Piece::Markup("<nav class=\"site-nav\">\n".into())];
    let mut family: Option<&str> = None;
    for (g, (fam, kind, docs)) in site.nav.groups.iter().enumerate() {
        let mut m = String::new();
        if family != Some(fam.as_str()) {
            if family.is_some() {
                m.push_str("</section>\n");
            }
            family = Some(fam);
            let name = if fam.is_empty() { "(no family)" } else { fam };
            let _ = writeln!(m, "<section class=\"family\"><h2>{}</h2>", esc(name));
        }
        if all {
            let _ = writeln!(m, "<h3>{}</h3>\n<ul>", esc(kind));
            out.push(Piece::Markup(m));
            out.extend(docs.iter().enumerate().map(|(i, d)| {
                let mut li = String::new();
                item(&site.nav, &from_page, (g, i), false, &mut li);
                Piece::Item { id: d.id.clone(), li }
            }));
            out.push(Piece::Markup("</ul>\n".into()));
        } else {
            let _ = writeln!(
                m,
                "<h3><a href=\"{}#{}\">{}</a> <small>{}</small></h3>",
                esc(&index),
                group_anchor(g),
                esc(kind),
                docs.len()
            );
            out.push(Piece::Markup(m));
            out.push(Piece::Window(g));
        }
    }
    let close = if family.is_some() { "</section>\n</nav>\n" } else { "</nav>\n" };
    out.push(Piece::Markup(close.into()));
    out
}

/// A larger site: the documents of group `g` around `current`, when it is one of them.
fn window(site: &Site<'_>, g: usize, current: &Doc, h: &mut String) {
    if site.nav.at.get(&current.id).is_none_or(|(cg, _)| *cg != g) {
        return;
    }
    let i = site.nav.at[&current.id].1;
    let docs = &site.nav.groups[g].2;
    let start = i.saturating_sub(NAV_WINDOW / 2).min(docs.len().saturating_sub(NAV_WINDOW));
    let end = (start + NAV_WINDOW).min(docs.len());
    let index = relative(&current.page, "index.html");
    let from_page = encode_path(&current.page);
    let more = |n: usize, h: &mut String| {
        let _ = writeln!(
            h,
            "<li class=\"more\"><a href=\"{}#{}\">… {n} more</a></li>",
            esc(&index),
            group_anchor(g)
        );
    };
    h.push_str("<ul>\n");
    if start > 0 {
        more(start, h);
    }
    for k in start..end {
        item(&site.nav, &from_page, (g, k), k == i, h);
    }
    if end < docs.len() {
        more(docs.len() - end, h);
    }
    h.push_str("</ul>\n");
}
