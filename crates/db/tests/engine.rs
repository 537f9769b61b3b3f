//! The engine through its host: incrementality (counted salsa executions), the no-AST gate,
//! bad inputs, and cancellation.

mod support;

use docforge_db::{AnalysisHost, AstPolicy, Change, FileChange};
use docforge_project::{FileKind, Project};
use std::fs;
use support::{edit, executed, host, owners, set, small_project, write};

#[test]
fn graph_has_go_and_doc_nodes_with_gograph_ids() {
    let dir = small_project();
    let h = host(dir.path(), AstPolicy::Allow);
    let g = h.analysis().graph().unwrap();
    let ids: Vec<&str> = g.nodes().map(|n| n.id.as_str()).collect();
    for want in [
        "go:example.com/m/a",
        "go:example.com/m/a::A",
        "go:example.com/m/b::C",
        "file:a/a.go",
        "x",
        "x#x",
        "docs/y",
    ] {
        assert!(ids.contains(&want), "missing {want}: {ids:?}");
    }
    let edges: Vec<(String, String, String)> =
        g.edges().map(|e| (e.source.clone(), e.relation.clone(), e.target.clone())).collect();
    let has = |s: &str, r: &str, t: &str| edges.iter().any(|e| e.0 == s && e.1 == r && e.2 == t);
    assert!(has("go:example.com/m/a::A", "calls", "go:example.com/m/a::B"), "{edges:?}");
    assert!(has("go:example.com/m/b::C", "calls", "go:example.com/m/a::A"), "{edges:?}");
    assert!(has("go:example.com/m/b", "imports", "go:example.com/m/a"), "{edges:?}");
    assert!(edges.iter().any(|e| e.1 == "documents" && e.2 == "go:example.com/m/a::A"), "{edges:?}");
    assert!(g.summary.completeness.complete, "{:?}", g.summary.completeness);
}

#[test]
fn editing_one_go_file_reexecutes_only_its_queries() {
    let dir = small_project();
    let mut h = host(dir.path(), AstPolicy::Allow);
    h.analysis().graph().unwrap();
    let parses = h.gate_counters().parses;
    h.execution_log().enable(true);
    edit(&mut h, "c/c.go", FileKind::Go, b"package c\n\nfunc D() {}\n\nfunc E() { D() }\n");
    h.analysis().graph().unwrap();
    let log = h.execution_log().take();
    // Its text, and its outline (what other packages read of it: its declarations changed).
    assert_eq!(h.gate_counters().parses, parses + 2, "only the edited file is re-parsed");
    let facts: Vec<_> = log.iter().filter(|e| e.starts_with("go_parsed(")).collect();
    assert_eq!(facts.len(), 1, "{log:#?}");
    let digests = log.iter().filter(|e| e.starts_with("file_digest(")).count();
    assert_eq!(digests, 1, "{log:#?}");
    // Packages a and b did not change: their fragments are not recomputed.
    let fragments = log.iter().filter(|e| e.starts_with("package_fragment(")).count();
    assert_eq!(fragments, 1, "{log:#?}");
    let file_fragments = log.iter().filter(|e| e.starts_with("go_file_fragment(")).count();
    assert_eq!(file_fragments, 1, "only c/c.go is re-projected: {log:#?}");
    // Only the edited directory's chunk is rebuilt; the graph just concatenates.
    assert_eq!(log.iter().filter(|e| e.starts_with("dir_chunk(")).count(), 1, "{log:#?}");
    // Documents do not depend on package c: nothing on the docs side re-runs.
    assert!(!log.iter().any(|e| e.starts_with("doc_facts(") || e.starts_with("doc_fragment(")), "{log:#?}");
}

#[test]
fn editing_prose_reprojects_only_that_document() {
    let dir = small_project();
    let mut h = host(dir.path(), AstPolicy::Allow);
    h.analysis().graph().unwrap();
    // The first editor change of a file moves its content from MEDIUM (as loaded from disk)
    // to LOW durability, and salsa cannot backdate across that move: what other documents
    // read of it (its index entry) is a separate MEDIUM input, so even the first edit
    // re-projects this document only, and so do the next.
    for prose in [b"# Y\n\nPlain prose.\n".as_slice(), b"# Y\n\nPlain prose, edited.\n"] {
        h.execution_log().enable(true);
        edit(&mut h, "docs/y.md", FileKind::Markdown, prose);
        h.analysis().graph().unwrap();
        let log = executed(&h);
        assert_eq!(log.iter().filter(|e| e.starts_with("doc_facts(")).count(), 1, "{log:#?}");
        assert_eq!(log.iter().filter(|e| e.starts_with("doc_fragment(")).count(), 1, "{log:#?}");
        assert!(!log.iter().any(|e| e.starts_with("doc_index(")), "{log:#?}");
        assert!(
            !log.iter().any(|e| e.starts_with("go_facts(") || e.starts_with("package_fragment(")),
            "{log:#?}"
        );
    }
    // A new heading changes the index: the document that links into this one is re-projected
    // too, and the result is a fresh analysis's.
    h.execution_log().enable(true);
    let heading = b"# Y\n\nPlain prose.\n\n## More\n";
    edit(&mut h, "docs/y.md", FileKind::Markdown, heading);
    let g = h.analysis().graph().unwrap();
    let log = h.execution_log().take();
    assert!(log.iter().any(|e| e.starts_with("doc_index(")), "{log:#?}");
    assert_eq!(log.iter().filter(|e| e.starts_with("doc_fragment(")).count(), 2, "{log:#?}");
    assert!(g.nodes().any(|n| n.id == "docs/y#more"), "{:?}", g.nodes().map(|n| &n.id).collect::<Vec<_>>());
    write(dir.path(), "docs/y.md", heading);
    let fresh = host(dir.path(), AstPolicy::Allow);
    assert_eq!(owners(&h), owners(&fresh));
}

