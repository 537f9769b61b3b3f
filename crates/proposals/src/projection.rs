//! Projection: the operations applied in order to the base's files, in memory. For every
//! touched file it yields the bytes at the base and the exact bytes the serializer would
//! write; operations on existing nodes get the node's base content hash (captured when the
//! caller gave none, compared when it did).

use crate::edit::{self, Format};
use crate::graph::{self, BaseGraph};
use crate::model::{Action, Change, Issue, NodeCreate, Operation, TouchedNode};
use crate::ProposalError;
use base64::Engine as _;
use docforge_docs::DocFacts;
use docforge_project::FileKind;
use std::collections::{BTreeMap, BTreeSet};

/// One touched file: its bytes at the base (`None`: created) and as projected (`None`:
/// deleted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileState {
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

/// A changeset's operations applied to the base.
#[derive(Clone, Debug, Default)]
pub struct Projection {
    /// The operations, each existing-node one with its expected content hash filled in.
    pub operations: Vec<Operation>,
    /// Every file an operation read or wrote, by path.
    pub files: BTreeMap<String, FileState>,
    pub touched: Vec<TouchedNode>,
    /// What projecting found worth saying (operations without effect).
    pub notes: Vec<Issue>,
}

/// A digest of the projected bytes of every file the projection changes so far (to tell
/// whether an operation did anything; a file read but left as it was does not count).
fn afters(files: &BTreeMap<String, FileState>) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for (path, f) in files.iter().filter(|(_, f)| f.before != f.after) {
        h.update(path.as_bytes());
        match &f.after {
            Some(b) => {
                h.update([1]);
                h.update((b.len() as u64).to_le_bytes());
                h.update(b);
            }
            None => h.update([u8::from(f.before.is_some()) + 2]),
        }
    }
    h.finalize().into()
}

impl Projection {
    /// The files whose bytes change, in path order.
    pub fn changes(&self) -> Vec<Change> {
        let hash = |b: &Option<Vec<u8>>| b.as_deref().map(crate::model::sha256_hex);
        self.files
            .iter()
            .filter(|(_, f)| f.before != f.after)
            .map(|(path, f)| {
                let action = match (&f.before, &f.after) {
                    (None, _) => Action::Create,
                    (_, None) => Action::Delete,
                    _ => Action::Modify,
                };
                let (after_text, after_base64) = match &f.after {
                    None => (None, None),
                    Some(b) => match std::str::from_utf8(b) {
                        Ok(t) => (Some(t.to_string()), None),
                        Err(_) => (None, Some(base64::engine::general_purpose::STANDARD.encode(b))),
                    },
                };
                Change {
                    path: path.clone(),
                    action,
                    before_sha256: hash(&f.before),
                    after_sha256: hash(&f.after),
                    after_text,
                    after_base64,
                }
            })
            .collect()
    }
}

fn format_of(path: &str) -> Format {
    if path.ends_with(".toml") {
        Format::Toml
    } else {
        Format::Markdown
    }
}

/// Where a node is inside its parsed file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Place {
    Document,
    Section(usize),
}

fn place(facts: &DocFacts, id: &str) -> Option<Place> {
    if facts.id == id {
        return Some(Place::Document);
    }
    facts.sections.iter().position(|s| s.id == id).map(Place::Section)
}

/// An existing node found for an operation: its file, its hash at the base, the projected
/// bytes of its file, their parse and the node's place in them.
struct Located {
    path: String,
    /// Where the node was at the base (its path before any move).
    base_path: String,
    base_hash: Option<String>,
    bytes: Vec<u8>,
    facts: std::rc::Rc<DocFacts>,
    place: Place,
}

struct Projector<'g, 'a> {
    graph: &'g BaseGraph<'a>,
    out: Projection,
    /// Nodes created or moved by earlier operations: ID → path.
    placed: BTreeMap<String, String>,
    /// Nodes deleted by earlier operations: ID → operation index.
    deleted: BTreeMap<String, usize>,
    touched: BTreeMap<String, TouchedNode>,
}

