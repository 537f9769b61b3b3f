//! The canonical base a changeset is projected onto: the published index generation (what
//! nodes exist, where, with which content hash, what links to them) and the source bytes,
//! read through the confined reader.

use crate::model::Base;
use crate::ProposalError;
use docforge_docs::{DocFacts, DocIndexEntry};
use docforge_index::Index;
use docforge_model::{is_tree_relation, NodeSpan};
use docforge_project::Project;
use std::collections::BTreeMap;

/// A node of the base, as far as proposals need it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BaseNode {
    pub id: String,
    /// `document`, `section`, `toml_node`, or a Go kind.
    pub kind: String,
    pub path: String,
    /// `content_sha256` (hex): the SHA-256 of the node's bytes in its file.
    pub content_sha256: Option<String>,
}

impl BaseNode {
    /// Whether proposals may edit it: a document, a section or a TOML node.
    pub fn is_editable(&self) -> bool {
        matches!(self.kind.as_str(), "document" | "section" | "toml_node")
    }
}

/// An edge into a node of the base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IncomingEdge {
    pub source: String,
    pub relation: String,
    pub target: String,
    /// The file the edge was written in (the linking document), when known.
    pub path: Option<String>,
}

/// The published generation plus the project's files.
pub struct BaseGraph<'a> {
    pub project: &'a Project,
    pub index: &'a Index,
    pub base: Base,
    /// Files parsed during one call, by path and content: projection and validation parse
    /// the same bytes several times.
    pub parses: Parses,
}

/// A memo of parsed files by path and content (one call's worth).
#[derive(Default)]
pub struct Parses {
    memo: std::cell::RefCell<std::collections::HashMap<(String, u64, usize), std::rc::Rc<DocFacts>>>,
}

impl Parses {
    /// The facts of the file at `path` with these bytes, parsed once per call.
    pub fn parse(&self, path: &str, bytes: &[u8]) -> std::rc::Rc<DocFacts> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        bytes.hash(&mut h);
        let key = (path.to_string(), h.finish(), bytes.len());
        if let Some(f) = self.memo.borrow().get(&key) {
            return f.clone();
        }
        let facts = std::rc::Rc::new(parse(path, bytes));
        self.memo.borrow_mut().insert(key, facts.clone());
        facts
    }
}

fn index_err(e: docforge_index::IndexError) -> ProposalError {
    ProposalError::new("index_unavailable", format!("the published index cannot be read: {e}"))
        .remediation("docforge_sync")
}

