//! One validation operation: decode, load the trusted snapshot, check freshness, evaluate,
//! check freshness again, and produce the closed result. Filesystem and engine access, the
//! clock and the version are injected, so the core is transport-neutral and testable.

use crate::binding::{decode_binding, Binding, BindingError};
use crate::evaluate::{evaluate, GraphView, Verdict, ViewOrder};
use crate::index::IndexRecords;
use crate::manifest::{self, SelectionPolicy};
use crate::readlog::{ReadLog, Recheck};
use crate::report::{
    AnalysisInfo, Diagnostic, Diagnostics, Evaluation, Evidence, Freshness, Outcome, Reason, Repository,
    Request, ValidationResult, RESULT_SCHEMA,
};
use crate::snapshot::Snapshot;
use docforge_db::GoInventory;
use std::sync::OnceLock;

/// Why the trusted snapshot could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphAccessError {
    /// No snapshot exists (`graph_missing`).
    Missing(String),
    /// A symlink, a directory, a special file, outside the root (`graph_invalid`).
    Unsafe(String),
    /// An I/O failure (`graph_invalid`).
    Unreadable(String),
}

/// The trusted snapshot as read for one validation.
pub enum GraphRead {
    /// The exact bytes of `graph.json` (strictly decoded).
    Bytes(Vec<u8>),
    /// The SHA-256 of the exact bytes of `graph.json` and the index those bytes name by its
    /// SHA-256 ([`crate::index`]; decoded instead of the graph when intact).
    Indexed { sha256: String, index: Vec<u8> },
}

/// Where the bytes a decoded snapshot borrows from live during one operation.
#[derive(Default)]
struct GraphBytes {
    json: OnceLock<Vec<u8>>,
    index: OnceLock<Vec<u8>>,
}

/// The current Go source state of the repository.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SourceState {
    pub inventory: GoInventory,
    pub policy: SelectionPolicy,
    /// What the scan read (for a recheck in the same operation).
    pub reads: ReadLog,
}

/// Access to one explicit repository root.
pub trait RepositoryAccess: Sync {
    /// The canonical root, as reported in results.
    fn root(&self) -> String;
    /// The exact bytes of the trusted snapshot.
    fn read_graph(&self) -> Result<Vec<u8>, GraphAccessError>;
    /// The trusted snapshot, through its index when one exists for its exact bytes. By
    /// default, [`RepositoryAccess::read_graph`].
    fn read_graph_indexed(&self) -> Result<GraphRead, GraphAccessError> {
        self.read_graph().map(GraphRead::Bytes)
    }
    /// A fresh scan of the current sources (every call reads them again). `Err` when the
    /// repository cannot be loaded at all (e.g. an invalid `docforge.toml`).
    fn current_sources(&self) -> Result<SourceState, String>;
    /// The scan after evaluation, given what the first scan of the operation read: nothing to
    /// walk or read that the read log's settled stamps vouch for ([`crate::readlog`]). By
    /// default, a full scan.
    fn recheck_sources(&self, before: &ReadLog) -> Result<Recheck, String> {
        let _ = before;
        self.current_sources().map(|s| Recheck::Scanned(Box::new(s)))
    }
}

/// The time source: RFC 3339 UTC timestamps.
pub trait Clock: Sync {
    fn now(&self) -> String;
}

/// One request as received.
#[derive(Clone, Debug)]
pub struct Received {
    pub sha256: String,
    pub binding: Result<Binding, BindingError>,
}

impl Received {
    pub fn from_bytes(bytes: &[u8]) -> Self {
        Received { sha256: crate::sha256_hex(bytes), binding: decode_binding(bytes) }
    }
    /// A request refused before decoding (invalid invocation).
    pub fn refused(bytes: &[u8], message: impl Into<String>) -> Self {
        let e = BindingError { reason: Reason::InvalidRequest, message: message.into(), binding: None };
        Received { sha256: crate::sha256_hex(bytes), binding: Err(e) }
    }
}

pub struct Validator<'a> {
    pub repo: &'a dyn RepositoryAccess,
    pub clock: &'a dyn Clock,
    /// The injected build identifier (`gograph_version`).
    pub version: &'a str,
    /// Called after the first freshness check and evaluation, before the second check (a
    /// test can block here and change the repository).
    pub pause: Option<&'a (dyn Fn() + Sync)>,
}

