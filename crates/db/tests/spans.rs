//! Byte spans and content hashes through the engine and the index, on real documents: every
//! document, section and TOML node of the repository's fixtures and handbook, and of the
//! READMEs and changelogs found on this machine, sliced by its recorded span, hashes to its
//! recorded `content_sha256`, and its parts tile what they should; an edit moves the spans of
//! its own document only.

mod support;

use docforge_db::{AnalysisHost, AstPolicy};
use docforge_model::{ByteSpan, Node, NodeSpan};
use docforge_project::FileKind;
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use support::{edit, executed, host, owners, small_project, write};

const BOM: &[u8] = b"\xef\xbb\xbf";

/// A project in a temporary directory whose documents are `files` (project-relative path →
/// the source file to copy, byte for byte) under `src/`.
fn project_of(files: &[(String, PathBuf)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let config = "schema_version = 1\n\n[project]\nid = \"spans\"\n\n[sources]\n\
                  docs = [\"src/**/*.md\", \"src/**/*.markdown\", \"src/**/*.toml\"]\ngo = []\n";
    write(dir.path(), "docforge.toml", config.as_bytes());
    for (rel, from) in files {
        write(dir.path(), &format!("src/{rel}"), &fs::read(from).unwrap());
    }
    dir
}

fn span_of(node: &Node) -> NodeSpan {
    NodeSpan::from_attrs(&node.attrs)
        .unwrap_or_else(|e| panic!("{}: {e}", node.id))
        .unwrap_or_else(|| panic!("{} has no span", node.id))
}

/// The 1-based line `offset` is on.
fn line_of(file: &[u8], offset: usize) -> u32 {
    1 + file[..offset].iter().filter(|b| **b == b'\n').count() as u32
}

/// `parts` follow each other without gap or overlap from `start` to `end`.
fn tiles(what: &str, start: usize, parts: &[ByteSpan], end: usize) {
    let mut at = start;
    for p in parts {
        assert_eq!(p.start, at, "{what}: a part starts at {} instead of {at}: {parts:?}", p.start);
        at = p.end;
    }
    assert_eq!(at, end, "{what}: the parts end at {at} instead of {end}: {parts:?}");
}

#[derive(Debug, Default)]
struct Checked {
    documents: usize,
    sections: usize,
    toml_nodes: usize,
}

/// Index `root` with the engine, publish it, and check every document, section and TOML node
/// against the bytes of its file.
fn round_trip(root: &Path) -> Checked {
    let mut h: AnalysisHost = host(root, AstPolicy::Allow);
    let g = h.analysis().graph().unwrap();
    let idx = tempfile::tempdir().unwrap();
    let mut index = docforge_index::Index::open(&idx.path().join("i.sqlite")).unwrap();
    h.publish(&mut index).unwrap();

    let file_sha: HashMap<&str, &String> =
        g.nodes().filter_map(|n| Some((n.id.strip_prefix("file:")?, n.attrs.get("sha256")?))).collect();
    let mut ids: HashMap<&str, usize> = HashMap::new();
    for n in g.nodes() {
        *ids.entry(n.id.as_str()).or_default() += 1;
    }
    let mut checked = Checked::default();
    for owner in g.owners().filter(|o| o.key.starts_with("doc:")) {
        let rel = &owner.key["doc:".len()..];
        let file = fs::read(root.join(rel)).unwrap();
        let nodes = &owner.fragment.nodes;
        let spans: BTreeMap<&str, NodeSpan> = nodes.iter().map(|n| (n.id.as_str(), span_of(n))).collect();
        for node in nodes {
            let what = format!("{rel}: {} ({})", node.id, node.kind);
            let span = &spans[node.id.as_str()];
            // The recorded hash is of exactly the bytes the recorded span slices out.
            let bytes =
                span.span.slice(&file).unwrap_or_else(|| panic!("{what}: {} past the end", span.span));
            assert_eq!(<[u8; 32]>::from(Sha256::digest(bytes)), span.content_sha256, "{what}");
            // What the index serves is what the engine derived.
            if ids[node.id.as_str()] == 1 {
                let record = index.node(&node.id).unwrap().unwrap_or_else(|| panic!("{what}: not indexed"));
                assert_eq!(record.node.attrs, node.attrs, "{what}");
            }
            match node.kind.as_str() {
                "document" | "toml_node" => {
                    assert_eq!(span.span, ByteSpan::new(0, file.len()), "{what}: the whole file");
                    assert_eq!(&span.content_sha256_hex(), file_sha[rel], "{what}: the file node's digest");
                    assert_eq!(span.heading, None, "{what}");
                    if node.kind == "toml_node" {
                        assert_eq!((span.front_matter, span.body), (None, None), "{what}");
                        checked.toml_nodes += 1;
                        continue;
                    }
                    // Front matter and body tile the file after a BOM.
                    let bom = if file.starts_with(BOM) { BOM.len() } else { 0 };
                    let body = span.body.unwrap_or_else(|| panic!("{what}: no body"));
                    let parts: Vec<ByteSpan> = span.front_matter.into_iter().chain([body]).collect();
                    tiles(&what, bom, &parts, file.len());
                    if let Some(fm) = span.front_matter {
                        assert!(file[fm.range()].starts_with(b"+++"), "{what}: front matter at {fm}");
                    }
                    checked.documents += 1;
                }
                "section" => {
                    let (heading, body) = (span.heading.unwrap(), span.body.unwrap());
                    assert!(!heading.is_empty(), "{what}");
                    let location = node.location.as_ref().unwrap();
                    assert_eq!(
                        line_of(&file, heading.start),
                        location.line,
                        "{what}: starts on its heading's line"
                    );
                    assert!(
                        heading.end == file.len() || matches!(file[heading.end - 1], b'\n' | b'\r'),
                        "{what}: the heading's lines end with their line ending"
                    );
                    // Heading, body and subsections tile the section.
                    let children: Vec<ByteSpan> = owner
                        .fragment
                        .edges
                        .iter()
                        .filter(|e| e.relation == "contains" && e.source == node.id)
                        .map(|e| spans[e.target.as_str()].span)
                        .collect();
                    let parts: Vec<ByteSpan> = [heading, body].into_iter().chain(children).collect();
                    tiles(&what, span.span.start, &parts, span.span.end);
                    checked.sections += 1;
                }
                other => panic!("{what}: unexpected kind {other}"),
            }
        }
        // The top-level sections follow each other to the end of the file.
        let doc = &nodes[0];
        let top: Vec<ByteSpan> = owner
            .fragment
            .edges
            .iter()
            .filter(|e| e.relation == "contains" && e.source == doc.id)
            .map(|e| spans[e.target.as_str()].span)
            .collect();
        if let Some(first) = top.first() {
            tiles(&format!("{rel}: top-level sections"), first.start, &top, file.len());
        }
    }
    checked
}

fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Document files under `dir` (recursively), as (path relative to `base`, path).
fn documents_under(base: &Path, dir: &Path, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap();
        if path.is_dir() {
            documents_under(base, &path, out);
        } else if name != "docforge.toml" && [".md", ".markdown", ".toml"].iter().any(|e| name.ends_with(e)) {
            out.push((path.strip_prefix(base).unwrap().to_str().unwrap().to_string(), path));
        }
    }
}

