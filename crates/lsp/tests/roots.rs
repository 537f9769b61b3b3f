//! Multi-root workspaces: every workspace folder is its own project (fixtures `shop` and
//! `roots-b`), requests are routed to the deepest folder holding the document, workspace
//! symbols merge every folder's answer, folders come and go at run time, and an edit in one
//! folder neither cancels nor re-runs another folder's analysis.

mod support;

use serde_json::{json, Value};
use support::{opts, Client, ResponseExt};

const BOTH: &[&str] = &["shop", "roots-b"];

/// `code@line:character` of each diagnostic.
fn codes(d: &[Value]) -> Vec<String> {
    d.iter()
        .map(|d| {
            let s = &d["range"]["start"];
            format!("{}@{}:{}", d["code"].as_str().unwrap(), s["line"], s["character"])
        })
        .collect()
}

fn locs(c: &Client, v: &Value) -> Vec<String> {
    let list = v.as_array().cloned().unwrap_or_else(|| vec![v.clone()]);
    list.iter().filter(|l| !l.is_null()).map(|l| c.loc(l)).collect()
}

/// The locations a definition request answers.
fn def(c: &mut Client, p: Value) -> Vec<String> {
    let v = c.ok("textDocument/definition", p);
    locs(c, &v)
}

/// `workspace/didChangeWorkspaceFolders`, with an empty side sent as `[{}]` the way
/// Neovim 0.7 sends it (the server skips the malformed entry, not the notification).
fn folders_changed(c: &Client, added: &[&str], removed: &[&str]) {
    let side = |list: &[&str]| -> Vec<Value> {
        if list.is_empty() {
            return vec![json!({})];
        }
        list.iter().map(|f| c.folder(f)).collect()
    };
    let (added, removed) = (side(added), side(removed));
    c.notify("workspace/didChangeWorkspaceFolders", json!({"event": {"added": added, "removed": removed}}));
}

#[test]
fn every_folder_is_served_with_its_own_diagnostics_definitions_and_hover() {
    let mut c = Client::start_workspace(opts(), json!({}), BOTH, &["shop", "roots-b"]);
    assert_eq!(c.init["capabilities"]["workspace"]["workspaceFolders"]["changeNotifications"], true);
    // Diagnostics of both folders, each file under its own folder's URI.
    let shop = c.take_diagnostics("shop/docs/guide/getting-started.md");
    assert_eq!(codes(&shop), ["broken_link@28:2", "broken_link@29:2"]);
    let b = c.take_diagnostics("roots-b/docs/intro.md");
    assert_eq!(codes(&b), ["broken_link@13:32"], "{b:#?}");
    assert!(b[0]["message"].as_str().unwrap().contains("b.missing"));

    // Definition in both: document links, then a Go call resolved in the second module.
    let p = c.pos("shop/docs/notes.md", "[[glossary]]", 3);
    assert_eq!(def(&mut c, p), ["shop/docs/glossary.toml:1:5-15"]);
    let p = c.pos("roots-b/docs/intro.md", "[[b.storage-notes]]", 3);
    assert_eq!(def(&mut c, p), ["roots-b/docs/storage-notes.md:2:5-22"]);
    let p = c.pos("roots-b/greet/greet.go", "return Hello(", 8);
    assert_eq!(def(&mut c, p), ["roots-b/greet/greet.go:5:5-10"]);

    // Hover cards come from the folder of the document.
    let p = c.pos("roots-b/greet/greet.go", "func Hello", 6);
    let card = c.hover_card(p);
    assert!(card.contains("`go:example.com/rootsb/greet::Hello`"), "{card}");
    assert!(card.contains("governed / documented by: `b.intro` (governs)"), "{card}");
    let p = c.pos("shop/docs/arch/service.md", "depends_on = [\"arch.storage", 16);
    let card = c.hover_card(p);
    assert!(card.contains("`arch.storage`") && card.contains("family: architecture"), "{card}");
    c.shutdown();
}

#[test]
fn workspace_symbols_merge_the_answers_of_every_folder() {
    let mut c = Client::start_workspace(opts(), json!({}), BOTH, &["shop", "roots-b"]);
    let found = c.ok("workspace/symbol", json!({"query": "storage"}));
    let uris: Vec<&str> =
        found.as_array().unwrap().iter().map(|s| s["location"]["uri"].as_str().unwrap()).collect();
    let in_folder = |f: &str| uris.iter().filter(|u| u.starts_with(&c.uri(f))).count();
    assert!(in_folder("shop/") > 0 && in_folder("roots-b/") > 0, "{uris:#?}");
    let names: Vec<&str> = found.as_array().unwrap().iter().map(|s| s["name"].as_str().unwrap()).collect();
    assert!(names.contains(&"Storage notes") && names.contains(&"Repository"), "{names:?}");
    // A query only one folder matches answers from that folder only.
    let found = c.ok("workspace/symbol", json!({"query": "Twice"}));
    assert_eq!(
        locs(&c, &Value::Array(found.as_array().unwrap().iter().map(|s| s["location"].clone()).collect())),
        ["roots-b/greet/greet.go:10:5-10"]
    );
    c.shutdown();
}