#[test]
fn no_ast_policy_runs_no_go_query_but_hashes_go_files() {
    let dir = small_project();
    let h = host(dir.path(), AstPolicy::Forbid);
    let g = h.analysis().graph().unwrap();
    let counters = h.gate_counters();
    assert_eq!(counters.parses, 0);
    assert_eq!(counters.query_executions, 0);
    assert!(counters.refusals > 0, "the gate was asked and refused");
    let file = g.nodes().find(|n| n.id == "file:a/a.go").expect("Go files are inventoried");
    assert_eq!(file.attrs.get("sha256").map(String::len), Some(64));
    assert!(!g.nodes().any(|n| n.id.starts_with("go:")), "no Go symbols under --no-ast");
    assert_eq!(g.summary.precision, None);
    // The same project with AST allowed does run queries: the counter is not vacuous.
    let h = host(dir.path(), AstPolicy::Allow);
    h.analysis().graph().unwrap();
    assert!(h.gate_counters().query_executions > 0);
}

#[test]
fn bad_inputs_become_diagnostics_and_lose_nothing() {
    let dir = small_project();
    let r = dir.path();
    write(r, "docs/bad-utf8.md", b"# Title \xff\xfe\n\ntext\n");
    write(r, "docs/broken.md", b"+++\nid = \n+++\n# Still here\n");
    write(r, "d/broken.go", b"package d\n\nfunc Broken() { x := }\n\nfunc Fine() {}\n");
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "leak.md", b"# leak\n");
    std::os::unix::fs::symlink(outside.path().join("leak.md"), r.join("docs/leak.md")).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(r.join("docs/pipe.md")).status().unwrap().success());
    let h = host(r, AstPolicy::Allow);
    let g = h.analysis().graph().unwrap();
    let codes: Vec<(&str, Option<&str>)> =
        g.diagnostics().map(|d| (d.code.as_str(), d.location.as_ref().map(|l| l.path.as_str()))).collect();
    for (code, path) in [
        ("invalid_utf8", "docs/bad-utf8.md"),
        ("front_matter_invalid", "docs/broken.md"),
        ("go_syntax_error", "d/broken.go"),
        ("symlink_outside_root", "docs/leak.md"),
        ("special_file", "docs/pipe.md"),
    ] {
        assert!(codes.contains(&(code, Some(path))), "missing {code} at {path}: {codes:?}");
    }
    let ids: Vec<&str> = g.nodes().map(|n| n.id.as_str()).collect();
    // Nothing else is lost: the broken files are still nodes, and so is everything else.
    for want in [
        "docs/bad-utf8",
        "docs/broken",
        "go:example.com/m/d::Fine",
        "go:example.com/m/a::A",
        "x",
        "file:docs/pipe.md",
    ] {
        assert!(ids.contains(&want), "missing {want}");
    }
    assert!(!g.summary.completeness.complete);
    assert!(
        g.summary.completeness.reasons.iter().any(|r| r.starts_with("go_syntax_error")),
        "{:?}",
        g.summary.completeness
    );
}

#[test]
fn unchanged_disk_sync_reads_nothing() {
    let dir = small_project();
    let mut h = host(dir.path(), AstPolicy::Allow);
    let report = h.sync_from_disk();
    assert_eq!(report.read, 0);
    assert!(report.unchanged >= 6);
    write(dir.path(), "c/c.go", b"package c\n\nfunc D() { D() }\n");
    let report = h.sync_from_disk();
    assert_eq!(report.read, 1);
    fs::remove_file(dir.path().join("docs/y.md")).unwrap();
    let report = h.sync_from_disk();
    assert_eq!((report.read, report.removed), (0, 1));
    let g = h.analysis().graph().unwrap();
    assert!(!g.nodes().any(|n| n.id == "docs/y"));
}

