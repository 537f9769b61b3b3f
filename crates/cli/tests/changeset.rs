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

    let e = one_line_error(&run(root, &["changeset", "show", "cs-00000000000000000000"]), 1);
    assert!(e.starts_with("docforge: changeset_not_found: "), "{e}");
    let e = one_line_error(&run(root, &["changeset", "list", "--status", "bogus"]), 1);
    assert!(e.contains("unknown status"), "{e}");
}
