//! `docforge changeset …`: the proposal store read (and abandoned) from the command line,
//! over the same `docforge_proposals` API the MCP tools use, with complete, unpaginated
//! results.

use crate::output::print_json;
use crate::stdout::outln;
use docforge_proposals::{Proposals, Severity, Status};
use docforge_workspace::{Options, Workspace};
use serde_json::json;
use std::path::Path;

/// What `docforge changeset` was asked.
#[derive(clap::Subcommand, Debug)]
pub enum ChangesetCommand {
    /// Changesets by status (default: draft and ready).
    List {
        /// Only these statuses (draft, ready, stale, applied, abandoned); repeatable.
        #[arg(long, value_name = "STATUS")]
        status: Vec<String>,
        /// Every status (stale, applied and abandoned too).
        #[arg(long, conflicts_with = "status")]
        history: bool,
    },
    /// One changeset: status, base, touched nodes, operations, changes, findings.
    Show { id: String },
    /// The projected changes as unified diffs against the current files.
    Diff { id: String },
    /// Validate against the current graph (exit 0 when ready, 1 when draft or stale).
    Validate { id: String },
    /// Apply a ready changeset to the documents, as the project's declared applier: only the
    /// changeset whose hash is --sha256, re-checked against the current documents.
    Apply {
        id: String,
        /// The changeset's exact SHA-256, as reviewed.
        #[arg(long, value_name = "HASH")]
        sha256: String,
        /// The applier writer ID; must equal docforge.toml's [application] writer.
        #[arg(long, value_name = "ID")]
        applier: String,
    },
    /// Abandon a changeset (kept, terminal) with an audit receipt.
    Abandon {
        id: String,
        /// Why (kept in the receipt).
        #[arg(long)]
        reason: String,
        /// The proposal writer abandoning it (the one that created it).
        #[arg(long, value_name = "ID")]
        writer: String,
    },
}

impl ChangesetCommand {
    fn writer(&self) -> Option<&str> {
        match self {
            ChangesetCommand::Abandon { writer, .. } => Some(writer),
            ChangesetCommand::Apply { applier, .. } => Some(applier),
            _ => None,
        }
    }
}

fn refusal(e: docforge_proposals::ProposalError) -> String {
    match &e.remediation {
        Some(r) => format!("{}: {} ({})", e.code, e.message, on_the_command_line(r)),
        None => format!("{}: {}", e.code, e.message),
    }
}

/// A remediation the proposal API words for MCP agents, in this command line's terms: the
/// commands that do the same, else the MCP tool named as such.
fn on_the_command_line(remediation: &str) -> String {
    const SAME: &[(&str, &str)] = &[
        ("docforge_list_changesets with history=true", "docforge changeset list --history"),
        ("docforge_search or docforge_filter_nodes", "docforge search"),
        ("docforge_rebase_changeset", "the MCP tool docforge_rebase_changeset"),
        ("docforge_sync", "docforge index"),
    ];
    SAME.iter().fold(remediation.to_string(), |r, (tool, command)| r.replace(tool, command))
}

