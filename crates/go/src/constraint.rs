//! Build-constraint expressions: `//go:build` (full boolean grammar) and legacy `// +build`,
//! evaluated as `go/build/constraint` + `go/build` do.

use crate::BuildContext;

/// Whether `line` (already trimmed) is a `//go:build` comment.
pub(crate) fn is_go_build(line: &str) -> bool {
    match line.strip_prefix("//go:build") {
        Some(rest) => rest.is_empty() || rest.trim().len() < rest.len(),
        None => false,
    }
}

/// The expression text of a `// +build` line, if `line` (already trimmed) is one.
pub(crate) fn plus_build_text(line: &str) -> Option<&str> {
    let rest = line.strip_prefix("//")?.trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix("+build")?;
    if rest.is_empty() || rest.starts_with([' ', '\t']) {
        Some(rest)
    } else {
        None
    }
}

fn is_tag_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '.'
}

/// Evaluate a `//go:build` line (the whole trimmed line, including `//go:build`).
pub fn eval_go_build(ctx: &BuildContext, line: &str) -> Result<bool, String> {
    let expr = line.strip_prefix("//go:build").ok_or("not a //go:build line")?;
    let mut p = Parser { s: expr, pos: 0, ctx };
    p.skip_space();
    if p.pos == p.s.len() {
        return Err("unexpected end of expression".into());
    }
    let v = p.or()?;
    p.skip_space();
    if p.pos != p.s.len() {
        return Err(format!("unexpected token at offset {}: {:?}", p.pos, &p.s[p.pos..]));
    }
    Ok(v)
}

/// Evaluate the expression text of a `// +build` line (after `+build`): space-separated
/// alternatives of comma-separated conjunctions of possibly negated tags.
pub fn eval_plus_build(ctx: &BuildContext, text: &str) -> Result<bool, String> {
    let mut any = false;
    let mut fields = 0;
    for field in text.split_ascii_whitespace() {
        fields += 1;
        let mut all = true;
        for term in field.split(',') {
            let (neg, tag) = match term.strip_prefix('!') {
                Some(t) => (true, t),
                None => (false, term),
            };
            if tag.is_empty() || tag.starts_with('!') || !tag.chars().all(is_tag_char) {
                return Err(format!("invalid +build term {term:?}"));
            }
            all &= ctx.match_tag(tag) != neg;
        }
        any |= all;
    }
    if fields == 0 {
        return Err("empty +build line".into());
    }
    Ok(any)
}

struct Parser<'a> {
    s: &'a str,
    pos: usize,
    ctx: &'a BuildContext,
}

impl Parser<'_> {
    fn skip_space(&mut self) {
        let rest = &self.s[self.pos..];
        self.pos += rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len();
    }

    fn eat(&mut self, tok: &str) -> bool {
        self.skip_space();
        if self.s[self.pos..].starts_with(tok) {
            self.pos += tok.len();
            true
        } else {
            false
        }
    }

    fn or(&mut self) -> Result<bool, String> {
        let mut v = self.and()?;
        while self.eat("||") {
            v |= self.and()?;
        }
        Ok(v)
    }

    fn and(&mut self) -> Result<bool, String> {
        let mut v = self.not()?;
        while self.eat("&&") {
            v &= self.not()?;
        }
        Ok(v)
    }

    fn not(&mut self) -> Result<bool, String> {
        if self.eat("!") {
            return Ok(!self.not()?);
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<bool, String> {
        if self.eat("(") {
            let v = self.or()?;
            if !self.eat(")") {
                return Err(format!("missing ) at offset {}", self.pos));
            }
            return Ok(v);
        }
        self.skip_space();
        let rest = &self.s[self.pos..];
        let len = rest.find(|c: char| !is_tag_char(c)).unwrap_or(rest.len());
        if len == 0 {
            return Err(match rest.chars().next() {
                None => "unexpected end of expression".into(),
                Some(c) => format!("unexpected {c:?} at offset {}", self.pos),
            });
        }
        self.pos += len;
        Ok(self.ctx.match_tag(&rest[..len]))
    }
}
