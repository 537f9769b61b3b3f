//! Changesets on a copy of `fixtures/shop`: what each operation projects, what validation
//! finds, the refusals (each writes nothing), conflicts, staleness, rebase and abandon.

use docforge_proposals::{Action, Changeset, Operation, ProposalError, Proposals, Severity, Status};
use docforge_workspace::{Options, Workspace};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

struct Shop {
    _dir: tempfile::TempDir,
    root: PathBuf,
    ws: Workspace,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), target).unwrap();
        }
    }
}

fn shop() -> Shop {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shop");
    copy_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/shop"), &root);
    let ws = Workspace::bind(&root, Options { no_ast: true, watch: false, ..Default::default() }).unwrap();
    Shop { _dir: dir, root, ws }
}

fn op(v: Value) -> Operation {
    Operation::from_json(v).unwrap()
}

impl Shop {
    /// Run `f` on the current published generation, as `writer` (`None`: read-only).
    fn with<R>(&mut self, writer: Option<&str>, f: impl FnOnce(&Proposals<'_>) -> R) -> R {
        let synced = self.ws.ensure_current(true).unwrap();
        let g = synced.generation;
        let p =
            Proposals::of(&self.ws, &g, writer, SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000));
        f(&p)
    }

    fn register(&mut self, ops: Vec<Value>) -> Result<Changeset, ProposalError> {
        self.with(Some("agent-1"), |p| p.register("t", None, ops.into_iter().map(op).collect()))
    }

    /// SHA-256 of every file outside the changeset root and the index files, by path.
    fn tree(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.root.clone()];
        while let Some(d) = stack.pop() {
            for e in std::fs::read_dir(&d).unwrap() {
                let e = e.unwrap();
                let rel = e.path().strip_prefix(&self.root).unwrap().to_string_lossy().into_owned();
                if rel == ".docforge" {
                    continue;
                }
                if e.file_type().unwrap().is_dir() {
                    stack.push(e.path());
                } else {
                    out.insert(rel, hex::encode(Sha256::digest(std::fs::read(e.path()).unwrap())));
                }
            }
        }
        out
    }

    fn changesets(&self) -> Vec<String> {
        match std::fs::read_dir(self.root.join(".docforge/changesets")) {
            Err(_) => vec![],
            Ok(rd) => {
                let mut v: Vec<String> = rd
                    .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                    .filter(|n| n.starts_with("cs-"))
                    .collect();
                v.sort();
                v
            }
        }
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.root.join(rel), text).unwrap();
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }
}

fn after(cs: &Changeset, path: &str) -> String {
    let c = cs.changes.iter().find(|c| c.path == path).unwrap_or_else(|| panic!("no change of {path}"));
    String::from_utf8(c.after_bytes().unwrap()).unwrap()
}

fn codes(cs: &Changeset, severity: Severity) -> Vec<&str> {
    cs.validation.iter().filter(|i| i.severity == severity).map(|i| i.code.as_str()).collect()
}

#[test]
fn register_projects_every_operation_and_writes_only_the_store() {
    let mut s = shop();
    let before = s.tree();
    let cs = s
        .register(vec![
            json!({"op": "node_update", "node_id": "arch.storage", "fields": {"status": "superseded", "tags": ["storage"]}}),
            json!({"op": "relationship_update", "node_id": "guide.getting-started", "add": [{"relation": "depends_on", "target": "arch.storage"}], "remove": [{"relation": "relates_to", "target": "arch.service"}]}),
            json!({"op": "node_update", "node_id": "arch.service#hooks", "body": "Hooks are gone."}),
            json!({"op": "node_create", "node_id": "arch.payments", "path": "docs/arch/payments.md", "kind": "design", "title": "Payments", "body": "Paid via [[arch.service]].", "fields": {"family": "architecture"}, "relations": {"depends_on": ["arch.storage"]}}),
        ])
        .unwrap();
    assert_eq!(cs.status, Status::Ready, "{:#?}", cs.validation);
    assert_eq!(cs.changeset_sha256, cs.compute_hash());
    assert_eq!(cs.operations.len(), 4);
    // Existing-node operations were bound to the node's hash at the base.
    for o in &cs.operations {
        if let Some(h) = o.expected_hash() {
            assert_eq!(h.as_deref().map(str::len), Some(64), "{o:?}");
        }
    }
    let paths: Vec<(&str, Action)> = cs.changes.iter().map(|c| (c.path.as_str(), c.action)).collect();
    assert_eq!(
        paths,
        [
            ("docs/arch/payments.md", Action::Create),
            ("docs/arch/service.md", Action::Modify),
            ("docs/arch/storage.md", Action::Modify),
            ("docs/guide/getting-started.md", Action::Modify),
        ]
    );
    let storage = after(&cs, "docs/arch/storage.md");
    let old = s.read("docs/arch/storage.md");
    assert_eq!(
        storage,
        old.replace("status = \"accepted\"", "status = \"superseded\"")
            .replace("tags = [\"storage\", \"interfaces\"]", "tags = [\"storage\"]")
    );
    let guide = after(&cs, "docs/guide/getting-started.md");
    assert!(guide.contains("[relations]\nrelates_to = [\"arch.storage#implementations\"]\ndepends_on = [\"arch.storage\"]\n+++\n"), "{guide}");
    let service = after(&cs, "docs/arch/service.md");
    assert!(service.contains("## Hooks\n\nHooks are gone.\n\n## Promoted methods\n"), "{service}");
    assert_eq!(
        after(&cs, "docs/arch/payments.md"),
        "+++\nid = \"arch.payments\"\nkind = \"design\"\nfamily = \"architecture\"\n\n[relations]\ndepends_on = [\"arch.storage\"]\n+++\n# Payments\n\nPaid via [[arch.service]].\n"
    );
    // Nothing but the store changed.
    assert_eq!(s.tree(), before);
    assert_eq!(s.changesets(), [cs.changeset_id.as_str()]);
    let stored = s.with(None, |p| p.get(&cs.changeset_id)).unwrap();
    assert_eq!(stored.changeset, cs);
    assert_eq!(stored.status, Status::Ready);
}