#[test]
fn a_document_outside_every_folder_answers_null() {
    let mut c = Client::start_workspace(opts(), json!({}), BOTH, &["shop", "roots-b"]);
    std::fs::create_dir_all(c.root.join("elsewhere")).unwrap();
    std::fs::write(c.root.join("elsewhere/loose.md"), "# Loose\n\nSee [[b.intro]] and [[glossary]].\n")
        .unwrap();
    c.open("elsewhere/loose.md");
    c.edit("elsewhere/loose.md", 2, [0, 0, 0, 0], "x");
    let p = c.pos("elsewhere/loose.md", "[[b.intro]]", 3);
    for method in [
        "textDocument/definition",
        "textDocument/hover",
        "textDocument/references",
        "textDocument/completion",
    ] {
        let mut params = p.clone();
        params["context"] = json!({"includeDeclaration": true});
        let r = c.request(method, params);
        assert!(r.error().is_none(), "{method}: {:?}", r.error());
        assert_eq!(r.result(), Some(Value::Null), "{method}");
    }
    let uri = c.uri("elsewhere/loose.md");
    assert_eq!(c.ok("textDocument/documentSymbol", json!({"textDocument": {"uri": uri}})), Value::Null);
    // The folders keep serving.
    let p = c.pos("roots-b/docs/intro.md", "[[b.storage-notes]]", 3);
    assert_eq!(def(&mut c, p), ["roots-b/docs/storage-notes.md:2:5-22"]);
    assert!(
        !c.notes.iter().any(|n| n.params["uri"].as_str() == Some(uri.as_str())),
        "nothing is published for a file outside every folder"
    );
    c.shutdown();
}

#[test]
fn nested_folders_route_to_the_deepest() {
    // Alone, the outer folder resolves the nested document's link to `b.intro`.
    let mut c = Client::start_workspace(opts(), json!({}), &["roots-b"], &["roots-b"]);
    let p = c.pos("roots-b/nested/inner.md", "[[b.intro]]", 3);
    assert_eq!(def(&mut c, p.clone()), ["roots-b/docs/intro.md:2:5-14"]);
    c.shutdown();

    // With the nested project as a folder too, its documents are its own: the same link is
    // broken there, and the nested project's other document is found.
    let mut c = Client::start_workspace(opts(), json!({}), &["roots-b"], &["roots-b", "roots-b/nested"]);
    let d = c.take_diagnostics("roots-b/nested/inner.md");
    assert_eq!(codes(&d), ["broken_link@5:8"], "{d:#?}");
    // The outer folder has published its own files (and would have published the broken
    // `[[plain]]` of the nested document, were it still its own).
    assert_eq!(codes(&c.take_diagnostics("roots-b/docs/intro.md")), ["broken_link@13:32"]);
    let p = c.pos("roots-b/nested/inner.md", "[[b.intro]]", 3);
    assert_eq!(c.ok("textDocument/definition", p), Value::Null);
    let p = c.pos("roots-b/nested/inner.md", "[[nested.other]]", 3);
    assert_eq!(def(&mut c, p), ["roots-b/nested/other.md:2:5-19"]);
    // The outer folder still answers for its own documents.
    let p = c.pos("roots-b/docs/intro.md", "[[b.storage-notes]]", 3);
    assert_eq!(def(&mut c, p), ["roots-b/docs/storage-notes.md:2:5-22"]);
    let inner = c.uri("roots-b/nested/inner.md");
    let again: Vec<_> = c.notes.iter().filter(|n| n.params["uri"].as_str() == Some(inner.as_str())).collect();
    assert!(again.is_empty(), "only the nested folder publishes for its files: {again:#?}");
    c.shutdown();
}

