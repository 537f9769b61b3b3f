//! Delta publication: same end state as a full publish, fail-closed on a foreign generation.

mod common;

use common::{
    batch, doc_owner, docs, file, hang_halfway, kill_child_mid_publish, node, owner, owner_rowids, CHILD_ENV,
};
use docforge_index::{graph_digest, Batch, Delta, Index, IndexError, PublishReport, Stats};
use docforge_model::{Edge, Fragment};
use std::collections::BTreeMap;
use std::path::Path;

/// What the engine would send: the difference between the batch it last published and the
/// one it would publish now.
fn delta_between(base_generation: u64, old: &Batch, new: &Batch) -> Delta {
    let old_owners: BTreeMap<&str, [u8; 32]> =
        old.owners.iter().map(|o| (o.key.as_str(), o.digest)).collect();
    let new_keys: Vec<&str> = new.owners.iter().map(|o| o.key.as_str()).collect();
    let old_files: BTreeMap<&str, _> = old.files.iter().map(|f| (f.path.as_str(), f)).collect();
    let new_paths: Vec<&str> = new.files.iter().map(|f| f.path.as_str()).collect();
    Delta {
        base_generation,
        upsert_owners: new
            .owners
            .iter()
            .filter(|o| old_owners.get(o.key.as_str()) != Some(&o.digest))
            .cloned()
            .collect(),
        remove_owners: old_owners.keys().filter(|k| !new_keys.contains(k)).map(|k| k.to_string()).collect(),
        upsert_files: new
            .files
            .iter()
            .filter(|f| old_files.get(f.path.as_str()) != Some(f))
            .cloned()
            .collect(),
        remove_files: old_files.keys().filter(|p| !new_paths.contains(p)).map(|p| p.to_string()).collect(),
        source_fingerprint: new.source_fingerprint.clone(),
        meta: new.meta.clone(),
    }
}

/// A Go-like owner with edges into the documents, so node records cross owners.
fn go_owner(salt: &str) -> docforge_index::Owner {
    let svc = node("go:example.com/shop::Service", "struct", "Service", &format!("the service {salt}"));
    let edges = vec![
        Edge::new("go:example.com/shop::Service", "supersedes", "doc.d0"),
        Edge::new("go:example.com/shop::Service", "references", "doc.d3#s1"),
    ];
    let logic = vec![docforge_model::LogicRow {
        node: "go:example.com/shop::Service".into(),
        steps: 3,
        json: format!("{{\"salt\":{salt:?}}}"),
    }];
    owner("pkg:example.com/shop", Fragment { nodes: vec![svc], edges, logic, ..Default::default() })
}

/// Successive end states: edits, removals, additions, file-only, meta-only and
/// fingerprint-only changes, an owner removed and re-added with other content.
fn states() -> Vec<Batch> {
    let mut owners = docs(12, 3);
    owners.push(go_owner(""));
    let s0 = batch(owners.clone(), "fp0");

    owners[3] = doc_owner("d3", 5, "edited");
    owners.remove(5); // d5
    owners.push(doc_owner("d20", 2, "new"));
    let mut s1 = batch(owners.clone(), "fp1");
    s1.files[0].sha256 = "e".repeat(64);
    s1.files.push(file("go/service.go", "go"));

    let mut s2 = s1.clone();
    s2.meta.insert("precision".into(), "precise".into());
    s2.meta.remove("project_id");
    s2.source_fingerprint = "fp2".into();

    let mut s3 = s2.clone();
    s3.files.retain(|f| f.path != "docs/d1.md");
    s3.source_fingerprint = "fp3".into();

    let mut s4 = s3.clone();
    s4.owners.retain(|o| o.key != "file:docs/d7.md" && o.key != "file:docs/d8.md");
    s4.owners.push(doc_owner("d5", 1, "back"));
    let last = s4.owners.len() - 1;
    s4.owners[last - 1] = doc_owner("d20", 0, "shrunk");
    s4.owners.retain(|o| o.key != "pkg:example.com/shop");
    s4.owners.push(go_owner("v2"));
    s4.source_fingerprint = "fp4".into();
    vec![s0, s1, s2, s3, s4]
}