#[test]
fn refusals_name_the_problem_and_write_nothing() {
    let mut s = shop();
    let cases: Vec<(Value, &str)> = vec![
        (json!({"op": "node_update", "node_id": "arch.nope", "title": "x"}), "node_not_found"),
        (
            json!({"op": "node_update", "node_id": "arch.storage", "expected_content_hash": "00".repeat(32), "title": "x"}),
            "content_hash_mismatch",
        ),
        (json!({"op": "node_update", "node_id": "arch.storage"}), "invalid_arguments"),
        (
            json!({"op": "node_update", "node_id": "arch.storage#interfaces", "fields": {"status": "x"}}),
            "invalid_arguments",
        ),
        (json!({"op": "node_update", "node_id": "arch.storage", "fields": {"id": "x"}}), "invalid_arguments"),
        (json!({"op": "relationship_update", "node_id": "arch.storage"}), "invalid_arguments"),
        (
            json!({"op": "relationship_update", "node_id": "arch.storage", "add": [], "remove": []}),
            "invalid_arguments",
        ),
        (
            json!({"op": "relationship_update", "node_id": "arch.storage", "add": [{"relation": "bad name", "target": "x"}]}),
            "invalid_arguments",
        ),
        (
            json!({"op": "node_create", "node_id": "arch.storage", "path": "docs/x.md", "title": "X"}),
            "node_exists",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "docs/notes.md", "title": "X"}),
            "node_exists",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "../x.md", "title": "X"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "/tmp/x.md", "title": "X"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "docs/../x.md", "title": "X"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": ".docforge/x.md", "title": "X"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "docs/.hidden/x.md", "title": "X"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "README.md", "title": "X"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "docs/x.txt", "title": "X"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "docs/x.toml", "title": "X"}),
            "invalid_arguments",
        ),
        (
            json!({"op": "node_create", "node_id": "has space", "path": "docs/x.md", "title": "X"}),
            "invalid_arguments",
        ),
        (
            json!({"op": "node_create", "node_id": "n.new", "path": "docs/x.md", "title": "two\nlines"}),
            "invalid_arguments",
        ),
        (json!({"op": "node_move", "node_id": "arch.storage", "new_path": "docs/notes.md"}), "node_exists"),
        (
            json!({"op": "node_move", "node_id": "arch.storage#interfaces", "new_path": "docs/y.md"}),
            "invalid_arguments",
        ),
        (
            json!({"op": "node_move", "node_id": "arch.storage", "new_path": "docs/y.toml"}),
            "path_not_allowed",
        ),
        (
            json!({"op": "node_delete", "node_id": "go:example.com/shop/storage::Repository"}),
            "node_not_found",
        ),
    ];
    let before = s.tree();
    for (o, want) in cases {
        let e = s.register(vec![o.clone()]).unwrap_err();
        assert_eq!(e.code, want, "{o}: {e}");
        assert!(e.details.get("operation").is_some(), "{o}: the refusal names the operation");
    }
    // A symlinked directory on the way is refused too.
    std::os::unix::fs::symlink(s.root.join("docs/arch"), s.root.join("docs/linked")).unwrap();
    let e = s
        .register(vec![
            json!({"op": "node_create", "node_id": "n.l", "path": "docs/linked/x.md", "title": "X"}),
        ])
        .unwrap_err();
    assert_eq!(e.code, "path_not_allowed", "{e}");
    std::fs::remove_file(s.root.join("docs/linked")).unwrap();
    // Unknown fields and ops are refused when the operation is decoded.
    assert!(Operation::from_json(json!({"op": "node_update", "node_id": "a", "titel": "x"}))
        .unwrap_err()
        .contains("titel"));
    assert!(Operation::from_json(json!({"op": "node_rename", "node_id": "a"}))
        .unwrap_err()
        .contains("unknown op"));
    assert_eq!(s.tree(), before);
    assert!(s.changesets().is_empty(), "a refused call stored nothing");
}

