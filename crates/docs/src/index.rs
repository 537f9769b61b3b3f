//! The cross-document index links are resolved against: paths, IDs and heading slugs only,
//! so it does not change when a document's prose changes.

use crate::facts::DocFacts;
use crate::slug::slugify;
use docforge_model::{Diagnostic, Location};
use std::collections::{BTreeMap, BTreeSet};

/// What one document contributes to the [`DocIndex`]. Cheap to compare, so an incremental
/// database can tell that an edit did not change it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DocIndexEntry {
    pub path: String,
    pub id: String,
    pub id_location: Location,
    /// Section slugs of the document.
    pub slugs: BTreeSet<String>,
    /// Other fragment names (HTML anchors, `{#id}`) → the slug of the section they lead to
    /// (`None`: the document itself). The first of a name wins.
    pub anchors: BTreeMap<String, Option<String>>,
}

impl DocFacts {
    /// Every anchor of the document in document order (before the first heading, then per
    /// section), the first of a name kept.
    fn anchor_targets(&self) -> BTreeMap<String, Option<String>> {
        let mut out = BTreeMap::new();
        let doc = self.anchors.iter().map(|a| (a, None));
        let sections = self.sections.iter().flat_map(|s| s.anchors.iter().map(|a| (a, Some(&s.slug))));
        for (name, slug) in doc.chain(sections) {
            out.entry(name.clone()).or_insert_with(|| slug.cloned());
        }
        out
    }

    /// Whether a link fragment names a part of this document as the index resolves it (a
    /// section slug, an anchor, GitHub's `user-content-` form of either).
    pub fn has_fragment(&self, fragment: &str) -> bool {
        matches!(section(&self.index_entry(), Some(fragment)), Resolution::Found(_))
    }

    /// This document's entry in the [`DocIndex`].
    pub fn index_entry(&self) -> DocIndexEntry {
        DocIndexEntry {
            path: self.path.clone(),
            id: self.id.clone(),
            id_location: self.id_location.clone(),
            slugs: self.sections.iter().map(|s| s.slug.clone()).collect(),
            anchors: self.anchor_targets(),
        }
    }
}

/// The outcome of resolving a link or relation target against the documents.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolution {
    /// The node ID the target names (a document or `doc#slug` section).
    Found(String),
    /// Nothing matches; the text says what is missing.
    Missing(String),
    /// The ID is declared by several files (their paths).
    Ambiguous(Vec<String>),
    /// A path that is not a document file and is not one (e.g. an unknown `.toml`): not a link
    /// between documents at all.
    NotADocument,
}

/// All documents' paths, IDs and heading slugs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DocIndex {
    by_path: BTreeMap<String, DocIndexEntry>,
    /// ID → paths declaring it (sorted).
    by_id: BTreeMap<String, Vec<String>>,
}

impl DocIndex {
    pub fn new(docs: &[&DocFacts]) -> Self {
        Self::from_entries(docs.iter().map(|d| d.index_entry()))
    }

    pub fn from_entries(entries: impl IntoIterator<Item = DocIndexEntry>) -> Self {
        let mut index = DocIndex::default();
        for entry in entries {
            if let Some(old) = index.by_path.insert(entry.path.clone(), entry) {
                if let Some(paths) = index.by_id.get_mut(&old.id) {
                    paths.retain(|p| p != &old.path);
                }
            }
        }
        for entry in index.by_path.values() {
            index.by_id.entry(entry.id.clone()).or_default().push(entry.path.clone());
        }
        index.by_id.retain(|_, paths| !paths.is_empty());
        index
    }

    pub fn len(&self) -> usize {
        self.by_path.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_path.is_empty()
    }

    /// The ID of the document at `path`.
    pub fn id_of_path(&self, path: &str) -> Option<&str> {
        self.by_path.get(path).map(|e| e.id.as_str())
    }

    /// The paths declaring `id` (more than one when the ID is duplicated).
    pub fn paths_of_id(&self, id: &str) -> &[String] {
        self.by_id.get(id).map_or(&[], Vec::as_slice)
    }

    /// IDs declared by more than one file, with those files.
    pub fn duplicate_ids(&self) -> impl Iterator<Item = (&str, &[String])> {
        self.by_id.iter().filter(|(_, p)| p.len() > 1).map(|(id, p)| (id.as_str(), p.as_slice()))
    }

    /// The `duplicate_id` diagnostic for the document at `path`, if its ID is duplicated.
    pub fn duplicate_diagnostic(&self, path: &str) -> Option<Diagnostic> {
        let entry = self.by_path.get(path)?;
        let paths = self.paths_of_id(&entry.id);
        if paths.len() < 2 {
            return None;
        }
        let message = format!(
            "document ID `{}` is declared by {} files: {}; links to it are ambiguous",
            entry.id,
            paths.len(),
            paths.join(", ")
        );
        Some(Diagnostic::error("duplicate_id", message).at(entry.id_location.clone()).on(entry.id.clone()))
    }

    /// Resolve a project-relative document path and optional heading fragment.
    pub fn resolve_path(&self, path: &str, fragment: Option<&str>) -> Resolution {
        match self.by_path.get(path) {
            Some(entry) => section(entry, fragment),
            None if path.to_ascii_lowercase().ends_with(".toml") => Resolution::NotADocument,
            None => Resolution::Missing(format!("no document at `{path}`")),
        }
    }

    /// Resolve a document ID and optional heading fragment.
    pub fn resolve_id(&self, id: &str, fragment: Option<&str>) -> Resolution {
        match self.paths_of_id(id) {
            [] => Resolution::Missing(format!("no document with ID `{id}`")),
            [path] => section(&self.by_path[path], fragment),
            paths => Resolution::Ambiguous(paths.to_vec()),
        }
    }

    /// Resolve a node ID as written in `[relations]`: `doc-id` or `doc-id#slug`.
    pub fn resolve_node_id(&self, target: &str) -> Resolution {
        match target.split_once('#') {
            Some((id, fragment)) => self.resolve_id(id, Some(fragment)),
            None => self.resolve_id(target, None),
        }
    }
}

/// A heading slug (as written, then slugified), else an anchor; each also without GitHub's
/// `user-content-` prefix (which it puts on the IDs it renders, and links may name).
fn section(entry: &DocIndexEntry, fragment: Option<&str>) -> Resolution {
    let Some(fragment) = fragment else { return Resolution::Found(entry.id.clone()) };
    let bare = fragment.strip_prefix("user-content-").filter(|b| !b.is_empty());
    for name in std::iter::once(fragment).chain(bare) {
        if entry.slugs.contains(name) {
            return Resolution::Found(format!("{}#{name}", entry.id));
        }
        if let Some(target) = entry.anchors.get(name) {
            return Resolution::Found(match target {
                Some(slug) => format!("{}#{slug}", entry.id),
                None => entry.id.clone(),
            });
        }
        let slug = slugify(name);
        if entry.slugs.contains(&slug) {
            return Resolution::Found(format!("{}#{slug}", entry.id));
        }
    }
    Resolution::Missing(format!("document `{}` ({}) has no heading `#{fragment}`", entry.id, entry.path))
}
