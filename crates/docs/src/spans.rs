//! Byte spans and content hashes ([`NodeSpan`]) of documents, sections and TOML nodes.
//!
//! Offsets are computed on the text the parser reads and mapped back to the file's bytes
//! ([`Decoded`]): they differ only where the file is not valid UTF-8, and every offset a span
//! uses is a line boundary, the end of a BOM or the end of the file, none of which lies inside
//! an invalid byte sequence (those never contain a line ending).

use docforge_model::{ByteSpan, NodeSpan};
use sha2::{Digest, Sha256};
use std::borrow::Cow;

/// SHA-256 of `bytes`: a node's `content_sha256`.
pub fn content_sha256(bytes: &[u8]) -> [u8; 32] {
    Sha256::digest(bytes).into()
}

/// A file's bytes as text for parsing (invalid UTF-8 replaced as `String::from_utf8_lossy`
/// does), with the way back from text offsets to file offsets.
pub(crate) struct Decoded<'a> {
    pub(crate) text: Cow<'a, str>,
    pub(crate) bytes: &'a [u8],
    /// Each replacement character: its text offset, the file offset and length of the bytes
    /// it replaces. Empty for valid UTF-8.
    replaced: Vec<(usize, usize, usize)>,
}

impl<'a> Decoded<'a> {
    /// Text that is the file's content.
    pub(crate) fn text(text: &'a str) -> Self {
        Decoded { text: Cow::Borrowed(text), bytes: text.as_bytes(), replaced: Vec::new() }
    }

    /// A file's bytes, valid UTF-8 or not.
    pub(crate) fn bytes(bytes: &'a [u8]) -> Self {
        if let Ok(text) = std::str::from_utf8(bytes) {
            return Self::text(text);
        }
        let mut text = String::with_capacity(bytes.len() + 16);
        let mut replaced = Vec::new();
        let mut at = 0;
        for chunk in bytes.utf8_chunks() {
            text.push_str(chunk.valid());
            at += chunk.valid().len();
            if !chunk.invalid().is_empty() {
                replaced.push((text.len(), at, chunk.invalid().len()));
                text.push(char::REPLACEMENT_CHARACTER);
                at += chunk.invalid().len();
            }
        }
        Decoded { text: Cow::Owned(text), bytes, replaced }
    }

    /// The file offset of text offset `offset` (never inside a replacement character here).
    fn file_offset(&self, offset: usize) -> usize {
        match self.replaced.partition_point(|&(text_at, _, _)| text_at < offset).checked_sub(1) {
            None => offset,
            Some(i) => {
                let (text_at, file_at, len) = self.replaced[i];
                let after = text_at + char::REPLACEMENT_CHARACTER.len_utf8();
                file_at + len + offset.saturating_sub(after)
            }
        }
    }

    fn file_span(&self, span: ByteSpan) -> ByteSpan {
        ByteSpan::new(self.file_offset(span.start), self.file_offset(span.end))
    }

    /// The [`NodeSpan`] of text ranges `span` and its parts, in file offsets, with the hash of
    /// the file's bytes.
    pub(crate) fn node_span(&self, span: ByteSpan, parts: Parts) -> NodeSpan {
        let span = self.file_span(span);
        let bytes = span.slice(self.bytes).expect("a span inside the text is inside the file");
        NodeSpan {
            span,
            front_matter: parts.front_matter.map(|p| self.file_span(p)),
            heading: parts.heading.map(|p| self.file_span(p)),
            body: parts.body.map(|p| self.file_span(p)),
            content_sha256: content_sha256(bytes),
        }
    }
}

/// The parts of a node's span, in text offsets.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Parts {
    pub(crate) front_matter: Option<ByteSpan>,
    pub(crate) heading: Option<ByteSpan>,
    pub(crate) body: Option<ByteSpan>,
}

/// Whether `b` ends a line: Markdown's line endings are `\n`, `\r\n` and a lone `\r`.
fn is_line_ending(b: &u8) -> bool {
    matches!(b, b'\n' | b'\r')
}