#[test]
fn a_write_cancels_a_running_read() {
    let dir = small_project();
    let mut h = host(dir.path(), AstPolicy::Allow);
    let analysis = h.analysis();
    // A snapshot taken before a change is cancelled by it instead of blocking the writer.
    let reader = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(200));
        analysis.graph()
    });
    h.apply_change(Change { files: vec![FileChange::Remove { rel: "c/c.go".into() }], ..Default::default() });
    let result = reader.join().unwrap();
    assert!(result.is_err(), "the stale snapshot must report Cancelled");
    let g = h.analysis().graph().unwrap();
    assert!(!g.nodes().any(|n| n.id == "file:c/c.go"));
}

#[test]
fn delta_publication_matches_a_full_rebuild() {
    let dir = small_project();
    let idx = tempfile::tempdir().unwrap();
    let mut h = host(dir.path(), AstPolicy::Allow);
    let mut index = docforge_index::Index::open(&idx.path().join("a.sqlite")).unwrap();
    let first = h.publish(&mut index).unwrap();
    write(dir.path(), "c/c.go", b"package c\n\nfunc D() {}\n\nfunc E() { D() }\n");
    fs::remove_file(dir.path().join("docs/y.md")).unwrap();
    write(dir.path(), "docs/z.md", b"# Z\n\n[[x]]\n");
    h.sync_from_disk();
    let second = h.publish(&mut index).unwrap();
    assert_eq!(second.generation, first.generation + 1);
    assert!(second.owners_written <= 6, "only changed owners are sent: {second:?}");
    // A fresh host publishing everything into a fresh index reaches the same graph.
    let mut fresh = host(dir.path(), AstPolicy::Allow);
    let mut other = docforge_index::Index::open(&idx.path().join("b.sqlite")).unwrap();
    fresh.publish(&mut other).unwrap();
    let (a, b) = (index.publication().unwrap().unwrap(), other.publication().unwrap().unwrap());
    assert_eq!(a.graph_digest, b.graph_digest);
    assert_eq!(a.source_fingerprint, b.source_fingerprint);
    assert_eq!(index.files().unwrap(), other.files().unwrap());
    // Another writer published meanwhile: the host falls back to a full batch, not a wrong delta.
    fresh.publish(&mut index).unwrap();
    write(dir.path(), "c/c.go", b"package c\n\nfunc D() {}\n");
    h.sync_from_disk();
    h.publish(&mut index).unwrap();
    let mut check = host(dir.path(), AstPolicy::Allow);
    let mut third = docforge_index::Index::open(&idx.path().join("c.sqlite")).unwrap();
    check.publish(&mut third).unwrap();
    assert_eq!(
        index.publication().unwrap().unwrap().graph_digest,
        third.publication().unwrap().unwrap().graph_digest
    );
}

#[test]
fn module_less_dirs_xtests_and_build_constraints() {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, "loose/l.go", b"package loose\n\nfunc L() {}\n");
    write(r, "m/go.mod", b"module example.com/m\n");
    write(r, "m/p/p.go", b"package p\n\nfunc P() {}\n");
    write(r, "m/p/p_windows.go", b"package p\n\nfunc OnlyWindows() {}\n");
    write(r, "m/p/tagged.go", b"//go:build ignore\n\npackage p\n\nfunc Ignored() {}\n");
    write(r, "m/p/p_test.go", b"package p\n\nimport \"testing\"\n\nfunc TestP(t *testing.T) { P() }\n");
    write(r, "m/p/x_test.go", b"package p_test\n\nimport \"example.com/m/p\"\n\nfunc TestX() { p.P() }\n");
    // A directory of external tests only (go/build: the external test package of `q`).
    write(r, "m/q/q_test.go", b"package q_test\n\nfunc TestQ() {}\n");
    let h = host(r, AstPolicy::Allow);
    let g = h.analysis().graph().unwrap();
    let node = |id: &str| g.nodes().find(|n| n.id == id).unwrap_or_else(|| panic!("no node {id}")).clone();
    // A directory outside any module: Go's machine-local pseudo path, marked unstable.
    let root = h.project().root.display().to_string();
    let loose = node(&format!("go:_{root}/loose"));
    assert_eq!(loose.attrs.get("identity").map(String::as_str), Some("unstable"));
    // The external test package is its own package, marked as a test.
    let xtest = node("go:example.com/m/p_test");
    assert_eq!(xtest.attrs.get("test").map(String::as_str), Some("true"));
    assert!(g.edges().any(|e| e.source == "go:example.com/m/p_test::TestX"
        && e.relation == "calls"
        && e.target == "go:example.com/m/p::P"));
    assert!(g.edges().any(|e| e.source == "go:example.com/m/p::P"
        && e.relation == "tested_by"
        && e.target == "go:example.com/m/p::TestP"));
    assert_eq!(node("go:example.com/m/p::TestP").attrs.get("test").map(String::as_str), Some("true"));
    assert_eq!(node("go:example.com/m/q_test").attrs.get("test").map(String::as_str), Some("true"));
    assert!(g.nodes().any(|n| n.id == "go:example.com/m/q_test::TestQ"));
    assert!(!g.nodes().any(|n| n.id == "go:example.com/m/q"));
    // Files outside the build context are inventoried, recorded as excluded, and define nothing.
    for (file, why) in [("m/p/p_windows.go", "excluded:file name suffix"), ("m/p/tagged.go", "excluded:")] {
        let status = node(&format!("file:{file}")).attrs.get("status").cloned().unwrap_or_default();
        assert!(status.starts_with(why), "{file}: {status}");
    }
    assert!(!g.nodes().any(|n| n.id.ends_with("::OnlyWindows") || n.id.ends_with("::Ignored")));
}