#[test]
fn every_document_of_the_fixtures_and_the_handbook_matches_its_bytes() {
    let repo = repository();
    let mut files = Vec::new();
    for dir in ["fixtures", "docs"] {
        documents_under(&repo, &repo.join(dir), &mut files);
    }
    // Project files are left out (nested projects would take their documents away).
    assert!(files.len() >= 25, "{files:?}");
    let project = project_of(&files);
    let checked = round_trip(project.path());
    println!("checked {} files of fixtures/ and docs/: {checked:?}", files.len());
    assert_eq!(
        checked.documents + checked.toml_nodes,
        files.len(),
        "every file is a node that was checked: {checked:?}"
    );
    assert!(checked.sections > 100 && checked.toml_nodes > 0, "{checked:?}");
}

/// Up to `limit` READMEs and changelogs of crate sources (`$CARGO_HOME/registry/src`) and Go
/// modules (the module cache), in a stable order.
fn readmes_on_this_machine(limit: usize) -> Vec<(String, PathBuf)> {
    let home = std::env::var_os("HOME");
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| Path::new(h).join(".cargo")));
    let modcache = docforge_db::find_module_cache(
        std::env::var_os("GOMODCACHE").as_deref(),
        std::env::var_os("GOPATH").as_deref(),
        home.as_deref(),
    );
    let names = ["README.md", "README.markdown", "CHANGELOG.md"];
    let mut packages: Vec<(&str, PathBuf)> = Vec::new();
    // Crate sources: registry/src/<registry>/<crate>-<version>/.
    if let Some(src) = cargo_home.map(|c| c.join("registry/src")) {
        for registry in sorted_dirs(&src) {
            packages.extend(sorted_dirs(&registry).into_iter().map(|d| ("cargo", d)));
        }
    }
    // Go modules: <module path>@<version>/ under the cache, outside its `cache/` download area.
    if let Some(cache) = modcache {
        let mut pending = vec![(cache.clone(), 0)];
        while let Some((dir, depth)) = pending.pop() {
            for d in sorted_dirs(&dir) {
                let name = d.file_name().unwrap().to_string_lossy().into_owned();
                if name.contains('@') {
                    packages.push(("go", d));
                } else if depth < 4 && !(depth == 0 && name == "cache") {
                    pending.push((d, depth + 1));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (i, (origin, dir)) in packages.iter().enumerate() {
        for name in names {
            let path = dir.join(name);
            if out.len() < limit && path.is_file() {
                out.push((format!("{origin}/{i}/{name}"), path));
            }
        }
    }
    out
}

fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = match fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()).collect(),
        Err(_) => return Vec::new(),
    };
    dirs.sort();
    dirs
}

