//! Incremental publication, no-op publishes, identity and the read API.

mod common;

use common::{batch, doc_owner, docs, file, owner, owner_rowids};
use docforge_index::{graph_digest, Index, IndexError, PublishReport};
use docforge_model::{Edge, Fragment, Location, RelationClass, Severity};

#[test]
fn republishing_one_changed_owner_rewrites_only_its_rows() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path).unwrap();
    let mut owners = docs(10, 4);
    let first = index.publish(batch(owners.clone(), "fp1")).unwrap();
    assert_eq!(
        first,
        PublishReport {
            generation: 1,
            owners_written: 10,
            rows_written: 10 * (5 + 5 + 1),
            files_written: 10,
            ..Default::default()
        }
    );
    let before_other = owner_rowids(&path, "file:docs/d3.md");
    let before_changed = owner_rowids(&path, "file:docs/d7.md");
    assert_eq!(before_other.len(), 11);

    owners[7] = doc_owner("d7", 2, "edited");
    let second = index.publish(batch(owners.clone(), "fp2")).unwrap();
    assert_eq!(
        second,
        PublishReport {
            generation: 2,
            owners_written: 1,
            owners_unchanged: 9,
            rows_written: 3 + 3 + 1,
            ..Default::default()
        }
    );
    assert_eq!(owner_rowids(&path, "file:docs/d3.md"), before_other, "untouched owner keeps its rows");
    let after_changed = owner_rowids(&path, "file:docs/d7.md");
    assert_eq!(after_changed.len(), 7, "{before_changed:?} -> {after_changed:?}");
    assert!(after_changed.iter().all(|r| !before_changed.contains(r)), "changed owner got fresh rows");

    let stats = index.stats().unwrap();
    assert_eq!((stats.generation, stats.owners, stats.nodes, stats.edges), (2, 10, 9 * 5 + 3, 9 * 5 + 3));
    assert!(index.node("doc.d7#s3").unwrap().is_none(), "dropped section is gone");
    assert_eq!(index.node("doc.d7").unwrap().unwrap().node.text, "about d7 edited");
}

#[test]
fn a_publish_without_changes_writes_nothing_and_keeps_the_generation() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path).unwrap();
    let owners = docs(5, 2);
    index.publish(batch(owners.clone(), "fp")).unwrap();
    let publication = index.publication().unwrap().unwrap();
    let rows = owner_rowids(&path, "file:docs/d0.md");

    let report = index.publish(batch(owners.clone(), "fp")).unwrap();
    assert!(report.is_noop(), "{report:?}");
    assert_eq!((report.generation, report.owners_unchanged), (1, 5));
    assert_eq!(index.publication().unwrap().unwrap(), publication, "published_at unchanged too");
    assert_eq!(owner_rowids(&path, "file:docs/d0.md"), rows);

    // Each kind of change alone is a new generation.
    let mut changed_meta = batch(owners.clone(), "fp");
    changed_meta.meta.insert("precision".into(), "precise".into());
    let mut changed_file = batch(owners.clone(), "fp");
    changed_file.files[0].sha256 = "f".repeat(64);
    let cases = [
        ("fingerprint", batch(owners.clone(), "fp-new"), 2),
        ("meta", changed_meta, 3),
        ("file", changed_file, 4),
        ("owner removed", batch(owners[1..].to_vec(), "fp-new"), 5),
    ];
    for (name, b, generation) in cases {
        let report = index.publish(b).unwrap();
        assert_eq!(report.generation, generation, "{name}: {report:?}");
    }
    let stats = index.stats().unwrap();
    assert_eq!(stats.meta["precision"], "ast");
    assert_eq!(stats.meta["previous_generation"], "4");
    assert_eq!(stats.meta["source_fingerprint"], "fp-new");
}

#[test]
fn vanished_owners_and_files_are_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    index.publish(batch(docs(4, 1), "fp")).unwrap();
    let report = index.publish(batch(docs(2, 1), "fp2")).unwrap();
    assert_eq!((report.owners_deleted, report.owners_unchanged, report.files_deleted), (2, 2, 2));
    assert!(index.node("doc.d3").unwrap().is_none());
    assert!(index.search("d3", 10).unwrap().is_empty(), "FTS forgot the deleted owner");
    let paths: Vec<String> = index.files().unwrap().into_iter().map(|f| f.path).collect();
    assert_eq!(paths, ["docs/d0.md", "docs/d1.md"]);
    assert_eq!(index.diagnostics().unwrap().len(), 2);
}

