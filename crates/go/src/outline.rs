//! A Go file's outline: its text with the inside of every function and method body left out
//! (`func F() {}`). Parsing the outline gives the file's package clause, imports,
//! declarations and signatures — everything another package can see of it, except where
//! the declarations are: positions after a body move — and typing inside a body leaves the
//! outline unchanged.

use docforge_syntax::tree_sitter::{Node, Tree};

/// The outline of `source`, parsed as `tree`; `None` when blanking could change what the
/// declarations parse to: an error outside every function body, or a body whose braces are
/// not both in the source (then the whole text is the outline).
pub fn outline_text(tree: &Tree, source: &[u8]) -> Option<Vec<u8>> {
    let root = tree.root_node();
    let mut out = Vec::with_capacity(source.len());
    let mut copied = 0;
    let mut cursor = root.walk();
    for decl in root.children(&mut cursor) {
        let body = matches!(decl.kind(), "function_declaration" | "method_declaration")
            .then(|| decl.child_by_field_name("body"))
            .flatten();
        let Some(body) = body else {
            if decl.has_error() {
                return None;
            }
            continue;
        };
        let mut parts = decl.walk();
        if decl.children(&mut parts).any(|part| part.id() != body.id() && part.has_error()) {
            return None;
        }
        let (open, close) = braces(body)?;
        out.extend_from_slice(&source[copied..open.end_byte()]);
        copied = close.start_byte();
    }
    out.extend_from_slice(&source[copied..]);
    Some(out)
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
    fn bodies_are_left_out_and_everything_else_stays() {
        let src =
            "package p\n\n// F does.\nfunc F(x int) (y struct{ a int }) { y.a = g(x) // é\n\treturn\n}\n\n\
                   var v = func() int { return 1 }()\n\nfunc (t *T) M() {}\n";
        let want = "package p\n\n// F does.\nfunc F(x int) (y struct{ a int }) {}\n\n\
                    var v = func() int { return 1 }()\n\nfunc (t *T) M() {}\n";
        assert_eq!(outline(src).unwrap(), want);
        // Typing inside a body changes nothing.
        assert_eq!(outline(&src.replace("return\n", "return\n\tx := 1\n")).unwrap(), want);
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