#[test]
fn steady_state_edit_does_not_revisit_other_directories() {
    // Salsa's durability shortcut: once a file is being edited (LOW), memos that read only
    // MEDIUM inputs (other files as loaded from disk, the workspace) are verified in O(1)
    // without walking their dependencies. A workspace input left at LOW durability silently
    // turns every edit into a walk over every memo of the project.
    let dir = small_project();
    let mut h = host(dir.path(), AstPolicy::Allow);
    h.analysis().graph().unwrap();
    edit(&mut h, "c/c.go", FileKind::Go, b"package c\n\nfunc D() {}\n\nfunc E() { D() }\n");
    h.analysis().graph().unwrap();
    h.execution_log().enable(true);
    edit(&mut h, "c/c.go", FileKind::Go, b"package c\n\nfunc D() {}\n\nfunc E() { D(); D() }\n");
    h.analysis().graph().unwrap();
    let log = h.execution_log().take();
    // Only the edited file's own per-file queries appear at all (executed, not validated)...
    for query in ["file_record(", "file_digest(", "go_facts(", "file_fragment("] {
        let seen: Vec<_> =
            log.iter().filter(|e| e.trim_start_matches("validated ").starts_with(query)).collect();
        assert_eq!(seen.len(), 1, "{query}: {log:#?}");
        assert!(!seen[0].starts_with("validated "), "{log:#?}");
    }
    // ...but its selection, read from its outline, which an edit inside a body leaves as it
    // was: validated, not run again.
    let selection: Vec<_> = log.iter().filter(|e| e.contains("go_selection(")).collect();
    assert!(matches!(&selection[..], [v] if v.starts_with("validated ")), "{log:#?}");
    assert_shallow_elsewhere(&log);
}

/// Other directories' chunks are checked shallowly: their dependencies are not visited.
/// (The edited directory's package list and symbol table are validated, not run again.)
fn assert_shallow_elsewhere(log: &[String]) {
    assert!(log.iter().any(|e| e.starts_with("validated dir_chunk(")), "{log:#?}");
    for (deep, at_most) in
        [("validated package_symbols(", 1), ("validated doc_facts(", 0), ("validated dir_packages(", 1)]
    {
        let n = log.iter().filter(|e| e.starts_with(deep)).count();
        assert!(n <= at_most, "{deep}: {log:#?}");
    }
    for executed in ["package_symbols(", "dir_packages(", "doc_facts("] {
        assert!(!log.iter().any(|e| e.starts_with(executed)), "{executed}: {log:#?}");
    }
}

#[test]
fn the_first_edit_inside_a_body_runs_nothing_in_importing_packages() {
    // A file as loaded from disk is MEDIUM; its first edit makes its content LOW, and salsa
    // never backdates a value whose durability dropped, so everything that read the file
    // used to run again (seconds for `fmt` in the standard library). What other packages read
    // of it comes from its outline (MEDIUM), which an edit inside a body leaves equal.
    let dir = small_project();
    let r = dir.path();
    let mut h = precise_host(r);
    h.analysis().graph().unwrap();
    h.execution_log().enable(true);
    let body = b"package a\n\nfunc A() int { return B() + B() }\n\nfunc B() int { return 1 }\n";
    edit(&mut h, "a/a.go", FileKind::Go, body);
    h.analysis().graph().unwrap();
    let ran = executed(&h);
    let count = |q: &str| ran.iter().filter(|e| e.starts_with(q)).count();
    for q in [
        "dir_packages(",
        "package_symbols(",
        "file_sigs(",
        "package_sigs(",
        "named_type_info(",
        "module_implements(",
        "module_cha(",
    ] {
        assert_eq!(count(q), 0, "{q}: {ran:#?}");
    }
    // a.go is parsed and its calls resolved again; b.go, which calls a.A, is not touched.
    assert_eq!((count("go_parsed("), count("go_outline("), count("file_calls(")), (1, 1, 1), "{ran:#?}");

    // A declaration edit does reach the importer; the result is a fresh analysis's.
    let decl = b"package a\n\nfunc A() string { return \"\" }\n\nfunc B() int { return 1 }\n";
    edit(&mut h, "a/a.go", FileKind::Go, decl);
    let incremental = owners(&h);
    assert!(h.execution_log().take().iter().any(|e| e.starts_with("package_sigs(")));
    write(r, "a/a.go", decl);
    let fresh = precise_host(r);
    assert_eq!(incremental, owners(&fresh));
}

