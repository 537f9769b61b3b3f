//! The stdio wire in front of rmcp: newline-delimited JSON-RPC, each line checked before rmcp
//! reads it, so that a client's malformed message gets the JSON-RPC error the specification
//! names instead of silence or a misleading code:
//!
//! - a line that is not JSON: `-32700` (parse error, `id: null`);
//! - JSON that is not a JSON-RPC object: `-32600` (invalid request, `id: null`);
//! - a `tools/call` whose `params` or `params.arguments` is not an object: `-32602` (invalid
//!   params, with the request's `id`).
//!
//! Every other line goes to rmcp unchanged. Replies, rmcp's and these, reach stdout whole
//! lines at a time through one writer.

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

/// Pipe capacity between the wire and rmcp, each way.
const PIPE: usize = 1 << 16;

/// The error reply a line gets, if any (`None`: the line is for rmcp).
pub fn check(line: &str) -> Option<Value> {
    let error = |id: Value, code: i64, message: String| {
        Some(json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }))
    };
    let msg: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) => return error(Value::Null, -32700, format!("Parse error: the line is not JSON ({e})")),
    };
    let Some(obj) = msg.as_object() else {
        return error(Value::Null, -32600, "Invalid Request: a JSON-RPC message is a JSON object".into());
    };
    if obj.get("method").and_then(Value::as_str) != Some("tools/call") {
        return None;
    }
    let id = obj.get("id").cloned().unwrap_or(Value::Null);
    match obj.get("params") {
        Some(Value::Object(params)) => match params.get("arguments") {
            None | Some(Value::Object(_)) => None,
            Some(other) => error(
                id,
                -32602,
                format!("Invalid params: `arguments` must be an object, not {}", kind(other)),
            ),
        },
        Some(other) => {
            error(id, -32602, format!("Invalid params: `params` must be an object, not {}", kind(other)))
        }
        None => error(id, -32602, "Invalid params: tools/call needs `params` with the tool's `name`".into()),
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The (reader, writer) pair rmcp serves on: lines from `input` that pass [`check`] reach the
/// reader; what rmcp writes, and the replies of lines that do not pass, go to `output` — by
/// the returned task, which ends once rmcp has dropped its writer and all is written.
pub fn filtered<R, W>(input: R, output: W) -> (DuplexStream, DuplexStream, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_in, mut to_rmcp) = tokio::io::duplex(PIPE);
    let (from_rmcp, rmcp_out) = tokio::io::duplex(PIPE);
    let (replies, mut replies_rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut lines = BufReader::new(input).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            if line.trim().is_empty() {
                continue;
            }
            match check(&line) {
                Some(reply) => {
                    if replies.send(reply.to_string()).is_err() {
                        break;
                    }
                }
                None => {
                    if to_rmcp.write_all(format!("{line}\n").as_bytes()).await.is_err() {
                        break;
                    }
                }
            }
        }
        // End of input: rmcp sees its input close and stops.
        let _ = to_rmcp.shutdown().await;
    });
    let writer = tokio::spawn(async move {
        let mut output = output;
        let mut from_rmcp = BufReader::new(from_rmcp).lines();
        loop {
            let line = tokio::select! {
                l = from_rmcp.next_line() => match l {
                    Ok(Some(l)) => l,
                    _ => break,
                },
                Some(reply) = replies_rx.recv() => reply,
            };
            if output.write_all(format!("{line}\n").as_bytes()).await.is_err()
                || output.flush().await.is_err()
            {
                break;
            }
        }
    });
    (rmcp_in, rmcp_out, writer)
}

#[cfg(test)]
mod tests {
    use super::check;
    use serde_json::json;

    #[test]
    fn malformed_messages_get_their_json_rpc_errors() {
        let cases = [
            ("{not json", Some((json!(null), -32700))),
            ("[1, 2]", Some((json!(null), -32600))),
            ("42", Some((json!(null), -32600))),
            (
                r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"x","arguments":"s"}}"#,
                Some((json!(7), -32602)),
            ),
            (
                r#"{"jsonrpc":"2.0","id":"a","method":"tools/call","params":{"name":"x","arguments":[1]}}"#,
                Some((json!("a"), -32602)),
            ),
            (r#"{"jsonrpc":"2.0","id":8,"method":"tools/call","params":"x"}"#, Some((json!(8), -32602))),
            (r#"{"jsonrpc":"2.0","id":9,"method":"tools/call"}"#, Some((json!(9), -32602))),
            (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{}}}"#, None),
            (r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#, None),
            (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, None),
        ];
        for (line, want) in cases {
            let got = check(line).map(|r| (r["id"].clone(), r["error"]["code"].as_i64().unwrap()));
            assert_eq!(got, want, "{line}");
        }
    }
}
