//! The four predicates on hand-built graphs, including graphs that carry the precise facts the
//! semantic layer will produce (`implements` with `receiver`, classified `calls`,
//! `calls_resolved`): pass, evaluated fail, CHA-only evidence, synthetic-only edges,
//! unresolved call sites, value/pointer method sets, embedded interfaces, same-named types
//! in different packages, ambiguity, case sensitivity, and every analysis state.

use docforge_validate::{
    build_meta, decode_binding, evaluate, Attrs, GoInventory, GraphView, Outcome, Reason, SelectionPolicy,
    SnapDiagnostic, SnapEdge, SnapLocation, SnapNode, Snapshot, GRAPH_SCHEMA_VERSION,
};

const M: &str = "example.com/m";

fn node(id: &str, kind: &str, attrs: &[(&str, &str)]) -> SnapNode<'static> {
    SnapNode {
        id: format!("{M}/{id}").into(),
        kind: kind.to_string().into(),
        location: Some(loc("x.go", 3, 1)),
        attrs: attrs.iter().copied().collect(),
    }
}

fn loc(path: &str, line: u32, column: u32) -> SnapLocation<'static> {
    SnapLocation { path: path.to_string().into(), line, column }
}

fn edge(source: &str, relation: &str, target: &str, attrs: &[(&str, &str)]) -> SnapEdge<'static> {
    SnapEdge {
        source: format!("{M}/{source}").into(),
        relation: relation.to_string().into(),
        target: format!("{M}/{target}").into(),
        location: Some(loc("x.go", 7, 9)),
        attrs: attrs.iter().copied().collect(),
    }
}

/// A graph as the precise layer will publish it.
fn precise_graph(precision: &str, completeness: &str) -> Snapshot<'static> {
    let resolved = [("unresolved_calls", "0"), ("calls_resolved", "true")];
    let nodes = vec![
        node("a", "package", &[]),
        node("b", "package", &[]),
        node("a/util", "package", &[]),
        node("b/util", "package", &[]),
        node("a::Store", "struct", &[]),
        node("a::Copy", "struct", &[]),
        node("b::Store", "struct", &[]),
        node("a::Reader", "interface", &[]),
        node("a::ReadWriter", "interface", &[]),
        node("a::Alias", "alias", &[]),
        node("a::Vague", "struct", &[]),
        node("a::List", "struct", &[("generic", "true")]),
        node("a::Lister", "interface", &[("generic", "true")]),
        // `type Element fmt.Stringer` with `fmt` outside the analysis: maybe an interface.
        node(
            "a::Element",
            "type",
            &[("underlying", "unresolved"), ("underlying_reason", "external package: fmt.Stringer")],
        ),
        node("a::Celsius", "type", &[]),
        SnapNode { location: Some(loc("x_test.go", 5, 6)), ..node("a::Fake", "struct", &[]) },
        node("a::Any", "interface", &[("interface_set", "empty")]),
        node("a::Number", "interface", &[("interface_set", "constraint")]),
        // `type Local Reader`: an interface declared from another.
        node("a::Local", "type", &[("underlying", "interface"), ("interface_set", "methods")]),
        node("a::Run", "func", &resolved),
        node("a::Helper", "func", &resolved),
        node("a::(*Store).Get", "method", &resolved),
        node("a::Dispatch", "func", &resolved),
        node("a::Forward", "func", &resolved),
        node("a::Hooked", "func", &[("unresolved_calls", "1"), ("calls_resolved", "false")]),
        node("a::Untracked", "func", &[("unresolved_calls", "0")]),
        node("a::Dup", "func", &[]),
    ];
    let edges = vec![
        edge("a", "imports", "a/util", &[("classification", "direct_import")]),
        SnapEdge {
            location: Some(loc("y.go", 4, 2)),
            ..edge("a", "imports", "a/util", &[("classification", "direct_import")])
        },
        SnapEdge {
            location: Some(loc("x_test.go", 3, 2)),
            ..edge("a", "imports", "a/util", &[("classification", "test_import")])
        },
        // Imported by a test file only.
        SnapEdge {
            location: Some(loc("x_test.go", 4, 2)),
            ..edge("a", "imports", "b/util", &[("classification", "test_import")])
        },
        edge("a::Run", "calls", "a::Helper", &[("classification", "resolved_static")]),
        edge("a::Dispatch", "calls", "a::(*Store).Get", &[("classification", "cha_possible_target")]),
        edge("a::Forward", "calls", "a::(*Store).Get", &[("classification", "synthetic")]),
        edge("a::Hooked", "calls", "a::Run", &[("classification", "resolved_static")]),
        edge("a::Store", "implements", "a::Reader", &[("receiver", "pointer")]),
        edge("a::Store", "implements", "a::ReadWriter", &[("receiver", "pointer")]),
        edge("a::Copy", "implements", "a::Reader", &[("receiver", "value")]),
        edge("a::Copy", "implements", "a::Local", &[("receiver", "value")]),
        edge("a::Vague", "implements_unknown", "a::Reader", &[("reason", "external type io.Reader")]),
    ];
    let inv = GoInventory {
        files: vec![("x.go".into(), "1".repeat(64))],
        modules: vec![(String::new(), M.into())],
        ..Default::default()
    };
    let mut build = build_meta(&inv, &SelectionPolicy::default());
    build.precision = precision.into();
    build.completeness = completeness.into();
    if completeness == "partial" {
        build.completeness_reasons = vec!["go_syntax_error x1".into()];
    }
    Snapshot {
        schema_version: GRAPH_SCHEMA_VERSION.into(),
        source_policy_version: docforge_validate::SOURCE_POLICY_VERSION,
        index_sha256: None,
        generator: "test".into(),
        generated_at: "2026-01-01T00:00:00Z".into(),
        build,
        nodes,
        edges,
        diagnostics: vec![SnapDiagnostic {
            code: "go_duplicate_symbol".into(),
            path: Some("y.go".into()),
            symbol_id: Some(format!("{M}/a::Dup")),
        }],
    }
}