/// Everything a reader can observe, minus the publish time.
fn observe(index: &Index, state: &Batch) -> String {
    let mut stats: Stats = index.stats().unwrap();
    stats.meta.remove("published_at").expect("published_at is set");
    let p = index.publication().unwrap().unwrap();
    assert_eq!(p.graph_digest, graph_digest(&state.owners), "graph digest over all owners");
    let mut out = format!("{stats:#?}\n{}\n{}\n", p.generation, p.graph_digest);
    let mut ids: Vec<String> =
        state.owners.iter().flat_map(|o| o.fragment.nodes.iter().map(|n| n.id.clone())).collect();
    ids.extend(["doc.d5".to_string(), "doc.d7#s0".to_string(), "nope".to_string()]);
    for id in ids {
        out += &format!("{:#?}\n{:#?}\n", index.node(&id).unwrap(), index.logic(&id).unwrap());
    }
    for q in ["section", "about d3", "edited", "service", "back", "Document", "shrunk"] {
        out += &format!("{q}: {:#?}\n", index.search(q, 50).unwrap());
    }
    out += &format!(
        "{:#?}\n{:#?}\n{:#?}\n",
        index.files().unwrap(),
        index.diagnostics().unwrap(),
        index.last_transition().unwrap()
    );
    out
}

/// The counts a full publish and a delta both report (owners_unchanged differs by design).
fn counts(r: &PublishReport) -> [usize; 6] {
    [
        r.generation as usize,
        r.owners_written,
        r.owners_deleted,
        r.rows_written,
        r.files_written,
        r.files_deleted,
    ]
}

#[test]
fn deltas_publish_the_same_generations_as_full_publishes() {
    let dir = tempfile::tempdir().unwrap();
    let mut full = Index::open(&dir.path().join("full.sqlite")).unwrap();
    let mut inc = Index::open(&dir.path().join("delta.sqlite")).unwrap();
    let states = states();
    full.publish(states[0].clone()).unwrap();
    let mut generation = inc.publish(states[0].clone()).unwrap().generation;
    assert_eq!(observe(&full, &states[0]), observe(&inc, &states[0]));

    for (step, pair) in states.windows(2).enumerate() {
        let want = full.publish(pair[1].clone()).unwrap();
        let delta = delta_between(generation, &pair[0], &pair[1]);
        let touched = delta.upsert_owners.len();
        let got = inc.publish_delta(delta).unwrap();
        assert_eq!(counts(&got), counts(&want), "step {step}: {got:?} vs {want:?}");
        assert_eq!(got.owners_unchanged, 0, "step {step}: only changed owners were sent");
        assert_eq!(got.owners_written, touched, "step {step}");
        assert_eq!(got.generation, generation + 1, "step {step}: every state is a transition");
        generation = got.generation;
        let (a, b) = (observe(&full, &pair[1]), observe(&inc, &pair[1]));
        assert!(a == b, "step {step} differs:\n--- full\n{a}\n--- delta\n{b}");
        inc.integrity_check().unwrap();
    }
    // Sanity: the comparison covered real content.
    let end = observe(&inc, &states[4]);
    assert!(end.contains("about d5 back") && end.contains("the service v2") && !end.contains("doc.d7#s0\""));
    let stats = inc.stats().unwrap();
    assert_eq!((stats.generation, stats.meta["previous_source_fingerprint"].as_str()), (5, "fp3"));
}

#[test]
fn a_delta_on_another_generation_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path).unwrap();
    let s0 = batch(docs(4, 1), "fp0");
    index.publish(s0.clone()).unwrap();
    // Another writer publishes generation 2 meanwhile.
    let s1 = batch(docs(5, 1), "fp1");
    Index::open(&path).unwrap().publish(s1.clone()).unwrap();
    let before = observe(&index, &s1);
    let published = index.publication().unwrap().unwrap();
    let bytes = |suffix: &str| std::fs::read(format!("{}{suffix}", path.display())).unwrap_or_default();
    let files_before = (bytes(""), bytes("-wal"));

    let mut s2 = s0.clone();
    s2.owners[0] = doc_owner("d0", 3, "edited");
    for base in [1, 3, 0] {
        let err = index.publish_delta(delta_between(base, &s0, &s2)).unwrap_err();
        match &err {
            IndexError::GenerationMismatch { expected, found, .. } => {
                assert_eq!((*expected, *found), (base, 2))
            }
            other => panic!("base {base}: {other:?}"),
        }
        assert!(err.to_string().contains("publish the full batch"), "{err}");
    }
    assert_eq!(index.publication().unwrap().unwrap(), published);
    assert_eq!(observe(&index, &s1), before);
    assert_eq!((bytes(""), bytes("-wal")), files_before, "not a byte was written");

    // Based on the right generation, the same change goes through.
    let mut s3 = s1.clone();
    s3.owners[0] = doc_owner("d0", 3, "edited");
    let report = index.publish_delta(delta_between(2, &s1, &s3)).unwrap();
    assert_eq!((report.generation, report.owners_written, report.rows_written), (3, 1, 4 + 4 + 1));
}