/// Run one `docforge changeset` command. `Ok(false)`: it ran, and the answer is "not ready"
/// (validate's exit 1).
pub fn run(root: &Path, command: &ChangesetCommand, json: bool) -> Result<bool, String> {
    if let Some(w) = command.writer() {
        if !docforge_proposals::is_writer_id(w) {
            return Err(format!(
                "--writer {w:?}: 1–128 characters of letters, digits, `.`, `_`, `:`, `/`, `-`"
            ));
        }
    }
    let mut workspace = Workspace::bind(root, Options::default()).map_err(|e| e.to_string())?;
    if let ChangesetCommand::Apply { id, sha256, applier } = command {
        let a = docforge_proposals::apply::apply(
            &mut workspace,
            &docforge_proposals::apply::MarkdownToml,
            applier,
            id,
            sha256,
            std::time::SystemTime::now(),
        )
        .map_err(refusal)?;
        if json {
            print_json(&versioned("apply", &a));
        } else {
            outln!(
                "applied {} ({} files changed), receipt {}",
                a.changeset_id,
                a.changed.len(),
                a.receipt_path
            );
            for c in &a.changed {
                outln!("  {:?} {}", c.action, c.path);
            }
            match a.refresh.generation {
                Some(g) => outln!("index generation {g}"),
                None => outln!("index not refreshed"),
            }
            for (view, outcome) in &a.refresh.views {
                outln!("view {view}: {outcome}");
            }
            if a.refresh.state != "ok" {
                outln!("refresh degraded: {}", a.refresh.problems.join("; "));
                outln!("run: {}", a.refresh.remediation.join(", "));
            }
        }
        return Ok(true);
    }
    let g = workspace.ensure_current(false).map_err(|e| e.to_string())?.generation;
    let p = Proposals::of(&workspace, &g, command.writer(), std::time::SystemTime::now());
    match command {
        ChangesetCommand::List { status, history } => {
            let statuses = status
                .iter()
                .map(|s| {
                    Status::parse(s).ok_or_else(|| {
                        format!("unknown status {s:?} (draft, ready, stale, applied, abandoned)")
                    })
                })
                .collect::<Result<Vec<_>, _>>()?;
            let (list, unreadable) =
                p.listing((!statuses.is_empty()).then_some(&statuses[..]), *history).map_err(refusal)?;
            // Never hidden: a record that cannot be read is named on stderr (and in the JSON).
            for (id, why) in &unreadable {
                eprintln!("docforge: warning: changeset {id} cannot be read: {why}");
            }
            if json {
                let unreadable: Vec<_> = unreadable
                    .iter()
                    .map(|(id, why)| json!({ "changeset_id": id, "message": why }))
                    .collect();
                print_json(&json!({
                    "schema_version": "docforge.changeset_list.v1",
                    "changesets": list,
                    "unreadable": unreadable,
                }));
            } else if list.is_empty() {
                outln!("no changesets");
            } else {
                for s in &list {
                    outln!(
                        "{}  {:<9}  {} op  {} changes  {} errors  {}",
                        s.changeset_id,
                        s.status.as_str(),
                        s.operations,
                        s.changes,
                        s.errors,
                        s.title
                    );
                }
            }
        }
        ChangesetCommand::Show { id } => {
            let c = p.get(id).map_err(refusal)?;
            if json {
                print_json(&versioned("show", &c));
            } else {
                let cs = &c.changeset;
                outln!("{} {} ({})", cs.changeset_id, c.status.as_str(), cs.title);
                outln!("sha256 {}", cs.changeset_sha256);
                outln!("writer {}, created {}, updated {}", cs.writer, cs.created_at, cs.updated_at);
                for s in &c.stale_sources {
                    outln!("stale: {s} changed since the base");
                }
                for (i, o) in cs.operations.iter().enumerate() {
                    outln!("  op {i}: {} {}", o.name(), o.node_id());
                }
                for ch in &cs.changes {
                    outln!("  {:?} {}", ch.action, ch.path);
                }
                print_issues(&cs.validation);
            }
        }
        ChangesetCommand::Diff { id } => {
            let c = p.get(id).map_err(refusal)?;
            let diffs = p.diffs(&c.changeset).map_err(refusal)?;
            if json {
                print_json(&json!({
                    "schema_version": "docforge.changeset_diff.v1",
                    "changeset_id": c.changeset.changeset_id,
                    "changeset_sha256": c.changeset.changeset_sha256,
                    "status": c.status,
                    "operations": c.changeset.operations,
                    "changes": c.changeset.changes,
                    "diffs": diffs,
                }));
            } else {
                for d in &diffs {
                    match (&d.unified_diff, &d.note) {
                        (Some(text), _) => crate::stdout::out!("{text}"),
                        (None, note) => outln!(
                            "{} {}: {}",
                            d.path,
                            d.after_sha256.as_deref().unwrap_or("deleted"),
                            note.as_deref().unwrap_or("")
                        ),
                    }
                }
            }
        }
        ChangesetCommand::Validate { id } => {
            let v = p.validate(id).map_err(refusal)?;
            if json {
                print_json(&versioned("validate", &v));
            } else {
                print_issues(&v.issues);
                outln!("{} {}", v.changeset_id, v.status.as_str());
            }
            return Ok(v.status == Status::Ready);
        }
        ChangesetCommand::Apply { .. } => unreachable!("applied above, with the binding itself"),
        ChangesetCommand::Abandon { id, reason, .. } => {
            let a = p.abandon(id, reason).map_err(refusal)?;
            if json {
                print_json(&versioned("abandon", &a));
            } else {
                outln!("abandoned {} (receipt {})", a.changeset.changeset_id, a.receipt_path);
            }
        }
    }
    Ok(true)
}

fn print_issues(issues: &[docforge_proposals::Issue]) {
    for i in issues {
        let severity = if i.severity == Severity::Error { "error" } else { "warning" };
        let at = i.path.as_deref().unwrap_or("");
        outln!("{severity} {} {at} {}", i.code, i.message);
    }
}

/// `value` as the JSON document of `docforge changeset <command> --json`, which names its
/// schema first (`docforge.changeset_<command>.v1`).
fn versioned(command: &str, value: &impl serde::Serialize) -> serde_json::Value {
    let mut doc = serde_json::Map::new();
    doc.insert("schema_version".into(), format!("docforge.changeset_{command}.v1").into());
    match serde_json::to_value(value).expect("serialises") {
        serde_json::Value::Object(fields) => doc.extend(fields),
        other => {
            doc.insert("result".into(), other);
        }
    }
    serde_json::Value::Object(doc)
}