/// Apply `ops` to the base. A refusal names the operation (`details.operation`).
pub fn project(graph: &BaseGraph<'_>, ops: Vec<Operation>) -> Result<Projection, ProposalError> {
    let mut p = Projector {
        graph,
        out: Projection::default(),
        placed: Default::default(),
        deleted: Default::default(),
        touched: Default::default(),
    };
    for (i, op) in ops.into_iter().enumerate() {
        let was = afters(&p.out.files);
        let op = p.apply(i, op).map_err(|e| e.at_op(Some(i)))?;
        if afters(&p.out.files) == was {
            let message =
                format!("operation {i} ({}) changes nothing: the node already says that", op.name());
            p.out.notes.push(Issue::warning("no_effect", message).op(Some(i)).node(op.node_id()));
        }
        p.out.operations.push(op);
    }
    p.out.touched = p.touched.into_values().collect();
    Ok(p.out)
}

/// A node ID a create may introduce: non-empty, one line, no whitespace, no `#` (sections
/// are named by their headings), not a `go:` node.
pub fn check_node_id(id: &str) -> Result<(), ProposalError> {
    if id.is_empty() || id.len() > 512 || id.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(ProposalError::invalid(format!(
            "node_id {id:?} must be 1–512 characters without whitespace"
        )));
    }
    if id.contains('#') || id.starts_with("go:") {
        return Err(ProposalError::invalid(format!(
            "node_id {id:?}: a new document's ID has no `#` and does not start with `go:`"
        )));
    }
    Ok(())
}

impl Projector<'_, '_> {
    fn path_allowed(&self, path: &str) -> Result<FileKind, ProposalError> {
        self.graph.project.document_kind(path).ok_or_else(|| {
            ProposalError::new(
                "path_not_allowed",
                format!(
                    "{path:?} is not a document path of this project: it must be a relative `.md` (or `.toml`) path \
                     matched by sources.docs ({:?}), not excluded or ignored, with no hidden, `.`/`..` component \
                     and outside the state, changeset, preview and view output directories",
                    self.graph.project.config.sources.docs
                ),
            )
            .at_path(path)
        })
    }

    /// The file at `path`, read from the base on first use.
    fn file(&mut self, path: &str) -> Result<&mut FileState, ProposalError> {
        if !self.out.files.contains_key(path) {
            let before = self.graph.read(path)?;
            self.out.files.insert(path.to_string(), FileState { after: before.clone(), before });
        }
        Ok(self.out.files.get_mut(path).expect("inserted"))
    }

    /// Find an existing node for an operation: its path, its base hash, the projected
    /// bytes of its file and its place in them.
    fn locate(&mut self, id: &str) -> Result<Located, ProposalError> {
        if let Some(k) = self.deleted.get(id) {
            return Err(ProposalError::new(
                "node_not_found",
                format!("node {id:?} is deleted by operation {k}"),
            )
            .at_node(id));
        }
        let (path, base_path, base_hash) = match self.placed.get(id) {
            // Created or moved by an earlier operation: bound to what the node was at the
            // base, if it existed there (a section of a moved document did).
            Some(path) => match self.touched.get(id) {
                Some(t) => (path.clone(), t.path.clone(), t.before_content_sha256.clone()),
                None => match self.graph.node(id)? {
                    Some(n) => (path.clone(), n.path, n.content_sha256),
                    None => (path.clone(), path.clone(), None),
                },
            },
            None => {
                let node = self.graph.node(id)?.ok_or_else(|| {
                    ProposalError::new("node_not_found", format!("no node {id:?} in the current graph"))
                        .at_node(id)
                        .remediation("find the exact ID with docforge_search or docforge_filter_nodes")
                })?;
                if !node.is_editable() {
                    return Err(ProposalError::new(
                        "node_not_found",
                        format!(
                            "node {id:?} is a `{}` node; proposals edit documents, sections and TOML nodes",
                            node.kind
                        ),
                    )
                    .at_node(id));
                }
                let hash = node.content_sha256.clone();
                // The index must describe the bytes on disk: else the base moved under us.
                let file = self.file(&node.path)?;
                let before = file.before.clone().ok_or_else(|| base_changed(&node.path))?;
                let facts = self.graph.parse(&node.path, &before);
                if graph::node_hashes(&facts).get(id) != hash.as_ref() {
                    return Err(base_changed(&node.path));
                }
                (node.path.clone(), node.path, hash)
            }
        };
        let bytes = self.out.files.get(&path).and_then(|f| f.after.clone()).ok_or_else(|| {
            ProposalError::new(
                "node_not_found",
                format!("node {id:?}: its file {path} is deleted by an earlier operation"),
            )
            .at_node(id)
        })?;
        let facts = self.graph.parse(&path, &bytes);
        let place = place(&facts, id).ok_or_else(|| {
            ProposalError::new(
                "node_not_found",
                format!("node {id:?} is no longer in {path} after the earlier operations (a heading's ID follows its text)"),
            )
            .at_node(id)
        })?;
        Ok(Located { path, base_path, base_hash, bytes, facts, place })
    }

