//! A changeset preview as one self-contained HTML file: the pages a view renders for the
//! documents a changeset touches (rendered over its projected sources), their stylesheet
//! inlined, under a banner saying what is previewed. No script, as every page.

use crate::html::esc;
use crate::page::CSS_PATH;
use crate::render::Rendered;
use crate::view::page_of;

/// A document the previewed changeset touches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Touched {
    pub path: String,
    /// `created`, `modified` or `deleted`.
    pub action: &'static str,
}

/// The part of a page between its frame's `<div class="layout…">` and its end: the document
/// and the graph panel (and, on a site page, the navigation).
fn page_body(page: &str) -> Option<&str> {
    let start = page.find("<div class=\"layout")?;
    let end = page.rfind("</body>")?;
    (start < end).then(|| &page[start..end])
}

/// One HTML file: a banner (`title`, then each of `facts`), then for each touched document
/// its page from `rendered`, or why there is none (deleted, not selected by the view).
pub fn preview_html(
    view_id: &str,
    rendered: &Rendered,
    title: &str,
    facts: &[String],
    touched: &[Touched],
) -> String {
    let css = rendered
        .files
        .iter()
        .find(|(p, _)| p == CSS_PATH)
        .map(|(_, b)| String::from_utf8_lossy(b).into_owned())
        .unwrap_or_default();
    let mut h = String::with_capacity(64 * 1024);
    h.push_str(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'\">\n",
    );
    h.push_str(&format!(
        "<meta name=\"generator\" content=\"docforge preview {}\">\n<title>{}</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>\n{}\n</style>\n</head>\n<body>\n",
        esc(view_id),
        esc(title),
        css.replace("</", "<\\/")
    ));
    h.push_str("<header class=\"site preview\">\n");
    h.push_str(&format!("<p><strong>{}</strong></p>\n<ul>\n", esc(title)));
    for f in facts {
        h.push_str(&format!("<li>{}</li>\n", esc(f)));
    }
    h.push_str("</ul>\n</header>\n");
    for t in touched {
        h.push_str(&format!(
            "<section class=\"preview-document\" data-path=\"{}\" data-action=\"{}\">\n<h2 class=\"preview-path\"><code>{}</code> · {}</h2>\n",
            esc(&t.path),
            t.action,
            esc(&t.path),
            t.action
        ));
        let page = page_of(&t.path);
        let body = rendered.files.iter().find(|(p, _)| *p == page).map(|(_, b)| String::from_utf8_lossy(b));
        match (t.action, body.as_deref().and_then(page_body)) {
            ("deleted", _) => {
                h.push_str("<p class=\"preview-note\">The changeset deletes this document.</p>\n")
            }
            (_, Some(body)) => h.push_str(body),
            (_, None) => h.push_str(&format!(
                "<p class=\"preview-note\">View <code>{}</code> does not select this document.</p>\n",
                esc(view_id)
            )),
        }
        h.push_str("</section>\n");
    }
    h.push_str("</body>\n</html>\n");
    h
}
