//! The `mcp` phase: the real `docforge mcp` binary (next to this bench binary) driven over
//! stdio with raw JSON-RPC, on a corpus with a published index: bootstrap latency, warm
//! read latencies (p50/p90 of round trips as a client sees them) and the latency of a call
//! right after a one-file edit on disk (which includes the incremental re-sync), 40 edits.

use crate::{ms, EDIT_FILE};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

struct Client {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    next: u64,
}

impl Client {
    fn send(&mut self, msg: &Value) {
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next += 1;
        let id = self.next;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "server closed stdout");
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// One tools/call; returns (milliseconds, structured result).
    fn call(&mut self, name: &str, args: Value) -> (f64, Value) {
        let t = Instant::now();
        let v = self.request("tools/call", json!({ "name": name, "arguments": args }));
        let elapsed = ms(t.elapsed());
        let sc = v["result"]["structuredContent"].clone();
        assert!(v["result"]["isError"] != json!(true), "{name} failed: {sc}");
        (elapsed, sc)
    }
}

fn percentile(samples: &mut [f64], p: f64) -> f64 {
    samples.sort_by(|a, b| a.partial_cmp(b).unwrap());
    samples[((samples.len() - 1) as f64 * p).round() as usize]
}

pub fn mcp(corpus: &Path) -> Value {
    let bin = std::env::current_exe().unwrap().with_file_name("docforge");
    assert!(bin.is_file(), "build docforge next to the bench: cargo build --release -p docforge-cli");
    let t = Instant::now();
    let status =
        Command::new(&bin).arg("--project-root").arg(corpus).args(["index", "--json"]).output().unwrap();
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stderr));
    let index_ms = ms(t.elapsed());

    let start = Instant::now();
    let mut child = Command::new(&bin)
        .arg("--project-root")
        .arg(corpus)
        .args(["mcp", "--diagnostics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let mut c = Client { child, stdin, stdout, next: 0 };
    let init = json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "bench", "version": "1" } });
    c.request("initialize", init);
    c.send(&json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }));
    let (bootstrap_ms, boot) = c.call("docforge_bootstrap", json!({}));
    let start_to_bootstrap_ms = ms(start.elapsed());
    assert_eq!(boot["staleness"], "current", "bootstrap adopts the published index");

    let reads = [
        ("docforge_get_node", json!({ "node_id": "go:net/http::Server" })),
        ("docforge_search", json!({ "query": "ListenAndServe", "limit": 20 })),
        ("docforge_backlinks", json!({ "node_id": "go:net/http::Handler", "limit": 50 })),
        ("docforge_impact", json!({ "node_id": "go:net/http::Handler", "depth": 2, "limit": 50 })),
    ];
    let mut warm = serde_json::Map::new();
    for (name, args) in &reads {
        let mut samples: Vec<f64> = (0..40).map(|_| c.call(name, args.clone()).0).collect();
        warm.insert(
            name.to_string(),
            json!({ "p50_ms": percentile(&mut samples, 0.5), "p90_ms": percentile(&mut samples, 0.9) }),
        );
    }

    // Edits on disk: typing in one function body of net/http/server.go, then one call.
    let path = corpus.join(EDIT_FILE);
    let original = std::fs::read_to_string(&path).unwrap();
    let anchor = "func (c *conn) hijacked() bool {\n";
    assert!(original.contains(anchor), "edit anchor present");
    let edit = |i: usize| {
        let text = original.replacen(anchor, &format!("{anchor}\t_ = {i}\n"), 1);
        std::fs::write(&path, text).unwrap();
    };
    edit(0);
    let (first_edit_ms, first) = c.call("docforge_get_node", json!({ "node_id": "go:net/http::Server" }));
    assert_eq!(first["staleness"], "rebuilt");
    let mut edits = Vec::new();
    let mut stages = Value::Null;
    for i in 1..=40 {
        edit(i);
        std::thread::sleep(Duration::from_millis(20));
        let (t, sc) = c.call("docforge_get_node", json!({ "node_id": "go:net/http::Server" }));
        assert_eq!(sc["staleness"], "rebuilt");
        edits.push(t);
        stages = sc["diagnostics"]["stages_ms"].clone();
        stages["server_total"] = sc["diagnostics"]["total_ms"].clone();
        stages["round_trip"] = json!(t);
    }
    std::fs::write(&path, &original).unwrap();
    drop(c.stdin);
    let _ = c.child.wait();
    json!({
        "phase": "mcp",
        "index_ms": index_ms,
        "bootstrap_ms": bootstrap_ms,
        "start_to_bootstrap_ms": start_to_bootstrap_ms,
        "warm": warm,
        "first_edit_ms": first_edit_ms,
        "edit_p50_ms": percentile(&mut edits, 0.5),
        "edit_p90_ms": percentile(&mut edits, 0.9),
        "last_edit_stages_ms": stages,
        "bootstrap_stages_ms": boot["diagnostics"]["stages_ms"],
    })
}
