//! Published diagnostics: the engine's diagnostics (broken/ambiguous links, unknown relation
//! targets, invalid front matter, duplicate IDs, Go problems) and the outcome of every
//! `[[claims]]` entry that does not pass, evaluated by the validation crate's evaluator on
//! a snapshot of the current revision (the editor's buffers included).

use crate::convert;
use crate::roots::Folder;
use crate::server::{lock, Shared};
use docforge_db::{doc_claims, extent, Analysis, Cancellable, Cancelled, DocClaim, Graph, Span};
use docforge_model::Severity;
use docforge_validate::{claim_request, evaluate, snapshot_of, GraphView, Outcome, Reason, SystemClock};
use lsp_types::notification::{Progress, PublishDiagnostics};
use lsp_types::{
    Diagnostic, DiagnosticSeverity, NumberOrString, ProgressParams, ProgressParamsValue,
    PublishDiagnosticsParams, WorkDoneProgress, WorkDoneProgressBegin, WorkDoneProgressEnd,
    WorkDoneProgressReport,
};
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

/// One claim with its current outcome.
#[derive(Clone, Debug)]
pub struct ClaimOutcome {
    pub claim: DocClaim,
    pub outcome: Outcome,
    pub reason: String,
    /// The evaluator's own diagnostics, one line each.
    pub detail: Vec<String>,
}

/// LSP diagnostics (with their files) per chunk address.
type ByChunk = HashMap<usize, Arc<Vec<(String, Diagnostic)>>>;

/// Claim outcomes and the graph revision they were evaluated on.
type ClaimsOf = (Arc<Graph>, Arc<Vec<ClaimOutcome>>);

#[derive(Default)]
pub(crate) struct State {
    running: Mutex<()>,
    /// A run is queued and has not started: it will see the latest revision, so no other
    /// is queued.
    pub queued: std::sync::atomic::AtomicBool,
    /// Buffers changed by the editor since the last publication.
    pub edited: Mutex<std::collections::HashSet<String>>,
    published: Mutex<HashMap<String, Vec<Diagnostic>>>,
    claims: Mutex<Option<ClaimsOf>>,
    /// Converted diagnostics per graph chunk (keyed by the chunk's address, kept alive by
    /// the graph they belong to).
    chunks: Mutex<Option<(Arc<Graph>, ByChunk)>>,
}

/// Compute every file's diagnostics of a folder's current revision and publish those that
/// changed (the files of a deeper folder are left to it).
pub(crate) fn publish(shared: &Shared, folder: &Folder) {
    // One run at a time (the first one indexes); taken before the snapshot, so a waiting
    // run holds no database handle that would delay an edit.
    let _one = lock(&folder.diagnostics.running);
    folder.diagnostics.queued.store(false, Ordering::SeqCst);
    // Likewise, a first index waits for another folder's before it takes its snapshot.
    let index = (!folder.indexed.load(Ordering::SeqCst)).then(|| lock(&shared.indexing));
    let generation = folder.generation.load(Ordering::SeqCst);
    let Some(analysis) = folder.analysis() else { return };
    if index.is_some() && analysis.prewarm_with_progress(shared.threads, &folder.progress).is_err() {
        return;
    }
    drop(index);
    let Ok(by_file) = collect(shared, folder, &analysis) else { return };
    drop(analysis);
    let first = !folder.indexed.swap(true, Ordering::SeqCst);
    // What the cold analysis freed (its threads' parse trees and body facts) goes back to the
    // system when this run returns, after publishing; evicting parse memos waits until no
    // request runs (a write).
    let _release = first.then_some(ReleaseOnDrop);
    if first {
        folder.trim_due.store(true, Ordering::SeqCst);
        shared.trim_due.store(true, Ordering::SeqCst);
        let _ = shared.wake.send(());
    }
    if folder.generation.load(Ordering::SeqCst) != generation {
        return; // a newer revision publishes
    }
    let mut published = lock(&folder.diagnostics.published);
    if folder.removed.load(Ordering::SeqCst) {
        return; // its diagnostics were cleared
    }
    // Buffers edited since the last run are always re-published (an editor expects an
    // answer to its edit); other files only when their diagnostics changed.
    let edited: Vec<String> = lock(&folder.diagnostics.edited).drain().collect();
    let mut paths: Vec<String> =
        published.keys().chain(by_file.keys()).chain(edited.iter()).cloned().collect();
    paths.sort();
    paths.dedup();
    for path in paths {
        if !folder.owns(&path) {
            continue;
        }
        let now = by_file.get(&path).cloned().unwrap_or_default();
        let unchanged = published.get(&path).map_or(now.is_empty(), |old| *old == now);
        if unchanged && !edited.contains(&path) {
            continue;
        }
        let params = PublishDiagnosticsParams {
            uri: convert::uri(&folder.root, &path),
            diagnostics: now.clone(),
            version: None,
        };
        shared.notify::<PublishDiagnostics>(params);
        if now.is_empty() {
            published.remove(&path);
        } else {
            published.insert(path, now);
        }
    }
}

