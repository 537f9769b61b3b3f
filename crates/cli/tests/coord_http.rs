//! The transport rules of the coordination contract, with raw HTTP requests against the real
//! `docforge coord serve`: 405, 401, 403, batch refusal, parse errors, size limit, media
//! types, MCP-Protocol-Version, no sessions, and byte-identical replays.

mod coord_server;
use coord_server::{project_with_pm, token, Server, DOCFORGE};
use serde_json::{json, Value};

fn server() -> (tempfile::TempDir, Server, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("coord.db");
    let system = token(&db, &["system"]);
    let server = Server::start(&db, &[]);
    (dir, server, system)
}

const INIT: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

#[test]
fn get_and_delete_on_mcp_are_405_because_there_is_no_sse_channel_and_no_session() {
    let (_dir, server, _) = server();
    let get = coord_server::reply(
        Server::agent().get(&server.url).header("Accept", "text/event-stream").call().unwrap(),
    );
    assert_eq!(get.status, 405);
    assert_eq!(get.header("allow"), Some("POST"));
    let delete = coord_server::reply(Server::agent().delete(&server.url).call().unwrap());
    assert_eq!(delete.status, 405);
}

#[test]
fn initialize_ping_and_tools_list_need_no_credentials_and_open_no_session() {
    let (_dir, server, _) = server();
    let init = server.post(&[], INIT);
    assert_eq!(init.status, 200, "{}", init.body);
    assert_eq!(init.header("content-type"), Some("application/json"));
    assert_eq!(init.header("mcp-session-id"), None);
    let result = &init.json()["result"];
    assert_eq!(result["protocolVersion"], "2025-03-26");
    assert_eq!(result["serverInfo"]["name"], "docforge-coord");
    assert!(result["capabilities"]["tools"].is_object());
    assert_eq!(server.rpc(None, "ping", json!({})).json()["result"], json!({}));
    let tools = server.rpc(None, "tools/list", json!({})).json();
    let tools = tools["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 18);
    for t in tools {
        let schema = &t["inputSchema"];
        assert_eq!(schema["type"], "object", "{}", t["name"]);
        assert_eq!(schema["additionalProperties"], false, "{}", t["name"]);
        let required: Vec<&str> =
            schema["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let mutation = !matches!(
            t["name"].as_str().unwrap(),
            "sync_since" | "list_pending_actions" | "get_work_package" | "get_project"
        );
        assert_eq!(required.contains(&"idempotency_key"), mutation, "{}", t["name"]);
        assert_eq!(t["annotations"]["readOnlyHint"], !mutation, "{}", t["name"]);
        assert_eq!(t["annotations"]["destructiveHint"], false, "{}", t["name"]);
    }
    // A session ID sent anyway is ignored (there are no sessions to find or miss).
    assert_eq!(server.post(&[("Mcp-Session-Id", "made-up")], INIT).status, 200);
    // A presented token must be valid even where none is needed.
    assert_eq!(server.post(&[("Authorization", "Bearer dfc_wrong")], INIT).status, 401);
    // A notification is accepted with 202 and no body.
    let note = server.post(&[], r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    assert_eq!((note.status, note.body.as_str()), (202, ""));
}

#[test]
fn every_tools_call_needs_a_valid_bearer_token() {
    let (_dir, server, system) = server();
    let call = json!({"name": "get_project", "arguments": {"project_id": "p"}});
    let missing = server.rpc(None, "tools/call", call.clone());
    assert_eq!(missing.status, 401);
    assert!(missing.header("www-authenticate").unwrap().starts_with("Bearer"));
    assert_eq!(missing.json()["id"], 1);
    for bad in ["Bearer dfc_nope", "Basic dXNlcjpwYXNz", "Bearer", &format!("Token {system}")] {
        let reply = server.post(
            &[("Authorization", bad)],
            &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}).to_string(),
        );
        assert_eq!(reply.status, 401, "{bad}");
    }
    // A revoked credential is refused too.
    let actor = token(&server.db, &["create", "--actor", "gone"]);
    assert_eq!(server.rpc(Some(&actor), "tools/call", call.clone()).status, 200);
    let list = std::process::Command::new(DOCFORGE)
        .args(["coord", "token", "list", "--db"])
        .arg(&server.db)
        .output()
        .unwrap();
    let listing = String::from_utf8(list.stdout).unwrap();
    assert!(!listing.contains(&actor) && !listing.contains(&system), "tokens are never listed");
    let id =
        listing.lines().find(|l| l.contains("\tgone\t")).unwrap().split('\t').next().unwrap().to_string();
    let revoke = std::process::Command::new(DOCFORGE)
        .args(["coord", "token", "revoke", &id, "--db"])
        .arg(&server.db)
        .status()
        .unwrap();
    assert!(revoke.success());
    assert_eq!(server.rpc(Some(&actor), "tools/call", call).status, 401);
}

