//! The four v1 predicates over a trusted snapshot: exact, byte-equal, case-sensitive
//! resolution (never a search), and the predicate-specific negative-result rules.
//!
//! Conventions of the precise layer this evaluator reads (see docs/validation.md):
//! `implements` edges concrete type -> interface with attr `receiver` = `value`|`pointer`;
//! `calls` edges with attr `classification` = `resolved_static`|`cha_possible_target`|
//! `synthetic`; func/method attrs `unresolved_calls` (count) and `calls_resolved` (`true`
//! when every call site resolved within the supported static call model).

use crate::binding::{Binding, Precision, Predicate, RefKind, Reference};
use crate::index::IndexRecords;
use crate::report::{Diagnostic, Evidence, MatchedRelation, Outcome, Reason, Resolved, SourceLocation};
use crate::snapshot::{SnapEdge, SnapNode, Snapshot};
use std::cmp::Ordering;
use std::collections::HashSet;

/// The result of evaluating one binding against one snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub outcome: Outcome,
    pub reason: Reason,
    pub diagnostics: Vec<Diagnostic>,
    pub evidence: Evidence,
}

impl Verdict {
    fn new(outcome: Outcome, reason: Reason, evidence: Evidence) -> Self {
        Verdict { outcome, reason, diagnostics: Vec::new(), evidence }
    }
    fn note(mut self, d: Diagnostic) -> Self {
        self.diagnostics.push(d);
        self
    }
}

/// Exact lookups over a snapshot: binary searches over the nodes in ID order and the edges in
/// (source, relation, target) order. `gograph build` writes them in that order, so usually
/// nothing is built; a snapshot in another order gets a sorted index (stable, so nodes and
/// edges with equal keys keep the snapshot's order).
pub struct GraphView<'a> {
    snap: &'a Snapshot<'a>,
    records: Records<'a>,
    duplicated: HashSet<&'a str>,
}

/// Where the records are.
enum Records<'a> {
    /// In the snapshot.
    Decoded {
        /// Node indices in ID order; `None` when the nodes are already in that order.
        node_order: Option<Vec<u32>>,
        /// Edge indices in (source, relation, target) order; `None` when already in that order.
        edge_order: Option<Vec<u32>>,
    },
    /// In an index of the snapshot's graph (already in key order).
    Indexed(IndexRecords<'a>),
}

enum Lookup<'a> {
    Found(SnapNode<'a>),
    Missing,
    Ambiguous(usize),
}

/// `None` when `items` are in `key` order, else their indices in that order (stable).
fn order_by<'a, T, K: Ord>(items: &'a [T], key: impl Fn(&'a T) -> K) -> Option<Vec<u32>> {
    if items.windows(2).all(|w| key(&w[0]) <= key(&w[1])) {
        return None;
    }
    let mut order: Vec<u32> = (0..items.len() as u32).collect();
    order.sort_by(|&a, &b| key(&items[a as usize]).cmp(&key(&items[b as usize])));
    Some(order)
}

/// The items comparing `Equal` (`cmp` orders an item against the wanted key), in order.
fn equal_range<'a, T>(items: &'a [T], order: Option<&[u32]>, cmp: impl Fn(&T) -> Ordering) -> Vec<&'a T> {
    match order {
        None => {
            let lo = items.partition_point(|x| cmp(x) == Ordering::Less);
            let hi = lo + items[lo..].partition_point(|x| cmp(x) == Ordering::Equal);
            items[lo..hi].iter().collect()
        }
        Some(order) => {
            let at = |i: &u32| &items[*i as usize];
            let lo = order.partition_point(|i| cmp(at(i)) == Ordering::Less);
            let hi = lo + order[lo..].partition_point(|i| cmp(at(i)) == Ordering::Equal);
            order[lo..hi].iter().map(at).collect()
        }
    }
}

