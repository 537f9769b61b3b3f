//! `+++` TOML front matter (and TOML node files): finding it, and reading its keys.

use crate::facts::{Claim, Relation, CLAIM_PREDICATES};
use crate::lines::LineIndex;
use docforge_model::{Diagnostic, Location, NodeSpan};
use std::collections::BTreeMap;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Where the front matter is: `content` is the TOML between the `+++` lines, `block_end` the
/// first byte after the closing `+++` line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FrontMatter {
    pub(crate) content_start: usize,
    pub(crate) content_end: usize,
    pub(crate) block_end: usize,
}

/// Length of a leading UTF-8 byte-order mark, if any.
pub(crate) fn bom_len(text: &str) -> usize {
    if text.starts_with('\u{feff}') {
        '\u{feff}'.len_utf8()
    } else {
        0
    }
}

fn is_fence(line: &str) -> bool {
    line.trim_end_matches(['\r', '\n']).trim_end_matches([' ', '\t']) == "+++"
}

/// Find `+++` front matter at the top of `text` (after an optional BOM). An opening fence
/// without a closing one is reported and the file is treated as having no front matter.
pub(crate) fn find(text: &str, lines: &LineIndex<'_>) -> Result<Option<FrontMatter>, Diagnostic> {
    let start = bom_len(text);
    let rest = &text[start..];
    let first_end = rest.find('\n').map_or(rest.len(), |i| i + 1);
    if !is_fence(&rest[..first_end]) {
        return Ok(None);
    }
    let content_start = start + first_end;
    let mut pos = content_start;
    while pos < text.len() {
        let line_end = text[pos..].find('\n').map_or(text.len(), |i| pos + i + 1);
        if is_fence(&text[pos..line_end]) {
            return Ok(Some(FrontMatter { content_start, content_end: pos, block_end: line_end }));
        }
        pos = line_end;
    }
    Err(Diagnostic::error(
        "front_matter_invalid",
        "front matter opened with `+++` on line 1 is never closed by a `+++` line; it is read as Markdown",
    )
    .at(lines.location(start)))
}

/// The keys of a front matter block or TOML node file, read loosely: every problem is a
/// diagnostic, nothing is dropped silently.
#[derive(Debug, Default)]
pub(crate) struct Header {
    pub(crate) id: Option<(String, Location)>,
    pub(crate) title: Option<String>,
    pub(crate) text: Option<String>,
    pub(crate) attrs: BTreeMap<String, String>,
    pub(crate) relations: Vec<Relation>,
    pub(crate) claims: Vec<Claim>,
    pub(crate) diagnostics: Vec<Diagnostic>,
}

/// Which file the keys come from: TOML node files also know `title` … and `text`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum HeaderKind {
    FrontMatter,
    TomlNode,
}

struct Reader<'l, 'p> {
    lines: &'l LineIndex<'p>,
    base: usize,
    header: Header,
}