    fn touch(&mut self, id: &str, path: &str, before: Option<String>) {
        self.touched.entry(id.to_string()).or_insert_with(|| TouchedNode {
            node_id: id.to_string(),
            path: path.to_string(),
            before_content_sha256: before,
        });
    }

    fn set_after(&mut self, path: &str, after: Option<Vec<u8>>) {
        self.out.files.get_mut(path).expect("read before it is written").after = after;
    }

    fn apply(&mut self, i: usize, mut op: Operation) -> Result<Operation, ProposalError> {
        if let Operation::NodeCreate(c) = &op {
            self.create(c)?;
            return Ok(op);
        }
        let id = op.node_id().to_string();
        let Located { path, base_path, base_hash, bytes, facts, place } = self.locate(&id)?;
        // The expected hash is the node's at the base: compared when given, captured when not.
        let expected = op.expected_hash_mut().expect("not a create");
        match (&*expected, &base_hash) {
            (Some(want), Some(have)) if !want.eq_ignore_ascii_case(have) => {
                return Err(ProposalError::new(
                    "content_hash_mismatch",
                    format!("node {id:?} has content hash {have}, not the expected {want}"),
                )
                .at_node(&id)
                .detail("current_content_hash", have.as_str())
                .remediation(
                    "read the node again (docforge_get_node) and propose against what it says now",
                ));
            }
            (Some(_), None) => {
                return Err(ProposalError::invalid(format!(
                    "node {id:?} is created by this changeset: it has no content hash to expect"
                ))
                .at_node(&id))
            }
            (Some(want), Some(_)) => *expected = Some(want.to_ascii_lowercase()),
            (None, _) => *expected = base_hash.clone(),
        }
        self.touch(&id, &base_path, base_hash);
        let format = format_of(&path);
        let failed = |e: String| ProposalError::new("projection_failed", format!("{path}: {e}")).at_node(&id);
        match &op {
            Operation::NodeCreate(_) => unreachable!(),
            Operation::NodeUpdate(u) => {
                if u.title.is_none() && u.body.is_none() && u.fields.is_none() {
                    return Err(ProposalError::invalid(
                        "node_update needs at least one of title, body, fields",
                    ));
                }
                if let Some(title) = &u.title {
                    edit::check_title(title).map_err(ProposalError::invalid)?;
                }
                let mut bytes = bytes;
                if let Some(fields) = &u.fields {
                    if let Place::Section(_) = place {
                        return Err(ProposalError::invalid(format!(
                            "node {id:?} is a section: fields are the front matter of its document"
                        )));
                    }
                    edit::check_fields(fields, true).map_err(ProposalError::invalid)?;
                    let facts = self.graph.parse(&path, &bytes);
                    bytes = edit::edit_toml(&bytes, &facts, format, |d| edit::set_fields(d, fields))
                        .map_err(failed)?;
                }
                if let Some(body) = &u.body {
                    let facts = self.graph.parse(&path, &bytes);
                    bytes = match (format, place) {
                        (Format::Toml, _) => edit::edit_toml(&bytes, &facts, format, |d| {
                            d["text"] = toml_edit::value(body.as_str());
                            Ok(())
                        }),
                        (Format::Markdown, Place::Document) => edit::set_body(&bytes, &facts, None, body),
                        (Format::Markdown, Place::Section(_)) => {
                            let s = place_in(&facts, &id)?;
                            edit::set_body(&bytes, &facts, Some(s), body)
                        }
                    }
                    .map_err(failed)?;
                }
                if let Some(title) = &u.title {
                    let facts = self.graph.parse(&path, &bytes);
                    bytes = match place {
                        Place::Document => edit::set_document_title(&bytes, &facts, format, title),
                        Place::Section(_) => {
                            let s = place_in(&facts, &id)?;
                            edit::set_heading(&bytes, &facts, s, title)
                        }
                    }
                    .map_err(failed)?;
                }
                self.set_after(&path, Some(bytes));
            }
            Operation::RelationshipUpdate(r) => {
                let add = pairs(r.add.as_deref());
                let remove = pairs(r.remove.as_deref());
                if add.is_empty() && remove.is_empty() {
                    return Err(ProposalError::invalid(
                        "relationship_update needs a non-empty add or remove list",
                    ));
                }
                if let Place::Section(_) = place {
                    return Err(ProposalError::invalid(format!(
                        "node {id:?} is a section: relations are declared in its document's front matter"
                    )));
                }
                if let Some((n, t)) = add.iter().find(|p| remove.contains(p)) {
                    return Err(ProposalError::invalid(format!("`{n}` → `{t}` is both added and removed")));
                }
                for (name, target) in add.iter().chain(&remove) {
                    if !edit::is_relation_name(name) {
                        return Err(ProposalError::invalid(format!(
                            "relation name {name:?} is not an identifier (letters, digits, `_`, not starting with a digit)"
                        )));
                    }
                    if target.trim().is_empty() || target.contains(['\n', '\r']) {
                        return Err(ProposalError::invalid(format!(
                            "relation {name:?}: the target must be a node ID"
                        )));
                    }
                }
                let bytes =
                    edit::edit_toml(&bytes, &facts, format, |d| edit::update_relations(d, &add, &remove))
                        .map_err(failed)?;
                self.set_after(&path, Some(bytes));
            }
            Operation::NodeDelete(_) => match place {
                Place::Document => {
                    self.set_after(&path, None);
                    self.deleted.insert(id.clone(), i);
                    for s in &facts.sections {
                        self.deleted.insert(s.id.clone(), i);
                    }
                }
                Place::Section(k) => {
                    let end = facts.sections[k].span.span.end;
                    for s in facts.sections.iter().filter(|s| {
                        s.span.span.start >= facts.sections[k].span.span.start && s.span.span.end <= end
                    }) {
                        self.deleted.insert(s.id.clone(), i);
                    }
                    self.set_after(&path, Some(edit::delete_section(&bytes, &facts, k)));
                }
            },
            Operation::NodeMove(m) => {
                if let Place::Section(_) = place {
                    return Err(ProposalError::invalid(format!(
                        "node {id:?} is a section: only a document file moves (edit the headings to restructure)"
                    )));
                }
                let kind = self.path_allowed(&m.new_path)?;
                let same_format = matches!(
                    (kind, format),
                    (FileKind::Markdown, Format::Markdown) | (FileKind::TomlNode, Format::Toml)
                );
                if !same_format {
                    return Err(ProposalError::new(
                        "path_not_allowed",
                        format!("{:?}: a move keeps the file's format ({path} → {})", m.new_path, m.new_path),
                    )
                    .at_path(&m.new_path));
                }
                self.vacant(&m.new_path)?;
                // The ID stays: when it came from the old path, it is written down.
                let bytes = if facts.id_from_path {
                    edit::edit_toml(&bytes, &facts, format, |d| {
                        d["id"] = toml_edit::value(id.as_str());
                        Ok(())
                    })
                    .map_err(failed)?
                } else {
                    bytes
                };
                self.set_after(&path, None);
                self.set_after(&m.new_path, Some(bytes));
                self.placed.insert(id.clone(), m.new_path.clone());
                for s in &facts.sections {
                    self.placed.insert(s.id.clone(), m.new_path.clone());
                }
            }
        }
        Ok(op)
    }

