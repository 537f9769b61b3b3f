//! The server's lifecycle as a client sees it: honest capabilities, progress during the
//! first index, incremental sync, cancellation, a panicking handler, file watching,
//! shutdown. Incrementality is checked by counting salsa executions, never by time.

mod support;

use expect_test::expect;
use serde_json::{json, Value};
use support::{opts, Client, ResponseExt};

fn caps(c: &Client) -> String {
    serde_json::to_string_pretty(&c.init["capabilities"]).unwrap()
}

#[test]
fn initialize_advertises_only_what_works() {
    let c = Client::start(opts(), json!({"general": {"positionEncodings": ["utf-8", "utf-16"]}}));
    expect![[r#"
        {
          "callHierarchyProvider": true,
          "codeLensProvider": {
            "resolveProvider": false
          },
          "completionProvider": {
            "triggerCharacters": [
              "[",
              ":",
              "\""
            ]
          },
          "definitionProvider": true,
          "documentSymbolProvider": true,
          "hoverProvider": true,
          "implementationProvider": true,
          "positionEncoding": "utf-8",
          "referencesProvider": true,
          "renameProvider": {
            "prepareProvider": true
          },
          "textDocumentSync": {
            "change": 2,
            "openClose": true
          },
          "workspace": {
            "workspaceFolders": {
              "changeNotifications": true,
              "supported": true
            }
          },
          "workspaceSymbolProvider": true
        }"#]]
    .assert_eq(&caps(&c));
    assert_eq!(c.init["serverInfo"]["name"], "docforge");
    c.shutdown();

    // Without Go analysis: no implementation, call hierarchy or claim lenses; UTF-16
    // positions when the client does not offer UTF-8.
    let no_ast = docforge_lsp::Options { no_ast: true, ..opts() };
    let c = Client::start(no_ast, json!({}));
    let v: Value = serde_json::from_str(&caps(&c)).unwrap();
    assert_eq!(v["positionEncoding"], "utf-16");
    for absent in ["implementationProvider", "callHierarchyProvider", "codeLensProvider"] {
        assert!(v.get(absent).is_none(), "{absent} is not advertised under --no-ast");
    }
    c.shutdown();
}

#[test]
fn the_first_index_reports_work_done_progress() {
    let mut c = Client::start(opts(), json!({"window": {"workDoneProgress": true}}));
    let begin = c.wait_note(|n| n.method == "$/progress");
    assert_eq!(begin.params["value"]["kind"], "begin");
    let end = c.wait_note(|n| n.method == "$/progress" && n.params["value"]["kind"] == "end");
    assert_eq!(end.params["value"]["message"], "indexed");
    c.shutdown();
}

#[test]
fn a_cancelled_request_answers_request_cancelled_and_an_edit_answers_content_modified() {
    let mut c = Client::start(opts(), json!({}));
    c.open("docs/notes.md");
    // The request runs (it reads the database until a write cancels it).
    let running = |n: &lsp_server::Notification| n.method == "window/logMessage";
    let id = c.send("docforge/debugWaitForCancel", Value::Null);
    c.wait_note(running);
    c.notify("$/cancelRequest", json!({"id": id.to_string().parse::<i32>().unwrap()}));
    let r = c.response(id);
    assert_eq!(r.error().map(|e| e.code), Some(-32800), "RequestCancelled");

    let id = c.send("docforge/debugWaitForCancel", Value::Null);
    c.wait_note(running);
    c.edit("docs/notes.md", 2, [0, 0, 0, 0], "x");
    let r = c.response(id);
    assert_eq!(r.error().map(|e| e.code), Some(-32801), "ContentModified");

    // The server keeps serving.
    let p = c.pos("docs/notes.md", "[[glossary]]", 3);
    assert!(c.ok("textDocument/definition", p)["uri"].as_str().unwrap().ends_with("docs/glossary.toml"));
    c.shutdown();
}

#[test]
fn a_panic_in_a_handler_answers_internal_error_and_the_server_keeps_serving() {
    let mut c = Client::start(opts(), json!({}));
    let r = c.request("docforge/debugPanic", Value::Null);
    let e = r.error().expect("an error response");
    assert_eq!(e.code, -32603);
    assert!(e.message.contains("deliberate panic"), "{}", e.message);
    let p = c.pos("docs/arch/service.md", "depends_on", 17);
    let def = c.ok("textDocument/definition", p);
    assert_eq!(c.loc(&def), "docs/arch/storage.md:2:5-19");
    // Test hooks are off unless asked for.
    c.shutdown();
    let mut c = Client::start(docforge_lsp::Options { test_hooks: false, ..opts() }, json!({}));
    assert_eq!(c.request("docforge/debugPanic", Value::Null).error().map(|e| e.code), Some(-32601));
    c.shutdown();
}

#[test]
fn requests_after_shutdown_are_refused() {
    let mut c = Client::start(opts(), json!({}));
    assert!(c.request("shutdown", Value::Null).error().is_none());
    let r = c.request("textDocument/hover", c.pos("docs/notes.md", "glossary", 0));
    assert_eq!(r.error().map(|e| e.code), Some(-32600));
    c.notify("exit", Value::Null);
}

#[test]
fn editing_one_document_re_derives_that_document_only() {
    let log = docforge_lsp::Options { execution_log: true, ..opts() };
    let mut c = Client::start(log, json!({}));
    c.open("docs/notes.md");
    // Warm: the first index, one read after the open and a first edit (which lowers the
    // file's durability from "loaded from disk" to "being edited": what depends on it runs
    // once more; opening a buffer with the file's own text changes nothing).
    let p = c.pos("docs/notes.md", "[[glossary]]", 3);
    c.ok("textDocument/hover", p.clone());
    c.ok("docforge/debugExecutions", Value::Null);
    // Opening another file with the text it has on disk changes nothing: no query runs
    // again (memos may be re-validated: the server's deferred memory trim is a revision).
    c.open("docs/arch/service.md");
    c.ok("textDocument/hover", p.clone());
    let ran: Vec<String> = serde_json::from_value(c.ok("docforge/debugExecutions", Value::Null)).unwrap();
    let executed: Vec<&String> = ran.iter().filter(|e| !e.starts_with("validated ")).collect();
    assert!(executed.is_empty(), "{executed:#?}");
    c.edit("docs/notes.md", 2, [2, 0, 2, 0], " ");
    c.ok("textDocument/hover", p.clone());
    c.ok("docforge/debugExecutions", Value::Null);
    // A prose edit (same links, same headings).
    c.edit("docs/notes.md", 3, [2, 0, 2, 6], "Short");
    c.ok("textDocument/hover", p);
    let ran: Vec<String> = serde_json::from_value(c.ok("docforge/debugExecutions", Value::Null)).unwrap();
    let executed = |name: &str| ran.iter().filter(|e| e.starts_with(&format!("{name}("))).count();
    assert_eq!(executed("doc_facts"), 1, "only the edited document is re-read: {ran:#?}");
    assert_eq!(executed("doc_fragment"), 1, "{ran:#?}");
    // The editor's lookup tables are rebuilt for the edited directory only.
    assert_eq!(executed("chunk_part"), 1, "{ran:#?}");
    // (`doc_index` re-runs over the memoised facts and comes out equal, so no other
    // document's fragment is recomputed.)
    for untouched in ["go_parsed", "go_facts", "file_sigs", "package_sigs", "package_implements"] {
        assert_eq!(executed(untouched), 0, "{untouched} must not re-run: {ran:#?}");
    }
    c.shutdown();
}

#[test]
fn files_changed_on_disk_are_picked_up_on_did_change_watched_files() {
    let mut c = Client::start(opts(), json!({}));
    std::fs::write(c.root.join("docs/new.md"), "# New\n\nSee [[no.such.doc]].\n").unwrap();
    let uri = c.uri("docs/new.md");
    c.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri, "type": 1}]}));
    let d = c.diagnostics("docs/new.md");
    assert_eq!(d.len(), 1);
    assert_eq!(d[0]["code"], "broken_link");
    assert_eq!(d[0]["range"]["start"], json!({"line": 2, "character": 4}));
    c.shutdown();
}

#[test]
fn closing_a_buffer_returns_to_the_file_on_disk() {
    let mut c = Client::start(opts(), json!({}));
    c.open("docs/notes.md");
    c.edit("docs/notes.md", 2, [0, 0, 0, 0], "[[missing.doc]]\n");
    let d = c.diagnostics("docs/notes.md");
    assert_eq!(d.len(), 1, "the unsaved buffer is analysed: {d:#?}");
    let uri = c.uri("docs/notes.md");
    c.notify("textDocument/didClose", json!({"textDocument": {"uri": uri}}));
    assert_eq!(c.diagnostics("docs/notes.md"), Vec::<Value>::new(), "the disk content has no broken link");
    c.shutdown();
}
