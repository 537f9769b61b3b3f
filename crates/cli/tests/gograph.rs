//! Conformance tests of the `gograph` binary against the validation contract, one group per
//! bullet of its "Conformance tests" list, each on a tempdir copy of fixtures/validate/mod.
//! (Predicates that need precise facts are covered on hand-built precise graphs in
//! crates/validate/tests/evaluate.rs; a mutation during a blocked validation in
//! crates/validate/tests/operation.rs.)

mod common;

use common::*;
use serde_json::Value;
use std::ffi::OsStr;
use std::fs;
use std::process::Command;

#[test]
fn version_json_reports_the_injected_build_identifier() {
    let out = gograph().args(["version", "--json"]).output().unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let docforge = Command::new(env!("CARGO_BIN_EXE_docforge")).args(["version", "--json"]).output().unwrap();
    let d: Value = serde_json::from_slice(&docforge.stdout).unwrap();
    assert_eq!(v, serde_json::json!({ "schema_version": "gograph.version.v1", "version": d["build"] }));
    assert_ne!(v["version"], d["version"], "the build identifier, not an invented release number");
}

#[test]
fn strict_binding_decoding_through_the_binary() {
    let dir = built();
    let good = exists("example.com/v/b::Help");
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "duplicate key",
            good.replacen("\"predicate\"", "\"predicate\":\"symbol_exists\",\"predicate\"", 1),
            "invalid_request",
        ),
        ("unknown field", good.replacen("{", "{\"relation\":\"calls\",", 1), "invalid_request"),
        (
            "nested unknown field",
            good.replacen("\"language\":\"go\"", "\"language\":\"go\",\"path\":\"/etc\"", 1),
            "invalid_request",
        ),
        ("malformed", good[..20].to_string(), "invalid_request"),
        ("trailing document", format!("{good}{good}"), "invalid_request"),
        ("invalid enum", good.replace("\"ast\"", "\"fast\""), "invalid_request"),
        ("empty id", good.replace("example.com/v/b::Help", ""), "invalid_request"),
        ("malformed id", good.replace("example.com/v/b::Help", "b.Help"), "invalid_request"),
        ("unsupported predicate", good.replace("symbol_exists", "reachable"), "unsupported_predicate"),
        ("unsupported language", good.replace("\"go\"", "\"rust\""), "unsupported_language"),
        ("unstable id", good.replace("example.com/v/b", "_/home/me/v/b"), "symbol_identity_unstable"),
    ];
    for (name, doc, reason) in cases {
        let v = validate(dir.path(), &doc);
        assert_eq!(verdict(&v), ("cannot_evaluate".into(), reason.into()), "{name}: {v}");
        assert!(v["evidence"]["matched_relations"].as_array().unwrap().is_empty());
        if reason == "invalid_request" {
            let sha = docforge_validate::sha256_hex(doc.as_bytes());
            assert_eq!(v["request"], serde_json::json!({ "received_sha256": sha }), "{name}: not echoed");
        }
    }
    use std::os::unix::ffi::OsStrExt;
    let bad_utf8 = OsStr::from_bytes(b"{\"schema_version\":\"gograph.binding.v1\xff\"}");
    is(&validate_raw(dir.path(), bad_utf8), "cannot_evaluate", "invalid_request");
}

