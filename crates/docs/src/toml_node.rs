//! One TOML node file → [`DocFacts`]: the front-matter keys plus `title` and `text`.

use crate::facts::{DocFacts, TOML_NODE_KIND};
use crate::front_matter::{self, HeaderKind};
use crate::lines::LineIndex;
use crate::markdown::own_diagnostics;
use crate::spans::{Decoded, Parts};
use crate::text::Summary;
use docforge_model::{ByteSpan, Location, Node};

/// Parse one TOML node file (`*.toml` under a docs root) that holds exactly `text`: the same
/// keys as front matter plus `title` and `text`; one node, no sections, no links, spanning
/// the whole file. Broken TOML is a diagnostic and the file still becomes a node with an ID
/// from its path.
pub fn parse_toml_node(path: &str, text: &str) -> DocFacts {
    parse(path, &Decoded::text(text))
}

/// [`parse_toml_node`] of a file's bytes as read (invalid UTF-8 replaced for reading; the
/// span and hash are of `bytes`).
pub fn parse_toml_node_bytes(path: &str, bytes: &[u8]) -> DocFacts {
    parse(path, &Decoded::bytes(bytes))
}

fn parse(path: &str, decoded: &Decoded<'_>) -> DocFacts {
    let text: &str = &decoded.text;
    let lines = LineIndex::new(path, text);
    let bom = front_matter::bom_len(text);
    let header = front_matter::parse_header(&text[bom..], bom, &lines, HeaderKind::TomlNode);
    let (id, id_from_path, id_location) = match header.id {
        Some((id, loc)) => (id, false, loc),
        None => (crate::id_from_path(path), true, Location::new(path, 1, 1)),
    };
    let mut summary = Summary::default();
    summary.push(header.text.as_deref().unwrap_or("").trim());
    let mut diagnostics = header.diagnostics;
    own_diagnostics(&mut diagnostics, &id);
    DocFacts {
        path: path.to_string(),
        node: Node {
            id: id.clone(),
            kind: TOML_NODE_KIND.to_string(),
            title: header.title.unwrap_or_else(|| crate::file_stem(path).to_string()),
            location: Some(Location::new(path, 1, 1)),
            text: summary.into_string(),
            attrs: header.attrs.into(),
        },
        id,
        id_from_path,
        id_location,
        span: Some(decoded.node_span(ByteSpan::new(0, text.len()), Parts::default())),
        sections: Vec::new(),
        anchors: Vec::new(),
        links: Vec::new(),
        relations: header.relations,
        claims: header.claims,
        diagnostics,
    }
}
