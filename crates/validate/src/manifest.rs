//! The versioned source-fingerprint manifest (`gograph.source.v1`).
//!
//! `repository.source_fingerprint` is the SHA-256 of this text. It contains, in order:
//! 1. the schema marker and the source-policy version;
//! 2. `[build]`: the effective Go selection inputs (GOOS, GOARCH, cgo, compiler, release,
//!    tool and build tags, module mode, each module's repository-relative directory and path);
//!    no absolute directory spelling ever appears;
//! 3. `[files]`: every build-selected `.go` file, repository-relative, in lexical order, with
//!    the SHA-256 of its exact bytes;
//! 4. `[metadata]`: `go.mod`/`go.work` and `vendor/modules.txt` with their SHA-256;
//! 5. `[policy]`: the selection-policy inputs (Go roots, exclude globs, size limit, the fixed
//!    refusal rules of this policy version), the Go-side files they excluded or refused, with
//!    the reason, and the `go.mod`/`go.work` files enclosing the Go roots from outside
//!    (their relative spelling only: nothing outside the root is read).
//!
//! Every path is a JSON string, so no file name can forge a line. The `[build]` section alone
//! is hashed as `build_context_fingerprint`.

use docforge_db::GoInventory;
use docforge_go::BuildContext;
use serde::{Deserialize, Serialize};

pub const SOURCE_MANIFEST_SCHEMA: &str = "gograph.source.v2";
/// The version of the selection rules (what is walked, refused and excluded). Version 2: the
/// Go side follows the Go build — ignore files never drop a Go-side file, a Go file an
/// exclude glob covers is recorded (and the graph is partial), `vendor/modules.txt` is
/// metadata, and enclosing module files are part of the manifest.
pub const SOURCE_POLICY_VERSION: u32 = 2;
/// The fixed rules of policy version 2.
const POLICY_RULES: &str = "ignore_files_for_documents_only,hidden_entries_skipped,go_ignored_dirs,exclude_globs_recorded,symlinks_never_followed_out_of_root,special_files_refused,build_constraints,vendor_modules_metadata,enclosing_module_files";

/// The project's selection inputs (from `docforge.toml`, or the defaults).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SelectionPolicy {
    pub go_roots: Vec<String>,
    pub exclude: Vec<String>,
    pub max_file_bytes: u64,
}

impl SelectionPolicy {
    pub fn of(project: &docforge_project::Project) -> Self {
        let s = &project.config.sources;
        SelectionPolicy {
            go_roots: s.go.clone(),
            exclude: s.exclude.clone(),
            max_file_bytes: project.config.limits.max_file_bytes,
        }
    }
}

fn q(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialise")
}

fn list(v: &[String]) -> String {
    let mut v: Vec<&str> = v.iter().map(String::as_str).collect();
    v.sort_unstable();
    v.dedup();
    v.iter().map(|s| q(s)).collect::<Vec<_>>().join(",")
}

/// The `[build]` section: build context, module mode and modules.
pub fn build_section(build: &BuildContext, modules: &[(String, String)]) -> String {
    let mut m = String::from("[build]\n");
    m.push_str(&format!("goos {}\ngoarch {}\n", q(&build.goos), q(&build.goarch)));
    m.push_str(&format!("cgo {}\ncompiler {}\n", build.cgo_enabled, q(&build.compiler)));
    m.push_str(&format!("release_tags go1.1..go1.{}\n", build.release_minor));
    m.push_str(&format!("tool_tags [{}]\n", list(&build.tool_tags)));
    m.push_str(&format!("build_tags [{}]\n", list(&build.build_tags)));
    m.push_str("module_mode on\n");
    let mut modules = modules.to_vec();
    modules.sort();
    for (dir, path) in &modules {
        let dir = if dir.is_empty() { "." } else { dir };
        m.push_str(&format!("module {} {}\n", q(dir), q(path)));
    }
    m
}

pub fn build_context_fingerprint(build: &BuildContext, modules: &[(String, String)]) -> String {
    crate::sha256_hex(build_section(build, modules).as_bytes())
}