#[test]
fn a_delta_without_changes_keeps_the_generation_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path).unwrap();
    let s0 = batch(docs(6, 2), "fp0");
    index.publish(s0.clone()).unwrap();
    let published = index.publication().unwrap().unwrap();
    let transition = index.last_transition().unwrap();
    let rows = owner_rowids(&path, "file:docs/d2.md");

    // Upserts equal to what is stored, removals of things that are not stored.
    let delta = Delta {
        base_generation: 1,
        upsert_owners: s0.owners[1..4].to_vec(),
        remove_owners: vec!["file:docs/never.md".into()],
        upsert_files: s0.files[..2].to_vec(),
        remove_files: vec!["never.md".into()],
        source_fingerprint: "fp0".into(),
        meta: s0.meta.clone(),
    };
    let report = index.publish_delta(delta.clone()).unwrap();
    assert!(report.is_noop(), "{report:?}");
    assert_eq!((report.generation, report.owners_unchanged), (1, 3));
    assert_eq!(index.publication().unwrap().unwrap(), published, "published_at unchanged too");
    assert_eq!(index.last_transition().unwrap(), transition);
    assert_eq!(owner_rowids(&path, "file:docs/d2.md"), rows);

    // The fingerprint or the meta alone make a new generation, like a full publish.
    let fingerprint = Delta { source_fingerprint: "fp1".into(), ..delta.clone() };
    let report = index.publish_delta(fingerprint).unwrap();
    assert_eq!((report.generation, report.owners_unchanged, report.owners_written), (2, 3, 0));
    assert!(index.last_transition().unwrap().is_empty(), "no owner changed in generation 2");
    let mut meta = Delta { base_generation: 2, source_fingerprint: "fp1".into(), ..delta };
    meta.meta.insert("precision".into(), "precise".into());
    assert_eq!(index.publish_delta(meta).unwrap().generation, 3);
    let p = index.publication().unwrap().unwrap();
    assert_eq!((p.graph_digest, p.source_fingerprint.as_str()), (published.graph_digest, "fp1"));
    assert_eq!(index.stats().unwrap().meta["precision"], "precise");
}

#[test]
fn removed_owners_and_files_leave_rows_fts_and_inventory() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path).unwrap();
    // One large owner (~3k rows) among small ones.
    // (first, so its fresh rows cannot reuse the rids it had at the end of the tables).
    let mut owners = vec![doc_owner("big", 1500, "")];
    owners.extend(docs(5, 2));
    let s0 = batch(owners, "fp0");
    index.publish(s0.clone()).unwrap();
    let kept = owner_rowids(&path, "file:docs/d0.md");
    let old_big = owner_rowids(&path, "file:docs/big.md");
    assert_eq!(old_big.len(), 1501 + 1501 + 1);
    let removed_digest = hex::encode(s0.owners[3].digest);

    let delta = Delta {
        base_generation: 1,
        upsert_owners: vec![doc_owner("big", 1000, "rewritten")],
        remove_owners: vec!["file:docs/d2.md".into(), "file:docs/absent.md".into()],
        upsert_files: vec![],
        remove_files: vec!["docs/d2.md".into(), "docs/absent.md".into()],
        source_fingerprint: "fp1".into(),
        meta: s0.meta.clone(),
    };
    let report = index.publish_delta(delta).unwrap();
    assert_eq!(
        report,
        PublishReport {
            generation: 2,
            owners_written: 1,
            owners_deleted: 1,
            rows_written: 1001 + 1001 + 1,
            files_deleted: 1,
            ..Default::default()
        }
    );
    assert!(index.node("doc.d2").unwrap().is_none());
    assert!(index.search("d2", 10).unwrap().is_empty(), "FTS forgot the removed owner");
    assert_eq!(index.search("rewritten", 2000).unwrap().len(), 1001);
    assert!(index.node("doc.big#s1200").unwrap().is_none(), "rows beyond the new fragment are gone");
    assert_eq!(owner_rowids(&path, "file:docs/d0.md"), kept, "untouched owner keeps its rows");
    let new_big = owner_rowids(&path, "file:docs/big.md");
    assert_eq!(new_big.len(), 2003);
    assert!(new_big.iter().all(|r| !old_big.contains(r)), "replaced owner got fresh rows");
    let paths: Vec<String> = index.files().unwrap().into_iter().map(|f| f.path).collect();
    assert_eq!(paths, ["docs/big.md", "docs/d0.md", "docs/d1.md", "docs/d3.md", "docs/d4.md"]);
    let stats = index.stats().unwrap();
    assert_eq!(
        (stats.owners, stats.nodes, stats.edges, stats.diagnostics_by_severity["warning"]),
        (5, 4 * 3 + 1001, 4 * 3 + 1001, 5)
    );
    let transition: Vec<(String, String, Option<String>)> =
        index.last_transition().unwrap().into_iter().map(|c| (c.key, c.change, c.old_digest)).collect();
    assert_eq!(transition[0].1, "changed");
    assert_eq!(transition[1], ("file:docs/d2.md".into(), "removed".into(), Some(removed_digest)));
    index.integrity_check().unwrap();
}

