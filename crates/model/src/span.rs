//! [`NodeSpan`]: where a document, section or TOML node's bytes are in its file, and their
//! SHA-256, as node attributes.
//!
//! The attributes (a stable format; every offset is a byte offset into the file as stored,
//! every range half-open, written `START..END` in decimal):
//!
//! | key | on | value |
//! | --- | --- | --- |
//! | `span` | document, section, TOML node | the node's bytes |
//! | `span.front_matter` | document with front matter | the `+++` block, both fence lines and the closing line's line ending included |
//! | `span.heading` | section | the heading's lines (one ATX line, or the text and underline lines of a setext heading), line ending included |
//! | `span.body` | document, section | a document: everything after the front matter; a section: after its heading up to its first subsection (or its end) |
//! | `content_sha256` | document, section, TOML node | SHA-256 (64 lowercase hex digits) of exactly the bytes of `span` |
//!
//! So slicing the file by `span` and hashing the slice gives `content_sha256` — what a writer
//! needs to rewrite one node's bytes and prove which bytes it replaced.

use crate::Attrs;
use std::fmt;
use std::str::FromStr;

/// A half-open byte range `start..end` in a file, written `START..END` (decimal).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSpan {
    pub start: usize,
    pub end: usize,
}

impl ByteSpan {
    /// `start..end`; `start` must not exceed `end`.
    pub fn new(start: usize, end: usize) -> Self {
        debug_assert!(start <= end, "span {start}..{end}");
        ByteSpan { start, end }
    }

    pub fn len(self) -> usize {
        self.end - self.start
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }

    /// Whether `inner` lies within this span (an empty span at either end included).
    pub fn contains(self, inner: ByteSpan) -> bool {
        self.start <= inner.start && inner.end <= self.end
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start..self.end
    }

    /// The bytes of this span in `file`; `None` when it reaches past the end.
    pub fn slice(self, file: &[u8]) -> Option<&[u8]> {
        file.get(self.range())
    }
}

impl fmt::Display for ByteSpan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// Why a span or hash attribute cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpanAttrError {
    /// The attribute key (`span`, `span.body`, …).
    pub key: String,
    /// What is wrong with it.
    pub problem: String,
}

impl fmt::Display for SpanAttrError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "attribute `{}`: {}", self.key, self.problem)
    }
}

impl std::error::Error for SpanAttrError {}

/// A canonical decimal: digits only, no sign, no leading zero (except `0` itself).
fn decimal(s: &str) -> Option<usize> {
    let canonical =
        !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) && (s == "0" || !s.starts_with('0'));
    canonical.then(|| s.parse().ok()).flatten()
}

impl FromStr for ByteSpan {
    type Err = String;

    /// Exactly the form [`Display`](fmt::Display) writes: `START..END`, `START <= END`.
    fn from_str(s: &str) -> Result<Self, String> {
        let (start, end) = s.split_once("..").ok_or_else(|| format!("`{s}` is not `START..END`"))?;
        match (decimal(start), decimal(end)) {
            (Some(start), Some(end)) if start <= end => Ok(ByteSpan { start, end }),
            (Some(_), Some(_)) => Err(format!("`{s}` ends before it starts")),
            _ => Err(format!("`{s}` is not `START..END` with decimal byte offsets")),
        }
    }
}

/// The span attributes of one document, section or TOML node (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NodeSpan {
    /// `span`: the node's bytes.
    pub span: ByteSpan,
    /// `span.front_matter`: a document's `+++` block, when it has one.
    pub front_matter: Option<ByteSpan>,
    /// `span.heading`: a section's heading lines.
    pub heading: Option<ByteSpan>,
    /// `span.body`: a document's bytes after its front matter; a section's own content.
    pub body: Option<ByteSpan>,
    /// `content_sha256`: SHA-256 of the bytes of `span`.
    pub content_sha256: [u8; 32],
}