/// The whole manifest text.
pub fn source_manifest(inv: &GoInventory, policy: &SelectionPolicy) -> String {
    let mut m = format!("{SOURCE_MANIFEST_SCHEMA}\nsource_policy_version {SOURCE_POLICY_VERSION}\n");
    m.push_str(&build_section(&inv.build, &inv.modules));
    m.push_str("[files]\n");
    let mut files = inv.files.clone();
    files.sort();
    for (path, sha) in &files {
        m.push_str(&format!("{sha} {}\n", q(path)));
    }
    m.push_str("[metadata]\n");
    let mut meta = inv.metadata.clone();
    meta.sort();
    for (path, kind, sha) in &meta {
        m.push_str(&format!("{sha} {kind} {}\n", q(path)));
    }
    m.push_str("[policy]\n");
    m.push_str(&format!("go_roots [{}]\n", list(&policy.go_roots)));
    m.push_str(&format!("exclude [{}]\n", list(&policy.exclude)));
    m.push_str(&format!("max_file_bytes {}\n", policy.max_file_bytes));
    m.push_str(&format!("rules {POLICY_RULES}\n"));
    let mut excluded = inv.excluded.clone();
    excluded.sort();
    for (path, reason) in &excluded {
        m.push_str(&format!("excluded {} {}\n", q(path), q(reason)));
    }
    let mut skipped = inv.skipped.clone();
    skipped.sort();
    for (path, status) in &skipped {
        m.push_str(&format!("skipped {} {}\n", q(path), q(status)));
    }
    let mut enclosing = inv.enclosing.clone();
    enclosing.sort();
    for path in &enclosing {
        m.push_str(&format!("enclosing {}\n", q(path)));
    }
    m
}

pub fn source_fingerprint(inv: &GoInventory, policy: &SelectionPolicy) -> String {
    crate::sha256_hex(source_manifest(inv, policy).as_bytes())
}

