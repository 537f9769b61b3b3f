//! Changesets: an agent's proposed edits to the project's documents, kept apart from the
//! canonical files until an application gate applies them.
//!
//! A changeset is an ordered list of [`Operation`]s plus their projection onto the current
//! canonical base: for every touched source file its SHA-256 at the base and the exact bytes
//! the generic serializer ([`edit`], `markdown-toml@1`) would write. Its SHA-256 over
//! canonical JSON binds base, operations and projection. [`Proposals`] is the whole API the
//! fronts use (the MCP tools and `docforge changeset`): every mutation runs under the store's
//! OS file lock, re-projects, checks overlap with other open changesets, validates and writes
//! the record atomically below the changeset root — and nowhere else.
//!
//! Transport-neutral: plain Rust data in and out, errors with stable codes, the clock and the
//! writer identity injected.

pub mod apply;
pub mod diff;
pub mod edit;
mod error;
pub mod graph;
mod model;
mod preview;
pub mod projection;
mod store;
pub mod validate;

pub use error::{ProposalError, CODES};
pub use graph::{BaseGraph, BaseNode};
pub use model::{
    canonical_json, severity_counts, sha256_hex, Action, Base, Change, Changeset, Event, Issue, NodeCreate,
    NodeDelete, NodeMove, NodeUpdate, Operation, RelationRef, RelationshipUpdate, Severity, Status,
    TouchedNode, SCHEMA_VERSION,
};
pub use preview::{preview, Preview, PreviewDocument};
pub use store::{is_changeset_id, Loaded, Store};

use docforge_index::Index;
use docforge_project::Project;
use serde::Serialize;
use std::collections::BTreeSet;
use std::time::SystemTime;

/// The longest title and description accepted.
pub const MAX_TITLE: usize = 200;
pub const MAX_DESCRIPTION: usize = 10_000;

/// The characters a writer ID may use (as the coordination server's IDs).
pub fn is_writer_id(id: &str) -> bool {
    (1..=128).contains(&id.len()) && id.bytes().all(|b| b.is_ascii_alphanumeric() || b"._:/-".contains(&b))
}

/// One binding of the proposal API: the project, the published generation it reads, the
/// bound writer (`None`: read-only) and the clock.
pub struct Proposals<'a> {
    pub project: &'a Project,
    pub index: &'a Index,
    pub base: Base,
    pub writer: Option<&'a str>,
    pub now: SystemTime,
}

/// A changeset as read now: the stored record and its effective status (`stale` when a
/// touched source moved since its base), with why.
#[derive(Clone, Debug, Serialize)]
pub struct Current {
    pub changeset: Changeset,
    pub status: Status,
    /// Why it is stale (touched sources whose bytes are no longer the base's).
    pub stale_sources: Vec<String>,
}

/// A changeset listed: what identifies it, without its operations and changes.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    pub changeset_id: String,
    pub changeset_sha256: String,
    pub title: String,
    pub status: Status,
    pub writer: String,
    pub created_at: String,
    pub updated_at: String,
    pub operations: usize,
    pub changes: usize,
    pub errors: usize,
    pub warnings: usize,
}

/// A fresh validation of a stored changeset against the current graph (nothing written).
#[derive(Clone, Debug, Serialize)]
pub struct Validation {
    pub changeset_id: String,
    pub changeset_sha256: String,
    /// The status the findings imply now (`stale`, `draft` or `ready`; terminal states as stored).
    pub status: Status,
    pub stored_status: Status,
    pub issues: Vec<Issue>,
    pub stale_sources: Vec<String>,
}

/// A rebase's outcome.
#[derive(Clone, Debug, Serialize)]
pub struct Rebased {
    pub changeset: Changeset,
    /// False when the changeset was not stale: nothing was written.
    pub rebased: bool,
    pub previous_sha256: String,
}

/// An abandonment: the changeset (kept) and the audit receipt written beside it.
#[derive(Clone, Debug, Serialize)]
pub struct Abandoned {
    pub changeset: Changeset,
    pub receipt_path: String,
    pub receipt: serde_json::Value,
}