#[test]
fn readmes_and_changelogs_found_on_this_machine_match_their_bytes() {
    let files = readmes_on_this_machine(300);
    if files.is_empty() {
        println!(
            "SKIPPED: no crate or Go module READMEs or changelogs on this machine (looked in $CARGO_HOME/registry/src and the Go module cache)"
        );
        return;
    }
    let project = project_of(&files);
    let checked = round_trip(project.path());
    println!("checked {} READMEs and changelogs: {checked:?}", files.len());
    assert_eq!(checked.documents, files.len(), "every file is a document that was checked: {checked:?}");
    assert!(checked.sections >= files.len(), "READMEs have headings: {checked:?}");
}

#[test]
fn a_document_that_cannot_be_read_has_no_span_and_one_that_is_not_utf8_has_its_bytes() {
    use docforge_db::{Change, Content, FileChange};
    use docforge_project::FileKind;
    let dir = support::small_project();
    let bad = b"# Caf\xe9\n\ntext\n\n## Next \xff\n";
    write(dir.path(), "docs/latin1.md", bad);
    let mut h = host(dir.path(), AstPolicy::Allow);
    let unreadable = Content::Unreadable { code: "read_failed".into(), message: "cannot read".into() };
    let files =
        vec![FileChange::Set { rel: "docs/gone.md".into(), kind: FileKind::Markdown, content: unreadable }];
    h.apply_change(Change { files, ..Default::default() });
    let g = h.analysis().graph().unwrap();
    let node = |id: &str| g.nodes().find(|n| n.id == id).unwrap_or_else(|| panic!("no node {id}")).clone();
    // Its bytes are unknown: still a node, but no span or hash is made up for it.
    let gone = node("docs/gone");
    assert_eq!(NodeSpan::from_attrs(&gone.attrs), Ok(None), "{:?}", gone.attrs);
    // Not UTF-8: spans are offsets into the bytes on disk, hashes of those bytes.
    let doc = span_of(&node("docs/latin1"));
    assert_eq!(doc.span, ByteSpan::new(0, bad.len()));
    assert_eq!(doc.content_sha256, <[u8; 32]>::from(Sha256::digest(bad)));
    let next = span_of(&node("docs/latin1#next-"));
    let at = bad.windows(2).position(|w| w == b"##").unwrap();
    assert_eq!(next.span, ByteSpan::new(at, bad.len()));
    assert_eq!(next.content_sha256, <[u8; 32]>::from(Sha256::digest(&bad[at..])));
}