    /// Nothing is at `path`, on disk or in the projection.
    fn vacant(&mut self, path: &str) -> Result<(), ProposalError> {
        let file = self.file(path)?;
        if file.after.is_some() {
            return Err(ProposalError::new("node_exists", format!("a file exists at {path}")).at_path(path));
        }
        // A file deleted earlier in this changeset may be written again.
        Ok(())
    }

    fn create(&mut self, c: &NodeCreate) -> Result<(), ProposalError> {
        check_node_id(&c.node_id)?;
        let kind = self.path_allowed(&c.path)?;
        if kind != FileKind::Markdown {
            return Err(ProposalError::invalid(format!(
                "{:?}: node_create writes Markdown documents (`.md`); TOML node files are not created by proposals",
                c.path
            )));
        }
        let mut fields = c.fields.clone().unwrap_or_default();
        edit::check_fields(&fields, false).map_err(ProposalError::invalid)?;
        if let Some(kind) = &c.kind {
            match fields.get("kind") {
                Some(v) if v.as_str() != Some(kind.as_str()) => {
                    return Err(ProposalError::invalid("`kind` and `fields.kind` disagree"))
                }
                _ => {
                    fields.insert("kind".into(), kind.clone().into());
                }
            }
        }
        let relations = c.relations.clone().unwrap_or_default();
        for (name, targets) in &relations {
            if !edit::is_relation_name(name) {
                return Err(ProposalError::invalid(format!("relation name {name:?} is not an identifier")));
            }
            if targets.iter().any(|t| t.trim().is_empty()) {
                return Err(ProposalError::invalid(format!("relation {name:?}: a target is empty")));
            }
        }
        let exists_now = (self.graph.has_node(&c.node_id)? && !self.deleted.contains_key(&c.node_id))
            || self.placed.contains_key(&c.node_id);
        if exists_now {
            return Err(ProposalError::new("node_exists", format!("a node {:?} already exists", c.node_id))
                .at_node(&c.node_id));
        }
        self.vacant(&c.path)?;
        let bytes = edit::new_document(&c.node_id, &c.title, c.body.as_deref(), &fields, &relations)
            .map_err(ProposalError::invalid)?;
        self.set_after(&c.path, Some(bytes));
        self.placed.insert(c.node_id.clone(), c.path.clone());
        self.deleted.remove(&c.node_id);
        self.touch(&c.node_id, &c.path, None);
        Ok(())
    }
}

fn place_in(facts: &DocFacts, id: &str) -> Result<usize, ProposalError> {
    facts.sections.iter().position(|s| s.id == id).ok_or_else(|| {
        ProposalError::new("node_not_found", format!("section {id:?} is gone after the earlier edits"))
            .at_node(id)
    })
}

fn pairs(list: Option<&[crate::model::RelationRef]>) -> Vec<(String, String)> {
    let set: BTreeSet<(String, String)> =
        list.unwrap_or_default().iter().map(|r| (r.relation.clone(), r.target.clone())).collect();
    set.into_iter().collect()
}

fn base_changed(path: &str) -> ProposalError {
    ProposalError::new(
        "base_changed",
        format!("{path} differs from what the published index says: the sources changed since the last synchronisation"),
    )
    .at_path(path)
    .remediation("synchronise (docforge_sync) and retry")
}
