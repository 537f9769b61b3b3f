//! The generic Markdown/TOML serializer (`markdown-toml@1`) as pure byte edits: front matter
//! edited with `toml_edit` (format kept: comments, order, quoting), a node's title, body or
//! whole span replaced. Bytes outside the edited part are never touched.

use docforge_docs::DocFacts;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use toml_edit::{DocumentMut, Item};

/// The version of the serializer the projected bytes come from.
pub const SERIALIZER: &str = "markdown-toml@1";

/// Which file format a node lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Markdown,
    Toml,
}

/// Front-matter keys `fields` may not set: they have their own operation arguments.
pub const RESERVED_FIELDS: [&str; 4] = ["id", "title", "relations", "claims"];

/// Where a Markdown file's `+++` block puts its TOML: `(content_start, content_end,
/// block_end)`; `None` when the file has no front matter.
fn front_matter(bytes: &[u8], facts: &DocFacts) -> Option<(usize, usize, usize)> {
    let block = facts.span.as_ref()?.front_matter?;
    let first_line_end = bytes[block.start..block.end].iter().position(|&b| b == b'\n')? + block.start + 1;
    // The closing fence is the block's last line.
    let before_last = if bytes[..block.end].ends_with(b"\n") { block.end - 1 } else { block.end };
    let close_start = bytes[..before_last].iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    (close_start >= first_line_end).then_some((first_line_end, close_start, block.end))
}

fn bom_len(bytes: &[u8]) -> usize {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    }
}

/// The line ending a file uses (its first line's), for lines the serializer writes.
fn newline(bytes: &[u8]) -> &'static str {
    match bytes.iter().position(|&b| b == b'\n') {
        Some(i) if i > 0 && bytes[i - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// `text` with every line ending made `nl`.
fn with_line_ends(text: &str, nl: &str) -> String {
    let lf = text.replace("\r\n", "\n");
    if nl == "\n" {
        lf
    } else {
        lf.replace('\n', nl)
    }
}

fn splice(bytes: &[u8], range: std::ops::Range<usize>, with: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len() + with.len());
    out.extend_from_slice(&bytes[..range.start]);
    out.extend_from_slice(with);
    out.extend_from_slice(&bytes[range.end..]);
    out
}

/// Edit the TOML of a node: a Markdown file's front matter (added after any BOM when the
/// file has none and the edit leaves something), or a TOML node file whole.
pub fn edit_toml(
    bytes: &[u8],
    facts: &DocFacts,
    format: Format,
    edit: impl FnOnce(&mut DocumentMut) -> Result<(), String>,
) -> Result<Vec<u8>, String> {
    let (range, text) = match format {
        Format::Toml => {
            let at = bom_len(bytes);
            (at..bytes.len(), &bytes[at..])
        }
        Format::Markdown => match front_matter(bytes, facts) {
            Some((start, end, _)) => (start..end, &bytes[start..end]),
            None => {
                let at = bom_len(bytes);
                (at..at, &b""[..])
            }
        },
    };
    let text = std::str::from_utf8(text).map_err(|_| "the front matter is not UTF-8".to_string())?;
    let mut doc: DocumentMut =
        text.parse().map_err(|e| format!("the existing front matter is not valid TOML: {e}"))?;
    edit(&mut doc)?;
    // toml_edit keeps the raw line ends of the lines it did not touch and ends new ones with
    // `\n`: one line ending throughout, the file's.
    let nl = newline(bytes);
    let mut toml = with_line_ends(&doc.to_string(), nl);
    if !toml.is_empty() && !toml.ends_with('\n') {
        toml.push_str(nl);
    }
    let new_block = format == Format::Markdown && range.is_empty() && front_matter(bytes, facts).is_none();
    if new_block {
        if toml.trim().is_empty() {
            return Ok(bytes.to_vec());
        }
        let block = format!("+++{nl}{toml}+++{nl}");
        return Ok(splice(bytes, range, block.as_bytes()));
    }
    Ok(splice(bytes, range, toml.as_bytes()))
}

/// A JSON field value as TOML: strings, booleans, integers, floats and arrays of them.
pub fn toml_value(key: &str, v: &Value) -> Result<toml_edit::Value, String> {
    Ok(match v {
        Value::String(s) => s.as_str().into(),
        Value::Bool(b) => (*b).into(),
        Value::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into(),
            (None, Some(f)) if f.is_finite() => f.into(),
            _ => return Err(format!("field `{key}`: {n} is not a TOML number")),
        },
        Value::Array(items) => {
            let mut a = toml_edit::Array::new();
            for item in items {
                if item.is_array() || item.is_object() {
                    return Err(format!("field `{key}`: nested arrays and tables are not supported"));
                }
                a.push(toml_value(key, item)?);
            }
            toml_edit::Value::Array(a)
        }
        Value::Null => return Err(format!("field `{key}`: null only removes a field")),
        Value::Object(_) => return Err(format!("field `{key}`: tables are not supported as field values")),
    })
}