#[test]
fn an_edit_inside_one_section_moves_later_spans_of_that_document_only() {
    // Spans are not part of what other documents read (the document's index entry): an edit
    // in a section changes its hash and moves the sections after it, and re-projects that
    // document alone.
    let dir = small_project();
    let r = dir.path();
    let text = "# Z\n\none\n\n## Two\n\ntwo\n\n## Three\n\nthree, see [y](y.md)\n";
    write(r, "docs/z.md", text.as_bytes());
    let mut h = host(r, AstPolicy::Allow);
    let spans = |h: &AnalysisHost| -> BTreeMap<String, NodeSpan> {
        let g = h.analysis().graph().unwrap();
        g.nodes().filter_map(|n| Some((n.id.clone(), NodeSpan::from_attrs(&n.attrs).unwrap()?))).collect()
    };
    let before = spans(&h);
    let mut edited = String::new();
    // The first edit of a file as loaded from disk, then the next.
    for (round, words) in ["two, edited", "two, edited again"].into_iter().enumerate() {
        edited = text.replace("two\n", &format!("{words}\n"));
        h.execution_log().enable(true);
        edit(&mut h, "docs/z.md", FileKind::Markdown, edited.as_bytes());
        let after = spans(&h);
        let log = executed(&h);
        assert_eq!(log.iter().filter(|e| e.starts_with("doc_facts(")).count(), 1, "round {round}: {log:#?}");
        assert_eq!(
            log.iter().filter(|e| e.starts_with("doc_fragment(")).count(),
            1,
            "round {round}: {log:#?}"
        );
        assert!(!log.iter().any(|e| e.starts_with("doc_index(")), "round {round}: {log:#?}");
        // Other documents: the same spans and hashes.
        let elsewhere = |m: &BTreeMap<String, NodeSpan>| {
            m.iter()
                .filter(|(id, _)| !id.starts_with("docs/z"))
                .map(|(id, s)| (id.clone(), s.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(elsewhere(&after), elsewhere(&before), "round {round}");
        assert!(elsewhere(&after).len() >= 3, "x, x#x, docs/y, docs/y#y: {:?}", elsewhere(&after));
        // This document: the edited section and those holding it changed, the next moved.
        let shift = edited.len() - text.len();
        for id in ["docs/z", "docs/z#z", "docs/z#two"] {
            assert_ne!(after[id].content_sha256, before[id].content_sha256, "round {round}: {id}");
        }
        let (three, was) = (&after["docs/z#three"], &before["docs/z#three"]);
        assert_eq!(three.span.start, was.span.start + shift, "round {round}");
        assert_eq!(three.content_sha256, was.content_sha256, "round {round}: same bytes, same hash");
        for (id, s) in after.iter().filter(|(id, _)| id.starts_with("docs/z")) {
            let bytes = &edited.as_bytes()[s.span.range()];
            assert_eq!(s.content_sha256, <[u8; 32]>::from(Sha256::digest(bytes)), "round {round}: {id}");
        }
    }
    // The same as a fresh analysis of the edited file.
    write(r, "docs/z.md", edited.as_bytes());
    let fresh = host(r, AstPolicy::Allow);
    assert_eq!(owners(&h), owners(&fresh));
}