/// The record orders of a [`GraphView`], computed apart from it (a validation computes them
/// beside its source scan, where they cost no wall time).
pub struct ViewOrder {
    node_order: Option<Vec<u32>>,
    edge_order: Option<Vec<u32>>,
}

impl ViewOrder {
    pub fn of(snap: &Snapshot) -> Self {
        ViewOrder {
            node_order: order_by(&snap.nodes, |n| n.id.as_ref()),
            edge_order: order_by(&snap.edges, |e| {
                (e.source.as_ref(), e.relation.as_ref(), e.target.as_ref())
            }),
        }
    }
}

impl<'a> GraphView<'a> {
    pub fn new(snap: &'a Snapshot<'a>) -> Self {
        Self::with_order(snap, ViewOrder::of(snap))
    }

    /// The view of `snap` with its orders (`order` must be [`ViewOrder::of`] this snapshot).
    pub fn with_order(snap: &'a Snapshot<'a>, order: ViewOrder) -> Self {
        let records = Records::Decoded { node_order: order.node_order, edge_order: order.edge_order };
        Self::over(snap, records)
    }

    /// The view of the records of an index, `snap` being the index's snapshot without them.
    pub fn indexed(snap: &'a Snapshot<'a>, records: IndexRecords<'a>) -> Self {
        Self::over(snap, Records::Indexed(records))
    }

    fn over(snap: &'a Snapshot<'a>, records: Records<'a>) -> Self {
        let duplicated = snap
            .diagnostics
            .iter()
            .filter(|d| d.code == "go_duplicate_symbol")
            .filter_map(|d| d.symbol_id.as_deref())
            .collect();
        GraphView { snap, records, duplicated }
    }

    fn lookup(&self, r: &Reference) -> Lookup<'a> {
        let want_package = r.kind == RefKind::Package;
        let found: Vec<SnapNode<'a>> = match &self.records {
            Records::Decoded { node_order, .. } => {
                equal_range(&self.snap.nodes, node_order.as_deref(), |n| n.id.as_ref().cmp(r.id.as_str()))
                    .into_iter()
                    .cloned()
                    .collect()
            }
            Records::Indexed(ix) => sorted_range(ix.node_count(), |i| ix.node_id(i).cmp(r.id.as_str()))
                .map(|i| ix.node(i))
                .collect(),
        };
        let mut found: Vec<SnapNode<'a>> =
            found.into_iter().filter(|n| (n.kind == "package") == want_package).collect();
        let extra = usize::from(self.duplicated.contains(r.id.as_str()));
        match (found.len(), extra) {
            (0, 0) => Lookup::Missing,
            (1, 0) => Lookup::Found(found.pop().expect("one node")),
            (n, extra) => Lookup::Ambiguous(n + extra),
        }
    }

    /// Whether the package of `r` (the reference itself, or a symbol's package) is one of the
    /// snapshot's selected packages.
    fn selects_package_of(&self, r: &Reference) -> bool {
        let id = package_of(r);
        let package = Reference { kind: RefKind::Package, id: id.to_string() };
        !matches!(self.lookup(&package), Lookup::Missing)
    }

    fn edges(&self, relation: &str, source: &str, target: &str) -> Vec<SnapEdge<'a>> {
        let want = (source, relation, target);
        match &self.records {
            Records::Decoded { edge_order, .. } => {
                equal_range(&self.snap.edges, edge_order.as_deref(), |e| {
                    (e.source.as_ref(), e.relation.as_ref(), e.target.as_ref()).cmp(&want)
                })
                .into_iter()
                .cloned()
                .collect()
            }
            Records::Indexed(ix) => {
                sorted_range(ix.edge_count(), |i| ix.edge_key(i).cmp(&want)).map(|i| ix.edge(i)).collect()
            }
        }
    }
}