#[test]
fn a_change_of_many_files_drops_outlines_and_stays_exact() {
    // A branch switch changes many files at once: the host records no outlines for them (a
    // parse each, on one thread) and forgets the ones it had, so what other packages read
    // comes from the files themselves again, never from a stale outline.
    let dir = small_project();
    let r = dir.path();
    let mut h = precise_host(r);
    h.analysis().graph().unwrap();
    edit(
        &mut h,
        "a/a.go",
        FileKind::Go,
        b"package a\n\nfunc A() int { return B() * 2 }\n\nfunc B() int { return 1 }\n",
    );
    h.analysis().graph().unwrap();
    let a = b"package a\n\nfunc A() int { return B() }\n\nfunc B() int { return 1 }\n\nfunc Z() {}\n";
    let mut files = vec![set("a/a.go", FileKind::Go, a)];
    // b calls the new function: from a stale outline it would stay unresolved.
    let b = b"package b\n\nimport \"example.com/m/a\"\n\nfunc C() int { a.Z(); return a.A() }\n";
    files.push(set("b/b.go", FileKind::Go, b));
    let mut on_disk = vec![("a/a.go".to_string(), a.to_vec()), ("b/b.go".to_string(), b.to_vec())];
    for i in 0..20 {
        let (rel, text) = (format!("many/f{i}.go"), format!("package many\n\nfunc F{i}() {{}}\n"));
        on_disk.push((rel.clone(), text.clone().into_bytes()));
        files.push(set(&rel, FileKind::Go, text.as_bytes()));
    }
    h.apply_change(Change { files, ..Default::default() });
    let incremental = owners(&h);
    let g = h.analysis().graph().unwrap();
    assert!(g.edges().any(|e| e.source == "go:example.com/m/b::C"
        && e.relation == "calls"
        && e.target == "go:example.com/m/a::Z"));
    for (rel, text) in &on_disk {
        write(r, rel, text);
    }
    let fresh = precise_host(r);
    assert_eq!(incremental, owners(&fresh));
}

fn implements_edges(h: &AnalysisHost) -> Vec<(String, String, String)> {
    let g = h.analysis().graph().unwrap();
    g.edges()
        .filter(|e| e.relation == "implements")
        .map(|e| (e.source.clone(), e.target.clone(), e.attrs.get("receiver").cloned().unwrap_or_default()))
        .collect()
}

#[test]
fn precise_implements_survive_body_edits_and_follow_signature_edits() {
    let dir = small_project();
    let r = dir.path();
    write(r, "s/s.go", b"package s\n\ntype Sizer interface{ Size() int }\n");
    write(r, "t/t.go", b"package t\n\ntype T struct{}\n\nfunc (*T) Size() int { return 1 }\n");
    let mut h = precise_host(r);
    let g = h.analysis().graph().unwrap();
    assert_eq!(g.summary.precision, Some(docforge_model::Precision::Precise));
    let want = ("go:example.com/m/t::T".to_string(), "go:example.com/m/s::Sizer".to_string());
    assert_eq!(implements_edges(&h), [(want.0.clone(), want.1.clone(), "pointer".to_string())]);

    // Typing inside a body: the signature summary is equal, nothing semantic re-runs.
    let body = b"package t\n\ntype T struct{}\n\nfunc (*T) Size() int { println(1); return 1 }\n";
    edit(&mut h, "t/t.go", FileKind::Go, body);
    h.analysis().graph().unwrap();
    h.execution_log().enable(true);
    let body = b"package t\n\ntype T struct{}\n\nfunc (*T) Size() int { println(2); println(3); return 1 }\n";
    edit(&mut h, "t/t.go", FileKind::Go, body);
    h.analysis().graph().unwrap();
    let log = executed(&h);
    // The call sites changed, so the file's facts are re-extracted; its outline did not, so
    // its signature summary is not even read again...
    assert_eq!(log.iter().filter(|e| e.starts_with("go_facts(")).count(), 1, "{log:#?}");
    for q in ["go_outline(", "file_sigs("] {
        assert_eq!(log.iter().filter(|e| e.starts_with(q)).count(), 0, "{log:#?}");
    }
    // ...and nothing downstream of it runs.
    for q in [
        "package_sigs(",
        "module_implements(",
        "package_implements(",
        "module_packages(",
        "module_cha(",
        "named_type_info(",
    ] {
        assert!(!log.iter().any(|e| e.starts_with(q)), "{q} re-ran after a body edit: {log:#?}");
    }
    // Only the edited file's calls are resolved again.
    assert_eq!(log.iter().filter(|e| e.starts_with("file_calls(")).count(), 1, "{log:#?}");

    // A value receiver changes the method set: the edge follows.
    edit(
        &mut h,
        "t/t.go",
        FileKind::Go,
        b"package t\n\ntype T struct{}\n\nfunc (T) Size() int { return 1 }\n",
    );
    assert_eq!(implements_edges(&h), [(want.0.clone(), want.1.clone(), "value".to_string())]);
    // A different result type: no longer implements.
    edit(
        &mut h,
        "t/t.go",
        FileKind::Go,
        b"package t\n\ntype T struct{}\n\nfunc (T) Size() int64 { return 1 }\n",
    );
    assert_eq!(implements_edges(&h), []);
    // Without the semantic layer there are no implements edges and precision is ast.
    h.set_precise(false);
    edit(
        &mut h,
        "t/t.go",
        FileKind::Go,
        b"package t\n\ntype T struct{}\n\nfunc (T) Size() int { return 1 }\n",
    );
    assert_eq!(implements_edges(&h), []);
    assert_eq!(h.analysis().graph().unwrap().summary.precision, Some(docforge_model::Precision::Ast));
}

