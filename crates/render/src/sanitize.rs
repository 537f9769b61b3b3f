//! The sanitiser a document's raw HTML goes through (ammonia): the tags and attributes of
//! harmless raw HTML stay; scripts, styles, event handlers, `javascript:` and other active
//! URLs, forms, frames and embeds never reach a page.
//!
//! Only raw HTML is sanitised: the rest of a page is written by comrak from the Markdown and
//! by DocForge, escaped and with every URL chosen by the renderer (see `markdown.rs`). The
//! `id`s on a page are DocForge's (heading anchors, the engine's section slugs) and comrak's
//! (footnotes): raw HTML's are dropped, so none can take a heading's or a footnote's (links to
//! a raw anchor were resolved by the engine to its section). Likewise raw HTML's relative
//! links and images name files the view does not publish, and are dropped as a Markdown link
//! or image to them is made inert.
//!
//! A document's raw HTML is sanitised as one piece, so that an element opened in one raw block
//! and closed in another (`<details>` … Markdown … `</details>`) stays one element: the raw
//! parts are joined with a placeholder between each two, cleaned together, and cut apart at
//! the placeholders again. A placeholder holds a `"`, which ammonia writes as it is in text
//! and as `&quot;` in an attribute value: one found in the cleaned HTML stands where text
//! does, so the Markdown's HTML put there is never inside a tag. When a placeholder is not
//! found where it belongs (raw HTML that swallowed it into an attribute, a table that moved
//! it), each raw part is cleaned alone instead.

use comrak::nodes::{AstNode, NodeValue};

fn builder() -> ammonia::Builder<'static> {
    let mut b = ammonia::Builder::default();
    b.add_tags(["section", "input", "figure", "figcaption"]);
    b.add_generic_attributes(["id", "class", "title"]);
    // Task-list checkboxes, always disabled; an input of any other type loses its type and is
    // never a form field. One attribute is set at most: ammonia adds the ones it sets in hash
    // order, which differs from one builder to the next, and a page must not.
    b.add_tag_attributes("input", ["checked", "disabled"]);
    b.add_tag_attribute_values("input", "type", ["checkbox"]);
    b.set_tag_attribute_value("input", "disabled", "");
    b.add_tag_attributes("th", ["align"]);
    b.add_tag_attributes("td", ["align"]);
    b.add_tag_attributes("ol", ["start"]);
    b.url_schemes(["http", "https", "mailto"].into_iter().collect());
    b.link_rel(Some("noopener noreferrer"));
    b
}

/// Whether `url` is absolute: by the time the filter sees it, ammonia has dropped every URL
/// with a scheme other than these (it trims what `Url::parse` trims first).
pub(crate) fn is_absolute(url: &str) -> bool {
    let url = url.trim_start_matches(|c: char| c <= ' ').to_ascii_lowercase();
    ["http:", "https:", "mailto:"].iter().any(|s| url.starts_with(s))
}

/// `html` with everything that could act removed, and every `id` and relative URL.
pub fn clean(html: &str) -> String {
    // Made once: a builder holds the tag and attribute tables.
    static CLEANER: std::sync::OnceLock<ammonia::Builder<'static>> = std::sync::OnceLock::new();
    CLEANER.get_or_init(cleaner).clean(html).to_string()
}

/// The sanitiser: [`builder`] and the filter dropping `id`s and relative URLs.
fn cleaner() -> ammonia::Builder<'static> {
    let mut b = builder();
    b.attribute_filter(|_element, attribute, value| match attribute {
        "id" => None,
        "href" | "src" if !is_absolute(value) => None,
        _ => Some(value.into()),
    });
    b
}

/// Replace the literal of every raw HTML node (block and inline) of a document, `raw` in
/// document order, by its cleaned form. `text` is the Markdown the tree was parsed from (the
/// placeholders are absent from it).
pub(crate) fn raw_html<'a>(raw: Vec<&'a AstNode<'a>>, text: &str) {
    if raw.is_empty() {
        return;
    }
    let literals: Vec<String> = raw.iter().map(|n| literal(n).to_string()).collect();
    let cleaned = clean_joined(&literals, text).unwrap_or_else(|| {
        // The inline raw HTML of one paragraph (or heading, or cell) together, a raw block
        // alone; a group whose placeholders go astray again, one part at a time.
        let mut cleaned = Vec::with_capacity(literals.len());
        let mut start = 0;
        for end in 1..=raw.len() {
            if end < raw.len() && is_inline(raw[end]) && same_parent(raw[end - 1], raw[end]) {
                continue;
            }
            let group = &literals[start..end];
            cleaned.extend(
                clean_joined(group, text).unwrap_or_else(|| group.iter().map(|l| clean(l)).collect()),
            );
            start = end;
        }
        cleaned
    });
    for (node, cleaned) in raw.into_iter().zip(cleaned) {
        match &mut node.data.borrow_mut().value {
            NodeValue::HtmlBlock(b) => b.literal = cleaned,
            NodeValue::HtmlInline(l) => *l = cleaned,
            _ => unreachable!("collected"),
        }
    }
}

fn is_inline(node: &AstNode<'_>) -> bool {
    matches!(node.data.borrow().value, NodeValue::HtmlInline(_))
}

fn same_parent<'a>(a: &'a AstNode<'a>, b: &'a AstNode<'a>) -> bool {
    match (a.parent(), b.parent()) {
        (Some(x), Some(y)) => std::ptr::eq(x, y),
        _ => false,
    }
}

