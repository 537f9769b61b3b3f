//! `docforge render` end to end through the real binary: what it writes on fixtures/shop, and
//! that bad inputs — invalid view declarations, an unknown view, an output directory DocForge
//! did not write — fail with one line naming the problem and write nothing.

mod support;

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::Output;
use support::{run, shop};

/// Exit `code`, exactly one line on stderr, ended by a newline (returned without it),
/// nothing on stdout.
fn one_line_error(out: &Output, code: i32) -> String {
    let err = support::one_line_error(out, code);
    assert!(err.ends_with('\n'));
    err.trim_end().to_string()
}

/// Every entry under `dir`, not following symlinks: path → bytes, symlink target or `dir`.
fn tree(dir: &Path) -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        for e in fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            let m = fs::symlink_metadata(&path).unwrap();
            if m.file_type().is_symlink() {
                out.insert(rel, format!("-> {}", fs::read_link(&path).unwrap().display()));
            } else if m.is_dir() {
                out.insert(rel, "dir".into());
                walk(root, &path, out);
            } else {
                out.insert(rel, String::from_utf8_lossy(&fs::read(&path).unwrap()).into_owned());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// `tree` without the state directory.
fn sources(dir: &Path) -> BTreeMap<String, String> {
    tree(dir).into_iter().filter(|(p, _)| p != ".docforge" && !p.starts_with(".docforge/")).collect()
}

/// The shop's docforge.toml with its views replaced by `views` (and `sources.docs` reduced to
/// Markdown under docs/).
fn with_views(root: &Path, views: &str) {
    let toml = format!(
        "schema_version = 1\n\n[project]\nid = \"shop\"\n\n[sources]\ndocs = [\"docs/**/*.md\"]\ngo = [\".\"]\n\n{views}"
    );
    fs::write(root.join("docforge.toml"), toml).unwrap();
}

#[test]
fn render_writes_the_declared_outputs_and_state_only() {
    let dir = shop();
    let root = dir.path();
    let before = sources(root);
    let out = run(root, &["render"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    let said = String::from_utf8(out.stdout).unwrap();
    assert!(
        said.starts_with("rendered 2 views from generation 1: architecture -> site/architecture (4 documents, 6 files), pages -> site/pages (7 documents, 8 files) in "),
        "{said}"
    );
    let after = sources(root);
    let mut added: Vec<&str> =
        after.keys().filter(|p| !before.contains_key(*p)).map(String::as_str).collect();
    added.retain(|p| !p.starts_with("site/architecture/") && !p.starts_with("site/pages/"));
    assert_eq!(added, ["site", "site/architecture", "site/pages"], "only the declared outputs");
    assert!(before.iter().all(|(p, v)| after.get(p) == Some(v)), "no source changed");
    assert_eq!(after["site/architecture/.docforge-output"], "docforge view architecture\n");
    assert!(after.contains_key("site/architecture/docs/arch/storage.html"));
    let mut receipts: Vec<String> = fs::read_dir(root.join(".docforge/receipts/render"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    receipts.sort();
    assert_eq!(receipts, ["architecture.v1.json", "pages.v1.json"]);
    // Again, as JSON: the same pages (rendering is a function of the sources).
    let out = run(root, &["render", "--view", "pages", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["schema_version"], "docforge.render.v1");
    assert_eq!(report["views"].as_array().unwrap().len(), 1);
    assert_eq!(report["views"][0]["id"], "pages");
    assert_eq!(report["views"][0]["documents"], 7);
    assert_eq!(report["views"][0]["receipt"], ".docforge/receipts/render/pages.v1.json");
    let again = sources(root);
    assert_eq!(again, after, "a second render gives the same files");
}

/// `docforge render --status` says each view's state and why, and writes nothing: the
/// command-line side of `docforge_render_status`.
#[test]
fn render_status_reports_each_view_and_writes_nothing() {
    let dir = shop();
    let root = dir.path();
    let states = |args: &[&str]| -> Vec<(String, String)> {
        let before = tree(root);
        let out = run(root, &[&["render", "--status", "--json"][..], args].concat());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(tree(root), before, "nothing written");
        let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(doc["schema_version"], "docforge.render_status.v1");
        let views = doc["views"].as_array().unwrap().iter();
        views.map(|v| (v["id"].as_str().unwrap().into(), v["state"].as_str().unwrap().into())).collect()
    };
    let pair = |id: &str, state: &str| (id.to_string(), state.to_string());
    assert_eq!(states(&[]), [pair("architecture", "unverified"), pair("pages", "unverified")]);
    assert!(run(root, &["render"]).status.success());
    assert_eq!(states(&[]), [pair("architecture", "current"), pair("pages", "current")]);
    let notes = root.join("docs/notes.md");
    fs::write(&notes, fs::read_to_string(&notes).unwrap() + "\nMore.\n").unwrap();
    assert_eq!(states(&["--view", "pages"]), [pair("pages", "stale")]);
    let text = String::from_utf8(run(root, &["render", "--status", "--view", "pages"]).stdout).unwrap();
    assert!(text.starts_with("pages\tstale\tdocs/notes.md changed since the render"), "{text}");
    let err = one_line_error(&run(root, &["render", "--status", "--view", "nope"]), 1);
    assert!(err.contains("declared: architecture, pages"), "{err}");
}

/// An output spelled `./site//a/` is the directory `site/a`, rendered into and replaced there.
#[test]
fn an_output_spelled_with_dot_and_slashes_is_its_directory() {
    let dir = shop();
    let root = dir.path();
    with_views(root, "[[views]]\nid = \"a\"\nrenderer = \"html-page@1\"\noutput = \"./site//a/\"\n");
    for _ in 0..2 {
        let out = run(root, &["render"]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(root.join("site/a/.docforge-output").is_file());
        assert!(root.join("site/a/docs/arch/storage.html").is_file());
    }
}

/// Every invalid view declaration: exit 1, one line naming the key, nothing on stdout, and
/// nothing written (no state directory, no output).
#[test]
fn invalid_view_declarations_are_refused_before_anything_is_written() {
    let ok = "[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\noutput = \"site/a\"\n";
    let cases: Vec<(&str, String, &str)> = vec![
        ("unknown renderer", "[[views]]\nid = \"a\"\nrenderer = \"html-site@2\"\noutput = \"site/a\"\n".into(), "key `views[0].renderer`: TOML parse error at line 12, column 12: unknown variant `html-site@2`, expected `html-page@1` or `html-site@1`"),
        ("a command as renderer", "[[views]]\nid = \"a\"\nrenderer = \"sh -c 'make site'\"\noutput = \"site/a\"\n".into(), "key `views[0].renderer`: TOML parse error at line 12, column 12: unknown variant `sh -c 'make site'`"),
        ("a path as renderer", "[[views]]\nid = \"a\"\nrenderer = \"./render.sh\"\noutput = \"site/a\"\n".into(), "key `views[0].renderer`"),
        ("duplicate ID", format!("{ok}{ok}").replace("site/a\"\n[[", "site/a\"\n\n[[").replacen("site/a", "site/b", 1), "key `views[1].id`: \"a\" is declared twice"),
        ("ID with a slash", ok.replace("id = \"a\"", "id = \"a/b\""), "key `views[0].id`: \"a/b\" must be 1 to 64 letters, digits, `.`, `_` or `-`"),
        ("ID starting with a dot", ok.replace("id = \"a\"", "id = \".a\""), "key `views[0].id`: \".a\" must not start with `.`"),
        ("output climbing out", ok.replace("site/a", "../x"), "key `views[0].output`: \"../x\" (view \"a\") must be a relative directory inside the project root"),
        ("absolute output", ok.replace("site/a", "/tmp/docforge-site"), "key `views[0].output`: \"/tmp/docforge-site\" (view \"a\") must be a relative directory inside the project root"),
        ("the root as output", ok.replace("site/a", "."), "key `views[0].output`: \".\" (view \"a\") must name a directory below the project root, not the root itself"),
        ("output in the state directory", ok.replace("site/a", ".docforge/site"), "key `views[0].output`: \".docforge/site\" (view \"a\") overlaps the state directory .docforge"),
        ("output in a content root", ok.replace("site/a", "docs/site"), "key `views[0].output`: \"docs/site\" (view \"a\") overlaps the content root \"docs\" of sources.docs"),
        ("the content root as output", ok.replace("site/a", "docs/"), "key `views[0].output`: \"docs/\" (view \"a\") overlaps the content root \"docs\" of sources.docs"),
        ("overlapping outputs", format!("{ok}\n[[views]]\nid = \"b\"\nrenderer = \"html-page@1\"\noutput = \"site/a/pages\"\n"), "key `views[1].output`: \"site/a/pages\" (view \"b\") overlaps the output of view \"a\""),
        ("unknown key", format!("{ok}color = \"red\"\n"), "key `views[0].color`: TOML parse error at line 14, column 1: unknown field `color`, expected one of `id`, `renderer`, `select`, `output`"),
        ("unknown select key", format!("{ok}select = {{ owner = [\"x\"] }}\n"), "key `views[0].select.owner`"),
        ("missing output", "[[views]]\nid = \"a\"\nrenderer = \"html-site@1\"\n".into(), "key `views[0]`"),
    ];
    for (name, views, says) in &cases {
        let dir = shop();
        let root = dir.path();
        with_views(root, views);
        let before = tree(root);
        for args in [&["render"][..], &["render", "--view", "a"], &["render", "--json"]] {
            let err = one_line_error(&run(root, args), 1);
            let config = root.canonicalize().unwrap().join("docforge.toml");
            let expected = format!("docforge: invalid configuration: {}: {says}", config.display());
            assert!(err.starts_with(&expected), "{name} {args:?}:\n  {err}\nwanted\n  {expected}");
            assert_eq!(tree(root), before, "{name} {args:?}: nothing written");
        }
        assert!(!root.join(".docforge").exists() && !root.join("site").exists(), "{name}");
    }
}

#[test]
fn an_unknown_view_names_the_declared_ones() {
    let dir = shop();
    let root = dir.path();
    let before = tree(root);
    let err = one_line_error(&run(root, &["render", "--view", "nope"]), 1);
    assert_eq!(err, "docforge: no view \"nope\" in docforge.toml (declared: architecture, pages)");
    with_views(root, "");
    let before_none = tree(root);
    let err = one_line_error(&run(root, &["render", "--view", "nope"]), 1);
    assert_eq!(err, "docforge: no view \"nope\" in docforge.toml (it declares none)");
    let err = one_line_error(&run(root, &["render"]), 1);
    assert!(err.starts_with("docforge: docforge.toml declares no [[views]]; nothing to render"), "{err}");
    assert_eq!(tree(root), before_none, "nothing written");
    assert_ne!(before, before_none);
}

/// An output directory `docforge render` did not write is never replaced: a directory without
/// the marker (or with another view's), a file, a symlink to a directory. The refusal is the
/// writer's, on one line; the directory (and what a link points to) is left byte for byte,
/// and nothing but the state directory is written.
#[test]
fn an_output_docforge_did_not_write_is_refused_and_left_alone() {
    type Setup = fn(&Path, &Path);
    let cases: &[(&str, Setup, &str)] = &[
        (
            "a directory without the marker",
            |root, _| {
                fs::create_dir_all(root.join("site/architecture/notes")).unwrap();
                fs::write(root.join("site/architecture/notes/todo.txt"), "mine").unwrap();
                fs::write(root.join("site/architecture/index.html"), "my own page").unwrap();
            },
            "site/architecture exists and was not written by DocForge (no .docforge-output marker); refused",
        ),
        (
            "another view's directory",
            |root, _| {
                fs::create_dir_all(root.join("site/architecture")).unwrap();
                fs::write(root.join("site/architecture/.docforge-output"), "docforge view pages\n").unwrap();
            },
            "site/architecture exists and was not written by DocForge (no .docforge-output marker); refused",
        ),
        (
            "an empty directory",
            |root, _| fs::create_dir_all(root.join("site/architecture")).unwrap(),
            "site/architecture exists and was not written by DocForge",
        ),
        (
            "a file",
            |root, _| {
                fs::create_dir(root.join("site")).unwrap();
                fs::write(root.join("site/architecture"), "a file").unwrap();
            },
            "site/architecture is a regular file; refused",
        ),
        (
            "a symlink to a directory",
            |root, outside| {
                fs::create_dir(root.join("site")).unwrap();
                fs::write(outside.join("keep.html"), "outside").unwrap();
                fs::write(outside.join(".docforge-output"), "docforge view architecture\n").unwrap();
                symlink(outside, root.join("site/architecture")).unwrap();
            },
            "site/architecture is a symlink; refused",
        ),
        (
            "a symlinked parent",
            |root, outside| symlink(outside, root.join("site")).unwrap(),
            "site is a symlink; refused",
        ),
    ];
    for (name, setup, says) in cases {
        let dir = shop();
        let root = dir.path();
        let outside = tempfile::tempdir().unwrap();
        setup(root, outside.path());
        let before = sources(root);
        let before_outside = tree(outside.path());
        let err = one_line_error(&run(root, &["render", "--view", "architecture"]), 1);
        assert!(err.starts_with("docforge: view \"architecture\": "), "{name}: {err}");
        assert!(err.contains(says), "{name}: {err}\nwanted {says}");
        assert_eq!(sources(root), before, "{name}: nothing written but the state directory");
        assert_eq!(tree(outside.path()), before_outside, "{name}: the link's target is untouched");
        assert!(!root.join(".docforge/receipts/render").exists(), "{name}: no receipt");
    }
}
