//! A small scanner for the head of a Go file, like `go/build`'s `parseFileHeader` and
//! `readGoInfo`: the build-constraint comments before the package clause, the package name,
//! and whether the import declarations import `"C"`. No tree-sitter.

use crate::constraint::{is_go_build, plus_build_text};

#[derive(Debug, Default)]
pub(crate) struct Header {
    /// The `//go:build` line (trimmed), if any.
    pub go_build: Option<String>,
    /// `// +build` lines of the leading comment block that ends in a blank line.
    pub plus_build: Vec<String>,
    pub error: Option<String>,
    pub package: Option<String>,
    pub imports_c: bool,
}

fn trim(b: &[u8]) -> &[u8] {
    let start = b.iter().position(|c| !c.is_ascii_whitespace()).unwrap_or(b.len());
    let end = b.iter().rposition(|c| !c.is_ascii_whitespace()).map_or(start, |e| e + 1);
    &b[start..end.max(start)]
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

pub(crate) fn scan_header(content: &[u8]) -> Header {
    let mut h = Header::default();
    let mut end = 0;
    let mut p = content;
    let mut ended = false;
    let mut in_slash_star = false;
    'lines: while !p.is_empty() {
        let line;
        match p.iter().position(|&c| c == b'\n') {
            Some(i) => (line, p) = (&p[..i], &p[i + 1..]),
            None => (line, p) = (p, &p[p.len()..]),
        }
        let mut line = trim(line);
        if line.is_empty() && !ended {
            end = content.len() - p.len();
            continue;
        }
        if !line.starts_with(b"//") {
            ended = true;
        }
        // Only a line with this prefix can be one (most header lines are not: no text made).
        if !in_slash_star && line.starts_with(b"//go:build") {
            let text = String::from_utf8_lossy(line);
            if is_go_build(&text) {
                if h.go_build.is_some() {
                    h.error = Some("multiple //go:build comments".into());
                } else {
                    h.go_build = Some(text.into_owned());
                }
            }
        }
        while !line.is_empty() {
            if in_slash_star {
                match find(line, b"*/") {
                    Some(i) => {
                        in_slash_star = false;
                        line = trim(&line[i + 2..]);
                        continue;
                    }
                    None => continue 'lines,
                }
            }
            if line.starts_with(b"//") {
                continue 'lines;
            }
            if line.starts_with(b"/*") {
                in_slash_star = true;
                line = trim(&line[2..]);
                continue;
            }
            break 'lines;
        }
    }
    for line in content[..end].split(|&c| c == b'\n') {
        let line = trim(line);
        if line.starts_with(b"//") && find(line, b"+build").is_some() {
            let text = String::from_utf8_lossy(line);
            if plus_build_text(&text).is_some() {
                h.plus_build.push(text.into_owned());
            }
        }
    }
    read_go_info(content, &mut h);
    h
}

/// Tokens of the Go lexical grammar, just enough for the package clause and imports.
#[derive(Debug, PartialEq)]
enum Tok<'a> {
    Ident(&'a [u8]),
    Str(Vec<u8>),
    Punct(u8),
}

struct Lexer<'a> {
    s: &'a [u8],
    i: usize,
}

impl<'a> Lexer<'a> {
    fn next(&mut self) -> Option<Tok<'a>> {
        let s = self.s;
        loop {
            while self.i < s.len() && s[self.i].is_ascii_whitespace() {
                self.i += 1;
            }
            if s[self.i..].starts_with(b"//") {
                self.i = s[self.i..].iter().position(|&c| c == b'\n').map_or(s.len(), |n| self.i + n);
            } else if s[self.i..].starts_with(b"/*") {
                self.i = find(&s[self.i + 2..], b"*/").map_or(s.len(), |n| self.i + 2 + n + 2);
            } else {
                break;
            }
        }
        let start = self.i;
        let c = *s.get(start)?;
        if c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80 {
            while self.i < s.len()
                && (s[self.i] == b'_' || s[self.i].is_ascii_alphanumeric() || s[self.i] >= 0x80)
            {
                self.i += 1;
            }
            return Some(Tok::Ident(&s[start..self.i]));
        }
        self.i += 1;
        match c {
            b'"' => {
                let mut out = Vec::new();
                while self.i < s.len() && s[self.i] != b'"' && s[self.i] != b'\n' {
                    if s[self.i] == b'\\' && self.i + 1 < s.len() {
                        self.i += 1;
                    }
                    out.push(s[self.i]);
                    self.i += 1;
                }
                self.i = (self.i + 1).min(s.len());
                Some(Tok::Str(out))
            }
            b'`' => {
                let len = s[self.i..].iter().position(|&c| c == b'`').unwrap_or(s.len() - self.i);
                let out = s[self.i..self.i + len].to_vec();
                self.i = (self.i + len + 1).min(s.len());
                Some(Tok::Str(out))
            }
            _ => Some(Tok::Punct(c)),
        }
    }
}

fn read_go_info(content: &[u8], h: &mut Header) {
    let mut lx = Lexer { s: content, i: 0 };
    if lx.next() != Some(Tok::Ident(b"package")) {
        return;
    }
    match lx.next() {
        Some(Tok::Ident(name)) => h.package = Some(String::from_utf8_lossy(name).into_owned()),
        _ => return,
    }
    let mut tok = lx.next();
    loop {
        while tok == Some(Tok::Punct(b';')) {
            tok = lx.next();
        }
        if tok != Some(Tok::Ident(b"import")) {
            return;
        }
        tok = lx.next();
        if tok == Some(Tok::Punct(b'(')) {
            loop {
                tok = lx.next();
                match tok {
                    Some(Tok::Punct(b')')) | None => break,
                    Some(Tok::Str(ref path)) if path == b"C" => h.imports_c = true,
                    _ => {}
                }
            }
            tok = lx.next();
        } else {
            // Optional name, then the path.
            if matches!(tok, Some(Tok::Ident(_)) | Some(Tok::Punct(b'.'))) {
                tok = lx.next();
            }
            if let Some(Tok::Str(ref path)) = tok {
                if path == b"C" {
                    h.imports_c = true;
                }
            } else {
                return;
            }
            tok = lx.next();
        }
    }
}