fn binding(predicate: &str, subject: &str, object: Option<&str>, precision: &str) -> String {
    let kind = if predicate == "package_imports" { "package" } else { "symbol" };
    let r = |id: &str| format!(r#"{{"language":"go","kind":"{kind}","id":"{M}/{id}"}}"#);
    let object = object.map(|o| format!(r#","object":{}"#, r(o))).unwrap_or_default();
    format!(
        r#"{{"schema_version":"gograph.binding.v1","predicate":"{predicate}","subject":{}{object},"required_precision":"{precision}"}}"#,
        r(subject)
    )
}

fn outcome(
    snap: &Snapshot<'_>,
    predicate: &str,
    subject: &str,
    object: Option<&str>,
    precision: &str,
) -> (Outcome, Reason) {
    let b = decode_binding(binding(predicate, subject, object, precision).as_bytes()).expect("valid binding");
    let v = evaluate(&GraphView::new(snap), &b);
    assert!(v.reason.allows(v.outcome), "{v:?}");
    (v.outcome, v.reason)
}

use Outcome::{CannotEvaluate as Cannot, Fail, Pass};

/// An expected (outcome, reason).
type Want = (Outcome, Reason);

#[test]
fn predicates_on_a_complete_precise_graph() {
    let g = precise_graph("precise", "complete");
    #[rustfmt::skip]
    let cases: Vec<(&str, &str, Option<&str>, &str, Want)> = vec![
        ("symbol_exists", "a::Store", None, "ast", (Pass, Reason::PredicatePassed)),
        ("symbol_exists", "a::(*Store).Get", None, "precise", (Pass, Reason::PredicatePassed)),
        ("symbol_exists", "a::store", None, "ast", (Fail, Reason::SymbolNotFound)),
        ("symbol_exists", "a::(Store).Get", None, "ast", (Fail, Reason::SymbolNotFound)),
        ("symbol_exists", "a::Missing", None, "ast", (Fail, Reason::SymbolNotFound)),
        ("symbol_exists", "a::Dup", None, "ast", (Cannot, Reason::SymbolAmbiguous)),
        ("package_imports", "a", Some("a/util"), "ast", (Pass, Reason::PredicatePassed)),
        // `go list`'s Imports: an import in a _test.go file is not the package's.
        ("package_imports", "a", Some("b/util"), "ast", (Fail, Reason::RelationNotFound)),
        ("package_imports", "a", Some("b"), "ast", (Fail, Reason::RelationNotFound)),
        ("package_imports", "b", Some("a/util"), "ast", (Fail, Reason::RelationNotFound)),
        // A package of the module that is not selected: absence outside the analysed
        // packages is never a fail.
        ("package_imports", "c", Some("a/util"), "ast", (Cannot, Reason::PackageNotFound)),
        ("symbol_exists", "c::Gone", None, "ast", (Cannot, Reason::SymbolNotFound)),
        ("type_implements", "a::Store", Some("c::Reader"), "precise", (Cannot, Reason::SymbolNotFound)),
        ("type_implements", "a::Store", Some("a::Reader"), "precise", (Pass, Reason::PredicatePassed)),
        ("type_implements", "a::Store", Some("a::ReadWriter"), "precise", (Pass, Reason::PredicatePassed)),
        ("type_implements", "a::Copy", Some("a::Reader"), "precise", (Pass, Reason::PredicatePassed)),
        ("type_implements", "a::Copy", Some("a::ReadWriter"), "precise", (Fail, Reason::RelationNotFound)),
        ("type_implements", "b::Store", Some("a::Reader"), "precise", (Fail, Reason::RelationNotFound)),
        ("type_implements", "a::Reader", Some("a::Reader"), "precise", (Cannot, Reason::InvalidRequest)),
        ("type_implements", "a::Alias", Some("a::Reader"), "precise", (Cannot, Reason::InvalidRequest)),
        ("type_implements", "a::Nope", Some("a::Reader"), "precise", (Fail, Reason::SymbolNotFound)),
        // The layer could not decide (an unresolved type): never a fail.
        ("type_implements", "a::Vague", Some("a::Reader"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("type_implements", "a::Vague", Some("a::ReadWriter"), "precise", (Fail, Reason::RelationNotFound)),
        // An object that may be an interface: never a fail; a plain defined type is no interface.
        ("type_implements", "a::Copy", Some("a::Element"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("type_implements", "a::Copy", Some("a::Celsius"), "precise", (Cannot, Reason::InvalidRequest)),
        // Every type implements an empty interface; a constraint is satisfied: not derived, never a fail.
        ("type_implements", "a::Copy", Some("a::Any"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("type_implements", "a::Copy", Some("a::Number"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        // Types of test files take no part in `implements`: never a fail.
        ("type_implements", "a::Fake", Some("a::Reader"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        // A defined type of an interface is an interface: as an object, evaluated; as a subject, no.
        ("type_implements", "a::Copy", Some("a::Local"), "precise", (Pass, Reason::PredicatePassed)),
        ("type_implements", "b::Store", Some("a::Local"), "precise", (Fail, Reason::RelationNotFound)),
        ("type_implements", "a::Local", Some("a::Reader"), "precise", (Cannot, Reason::InvalidRequest)),
        // Generic types are outside the implements model: never a fail.
        ("type_implements", "a::List", Some("a::Reader"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("type_implements", "a::Copy", Some("a::Lister"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("call_edge_exists", "a::Run", Some("a::Helper"), "precise", (Pass, Reason::PredicatePassed)),
        ("call_edge_exists", "a::Dispatch", Some("a::(*Store).Get"), "precise", (Pass, Reason::PredicatePassed)),
        ("call_edge_exists", "a::Run", Some("a::(*Store).Get"), "precise", (Fail, Reason::RelationNotFound)),
        // Only a synthetic wrapper links them: a call path exists, so never a fail.
        ("call_edge_exists", "a::Forward", Some("a::(*Store).Get"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("call_edge_exists", "a::Hooked", Some("a::Run"), "precise", (Pass, Reason::PredicatePassed)),
        ("call_edge_exists", "a::Hooked", Some("a::Helper"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("call_edge_exists", "a::Untracked", Some("a::Helper"), "precise", (Cannot, Reason::AnalysisIncomplete)),
        ("call_edge_exists", "a::Store", Some("a::Helper"), "precise", (Cannot, Reason::InvalidRequest)),
    ];
    // The hand-built order (the view sorts an index) and the order `gograph build` writes
    // (the view searches the records in place) give the same verdicts and evidence.
    let mut sorted = g.clone();
    sorted.nodes.sort_by(|a, b| (&a.id, &a.kind).cmp(&(&b.id, &b.kind)));
    sorted.edges.sort_by(|a, b| {
        (&a.source, &a.relation, &a.target, &a.location).cmp(&(
            &b.source,
            &b.relation,
            &b.target,
            &b.location,
        ))
    });
    assert_ne!(sorted, g, "the hand-built graph is out of order");
    for (predicate, subject, object, precision, want) in cases {
        assert_eq!(
            outcome(&g, predicate, subject, object, precision),
            want,
            "{predicate} {subject} {object:?}"
        );
        let b = decode_binding(binding(predicate, subject, object, precision).as_bytes()).unwrap();
        assert_eq!(
            evaluate(&GraphView::new(&sorted), &b),
            evaluate(&GraphView::new(&g), &b),
            "{predicate} {subject}"
        );
    }
}

#[test]
fn evidence_names_the_relation_and_its_classification() {
    let g = precise_graph("precise", "complete");
    let view = GraphView::new(&g);
    let eval = |doc: String| evaluate(&view, &decode_binding(doc.as_bytes()).unwrap());
    let cha = eval(binding("call_edge_exists", "a::Dispatch", Some("a::(*Store).Get"), "precise"));
    let m = &cha.evidence.matched_relations;
    assert_eq!(m.len(), 1);
    assert_eq!((m[0].classification.as_str(), m[0].kind), ("cha_possible_target", "call_edge_exists"));
    assert_eq!(m[0].locations[0].line, Some(7));
    let synthetic = eval(binding("call_edge_exists", "a::Forward", Some("a::(*Store).Get"), "precise"));
    assert!(synthetic.evidence.matched_relations.is_empty(), "a synthetic edge is never evidence");
    assert_eq!(synthetic.diagnostics[0].code, "synthetic_edge_only");
    let pointer = eval(binding("type_implements", "a::Store", Some("a::Reader"), "precise"));
    assert_eq!(pointer.evidence.matched_relations[0].classification, "pointer_method_set");
    assert_eq!(pointer.evidence.resolved_object.as_ref().unwrap().symbol_kind.as_deref(), Some("interface"));
    let value = eval(binding("type_implements", "a::Copy", Some("a::Reader"), "precise"));
    assert_eq!(value.evidence.matched_relations[0].classification, "value_method_set");
    let unresolved = eval(binding("call_edge_exists", "a::Hooked", Some("a::Helper"), "precise"));
    assert_eq!(unresolved.diagnostics[0].code, "call_sites_unresolved");
}

#[test]
fn analysis_states_decide_what_absence_means() {
    // (precision, completeness) -> outcomes of: a present symbol, a missing symbol, a
    // missing import, an existing call edge, a missing call edge.
    #[rustfmt::skip]
    let states: Vec<(&str, &str, [Want; 5])> = vec![
        ("precise", "complete", [(Pass, Reason::PredicatePassed), (Fail, Reason::SymbolNotFound), (Fail, Reason::RelationNotFound), (Pass, Reason::PredicatePassed), (Fail, Reason::RelationNotFound)]),
        ("precise", "partial", [(Pass, Reason::PredicatePassed), (Cannot, Reason::SymbolNotFound), (Cannot, Reason::RelationNotFound), (Pass, Reason::PredicatePassed), (Cannot, Reason::RelationNotFound)]),
        ("ast", "complete", [(Pass, Reason::PredicatePassed), (Fail, Reason::SymbolNotFound), (Fail, Reason::RelationNotFound), (Cannot, Reason::PrecisionInsufficient), (Cannot, Reason::PrecisionInsufficient)]),
        ("ast", "partial", [(Pass, Reason::PredicatePassed), (Cannot, Reason::SymbolNotFound), (Cannot, Reason::RelationNotFound), (Cannot, Reason::PrecisionInsufficient), (Cannot, Reason::PrecisionInsufficient)]),
        ("precise_fallback", "complete", [(Pass, Reason::PredicatePassed), (Cannot, Reason::SymbolNotFound), (Cannot, Reason::RelationNotFound), (Cannot, Reason::PrecisionInsufficient), (Cannot, Reason::PrecisionInsufficient)]),
    ];
    for (precision, completeness, want) in states {
        let g = precise_graph(precision, completeness);
        let got = [
            outcome(&g, "symbol_exists", "a::Run", None, "ast"),
            outcome(&g, "symbol_exists", "a::Missing", None, "ast"),
            outcome(&g, "package_imports", "a", Some("b"), "ast"),
            outcome(&g, "call_edge_exists", "a::Run", Some("a::Helper"), "precise"),
            outcome(&g, "call_edge_exists", "a::Run", Some("a::(*Store).Get"), "precise"),
        ];
        assert_eq!(got, want, "{precision} {completeness}");
    }
}

#[test]
fn duplicate_records_are_ambiguous_never_a_first_match() {
    let mut g = precise_graph("precise", "complete");
    g.nodes.push(node("a::Helper", "func", &[]));
    assert_eq!(outcome(&g, "symbol_exists", "a::Helper", None, "ast"), (Cannot, Reason::SymbolAmbiguous));
    assert_eq!(
        outcome(&g, "call_edge_exists", "a::Run", Some("a::Helper"), "precise"),
        (Cannot, Reason::SymbolAmbiguous)
    );
}

#[test]
fn imports_of_packages_outside_the_repository() {
    let mut g = precise_graph("ast", "complete");
    g.edges.push(SnapEdge {
        source: format!("{M}/a").into(),
        relation: "imports".into(),
        target: "fmt".into(),
        location: Some(loc("a/a.go", 3, 8)),
        attrs: Attrs::default(),
    });
    let doc = r#"{"schema_version":"gograph.binding.v1","predicate":"package_imports","subject":{"language":"go","kind":"package","id":"example.com/m/a"},"object":{"language":"go","kind":"package","id":"fmt"},"required_precision":"ast"}"#;
    let v = evaluate(&GraphView::new(&g), &decode_binding(doc.as_bytes()).unwrap());
    assert_eq!((v.outcome, v.reason), (Pass, Reason::PredicatePassed));
    assert_eq!(v.evidence.resolved_object.unwrap().locations, vec![]);
    let os = doc.replace("\"fmt\"", "\"os\"");
    let v = evaluate(&GraphView::new(&g), &decode_binding(os.as_bytes()).unwrap());
    assert_eq!((v.outcome, v.reason), (Fail, Reason::RelationNotFound));
}

#[test]
fn references_outside_the_selected_packages_are_never_a_fail() {
    let g = precise_graph("precise", "complete");
    let r = |kind: &str, id: &str| format!(r#"{{"language":"go","kind":"{kind}","id":"{id}"}}"#);
    let doc = |predicate: &str, kind: &str, subject: &str, object: Option<&str>, precision: &str| {
        let object = object.map(|o| format!(r#","object":{}"#, r(kind, o))).unwrap_or_default();
        format!(
            r#"{{"schema_version":"gograph.binding.v1","predicate":"{predicate}","subject":{}{object},"required_precision":"{precision}"}}"#,
            r(kind, subject)
        )
    };
    let store = format!("{M}/a::Store");
    let run = format!("{M}/a::Run");
    #[rustfmt::skip]
    let cases: Vec<(String, Want, &str)> = vec![
        // The object is outside the repository: the repository's type may well implement it.
        (doc("type_implements", "symbol", &store, Some("net/http::Handler"), "precise"), (Cannot, Reason::RepositoryMismatch), "outside_repository"),
        (doc("symbol_exists", "symbol", "fmt::Println", None, "ast"), (Cannot, Reason::RepositoryMismatch), "outside_repository"),
        // A subject outside the repository (an external object stays evidence-based).
        (doc("package_imports", "package", "net/http", Some("fmt"), "ast"), (Cannot, Reason::RepositoryMismatch), "outside_repository"),
        (doc("call_edge_exists", "symbol", &run, Some("strings::ToUpper"), "precise"), (Cannot, Reason::RepositoryMismatch), "outside_repository"),
        (doc("call_edge_exists", "symbol", "strings::ToUpper", Some(&run), "precise"), (Cannot, Reason::RepositoryMismatch), "outside_repository"),
        // A module path that shares a prefix is another module.
        (doc("symbol_exists", "symbol", "example.com/mother::X", None, "ast"), (Cannot, Reason::RepositoryMismatch), "outside_repository"),
        // Under the module's path, but no selected package.
        (doc("symbol_exists", "symbol", &format!("{M}/gone::X"), None, "ast"), (Cannot, Reason::SymbolNotFound), "package_not_selected"),
        (doc("package_imports", "package", &format!("{M}/gone"), Some("fmt"), "ast"), (Cannot, Reason::PackageNotFound), "package_not_selected"),
    ];
    for (doc, want, code) in cases {
        let v = evaluate(&GraphView::new(&g), &decode_binding(doc.as_bytes()).unwrap());
        assert_eq!((v.outcome, v.reason), want, "{doc}");
        assert_eq!(v.diagnostics[0].code, code, "{doc}");
    }
    // The standard library as the repository: its packages are in-repository.
    let mut std = g.clone();
    std.build.modules = vec![docforge_validate::ModuleRecord { dir: String::new(), path: "std".into() }];
    let v = evaluate(
        &GraphView::new(&std),
        &decode_binding(doc("symbol_exists", "symbol", "fmt::Println", None, "ast").as_bytes()).unwrap(),
    );
    assert_eq!(
        (v.outcome, v.reason, v.diagnostics[0].code.as_str()),
        (Cannot, Reason::SymbolNotFound, "package_not_selected")
    );
}

#[test]
fn import_evidence_names_every_site_and_test_imports_never_satisfy() {
    let g = precise_graph("ast", "complete");
    let view = GraphView::new(&g);
    let eval = |doc: String| evaluate(&view, &decode_binding(doc.as_bytes()).unwrap());
    let both = eval(binding("package_imports", "a", Some("a/util"), "ast"));
    assert_eq!((both.outcome, both.reason), (Pass, Reason::PredicatePassed));
    type Sites<'a> = Vec<(&'a str, Option<u32>)>;
    let m: Vec<(&str, Sites)> = both
        .evidence
        .matched_relations
        .iter()
        .map(|m| (m.classification.as_str(), m.locations.iter().map(|l| (l.path.as_str(), l.line)).collect()))
        .collect();
    assert_eq!(
        m,
        [
            ("direct_import", vec![("x.go", Some(7)), ("y.go", Some(4))]),
            ("test_import", vec![("x_test.go", Some(3))])
        ]
    );
    let test_only = eval(binding("package_imports", "a", Some("b/util"), "ast"));
    assert_eq!((test_only.outcome, test_only.reason), (Fail, Reason::RelationNotFound));
    assert_eq!(test_only.evidence.matched_relations[0].classification, "test_import");
    assert_eq!(test_only.diagnostics[0].code, "test_import_only");
    // On a partial graph the same absence is inconclusive, with the same evidence.
    let partial = precise_graph("ast", "partial");
    let v = evaluate(
        &GraphView::new(&partial),
        &decode_binding(binding("package_imports", "a", Some("b/util"), "ast").as_bytes()).unwrap(),
    );
    assert_eq!((v.outcome, v.reason), (Cannot, Reason::RelationNotFound));
}
