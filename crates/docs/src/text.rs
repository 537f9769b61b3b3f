//! Plain text from inline trees, and bounded summaries for lexical search.

use tree_sitter::Node;

/// Plain text of an inline-grammar node: link text without destinations, code spans without
/// backticks, emphasis without delimiters, HTML tags dropped; whitespace collapsed.
pub(crate) fn inline_plain_text(node: Node<'_>, src: &str) -> String {
    let mut raw = String::new();
    push_plain(node, src, &mut raw);
    collapse_whitespace(&raw)
}

fn slice(src: &str, start: usize, end: usize) -> &str {
    src.get(start..end).unwrap_or("")
}

fn push_plain(node: Node<'_>, src: &str, out: &mut String) {
    match node.kind() {
        "inline_link" | "full_reference_link" | "collapsed_reference_link" | "shortcut_link" | "image" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                if matches!(child.kind(), "link_text" | "image_description") {
                    push_plain(child, src, out);
                }
            }
        }
        "code_span" => {
            let text = slice(src, node.start_byte(), node.end_byte());
            out.push_str(text.trim_matches('`'));
        }
        "uri_autolink" | "email_autolink" => {
            let text = slice(src, node.start_byte(), node.end_byte());
            out.push_str(text.trim_start_matches('<').trim_end_matches('>'));
        }
        "backslash_escape" => out.push_str(slice(src, node.start_byte() + 1, node.end_byte())),
        "hard_line_break" => out.push(' '),
        "html_tag"
        | "emphasis_delimiter"
        | "code_span_delimiter"
        | "link_destination"
        | "link_title"
        | "link_label"
        | "latex_span_delimiter" => {}
        _ => {
            let mut pos = node.start_byte();
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                out.push_str(slice(src, pos, child.start_byte()));
                if child.is_named() {
                    push_plain(child, src, out);
                } else {
                    out.push_str(slice(src, child.start_byte(), child.end_byte()));
                }
                pos = child.end_byte();
            }
            out.push_str(slice(src, pos, node.end_byte()));
        }
    }
}

/// Runs of whitespace become one space; leading/trailing whitespace is removed.
pub(crate) fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// A text buffer that stops growing at `max_chars` characters.
#[derive(Debug)]
pub(crate) struct Summary {
    text: String,
    chars: usize,
    max_chars: usize,
}

impl Summary {
    pub(crate) fn new(max_chars: usize) -> Self {
        Summary { text: String::new(), chars: 0, max_chars }
    }

    pub(crate) fn is_full(&self) -> bool {
        self.chars >= self.max_chars
    }

    /// Append a piece (separated by a newline from the previous one), truncated at the cap.
    pub(crate) fn push(&mut self, piece: &str) {
        if piece.is_empty() || self.is_full() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
            self.chars += 1;
        }
        for c in piece.chars() {
            if self.is_full() {
                break;
            }
            self.text.push(c);
            self.chars += 1;
        }
    }

    pub(crate) fn into_string(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_is_bounded_by_chars() {
        let mut s = Summary::new(5);
        s.push("ab");
        s.push("");
        s.push("éééé");
        assert!(s.is_full());
        s.push("more");
        assert_eq!(s.into_string(), "ab\néé");
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_whitespace("  a \t b\r\n c  "), "a b c");
    }
}
