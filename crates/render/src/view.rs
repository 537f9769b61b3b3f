//! Which documents a view selects, and where each one's page is in the output.

use docforge_index::{Index, IndexError, NodeSummary};
use docforge_project::View;
use std::collections::BTreeMap;

/// One selected document.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Doc {
    pub id: String,
    /// `document` or `toml_node`.
    pub node_kind: String,
    pub title: String,
    /// Project-relative source path.
    pub path: String,
    pub attrs: docforge_model::Attrs,
    /// The page's path inside the output.
    pub page: String,
}

impl Doc {
    pub fn attr(&self, key: &str) -> Option<&str> {
        self.attrs.get(key).map(String::as_str)
    }

    /// The declared kind (`design`, `decision`, …), else the node kind.
    pub fn kind(&self) -> &str {
        self.attr("kind").unwrap_or(&self.node_kind)
    }

    pub fn family(&self) -> &str {
        self.attr("family").unwrap_or("")
    }
}

/// The page of the document at `path`: `a/b.md` → `a/b.html`, a TOML node `a/b.toml` →
/// `a/b.toml.html` (so the two never collide).
pub fn page_of(path: &str) -> String {
    match path.strip_suffix(".md") {
        Some(stem) => format!("{stem}.html"),
        None => format!("{path}.html"),
    }
}

/// Every document of the published generation (documents and TOML nodes), by ID.
pub fn all_documents(index: &Index) -> Result<Vec<Doc>, IndexError> {
    let kinds = [docforge_docs::DOCUMENT_KIND, docforge_docs::TOML_NODE_KIND];
    Ok(index.nodes_of_kinds(&kinds)?.into_iter().filter_map(doc).collect())
}

fn doc(n: NodeSummary) -> Option<Doc> {
    let path = n.location?.path;
    Some(Doc { page: page_of(&path), id: n.id, node_kind: n.kind, title: n.title, path, attrs: n.attrs })
}

/// The documents `view` selects, by ID: every given filter must match (any of its values);
/// `paths` globs match the source path.
pub fn select(view: &View, docs: &[Doc]) -> Vec<Doc> {
    let s = &view.select;
    let paths = {
        let mut b = globset::GlobSetBuilder::new();
        for g in &s.paths {
            // Checked when docforge.toml was read.
            if let Ok(glob) = globset::Glob::new(g) {
                b.add(glob);
            }
        }
        b.build().unwrap_or_else(|_| globset::GlobSet::empty())
    };
    let any = |wanted: &[String], have: Option<&str>| {
        wanted.is_empty() || have.is_some_and(|h| wanted.iter().any(|w| w == h))
    };
    docs.iter()
        .filter(|d| any(&s.family, d.attr("family")))
        .filter(|d| any(&s.authority, d.attr("authority")))
        .filter(|d| any(&s.status, d.attr("status")))
        .filter(|d| s.kind.is_empty() || s.kind.iter().any(|k| k == d.kind() || *k == d.node_kind))
        .filter(|d| {
            s.tag.is_empty()
                || d.attr("tags").is_some_and(|t| t.split(',').any(|x| s.tag.iter().any(|w| w == x)))
        })
        .filter(|d| s.paths.is_empty() || paths.is_match(&d.path))
        .cloned()
        .collect()
}

/// The selected documents grouped for navigation: family → kind → documents (by title).
pub fn grouped<'d>(docs: impl IntoIterator<Item = &'d Doc>) -> BTreeMap<(String, String), Vec<&'d Doc>> {
    let mut groups: BTreeMap<(String, String), Vec<&Doc>> = BTreeMap::new();
    for d in docs {
        groups.entry((d.family().to_string(), d.kind().to_string())).or_default().push(d);
    }
    for list in groups.values_mut() {
        list.sort_by(|a, b| a.title.cmp(&b.title).then(a.id.cmp(&b.id)));
    }
    groups
}
