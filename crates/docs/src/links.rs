//! What a link destination means: a document path, a node ID, a `go:` node, or nothing we
//! follow (external URLs, images, source files).

use crate::facts::LinkTarget;

/// Classify an inline/reference/autolink destination written in the document at `doc_path`.
/// `None` for destinations that are not links between project nodes.
pub(crate) fn classify_destination(raw: &str, doc_path: &str) -> Option<LinkTarget> {
    let dest = raw.trim();
    let dest = dest.strip_prefix('<').and_then(|d| d.strip_suffix('>')).unwrap_or(dest).trim();
    if dest.is_empty() {
        return None;
    }
    if let Some(rest) = dest.strip_prefix("go:") {
        return (!rest.is_empty()).then(|| LinkTarget::Go(dest.to_string()));
    }
    if has_scheme(dest) || dest.starts_with("//") {
        return None;
    }
    let (before_fragment, fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, Some(percent_decode(f))),
        None => (dest, None),
    };
    let path_part = before_fragment.split_once('?').map_or(before_fragment, |(p, _)| p);
    let fragment = fragment.filter(|f| !f.is_empty());
    if path_part.is_empty() {
        return fragment.map(|f| LinkTarget::Path { path: doc_path.to_string(), fragment: Some(f) });
    }
    let decoded = percent_decode(path_part);
    let lower = decoded.to_ascii_lowercase();
    if !(lower.ends_with(".md") || lower.ends_with(".markdown") || lower.ends_with(".toml")) {
        return None;
    }
    Some(LinkTarget::Path { path: resolve_relative(doc_path, &decoded), fragment })
}

/// `scheme:` per CommonMark (2–32 chars, letter first). Windows drive letters (`C:`) are not
/// schemes but are not project-relative either; they fall out as unknown paths.
fn has_scheme(dest: &str) -> bool {
    let Some(colon) = dest.find(':') else { return false };
    let scheme = &dest[..colon];
    (2..=32).contains(&scheme.len())
        && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '.' | '-'))
}

/// Resolve `target` against the directory of `doc_path`. A leading `/` means the project
/// root. A path that climbs above the root keeps its leading `../` so it never matches.
pub(crate) fn resolve_relative(doc_path: &str, target: &str) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let mut escaped = 0usize;
    let rel = if let Some(abs) = target.strip_prefix('/') {
        abs
    } else {
        if let Some((dir, _)) = doc_path.rsplit_once('/') {
            parts.extend(dir.split('/').filter(|p| !p.is_empty() && *p != "."));
        }
        target
    };
    for part in rel.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    escaped += 1;
                }
            }
            p => parts.push(p),
        }
    }
    let mut out = "../".repeat(escaped);
    out.push_str(&parts.join("/"));
    out
}

/// Decode `%XX` escapes; malformed escapes and invalid UTF-8 are kept as written.
pub(crate) fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

/// Normalize a reference label for matching: case-folded, inner whitespace collapsed.
pub(crate) fn normalize_label(label: &str) -> String {
    let inner = label.trim().trim_start_matches('[').trim_end_matches(']');
    crate::text::collapse_whitespace(inner).to_lowercase()
}

/// A `[[target]]` / `[[target|label]]` found in the text.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct WikiLink {
    pub(crate) start: usize,
    pub(crate) inner: String,
    pub(crate) target: LinkTarget,
    pub(crate) label: String,
}

