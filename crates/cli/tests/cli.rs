//! The `docforge` binary end to end on fixtures/shop and on bad inputs: exit codes, one-line
//! errors, JSON documents, and that nothing else is lost.

mod support;

use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{bin, json, one_line_error, run, shop};

#[test]
fn index_stats_search_node_on_the_shop_fixture() {
    let dir = shop();
    let root = dir.path();
    let report = json(&run(root, &["index", "--json"]));
    assert_eq!(report["schema_version"], "docforge.index.v1");
    assert_eq!(report["generation"], 1);
    assert_eq!(report["precision"], "precise", "the default of [analysis] precision");
    assert_eq!(report["precision_declared"], "precise");
    assert_eq!(report["completeness"], "complete", "{report}");
    assert_eq!(report["files"]["docs"], 7);
    assert!(report["packages"].as_u64().unwrap() >= 6, "{report}");
    // The new index was built aside and placed: nothing of the build is left behind.
    let mut left: Vec<String> = fs::read_dir(root.join(".docforge"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| {
            !matches!(n.as_str(), "index.sqlite" | "index.sqlite-wal" | "index.sqlite-shm" | "receipts")
        })
        .collect();
    left.sort();
    assert_eq!(left, Vec::<String>::new(), "unexpected files in .docforge");

    let stats = json(&run(root, &["stats", "--json"]));
    assert_eq!(stats["generation"], 1);
    assert_eq!(stats["meta"]["project_id"], "shop");
    assert!(stats["nodes_by_kind"]["interface"].as_u64().unwrap() >= 3, "{stats}");
    assert!(stats["edges_by_relation"]["calls"].as_u64().unwrap() >= 1, "{stats}");
    let publication = &stats["publication"];
    assert_eq!(publication["schema_version"], docforge_index::SCHEMA_VERSION);
    assert_eq!(publication["source_fingerprint"].as_str().unwrap().len(), 64);

    // Several words are one query, as if quoted; an empty one is a usage error.
    let words = json(&run(root, &["search", "storage", "design", "--json"]));
    assert_eq!(words["query"], "storage design");
    assert_eq!(words["results"], json(&run(root, &["search", "storage design", "--json"]))["results"]);
    for empty in ["", "  "] {
        let out = run(root, &["search", empty]);
        assert_eq!(out.status.code(), Some(2), "{out:?}");
        assert!(String::from_utf8_lossy(&out.stderr).contains("a query word must not be empty"));
    }
    let hits = json(&run(root, &["search", "Repository", "--limit", "5", "--json"]));
    assert!(hits["count"].as_u64().unwrap() >= 1 && hits["count"].as_u64().unwrap() <= 5);
    let ids: Vec<&str> =
        hits["results"].as_array().unwrap().iter().map(|h| h["id"].as_str().unwrap()).collect();
    assert!(ids.contains(&"go:example.com/shop/storage::Repository"), "{ids:?}");
    let repository = hits["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == "go:example.com/shop/storage::Repository");
    let snippet = repository.unwrap()["snippet"].as_str().unwrap();
    assert!(snippet.contains("Repository") && !snippet.contains('\n'), "{snippet}");

    let node = json(&run(root, &["node", "go:example.com/shop/storage::Repository", "--json"]));
    assert_eq!(node["node"]["kind"], "interface");
    let incoming: Vec<(&str, &str)> = node["incoming"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["relation"].as_str().unwrap(), e["source"].as_str().unwrap()))
        .collect();
    assert!(incoming.contains(&("governs", "arch.storage")), "{incoming:?}");
    assert!(incoming.contains(&("defines", "file:storage/storage.go")), "{incoming:?}");

    let doc = json(&run(root, &["node", "guide.getting-started#further-reading", "--json"]));
    let codes: Vec<&str> =
        doc["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"broken_link"), "{doc}");

    // A second run with nothing changed writes nothing new.
    let again = json(&run(root, &["index", "--json"]));
    assert_eq!(again["publication"]["owners_written"], 0, "{again}");
    assert_eq!(again["generation"], 1);
    assert_eq!(again["up_to_date"], true, "a new process sees no change without re-analysing: {again}");
    assert_eq!(again["nodes"], report["nodes"], "the recorded summary is reported");
    assert_eq!(again["files"]["read"], 0);
    // A process policy never changes the project's index: --no-ast publishes an index of its
    // own, and the project's is still the one it was.
    let no_ast = json(&run(root, &["index", "--no-ast", "--json"]));
    assert_eq!((no_ast["up_to_date"].clone(), no_ast["generation"].clone()), (false.into(), 1.into()));
    assert_eq!(no_ast["precision"], Value::Null, "{no_ast}");
    assert!(no_ast["index_path"].as_str().unwrap().ends_with(".docforge/index.no-ast.sqlite"), "{no_ast}");
    let back = json(&run(root, &["index", "--json"]));
    assert_eq!((back["up_to_date"].clone(), back["generation"].clone()), (true.into(), 1.into()));
    assert_eq!(back["precision"], "precise");
    // Editing one document rewrites that document's rows only.
    let p = root.join("docs/notes.md");
    let text = fs::read_to_string(&p).unwrap() + "\nOne more line.\n";
    fs::write(&p, text).unwrap();
    let edited = json(&run(root, &["index", "--json"]));
    assert_eq!(edited["generation"], 2);
    assert_eq!(edited["up_to_date"], false);
    assert_eq!(edited["publication"]["owners_written"], 2, "file node + document: {edited}");
    // Changing docforge.toml invalidates the publication too.
    let cfg = fs::read_to_string(root.join("docforge.toml")).unwrap() + "\n# touched\n";
    fs::write(root.join("docforge.toml"), cfg).unwrap();
    assert_eq!(json(&run(root, &["index", "--json"]))["up_to_date"], false);
}

#[test]
fn node_shows_the_byte_span_and_content_hash_of_documents_and_sections() {
    use sha2::{Digest, Sha256};
    let dir = shop();
    let root = dir.path();
    json(&run(root, &["index", "--json"]));
    let out = run(root, &["node", "arch.storage#interfaces"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let attrs: Vec<&str> =
        text.lines().filter(|l| l.starts_with("  ") && l.contains(" = ")).map(str::trim_start).collect();
    expect_test::expect![[r#"
          content_sha256 = bf7c96773d19183064f6bc8f45c7a35748c73dedbd52e98bd23354060633cfe6
          document = arch.storage
          level = 2
          span = 987..1123
          span.body = 1001..1123
          span.heading = 987..1001"#]]
    .assert_eq(&attrs.join("\n"));
    // The same attributes in JSON, and they describe the file's bytes.
    let file = fs::read(root.join("docs/arch/storage.md")).unwrap();
    for id in ["arch.storage", "arch.storage#interfaces"] {
        let node = json(&run(root, &["node", id, "--json"]));
        let attrs: docforge_model::Attrs = serde_json::from_value(node["node"]["attrs"].clone()).unwrap();
        let span = docforge_model::NodeSpan::from_attrs(&attrs).unwrap().unwrap();
        let bytes = &file[span.span.range()];
        assert_eq!(<[u8; 32]>::from(Sha256::digest(bytes)), span.content_sha256, "{id}");
        // Attributes are not search text: the hash finds nothing.
        let hits = json(&run(root, &["search", &span.content_sha256_hex(), "--json"]));
        assert_eq!(hits["count"], 0, "{id}: {hits}");
        if id == "arch.storage" {
            assert_eq!(bytes, &file[..], "a document spans its file");
            assert!(file[span.front_matter.unwrap().range()].ends_with(b"+++\n"));
        } else {
            assert!(bytes.starts_with(b"## Interfaces\n"), "{id}: {:?}", String::from_utf8_lossy(bytes));
        }
    }
}

#[test]
fn text_output_is_a_summary_line() {
    let dir = shop();
    let out = run(dir.path(), &["index"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("indexed "), "{text}");
}

#[test]
fn no_ast_inventories_go_files_without_symbols() {
    let dir = shop();
    let root = dir.path();
    let report = json(&run(root, &["index", "--no-ast", "--json"]));
    assert_eq!(report["ast_policy"], "no_ast");
    assert_eq!(report["precision"], Value::Null);
    assert_eq!(report["packages"], 0);
    let file = json(&run(root, &["node", "--no-ast", "file:storage/storage.go", "--json"]));
    assert_eq!(file["node"]["attrs"]["sha256"].as_str().unwrap().len(), 64);
    let missing = run(root, &["node", "--no-ast", "go:example.com/shop/storage::Repository", "--json"]);
    one_line_error(&missing, 1);
    // The no-AST index is kept apart: the project's does not exist until `docforge index`.
    let err = one_line_error(&run(root, &["stats"]), 1);
    assert!(
        err.contains("no index at ") && err.contains(".docforge/index.sqlite; run `docforge index` first"),
        "{err}"
    );
    let stats = json(&run(root, &["stats", "--no-ast", "--json"]));
    assert_eq!(stats["meta"]["ast_policy"], "no_ast");
}

/// Precision is the project's: `docforge.toml` declares it, every command builds that, and a
/// flag asking for more is refused with nothing written.
#[test]
fn precision_is_the_projects_setting() {
    let dir = shop();
    let root = dir.path();
    let cfg = fs::read_to_string(root.join("docforge.toml")).unwrap() + "\n[analysis]\nprecision = \"ast\"\n";
    fs::write(root.join("docforge.toml"), cfg).unwrap();
    let report = json(&run(root, &["index", "--json"]));
    assert_eq!(
        (report["precision"].clone(), report["precision_declared"].clone()),
        ("ast".into(), "ast".into())
    );
    let before = fs::read(root.join(".docforge/index.sqlite")).unwrap();
    let err = one_line_error(&run(root, &["index", "--precise"]), 1);
    assert!(err.contains("the project declares [analysis] precision = \"ast\" in docforge.toml"), "{err}");
    assert_eq!(fs::read(root.join(".docforge/index.sqlite")).unwrap(), before, "nothing written");
    let logic =
        one_line_error(&run(root, &["logic", "go:example.com/shop/service::(*OrderService).Place"]), 1);
    assert!(logic.contains("docforge.toml declares [analysis] precision = \"ast\""), "{logic}");
    let text = String::from_utf8(run(root, &["stats"]).stdout).unwrap();
    assert!(text.contains("precision ast"), "{text}");
}

#[test]
fn errors_are_one_line_with_documented_exit_codes() {
    let dir = shop();
    let root = dir.path();
    // Bad arguments: exit 2 with clap's whole message — what is wrong, the usage line and,
    // for a mistyped command, what was meant — on stderr, nothing on stdout.
    for (args, says, usage) in [
        (&["search"][..], "the following required arguments were not provided:\n  <QUERY>", true),
        (&["search", "x", "--limit", "0"], "invalid value '0' for '--limit <LIMIT>'", false),
        (&["serch", "x"], "a similar subcommand exists: 'search'", true),
        (&["index", "--bogus"], "unexpected argument '--bogus'", true),
        (&["index", "--threads", "0"], "invalid value '0' for '--threads <N>': must be at least 1", false),
        (&["lsp", "--threads", "0"], "must be at least 1", false),
    ] {
        let out = run(root, args);
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(err.starts_with("error: ") && err.contains(says), "{args:?}: {err}");
        assert!(!usage || err.contains("Usage: docforge"), "{args:?}: the usage line: {err}");
        assert!(err.contains("For more information, try '--help'."), "{args:?}: {err}");
    }
    // Bare `docforge` is the help on stderr, exit 2.
    let bare = Command::new(bin()).output().unwrap();
    assert_eq!(bare.status.code(), Some(2));
    let help = String::from_utf8(bare.stderr).unwrap();
    assert!(help.contains("Commands:") && help.contains("Exit codes:"), "{help}");
    // `--project-root` means nothing for `version` and `coord`: refused, not ignored.
    let err = one_line_error(&run(root, &["version"]), 2);
    assert!(err.contains("means nothing"), "{err}");
    // Operational failures: exit 1.
    let err = one_line_error(&run(root, &["stats", "--json"]), 1);
    assert!(err.contains("no index"), "{err}");
    let err = one_line_error(&run(Path::new("/no/such/root"), &["index"]), 1);
    assert!(err.contains("does not exist"), "{err}");
    fs::write(root.join("docforge.toml"), "schema_version = 1\n[limits]\nmax_results = \"lots\"\n").unwrap();
    let err = one_line_error(&run(root, &["index"]), 1);
    assert!(err.contains("limits.max_results"), "{err}");
    assert!(!root.join(".docforge").exists(), "a failed run writes no index");
}

#[test]
fn node_not_found_is_exit_1_and_suggests_the_closest_ids() {
    let dir = shop();
    json(&run(dir.path(), &["index", "--json"]));
    let err = one_line_error(&run(dir.path(), &["node", "go:example.com/shop/storage::repository"]), 1);
    assert!(err.contains("case-sensitive"), "{err}");
    assert!(err.contains(r#"closest: "go:example.com/shop/storage::Repository""#), "{err}");
    let err = one_line_error(&run(dir.path(), &["node", "arch.storag"]), 1);
    assert!(err.contains(r#"closest: "arch.storage""#), "{err}");
    let err = one_line_error(&run(dir.path(), &["node", "zzzz-nothing-like-it"]), 1);
    assert!(err.ends_with("try `docforge search WORDS`\n"), "{err}");
    // A name typed for its ID: the symbols of that name first.
    for (typed, want) in [
        ("OrderService", "go:example.com/shop/service::OrderService"),
        ("Place", "go:example.com/shop/service::(*OrderService).Place"),
    ] {
        let err = one_line_error(&run(dir.path(), &["node", typed]), 1);
        assert!(err.contains(&format!("closest: {want:?}")), "{typed}: {err}");
    }
    // A near last element is no licence for a far ID: `storage` is not near `Repositry`.
    let err = one_line_error(&run(dir.path(), &["node", "go:example.com/shop/storage::Repositry"]), 1);
    assert!(err.contains(r#"closest: "go:example.com/shop/storage::Repository""#), "{err}");
    assert!(!err.contains("arch.storage"), "{err}");
}

#[test]
fn node_text_shows_the_location_first_and_bounds_edge_lists() {
    let dir = shop();
    let root = dir.path();
    // A function with more callers than the text output shows.
    let mut callers = String::from("package storage\n\n");
    for i in 0..25 {
        callers.push_str(&format!("func caller{i}() {{ target() }}\n"));
    }
    callers.push_str("func target() {}\n");
    fs::write(root.join("storage/callers.go"), callers).unwrap();
    json(&run(root, &["index", "--json"]));
    let out = run(root, &["node", "go:example.com/shop/storage::target"]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "go:example.com/shop/storage::target (func) target", "{text}");
    assert_eq!(lines[1], "  at storage/callers.go:28:6", "{text}");
    assert!(text.contains("  incoming (26):"), "25 calls and the file's defines: {text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("    <- ")).count(), 20, "{text}");
    assert!(
        text.contains("    ... 6 more (`docforge node --all go:example.com/shop/storage::target`)"),
        "{text}"
    );
    let all = String::from_utf8(run(root, &["node", "--all", "go:example.com/shop/storage::target"]).stdout)
        .unwrap();
    assert_eq!(all.lines().filter(|l| l.starts_with("    <- ")).count(), 26, "{all}");
    assert!(!all.contains("more (`docforge node --all"), "{all}");
}

#[test]
fn diagnostics_lists_what_stats_counts() {
    let dir = shop();
    let root = dir.path();
    let report = json(&run(root, &["index", "--json"]));
    let errors = report["diagnostics"]["errors"].as_u64().unwrap();
    assert!(errors >= 2, "{report}");
    let listed = json(&run(root, &["diagnostics", "--json"]));
    assert_eq!(listed["schema_version"], "docforge.diagnostics.v1");
    let all = listed["diagnostics"].as_array().unwrap();
    assert_eq!(
        all.iter().filter(|d| d["severity"] == "error").count() as u64,
        errors,
        "every error the index counts is listed: {listed}"
    );
    let broken = json(&run(root, &["diagnostics", "--code", "broken_link", "--severity", "error", "--json"]));
    let broken = broken["diagnostics"].as_array().unwrap();
    assert!(!broken.is_empty() && broken.iter().all(|d| d["code"] == "broken_link"), "{broken:?}");
    let out = run(root, &["diagnostics", "--code", "broken_link"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), broken.len(), "{text}");
    assert!(
        text.lines().next().unwrap().starts_with("docs/guide/getting-started.md:29:3: error broken_link: "),
        "{text}"
    );
    let none = run(root, &["diagnostics", "--code", "no_such_code"]);
    assert!(none.status.success() && none.stdout.is_empty());
    assert_eq!(String::from_utf8(none.stderr).unwrap(), "docforge: no diagnostics match the filters\n");
    let bad = run(root, &["diagnostics", "--severity", "fatal"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn reads_say_when_the_index_is_older_than_the_sources() {
    let dir = shop();
    let root = dir.path();
    json(&run(root, &["index", "--json"]));
    let fresh = run(root, &["search", "Repository", "--json"]);
    assert!(fresh.stderr.is_empty(), "{}", String::from_utf8_lossy(&fresh.stderr));
    assert_eq!(json(&fresh)["index_current"], true);
    let p = root.join("docs/notes.md");
    fs::write(&p, fs::read_to_string(&p).unwrap() + "\nA new line.\n").unwrap();
    for args in [
        &["search", "Repository", "--json"][..],
        &["node", "arch.storage", "--json"],
        &["stats", "--json"],
        &["diagnostics", "--json"],
    ] {
        let out = run(root, args);
        let err = String::from_utf8(out.stderr.clone()).unwrap();
        assert!(
            err.contains("the index is older than the sources") && err.contains("run `docforge index`"),
            "{args:?}: {err}"
        );
        assert_eq!(json(&out)["index_current"], false, "{args:?}");
    }
    json(&run(root, &["index", "--json"]));
    assert_eq!(json(&run(root, &["stats", "--json"]))["index_current"], true);
    // An empty result says so (on stderr, so that a pipe reads nothing).
    let empty = run(root, &["search", "zzqqxx"]);
    assert!(empty.status.success() && empty.stdout.is_empty());
    assert!(String::from_utf8(empty.stderr).unwrap().contains("no node matches \"zzqqxx\""));
}

/// A file the engine may not read (permission denied) is recorded with its stamp: while that
/// stands the index is current — a second `docforge index` is up to date and reads carry no
/// note — and once readable (its status-change time moved) it is read. Run as an unprivileged
/// user (`setpriv`, when the tests run as root, who may read anything).
#[test]
fn an_unreadable_file_does_not_keep_the_index_stale() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(
        root.join("docforge.toml"),
        "schema_version = 1\n[project]\nid = \"p\"\n[sources]\ndocs = [\"**/*.md\"]\ngo = []\n",
    )
    .unwrap();
    fs::write(root.join("a.md"), "# A\n\nalpha\n").unwrap();
    fs::write(root.join("secret.md"), "# S\n\nzanzibar\n").unwrap();
    fs::set_permissions(root, fs::Permissions::from_mode(0o777)).unwrap();
    fs::set_permissions(root.join("secret.md"), fs::Permissions::from_mode(0o000)).unwrap();
    let as_root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    let user = |args: &[&str]| {
        let mut cmd = if as_root {
            let mut c = Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin()]);
            c
        } else {
            Command::new(bin())
        };
        cmd.arg("--project-root").arg(root).args(args).output().unwrap()
    };
    let first = user(&["index"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let again = user(&["index"]);
    assert!(String::from_utf8_lossy(&again.stdout).contains("is up to date"), "{again:?}");
    let read = user(&["search", "alpha"]);
    assert!(read.status.success() && read.stderr.is_empty(), "{}", String::from_utf8_lossy(&read.stderr));
    if as_root {
        // A reader allowed what the publisher was not finds the refusal no longer stands.
        let err = String::from_utf8(run(root, &["search", "alpha"]).stderr).unwrap();
        assert!(err.contains("the index is older than the sources"), "{err}");
    }

    fs::set_permissions(root.join("secret.md"), fs::Permissions::from_mode(0o644)).unwrap();
    let fixed = user(&["index"]);
    assert!(!String::from_utf8_lossy(&fixed.stdout).contains("up to date"), "{fixed:?}");
    let found = user(&["search", "zanzibar"]);
    assert!(String::from_utf8_lossy(&found.stdout).contains("secret"), "{found:?}");
}

/// An edit that keeps the size and puts the modification time back (as `cp -p`, `rsync -t`,
/// `git checkout` of an older blob or an editor's backup restore can) is seen: the status-change
/// time moved, which no program can set back.
#[test]
fn an_edit_with_the_size_kept_and_the_mtime_restored_is_seen() {
    let dir = shop();
    let root = dir.path();
    let p = root.join("docs/notes.md");
    let text = fs::read_to_string(&p).unwrap() + "\nThe password is alpha.\n";
    fs::write(&p, &text).unwrap();
    // Settled before the index is built: only the stamps can tell a later change.
    std::thread::sleep(docforge_project::RACY_WINDOW + std::time::Duration::from_millis(200));
    json(&run(root, &["index", "--json"]));
    let before = fs::metadata(&p).unwrap().modified().unwrap();
    fs::write(&p, text.replace("alpha.", "omega.")).unwrap();
    fs::File::options().write(true).open(&p).unwrap().set_modified(before).unwrap();
    assert_eq!(fs::metadata(&p).unwrap().modified().unwrap(), before);
    let out = json(&run(root, &["search", "omega", "--json"]));
    assert_eq!(out["index_current"], false, "the index is older than the sources: {out}");
    json(&run(root, &["index", "--json"]));
    let out = json(&run(root, &["search", "omega", "--json"]));
    assert_eq!(
        (out["index_current"].as_bool(), out["results"][0]["id"].as_str()),
        (Some(true), Some("docs/notes"))
    );
}

/// A file written within the file system's clock granularity of the index's publication has
/// a racy stamp: an equal stamp does not prove equal content, so its bytes are compared with
/// the recorded SHA-256 (Git's racily clean entries). Settled stamps are trusted.
#[test]
fn a_racy_stamp_is_checked_by_content_and_a_settled_one_is_trusted() {
    let dir = shop();
    let root = dir.path();
    let index = |root: &Path| json(&run(root, &["index", "--json"]));
    // Published right after the files were copied: every stamp is racy. A recorded hash that
    // no longer matches the bytes (what a same-tick write leaves) makes the index not current.
    index(root);
    let db = root.join(".docforge/index.sqlite");
    let tamper = |db: &Path| {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.execute("UPDATE files SET sha256 = 'beef' WHERE path = 'docs/notes.md'", []).unwrap();
    };
    tamper(&db);
    let out = json(&run(root, &["stats", "--json"]));
    assert_eq!(out["index_current"], false, "racy: the content was compared: {out}");
    // Settled: the files' times lie well before the publication; the stamps are trusted
    // and nothing is read (the tampered hash goes unnoticed, as it would in Git).
    std::thread::sleep(docforge_project::RACY_WINDOW + std::time::Duration::from_millis(200));
    fs::remove_dir_all(root.join(".docforge")).unwrap();
    index(root);
    tamper(&db);
    let out = json(&run(root, &["stats", "--json"]));
    assert_eq!(out["index_current"], true, "settled: the stamps vouch: {out}");
}

#[test]
fn init_writes_a_commented_config_and_the_ignore_entries_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    fs::write(root.join(".gitignore"), "/target").unwrap();
    fs::write(root.join("readme.md"), "# Hello\n").unwrap();
    let out = run(root, &["init"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let config = fs::read_to_string(root.join("docforge.toml")).unwrap();
    assert!(config.starts_with("# DocForge project configuration"), "{config}");
    assert_eq!(
        fs::read_to_string(root.join(".gitignore")).unwrap(),
        "/target\n# DocForge: derived state, rebuilt by `docforge index` and `gograph build`\n.docforge/\n.gograph/\n"
    );
    // The written configuration is valid and indexes.
    assert_eq!(json(&run(root, &["index", "--json"]))["files"]["docs"], 1);
    // A second init changes nothing: an edited config is kept, the entries are not repeated.
    fs::write(root.join("docforge.toml"), "schema_version = 1\n# mine\n").unwrap();
    let again = run(root, &["init"]);
    assert!(again.status.success());
    let text = String::from_utf8(again.stdout).unwrap();
    assert!(
        text.contains("(it exists; nothing changed)")
            && text.contains("ignores .docforge/ and .gograph/ already"),
        "{text}"
    );
    assert_eq!(fs::read_to_string(root.join("docforge.toml")).unwrap(), "schema_version = 1\n# mine\n");
    assert_eq!(fs::read_to_string(root.join(".gitignore")).unwrap().matches(".docforge/").count(), 1);
    let missing = one_line_error(&run(&root.join("nope"), &["init"]), 1);
    assert!(missing.contains("does not exist"), "{missing}");
    // Never through a symlink: a linked .gitignore or docforge.toml is refused, its target kept.
    let linked = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("ignore"), "keep\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("ignore"), linked.path().join(".gitignore")).unwrap();
    let err = one_line_error(&run(linked.path(), &["init"]), 1);
    assert!(err.contains(".gitignore is not a regular file; refused"), "{err}");
    assert_eq!(fs::read_to_string(outside.path().join("ignore")).unwrap(), "keep\n");
    assert!(!linked.path().join("docforge.toml").exists(), "refused before anything is written");
    fs::remove_file(linked.path().join(".gitignore")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("ignore"), linked.path().join("docforge.toml")).unwrap();
    let err = one_line_error(&run(linked.path(), &["init"]), 1);
    assert!(err.contains("docforge.toml is a symlink; refused"), "{err}");
    assert_eq!(fs::read_to_string(outside.path().join("ignore")).unwrap(), "keep\n");
    // A .gitignore that is not UTF-8 is refused, its bytes kept (never rewritten lossily).
    let latin = tempfile::tempdir().unwrap();
    fs::write(latin.path().join(".gitignore"), b"caf\xe9/\n").unwrap();
    let err = one_line_error(&run(latin.path(), &["init"]), 1);
    assert!(err.contains(".gitignore is not UTF-8; refused (nothing written)"), "{err}");
    assert_eq!(fs::read(latin.path().join(".gitignore")).unwrap(), b"caf\xe9/\n");
    assert!(!latin.path().join("docforge.toml").exists());
}

#[test]
fn version_json() {
    let out = Command::new(bin()).args(["version", "--json"]).output().unwrap();
    let v = json(&out);
    assert_eq!(v["schema_version"], "docforge.version.v1");
    assert_eq!(v["version"], env!("CARGO_PKG_VERSION"));
    assert!(v["build"].as_str().is_some_and(|b| !b.is_empty()));
}

fn hostile_project() -> (tempfile::TempDir, tempfile::TempDir) {
    let dir = shop();
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.md"), "# secret\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.md"), root.join("docs/leak.md")).unwrap();
    assert!(Command::new("mkfifo").arg(root.join("docs/pipe.md")).status().unwrap().success());
    let big = fs::File::create(root.join("docs/huge.md")).unwrap();
    big.set_len(50 * 1024 * 1024).unwrap();
    fs::write(root.join("docs/bad.md"), b"+++\nid = [\n+++\n# Bad \xff\n").unwrap();
    fs::write(root.join("service/broken.go"), "package service\n\nfunc broken() { x := }\n").unwrap();
    fs::write(root.join("service/latin1.go"), b"package service\n\n// caf\xe9\nfunc latin1() {}\n").unwrap();
    (dir, outside)
}

#[test]
fn hostile_inputs_are_recorded_and_nothing_else_is_lost() {
    let (dir, _outside) = hostile_project();
    let root = dir.path();
    let report = json(&run(root, &["index", "--json"]));
    assert_eq!(report["completeness"], "partial");
    let reasons = report["completeness_reasons"].to_string();
    assert!(reasons.contains("go_syntax_error"), "{reasons}");
    for (id, code) in [
        ("file:docs/leak.md", "symlink_outside_root"),
        ("file:docs/pipe.md", "special_file"),
        ("file:docs/huge.md", "file_too_large"),
        ("file:docs/bad.md", "invalid_utf8"),
        ("file:service/latin1.go", "invalid_utf8"),
        ("docs/bad", "front_matter_invalid"),
    ] {
        let node = json(&run(root, &["node", id, "--json"]));
        let codes: Vec<&str> =
            node["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
        assert!(codes.contains(&code), "{id}: {codes:?}");
    }
    // The secret behind the symlink was never read into the index.
    let hits = json(&run(root, &["search", "secret", "--json"]));
    assert_eq!(hits["count"], 0, "{hits}");
    // Everything else is still there.
    json(&run(root, &["node", "arch.storage", "--json"]));
    json(&run(root, &["node", "go:example.com/shop/storage/memory::(*Repo).Get", "--json"]));
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().map(|o| o.stdout.starts_with(b"0\n")).unwrap_or(false)
}

#[test]
fn unreadable_file_is_a_diagnostic() {
    let dir = shop();
    let root: PathBuf = dir.path().to_path_buf();
    let secret = root.join("docs/private.md");
    fs::write(&secret, "# private\n").unwrap();
    let mut cmd = if is_root() {
        // Root reads any file; drop to nobody so permissions apply.
        Command::new("chmod").args(["-R", "a+rwX"]).arg(&root).status().unwrap();
        Command::new("chmod").arg("a+rx").arg(root.parent().unwrap()).status().unwrap();
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups", bin()]);
        c
    } else {
        Command::new(bin())
    };
    Command::new("chmod").arg("000").arg(&secret).status().unwrap();
    let out = cmd.arg("--project-root").arg(&root).args(["index", "--json"]).output().unwrap();
    let report = json(&out);
    assert!(report["diagnostics"]["errors"].as_u64().unwrap() >= 1, "{report}");
    let node = Command::new(bin())
        .arg("--project-root")
        .arg(&root)
        .args(["node", "file:docs/private.md", "--json"])
        .output()
        .unwrap();
    let node = json(&node);
    let codes: Vec<&str> =
        node["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(codes.contains(&"unreadable"), "{node}");
    json(
        &Command::new(bin())
            .arg("--project-root")
            .arg(&root)
            .args(["node", "arch.storage", "--json"])
            .output()
            .unwrap(),
    );
}

/// A reader that went away (`docforge search x | head`) ends the command quietly with the
/// status a SIGPIPE death gives (141): no panic message, nothing on stderr, for every
/// command that prints, in text and in JSON.
#[test]
fn a_closed_stdout_ends_quietly_with_the_sigpipe_status() {
    let dir = shop();
    let root = dir.path();
    json(&run(root, &["index", "--json"]));
    let docforge = |args: &[&str]| {
        let mut c = Command::new(bin());
        c.arg("--project-root").arg(root).args(args);
        c
    };
    let mut gograph = Command::new(env!("CARGO_BIN_EXE_gograph"));
    gograph.args(["version", "--json"]);
    let cases: Vec<(&str, Command)> = vec![
        ("index", docforge(&["index"])),
        ("stats", docforge(&["stats"])),
        ("stats --json", docforge(&["stats", "--json"])),
        ("search", docforge(&["search", "order"])),
        ("search --json", docforge(&["search", "order", "--json"])),
        ("node", docforge(&["node", "go:example.com/shop/storage::Repository"])),
        ("version", {
            let mut c = Command::new(bin());
            c.arg("version");
            c
        }),
        ("diagnostics", docforge(&["diagnostics"])),
        ("validate", docforge(&["validate"])),
        ("gograph version --json", gograph),
    ];
    for (name, mut command) in cases {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader); // every write now fails with EPIPE
        let out = command.stdout(writer).stderr(std::process::Stdio::piped()).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(141), "{name}: stderr {stderr}");
        assert!(stderr.is_empty(), "{name}: stderr {stderr}");
    }
}
