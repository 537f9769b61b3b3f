//! Call resolution on `fixtures/shop` agrees with go/ssa + callgraph/cha
//! (`tests/oracle/testdata/shop.cha`, regenerate with
//! `cd tests/oracle && CGO_ENABLED=0 go run . -cha -root ../../fixtures/shop > testdata/shop.cha`):
//! every static edge we claim is in the oracle's graph, every oracle edge from a call site we
//! resolved is ours, no CHA target is extra, synthetic marks agree. Calls into the standard
//! library stay unresolved (`external_type`): the fixture's source holds no GOROOT.

#[path = "../examples/calls/run.rs"]
mod run;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Edge = (String, String, String);

#[test]
fn shop_matches_go_ssa_cha() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let oracle_text = std::fs::read_to_string(repo.join("tests/oracle/testdata/shop.cha")).unwrap();
    let mut oracle: BTreeMap<Edge, bool> = BTreeMap::new();
    for l in oracle_text.lines() {
        let p: Vec<&str> = l.split('\t').collect();
        let syn = oracle.get(&(p[0].into(), p[1].into(), p[2].into())).is_none_or(|s| *s);
        oracle.insert((p[0].into(), p[1].into(), p[2].into()), syn && p[4] == "synthetic");
    }
    let report = run::run(&repo.join("fixtures/shop"), false, false);
    let (mut ours, mut resolved, mut unresolved) = (BTreeMap::new(), BTreeSet::new(), BTreeMap::new());
    for l in &report.lines {
        let p: Vec<&str> = l.split('\t').collect();
        match p[3] {
            "static" | "cha" => {
                ours.insert(
                    (p[0].to_string(), p[1].to_string(), p[2].to_string()),
                    (p[3], p[4] == "synthetic"),
                );
                resolved.insert(p[0].to_string());
            }
            "resolved" => {
                resolved.insert(p[0].to_string());
            }
            _ => {
                unresolved.insert(p[0].to_string(), p[4].split(':').next().unwrap().to_string());
            }
        }
    }
    for (e, (class, syn)) in &ours {
        assert_eq!(oracle.get(e), Some(syn), "{class} edge {e:?} (synthetic {syn}) not in the oracle");
    }
    for e in oracle.keys().filter(|e| resolved.contains(&e.0)) {
        assert!(ours.contains_key(e), "oracle edge {e:?} from a resolved site is missing");
    }
    let reasons: BTreeSet<&str> = unresolved.values().map(String::as_str).collect();
    assert_eq!(reasons, BTreeSet::from(["external_type", "function_value"]));
    // The README's calls worth testing.
    let has = |site: &str, callee: &str, class: &str| {
        ours.iter().any(|((s, _, c), (k, _))| s.starts_with(site) && c == callee && *k == class)
    };
    assert!(has("service/service.go:48:", "example.com/shop/storage/memory::(*Repo).Get", "cha"));
    assert!(has("service/service.go:61:", "example.com/shop/service::(*Base).Name", "static"));
    assert!(has("service/service.go:44:", "example.com/shop/service::(Set).Has", "static"));
    assert!(has("cache/cache.go:19:", "example.com/shop/cache::(Snapshot).Get", "cha"));
    assert_eq!(unresolved.get("service/service.go:54:20").map(String::as_str), Some("function_value"));
}
