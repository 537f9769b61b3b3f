//! Claims on rendered pages: the outcome docforge validate recorded, shown only while it is
//! proven to be about the claim as written and the Go sources as rendered; "not evaluated"
//! otherwise, never a guessed outcome.

mod support;

use std::fs;
use std::path::Path;
use std::process::Command;
use support::{run, shop};

/// The claims list of the storage page, one line per claim: outcome and reason.
fn claims(root: &Path) -> Vec<String> {
    let out = run(root, &["render", "--view", "architecture"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let page = fs::read_to_string(root.join("site/architecture/docs/arch/storage.html")).unwrap();
    page.lines()
        .filter(|l| l.starts_with("<li class=\"claim "))
        .map(|l| {
            let outcome = l.split("<strong>").nth(1).unwrap().split("</strong>").next().unwrap();
            let reason =
                l.split("<small>(").nth(1).map(|r| r.split(")</small>").next().unwrap()).unwrap_or("");
            format!("{outcome} {reason}").trim().to_string()
        })
        .collect()
}

fn receipt(root: &Path) -> std::path::PathBuf {
    root.join(".docforge/receipts/claims.v1.json")
}

#[test]
fn pages_show_recorded_outcomes_only_while_they_apply() {
    let dir = shop();
    let root = dir.path();
    assert_eq!(claims(root), vec!["not evaluated docforge validate has not recorded an outcome"; 3]);

    // docforge validate records its outcomes (its exit code is the claims', 1: one fails).
    assert_eq!(run(root, &["validate"]).status.code(), Some(1));
    assert!(receipt(root).is_file());
    assert_eq!(claims(root), ["pass", "pass", "fail relation_not_found"]);

    // A change of the Go side: the outcomes are no longer about these sources.
    let go = root.join("storage/storage.go");
    fs::write(&go, fs::read_to_string(&go).unwrap() + "\n// a comment\n").unwrap();
    assert_eq!(
        claims(root),
        vec!["not evaluated the Go sources changed since docforge validate recorded its outcomes"; 3]
    );
    assert_eq!(run(root, &["validate"]).status.code(), Some(1));
    assert_eq!(claims(root), ["pass", "pass", "fail relation_not_found"]);

    // Prose around a claim changes nothing; the claim itself does.
    let doc = root.join("docs/arch/storage.md");
    let text = fs::read_to_string(&doc).unwrap();
    fs::write(&doc, text.replace("# Storage\n", "# Storage\n\nA new paragraph.\n")).unwrap();
    assert_eq!(claims(root), ["pass", "pass", "fail relation_not_found"]);
    let text = fs::read_to_string(&doc).unwrap();
    fs::write(
        &doc,
        text.replacen(
            "object = \"example.com/shop/storage::Reader\"",
            "object = \"example.com/shop/storage::Writer\"",
            1,
        ),
    )
    .unwrap();
    assert_eq!(
        claims(root),
        ["pass", "not evaluated the claim changed since docforge validate ran", "fail relation_not_found"]
    );

    // A tampered receipt is never used.
    assert_eq!(run(root, &["validate"]).status.code(), Some(1));
    let bytes = fs::read_to_string(receipt(root)).unwrap();
    fs::write(receipt(root), bytes.replacen("\"outcome\":\"fail\"", "\"outcome\":\"pass\"", 1)).unwrap();
    assert_eq!(
        claims(root),
        vec![
            "not evaluated the recorded outcomes cannot be used: the receipt hash does not match its content";
            3
        ]
    );

    // Outcomes another build of the same version recorded (its receipt verifies) are not used:
    // its validation or graph may differ.
    assert_eq!(run(root, &["validate"]).status.code(), Some(1));
    let mut r: docforge_render::claims::ClaimsReceipt =
        serde_json::from_slice(&fs::read(receipt(root)).unwrap()).unwrap();
    assert_eq!(r.code, docforge_render::receipt::code_fingerprint());
    r.code = "0123456789abcdef.0123456789abcdef".into();
    r.receipt_hash = docforge_db::receipt::canonical_hash(&mut r, |r| &mut r.receipt_hash);
    fs::write(receipt(root), serde_json::to_vec(&r).unwrap()).unwrap();
    assert_eq!(
        claims(root),
        vec![
            "not evaluated the recorded outcomes are of another project, DocForge version or build, or docforge.toml";
            3
        ]
    );
}

/// The outcomes receipt is an input of the render: recording new outcomes after a render makes
/// the view stale; the staged mode (a pre-commit hook) records nothing.
#[test]
fn recording_outcomes_stales_the_rendered_view_and_staged_validation_records_nothing() {
    let dir = shop();
    let root = dir.path();
    claims(root);
    let project = docforge_project::Project::load(root).unwrap();
    let view = project.config.views.iter().find(|v| v.id == "architecture").unwrap();
    assert_eq!(docforge_render::status(&project, view).state.as_str(), "current");
    assert_eq!(run(root, &["validate"]).status.code(), Some(1));
    let st = docforge_render::status(&project, view);
    assert_eq!(
        (st.state.as_str(), st.reason.as_str()),
        ("stale", ".docforge/receipts/claims.v1.json changed since the render")
    );
    claims(root);
    assert_eq!(docforge_render::status(&project, view).state.as_str(), "current");

    fs::remove_file(receipt(root)).unwrap();
    assert!(Command::new("git").args(["init", "-q"]).current_dir(root).status().unwrap().success());
    assert!(Command::new("git").args(["add", "-A"]).current_dir(root).status().unwrap().success());
    assert_eq!(run(root, &["validate", "--staged"]).status.code(), Some(1));
    assert!(!receipt(root).exists(), "the staged content's outcomes are not recorded");
}