#[test]
fn validation_finds_broken_links_unknown_targets_and_bad_front_matter() {
    let mut s = shop();
    // Deleting a document that others link to: a draft naming the linkers.
    let cs = s.register(vec![json!({"op": "node_delete", "node_id": "decision.pointer-receivers"})]).unwrap();
    assert_eq!(cs.status, Status::Draft);
    let broken: Vec<&str> =
        cs.validation.iter().filter(|i| i.code == "broken_link").map(|i| i.message.as_str()).collect();
    assert!(broken.iter().any(|m| m.contains("arch.service#promoted-methods")), "{broken:?}");
    assert_eq!(cs.changes[0].action, Action::Delete);

    // Moving a document keeps its ID (written down when it came from the path); links by
    // path into it break, links by ID do not.
    let cs = s
        .register(vec![
            json!({"op": "node_move", "node_id": "docs/notes", "new_path": "docs/notes-moved.md"}),
        ])
        .unwrap();
    assert!(after(&cs, "docs/notes-moved.md").starts_with("+++\nid = \"docs/notes\"\n+++\n# Notes\n"));
    let broken: Vec<&str> =
        cs.validation.iter().filter(|i| i.code == "broken_link").map(|i| i.message.as_str()).collect();
    assert_eq!(broken.len(), 1, "{broken:?}");
    assert!(
        broken[0].contains("guide.getting-started#further-reading") && broken[0].contains("by path"),
        "{broken:?}"
    );
    let abandon = |s: &mut Shop, cs: &Changeset| {
        s.with(Some("agent-1"), |p| p.abandon(&cs.changeset_id, "test")).unwrap();
    };
    abandon(&mut s, &cs);
    // Into another directory, its own relative links would point elsewhere: reported too.
    let cs = s
        .register(vec![json!({"op": "node_move", "node_id": "docs/notes", "new_path": "docs/misc/notes.md"})])
        .unwrap();
    let broken: Vec<&str> =
        cs.validation.iter().filter(|i| i.code == "broken_link").map(|i| i.message.as_str()).collect();
    assert!(
        broken.iter().any(|m| m.contains("no document at docs/misc/guide/getting-started.md")),
        "{broken:?}"
    );
    let abandon = |s: &mut Shop, cs: &Changeset| {
        s.with(Some("agent-1"), |p| p.abandon(&cs.changeset_id, "test")).unwrap();
    };
    abandon(&mut s, &cs);

    // An update whose body gives the document another ID: an error, not a silent rename.
    let cs = s
        .register(vec![json!({"op": "node_update", "node_id": "docs/notes", "body": "+++\nid = \"brand.new\"\n+++\n# New\n"})])
        .unwrap();
    let changed: Vec<&str> = cs
        .validation
        .iter()
        .filter(|i| i.code == "document_id_changed")
        .map(|i| i.message.as_str())
        .collect();
    assert_eq!(
        changed,
        ["the document's ID would change from \"docs/notes\" to \"brand.new\": links, relations and references to \"docs/notes\" would not follow"],
        "{:?}",
        cs.validation
    );
    assert_eq!(cs.status, docforge_proposals::Status::Draft);
    abandon(&mut s, &cs);

    // A relation to nothing, a link to nothing and a front-matter value of the wrong type.
    let cs = s
        .register(vec![
            json!({"op": "relationship_update", "node_id": "arch.storage", "add": [{"relation": "depends_on", "target": "arch.nothing"}]}),
            json!({"op": "node_update", "node_id": "glossary", "fields": {"tags": "terms"}}),
            json!({"op": "node_create", "node_id": "n.x", "path": "docs/x.md", "title": "X", "body": "See [[n.missing]] and [storage](arch/storage.md#no-such-heading), [[n.y#nope]], [[n.y#spot]] and [y](y.md#user-content-spot)."}),
            json!({"op": "node_create", "node_id": "n.y", "path": "docs/y.md", "title": "Y", "body": "<a id=\"spot\"></a>\n\nHere."}),
        ])
        .unwrap();
    assert_eq!(cs.status, Status::Draft);
    let errors = codes(&cs, Severity::Error);
    assert!(errors.contains(&"unknown_relation_target"), "{errors:?}");
    assert!(errors.contains(&"front_matter_wrong_type"), "{errors:?}");
    // A fragment is checked as the index checks it: a missing heading is its broken_link
    // error, an HTML anchor (or its user-content- name) resolves.
    let broken: Vec<&str> =
        cs.validation.iter().filter(|i| i.code == "broken_link").map(|i| i.message.as_str()).collect();
    assert_eq!(
        broken,
        [
            "link `arch/storage.md#no-such-heading`: document `arch.storage` (docs/arch/storage.md) has no heading `#no-such-heading`",
            "link `n.missing`: no node `n.missing`",
            "link `n.y#nope`: document `n.y` (docs/y.md) has no heading `#nope`",
        ],
        "{:#?}",
        cs.validation
    );
    assert!(!codes(&cs, Severity::Warning).contains(&"unverified_fragment"), "{:#?}", cs.validation);
    // The fresh validation agrees with the stored one.
    let v = s.with(None, |p| p.validate(&cs.changeset_id)).unwrap();
    assert_eq!(v.issues, cs.validation);
    assert_eq!(v.status, Status::Draft);
}

