//! `docforge index` at precision `precise` (the default of `[analysis] precision`) and
//! `docforge logic` through the real binary on fixtures/shop: implements edges and Logic are
//! stored at precision precise only, and say so when absent.

mod support;

use serde_json::Value;
use std::fs;
use support::{json, run, shop};

fn count(v: &Value) -> u64 {
    v.as_u64().unwrap_or(0)
}

const PLACE: &str = "go:example.com/shop/service::(*OrderService).Place";

#[test]
fn precise_index_stores_implements_and_logic_beside_the_graph() {
    let dir = shop();
    let root = dir.path();
    let report = json(&run(root, &["index", "--precise", "--json"]));
    assert_eq!(report["precision"], "precise");
    let stats = json(&run(root, &["stats", "--json"]));
    // The four pairs go/types reports for the fixture (tests/oracle -implements).
    assert_eq!(stats["edges_by_relation"]["implements"], 4, "{stats}");
    let functions = count(&stats["nodes_by_kind"]["func"]) + count(&stats["nodes_by_kind"]["method"]);
    assert!(functions > 10);
    assert_eq!(count(&stats["logic"]), functions, "one Logic projection per func/method");
    // Logic is not a node: it never shows up in search.
    let hits = json(&run(root, &["search", "entry", "--json"]));
    assert!(hits["hits"].as_array().is_none_or(|h| h.iter().all(|h| h["kind"] != "logic")), "{hits}");

    let logic = json(&run(root, &["logic", PLACE, "--json"]));
    assert_eq!(
        (&logic["schema_version"], &logic["index_current"]),
        (&serde_json::json!("docforge.logic.v1"), &serde_json::json!(true))
    );
    assert_eq!(logic["node"], PLACE);
    assert_eq!(logic["owner"], "gofile:service/service.go");
    let steps = logic["logic"]["steps"].as_array().unwrap();
    assert_eq!(steps.first().unwrap()["kind"], "entry");
    assert_eq!(steps.last().unwrap()["kind"], "exit");
    let kinds: Vec<&str> = steps.iter().map(|s| s["kind"].as_str().unwrap()).collect();
    for k in ["condition", "range", "call", "return"] {
        assert!(kinds.contains(&k), "{k} in {kinds:?}");
    }
    let exit = (steps.len() - 1) as u64;
    let returns_to_exit = logic["logic"]["edges"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["to"] == exit && e["label"] == "exit")
        .count();
    assert_eq!(returns_to_exit, kinds.iter().filter(|k| **k == "return").count());
    let text = run(root, &["logic", PLACE]);
    assert!(String::from_utf8_lossy(&text.stdout).starts_with("method (*OrderService).Place @"));

    // Another command (or flag) never changes the project's index: it stays precise.
    let report = json(&run(root, &["index", "--json"]));
    assert_eq!((report["precision"].as_str(), report["up_to_date"].as_bool()), (Some("precise"), Some(true)));
    json(&run(root, &["index", "--no-ast", "--json"]));
    let again = json(&run(root, &["index", "--precise", "--json"]));
    assert_eq!((again["precision"].as_str(), again["up_to_date"].as_bool()), (Some("precise"), Some(true)));
    assert_eq!(count(&json(&run(root, &["stats", "--json"]))["logic"]), functions);

    // Declared `ast`: the index is rebuilt without implements or Logic, and says why.
    let cfg = fs::read_to_string(root.join("docforge.toml")).unwrap() + "\n[analysis]\nprecision = \"ast\"\n";
    fs::write(root.join("docforge.toml"), cfg).unwrap();
    let report = json(&run(root, &["index", "--json"]));
    assert_eq!((report["precision"].as_str(), report["up_to_date"].as_bool()), (Some("ast"), Some(false)));
    let stats = json(&run(root, &["stats", "--json"]));
    assert_eq!((stats["edges_by_relation"]["implements"].as_u64(), count(&stats["logic"])), (None, 0));
    let missing = run(root, &["logic", PLACE]);
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("[analysis] precision = \"ast\"") && err.lines().count() == 1, "{err}");
}

#[test]
fn precise_and_no_ast_conflict_and_no_ast_has_no_logic() {
    let dir = shop();
    let root = dir.path();
    let both = run(root, &["index", "--precise", "--no-ast"]);
    assert_eq!(both.status.code(), Some(2), "a usage error");
    json(&run(root, &["index", "--no-ast", "--json"]));
    assert_eq!(count(&json(&run(root, &["stats", "--no-ast", "--json"]))["logic"]), 0);
}
