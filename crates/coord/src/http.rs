//! The transport: the stateless Streamable HTTP profile of the contract, as a thin JSON-RPC
//! layer on axum. `POST /mcp` answers every request with one `application/json` response;
//! there are no sessions (`Mcp-Session-Id` is never issued) and no SSE channel (`GET /mcp`
//! is 405); batches are refused.

use crate::auth::{authenticate, Principal};
use crate::store::Store;
use crate::tools;
use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::{json, Value};
use std::sync::Arc;

/// The contract's protocol version, then the later ones this server also speaks.
pub const PROTOCOL_VERSIONS: [&str; 3] = ["2025-03-26", "2025-06-18", "2025-11-25"];
/// What an `initialize` asking for an unknown version is offered: the latest supported.
pub const LATEST_PROTOCOL_VERSION: &str = "2025-11-25";
/// The largest request body accepted (HTTP 413 above it).
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// JSON-RPC error codes.
const PARSE_ERROR: i64 = -32700;
const INVALID_REQUEST: i64 = -32600;
const METHOD_NOT_FOUND: i64 = -32601;
const INVALID_PARAMS: i64 = -32602;
const INTERNAL_ERROR: i64 = -32603;
/// Not JSON-RPC's own: the HTTP 401/403 bodies carry it.
const UNAUTHORIZED: i64 = -32001;

pub struct AppState {
    pub store: Arc<Store>,
    /// Origins allowed besides loopback ones (exact `scheme://host[:port]`).
    pub allowed_origins: Vec<String>,
    tools_list: String,
}

impl AppState {
    pub fn new(store: Arc<Store>, allowed_origins: Vec<String>) -> AppState {
        AppState { store, allowed_origins, tools_list: tools::list().to_string() }
    }
}

pub fn router(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/mcp", post(handle_post))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}

fn json_response(status: StatusCode, body: String) -> Response {
    let mut response = (status, body).into_response();
    response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

fn error_body(id: &Value, code: i64, message: &str) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string()
}

fn rpc_error(status: StatusCode, id: &Value, code: i64, message: &str) -> Response {
    json_response(status, error_body(id, code, message))
}

fn unauthorized(id: &Value, message: &str) -> Response {
    let mut response = rpc_error(StatusCode::UNAUTHORIZED, id, UNAUTHORIZED, message);
    response
        .headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer realm=\"docforge-coord\""));
    response
}

/// A JSON-RPC success whose `result` is already serialized (kept byte for byte).
fn rpc_result(id: &Value, raw_result: &str) -> Response {
    json_response(StatusCode::OK, format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{raw_result}}}"))
}

/// Loopback origins are always allowed; others only when listed.
pub fn origin_allowed(origin: &str, allowed: &[String]) -> bool {
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(origin)) {
        return true;
    }
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
        return false;
    };
    let host = if let Some(v6) = rest.strip_prefix('[') {
        v6.split_once(']').map(|(h, _)| h).unwrap_or("")
    } else {
        rest.split(':').next().unwrap_or("")
    };
    let port_ok =
        |after: &str| after.is_empty() || after.strip_prefix(':').is_some_and(|p| p.parse::<u16>().is_ok());
    let after_host = if rest.starts_with('[') {
        rest.split_once(']').map_or("x", |(_, a)| a)
    } else {
        &rest[host.len()..]
    };
    port_ok(after_host) && (host.eq_ignore_ascii_case("localhost") || host == "127.0.0.1" || host == "::1")
}

fn header_str<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap_or("\u{fffd}"))
}

/// Checks that do not need the body: origin, media types, protocol version header. `Some`
/// is the refusal.
fn refuse_headers(state: &AppState, headers: &HeaderMap) -> Option<Response> {
    let null = Value::Null;
    if let Some(origin) = header_str(headers, "origin") {
        if !origin_allowed(origin, &state.allowed_origins) {
            let message = format!("origin {origin} is not allowed");
            return Some(rpc_error(StatusCode::FORBIDDEN, &null, INVALID_REQUEST, &message));
        }
    }
    let content_type = header_str(headers, "content-type").unwrap_or("");
    let media = content_type.split(';').next().unwrap_or("").trim();
    if !media.eq_ignore_ascii_case("application/json") {
        let message = "Content-Type must be application/json";
        return Some(rpc_error(StatusCode::UNSUPPORTED_MEDIA_TYPE, &null, INVALID_REQUEST, message));
    }
    if let Some(accept) = header_str(headers, "accept") {
        let acceptable = accept.split(',').any(|part| {
            let media = part.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
            matches!(media.as_str(), "application/json" | "application/*" | "*/*")
        });
        if !acceptable {
            let message = "Accept must allow application/json (this server sends JSON responses, never SSE)";
            return Some(rpc_error(StatusCode::NOT_ACCEPTABLE, &null, INVALID_REQUEST, message));
        }
    }
    if let Some(version) = header_str(headers, "mcp-protocol-version") {
        if !PROTOCOL_VERSIONS.contains(&version) {
            let message = format!(
                "unsupported MCP-Protocol-Version {version:?}; supported: {}",
                PROTOCOL_VERSIONS.join(", ")
            );
            return Some(rpc_error(StatusCode::BAD_REQUEST, &null, INVALID_REQUEST, &message));
        }
    }
    None
}

