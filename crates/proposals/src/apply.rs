//! Canonical application: a `ready` changeset written into the project's documents by the
//! declared applier, behind its own gate.
//!
//! Inside the store's lock and an exclusive application lock, the changeset is checked
//! against the current canonical base — its exact hash, its status, every touched source and
//! node, the same operations projecting to the same bytes, validation, overlap, the declared
//! content roots — and then one multi-file transaction (`ProjectWriter::commit`: staged files,
//! a journal, backups, renames, directory fsyncs) writes every projected document *and* the
//! changeset's `applied` record and receipt. So after a crash at any point, once a process
//! has recovered the journal (every `Workspace` binding does before anything else), the
//! content roots hold every old file or every new one, and the changeset says `applied`
//! exactly when they hold the new ones. The written files are then read back and compared
//! with the approved projection; a difference rolls everything back. Derived state (the
//! index, the rendered views) is refreshed last: a failure there is a successful application
//! with a `degraded` refresh report.

use crate::model::{canonical_json, Action, Change, Changeset, Event, Severity, Status};
use crate::{projection, sha256_hex, validate, ProposalError, Proposals, Store};
use docforge_project::{Change as TxChange, Project, ProjectWriter, TransactionError};
use docforge_workspace::Workspace;
use serde::Serialize;
use serde_json::{json, Value};
use std::time::SystemTime;

/// The built-in applier.
pub const APPLIER: &str = "markdown-toml@1";

/// Test hooks (environment variables, read only by this module): abort the process after
/// N durable steps of the write sequence, or make `markdown-toml@1` write one byte more than
/// projected into every document (a serializer fault verification must catch).
pub const ABORT_AFTER_STEPS_ENV: &str = "DOCFORGE_TEST_APPLY_ABORT_AFTER_STEPS";
pub const SERIALIZER_FAULT_ENV: &str = "DOCFORGE_TEST_APPLY_SERIALIZER_FAULT";

/// A canonical applier: the part of application a project integration may supply. The gate
/// around it — the locks, every re-check, the journaled all-or-nothing transaction (which
/// also records the `applied` state), recovery after a crash, the rollback when verification
/// fails, the refresh — is not the applier's to change.
pub trait CanonicalApplier: Send + Sync {
    /// The name `[application] applier` must declare.
    fn name(&self) -> &str;
    /// Refuse a reviewed changeset this applier will not write, beyond the gate's checks
    /// (default: none).
    fn validate(&self, _project: &Project, _changeset: &Changeset) -> Result<(), ProposalError> {
        Ok(())
    }
    /// The bytes to write for one change (`None`: remove the file). Default: exactly the
    /// projected bytes.
    fn serialize(&self, change: &Change) -> Option<Vec<u8>> {
        change.after_bytes()
    }
    /// The changed paths whose files, as written, do not reproduce the approved projection
    /// (default: every file must hold exactly the projected bytes).
    fn verify(&self, project: &Project, changeset: &Changeset) -> Vec<String> {
        differing_files(project, changeset)
    }
}

/// The built-in applier, `markdown-toml@1`: the projected bytes, byte for byte.
pub struct MarkdownToml;

impl CanonicalApplier for MarkdownToml {
    fn name(&self) -> &str {
        APPLIER
    }
    fn serialize(&self, change: &Change) -> Option<Vec<u8>> {
        let mut bytes = change.after_bytes();
        // Test hook: a serializer that writes one byte more than projected.
        if std::env::var_os(SERIALIZER_FAULT_ENV).is_some() {
            if let Some(b) = bytes.as_mut() {
                b.push(b'X');
            }
        }
        bytes
    }
}

/// Check the project's `[application]` declaration against the applier a process was started
/// as (`writer`, and the applier's name): `canonical_applier_required` when there is none,
/// `applier_mismatch` when it names another applier or writer.
pub fn check_declaration(project: &Project, writer: &str, applier: &str) -> Result<(), ProposalError> {
    let Some(a) = &project.config.application else {
        return Err(ProposalError::new(
            "canonical_applier_required",
            "docforge.toml declares no [application] (applier, writer, content_roots): canonical application is off",
        )
        .remediation("declare [application] applier = \"markdown-toml@1\", writer and content_roots"));
    };
    if a.applier != applier {
        return Err(ProposalError::new(
            "applier_mismatch",
            format!("[application] applier = {:?}, but this process applies with {applier:?}", a.applier),
        ));
    }
    if a.writer != writer {
        return Err(ProposalError::new(
            "applier_mismatch",
            format!("[application] writer = {:?}, not {writer:?}", a.writer),
        ));
    }
    Ok(())
}