#[test]
fn invalid_batches_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    index.publish(batch(docs(2, 1), "fp")).unwrap();
    let mut dup_owner = batch(docs(2, 1), "fp2");
    dup_owner.owners.push(doc_owner("d0", 3, "other"));
    let mut dup_file = batch(docs(2, 1), "fp2");
    dup_file.files.push(file("docs/d0.md", "markdown"));
    let mut reserved = batch(docs(2, 1), "fp2");
    reserved.meta.insert("generation".into(), "99".into());
    let cases = [
        ("owner `file:docs/d0.md` appears twice", dup_owner),
        ("file `docs/d0.md` appears twice", dup_file),
        ("meta key `generation` is reserved", reserved),
    ];
    for (want, b) in cases {
        let err = index.publish(b).unwrap_err();
        assert!(matches!(err, IndexError::InvalidBatch { .. }), "{err:?}");
        assert!(err.to_string().contains(want), "{err}");
        let p = index.publication().unwrap().unwrap();
        assert_eq!((p.generation, p.source_fingerprint.as_str()), (1, "fp"));
    }
}

#[test]
fn publication_identity_reads_back_consistently() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("index.sqlite");
    let mut index = Index::open(&path).unwrap();
    let owners = docs(3, 1);
    index.publish(batch(owners.clone(), "abc123")).unwrap();
    let p = index.publication().unwrap().unwrap();
    assert_eq!(p.path, std::fs::canonicalize(&path).unwrap());
    assert_eq!(
        (p.generation, p.schema_version, p.source_fingerprint.as_str()),
        (1, docforge_index::SCHEMA_VERSION, "abc123")
    );
    assert_eq!(p.graph_digest, graph_digest(&owners));
    assert_eq!(p.graph_digest.len(), 64);
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let md = std::fs::metadata(&path).unwrap();
        assert_eq!((p.dev, p.inode), (md.dev(), md.ino()));
    }
    // RFC 3339 UTC with milliseconds: 2025-01-31T12:00:00.123Z
    let b = p.published_at.as_bytes();
    assert_eq!(b.len(), 24, "{}", p.published_at);
    assert_eq!((b[4], b[10], b[19], b[23]), (b'-', b'T', b'.', b'Z'), "{}", p.published_at);
    // Another connection (read-only) sees the same identity.
    assert_eq!(Index::open_read_only(&path).unwrap().publication().unwrap().unwrap(), p);
    // Owner order does not change the graph digest.
    let mut reversed = owners.clone();
    reversed.reverse();
    assert_eq!(graph_digest(&reversed), p.graph_digest);
}

