//! A Go file's outline: what another package can see of it, as Go text. Up to the package
//! clause the file's own text (build constraints are there); from it on, the file's tokens
//! with the inside of every function and method body left out (`func F() {}`), comments
//! left out, and each gap between two tokens written as one line break when it held one,
//! else one space. Parsing the outline gives the file's package clause, imports,
//! declarations and signatures — except where they are: positions move — and typing inside
//! a body, in a comment or in the layout leaves the outline unchanged.

use docforge_syntax::tree_sitter::{Node, Tree};

/// The outline of `source`, parsed as `tree`; `None` when leaving parts out could change
/// what the declarations parse to or whether their signatures are trusted: an error outside
/// every function body, or in a body whose extent is not certainly its own, a body whose
/// braces are not both in the source, or no package clause (then the whole text is the
/// outline).
pub fn outline_text(tree: &Tree, source: &[u8]) -> Option<Vec<u8>> {
    let root = tree.root_node();
    // The signature extractor's rule: an error is harmless only inside a function body whose
    // extent is certainly its own (else the parse may have folded a following declaration
    // into it, and the file's signatures are not trusted).
    if crate::sig::errors_outside_bodies(root, source) {
        return None;
    }
    let mut cursor = root.walk();
    let mut decls = root.children(&mut cursor).skip_while(|d| d.kind() != "package_clause").peekable();
    let package = decls.peek()?;
    let mut w = Tokens { source, out: source[..package.start_byte()].to_vec(), end: None };
    for decl in decls {
        w.node(decl)?;
    }
    w.out.push(b'\n');
    Some(w.out)
}

/// The outline's tokens, written as they come.
struct Tokens<'s> {
    source: &'s [u8],
    out: Vec<u8>,
    /// Where the last written token ends in the source.
    end: Option<usize>,
}

impl Tokens<'_> {
    fn node(&mut self, node: Node<'_>) -> Option<()> {
        match node.kind() {
            "comment" => return Some(()),
            "interpreted_string_literal" | "raw_string_literal" | "rune_literal" => {
                self.token(node.start_byte(), node.end_byte());
                return Some(());
            }
            _ if node.child_count() == 0 => {
                self.token(node.start_byte(), node.end_byte());
                return Some(());
            }
            _ => {}
        }
        let body = matches!(node.kind(), "function_declaration" | "method_declaration")
            .then(|| node.child_by_field_name("body"))
            .flatten();
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            if Some(child) == body {
                let (open, close) = braces(child)?;
                self.token(open.start_byte(), open.end_byte());
                self.out.push(b'}');
                self.end = Some(close.end_byte());
            } else {
                self.node(child)?;
            }
        }
        Some(())
    }

    fn token(&mut self, start: usize, end: usize) {
        if let Some(last) = self.end {
            let gap = &self.source[last..start];
            if gap.contains(&b'\n') {
                self.out.push(b'\n');
            } else if !gap.is_empty() {
                self.out.push(b' ');
            }
        }
        self.out.extend_from_slice(&self.source[start..end]);
        self.end = Some(end);
    }
}

/// The opening and closing brace of a function body, when both are real tokens.
fn braces(body: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    let n = body.child_count();
    let (open, close) = (body.child(0)?, body.child(n.checked_sub(1)?)?);
    let real = |node: Node<'_>, kind: &str| node.kind() == kind && !node.is_missing();
    (n >= 2 && real(open, "{") && real(close, "}")).then_some((open, close))
}

#[cfg(test)]
mod tests {
    use super::*;
    use docforge_syntax::{AstGate, AstPolicy};

    fn outline(src: &str) -> Option<String> {
        let gate = AstGate::new(AstPolicy::Allow);
        let go = gate.go().unwrap();
        let tree = go.parse(src.as_bytes());
        outline_text(&tree, src.as_bytes()).map(|o| String::from_utf8(o).unwrap())
    }

    #[test]
    fn bodies_comments_and_layout_are_left_out() {
        let src =
            "package p\n\n// F does.\nfunc F(x int) (y struct{ a int }) { y.a = g(x) // é\n\treturn\n}\n\n\
                   var v = func() int { return 1 }()\n\nfunc (t *T) M() {}\n";
        let want = "package p\nfunc F(x int) (y struct{ a int }) {}\nvar v = func() int { return 1 }()\n\
                    func (t *T) M() {}\n";
        assert_eq!(outline(src).unwrap(), want);
        // Typing inside a body, a comment or the layout changes nothing.
        for edited in [
            src.replace("return\n", "return\n\tx := 1\n"),
            src.replace("F does.", "F does things.\n// More."),
            src.replace("\n\nvar v", "\n\n\n  var   v"),
        ] {
            assert_eq!(outline(&edited).unwrap(), want);
        }
    }

    #[test]
    fn the_header_stays_and_line_breaks_stay_line_breaks() {
        let src = "//go:build linux\n\n// Package p.\npackage p // p\n\ntype S struct {\n\tA int // a\n\
                   \tB /* b */ string `json:\"b, x\"`\n}\n\nvar a = 1 /* one\n two */ var b = `x\n  y`\n";
        let want = "//go:build linux\n\n// Package p.\npackage p\ntype S struct {\nA int\nB string `json:\"b, x\"`\n}\n\
                    var a = 1\nvar b = `x\n  y`\n";
        assert_eq!(outline(src).unwrap(), want);
    }

    #[test]
    fn an_error_inside_a_body_is_left_out_with_it() {
        let out = outline("package p\n\nfunc F() {\n\tx := \n}\n\nfunc G() {}\n").unwrap();
        assert!(!out.contains(":="), "{out}");
        assert!(out.contains("func G() {}"), "{out}");
    }

    #[test]
    fn errors_outside_bodies_or_a_missing_brace_give_no_outline() {
        for src in [
            "package p\n\nfunc F( {\n}\n",
            "package p\n\nvar x = \n\nfunc F() {}\n",
            "package p\n\nfunc F() {\n\tif x {\n",
            "package p\n\ntype T struct {\n",
        ] {
            assert_eq!(outline(src), None, "{src}");
        }
    }
}