/// Parse `toml_src` (which starts at byte `base` of the file) into a [`Header`].
pub(crate) fn parse_header(toml_src: &str, base: usize, lines: &LineIndex<'_>, kind: HeaderKind) -> Header {
    let mut r = Reader { lines, base, header: Header::default() };
    match DeTable::parse(toml_src) {
        Ok(table) => r.read_table(table.get_ref(), kind),
        Err(err) => {
            let at = err.span().map_or(base, |s| base + s.start);
            let message = format!("front matter is not valid TOML: {}", err.message().trim());
            r.header
                .diagnostics
                .push(Diagnostic::error("front_matter_invalid", message).at(lines.location(at)));
            if toml_src.contains("claims") {
                // Claims may be in there: say so rather than validate nothing.
                r.unreadable_claims("front matter that is not valid TOML".into(), lines.location(at));
            }
        }
    }
    r.header
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Reader<'_, '_> {
    fn loc<T>(&self, spanned: &Spanned<T>) -> Location {
        self.lines.location(self.base + spanned.span().start)
    }

    fn wrong_type(&mut self, key: &str, want: &str, value: &Spanned<DeValue<'_>>) {
        let message =
            format!("front matter key `{key}` must be {want}, found {}", value.get_ref().type_str());
        let d = Diagnostic::error("front_matter_wrong_type", message).at(self.loc(value));
        self.header.diagnostics.push(d);
    }

    fn string(&mut self, key: &str, value: &Spanned<DeValue<'_>>) -> Option<String> {
        match value.get_ref() {
            DeValue::String(s) => Some(s.to_string()),
            _ => {
                self.wrong_type(key, "a string", value);
                None
            }
        }
    }

    fn read_table(&mut self, table: &DeTable<'_>, kind: HeaderKind) {
        for (key, value) in table {
            let name = key.get_ref().as_ref();
            match name {
                "id" => self.read_id(value),
                "kind" | "family" | "authority" | "status" => {
                    if let Some(s) = self.string(name, value) {
                        self.header.attrs.insert(name.to_string(), s);
                    }
                }
                "title" => self.header.title = self.string(name, value),
                "text" if kind == HeaderKind::TomlNode => self.header.text = self.string(name, value),
                "tags" => self.read_tags(value),
                "relations" => self.read_relations(value),
                "claims" => self.read_claims(value),
                _ if claims_like(name, value.get_ref()) => {
                    let message = format!(
                        "front matter table `{name}` looks like claims but only `[[claims]]` is read: its entries are not evaluated"
                    );
                    let d = Diagnostic::error("claims_key_unknown", message).at(self.loc(key));
                    self.header.diagnostics.push(d);
                    self.unreadable_claims(
                        format!("the front matter table `{name}` (not `[[claims]]`)"),
                        self.loc(key),
                    );
                }
                _ if NodeSpan::is_reserved_key(name) => {
                    let message = format!(
                        "front matter key `{name}` is reserved for the node's byte span and content hash: it is ignored"
                    );
                    let d = Diagnostic::warning("front_matter_reserved_key", message).at(self.loc(key));
                    self.header.diagnostics.push(d);
                }
                _ => {
                    let message = format!("unknown front matter key `{name}` (kept as an attribute)");
                    let d = Diagnostic::warning("front_matter_unknown_key", message).at(self.loc(key));
                    self.header.diagnostics.push(d);
                    self.header.attrs.insert(name.to_string(), render(value.get_ref()));
                }
            }
        }
    }

    fn read_id(&mut self, value: &Spanned<DeValue<'_>>) {
        let Some(id) = self.string("id", value) else { return };
        let problem = if id.trim().is_empty() {
            Some("is empty")
        } else if id.chars().any(char::is_whitespace) {
            Some("contains whitespace")
        } else if id.contains('#') {
            Some("contains `#` (reserved for section IDs)")
        } else if id.starts_with("go:") || id.starts_with("file:") {
            Some("uses a reserved prefix (`go:`, `file:`)")
        } else {
            None
        };
        match problem {
            Some(why) => {
                let message = format!("front matter `id` {why}; the ID is derived from the path instead");
                let d = Diagnostic::error("front_matter_invalid_value", message).at(self.loc(value));
                self.header.diagnostics.push(d);
            }
            None => self.header.id = Some((id, self.loc(value))),
        }
    }

    fn read_tags(&mut self, value: &Spanned<DeValue<'_>>) {
        let DeValue::Array(items) = value.get_ref() else {
            return self.wrong_type("tags", "an array of strings", value);
        };
        let mut tags = Vec::new();
        for item in items {
            match item.get_ref() {
                DeValue::String(s) => tags.push(s.to_string()),
                _ => self.wrong_type("tags", "an array of strings", item),
            }
        }
        self.header.attrs.insert("tags".to_string(), tags.join(","));
    }

    fn read_relations(&mut self, value: &Spanned<DeValue<'_>>) {
        let DeValue::Table(table) = value.get_ref() else {
            return self.wrong_type("relations", "a table of relation = [target IDs]", value);
        };
        for (key, targets) in table {
            let name = key.get_ref().as_ref();
            if !is_identifier(name) {
                let message = format!(
                    "relation name `{name}` is not an identifier (letters, digits, `_`, not starting with a digit)"
                );
                let d = Diagnostic::error("relation_name_invalid", message).at(self.loc(key));
                self.header.diagnostics.push(d);
                continue;
            }
            let key_name = format!("relations.{name}");
            let items: Vec<&Spanned<DeValue<'_>>> = match targets.get_ref() {
                DeValue::String(_) => vec![targets],
                DeValue::Array(items) => items.iter().collect(),
                _ => {
                    self.wrong_type(&key_name, "a target ID or an array of target IDs", targets);
                    continue;
                }
            };
            for item in items {
                match item.get_ref() {
                    DeValue::String(s) if !s.trim().is_empty() => self.header.relations.push(Relation {
                        name: name.to_string(),
                        target: s.trim().to_string(),
                        location: self.loc(item),
                    }),
                    DeValue::String(_) => {
                        let message = format!("empty target ID in `{key_name}`");
                        let d = Diagnostic::error("front_matter_invalid_value", message).at(self.loc(item));
                        self.header.diagnostics.push(d);
                    }
                    _ => self.wrong_type(&key_name, "an array of target ID strings", item),
                }
            }
        }
    }

    /// A claim entry that cannot be read at all (`what` says where it would be): validation
    /// reports it as invalid instead of skipping it.
    fn unreadable_claims(&mut self, what: String, location: Location) {
        let problem = format!("claims in {what} cannot be read; write them as [[claims]] tables");
        self.header.claims.push(Claim { location, problems: vec![problem], ..Claim::default() });
    }

    fn read_claims(&mut self, value: &Spanned<DeValue<'_>>) {
        let want = "an array of tables ([[claims]])";
        let DeValue::Array(items) = value.get_ref() else {
            self.wrong_type("claims", want, value);
            let what = format!("`claims` given as {}", value.get_ref().type_str());
            return self.unreadable_claims(what, self.loc(value));
        };
        for item in items {
            match item.get_ref() {
                DeValue::Table(table) => self.read_claim(table, self.loc(item)),
                _ => {
                    self.wrong_type("claims", want, item);
                    let what = format!("a `claims` entry given as {}", item.get_ref().type_str());
                    self.unreadable_claims(what, self.loc(item));
                }
            }
        }
    }

    fn read_claim(&mut self, table: &DeTable<'_>, location: Location) {
        let mut claim = Claim { location: location.clone(), ..Claim::default() };
        for (key, value) in table {
            let name = key.get_ref().as_ref();
            let key_name = format!("claims.{name}");
            let slot = match name {
                "predicate" => Some(&mut claim.predicate),
                "subject" => Some(&mut claim.subject),
                "object" => claim.object.insert(String::new()).into(),
                "required_precision" => claim.required_precision.insert(String::new()).into(),
                _ => None,
            };
            match slot {
                Some(slot) => match self.string(&key_name, value) {
                    Some(text) => *slot = text,
                    None => claim.problems.push(format!("`{key_name}` must be a string")),
                },
                None => {
                    // A misspelt field (`requried_precision`) must not leave the claim to be
                    // evaluated without it.
                    let message = format!(
                        "unknown claim key `{name}` (a claim has predicate, subject, object, required_precision): the claim is invalid"
                    );
                    let d = Diagnostic::error("claim_invalid", message).at(self.loc(key));
                    self.header.diagnostics.push(d);
                    claim.problems.push(format!("unknown claim key `{name}`"));
                }
            }
        }
        for problem in claim_problems(&claim) {
            let d = Diagnostic::warning("claim_invalid", problem).at(location.clone());
            self.header.diagnostics.push(d);
        }
        self.header.claims.push(claim);
    }
}