#[test]
fn precise_calls_are_classified_and_incomplete_functions_say_so() {
    let dir = small_project();
    let r = dir.path();
    write(
        r,
        "s/s.go",
        b"package s\n\ntype Sizer interface{ Size() int }\n\ntype T struct{}\n\nfunc (*T) Size() int { return 1 }\n\n\
func Measure(z Sizer) int { return z.Size() }\n\nfunc Apply(f func() int) int { return f() + Measure(&T{}) }\n",
    );
    let h = precise_host(r);
    let g = h.analysis().graph().unwrap();
    let mut calls: Vec<(String, String, String)> = g
        .edges()
        .filter(|e| e.relation == "calls" && e.source.starts_with("go:example.com/m/s::"))
        .map(|e| (e.source.clone(), e.target.clone(), e.attrs["classification"].clone()))
        .collect();
    calls.sort();
    let s = |x: &str| format!("go:example.com/m/s::{x}");
    assert_eq!(
        calls,
        [
            (s("Apply"), s("Measure"), "resolved_static".to_string()),
            (s("Measure"), s("(*T).Size"), "cha_possible_target".to_string()),
        ]
    );
    let attr = |id: &str, k: &str| g.nodes().find(|n| n.id == s(id)).unwrap().attrs[k].clone();
    assert_eq!(
        (attr("Measure", "calls_resolved"), attr("Measure", "unresolved_calls")),
        ("true".into(), "0".into())
    );
    assert_eq!(
        (attr("Apply", "calls_resolved"), attr("Apply", "unresolved_calls")),
        ("false".into(), "1".into())
    );
}

#[test]
fn disk_edits_named_by_a_watcher_are_read_alone_and_stay_incremental() {
    // `sync_paths` re-reads only the named files (the MCP front's watcher path); a file that
    // changes on disk after its first load becomes LOW, so the next disk edit of it revisits
    // other directories shallowly, exactly like an editor edit.
    let dir = small_project();
    let project = Project::load(dir.path()).unwrap();
    let mut h = host(dir.path(), AstPolicy::Allow);
    h.analysis().graph().unwrap();
    for (round, body) in [
        (1, b"package c\n\nfunc D() {}\n\nfunc E() { D() }\n".as_slice()),
        (2, b"package c\n\nfunc D() {}\n\nfunc E() { D(); D() }\n"),
    ] {
        write(dir.path(), "c/c.go", body);
        let inv = docforge_project::discover(&project);
        let identity = docforge_db::cheap_identity(&inv);
        h.execution_log().enable(round == 2);
        let report = h.sync_paths(&inv, identity, &["c/c.go".to_string()]);
        assert_eq!((report.read, report.removed), (1, 0));
        let g = h.analysis().graph().unwrap();
        assert!(g.nodes().any(|n| n.id == "go:example.com/m/c::E"));
    }
    let log = h.execution_log().take();
    assert_shallow_elsewhere(&log);
    // A path that is not a loaded, selected file falls back to the full inventory sync.
    write(dir.path(), "c/new.go", b"package c\n\nfunc F() {}\n");
    let inv = docforge_project::discover(&project);
    let report = h.sync_paths(&inv, docforge_db::cheap_identity(&inv), &["c/new.go".to_string()]);
    assert_eq!(report.read, 1);
    assert!(h.analysis().graph().unwrap().nodes().any(|n| n.id == "go:example.com/m/c::F"));
}