/// The indices in `0..len` whose items compare `Equal` (`cmp` orders item `i` against the
/// wanted key; the items are in key order).
fn sorted_range(len: usize, cmp: impl Fn(usize) -> Ordering) -> std::ops::Range<usize> {
    let (mut lo, mut hi) = (0, len);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if cmp(mid) == Ordering::Less {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    let start = lo;
    hi = len;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if cmp(mid) == Ordering::Greater {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    start..lo
}

fn resolved(n: &SnapNode) -> Resolved {
    let package = n.kind == "package";
    Resolved {
        id: n.id.to_string(),
        kind: if package { "package" } else { "symbol" },
        symbol_kind: (!package).then(|| n.kind.to_string()),
        locations: n.location.iter().map(SourceLocation::of).collect(),
    }
}

/// The import path a reference names or whose symbol it names.
fn package_of(r: &Reference) -> &str {
    match r.kind {
        RefKind::Package => &r.id,
        RefKind::Symbol => r.id.split_once("::").map_or(r.id.as_str(), |(p, _)| p),
    }
}

/// Whether `path` is an import path of the module `module` (the standard library's module
/// `std` holds the paths whose first element has no dot).
fn in_module(path: &str, module: &str) -> bool {
    if module == "std" {
        return !path.split('/').next().unwrap_or(path).contains('.');
    }
    path == module || path.strip_prefix(module).is_some_and(|rest| rest.starts_with('/'))
}

/// A reference whose package is not selected: the contract binds only in-repository symbols
/// of the analysed build, so its absence is never a `fail`. A path of none of the
/// repository's modules (the standard library, a dependency) is `repository_mismatch`; a path
/// of one of them that names no selected package (no such directory, or one whose files the
/// build context excludes, or a nested module required from elsewhere) is the reference's
/// not-found reason, with outcome `cannot_evaluate`.
fn outside_selection(view: &GraphView<'_>, r: &Reference, evidence: Evidence) -> Verdict {
    let path = package_of(r);
    let modules = &view.snap.build.modules;
    if modules.iter().any(|m| in_module(path, &m.path)) {
        let message = format!(
            "no selected package has the import path {path:?}: absence outside the analysed packages is not established"
        );
        return Verdict::new(Outcome::CannotEvaluate, not_found_reason(r), evidence)
            .note(Diagnostic::new("package_not_selected", message).symbol(&r.id));
    }
    let message = format!(
        "{path:?} is not a package of this repository's modules: v1 binds only in-repository symbols"
    );
    Verdict::new(Outcome::CannotEvaluate, Reason::RepositoryMismatch, evidence)
        .note(Diagnostic::new("outside_repository", message).symbol(&r.id))
}

fn not_found_reason(r: &Reference) -> Reason {
    match r.kind {
        RefKind::Symbol => Reason::SymbolNotFound,
        RefKind::Package => Reason::PackageNotFound,
    }
}

/// Evaluate `binding` on `view`. Freshness is the caller's business (checked before and after).
pub fn evaluate(view: &GraphView<'_>, binding: &Binding) -> Verdict {
    let b = &view.snap.build;
    let complete = b.completeness == "complete";
    let precise = b.precision == "precise";
    if binding.required_precision == Precision::Precise && !precise {
        let why = b.precision_reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default();
        return Verdict::new(Outcome::CannotEvaluate, Reason::PrecisionInsufficient, Evidence::default())
            .note(Diagnostic::new(
                "precision_insufficient",
                format!("the graph's precision is {}{why}; the binding requires precise", b.precision),
            ));
    }
    // Absence is conclusive only on a complete graph that is not a precise fallback.
    let negative_ok = complete && b.precision != "precise_fallback";
    let inconclusive = || {
        let reasons = if b.completeness_reasons.is_empty() {
            format!("precision {}", b.precision)
        } else {
            b.completeness_reasons.join(", ")
        };
        Diagnostic::new(
            "analysis_incomplete",
            format!("the graph is {} ({reasons}); absence cannot be established", b.completeness),
        )
    };
    let mut evidence = Evidence::default();
    let mut targets = Vec::new();
    for r in std::iter::once(&binding.subject).chain(binding.object.as_ref()) {
        match view.lookup(r) {
            Lookup::Found(n) => targets.push(n),
            Lookup::Ambiguous(count) => {
                return Verdict::new(Outcome::CannotEvaluate, Reason::SymbolAmbiguous, evidence).note(
                    Diagnostic::new("symbol_ambiguous", format!("{count} graph records have this exact ID"))
                        .symbol(&r.id),
                )
            }
            Lookup::Missing if binding.predicate == Predicate::PackageImports && targets.len() == 1 => {
                // The object of an import may be outside the repository (the standard
                // library, a dependency): the import edge itself is the evidence.
                break;
            }
            Lookup::Missing if !view.selects_package_of(r) => return outside_selection(view, r, evidence),
            Lookup::Missing => {
                let d = Diagnostic::new(not_found_reason(r).as_str(), "no graph record has this exact ID")
                    .symbol(&r.id);
                let outcome = if negative_ok { Outcome::Fail } else { Outcome::CannotEvaluate };
                let v = Verdict::new(outcome, not_found_reason(r), evidence).note(d);
                return if negative_ok { v } else { v.note(inconclusive()) };
            }
        }
        if targets.len() == 1 {
            evidence.resolved_subject = Some(resolved(&targets[0]));
        } else {
            evidence.resolved_object = Some(resolved(&targets[1]));
        }
    }
    let subject = &targets[0];
    match binding.predicate {
        Predicate::SymbolExists => Verdict::new(Outcome::Pass, Reason::PredicatePassed, evidence),
        Predicate::PackageImports => {
            let object = binding.object.as_ref().expect("package_imports has an object");
            if targets.len() == 1 {
                evidence.resolved_object = Some(Resolved {
                    id: object.id.clone(),
                    kind: "package",
                    symbol_kind: None,
                    locations: vec![],
                });
            }
            // Direct imports of the package's build (`go list`'s `Imports`); an import in a
            // `_test.go` file is evidence under its own classification, never a pass.
            let found = view.edges("imports", &subject.id, &object.id);
            let class = |e: &SnapEdge| e.attrs.get("classification").unwrap_or("direct_import").to_string();
            let direct = |e: &SnapEdge| class(e) == "direct_import";
            let v = relation_verdict(binding, evidence, &found, class, direct, negative_ok, inconclusive);
            if v.outcome != Outcome::Pass && !found.is_empty() {
                let message = "only _test.go files import it: test imports are not the package's imports";
                return v.note(Diagnostic::new("test_import_only", message).symbol(subject.id.as_ref()));
            }
            v
        }
        Predicate::TypeImplements => {
            let object = &targets[1];
            if object.kind == "type" && object.attrs.get("underlying") == Some("unresolved") {
                // Declared from a type outside the analysis (`type E fmt.Stringer`): it may
                // be an interface, and then what implements it is unknown.
                let why = object.attrs.get("underlying_reason").unwrap_or("unresolved underlying type");
                let message = format!(
                    "whether `{}` is an interface is unknown: its underlying type is not resolved ({why})",
                    object.id
                );
                return incomplete(evidence, "implements_unknown", message, &object.id);
            }
            // A defined type of an interface (`type Local Reader`) is one too.
            let interface =
                |n: &SnapNode| n.kind == "interface" || n.attrs.get("underlying") == Some("interface");
            if !matches!(subject.kind.as_ref(), "struct" | "type") || interface(subject) || !interface(object)
            {
                return kind_mismatch(
                    evidence,
                    format!(
                        "type_implements needs a named concrete type and an interface, found {} and {}",
                        subject.kind, object.kind
                    ),
                );
            }
            let generic = |n: &SnapNode| n.attrs.get("generic") == Some("true");
            if generic(subject) || generic(object) {
                // The semantic layer records no implements facts for generic types.
                let symbol = if generic(subject) { &subject.id } else { &object.id };
                let message = "implements is not derived for generic types or interfaces";
                return incomplete(evidence, "generic_type_unsupported", message.into(), symbol);
            }
            let in_test = |n: &SnapNode| n.location.as_ref().is_some_and(|l| l.path.ends_with("_test.go"));
            if let Some(n) = [subject, object].into_iter().find(|n| in_test(n)) {
                // Types of test files take no part in `implements` (as the oracle's build).
                let message = "implements is not derived for types declared in _test.go files";
                return incomplete(evidence, "implements_not_derived", message.into(), &n.id);
            }
            if let Some(set @ ("empty" | "constraint")) = object.attrs.get("interface_set") {
                // Derived for basic interfaces with methods only: every type implements an
                // empty one, and a constraint is satisfied rather than implemented.
                let article = if set == "empty" { "an empty" } else { "a constraint" };
                let message = format!("implements is not derived for {article} interface");
                return incomplete(evidence, "implements_not_derived", message, &object.id);
            }
            let found = view.edges("implements", &subject.id, &object.id);
            if found.is_empty() {
                if let Some(e) = view.edges("implements_unknown", &subject.id, &object.id).first() {
                    // The answer depends on something the semantic layer could not resolve.
                    let why = e.attrs.get("reason").unwrap_or("unresolved types");
                    let message = format!("may or may not implement: {why}");
                    return incomplete(evidence, "implements_unknown", message, &subject.id);
                }
            }
            let class = |e: &SnapEdge| match e.attrs.get("receiver") {
                Some("value") => "value_method_set".to_string(),
                Some("pointer") => "pointer_method_set".to_string(),
                _ => "method_set".to_string(),
            };
            relation_verdict(binding, evidence, &found, class, |_| true, negative_ok, inconclusive)
        }
        Predicate::CallEdgeExists => {
            let object = &targets[1];
            let callable = |n: &SnapNode| matches!(n.kind.as_ref(), "func" | "method");
            if !callable(subject) || !callable(object) {
                return kind_mismatch(
                    evidence,
                    format!(
                        "call_edge_exists needs two functions or methods, found {} and {}",
                        subject.kind, object.kind
                    ),
                );
            }
            call_edge(view, binding, subject, object, evidence, negative_ok, inconclusive)
        }
    }
}

/// `cannot_evaluate` / `analysis_incomplete`: the analysis says nothing about this question,
/// for the reason the diagnostic `code` names, about `symbol`.
fn incomplete(evidence: Evidence, code: &str, message: String, symbol: &str) -> Verdict {
    Verdict::new(Outcome::CannotEvaluate, Reason::AnalysisIncomplete, evidence)
        .note(Diagnostic::new(code, message).symbol(symbol))
}

fn kind_mismatch(evidence: Evidence, message: String) -> Verdict {
    Verdict::new(Outcome::CannotEvaluate, Reason::InvalidRequest, evidence)
        .note(Diagnostic::new("predicate_kind_mismatch", message))
}

/// The matched relations of `found`: one per classification, with every location.
fn matched(
    binding: &Binding,
    found: &[&SnapEdge],
    class: impl Fn(&SnapEdge) -> String,
) -> Vec<MatchedRelation> {
    let mut out: Vec<MatchedRelation> = Vec::new();
    for e in found {
        let classification = class(e);
        let locations = e.location.iter().map(SourceLocation::of);
        match out.iter_mut().find(|m| m.classification == classification) {
            Some(m) => m.locations.extend(locations),
            None => out.push(MatchedRelation {
                kind: binding.predicate.as_str(),
                subject_id: e.source.to_string(),
                object_id: e.target.to_string(),
                classification,
                locations: locations.collect(),
            }),
        }
    }
    for m in &mut out {
        m.locations.sort();
        m.locations.dedup();
    }
    out.sort();
    out
}

/// Pass when `found` holds an edge `satisfies` accepts; otherwise absence, conclusive only
/// when `negative_ok`. Every found edge is evidence, under its classification.
fn relation_verdict(
    binding: &Binding,
    mut evidence: Evidence,
    found: &[SnapEdge],
    class: impl Fn(&SnapEdge) -> String,
    satisfies: impl Fn(&SnapEdge) -> bool,
    negative_ok: bool,
    inconclusive: impl Fn() -> Diagnostic,
) -> Verdict {
    let all: Vec<&SnapEdge> = found.iter().collect();
    evidence.matched_relations = matched(binding, &all, class);
    if found.iter().any(satisfies) {
        return Verdict::new(Outcome::Pass, Reason::PredicatePassed, evidence);
    }
    if negative_ok {
        Verdict::new(Outcome::Fail, Reason::RelationNotFound, evidence)
    } else {
        Verdict::new(Outcome::CannotEvaluate, Reason::RelationNotFound, evidence).note(inconclusive())
    }
}

fn call_edge(
    view: &GraphView<'_>,
    binding: &Binding,
    subject: &SnapNode,
    object: &SnapNode,
    mut evidence: Evidence,
    negative_ok: bool,
    inconclusive: impl Fn() -> Diagnostic,
) -> Verdict {
    let found = view.edges("calls", &subject.id, &object.id);
    let class = |e: &SnapEdge| e.attrs.get("classification").unwrap_or_default().to_string();
    let counted: Vec<&SnapEdge> = found
        .iter()
        .filter(|e| matches!(class(e).as_str(), "resolved_static" | "cha_possible_target"))
        .collect();
    if !counted.is_empty() {
        evidence.matched_relations = matched(binding, &counted, class);
        return Verdict::new(Outcome::Pass, Reason::PredicatePassed, evidence);
    }
    if !negative_ok {
        return Verdict::new(Outcome::CannotEvaluate, Reason::RelationNotFound, evidence)
            .note(inconclusive());
    }
    let mut diagnostics = Vec::new();
    let synthetic = found.iter().any(|e| class(e) == "synthetic");
    if synthetic {
        // The subject does reach the object, through a compiler-generated wrapper (a method
        // expression thunk, a promoted or pointer wrapper): never evidence for a pass, and
        // not an absence either.
        diagnostics.push(
            Diagnostic::new(
                "synthetic_edge_only",
                "only a synthetic forwarding edge links the two; it is neither evidence nor absence",
            )
            .symbol(subject.id.as_ref()),
        );
    }
    let unknown: Vec<String> =
        found.iter().map(class).filter(|c| !matches!(c.as_str(), "synthetic")).collect();
    let unresolved = subject.attrs.get("unresolved_calls").unwrap_or("unknown");
    let all_resolved = subject.attrs.get("calls_resolved") == Some("true");
    let reason = if synthetic {
        None
    } else if !unknown.is_empty() {
        diagnostics.push(Diagnostic::new(
            "call_edge_unclassified",
            format!("a call edge has an unknown classification {:?}", unknown[0]),
        ));
        None
    } else if !all_resolved || unresolved != "0" {
        diagnostics.push(
            Diagnostic::new(
                "call_sites_unresolved",
                format!(
                    "the subject's call sites are not all resolved (unresolved_calls {unresolved}, calls_resolved {})",
                    subject.attrs.get("calls_resolved").unwrap_or("unknown")
                ),
            )
            .symbol(subject.id.as_ref()),
        );
        None
    } else {
        Some(Reason::RelationNotFound)
    };
    let mut v = match reason {
        Some(r) => Verdict::new(Outcome::Fail, r, evidence),
        None => Verdict::new(Outcome::CannotEvaluate, Reason::AnalysisIncomplete, evidence),
    };
    v.diagnostics.extend(diagnostics);
    v
}