#[test]
fn folders_added_at_run_time_are_indexed_and_removed_ones_cleared() {
    let caps = json!({"window": {"workDoneProgress": true}});
    let mut c = Client::start_workspace(opts(), caps, BOTH, &["shop"]);
    let end = |n: &lsp_server::Notification| n.method == "$/progress" && n.params["value"]["kind"] == "end";
    let first = c.take_note(end);
    let p = c.pos("roots-b/docs/intro.md", "[[b.storage-notes]]", 3);
    assert_eq!(c.ok("textDocument/definition", p.clone()), Value::Null, "not a folder yet");

    // Added: loaded and indexed in the background, with its own progress.
    let inner = "roots-b/nested/inner.md";
    folders_changed(&c, &["roots-b"], &[]);
    let d = c.take_diagnostics("roots-b/docs/intro.md");
    assert_eq!(codes(&d), ["broken_link@13:32"]);
    // `[[plain]]` is broken in the outer project only.
    assert_eq!(codes(&c.take_diagnostics(inner)), ["broken_link@5:51"]);
    let second = c.take_note(end);
    assert_ne!(first.params["token"], second.params["token"], "each folder reports its own index");
    assert_eq!(second.params["value"]["message"], "indexed");
    assert_eq!(def(&mut c, p.clone()), ["roots-b/docs/storage-notes.md:2:5-22"]);

    // Removed: its diagnostics are cleared with an empty publication, its files answer null,
    // and the other folder keeps serving.
    folders_changed(&c, &[], &["roots-b"]);
    assert_eq!(c.take_diagnostics("roots-b/docs/intro.md"), Vec::<Value>::new());
    assert_eq!(c.take_diagnostics(inner), Vec::<Value>::new());
    assert_eq!(c.ok("textDocument/definition", p), Value::Null);
    let p = c.pos("shop/docs/notes.md", "[[glossary]]", 3);
    assert_eq!(def(&mut c, p), ["shop/docs/glossary.toml:1:5-15"]);

    // A nested folder added later takes its files over (the outer folder's diagnostics of
    // them are cleared first: `[[plain]]` is broken only there), and gives them back when
    // removed.
    folders_changed(&c, &["roots-b"], &[]);
    assert_eq!(codes(&c.take_diagnostics("roots-b/docs/intro.md")), ["broken_link@13:32"]);
    assert_eq!(codes(&c.take_diagnostics(inner)), ["broken_link@5:51"], "the outer folder's view");
    let p = c.pos(inner, "[[b.intro]]", 3);
    assert_eq!(def(&mut c, p.clone()), ["roots-b/docs/intro.md:2:5-14"]);
    folders_changed(&c, &["roots-b/nested"], &[]);
    assert_eq!(c.take_diagnostics(inner), Vec::<Value>::new(), "handed over");
    assert_eq!(codes(&c.take_diagnostics(inner)), ["broken_link@5:8"], "the nested folder's view");
    assert_eq!(c.ok("textDocument/definition", p.clone()), Value::Null);
    folders_changed(&c, &[], &["roots-b/nested"]);
    assert_eq!(c.take_diagnostics(inner), Vec::<Value>::new(), "cleared with the nested folder");
    assert_eq!(codes(&c.take_diagnostics(inner)), ["broken_link@5:51"], "the outer folder's view again");
    assert_eq!(def(&mut c, p), ["roots-b/docs/intro.md:2:5-14"]);
    c.shutdown();
}

#[test]
fn an_edit_in_one_folder_neither_cancels_nor_re_runs_another() {
    let log = docforge_lsp::Options { execution_log: true, ..opts() };
    let mut c = Client::start_workspace(log, json!({}), BOTH, &["shop", "roots-b"]);
    c.take_diagnostics("shop/docs/guide/getting-started.md");
    c.take_diagnostics("roots-b/docs/intro.md");
    let shop = json!({"textDocument": {"uri": c.uri("shop/docs/notes.md")}});
    let b = json!({"textDocument": {"uri": c.uri("roots-b/docs/intro.md")}});
    c.ok("textDocument/hover", c.pos("shop/docs/notes.md", "[[glossary]]", 3));
    c.ok("docforge/debugExecutions", shop.clone());
    c.ok("docforge/debugExecutions", b.clone());

    // A read of the shop runs while the other folder is edited and re-analysed.
    let running = |n: &lsp_server::Notification| n.method == "window/logMessage";
    let waiting = c.send("docforge/debugWaitForCancel", shop.clone());
    c.wait_note(running);
    c.open("roots-b/docs/intro.md");
    c.edit("roots-b/docs/intro.md", 2, [13, 32, 13, 43], "[[b.intro]]");
    // The publication for the opened (still broken) text may come first; the edit's follows.
    let mut after = c.take_diagnostics("roots-b/docs/intro.md");
    for _ in 0..2 {
        if after.is_empty() {
            break;
        }
        after = c.take_diagnostics("roots-b/docs/intro.md");
    }
    assert_eq!(after, Vec::<Value>::new(), "the broken link is fixed");

    let executed = |log: &Value| {
        let all: Vec<String> = serde_json::from_value(log.clone()).unwrap();
        all.into_iter().filter(|e| !e.starts_with("validated ")).collect::<Vec<_>>()
    };
    let in_b = executed(&c.ok("docforge/debugExecutions", b));
    assert!(in_b.iter().any(|e| e.starts_with("doc_facts(")), "{in_b:#?}");
    let in_shop = executed(&c.ok("docforge/debugExecutions", shop));
    assert!(in_shop.is_empty(), "nothing of the shop re-runs: {in_shop:#?}");
    // The shop's read was not cancelled by the edit: it is still running, and answers
    // `RequestCancelled` (not `ContentModified`) when the client cancels it.
    c.notify("$/cancelRequest", json!({"id": waiting.to_string().parse::<i32>().unwrap()}));
    assert_eq!(c.response(waiting).error().map(|e| e.code), Some(-32800));
    c.shutdown();
}