#[test]
fn an_unfinished_expression_in_a_body_stays_in_that_function() {
    let dir = small_project();
    let r = dir.path();
    write(r, "s/s.go", b"package s\n\ntype Sizer interface{ Size() int }\n");
    let t = "package t\n\ntype T struct{}\n\nfunc (*T) Size() int {\n\treturn 1\n}\n\nfunc Use() int {\n\tvar t T\n\treturn t.Size()\n}\n";
    write(r, "t/t.go", t.as_bytes());
    let mut h = precise_host(r);
    let g = h.analysis().graph().unwrap();
    assert_eq!(g.summary.precision, Some(docforge_model::Precision::Precise));
    let pair =
        ("go:example.com/m/t::T".to_string(), "go:example.com/m/s::Sizer".to_string(), "pointer".to_string());
    assert_eq!(implements_edges(&h), std::slice::from_ref(&pair));

    // Typing `x := (` into `Use`: the declarations are intact, so no signature-level query
    // re-runs, and only `Use` loses `calls_resolved`. (A first edit moves the file from its
    // disk content to the editor's.)
    edit(&mut h, "t/t.go", FileKind::Go, t.replace("return 1", "return 2").as_bytes());
    h.analysis().graph().unwrap();
    h.execution_log().enable(true);
    let broken = t.replace("\tvar t T\n", "\tvar t T\n\tx := (\n");
    edit(&mut h, "t/t.go", FileKind::Go, broken.as_bytes());
    let g = h.analysis().graph().unwrap();
    let log = executed(&h);
    for q in ["package_sigs(", "module_implements(", "package_implements(", "module_cha("] {
        assert!(!log.iter().any(|e| e.starts_with(q)), "{q} re-ran after a body syntax error: {log:#?}");
    }
    assert_eq!(g.summary.precision, Some(docforge_model::Precision::Precise));
    assert!(!g.summary.completeness.complete, "a syntax error still makes the graph partial");
    assert_eq!(implements_edges(&h), [pair]);
    let attr = |id: &str, k: &str| {
        g.nodes().find(|n| n.id == format!("go:example.com/m/t::{id}")).unwrap().attrs[k].clone()
    };
    assert_eq!(attr("Use", "calls_resolved"), "false");
    assert_eq!(attr("(*T).Size", "calls_resolved"), "true");

    // An error that ends the body early is outside any body: the package's facts are
    // untrusted, precision falls back.
    let cut = t.replace("\treturn 1\n}", "\treturn 1\n\t}\n\t}");
    edit(&mut h, "t/t.go", FileKind::Go, cut.as_bytes());
    let g = h.analysis().graph().unwrap();
    assert_eq!(g.summary.precision, Some(docforge_model::Precision::PreciseFallback));
}

#[test]
fn trimming_memory_after_the_first_analysis_re_runs_nothing() {
    let dir = small_project();
    let r = dir.path();
    write(
        r,
        "s/s.go",
        b"package s\n\ntype Sizer interface{ Size() int }\n\nfunc Use(z Sizer) int { return z.Size() }\n",
    );
    let mut h = precise_host(r);
    let before = h.analysis().graph().unwrap();
    h.execution_log().enable(true);
    h.trim_memory();
    let after = h.analysis().graph().unwrap();
    let ran = executed(&h);
    assert_eq!(ran, Vec::<String>::new());
    assert!(std::sync::Arc::ptr_eq(&before, &after), "the same graph value is served");
}

/// A host over `root` with precise analysis on, synced from disk.
fn precise_host(root: &std::path::Path) -> AnalysisHost {
    let mut h = host(root, AstPolicy::Allow);
    h.set_precise(true);
    h
}

#[test]
fn body_facts_taken_by_their_reader_are_extracted_again_when_it_re_runs() {
    let dir = small_project();
    let r = dir.path();
    write(r, "p/a.go", b"package p\n\ntype T struct{}\n\nfunc (T) M() {}\n");
    let b = b"package p\n\nfunc F() {\n\tvar t T\n\tif true {\n\t\tt.M()\n\t}\n\tG()\n}\n\nfunc G() {}\n";
    write(r, "p/b.go", b);
    let mut h = precise_host(r);
    // The cold analysis hands each file's body facts and Logic to their one reader.
    h.analysis().prewarm(2).unwrap();
    h.analysis().graph().unwrap();
    // A declaration edit in a.go re-resolves b.go's calls (its package's signatures changed)
    // and re-derives its Logic rows (its package's symbols changed) while b.go's parse stays
    // valid: its bodies and Logic were taken, so they are extracted again.
    let a = b"package p\n\ntype T struct{}\n\nfunc (T) M() {}\n\nfunc H() {}\n";
    edit(&mut h, "p/a.go", FileKind::Go, a);
    h.execution_log().enable(true);
    let incremental = owners(&h);
    let log = h.execution_log().take();
    let count = |q: &str| log.iter().filter(|e| e.starts_with(q)).count();
    // (The log names queries by salsa ID, not file: a.go is parsed again, b.go is not, and
    // both files' calls and Logic rows are derived again.)
    assert_eq!(count("go_parsed("), 1, "{log:#?}");
    assert_eq!(count("file_calls("), 2, "{log:#?}");
    assert_eq!(count("file_logic_rows("), 2, "{log:#?}");
    // The same graph as a fresh analysis of the final sources, Logic rows and calls included.
    write(r, "p/a.go", a);
    let fresh = precise_host(r);
    assert_eq!(incremental, owners(&fresh));
    let g = h.analysis().graph().unwrap();
    let calls: Vec<&str> = g
        .edges()
        .filter(|e| e.relation == "calls" && e.source == "go:example.com/m/p::F")
        .map(|e| e.target.as_str())
        .collect();
    assert_eq!(calls, ["go:example.com/m/p::(T).M", "go:example.com/m/p::G"]);
    assert!(g.owners().any(|o| o.fragment.logic.iter().any(|l| l.node == "go:example.com/m/p::F")));
}