#[test]
fn overlap_with_an_open_changeset_is_a_conflict_until_it_is_abandoned() {
    let mut s = shop();
    let first = s
        .register(vec![json!({"op": "node_update", "node_id": "arch.storage", "title": "Storage"})])
        .unwrap();
    let e = s.register(vec![json!({"op": "relationship_update", "node_id": "arch.storage", "add": [{"relation": "depends_on", "target": "glossary"}]})]).unwrap_err();
    assert_eq!(e.code, "conflict");
    assert_eq!(e.details["conflicting_changeset_id"], json!(first.changeset_id));
    // A section of the same file is the same source.
    let e = s
        .register(vec![json!({"op": "node_update", "node_id": "arch.storage#interfaces", "body": "x"})])
        .unwrap_err();
    assert_eq!(e.code, "conflict", "{e}");
    assert_eq!(s.changesets().len(), 1);
    let a =
        s.with(Some("agent-1"), |p| p.abandon(&first.changeset_id, "superseded by a better idea")).unwrap();
    assert_eq!(a.changeset.status, Status::Abandoned);
    assert_eq!(a.changeset.changeset_sha256, first.changeset_sha256);
    assert_eq!(a.receipt["reason"], "superseded by a better idea");
    assert!(s.root.join(&a.receipt_path).is_file());
    // Abandoned: terminal, out of the default list, out of overlap detection.
    let e = s.with(Some("agent-1"), |p| p.abandon(&first.changeset_id, "again")).unwrap_err();
    assert_eq!(e.code, "changeset_closed");
    let second = s
        .register(vec![json!({"op": "node_update", "node_id": "arch.storage", "title": "Storage"})])
        .unwrap();
    let listed = s.with(None, |p| p.list(None, false)).unwrap();
    assert_eq!(
        listed.iter().map(|c| c.changeset_id.as_str()).collect::<Vec<_>>(),
        [second.changeset_id.as_str()]
    );
    let history = s.with(None, |p| p.list(None, true)).unwrap();
    assert_eq!(history.len(), 2);
    let abandoned = s.with(None, |p| p.list(Some(&[Status::Abandoned]), false)).unwrap();
    assert_eq!(abandoned[0].changeset_id, first.changeset_id);
}