impl NodeSpan {
    pub const SPAN: &'static str = "span";
    pub const FRONT_MATTER: &'static str = "span.front_matter";
    pub const HEADING: &'static str = "span.heading";
    pub const BODY: &'static str = "span.body";
    pub const CONTENT_SHA256: &'static str = "content_sha256";
    /// Every attribute key this type reads and writes.
    pub const KEYS: [&'static str; 5] =
        [Self::SPAN, Self::FRONT_MATTER, Self::HEADING, Self::BODY, Self::CONTENT_SHA256];

    /// Whether a front-matter key would collide with these attributes: the keys above and
    /// any other `span.*` key (kept free for later parts).
    pub fn is_reserved_key(key: &str) -> bool {
        Self::KEYS.contains(&key) || key.starts_with("span.")
    }

    /// `content_sha256` as written: 64 lowercase hex digits.
    pub fn content_sha256_hex(&self) -> String {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = String::with_capacity(64);
        for b in self.content_sha256 {
            out.push(HEX[usize::from(b >> 4)] as char);
            out.push(HEX[usize::from(b & 0xf)] as char);
        }
        out
    }

    fn parts(&self) -> [(&'static str, Option<ByteSpan>); 3] {
        [(Self::FRONT_MATTER, self.front_matter), (Self::HEADING, self.heading), (Self::BODY, self.body)]
    }

    /// Write these attributes into `attrs`, removing a part this span does not have.
    pub fn write_to(&self, attrs: &mut Attrs) {
        attrs.insert(Self::SPAN.to_string(), self.span.to_string());
        attrs.insert(Self::CONTENT_SHA256.to_string(), self.content_sha256_hex());
        for (key, part) in self.parts() {
            match part {
                Some(part) => attrs.insert(key.to_string(), part.to_string()),
                None => attrs.remove(key),
            };
        }
    }

    /// Read the attributes back. `Ok(None)` when the node has none of them (a Go node, a
    /// file that could not be read); an error when they are incomplete, malformed, or a part
    /// lies outside `span`.
    pub fn from_attrs(attrs: &Attrs) -> Result<Option<NodeSpan>, SpanAttrError> {
        if !Self::KEYS.iter().any(|k| attrs.contains_key(k)) {
            return Ok(None);
        }
        let error = |key: &str, problem: String| SpanAttrError { key: key.to_string(), problem };
        let span_at = |key: &str| -> Result<Option<ByteSpan>, SpanAttrError> {
            attrs.get(key).map(|v| v.parse().map_err(|p| error(key, p))).transpose()
        };
        let span = span_at(Self::SPAN)?.ok_or_else(|| error(Self::SPAN, "missing".into()))?;
        let hex =
            attrs.get(Self::CONTENT_SHA256).ok_or_else(|| error(Self::CONTENT_SHA256, "missing".into()))?;
        let content_sha256 = parse_sha256(hex)
            .ok_or_else(|| error(Self::CONTENT_SHA256, format!("`{hex}` is not 64 lowercase hex digits")))?;
        let out = NodeSpan {
            span,
            front_matter: span_at(Self::FRONT_MATTER)?,
            heading: span_at(Self::HEADING)?,
            body: span_at(Self::BODY)?,
            content_sha256,
        };
        for (key, part) in out.parts() {
            if let Some(part) = part.filter(|p| !span.contains(*p)) {
                return Err(error(key, format!("{part} lies outside the node's span {span}")));
            }
        }
        Ok(Some(out))
    }
}

fn parse_sha256(hex: &str) -> Option<[u8; 32]> {
    let digit = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let bytes = hex.as_bytes();
    if bytes.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in bytes.chunks_exact(2).enumerate() {
        out[i] = digit(pair[0])? << 4 | digit(pair[1])?;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn attrs(pairs: &[(&str, &str)]) -> Attrs {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    const HASH: &str = "00ff1e2d3c4b5a69788796a5b4c3d2e1f0112233445566778899aabbccddeeff";

    #[test]
    fn byte_spans_read_exactly_what_they_write() {
        let ok = [("0..0", 0, 0), ("3..17", 3, 17), ("10..10", 10, 10), ("0..12345678901", 0, 12345678901)];
        for (text, start, end) in ok {
            let span: ByteSpan = text.parse().unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!((span.start, span.end), (start, end), "{text}");
            assert_eq!(span.to_string(), text);
        }
        let bad = [
            "", "3", "3..", "..3", "3...4", "4..3", "-1..3", "+1..3", "01..3", "1..03", " 1..3", "1..3 ",
            "a..b",
        ];
        for text in bad {
            assert!(text.parse::<ByteSpan>().is_err(), "{text:?} must not parse");
        }
    }

    #[test]
    fn node_spans_round_trip_through_attributes() {
        let mut hash = [0u8; 32];
        hash[0] = 0xab;
        hash[31] = 0x01;
        let cases = [
            NodeSpan { span: ByteSpan::new(0, 40), content_sha256: hash, ..NodeSpan::default() },
            NodeSpan {
                span: ByteSpan::new(0, 40),
                front_matter: Some(ByteSpan::new(3, 20)),
                body: Some(ByteSpan::new(20, 40)),
                content_sha256: hash,
                ..NodeSpan::default()
            },
            NodeSpan {
                span: ByteSpan::new(20, 35),
                heading: Some(ByteSpan::new(20, 26)),
                body: Some(ByteSpan::new(26, 30)),
                content_sha256: hash,
                ..NodeSpan::default()
            },
        ];
        for span in cases {
            // Other attributes and stale parts from an earlier value are left / removed.
            let mut a = attrs(&[("level", "2"), ("span.front_matter", "0..1")]);
            span.write_to(&mut a);
            assert_eq!(a["level"], "2");
            assert_eq!(a[NodeSpan::CONTENT_SHA256].len(), 64);
            assert!(
                a[NodeSpan::CONTENT_SHA256].starts_with("ab") && a[NodeSpan::CONTENT_SHA256].ends_with("01")
            );
            assert_eq!(NodeSpan::from_attrs(&a), Ok(Some(span.clone())));
        }
    }

    #[test]
    fn the_written_form_is_stable() {
        let span = NodeSpan {
            span: ByteSpan::new(12, 50),
            heading: Some(ByteSpan::new(12, 20)),
            body: Some(ByteSpan::new(20, 31)),
            content_sha256: parse_sha256(HASH).unwrap(),
            ..NodeSpan::default()
        };
        let mut a = Attrs::new();
        span.write_to(&mut a);
        let written: Vec<String> = a.iter().map(|(k, v)| format!("{k} = {v}")).collect();
        assert_eq!(
            written,
            [
                format!("content_sha256 = {HASH}"),
                "span = 12..50".to_string(),
                "span.body = 20..31".to_string(),
                "span.heading = 12..20".to_string(),
            ]
        );
    }

    #[test]
    fn bad_span_attributes_are_errors_naming_the_key() {
        let cases: &[(&[(&str, &str)], &str)] = &[
            (&[("content_sha256", HASH)], "span"),
            (&[("span", "0..4")], "content_sha256"),
            (&[("span", "0..4"), ("content_sha256", "abc")], "content_sha256"),
            (&[("span", "0..4"), ("content_sha256", &"AB".repeat(32))], "content_sha256"),
            (&[("span", "4..0"), ("content_sha256", HASH)], "span"),
            (&[("span", "0..4"), ("content_sha256", HASH), ("span.body", "2..5")], "span.body"),
            (&[("span", "2..4"), ("content_sha256", HASH), ("span.heading", "1..3")], "span.heading"),
            (&[("span", "0..4"), ("content_sha256", HASH), ("span.front_matter", "x")], "span.front_matter"),
            (&[("span.body", "0..1")], "span"),
        ];
        for (pairs, key) in cases {
            let err = NodeSpan::from_attrs(&attrs(pairs)).expect_err(&format!("{pairs:?}"));
            assert_eq!(err.key, *key, "{pairs:?}: {err}");
        }
        let none = attrs(&[("level", "1"), ("kind", "design")]);
        assert_eq!(NodeSpan::from_attrs(&none), Ok(None));
    }

    #[test]
    fn reserved_keys() {
        for key in ["span", "span.body", "span.front_matter", "span.heading", "span.other", "content_sha256"]
        {
            assert!(NodeSpan::is_reserved_key(key), "{key}");
        }
        for key in ["spans", "spanx", "content_sha", "kind", "owner", "sha256"] {
            assert!(!NodeSpan::is_reserved_key(key), "{key}");
        }
    }

    #[test]
    fn slices_stay_inside_the_file() {
        let file = b"0123456789";
        assert_eq!(ByteSpan::new(2, 5).slice(file), Some(&b"234"[..]));
        assert_eq!(ByteSpan::new(10, 10).slice(file), Some(&b""[..]));
        assert_eq!(ByteSpan::new(8, 11).slice(file), None);
        assert!(ByteSpan::new(0, 10).contains(ByteSpan::new(10, 10)));
        assert!(!ByteSpan::new(2, 10).contains(ByteSpan::new(1, 3)));
    }
}