/// One source the application changed.
#[derive(Clone, Debug, Serialize)]
pub struct Changed {
    pub path: String,
    pub action: Action,
    pub before_sha256: Option<String>,
    pub after_sha256: Option<String>,
}

/// What refreshing the derived state after the canonical write did.
#[derive(Clone, Debug, Serialize)]
pub struct Refresh {
    /// `ok` or `degraded`.
    pub state: &'static str,
    /// The index generation published from the new documents, when it was.
    pub generation: Option<u64>,
    /// Views re-rendered because their inputs changed (view ID, outcome).
    pub views: Vec<(String, String)>,
    pub problems: Vec<String>,
    /// What to run when degraded; never "apply again".
    pub remediation: Vec<String>,
}

/// A canonical application.
#[derive(Clone, Debug, Serialize)]
pub struct Applied {
    pub changeset_id: String,
    pub changeset_sha256: String,
    pub status: Status,
    pub receipt_path: String,
    pub receipt: Value,
    pub changed: Vec<Changed>,
    pub refresh: Refresh,
}

fn tx_err(e: TransactionError) -> ProposalError {
    ProposalError::new(
        "application_failed",
        format!("the documents could not be written; nothing changed: {e}"),
    )
}

/// Apply the changeset `id`, whose hash must be `sha256`, as the applier `writer`.
pub fn apply(
    workspace: &mut Workspace,
    applier: &dyn CanonicalApplier,
    writer: &str,
    id: &str,
    sha256: &str,
    now: SystemTime,
) -> Result<Applied, ProposalError> {
    let project = workspace.project().clone();
    check_declaration(&project, writer, applier.name())?;
    let store = Store::new(&project);
    let _store_lock = store.lock()?;
    let files = ProjectWriter::new(&project.root);
    let _app_lock = files
        .lock(docforge_project::APPLICATION_LOCK)
        .map_err(|e| ProposalError::new("store_error", e.to_string()))?;
    // A crashed application is finished or undone before another starts.
    files.recover(docforge_project::APPLICATION_JOURNAL).map_err(|e| {
        ProposalError::new("application_failed", format!("a pending application cannot be recovered: {e}"))
    })?;
    // The current base, inside both locks: what another application wrote is in it.
    let generation = workspace
        .ensure_current(false)
        .map_err(|e| ProposalError::new("index_unavailable", e.to_string()).remediation("docforge_sync"))?
        .generation;
    let p = Proposals::of(workspace, &generation, None, now);
    let cs = store.load(id)?;
    match cs.status {
        Status::Applied => {
            let receipt = store.read_receipt(id, "applied.json").unwrap_or(Value::Null);
            return Err(ProposalError::new(
                "changeset_already_applied",
                format!("changeset {id} is applied already"),
            )
            .detail("changeset_id", id)
            .detail("receipt", receipt));
        }
        Status::Abandoned => {
            return Err(ProposalError::new("changeset_closed", format!("changeset {id} is abandoned"))
                .detail("changeset_id", id))
        }
        _ => {}
    }
    let not_ready = || {
        ProposalError::new("changeset_not_ready", format!("changeset {id} is a draft: it does not validate"))
            .detail("changeset_id", id)
    };
    // In the documented order: its status, its hash, who proposed it, then its sources.
    if cs.status == Status::Draft {
        return Err(not_ready());
    }
    if !cs.changeset_sha256.eq_ignore_ascii_case(sha256) {
        return Err(ProposalError::new(
            "changeset_hash_mismatch",
            format!("changeset {id} has hash {}, not the {sha256} given: it is not the changeset that was reviewed", cs.changeset_sha256),
        )
        .detail("changeset_sha256", cs.changeset_sha256.as_str()));
    }
    if let Some(allowed) = project.config.application.as_ref().and_then(|a| a.proposal_writers.as_ref()) {
        if !allowed.contains(&cs.writer) {
            return Err(ProposalError::new(
                "proposal_writer_not_allowed",
                format!(
                    "changeset {id} was proposed by {:?}, whom [application] proposal_writers does not list",
                    cs.writer
                ),
            )
            .detail("proposal_writer", cs.writer.as_str()));
        }
    }
    if let Some(stale) = p.stale_sources(&cs)?.first() {
        return Err(ProposalError::new(
            "changeset_stale",
            format!("{stale} changed since the changeset's base"),
        )
        .detail("changeset_id", id)
        .remediation("docforge_rebase_changeset, then review the new hash"));
    }
    if cs.status != Status::Ready {
        return Err(not_ready());
    }
    // Everything again, against the canonical base as it is now.
    let graph = p.graph();
    let projected = projection::project(&graph, cs.operations.clone())?;
    if projected.changes() != cs.changes {
        return Err(ProposalError::new(
            "changeset_stale",
            "on the current base the operations no longer project to the reviewed bytes",
        )
        .detail("changeset_id", id));
    }
    let issues = validate::validate(&graph, &projected)?;
    if let Some(e) = issues.iter().find(|i| i.severity == Severity::Error) {
        return Err(ProposalError::new("validation_failed", format!("{}: {}", e.code, e.message))
            .detail("issues", serde_json::to_value(&issues).unwrap_or_default()));
    }
    let others = store.load_all()?.all_readable()?;
    let paths = cs.paths().map(str::to_string).collect();
    validate::check_overlap(id, &cs.touched_nodes, &paths, &others)?;
    for c in &cs.changes {
        if !project.config.in_content_roots(&c.path) {
            return Err(ProposalError::new(
                "path_not_allowed",
                format!("{} is outside the declared [application] content_roots", c.path),
            )
            .at_path(&c.path));
        }
    }

    // The record and receipt the application commits together with the documents.
    let changed: Vec<Changed> = cs
        .changes
        .iter()
        .map(|c| Changed {
            path: c.path.clone(),
            action: c.action,
            before_sha256: c.before_sha256.clone(),
            after_sha256: c.after_sha256.clone(),
        })
        .collect();
    let at = humantime::format_rfc3339_seconds(now).to_string();
    let receipt = json!({
        "schema_version": 1,
        "kind": "docforge.changeset.applied",
        "changeset_id": id,
        "changeset_sha256": cs.changeset_sha256,
        "applier": APPLIER,
        "applied_by": writer,
        "proposed_by": cs.writer,
        "at": at,
        "base": cs.base,
        "changed": changed,
    });
    let mut record = cs.clone();
    record.status = Status::Applied;
    record.updated_at = at.clone();
    record.events.push(Event {
        event: "applied".into(),
        at,
        writer: writer.into(),
        reason: None,
        changeset_sha256: cs.changeset_sha256.clone(),
    });
    applier.validate(&project, &cs)?;
    let tx = transaction(applier, &store, &cs, &record, &receipt)?;
    write(applier, &project, &files, &cs, &tx)?;
    drop(_app_lock);
    drop(_store_lock);
    let refresh = refresh(workspace);
    Ok(Applied {
        changeset_id: id.to_string(),
        changeset_sha256: cs.changeset_sha256.clone(),
        status: Status::Applied,
        receipt_path: store.receipt_path(id, "applied.json"),
        receipt,
        changed,
        refresh,
    })
}

