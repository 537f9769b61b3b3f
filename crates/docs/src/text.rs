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

/// A node's search text: the pieces of its prose (and code) in document order, one per line.
/// Whole: nothing is cut, so search covers every word and `docforge_get_node` pages the rest.
#[derive(Debug, Default)]
pub(crate) struct Summary {
    text: String,
}

impl Summary {
    /// Append a piece (separated by a newline from the previous one).
    pub(crate) fn push(&mut self, piece: &str) {
        if piece.is_empty() {
            return;
        }
        if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text.push_str(piece);
    }

    pub(crate) fn into_string(self) -> String {
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_keeps_every_piece_whole() {
        let mut s = Summary::default();
        s.push("ab");
        s.push("");
        let long = "é".repeat(5000);
        s.push(&long);
        assert_eq!(s.into_string(), format!("ab\n{long}"));
    }

    #[test]
    fn whitespace_collapses() {
        assert_eq!(collapse_whitespace("  a \t b\r\n c  "), "a b c");
    }
}
