//! What a page needs of a document's structure, from the published index instead of a
//! second parse of its Markdown: its sections (the engine's section nodes: slug, title, level,
//! where the heading is), its body's place in the file, and its claims (read from the front
//! matter alone). The engine's document parse costs many times the Markdown rendering itself;
//! the index already holds its outcome.

use crate::view::Doc;
use docforge_index::{Index, IndexError};
use docforge_model::{ByteSpan, NodeSpan};
use std::collections::BTreeMap;

/// One section of a document, in document order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutlineSection {
    /// `<doc id>#<slug>`.
    pub id: String,
    pub slug: String,
    pub title: String,
    pub level: u8,
    /// Index of the enclosing section.
    pub parent: Option<usize>,
    /// Where the heading's first line starts in the file (bytes).
    pub heading_start: Option<usize>,
}

/// A document's structure, as a page shows it.
#[derive(Clone, Debug, Default)]
pub struct Outline {
    pub sections: Vec<OutlineSection>,
    pub claims: Vec<docforge_docs::Claim>,
    /// The body (after the front matter) in the file's bytes.
    pub body: Option<ByteSpan>,
    /// A TOML node's text (a TOML node has no Markdown body of its own).
    pub toml_text: Option<String>,
}

impl Outline {
    /// The outline of `doc` from its sections in the index and its bytes (claims, and a TOML
    /// node's text, read without a Markdown parse).
    pub fn of(doc: &Doc, sections: Vec<OutlineSection>, bytes: &[u8]) -> Outline {
        let span = NodeSpan::from_attrs(&doc.attrs).ok().flatten();
        let body = span.as_ref().and_then(|s| s.body);
        if doc.node_kind == docforge_docs::TOML_NODE_KIND {
            let facts = docforge_docs::parse_toml_node_bytes(&doc.path, bytes);
            return Outline { sections, claims: facts.claims, body, toml_text: Some(facts.node.text) };
        }
        // Claims live in the front matter: a document the index records without one has none
        // (one whose spans are not recorded is read).
        let claims = match span {
            Some(s) if s.front_matter.is_none() => Vec::new(),
            _ => docforge_docs::front_matter_claims(&doc.path, bytes),
        };
        Outline { sections, claims, body, toml_text: None }
    }
}

/// Every document's sections from the published generation, by document ID, in document
/// order with their nesting (a section encloses the ones after it of a greater level, as the
/// engine builds them).
pub fn sections_by_document(index: &Index) -> Result<BTreeMap<String, Vec<OutlineSection>>, IndexError> {
    let nodes = index.node_briefs(docforge_docs::SECTION_KIND, &["level", NodeSpan::HEADING])?;
    let mut by: BTreeMap<String, Vec<(usize, OutlineSection)>> = BTreeMap::new();
    for n in nodes {
        let Some((doc, slug)) = n.id.split_once('#') else { continue };
        let [level, heading] = &n.values[..] else { continue };
        let heading_start = heading.as_deref().and_then(|h| h.parse::<ByteSpan>().ok()).map(|h| h.start);
        // Document order: by the heading's place (its line when the index has no span).
        let order = heading_start.unwrap_or(n.line.unwrap_or(0) as usize);
        let level = level.as_deref().and_then(|l| l.parse().ok()).unwrap_or(1);
        let section = OutlineSection {
            slug: slug.to_string(),
            id: n.id.clone(),
            title: n.title,
            level,
            parent: None,
            heading_start,
        };
        // Ordered by ID, a document's sections (`<doc>#…`) come one after the other: its
        // list is the last one, and a key is made once per document.
        let list = match by.last_key_value() {
            Some((last, _)) if last == doc => by.last_entry().expect("a last entry").into_mut(),
            _ => by.entry(doc.to_string()).or_default(),
        };
        list.push((order, section));
    }
    Ok(by
        .into_iter()
        .map(|(doc, mut list)| {
            list.sort_by(|(a, x), (b, y)| a.cmp(b).then_with(|| x.id.cmp(&y.id)));
            let mut sections: Vec<OutlineSection> = list.into_iter().map(|(_, s)| s).collect();
            let mut open: Vec<usize> = Vec::new();
            for i in 0..sections.len() {
                while open.last().is_some_and(|&p| sections[p].level >= sections[i].level) {
                    open.pop();
                }
                sections[i].parent = open.last().copied();
                open.push(i);
            }
            (doc, sections)
        })
        .collect())
}