/// The errors of a changeset's findings, by code and message.
fn errors_of(cs: &Changeset) -> BTreeSet<(String, String)> {
    cs.validation
        .iter()
        .filter(|i| i.severity == Severity::Error)
        .map(|i| (i.code.clone(), i.message.clone()))
        .collect()
}

fn timestamp(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

impl<'a> Proposals<'a> {
    /// The proposal API over a workspace binding, at the generation it published.
    pub fn of(
        workspace: &'a docforge_workspace::Workspace,
        generation: &docforge_workspace::Generation,
        writer: Option<&'a str>,
        now: SystemTime,
    ) -> Proposals<'a> {
        Proposals {
            project: workspace.project(),
            index: workspace.index(),
            base: Base {
                revision: generation.revision,
                source_hash: generation.source_hash.clone(),
                graph_digest: generation.graph_digest.clone(),
            },
            writer,
            now,
        }
    }

    pub(crate) fn graph(&self) -> BaseGraph<'a> {
        BaseGraph::new(self.project, self.index, self.base.clone())
    }

    fn store(&self) -> Store<'a> {
        Store::new(self.project)
    }

    fn writer(&self) -> Result<&'a str, ProposalError> {
        self.writer.ok_or_else(|| {
            ProposalError::new("proposal_access_disabled", "this process has no proposal writer bound")
                .remediation("start the server with --proposal-writer WRITER_ID")
        })
    }

    fn check_text(title: &str, description: Option<&str>) -> Result<(), ProposalError> {
        if title.trim().is_empty() || title.chars().count() > MAX_TITLE || title.contains(['\n', '\r']) {
            return Err(ProposalError::invalid(format!(
                "title must be one non-empty line of at most {MAX_TITLE} characters"
            )));
        }
        if description.is_some_and(|d| d.chars().count() > MAX_DESCRIPTION) {
            return Err(ProposalError::invalid(format!(
                "description is longer than {MAX_DESCRIPTION} characters"
            )));
        }
        Ok(())
    }

    fn event(&self, event: &str, writer: &str, reason: Option<String>, cs: &Changeset) -> Event {
        Event {
            event: event.into(),
            at: timestamp(self.now),
            writer: writer.into(),
            reason,
            changeset_sha256: cs.changeset_sha256.clone(),
        }
    }

    fn new_changeset(&self, id: String, writer: &str, title: &str, description: Option<&str>) -> Changeset {
        Changeset {
            schema_version: SCHEMA_VERSION,
            changeset_id: id,
            title: title.trim().to_string(),
            description: description.map(str::to_string),
            writer: writer.to_string(),
            created_at: timestamp(self.now),
            updated_at: timestamp(self.now),
            status: Status::Draft,
            base: self.base.clone(),
            operations: Vec::new(),
            changes: Vec::new(),
            touched_nodes: Vec::new(),
            validation: Vec::new(),
            changeset_sha256: String::new(),
            events: Vec::new(),
        }
    }

    /// Project `ops` onto the current base into `cs`, check overlap against the other open
    /// changesets and validate (the lock is held by the caller).
    fn fill(
        &self,
        cs: &mut Changeset,
        ops: Vec<Operation>,
        others: &[Changeset],
    ) -> Result<(), ProposalError> {
        let graph = self.graph();
        let p = projection::project(&graph, ops)?;
        let changes = p.changes();
        let paths: BTreeSet<String> = changes.iter().map(|c| c.path.clone()).collect();
        validate::check_overlap(&cs.changeset_id, &p.touched, &paths, others)?;
        cs.validation = validate::validate(&graph, &p)?;
        cs.operations = p.operations;
        cs.touched_nodes = p.touched;
        cs.changes = changes;
        cs.base = self.base.clone();
        cs.settle_status();
        cs.changeset_sha256 = cs.compute_hash();
        cs.updated_at = timestamp(self.now);
        Ok(())
    }

    /// `docforge_create_changeset`: an empty `draft` bound to the current base.
    pub fn create(&self, title: &str, description: Option<&str>) -> Result<Changeset, ProposalError> {
        let writer = self.writer()?;
        Self::check_text(title, description)?;
        let store = self.store();
        let _lock = store.lock()?;
        let mut cs = self.new_changeset(store.new_id(self.now, title)?, writer, title, description);
        self.fill(&mut cs, Vec::new(), &[])?;
        cs.events.push(self.event("created", writer, None, &cs));
        store.save(&cs)?;
        Ok(cs)
    }

    /// `docforge_register_changes`: create, populate, project, conflict-check and validate
    /// one complete changeset in one locked operation.
    pub fn register(
        &self,
        title: &str,
        description: Option<&str>,
        ops: Vec<Operation>,
    ) -> Result<Changeset, ProposalError> {
        let writer = self.writer()?;
        Self::check_text(title, description)?;
        if ops.is_empty() {
            return Err(ProposalError::invalid("operations is empty: register at least one operation"));
        }
        let store = self.store();
        let _lock = store.lock()?;
        let others = store.load_all()?.all_readable()?;
        let mut cs = self.new_changeset(store.new_id(self.now, title)?, writer, title, description);
        self.fill(&mut cs, ops, &others)?;
        cs.events.push(self.event("created", writer, None, &cs));
        store.save(&cs)?;
        Ok(cs)
    }

    /// `docforge_propose_node_*` and `docforge_propose_relationship_update`: append one
    /// operation to an open changeset of this writer. Returns the changeset and the new
    /// operation's index.
    pub fn propose(&self, changeset_id: &str, op: Operation) -> Result<(Changeset, usize), ProposalError> {
        let writer = self.writer()?;
        let store = self.store();
        let _lock = store.lock()?;
        let mut cs = self.owned_open(&store, changeset_id, writer)?;
        if let Some(stale) = self.stale_sources(&cs)?.first() {
            return Err(ProposalError::new(
                "changeset_stale",
                format!("{stale} changed since the changeset's base; rebase it before adding operations"),
            )
            .detail("changeset_id", changeset_id)
            .remediation("docforge_rebase_changeset"));
        }
        let others = store.load_all()?.all_readable()?;
        let mut ops = cs.operations.clone();
        ops.push(op);
        let index = ops.len() - 1;
        self.fill(&mut cs, ops, &others)?;
        cs.events.push(self.event("operation_added", writer, None, &cs));
        store.save(&cs)?;
        Ok((cs, index))
    }

    fn owned_open(&self, store: &Store<'_>, id: &str, writer: &str) -> Result<Changeset, ProposalError> {
        let cs = store.load(id)?;
        if cs.writer != writer {
            return Err(ProposalError::new(
                "changeset_not_owned",
                format!("changeset {id} belongs to proposal writer {:?}, not {writer:?}", cs.writer),
            )
            .detail("changeset_id", id));
        }
        if !cs.status.is_open() {
            return Err(ProposalError::new(
                "changeset_closed",
                format!("changeset {id} is {}", cs.status.as_str()),
            )
            .detail("changeset_id", id)
            .detail("status", cs.status.as_str()));
        }
        Ok(cs)
    }

    /// Touched sources whose current bytes are not the base's the changeset projected from.
    pub fn stale_sources(&self, cs: &Changeset) -> Result<Vec<String>, ProposalError> {
        let graph = self.graph();
        let mut out = Vec::new();
        for c in &cs.changes {
            let now = match graph.read(&c.path) {
                Ok(b) => b.map(|b| sha256_hex(&b)),
                Err(_) => Some(String::from("unreadable")),
            };
            if now != c.before_sha256 {
                out.push(c.path.clone());
            }
        }
        Ok(out)
    }

    /// The unified diffs of a changeset's changes against the current files.
    pub fn diffs(&self, cs: &Changeset) -> Result<Vec<diff::FileDiff>, ProposalError> {
        diff::file_diffs(&self.graph(), cs)
    }

    /// A stored changeset with its effective status.
    pub fn get(&self, id: &str) -> Result<Current, ProposalError> {
        let cs = self.store().load(id)?;
        self.current(cs)
    }

    fn current(&self, cs: Changeset) -> Result<Current, ProposalError> {
        let stale_sources = if cs.status.is_open() { self.stale_sources(&cs)? } else { Vec::new() };
        let status = if stale_sources.is_empty() { cs.status } else { Status::Stale };
        Ok(Current { changeset: cs, status, stale_sources })
    }

    /// Every changeset whose effective status is in `statuses` (default: draft and ready;
    /// `history` adds stale, applied and abandoned), ordered by creation then ID.
    pub fn list(&self, statuses: Option<&[Status]>, history: bool) -> Result<Vec<Summary>, ProposalError> {
        Ok(self.listing(statuses, history)?.0)
    }

    /// [`Proposals::list`], with the records that cannot be read ([`Unreadable`]), which no
    /// status can be given: a listing never hides them.
    pub fn listing(
        &self,
        statuses: Option<&[Status]>,
        history: bool,
    ) -> Result<(Vec<Summary>, Unreadable), ProposalError> {
        let wanted: Vec<Status> = match (statuses, history) {
            (Some(s), _) => s.to_vec(),
            (None, true) => Status::ALL.to_vec(),
            (None, false) => vec![Status::Draft, Status::Ready],
        };
        let loaded = self.store().load_all()?;
        let (all, unreadable) = (loaded.changesets, loaded.unreadable);
        let mut out = Vec::new();
        for cs in all {
            let c = self.current(cs)?;
            if !wanted.contains(&c.status) {
                continue;
            }
            let cs = &c.changeset;
            out.push(Summary {
                changeset_id: cs.changeset_id.clone(),
                changeset_sha256: cs.changeset_sha256.clone(),
                title: cs.title.clone(),
                status: c.status,
                writer: cs.writer.clone(),
                created_at: cs.created_at.clone(),
                updated_at: cs.updated_at.clone(),
                operations: cs.operations.len(),
                changes: cs.changes.len(),
                errors: severity_counts(&cs.validation).0,
                warnings: severity_counts(&cs.validation).1,
            });
        }
        out.sort_by(|a, b| (&a.created_at, &a.changeset_id).cmp(&(&b.created_at, &b.changeset_id)));
        Ok((out, unreadable))
    }

    /// Validate a stored changeset against the current graph, writing nothing.
    pub fn validate(&self, id: &str) -> Result<Validation, ProposalError> {
        let c = self.get(id)?;
        let cs = &c.changeset;
        let mut v = Validation {
            changeset_id: cs.changeset_id.clone(),
            changeset_sha256: cs.changeset_sha256.clone(),
            status: c.status,
            stored_status: cs.status,
            issues: Vec::new(),
            stale_sources: c.stale_sources.clone(),
        };
        if !cs.status.is_open() {
            v.issues = cs.validation.clone();
            return Ok(v);
        }
        if !c.stale_sources.is_empty() {
            v.issues = c
                .stale_sources
                .iter()
                .map(|p| {
                    Issue::error(
                        "changeset_stale",
                        format!("{p} changed since the changeset's base; rebase it"),
                    )
                    .at(p.clone())
                })
                .collect();
            return Ok(v);
        }
        let graph = self.graph();
        let p = projection::project(&graph, cs.operations.clone())?;
        if p.changes() != cs.changes {
            v.status = Status::Stale;
            v.issues.push(Issue::error(
                "projection_changed",
                "the operations no longer project to the stored changes on the current base; rebase it",
            ));
            return Ok(v);
        }
        v.issues = validate::validate(&graph, &p)?;
        let others = self.store().load_all()?.all_readable()?;
        let paths: BTreeSet<String> = cs.paths().map(str::to_string).collect();
        if let Err(e) = validate::check_overlap(&cs.changeset_id, &cs.touched_nodes, &paths, &others) {
            v.issues.push(Issue::error("conflict", e.message));
        }
        let errors = v.issues.iter().any(|i| i.severity == Severity::Error);
        v.status = if errors || cs.operations.is_empty() { Status::Draft } else { Status::Ready };
        Ok(v)
    }

    /// `docforge_rebase_changeset`: move a stale changeset to the current base when every
    /// touched node is unchanged and the same operations still validate; never merges prose.
    pub fn rebase(&self, id: &str) -> Result<Rebased, ProposalError> {
        let writer = self.writer()?;
        let store = self.store();
        let _lock = store.lock()?;
        let mut cs = self.owned_open(&store, id, writer)?;
        let previous_sha256 = cs.changeset_sha256.clone();
        if self.stale_sources(&cs)?.is_empty() {
            return Ok(Rebased { changeset: cs, rebased: false, previous_sha256 });
        }
        let graph = self.graph();
        for t in &cs.touched_nodes {
            let now = graph.node(&t.node_id)?;
            let conflict = match (&t.before_content_sha256, &now) {
                (Some(before), Some(n)) => n.content_sha256.as_ref() != Some(before),
                (Some(_), None) => true,
                (None, Some(_)) => true,
                (None, None) => false,
            };
            if conflict {
                let what = match (&t.before_content_sha256, &now) {
                    (Some(_), None) => "was deleted",
                    (None, Some(_)) => "was created meanwhile",
                    _ => "changed",
                };
                return Err(ProposalError::new(
                    "rebase_conflict",
                    format!(
                        "node {:?} {what} since the changeset's base; its prose is not merged",
                        t.node_id
                    ),
                )
                .at_node(&t.node_id)
                .detail("changeset_id", id)
                .remediation(
                    "abandon this changeset and propose the change again against the current node",
                ));
            }
        }
        let others = store.load_all()?.all_readable()?;
        let ops = cs.operations.clone();
        let before: BTreeSet<(String, String)> = errors_of(&cs);
        self.fill(&mut cs, ops, &others)?;
        // Only when the same operations still validate: an error the current base brings
        // keeps the changeset where it was.
        if let Some(new) = cs
            .validation
            .iter()
            .find(|i| i.severity == Severity::Error && !before.contains(&(i.code.clone(), i.message.clone())))
        {
            return Err(ProposalError::new(
                "rebase_conflict",
                format!(
                    "on the current base the operations no longer validate: {}: {}",
                    new.code, new.message
                ),
            )
            .detail("changeset_id", id)
            .detail("issue", serde_json::to_value(new).unwrap_or_default())
            .remediation(
                "abandon this changeset and propose the change again against the current documents",
            ));
        }
        cs.events.push(self.event("rebased", writer, None, &cs));
        store.save(&cs)?;
        Ok(Rebased { changeset: cs, rebased: true, previous_sha256 })
    }

    /// `docforge_abandon_changeset`: mark it abandoned (kept, terminal) and write an audit
    /// receipt: who, when, why, and the hash abandoned.
    pub fn abandon(&self, id: &str, reason: &str) -> Result<Abandoned, ProposalError> {
        let writer = self.writer()?;
        if reason.trim().is_empty() || reason.chars().count() > MAX_DESCRIPTION {
            return Err(ProposalError::invalid(format!(
                "reason must be non-empty and at most {MAX_DESCRIPTION} characters"
            )));
        }
        let store = self.store();
        let _lock = store.lock()?;
        let mut cs = self.owned_open(&store, id, writer)?;
        let receipt = serde_json::json!({
            "schema_version": 1,
            "kind": "docforge.changeset.abandoned",
            "changeset_id": id,
            "changeset_sha256": cs.changeset_sha256,
            "writer": writer,
            "at": timestamp(self.now),
            "reason": reason,
            "status_before": cs.status,
        });
        // Written before the record: an abandonment whose record failed to save left no
        // committed state, and its retry replaces this receipt.
        let receipt_path = store.write_receipt(id, "abandoned.json", &receipt)?;
        cs.status = Status::Abandoned;
        cs.updated_at = timestamp(self.now);
        cs.events.push(self.event("abandoned", writer, Some(reason.to_string()), &cs));
        store.save(&cs)?;
        Ok(Abandoned { changeset: cs, receipt_path, receipt })
    }
}

/// Changeset records that cannot be read: each one's ID and why.
pub type Unreadable = Vec<(String, String)>;
