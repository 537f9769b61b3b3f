//! The stdio wire in front of rmcp: newline-delimited JSON-RPC, each line checked before rmcp
//! reads it, so that a client's malformed message gets the JSON-RPC error the specification
//! names instead of silence or a misleading code:
//!
//! - a line that is not JSON: `-32700` (parse error, `id: null`);
//! - JSON that is not a JSON-RPC 2.0 message (not an object, no `"jsonrpc": "2.0"`, an `id`
//!   that is not a string, number or null, neither a string `method` nor a response's
//!   `result` or `error`, or both): `-32600` (invalid request, with its `id` when that is a
//!   string or number, else `id: null`);
//! - a request whose `params` is not an object, or a `tools/call` whose `params.arguments` is
//!   not one: `-32602` (invalid params, with the request's `id`).
//!
//! - a line that is not UTF-8: `-32700`; one longer than 16 MiB: `-32600` (discarded as it
//!   streams in, never held whole).
//!
//! Every other line goes to rmcp unchanged (a leading byte-order mark is allowed, as rmcp
//! allows it). Replies, rmcp's and these, reach stdout whole
//! lines at a time through one writer.

use serde_json::{json, Value};
use tokio::io::{
    AsyncBufRead, AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream,
};
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
    // A request or notification names its method (a request by a string or number id); a
    // client's response to a server request carries a result or an error (an error may lack
    // the id it could not tell), never both, and no method.
    let (has_result, has_error) = (obj.contains_key("result"), obj.contains_key("error"));
    let id = obj.get("id");
    let message = match obj.get("method") {
        Some(Value::String(_)) => !has_result && !has_error,
        Some(_) => false,
        None => has_result != has_error && (has_error || id.is_some()),
    };
    let id_ok = id.is_none_or(|v| v.is_string() || v.is_number() || v.is_null());
    if obj.get("jsonrpc").and_then(Value::as_str) != Some("2.0") || !message || !id_ok {
        let id = id.filter(|v| v.is_string() || v.is_number()).cloned().unwrap_or(Value::Null);
        return error(
            id,
            -32600,
            "Invalid Request: a JSON-RPC 2.0 message has \"jsonrpc\": \"2.0\", a string or number \
             \"id\" if any, and a string \"method\" (a response: a \"result\" or an \"error\")"
                .into(),
        );
    }
    let method = obj.get("method").and_then(Value::as_str);
    let id = id.cloned().unwrap_or(Value::Null);
    match obj.get("params") {
        // A notification's (no id) is not answered, as JSON-RPC says; rmcp drops it.
        Some(p) if !p.is_object() && !id.is_null() => {
            return error(id, -32602, format!("Invalid params: `params` must be an object, not {}", kind(p)));
        }
        _ => {}
    }
    if method != Some("tools/call") {
        return None;
    }
    match obj.get("params") {
        Some(Value::Object(params)) => match params.get("arguments") {
            // `null` is no arguments, as rmcp reads it.
            None | Some(Value::Null) | Some(Value::Object(_)) => None,
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

/// The longest line read (rmcp's own limit): a longer one is discarded as it streams in and
/// answered `-32600`.
const MAX_LINE: usize = 16 * 1024 * 1024;

/// One line of input: its bytes (without the newline), or `None` when it was longer than
/// [`MAX_LINE`] (then discarded).
async fn next_line<R: AsyncBufRead + Unpin>(input: &mut R) -> std::io::Result<Option<Option<Vec<u8>>>> {
    let mut line = Vec::new();
    let mut oversized = false;
    loop {
        let buf = input.fill_buf().await?;
        if buf.is_empty() {
            // End of input: a last line without a newline still counts.
            return Ok((!line.is_empty() || oversized).then(|| (!oversized).then_some(line)));
        }
        let (take, done) = match buf.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (buf.len(), false),
        };
        if !oversized {
            line.extend_from_slice(&buf[..take]);
            if line.len() > MAX_LINE + 1 {
                oversized = true;
                line = Vec::new();
            }
        }
        input.consume(take);
        if done {
            if line.last() == Some(&b'\n') {
                line.pop();
            }
            return Ok(Some((!oversized).then_some(line)));
        }
    }
}

/// The reply to an input line, or `Ok(line)` to hand it to rmcp unchanged.
fn judge(line: Option<Vec<u8>>) -> Result<Vec<u8>, Value> {
    let error = |code: i64, message: &str| json!({ "jsonrpc": "2.0", "id": null, "error": { "code": code, "message": message } });
    let Some(bytes) = line else {
        return Err(error(-32600, "Invalid Request: the message is longer than 16 MiB"));
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Err(error(-32700, "Parse error: the line is not UTF-8"));
    };
    // rmcp accepts a line that starts with a byte-order mark; so is it judged.
    match check(text.strip_prefix('\u{feff}').unwrap_or(text)) {
        Some(reply) => Err(reply),
        None => Ok(bytes),
    }
}

/// The (reader, writer) pair rmcp serves on: lines from `input` that pass [`check`] reach the
/// reader; what rmcp writes, and the replies of lines that do not pass, go to `output` — by
/// the returned task, which ends once rmcp has dropped its writer, the input has ended and
/// all is written (a reply is never dropped for rmcp's ending first).
pub fn filtered<R, W>(input: R, output: W) -> (DuplexStream, DuplexStream, tokio::task::JoinHandle<()>)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (rmcp_in, mut to_rmcp) = tokio::io::duplex(PIPE);
    let (from_rmcp, rmcp_out) = tokio::io::duplex(PIPE);
    let (replies, mut replies_rx) = mpsc::unbounded_channel::<String>();
    tokio::spawn(async move {
        let mut input = BufReader::new(input);
        while let Ok(Some(line)) = next_line(&mut input).await {
            if line.as_ref().is_some_and(|l| l.iter().all(u8::is_ascii_whitespace)) {
                continue;
            }
            match judge(line) {
                Err(reply) => {
                    if replies.send(reply.to_string()).is_err() {
                        break;
                    }
                }
                Ok(mut bytes) => {
                    bytes.push(b'\n');
                    if to_rmcp.write_all(&bytes).await.is_err() {
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
        let mut broken = false;
        let mut from_rmcp = BufReader::new(from_rmcp).lines();
        let mut rmcp_open = true;
        let mut replies_open = true;
        while rmcp_open || replies_open {
            let line = tokio::select! {
                biased;
                r = replies_rx.recv(), if replies_open => match r {
                    Some(reply) => reply,
                    None => { replies_open = false; continue; }
                },
                l = from_rmcp.next_line(), if rmcp_open => match l {
                    Ok(Some(l)) => l,
                    _ => { rmcp_open = false; continue; }
                },
            };
            // A closed stdout: what rmcp writes is still read (so it never blocks), and dropped.
            if !broken {
                let written = output.write_all(format!("{line}\n").as_bytes()).await;
                broken = written.is_err() || output.flush().await.is_err();
            }
        }
    });
    (rmcp_in, rmcp_out, writer)
}

#[cfg(test)]
mod tests {
    use super::{check, judge, next_line};
    use serde_json::json;

    #[test]
    fn lines_are_bounded_and_judged_as_bytes() {
        let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
        let mut input: &[u8] =
            b"a\n\xe9\n\xef\xbb\xbf{\"jsonrpc\":\"2.0\",\"method\":\"ping\",\"id\":1}\nlast";
        let mut lines = Vec::new();
        while let Some(line) = rt.block_on(next_line(&mut input)).unwrap() {
            lines.push(line);
        }
        assert_eq!(lines.len(), 4);
        let codes: Vec<Option<i64>> =
            lines.into_iter().map(|l| judge(l).err().map(|r| r["error"]["code"].as_i64().unwrap())).collect();
        assert_eq!(codes, [Some(-32700), Some(-32700), None, Some(-32700)], "a, non-UTF-8, BOM + ping, last");
        let mut big: &[u8] = &[b'x'; super::MAX_LINE + 10];
        let line = rt.block_on(next_line(&mut big)).unwrap();
        assert_eq!(line, Some(None), "an oversized line is discarded");
        assert_eq!(judge(None).unwrap_err()["error"]["code"], -32600);
    }

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
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":null}}"#,
                None,
            ),
            (r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#, None),
            ("{}", Some((json!(null), -32600))),
            (r#"{"jsonrpc":"2.0","id":3}"#, Some((json!(3), -32600))),
            (r#"{"jsonrpc":"2.0","id":[1],"method":5}"#, Some((json!(null), -32600))),
            (r#"{"jsonrpc":"1.0","id":4,"method":"ping"}"#, Some((json!(4), -32600))),
            (r#"{"id":5,"method":"ping"}"#, Some((json!(5), -32600))),
            (r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#, None),
            (r#"{"jsonrpc":"2.0","id":6,"result":{}}"#, None),
            (r#"{"jsonrpc":"2.0","id":6,"error":{"code":1,"message":"m"}}"#, None),
            (r#"{"jsonrpc":"2.0","error":{"code":1,"message":"m"}}"#, None),
            (r#"{"jsonrpc":"2.0","result":{}}"#, Some((json!(null), -32600))),
            (r#"{"jsonrpc":"2.0","id":6,"result":{},"error":{}}"#, Some((json!(6), -32600))),
            (r#"{"jsonrpc":"2.0","id":6,"method":"ping","result":{}}"#, Some((json!(6), -32600))),
            (r#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#, Some((json!(null), -32600))),
            (r#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#, Some((json!(null), -32600))),
            (r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":5}"#, Some((json!(9), -32602))),
            (r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":5}"#, None),
            (r#"{"jsonrpc":"2.0","id":9,"method":"ping","params":{}}"#, None),
        ];
        for (line, want) in cases {
            let got = check(line).map(|r| (r["id"].clone(), r["error"]["code"].as_i64().unwrap()));
            assert_eq!(got, want, "{line}");
        }
    }
}