fn literal<'n>(node: &'n AstNode<'_>) -> std::cell::Ref<'n, str> {
    std::cell::Ref::map(node.data.borrow(), |ast| match &ast.value {
        NodeValue::HtmlBlock(b) => b.literal.as_str(),
        NodeValue::HtmlInline(l) => l.as_str(),
        _ => "",
    })
}

/// `parts` cleaned as one piece and cut apart again (see the module docs), or `None` when a
/// placeholder is not where it belongs.
fn clean_joined(parts: &[String], text: &str) -> Option<Vec<String>> {
    let mark = mark(text, parts);
    let placeholder = |i: usize| format!("{mark}\"{i}\"{mark}");
    let mut joined = String::with_capacity(parts.iter().map(String::len).sum::<usize>() + parts.len() * 40);
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            joined.push_str(&placeholder(i - 1));
        }
        joined.push_str(part);
    }
    let cleaned = clean(&joined);
    let mut pieces = Vec::with_capacity(parts.len());
    let mut rest = cleaned.as_str();
    for i in 0..parts.len() - 1 {
        let (before, after) = rest.split_once(placeholder(i).as_str())?;
        pieces.push(before.to_string());
        rest = after;
    }
    pieces.push(rest.to_string());
    // Each placeholder once, in order, and nothing else of them.
    if pieces.iter().any(|p| p.contains(mark.as_str())) {
        return None;
    }
    Some(pieces)
}

/// A string neither the document nor its raw HTML contains: the first of a fixed sequence of
/// candidates (the same document always gets the same one, and pages are deterministic).
fn mark(text: &str, parts: &[String]) -> String {
    (0u64..)
        .map(|n| format!("docforge{:016x}", n.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5f0d_c0de_d0c5_f0e9))
        .find(|c| !text.contains(c.as_str()) && !parts.iter().any(|p| p.contains(c.as_str())))
        .expect("some candidate is absent from a finite text")
}

#[cfg(test)]
mod tests {
    #[test]
    fn active_content_is_removed() {
        let cases = [
            ("<script>alert(1)</script><p>x</p>", "<p>x</p>"),
            ("<img src=\"x.png\" onerror=\"alert(1)\">", "<img>"),
            ("<img src=\"https://e.x/a.png\" alt=\"a\">", "<img src=\"https://e.x/a.png\" alt=\"a\">"),
            ("<a href=\"HTTPS://e.x\">x</a>", "<a href=\"HTTPS://e.x\" rel=\"noopener noreferrer\">x</a>"),
            ("<a href=\"mailto:a@e.x\">x</a>", "<a href=\"mailto:a@e.x\" rel=\"noopener noreferrer\">x</a>"),
            ("<a href=\"../secret.md\">x</a>", "<a rel=\"noopener noreferrer\">x</a>"),
            ("<a href=\"//e.x/a\">x</a>", "<a rel=\"noopener noreferrer\">x</a>"),
            ("<a href=\"#top\">x</a>", "<a rel=\"noopener noreferrer\">x</a>"),
            ("<a href=\"javascript:alert(1)\">x</a>", "<a rel=\"noopener noreferrer\">x</a>"),
            ("<p style=\"color:red\" onclick=\"x()\">y</p>", "<p>y</p>"),
            (
                "<iframe src=\"https://e.x\"></iframe><form><input type=\"text\" name=\"q\"></form>",
                "<input disabled=\"\">",
            ),
            ("<input>", "<input disabled=\"\">"),
            (
                "<li><input type=\"checkbox\" checked=\"\" disabled=\"\"> done</li>",
                "<li><input type=\"checkbox\" checked=\"\" disabled=\"\"> done</li>",
            ),
        ];
        for (dirty, want) in cases {
            assert_eq!(super::clean(dirty), want, "{dirty}");
        }
    }

    #[test]
    fn ids_are_dropped() {
        assert_eq!(super::clean("<h2 id=\"intro\">Intro</h2>"), "<h2>Intro</h2>");
    }

    /// Raw parts cleaned together and cut apart at the placeholders: an element opened in one
    /// part and closed in another stays one element; a placeholder that raw HTML swallows
    /// into an attribute or a comment sends every part to be cleaned alone.
    #[test]
    fn raw_parts_are_cleaned_together() {
        let parts = |p: &[&str]| p.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases: [(&[&str], Option<&[&str]>); 5] = [
            (
                &["<details open ontoggle=x()>\n<summary>s</summary>\n", "</details>\n"],
                Some(&["<details>\n<summary>s</summary>\n", "</details>\n"]),
            ),
            (&["<b onclick=\"x\">", "</b>"], Some(&["<b>", "</b>"])),
            (&["<script>", "</script>"], None),
            (&["<img alt='x\n", "'>"], None),
            (&["<!-- ", " -->"], None),
        ];
        for (input, want) in cases {
            let got = super::clean_joined(&parts(input), "");
            let want = want.map(parts);
            assert_eq!(got, want, "{input:?}");
        }
    }

    /// Every builder cleans alike (ammonia keeps the attributes it sets in a hash map, whose
    /// order is random per map): a page is the same in every process.
    #[test]
    fn output_does_not_depend_on_the_builder() {
        let dirty = "<input type=\"text\"><input><li><input type=\"checkbox\" checked> x</li>";
        let first = super::clean(dirty);
        for _ in 0..64 {
            assert_eq!(super::cleaner().clean(dirty).to_string(), first);
        }
    }
}
