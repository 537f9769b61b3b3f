//! The real `docforge coord serve` on a free loopback port, its credentials made with the real
//! `docforge coord token`, and a plain HTTP client (ureq) for raw requests.
#![allow(dead_code)]

use serde_json::{json, Value};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

pub const DOCFORGE: &str = env!("CARGO_BIN_EXE_docforge");

pub struct Server {
    pub child: Child,
    pub url: String,
    pub db: PathBuf,
}

pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    /// The JSON-RPC error code of the body.
    pub fn rpc_error(&self) -> i64 {
        self.json()["error"]["code"].as_i64().unwrap_or_else(|| panic!("no JSON-RPC error: {}", self.body))
    }
}

/// Runs `docforge coord token ...` and returns the token it printed.
pub fn token(db: &Path, args: &[&str]) -> String {
    let out =
        Command::new(DOCFORGE).args(["coord", "token"]).args(args).arg("--db").arg(db).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let token = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(token.starts_with("dfc_") && token.len() == 68, "{token}");
    token
}

impl Server {
    pub fn start(db: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(DOCFORGE)
            .args(["coord", "serve", "--listen", "127.0.0.1:0", "--db"])
            .arg(db)
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        let url = line
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("unexpected: {line:?}"))
            .to_string();
        Server { child, url, db: db.to_path_buf() }
    }

    /// Kills the server with SIGKILL and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    pub fn agent() -> ureq::Agent {
        ureq::Agent::config_builder().http_status_as_error(false).build().into()
    }

    /// POSTs `body` with the given headers (none added).
    pub fn post_raw(&self, headers: &[(&str, &str)], body: impl AsRef<[u8]>) -> Reply {
        let mut request = Self::agent().post(&self.url);
        for (k, v) in headers {
            request = request.header(*k, *v);
        }
        reply(request.send(body.as_ref()).expect("an HTTP response"))
    }

    /// POSTs with the headers a Streamable HTTP client sends, plus `extra`.
    pub fn post(&self, extra: &[(&str, &str)], body: &str) -> Reply {
        let mut headers =
            vec![("Content-Type", "application/json"), ("Accept", "application/json, text/event-stream")];
        headers.extend_from_slice(extra);
        self.post_raw(&headers, body)
    }

    pub fn rpc(&self, token: Option<&str>, method: &str, params: Value) -> Reply {
        let auth = token.map(|t| format!("Bearer {t}"));
        let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}).to_string();
        self.post(&headers, &body)
    }

    /// A tools/call; returns the `result` (a CallToolResult).
    pub fn call(&self, token: &str, tool: &str, arguments: Value) -> Value {
        let reply = self.rpc(Some(token), "tools/call", json!({"name": tool, "arguments": arguments}));
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.json()["result"].clone()
    }

    /// A tools/call that must succeed; returns its structured content.
    pub fn ok(&self, token: &str, tool: &str, arguments: Value) -> Value {
        let result = self.call(token, tool, arguments);
        assert_eq!(result["isError"], false, "{result}");
        result["structuredContent"].clone()
    }
}

pub fn reply(mut response: ureq::http::Response<ureq::Body>) -> Reply {
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().to_string(), v.to_str().unwrap_or("").to_string()))
        .collect();
    let body = response.body_mut().read_to_string().unwrap_or_default();
    Reply { status, headers, body }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A database with a SYSTEM token, a project `p` and a PM `pm` (token returned).
pub fn project_with_pm(server: &Server, system: &str) -> String {
    server.ok(
        system,
        "create_project",
        json!({"project_id": "p", "name": "P", "idempotency_key": "create-p"}),
    );
    server.ok(
        system,
        "register_actor",
        json!({"project_id": "p", "actor_id": "pm", "role": "PM", "idempotency_key": "register-pm"}),
    );
    token(&server.db, &["create", "--actor", "pm"])
}