#[test]
fn writer_binding_and_ownership() {
    let mut s = shop();
    let e = s
        .with(None, |p| {
            p.register("t", None, vec![op(json!({"op": "node_update", "node_id": "glossary", "title": "G"}))])
        })
        .unwrap_err();
    assert_eq!(e.code, "proposal_access_disabled");
    let e = s.with(None, |p| p.create("t", None)).unwrap_err();
    assert_eq!(e.code, "proposal_access_disabled");
    let cs = s.with(Some("agent-1"), |p| p.create("empty at first", Some("built step by step"))).unwrap();
    assert_eq!(cs.status, Status::Draft);
    assert_eq!(codes(&cs, Severity::Error), ["empty_changeset"]);
    let e = s
        .with(Some("agent-2"), |p| {
            p.propose(&cs.changeset_id, op(json!({"op": "node_update", "node_id": "glossary", "title": "G"})))
        })
        .unwrap_err();
    assert_eq!(e.code, "changeset_not_owned");
    let (cs2, index) = s
        .with(Some("agent-1"), |p| {
            p.propose(
                &cs.changeset_id,
                op(json!({"op": "node_update", "node_id": "glossary", "title": "Terms"})),
            )
        })
        .unwrap();
    assert_eq!((index, cs2.status), (0, Status::Ready));
    assert_ne!(cs2.changeset_sha256, cs.changeset_sha256);
    assert!(after(&cs2, "docs/glossary.toml").starts_with("id = \"glossary\"\ntitle = \"Terms\"\n"));
    let e = s.with(None, |p| p.get("cs-00000000000000000000")).unwrap_err();
    assert_eq!(e.code, "changeset_not_found");
    let e = s.with(None, |p| p.get("../../etc/passwd")).unwrap_err();
    assert_eq!(e.code, "changeset_not_found");
}

#[test]
fn a_canonical_edit_makes_it_stale_then_rebase_moves_it_or_refuses_to_merge_prose() {
    let mut s = shop();
    let cs = s
        .register(vec![
            json!({"op": "node_update", "node_id": "arch.service#hooks", "body": "Hooks, rewritten."}),
        ])
        .unwrap();
    assert_eq!(cs.status, Status::Ready);
    // Someone edits another section of the same file.
    let text = s.read("docs/arch/service.md");
    s.write("docs/arch/service.md", &format!("{text}\nOne more line about promotion.\n"));
    let now = s.with(None, |p| p.get(&cs.changeset_id)).unwrap();
    assert_eq!(now.status, Status::Stale);
    assert_eq!(now.stale_sources, ["docs/arch/service.md"]);
    let listed = s.with(None, |p| p.list(None, false)).unwrap();
    assert!(listed.is_empty(), "stale changesets are listed on request only");
    let e = s
        .with(Some("agent-1"), |p| {
            p.propose(&cs.changeset_id, op(json!({"op": "node_update", "node_id": "glossary", "title": "G"})))
        })
        .unwrap_err();
    assert_eq!(e.code, "changeset_stale");
    let r = s.with(Some("agent-1"), |p| p.rebase(&cs.changeset_id)).unwrap();
    assert!(r.rebased);
    assert_eq!(r.changeset.status, Status::Ready);
    assert_ne!(r.changeset.changeset_sha256, cs.changeset_sha256);
    assert_ne!(r.changeset.base, cs.base);
    let service = after(&r.changeset, "docs/arch/service.md");
    assert!(
        service.contains("Hooks, rewritten.") && service.ends_with("One more line about promotion.\n"),
        "{service}"
    );
    assert_eq!(s.with(None, |p| p.get(&cs.changeset_id)).unwrap().status, Status::Ready);
    // Now the touched section itself changes: rebase refuses.
    let text = s.read("docs/arch/service.md");
    s.write("docs/arch/service.md", &text.replace("Hooks are plain", "Hooks are simple"));
    let e = s.with(Some("agent-1"), |p| p.rebase(&cs.changeset_id)).unwrap_err();
    assert_eq!(e.code, "rebase_conflict");
    assert_eq!(e.details["node_id"], json!("arch.service#hooks"));
    assert_eq!(s.with(None, |p| p.get(&cs.changeset_id)).unwrap().status, Status::Stale);
}