struct Shared<'g> {
    analysis: AnalysisInfo,
    source_fingerprint: Option<String>,
    /// When set, every valid request gets this verdict instead of an evaluation.
    blocked: Option<(Reason, Vec<Diagnostic>)>,
    /// The snapshot whose bytes were fingerprinted (read once), and where its records are.
    snapshot: Option<(Snapshot<'g>, Loaded<'g>)>,
    /// What the first scan read, for the recheck.
    reads: ReadLog,
}

fn analysis_unknown() -> AnalysisInfo {
    AnalysisInfo {
        graph_schema_version: None,
        source_policy_version: None,
        mode: None,
        precision: None,
        completeness: None,
        freshness: Freshness::Unknown,
        build_context_fingerprint: None,
        graph_fingerprint: None,
        graph_generated_at: None,
    }
}

impl Validator<'_> {
    /// Validate one binding document given as the exact received bytes.
    pub fn validate(&self, bytes: &[u8]) -> ValidationResult {
        self.validate_all(vec![Received::from_bytes(bytes)]).pop().expect("one result per request")
    }

    /// Validate several requests in one operation: one snapshot, one freshness check before
    /// and one after every evaluation. Results are in request order.
    pub fn validate_all(&self, requests: Vec<Received>) -> Vec<ValidationResult> {
        let generated_at = self.clock.now();
        let root = self.repo.root();
        let any_valid = requests.iter().any(|r| r.binding.is_ok());
        // The snapshot's bytes (graph.json's or its index's): its decoded records borrow from them.
        let bytes = GraphBytes::default();
        let mut shared = if any_valid {
            self.load_and_check(&bytes)
        } else {
            Shared {
                analysis: analysis_unknown(),
                source_fingerprint: None,
                blocked: None,
                snapshot: None,
                reads: ReadLog::default(),
            }
        };
        let (mut snapshot, loaded) = match shared.snapshot.take() {
            Some((snap, loaded)) if shared.blocked.is_none() => (Some(snap), Some(loaded)),
            _ => (None, None),
        };
        let view = snapshot.as_ref().zip(loaded).map(|(snap, loaded)| match loaded {
            Loaded::Decoded(order) => GraphView::with_order(snap, order),
            Loaded::Indexed(records) => GraphView::indexed(snap, records),
        });
        let verdicts: Vec<Option<Verdict>> = requests
            .iter()
            .map(|r| match (&r.binding, &view, &shared.blocked) {
                (Ok(b), Some(view), None) => Some(evaluate(view, b)),
                _ => None,
            })
            .collect();
        if let Some(pause) = self.pause {
            pause();
        }
        drop(view);
        if shared.blocked.is_none() && any_valid {
            // Recheck: a change during evaluation must not yield a mixed-snapshot result. The
            // snapshot's records are released beside the scan; its inventory is kept, for
            // diagnostics.
            let records =
                snapshot.as_mut().map(|s| (std::mem::take(&mut s.nodes), std::mem::take(&mut s.edges)));
            let now = std::thread::scope(|s| {
                s.spawn(move || drop(records));
                self.repo.recheck_sources(&shared.reads)
            });
            let old = snapshot.map(|snap| snap.inventory());
            match now {
                Ok(Recheck::Unchanged) => {}
                Ok(Recheck::Scanned(now))
                    if now.inventory.scan_errors.is_empty()
                        && Some(manifest::source_fingerprint(&now.inventory, &now.policy))
                            == shared.source_fingerprint => {}
                Ok(Recheck::Scanned(now)) => {
                    shared.analysis.freshness = Freshness::Stale;
                    let mut d = vec![Diagnostic::new(
                        "source_changed_during_evaluation",
                        "the repository changed while the predicate was evaluated",
                    )];
                    if let Some(old) = old {
                        for (code, path) in manifest::differences(&old, &now.inventory, false) {
                            d.push(with_path(Diagnostic::new(code, code.replace('_', " ")), path));
                        }
                    }
                    shared.source_fingerprint = now
                        .inventory
                        .scan_errors
                        .is_empty()
                        .then(|| manifest::source_fingerprint(&now.inventory, &now.policy));
                    shared.blocked = Some((Reason::GraphStale, d));
                }
                Err(e) => {
                    shared.analysis.freshness = Freshness::Unknown;
                    shared.source_fingerprint = None;
                    shared.blocked =
                        Some((Reason::GraphStale, vec![Diagnostic::new("repository_unreadable", e)]));
                }
            }
        }
        requests
            .into_iter()
            .zip(verdicts)
            .map(|(r, verdict)| self.result(&root, &generated_at, &shared, r, verdict))
            .collect()
    }

    /// Read the snapshot and scan the sources at the same time: the scan runs beside reading,
    /// hashing (one thread) and strictly decoding (this thread) the snapshot's bytes — or,
    /// when the repository has an index of exactly those bytes ([`crate::index`]), beside
    /// hashing them and decoding the index.
    fn load_and_check<'g>(&self, slot: &'g GraphBytes) -> Shared<'g> {
        let (graph, current) = std::thread::scope(|s| {
            let current = s.spawn(|| self.repo.current_sources());
            let decode_json = |bytes: Vec<u8>| {
                let bytes = slot.json.get_or_init(|| bytes);
                std::thread::scope(|t| {
                    let fingerprint = t.spawn(|| crate::sha256_hex(bytes));
                    let snap = Snapshot::decode(bytes).map(with_order);
                    (fingerprint.join().unwrap_or_else(|p| std::panic::resume_unwind(p)), snap)
                })
            };
            let graph = self.repo.read_graph_indexed().and_then(|read| match read {
                GraphRead::Bytes(bytes) => Ok(decode_json(bytes)),
                GraphRead::Indexed { sha256, index } => {
                    match crate::index::decode(slot.index.get_or_init(|| index)) {
                        Ok(snap) => Ok((sha256, snap.map(|(s, records)| (s, Loaded::Indexed(records))))),
                        // Unusable after all: graph.json itself decides.
                        Err(_) => self.repo.read_graph().map(decode_json),
                    }
                }
            });
            (graph, current.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
        });
        let mut shared = Shared {
            analysis: analysis_unknown(),
            source_fingerprint: None,
            blocked: None,
            snapshot: None,
            reads: ReadLog::default(),
        };
        let block = |shared: &mut Shared, reason, d: Diagnostic| shared.blocked = Some((reason, vec![d]));
        let (fingerprint, snap) = match graph {
            Ok(g) => g,
            Err(GraphAccessError::Missing(m)) => {
                block(&mut shared, Reason::GraphMissing, Diagnostic::new("graph_missing", m));
                fill_current(&mut shared, &current);
                return shared;
            }
            Err(GraphAccessError::Unsafe(m) | GraphAccessError::Unreadable(m)) => {
                block(&mut shared, Reason::GraphInvalid, Diagnostic::new("graph_unsafe", m));
                fill_current(&mut shared, &current);
                return shared;
            }
        };
        shared.analysis.graph_fingerprint = Some(fingerprint);
        let (snap, order) = match snap {
            Ok(s) => s,
            Err(e) => {
                block(&mut shared, e.reason, Diagnostic::new(e.code, e.message));
                fill_current(&mut shared, &current);
                return shared;
            }
        };
        let b = &snap.build;
        let a = &mut shared.analysis;
        a.graph_schema_version = Some(snap.schema_version.clone());
        a.source_policy_version = Some(snap.source_policy_version);
        a.mode = Some(b.mode.clone());
        a.precision = Some(b.precision.clone());
        a.completeness = Some(b.completeness.clone());
        a.build_context_fingerprint = Some(b.build_context_fingerprint.clone());
        a.graph_generated_at = Some(snap.generated_at.clone());
        let mut current = match current {
            Ok(c) => c,
            Err(e) => {
                block(&mut shared, Reason::AnalysisIncomplete, Diagnostic::new("repository_unreadable", e));
                return shared;
            }
        };
        let inv = &current.inventory;
        if !inv.scan_errors.is_empty() {
            let mut d = Vec::new();
            for (path, _) in &inv.scan_errors {
                d.push(with_path(
                    Diagnostic::new(
                        "scan_error",
                        "the repository walk failed here; the inventory is unknown",
                    ),
                    path.clone(),
                ));
            }
            shared.blocked = Some((Reason::AnalysisIncomplete, d));
            return shared;
        }
        let fingerprint = manifest::source_fingerprint(inv, &current.policy);
        shared.source_fingerprint = Some(fingerprint.clone());
        if !inv.outside_root.is_empty() {
            let d =
                inv.outside_root.iter().map(|m| Diagnostic::new("source_outside_root", m.clone())).collect();
            shared.blocked = Some((Reason::RepositoryMismatch, d));
            return shared;
        }
        if fingerprint != b.source_fingerprint {
            shared.analysis.freshness = Freshness::Stale;
            let mut d =
                vec![Diagnostic::new("graph_stale", "the sources differ from the graph; run gograph build")];
            for (code, path) in manifest::differences(&snap.inventory(), inv, current.policy != b.policy) {
                d.push(with_path(Diagnostic::new(code, code.replace('_', " ")), path));
            }
            shared.blocked = Some((Reason::GraphStale, d));
            return shared;
        }
        shared.analysis.freshness = Freshness::Current;
        shared.snapshot = Some((snap, order));
        shared.reads = std::mem::take(&mut current.reads);
        shared
    }

    fn result(
        &self,
        root: &str,
        generated_at: &str,
        shared: &Shared<'_>,
        r: Received,
        verdict: Option<Verdict>,
    ) -> ValidationResult {
        let mut diagnostics = Diagnostics::default();
        let (request, outcome, reason, evidence) = match r.binding {
            Err(e) => {
                diagnostics.push(Diagnostic::new(e.reason.as_str(), e.message));
                let request = match &e.binding {
                    Some(b) => {
                        Request::Binding { binding_fingerprint: b.fingerprint(), binding: b.canonical() }
                    }
                    None => Request::Received { received_sha256: r.sha256 },
                };
                (request, Outcome::CannotEvaluate, e.reason, Evidence::default())
            }
            Ok(b) => {
                let request =
                    Request::Binding { binding_fingerprint: b.fingerprint(), binding: b.canonical() };
                match (&shared.blocked, verdict) {
                    (Some((reason, ds)), _) => {
                        for d in ds {
                            diagnostics.push(d.clone());
                        }
                        (request, Outcome::CannotEvaluate, *reason, Evidence::default())
                    }
                    (None, Some(v)) => {
                        for d in v.diagnostics {
                            diagnostics.push(d);
                        }
                        (request, v.outcome, v.reason, v.evidence)
                    }
                    (None, None) => {
                        diagnostics
                            .push(Diagnostic::new("internal_error", "the snapshot could not be evaluated"));
                        (request, Outcome::CannotEvaluate, Reason::InternalError, Evidence::default())
                    }
                }
            }
        };
        debug_assert!(reason.allows(outcome), "{reason:?} with {outcome:?}");
        let (outcome, reason) = if reason.allows(outcome) {
            (outcome, reason)
        } else {
            (Outcome::CannotEvaluate, Reason::InternalError)
        };
        ValidationResult {
            schema_version: RESULT_SCHEMA,
            command: "validate",
            gograph_version: self.version.to_string(),
            generated_at: generated_at.to_string(),
            repository: Repository {
                root: root.to_string(),
                source_fingerprint: shared.source_fingerprint.clone(),
            },
            analysis: shared.analysis.clone(),
            request,
            evaluation: Evaluation { outcome, reason, diagnostics: diagnostics.finish() },
            evidence,
        }
    }
}

/// Where a snapshot's records are.
enum Loaded<'g> {
    /// Decoded from `graph.json`, with their view order (computed beside the source scan).
    Decoded(ViewOrder),
    /// In the graph's index.
    Indexed(IndexRecords<'g>),
}

fn with_order(snap: Snapshot) -> (Snapshot, Loaded) {
    let order = ViewOrder::of(&snap);
    (snap, Loaded::Decoded(order))
}

/// The current source fingerprint, reported even when the graph is unusable.
fn fill_current(shared: &mut Shared, current: &Result<SourceState, String>) {
    if let Ok(c) = current {
        if c.inventory.scan_errors.is_empty() {
            shared.source_fingerprint = Some(manifest::source_fingerprint(&c.inventory, &c.policy));
        }
    }
}

fn with_path(d: Diagnostic, path: String) -> Diagnostic {
    if path.is_empty() {
        d
    } else {
        d.path(path)
    }
}
