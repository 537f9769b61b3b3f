//! The sanitiser every document's HTML goes through (ammonia): the tags and attributes of
//! rendered Markdown and harmless raw HTML stay; scripts, styles, event handlers, `javascript:`
//! and other active URLs, forms, frames and embeds never reach a page.

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