/// What differs between a recorded and a current inventory, for diagnostics: (code, path).
pub fn differences(
    old: &GoInventory,
    new: &GoInventory,
    policy_changed: bool,
) -> Vec<(&'static str, String)> {
    use std::collections::BTreeMap;
    let mut out = Vec::new();
    if build_context_fingerprint(&old.build, &old.modules)
        != build_context_fingerprint(&new.build, &new.modules)
    {
        out.push(("build_context_changed", String::new()));
    }
    if policy_changed {
        out.push(("selection_policy_changed", String::new()));
    }
    let as_map = |inv: &GoInventory| -> BTreeMap<String, String> {
        inv.files
            .iter()
            .cloned()
            .chain(inv.metadata.iter().map(|(p, _, s)| (p.clone(), s.clone())))
            .chain(inv.excluded.iter().map(|(p, r)| (p.clone(), format!("excluded:{r}"))))
            .chain(inv.skipped.iter().cloned())
            .collect()
    };
    let (a, b) = (as_map(old), as_map(new));
    for (path, v) in &a {
        match b.get(path) {
            None => out.push(("source_removed", path.clone())),
            Some(w) if w != v => out.push(("source_changed", path.clone())),
            _ => {}
        }
    }
    for path in b.keys().filter(|p| !a.contains_key(*p)) {
        out.push(("source_added", path.clone()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inventory() -> GoInventory {
        GoInventory {
            build: BuildContext {
                build_tags: vec!["b".into(), "a".into(), "a".into()],
                ..Default::default()
            },
            modules: vec![("".into(), "example.com/shop".into())],
            files: vec![
                ("z.go".into(), "2".repeat(64)),
                ("a/x.go".into(), "1".repeat(64)),
                ("we\"ird\nname.go".into(), "3".repeat(64)),
            ],
            excluded: vec![("a/x_windows.go".into(), "GOOS windows".into())],
            metadata: vec![("go.mod".into(), "gomod", "4".repeat(64))],
            skipped: vec![("evil.go".into(), "refused:symlink_outside_root".into())],
            enclosing: vec!["../go.work".into()],
            ..Default::default()
        }
    }

    fn policy() -> SelectionPolicy {
        SelectionPolicy {
            go_roots: vec![".".into()],
            exclude: vec!["**/testdata/**".into()],
            max_file_bytes: 100,
        }
    }

    #[test]
    fn manifest_golden() {
        expect_test::expect![[r#"
            gograph.source.v2
            source_policy_version 2
            [build]
            goos "linux"
            goarch "amd64"
            cgo false
            compiler "gc"
            release_tags go1.1..go1.26
            tool_tags ["amd64.v1","goexperiment.dwarf5","goexperiment.greenteagc","goexperiment.randomizedheapbase64","goexperiment.regabiargs","goexperiment.regabiwrappers"]
            build_tags ["a","b"]
            module_mode on
            module "." "example.com/shop"
            [files]
            1111111111111111111111111111111111111111111111111111111111111111 "a/x.go"
            3333333333333333333333333333333333333333333333333333333333333333 "we\"ird\nname.go"
            2222222222222222222222222222222222222222222222222222222222222222 "z.go"
            [metadata]
            4444444444444444444444444444444444444444444444444444444444444444 gomod "go.mod"
            [policy]
            go_roots ["."]
            exclude ["**/testdata/**"]
            max_file_bytes 100
            rules ignore_files_for_documents_only,hidden_entries_skipped,go_ignored_dirs,exclude_globs_recorded,symlinks_never_followed_out_of_root,special_files_refused,build_constraints,vendor_modules_metadata,enclosing_module_files
            excluded "a/x_windows.go" "GOOS windows"
            skipped "evil.go" "refused:symlink_outside_root"
            enclosing "../go.work"
        "#]]
        .assert_eq(&source_manifest(&inventory(), &policy()));
    }

    type Edit = Box<dyn Fn(&mut GoInventory, &mut SelectionPolicy)>;

    #[test]
    fn every_input_changes_the_fingerprint_and_order_does_not() {
        let base = source_fingerprint(&inventory(), &policy());
        let mut shuffled = inventory();
        shuffled.files.reverse();
        assert_eq!(source_fingerprint(&shuffled, &policy()), base, "lexical order, whatever the input order");
        let edits: Vec<(&str, Edit)> = vec![
            ("file content", Box::new(|i, _| i.files[0].1 = "5".repeat(64))),
            ("file added", Box::new(|i, _| i.files.push(("b.go".into(), "6".repeat(64))))),
            ("file renamed", Box::new(|i, _| i.files[0].0 = "y.go".into())),
            ("go.mod", Box::new(|i, _| i.metadata[0].2 = "7".repeat(64))),
            ("GOOS", Box::new(|i, _| i.build.goos = "darwin".into())),
            ("cgo", Box::new(|i, _| i.build.cgo_enabled = true)),
            ("build tag", Box::new(|i, _| i.build.build_tags.push("c".into()))),
            ("module path", Box::new(|i, _| i.modules[0].1 = "example.com/other".into())),
            ("exclusion", Box::new(|i, _| i.excluded.clear())),
            ("refusal", Box::new(|i, _| i.skipped.clear())),
            (
                "vendoring",
                Box::new(|i, _| i.metadata.push(("vendor/modules.txt".into(), "govendor", "8".repeat(64)))),
            ),
            ("enclosing module file", Box::new(|i, _| i.enclosing.push("../go.mod".into()))),
            ("exclude glob", Box::new(|_, p| p.exclude.push("vendor/**".into()))),
            ("size limit", Box::new(|_, p| p.max_file_bytes = 1)),
        ];
        for (name, edit) in edits {
            let (mut inv, mut pol) = (inventory(), policy());
            edit(&mut inv, &mut pol);
            assert_ne!(source_fingerprint(&inv, &pol), base, "{name}");
        }
        let mut tags = inventory();
        tags.build.build_tags = vec!["a".into(), "b".into()];
        assert_eq!(source_fingerprint(&tags, &policy()), base, "tags are a set");
    }

    #[test]
    fn differences_name_the_paths() {
        let old = inventory();
        let mut new = inventory();
        new.files[0].1 = "9".repeat(64);
        new.files.remove(1);
        new.files.push(("n.go".into(), "8".repeat(64)));
        new.build.goarch = "arm64".into();
        let d = differences(&old, &new, false);
        assert_eq!(
            d,
            [
                ("build_context_changed", String::new()),
                ("source_removed", "a/x.go".to_string()),
                ("source_changed", "z.go".to_string()),
                ("source_added", "n.go".to_string()),
            ]
        );
    }
}