#[test]
fn invalid_deltas_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("i.sqlite");
    let mut index = Index::open(&path).unwrap();
    index.publish(batch(docs(2, 1), "fp")).unwrap();
    let base = Delta { base_generation: 1, source_fingerprint: "fp2".into(), ..Default::default() };
    let cases = [
        (
            "owner `file:docs/d0.md` appears twice",
            Delta { upsert_owners: vec![doc_owner("d0", 1, "a"), doc_owner("d0", 2, "b")], ..base.clone() },
        ),
        (
            "owner `file:docs/d1.md` appears twice",
            Delta {
                upsert_owners: vec![doc_owner("d1", 1, "a")],
                remove_owners: vec!["file:docs/d1.md".into()],
                ..base.clone()
            },
        ),
        (
            "file `docs/d0.md` appears twice",
            Delta {
                upsert_files: vec![file("docs/d0.md", "markdown")],
                remove_files: vec!["docs/d0.md".into()],
                ..base.clone()
            },
        ),
        (
            "meta key `graph_digest` is reserved",
            Delta { meta: [("graph_digest".to_string(), "x".to_string())].into(), ..base.clone() },
        ),
    ];
    for (want, delta) in cases {
        let err = index.publish_delta(delta).unwrap_err();
        assert!(matches!(err, IndexError::InvalidBatch { .. }) && err.to_string().contains(want), "{err}");
        assert_eq!(index.publication().unwrap().unwrap().generation, 1);
    }
    let err = Index::open_read_only(&path).unwrap().publish_delta(base).unwrap_err();
    assert!(err.to_string().contains("read-only"), "{err}");
}

#[test]
fn a_delta_failing_midway_leaves_the_previous_generation() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let s0 = batch(docs(10, 2), "fp0");
    index.publish(s0.clone()).unwrap();
    let before = observe(&index, &s0);
    let mut s1 = batch((0..8).map(|i| doc_owner(&format!("d{i}"), 3, "edited")).collect(), "fp1");
    s1.files.pop();
    index.set_publish_hook(Some(Box::new(
        |p| if p.owners_written == 4 { Err("stop".into()) } else { Ok(()) },
    )));
    let err = index.publish_delta(delta_between(1, &s0, &s1)).unwrap_err();
    assert!(matches!(err, IndexError::Aborted { ref reason, .. } if reason == "stop"), "{err:?}");
    assert_eq!(observe(&index, &s0), before);
    index.integrity_check().unwrap();
    index.set_publish_hook(None);
    let report = index.publish_delta(delta_between(1, &s0, &s1)).unwrap();
    assert_eq!(
        (report.generation, report.owners_written, report.owners_deleted, report.files_deleted),
        (2, 8, 2, 3)
    );
}

/// Run by the kill test in a child process: start a delta and hang inside it.
#[test]
#[ignore = "child process of kill9_during_a_delta_leaves_the_previous_generation"]
fn child_delta_then_hang() {
    let Ok(path) = std::env::var(CHILD_ENV) else { return };
    let path = Path::new(&path);
    let mut index = Index::open(path).unwrap();
    index.set_publish_hook(Some(hang_halfway(path)));
    // ~12k rows (below the bulk threshold): the row-by-row path with FTS deletes and inserts.
    let upsert_owners = (0..120).map(|i| doc_owner(&format!("d{i}"), 50, "edited")).collect();
    let delta = Delta {
        base_generation: 1,
        upsert_owners,
        source_fingerprint: "fp-child".into(),
        ..Default::default()
    };
    index.publish_delta(delta).unwrap();
    panic!("the child should have been killed while paused");
}

#[test]
fn kill9_during_a_delta_leaves_the_previous_generation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let s0 = batch(docs(150, 3), "fp0");
    Index::open(&path).unwrap().publish(s0.clone()).unwrap();
    let before = observe(&Index::open(&path).unwrap(), &s0);

    let rows_in_flight = kill_child_mid_publish("child_delta_then_hang", &path);
    assert!(rows_in_flight > 5_000, "child wrote {rows_in_flight} rows before the kill");

    let mut index = Index::open(&path).unwrap();
    index.integrity_check().unwrap();
    assert_eq!(observe(&index, &s0), before);
    assert!(index.search("edited", 10).unwrap().is_empty());
    let report = index
        .publish_delta(Delta { base_generation: 1, source_fingerprint: "fp1".into(), ..Default::default() })
        .unwrap();
    assert_eq!(report.generation, 2);
}