/// Every file the application writes: the documents, the changeset record, its receipt.
fn transaction(
    applier: &dyn CanonicalApplier,
    store: &Store<'_>,
    cs: &Changeset,
    record: &Changeset,
    receipt: &Value,
) -> Result<Vec<TxChange>, ProposalError> {
    let mut tx: Vec<TxChange> = cs
        .changes
        .iter()
        .map(|c| TxChange {
            path: c.path.clone(),
            after: applier.serialize(c),
            expect: Some(c.before_sha256.clone()),
        })
        .collect();
    let (record_path, record_bytes) = store.record_bytes(record)?;
    let old_record = store.record_file(&cs.changeset_id)?;
    tx.push(TxChange {
        path: record_path,
        after: Some(record_bytes),
        expect: Some(Some(sha256_hex(&old_record))),
    });
    let mut text = canonical_json(receipt);
    text.push('\n');
    tx.push(TxChange {
        path: store.receipt_path(&cs.changeset_id, "applied.json"),
        after: Some(text.into_bytes()),
        expect: Some(None),
    });
    Ok(tx)
}

/// The transaction, verified before it is final (a failed verification or a crash before
/// the end rolls every file back), or (test hook) the process aborted after N durable steps.
fn write(
    applier: &dyn CanonicalApplier,
    project: &Project,
    files: &ProjectWriter,
    cs: &Changeset,
    tx: &[TxChange],
) -> Result<(), ProposalError> {
    let differing = std::cell::RefCell::new(Vec::new());
    let check = || {
        let d = applier.verify(project, cs);
        let out = if d.is_empty() {
            Ok(())
        } else {
            Err(format!("the written files do not reproduce the approved projection: {}", d.join(", ")))
        };
        *differing.borrow_mut() = d;
        out
    };
    let abort_at = std::env::var(ABORT_AFTER_STEPS_ENV).ok().and_then(|v| v.parse::<usize>().ok());
    let done = match abort_at {
        Some(n) => match files.commit_interrupted(docforge_project::APPLICATION_JOURNAL, tx, n, &check) {
            Err(TransactionError::Interrupted { .. }) => std::process::abort(),
            other => other,
        },
        None => files.commit_verified(docforge_project::APPLICATION_JOURNAL, tx, &check),
    };
    done.map_err(|e| match e {
        TransactionError::Verification(why) => {
            let differing = differing.take();
            let nodes = differing_nodes(project, cs, &differing);
            ProposalError::new("application_verification_failed", why + "; every file was rolled back")
                .detail("differing_files", differing)
                .detail("differing_nodes", nodes)
        }
        TransactionError::Changed { path, .. } => ProposalError::new(
            "changeset_stale",
            format!("{path} changed while the application was writing; every file was rolled back"),
        )
        .at_path(&path),
        e => tx_err(e),
    })
}

