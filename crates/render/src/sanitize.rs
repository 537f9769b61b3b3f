//! The sanitiser every document's HTML goes through (ammonia): the tags and attributes of
//! rendered Markdown and harmless raw HTML stay; scripts, styles, event handlers, `javascript:`
//! and other active URLs, forms, frames and embeds never reach a page.
//!
//! The `id`s on a page are DocForge's: heading anchors (the engine's section slugs) and
//! footnotes. The Markdown renderer marks the ones it writes with a mark the document cannot
//! contain (see `markdown.rs`); every other `id` — raw HTML's — is dropped, so none can take a
//! heading's or a footnote's (links to a raw anchor were resolved by the engine to its
//! section). Likewise a relative URL is kept only where DocForge wrote it (a page of the view):
//! raw HTML's relative links and images name files the view does not publish, and are dropped
//! as a Markdown link or image to them is made inert.

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

/// `html` with everything that could act removed, and every `id` and relative URL (none of it
/// was written by DocForge).
pub fn clean(html: &str) -> String {
    clean_marked(html, None)
}

/// [`clean`], keeping the attribute values that hold `mark` (which is removed from them):
/// what DocForge wrote into the document's HTML.
pub(crate) fn clean_marked(html: &str, mark: Option<&str>) -> String {
    let mut b = builder();
    let mark = mark.map(str::to_string);
    b.attribute_filter(move |_element, attribute, value| {
        if let Some(mark) = mark.as_deref().filter(|m| value.contains(*m)) {
            return Some(value.replace(mark, "").into());
        }
        match attribute {
            "id" => None,
            "href" | "src" if !is_absolute(value) => None,
            _ => Some(value.into()),
        }
    });
    b.clean(html).to_string()
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
    fn only_marked_ids_stay_unmarked() {
        let html =
            "<h2 id=\"MARKintro\">Intro</h2><a id=\"intro\"></a><li id=\"fn-MARKa\">n</li><p id=\"x\">p</p>";
        assert_eq!(
            super::clean_marked(html, Some("MARK")),
            "<h2 id=\"intro\">Intro</h2><a rel=\"noopener noreferrer\"></a><li id=\"fn-a\">n</li><p>p</p>"
        );
        assert_eq!(super::clean("<h2 id=\"intro\">Intro</h2>"), "<h2>Intro</h2>");
    }

    /// Every builder cleans alike (ammonia keeps the attributes it sets in a hash map, whose
    /// order is random per map): a page is the same in every process.
    #[test]
    fn output_does_not_depend_on_the_builder() {
        let dirty = "<input type=\"text\"><input><li><input type=\"checkbox\" checked> x</li>";
        let first = super::clean(dirty);
        for _ in 0..64 {
            assert_eq!(super::clean(dirty), first);
        }
    }
}