#[test]
fn node_record_has_edges_both_ways_with_classes_and_diagnostics() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let mut svc = common::node("go:example.com/shop::Service", "struct", "Service", "the service");
    svc.attrs.insert("test".into(), "false".into());
    svc.location = Some(Location::new("service.go", 10, 6));
    let go = owner(
        "pkg:example.com/shop",
        Fragment {
            nodes: vec![svc.clone()],
            edges: vec![Edge::new("go:example.com/shop::Service", "supersedes", "doc.d0")
                .with_attr("classification", "resolved_static")],
            diagnostics: vec![],
            logic: vec![docforge_model::LogicRow {
                node: "go:example.com/shop::Service".into(),
                steps: 2,
                json: r#"{"steps":[]}"#.into(),
            }],
        },
    );
    let mut owners = docs(1, 1);
    owners.push(go);
    index.publish(batch(owners, "fp")).unwrap();

    let rec = index.node("go:example.com/shop::Service").unwrap().unwrap();
    assert_eq!(rec.node, svc);
    assert_eq!(rec.owner, "pkg:example.com/shop");
    assert_eq!(rec.outgoing.len(), 1);
    assert_eq!(
        (rec.outgoing[0].class, rec.outgoing[0].other.as_str()),
        (RelationClass::Unclassified, "doc.d0")
    );
    let attrs: Vec<(&str, &str)> =
        rec.outgoing[0].attrs.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    assert_eq!(attrs, [("classification", "resolved_static")], "edge attributes round-trip");
    assert_eq!(rec.incoming.len(), 1);
    assert!(rec.incoming[0].attrs.is_empty());
    let logic = index.logic("go:example.com/shop::Service").unwrap().expect("stored beside the graph");
    assert_eq!(
        (logic.steps, logic.json.as_str(), logic.owner.as_str()),
        (2, r#"{"steps":[]}"#, "pkg:example.com/shop")
    );
    assert_eq!(index.logic("doc.d0").unwrap(), None);
    assert_eq!(index.stats().unwrap().logic, 1);
    // Logic is never searchable: the JSON body is not in the FTS index.
    assert!(index.search("steps", 10).unwrap().is_empty());
    let inc = &rec.incoming[0];
    assert_eq!(
        (inc.relation.as_str(), inc.class, inc.other.as_str()),
        ("governs", RelationClass::Evidence, "doc.d0")
    );
    assert_eq!(inc.owner, "file:docs/d0.md");

    let doc = index.node("doc.d0").unwrap().unwrap();
    let out: Vec<(&str, &str)> =
        doc.outgoing.iter().map(|e| (e.relation.as_str(), e.target.as_str())).collect();
    assert_eq!(out, [("contains", "doc.d0#s0"), ("governs", "go:example.com/shop::Service")]);
    assert_eq!(doc.outgoing[0].location, Some(Location::new("docs/d0.md", 2, 1)));
    assert_eq!(doc.outgoing[1].location, None);
    assert_eq!(doc.diagnostics.len(), 1);
    assert_eq!(
        (doc.diagnostics[0].severity, doc.diagnostics[0].code.as_str()),
        (Severity::Warning, "broken_link")
    );
    assert!(index.node("nope").unwrap().is_none());

    let stats = index.stats().unwrap();
    assert_eq!(stats.edges_by_relation["governs"], 1);
    assert_eq!(stats.edges_by_class[RelationClass::Evidence.as_str()], 1);
    assert_eq!(stats.edges_by_class["unclassified"], 1);
    assert_eq!(stats.nodes_by_kind["struct"], 1);
    assert_eq!(stats.files_by_kind["markdown"], 1);
    assert_eq!(stats.files_by_status["indexed"], 1);
    assert_eq!(stats.diagnostics_by_severity["warning"], 1);
    assert_eq!(stats.meta["project_id"], "shop");
}

#[test]
fn the_latest_transition_lists_added_changed_and_removed_owners() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    assert!(index.last_transition().unwrap().is_empty());
    let mut owners = docs(3, 1);
    index.publish(batch(owners.clone(), "fp1")).unwrap();
    assert_eq!(index.last_transition().unwrap().len(), 3);

    let old = hex::encode(owners[1].digest);
    let removed = hex::encode(owners[2].digest);
    owners[1] = doc_owner("d1", 2, "edited");
    owners[2] = doc_owner("d9", 1, "");
    index.publish(batch(owners.clone(), "fp2")).unwrap();
    let got: Vec<(String, String, Option<String>, Option<String>)> = index
        .last_transition()
        .unwrap()
        .into_iter()
        .map(|c| (c.key, c.change, c.old_digest, c.new_digest))
        .collect();
    let want = vec![
        (
            "file:docs/d1.md".to_string(),
            "changed".to_string(),
            Some(old),
            Some(hex::encode(owners[1].digest)),
        ),
        ("file:docs/d2.md".to_string(), "removed".to_string(), Some(removed), None),
        ("file:docs/d9.md".to_string(), "added".to_string(), None, Some(hex::encode(owners[2].digest))),
    ];
    assert_eq!(got, want);

    // A no-op publish keeps the transition that produced the current generation.
    assert!(index.publish(batch(owners, "fp2")).unwrap().is_noop());
    assert_eq!(index.last_transition().unwrap().len(), 3);
}