#[test]
fn two_threads_racing_on_one_node_serialise_and_one_gets_conflict() {
    let s = shop();
    let root = s.root.clone();
    // Publish once, then race two bindings of the same project.
    let mut s = s;
    s.with(None, |_| ());
    let results: Vec<Result<Changeset, ProposalError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|i| {
                let root = root.clone();
                scope.spawn(move || {
                    let mut ws =
                        Workspace::bind(&root, Options { no_ast: true, watch: false, ..Default::default() })
                            .unwrap();
                    let g = ws.ensure_current(false).unwrap().generation;
                    let p = Proposals::of(&ws, &g, Some("agent"), SystemTime::now());
                    p.register(
                        &format!("racer {i}"),
                        None,
                        vec![op(
                            json!({"op": "node_update", "node_id": "glossary", "title": format!("T{i}")}),
                        )],
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let ok = results.iter().filter(|r| r.is_ok()).count();
    let conflicts = results.iter().filter(|r| r.as_ref().is_err_and(|e| e.code == "conflict")).count();
    assert_eq!((ok, conflicts), (1, 1), "{results:?}");
    assert_eq!(s.changesets().len(), 1);
}

#[test]
fn a_preview_renders_one_view_over_the_projected_sources_into_one_file() {
    let mut s = shop();
    let cs = s
        .register(vec![
            json!({"op": "node_update", "node_id": "arch.storage#interfaces", "body": "Interfaces, as proposed."}),
            json!({"op": "node_create", "node_id": "arch.events", "path": "docs/arch/events.md", "title": "Event log", "fields": {"family": "architecture"}, "body": "Replaces [[arch.storage]]."}),
            json!({"op": "node_delete", "node_id": "decision.value-receivers"}),
        ])
        .unwrap();
    let before = s.tree();
    let generation = s.ws.ensure_current(true).unwrap().generation;
    let p = docforge_proposals::preview(
        &mut s.ws,
        &generation,
        &cs.changeset_id,
        "architecture",
        SystemTime::now(),
    )
    .unwrap();
    assert_eq!(p.path, format!(".docforge/previews/{}/architecture.html", cs.changeset_id));
    let html = std::fs::read_to_string(s.root.join(&p.path)).unwrap();
    assert_eq!(docforge_proposals::sha256_hex(html.as_bytes()), p.sha256);
    assert!(html.contains("Interfaces, as proposed."), "the projected section is rendered");
    assert!(html.contains("Event log") && html.contains("Replaces"), "the created document is rendered");
    assert!(html.contains("The changeset deletes this document."));
    assert!(!html.contains("<script"), "no script in a preview");
    let in_view: Vec<(&str, bool)> = p.documents.iter().map(|d| (d.path.as_str(), d.in_view)).collect();
    assert!(
        in_view.contains(&("docs/arch/events.md", true)) && in_view.contains(&("docs/arch/storage.md", true))
    );
    // Nothing else moved: the documents, the view output and the published generation.
    assert_eq!(s.tree(), before);
    let after = s.ws.ensure_current(true).unwrap();
    assert_eq!(after.generation.graph_digest, generation.graph_digest);
    assert_eq!(
        s.read("docs/arch/storage.md"),
        std::fs::read_to_string(s.root.join("docs/arch/storage.md")).unwrap()
    );
    let node = s.ws.index().node_only("arch.events").unwrap();
    assert!(node.is_none(), "the preview's graph was never published to the project");

    for (view, code) in [
        ("nope", "unknown_view"),
        ("html-site@1", "invalid_arguments"),
        ("rm -rf /", "invalid_arguments"),
        ("../x", "invalid_arguments"),
    ] {
        let e =
            docforge_proposals::preview(&mut s.ws, &generation, &cs.changeset_id, view, SystemTime::now())
                .unwrap_err();
        assert_eq!(e.code, code, "{view}: {e}");
    }
}

#[test]
fn moves_deletes_and_renames_are_judged_by_where_the_graph_ends_up() {
    let mut s = shop();
    let abandon = |s: &mut Shop, cs: &Changeset| {
        s.with(Some("agent-1"), |p| p.abandon(&cs.changeset_id, "test")).unwrap();
    };
    // A section of a moved document keeps the hash it had at the base (and its old path).
    let section_hash = s.with(None, |p| {
        let n = p.index.node_only("arch.storage#interfaces").unwrap().unwrap();
        docforge_model::NodeSpan::from_attrs(&n.attrs).unwrap().unwrap().content_sha256_hex()
    });
    let cs = s
        .register(vec![
            json!({"op": "node_move", "node_id": "arch.storage", "new_path": "docs/arch/store.md"}),
            json!({"op": "node_update", "node_id": "arch.storage#interfaces", "expected_content_hash": section_hash, "body": "Moved and edited."}),
        ])
        .unwrap();
    assert_eq!(cs.operations[1].expected_hash(), Some(&Some(section_hash.clone())));
    let t = cs.touched_nodes.iter().find(|t| t.node_id == "arch.storage#interfaces").unwrap();
    assert_eq!(
        (t.path.as_str(), t.before_content_sha256.as_deref()),
        ("docs/arch/storage.md", Some(section_hash.as_str()))
    );
    abandon(&mut s, &cs);

    // Deleting a document and creating its ID elsewhere is a move: links by path break.
    let cs = s
        .register(vec![
            json!({"op": "node_delete", "node_id": "arch.storage"}),
            json!({"op": "node_create", "node_id": "arch.storage", "path": "docs/arch/storage2.md", "title": "Storage"}),
        ])
        .unwrap();
    assert_eq!(cs.status, Status::Draft);
    assert!(
        cs.validation
            .iter()
            .any(|i| i.code == "broken_link" && i.message.contains("docs/arch/storage.md by path")),
        "{:#?}",
        cs.validation
    );
    abandon(&mut s, &cs);

    // A moved document still linking to a section the changeset deletes.
    let cs = s
        .register(vec![
            json!({"op": "node_move", "node_id": "arch.service", "new_path": "docs/arch/svc.md"}),
            json!({"op": "node_delete", "node_id": "guide.getting-started#wiring-a-hook"}),
        ])
        .unwrap();
    assert!(
        cs.validation.iter().any(|i| i.code == "broken_link" && i.message.contains("wiring-a-hook")),
        "{:#?}",
        cs.validation
    );
    abandon(&mut s, &cs);

    // A heading renamed onto a later one's text takes its ID: links to that ID would move.
    let cs = s
        .register(vec![json!({"op": "node_update", "node_id": "guide.getting-started#getting-started", "title": "Wiring a hook"})])
        .unwrap();
    let reassigned: Vec<_> = cs.validation.iter().filter(|i| i.code == "section_id_reassigned").collect();
    assert_eq!(reassigned.len(), 1, "{:#?}", cs.validation);
    assert_eq!(reassigned[0].severity, Severity::Error, "arch.service links to the ID");
    abandon(&mut s, &cs);

    // An operation that changes nothing is said, and a changeset that changes nothing is no ready one.
    let cs =
        s.register(vec![json!({"op": "node_update", "node_id": "glossary", "title": "Glossary"})]).unwrap();
    assert_eq!(cs.status, Status::Draft);
    assert!(codes(&cs, Severity::Warning).contains(&"no_effect"), "{:#?}", cs.validation);
    assert!(codes(&cs, Severity::Error).contains(&"no_changes"));
}

#[test]
fn rebase_refuses_when_the_same_operations_no_longer_validate_and_leaves_a_current_one_alone() {
    let mut s = shop();
    let cs = s
        .register(vec![json!({"op": "node_update", "node_id": "arch.service#hooks", "body": "See [[decision.value-receivers]]."})])
        .unwrap();
    assert_eq!(cs.status, Status::Ready, "{:#?}", cs.validation);
    // Not stale: nothing to do, nothing written.
    let r = s.with(Some("agent-1"), |p| p.rebase(&cs.changeset_id)).unwrap();
    assert!(!r.rebased && r.changeset.changeset_sha256 == cs.changeset_sha256);
    // The linked decision disappears and another section of the touched file changes.
    std::fs::remove_file(s.root.join("docs/decisions/value-receivers.md")).unwrap();
    let text = s.read("docs/arch/service.md");
    s.write("docs/arch/service.md", &format!("{text}\nAnother line.\n"));
    let e = s.with(Some("agent-1"), |p| p.rebase(&cs.changeset_id)).unwrap_err();
    assert_eq!(e.code, "rebase_conflict", "{e}");
    assert_eq!(e.details["issue"]["code"], "broken_link");
    let stored = s.with(None, |p| p.get(&cs.changeset_id)).unwrap();
    assert_eq!((stored.status, &stored.changeset.changeset_sha256), (Status::Stale, &cs.changeset_sha256));
}

const APPLICATION: &str =
    "\n[application]\napplier = \"markdown-toml@1\"\nwriter = \"docs-applier\"\ncontent_roots = [\"docs\"]\n";

fn with_application(s: &mut Shop, section: &str) {
    let cfg = s.read("docforge.toml");
    s.write("docforge.toml", &format!("{cfg}{section}"));
    s.ws = Workspace::bind(&s.root, Options { no_ast: true, watch: false, ..Default::default() }).unwrap();
}

fn apply(
    s: &mut Shop,
    writer: &str,
    id: &str,
    sha: &str,
) -> Result<docforge_proposals::apply::Applied, ProposalError> {
    docforge_proposals::apply::apply(
        &mut s.ws,
        &docforge_proposals::apply::MarkdownToml,
        writer,
        id,
        sha,
        SystemTime::now(),
    )
}

#[test]
fn application_writes_exactly_the_projection_records_it_and_refreshes_the_index() {
    let mut s = shop();
    with_application(&mut s, APPLICATION);
    let cs = s
        .register(vec![
            json!({"op": "node_update", "node_id": "arch.storage", "fields": {"status": "superseded"}}),
            json!({"op": "node_create", "node_id": "arch.events", "path": "docs/arch/events.md", "title": "Event log", "fields": {"family": "architecture"}}),
            json!({"op": "node_move", "node_id": "decision.value-receivers", "new_path": "docs/decisions/values.md"}),
            json!({"op": "relationship_update", "node_id": "glossary", "add": [{"relation": "relates_to", "target": "arch.events"}]}),
        ])
        .unwrap();
    assert_eq!(cs.status, Status::Ready, "{:#?}", cs.validation);
    let before = s.tree();
    for (writer, sha, code) in [
        ("docs-applier", "00".repeat(32), "changeset_hash_mismatch"),
        ("someone-else", cs.changeset_sha256.clone(), "applier_mismatch"),
    ] {
        let e = apply(&mut s, writer, &cs.changeset_id, &sha).unwrap_err();
        assert_eq!(e.code, code, "{e}");
        assert_eq!(s.tree(), before, "a refused application writes nothing");
    }
    let applied = apply(&mut s, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap();
    assert_eq!(applied.refresh.state, "ok", "{:?}", applied.refresh);
    // Every changed file holds exactly the projected bytes; every other file is as it was.
    let mut expected = before.clone();
    for c in &cs.changes {
        match c.after_bytes() {
            Some(b) => {
                assert_eq!(std::fs::read(s.root.join(&c.path)).unwrap(), b, "{}", c.path);
                expected.insert(c.path.clone(), docforge_proposals::sha256_hex(&b));
            }
            None => {
                assert!(!s.root.join(&c.path).exists(), "{}", c.path);
                expected.remove(&c.path);
            }
        }
    }
    let after = s.tree();
    let site: Vec<&String> = after.keys().filter(|k| k.starts_with("site/")).collect();
    assert!(site.is_empty(), "no view was rendered before, so none is refreshed: {site:?}");
    assert_eq!(after, expected);
    // Recorded, and the index shows the new documents.
    let got = s.with(None, |p| p.get(&cs.changeset_id)).unwrap();
    assert_eq!(got.status, Status::Applied);
    assert_eq!(got.changeset.events.last().unwrap().event, "applied");
    assert!(s.root.join(&applied.receipt_path).is_file());
    assert_eq!(applied.receipt["changeset_sha256"], json!(cs.changeset_sha256));
    assert!(s.ws.index().node_only("arch.events").unwrap().is_some());
    // Applied is terminal: a second application is refused with the receipt.
    let e = apply(&mut s, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap_err();
    assert_eq!(e.code, "changeset_already_applied");
    assert_eq!(e.details["receipt"]["changeset_id"], json!(cs.changeset_id));
}

#[test]
fn application_refuses_what_it_cannot_vouch_for() {
    let mut s = shop();
    // No declaration.
    let cs = s.register(vec![json!({"op": "node_update", "node_id": "glossary", "title": "Terms"})]).unwrap();
    let e = apply(&mut s, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap_err();
    assert_eq!(e.code, "canonical_applier_required");
    // Another applier declared.
    with_application(&mut s, &APPLICATION.replace("markdown-toml@1", "other@1"));
    let e = apply(&mut s, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap_err();
    assert_eq!(e.code, "applier_mismatch");
    // A content root that does not hold the file.
    let mut t = shop();
    with_application(&mut t, &APPLICATION.replace("[\"docs\"]", "[\"docs/arch\"]"));
    let cs = t.register(vec![json!({"op": "node_update", "node_id": "glossary", "title": "Terms"})]).unwrap();
    let before = t.tree();
    let e = apply(&mut t, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap_err();
    assert_eq!(e.code, "path_not_allowed");
    assert_eq!(t.tree(), before);
    // A canonical edit between review and application.
    let mut u = shop();
    with_application(&mut u, APPLICATION);
    let cs = u
        .register(vec![json!({"op": "node_update", "node_id": "arch.service#hooks", "body": "New."})])
        .unwrap();
    let text = u.read("docs/arch/service.md");
    u.write("docs/arch/service.md", &format!("{text}\nEdited meanwhile.\n"));
    let e = apply(&mut u, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap_err();
    assert_eq!(e.code, "changeset_stale");
    assert!(u.read("docs/arch/service.md").ends_with("Edited meanwhile.\n"));
    // A proposal writer the declaration does not list.
    let mut v = shop();
    with_application(&mut v, &format!("{APPLICATION}proposal_writers = [\"reviewed-agent\"]\n"));
    let cs = v.register(vec![json!({"op": "node_update", "node_id": "glossary", "title": "Terms"})]).unwrap();
    let e = apply(&mut v, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap_err();
    assert_eq!(e.code, "proposal_writer_not_allowed", "{e}");
    // A draft.
    let cs = u.register(vec![json!({"op": "node_delete", "node_id": "decision.pointer-receivers"})]).unwrap();
    assert_eq!(cs.status, Status::Draft);
    let e = apply(&mut u, "docs-applier", &cs.changeset_id, &cs.changeset_sha256).unwrap_err();
    assert_eq!(e.code, "changeset_not_ready");
}
