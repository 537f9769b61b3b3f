//! Link reference definitions that tree-sitter-md does not see.
//!
//! Its block scanner takes `[x]` / `[X]` at the start of a line for a task-list checkbox even
//! outside a list, so `[x]: other.md` — and every definition on the lines after it, which
//! then continue a paragraph — come out as paragraph text, and `[see][x]` finds no
//! definition. (Any other label is read correctly.) For a paragraph that starts like that,
//! the definitions at its start are read here, per CommonMark, one per line: a label of at
//! most 999 characters without unescaped brackets, `:`, a destination (`<…>`, or text without
//! spaces or control characters whose parentheses balance) and an optional title (`"…"`,
//! `'…'` or `(…)`) on the same line, then nothing but spaces. Reading stops at the first line
//! that is not one; what follows is the paragraph's own text. (CommonMark also lets a
//! destination or title start on the next line; such a definition is left as text, as
//! before.)

/// The definitions read from the start of a paragraph, with how many bytes of its text they
/// take (whole lines, line endings included).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Leading<'s> {
    /// `(label with its brackets, destination as written)`, in order.
    pub(crate) definitions: Vec<(&'s str, &'s str)>,
    pub(crate) consumed: usize,
}

/// The definitions at the start of `text` (a paragraph's text), if its first line starts with
/// `[x]:` or `[X]:` (the case tree-sitter-md misreads); `None` otherwise.
pub(crate) fn missed_definitions(text: &str) -> Option<Leading<'_>> {
    let first = text.trim_start_matches(' ');
    if !(first.starts_with("[x]:") || first.starts_with("[X]:")) {
        return None;
    }
    let mut definitions = Vec::new();
    let mut at = 0;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
        match definition(&text[at..end]) {
            Some(d) => definitions.push(d),
            None => break,
        }
        at = end;
    }
    (!definitions.is_empty()).then_some(Leading { definitions, consumed: at })
}

/// One whole-line definition: `(label with brackets, destination)`.
fn definition(line: &str) -> Option<(&str, &str)> {
    let body = line.trim_end_matches(['\n', '\r']);
    let rest = body.trim_start_matches(' ');
    if body.len() - rest.len() > 3 || !rest.starts_with('[') {
        return None;
    }
    let close = 1 + scan(&rest[1..], ']', Some('['))?;
    let label = &rest[..=close];
    let inner = &label[1..label.len() - 1];
    if inner.trim().is_empty() || inner.chars().count() > 999 {
        return None;
    }
    let after = rest[close + 1..].strip_prefix(':')?;
    let at_dest = after.trim_start_matches([' ', '\t']);
    let (destination, tail) = if let Some(angled) = at_dest.strip_prefix('<') {
        let end = 1 + scan(angled, '>', Some('<'))?;
        at_dest.split_at(end + 1)
    } else {
        let end = bare_destination(at_dest)?;
        at_dest.split_at(end)
    };
    let title = tail.trim_start_matches([' ', '\t']);
    if title.is_empty() {
        return Some((label, destination));
    }
    if title.len() == tail.len() {
        return None; // a title must be set off by whitespace
    }
    let (open, close) = match title.as_bytes()[0] {
        b'"' => ('"', '"'),
        b'\'' => ('\'', '\''),
        b'(' => ('(', ')'),
        _ => return None,
    };
    let forbidden = (open == '(').then_some('(');
    let end = 1 + scan(&title[1..], close, forbidden)?;
    title[end + 1..].trim_matches([' ', '\t']).is_empty().then_some((label, destination))
}

/// The byte offset of the first unescaped `close` in `s`; `None` if there is none or an
/// unescaped `forbidden` comes first.
fn scan(s: &str, close: char, forbidden: Option<char>) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
        } else if c == '\\' {
            escaped = true;
        } else if c == close {
            return Some(i);
        } else if Some(c) == forbidden {
            return None;
        }
    }
    None
}

/// The length of a destination without angle brackets at the start of `s`: no spaces or
/// control characters, parentheses balanced unless escaped; `None` when there is none.
fn bare_destination(s: &str) -> Option<usize> {
    let (mut depth, mut escaped) = (0u32, false);
    for (i, c) in s.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        match c {
            '\\' => escaped = true,
            '(' => depth += 1,
            ')' => depth = depth.checked_sub(1)?,
            ' ' | '\t' => return (depth == 0 && i > 0).then_some(i),
            c if c.is_ascii_control() => return None,
            _ => {}
        }
    }
    (depth == 0 && !s.is_empty()).then_some(s.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (paragraph text, definitions read, bytes consumed)
    type Case = (&'static str, &'static [(&'static str, &'static str)], usize);

    #[test]
    fn definitions_after_a_misread_checkbox_label() {
        let cases: &[Case] = &[
            ("[x]: b.md", &[("[x]", "b.md")], 9),
            ("[X]: b.md\n", &[("[X]", "b.md")], 10),
            ("[x]:b.md", &[("[x]", "b.md")], 8),
            ("[x]: <b c.md>", &[("[x]", "<b c.md>")], 13),
            ("[x]: b.md \"Title\"  ", &[("[x]", "b.md")], 19),
            ("[x]: b.md 'T'\n[y]: c.md (T)\nrest", &[("[x]", "b.md"), ("[y]", "c.md")], 28),
            ("[x]: b.md\r\n[bee]: c.md\r\n", &[("[x]", "b.md"), ("[bee]", "c.md")], 24),
            ("[x]: a(b)c.md\n   [y\\]z]: d.md\n", &[("[x]", "a(b)c.md"), ("[y\\]z]", "d.md")], 30),
            // The paragraph's own text starts at the first line that is not a definition.
            ("[x]: b.md\nSee [x].", &[("[x]", "b.md")], 10),
            ("[x]: b.md\n    [y]: c.md\n", &[("[x]", "b.md")], 10),
            ("[x]: b.md\n[y]:\nc.md\n", &[("[x]", "b.md")], 10),
            ("[x]: b.md\n[y]: c.md \"open\n", &[("[x]", "b.md")], 10),
            ("[x]: b.md\n[]: c.md\n", &[("[x]", "b.md")], 10),
            // One word, so all destination (CommonMark does the same).
            ("[x]: b.md\"t\"", &[("[x]", "b.md\"t\"")], 12),
        ];
        for (text, definitions, consumed) in cases {
            let got = missed_definitions(text);
            assert_eq!(
                got,
                Some(Leading { definitions: definitions.to_vec(), consumed: *consumed }),
                "{text:?}"
            );
        }
    }

    #[test]
    fn anything_else_is_left_alone() {
        for text in [
            "[y]: b.md",            // tree-sitter-md reads this one itself
            "See [x]: b.md",        // not at the start
            "    [x]: b.md",        // indented code
            "[x]: ",                // no destination
            "[x]:",                 // no destination on this line
            "[x] : b.md",           // space before the colon
            "[x]: <b.md>\"t\"",     // a title needs whitespace before it
            "[x]: b.md \"t\" junk", // text after the title
            "[x]: b.md \"t",        // title not closed on the line
            "[x]: a(b.md",          // unbalanced parenthesis
            "[x]: a)b.md",
            "[x]: <b<c.md>",
            "[x]: b.md (t(u))",
            "[x]\u{7}: b.md",
        ] {
            assert_eq!(missed_definitions(text), None, "{text:?}");
        }
    }
}