/// The reads a renderer makes of documents: every node of some node kinds in one scan (an ID
/// two owners declare read as `node` reads it, from the lexically first owner), and the
/// references within a document — its own and its sections', tree edges and the edges of
/// other IDs that merely share its prefix left out.
#[test]
fn nodes_of_kinds_and_references_within_a_document() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let mut owners = docs(2, 2);
    // `doc.d1` is declared again by a later owner key, and `doc.d1!x` shares its prefix.
    let again = common::node("doc.d1", "document", "Declared again", "");
    let mut near = common::node("doc.d1!x", "document", "Near", "");
    near.attrs.insert("span.heading".into(), "3..9".into());
    near.attrs.insert("other".into(), "x".into());
    near.attrs.insert("sp\"an".into(), "quoted \"key\"".into());
    let edges = vec![
        Edge::new("doc.d0#s1", "refines", "doc.d1#s0").at(Location::new("docs/d0.md", 5, 3)),
        Edge::new("doc.d1!x", "refines", "doc.d1"),
        Edge::new("doc.d0", "refines", "doc.d1!x"),
    ];
    owners.push(owner("file:docs/z.md", Fragment { nodes: vec![again, near], edges, ..Default::default() }));
    index.publish(batch(owners.clone(), "fp")).unwrap();
    // Republished, `doc.d1`'s first owner now has the later rows.
    owners[1] = doc_owner("d1", 2, "edited");
    index.publish(batch(owners, "fp2")).unwrap();

    let nodes = index.nodes_of_kinds(&["document", "section"]).unwrap();
    let listed: Vec<(&str, &str)> = nodes.iter().map(|n| (n.id.as_str(), n.title.as_str())).collect();
    assert_eq!(
        listed,
        [
            ("doc.d0", "Document d0"),
            ("doc.d0#s0", "Section 0 of d0"),
            ("doc.d0#s1", "Section 1 of d0"),
            ("doc.d1", "Document d1"),
            ("doc.d1!x", "Near"),
            ("doc.d1#s0", "Section 0 of d1"),
            ("doc.d1#s1", "Section 1 of d1"),
        ]
    );
    assert_eq!(index.node("doc.d1").unwrap().unwrap().node.title, "Document d1", "as `node` reads it");
    assert!(index.nodes_of_kinds(&["struct"]).unwrap().is_empty());
    // Briefly: the values of some attributes, `None` where a node has none.
    let briefs =
        index.node_briefs("document", &["span.heading", "absent", "sp\"an", "span.heading"]).unwrap();
    let near = briefs.iter().find(|n| n.id == "doc.d1!x").unwrap();
    assert_eq!((near.title.as_str(), near.line), ("Near", Some(3)));
    let heading = Some("3..9".to_string());
    assert_eq!(near.values, [heading.clone(), None, Some("quoted \"key\"".to_string()), heading]);
    let d1 = briefs.iter().find(|n| n.id == "doc.d1").unwrap();
    assert_eq!(
        (d1.title.as_str(), &d1.values),
        ("Document d1", &vec![None, None, None, None]),
        "as `node` reads it"
    );
    assert_eq!(briefs.len(), 3);

    let edge = |e: &docforge_index::EdgeRecord| format!("{} {} {}", e.source, e.relation, e.target);
    let d1 = index.references_within("doc.d1").unwrap();
    assert_eq!(
        d1.outgoing.iter().map(edge).collect::<Vec<_>>(),
        ["doc.d1 governs go:example.com/shop::Service"]
    );
    assert_eq!(
        d1.incoming.iter().map(edge).collect::<Vec<_>>(),
        ["doc.d0#s1 refines doc.d1#s0", "doc.d1!x refines doc.d1"]
    );
    assert_eq!(d1.diagnostics.len(), 1);
    let d0 = index.references_within("doc.d0").unwrap();
    assert_eq!(
        d0.outgoing.iter().map(edge).collect::<Vec<_>>(),
        [
            "doc.d0 governs go:example.com/shop::Service",
            "doc.d0 refines doc.d1!x",
            "doc.d0#s1 refines doc.d1#s0"
        ]
    );
    assert!(index.references_within("nope").unwrap().outgoing.is_empty());
    // Several at once (each once) are each what it alone is; `doc.d1!x`'s are its own.
    let each = index.references_within_each(&["doc.d1", "doc.d0", "doc.d1!x", "doc.d1", "nope"]).unwrap();
    assert_eq!(each.keys().collect::<Vec<_>>(), ["doc.d0", "doc.d1", "doc.d1!x", "nope"]);
    for (id, refs) in &each {
        assert_eq!(refs, &index.references_within(id).unwrap(), "{id}");
    }
    assert_eq!(each["doc.d1!x"].outgoing.iter().map(edge).collect::<Vec<_>>(), ["doc.d1!x refines doc.d1"]);
    assert_eq!(each["doc.d1!x"].incoming.iter().map(edge).collect::<Vec<_>>(), ["doc.d0 refines doc.d1!x"]);
}