/// Check `fields` before anything is projected: reserved keys, key syntax, value types.
pub fn check_fields(fields: &Map<String, Value>, allow_null: bool) -> Result<(), String> {
    for (k, v) in fields {
        if RESERVED_FIELDS.contains(&k.as_str()) {
            return Err(format!(
                "field `{k}` cannot be set through `fields` (use node_id, title or relationship_update)"
            ));
        }
        if !is_bare_key(k) {
            return Err(format!("field `{k}` is not a bare TOML key (letters, digits, `_`, `-`)"));
        }
        if v.is_null() && !allow_null {
            return Err(format!("field `{k}`: null only removes a field of an existing node"));
        }
        if !v.is_null() {
            toml_value(k, v)?;
        }
    }
    Ok(())
}

fn is_bare_key(k: &str) -> bool {
    !k.is_empty() && k.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// Whether a relation name is one the documents accept (an identifier).
pub fn is_relation_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Set (or, for `null`, remove) top-level keys.
pub fn set_fields(doc: &mut DocumentMut, fields: &Map<String, Value>) -> Result<(), String> {
    for (k, v) in fields {
        if v.is_null() {
            doc.remove(k);
        } else {
            let value = toml_value(k, v)?;
            match doc.get_mut(k) {
                Some(Item::Value(old)) => {
                    let decor = old.decor().clone();
                    *old = value;
                    *old.decor_mut() = decor;
                }
                _ => doc[k.as_str()] = Item::Value(value),
            }
        }
    }
    Ok(())
}

/// Add, then remove `[relations]` entries (a pair in both lists is refused by the caller);
/// an emptied name or table is removed.
pub fn update_relations(
    doc: &mut DocumentMut,
    add: &[(String, String)],
    remove: &[(String, String)],
) -> Result<(), String> {
    if !doc.contains_key("relations") {
        if add.is_empty() {
            return Ok(());
        }
        doc["relations"] = toml_edit::table();
    }
    let table = doc["relations"]
        .as_table_like_mut()
        .ok_or_else(|| "front-matter `relations` is not a table".to_string())?;
    for (name, target) in add {
        match table.get_mut(name) {
            None => {
                let mut a = toml_edit::Array::new();
                a.push(target.as_str());
                table.insert(name, Item::Value(toml_edit::Value::Array(a)));
            }
            Some(item) => {
                if let Some(s) = item.as_str().map(str::to_string) {
                    let mut a = toml_edit::Array::new();
                    a.push(s);
                    *item = Item::Value(toml_edit::Value::Array(a));
                }
                let a = item
                    .as_array_mut()
                    .ok_or_else(|| format!("`relations.{name}` is not an array of IDs"))?;
                if !a.iter().any(|v| v.as_str() == Some(target)) {
                    a.push(target.as_str());
                }
            }
        }
    }
    for (name, target) in remove {
        let Some(item) = table.get_mut(name) else { continue };
        match item {
            Item::Value(toml_edit::Value::Array(a)) => {
                a.retain(|v| v.as_str() != Some(target));
                // A one-line array is laid out again (the removed value's spacing goes with it).
                if !a.to_string().contains('\n') {
                    a.fmt();
                }
            }
            Item::Value(toml_edit::Value::String(s)) if s.value() == target => {
                *item = Item::Value(toml_edit::Value::Array(toml_edit::Array::new()))
            }
            _ => {}
        }
        if item.as_array().is_some_and(|a| a.is_empty()) {
            table.remove(name);
        }
    }
    if table.is_empty() {
        doc.remove("relations");
    }
    Ok(())
}

/// Replace the heading of the section at `index` with an ATX heading of the same level
/// saying `title` (an explicit `{#id}` of the old heading is kept unless `title` has one).
pub fn set_heading(bytes: &[u8], facts: &DocFacts, index: usize, title: &str) -> Result<Vec<u8>, String> {
    let section = &facts.sections[index];
    let heading = section.span.heading.ok_or("the section has no heading span")?;
    let old = String::from_utf8_lossy(&bytes[heading.range()]);
    let keep_id = docforge_docs::heading_id(old.trim_end().trim_end_matches('#').trim_end())
        .filter(|_| docforge_docs::heading_id(title).is_none())
        .map(|id| format!(" {{#{id}}}"))
        .unwrap_or_default();
    let title = check_title(title)?;
    let line = format!("{} {title}{keep_id}{}", "#".repeat(section.level as usize), newline(bytes));
    Ok(splice(bytes, heading.range(), line.as_bytes()))
}

/// A node's new title, trimmed: one line, not empty, and not ending in a space and `#`s
/// (Markdown reads those as a heading's closing sequence: `# Foo ##` is titled `Foo`).
pub fn check_title(title: &str) -> Result<&str, String> {
    let t = title.trim();
    if t.is_empty() {
        return Err("the title is empty".into());
    }
    if t.contains(['\n', '\r']) {
        return Err("the title must be one line".into());
    }
    let open = t.trim_end_matches('#');
    if open.len() < t.len() && (open.is_empty() || open.ends_with([' ', '\t'])) {
        return Err(format!(
            "the title {t:?} ends in `#`s that Markdown reads as the heading's closing sequence"
        ));
    }
    Ok(t)
}

/// A body as written into a file: after a blank line when it follows a heading, ending in
/// one line ending, followed by a blank line when more content comes after it.
fn body_bytes(body: &str, more_follows: bool, nl: &str, after_heading: bool) -> Vec<u8> {
    let trimmed = body.trim_end_matches(['\n', '\r']);
    if trimmed.is_empty() {
        return Vec::new();
    }
    let mut s = String::new();
    if after_heading && !trimmed.starts_with(['\n', '\r']) {
        s.push_str(nl);
    }
    s.push_str(&with_line_ends(trimmed, nl));
    s.push_str(nl);
    if more_follows {
        s.push_str(nl);
    }
    s.into_bytes()
}

/// Replace a document's body (everything after its front matter) or a section's own content
/// (between its heading and its first subsection).
pub fn set_body(
    bytes: &[u8],
    facts: &DocFacts,
    section: Option<usize>,
    body: &str,
) -> Result<Vec<u8>, String> {
    let span = match section {
        Some(i) => facts.sections[i].span.body.ok_or("the section has no body span")?,
        None => match facts.span.as_ref().and_then(|s| s.body) {
            Some(b) => b,
            None => {
                let at = bom_len(bytes);
                docforge_model::ByteSpan::new(at, bytes.len())
            }
        },
    };
    let more = span.end < bytes.len();
    Ok(splice(bytes, span.range(), &body_bytes(body, more, newline(bytes), section.is_some())))
}

/// Remove a section: its heading and everything up to the next heading of its level.
pub fn delete_section(bytes: &[u8], facts: &DocFacts, index: usize) -> Vec<u8> {
    splice(bytes, facts.sections[index].span.span.range(), b"")
}

/// Set a document's title: front-matter `title` when it has one, else its first heading,
/// else a new front-matter `title`. A TOML node's `title` key.
pub fn set_document_title(
    bytes: &[u8],
    facts: &DocFacts,
    format: Format,
    title: &str,
) -> Result<Vec<u8>, String> {
    let title = check_title(title)?;
    let has_key = |bytes: &[u8]| -> bool {
        let text = match format {
            Format::Toml => Some(&bytes[bom_len(bytes)..]),
            Format::Markdown => front_matter(bytes, facts).map(|(s, e, _)| &bytes[s..e]),
        };
        text.and_then(|t| std::str::from_utf8(t).ok())
            .and_then(|t| t.parse::<DocumentMut>().ok())
            .is_some_and(|d| d.contains_key("title"))
    };
    if format == Format::Markdown && !has_key(bytes) && !facts.sections.is_empty() {
        return set_heading(bytes, facts, 0, title);
    }
    edit_toml(bytes, facts, format, |doc| {
        doc["title"] = toml_edit::value(title);
        Ok(())
    })
}

/// The bytes of a new Markdown document.
pub fn new_document(
    node_id: &str,
    title: &str,
    body: Option<&str>,
    fields: &Map<String, Value>,
    relations: &BTreeMap<String, Vec<String>>,
) -> Result<Vec<u8>, String> {
    let title = check_title(title)?;
    let mut doc = DocumentMut::new();
    doc["id"] = toml_edit::value(node_id);
    // The keys documents conventionally start with, in their usual order, then the others.
    const FIRST: [&str; 5] = ["kind", "family", "authority", "status", "tags"];
    for k in FIRST {
        if let Some(v) = fields.get(k) {
            set_fields(&mut doc, &Map::from_iter([(k.to_string(), v.clone())]))?;
        }
    }
    let rest: Map<String, Value> = fields
        .iter()
        .filter(|(k, _)| !FIRST.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    set_fields(&mut doc, &rest)?;
    let pairs: Vec<(String, String)> =
        relations.iter().flat_map(|(n, ts)| ts.iter().map(move |t| (n.clone(), t.clone()))).collect();
    update_relations(&mut doc, &pairs, &[])?;
    let mut out = format!("+++\n{}+++\n# {title}\n", doc);
    if let Some(body) = body {
        let b = body_bytes(body, false, "\n", false);
        if !b.is_empty() {
            out.push('\n');
            out.push_str(std::str::from_utf8(&b).expect("from a str"));
        }
    }
    Ok(out.into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn facts(text: &str) -> DocFacts {
        docforge_docs::parse_markdown_bytes("docs/a.md", text.as_bytes())
    }

    fn map(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    #[test]
    fn front_matter_edits_keep_everything_else() {
        let text = "+++\nid = \"a\" # the id\nstatus = \"draft\"\n\n[relations]\ndepends_on = [\"b\"]\n+++\n# A\n\nBody.\n";
        let f = facts(text);
        let out = edit_toml(text.as_bytes(), &f, Format::Markdown, |d| {
            set_fields(d, &map(json!({"status": "accepted", "tags": ["x", "y"]})))
        })
        .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(
            out,
            "+++\nid = \"a\" # the id\nstatus = \"accepted\"\ntags = [\"x\", \"y\"]\n\n[relations]\ndepends_on = [\"b\"]\n+++\n# A\n\nBody.\n"
        );
        let f = facts(&out);
        let out = edit_toml(out.as_bytes(), &f, Format::Markdown, |d| {
            update_relations(
                d,
                &[("governs".into(), "go:x::Y".into()), ("depends_on".into(), "c".into())],
                &[("depends_on".into(), "b".into())],
            )
        })
        .unwrap();
        assert!(String::from_utf8_lossy(&out)
            .contains("[relations]\ndepends_on = [\"c\"]\ngoverns = [\"go:x::Y\"]\n+++\n# A\n"));
    }

    #[test]
    fn a_document_without_front_matter_gets_one_only_when_needed() {
        let text = "# A\n\nBody.\n";
        let f = facts(text);
        let same = edit_toml(text.as_bytes(), &f, Format::Markdown, |_| Ok(())).unwrap();
        assert_eq!(same, text.as_bytes());
        let out = edit_toml(text.as_bytes(), &f, Format::Markdown, |d| {
            set_fields(d, &map(json!({"kind": "note"})))
        })
        .unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "+++\nkind = \"note\"\n+++\n# A\n\nBody.\n");
    }

    #[test]
    fn titles_bodies_and_sections() {
        let text = "+++\nid = \"a\"\n+++\n# Old {#top}\n\nIntro.\n\n## Part\n\nPart text.\n\n### Sub\n\nSub text.\n\n## Last\n\nEnd.\n";
        let f = facts(text);
        let t = set_document_title(text.as_bytes(), &f, Format::Markdown, "New").unwrap();
        assert!(String::from_utf8_lossy(&t).contains("# New {#top}\n\nIntro."));
        let part = f.sections.iter().position(|s| s.title == "Part").unwrap();
        let b = set_body(text.as_bytes(), &f, Some(part), "Replaced.").unwrap();
        assert!(String::from_utf8_lossy(&b).contains("## Part\n\nReplaced.\n\n### Sub\n\nSub text."));
        let d = delete_section(text.as_bytes(), &f, part);
        assert_eq!(
            String::from_utf8(d).unwrap(),
            "+++\nid = \"a\"\n+++\n# Old {#top}\n\nIntro.\n\n## Last\n\nEnd.\n"
        );
        let whole = set_body(text.as_bytes(), &f, None, "# Fresh\n\nAll new.").unwrap();
        assert_eq!(String::from_utf8(whole).unwrap(), "+++\nid = \"a\"\n+++\n# Fresh\n\nAll new.\n");
    }

    #[test]
    fn a_title_is_one_line_and_reads_back_as_written() {
        for (title, ok) in [
            ("Foo", Some("Foo")),
            ("  Foo  ", Some("Foo")),
            ("C#", Some("C#")),
            ("F# and C#", Some("F# and C#")),
            ("Foo ##", None),
            ("Foo\t#", None),
            ("###", None),
            ("", None),
            ("a\nb", None),
        ] {
            assert_eq!(check_title(title).ok(), ok, "{title:?}");
        }
        for title in ["C#", "F# and C#"] {
            let bytes = new_document("n.t", title, None, &Map::new(), &BTreeMap::new()).unwrap();
            let f = docforge_docs::parse_markdown_bytes("docs/t.md", &bytes);
            assert_eq!(f.node.title, title, "the index reads the title written");
        }
    }

    #[test]
    fn new_documents_and_refused_fields() {
        let bytes = new_document(
            "n.one",
            "One",
            Some("Text."),
            &map(json!({"kind": "note", "tags": ["a"]})),
            &BTreeMap::from([("depends_on".to_string(), vec!["arch.storage".to_string()])]),
        )
        .unwrap();
        assert_eq!(
            String::from_utf8(bytes.clone()).unwrap(),
            "+++\nid = \"n.one\"\nkind = \"note\"\ntags = [\"a\"]\n\n[relations]\ndepends_on = [\"arch.storage\"]\n+++\n# One\n\nText.\n"
        );
        let f = docforge_docs::parse_markdown_bytes("docs/n.md", &bytes);
        assert_eq!((f.id.as_str(), f.node.title.as_str(), f.relations.len()), ("n.one", "One", 1));
        assert!(f.diagnostics.is_empty(), "{:?}", f.diagnostics);
        for (fields, want) in [
            (json!({"id": "x"}), "cannot be set"),
            (json!({"a b": 1}), "bare TOML key"),
            (json!({"k": {"x": 1}}), "tables"),
            (json!({"k": [[1]]}), "nested"),
        ] {
            let e = check_fields(&map(fields), true).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
        assert!(check_fields(&map(json!({"status": null})), false).is_err());
    }

    #[test]
    fn crlf_files_keep_one_line_ending_and_a_toml_node_keeps_its_bom() {
        let text = "+++\r\nid = \"a\"\r\n\r\n[relations]\r\ndepends_on = [\"b\"]\r\n+++\r\n# A\r\n\r\n## S\r\n\r\nx\r\n";
        let f = facts(text);
        let out =
            edit_toml(text.as_bytes(), &f, Format::Markdown, |d| set_fields(d, &map(json!({"status": "x"}))))
                .unwrap();
        let out = String::from_utf8(out).unwrap();
        assert_eq!(out.matches('\n').count(), out.matches("\r\n").count(), "{out:?}");
        let f = facts(&out);
        let s = f.sections.iter().position(|s| s.title == "S").unwrap();
        let out = set_body(out.as_bytes(), &f, Some(s), "one\ntwo\n").unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.ends_with("## S\r\n\r\none\r\ntwo\r\n"), "{out:?}");
        let toml = "\u{feff}id = \"g\"\ntitle = \"G\"\n";
        let f = docforge_docs::parse_toml_node_bytes("docs/g.toml", toml.as_bytes());
        let out = set_document_title(toml.as_bytes(), &f, Format::Toml, "H").unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "\u{feff}id = \"g\"\ntitle = \"H\"\n");
    }

    #[test]
    fn crlf_files_keep_their_line_endings() {
        let text = "+++\r\nid = \"a\"\r\n+++\r\n# A\r\n\r\nBody.\r\n";
        let f = facts(text);
        let out =
            edit_toml(text.as_bytes(), &f, Format::Markdown, |d| set_fields(d, &map(json!({"status": "x"}))))
                .unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "+++\r\nid = \"a\"\r\nstatus = \"x\"\r\n+++\r\n# A\r\n\r\nBody.\r\n"
        );
    }
}
