//! Positions and paths between LSP and the engine: URIs ↔ project-relative paths, LSP
//! positions (UTF-16 code units unless UTF-8 was negotiated) ↔ byte columns (1-based in
//! engine spans, 0-based in `docforge_ide` positions and ranges).

use docforge_db::Span;
use docforge_ide::LineRange;
use lsp_types::{Position, Range, Uri};
use std::path::Path;
use std::str::FromStr;

/// How the client counts characters in a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    Utf8,
    Utf16,
}

/// The LSP `character` of a 1-based byte column in `line` (clamped to the line).
pub fn character(line: &str, column: u32, enc: Encoding) -> u32 {
    let mut byte = (column.max(1) as usize - 1).min(line.len());
    while !line.is_char_boundary(byte) {
        byte -= 1;
    }
    match enc {
        Encoding::Utf8 => byte as u32,
        Encoding::Utf16 => line[..byte].encode_utf16().count() as u32,
    }
}

/// The 1-based byte column of an LSP `character` in `line` (clamped to the line end).
pub fn column(line: &str, character: u32, enc: Encoding) -> u32 {
    let byte = match enc {
        Encoding::Utf8 => {
            let mut b = (character as usize).min(line.len());
            while !line.is_char_boundary(b) {
                b -= 1;
            }
            b
        }
        Encoding::Utf16 => {
            let mut units = 0u32;
            let mut byte = line.len();
            for (i, c) in line.char_indices() {
                if units >= character {
                    byte = i;
                    break;
                }
                units += c.len_utf16() as u32;
            }
            byte
        }
    };
    byte as u32 + 1
}

/// The byte offset of an LSP position in `text`.
pub fn offset(text: &str, pos: Position, enc: Encoding) -> usize {
    let mut start = 0;
    for _ in 0..pos.line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len(),
        }
    }
    let line_end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    start + column(&text[start..line_end], pos.character, enc) as usize - 1
}

/// The LSP range of a span, given its file's lines.
pub fn range(lines: &[&str], span: &Span, enc: Encoding) -> Range {
    let l = span.line.saturating_sub(1);
    let text = lines.get(l as usize).copied().unwrap_or("");
    Range::new(
        Position::new(l, character(text, span.start, enc)),
        Position::new(l, character(text, span.end, enc)),
    )
}

/// The LSP range of an engine range (0-based byte columns) on a line whose text is `line`.
pub fn line_range(line: &str, r: &LineRange, enc: Encoding) -> Range {
    Range::new(
        Position::new(r.line, character(line, r.start + 1, enc)),
        Position::new(r.line, character(line, r.end + 1, enc)),
    )
}

/// The project-relative path of a `file:` URI under `root`.
pub fn rel_path(root: &Path, uri: &Uri) -> Option<String> {
    let path = uri_path(uri)?;
    rel_under(root, &path).or_else(|| rel_under(root, &path.canonicalize().ok()?))
}

/// The `/`-separated path of `path` relative to `root` (none when outside, or `root` itself).
pub fn rel_under(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?.to_str()?.replace('\\', "/");
    (!rel.is_empty()).then_some(rel)
}

/// The `file:` URI of a project-relative path.
pub fn uri(root: &Path, rel: &str) -> Uri {
    file_uri(&root.join(rel))
}

/// The `file:` URI of an absolute path.
pub fn file_uri(abs: &Path) -> Uri {
    let mut s = String::from("file://");
    for b in abs.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    Uri::from_str(&s).expect("percent-encoded file URIs parse")
}

/// The path of a `file:` URI.
pub fn uri_path(uri: &Uri) -> Option<std::path::PathBuf> {
    uri.as_str().strip_prefix("file://").map(|s| percent_decode(s).into())
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_and_utf8_positions_round_trip_through_byte_columns() {
        let line = "aé𝄞b";
        // bytes: a=1, é=2..3, 𝄞=4..7, b=8
        assert_eq!(character(line, 8, Encoding::Utf16), 4);
        assert_eq!(character(line, 8, Encoding::Utf8), 7);
        assert_eq!(column(line, 4, Encoding::Utf16), 8);
        assert_eq!(column(line, 7, Encoding::Utf8), 8);
        assert_eq!(column(line, 99, Encoding::Utf16), line.len() as u32 + 1);
        assert_eq!(offset("x\naé𝄞b", Position::new(1, 2), Encoding::Utf16), 5);
    }

    #[test]
    fn uris_map_to_project_paths() {
        let root = Path::new("/p/my root");
        let u = uri(root, "docs/a b.md");
        assert_eq!(u.as_str(), "file:///p/my%20root/docs/a%20b.md");
        assert_eq!(rel_path(root, &u).as_deref(), Some("docs/a b.md"));
    }
}