/// Returns free memory to the system when dropped.
struct ReleaseOnDrop;

impl Drop for ReleaseOnDrop {
    fn drop(&mut self) {
        docforge_db::release_free_memory();
    }
}

/// Publish empty diagnostics for every file a folder published some for (under `dir`
/// only, when given): the folder was removed, or a deeper folder took those files over.
pub(crate) fn clear(shared: &Shared, folder: &Folder, dir: Option<&str>) {
    let mut published = lock(&folder.diagnostics.published);
    let inside = |path: &str| {
        dir.is_none_or(|d| path.strip_prefix(d).is_some_and(|r| r.is_empty() || r.starts_with('/')))
    };
    let mut paths: Vec<String> = published.keys().filter(|p| inside(p)).cloned().collect();
    paths.sort();
    for path in paths {
        published.remove(&path);
        let uri = convert::uri(&folder.root, &path);
        shared.notify::<PublishDiagnostics>(PublishDiagnosticsParams {
            uri,
            diagnostics: vec![],
            version: None,
        });
    }
}

/// The LSP range of the token at a 1-based `line` and byte `column` of `path` (each file's
/// lines read once per conversion, by `ide`).
fn token_at(
    ide: &docforge_ide::Ide,
    path: &str,
    line: u32,
    column: u32,
    enc: convert::Encoding,
) -> Cancellable<lsp_types::Range> {
    let lines = ide.loaded(path)?;
    Ok(token_range(lines.as_deref().and_then(|l| l.line(line)), line, column, enc))
}

/// LSP diagnostics (with their files) of some engine diagnostics.
fn convert_all<'a>(
    shared: &Shared,
    analysis: &Analysis,
    diagnostics: impl Iterator<Item = &'a docforge_model::Diagnostic>,
) -> Cancellable<Vec<(String, Diagnostic)>> {
    let ide = docforge_ide::Ide::new(analysis);
    let mut out = Vec::new();
    for d in diagnostics {
        let Some(loc) = d.location.as_ref().filter(|l| !l.path.is_empty()) else { continue };
        let severity = match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
            Severity::Info => DiagnosticSeverity::INFORMATION,
        };
        let range = token_at(&ide, &loc.path, loc.line, loc.column, shared.enc)?;
        out.push((loc.path.clone(), lsp_diagnostic(range, severity, &d.code, d.message.clone())));
    }
    Ok(out)
}

fn collect(
    shared: &Shared,
    folder: &Folder,
    analysis: &Analysis,
) -> Cancellable<BTreeMap<String, Vec<Diagnostic>>> {
    let graph = analysis.graph()?;
    let mut out: BTreeMap<String, Vec<Diagnostic>> = BTreeMap::new();
    // Chunks are shared across revisions when unchanged: convert only the new ones.
    let old = lock(&folder.diagnostics.chunks).take();
    let mut converted: ByChunk = HashMap::new();
    for chunk in &graph.chunks {
        let key = Arc::as_ptr(chunk) as usize;
        let done = old.as_ref().and_then(|(_, m)| m.get(&key)).cloned();
        let conv = match done {
            Some(c) => c,
            None => {
                let diags = chunk.owners.iter().flat_map(|o| o.fragment.diagnostics.iter());
                match convert_all(shared, analysis, diags) {
                    Ok(c) => Arc::new(c),
                    Err(e) => {
                        *lock(&folder.diagnostics.chunks) = old;
                        return Err(e);
                    }
                }
            }
        };
        converted.insert(key, conv);
    }
    let extra =
        convert_all(shared, analysis, graph.extra.iter().flat_map(|o| o.fragment.diagnostics.iter()))?;
    for (path, d) in converted.values().flat_map(|c| c.iter()).chain(extra.iter()) {
        out.entry(path.clone()).or_default().push(d.clone());
    }
    *lock(&folder.diagnostics.chunks) = Some((graph.clone(), converted));
    let ide = docforge_ide::Ide::new(analysis);
    for c in claim_outcomes(shared, folder, analysis)?.iter() {
        let severity = match c.outcome {
            Outcome::Pass => continue,
            Outcome::Fail => DiagnosticSeverity::ERROR,
            Outcome::CannotEvaluate => DiagnosticSeverity::WARNING,
        };
        let l = &c.claim.location;
        let range = token_at(&ide, &l.path, l.line, l.column, shared.enc)?;
        let mut message = format!("claim {}: {} ({})", claim_label(&c.claim), c.outcome.as_str(), c.reason);
        for line in &c.detail {
            message.push_str(&format!("\n{line}"));
        }
        out.entry(l.path.clone()).or_default().push(lsp_diagnostic(range, severity, &c.reason, message));
    }
    for list in out.values_mut() {
        list.sort_by(|a, b| (a.range.start, &a.message).cmp(&(b.range.start, &b.message)));
    }
    Ok(out)
}