#[test]
fn the_database_holds_only_token_hashes() {
    let (_dir, server, system) = server();
    drop(server);
    let db = std::fs::read(_dir.path().join("coord.db")).unwrap();
    let wal = std::fs::read(_dir.path().join("coord.db-wal")).unwrap_or_default();
    for bytes in [db, wal] {
        assert!(!bytes.windows(system.len()).any(|w| w == system.as_bytes()), "the token is not stored");
    }
}

#[test]
fn a_foreign_origin_is_403_and_loopback_or_allowed_origins_pass() {
    let (_dir, server, _) = server();
    for origin in ["https://evil.example", "http://localhost.evil.example", "null"] {
        let reply = server.post(&[("Origin", origin)], INIT);
        assert_eq!(reply.status, 403, "{origin}");
    }
    for origin in ["http://localhost:5173", "http://127.0.0.1", "http://[::1]:80"] {
        assert_eq!(server.post(&[("Origin", origin)], INIT).status, 200, "{origin}");
    }
    let dir = tempfile::tempdir().unwrap();
    let allowing = Server::start(&dir.path().join("c.db"), &["--allow-origin", "https://app.example"]);
    assert_eq!(allowing.post(&[("Origin", "https://app.example")], INIT).status, 200);
    assert_eq!(allowing.post(&[("Origin", "https://evil.example")], INIT).status, 403);
}

#[test]
fn batches_are_refused() {
    let (_dir, server, _) = server();
    for body in [format!("[{INIT}]"), "[]".to_string()] {
        let reply = server.post(&[], &body);
        assert_eq!(reply.status, 400);
        assert_eq!(reply.rpc_error(), -32600);
        assert!(reply.json()["error"]["message"].as_str().unwrap().contains("batch"));
    }
}

#[test]
fn malformed_json_rpc_gets_json_rpc_errors() {
    let (_dir, server, system) = server();
    let cases: &[(&str, u16, i64)] = &[
        ("{not json", 400, -32700),
        ("", 400, -32700),
        ("42", 400, -32600),
        (r#"{"id":1,"method":"ping"}"#, 400, -32600),
        (r#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":1}"#, 400, -32600),
        (r#"{"jsonrpc":"2.0","id":1,"method":"resources/list"}"#, 200, -32601),
    ];
    for (body, status, code) in cases {
        let reply = server.post(&[], body);
        assert_eq!((reply.status, reply.rpc_error()), (*status, *code), "{body}: {}", reply.body);
    }
    let auth = format!("Bearer {system}");
    for params in [
        json!({"name": "no_such_tool", "arguments": {}}),
        json!({"arguments": {}}),
        json!({"name": "get_project", "arguments": [1]}),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params}).to_string();
        let reply = server.post(&[("Authorization", &auth)], &body);
        assert_eq!((reply.status, reply.rpc_error()), (200, -32602), "{params}");
        assert_eq!(reply.json()["id"], 9);
    }
}

#[test]
fn domain_failures_are_tool_results_with_is_error() {
    let (_dir, server, system) = server();
    let result = server.call(&system, "get_project", json!({"project_id": "p"}));
    assert_eq!(result["isError"], true);
    assert_eq!(result["structuredContent"]["error"]["code"], "not_found");
    let text: Value = serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(text, result["structuredContent"]);
    let invalid = server.call(
        &system,
        "create_project",
        json!({"project_id": "a b", "name": "n", "idempotency_key": "k"}),
    );
    assert_eq!(invalid["structuredContent"]["error"]["code"], "invalid_argument");
}

#[test]
fn request_bodies_over_one_mebibyte_are_413() {
    let (_dir, server, system) = server();
    let filler = "x".repeat(1024 * 1024);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "get_project", "arguments": {"project_id": "p", "pad": filler}}})
    .to_string();
    let reply = server.post(&[("Authorization", &format!("Bearer {system}"))], &body);
    assert_eq!(reply.status, 413);
}

