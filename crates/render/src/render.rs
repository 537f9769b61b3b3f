//! A view rendered in memory: every page, the site's index and stylesheet, and the inputs the
//! pages were made from. Nothing is written here (see `publish.rs`).

use crate::graph::{DocGraph, Nodes};
use crate::outline::{sections_by_document, Outline, OutlineSection};
use crate::page::{index_page, page, Site, CSS, CSS_PATH};
use crate::receipt::InputFile;
use crate::view::{all_documents, grouped, select, Doc};
use crate::{Claims, RenderError};
use docforge_index::Index;
use docforge_project::{Renderer, View};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};

/// How the renderer reads a document's bytes (the confined project reader, or a test's).
pub type SourceRead<'r> = dyn Fn(&str) -> Result<Vec<u8>, String> + 'r;

/// The project's confined reader within its file size limit, as a [`SourceRead`].
pub fn project_reader(project: &docforge_project::Project) -> impl Fn(&str) -> Result<Vec<u8>, String> + '_ {
    let reader = docforge_project::SourceReader::new(&project.root);
    let limit = project.config.limits.max_file_bytes;
    move |rel| reader.read_into_vec(rel, limit).map_err(|e| e.to_string())
}

/// A view rendered in memory.
#[derive(Clone, Debug)]
pub struct Rendered {
    /// Output files (path inside the output → bytes), in path order.
    pub files: Vec<(String, Vec<u8>)>,
    /// The documents rendered, as the index recorded them (and their bytes hashed to), and
    /// the claim outcomes receipt the pages show.
    pub inputs: Vec<InputFile>,
    /// How many documents were rendered.
    pub documents: usize,
}

/// Render `view` from the published generation in `index` and the documents' bytes.
/// Every document's bytes must be the ones the index was derived from (same SHA-256), or
/// nothing is rendered ([`RenderError::SourceChanged`]).
pub fn render_view(
    project_id: &str,
    index: &Index,
    view: &View,
    read: &SourceRead<'_>,
    claims: &Claims,
) -> Result<Rendered, RenderError> {
    // One generation for every page, even when another process publishes meanwhile.
    index.read_snapshot(|index| render_in_snapshot(project_id, index, view, read, claims))
}

fn render_in_snapshot(
    project_id: &str,
    index: &Index,
    view: &View,
    read: &SourceRead<'_>,
    claims: &Claims,
) -> Result<Rendered, RenderError> {
    let all = all_documents(index)?;
    let selected: BTreeMap<String, Doc> = select(view, &all).into_iter().map(|d| (d.id.clone(), d)).collect();
    check_pages(view, &selected)?;
    let nav =
        grouped(selected.values()).into_iter().map(|((family, kind), docs)| (family, kind, docs)).collect();
    let records: HashMap<String, docforge_index::FileRecord> =
        index.files()?.into_iter().map(|f| (f.path.clone(), f)).collect();
    let mut sections = sections_by_document(index)?;
    let documents = document_index(&all, &sections);
    let site = Site {
        project_id,
        view_id: &view.id,
        renderer: view.renderer,
        docs: &selected,
        nav: crate::nav::Nav::new(nav),
        documents,
    };
    let ids: Vec<&str> = selected.keys().map(String::as_str).collect();
    let mut graphs = DocGraph::load_each(index, &ids)?;
    let mut nodes = Nodes::default();
    let mut files = Vec::with_capacity(selected.len() + 2);
    let mut inputs = Vec::with_capacity(selected.len());
    for doc in selected.values() {
        // The bytes must be those the index was derived from: the outline and the graph are
        // the index's.
        let bytes =
            read(&doc.path).map_err(|message| RenderError::Source { path: doc.path.clone(), message })?;
        let sha256 = hex::encode(Sha256::digest(&bytes));
        let Some(record) = records.get(&doc.path).filter(|r| r.sha256 == sha256) else {
            return Err(RenderError::SourceChanged { path: doc.path.clone() });
        };
        inputs.push(InputFile {
            path: doc.path.clone(),
            size: record.size,
            mtime_ns: record.mtime_ns,
            ctime_ns: record.ctime_ns,
            sha256,
        });
        let outline = Outline::of(doc, sections.remove(&doc.id).unwrap_or_default(), &bytes);
        let graph = graphs.remove(&doc.id).expect("every selected document's graph");
        let html = page(&site, index, &mut nodes, doc, &bytes, &outline, &graph, claims)?;
        files.push((doc.page.clone(), html.into_bytes()));
    }
    if view.renderer == Renderer::HtmlSite1 {
        files.push(("index.html".to_string(), index_page(&site).into_bytes()));
    }
    files.push((CSS_PATH.to_string(), CSS.as_bytes().to_vec()));
    files.sort_by(|a, b| a.0.cmp(&b.0));
    let documents = inputs.len();
    inputs.extend(claims.input().cloned());
    Ok(Rendered { files, inputs, documents })
}

/// Every page has one source: no two selected documents share a page, and none is a file the
/// renderer writes itself (the stylesheet, the site index).
fn check_pages(view: &View, selected: &BTreeMap<String, Doc>) -> Result<(), RenderError> {
    // Each page's source, and whether it is the renderer's own file.
    let mut owners: BTreeMap<&str, (String, bool)> = BTreeMap::new();
    owners.insert(CSS_PATH, ("the stylesheet".into(), true));
    if view.renderer == Renderer::HtmlSite1 {
        owners.insert("index.html", ("the site index".into(), true));
    }
    let mut docs: Vec<&Doc> = selected.values().collect();
    docs.sort_by(|a, b| a.path.cmp(&b.path));
    for doc in docs {
        if let Some((first, reserved)) = owners.insert(&doc.page, (doc.path.clone(), false)) {
            // The renderer's own file is named second: the document is what must move.
            let (first, second) =
                if reserved { (doc.path.clone(), first) } else { (first, doc.path.clone()) };
            return Err(RenderError::PageConflict { page: doc.page.clone(), first, second });
        }
    }
    Ok(())
}

/// The documents as the engine resolves links against them: every document's path, ID,
/// heading slugs and explicit `{#id}` heading anchors, from the index. (HTML anchors are not
/// in the index: a link the engine resolved is matched with its edge; only a later link of a
/// section to a target an earlier one names is resolved here, and a fragment that names
/// nothing known leads to the document.)
fn document_index(all: &[Doc], sections: &BTreeMap<String, Vec<OutlineSection>>) -> docforge_docs::DocIndex {
    let entries = all.iter().map(|d| {
        let own = sections.get(&d.id).map(Vec::as_slice).unwrap_or_default();
        // A heading's explicit `{#id}` is in its title; the first of a name wins.
        let mut anchors = BTreeMap::new();
        for s in own {
            if let Some(id) = docforge_docs::heading_id(&s.title) {
                anchors.entry(id.to_string()).or_insert_with(|| Some(s.slug.clone()));
            }
        }
        docforge_docs::DocIndexEntry {
            path: d.path.clone(),
            id: d.id.clone(),
            slugs: own.iter().map(|s| s.slug.clone()).collect(),
            anchors,
            ..Default::default()
        }
    });
    docforge_docs::DocIndex::from_entries(entries)
}