#[test]
fn invalid_invocations() {
    let dir = built();
    // Without --json nothing may be parsed as the protocol: one line on stderr, exit 2.
    let out = gograph()
        .arg("validate")
        .arg("--repo")
        .arg(dir.path())
        .args(["--binding-json", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(String::from_utf8_lossy(&out.stderr).lines().count(), 1);
    // With --json, every other invocation problem is a validation document.
    let cases: Vec<Vec<&OsStr>> = vec![
        vec!["--json".as_ref(), "--binding-json".as_ref(), "{}".as_ref()],
        vec!["--json".as_ref(), "--repo".as_ref(), dir.path().as_os_str()],
        vec![
            "--json".as_ref(),
            "--repo".as_ref(),
            "/nonexistent/x".as_ref(),
            "--binding-json".as_ref(),
            "{}".as_ref(),
        ],
        vec![
            "--json".as_ref(),
            "--repo".as_ref(),
            dir.path().as_os_str(),
            "--binding-json".as_ref(),
            "{}".as_ref(),
            "--shell".as_ref(),
        ],
        vec![
            "--json".as_ref(),
            "--repo".as_ref(),
            dir.path().as_os_str(),
            "--repo".as_ref(),
            dir.path().as_os_str(),
            "--binding-json".as_ref(),
            "{}".as_ref(),
        ],
    ];
    // A flag's value is data, and with --json a help flag is no request for usage: exit 0
    // would read as a pass.
    let root = dir.path().as_os_str();
    let good = exists("example.com/v/b::Help");
    let help_cases: Vec<Vec<&OsStr>> = vec![
        vec!["--json".as_ref(), "--repo".as_ref(), root, "--binding-json".as_ref(), "-h".as_ref()],
        vec!["--json".as_ref(), "--repo".as_ref(), root, "--binding-json".as_ref(), "--help".as_ref()],
        vec![
            "--json".as_ref(),
            "--repo".as_ref(),
            "--help".as_ref(),
            "--binding-json".as_ref(),
            good.as_ref(),
        ],
        vec![
            "--repo".as_ref(),
            root,
            "--binding-json".as_ref(),
            good.as_ref(),
            "--json".as_ref(),
            "--help".as_ref(),
        ],
        vec![
            "-h".as_ref(),
            "--json".as_ref(),
            "--repo".as_ref(),
            root,
            "--binding-json".as_ref(),
            good.as_ref(),
        ],
    ];
    for args in cases.into_iter().chain(help_cases) {
        let out = gograph().arg("validate").args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert_eq!(stdout.lines().count(), 1, "{args:?}: one document, no usage prose: {stdout}");
        let v: Value = serde_json::from_str(&stdout).unwrap();
        is(&v, "cannot_evaluate", "invalid_request");
    }
    // Without --json, help is usage for a person.
    let out = gograph().args(["validate", "--help"]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("Usage: gograph validate"));
}

#[test]
fn result_shape_is_closed_and_ordering_is_deterministic() {
    let dir = built();
    let b = binding("package_imports", "example.com/v/a", Some("example.com/v/b"), "ast");
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>().join(",");
    let first = validate(dir.path(), &b);
    assert_eq!(
        keys(&first),
        "analysis,command,evaluation,evidence,generated_at,gograph_version,repository,request,schema_version"
    );
    assert_eq!(keys(&first["repository"]), "root,source_fingerprint");
    assert_eq!(keys(&first["analysis"]), "build_context_fingerprint,completeness,freshness,graph_fingerprint,graph_generated_at,graph_schema_version,mode,precision,source_policy_version");
    assert_eq!(keys(&first["request"]), "binding,binding_fingerprint");
    assert_eq!(keys(&first["evaluation"]), "diagnostics,outcome,reason");
    assert_eq!(keys(&first["evidence"]), "matched_relations,resolved_object,resolved_subject");
    assert_eq!(
        keys(&first["evidence"]["matched_relations"][0]),
        "classification,kind,locations,object_id,subject_id"
    );
    let mut second = validate(dir.path(), &b);
    second["generated_at"] = first["generated_at"].clone();
    assert_eq!(first, second, "only generated_at may differ between runs");
    assert_eq!(
        first["request"]["binding_fingerprint"].as_str().unwrap(),
        docforge_validate::sha256_hex(format!("{b}\n").as_bytes())
    );
}

#[test]
fn one_pass_and_one_fail_per_predicate() {
    let dir = built();
    let root = dir.path();
    is(&validate(root, &exists("example.com/v/b::Help")), "pass", "predicate_passed");
    is(&validate(root, &exists("example.com/v/b::Missing")), "fail", "symbol_not_found");
    is(
        &validate(root, &binding("package_imports", "example.com/v/a", Some("example.com/v/b"), "ast")),
        "pass",
        "predicate_passed",
    );
    is(
        &validate(root, &binding("package_imports", "example.com/v/b", Some("example.com/v/a"), "ast")),
        "fail",
        "relation_not_found",
    );
    // call_edge_exists and type_implements need precise facts: an AST build cannot answer.
    let call = binding("call_edge_exists", "example.com/v/a::Run", Some("example.com/v/b::Help"), "precise");
    let implements = |t: &str, i: &str| binding("type_implements", t, Some(i), "precise");
    let getter = implements("example.com/v/a::Store", "example.com/v/c::Getter");
    for b in [&call, &getter] {
        is(&validate(root, b), "cannot_evaluate", "precision_insufficient");
    }
    build(root, &["--precise"]);
    // type_implements: value and pointer method sets, an embedded interface, and two types
    // named Thing in packages named util (go/types agrees with every line).
    let cases = [
        ("example.com/v/a::Store", "example.com/v/c::Getter", "pass", Some("pointer_method_set")),
        ("example.com/v/a::Store", "example.com/v/c::Named", "fail", None),
        ("example.com/v/c::Value", "example.com/v/c::Named", "pass", Some("value_method_set")),
        ("example.com/v/c::Value", "example.com/v/c::Getter", "pass", Some("value_method_set")),
        ("example.com/v/x/util::Thing", "example.com/v/c::Getter", "pass", Some("value_method_set")),
        ("example.com/v/y/util::Thing", "example.com/v/c::Getter", "fail", None),
    ];
    for (t, i, outcome, class) in cases {
        let v = validate(root, &implements(t, i));
        let reason = if outcome == "pass" { "predicate_passed" } else { "relation_not_found" };
        is(&v, outcome, reason);
        assert_eq!(v["analysis"]["precision"], "precise", "{t} {i}");
        assert_eq!(v["analysis"]["mode"], "precise");
        let got = v["evidence"]["matched_relations"][0]["classification"].as_str();
        assert_eq!(got, class, "{t} {i}: {v}");
    }
    // call_edge_exists: a direct static call, CHA interface candidates, an unresolved
    // function value, a synthetic-only (method expression) edge and an absent edge; every
    // edge here is in go/ssa + callgraph/cha's graph (tests/oracle/compare.sh --cha).
    let call = |s: &str, o: &str| binding("call_edge_exists", s, Some(o), "precise");
    let cases = [
        ("a::Run", "b::Help", "pass", "predicate_passed", Some("resolved_static")),
        ("a::Lookup", "c::(Value).Get", "pass", "predicate_passed", Some("cha_possible_target")),
        ("a::Lookup", "a::(*Store).Get", "pass", "predicate_passed", Some("cha_possible_target")),
        ("a::Lookup", "x/util::(Thing).Get", "pass", "predicate_passed", Some("cha_possible_target")),
        ("a::Run", "c::(Value).Get", "fail", "relation_not_found", None),
        // Reached only through go/ssa's method-expression thunk: neither pass nor fail.
        ("a::Expr", "c::(Value).Get", "cannot_evaluate", "analysis_incomplete", None),
        ("a::Hook", "b::Help", "cannot_evaluate", "analysis_incomplete", None),
    ];
    for (s, o, outcome, reason, class) in cases {
        let (s, o) = (format!("example.com/v/{s}"), format!("example.com/v/{o}"));
        let v = validate(root, &call(&s, &o));
        is(&v, outcome, reason);
        let got = v["evidence"]["matched_relations"][0]["classification"].as_str();
        assert_eq!(got, class, "{s} -> {o}: {v}");
    }
    let v = validate(root, &call("example.com/v/a::Expr", "example.com/v/c::(Value).Get"));
    let codes: Vec<&str> = v["evaluation"]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert!(codes.contains(&"synthetic_edge_only"), "{v}");
}

#[test]
fn unusable_graphs_are_cannot_evaluate() {
    let dir = fixture();
    let root = dir.path();
    let b = exists("example.com/v/b::Help");
    let v = validate(root, &b);
    is(&v, "cannot_evaluate", "graph_missing");
    assert!(v["repository"]["source_fingerprint"].is_string(), "the current sources are still fingerprinted");
    assert!(v["analysis"].get("graph_fingerprint").is_none(), "omitted: there is no artifact");
    build(root, &[]);
    let pristine = fs::read(graph_path(root)).unwrap();
    let cases: Vec<(&str, Edit, &str)> = vec![
        (
            "malformed",
            Box::new(|r| fs::write(graph_path(r), "{\"schema_version\":").unwrap()),
            "graph_invalid",
        ),
        (
            "unsupported schema",
            Box::new(|r| edit_graph(r, |v| v["schema_version"] = "3".into())),
            "graph_schema_unsupported",
        ),
        (
            "unsupported policy",
            Box::new(|r| edit_graph(r, |v| v["source_policy_version"] = 7.into())),
            "source_policy_unsupported",
        ),
        (
            "legacy, no policy marker",
            Box::new(|r| {
                edit_graph(r, |v| {
                    v.as_object_mut().unwrap().remove("source_policy_version");
                })
            }),
            "source_policy_unsupported",
        ),
        (
            "legacy, no build metadata",
            Box::new(|r| {
                edit_graph(r, |v| {
                    v.as_object_mut().unwrap().remove("build");
                })
            }),
            "graph_invalid",
        ),
        (
            "missing digest",
            Box::new(|r| edit_graph(r, |v| v["build"]["files"][0]["sha256"] = "".into())),
            "graph_invalid",
        ),
        (
            "unknown field",
            Box::new(|r| edit_graph(r, |v| v["root"] = "/somewhere/else".into())),
            "graph_invalid",
        ),
    ];
    for (name, break_it, reason) in cases {
        fs::write(graph_path(root), &pristine).unwrap();
        break_it(root);
        let v = validate(root, &b);
        assert_eq!(verdict(&v), ("cannot_evaluate".into(), reason.into()), "{name}: {v}");
        if name != "malformed" {
            assert_eq!(
                v["analysis"]["graph_fingerprint"].as_str().unwrap(),
                docforge_validate::sha256_hex(&fs::read(graph_path(root)).unwrap()),
                "{name}"
            );
        }
    }
}

#[test]
fn freshness_stale_sources_metadata_and_build_context() {
    let b = exists("example.com/v/b::Help");
    let edits: Vec<(&str, Edit, &str)> = vec![
        (
            "Go file edited",
            Box::new(|r| {
                fs::write(r.join("b/b.go"), "package b\n\nfunc Help() string { return \"\" }\n").unwrap()
            }),
            "source_changed",
        ),
        (
            "Go file added",
            Box::new(|r| fs::write(r.join("b/more.go"), "package b\n").unwrap()),
            "source_added",
        ),
        (
            "Go file removed",
            Box::new(|r| fs::remove_file(r.join("y/util/util.go")).unwrap()),
            "source_removed",
        ),
        (
            "go.mod edited",
            Box::new(|r| fs::write(r.join("go.mod"), "module example.com/v\n\ngo 1.23\n").unwrap()),
            "source_changed",
        ),
        (
            "build context",
            Box::new(|r| {
                fs::write(r.join("docforge.toml"), "schema_version = 1\n[go]\ngoos = \"darwin\"\n").unwrap()
            }),
            "build_context_changed",
        ),
        (
            "selection policy",
            Box::new(|r| {
                fs::write(r.join("docforge.toml"), "schema_version = 1\n[sources]\nexclude = [\"y/**\"]\n")
                    .unwrap()
            }),
            "selection_policy_changed",
        ),
    ];
    for (name, edit, code) in edits {
        let dir = built();
        let stale = gograph().arg("stale").arg("--repo").arg(dir.path()).arg("--json").output().unwrap();
        assert_eq!(stale.status.code(), Some(0), "{name}: current before the edit");
        edit(dir.path());
        let v = validate(dir.path(), &b);
        is(&v, "cannot_evaluate", "graph_stale");
        assert_eq!(v["analysis"]["freshness"], "stale");
        let codes: Vec<&str> = v["evaluation"]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["code"].as_str().unwrap())
            .collect();
        assert!(codes.contains(&code), "{name}: {codes:?}");
        let stale = gograph().arg("stale").arg("--repo").arg(dir.path()).arg("--json").output().unwrap();
        assert_eq!(stale.status.code(), Some(2), "{name}: stale exits 2");
        let s: Value = serde_json::from_slice(&stale.stdout).unwrap();
        assert_eq!(s["freshness"], "stale");
        assert_ne!(s["repository"]["source_fingerprint"], s["graph"]["source_fingerprint"]);
    }
    // A Markdown-only edit does not touch the Go structural snapshot.
    let dir = built();
    fs::write(dir.path().join("docs/claims.md"), "# changed\n").unwrap();
    is(&validate(dir.path(), &b), "pass", "predicate_passed");
}

#[test]
fn scanner_errors_are_surfaced_never_swallowed() {
    if is_root() {
        eprintln!("skipped: root can read a mode-000 directory");
        return;
    }
    let dir = built();
    let locked = dir.path().join("locked");
    fs::create_dir(&locked).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o000)).unwrap();
    let v = validate(dir.path(), &exists("example.com/v/b::Help"));
    let stale = gograph().arg("stale").arg("--repo").arg(dir.path()).arg("--json").output().unwrap();
    fs::set_permissions(&locked, fs::Permissions::from_mode(0o755)).unwrap();
    is(&v, "cannot_evaluate", "analysis_incomplete");
    assert_eq!(v["analysis"]["freshness"], "unknown");
    assert_eq!(v["evaluation"]["diagnostics"][0]["code"], "scan_error");
    assert_eq!(v["evaluation"]["diagnostics"][0]["path"], "locked");
    assert_eq!(stale.status.code(), Some(1), "stale: an error, not current");
    let s: Value = serde_json::from_slice(&stale.stdout).unwrap();
    assert_eq!(s["freshness"], "unknown");
    assert_eq!(String::from_utf8_lossy(&stale.stderr).lines().count(), 1);
}