/// The start of the line holding `offset`.
pub(crate) fn line_start(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    // The `\n` of a `\r\n` belongs to the line the `\r` ends.
    let within_crlf = offset > 0 && bytes.get(offset) == Some(&b'\n') && bytes[offset - 1] == b'\r';
    let before = if within_crlf { offset - 1 } else { offset };
    bytes[..before].iter().rposition(is_line_ending).map_or(0, |i| i + 1)
}

/// The end of the line holding `offset`, its line ending included (the end of the text on
/// the last line).
pub(crate) fn line_end(text: &str, offset: usize) -> usize {
    let bytes = text.as_bytes();
    match bytes[offset..].iter().position(is_line_ending) {
        None => bytes.len(),
        Some(i) if bytes[offset + i] == b'\r' && bytes.get(offset + i + 1) == Some(&b'\n') => offset + i + 2,
        Some(i) => offset + i + 1,
    }
}

/// One heading, for [`section_spans`]: its level, where its first line starts (no earlier
/// than `floor`, the end of a BOM) and where its last line ends.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeadingLines {
    pub(crate) level: u8,
    pub(crate) lines: ByteSpan,
}

/// Each section's span (its heading line to just before the next heading of the same or a
/// higher level, or the end of the text) and parts: the heading's lines and the body up to
/// the next heading of any level.
pub(crate) fn section_spans(heads: &[HeadingLines], len: usize) -> Vec<(ByteSpan, Parts)> {
    // Headings are disjoint lines in document order; clamping keeps them so whatever the
    // parser reports, so that no span can run backwards.
    let mut at = 0;
    let heads: Vec<HeadingLines> = heads
        .iter()
        .map(|h| {
            let start = h.lines.start.clamp(at, len);
            at = h.lines.end.clamp(start, len);
            HeadingLines { level: h.level, lines: ByteSpan::new(start, at) }
        })
        .collect();
    let mut out = Vec::with_capacity(heads.len());
    for (i, h) in heads.iter().enumerate() {
        let later = &heads[i + 1..];
        let end = later.iter().find(|n| n.level <= h.level).map_or(len, |n| n.lines.start);
        let body_end = later.first().map_or(len, |n| n.lines.start);
        let parts = Parts {
            heading: Some(h.lines),
            body: Some(ByteSpan::new(h.lines.end, body_end)),
            front_matter: None,
        };
        out.push((ByteSpan::new(h.lines.start, end), parts));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invalid_utf8_decodes_as_lossy_and_maps_line_boundaries_back() {
        let cases: &[&[u8]] = &[
            b"# A\n\xff\xfe\n# B\n",
            b"\xe2\x82\n# A\r\nx\xc3\n## B",
            b"ok\n",
            b"\xf0\x9f\x98\n\xf0\x9f\x98\x80\n\x80\x80\x80\n# Z",
        ];
        for bytes in cases {
            let d = Decoded::bytes(bytes);
            assert_eq!(d.text, String::from_utf8_lossy(bytes), "{bytes:?}");
            let text_lines: Vec<usize> =
                d.text.match_indices('\n').map(|(i, _)| i + 1).chain([0, d.text.len()]).collect();
            let file_lines: Vec<usize> = bytes
                .iter()
                .enumerate()
                .filter(|(_, b)| **b == b'\n')
                .map(|(i, _)| i + 1)
                .chain([0, bytes.len()])
                .collect();
            let mapped: Vec<usize> = text_lines.iter().map(|&o| d.file_offset(o)).collect();
            assert_eq!(mapped, file_lines, "{bytes:?}");
        }
    }

    #[test]
    fn lines_around_an_offset() {
        // `\r\n`, `\n` and a lone `\r` each end a line.
        let text = "ab\r\ncd\nef\rgh";
        let cases =
            [(0, 0, 4), (3, 0, 4), (4, 4, 7), (6, 4, 7), (7, 7, 10), (9, 7, 10), (10, 10, 12), (12, 10, 12)];
        for (offset, start, end) in cases {
            assert_eq!((line_start(text, offset), line_end(text, offset)), (start, end), "{offset}");
        }
    }
}
