//! Link targets inside a document besides its heading slugs, as renderers make them: an
//! `id` attribute on any element and a `name` attribute on `<a>` in raw HTML (GitHub keeps
//! both), and an explicit `{#id}` at the end of a heading (goldmark, Hugo, Pandoc, kramdown;
//! GitHub renders it as text, so the heading keeps its slug as well).
//!
//! Each anchor names a section: the heading it is written in, the heading right after it
//! when only whitespace and other tags stand between (`<a id="x"></a>` on the line above a
//! heading), or else the section whose text holds it; one before the first heading names
//! the document.

/// `(start, end, name)` of every `id` / `name` anchor in `html` (raw HTML), with the byte
/// range of the tag that carries it.
pub(crate) fn html_anchors(html: &str) -> Vec<(usize, usize, String)> {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = html[at..].find('<').map(|i| at + i) {
        let name_len = bytes[open + 1..].iter().take_while(|b| b.is_ascii_alphanumeric()).count();
        if name_len == 0 {
            at = open + 1;
            continue;
        }
        let tag = html[open + 1..open + 1 + name_len].to_ascii_lowercase();
        let (attrs, end) = attributes(html, open + 1 + name_len);
        for (name, value) in attrs {
            let anchor = name.eq_ignore_ascii_case("id") || (tag == "a" && name.eq_ignore_ascii_case("name"));
            if anchor && !value.is_empty() {
                out.push((open, end, value.to_string()));
            }
        }
        at = end.max(open + 1);
    }
    out
}

/// The attributes of a start tag from `at` (just past its name) and the offset past its `>`
/// (or the end of `html` when it is not closed).
fn attributes(html: &str, mut at: usize) -> (Vec<(&str, &str)>, usize) {
    let bytes = html.as_bytes();
    let mut out = Vec::new();
    loop {
        while at < bytes.len() && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= bytes.len() {
            return (out, at);
        }
        if bytes[at] == b'>' {
            return (out, at + 1);
        }
        let name_start = at;
        while at < bytes.len() && !matches!(bytes[at], b'=' | b'>' | b'/') && !bytes[at].is_ascii_whitespace()
        {
            at += 1;
        }
        let name = &html[name_start..at];
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        if bytes.get(at) != Some(&b'=') {
            if at == name_start {
                at += 1; // a stray character: never loop in place
            }
            continue;
        }
        at += 1;
        while at < bytes.len() && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let value = match bytes.get(at) {
            Some(&q @ (b'"' | b'\'')) => {
                let close = html[at + 1..].find(q as char).map_or(html.len(), |i| at + 1 + i);
                let v = &html[at + 1..close];
                at = (close + 1).min(html.len());
                v
            }
            _ => {
                let start = at;
                while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b'>' {
                    at += 1;
                }
                &html[start..at]
            }
        };
        out.push((name, value));
    }
}

/// The `{#id}` at the end of a heading's text.
pub(crate) fn heading_id(title: &str) -> Option<&str> {
    let inner = title.trim_end().strip_suffix('}')?;
    let open = inner.rfind("{#")?;
    let id = &inner[open + 2..];
    (!id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c == '{' || c == '}')).then_some(id)
}

/// Which section each anchor names (see the module docs): `heads` are the headings' byte
/// ranges in document order. Returns the document's anchors and each section's.
pub(crate) fn assign(
    anchors: Vec<(usize, usize, String)>,
    heads: &[(usize, usize)],
    src: &str,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut document = Vec::new();
    let mut sections = vec![Vec::new(); heads.len()];
    for (start, end, name) in anchors {
        let within = heads.partition_point(|h| h.0 <= start).checked_sub(1);
        let next = heads.partition_point(|h| h.0 < end);
        let in_heading = within.is_some_and(|i| start < heads[i].1);
        let section = if in_heading {
            within
        } else if next < heads.len() && only_tags(&src[end.min(heads[next].0)..heads[next].0]) {
            Some(next)
        } else {
            within
        };
        match section {
            Some(i) => sections[i].push(name),
            None => document.push(name),
        }
    }
    (document, sections)
}

/// Whether `text` holds nothing but whitespace and tags.
fn only_tags(text: &str) -> bool {
    let mut rest = text.trim_start();
    while let Some(tag) = rest.strip_prefix('<') {
        match tag.find('>') {
            Some(i) => rest = tag[i + 1..].trim_start(),
            None => return false,
        }
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_in_raw_html() {
        let names = |html: &str| html_anchors(html).into_iter().map(|a| a.2).collect::<Vec<_>>();
        let cases: &[(&str, &[&str])] = &[
            ("<a id='linkTarget'></a>", &["linkTarget"]),
            ("<a name='refactor.rewrite.invertIf'></a>", &["refactor.rewrite.invertIf"]),
            ("<h3 id=\"formats\">\n<code>email</code>\n</h3>", &["formats"]),
            ("<a href=\"#vimlsp\" id=\"vimlsp\">vim-lsp</a>", &["vimlsp"]),
            ("<A NAME=x>y</A>", &["x"]),
            ("<div ID = \"spaced\" class='c'>", &["spaced"]),
            ("<img src=x name=not-an-anchor>", &[]),
            ("<p data-id=\"no\" id=''>", &[]),
            ("</a> <!-- id=\"comment\" --> a < b", &[]),
            ("<a id=\"unclosed", &["unclosed"]),
        ];
        for (html, want) in cases {
            assert_eq!(names(html), *want, "{html:?}");
        }
    }

    #[test]
    fn explicit_heading_ids() {
        assert_eq!(heading_id("Using the Command Line Tool {#command}"), Some("command"));
        assert_eq!(heading_id("Title {#a.b-c} "), Some("a.b-c"));
        for title in ["Title", "Title {#}", "Title {# x}", "Title {.class}", "{#a} text"] {
            assert_eq!(heading_id(title), None, "{title}");
        }
    }

    #[test]
    fn each_anchor_names_a_section_or_the_document() {
        let src = "<a id=\"top\"></a>\n\nintro\n\n<a id=\"before\"></a>\n\n# One\n\ntext <a id=\"in-prose\"></a> more\n\n## <a id=\"in-heading\">Two</a>\n";
        let find = |s: &str| src.find(s).unwrap();
        let heads = [(find("# One"), find("# One") + 6), (find("## "), src.len())];
        let anchors = html_anchors(src);
        let (document, sections) = assign(anchors, &heads, src);
        assert_eq!(document, ["top"]);
        assert_eq!(sections, [vec!["before".to_string(), "in-prose".into()], vec!["in-heading".into()]]);
    }
}
