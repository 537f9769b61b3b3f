//! Escaping for the HTML DocForge writes around a document (the document's own HTML is
//! produced by comrak and sanitised, see `markdown.rs`).

/// `s` escaped for text and double-quoted attribute values.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The relative URL from the page at `from` (a path inside the output, `a/b.html`) to the
/// file at `to` (another path inside it).
pub fn relative(from: &str, to: &str) -> String {
    relative_encoded(&encode_path(from), &encode_path(to))
}

/// `path` with each component percent-encoded where a URL needs it (see [`fragment`]).
pub fn encode_path(path: &str) -> String {
    path.split('/').map(fragment).collect::<Vec<_>>().join("/")
}

/// [`relative`] between two paths already encoded by [`encode_path`] (`..` and `/` are as
/// they were).
pub fn relative_encoded(from: &str, to: &str) -> String {
    let mut out = String::with_capacity(to.len() + 12);
    relative_encoded_into(from, to, &mut out);
    out
}

/// [`relative_encoded`], written to the end of `out`.
pub fn relative_encoded_into(from: &str, to: &str, out: &mut String) {
    let from_dir = from.rfind('/').map_or("", |i| &from[..=i]);
    // The directories both share: the common prefix, to its last `/`.
    let same = from_dir.bytes().zip(to.bytes()).take_while(|(a, b)| a == b).count();
    let common = from_dir[..same].rfind('/').map_or(0, |i| i + 1);
    let up = from_dir[common..].bytes().filter(|&b| b == b'/').count();
    for _ in 0..up {
        out.push_str("../");
    }
    out.push_str(&to[common..]);
}

/// A fragment identifier (or a path component) as it may stand in a URL: unreserved
/// characters as they are (slugs are made of them), every other byte percent-encoded.
pub fn fragment(f: &str) -> String {
    let mut out = String::with_capacity(f.len());
    for b in f.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => out.push(b as char),
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('%');
                out.push(HEX[(b >> 4) as usize] as char);
                out.push(HEX[(b & 15) as usize] as char);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_urls_between_pages() {
        let cases = [
            ("index.html", "docs/a.html", "docs/a.html"),
            ("docs/a.html", "docs/b.html", "b.html"),
            ("docs/arch/a.html", "docs/b.html", "../b.html"),
            ("docs/a.html", "index.html", "../index.html"),
            ("a.html", "assets/docforge.css", "assets/docforge.css"),
            ("docs/x y.html", "docs/é.html", "%C3%A9.html"),
            ("a/bc/x.html", "a/b/y.html", "../b/y.html"),
            ("a/b/x.html", "a/bc/y.html", "../bc/y.html"),
            ("a/b/x.html", "a/b", "../b"),
            ("a/b/c/x.html", "d/e.html", "../../../d/e.html"),
            ("x.html", "y.html", "y.html"),
        ];
        for (from, to, want) in cases {
            assert_eq!(relative(from, to), want, "{from} -> {to}");
        }
        assert_eq!(esc("<a href=\"x\">&'</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;&lt;/a&gt;");
    }
}
