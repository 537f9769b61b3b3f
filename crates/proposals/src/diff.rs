//! A changeset's changes as unified diffs against the current files, for reading.

use crate::model::{Action, Change, Changeset};
use crate::{sha256_hex, BaseGraph, ProposalError};
use serde::Serialize;

/// One change with its unified diff (`None` when a side is not text or the file is no
/// longer the base's: then `note` says why).
#[derive(Clone, Debug, Serialize)]
pub struct FileDiff {
    pub path: String,
    pub action: Action,
    pub before_sha256: Option<String>,
    pub after_sha256: Option<String>,
    pub unified_diff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// Unified diffs (3 lines of context) of every change of `cs`.
pub fn file_diffs(graph: &BaseGraph<'_>, cs: &Changeset) -> Result<Vec<FileDiff>, ProposalError> {
    cs.changes.iter().map(|c| file_diff(graph, c)).collect()
}

fn file_diff(graph: &BaseGraph<'_>, c: &Change) -> Result<FileDiff, ProposalError> {
    let mut d = FileDiff {
        path: c.path.clone(),
        action: c.action,
        before_sha256: c.before_sha256.clone(),
        after_sha256: c.after_sha256.clone(),
        unified_diff: None,
        note: None,
    };
    let before = match c.action {
        Action::Create => Some(Vec::new()),
        _ => match graph.read(&c.path) {
            Ok(Some(b)) if Some(sha256_hex(&b)) == c.before_sha256 => Some(b),
            _ => None,
        },
    };
    let Some(before) = before else {
        d.note = Some("the file is no longer the base's: rebase the changeset to see its diff".into());
        return Ok(d);
    };
    let after = c.after_bytes().unwrap_or_default();
    match (std::str::from_utf8(&before), std::str::from_utf8(&after)) {
        (Ok(b), Ok(a)) => {
            let text = similar::TextDiff::from_lines(b, a);
            let old =
                if c.action == Action::Create { "/dev/null".to_string() } else { format!("a/{}", c.path) };
            let new =
                if c.action == Action::Delete { "/dev/null".to_string() } else { format!("b/{}", c.path) };
            d.unified_diff = Some(text.unified_diff().context_radius(3).header(&old, &new).to_string());
        }
        _ => d.note = Some("not UTF-8 text: compare the SHA-256s".into()),
    }
    Ok(d)
}