#[test]
fn media_types_are_checked() {
    let (_dir, server, _) = server();
    let text = server.post_raw(&[("Content-Type", "text/plain"), ("Accept", "application/json")], INIT);
    assert_eq!(text.status, 415);
    let sse_only =
        server.post_raw(&[("Content-Type", "application/json"), ("Accept", "text/event-stream")], INIT);
    assert_eq!(sse_only.status, 406);
    let charset = server.post_raw(&[("Content-Type", "application/json; charset=utf-8")], INIT);
    assert_eq!(charset.status, 200);
}

#[test]
fn protocol_versions_are_negotiated_and_the_header_is_checked() {
    let (_dir, server, _) = server();
    for version in ["2025-03-26", "2025-06-18", "2025-11-25"] {
        let init = server.rpc(None, "initialize", json!({"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "c", "version": "0"}}));
        assert_eq!(init.json()["result"]["protocolVersion"], version);
        assert_eq!(
            server
                .post(&[("MCP-Protocol-Version", version)], r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#)
                .status,
            200
        );
    }
    let init = server.rpc(None, "initialize", json!({"protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": {"name": "c", "version": "0"}}));
    assert_eq!(
        init.json()["result"]["protocolVersion"],
        "2025-11-25",
        "an unknown version is offered the latest"
    );
    for bad in ["2024-11-05", "2099-01-01", "latest"] {
        let reply =
            server.post(&[("MCP-Protocol-Version", bad)], r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
        assert_eq!(reply.status, 400, "{bad}");
        assert_eq!(reply.rpc_error(), -32600);
    }
    // Absent, the header means 2025-03-26.
    assert_eq!(server.post(&[], r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).status, 200);
}

#[test]
fn a_retried_mutation_answers_the_same_result_bytes_over_http() {
    let (_dir, server, system) = server();
    let pm = project_with_pm(&server, &system);
    let body = |id: u32| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "issue_work_package",
               "arguments": {"project_id": "p", "work_package_id": "WP-1", "title": "t", "idempotency_key": "i1"}}})
        .to_string()
    };
    let auth = format!("Bearer {pm}");
    let (a, b) = (
        server.post(&[("Authorization", &auth)], &body(1)),
        server.post(&[("Authorization", &auth)], &body(2)),
    );
    let result_bytes = |s: &str| s[s.find("\"result\":").unwrap()..].to_string();
    assert_eq!(result_bytes(&a.body), result_bytes(&b.body));
    assert_ne!(a.body, b.body, "only the JSON-RPC id differs");
    let events = server.ok(&pm, "sync_since", json!({"project_id": "p"}));
    let issued = events["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["event_type"] == "work_package.issued")
        .count();
    assert_eq!(issued, 1);
}

#[test]
fn serve_refuses_a_non_loopback_address_unless_told() {
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new(DOCFORGE)
        .args(["coord", "serve", "--listen", "0.0.0.0:0", "--db"])
        .arg(dir.path().join("c.db"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--allow-remote"));
}

#[test]
fn there_is_one_system_credential_and_replacing_it_revokes_the_old_token() {
    let (_dir, server, old) = server();
    let again = std::process::Command::new(DOCFORGE)
        .args(["coord", "token", "system", "--db"])
        .arg(&server.db)
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&again.stderr).contains("--replace"));
    let new = token(&server.db, &["system", "--replace"]);
    let call = json!({"name": "create_project", "arguments": {"project_id": "p", "name": "P", "idempotency_key": "k"}});
    assert_eq!(server.rpc(Some(&old), "tools/call", call.clone()).status, 401);
    assert_eq!(server.call(&new, "create_project", call["arguments"].clone())["isError"], false);
    let reserved = std::process::Command::new(DOCFORGE)
        .args(["coord", "token", "create", "--actor", "system", "--db"])
        .arg(&server.db)
        .output()
        .unwrap();
    assert_eq!(reserved.status.code(), Some(1));
}
