//! Refusals with stable codes. A refused call wrote nothing.

use serde_json::Value;

/// Why a proposal call was refused. `code` is stable (fronts answer it as is).
#[derive(Clone, Debug, PartialEq)]
pub struct ProposalError {
    pub code: &'static str,
    pub message: String,
    pub remediation: Option<String>,
    /// Structured detail: the conflicting changeset, the node, the path, …
    pub details: serde_json::Map<String, Value>,
}

impl ProposalError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        ProposalError { code, message: message.into(), remediation: None, details: Default::default() }
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new("invalid_arguments", message)
    }
    pub fn remediation(mut self, r: impl Into<String>) -> Self {
        self.remediation = Some(r.into());
        self
    }
    pub fn detail(mut self, key: &str, v: impl Into<Value>) -> Self {
        self.details.insert(key.to_string(), v.into());
        self
    }
    pub fn at_path(self, path: &str) -> Self {
        self.detail("path", path)
    }
    pub fn at_node(self, id: &str) -> Self {
        self.detail("node_id", id)
    }
    pub fn at_op(self, i: Option<usize>) -> Self {
        match i {
            Some(i) => self.detail("operation", i),
            None => self,
        }
    }
}

impl std::fmt::Display for ProposalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for ProposalError {}

/// The refusal codes, for the contract and the handbook.
pub const CODES: &[(&str, &str)] = &[
    ("invalid_arguments", "an argument is missing, unknown, of the wrong type or out of range"),
    ("proposal_access_disabled", "the server was started without --proposal-writer"),
    ("changeset_not_found", "no changeset has this ID"),
    ("changeset_not_owned", "the changeset belongs to another proposal writer"),
    ("changeset_closed", "the changeset is applied or abandoned (terminal)"),
    ("changeset_stale", "the base moved under a touched source: rebase first"),
    ("node_not_found", "no node has this ID (or it is not a document, section or TOML node)"),
    ("node_exists", "a node with this ID, or a file at this path, already exists"),
    ("content_hash_mismatch", "the node's content hash is not the expected_content_hash given"),
    (
        "path_not_allowed",
        "the path is outside the declared document sources, hidden, derived, or through a symlink",
    ),
    (
        "projection_failed",
        "the serializer cannot make this change to the file (e.g. its front matter is not TOML)",
    ),
    ("conflict", "another open changeset touches the same node or source"),
    ("rebase_conflict", "a touched node's content changed since the base: the prose is not merged"),
    ("index_unavailable", "the published index cannot be read"),
    ("base_changed", "the sources changed while the changeset was projected: retry"),
    ("store_error", "the changeset store cannot be read or written"),
    ("unknown_view", "no view with this ID is declared in docforge.toml"),
    ("preview_failed", "the view could not be rendered over the changeset's projected sources"),
    // Canonical application (docforge_apply_changeset).
    ("changeset_hash_mismatch", "the changeset's hash is not the one reviewed: read it again"),
    ("changeset_not_ready", "only a ready changeset (validated, no errors) is applied"),
    ("changeset_already_applied", "the changeset was applied already: never apply again"),
    ("proposal_writer_not_allowed", "its proposal writer is not one [application] accepts"),
    (
        "canonical_applier_required",
        "docforge.toml declares no [application] applier, or the server is not bound to it",
    ),
    ("applier_mismatch", "the applier given is not the one [application] declares"),
    ("application_failed", "the application could not be written; nothing was changed"),
    ("application_verification_failed", "the written files did not verify; the application was undone"),
];
