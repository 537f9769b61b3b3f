//! Lexical search: user text is data, ranking, and FTS staying in sync through publishes.

mod common;

use common::{batch, doc_owner, docs, node, owner};
use docforge_index::{Batch, Index};
use docforge_model::Fragment;

fn search_fixture() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let nodes = vec![
        node("n.quoted", "section", "Quoting", r#"he said "quoted" words"#),
        node("n.foo", "section", "Foo", "foo alone"),
        node("n.foobar", "section", "Foobar", "foobar only"),
        node("n.colon", "section", "Colon", "the pair a:b appears here"),
        node("hid.secret", "section", "Hidden", "nothing to see"),
        node("n.not", "section", "Negation", "do NOT panic"),
        node("n.dash", "section", "Dash", "flag -x enables it"),
        node("n.umlaut", "section", "Größe", "Ünïcödé text"),
        node("n.cjk", "section", "東京タワー", "tall"),
        node("n.title", "section", "rotation", "unrelated words"),
        node("n.text", "section", "Other", "token rotation happens in the text"),
    ];
    let frag = Fragment { nodes, ..Default::default() };
    index.publish(batch(vec![owner("file:docs/s.md", frag)], "fp")).unwrap();
    (dir, index)
}

#[test]
fn user_text_is_never_fts_syntax() {
    let (_dir, index) = search_fixture();
    let cases: &[(&str, &[&str])] = &[
        ("", &[]),
        ("   ", &[]),
        (r#""quoted""#, &["n.quoted"]),
        (r#"said "quoted"#, &["n.quoted"]),
        ("foo*", &["n.foo"]),
        ("a:b", &["n.colon"]),
        // Words, never column filters, operators or prefixes: `secret` is a word of the ID,
        // `nothing` of a text (no title holds it; `title` is a word of an ID), `and` a stop
        // word; the last word is also
        // a prefix (`not` → `nothing`, `foo` → `foobar`, `bar` after `foo` → `foobar`).
        ("id:secret", &["hid.secret"]),
        ("title:nothing", &["hid.secret", "n.title"]),
        ("NOT", &["n.not", "hid.secret"]),
        ("do NOT panic", &["n.not"]),
        ("NOT panic", &["n.not"]),
        ("-x", &["n.dash"]),
        ("flag AND", &["n.dash"]),
        ("OR", &[]),
        ("NEAR(foo bar)", &["n.foo", "n.foobar"]),
        ("( ) * ^ + - : \" '", &[]),
        ("^foo", &["n.foo", "n.foobar"]),
        ("{id title}: foo", &["n.foo", "n.foobar", "n.title"]),
        ("größe", &["n.umlaut"]),
        ("unicode", &["n.umlaut"]),
        ("東京タワー", &["n.cjk"]),
        ("🦀", &[]),
        ("foo\0bar", &["n.foo", "n.foobar"]),
        ("'; DROP TABLE nodes; --", &[]),
    ];
    let mut wrong = Vec::new();
    for (query, want) in cases {
        let hits = index.search(query, 10).unwrap_or_else(|e| panic!("{query:?}: {e}"));
        let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
        if ids != *want {
            wrong.push(format!("{query:?}: got {ids:?}, want {want:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(index.stats().unwrap().nodes, 11, "nothing was dropped");
}

#[test]
fn title_matches_rank_above_text_matches_and_limit_applies() {
    let (_dir, index) = search_fixture();
    let hits = index.search("rotation", 10).unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["n.title", "n.text"]);
    assert!(hits[0].rank < hits[1].rank, "{hits:?}");
    assert_eq!(hits[0].kind, "section");
    assert_eq!(hits[0].location.as_ref().unwrap().path, "docs/a.md");
    assert_eq!(index.search("rotation", 1).unwrap().len(), 1);
    assert!(index.search("rotation", 0).unwrap().is_empty());
}

/// What agents and people type, against nodes as the engine writes them (a section's whole
/// text, a Go symbol's declaration and doc comment).
#[test]
fn search_finds_what_people_ask() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let mut long = "Routing basics. ".repeat(4000);
    long.push_str("The very last word is zanzibar.");
    let mut nodes = vec![
        node(
            "guide#middleware",
            "section",
            "Middleware",
            "Use adds a middleware to the router; every route runs it.",
        ),
        node("guide#routes", "section", "Routes", "Define handlers with Get and Post."),
        node("guide#rendering", "section", "Templates", "The engine renders templates to HTML."),
        node("guide#long", "section", "Long", &long),
        node("guide#code", "section", "Example", "Call it like this:\nfunc wireUpQuux() {}"),
        node(
            "go:net/http::(*Server).ServeHTTP",
            "method",
            "ServeHTTP",
            "func (*Server) ServeHTTP(w ResponseWriter, r *Request)\n\nServeHTTP answers one request.",
        ),
        node("go:net/http::Serve", "func", "Serve", "func Serve(l Listener, h Handler) error"),
        node(
            "go:bank::(*Ledger).Commit",
            "method",
            "Commit",
            "func (*Ledger) Commit(tx Tx) error\n\nCommit applies tx unless the account is frozen.",
        ),
        node("go:bank::snake_case_name", "var", "snake_case_name", "var snake_case_name int"),
        node("serve", "document", "Serve notes", "notes"),
    ];
    for i in 0..6 {
        nodes.push(node(
            &format!("go:log::Caller{i}"),
            "func",
            &format!("Caller{i}"),
            &format!("func Caller{i}()"),
        ));
    }
    // A section found by its document's title, which its own text does not repeat.
    nodes.push(node("z1", "document", "Zebra server", "Intro."));
    let mut modes = node("z1#modes", "section", "Modes", "Read or propose.");
    modes.attrs.insert("document".into(), "z1".into());
    nodes.push(modes);
    index.publish(batch(vec![owner("file:all", Fragment { nodes, ..Default::default() })], "fp")).unwrap();
    let cases: &[(&str, &str)] = &[
        // Terms joined by OR, ranked by how much of the question a node answers.
        ("how do I add middleware to a route", "guide#middleware"),
        // Identifier parts and stems.
        ("serve http", "go:net/http::(*Server).ServeHTTP"),
        ("rendering", "guide#rendering"),
        ("change how Commit handles frozen accounts", "go:bank::(*Ledger).Commit"),
        ("snake case", "go:bank::snake_case_name"),
        // The last word is a prefix too.
        ("Caller", "go:log::Caller0"),
        // Whole text: the last word of a long section, a word of a code block.
        ("zanzibar", "guide#long"),
        ("wireUpQuux", "guide#code"),
        ("zebra server modes", "z1#modes"),
        // An exact ID first, whatever its rank.
        ("serve", "serve"),
    ];
    let mut wrong = Vec::new();
    for (query, want) in cases {
        let hits = index.search(query, 5).unwrap();
        if hits.first().map(|h| h.id.as_str()) != Some(*want) {
            wrong.push(format!(
                "{query:?}: got {:?}, want {want} first",
                hits.iter().map(|h| &h.id).collect::<Vec<_>>()
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let serve = index.search("serve", 10).unwrap();
    assert!(serve[0].exact_id && serve.iter().skip(1).all(|h| !h.exact_id), "{serve:?}");
    assert!(
        serve.iter().any(|h| h.id == "go:net/http::(*Server).ServeHTTP"),
        "Serve finds ServeHTTP: {serve:?}"
    );
    assert_eq!(index.search("Caller", 10).unwrap().len(), 6, "Caller finds Caller0…Caller5");
}

/// On an index of 10,000 nodes or more, a word in more than 5% of them is left out of a
/// query with other words (it ranks nearly nothing and costs ranking most of the index),
/// unless the other words find nothing. Read through a read-only connection, as
/// the fronts read (the query's words are stemmed in a temporary table).
#[test]
fn very_common_words_are_left_out_of_a_large_index_unless_nothing_else_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("i.sqlite");
    let mut index = Index::open(&path).unwrap();
    let mut nodes: Vec<_> = (0..12_000)
        .map(|i| {
            node(&format!("n{i:05}"), "func", &format!("F{i}"), &format!("func F{i} typing common words"))
        })
        .collect();
    nodes.push(node("rare", "section", "Rare", "the zanzibar typing guide"));
    nodes.push(node("rare2", "section", "Other", "zanzibar again"));
    index.publish(batch(vec![owner("file:big", Fragment { nodes, ..Default::default() })], "fp")).unwrap();
    let reader = Index::open_read_only(&path).unwrap();
    // `typing` (stemmed `type`) is in every node: left out, so `zanzibar` decides alone and
    // the shorter text ranks first.
    let hits = reader.search("zanzibar typing", 2).unwrap();
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["rare2", "rare"], "the two nodes with the rare word");
    assert_eq!(reader.search("zanzibar typing", 10).unwrap().len(), 2);
    // Nothing without it: the common word is searched after all.
    let hits = reader.search("zzqx typing", 10).unwrap();
    assert_eq!(hits.len(), 10, "{hits:?}");
    // Its snippets show it too.
    for s in reader.snippets("zzqx typing", &hits).unwrap() {
        assert!(s.contains("typing"), "{s}");
    }
    let rare = reader.search("zanzibar typing", 2).unwrap();
    assert_eq!(
        reader.snippets("zanzibar typing", &rare).unwrap(),
        ["zanzibar again", "the zanzibar typing guide"]
    );
    // Alone, a common word is searched.
    assert_eq!(reader.search("typing", 5).unwrap().len(), 5);
}

/// Pages of a query whose hits tie on rank neither repeat nor skip a hit: a longer list
/// starts with the shorter one.
#[test]
fn tied_hits_page_without_repeats_or_gaps() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    // Inserted in the reverse of their ID order; all rank the same.
    let nodes = (0..200).rev().map(|i| node(&format!("t{i:03}"), "const", "Same", "same words")).collect();
    index.publish(batch(vec![owner("file:t", Fragment { nodes, ..Default::default() })], "fp")).unwrap();
    let all = ids_paged(&index, "same", 200, [1, 20, 33, 100, 199]);
    assert_eq!(all.len(), 200);
}

/// The IDs `query` finds (at most `limit`), after checking that each shorter list of `limits`
/// is their start.
fn ids_paged(
    index: &Index,
    query: &str,
    limit: usize,
    limits: impl IntoIterator<Item = usize>,
) -> Vec<String> {
    let ids =
        |n: usize| -> Vec<String> { index.search(query, n).unwrap().into_iter().map(|h| h.id).collect() };
    let all = ids(limit);
    for n in limits {
        assert_eq!(ids(n), all[..n.min(all.len())], "{query:?}, limit {n}");
    }
    all
}

/// What a question about a module looks for is its API and documentation: with the same
/// words, an exported Go symbol ranks above an unexported one (or a method of an unexported
/// type), and above a test's symbol; an example is documentation and is not ranked lower.
/// Still, the best match wins: a test that matches much better comes first.
#[test]
fn exported_api_ranks_above_unexported_symbols_and_tests() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let go = |id: &str, path: &str| {
        let mut n = node(&format!("go:example.com/m/out::{id}"), "func", id, "draws a page");
        n.location = Some(docforge_model::Location::new(path, 1, 1));
        n
    };
    let nodes = vec![
        go("renderBody", "render.go"),
        go("(*pager).Body", "render.go"),
        go("TestBody", "render_test.go"),
        go("ExampleBody", "example_test.go"),
        go("Body", "render.go"),
        go("(*Pager).Body", "render.go"),
    ];
    index
        .publish(batch(vec![owner("file:render.go", Fragment { nodes, ..Default::default() })], "fp"))
        .unwrap();
    let ids = |q: &str, n: usize| -> Vec<String> {
        index
            .search(q, n)
            .unwrap()
            .into_iter()
            .map(|h| h.id.rsplit("::").next().unwrap().to_string())
            .collect()
    };
    // The same words in every text (ties in row order, the IDs' order): exported first (the
    // example with them), then unexported, then the test (0.5, below 0.7).
    assert_eq!(
        ids("draws page", 10),
        ["(*Pager).Body", "Body", "ExampleBody", "(*pager).Body", "renderBody", "TestBody"]
    );
    // A much better match is still first.
    assert_eq!(ids("TestBody", 1), ["TestBody"]);
    // Reranked pages still page: a longer list starts with a shorter one.
    ids_paged(&index, "draws page", 10, 1..6);

    // Many ties: the rows bm25 puts first (methods of an unexported type, `(*t…` sorts before
    // letters) rank after every exported function, whatever the limit.
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let mut nodes: Vec<_> = (0..150).map(|i| go(&format!("(*t{i:03}).Draw"), "t.go")).collect();
    nodes.extend((0..50).map(|i| go(&format!("D{i:03}"), "d.go")));
    index.publish(batch(vec![owner("file:t.go", Fragment { nodes, ..Default::default() })], "fp")).unwrap();
    let all = ids_paged(&index, "draws page", 200, [1, 20, 49, 50, 51, 120, 199]);
    assert_eq!(all.len(), 200);
    assert!(all[..50].iter().all(|id| id.contains("::D")) && all[50..].iter().all(|id| id.contains("(*t")));
}

/// A hit's snippet: the words of its text around the query's (the last word of a long text
/// too), one line, at most `SNIPPET_BYTES` bytes cut at a character boundary; the start of
/// the text when no word of the query is in it (an exact ID, a title match).
#[test]
fn snippets_show_the_words_around_the_match() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();
    let long: String =
        (0..3000).map(|i| format!("filler {i} é\n")).collect::<String>() + "the zanzibar\n\n  tail";
    let nodes = vec![
        node("doc.long", "document", "Long", &long),
        node("doc.title", "section", "Zanzibar", "Nothing\n\nabout it."),
        node("doc.wide", "section", "Wide", &"ééé ".repeat(400)),
    ];
    index
        .publish(batch(vec![owner("file:docs/a.md", Fragment { nodes, ..Default::default() })], "fp"))
        .unwrap();
    let hits = index.search("zanzibar", 10).unwrap();
    let snippets = index.snippets("zanzibar", &hits).unwrap();
    let by: std::collections::HashMap<&str, &str> =
        hits.iter().map(|h| h.id.as_str()).zip(snippets.iter().map(String::as_str)).collect();
    assert!(by["doc.long"].contains("the zanzibar tail"), "{}", by["doc.long"]);
    assert!(by["doc.long"].starts_with('…') && !by["doc.long"].contains('\n'));
    assert_eq!(by["doc.title"], "Nothing about it.");
    // An exact ID no word of whose text is the query: the text's start.
    let exact = index.search("doc.wide", 1).unwrap();
    assert!(exact[0].exact_id);
    let wide = &index.snippets("doc.wide", &exact).unwrap()[0];
    assert!(wide.ends_with('…') && wide.starts_with("ééé ééé"), "{wide}");
    assert!(wide.len() <= docforge_index::SNIPPET_BYTES + '…'.len_utf8());
    assert!(index.snippets("zanzibar", &[]).unwrap().is_empty());

    // A word found only as an identifier's part (`parser` in `BlockParser`): the text around
    // the identifier. Two owners' rows of one ID: each hit's own text.
    let filler: String = (0..200).map(|i| format!("word{i} ")).collect();
    let mut second = node("doc.twice", "section", "Twice", "the second owner's parser");
    second.location = Some(docforge_model::Location::new("docs/b.md", 1, 1));
    let owners = vec![
        owner(
            "file:docs/a.md",
            Fragment {
                nodes: vec![
                    node(
                        "doc.ident",
                        "section",
                        "Ident",
                        &format!("{filler}a BlockParser reads blocks. {filler}"),
                    ),
                    node("doc.twice", "section", "Twice", "the first owner's parser"),
                ],
                ..Default::default()
            },
        ),
        owner("file:docs/b.md", Fragment { nodes: vec![second], ..Default::default() }),
    ];
    index.publish(batch(owners, "fp2")).unwrap();
    let hits = index.search("parser", 10).unwrap();
    let snippets = index.snippets("parser", &hits).unwrap();
    let pairs: Vec<(&str, &str)> =
        hits.iter().map(|h| h.id.as_str()).zip(snippets.iter().map(String::as_str)).collect();
    let ident = pairs.iter().find(|(id, _)| *id == "doc.ident").unwrap().1;
    assert!(
        ident.starts_with('…') && ident.contains("a BlockParser reads blocks.") && ident.ends_with('…'),
        "{ident}"
    );
    assert!(ident.len() <= docforge_index::SNIPPET_BYTES + 2 * '…'.len_utf8(), "{ident}");
    let mut twice: Vec<&str> = pairs.iter().filter(|(id, _)| *id == "doc.twice").map(|p| p.1).collect();
    twice.sort();
    assert_eq!(twice, ["the first owner's parser", "the second owner's parser"]);
}

fn bulk_owners(count: usize, salt: &str) -> Vec<docforge_index::Owner> {
    (0..count).map(|i| doc_owner(&format!("bulk{i}"), 60, salt)).collect()
}

fn publish_checked(index: &mut Index, b: Batch) -> docforge_index::PublishReport {
    let report = index.publish(b).unwrap();
    index.integrity_check().unwrap();
    report
}

#[test]
fn fts_stays_in_sync_through_bulk_and_incremental_publishes() {
    let dir = tempfile::tempdir().unwrap();
    let mut index = Index::open(&dir.path().join("i.sqlite")).unwrap();

    // Cold: ~25k rows takes the bulk path (indexes and FTS built after the inserts).
    let mut owners = bulk_owners(200, "alpha");
    let report = publish_checked(&mut index, batch(owners.clone(), "fp1"));
    assert_eq!(report.rows_written, 200 * (61 + 61 + 1));
    assert_eq!(index.search("alpha", 100_000).unwrap().len(), 200 * 61);
    assert_eq!(index.node("doc.bulk7#s59").unwrap().unwrap().incoming.len(), 1);

    // Incremental: one owner changes; its old words leave the FTS index, its new ones enter.
    owners[3] = doc_owner("bulk3", 2, "beta");
    let report = publish_checked(&mut index, batch(owners.clone(), "fp2"));
    assert_eq!((report.owners_written, report.owners_unchanged), (1, 199));
    assert_eq!(index.search("beta", 100).unwrap().len(), 3);
    assert_eq!(index.search("alpha", 100_000).unwrap().len(), 199 * 61);

    // Bulk again: most owners change and some vanish.
    let mut owners = bulk_owners(150, "gamma");
    owners.extend(docs(2, 1));
    let report = publish_checked(&mut index, batch(owners, "fp3"));
    assert_eq!((report.owners_written, report.owners_deleted), (152, 50));
    assert!(index.search("alpha", 10).unwrap().is_empty());
    assert!(index.search("beta", 10).unwrap().is_empty());
    assert_eq!(index.search("gamma", 100_000).unwrap().len(), 150 * 61);
    assert_eq!(index.search("about d1", 10).unwrap()[0].id, "doc.d1");
    assert!(index.node("doc.bulk160").unwrap().is_none());
    let stats = index.stats().unwrap();
    assert_eq!((stats.generation, stats.owners, stats.nodes), (3, 152, 150 * 61 + 4));
    assert_eq!((stats.edges, index.diagnostics().unwrap().len()), (150 * 61 + 4, 152));
}