async fn handle_post(State(state): State<Arc<AppState>>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(refusal) = refuse_headers(&state, &headers) {
        return refusal;
    }
    let null = Value::Null;
    let message: Value = match serde_json::from_slice(&body) {
        Ok(v) => v,
        Err(e) => {
            return rpc_error(StatusCode::BAD_REQUEST, &null, PARSE_ERROR, &format!("parse error: {e}"))
        }
    };
    let Value::Object(message) = message else {
        let text = if message.is_array() {
            "JSON-RPC batches are not supported: send one request per HTTP POST"
        } else {
            "a JSON-RPC message is a JSON object"
        };
        return rpc_error(StatusCode::BAD_REQUEST, &null, INVALID_REQUEST, text);
    };
    let id = message.get("id").cloned();
    let id_ok = matches!(id, None | Some(Value::String(_)) | Some(Value::Number(_)));
    let reply_id = if id_ok { id.clone().unwrap_or(Value::Null) } else { Value::Null };
    if message.get("jsonrpc") != Some(&json!("2.0")) || !id_ok {
        let text = "invalid JSON-RPC 2.0 message (jsonrpc must be \"2.0\"; id a string or a number)";
        return rpc_error(StatusCode::BAD_REQUEST, &reply_id, INVALID_REQUEST, text);
    }

    // A presented credential must be valid, whatever the method.
    let authorization = header_str(&headers, "authorization").map(str::to_string);
    let principal = match authorization {
        Some(value) => {
            let store = state.store.clone();
            match tokio::task::spawn_blocking(move || authenticate(&store, Some(&value))).await {
                Ok(Some(p)) => Some(p),
                Ok(None) => return unauthorized(&reply_id, "invalid or revoked bearer token"),
                Err(_) => {
                    return rpc_error(
                        StatusCode::INTERNAL_SERVER_ERROR,
                        &reply_id,
                        INTERNAL_ERROR,
                        "internal error",
                    )
                }
            }
        }
        None => None,
    };

    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // A response or error from the client (we never ask it anything): acknowledged.
        if id.is_some() && (message.contains_key("result") || message.contains_key("error")) {
            return StatusCode::ACCEPTED.into_response();
        }
        return rpc_error(
            StatusCode::BAD_REQUEST,
            &reply_id,
            INVALID_REQUEST,
            "a JSON-RPC request needs a method",
        );
    };
    let Some(id) = id else {
        // A notification (e.g. notifications/initialized): accepted, nothing to answer.
        return StatusCode::ACCEPTED.into_response();
    };
    let params = message.get("params").cloned().unwrap_or(json!({}));
    match method {
        "initialize" => rpc_result(&id, &initialize_result(&params).to_string()),
        "ping" => rpc_result(&id, "{}"),
        "tools/list" => rpc_result(&id, &state.tools_list),
        "tools/call" => call_tool(&state, &id, principal, params).await,
        _ => rpc_error(StatusCode::OK, &id, METHOD_NOT_FOUND, &format!("method not found: {method}")),
    }
}

fn initialize_result(params: &Value) -> Value {
    let requested = params.get("protocolVersion").and_then(Value::as_str).unwrap_or("");
    let version = if PROTOCOL_VERSIONS.contains(&requested) { requested } else { LATEST_PROTOCOL_VERSION };
    json!({
        "protocolVersion": version,
        "capabilities": {"tools": {"listChanged": false}},
        "serverInfo": {"name": "docforge-coord", "version": env!("CARGO_PKG_VERSION")},
        "instructions": "DocForge coordination server: work packages, reviews, decisions, gates and baselines \
                         as an idempotent event log. Every tools/call needs Authorization: Bearer <token>; \
                         every mutation needs an idempotency_key.",
    })
}

async fn call_tool(state: &AppState, id: &Value, principal: Option<Principal>, params: Value) -> Response {
    let Some(principal) = principal else {
        return unauthorized(id, "tools/call needs Authorization: Bearer <token>");
    };
    let Some(name) = params.get("name").and_then(Value::as_str).map(str::to_string) else {
        return rpc_error(StatusCode::OK, id, INVALID_PARAMS, "tools/call needs params.name (a string)");
    };
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(Value::Object(map)) => Value::Object(map.clone()),
        Some(_) => {
            return rpc_error(StatusCode::OK, id, INVALID_PARAMS, "params.arguments must be an object")
        }
    };
    let store = state.store.clone();
    let outcome =
        tokio::task::spawn_blocking(move || tools::call(&store, &principal, &name, arguments).ok_or(name));
    match outcome.await {
        Ok(Ok(result)) => rpc_result(id, &result),
        Ok(Err(name)) => rpc_error(StatusCode::OK, id, INVALID_PARAMS, &format!("unknown tool: {name}")),
        Err(_) => rpc_error(StatusCode::OK, id, INTERNAL_ERROR, "internal error"),
    }
}

#[cfg(test)]
mod tests {
    use super::origin_allowed;

    #[test]
    fn loopback_origins_are_allowed_and_others_only_when_listed() {
        for ok in ["http://localhost", "http://localhost:3000", "http://127.0.0.1:8080", "https://[::1]:1"] {
            assert!(origin_allowed(ok, &[]), "{ok}");
        }
        for bad in [
            "https://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io",
            "null",
            "http://[::2]",
        ] {
            assert!(!origin_allowed(bad, &[]), "{bad}");
        }
        assert!(origin_allowed("https://app.example", &["https://app.example".to_string()]));
    }
}