#[test]
fn analysis_states_ast_fallback_partial_unknown() {
    let dir = built();
    let root = dir.path();
    let present = exists("example.com/v/b::Help");
    let absent = exists("example.com/v/b::Gone");
    let v = validate(root, &present);
    assert_eq!(
        (v["analysis"]["precision"].as_str(), v["analysis"]["completeness"].as_str()),
        (Some("ast"), Some("complete"))
    );
    let out = build(root, &["--precise"]);
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(validate(root, &present)["analysis"]["precision"], "precise");
    is(&validate(root, &absent), "fail", "symbol_not_found");
    // Precise analysis that fails for a package (its signatures do not parse) falls back,
    // visibly; presence still passes, absence is inconclusive.
    fs::write(root.join("c/broken.go"), "package c\n\ntype Broken interface { Get( }\n").unwrap();
    let out = build(root, &["--precise"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("precise_fallback") && stderr.contains("example.com/v/c"), "{stderr}");
    let v = validate(root, &present);
    is(&v, "pass", "predicate_passed");
    assert_eq!(v["analysis"]["precision"], "precise_fallback");
    let v = validate(root, &absent);
    is(&v, "cannot_evaluate", "symbol_not_found");
    fs::remove_file(root.join("c/broken.go")).unwrap();
    // Partial: a file that does not parse makes absence inconclusive; presence still passes.
    fs::write(root.join("b/broken.go"), "package b\n\nfunc Broken( {\n").unwrap();
    build(root, &[]);
    let v = validate(root, &present);
    is(&v, "pass", "predicate_passed");
    assert_eq!(v["analysis"]["completeness"], "partial");
    is(&validate(root, &absent), "cannot_evaluate", "symbol_not_found");
    is(
        &validate(root, &binding("package_imports", "example.com/v/b", Some("example.com/v/a"), "ast")),
        "cannot_evaluate",
        "relation_not_found",
    );
    let stats: Value = serde_json::from_slice(
        &gograph().arg("stats").arg("--repo").arg(root).arg("--json").output().unwrap().stdout,
    )
    .unwrap();
    assert_eq!(stats["graph"]["parse_failures"], 1);
    assert_eq!(stats["graph"]["completeness"], "partial");
}

#[test]
fn exact_case_sensitive_resolution_ambiguity_and_package_name_collisions() {
    let dir = built();
    let root = dir.path();
    is(&validate(root, &exists("example.com/v/b::help")), "fail", "symbol_not_found");
    // Module paths are case-sensitive: another module's ID binds nothing here.
    is(&validate(root, &exists("example.com/V/b::Help")), "cannot_evaluate", "repository_mismatch");
    is(&validate(root, &exists("example.com/v/a::(Store).Get")), "fail", "symbol_not_found");
    is(&validate(root, &exists("example.com/v/a::(*Store).Get")), "pass", "predicate_passed");
    let imports = |object: &str| binding("package_imports", "example.com/v/a", Some(object), "ast");
    is(&validate(root, &imports("example.com/v/x/util")), "pass", "predicate_passed");
    is(&validate(root, &imports("example.com/v/y/util")), "fail", "relation_not_found");
    is(&validate(root, &imports("util")), "fail", "relation_not_found");
    // A path of the module that names no selected package: absence is not established.
    is(
        &validate(root, &binding("package_imports", "example.com/v/z", Some("example.com/v/b"), "ast")),
        "cannot_evaluate",
        "package_not_found",
    );
    // The same function declared twice: two records for one ID.
    fs::write(root.join("b/again.go"), "package b\n\nfunc Help() string { return \"again\" }\n").unwrap();
    build(root, &[]);
    let v = validate(root, &exists("example.com/v/b::Help"));
    is(&v, "cannot_evaluate", "symbol_ambiguous");
    assert_eq!(v["evaluation"]["diagnostics"][0]["symbol_id"], "example.com/v/b::Help");
}

#[test]
fn argument_errors_are_clap_messages_and_bare_gograph_is_its_help() {
    let bare = gograph().output().unwrap();
    assert_eq!(bare.status.code(), Some(2));
    assert!(bare.stdout.is_empty());
    let help = String::from_utf8(bare.stderr).unwrap();
    assert!(help.contains("Commands:") && help.contains("Exit codes:"), "{help}");
    let out = gograph().args(["biuld"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("a similar subcommand exists: 'build'") && err.contains("Usage: gograph"), "{err}");
}