/// Scan `text` for wiki links outside the byte ranges in `excluded` (non-overlapping ranges,
/// any order). A wiki link stays on one line and contains no brackets.
pub(crate) fn scan_wiki_links(text: &str, doc_path: &str, excluded: &[(usize, usize)]) -> Vec<WikiLink> {
    let mut excluded = excluded.to_vec();
    excluded.sort_unstable();
    let is_excluded = |pos: usize| {
        let i = excluded.partition_point(|&(s, _)| s <= pos);
        i > 0 && pos < excluded[i - 1].1
    };
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find("[[") {
        let start = from + found;
        from = start + 2;
        if start > 0 && bytes[start - 1] == b'\\' {
            continue;
        }
        if is_excluded(start) {
            continue;
        }
        let body_start = start + 2;
        let Some(close) = text[body_start..].find("]]") else { break };
        let inner = &text[body_start..body_start + close];
        if inner.contains(['[', ']', '\n', '\r']) {
            continue;
        }
        let (target_text, label) = match inner.split_once('|') {
            Some((t, l)) => (t.trim(), l.trim()),
            None => (inner.trim(), inner.trim()),
        };
        if target_text.is_empty() {
            continue;
        }
        let target = if target_text.starts_with("go:") {
            LinkTarget::Go(target_text.to_string())
        } else if let Some(frag) = target_text.strip_prefix('#') {
            LinkTarget::Path { path: doc_path.to_string(), fragment: Some(frag.to_string()) }
        } else {
            match target_text.split_once('#') {
                Some((id, frag)) => LinkTarget::Id {
                    id: id.to_string(),
                    fragment: (!frag.is_empty()).then(|| frag.to_string()),
                },
                None => LinkTarget::Id { id: target_text.to_string(), fragment: None },
            }
        };
        out.push(WikiLink { start, inner: inner.to_string(), target, label: label.to_string() });
        from = body_start + close + 2;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(p: &str, f: Option<&str>) -> Option<LinkTarget> {
        Some(LinkTarget::Path { path: p.to_string(), fragment: f.map(str::to_string) })
    }

    #[test]
    fn destinations_are_classified() {
        let doc = "docs/arch/auth.md";
        let cases = [
            ("storage.md", path("docs/arch/storage.md", None)),
            ("./storage.md#read-path", path("docs/arch/storage.md", Some("read-path"))),
            ("../guide/start.md", path("docs/guide/start.md", None)),
            ("../../../up.md", path("../up.md", None)),
            ("/docs/top.md", path("docs/top.md", None)),
            ("<my%20doc.md>", path("docs/arch/my doc.md", None)),
            ("#token-rotation", path("docs/arch/auth.md", Some("token-rotation"))),
            ("glossary.toml", path("docs/arch/glossary.toml", None)),
            ("x.MD?plain=1#a", path("docs/arch/x.MD", Some("a"))),
            (
                "go:example.com/shop/storage::Repository",
                Some(LinkTarget::Go("go:example.com/shop/storage::Repository".into())),
            ),
            ("go:", None),
            ("https://example.com/a.md", None),
            ("mailto:someone@example.com", None),
            ("//cdn.example.com/a.md", None),
            ("diagram.png", None),
            ("../main.go", None),
            ("#", None),
            ("", None),
        ];
        for (raw, want) in cases {
            assert_eq!(classify_destination(raw, doc), want, "{raw}");
        }
    }

    #[test]
    fn percent_decoding_is_lossless_on_bad_input() {
        let cases = [("a%20b", "a b"), ("100%", "100%"), ("%zz", "%zz"), ("%C3%A9", "é"), ("%FF", "%FF")];
        for (raw, want) in cases {
            assert_eq!(percent_decode(raw), want, "{raw}");
        }
    }

    #[test]
    fn wiki_links_are_scanned_outside_excluded_ranges() {
        let text = "see [[arch.storage]] and [[arch.service#hooks|hooks]], \\[[escaped]], `[[code]]`, \
                    [[go:example.com/shop::X]], [[#local]], [[]], [[a\nb]] [[unclosed";
        let code_start = text.find("`[[code").unwrap();
        let got: Vec<(String, LinkTarget)> = scan_wiki_links(text, "d.md", &[(code_start, code_start + 10)])
            .into_iter()
            .map(|w| (w.label, w.target))
            .collect();
        let id = |i: &str, f: Option<&str>| LinkTarget::Id { id: i.into(), fragment: f.map(Into::into) };
        assert_eq!(
            got,
            vec![
                ("arch.storage".to_string(), id("arch.storage", None)),
                ("hooks".to_string(), id("arch.service", Some("hooks"))),
                ("go:example.com/shop::X".to_string(), LinkTarget::Go("go:example.com/shop::X".into())),
                ("#local".to_string(), path("d.md", Some("local")).unwrap()),
            ]
        );
    }

    #[test]
    fn labels_normalize() {
        assert_eq!(normalize_label("[Foo  Bar]"), "foo bar");
        assert_eq!(normalize_label("foo\nbar"), "foo bar");
    }
}
