//! `docforge changeset` on fixtures/shop: changesets made through the proposal API (as the MCP
//! tools make them), then listed, shown, diffed, validated and abandoned by the binary.

mod support;

use docforge_proposals::{Operation, Proposals};
use docforge_workspace::{Options, Workspace};
use serde_json::json;
use std::path::Path;
use support::{json, one_line_error, run, shop};

fn register(root: &Path, title: &str, op: serde_json::Value) -> String {
    let mut ws = Workspace::bind(root, Options { watch: false, ..Default::default() }).unwrap();
    let g = ws.ensure_current(true).unwrap().generation;
    let p = Proposals::of(&ws, &g, Some("agent-1"), std::time::SystemTime::now());
    p.register(title, None, vec![Operation::from_json(op).unwrap()]).unwrap().changeset_id
}

#[test]
fn list_show_diff_validate_and_abandon() {
    let dir = shop();
    let root = dir.path();
    let ready = register(
        root,
        "rename the glossary",
        json!({"op": "node_update", "node_id": "glossary", "title": "Terms"}),
    );
    let draft = register(
        root,
        "drop a linked decision",
        json!({"op": "node_delete", "node_id": "decision.pointer-receivers"}),
    );

    let list = json(&run(root, &["changeset", "list", "--json"]));
    let ids: Vec<&str> =
        list["changesets"].as_array().unwrap().iter().map(|c| c["changeset_id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&ready.as_str()) && ids.contains(&draft.as_str()));
    let text = String::from_utf8(run(root, &["changeset", "list"]).stdout).unwrap();
    assert!(
        text.lines()
            .any(|l| l.starts_with(&ready) && l.contains("ready") && l.ends_with("rename the glossary")),
        "{text}"
    );

    let show = json(&run(root, &["changeset", "show", &ready, "--json"]));
    assert_eq!(show["status"], "ready");
    assert_eq!(show["changeset"]["operations"][0]["op"], "node_update");
    assert_eq!(show["changeset"]["changes"][0]["path"], "docs/glossary.toml");

    let diff = run(root, &["changeset", "diff", &ready]);
    assert!(diff.status.success());
    let diff = String::from_utf8(diff.stdout).unwrap();
    assert!(diff.contains("--- a/docs/glossary.toml\n+++ b/docs/glossary.toml\n"), "{diff}");
    assert!(diff.contains("-title = \"Glossary\"\n+title = \"Terms\"\n"), "{diff}");
    let diff = json(&run(root, &["changeset", "diff", &ready, "--json"]));
    assert_eq!(diff["changes"][0]["after_text"].as_str().unwrap().lines().nth(1), Some("title = \"Terms\""));

    let ok = run(root, &["changeset", "validate", &ready]);
    assert_eq!(ok.status.code(), Some(0));
    let bad = run(root, &["changeset", "validate", &draft]);
    assert_eq!(bad.status.code(), Some(1), "a draft does not validate");
    let out = String::from_utf8(bad.stdout).unwrap();
    assert!(
        out.contains("error broken_link") && out.trim_end().ends_with(&format!("{draft} draft")),
        "{out}"
    );

    let e = one_line_error(
        &run(root, &["changeset", "abandon", &draft, "--reason", "no", "--writer", "agent-2"]),
        1,
    );
    assert!(e.starts_with("docforge: changeset_not_owned: "), "{e}");
    let e =
        one_line_error(&run(root, &["changeset", "abandon", &draft, "--reason", "no", "--writer", "a b"]), 1);
    assert!(e.contains("--writer"), "{e}");
    let a = json(&run(
        root,
        &["changeset", "abandon", &draft, "--reason", "keeps the decision", "--writer", "agent-1", "--json"],
    ));
    assert_eq!(a["changeset"]["status"], "abandoned");
    assert!(root.join(a["receipt_path"].as_str().unwrap()).is_file());
    let open = json(&run(root, &["changeset", "list", "--json"]));
    assert_eq!(open["changesets"].as_array().unwrap().len(), 1);
    let gone = json(&run(root, &["changeset", "list", "--status", "abandoned", "--json"]));
    assert_eq!(gone["changesets"][0]["changeset_id"], json!(draft));
    let all = json(&run(root, &["changeset", "list", "--history", "--json"]));
    assert_eq!(all["changesets"].as_array().unwrap().len(), 2);
    // Every JSON document names its schema.
    for (name, doc) in [("list", &all), ("show", &show), ("diff", &diff), ("abandon", &a)] {
        assert!(doc["schema_version"].as_str().is_some_and(|v| v.starts_with("docforge.")), "{name}: {doc}");
    }

    let e = one_line_error(&run(root, &["changeset", "show", "cs-00000000000000000000"]), 1);
    assert!(e.starts_with("docforge: changeset_not_found: "), "{e}");
    assert!(e.trim_end().ends_with("(list the changesets (docforge changeset list --history))"), "{e}");
    let e = one_line_error(&run(root, &["changeset", "list", "--status", "bogus"]), 1);
    assert!(e.contains("unknown status"), "{e}");
}

const APPLICATION: &str =
    "\n[application]\napplier = \"markdown-toml@1\"\nwriter = \"docs-applier\"\ncontent_roots = [\"docs\"]\n";

/// A copy of the shop declaring the applier, and a ready changeset of four operations on it:
/// (project, changeset ID, its hash, the projected files: path → bytes, `None` deleted).
/// Project files by path: their bytes, `None` when absent.
type Files = Vec<(String, Option<Vec<u8>>)>;

fn applicable(in_dir: Option<&Path>) -> (tempfile::TempDir, String, String, Files) {
    let dir = match in_dir {
        Some(d) => {
            let dir = tempfile::tempdir_in(d).unwrap();
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shop");
            let ok = std::process::Command::new("cp")
                .arg("-r")
                .arg(format!("{}/.", src.display()))
                .arg(dir.path())
                .status()
                .unwrap();
            assert!(ok.success());
            let _ = std::fs::remove_dir_all(dir.path().join(".docforge"));
            let _ = std::fs::remove_dir_all(dir.path().join("site"));
            dir
        }
        None => shop(),
    };
    let cfg = dir.path().join("docforge.toml");
    let text = std::fs::read_to_string(&cfg).unwrap();
    std::fs::write(&cfg, format!("{text}{APPLICATION}")).unwrap();
    let mut ws = Workspace::bind(dir.path(), Options { watch: false, ..Default::default() }).unwrap();
    let g = ws.ensure_current(true).unwrap().generation;
    let p = Proposals::of(&ws, &g, Some("agent-1"), std::time::SystemTime::now());
    let ops = [
        json!({"op": "node_update", "node_id": "arch.storage", "fields": {"status": "superseded"}}),
        json!({"op": "node_create", "node_id": "arch.events", "path": "docs/arch/events.md", "title": "Event log"}),
        json!({"op": "node_move", "node_id": "decision.value-receivers", "new_path": "docs/decisions/values.md"}),
        json!({"op": "relationship_update", "node_id": "glossary", "add": [{"relation": "relates_to", "target": "arch.events"}]}),
    ];
    let cs = p
        .register(
            "four operations",
            None,
            ops.into_iter().map(|o| Operation::from_json(o).unwrap()).collect(),
        )
        .unwrap();
    assert_eq!(cs.status, docforge_proposals::Status::Ready, "{:#?}", cs.validation);
    let files = cs.changes.iter().map(|c| (c.path.clone(), c.after_bytes())).collect();
    (dir, cs.changeset_id, cs.changeset_sha256, files)
}

/// Every projected file as it is now: all new (`Some(true)`), all old (`Some(false)`), or a mix.
fn all_new_or_old(
    root: &Path,
    files: &[(String, Option<Vec<u8>>)],
    old: &[(String, Option<Vec<u8>>)],
) -> Option<bool> {
    let now: Vec<Option<Vec<u8>>> = files.iter().map(|(p, _)| std::fs::read(root.join(p)).ok()).collect();
    let new: Vec<Option<Vec<u8>>> = files.iter().map(|(_, b)| b.clone()).collect();
    let was: Vec<Option<Vec<u8>>> = old.iter().map(|(_, b)| b.clone()).collect();
    if now == new {
        Some(true)
    } else if now == was {
        Some(false)
    } else {
        None
    }
}

fn snapshot(root: &Path, files: &Files) -> Files {
    files.iter().map(|(p, _)| (p.clone(), std::fs::read(root.join(p)).ok())).collect()
}

#[test]
fn apply_from_the_command_line_then_again() {
    let (dir, id, sha, files) = applicable(None);
    let root = dir.path();
    let e = one_line_error(
        &run(root, &["changeset", "apply", &id, "--sha256", &"0".repeat(64), "--applier", "docs-applier"]),
        1,
    );
    assert!(e.starts_with("docforge: changeset_hash_mismatch: "), "{e}");
    let e = one_line_error(
        &run(root, &["changeset", "apply", &id, "--sha256", &sha, "--applier", "intruder"]),
        1,
    );
    assert!(e.starts_with("docforge: applier_mismatch: "), "{e}");
    let out = json(&run(
        root,
        &["changeset", "apply", &id, "--sha256", &sha, "--applier", "docs-applier", "--json"],
    ));
    assert_eq!(out["status"], "applied");
    assert_eq!(out["refresh"]["state"], "ok");
    assert_eq!(all_new_or_old(root, &files, &Vec::new()), Some(true));
    let node = json(&run(root, &["node", "arch.events", "--json"]));
    assert_eq!(node["node"]["id"], "arch.events");
    let e = one_line_error(
        &run(root, &["changeset", "apply", &id, "--sha256", &sha, "--applier", "docs-applier"]),
        1,
    );
    assert!(e.starts_with("docforge: changeset_already_applied: "), "{e}");
}

#[test]
fn a_crash_at_any_step_of_the_write_leaves_every_old_file_or_every_new_one() {
    let mut steps = 0;
    for n in 0.. {
        let (dir, id, sha, files) = applicable(None);
        let root = dir.path();
        let old = snapshot(root, &files);
        let out = std::process::Command::new(support::bin())
            .arg("--project-root")
            .arg(root)
            .args(["changeset", "apply", &id, "--sha256", &sha, "--applier", "docs-applier"])
            .env(docforge_proposals::apply::ABORT_AFTER_STEPS_ENV, n.to_string())
            .output()
            .unwrap();
        if out.status.success() {
            steps = n;
            break;
        }
        assert_eq!(
            out.status.code(),
            None,
            "step {n}: the process aborted: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        // The next process recovers before anything else: `docforge validate` every other
        // step, `docforge changeset show` otherwise.
        if n % 2 == 1 {
            let _ = run(root, &["validate"]);
            assert!(
                !root.join(docforge_project::APPLICATION_JOURNAL).exists(),
                "step {n}: validate recovered"
            );
        }
        let show = json(&run(root, &["changeset", "show", &id, "--json"]));
        let state = all_new_or_old(root, &files, &old);
        assert!(state.is_some(), "step {n}: a mix of old and new documents");
        let applied = show["changeset"]["status"] == "applied";
        assert_eq!(
            Some(applied),
            state,
            "step {n}: the changeset says applied exactly when the documents are new"
        );
        assert!(!root.join(docforge_project::APPLICATION_JOURNAL).exists(), "step {n}: the journal is gone");
        if !applied {
            // Not applied: it can still be, once.
            let out = json(&run(
                root,
                &["changeset", "apply", &id, "--sha256", &sha, "--applier", "docs-applier", "--json"],
            ));
            assert_eq!(out["status"], "applied", "step {n}");
            assert_eq!(all_new_or_old(root, &files, &old), Some(true), "step {n}");
        }
    }
    eprintln!("the write sequence has {steps} steps");
    assert!(steps >= 10, "the write sequence has {steps} steps: each was crashed in");
}

#[test]
fn a_serializer_fault_is_caught_by_verification_and_rolled_back_byte_for_byte() {
    let (dir, id, sha, files) = applicable(None);
    let root = dir.path();
    let old = snapshot(root, &files);
    let record = root.join(format!(".docforge/changesets/{id}/changeset.json"));
    let record_before = std::fs::read(&record).unwrap();
    let out = std::process::Command::new(support::bin())
        .arg("--project-root")
        .arg(root)
        .args(["changeset", "apply", &id, "--sha256", &sha, "--applier", "docs-applier"])
        .env(docforge_proposals::apply::SERIALIZER_FAULT_ENV, "1")
        .output()
        .unwrap();
    let e = one_line_error(&out, 1);
    assert!(e.starts_with("docforge: application_verification_failed: "), "{e}");
    assert_eq!(all_new_or_old(root, &files, &old), Some(false));
    assert_eq!(std::fs::read(&record).unwrap(), record_before, "the changeset record is as it was");
    assert!(!root.join(format!(".docforge/changesets/{id}/applied.json")).exists());
}

#[test]
fn a_refresh_that_fails_is_a_successful_application_with_a_degraded_report() {
    // chattr needs a file system that keeps attributes: the target directory's.
    let (dir, id, sha, files) = applicable(Some(Path::new(env!("CARGO_TARGET_TMPDIR"))));
    let root = dir.path();
    let index = root.join(".docforge/index.sqlite");
    let immutable = std::process::Command::new("chattr").arg("+i").arg(&index).status().unwrap();
    assert!(immutable.success(), "chattr +i failed: this test needs ext4-like attributes");
    let out =
        run(root, &["changeset", "apply", &id, "--sha256", &sha, "--applier", "docs-applier", "--json"]);
    let _ = std::process::Command::new("chattr").arg("-i").arg(&index).status();
    let out = json(&out);
    assert_eq!(out["status"], "applied");
    assert_eq!(out["refresh"]["state"], "degraded", "{}", out["refresh"]);
    assert!(out["refresh"]["remediation"].to_string().contains("docforge_sync"));
    assert_eq!(all_new_or_old(root, &files, &Vec::new()), Some(true));
}