#[test]
fn precise_functions_with_unusual_receivers_have_call_facts_from_one_layer() {
    // Non-test files in precise mode take their call facts from the semantic layer only (the
    // syntax-only call walk is skipped). Receivers with syntax errors or that are not type
    // names: the declaration syntax and the semantic layer agree on which methods get a node,
    // and each such node states whether its calls are all resolved; none carries a count of
    // unresolved calls without that statement.
    let dir = small_project();
    let r = dir.path();
    write(
        r,
        "s/s.go",
        b"package s\n\ntype T struct{}\n\nfunc helper() {}\n\nfunc (t *T, ) Good() { helper() }\n\n\
func (t []T) Slice() { helper(); undefined() }\n\nfunc (t T.) Dot() { helper() }\n\n\
func (t map[T]T) Map() { helper() }\n\nfunc (t *(T)) Paren() { helper() }\n\nfunc () Empty() { helper() }\n\n\
func (*) Star() { helper() }\n\nfunc Fine() { helper() }\n",
    );
    let h = precise_host(r);
    let g = h.analysis().graph().unwrap();
    let mut seen: Vec<(String, Option<String>, Option<String>)> = g
        .nodes()
        .filter(|n| n.id.starts_with("go:example.com/m/s::") && (n.kind == "func" || n.kind == "method"))
        .map(|n| {
            let a = |k: &str| n.attrs.get(k).cloned();
            (
                n.id.trim_start_matches("go:example.com/m/s::").to_string(),
                a("calls_resolved"),
                a("unresolved_calls"),
            )
        })
        .collect();
    seen.sort();
    let row =
        |id: &str, resolved: &str, count: &str| (id.to_string(), Some(resolved.into()), Some(count.into()));
    assert_eq!(
        seen,
        [
            row("(*T).Good", "true", "0"),
            row("(*T).Paren", "true", "0"),
            row("(T).Dot", "false", "1"),
            row("Fine", "true", "0"),
            row("helper", "true", "0"),
        ]
    );
}

#[test]
fn a_defined_type_is_resolved_once_for_every_file_that_uses_it() {
    // Each file's call resolution has a type context of its own; what a defined type is
    // (underlying type, methods) is a query they share, computed once per revision.
    let dir = small_project();
    let r = dir.path();
    write(r, "s/s.go", b"package s\n\ntype T struct{ n int }\n\nfunc (t *T) M() int { return t.n }\n");
    let user = |p: &str| {
        format!("package {p}\n\nimport \"example.com/m/s\"\n\nfunc F(t *s.T) int {{ return t.M() }}\n")
    };
    write(r, "a/a.go", user("a").as_bytes());
    write(r, "b/b.go", user("b").as_bytes());
    let h = precise_host(r);
    h.execution_log().enable(true);
    let g = h.analysis().graph().unwrap();
    let log = h.execution_log().take();
    let resolved: Vec<&String> = log.iter().filter(|e| e.starts_with("named_type_info(")).collect();
    assert_eq!(resolved.len(), 1, "{resolved:#?}");
    let calls: Vec<(String, String)> = g
        .edges()
        .filter(|e| e.relation == "calls" && e.target.ends_with("(*T).M"))
        .map(|e| (e.source.clone(), e.attrs["classification"].clone()))
        .collect();
    assert_eq!(
        calls,
        [
            ("go:example.com/m/a::F".to_string(), "resolved_static".to_string()),
            ("go:example.com/m/b::F".to_string(), "resolved_static".to_string()),
        ]
    );
}

#[test]
fn a_type_declaration_cycle_is_unresolved_not_a_query_cycle() {
    // `type A B; type B A` is invalid Go; the shared per-type query computes each of them in a
    // context of its own, so asking for A (which asks for B, which asks for A) never recurses
    // into the query and the calls through them are unresolved.
    let dir = small_project();
    let r = dir.path();
    write(r, "s/s.go", b"package s\n\ntype A B\n\ntype B A\n\nfunc Use(a A, b B) { a.M(); b.N() }\n");
    write(r, "t/t.go", b"package t\n\nimport \"example.com/m/s\"\n\nfunc Use(a s.A) { a.M() }\n");
    let h = precise_host(r);
    let g = h.analysis().graph().unwrap();
    for id in ["go:example.com/m/s::Use", "go:example.com/m/t::Use"] {
        let n = g.nodes().find(|n| n.id == id).unwrap();
        assert_eq!(n.attrs.get("calls_resolved").map(String::as_str), Some("false"), "{id}");
    }
}