/// The largest document read back for verification (a change may legitimately grow a file
/// past the size the analysis reads).
const MAX_VERIFIED_BYTES: u64 = 1 << 30;

fn read_now(project: &Project, path: &str) -> Option<Vec<u8>> {
    docforge_project::read_source(&project.root, path, MAX_VERIFIED_BYTES).ok()
}

/// The changed files that do not hold exactly the approved bytes.
pub fn differing_files(project: &Project, cs: &Changeset) -> Vec<String> {
    cs.changes
        .iter()
        .filter(|c| read_now(project, &c.path).as_deref().map(sha256_hex) != c.after_sha256)
        .map(|c| c.path.clone())
        .collect()
}

/// The nodes whose content differs between the approved projection and what `paths` hold now.
fn differing_nodes(project: &Project, cs: &Changeset, paths: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for c in cs.changes.iter().filter(|c| paths.contains(&c.path)) {
        let want = c
            .after_bytes()
            .map(|b| crate::graph::node_hashes(&crate::graph::parse(&c.path, &b)))
            .unwrap_or_default();
        let have = read_now(project, &c.path)
            .map(|b| crate::graph::node_hashes(&crate::graph::parse(&c.path, &b)))
            .unwrap_or_default();
        for (id, h) in &want {
            if have.get(id) != Some(h) {
                out.push(id.clone());
            }
        }
        out.extend(have.keys().filter(|id| !want.contains_key(*id)).cloned());
    }
    out.sort();
    out.dedup();
    out
}

/// Re-sync and publish the index, re-render the views whose inputs changed.
fn refresh(workspace: &mut Workspace) -> Refresh {
    let mut r = Refresh {
        state: "ok",
        generation: None,
        views: Vec::new(),
        problems: Vec::new(),
        remediation: Vec::new(),
    };
    match workspace.ensure_current(false) {
        Ok(s) => r.generation = Some(s.generation.revision),
        Err(e) => {
            r.problems.push(format!("the index could not be refreshed: {e}"));
            r.remediation.push("docforge_sync (or `docforge index`)".into());
        }
    }
    if r.generation.is_some() {
        let project = workspace.project().clone();
        let claims = docforge_render::Claims::recorded(&project, workspace.index());
        let read = docforge_render::project_reader(&project);
        for view in &project.config.views {
            // Only a view rendered before whose inputs changed: a view never rendered (or whose
            // output is missing or unsafe) is the person's to render, not the applier's.
            let status = docforge_render::status(&project, view);
            if status.state != docforge_workspace::ReceiptState::Stale {
                continue;
            }
            let outcome = docforge_render::render_view(&project.id, workspace.index(), view, &read, &claims)
                .map_err(|e| e.to_string())
                .and_then(|rendered| {
                    let generation = workspace.generation().cloned().expect("refreshed");
                    docforge_render::publish(
                        &project,
                        view,
                        &rendered,
                        docforge_render::receipt::IndexStamp::of(&generation),
                        generation.cheap_identity.clone(),
                    )
                    .map_err(|e| e.to_string())
                });
            match outcome {
                Ok(_) => r.views.push((view.id.clone(), "rendered".into())),
                Err(e) => {
                    r.views.push((view.id.clone(), "failed".into()));
                    r.problems.push(format!("view {}: {e}", view.id));
                    r.remediation.push(format!("docforge render --view {}", view.id));
                }
            }
        }
    }
    if !r.problems.is_empty() {
        r.state = "degraded";
    }
    r
}