#[test]
fn an_explicit_project_root_serves_only_that_root() {
    // The client names two folders; the server was told to serve the shop only.
    let mut c = Client::start_rooted(opts(), json!({}), BOTH, &["shop", "roots-b"], Some("shop"));
    assert!(c.init["capabilities"].get("workspace").is_none(), "no workspace folders advertised");
    let p = c.pos("roots-b/docs/intro.md", "[[b.storage-notes]]", 3);
    assert_eq!(c.ok("textDocument/definition", p.clone()), Value::Null);
    // Folder changes are ignored.
    folders_changed(&c, &["roots-b"], &["shop"]);
    let shop = c.pos("shop/docs/notes.md", "[[glossary]]", 3);
    assert_eq!(def(&mut c, shop), ["shop/docs/glossary.toml:1:5-15"]);
    assert_eq!(c.ok("textDocument/definition", p), Value::Null);
    c.shutdown();
}

#[test]
fn a_folder_that_cannot_be_loaded_is_reported_and_the_others_are_served() {
    let mut c = Client::start_workspace(opts(), json!({}), &["roots-b"], &["no-such-folder", "roots-b"]);
    let warning = c.take_note(|n| n.method == "window/showMessage");
    let message = warning.params["message"].as_str().unwrap();
    assert!(message.contains("cannot open project") && message.contains("no-such-folder"), "{message}");
    let p = c.pos("roots-b/docs/intro.md", "[[b.storage-notes]]", 3);
    assert_eq!(def(&mut c, p), ["roots-b/docs/storage-notes.md:2:5-22"]);
    // A folder added later that cannot be loaded is reported the same way.
    folders_changed(&c, &["gone"], &[]);
    let warning = c.take_note(|n| n.method == "window/showMessage");
    assert!(warning.params["message"].as_str().unwrap().contains("gone"), "{warning:?}");
    c.shutdown();
}

/// A folder added under a second name (a symlink to a served folder) is the same project:
/// removing either name leaves the folder served under the other; removing both clears it.
#[test]
fn a_symlinked_alias_of_a_folder_is_one_folder_with_two_names() {
    let mut c = Client::start_workspace(opts(), json!({}), BOTH, &["shop"]);
    std::os::unix::fs::symlink(c.root.join("shop"), c.root.join("shop-link")).unwrap();
    let shop = c.take_diagnostics("shop/docs/guide/getting-started.md");
    assert_eq!(codes(&shop), ["broken_link@28:2", "broken_link@29:2"]);
    let glossary = |c: &mut Client| {
        let p = c.pos("shop/docs/notes.md", "[[glossary]]", 3);
        def(c, p)
    };
    let served = vec!["shop/docs/glossary.toml:1:5-15".to_string()];

    folders_changed(&c, &["shop-link"], &[]);
    folders_changed(&c, &[], &["shop-link"]);
    assert_eq!(glossary(&mut c), served, "removing the alias keeps the folder");

    folders_changed(&c, &["shop-link"], &[]);
    folders_changed(&c, &[], &["shop"]);
    assert_eq!(glossary(&mut c), served, "removing the first name keeps it under the alias");

    folders_changed(&c, &[], &["shop-link"]);
    assert_eq!(c.take_diagnostics("shop/docs/guide/getting-started.md"), Vec::<Value>::new());
    let p = c.pos("shop/docs/notes.md", "[[glossary]]", 3);
    assert_eq!(c.ok("textDocument/definition", p), Value::Null, "both names removed");
    c.shutdown();
}
