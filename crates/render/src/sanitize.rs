//! The sanitiser every document's HTML goes through (ammonia): the tags and attributes of
//! rendered Markdown and harmless raw HTML stay; scripts, styles, event handlers, `javascript:`
//! and other active URLs, forms, frames and embeds never reach a page.

use std::sync::OnceLock;

fn builder() -> &'static ammonia::Builder<'static> {
    static BUILDER: OnceLock<ammonia::Builder<'static>> = OnceLock::new();
    BUILDER.get_or_init(|| {
        let mut b = ammonia::Builder::default();
        b.add_tags(["section", "input", "figure", "figcaption"]);
        b.add_generic_attributes(["id", "class", "title"]);
        // Task-list checkboxes; any other input becomes one too (and is never a form field).
        b.add_tag_attributes("input", ["checked", "disabled"]);
        b.set_tag_attribute_value("input", "type", "checkbox");
        b.set_tag_attribute_value("input", "disabled", "");
        b.add_tag_attributes("th", ["align"]);
        b.add_tag_attributes("td", ["align"]);
        b.add_tag_attributes("ol", ["start"]);
        b.url_schemes(["http", "https", "mailto"].into_iter().collect());
        b.link_rel(Some("noopener noreferrer"));
        b
    })
}

/// `html` with everything that could act removed.
pub fn clean(html: &str) -> String {
    builder().clean(html).to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn active_content_is_removed() {
        let cases = [
            ("<script>alert(1)</script><p>x</p>", "<p>x</p>"),
            ("<img src=\"x.png\" onerror=\"alert(1)\">", "<img src=\"x.png\">"),
            ("<a href=\"javascript:alert(1)\">x</a>", "<a rel=\"noopener noreferrer\">x</a>"),
            ("<p style=\"color:red\" onclick=\"x()\">y</p>", "<p>y</p>"),
            (
                "<iframe src=\"https://e.x\"></iframe><form><input type=\"text\" name=\"q\"></form>",
                "<input type=\"checkbox\" disabled=\"\">",
            ),
            (
                "<li><input type=\"checkbox\" checked=\"\" disabled=\"\"> done</li>",
                "<li><input checked=\"\" disabled=\"\" type=\"checkbox\"> done</li>",
            ),
        ];
        for (dirty, want) in cases {
            assert_eq!(super::clean(dirty), want, "{dirty}");
        }
    }
}