impl<'a> BaseGraph<'a> {
    pub fn new(project: &'a Project, index: &'a Index, base: Base) -> BaseGraph<'a> {
        BaseGraph { project, index, base, parses: Parses::default() }
    }

    /// [`Parses::parse`] of this call.
    pub fn parse(&self, path: &str, bytes: &[u8]) -> std::rc::Rc<DocFacts> {
        self.parses.parse(path, bytes)
    }

    pub fn node(&self, id: &str) -> Result<Option<BaseNode>, ProposalError> {
        let Some(n) = self.index.node_only(id).map_err(index_err)? else { return Ok(None) };
        let Some(loc) = n.location else { return Ok(None) };
        let content_sha256 = NodeSpan::from_attrs(&n.attrs).ok().flatten().map(|s| s.content_sha256_hex());
        Ok(Some(BaseNode { id: n.id, kind: n.kind, path: loc.path, content_sha256 }))
    }

    pub fn has_node(&self, id: &str) -> Result<bool, ProposalError> {
        self.index.has_node(id).map_err(index_err)
    }

    /// Edges into `id` and into every node inside it (`id#…`), tree edges left out.
    pub fn incoming_within(&self, id: &str) -> Result<Vec<IncomingEdge>, ProposalError> {
        let refs = self.index.references_within(id).map_err(index_err)?;
        Ok(refs
            .incoming
            .into_iter()
            .filter(|e| !is_tree_relation(&e.relation))
            .map(|e| IncomingEdge {
                path: e.location.map(|l| l.path),
                source: e.source,
                relation: e.relation,
                target: e.target,
            })
            .collect())
    }

    /// The document (or TOML node) whose file is `path`, by the nodes of the index.
    pub fn document_at(&self, path: &str) -> Result<Option<BaseNode>, ProposalError> {
        let filter = docforge_index::NodeFilter { path_prefix: Some(path.to_string()), ..Default::default() };
        let rows = self.index.filter_nodes(&filter, None, 10_000).map_err(index_err)?;
        Ok(rows
            .into_iter()
            .filter(|n| {
                matches!(n.kind.as_str(), "document" | "toml_node")
                    && n.location.as_ref().is_some_and(|l| l.path == path)
            })
            .map(|n| BaseNode {
                content_sha256: NodeSpan::from_attrs(&n.attrs).ok().flatten().map(|s| s.content_sha256_hex()),
                path: path.to_string(),
                id: n.id,
                kind: n.kind,
            })
            .next())
    }

    /// The link-resolution entry of the document `id` (path, section slugs) as the index
    /// holds it. HTML anchors and `{#id}` names are not in the index: the validation reads
    /// them from the target's own facts.
    pub fn entry_for_id(&self, id: &str) -> Result<Option<DocIndexEntry>, ProposalError> {
        let Some(node) = self.node(id)? else { return Ok(None) };
        if !matches!(node.kind.as_str(), "document" | "toml_node") {
            return Ok(None);
        }
        let prefix = format!("{id}#");
        let slugs = self
            .index
            .ids_with_prefix(&prefix, 100_000)
            .map_err(index_err)?
            .into_iter()
            .filter_map(|s| s.strip_prefix(&prefix).map(str::to_string))
            .collect();
        Ok(Some(DocIndexEntry { path: node.path, id: id.to_string(), slugs, ..Default::default() }))
    }

    /// The current bytes of a source file; `None` when nothing is there. A path through a
    /// symlink, or to anything but a regular file, is `path_not_allowed`: proposals never
    /// read or write through one.
    pub fn read(&self, path: &str) -> Result<Option<Vec<u8>>, ProposalError> {
        use docforge_project::NotBeneath;
        let refused = |why: String| ProposalError::new("path_not_allowed", why).at_path(path);
        match docforge_project::stat_beneath(&self.project.root, path, false, &mut Default::default()) {
            Ok(_) => {}
            Err(NotBeneath::Missing) => return Ok(None),
            Err(NotBeneath::Symlink(p)) => return Err(refused(format!("{path}: `{p}` is a symlink"))),
            Err(NotBeneath::WrongType(p)) => {
                // A missing file under a path whose parent is a file is still "nothing there"
                // only if the last component is the odd one; anything else is refused.
                return Err(refused(format!("{path}: `{p}` is not a regular file or directory")));
            }
            Err(NotBeneath::Io(e)) => return Err(refused(format!("{path}: {e}"))),
        }
        let limit = self.project.config.limits.max_file_bytes;
        docforge_project::read_source(&self.project.root, path, limit)
            .map(Some)
            .map_err(|e| refused(format!("{path}: {e}")))
    }
}

/// Parse a document file of either format.
pub fn parse(path: &str, bytes: &[u8]) -> DocFacts {
    if path.ends_with(".toml") {
        docforge_docs::parse_toml_node_bytes(path, bytes)
    } else {
        docforge_docs::parse_markdown_bytes(path, bytes)
    }
}

/// Every node ID a parsed file defines, with its content hash (hex).
pub fn node_hashes(facts: &DocFacts) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    if let Some(span) = &facts.span {
        out.insert(facts.id.clone(), span.content_sha256_hex());
    }
    for s in &facts.sections {
        out.insert(s.id.clone(), s.span.content_sha256_hex());
    }
    out
}