/// Whether an unknown front-matter key holds what looks like claims: a table or an array of
/// tables under a name close to `claims` (`claim`, `Claims`, `clams`), or whose tables have a
/// `predicate`.
fn claims_like(name: &str, value: &DeValue<'_>) -> bool {
    let tables: Vec<&DeTable<'_>> = match value {
        DeValue::Table(t) => vec![t],
        DeValue::Array(items) => items
            .iter()
            .filter_map(|i| match i.get_ref() {
                DeValue::Table(t) => Some(t),
                _ => None,
            })
            .collect(),
        _ => return false,
    };
    if tables.is_empty() {
        return false;
    }
    let lower = name.to_ascii_lowercase();
    let near = lower.starts_with("claim") || edit_distance(&lower, "claims") <= 2;
    near || tables.iter().any(|t| t.iter().any(|(k, _)| k.get_ref().as_ref() == "predicate"))
}

/// Levenshtein distance (short ASCII keys).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == *cb { prev } else { 1 + prev.min(row[j]).min(cur) };
            prev = cur;
        }
    }
    row[b.len()]
}

/// Loose checks of one claim against the closed v1 predicate set.
fn claim_problems(claim: &Claim) -> Vec<String> {
    let mut out = Vec::new();
    let known = CLAIM_PREDICATES.contains(&claim.predicate.as_str());
    if claim.predicate.is_empty() {
        out.push("claim has no `predicate`".to_string());
    } else if !known {
        out.push(format!(
            "unknown claim predicate `{}` (expected one of {})",
            claim.predicate,
            CLAIM_PREDICATES.join(", ")
        ));
    }
    if claim.subject.trim().is_empty() {
        out.push("claim has no `subject`".to_string());
    }
    if known {
        match (claim.predicate.as_str(), &claim.object) {
            ("symbol_exists", Some(_)) => out.push("`symbol_exists` claims take no `object`".to_string()),
            (p, None) if p != "symbol_exists" => out.push(format!("`{p}` claims need an `object`")),
            _ => {}
        }
    }
    if let Some(p) = &claim.required_precision {
        if p != "ast" && p != "precise" {
            out.push(format!("`required_precision` must be `ast` or `precise`, found `{p}`"));
        }
    }
    out
}

/// A TOML value as attribute text: strings raw, arrays joined by `,`, tables inline.
fn render(value: &DeValue<'_>) -> String {
    match value {
        DeValue::String(s) => s.to_string(),
        DeValue::Integer(i) => i.as_str().to_string(),
        DeValue::Float(f) => f.as_str().to_string(),
        DeValue::Boolean(b) => b.to_string(),
        DeValue::Datetime(d) => d.to_string(),
        DeValue::Array(items) => items.iter().map(|v| render(v.get_ref())).collect::<Vec<_>>().join(","),
        DeValue::Table(table) => {
            let parts: Vec<String> =
                table.iter().map(|(k, v)| format!("{} = {}", k.get_ref(), render(v.get_ref()))).collect();
            format!("{{{}}}", parts.join(", "))
        }
    }
}