fn lsp_diagnostic(
    range: lsp_types::Range,
    severity: DiagnosticSeverity,
    code: &str,
    message: String,
) -> Diagnostic {
    Diagnostic {
        range,
        severity: Some(severity),
        code: Some(NumberOrString::String(code.to_string())),
        source: Some("docforge".into()),
        message,
        ..Default::default()
    }
}

/// The range of the token at a 1-based `line` and byte `column`, given that line's text
/// (no text: the file's start).
fn token_range(text: Option<&str>, line: u32, column: u32, enc: convert::Encoding) -> lsp_types::Range {
    let Some(l) = text else { return lsp_types::Range::default() };
    let end = extent(l, column).unwrap_or(column).max(column);
    let mut range = convert::range(&[l], &Span { path: String::new(), line: 1, start: column, end }, enc);
    range.start.line = line - 1;
    range.end.line = line - 1;
    range
}

pub(crate) fn claim_label(c: &DocClaim) -> String {
    match &c.object {
        Some(o) => format!("{} {} -> {}", c.predicate, c.subject, o),
        None => format!("{} {}", c.predicate, c.subject),
    }
}

/// Every claim's outcome in this revision (memoised per graph revision).
pub(crate) fn claim_outcomes(
    shared: &Shared,
    folder: &Folder,
    analysis: &Analysis,
) -> Cancellable<Arc<Vec<ClaimOutcome>>> {
    let claims = doc_claims(analysis)?;
    if claims.is_empty() || !shared.go {
        return Ok(Arc::default());
    }
    let graph = analysis.graph()?;
    if let Some((g, outcomes)) = lock(&folder.diagnostics.claims).as_ref() {
        if Arc::ptr_eq(g, &graph) {
            return Ok(outcomes.clone());
        }
    }
    let version = concat!("docforge-lsp ", env!("CARGO_PKG_VERSION"));
    let outcomes: Vec<ClaimOutcome> =
        match snapshot_of(analysis, &folder.policy, folder.precise, version, &SystemClock) {
            Err(e) if e == "analysis cancelled" => return Err(Cancelled::PendingWrite),
            Err(e) => claims
                .into_iter()
                .map(|claim| ClaimOutcome {
                    claim,
                    outcome: Outcome::CannotEvaluate,
                    reason: Reason::AnalysisIncomplete.as_str().into(),
                    detail: vec![e.clone()],
                })
                .collect(),
            Ok((snapshot, _warnings)) => {
                let view = GraphView::new(&snapshot);
                claims
                    .into_iter()
                    .map(|claim| match claim_request(&claim).binding {
                        Ok(binding) => {
                            let v = evaluate(&view, &binding);
                            let detail =
                                v.diagnostics.iter().map(|d| format!("{}: {}", d.code, d.message)).collect();
                            ClaimOutcome {
                                claim,
                                outcome: v.outcome,
                                reason: v.reason.as_str().into(),
                                detail,
                            }
                        }
                        Err(e) => ClaimOutcome {
                            claim,
                            outcome: Outcome::CannotEvaluate,
                            reason: e.reason.as_str().into(),
                            detail: vec![e.message],
                        },
                    })
                    .collect()
            }
        };
    let outcomes = Arc::new(outcomes);
    *lock(&folder.diagnostics.claims) = Some((graph, outcomes.clone()));
    Ok(outcomes)
}

/// `$/progress` for a folder's first index: begin, a report every 200 ms, end.
pub(crate) fn report_progress(shared: &Shared, folder: &Folder, token: NumberOrString) {
    let send = |value: WorkDoneProgress| {
        let params = ProgressParams { token: token.clone(), value: ProgressParamsValue::WorkDone(value) };
        shared.notify::<Progress>(params);
    };
    send(WorkDoneProgress::Begin(WorkDoneProgressBegin {
        title: format!(
            "docforge: indexing {}",
            folder.root.file_name().unwrap_or_default().to_string_lossy()
        ),
        percentage: Some(0),
        ..Default::default()
    }));
    let running = || {
        !folder.indexed.load(Ordering::SeqCst)
            && !folder.removed.load(Ordering::SeqCst)
            && !shared.stopping.load(Ordering::SeqCst)
    };
    while running() {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let done = folder.progress.done.load(Ordering::Relaxed);
        let total = folder.progress.total.load(Ordering::Relaxed).max(1);
        send(WorkDoneProgress::Report(WorkDoneProgressReport {
            message: Some(format!("{done}/{total}")),
            percentage: Some((done * 100 / total).min(100) as u32),
            ..Default::default()
        }));
    }
    let end = if folder.removed.load(Ordering::SeqCst) { "folder removed" } else { "indexed" };
    send(WorkDoneProgress::End(WorkDoneProgressEnd { message: Some(end.into()) }));
}
